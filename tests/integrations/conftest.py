"""Datasets the integration tests share: a small build of every builder, loaded as users load it."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def covert_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from covert.build import BuildConfig, build

    folder = tmp_path_factory.mktemp("integrations") / "covert-mt"
    build(BuildConfig(builders=["all"], num_tasks=60, seed=5, multi_turn=True), folder, progress=False)
    return folder


def load(folder: Path, config: str, tmp: Path) -> list[dict]:
    from datasets import load_dataset

    return list(load_dataset(str(folder), config, split="train", cache_dir=str(tmp / f"cache-{config}")))
