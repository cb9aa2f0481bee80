"""Rewards on stage-2 rows: every augmented row's oracle scores 1.0, and its behaviour is what counts.

Needs ``covert.augment`` (skipped when it is not importable); rewards themselves never import it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from covert.io.reader import iter_rows
from covert.rewards import oracle_completion, score

from .test_composite import hermes


@pytest.fixture(scope="module")
def augmented(dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    module = pytest.importorskip("covert.augment.dataset")
    if not hasattr(module, "augment_dataset") or not hasattr(module, "AugmentConfig"):
        pytest.skip("covert.augment.dataset has no augment_dataset/AugmentConfig")
    out = tmp_path_factory.mktemp("augmented") / "ds"
    module.augment_dataset(dataset, out, module.AugmentConfig(seed=3), progress=False)
    sft = {row["task_id"]: row for row in iter_rows(out, "sft-augmented")}
    return [(row, sft[row["task_id"]]) for row in iter_rows(out, "rl-augmented")]


def _behaviour(row: dict[str, Any]) -> str:
    return row["reward_model"]["ground_truth"]["behaviour"]


def test_every_augmented_oracle_scores_one(augmented) -> None:
    kinds = set()
    for rl, sft in augmented:
        kinds.add(rl["augmentations"][-1]["kind"])
        from_sft = oracle_completion(sft)
        for completion in (from_sft, oracle_completion(rl), hermes(from_sft)):
            result = score(rl, completion)
            assert result.value == 1.0, (rl["task_id"], rl["augmentations"], result)
    assert {"distractors", "ambiguous", "erroneous"} <= kinds
    assert {_behaviour(rl) for rl, _ in augmented} >= {"clarify", "retry", "report_error"}


def test_skipping_the_retry_fails_the_retry_rows(augmented) -> None:
    rows = [(rl, sft) for rl, sft in augmented if _behaviour(rl) == "retry"]
    assert rows
    for rl, sft in rows:
        completion = oracle_completion(sft)
        code = rl["reward_model"]["ground_truth"]["failure"]["error"]["code"]
        failed = next(i for i, m in enumerate(completion) if m["role"] == "tool" and code in m["content"])
        gave_up = [*completion[:failed + 1], {"role": "assistant", "content": "That did not work, sorry."}]
        result = score(rl, gave_up)
        assert result.components["behaviour"] == 0.0 and result.value < 1.0, result


def test_acting_without_asking_fails_the_clarify_rows(augmented) -> None:
    rows = [(rl, sft) for rl, sft in augmented if _behaviour(rl) == "clarify"]
    assert rows
    for rl, sft in rows:
        completion = oracle_completion(sft)
        assert completion[0]["role"] == "assistant" and completion[1]["role"] == "user"
        assert score(rl, completion[:1]).value == 1.0  # the question alone is right in single-turn RL
        result = score(rl, completion[2:])
        assert result.value < 1.0 and result.components["behaviour"] == 0.0, result


def test_claiming_success_fails_the_report_error_rows(augmented) -> None:
    rows = [(rl, sft) for rl, sft in augmented if _behaviour(rl) == "report_error"]
    assert rows
    for rl, sft in rows:
        completion = oracle_completion(sft)
        claims = [*completion[:-1], {"role": "assistant", "content": "Done, it all went through successfully."}]
        result = score(rl, claims)
        assert result.components["behaviour"] == 0.0, result
