"""Multi-turn conversations: scenarios, the template user, scripted dialogues, validation."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from covert.conversation.dialogue import ConversationError, conversation
from covert.conversation.rows import multiturn_rows
from covert.env import builder_names, get_builder
from covert.synth.generate import ItemSpec, make_item
from covert.user.scenario import KnownItem, UserScenario
from covert.user.simulator import STOP_DONE, STOP_OUT_OF_SCOPE, STOP_TRANSFER, TemplateUser
from covert.validation import validate_row

CATEGORIES = ("state_changing", "sequential", "simple", "parallel", "irrelevance")


def _tasks(count: int = 24):
    names = builder_names()
    out = []
    for i in range(count * 2):
        outcome = make_item(ItemSpec(i, names[i % len(names)], CATEGORIES[i % len(CATEGORIES)], None), 9,
                            lambda s: "train")
        if outcome.task is not None:
            out.append(outcome.task)
        if len(out) == count:
            break
    return out


TASKS = _tasks()


@pytest.mark.parametrize("task", TASKS, ids=lambda t: f"{t.builder}-{t.category}")
def test_multiturn_rows_validate_and_replay(task) -> None:
    _, scenario = conversation(task, get_builder(task.builder))
    if task.calls and not scenario.known:  # nothing to hold back: no conversation (the build draws another task)
        with pytest.raises(ConversationError, match="nothing_held_back"):
            multiturn_rows(task, "train", 0)
        return
    sft, rl = multiturn_rows(task, "train", 0)
    validate_row(sft, "sft")
    validate_row(rl, "rl")
    users = [m for m in sft["messages"] if m["role"] == "user"]
    assert users[0]["content"] == rl["prompt"][-1]["content"]
    if task.dialogue.get("contexts"):
        assert len(users) > 1, "context information is revealed in later turns"
    calls = [c["function"] for m in sft["messages"] for c in m.get("tool_calls", [])]
    assert [{"name": c["name"], "arguments": c["arguments"]} for c in calls] == \
        [{"name": c.name, "arguments": c.arguments} for c in task.calls]


def test_confirmation_before_every_write() -> None:
    for task in TASKS:
        builder = get_builder(task.builder)
        messages, _ = conversation(task, builder)
        for i, message in enumerate(messages):
            writes = [c for c in message.get("tool_calls", []) if builder.tools[c["function"]["name"]].writes]
            if writes and builder.confirm_writes:
                assert messages[i - 1]["role"] == "user" and "go ahead" in messages[i - 1]["content"].lower()
                assert "?" in messages[i - 2]["content"]


def test_thinking_can_be_switched_off() -> None:
    task = next(t for t in TASKS if t.calls)
    with_plans, _ = conversation(task, get_builder(task.builder), thinking=True)
    without, _ = conversation(task, get_builder(task.builder), thinking=False)
    assert any("reasoning_content" in m for m in with_plans)
    assert not any("reasoning_content" in m for m in without)
    assert [m["content"] for m in with_plans] == [m["content"] for m in without]


def test_scenario_knows_user_values_and_not_looked_up_ids() -> None:
    for task in TASKS:
        _, scenario = conversation(task, get_builder(task.builder))
        looked_up = {str(v) for c in task.calls for v in c.arguments.values()} - {
            str(u["value"]) for u in task.user_inputs}
        for item in scenario.known:
            assert str(item.value) not in looked_up or any(str(item.value) == str(u["value"]) for u in task.user_inputs)


SCENARIOS = [conversation(t, get_builder(t.builder))[1] for t in TASKS]
ID_LIKE = re.compile(r"[A-Za-z]*\d[\w#@.-]{3,}")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=st.sampled_from(SCENARIOS), questions=st.lists(st.text(min_size=0, max_size=80), max_size=6),
       labels=st.lists(st.sampled_from(["email", "name", "zip", "order", "account", "date", "phone", "id",
                                        "password", "card number", "reservation", "address"]), max_size=4))
def test_template_user_never_reveals_unknown_or_invents(scenario: UserScenario, questions: list[str],
                                                        labels: list[str]) -> None:
    user = TemplateUser(scenario)
    allowed = " ".join([user.opening(), *(k.text for k in scenario.known)])
    prompts = [*questions, *(f"Could you tell me the {label}?" for label in labels)]
    for text in prompts:
        turn = user.reply({"role": "assistant", "content": text})
        for token in ID_LIKE.findall(turn.content):
            token = token.rstrip(".")
            assert token in allowed, f"invented {token!r} answering {text!r}"
        for unknown in scenario.unknown:
            assert unknown not in turn.content.lower()
        assert turn.stop in (None, STOP_DONE, STOP_OUT_OF_SCOPE, STOP_TRANSFER)


def test_template_user_stop_signals() -> None:
    scenario = UserScenario("a customer", "cancel my order",
                            [KnownItem("email", "a@b.example", "my email is a@b.example", 0)], ["user id"])
    user = TemplateUser(scenario)
    assert user.reply({"content": "What email should I use?"}).content == "My email is a@b.example."
    assert user.reply({"content": "What email should I use?"}).content == "Sorry, I don't know that."
    assert user.reply({"content": "What is your user id?"}).content == "Sorry, I don't know that."
    assert user.reply({"content": "Shall I go ahead?"}).content == "Yes, please go ahead."
    assert user.reply({"content": "Done, your order is cancelled."}).stop == STOP_DONE
    assert user.reply({"content": "Sorry, I can't help with that."}).stop == STOP_OUT_OF_SCOPE
    assert user.reply({"content": "Let me transfer you to a human agent."}).stop == STOP_TRANSFER


def test_an_answer_quoting_a_question_ends_the_conversation() -> None:
    from covert.user.scenario import UserScenario
    from covert.user.simulator import STOP_DONE, TemplateUser

    user = TemplateUser(UserScenario.from_dict({"persona": "a user", "goal": "read my email", "known": [],
                                                "unknown": [], "instructions": ""}))
    answer = {"role": "assistant", "content": 'Dana wrote on 2026-10-13: "Could I borrow your tent?"'}
    assert user.reply(answer).stop == STOP_DONE
    assert user.reply({"role": "assistant", "content": "Which account should I use?"}).stop is None


def _many(builder: str, category: str, count: int, seed: int = 11):
    for i in range(count):
        outcome = make_item(ItemSpec(i, builder, category, None, i // 20), seed, lambda s: "train")
        if outcome.task is not None:
            yield outcome.task


def test_opening_refers_back_to_a_record_it_already_named() -> None:
    """Retail: 'What's the status of #W1? ... ship #W1 to ...' -> the second mention is 'that order'."""
    repeated = checked = 0
    tasks = [t for b in ("retail", "helpdesk") for c in ("state_changing", "parallel_multiple") for t in _many(b, c, 50)]
    for task in tasks:
        ids = {c.arguments.get(k) for c in task.calls for k in ("order_id", "ticket_id")} - {None}
        if len(task.dialogue.get("asks") or ()) < 2 or not ids:
            continue
        try:
            messages, _ = conversation(task, get_builder(task.builder))
        except ConversationError:
            continue
        opening = next(m["content"] for m in messages if m["role"] == "user")
        checked += 1
        repeated += any(opening.count(str(i)) > 1 for i in ids)
    assert checked >= 15 and repeated == 0


def test_a_value_the_system_prompt_holds_is_never_asked_for() -> None:
    """A signed-in user's email is in the system prompt: the agent does not ask for it, so no later user
    turn hands it over."""
    asked = checked = 0
    for builder in ("helpdesk", "retail", "hotels", "airline", "smart_home"):
        for category in ("parallel_multiple", "multiple", "state_changing"):
            for task in _many(builder, category, 40):
                try:
                    messages, _ = conversation(task, get_builder(builder))
                except ConversationError:
                    continue
                system = messages[0]["content"]
                replies = [m["content"] for m in messages if m["role"] == "user"][1:]
                checked += 1
                asked += any(w.strip(".,!?;") in system for r in replies for w in r.split() if "@" in w)
    assert checked >= 200 and asked == 0


def test_parallel_calls_of_a_tool_all_say_what_varies() -> None:
    """Two calls of one tool in a parallel turn ("look up Ana and Ben") take the same arguments and differ in
    what the user asked to vary, never one call with a value left out. (Calendar's room searches for two
    durations are no longer made: their free rooms overlap, and an answer would say one list twice.)"""
    checked = 0
    for task in _many("calendar", "parallel", 120):
        by_tool: dict[str, list[Any]] = {}
        for call in task.calls:
            by_tool.setdefault(call.name, []).append(call)
        for calls in by_tool.values():
            if len(calls) < 2:
                continue
            checked += 1
            assert len({frozenset(c.arguments) for c in calls}) == 1, [c.arguments for c in calls]
            values = [json.dumps(c.arguments, sort_keys=True) for c in calls]
            assert len(set(values)) == len(values), values
    assert checked >= 5


def test_an_off_topic_opening_greets_once() -> None:
    """An irrelevance task's query has its own greeting: the conversation's opening adds none."""
    from covert.language.realize import OPENINGS

    openers = {o.rstrip(",.!").lower() for register in OPENINGS.values() for o in register}
    tasks = [t for b in ("retail", "airline", "hotels") for t in _many(b, "irrelevance", 40)]
    greeted = 0
    for task in tasks:
        messages, _ = conversation(task, get_builder(task.builder))
        opening = next(m["content"] for m in messages if m["role"] == "user")
        assert opening == task.query
        sentences = [s.strip().rstrip(",.!").lower() for s in re.split(r"(?<=[.!?,])\s+", opening)]
        greeted += sum(s in openers for s in sentences) > 0
        assert sum(s in openers for s in sentences) <= 1, opening
    assert greeted >= 5


def test_names_take_an_article_only_where_people_say_one() -> None:
    """A confirmation names an agent or a biller bare ("assign ... to Leila Chen", "pay Waste Management"),
    a payee's nickname as the user's own ("to your nephew"), and a thing with its article ("the Harbor Inn")."""
    from covert.language.phrasing import describe_record

    assert describe_record({"agent_id": "agt_1", "name": "Leila Chen", "team": "Desktop Support"}, "agent",
                           ("name",)) == "Leila Chen"
    assert describe_record({"biller_id": "BLR-1", "name": "Waste Management", "category": "trash"}, "bill",
                           ("category", "name")) == "Waste Management"
    assert describe_record({"payee_id": "PAY-1", "nickname": "nephew"}, "payee", ("nickname",)) == "your nephew"
    assert describe_record({"hotel_id": "h1", "name": "Harbor Inn"}, "hotel", ("name",)) == "the Harbor Inn"
    rows = []
    for i in range(300):
        builder = ("helpdesk", "banking")[i % 2]
        outcome = make_item(ItemSpec(i, builder, "state_changing", None), 3, lambda s: "train", multi_turn=True)
        if outcome.task is not None:
            rows.append(outcome.rows["sft-multiturn"])
    said = [m["content"] for row in rows for m in row["messages"] if m["role"] == "assistant" and m.get("content")]
    confirmations = [text for text in said if "go ahead" in text or "proceed" in text]
    assert any(re.search(r"(assign \S+ to|pay \S+ USD to|pay) [A-Z]", text) for text in confirmations)
    assert not [text for text in confirmations if re.search(r"\b(to|pay) the [A-Z][a-z]+ [A-Z]", text)]
    # a restated note or message that ends its own sentence keeps its one stop: '... my desk." Shall I ...'
    assert any(re.search(r'[.!?]" (Shall|Do|Should) ', text) for text in confirmations)
    assert not [text for text in confirmations if re.search(r'[.!?]"\.', text)]


def test_a_question_asks_only_for_what_the_user_has_not_said() -> None:
    """'Has the flight at 12:05 on May 31 been delayed?' -> 'What origin, destination and cabin should I
    use?', never 'What travel date ...': a detail the conversation holds already is not asked for again;
    and the template user answers a question about part of what it holds."""
    from covert.language.values import mentions, normalize_text

    checked = partial = 0
    for builder in ("airline", "hotels", "calendar", "retail"):
        for category in ("sequential", "multiple", "parallel_multiple"):
            for task in _many(builder, category, 40):
                try:
                    messages, scenario = conversation(task, get_builder(builder))
                except ConversationError:
                    continue
                said = normalize_text(messages[1]["content"])
                for question, reply in itertools.pairwise(messages[2:]):
                    if question["role"] != "assistant" or question.get("tool_calls") or reply["role"] != "user":
                        continue
                    item = next((k for k in scenario.known if k.text and k.labels
                                 and normalize_text(k.text) in normalize_text(reply["content"])), None)
                    if item is not None:
                        checked += 1
                        values = item.value
                        given = [noun for noun, v in zip(item.labels, values, strict=True) if mentions(said, v)]
                        partial += bool(given)
                        asked = question["content"].lower()
                        for noun in item.labels:  # what the question asks for, less what it may ask
                            if noun not in given:
                                asked = asked.replace(noun.lower(), " ")
                        for noun in given:
                            assert not re.search(rf"\b{re.escape(noun.lower())}\b", asked), (noun, question["content"])
                    said += " " + normalize_text(reply["content"])
    assert checked >= 30 and partial >= 1, (checked, partial)


def test_an_email_that_opens_a_user_turn_is_written_as_typed() -> None:
    """'mei.tanaka@larkspurhealth.com here.', never 'Mei.tanaka@larkspurhealth.com here.'"""
    from covert.language.values import finish_sentence

    assert finish_sentence("mei.tanaka@larkspurhealth.com here") == "mei.tanaka@larkspurhealth.com here."
    assert finish_sentence("my email is mei@example.com") == "My email is mei@example.com."
    opened = 0
    for builder in ("calendar", "helpdesk", "retail"):
        for task in _many(builder, "sequential", 40):
            try:
                messages, _ = conversation(task, get_builder(builder))
            except ConversationError:
                continue
            for m in messages[2:]:
                first = (m["content"] or " ").split(" ", 1)[0] if m["role"] == "user" else ""
                if "@" in first:
                    opened += 1
                    assert first[0].islower(), m["content"]
    assert opened >= 3


def test_a_plan_says_which_record_it_reads_for_in_its_own_words() -> None:
    """'I'll list the accounts to find the account with the highest balance', 'list the inbox to find the
    email whose sender is Zoe Schmidt': the record this task is about, by a value the user said, and not the
    user's own wording again."""
    from covert.language.values import mentions, normalize_text

    named = 0
    for builder in ("messaging", "banking", "helpdesk", "smart_home", "retail"):
        for category in ("sequential", "multiple"):
            for task in _many(builder, category, 40):
                try:
                    messages, _ = conversation(task, get_builder(builder))
                except ConversationError:
                    continue
                said = ""
                for m in messages[1:]:
                    if m["role"] == "user":
                        said += " " + normalize_text(m["content"])
                    plan = m.get("reasoning_content") or ""
                    assert not re.search(r"whose \w+ (?:at|on) is", plan), plan  # "whose placed at is 2026-04-06"
                    found = re.search(r"to find the \w+ whose [\w ]+? is (.+?)(?:,|\.| and then)", plan)
                    if found:
                        named += 1
                        assert mentions(said, found.group(1).strip()) or normalize_text(found.group(1)) in said, plan
                    named += bool(re.search(r"to find the \w+ with the (?:highest|lowest) ", plan))
    assert named >= 10


def test_an_opening_never_refers_back_to_a_record_it_has_not_named() -> None:
    """'Share the email ... with that contact.' with the contact's name held back for the assistant to ask
    about is a back-reference to nothing: the opening says 'a contact'."""
    nouns = "|".join(sorted({r.noun for b in builder_names() for r in get_builder(b).language.references.values()}))
    checked = 0
    for builder in ("messaging", "calendar", "retail", "helpdesk"):
        for category in ("state_changing", "sequential", "multiple"):
            for task in _many(builder, category, 40):
                try:
                    messages, _ = conversation(task, get_builder(builder))
                except ConversationError:
                    continue
                opening = messages[1]["content"]
                checked += 1
                for match in re.finditer(rf"\bthat ({nouns})\b", opening, re.IGNORECASE):
                    assert re.search(rf"\b{match.group(1)}", opening[:match.start()], re.IGNORECASE), opening
    assert checked >= 200


def test_a_reference_held_back_at_a_sentence_start_is_capitalised() -> None:
    """Taking "ticket INC0054913" out of "... 111786. Ticket INC0054913 is sorted" leaves "My ticket is
    sorted" (or "One of my tickets is"), never a sentence that starts in lower case; mid-sentence it stays
    lower case."""
    import random

    from covert.conversation.holdback import _by_reference

    helpdesk = get_builder("helpdesk")
    for seed in range(6):
        opening = "Please find my record, employee number 111786. Ticket INC0054913 is sorted, please resolve it."
        found = _by_reference(opening, helpdesk, "resolve_ticket", "ticket_id", "INC0054913", random.Random(seed))
        assert found is not None
        new, reply, noun = found
        assert re.search(r"111786\. (My ticket|One of my tickets) is sorted", new), new
        assert reply == "It's ticket INC0054913." and noun == "ticket"
        inner = "Please resolve ticket INC0054913 as fixed."
        new, _, _ = _by_reference(inner, helpdesk, "resolve_ticket", "ticket_id", "INC0054913", random.Random(seed))
        assert re.match(r"Please resolve (my ticket|one of my tickets) as fixed\.", new), new
