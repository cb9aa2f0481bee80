"""The environment store: where ``covert import ...`` writes imported API specs and the binder reads them.

Layout (version 1)::

    <store>/                      default ~/.cache/covert/envs, or $COVERT_ENVS, or --store DIR
        specs/
            <safe id>.json        one ApiSpec per API, ApiSpec.to_dict() as JSON (sorted keys, UTF-8)

``<safe id>`` is :func:`safe_id` of ``ApiSpec.api``: the id with every character outside
``[A-Za-z0-9._-]`` replaced by ``_``, then ``~`` and the first 10 hex digits of the id's SHA-256, so two
ids that differ only in punctuation never share a file and the name says which API it holds. A spec
is written to ``.<safe id>.json.tmp-PID`` in the same folder and renamed into place, so a reader never
sees half a file; importing the same API again replaces its file. Files are read in sorted name
order, so :func:`load_specs` yields the same specs in the same order on every machine. Other folders
under ``<store>`` (the binder's) are not this module's.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import orjson

from covert.atomic import write_atomically
from covert.errors import UsageError
from covert.imports.model import ApiSpec

DEFAULT_STORE = Path.home() / ".cache" / "covert" / "envs"
SPECS = "specs"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class StoreError(UsageError):
    """A store entry that cannot be read; the message names the file and what to do."""


def store_dir(arg: str | os.PathLike[str] | None = None) -> Path:
    """The store folder: ``arg`` when given, else ``$COVERT_ENVS``, else ``~/.cache/covert/envs``."""
    if arg:
        return Path(arg).expanduser()
    env = os.environ.get("COVERT_ENVS")
    return Path(env).expanduser() if env else DEFAULT_STORE


def safe_id(api: str) -> str:
    """A file-name-safe, collision-free form of an API id (see the module docstring)."""
    digest = hashlib.sha256(api.encode("utf-8")).hexdigest()[:10]
    return f"{_UNSAFE.sub('_', api)[:150]}~{digest}"


def spec_path(store: str | os.PathLike[str], api: str) -> Path:
    """Where the spec of API ``api`` lives in ``store``."""
    return Path(store) / SPECS / f"{safe_id(api)}.json"


def dump_spec(spec: ApiSpec) -> bytes:
    """The exact bytes a spec is stored as (same spec, same bytes)."""
    return json.dumps(spec.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def save_spec(store: str | os.PathLike[str], spec: ApiSpec) -> Path:
    """Write ``spec`` into ``store`` atomically (temp file, then rename); returns its path."""
    return write_atomically(spec_path(store, spec.api), dump_spec(spec))


def read_spec(path: str | os.PathLike[str]) -> ApiSpec:
    """One stored spec; raises :class:`StoreError` naming the file when it is not a stored ApiSpec."""
    try:
        data = Path(path).read_bytes()
        try:
            parsed = orjson.loads(data)
        except orjson.JSONDecodeError:  # what orjson refuses (integers past 64 bits, NaN) json reads
            parsed = json.loads(data.decode("utf-8"))
        return ApiSpec.from_dict(parsed)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise StoreError(f"{path} is not a stored API spec ({type(exc).__name__}); "
                         f"re-import it or delete the file") from None


def load_spec(store: str | os.PathLike[str], api: str) -> ApiSpec:
    """The stored spec of API ``api``; raises :class:`StoreError` when it was never imported."""
    path = spec_path(store, api)
    if not path.is_file():
        raise StoreError(f"no spec for {api!r} in {Path(store)}; import it first (covert import ...)")
    return read_spec(path)


def spec_files(store: str | os.PathLike[str]) -> list[Path]:
    """The stored spec files, in sorted name order (temp files excluded)."""
    folder = Path(store) / SPECS
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix == ".json" and not p.name.startswith("."))


def load_specs(store: str | os.PathLike[str]) -> Iterator[ApiSpec]:
    """Every stored spec, in sorted file-name order."""
    for path in spec_files(store):
        yield read_spec(path)
