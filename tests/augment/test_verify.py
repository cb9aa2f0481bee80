"""The preservation proof catches deliberately broken augmentations, and never crashes on bad rows."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from covert.augment import formats
from covert.augment.registry import RowPair
from covert.augment.rows import flat_calls, truth_of
from covert.augment.verify import validate_augmented_pair, validate_augmented_row
from covert.env import get_builder
from covert.errors import Invalid
from covert.language.values import get_path, mentions, normalize_text
from tests.augment.helpers import augmented


def _reason(row: dict[str, Any], view: str) -> str:
    with pytest.raises(Invalid) as caught:
        validate_augmented_row(row, view)
    return caught.value.reason


def _first(pairs: list[RowPair], kind: str, where: Callable[[RowPair], bool] = lambda out: True, **kw: Any) -> RowPair:
    out = next((out for _, out in augmented(pairs, kind, **kw) if where(out)), None)
    assert out is not None, f"no {kind} row with the wanted shape"
    validate_augmented_pair(out.sft, out.rl)
    return out


def _tools(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["function"]["name"]: t for t in row["tools"]}


# -- distractors -----------------------------------------------------------------------------------
def test_catches_a_distractor_that_replaces_an_oracle_tool(pairs: list[RowPair]) -> None:
    out = _first(pairs, "distractors", lambda o: bool(o.sft["ground_truth"]["calls"]))
    oracle = flat_calls(out.sft["ground_truth"])[0]["name"]
    for view, row in (("sft", out.sft), ("rl", out.rl)):
        # same name, other semantics
        broken = copy.deepcopy(row)
        spec = _tools(broken)[oracle]["function"]
        spec["description"] = "Deprecated: returns cached data. " + spec["description"]
        assert _reason(broken, view) == "tool_spec_mismatch"
        # the oracle tool removed and a renamed copy offered (and recorded) in its place
        broken = copy.deepcopy(row)
        broken["tools"] = [t for t in broken["tools"] if t["function"]["name"] != oracle]
        clone = copy.deepcopy(_tools(row)[oracle])
        clone["function"]["name"] = oracle + "_v2"
        broken["tools"].append(clone)
        broken["augmentations"][0]["added"].append(oracle + "_v2")
        assert _reason(broken, view) == "oracle_tool_not_offered"


def test_catches_an_unrecorded_or_unexpected_extra_tool(pairs: list[RowPair]) -> None:
    out = _first(pairs, "distractors")
    broken = copy.deepcopy(out.sft)
    broken["augmentations"][0]["added"].pop()
    assert _reason(broken, "sft") == "distractors_not_recorded"
    noisy = _first(pairs, "noisy")
    broken = copy.deepcopy(noisy.sft)
    broken["tools"].append(next(t for t in out.sft["tools"] if t["function"]["name"] in out.record["added"]))
    assert _reason(broken, "sft") == "unexpected_tool"
    broken = copy.deepcopy(out.sft)
    broken["tools"][0]["function"]["parameters"]["properties"]["x y"] = {"type": "string"}  # no description
    assert _reason(broken, "sft") in ("schema", "tool_spec_mismatch")


# -- noisy outputs ---------------------------------------------------------------------------------
def _feeding(out: RowPair) -> tuple[int, Any]:
    """A call whose (real) output supplies a string argument of a later call, and that value."""
    truth = out.sft["ground_truth"]
    calls = flat_calls(truth)
    env = get_builder(out.sft["builder"]).env(out.sft["initial_state"])
    real = [env.call(c["name"], c["arguments"]) for c in calls]
    for j in range(len(calls)):
        for later in calls[j + 1:]:
            for value in later["arguments"].values():
                if isinstance(value, str) and value in orjson.dumps(real[j]).decode():
                    return j, value
    raise AssertionError("no feeding call")


def _drop(value: Any, needle: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop(v, needle) for k, v in value.items() if v != needle}
    if isinstance(value, list):
        return [_drop(v, needle) for v in value if v != needle]
    return value


def _set_tool_content(row: dict[str, Any], j: int, content: str) -> dict[str, Any]:
    broken = copy.deepcopy(row)
    tools = [m for m in broken["messages"] if m["role"] == "tool"]
    tools[j]["content"] = content
    return broken


def test_catches_noise_that_deletes_a_needed_value(pairs: list[RowPair]) -> None:
    def feeds(out: RowPair) -> bool:
        try:
            _feeding(out)
        except AssertionError:
            return False
        return True

    out = _first(pairs, "noisy", feeds)
    j, value = _feeding(out)
    shown = orjson.loads([m for m in out.sft["messages"] if m["role"] == "tool"][j]["content"])
    broken = _set_tool_content(out.sft, j, orjson.dumps(_drop(shown, value)).decode())
    assert _reason(broken, "sft") == "noise_lost_value"


def test_catches_noise_that_deletes_an_answer_fact(pairs: list[RowPair]) -> None:
    out = _first(pairs, "noisy", lambda o: any("call" in f for f in o.sft["ground_truth"]["answer_facts"]))
    fact = next(f for f in out.sft["ground_truth"]["answer_facts"] if "call" in f)
    shown = orjson.loads([m for m in out.sft["messages"] if m["role"] == "tool"][fact["call"]]["content"])
    env = get_builder(out.sft["builder"]).env(out.sft["initial_state"])
    calls = flat_calls(out.sft["ground_truth"])
    real = [env.call(c["name"], c["arguments"]) for c in calls][fact["call"]]
    broken = _set_tool_content(out.sft, fact["call"], orjson.dumps(_drop(shown, get_path(real, fact["path"]))).decode())
    assert _reason(broken, "sft") in ("noise_lost_fact", "noise_lost_value")


def test_catches_noise_that_makes_a_selection_ambiguous(pairs: list[RowPair]) -> None:
    out = _first(pairs, "noisy", lambda o: any(s["mode"] == "field" for s in o.sft["ground_truth"]["selections"]))
    sel = next(s for s in out.sft["ground_truth"]["selections"] if s["mode"] == "field")
    shown = orjson.loads([m for m in out.sft["messages"] if m["role"] == "tool"][sel["source_call"]]["content"])

    def twin(value: Any) -> Any:  # every list holding the chosen record gets a second record with its descriptor
        if isinstance(value, dict):
            return {k: twin(v) for k, v in value.items()}
        if isinstance(value, list):
            chosen = [e for e in value if isinstance(e, dict) and e.get(sel["key"]) == sel["chosen"]]
            extra = [{**e, sel["key"]: f"{e[sel['key']]}-copy"} for e in chosen]
            return [twin(v) for v in value] + extra
        return value

    broken = _set_tool_content(out.sft, sel["source_call"], orjson.dumps(twin(shown)).decode())
    assert _reason(broken, "sft") == "noise_breaks_selection"


# -- clarification ---------------------------------------------------------------------------------
def test_catches_a_clarification_that_answers_with_the_wrong_value(pairs: list[RowPair]) -> None:
    out = _first(pairs, "ambiguous")
    clarify = out.sft["ground_truth"]["clarify"]
    wrong = "ZZ-99999" if isinstance(clarify["value"], str) else clarify["value"] + 1
    broken = copy.deepcopy(out.sft)
    broken["messages"][3]["content"] = broken["messages"][3]["content"].replace(str(clarify["value"]), str(wrong))
    assert _reason(broken, "sft") == "clarification_wrong_value"
    broken = copy.deepcopy(out.rl)
    said = broken["reward_model"]["ground_truth"]["clarify"]
    said["text"] = said["text"].replace(str(clarify["value"]), str(wrong))
    assert _reason(broken, "rl") == "clarification_wrong_value"
    broken = copy.deepcopy(out.rl)
    broken["reward_model"]["ground_truth"]["clarify"]["value"] = wrong
    assert _reason(broken, "rl") == "clarify_not_oracle_value"
    broken = copy.deepcopy(out.sft)
    broken["messages"][1]["content"] += f" {clarify['text']}"  # the value is back in the query
    assert _reason(broken, "sft") == "clarify_value_in_query"


# -- indirect --------------------------------------------------------------------------------------
def test_catches_a_rephrasing_that_drops_a_value(pairs: list[RowPair]) -> None:
    def has_value(out: RowPair) -> bool:
        query = out.sft["messages"][1]["content"]
        return any(isinstance(v, str) and v in query for c in flat_calls(out.sft["ground_truth"])
                   for v in c["arguments"].values())

    out = _first(pairs, "indirect", has_value)
    query = out.sft["messages"][1]["content"]
    value = next(v for c in flat_calls(out.sft["ground_truth"]) for v in c["arguments"].values()
                 if isinstance(v, str) and v in query)
    broken = copy.deepcopy(out.sft)
    broken["messages"][1]["content"] = query.replace(value, "the usual one")
    assert _reason(broken, "sft") in ("ungrounded_argument", "selection_not_in_query")


# -- multi-format ----------------------------------------------------------------------------------
def test_catches_a_format_that_changes_a_value(pairs: list[RowPair]) -> None:
    out = _first(pairs, "multi_format", lambda o: "yaml" in o.record["formats"])
    j = out.record["formats"].index("yaml")
    content = [m for m in out.sft["messages"] if m["role"] == "tool"][j]["content"]
    value = formats.load(content, "yaml")
    key = next(k for k, v in value.items() if isinstance(v, (str, int)) and not isinstance(v, bool))
    value[key] = f"{value[key]}0" if isinstance(value[key], str) else value[key] + 1
    assert _reason(_set_tool_content(out.sft, j, formats.dump(value, "yaml")), "sft") == "format_roundtrip"
    assert _reason(_set_tool_content(out.sft, j, "key: [unclosed"), "sft") == "format_unparseable"


# -- erroneous -------------------------------------------------------------------------------------
def test_catches_a_retry_with_other_arguments(pairs: list[RowPair]) -> None:
    out = _first(pairs, "erroneous", lambda o: o.sft["ground_truth"]["behaviour"] == "retry")
    broken = copy.deepcopy(out.sft)
    retry = next(m for m in broken["messages"] if m["role"] == "assistant" and m.get("content") and m.get("tool_calls"))
    retry["tool_calls"][0]["function"]["arguments"] = {**retry["tool_calls"][0]["function"]["arguments"], "extra": 1}
    assert _reason(broken, "sft") == "calls_mismatch"


def test_catches_a_failure_report_that_claims_results(pairs: list[RowPair]) -> None:
    def claimable(out: RowPair) -> str | None:
        """A fact only the failed or dropped calls would have given."""
        truth = out.sft["ground_truth"]
        if truth["behaviour"] != "report_error":
            return None
        j = truth["failure"]["call"]
        known = normalize_text(out.sft["messages"][1]["content"] + " " + out.sft["messages"][-1]["content"])
        shown = " ".join(m["content"] for m in out.sft["messages"] if m["role"] == "tool")
        for fact in truth["answer_facts"]:
            if fact.get("call", -1) >= j and not mentions(known, fact["value"]) and fact["value"] not in shown:
                return fact["value"]
        return None

    out = _first(pairs, "erroneous", lambda o: claimable(o) is not None, seed=2)
    broken = copy.deepcopy(out.sft)
    broken["messages"][-1]["content"] = f"All done: {claimable(out)}. " + broken["messages"][-1]["content"]
    assert _reason(broken, "sft") == "failure_claims_result"
    broken = copy.deepcopy(out.sft)
    broken["messages"][-1]["content"] = "Sorry, that did not work."
    assert _reason(broken, "sft") == "failure_not_reported"
    broken = copy.deepcopy(out.sft)
    broken["messages"][-1]["content"] += " Please try again later."
    assert _reason(broken, "sft") == "failure_report_retry_advice"
    broken = copy.deepcopy(out.sft)
    failure = truth_of(out.sft)["failure"]
    broken["messages"][-1]["content"] += f" ({failure['error']['code']} from {failure['name']})"
    assert _reason(broken, "sft") == "failure_report_internals"
    broken = copy.deepcopy(out.rl)
    broken["reward_model"]["ground_truth"]["failure_state_hash"] = "0" * 32
    assert _reason(broken, "rl") == "failure_state"
    broken = copy.deepcopy(out.rl)
    broken["reward_model"]["ground_truth"]["failure"]["error"] = {"code": "timeout", "message": "x", "retryable": True}
    assert _reason(broken, "rl") == "failure_error"
    broken = copy.deepcopy(out.rl)
    broken["reward_model"]["ground_truth"]["failure"]["arguments"] = {"made_up": 1}
    assert _reason(broken, "rl") == "failure_not_oracle_call"


# -- anything --------------------------------------------------------------------------------------
def test_catches_tampered_metadata_and_malformed_rows(pairs: list[RowPair]) -> None:
    out = _first(pairs, "noisy")
    assert _reason(pairs[0].sft, "sft") == "not_augmented"
    broken = copy.deepcopy(out.sft)
    broken["task_id"] += "x"
    assert _reason(broken, "sft") == "augmented_task_id"
    broken = copy.deepcopy(out.rl)
    broken["augmentations"][0]["kind"] = "telepathy"
    assert _reason(broken, "rl") == "unknown_augmentation"
    broken = copy.deepcopy(out.rl)
    del broken["reward_model"]["ground_truth"]["calls"]
    assert _reason(broken, "rl") == "schema"
    broken = copy.deepcopy(out.sft)
    broken["ground_truth"]["final_state_hash"] = "f" * 32
    assert _reason(broken, "sft") == "replay_final_state"
    broken = copy.deepcopy(out.rl)
    broken["augmentations"][0]["noise_seed"] = "not a number"
    assert _reason(broken, "rl") in ("noise_record", "malformed_augmented_row")
    broken = copy.deepcopy(out.rl)
    broken["extra_info"]["initial_state"] = {"tables": {"x": {"y": {"z": {"w": 1}}}}}
    assert _reason(broken, "rl")  # a state the oracle cannot run on is a reason, not a crash
    with pytest.raises(Invalid):
        validate_augmented_pair(out.sft, augmented(pairs, "distractors")[0][1].rl)
