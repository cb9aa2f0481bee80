"""The wheel ships the runtime, the builders, the schemas and the cards, and works when installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
IGNORED = shutil.ignore_patterns(
    ".git", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache", ".hypothesis",
    ".venv", "venv", ".benchmarks", ".mypy_cache",
)
EXPECTED = ("builders/retail/env.py", "schemas/tool.schema.json", "cards/__init__.py", "covert/env/state.py",
            "covert_verifiers/__init__.py")  # verifiers 0.4 loads a taskset by a top-level module name


def _run(cmd: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def _build_wheel(tmp: Path) -> Path:
    """Build the wheel from a clean copy of the repository (so no build/ or egg-info lands in the repo)."""
    source = tmp / "src"
    shutil.copytree(REPO, source, ignore=IGNORED)
    attempts = [
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp / "dist1"), str(source)],
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-w", str(tmp / "dist2")],
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "-w", str(tmp / "dist3")],
    ]
    failures = []
    for i, cmd in enumerate(attempts, start=1):
        result = _run(cmd, cwd=tmp)
        wheels = sorted((tmp / f"dist{i}").glob("covert-*.whl"))
        if result.returncode == 0 and wheels:
            return wheels[0]
        failures.append(f"$ {' '.join(cmd[1:4])} ... -> rc {result.returncode}: {(result.stdout + result.stderr)[-600:]}")
    pytest.skip("cannot build a wheel here (neither `python -m build` nor `pip wheel` works offline):\n" + "\n".join(failures))


def _see_running_dependencies(python: Path) -> None:
    """Let the new venv import the dependencies of the environment running the tests (installed by
    ``.ci/run``, not by hand into the base interpreter): a ``.pth`` line naming its site-packages.

    A plain path line adds the folder without running the ``.pth`` files in it, so the editable
    install of the repository stays out and ``covert`` comes from the wheel."""
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=python.parent)
    assert purelib.returncode == 0, purelib.stderr
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    Path(purelib.stdout.strip(), "running_env_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")


@pytest.mark.slow
def test_wheel_contents_and_installed_import(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for expected in EXPECTED:
        assert expected in names, f"{expected} missing from {wheel.name}"
    assert any(n.startswith("cards/") for n in names)
    assert any(n.endswith(".dist-info/METADATA") for n in names)
    assert not any(n.startswith("tests/") for n in names), "tests must not ship in the wheel"

    venv = tmp_path / "venv"
    created = _run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    _see_running_dependencies(python)
    installed = _run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)], cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    script = (
        "import json, covert, covert.env, builders\n"
        "from covert.env import get_builder\n"
        "print(json.dumps({'summary': get_builder('retail').summary(), 'covert': covert.__file__,"
        " 'builders': builders.__file__}))\n"
    )
    ran = _run([str(python), "-c", script], cwd=outside)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    report = json.loads(ran.stdout.strip().splitlines()[-1])
    assert report["summary"]["name"] == "retail"
    assert report["summary"]["tools"] > 0
    venv_root = venv.resolve()
    for module in ("covert", "builders"):
        path = Path(report[module]).resolve()
        assert path.is_relative_to(venv_root), f"{module} imported from {path}, not from the venv"
        assert not path.is_relative_to(REPO), f"{module} imported from the repository"
