"""Procedural reasoning environments: programs that sample instances, compute references and score responses."""
