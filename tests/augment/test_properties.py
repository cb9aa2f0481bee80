"""Property tests: over random tasks (any builder and category) and random augmentation parameters, the
oracle calls and answer facts never change, and every augmented pair passes the preservation proof."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from covert.augment.registry import INTENSITIES, NotApplicable, RowPair, kind_names
from covert.augment.rows import augment_pair
from covert.augment.verify import validate_augmented_pair
from covert.env import builder_names
from covert.synth.generate import ItemSpec, make_item
from covert.synth.records import CATEGORIES
from covert.views import rl_row, sft_row

TASKS = st.tuples(st.sampled_from(builder_names()), st.integers(0, 10_000), st.sampled_from(CATEGORIES))
PARAMS = st.tuples(st.sampled_from(kind_names()), st.integers(0, 2**31), st.sampled_from(INTENSITIES))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(TASKS, PARAMS)
def test_oracle_calls_and_answer_facts_are_invariant(task: tuple[str, int, str], params: tuple[str, int, str]) -> None:
    builder, index, category = task
    kind, seed, intensity = params
    outcome = make_item(ItemSpec(index, builder, category, None), 13, lambda signature: "train")
    assume(outcome.task is not None)
    base = RowPair(sft_row(outcome.task), rl_row(outcome.task, "train", index))
    try:
        out = augment_pair(base, kind, seed, intensity)
    except NotApplicable:
        assume(False)
    for view, old in ((out.sft["ground_truth"], base.sft["ground_truth"]),
                      (out.rl["reward_model"]["ground_truth"], base.rl["reward_model"]["ground_truth"])):
        assert view["calls"] == old["calls"]
        assert view["answer_facts"] == old["answer_facts"]
        assert view["final_state_hash"] == old["final_state_hash"]
        assert view["outputs_hash"] == old["outputs_hash"]
    validate_augmented_pair(out.sft, out.rl)
    assert augment_pair(base, kind, seed, intensity) == out
