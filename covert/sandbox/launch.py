"""How a sandbox worker is started: the bubblewrap command line, or the plain-subprocess fallback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

WORKER_FILE = Path(__file__).with_name("worker.py")
INSIDE_WORKER = "/sandbox/worker.py"
FALLBACK_WARNING = ("SANDBOX DEGRADED: bubblewrap is unavailable ({why}); untrusted code runs in a plain "
                    "subprocess with rlimits and seccomp only, with the host's network and file system")


@dataclass(frozen=True)
class Launcher:
    """A way to start workers: ``argv`` runs ``worker.py``; ``warning`` is empty under the full sandbox."""

    argv: tuple[str, ...]
    isolated: bool
    warning: str = ""


def _python() -> str:
    return os.path.realpath(sys.executable)


def _root_binds() -> list[str]:
    """Read-only binds of the system directories the Python interpreter and its libraries need."""
    args: list[str] = []
    for top in ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    prefix = os.path.realpath(sys.base_prefix)
    if not prefix.startswith("/usr/"):
        args += ["--ro-bind", prefix, prefix]
    python_dir = os.path.dirname(_python())
    if not python_dir.startswith(("/usr/", prefix + "/")):
        args += ["--ro-bind", python_dir, python_dir]
    return args


def bwrap_argv(bwrap: str, tmp_mb: int | None, ro_binds: tuple[str, ...] = ()) -> list[str]:
    """The bubblewrap command line that runs the worker: every namespace unshared (no network), the system
    read-only, a private /tmp (of ``tmp_mb`` MiB; ``None`` for a bubblewrap without ``--size``), no
    capabilities, killed with its parent, in its own session."""
    size = ["--size", str(tmp_mb * 1024 * 1024)] if tmp_mb is not None else []
    args = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv",
            "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
            *size, "--tmpfs", "/tmp",  # first: binds made after it stay visible (an interpreter under /tmp)
            *_root_binds(),
            "--proc", "/proc", "--dev", "/dev",
            "--dir", "/sandbox", "--ro-bind", str(WORKER_FILE), INSIDE_WORKER]
    for path in ro_binds:
        real = os.path.realpath(path)
        args += ["--ro-bind", real, real]
    args += ["--setenv", "TMPDIR", "/tmp", "--setenv", "HOME", "/tmp", "--chdir", "/tmp",
             "--remount-ro", "/", _python(), "-I", "-S", "-B", INSIDE_WORKER]
    return args


@lru_cache(maxsize=8)
def _probe(bwrap: str, tmp_mb: int | None) -> str:
    """Empty when bubblewrap can start a Python in the sandbox here, else why not (one line)."""
    argv = bwrap_argv(bwrap, tmp_mb)
    probe = [*argv[:-1], "-c", "print('covert-sandbox-ok')"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=30, text=True, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{bwrap} failed to start: {exc}"
    if done.returncode != 0 or "covert-sandbox-ok" not in done.stdout:
        err = " ".join(done.stderr.split())[:200] or f"exit status {done.returncode}"
        return f"{bwrap} cannot run here: {err}"
    return ""


def make_launcher(*, tmp_mb: int, ro_binds: tuple[str, ...] = (), use_bwrap: bool = True) -> Launcher:
    """The bubblewrap launcher if it works on this machine, else the fallback with a loud warning."""
    bwrap = shutil.which("bwrap") or ("/usr/bin/bwrap" if os.path.exists("/usr/bin/bwrap") else None)
    if not use_bwrap:
        why = "disabled by the caller"
    elif bwrap is None:
        why = "no bwrap on PATH; install bubblewrap"
    else:
        why = _probe(bwrap, tmp_mb)
        if not why:
            return Launcher(tuple(bwrap_argv(bwrap, tmp_mb, ro_binds)), isolated=True)
        if "--size" in why and not _probe(bwrap, None):  # bubblewrap < 0.7 has no --size
            return Launcher(tuple(bwrap_argv(bwrap, None, ro_binds)), isolated=True,
                            warning=f"{bwrap} has no --size: the private /tmp is not size-limited "
                                    "(files are, by RLIMIT_FSIZE); install bubblewrap >= 0.7")
    return Launcher((_python(), "-I", "-S", "-B", str(WORKER_FILE)), isolated=False,
                    warning=FALLBACK_WARNING.format(why=why))


def bwrap_unavailable_reason() -> str:
    """Why the full sandbox cannot run here (empty when it can); tests skip on a non-empty reason."""
    return make_launcher(tmp_mb=8).warning
