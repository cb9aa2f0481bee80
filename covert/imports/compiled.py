"""Where imported environments keep their compiled argument validators: in the environment store.

Layout::

    <store>/compiled/<environment name>.validators

The files and how they are made and read: :mod:`covert.env.compiled`. ``KEY`` there names an imported
environment's version as a hash of its source spec plus the binder version.
"""

from __future__ import annotations

from pathlib import Path

from covert.env.compiled import SUFFIX, CompiledValidators

COMPILED = "compiled"

__all__ = ["COMPILED", "SUFFIX", "CompiledValidators", "compiled_path"]


def compiled_path(store: str | Path, name: str) -> Path:
    """Where the compiled validators of environment ``name`` live in ``store``."""
    return Path(store) / COMPILED / f"{name}{SUFFIX}"
