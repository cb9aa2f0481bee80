"""The layer contract holds: import-linter's contracts in pyproject.toml are kept, and covert's modules import
one another without a circle (every import counts, inside functions too)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fresh_python import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from import_circles import circles, import_graph  # noqa: E402


def test_no_import_circles_among_covert_modules() -> None:
    graph = import_graph(REPO)
    assert len(graph) > 200 and any(graph.values()), "the graph holds covert's modules and their imports"
    assert circles(graph) == []


def test_circles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_import_contracts_are_kept() -> None:
    lint = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(lint).exists():
        pytest.skip("import-linter is not installed (pip install -e '.[dev]')")
    result = subprocess.run([lint, "--config", str(REPO / "pyproject.toml")], cwd=REPO, capture_output=True,
                            text=True, timeout=600, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout and "KEPT" in result.stdout
