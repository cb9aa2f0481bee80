"""Stacked augmentations: kinds applied on top of each other in their fixed order (one seed, at most one
kind that changes how outputs are shown) validate, replay and score like single ones; a wrong order, a second
presentation kind, another seed and records reordered by hand are refused."""

from __future__ import annotations

import pytest

from covert.augment.registry import NotApplicable, RowPair
from covert.augment.rows import augment_pair
from covert.augment.verify import validate_augmented_pair
from covert.errors import Invalid

STACKS = (("distractors", "noisy"), ("distractors", "ambiguous", "noisy"), ("indirect", "noisy", "erroneous"))


def _stacked(pair: RowPair, kinds: tuple[str, ...]) -> RowPair:
    for kind in kinds:
        pair = augment_pair(pair, kind, seed=3, intensity="high", stack=True)
    return pair


@pytest.mark.parametrize("kinds", STACKS, ids=["+".join(k) for k in STACKS])
def test_stacks_validate_and_the_oracle_scores_one(pairs: list[RowPair], kinds: tuple[str, ...]) -> None:
    from covert.rewards import score
    from covert.rewards.composite import oracle_completion

    made = 0
    for pair in pairs:
        try:
            row = _stacked(pair, kinds)
        except NotApplicable:
            continue
        try:
            validate_augmented_pair(row.sft, row.rl)
        except Invalid as exc:
            assert exc.reason.startswith(("selection_", "leak")), exc  # L3 rejects some rewrites, as for single kinds
            continue
        assert [a["kind"] for a in row.sft["augmentations"]] == list(kinds)
        assert row.sft["base_task_id"] == pair.sft["task_id"]
        assert score(row.rl, oracle_completion(row.rl)).value == 1.0
        made += 1
        if made == 6:
            break
    assert made >= 3, f"too few {kinds} rows"


def test_the_first_kind_of_a_stack_is_the_single_kind(pairs: list[RowPair]) -> None:
    pair = next(p for p in pairs if p.sft["num_calls"] > 0)
    single = augment_pair(pair, "distractors", seed=3, intensity="high")
    assert _stacked(pair, ("distractors",)).sft == single.sft  # a stack of one is what covert augment writes
    stacked = augment_pair(single, "noisy", seed=3, intensity="high", stack=True)
    assert stacked.sft["tools"] == single.sft["tools"] and stacked.sft["task_id"] != single.sft["task_id"]


def test_order_presentation_and_seed_rules(pairs: list[RowPair]) -> None:
    pair = next(p for p in pairs if p.sft["num_calls"] > 0)
    noisy = augment_pair(pair, "noisy", seed=3, intensity="high")
    with pytest.raises(NotApplicable, match="already augmented"):
        augment_pair(noisy, "erroneous", seed=3)
    with pytest.raises(NotApplicable, match="does not come after"):
        augment_pair(noisy, "distractors", seed=3, stack=True)
    with pytest.raises(NotApplicable, match="one kind at most"):
        augment_pair(noisy, "multi_format", seed=3, stack=True)
    with pytest.raises(NotApplicable, match="one seed"):
        augment_pair(noisy, "erroneous", seed=4, stack=True)


def test_a_stack_out_of_order_is_invalid(pairs: list[RowPair]) -> None:
    for pair in pairs:
        try:
            row = _stacked(pair, ("distractors", "noisy"))
            validate_augmented_pair(row.sft, row.rl)
        except (NotApplicable, Invalid):
            continue
        records = list(reversed(row.sft["augmentations"]))
        with pytest.raises(Invalid) as caught:
            validate_augmented_pair({**row.sft, "augmentations": records}, {**row.rl, "augmentations": records})
        assert caught.value.reason == "stacked_augmentations"
        return
    pytest.fail("no distractors+noisy row")
