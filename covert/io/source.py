"""Telling a local dataset path from a Hub dataset id before anything is asked of the Hub.

``data/covert-tools`` could name a folder or a Hub repo ``data/covert-tools``. A typo in a local path
must be a local error at once, not a minute of Hub requests that end in "not found": an argument is
read as a local path when it looks like one (it starts with ``/``, ``.`` or ``~``, ends with a
separator, has more than one ``/`` or a backslash) or when its first folder exists here.
"""

from __future__ import annotations

import re
from pathlib import Path

from covert.io.reader import DatasetError

__all__ = ["check_source", "is_path_like"]

_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def is_path_like(source: str) -> bool:
    """Whether ``source`` is meant as a local path rather than a Hub dataset id ``owner/name``."""
    if source.startswith(("/", ".", "~")) or source.endswith("/") or "\\" in source or not _REPO_ID.match(source):
        return True
    return Path(source.split("/", 1)[0]).is_dir()


def check_source(source: str) -> None:
    """Raise :class:`DatasetError` (one line) when ``source`` is a local path that does not exist."""
    if Path(source).exists() or not is_path_like(source):
        return
    parent = Path(source).parent
    where = f"{parent}/ holds no {Path(source).name}" if parent.is_dir() and str(parent) != "." else "no such folder"
    raise DatasetError(f"{source} is neither a dataset directory nor a Hub dataset id (owner/name): it does not exist "
                       f"here ({where}), and a local path is not looked up on the Hub")
