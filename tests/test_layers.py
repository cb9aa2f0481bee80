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


def _lint_imports(tree: Path) -> subprocess.CompletedProcess:
    """import-linter's contracts (this repository's pyproject.toml) run on the covert package in ``tree``."""
    lint = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(lint).exists():
        pytest.skip("import-linter is not installed (pip install -e '.[dev]')")
    return subprocess.run([lint, "--config", str(REPO / "pyproject.toml")], cwd=tree, capture_output=True,
                          text=True, timeout=600, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})


def test_import_contracts_are_kept() -> None:
    result = _lint_imports(REPO)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout and "KEPT" in result.stdout


def test_a_language_module_that_imports_synthesis_breaks_the_contract(tmp_path: Path) -> None:
    """The language package sits below every stage that speaks: one import of synthesis from it fails."""
    shutil.copytree(REPO / "covert", tmp_path / "covert", ignore=shutil.ignore_patterns("__pycache__"))
    values = tmp_path / "covert" / "language" / "values.py"
    values.write_text(values.read_text(encoding="utf-8") + "\nfrom covert.synth.records import Task  # noqa\n",
                      encoding="utf-8")
    result = _lint_imports(tmp_path)
    assert result.returncode != 0
    assert "covert.language is not allowed to import covert.synth" in result.stdout
    assert "covert.language.values -> covert.synth.records" in result.stdout
