"""``covert validate`` checks the SFT and the RL view of a task side by side (their one oracle replayed
once, twice over): its report is the one a row-by-row check of each config in turn gives, failures in
config order, on rows broken on purpose in one view only."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import covert.validation as validation
from covert.build import BuildConfig, build
from covert.cli import main
from covert.io.checked import open_dataset
from covert.io.reader import iter_checked_rows, iter_shard_rows
from covert.validation.dataset import _view_groups, row_failures, validate_dataset
from tests.test_corruption import rewrite_shard


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("views") / "ds"
    build(BuildConfig(builders=["retail", "calendar"], num_tasks=40, seed=6, rows_per_shard=10), out, progress=False)
    return out


def _rewrite(root: Path, config: str, change: Callable[[int, dict[str, Any]], None]) -> None:
    """Change the rows of a config's first train shard (``change(index, row)``), rewrite it as covert writes shards
    and put its new sha256 into the manifest (so only the rows' own validation can tell)."""
    rel = f"{config}/{sorted(p.name for p in (root / config).glob('train-*.parquet'))[0]}"
    rows = [row for path, row, _ in iter_shard_rows(root, config) if path.name == rel.split("/")[1]]
    for i, row in enumerate(rows):
        change(i, row)
    rewrite_shard(root, rel, rows)


def _one_by_one(root: Path) -> list[tuple[str, str, str]]:
    """The failures of every row, config after config, each row checked on its own."""
    return [failure for config in open_dataset(root).configs for row, unloadable in iter_checked_rows(root, config)
            for failure in row_failures((config, row, unloadable))]


def test_the_views_of_a_task_pair_up_in_config_order() -> None:
    assert _view_groups(("rl", "rl-multiturn", "sft", "sft-augmented", "sft-multiturn")) == [
        ("rl", "sft"), ("rl-multiturn", "sft-multiturn"), ("sft-augmented",)]
    assert _view_groups(("sft",)) == [("sft",)] and _view_groups(("rl", "sft-procgen")) == [("rl",), ("sft-procgen",)]


def test_a_task_replays_once_for_both_views(dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    replays = []
    real = validation._replay
    monkeypatch.setattr(validation, "_replay", lambda *args: replays.append(1) or real(*args))
    report = validate_dataset(dataset)
    assert report.ok and sum(report.rows.values()) == 80
    assert 0 < len(replays) <= 2 * 40  # twice per task (tasks with one oracle and one state: once in all)


def test_rows_broken_in_one_view_fail_there_only_as_row_by_row(dataset: Path, tmp_path: Path, capsys) -> None:
    root = tmp_path / "broken"
    shutil.copytree(dataset, root)

    changed: list[int] = []

    def sft(i: int, row: dict[str, Any]) -> None:
        calls = [c for turn in row["ground_truth"]["calls"] for c in turn
                 if any(isinstance(v, str) for v in c["arguments"].values())]
        if calls and len(changed) < 2:  # an oracle argument changed: the calls no longer give the recorded outputs
            key = next(k for k, v in calls[0]["arguments"].items() if isinstance(v, str))
            calls[0]["arguments"][key] += "0"
            changed.append(i)

    def rl(i: int, row: dict[str, Any]) -> None:
        if i == min(set(range(10)) - set(changed)):  # the same oracle as its SFT view, another recorded final state
            truth = row["reward_model"]["ground_truth"]
            truth["final_state_hash"] = "0" * len(truth["final_state_hash"])

    _rewrite(root, "sft", sft)
    _rewrite(root, "rl", rl)
    expected = _one_by_one(root)
    assert {reason.split(":")[0] for _, _, reason in expected} >= {"replay_final_state"}
    assert [config for config, _, _ in expected] == ["rl", "sft", "sft"]  # config by config
    assert validate_dataset(root).failures == expected
    assert validate_dataset(root, limit_failures=2).failures == expected[:2]
    assert main(["validate", str(root), "--quiet"]) == 1
    assert f"{len(expected)}" in capsys.readouterr().out


def test_the_second_view_reuses_the_replays_and_another_state_does_not(dataset: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import copy

    from covert.errors import Invalid
    from covert.validation import validate_row

    replays = []
    real = validation._replay
    monkeypatch.setattr(validation, "_replay", lambda *args: replays.append(1) or real(*args))
    sft = next(row for row, _ in iter_checked_rows(dataset, "sft") if row["ground_truth"]["calls"])
    rl = next(row for row, _ in iter_checked_rows(dataset, "rl") if row["task_id"] == sft["task_id"])
    validate_row(sft, "sft")
    validate_row(rl, "rl")  # its own decoded copy of the same state and calls: the replays just made
    assert len(replays) == 2
    other = copy.deepcopy(rl)
    tables = other["extra_info"]["initial_state"]["tables"]
    table = next(name for name in sorted(tables) if tables[name])
    tables[table].clear()  # another state: replayed afresh, and the recorded outputs no longer come back
    with pytest.raises(Invalid):
        validate_row(other, "rl")
    assert len(replays) == 4
