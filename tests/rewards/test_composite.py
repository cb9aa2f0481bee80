"""The composite reward on real rows: oracles score 1.0, corruptions score less, for the right reason."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from covert.env import get_builder
from covert.rewards import Judgement, RewardConfig, Rubric, Scorer, oracle_completion, score


def hermes(messages: list[dict[str, Any]]) -> str:
    """Render messages the way a Qwen-style chat template shows a rollout to verl."""
    out = []
    for m in messages:
        if m["role"] == "assistant":
            text = m.get("content") or ""
            for call in m.get("tool_calls") or []:
                body = json.dumps({"name": call["function"]["name"], "arguments": call["function"]["arguments"]})
                text += f"<tool_call>\n{body}\n</tool_call>"
            out.append(f"<|im_start|>assistant\n{text}<|im_end|>\n")
        elif m["role"] == "tool":
            out.append(f"<|im_start|>user\n<tool_response>\n{m['content']}\n</tool_response><|im_end|>\n")
        else:
            out.append(f"<|im_start|>user\n{m['content']}<|im_end|>\n")
    return "".join(out)


def has(result, prefix: str) -> bool:
    return any(r.startswith(prefix) for r in result.reasons)


def tool_use(pairs):
    return [(rl, sft) for rl, sft in pairs if rl["reward_model"]["ground_truth"]["behaviour"] == "tool_use"]


def test_oracle_completions_score_one_on_every_row(pairs) -> None:
    assert len(pairs) == 200
    for rl, sft in pairs:
        from_sft = oracle_completion(sft)
        for completion in (from_sft, oracle_completion(rl), hermes(from_sft)):
            result = score(rl, completion)
            assert result.value == 1.0, (rl["task_id"], rl["category"], result)
        assert score(sft, from_sft).value == 1.0  # SFT rows are rows too


def test_components_follow_the_ground_truth(pairs) -> None:
    seen = set()
    for rl, sft in pairs:
        truth = rl["reward_model"]["ground_truth"]
        result = score(rl, oracle_completion(sft))
        expected = {"behaviour"} if truth["behaviour"] == "decline" else {"calls"}
        if truth["answer_facts"]:
            expected.add("facts")
        if truth["state_diff"]:
            expected.add("state")
        assert set(result.components) == expected, (rl["task_id"], result.components)
        seen.add(frozenset(expected))
    assert len(seen) >= 3


def test_dropping_the_last_turn(pairs) -> None:
    for rl, sft in tool_use(pairs):
        completion = oracle_completion(sft)
        last = max(i for i, m in enumerate(completion) if m.get("tool_calls"))
        truncated = completion[:last] + completion[-1:]
        result = score(rl, truncated)
        assert result.value < 1.0
        assert has(result, "calls:missing_call") or has(result, "calls:out_of_order"), result.reasons
        if rl["reward_model"]["ground_truth"]["state_diff"] and "state" in result.components:
            assert result.components["state"] < 1.0


def test_a_wrong_argument_value(pairs) -> None:
    count = 0
    for rl, sft in tool_use(pairs):
        completion = copy.deepcopy(oracle_completion(sft))
        arguments = completion[0]["tool_calls"][0]["function"]["arguments"]
        key = next((k for k, v in arguments.items() if isinstance(v, str)), None)
        if key is None:
            continue
        arguments[key] = arguments[key] + " (edited)"
        result = score(rl, completion)
        assert result.value < 1.0 and has(result, "calls:wrong_value"), (rl["task_id"], result.reasons)
        count += 1
    assert count > 50


def test_a_string_where_a_number_belongs(pairs) -> None:
    count = 0
    for rl, sft in tool_use(pairs):
        completion = copy.deepcopy(oracle_completion(sft))
        for message in completion:
            for call in message.get("tool_calls") or []:
                arguments = call["function"]["arguments"]
                key = next((k for k, v in arguments.items() if type(v) in (int, float)), None)
                if key is not None:
                    arguments[key] = str(arguments[key])
                    result = score(rl, completion)
                    assert result.value < 1.0 and has(result, "calls:wrong_type"), result.reasons
                    count += 1
                    break
            else:
                continue
            break
    assert count > 5


def test_an_unknown_tool_and_a_missing_answer(pairs) -> None:
    for rl, sft in tool_use(pairs)[:60]:
        completion = copy.deepcopy(oracle_completion(sft))
        completion.insert(0, {"role": "assistant", "content": "",
                              "tool_calls": [{"type": "function", "function": {"name": "launch_rocket", "arguments": {}}}]})
        result = score(rl, completion)
        assert result.value < 1.0 and has(result, "calls:unknown_tool: launch_rocket")
        if rl["reward_model"]["ground_truth"]["answer_facts"]:
            silent = [*oracle_completion(sft)[:-1], {"role": "assistant", "content": "Done."}]
            result = score(rl, silent)
            assert result.components["facts"] == 0.0 and has(result, "facts:missing")


def test_swapped_sequential_turns(pairs) -> None:
    count = 0
    for rl, sft in tool_use(pairs):
        completion = oracle_completion(sft)
        turns = [i for i, m in enumerate(completion) if m.get("tool_calls")]
        if len(turns) < 2:
            continue
        calls = [completion[i] for i in turns]
        swapped = [calls[1], calls[0], *calls[2:], completion[-1]]
        result = score(rl, swapped)
        if result.value < 1.0:
            count += 1
            assert has(result, "calls:out_of_order") or has(result, "state:") or has(result, "calls:"), result.reasons
    assert count > 10


def test_a_write_on_a_read_only_task_costs_state_credit(pairs) -> None:
    for rl, sft in tool_use(pairs):
        truth = rl["reward_model"]["ground_truth"]
        if truth["state_diff"]:
            continue
        writer = next((s for s in pairs if s[0]["builder"] == rl["builder"] and s[0]["reward_model"]["ground_truth"]["state_diff"]), None)
        if writer is None:
            continue
        completion = oracle_completion(writer[1])[:-1] + oracle_completion(sft)
        result = score(rl, completion)
        if "state" in result.components:
            assert result.components["state"] < 1.0 and has(result, "state:mismatch")
            return
    pytest.skip("no read-only task whose builder also has a writing task")


def test_decline_rows(pairs) -> None:
    declines = [(rl, sft) for rl, sft in pairs if rl["reward_model"]["ground_truth"]["behaviour"] == "decline"]
    assert declines
    rl, _sft = declines[0]
    assert score(rl, "I'm sorry, that is outside what I can do.").value == 1.0
    assert score(rl, "Sure! Here is a great novel: Dune.").value == 0.0
    other = next(s for r, s in tool_use(pairs) if r["builder"] == rl["builder"])
    result = score(rl, oracle_completion(other))
    assert result.value == 0.0 and has(result, "behaviour:decline: made a tool call")


def test_exact_mode_and_recorded_components(pairs) -> None:
    rl, sft = next((r, s) for r, s in tool_use(pairs) if r["reward_model"]["ground_truth"]["answer_facts"])
    silent = [*oracle_completion(sft)[:-1], {"role": "assistant", "content": "Done."}]
    partial = score(rl, silent)
    assert 0.0 < partial.value < 1.0
    assert Scorer(RewardConfig(mode="exact")).score(rl, silent).value == 0.0
    assert Scorer(RewardConfig(mode="exact")).score(rl, oracle_completion(sft)).value == 1.0
    only_calls = copy.deepcopy(rl)
    only_calls["task_id"] += "-calls-only"
    only_calls["reward_model"]["components"] = ["calls"]
    assert score(only_calls, silent).value == 1.0
    weighted = copy.deepcopy(rl)
    weighted["task_id"] += "-facts-heavy"
    weighted["reward_model"]["components"] = {"facts": 3.0}
    assert score(weighted, silent).value < partial.value
    with pytest.raises(ValueError):
        RewardConfig(mode="strict")
    with pytest.raises(ValueError):
        RewardConfig(weights={"style": 1.0})


def test_style_judge_rows_use_the_configured_judge(pairs) -> None:
    class HalfJudge:
        def judge(self, rubric: Rubric, transcript) -> Judgement:
            assert rubric.behaviour == "decline" and rubric.text
            return Judgement(0.5, "an LLM would say so")

    rl, _ = next(p for p in pairs if p[0]["reward_model"]["ground_truth"]["behaviour"] == "decline")
    scorer = Scorer(judge=HalfJudge())
    assert scorer.score(rl, "Sorry, I can't help with that.").value == 1.0  # style rule: the rule judge decides
    judged = copy.deepcopy(rl)
    judged["reward_model"]["style"] = "judge"
    result = scorer.score(judged, "Sorry, I can't help with that.")
    assert result.value == 0.5 and has(result, "behaviour:decline: an LLM would say so")


def _failure_row(pairs, transient: bool) -> tuple[dict[str, Any], int]:
    """An RL row whose first write call fails (transiently or permanently), as stage 2 records it."""
    for rl, _ in tool_use(pairs):
        tools = get_builder(rl["builder"]).tools
        flat = [c for g in rl["reward_model"]["ground_truth"]["calls"] for c in g]
        index = next((i for i, c in enumerate(flat) if tools[c["name"]].writes), None)
        if index is None or index == 0:
            continue
        row = copy.deepcopy(rl)
        row["task_id"] += "-transient" if transient else "-permanent"
        truth = row["reward_model"]["ground_truth"]
        truth["behaviour"] = "retry" if transient else "report_error"
        truth["failure"] = {"call": index, "transient": transient, "attempts": 1,
                            "error": {"code": "timeout" if transient else "payment_declined",
                                      "message": "The request timed out." if transient else "The card was declined."}}
        return row, index
    raise AssertionError("no task with a write after a read")


def test_retry_after_a_transient_failure(pairs) -> None:
    row, _ = _failure_row(pairs, transient=True)
    oracle = oracle_completion(row)
    assert sum(1 for m in oracle if m["role"] == "tool" and "timeout" in m["content"]) == 1
    result = score(row, oracle)
    assert result.value == 1.0, result
    assert score(row, hermes(oracle)).value == 1.0
    # giving up after the error: no retry, the write never happens
    failed = next(i for i, m in enumerate(oracle) if m["role"] == "tool" and "timeout" in m["content"])
    gave_up = [*oracle[:failed + 1], {"role": "assistant", "content": "The service timed out, sorry."}]
    result = score(row, gave_up)
    assert result.value < 1.0 and result.components["behaviour"] == 0.0
    assert has(result, "behaviour:retry: did not retry")


def test_report_error_after_a_permanent_failure(pairs) -> None:
    row, index = _failure_row(pairs, transient=False)
    oracle = oracle_completion(row)
    assert sum(len(m.get("tool_calls") or []) for m in oracle) == index + 1
    assert score(row, oracle).value == 1.0, score(row, oracle)
    claims = [*oracle[:-1], {"role": "assistant", "content": "All set, your request went through successfully."}]
    result = score(row, claims)
    assert result.components["behaviour"] == 0.0 and has(result, "behaviour:report_error: claimed success")
    # the calls after the failure are not expected: making them costs call credit
    rl_row = next(rl for rl, _ in pairs if rl["task_id"] == row["task_id"].replace("-permanent", ""))
    full = oracle_completion(rl_row)
    result = score(row, full[:-1] + oracle[-1:])
    if sum(len(m.get("tool_calls") or []) for m in full) > index + 1:
        assert result.components["calls"] < 1.0


def test_clarify_asks_before_acting(pairs) -> None:
    for rl, _ in tool_use(pairs):
        flat = [c for g in rl["reward_model"]["ground_truth"]["calls"] for c in g]
        tools = get_builder(rl["builder"]).tools
        write = next((c for c in flat if tools[c["name"]].writes and c["arguments"]), None)
        if write is None:
            continue
        param, value = next((k, v) for k, v in write["arguments"].items() if isinstance(v, str))
        break
    row = copy.deepcopy(rl)
    row["task_id"] += "-clarify"
    row["reward_model"]["ground_truth"]["behaviour"] = "clarify"
    row["reward_model"]["ground_truth"]["clarify"] = {"param": param, "value": value}
    oracle = oracle_completion(row)
    assert oracle[0]["role"] == "assistant" and "?" in oracle[0]["content"] and oracle[1]["role"] == "user"
    assert score(row, oracle).value == 1.0
    assert score(row, oracle[:1]).value == 1.0  # stopping at the question is right in single-turn RL
    words = param.replace("_", " ")
    assert score(row, f"Which {words} do you mean?").value == 1.0
    result = score(row, oracle[2:])  # acted without asking
    assert result.components["behaviour"] == 0.0 and has(result, "behaviour:clarify")
    assert score(row, "Okay.").value == 0.0


def test_prepared_rows_are_cached_by_content_not_task_id(pairs) -> None:
    """Scoring one task again with another initial state (or another ground truth) in the same process
    never reuses the first preparation."""
    scorer = Scorer()
    row = next(r for r, _ in pairs if r["reward_model"]["ground_truth"]["calls"]
               and r["reward_model"]["ground_truth"]["behaviour"] == "tool_use")
    completion = oracle_completion(row, scorer)
    assert scorer.score(row, completion).value == 1.0
    emptied = {"tables": {name: {} for name in row["extra_info"]["initial_state"]["tables"]}, "counters": {}}
    other_state = {**row, "extra_info": {**row["extra_info"], "initial_state": emptied}}
    assert scorer.score(other_state, completion).value < 1.0
    truth = row["reward_model"]["ground_truth"]
    other_truth = {**row, "reward_model": {**row["reward_model"], "ground_truth": {**truth, "answer_facts": [
        *truth["answer_facts"], {"value": "a fact no answer states", "path": "nowhere"}]}}}
    assert scorer.score(other_truth, completion).value < 1.0
    assert scorer.score(row, completion).value == 1.0
