"""Shared fixtures: one small base dataset (every builder) built once per session, and its row pairs."""

from __future__ import annotations

from pathlib import Path

import pytest

from covert.augment.registry import RowPair
from covert.build import BuildConfig, build
from covert.io.reader import iter_rows

BASE_TASKS = 160


@pytest.fixture(scope="session")
def base_ds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("augment") / "base"
    build(BuildConfig(builders=["all"], num_tasks=BASE_TASKS, seed=7, rows_per_shard=60), out, progress=False)
    return out


@pytest.fixture(scope="session")
def pairs(base_ds: Path) -> list[RowPair]:
    rl = {r["task_id"]: r for r in iter_rows(base_ds, "rl")}
    return [RowPair(s, rl[s["task_id"]]) for s in iter_rows(base_ds, "sft")]
