"""``covert augment`` (registered by :mod:`covert.cli`)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the subcommand; filled in by the augmentation stage."""
