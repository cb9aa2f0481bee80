"""What covert records about how a dataset was made, without the maker's local paths.

A manifest's ``command`` and the card's "how to regenerate" line come from the command line, whose
``--out`` and source arguments are paths on the machine that built it (``/home/maria/data/x``);
``covert push`` would publish them. Every absolute or home-relative path in them is recorded by its
last component (``--out x``): the command still reads as what was run, and ``covert regenerate`` never
reads paths from it (it rebuilds from the manifest's config, into the ``--out`` it is given).
"""

from __future__ import annotations

import re
import shlex

_ABSOLUTE = re.compile(r"^(?:~[^/\\]*|[A-Za-z]:)?[/\\]|^~$")


def portable_path(value: str) -> str:
    """``value`` as recorded: an absolute path (``/a/b``, ``~/a/b``, ``C:\\a\\b``) by its last component,
    anything else (a relative path, a Hub repo id, a URL) as it is."""
    if not isinstance(value, str) or not _ABSOLUTE.match(value):
        return value
    name = re.split(r"[/\\]", value.rstrip("/\\"))[-1]
    return name if name and not name.startswith("~") and not name.endswith(":") else "DIR"


def _portable_token(token: str) -> str:
    option, equals, rest = token.partition("=")
    if equals and option.startswith("-"):
        return f"{option}={portable_path(rest)}"
    return portable_path(token)


def portable_command(command: str) -> str:
    """``command`` (one command per line) with every absolute path argument recorded by its last component."""
    lines = []
    for line in command.splitlines():
        try:
            tokens = shlex.split(line)
        except ValueError:  # unbalanced quotes: split on whitespace
            tokens = line.split()
        lines.append(shlex.join(_portable_token(token) for token in tokens))
    return "\n".join(lines)


__all__ = ["portable_command", "portable_path"]
