"""The Ray engine (local Ray) writes the same bytes as the local engine."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

from covert.build import BuildConfig, TargetSampler, build, plan_round, work_item
from covert.env import resolve_builders
from covert.io.reader import load_manifest
from covert.scale.ray_engine import blocks, ray_outcomes

ray = pytest.importorskip("ray", reason="the ray engine needs the 'ray' extra")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*")

NUM = 100


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    yield
    if ray.is_initialized():
        ray.shutdown()


def _config() -> BuildConfig:
    return BuildConfig(builders=["all"], num_tasks=NUM, seed=21, rows_per_shard=30)


def test_ray_engine_writes_the_same_shards_as_local(local_ray, tmp_path: Path) -> None:
    local = build(_config(), tmp_path / "local", progress=False)
    on_ray = build(_config(), tmp_path / "ray", workers=2, progress=False, engine="ray")
    assert on_ray["files"] == local["files"] and len(local["files"]) >= 6
    assert load_manifest(tmp_path / "ray") == load_manifest(tmp_path / "local")


def test_ray_outcomes_equal_work_items_in_order(local_ray) -> None:
    config = _config()
    builders = resolve_builders(config.builders)
    specs = plan_round(config, builders, TargetSampler(builders), 0, 24)
    ratios = config.split_ratios
    work = functools.partial(work_item, seed=config.seed, ratios=ratios)
    assert list(ray_outcomes(work, specs, workers=2)) == [work_item(s, config.seed, ratios) for s in specs]
    assert list(ray_outcomes(work, [], workers=2)) == []


def test_blocks() -> None:
    assert blocks(512, 2) == 4 and blocks(512, 1) == 2 and blocks(3, 8) == 3 and blocks(1, 0) == 1
