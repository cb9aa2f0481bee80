"""Items are made grouped by builder, handed on in round order, and never beyond what the build needs."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest

import covert.build as build_module
from covert.build import DEFAULT_MIX, BuildConfig, TargetSampler, build, builder_groups, plan_round
from covert.env import resolve_builders

NUM = 150


def _specs(size: int) -> list:
    builders = resolve_builders("all")
    config = BuildConfig(builders=[b.name for b in builders], num_tasks=size, mix=dict(DEFAULT_MIX))
    return plan_round(config, builders, TargetSampler(builders), 0, size)


def test_blocks_are_in_builder_order_and_cover_the_round_in_order() -> None:
    specs = _specs(100)
    blocks = list(builder_groups(specs, lambda: 30))
    assert [len(b) for b in blocks] == [30, 30, 30, 10]
    start = 0
    for block in blocks:
        assert sorted(block) == list(range(start, start + len(block)))  # a block is the next run of the round
        keys = [(specs[i].builder, i) for i in block]
        assert keys == sorted(keys)  # grouped by builder, in round order within one
        runs = 1 + sum(specs[a].builder != specs[b].builder for a, b in pairwise(block))
        assert runs == len({specs[i].builder for i in block})  # one run of items per builder
        start += len(block)


def test_a_block_never_holds_more_than_the_caller_still_wants() -> None:
    specs = _specs(40)
    wants = iter([5, 100, 3, 0, 100])
    blocks = list(builder_groups(specs, lambda: next(wants)))
    assert [len(b) for b in blocks] == [5, 35]  # at most what is left of the round
    blocks = list(builder_groups(specs, lambda: next(wants)))
    assert [len(b) for b in blocks] == [3]  # the caller wants no more: the blocks end


def _manifest(root: Path) -> dict:
    return json.loads((root / "manifest.json").read_text())


def _hashes(root: Path) -> dict[str, str]:
    return _manifest(root)["files"]


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, bool]]:
    made: list[tuple[int, bool]] = []
    real = build_module._work

    def work(spec):
        packed = real(spec)
        made.append((spec.index, bool(packed[3])))  # packed[3]: the encoded rows of an accepted task
        return packed

    monkeypatch.setattr(build_module, "_work", work)
    return made


def test_same_bytes_as_items_made_in_round_order_and_no_item_made_in_vain(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made = _counting(monkeypatch)
    build(BuildConfig(builders=["all"], num_tasks=NUM, seed=3, round_size=64), tmp_path / "grouped",
          workers=1, progress=False)
    grouped_made = list(made)
    made.clear()
    monkeypatch.setattr(build_module, "GROUP_LIMIT", 1)  # blocks of one item: the round's own order
    build(BuildConfig(builders=["all"], num_tasks=NUM, seed=3, round_size=64), tmp_path / "in-order",
          workers=1, progress=False)
    assert _hashes(tmp_path / "grouped") == _hashes(tmp_path / "in-order")
    in_order = [index for index, _ in made]
    assert in_order == sorted(in_order)
    # the grouped build made exactly the items the in-order build made: none past the last one it needed
    assert sorted(index for index, _ in grouped_made) == in_order
    # every item made with rows became a row, but for a first turn an earlier row already opened with
    said_before = _manifest(tmp_path / "grouped")["summary"]["rejected_by_reason"].get("duplicate_query", 0)
    assert sum(accepted for _, accepted in grouped_made) == NUM + said_before
    assert [index for index, _ in grouped_made] != in_order  # and it did make them grouped
