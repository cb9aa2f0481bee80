"""Stage-1 acceptance at scale: 10,000 tasks across all builders validate, cover every tool and category."""

from __future__ import annotations

from pathlib import Path

import pytest

from covert.build import BuildConfig, build
from covert.env import builder_names, get_builder
from covert.io.reader import iter_rows
from covert.rewards import oracle_completion, score
from covert.synth.records import CATEGORIES
from covert.validation.dataset import validate_dataset


@pytest.mark.slow
def test_ten_thousand_tasks_validate_and_cover_everything(tmp_path: Path) -> None:
    out = tmp_path / "big"
    manifest = build(BuildConfig(builders=["all"], num_tasks=10_000, seed=2026), out, workers=2, progress=False)
    summary = manifest["summary"]
    assert summary["accepted"] == 10_000
    assert set(summary["per_category"]) == set(CATEGORIES)
    for name in builder_names():
        coverage = summary["tool_coverage"][name]
        assert coverage["covered"] == len(get_builder(name).tools), f"{name} misses {coverage['missing']}"
    assert summary["train_test_shared_signatures"] == 0
    report = validate_dataset(out)
    assert report.ok, report.failures[:5]
    assert report.rows == {"sft": 10_000, "rl": 10_000}
    sft = {r["task_id"]: r for r in iter_rows(out, "sft")}
    for row in iter_rows(out, "rl"):
        assert score(row, oracle_completion(sft[row["task_id"]])).value == 1.0, row["task_id"]
        assert score(row, oracle_completion(row)).value == 1.0, row["task_id"]
