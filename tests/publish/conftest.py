"""A small dataset built once for the publishing tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from covert.build import BuildConfig, build

NUM = 60
SEED = 11
COMMAND = f"covert build --builders all --num-tasks {NUM} --seed {SEED} --rows-per-shard 20 --out DIR"


@pytest.fixture(scope="session")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("publish") / "data"
    build(BuildConfig(builders=["all"], num_tasks=NUM, seed=SEED, rows_per_shard=20), out, progress=False,
          command=COMMAND)
    return out


@pytest.fixture(scope="session")
def multiturn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small build that also writes the multi-turn configs (sft-multiturn, rl-multiturn)."""
    out = tmp_path_factory.mktemp("publish-mt") / "data"
    build(BuildConfig(builders=["all"], num_tasks=24, seed=SEED, multi_turn=True), out, progress=False)
    return out
