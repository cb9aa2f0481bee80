"""Nothing covert writes into a dataset names a local absolute path (issue 32: the manifest's ``command``
and the card recorded the ``--out`` path in the user's home, and ``covert push`` published them);
``covert regenerate`` still rebuilds the same bytes from the manifest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from covert.io.portable import portable_command, portable_path

REPO = Path(__file__).resolve().parents[2]


def _covert(*args: str, cwd: Path) -> str:
    result = subprocess.run([sys.executable, "-m", "covert.cli", *args], cwd=cwd, capture_output=True, text=True,
                            timeout=900, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr
    return result.stdout


def _texts(root: Path) -> dict[str, str]:
    """Every text file a dataset holds (manifest, card, schedules), by path."""
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix in (".json", ".md", ".yaml", ".txt", ".html")}


def test_build_augment_and_procgen_record_no_local_path(tmp_path: Path) -> None:
    home = tmp_path / "home" / "maria" / "data"
    home.mkdir(parents=True)
    built, augmented, procgen = home / "x", home / "x-aug", home / "p"
    _covert("build", "--builders", "retail", "--num-tasks", "12", "--seed", "4", "--out", str(built), cwd=tmp_path)
    _covert("augment", str(built), "--out", str(augmented), "--kinds", "distractors", "--quiet", cwd=tmp_path)
    _covert("procgen", "--envs", "knapsack", "--num-tasks", "6", "--seed", "1", "--out", str(procgen), cwd=tmp_path)
    for root in (built, augmented, procgen):
        texts = _texts(root)
        assert "manifest.json" in texts and "README.md" in texts
        for name, text in texts.items():
            assert str(tmp_path) not in text, (root.name, name)
    manifest = json.loads((built / "manifest.json").read_text())
    assert manifest["command"] == "covert build --builders retail --num-tasks 12 --seed 4 --out x"
    assert "--out x" in (built / "README.md").read_text()
    rebuilt = home / "again"
    out = _covert("regenerate", str(built), "--out", str(rebuilt), cwd=tmp_path)
    assert "match" in out.lower()
    assert {p: d for p, d in json.loads((rebuilt / "manifest.json").read_text())["files"].items()} == manifest["files"]


def test_paths_are_recorded_by_their_last_component() -> None:
    assert portable_command("covert build --out /home/maria/data/x --seed 1") == "covert build --out x --seed 1"
    assert portable_command("covert augment ~/d/src --out=/tmp/a b\ncovert build --out rel/x") == \
        "covert augment src --out=a b\ncovert build --out rel/x"
    assert portable_command("covert build --out '/home/m/my data'") == "covert build --out 'my data'"
    assert [portable_path(v) for v in ("user/repo", "https://hf.co/x", "C:\\data\\x", "/", "rel")] == \
        ["user/repo", "https://hf.co/x", "x", "DIR", "rel"]
