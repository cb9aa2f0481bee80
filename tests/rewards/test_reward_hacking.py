"""Padding, repetition and appended text score below the oracle; the oracle still scores exactly 1.0
(issue 32: the oracle's final answer repeated 50 times scored 1.0). Rows are loaded with
``datasets.load_dataset`` from a build with conversations and augmentations, and from procedural rows."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from covert.procgen.registry import env_names, get_env
from covert.procgen.rows import make_rows
from covert.rewards import oracle_completion, score
from covert.rewards.concision import answer_budget

CONFIGS = ("rl", "sft", "rl-multiturn", "sft-multiturn", "rl-augmented", "sft-augmented")
Message = dict[str, Any]


def _final(messages: list[Message]) -> str:
    return messages[-1].get("content") or ""


def _with_final(messages: list[Message], text: str) -> list[Message]:
    return [*messages[:-1], {**messages[-1], "content": text}]


def _appendix(messages: list[Message]) -> str:
    """Every tool result the completion saw (the right value is in there), as much as the whole budget
    of a tool task with three call turns and 400 characters of facts allows an answer."""
    seen = " ".join(str(m.get("content") or "") for m in messages if m.get("role") == "tool") or "the record"
    size = answer_budget([("x" * 400,)], call_turns=3)
    return (seen * (size // len(seen) + 1))[:size]


TRICKS: dict[str, Callable[[list[Message]], list[Message]]] = {
    "repeated_50": lambda m: _with_final(m, " ".join([_final(m)] * 50)),
    "repeated_twice": lambda m: _with_final(m, _final(m) + "\n" + _final(m)),
    "padded_whitespace": lambda m: _with_final(m, _final(m).replace(" ", " " * 4000, 1) + "."),
    "padded_filler": lambda m: _with_final(m, "Sure! Happy to help with that. " * 40 + _final(m)),
    "appended_dump": lambda m: _with_final(m, _final(m) + "\n\nEverything I saw: " + _appendix(m)),
    "repeated_in_turns": lambda m: m + [{"role": "assistant", "content": _final(m)}] * 50,
}


def _rows(root: Path, config: str) -> Iterator[dict[str, Any]]:
    from datasets import load_dataset

    for split in load_dataset(str(root), config).values():
        yield from split


@pytest.fixture(scope="module")
def loaded(conversations: Path) -> dict[str, list[dict[str, Any]]]:
    return {config: list(_rows(conversations, config)) for config in CONFIGS}


@pytest.mark.parametrize("config", CONFIGS)
def test_the_oracle_still_scores_exactly_one(loaded: dict[str, list[dict[str, Any]]], config: str) -> None:
    rows = loaded[config]
    assert rows
    for row in rows:
        result = score(row, oracle_completion(row))
        assert result.value == 1.0, (row["task_id"], result.reasons)


@pytest.mark.parametrize("trick", sorted(TRICKS))
def test_each_trick_scores_below_the_oracle(loaded: dict[str, list[dict[str, Any]]], trick: str) -> None:
    tried = 0
    for config in ("rl", "rl-multiturn", "rl-augmented"):
        for row in loaded[config][:25]:
            oracle = oracle_completion(row)
            if not _final(oracle).strip():
                continue
            hacked = score(row, TRICKS[trick](oracle))
            assert hacked.value < 1.0, (config, row["task_id"], trick)
            assert any(r.startswith("answer:") for r in hacked.reasons), hacked.reasons
            tried += 1
    assert tried >= 50


@pytest.mark.parametrize("name", env_names())
def test_procedural_rows_oracle_one_and_tricks_below(name: str) -> None:
    from datasets import Dataset

    env = get_env(name)
    for index in range(3):
        sft, rl, _instance = make_rows(env, 7, env.config_at(1), index, "train", index)
        if rl["reward_model"]["ground_truth"]["procgen"].get("form") == "tools":
            continue
        [row] = list(Dataset.from_list([rl]))  # the row as a trainer's loader gives it back
        reference = sft["messages"][-1]["content"]
        assert score(row, reference).value == 1.0, (name, index)
        assert score(row, " ".join([reference] * 50)).value < 1.0, (name, index)
        assert score(row, reference + " " * 20 * (len(reference) + 400)).value < 1.0, (name, index)
