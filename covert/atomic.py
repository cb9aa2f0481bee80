"""Writing a file whole or not at all: the one helper every layer that keeps a file uses (the environment
runtime's caches, the stores, the stages' outputs). :mod:`covert.io.staging` sweeps what a killed writer left."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomically(path: str | Path, data: bytes | str) -> Path:
    """Write one file whole or not at all: into ``.NAME.tmp-PID`` next to it, then rename over ``path``
    (a reader sees the old file or the new one; a killed writer leaves a temporary :func:`sweep` knows)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
