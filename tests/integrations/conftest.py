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


@pytest.fixture(scope="session")
def augmented_data(covert_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``covert_data`` with every augmentation (the ``rl-augmented`` config)."""
    from covert.augment.dataset import AugmentConfig, augment_dataset

    folder = tmp_path_factory.mktemp("integrations-aug") / "covert-aug"
    augment_dataset(covert_data, folder, AugmentConfig(seed=0), progress=False)
    return folder


@pytest.fixture(scope="session")
def procgen_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Procedural text rows of every procedural environment (the ``rl-procgen`` config)."""
    from covert.procgen.dataset import ProcgenConfig, build_procgen

    folder = tmp_path_factory.mktemp("integrations-procgen") / "covert-procgen"
    build_procgen(ProcgenConfig(envs=["all"], num_tasks=24, seed=0), folder)
    return folder
