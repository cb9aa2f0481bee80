"""A user's own package adds an environment through the entry-point group ``covert.environments``.

The plugin (``tests/env/plugin_package``) is pip-installed for real, from a folder holding its own
``pyproject.toml``, into a target folder that the commands under test get on their path: the installed
distribution's metadata is what covert discovers, as in a venv. It is not installed into the test venv
itself, where every other test running beside this one (pytest-xdist workers, other checkouts sharing the
venv) would find a plugged-in environment in its ``--builders all`` pool and build other bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fresh_python import REPO

PACKAGE = Path(__file__).parent / "plugin_package"
PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{dist}"
version = "0.1.0"

[project.entry-points."covert.environments"]
{entry}

[tool.setuptools]
packages = ["{package}"]
"""


def _install(root: Path, dist: str, entry: str, package: str, files: dict[str, str]) -> Path:
    """pip-install a package made of ``files`` (its own pyproject naming ``entry``) into ``root/site``."""
    pytest.importorskip("setuptools", reason="pip builds the plugin with setuptools, without network")
    source = root / "src"
    for name, text in files.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text)
    (source / "pyproject.toml").write_text(PYPROJECT.format(dist=dist, entry=entry, package=package))
    site = root / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "--no-index", "--target", str(site), str(source)],
                   check=True, capture_output=True, text=True, timeout=300)
    shutil.rmtree(source)  # what runs is the installed copy, found through its metadata
    return site


def _environ(site: Path, tmp: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(site)]), "COVERT_ENVS": str(tmp / "store")}


def _covert(site: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "covert.cli", *args], capture_output=True, text=True, cwd=tmp,
                          env=_environ(site, tmp), timeout=600)


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plugin")
    files = {f"tinylibrary_env/{p.name}": p.read_text() for p in (PACKAGE / "tinylibrary_env").glob("*.py")}
    return _install(root, "covert-test-tinylibrary", 'tinylibrary = "tinylibrary_env:BUILDER"', "tinylibrary_env",
                    files)


def _shards(folder: Path) -> dict[str, str]:
    """sha256 of every Parquet shard (the manifest and card name the output folder, which differs)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*.parquet"))}


def test_list_build_validate_and_score_a_plugged_in_environment(plugin_site: Path, tmp_path: Path) -> None:
    listed = _covert(plugin_site, tmp_path, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {r["name"]: r for r in json.loads(listed.stdout)["builders"]}
    assert rows["tinylibrary"]["tools"] == 2 and rows["tinylibrary"]["write_tools"] == 1
    assert "retail" in rows, "covert's own builders are listed beside the plugin's"

    for out in ("data", "again"):
        built = _covert(plugin_site, tmp_path, "build", "--builders", "tinylibrary", "--num-tasks", "24",
                        "--seed", "3", "--out", out)
        assert built.returncode == 0, built.stderr
    assert _shards(tmp_path / "data") and _shards(tmp_path / "data") == _shards(tmp_path / "again"), "same bytes"

    checked = _covert(plugin_site, tmp_path, "validate", "data")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "all rows valid" in checked.stdout

    script = """
import json
from datasets import load_dataset
from covert.env import builder_names, resolve_builders
from covert.rewards import environment_factory, oracle_completion, score

rl = load_dataset("data", "rl", split="train")
sft = {row["task_id"]: row for row in load_dataset("data", "sft", split="train")}
print(json.dumps({
    "builders": sorted({row["builder"] for row in rl}),
    "oracle": [score(row, oracle_completion(sft[row["task_id"]])).value for row in rl],
    "wrong": [score(row, "I could not find that book.").value for row in rl],
    "pool": "tinylibrary" in builder_names() and "tinylibrary" in [b.name for b in resolve_builders("all")],
    "trainer": sorted(environment_factory(["tinylibrary"])),
}))
"""
    scored = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                            env=_environ(plugin_site, tmp_path), timeout=600)
    assert scored.returncode == 0, scored.stderr
    report = json.loads(scored.stdout.strip().splitlines()[-1])
    assert report["builders"] == ["tinylibrary"]
    assert report["oracle"] and all(v == 1.0 for v in report["oracle"])
    assert all(v < 1.0 for v in report["wrong"])
    assert report["pool"] is True, "a plugged-in builder joins the pool (--builders all, distractor tools)"
    assert report["trainer"] == ["tinylibrary"]


BROKEN = {
    "import_error": ({"broken_env/__init__.py": "import not_a_module_anyone_has\n"},
                     'broken = "broken_env:BUILDER"', "does not load: ModuleNotFoundError"),
    "missing_attribute": ({"broken_env/__init__.py": "OTHER = 1\n"}, 'broken = "broken_env:BUILDER"',
                          "does not load: AttributeError"),
    "not_a_builder": ({"broken_env/__init__.py": "BUILDER = 'a string'\n"}, 'broken = "broken_env:BUILDER"',
                      "is a str, not a covert.env.Builder"),
    "misnamed": ({"broken_env/__init__.py": "from tinylibrary_env import BUILDER\n",
                  "tinylibrary_env/__init__.py": (PACKAGE / "tinylibrary_env" / "__init__.py").read_text()},
                 'broken = "broken_env:BUILDER"', "its Builder is named 'tinylibrary'; it must be named 'broken'"),
    "clashing": ({"broken_env/__init__.py": "from builders.retail import BUILDER\n"}, 'retail = "broken_env:BUILDER"',
                 "registers 'retail', as environment plugin 'builders'"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_plugin_is_one_line_naming_it(case: str, tmp_path: Path) -> None:
    files, entry, said = BROKEN[case]
    packages = sorted({name.split("/")[0] for name in files})
    site = _install(tmp_path, f"covert-test-broken-{case.replace('_', '-')}", entry, '", "'.join(packages), files)
    for args in (["list"], ["build", "--builders", "retail", "--num-tasks", "4", "--out", "data"]):
        result = _covert(site, tmp_path, *args)
        assert result.returncode == 2, result.stdout + result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
        name = entry.split(" = ")[0]
        assert lines[0].startswith(f"covert: error: environment plugin {name!r} (broken_env:BUILDER, from "
                                   f"covert-test-broken-{case.replace('_', '-')})"), lines[0]
        assert said in lines[0], lines[0]
    assert not (tmp_path / "data").exists(), "nothing is written when the registry cannot be read"
