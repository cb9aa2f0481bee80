"""State matching, answer facts and the rule judge, piece by piece."""

from __future__ import annotations

from covert.env import State, get_builder
from covert.rewards import LLMJudge, Rubric, RuleJudge, facts_score, state_score
from covert.rewards.state_match import change_items, state_items


def _replay(rl):
    env = get_builder(rl["builder"]).env(State.from_dict(rl["extra_info"]["initial_state"]))
    initial = env.state.fork()
    for group in rl["reward_model"]["ground_truth"]["calls"]:
        for call in group:
            env.call(call["name"], call["arguments"])
    return initial, env


def test_state_items_agree_with_the_recorded_diff(pairs) -> None:
    checked = 0
    for rl, _ in pairs:
        truth = rl["reward_model"]["ground_truth"]
        initial, env = _replay(rl)
        assert state_items(initial, env.state) == change_items(truth["state_diff"])
        value, why = state_score(initial, env.state, truth["final_state_hash"], change_items(truth["state_diff"]))
        assert value == 1.0 and why == ""
        checked += bool(truth["state_diff"])
    assert checked > 20


def test_partial_state_credit_is_jaccard_and_below_one(pairs) -> None:
    rl = next(r for r, _ in pairs if len(change_items(r["reward_model"]["ground_truth"]["state_diff"])) >= 2)
    truth = rl["reward_model"]["ground_truth"]
    expected = change_items(truth["state_diff"])
    initial, _ = _replay(rl)
    untouched, why = state_score(initial, initial.fork(), truth["final_state_hash"], expected)
    assert untouched == 0.0 and why.startswith("state:mismatch")
    _, env = _replay(rl)
    table, key, field, _ = sorted(expected)[0]
    record = env.state.edit(table, key)
    record[field] = "something else"
    value, why = state_score(initial, env.state, truth["final_state_hash"], expected)
    got = state_items(initial, env.state)
    assert value == len(got & expected) / len(got | expected) and 0.0 < value < 1.0
    assert "1 expected changes missing, 1 unexpected" in why


def test_facts_use_normalised_whole_token_matches() -> None:
    assert facts_score("Refund of $1,250.00 to card_1 is on its way.", ["1 250.00", "card_1"]) == (1.0, [])
    assert facts_score("Order #W12345 is cancelled.", ["#W1234"]) == (0.0, ["#W1234"])
    assert facts_score("delay: 0 minutes", ["0"])[0] == 1.0
    assert facts_score("delay 10 minutes", ["0"])[0] == 0.0
    assert facts_score("anything", []) == (1.0, [])
    assert facts_score("The video link for Focus time is .", ["Focus time", "", " $ "]) == (1.0, [])
    value, missing = facts_score("USD 12.50", ["USD", "12.50", "paypal_1"])
    assert abs(value - 2 / 3) < 1e-12 and missing == ["paypal_1"]


def test_rule_judge_implements_the_llm_judge_interface() -> None:
    judge = RuleJudge()
    assert isinstance(judge, LLMJudge)
    decline = Rubric("decline", "decline politely")
    for text in ("Sorry, I don't have a way to do that.", "Unfortunately that's outside what I can do.",
                 "I'm sorry, but I can’t help with that here."):
        assert judge.judge(decline, [{"role": "assistant", "content": text}]).score == 1.0
    assert judge.judge(decline, [{"role": "assistant", "content": "Great idea! Here you go."}]).score == 0.0
    assert judge.judge(Rubric("dance", ""), []).score == 0.0
    assert judge.judge(Rubric("tool_use", ""), []).score == 0.0


def test_rule_judge_failure_behaviours() -> None:
    call = {"name": "pay", "arguments": {"amount": 5}}
    context = {"call": call, "error_code": "timeout"}
    failing = [
        {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "type": "function", "function": call}]},
        {"role": "tool", "tool_call_id": "1", "name": "pay", "content": '{"error": {"code": "timeout", "message": "t"}}'},
    ]
    retried = [*failing, {"role": "assistant", "content": "", "tool_calls": [{"id": "2", "type": "function", "function": call}]},
               {"role": "tool", "tool_call_id": "2", "name": "pay", "content": "{}"}, {"role": "assistant", "content": "Paid."}]
    retry = Rubric("retry", "", context)
    assert RuleJudge().judge(retry, retried).score == 1.0
    assert RuleJudge().judge(retry, [*failing, {"role": "assistant", "content": "It failed."}]).score == 0.0
    assert RuleJudge().judge(retry, [{"role": "assistant", "content": "hi"}]).rationale == "never made the call that fails"
    report = Rubric("report_error", "", {"call": call, "error_code": "timeout"})
    for text, expected in (("I couldn't complete the payment: the service failed.", 1.0),
                           ("The payment could not be processed.", 1.0),
                           ("Your payment was processed successfully.", 0.0),
                           ("Here you go.", 0.0)):
        assert RuleJudge().judge(report, [*failing, {"role": "assistant", "content": text}]).score == expected, text


def test_rule_judge_clarify() -> None:
    rubric = Rubric("clarify", "", {"param": "payee_id", "value": "payee_77", "write_tools": ["transfer"]})
    ask = {"role": "assistant", "content": "Which payee should I send it to?"}
    assert RuleJudge().judge(rubric, [ask]).score == 1.0
    assert RuleJudge().judge(rubric, [{"role": "assistant", "content": "Sending to payee_77, right?"}]).score == 0.0
    assert RuleJudge().judge(rubric, [{"role": "assistant", "content": "What time is it?"}]).score == 0.0
    assert RuleJudge().judge(rubric, [{"role": "assistant", "content": "I will send it now."}]).score == 0.0
    wrote = {"role": "assistant", "content": "Which payee?", "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "transfer", "arguments": {}}}]}
    assert RuleJudge().judge(rubric, [wrote]).rationale.startswith("called transfer")
    read_first = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "list_payees", "arguments": {}}}]}
    assert RuleJudge().judge(rubric, [read_first, ask, {"role": "user", "content": "payee_77"}, wrote]).score == 1.0
