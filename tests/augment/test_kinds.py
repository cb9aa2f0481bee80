"""One uniform template for every augmentation kind (validation, determinism, structure, right behaviour),
then the checks particular to each kind."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import orjson
import pytest

from covert.augment import formats
from covert.augment.kinds import erroneous
from covert.augment.registry import RowPair, kind_names
from covert.augment.rows import augmented_task_id, flat_calls, recorded_outputs
from covert.augment.simulator import clarify_user
from covert.augment.verify import validate_augmented_pair, validate_augmented_row
from covert.env import get_builder, is_error
from covert.language.values import mentions, normalize_text
from covert.rewards import score
from covert.rewards.session import failures_of
from covert.rollouts.runner import run
from covert.views import tool_content
from tests.augment.helpers import augmented, canonical, tool_contents

KINDS = kind_names()
TOOL_SCHEMA = jsonschema.Draft202012Validator(
    json.loads((Path(__file__).resolve().parents[2] / "schemas" / "tool.schema.json").read_text()))
# share of base tasks a kind must apply to (distractors: every task; the rest need oracle calls or a
# removable value; erroneous: an error report that leaves two turns taking nothing from each other fits no
# category label, and such a row is not written)
MIN_SHARE = {"distractors": 1.0, "indirect": 0.5, "ambiguous": 0.3, "noisy": 0.8, "multi_format": 0.8,
             "erroneous": 0.7}


def test_every_kind_is_registered() -> None:
    assert KINDS == ["distractors", "indirect", "ambiguous", "noisy", "multi_format", "erroneous"]


@pytest.mark.parametrize("kind", KINDS)
def test_rows_validate(pairs: list[RowPair], kind: str) -> None:
    made = augmented(pairs, kind)
    assert len(made) >= MIN_SHARE[kind] * len(pairs), f"{kind} applied to {len(made)} of {len(pairs)}"
    for _, out in made:
        validate_augmented_pair(out.sft, out.rl)


@pytest.mark.parametrize("kind", KINDS)
def test_deterministic_per_seed(pairs: list[RowPair], kind: str) -> None:
    before = [canonical(p) for p in pairs[:40]]
    first = [canonical(out) for _, out in augmented(pairs[:40], kind, seed=3)]
    assert [canonical(p) for p in pairs[:40]] == before  # the base rows are never mutated
    again = [canonical(out) for _, out in augmented(pairs[:40], kind, seed=3)]
    other = [canonical(out) for _, out in augmented(pairs[:40], kind, seed=4)]
    assert first == again
    assert first != other


@pytest.mark.parametrize("kind", KINDS)
def test_structure_and_invariants(pairs: list[RowPair], kind: str) -> None:
    for base, out in augmented(pairs, kind, seed=9, intensity="high"):
        base_id = base.sft["task_id"]
        assert out.sft["task_id"] == out.rl["task_id"] == out.rl["extra_info"]["task_id"]
        assert out.sft["task_id"] == augmented_task_id(base_id, [kind], 9) != base_id
        assert out.sft["base_task_id"] == out.rl["base_task_id"] == base_id
        record = out.sft["augmentations"][0]
        assert out.sft["augmentations"] == out.rl["augmentations"] == [record]
        assert record["kind"] == kind and record["seed"] == 9 and record["intensity"] == "high"
        truth, old = out.sft["ground_truth"], base.sft["ground_truth"]
        assert truth["calls"] == old["calls"] and truth["answer_facts"] == old["answer_facts"]
        assert truth["final_state_hash"] == old["final_state_hash"] and truth["outputs_hash"] == old["outputs_hash"]
        assert out.sft["initial_state"] == base.sft["initial_state"]
        assert out.rl["extra_info"]["split"] == base.rl["extra_info"]["split"]
        assert out.sft["pass_rate"] is None and out.rl["reward_model"]["ground_truth"] == truth
        assert base.sft["augmentations"] == [] and base.sft["base_task_id"] is None  # the base is untouched


@pytest.mark.parametrize("kind", KINDS)
def test_sft_trajectory_is_the_right_behaviour(pairs: list[RowPair], kind: str) -> None:
    """The house reward gives every augmented row's own SFT trajectory full marks, on both views."""
    for _, out in augmented(pairs[::2], kind, seed=1, intensity="high"):
        completion = out.sft["messages"][2:]
        for view in (out.rl, out.sft):
            result = score(view, completion)
            assert result.value == 1.0, (out.sft["task_id"], result.reasons)


# -- distractors -----------------------------------------------------------------------------------
def test_distractors_keep_oracle_tools_and_add_non_executable_ones(pairs: list[RowPair]) -> None:
    sources = set()
    shuffled = 0
    for base, out in augmented(pairs, "distractors", intensity="high"):
        builder = get_builder(out.sft["builder"])
        own = dict(zip(builder.environment.tool_specs, builder.environment.openai_tools(), strict=True))
        names = [t["function"]["name"] for t in out.sft["tools"]]
        for tool in base.sft["tools"]:
            assert tool in out.sft["tools"]
        for call in flat_calls(out.sft["ground_truth"]):
            assert own[call["name"]] in out.sft["tools"]
        record = out.sft["augmentations"][0]
        assert sorted(record["added"]) == sorted(n for n in names if n not in own)
        assert record["k"] == len(record["added"]) == 9
        for tool in out.sft["tools"]:
            TOOL_SCHEMA.validate(tool)
        env = builder.env(out.sft["initial_state"])
        for name in record["added"]:
            assert is_error(env.call(name, {}))
        sources |= {s for s, n in record["sources"].items() if n}
        shuffled += [n for n in names if n in own] != [t["function"]["name"] for t in base.sft["tools"]]
    assert sources == {"near_miss", "other_domain", "shared_parameter"}
    assert shuffled > 0


def test_distractor_count_scales_with_intensity(pairs: list[RowPair]) -> None:
    k = {level: augmented(pairs[:5], "distractors", intensity=level)[0][1].record["k"] for level in ("low", "high")}
    assert k["low"] < k["high"]


# -- indirect --------------------------------------------------------------------------------------
def test_indirect_rephrases_and_keeps_values(pairs: list[RowPair]) -> None:
    ops = set()
    for base, out in augmented(pairs, "indirect", intensity="high"):
        old, new = base.sft["messages"][1]["content"], out.sft["messages"][1]["content"]
        assert old != new
        said_before = normalize_text(old)
        for call in flat_calls(out.sft["ground_truth"]):
            for value in call["arguments"].values():
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, (str, int, float)) and mentions(said_before, item):
                        assert mentions(normalize_text(new), item), (item, new)
        record = out.sft["augmentations"][0]
        ops |= set(record["ops"])
        for change in record.get("redescribed", []):
            sel = out.sft["ground_truth"]["selections"][change["selection"]]
            assert sel["by"] == change["to"] != change["from"] and mentions(normalize_text(new), sel["value"])
    assert ops == {"describe", "implicit", "reorder"}


def test_indirect_never_reframes_a_request_that_is_an_argument_word_for_word() -> None:
    import random

    from covert.augment.kinds.indirect import _implicit
    from covert.augment.text import Query

    comment = "Please keep me posted by email, I'm in meetings most of the day."
    for seed in range(20):
        query = Query("", ["Can you pass a message on to whoever has INC0058070?", comment], "")
        _implicit(query, [0, 1], random.Random(seed), 2, [comment, "INC0058070"])
        assert query.units[1] == comment
        assert query.units[0] != "Can you pass a message on to whoever has INC0058070?"


# -- ambiguous -------------------------------------------------------------------------------------
def test_ambiguous_asks_and_the_template_user_gives_exactly_the_value(pairs: list[RowPair]) -> None:
    made = augmented(pairs, "ambiguous")
    assert {out.record["mode"] for _, out in made} == {"reference", "sentence"}
    for _, out in made:
        truth = out.sft["ground_truth"]
        clarify = truth["clarify"]
        messages = out.sft["messages"]
        assert truth["behaviour"] == "clarify" and isinstance(truth["rubric"], str)
        assert not mentions(normalize_text(messages[1]["content"]), clarify["value"])
        assert messages[2] == {"role": "assistant", "content": clarify["question"]}
        assert messages[3]["role"] == "user" and mentions(normalize_text(messages[3]["content"]), clarify["value"])
        user = clarify_user(out.rl)
        assert user.reply({"role": "assistant", "content": "What is your favourite colour?"}).content != messages[3]["content"]
        assert clarify_user(out.rl).reply(messages[2]).content == messages[3]["content"]


def test_ambiguous_rl_row_rolls_out_with_the_template_user(pairs: list[RowPair]) -> None:
    """An RL clarifying row works online: a policy that asks and then follows the oracle reaches the oracle's
    final state with full reward, the user answering from the row's clarification."""
    for _, out in augmented(pairs[:60], "ambiguous")[:6]:
        script = iter([m for m in out.sft["messages"][2:] if m["role"] == "assistant"])
        rollout = run(lambda messages, tools, script=script: dict(next(script)), out.rl, user=clarify_user(out.rl))
        assert rollout.final_state_hash == out.rl["reward_model"]["ground_truth"]["final_state_hash"]
        completion = rollout.messages[len(out.rl["prompt"]):]
        assert completion[1] == out.sft["messages"][3]  # the user's answer is the one the SFT row shows
        if completion[-1]["role"] == "user":  # the user's closing line ends the rollout
            completion = completion[:-1]
        result = score(out.rl, completion)
        assert result.value == 1.0, result.reasons


# -- noisy -----------------------------------------------------------------------------------------
def test_noisy_outputs_keep_every_value_and_are_reproducible(pairs: list[RowPair]) -> None:
    from covert.augment.kinds.noisy import present

    made = augmented(pairs, "noisy", intensity="high")
    longer = 0
    for base, out in made:
        truth = out.sft["ground_truth"]
        for j, (real, shown) in enumerate(zip(recorded_outputs(base.sft), tool_contents(out.sft), strict=True)):
            assert shown == present(out.record, truth, j, real)
            assert shown != tool_content(real)
            longer += len(shown) > 2 * len(tool_content(real))
            for value in _scalars(real):
                assert value in _scalars(orjson.loads(shown))
    assert longer > len(made)


def _scalars(value: object) -> list[object]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _scalars(v)]
    if isinstance(value, list):
        return [s for v in value for s in _scalars(v)]
    return [value]


# -- multi-format ----------------------------------------------------------------------------------
def test_multi_format_outputs_parse_back_exactly(pairs: list[RowPair]) -> None:
    seen = set()
    for base, out in augmented(pairs, "multi_format", intensity="high"):
        chosen = out.record["formats"]
        assert any(f != "compact" for f in chosen)
        for fmt, real, shown in zip(chosen, recorded_outputs(base.sft), tool_contents(out.sft), strict=True):
            seen.add(fmt)
            if fmt != "compact":
                assert formats.same(formats.load(shown, fmt), real)
    assert seen == {*formats.FORMATS}


# -- erroneous -------------------------------------------------------------------------------------
def test_erroneous_rows_show_retry_or_report(pairs: list[RowPair]) -> None:
    modes = set()
    for base, out in augmented(pairs, "erroneous", intensity="high"):
        truth = out.sft["ground_truth"]
        failure = truth["failure"]
        calls = flat_calls(truth)
        modes.add(truth["behaviour"])
        (parsed,) = failures_of(truth, calls)  # the reward session reads the same record
        assert parsed.index == failure["call"] and parsed.transient == failure["transient"]
        assert parsed.observation == erroneous.error_observation(failure)
        messages = out.sft["messages"]
        failed = tool_content(erroneous.error_observation(failure))
        made = [c["function"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls", [])]
        if truth["behaviour"] == "retry":
            assert tool_contents(out.sft).count(failed) == failure["attempts"]
            repeats = [f for f in made if f["name"] == failure["name"] and f["arguments"] == failure["arguments"]]
            assert len(repeats) == failure["attempts"] + 1
            assert messages[-1] == base.sft["messages"][-1]
        else:
            assert len(made) == failure["call"] + 1 and tool_contents(out.sft)[-1] == failed
            report = messages[-1]["content"]
            assert erroneous.PERMANENT_SAYS[failure["error"]["code"]] in report  # what went wrong, in words
            assert failure["error"]["code"] not in report and failure["name"] not in report
            assert not erroneous.RETRY_ADVICE.search(report), "a permanent failure is not retried later"
            env = get_builder(out.sft["builder"]).env(out.sft["initial_state"])
            for call in calls[:failure["call"]]:
                env.call(call["name"], call["arguments"])
            assert env.state.hash() == truth["failure_state_hash"]
    assert modes == {"retry", "report_error"}


def test_single_rows_validate_on_their_own(pairs: list[RowPair]) -> None:
    for kind in KINDS:
        for _, out in augmented(pairs[:20], kind):
            validate_augmented_row(out.sft, "sft")
            validate_augmented_row(out.rl, "rl")


@pytest.mark.parametrize("kind", ["noisy", "multi_format", "distractors"])
def test_rl_presenter_reproduces_the_sft_outputs(pairs: list[RowPair], kind: str) -> None:
    from covert.augment import output_presenter

    for base, out in augmented(pairs[:30], kind):
        present = output_presenter(out.rl)
        calls = flat_calls(out.rl["reward_model"]["ground_truth"])
        outputs = recorded_outputs(base.sft)
        assert [present(c["name"], c["arguments"], o) for c, o in zip(calls, outputs, strict=True)] == tool_contents(out.sft)
        assert present("not_an_oracle_call", {}, {"a": 1}) == '{"a":1}'


def test_a_vague_reference_does_not_double_the_determiner() -> None:
    import random

    from covert.augment.kinds.ambiguous import _by_reference
    from covert.env import get_builder

    builder = get_builder("banking")
    found = _by_reference("Any update on my dispute DSP-2026-316199?", builder, "get_dispute_status", "dispute_id",
                          "DSP-2026-316199", random.Random(0))
    assert found is not None
    assert "my my" not in found[0].lower() and "DSP-2026-316199" not in found[0], found


def test_ambiguous_takes_out_the_whole_reference_not_a_part_of_it() -> None:
    """"dispute case DSP-1" goes as a whole: "about one of my disputes", never "about dispute one of my disputes"."""
    import random

    from covert.augment.kinds.ambiguous import _by_reference

    builder = get_builder("banking")
    for seed in range(12):
        text = "When will I hear back about dispute case DSP-2026-552583?"
        found = _by_reference(text, builder, "get_dispute_status", "dispute_id", "DSP-2026-552583", random.Random(seed))
        assert found is not None
        query, said, _ = found
        assert query in ("When will I hear back about my dispute?", "When will I hear back about one of my disputes?")
        assert said == "it's dispute case DSP-2026-552583"


def test_indirect_frames_are_many() -> None:
    """No one indirect wording recurs in most rows: each direct frame has many indirect ones."""
    import random

    from covert.augment.kinds.indirect import _reframe

    for unit in ("Can you cancel my booking WS89TART?", "Please cancel my booking WS89TART.",
                 "I'd like to cancel my booking WS89TART.", "Show me my payees.", "What's the status of INC0058070?"):
        framed = {_reframe(unit, random.Random(seed)) for seed in range(200)}
        assert len(framed) >= 8, (unit, framed)
        assert all(f and ("WS89TART" in f or "payees" in f or "INC0058070" in f) for f in framed)


def test_a_report_keeps_a_list_whose_item_ends_in_a_question_mark_whole() -> None:
    """'... (Ravi Johansson), Is the Keystone launch still on track? (Fatima Osei) and ...' is one sentence:
    when it names what a failed call was to find, it goes whole; the report never starts mid-list with
    '(Fatima Osei) and Revised proposal ...'."""
    from covert.augment.kinds.erroneous import found_before

    truth = {"answer_facts": [{"value": "Is the Keystone launch still on track?", "call": 0, "path": "subject"},
                              {"value": "Revised proposal", "call": 0, "path": "subject"},
                              {"value": "Ravi Johansson", "call": 1, "path": "name"}],
             "calls": [[{"name": "list_inbox", "arguments": {}}, {"name": "search_contacts", "arguments": {}}]]}
    answer = ("Your latest emails are Question about August (Ravi Johansson), Is the Keystone launch still on "
              "track? (Fatima Osei) and Revised proposal (Kwame Bianchi). Ravi Johansson is in your contacts.")
    report = found_before(truth, {0}, answer)
    assert report == ("Before that, I did get this much. What I could find: Is the Keystone launch still on "
                      "track? and Revised proposal."), report
