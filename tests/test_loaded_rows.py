"""Rows as users load them: ``datasets.load_dataset`` gives back every value covert wrote, and every
row scores 1.0 with its own oracle (corrupted completions lower), recorded conversations included.

``datasets.Json`` decodes with pandas' ujson (``0.3`` came back as ``0.30000000000000004``), so these
tests read through ``load_dataset`` itself, with a fresh cache (a cached copy of an earlier build
under the same path would hide what the files hold).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from covert.augment.dataset import AugmentConfig, augment_dataset
from covert.build import BuildConfig, build
from covert.io.reader import iter_rows
from covert.rewards import Scorer, oracle_completion
from covert.rollouts.runner import run

datasets = pytest.importorskip("datasets")

JSON_COLUMNS = ("messages", "tools", "prompt", "initial_state", "ground_truth", "reward_model", "extra_info")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("loaded") / "ds"
    build(BuildConfig(builders=["all"], num_tasks=3000, seed=11, multi_turn=True), out, workers=2, progress=False)
    return out


def _loaded(root: Path, config: str, cache: Path) -> Iterator[dict[str, Any]]:
    loaded = datasets.load_dataset(str(root), config, cache_dir=str(cache))
    for split in sorted(loaded):
        yield from loaded[split]


def _exact(value: Any) -> bytes:
    """Bytes that differ whenever a value or a type differs (0.3 vs 0.30000000000000004, 1 vs 1.0)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def test_load_dataset_gives_back_every_value_written(built: Path, tmp_path: Path) -> None:
    checked = 0
    for config in ("sft", "rl", "sft-multiturn", "rl-multiturn"):
        written = {(r["extra_info"]["split"] if "extra_info" in r else "", r["task_id"]): r
                   for r in iter_rows(built, config)}
        by_id = {task_id: row for (_, task_id), row in written.items()}
        for row in _loaded(built, config, tmp_path / "cache"):
            original = by_id[row["task_id"]]
            for column in JSON_COLUMNS:
                if column in original:
                    assert _exact(row[column]) == _exact(original[column]), (config, row["task_id"], column)
                    checked += 1
    assert checked > 20_000


def test_every_loaded_row_scores_one_with_its_oracle(built: Path, tmp_path: Path) -> None:
    scorer = Scorer()
    for config in ("rl", "rl-multiturn"):
        sft_config = config.replace("rl", "sft")
        sft = {r["task_id"]: r for r in _loaded(built, sft_config, tmp_path / "cache")}
        rows = list(_loaded(built, config, tmp_path / "cache"))
        assert {r["builder"] for r in rows} >= {"smart_home", "hotels", "banking"}
        for row in rows:
            for completion in (oracle_completion(row, scorer), oracle_completion(sft[row["task_id"]])):
                result = scorer.score(row, completion)
                assert result.value == 1.0, (config, row["task_id"], result.reasons)


def _corrupted(completion: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The completion with the first number or string argument of its last call changed."""
    out = [dict(m) for m in completion]
    for message in reversed(out):
        for call in message.get("tool_calls") or []:
            arguments = dict(call["function"]["arguments"])
            for key, value in arguments.items():
                if isinstance(value, bool):
                    continue
                if isinstance(value, (int, float)):
                    arguments[key] = value + 1
                elif isinstance(value, str):
                    arguments[key] = value + "x"
                else:
                    continue
                message["tool_calls"] = [{**call, "function": {**call["function"], "arguments": arguments}}]
                return out
    return None


def test_corrupted_completions_of_loaded_rows_score_below_one(built: Path, tmp_path: Path) -> None:
    scorer = Scorer()
    corrupted = 0
    for row in _loaded(built, "rl", tmp_path / "cache"):
        completion = _corrupted(oracle_completion(row, scorer))
        if completion is not None:
            assert scorer.score(row, completion).value < 1.0, row["task_id"]
            corrupted += 1
    assert corrupted > 1500


class Recorded:
    """A policy that says, turn by turn, what the assistant said in a recorded conversation."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.turns = [m for m in messages if m["role"] == "assistant"]

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return self.turns.pop(0) if self.turns else {"role": "assistant", "content": "That is all."}


def test_recorded_conversations_replayed_with_the_default_user_score_one(built: Path, tmp_path: Path) -> None:
    sft = {r["task_id"]: r for r in _loaded(built, "sft-multiturn", tmp_path / "cache")}
    replayed = 0
    for row in _loaded(built, "rl-multiturn", tmp_path / "cache"):
        rollout = run(Recorded(sft[row["task_id"]]["messages"]), row)
        assert rollout.reward.value == 1.0, (row["task_id"], rollout.reward.reasons)
        assert rollout.final_state_hash == row["reward_model"]["ground_truth"]["final_state_hash"]
        replayed += 1
    assert replayed == 3000


def test_augmented_rows_loaded_score_one(tmp_path: Path) -> None:
    source = tmp_path / "src"
    build(BuildConfig(builders=["smart_home", "hotels", "banking"], num_tasks=300, seed=11), source, progress=False)
    out = tmp_path / "aug"
    augment_dataset(source, out, AugmentConfig(), progress=False)
    scorer = Scorer()
    sft = {r["task_id"]: r for r in _loaded(out, "sft-augmented", tmp_path / "cache")}
    rows = list(_loaded(out, "rl-augmented", tmp_path / "cache"))
    assert len(rows) > 1000
    for row in rows:
        for completion in (oracle_completion(row, scorer), oracle_completion(sft[row["task_id"]])):
            result = scorer.score(row, completion)
            assert result.value == 1.0, (row["task_id"], row["augmentations"], result.reasons)


def test_rows_written_with_misread_floats_are_flagged_and_still_score_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dataset written the way covert wrote it before (plain shortest floats, which ujson misreads):
    ``covert validate`` names the numbers, and its rows, loaded as users load them, still replay to their
    recorded hashes because floats enter states and calls in canonical form."""
    import covert.io.parquet as parquet
    from covert.validation.dataset import validate_dataset

    monkeypatch.setattr(parquet, "_dumps", orjson.dumps)
    parquet._row_encoders.cache_clear()
    out = tmp_path / "old"
    build(BuildConfig(builders=["smart_home", "hotels"], num_tasks=200, seed=11), out, workers=1, progress=False)
    parquet._row_encoders.cache_clear()
    monkeypatch.undo()
    reasons = validate_dataset(out).reasons()
    assert reasons and all(reason.startswith("loader_unsafe_value: ") for reason in reasons), reasons
    scorer = Scorer()
    misread = 0
    for row in _loaded(out, "rl", tmp_path / "cache"):
        result = scorer.score(row, oracle_completion(row, scorer))
        assert result.value == 1.0, (row["task_id"], result.reasons)
        misread += "0.30000000000000004" in orjson.dumps(row["extra_info"]["initial_state"]).decode()
    assert misread > 0  # the loaded rows really carry the upstream artefact


def test_load_dataset_never_serves_another_datasets_cached_rows(tmp_path: Path) -> None:
    """``datasets`` keys the cache of a local dataset by its folder name and card metadata: the card's
    ``dataset_info`` (rows and shard bytes per config) keeps two datasets in folders of the same name,
    and a dataset rebuilt in place, apart."""
    cache = tmp_path / "cache"
    first, second = tmp_path / "one" / "ds", tmp_path / "two" / "ds"
    build(BuildConfig(builders=["retail"], num_tasks=30, seed=1), first, progress=False)
    build(BuildConfig(builders=["airline"], num_tasks=30, seed=1), second, progress=False)
    assert {r["builder"] for r in _loaded(first, "rl", cache)} == {"retail"}
    assert {r["builder"] for r in _loaded(second, "rl", cache)} == {"airline"}
    build(BuildConfig(builders=["hotels"], num_tasks=30, seed=1), first, overwrite=True, progress=False)
    assert {r["builder"] for r in _loaded(first, "rl", cache)} == {"hotels"}
