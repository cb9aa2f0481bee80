"""Compiled argument validators of environments, kept on disk between processes.

Every tool call checks its arguments with a validator that fastjsonschema generates from the tool's
argument schema. Generating and compiling one costs about 1 ms for a hand-written tool and 4 ms for an
imported one (a Google or AWS tool's generated checker is often tens of kilobytes of Python): ~90 ms
for the 94 hand-written tools, 100 ms for a typical imported API, paid again by every process (a build,
each of its workers). :class:`CompiledValidators` generates each validator once, keeps its compiled
code, and writes the code of a whole environment to one file that any later process loads in a
fraction of a millisecond per tool. The validators are the very functions ``fastjsonschema.compile``
makes (same generated code, same messages); only where the bytecode comes from changes.

Where the files live: imported environments keep theirs in the environment store
(``<store>/compiled/<name>.validators``, :mod:`covert.imports.compiled`); hand-written ones in
:func:`cache_dir` (``$COVERT_VALIDATOR_CACHE``, default ``~/.cache/covert/validators``), named by the
environment and a digest of its argument schemas.

A file holds a header line, the SHA-256 of the rest, then the zlib-compressed ``marshal`` of
``{"key": KEY, "tools": {tool: (schema digest, function name, code)}}``. ``KEY`` names the
environment's version, the fastjsonschema version and the interpreter's bytecode tag, so a new
environment, library or Python never loads old code; a tool whose argument schema digest differs is
compiled afresh. A file that is missing, stale, truncated or corrupt is ignored and written again (temp
file, then rename); nothing here raises on a bad file, and a folder that cannot be written only means
each process compiles its own. The folder is trusted the way a ``__pycache__`` folder is: whoever can
write it can run code as you.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import re
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastjsonschema
import orjson
from fastjsonschema.ref_resolver import RefResolver

from covert.io.staging import write_atomically

SUFFIX = ".validators"
VALIDATOR_OPTIONS: dict[str, Any] = {"use_default": False}  # how argument schemas are compiled (fastjsonschema)
HEADER = b"covert-validators 1\n"
FORMAT = "1"


def cache_key(version: str) -> str:
    """What a compiled file must match to be loaded: environment version, library and bytecode."""
    return "|".join((FORMAT, version, fastjsonschema.VERSION, sys.implementation.cache_tag or "",
                     importlib.util.MAGIC_NUMBER.hex(), orjson.dumps(VALIDATOR_OPTIONS, option=orjson.OPT_SORT_KEYS).decode()))


def schema_digest(schema: dict[str, Any]) -> str:
    """A digest of one argument schema (a tool whose schema changed is compiled again)."""
    return hashlib.sha256(orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)).hexdigest()[:32]


def generate(schema: dict[str, Any]) -> tuple[str, bytes]:
    """``(function name, marshalled bytecode)`` of the validator fastjsonschema makes for ``schema``."""
    source = fastjsonschema.compile_to_code(schema, **VALIDATOR_OPTIONS)
    name = RefResolver.from_schema(schema, handlers={}, store={}).get_scope_name()
    return name, marshal.dumps(compile(source, f"<validator {name}>", "exec"))


def load_function(name: str, code: bytes) -> Any:
    """The validator function defined by marshalled bytecode ``code``."""
    namespace: dict[str, Any] = {"__name__": "covert_validator"}
    exec(marshal.loads(code), namespace)  # noqa: S102 - code fastjsonschema generated from the tool's own schema
    return namespace[name]


Entry = tuple[str, str, bytes]  # (schema digest, function name, marshalled bytecode)


class CompiledValidators:
    """The compiled argument validators of one environment; ``schemas()`` gives every tool's schema.

    Without a file (:meth:`attach`) validators are compiled as tools are first called and kept for
    :meth:`save` (``covert envs verify`` compiles them all, then saves them into the store). With a
    file, the file is read on first use; if it lacks a tool or is stale, every tool is compiled and
    the file written once. Bytecode a process has turned into a function is dropped once it is on disk.
    """

    def __init__(self, version: str, schemas: Callable[[], dict[str, dict[str, Any]]]) -> None:
        self.key = cache_key(version)
        self.schemas = schemas
        self.path: Path | None = None
        self.codes: dict[str, Entry] = {}
        self.loaded = False
        self.on_disk = False  # whether the file holds every entry of ``codes``
        self.compiled = 0  # validators generated in this process (the others came from the file)

    def attach(self, path: str | Path) -> None:
        """Back this cache with the file ``path``."""
        self.path, self.loaded, self.on_disk = Path(path), False, False

    def validator(self, tool: str, schema: dict[str, Any]) -> Any:
        """The validator function of ``tool``, whose argument schema is ``schema``."""
        if not self.loaded:
            self.loaded = True
            if self.path is not None:
                found = read(self.path, self.key)
                self.on_disk = bool(found) and not self.codes
                self.codes.update(found)
        digest = schema_digest(schema)
        entry = self.codes.get(tool)
        if entry is None or entry[0] != digest:
            if self.path is not None and not self.compiled:
                # the file is missing or stale: compile the whole environment once, so that every
                # later process finds all its tools there
                self._compile_all()
                try:
                    self.save()
                    self.on_disk = True
                except OSError:  # a read-only store or cache folder: this process keeps its compiled code
                    self.on_disk = False
                entry = self.codes.get(tool)
            if entry is None or entry[0] != digest:
                entry = self._compile(tool, schema, digest)
                self.on_disk = False
        function = load_function(entry[1], entry[2])
        if self.on_disk:
            del self.codes[tool]
        return function

    def _compile(self, tool: str, schema: dict[str, Any], digest: str) -> Entry:
        name, code = generate(schema)
        self.codes[tool] = entry = (digest, name, code)
        self.compiled += 1
        return entry

    def _compile_all(self) -> None:
        for tool, schema in self.schemas().items():
            digest = schema_digest(schema)
            entry = self.codes.get(tool)
            if entry is None or entry[0] != digest:
                try:
                    self._compile(tool, schema, digest)
                except Exception:  # a schema that does not compile fails again when its tool is called
                    continue

    def save(self, path: str | Path | None = None) -> Path | None:
        """Write the compiled validators to ``path`` (default: the attached file); returns it."""
        target = Path(path) if path is not None else self.path
        if target is None:
            return None
        return write(target, self.key, self.codes)

    def release(self) -> None:
        """Let go of the bytecode kept for saving (it is read from the file again if needed)."""
        self.codes.clear()
        self.loaded = False


def cache_dir() -> Path | None:
    """Where hand-written environments keep their compiled validators: ``$COVERT_VALIDATOR_CACHE``
    (``0`` or ``off``: nowhere, each process compiles its own), else ``~/.cache/covert/validators``."""
    chosen = os.environ.get("COVERT_VALIDATOR_CACHE")
    if chosen is None:
        return Path.home() / ".cache" / "covert" / "validators"
    return None if chosen.strip().lower() in ("", "0", "off", "no", "false") else Path(chosen).expanduser()


def cache_file(name: str, schemas: dict[str, dict[str, Any]]) -> Path | None:
    """The file in :func:`cache_dir` for an environment called ``name`` whose tools take ``schemas``:
    environments of one name with other schemas (two checkouts of covert) keep separate files."""
    folder = cache_dir()
    if folder is None:
        return None
    return folder / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name)[:100]}-{schema_digest(schemas)[:16]}{SUFFIX}"


def write(path: Path, key: str, codes: dict[str, Entry]) -> Path:
    """Write compiled validators atomically (temp file, then rename)."""
    body = zlib.compress(marshal.dumps({"key": key, "tools": dict(sorted(codes.items()))}), 6)
    return write_atomically(Path(path), HEADER + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)


def read(path: Path, key: str) -> dict[str, Entry]:
    """The compiled validators in ``path`` when it is whole and made for ``key``; else empty."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return {}
    head, _, rest = data.partition(b"\n")
    digest, _, body = rest.partition(b"\n")
    if head + b"\n" != HEADER or hashlib.sha256(body).hexdigest().encode() != digest:
        return {}
    try:
        payload = marshal.loads(zlib.decompress(body))
    except (ValueError, EOFError, TypeError, zlib.error):
        return {}
    if not isinstance(payload, dict) or payload.get("key") != key or not isinstance(payload.get("tools"), dict):
        return {}
    return {tool: entry for tool, entry in payload["tools"].items()
            if isinstance(entry, tuple) and len(entry) == 3 and isinstance(entry[1], str)
            and isinstance(entry[2], bytes)}
