"""A venv on top of the test interpreter's packages, with a few of them at other versions: tests of an
optional library's other major API (verifiers 0.3 and 0.4 pin different ``mcp`` majors, so one
environment cannot hold both) run in it, on everything else the test run already installed.

The venv's ``site-packages`` comes first and a ``.pth`` file adds the test interpreter's
``site-packages`` after it; pip, run in the venv, sees the packages already there and installs only
the requirement and whatever it needs at other versions. It is kept (``~/.cache/covert-tests`` or
``$COVERT_TEST_VENVS``) keyed by the requirement and the base environment, and rebuilt when either
changes. pip reaches PyPI for it: without a registry the tests that need it skip, except under CI
(``CI`` set), where they fail.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

INSTALL_TIMEOUT_S = 900


def _root(requirement: str) -> Path:
    base = sysconfig.get_paths()["purelib"]
    key = hashlib.sha256(f"{requirement}\0{base}\0{sys.version}".encode()).hexdigest()[:12]
    folder = Path(os.environ.get("COVERT_TEST_VENVS") or Path.home() / ".cache" / "covert-tests")
    return folder / f"overlay-{key}"


def overlay_python(requirement: str) -> Path:
    """The interpreter of the overlay venv holding ``requirement`` (built on first use)."""
    root = _root(requirement)
    python = root / "bin" / "python"
    done = root / ".complete"
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.is_file():
            return python
        shutil.rmtree(root, ignore_errors=True)
        venv.EnvBuilder(with_pip=False).create(root)
        purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                 capture_output=True, text=True, check=True).stdout.strip()
        Path(purelib, "zz_covert_test_base.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                  requirement], capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
        if install.returncode != 0:
            tail = (install.stderr or install.stdout).strip().splitlines()[-3:]
            with contextlib.suppress(OSError):
                shutil.rmtree(root)
            message = f"could not install {requirement} in an overlay venv: {' | '.join(tail)}"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
        done.write_text(requirement + "\n")
    return python
