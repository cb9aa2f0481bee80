"""Bound environments kept in the store between processes.

Binding an admitted environment (inferring its tables and roles, typing its output schemas, writing its
language) is pure: the same spec, exclusions and code always give the same binding. It is also most of
what an imported environment costs a build before its first task (about 9 ms for a typical API, against
about 1 ms to read a kept one back). So the first process that binds an environment keeps the binding in
the store, beside its compiled validators, and every later process (a build, each of its workers) reads it
back instead of binding again::

    <store>/compiled/<environment name>.bound

A file holds a header line, the SHA-256 of the rest, then the pickle (not compressed: reading it back
is what a build pays for, and decompressing would add half again) of
``{"key": KEY, "api": BoundApi, "language": Language}``. The tools' implementations and the
Environment class are closures over the binding, so they are not kept: :func:`load` makes them again
(:func:`covert.imports.bind.implement`). ``KEY`` names everything the binding depends on: the spec file
(size and modification time, as a ``__pycache__`` entry does), the admitted entry (version and
exclusions), the source code of covert itself, the interpreter and the pickle protocol, so a new spec,
verification, covert or Python never loads an old binding. A file that is missing, stale, truncated or
corrupt is ignored and written again (temp file, then rename); nothing here raises on a bad file.

The store is trusted the way a ``__pycache__`` folder is (and as its compiled validators already are):
whoever can write it can run code as you.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import sys
from functools import cache
from pathlib import Path
from typing import Any

from covert.env import Language
from covert.imports.bind import BindError, BoundApi, implement
from covert.io.staging import write_atomically

BOUND_SUFFIX = ".bound"
HEADER = b"covert-bound 2\n"
_PROTOCOL = 5


@cache
def code_digest() -> str:
    """A digest of covert's own source code (every module): a binding made by other code is stale."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for source in sorted(root.rglob("*.py")):
        digest.update(str(source.relative_to(root)).encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_key(spec_path: Path, entry: dict[str, Any]) -> str | None:
    """What a kept binding must have been made from (``None`` when the spec file cannot be read)."""
    try:
        stat = spec_path.stat()
    except OSError:
        return None
    parts = [str(spec_path.name), stat.st_size, stat.st_mtime_ns, entry.get("version"), entry.get("exclude") or {},
             code_digest(), sys.implementation.cache_tag, sys.version, _PROTOCOL]
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def save(path: Path, key: str, api: BoundApi, language: Language) -> Path | None:
    """Keep the binding ``api`` and its ``language`` at ``path`` (``None`` when it cannot be kept:
    a read-only store, or a binding holding something that does not pickle)."""
    if any(bound.role.kind == "custom" for bound in api.tools.values()):
        return None  # LLM-written actions are bound from the spec and their admitted code each time
    try:  # the closures (implementations, Environment class) are left out by the classes themselves
        body = pickle.dumps({"key": key, "api": api, "language": language}, protocol=_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    try:
        return write_atomically(Path(path), HEADER + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    except OSError:
        return None


def load(path: Path, key: str) -> tuple[BoundApi, Language] | None:
    """The binding kept at ``path`` when it is whole and made for ``key`` (with its implementations
    and Environment class made again); else ``None``."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    head, _, rest = data.partition(b"\n")
    digest, _, body = rest.partition(b"\n")
    if head + b"\n" != HEADER or hashlib.sha256(body).hexdigest().encode() != digest:
        return None
    try:
        payload = pickle.loads(body)  # noqa: S301 - the store is trusted like __pycache__
    except Exception:  # a file another covert wrote (a class it names is gone): bind again
        return None
    if not isinstance(payload, dict) or payload.get("key") != key:
        return None
    api, language = payload.get("api"), payload.get("language")
    if not isinstance(api, BoundApi) or not isinstance(language, Language):
        return None
    try:
        implement(api)
    except BindError:
        return None
    return api, language
