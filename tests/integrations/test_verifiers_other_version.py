"""Both verifiers APIs covert serves, in one test run: the dev environment holds one verifiers (0.3,
whose ``mcp<2`` pin the MCP import tests share); this runs the other version's test file in an
overlay venv (:mod:`tests.overlay_venv`) that holds the other verifiers on top of everything else."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("verifiers")

from covert.integrations.verifiers.version import CLASSIC, verifiers_api  # noqa: E402
from tests.overlay_venv import overlay_python  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OTHER = {CLASSIC: ("verifiers>=0.4,<0.5", "test_verifiers_v1.py"),
         "v1": ("verifiers>=0.3.1,<0.4", "test_verifiers.py")}


def test_the_other_verifiers_version_passes_its_tests_in_an_overlay_venv(tmp_path: Path) -> None:
    requirement, test_file = OTHER[verifiers_api()]
    python = overlay_python(requirement)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([str(python), "-m", "pytest", "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "t"),
                          str(ROOT / "tests" / "integrations" / test_file)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    summary = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert re.search(r"\d+ passed", summary) and "skipped" not in summary, summary
