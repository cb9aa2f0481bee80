"""Shared fixtures: a small covert build (SFT and RL rows paired by task id) and BFCL's data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from covert.build import BuildConfig, build
from covert.io.reader import iter_rows
from covert.rewards.bfcl_data import BfclUnavailable, load_bfcl


@pytest.fixture(scope="session")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 200-task build of every builder."""
    out = tmp_path_factory.mktemp("rewards") / "ds"
    build(BuildConfig(builders=["all"], num_tasks=200, seed=1), out, progress=False)
    return out


@pytest.fixture(scope="session")
def pairs(dataset: Path) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(RL row, SFT row) of every task of the build."""
    sft = {row["task_id"]: row for row in iter_rows(dataset, "sft")}
    return [(row, sft[row["task_id"]]) for row in iter_rows(dataset, "rl")]


@pytest.fixture(scope="session")
def bfcl() -> dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]:
    """BFCL's test entries and possible answers by category, read from the bfcl-eval wheel
    (downloaded once into ~/.cache/covert-bfcl; nothing of it is kept in the repository)."""
    try:
        return load_bfcl()
    except BfclUnavailable as exc:
        pytest.skip(f"BFCL conformance not checked: {exc}")


@pytest.fixture(scope="session")
def conversations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A retail, airline, hotels and smart_home build with conversations (``--multi-turn``) and
    distractor augmentations: the sft, rl, sft-multiturn, rl-multiturn, sft-augmented and rl-augmented
    configs (hotels and smart_home states hold the floats ``datasets.Json`` used to misread)."""
    from covert.augment.dataset import AugmentConfig, augment_dataset

    root = tmp_path_factory.mktemp("conversations")
    build(BuildConfig(builders=["retail", "airline", "hotels", "smart_home"], num_tasks=60, seed=3, multi_turn=True),
          root / "base",
          progress=False)
    augment_dataset(root / "base", root / "aug", AugmentConfig(kinds=["distractors"], seed=0), progress=False)
    return root / "aug"
