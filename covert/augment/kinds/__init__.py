"""Augmentation kinds, one module each; every module defines ``KIND`` (see :mod:`covert.augment.registry`)."""
