"""`covert import mcp` on the other major of the mcp SDK: the dev environment holds mcp 1.x (verifiers 0.3 pins
mcp<2), while a fresh `pip install 'covert[imports]'` resolves mcp 2.x, whose JSON-RPC message type is a plain
union rather than a model. The real git server's test of :mod:`tests.imports.test_import_mcp` runs here in an
overlay venv (:mod:`tests.overlay_venv`) holding the other major and a server release built on it."""

from __future__ import annotations

import os
import re
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the mcp SDK is in the imports/dev extras")
pytest.importorskip("mcp_server_git", reason="mcp-server-git is in the dev extra")

from tests.overlay_venv import overlay_python  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# the server release that pulls in the other SDK major (mcp-server-git 2026.10.19 needs mcp>=2.3, 2026.10.10 mcp<2)
OTHER = {1: ("mcp-server-git>=2026.10.19", 2), 2: ("mcp-server-git==2026.10.10", 1)}


def test_import_mcp_on_the_other_sdk_major(tmp_path: Path) -> None:
    requirement, major = OTHER[int(version("mcp").split(".")[0])]
    python = overlay_python(requirement)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    probe = subprocess.run([str(python), "-c", "from importlib.metadata import version; print(version('mcp'))"],
                           env=env, capture_output=True, text=True, timeout=120, check=True)
    assert int(probe.stdout.strip().split(".")[0]) == major, probe.stdout
    out = subprocess.run([str(python), "-m", "pytest", "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "t"),
                          "-k", "git_server", str(ROOT / "tests" / "imports" / "test_import_mcp.py")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    summary = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert re.search(r"1 passed", summary) and "skipped" not in summary, summary
