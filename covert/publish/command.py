"""``covert push``, ``covert regenerate`` and ``covert export`` (registered by :mod:`covert.cli`)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the subcommands; filled in by the publishing stage."""
