"""Domain builders. Each sub-package defines ``BUILDER = covert.env.Builder(...)``."""
