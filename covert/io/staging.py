"""Crash-safe output folders: write into a private staging folder next to ``--out``, swap it into place.

Every command that writes a dataset folder (``build``, ``augment``, ``calibrate``, ``regenerate``)
goes through :func:`prepare_output` and :func:`publish`:

- The staging folder is ``.NAME.partial-PID`` next to ``NAME``; it holds a small owner file until it
  is published, so a later run can tell a dead run's leftovers from a live run's work.
- Publishing over an existing folder swaps the two in one ``renameat2(RENAME_EXCHANGE)`` on Linux:
  at no moment is ``NAME`` missing. The old data then sits in the staging folder's name and is deleted;
  a kill during that deletion leaves a stale staging folder, never a damaged ``NAME``.
- Where the exchange is not available (another OS, a file system without it) publishing takes two
  renames, ``NAME`` -> ``.NAME.old-PID`` and staging -> ``NAME``. A kill between them leaves ``NAME``
  missing; the next command that reads or writes ``NAME`` finds ``.NAME.old-PID`` and renames it back
  (:func:`restore`), saying so in one line.
- Without ``--overwrite`` publishing never replaces anything: the staging folder is renamed to ``NAME``
  only if nothing is there (``renameat2(RENAME_NOREPLACE)`` on Linux), so of two runs started into the
  same new ``NAME`` the second to finish fails with one line (:class:`OutputError`, exit 2) and the
  first one's dataset stays. Whether a run may replace is recorded in its owner file at
  :func:`prepare_output`.
- :func:`sweep`, run by :func:`prepare_output`, removes the leftovers of dead processes (staging
  folders, old copies, temporary files), one line each. A leftover of a process that is still running,
  or that another machine wrote, is left alone.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from covert.errors import UsageError

OWNER_FILE = ".covert-staging"
_LEFTOVER = re.compile(r"\.(?P<inner>.+)\.(?P<kind>partial|old|base|tmp)-(?P<pid>\d+)")
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


class OutputError(UsageError):
    """An output location that cannot be written; the message says what to do."""


def note(message: str) -> None:
    """One line on stderr about what a command did to the files around its output."""
    print(f"covert: {message}", file=sys.stderr, flush=True)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (a zombie, killed and not yet reaped, does not)."""
    if pid == os.getpid():
        return True
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


@dataclass(frozen=True)
class Leftover:
    """A hidden entry next to an output that a run of covert left: its kind and the pids in its name."""

    path: Path
    kind: str
    pids: tuple[int, ...]


def leftover_of(entry: str, name: str) -> Leftover | None:
    """Parse ``entry`` (a file name next to output ``name``) as a covert leftover of ``name``.

    ``.NAME.partial-PID``, ``.NAME.old-PID``, ``.NAME.base-PID`` (regenerate's rebuilt base) and
    ``.NAME.tmp-PID`` (an export in progress) are; so is the staging folder of a leftover
    (``..NAME.base-PID.partial-PID``).
    """
    match = _LEFTOVER.fullmatch(entry)
    if match is None:
        return None
    pid = int(match["pid"])
    inner = match["inner"]
    if inner == name:
        return Leftover(Path(entry), match["kind"], (pid,))
    nested = leftover_of(inner, name)
    if nested is None:
        return None
    return Leftover(Path(entry), "partial", (*nested.pids, pid))


def _owner_is_foreign(path: Path) -> bool:
    """Whether a staging folder's owner file names another machine (whose processes cannot be seen)."""
    try:
        owner = json.loads((path / OWNER_FILE).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(owner, dict) and owner.get("host") not in (None, socket.gethostname())


def _stale(item: Leftover, parent: Path) -> bool:
    return not _owner_is_foreign(parent / item.path) and not any(pid_alive(pid) for pid in item.pids)


def leftovers(out: Path) -> list[Leftover]:
    """The covert leftovers next to ``out`` (absolute paths), sorted by name."""
    parent = out.parent if str(out.parent) else Path(".")
    try:
        entries = sorted(os.listdir(parent))
    except OSError:
        return []
    found = []
    for entry in entries:
        item = leftover_of(entry, out.name)
        if item is not None:
            found.append(Leftover(parent / entry, item.kind, item.pids))
    return found


def restore(out: str | Path) -> bool:
    """If ``out`` is missing and a dead run left its old data in ``.NAME.old-PID`` (killed between the
    two renames of a non-atomic publish), rename it back; says so on stderr. Returns whether it did."""
    out = Path(out)
    if out.exists() or out.is_symlink():
        return False
    candidates = [item for item in leftovers(out) if item.kind == "old" and len(item.pids) == 1
                  and item.path.is_dir() and _stale(item, item.path.parent)]
    if not candidates:
        return False
    newest = max(candidates, key=lambda item: item.path.stat().st_mtime_ns)
    try:
        os.rename(newest.path, out)
    except OSError:
        return False
    note(f"restored {out} from {newest.path.name} (a run that was replacing it, process {newest.pids[0]}, "
         "was killed mid-swap)")
    return True


def sweep(out: str | Path) -> list[Path]:
    """Restore ``out`` if needed (:func:`restore`), then remove every leftover of ``out`` whose
    processes are gone, one line each on stderr. Returns the removed paths."""
    out = Path(out)
    restore(out)
    removed = []
    for item in leftovers(out):
        if not _stale(item, item.path.parent):
            continue
        if item.path.is_dir() and not item.path.is_symlink():
            shutil.rmtree(item.path, ignore_errors=True)
        else:
            item.path.unlink(missing_ok=True)
        if not item.path.exists():
            removed.append(item.path)
            what = {"partial": "staging folder", "old": "old copy", "base": "rebuilt base",
                    "tmp": "temporary file"}[item.kind]
            gone = ", ".join(str(pid) for pid in dict.fromkeys(item.pids))
            note(f"removed stale {what} {item.path.name} (left by process {gone}, no longer running)")
    return removed


def prepare_output(out: str | Path, overwrite: bool) -> Path:
    """Check the output location, clear dead runs' leftovers next to it, and return a fresh private
    staging folder there; raises :class:`OutputError` with what to do."""
    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    if parent.is_dir():
        sweep(out)
    if out.exists() and not overwrite:
        raise OutputError(f"{out} already exists; pass --overwrite to replace it or choose another --out")
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out} exists and is not a directory")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create {parent}: {exc.strerror}; choose a writable --out") from None
    if not os.access(parent, os.W_OK):
        raise OutputError(f"{parent} is not writable; choose a writable --out")
    staging = parent / f".{out.name}.partial-{os.getpid()}"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    (staging / OWNER_FILE).write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                                  "overwrite": bool(overwrite)}) + "\n")
    return staging


def _renameat2(a: Path, b: Path, flags: int) -> bool:
    """``renameat2(a, b, flags)`` (Linux); False where the system does not offer it or these flags."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    renameat2.restype = ctypes.c_int
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), flags) == 0:
        return True
    errno = ctypes.get_errno()
    if errno in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: this file system or kernel cannot
        return False
    raise OSError(errno, os.strerror(errno), str(a))


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False where unsupported."""
    return _renameat2(a, b, _RENAME_EXCHANGE)


def _may_replace(staging: Path) -> bool:
    """Whether the run that owns ``staging`` was allowed to replace its output (``--overwrite``)."""
    try:
        owner = json.loads((staging / OWNER_FILE).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(owner, dict) and owner.get("overwrite") is True


def _taken(out: Path) -> OutputError:
    return OutputError(f"{out} was written by another run while this one was working; nothing of it was "
                       "replaced. Pass --overwrite to replace it or choose another --out")


def _place(staging: Path, out: Path) -> None:
    """Rename ``staging`` to ``out`` only if nothing is at ``out``; :class:`OutputError` otherwise."""
    try:
        if _renameat2(staging, out, _RENAME_NOREPLACE):
            return
    except FileExistsError:
        raise _taken(out) from None
    except OSError as exc:
        if exc.errno == 17:  # EEXIST
            raise _taken(out) from None
        raise
    if out.exists() or out.is_symlink():  # no RENAME_NOREPLACE here: a check, then a rename that
        raise _taken(out)  # refuses a non-empty folder all the same
    try:
        os.rename(staging, out)
    except OSError as exc:
        if exc.errno in (17, 39):  # EEXIST, ENOTEMPTY
            raise _taken(out) from None
        raise


def publish(staging: Path, out: Path, exchange: bool = True) -> None:
    """Move a finished staging folder into place, replacing ``out`` only now.

    Over an existing ``out`` the two are swapped atomically where the system allows (``exchange``),
    else renamed in two steps (see the module docstring for what a kill between them leaves). A run
    without ``--overwrite`` never replaces anything: if another run published ``out`` meanwhile, this
    raises :class:`OutputError` (the caller discards its staging folder).
    """
    staging, out = Path(staging), Path(out)
    replace = _may_replace(staging)
    (staging / OWNER_FILE).unlink(missing_ok=True)
    if not replace:
        _place(staging, out)
        return
    if not out.exists():
        try:
            _place(staging, out)
            return
        except OutputError:
            pass  # published meanwhile by another run: this one may replace it
    if exchange and _exchange(staging, out):
        shutil.rmtree(staging, ignore_errors=True)  # the old data, now under the staging name
        return
    trash = out.parent / f".{out.name}.old-{os.getpid()}"
    if trash.exists():
        shutil.rmtree(trash)
    os.rename(out, trash)
    os.rename(staging, out)
    shutil.rmtree(trash, ignore_errors=True)


def discard(staging: Path) -> None:
    """Remove a staging folder that will not be published."""
    shutil.rmtree(staging, ignore_errors=True)


__all__ = ["OWNER_FILE", "Leftover", "OutputError", "discard", "leftover_of", "leftovers", "note", "pid_alive",
           "prepare_output", "publish", "restore", "sweep"]
