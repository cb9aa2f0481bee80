"""``covert evolve``: generations that get harder for the reference policy, stay solvable (validate and
replay), load with ``datasets.load_dataset`` and regenerate byte for byte."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from covert.check import validate_dataset
from covert.evolve.dataset import EvolveConfig, evolve_dataset

CONFIG = EvolveConfig(generations=4, seed=1, k=6, tasks=30)


@pytest.fixture(scope="module")
def evolved(base_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("evolved") / "ds"
    return out, evolve_dataset(base_dataset, out, CONFIG)


def test_generations_get_harder_and_every_one_validates(evolved: tuple[Path, dict]) -> None:
    out, manifest = evolved
    rates = [g["reference_pass_rate"] for g in manifest["evolution"]["schedule"]["generations"]]
    assert all(r is not None for r in rates), rates
    assert all(later < earlier for earlier, later in itertools.pairwise(rates)), rates
    report = validate_dataset(out)
    assert report.ok, report.failures[:5]
    assert all(report.rows[f"rl-g{g}"] > 0 for g in range(4))
    assert json.loads((out / "schedule.json").read_text()) == manifest["evolution"]["schedule"]


def test_each_kept_mutant_is_harder_than_its_parent(evolved: tuple[Path, dict]) -> None:
    from covert.io.reader import iter_rows

    out, _ = evolved
    rate = {}
    for g in range(4):
        for row in iter_rows(out, f"rl-g{g}"):
            assert row["generation"] == g
            assert f"{row['task_id']}@g{g}" not in rate, "two rows of one generation share a task id"
            rate[f"{row['task_id']}@g{g}"] = row["pass_rate"]
            parent = row["calibration"]["parent"]
            if g == 0:
                assert parent is None and not row["augmentations"]
            else:
                assert row["pass_rate"] < rate[parent], (row["task_id"], parent)
                assert row["calibration"]["direction"] in ("horizon", "constraints", "observations")


def test_rows_load_with_load_dataset_and_score_with_their_oracle(evolved: tuple[Path, dict], tmp_path: Path) -> None:
    from datasets import load_dataset

    from covert.rewards import score
    from covert.rewards.composite import oracle_completion

    out, _ = evolved
    rows = load_dataset(str(out), "rl-g2", split="train", cache_dir=str(tmp_path / "cache"))
    assert len(rows) > 0 and set(rows["generation"]) == {2}
    for row in rows.select(range(min(10, len(rows)))):
        assert score(row, oracle_completion(row)).value == 1.0


def test_same_seed_same_bytes(base_dataset: Path, evolved: tuple[Path, dict], tmp_path: Path) -> None:
    again = evolve_dataset(base_dataset, tmp_path / "again", CONFIG)
    assert again["files"] == evolved[1]["files"]


def test_cli_evolve_and_bad_input(base_dataset: Path, tmp_path: Path) -> None:
    cli = [sys.executable, "-c", "import sys; from covert.cli import main; sys.exit(main())"]
    ok = subprocess.run([*cli, "evolve", str(base_dataset), "--out", str(tmp_path / "e"), "--generations", "2",
                         "--tasks", "8", "--k", "2"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "generation 1:" in ok.stdout
    bad = subprocess.run([*cli, "evolve", str(base_dataset), "--out", str(tmp_path / "f"), "--generations", "0"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "--generations" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "f").exists()
