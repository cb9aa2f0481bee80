"""Errors the CLI reports as one line with exit status 2."""

from __future__ import annotations


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit status 2."""
