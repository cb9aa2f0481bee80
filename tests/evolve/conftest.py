"""A small default build shared by the evolution tests (built once per session)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def base_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 900-task default build."""
    from covert.build import BuildConfig, build
    from covert.env import builder_names

    out = tmp_path_factory.mktemp("evolve-base") / "ds"
    build(BuildConfig(builders=builder_names(), num_tasks=900, seed=5), out, progress=False)
    return out


@pytest.fixture(scope="session")
def base_pairs(base_dataset: Path) -> list[Any]:
    """The train split's (sft, rl) pairs."""
    from covert.evolve.dataset import row_pairs

    return list(row_pairs(base_dataset, "train"))
