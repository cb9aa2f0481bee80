"""Queries read like users wrote them: a spread of openings and closings by register (most queries have
none), a record named once and referred back to, irrelevance requests composed per builder (many near the
domain) with varied declines; and the audit's query checks flag rows broken on purpose."""

from __future__ import annotations

import random
from collections import Counter

from covert.env import get_builder
from covert.rewards.judge import Rubric, RuleJudge
from covert.synth.generate import ItemSpec, make_item
from covert.synth.irrelevance import decline, irrelevant_request
from covert.synth.realize import CLOSINGS, OPENINGS, compose_query, pleasantries
from tests.test_audit import make_row, verdict

BUILDERS = ("airline", "banking", "calendar", "helpdesk", "hotels", "messaging", "retail", "smart_home")


def test_openings_and_closings_spread_by_register() -> None:
    rng = random.Random(1)
    for register in OPENINGS:
        pairs = [pleasantries(rng, register) for _ in range(3000)]
        openings = Counter(o for o, _ in pairs)
        closings = Counter(c for _, c in pairs)
        assert 0.55 < openings[""] / 3000 < 0.85, register  # most queries open with no greeting
        assert 0.6 < closings[""] / 3000 < 0.9, register
        assert len(openings) - 1 >= 12 and len(closings) - 1 >= 10, register
        assert max(n for k, n in openings.items() if k) < 0.05 * 3000  # no opening dominates
    assert set(OPENINGS["casual"]) != set(OPENINGS["customer"])
    assert all(c.endswith((".", "!", "?", ")")) or c.islower() or c.isalpha() for c in CLOSINGS if c)


def test_composed_query_lowercases_after_a_running_greeting_only() -> None:
    seen = set()
    for seed in range(400):
        query = compose_query(random.Random(seed), [], ["what's on my calendar today"], "work")
        for greeting in ("Hi,", "Hey,", "Quick one:"):
            if query.startswith(greeting + " "):
                assert query[len(greeting) + 1].islower(), query
                seen.add(greeting)
        if query.startswith("Morning! "):
            assert query[len("Morning! ")].isupper(), query
    assert seen


def test_a_record_said_once_is_referred_back_to() -> None:
    rng = random.Random(4)
    query = compose_query(rng, ["I'm calling about booking WS3MHA9K"],
                          ["can you cancel booking WS3MHA9K?"], "customer", {"booking WS3MHA9K": "booking"})
    assert query.count("WS3MHA9K") == 1
    assert "that booking" in query or "the same booking" in query or " it" in query


def test_built_queries_do_not_hand_a_record_over_twice() -> None:
    repeated = 0
    made = 0
    for index in range(60):
        outcome = make_item(ItemSpec(index, "hotels", "parallel_multiple", None, index // 16), 5, lambda s: "train")
        if outcome.task is None:
            continue
        made += 1
        query = outcome.task.query
        ids = {v for c in outcome.task.calls for v in c.arguments.values() if isinstance(v, str) and v.startswith("WS")}
        repeated += any(query.count(i) > 1 for i in ids)
    assert made >= 30 and repeated == 0


def test_irrelevance_requests_are_many_and_near_the_domain() -> None:
    for name in BUILDERS:
        builder = get_builder(name)
        requests = Counter()
        named = 0
        for world in range(6):
            state = builder.state(9, world)
            values = {str(v) for table in state.tables() for _, r in state.records(table) for v in r.values()
                      if isinstance(v, str) and len(v) > 3}
            rng = random.Random(world)
            for _ in range(60):
                text = irrelevant_request(builder.language, state, rng)
                requests[text] += 1
                named += any(v in text for v in values)
        assert len(requests) >= 100, (name, len(requests))
        assert named >= 50, (name, named)  # near-domain requests name the user's own records
        assert all("{" not in r and "}" not in r for r in requests), name


def test_declines_vary_and_say_what_the_assistant_can_do() -> None:
    rng = random.Random(2)
    scope = "orders, returns and exchanges"
    texts = {decline(scope, rng) for _ in range(600)}
    assert len(texts) >= 200
    assert len({t.split(" ", 2)[0] + t.split(" ", 2)[1] for t in texts}) >= 6  # many openings
    assert all(scope in t and "?" not in t for t in texts)
    judge = RuleJudge()
    for text in sorted(texts):
        verdict_ = judge.judge(Rubric("decline", ""), [{"role": "assistant", "content": text}])
        assert verdict_.score == 1.0, text


def test_irrelevance_rows_validate_and_are_deterministic() -> None:
    first = make_item(ItemSpec(3, "retail", "irrelevance", None, 0), 7, lambda s: "train")
    again = make_item(ItemSpec(3, "retail", "irrelevance", None, 0), 7, lambda s: "train")
    assert first.task is not None and first.task.query == again.task.query and first.task.answer == again.task.answer
    assert first.encoded == again.encoded


def test_audit_flags_stilted_handover() -> None:
    find = ("search_contacts", {"name": "Ingrid Kim"}, {"contacts": [{"contact_id": "c1", "name": "Ingrid Kim"}]})
    cases = {
        "said_twice": "What's the email address of Ingrid Kim? The person I want is Ingrid Kim.",
        "stock_frame": "What's Ingrid Kim's email? The person is Ingrid Kim.",
    }
    for kind, query in cases.items():
        v = verdict("stilted_handover", make_row(query, [[find]], "It's ingrid@x.example.", builder="messaging"))
        assert v.flagged and v.kind == kind, (kind, v)
    chain = make_row("What emails did I get between 2026-06-01 and 2026-05-26 and 2026-06-02?",
                     [[("search_messages", {"since": "2026-06-01"}, {"messages": []})]], "None.", builder="messaging")
    assert verdict("stilted_handover", chain).kind == "date_chain"
    clean = make_row("What's Ingrid Kim's email address?", [[find]], "It's ingrid@x.example.", builder="messaging")
    assert not verdict("stilted_handover", clean).flagged


def test_audit_flags_two_identities_and_another_customers_records() -> None:
    builder = get_builder("hotels")
    state = builder.state(3, 0)
    tables = state.to_dict()["tables"]
    guest, other = sorted(tables["guests"])[:2]
    emails = [tables["guests"][g]["email"] for g in (guest, other)]
    two = make_row(f"I'm {emails[0]} and {emails[1]}.",
                   [[("find_guest_by_email", {"email": e}, {"guest_id": g}) for e, g in zip(emails, (guest, other))]],
                   "Found you.", builder="hotels", system=builder.system_prompt)
    two["initial_state"] = state.to_dict()
    assert verdict("two_identities", two).flagged
    booking = next(k for k, b in tables["bookings"].items() if b["guest_id"] == other)
    row = make_row(f"I'm {emails[0]}. Cancel booking {booking}.",
                   [[("find_guest_by_email", {"email": emails[0]}, {"guest_id": guest})],
                    [("cancel_booking", {"booking_id": booking, "reason": "plans changed"}, {"status": "cancelled"})]],
                   "Done.", category="state_changing", builder="hotels", system=builder.system_prompt)
    row["initial_state"] = state.to_dict()
    v = verdict("other_customer_records", row)
    assert v.flagged and other in v.detail
    assert not verdict("two_identities", row).flagged


def test_an_ask_about_several_records_takes_a_plural_verb() -> None:
    from covert.synth.realize import plural_subject

    assert plural_subject("has order #W1 and order #W2 gone through yet?", ["order #W1 and order #W2"]) == \
        "have order #W1 and order #W2 gone through yet?"
    assert plural_subject("When does Kwame and Grace usually work?", ["Kwame and Grace"]) == \
        "When do Kwame and Grace usually work?"
    # the subject is "the total", not the records: the verb stays singular
    assert plural_subject("what was the total on #W1 and #W2?", ["#W1 and #W2"]) == "what was the total on #W1 and #W2?"
    assert plural_subject("is Felix in my contacts?", ["Felix"]) == "is Felix in my contacts?"
    assert plural_subject("IS Émile and Zoë free, and is Émile and Zoë busy?", ["émile and zoë"]) == \
        "Are Émile and Zoë free, and is Émile and Zoë busy?"


def test_auxiliary_search_is_the_regex_search() -> None:
    """The fast auxiliary search finds what the lookahead regex finds, case-insensitively, in any text."""
    import random
    import re

    from covert.synth.realize import _auxiliary_before

    rng = random.Random(5)
    words = ["has", "is", "does", "was", "Has", "IS", "this", "doeS", "booking", "#A", "and", "Kwame", "x.y", "Émile"]
    found = 0
    for _ in range(3000):
        ask = " ".join(rng.choice(words) for _ in range(rng.randint(1, 8)))
        start = rng.randint(0, 4)
        subject = " ".join(ask.split(" ")[start:start + rng.randint(1, 3)]) or "and"
        subject = subject.upper() if rng.random() < 0.3 else subject
        expected = re.search(rf"\b(has|is|does|was) (?={re.escape(subject)})", ask, re.IGNORECASE)
        got = _auxiliary_before(ask, subject)
        assert (got and got.span()) == (expected and expected.span()), (ask, subject)
        found += expected is not None
    assert found > 100
