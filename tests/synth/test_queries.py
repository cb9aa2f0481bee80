"""Queries read like users wrote them: a spread of openings and closings by register (most queries have
none), a record named once and referred back to, irrelevance requests composed per builder (many near the
domain) with varied declines; and the audit's query checks flag rows broken on purpose."""

from __future__ import annotations

import random
from collections import Counter

from covert.env import get_builder
from covert.language.realize import CLOSINGS, OPENINGS, compose_query, pleasantries, refer_back
from covert.rewards.judge import Rubric, RuleJudge
from covert.synth.generate import ItemSpec, make_item
from covert.synth.irrelevance import decline, irrelevant_request
from tests.test_audit import make_row, verdict

BUILDERS = ("airline", "banking", "calendar", "helpdesk", "hotels", "messaging", "retail", "smart_home")


def test_openings_and_closings_spread_by_register() -> None:
    rng = random.Random(1)
    for register in OPENINGS:
        pairs = [pleasantries(rng, register) for _ in range(3000)]
        if register == "developer":  # people writing to an API assistant seldom greet or thank it
            assert sum(1 for o, c in pairs if o or c) / 3000 < 0.15
            continue
        openings = Counter(o for o, _ in pairs)
        closings = Counter(c for _, c in pairs)
        # most queries open with no greeting and close with no thanks (real users' requests carry a
        # politeness formula in well under a fifth of queries)
        assert 0.85 < openings[""] / 3000 < 0.95, register
        assert 0.9 < closings[""] / 3000 < 0.97, register
        assert len(openings) - 1 >= 12 and len(closings) - 1 >= 10, register
        assert max(n for k, n in openings.items() if k) < 0.02 * 3000  # no opening dominates
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
    from covert.language.realize import plural_subject

    assert plural_subject("has order #W1 and order #W2 gone through yet?", ["order #W1 and order #W2"]) == \
        "have order #W1 and order #W2 gone through yet?"
    assert plural_subject("When does Kwame and Grace usually work?", ["Kwame and Grace"]) == \
        "When do Kwame and Grace usually work?"
    assert plural_subject("can you tell me where my order #W1 and order #W2 stands?", ["my order #W1 and order #W2"]) == \
        "can you tell me where my order #W1 and order #W2 stand?"
    # the subject is "the total", not the records: the verb stays singular
    assert plural_subject("what was the total on #W1 and #W2?", ["#W1 and #W2"]) == "what was the total on #W1 and #W2?"
    assert plural_subject("is Felix in my contacts?", ["Felix"]) == "is Felix in my contacts?"
    assert plural_subject("IS Émile and Zoë free, and is Émile and Zoë busy?", ["émile and zoë"]) == \
        "Are Émile and Zoë free, and is Émile and Zoë busy?"
    # a short phrase whose head is a plural noun takes a plural verb too; a singular in -s does not
    assert plural_subject("what firmware is the blinds running?", ["the blinds"]) == "what firmware are the blinds running?"
    assert plural_subject("is the status final?", ["the status"]) == "is the status final?"
    assert plural_subject("is the home with the most devices online?", ["the home with the most devices"]) == \
        "is the home with the most devices online?"


def test_said_twice_counts_a_value_handed_over_again_but_not_a_name_built_from_it() -> None:
    from covert.language.values import said_twice

    assert said_twice("Open the email from JobScout. It's from JobScout, about jobs.", ["JobScout", "jobs"]) == "JobScout"
    # a first name kept while the last name changes, an enum code in plain speech, a part of an email
    assert said_twice("The passenger Priya is wrong: it should be Priya Dubois.", ["Priya", "Dubois"]) == ""
    assert said_twice("When will it be fixed? Resolve the other as fixed.", ["fixed"], codes=["fixed"]) == ""
    assert said_twice("I'm yuki.rossi42@example.com, find Rossi.", ["Rossi", "yuki.rossi42@example.com"]) == ""


def _messaging_rows(count: int) -> list:
    tasks = []
    for index in range(count):
        outcome = make_item(ItemSpec(index, "messaging", "sequential", None, index // 20), 11, lambda s: "train")
        if outcome.task is not None:
            tasks.append(outcome.task)
    return tasks


def test_a_record_found_by_what_the_user_said_is_not_described_by_it_again() -> None:
    """A search by sender, then a read of the email found: the email is singled out by something the user
    did not already say ("the email about ..."), or as "that email" when it is the only one."""
    from covert.language.values import said_twice

    tasks = _messaging_rows(80)
    assert len(tasks) >= 40
    chained = 0
    for task in tasks:
        values = [v for c in task.calls for v in c.arguments.values() if isinstance(v, str)]
        assert said_twice(task.query, values) == "", task.query
        chained += len(task.calls) > 1
    assert chained >= 20


def test_a_context_sentence_does_not_repeat_what_an_earlier_one_said() -> None:
    """Hotels: a search for a stay, then the availability of a hotel found: the dates and the party are
    said once."""
    repeated = made = 0
    for index in range(80):
        outcome = make_item(ItemSpec(index, "hotels", "sequential", None, index // 20), 11, lambda s: "train")
        if outcome.task is None:
            continue
        made += 1
        dates = {c.arguments.get("check_in") for c in outcome.task.calls} - {None}
        repeated += any(outcome.task.query.count(d) > 1 for d in dates)
    assert made >= 40 and repeated == 0


def test_a_count_of_search_results_is_not_asked_as_the_users_own() -> None:
    """'how many rooms do I have' for a hotel's availability is wrong: counts of records the user does not
    own are asked neutrally; a count of their own records may say 'my'."""
    own_phrases = ("do I have", "I have?", "count my")
    checked = 0
    for builder in ("hotels", "retail", "airline"):
        for index in range(120):
            outcome = make_item(ItemSpec(index, builder, "sequential", None, index // 30), 3, lambda s: "train")
            task = outcome.task
            if task is None or not any(r.get("op") == "count" for r in task.reasoning or []):
                continue
            step = next(r for r in task.reasoning if r.get("op") == "count")
            args = task.calls[step["call"]].arguments
            searched = any(k in args for k in ("city", "hotel_id", "query", "origin", "product_id"))
            if searched:
                checked += 1
                assert not any(p in task.query for p in own_phrases), task.query
    assert checked >= 3


def test_a_clarification_comes_after_the_request() -> None:
    for seed in range(20):
        query = compose_query(random.Random(seed), ["I'm going to Lisbon"], ["turn on the Dinner Time scene"], "casual",
                              None, ["it's my place in Munich I mean"])
        assert query.rstrip(" .!?").lower().endswith("munich i mean") or query.lower().index("munich") > \
            query.lower().index("dinner time"), query


def test_a_relative_pronoun_keeps_its_singular_verb() -> None:
    from covert.language.realize import plural_subject

    assert plural_subject("pass a note to whoever has ticket A and ticket B", ["ticket A and ticket B"]) == \
        "pass a note to whoever has ticket A and ticket B"


def test_a_code_the_user_says_is_said_in_words() -> None:
    """Airline cabins: 'I'd fly basic economy', never 'basic_economy'."""
    said = 0
    for index in range(300):
        task = make_item(ItemSpec(index, "airline", "simple", None, index // 60), 11, lambda s: "train").task
        if task is None:
            continue
        cabins = {c.arguments.get("cabin") for c in task.calls} - {None}
        assert not any("_" in c and c in task.query for c in cabins), task.query
        said += any(c == "basic_economy" for c in cabins) and "basic economy" in task.query
    assert said >= 1


def test_a_context_that_refers_back_follows_the_request() -> None:
    """ "Their name is Fatima Lopez." names the contact a request speaks of: it never opens the message."""
    for seed in range(60):
        query = compose_query(random.Random(seed), ["their name is Fatima Lopez", "I'm in Lisbon"],
                              ["what's the phone number for that contact?"], "work")
        assert query.index("phone number") < query.lower().index("their name is fatima lopez"), query
        # a context that names its own subject may still come first
        assert "I'm in Lisbon" in query
    opened = [compose_query(random.Random(s), ["I'm in Lisbon"], ["what's the weather?"]) for s in range(60)]
    assert any(q.index("Lisbon") < q.index("weather") for q in opened)


def test_a_back_reference_never_opens_what_a_colon_introduces() -> None:
    """'... named Holiday Mode: it at 08:45' is no sentence; 'that scene at 08:45' is. 'it' stays where it
    reads as a plain object ('turn it on')."""
    parts = ["Turn on the Good Morning scene.", "Add a routine named Holiday Mode: the Good Morning scene at 08:45.",
             "Then rename the Good Morning scene."]
    said = Counter()
    for seed in range(60):
        first, colon, plain = refer_back(parts, {"the Good Morning scene": "scene"}, random.Random(seed))
        assert first == parts[0]
        assert ": it " not in colon and ("Holiday Mode: that scene at" in colon or "the same scene at" in colon), colon
        said[plain.split("rename ")[1]] += 1
    assert said["it."] > 0 and said["that scene."] > 0


def test_most_pleases_are_dropped_and_the_sentence_still_reads() -> None:
    from covert.language.realize import fewer_pleases

    kept = 0
    for seed in range(400):
        out = fewer_pleases("Please cancel order #W1, please.", random.Random(seed))
        assert out in ("Please cancel order #W1, please.", "Cancel order #W1.")
        kept += out.startswith("Please")
    assert 0.2 < kept / 400 < 0.5
    assert fewer_pleases("can you please check it?", random.Random(3)) in ("can you please check it?",
                                                                           "can you check it?")


def test_a_request_is_said_in_several_frames_with_its_own_words() -> None:
    from covert.audit.distribution import polite
    from covert.language.realize import vary_request

    said = Counter()
    for seed in range(600):
        out = vary_request("can you pull up my profile? I'm ana@example.com", random.Random(seed))
        assert "pull up my profile" in out and out.endswith(" I'm ana@example.com"), out
        assert not polite(out), out
        said[out.split(" pull up")[0].lower()] += 1
    assert len(said) >= 8 and max(said.values()) < 0.45 * 600  # no frame dominates, the template's own included
    orders = Counter(vary_request("cancel booking WS3MHA9K", random.Random(seed)) for seed in range(300))
    assert "cancel booking WS3MHA9K" in orders and any(o.endswith("cancel booking WS3MHA9K?") for o in orders)
    assert len(orders) >= 6
    # an order that runs on past its clause is left as written: "can you remove X, I don't need it?" reads wrong
    assert {vary_request("remove my Night Owl routine, I don't need it", random.Random(s)) for s in range(50)} == {
        "remove my Night Owl routine, I don't need it"}
    assert {vary_request("RSVP yes to my 10:00 meeting", random.Random(s)) for s in range(80)} >= {
        "can you RSVP yes to my 10:00 meeting?"}


def test_built_queries_are_not_samey() -> None:
    """A fixed small build's first user turns: distinct-2 over equal samples above a floor (the 8 hand-written
    domains' fixed frames measured 0.55 here), and per builder many ways of opening a sentence, none of them
    in more than a fifth of the queries (one request or identification frame used to open a third)."""
    import re

    from covert.audit.distribution import distinct_2

    categories = ("simple", "multiple", "sequential", "state_changing", "parallel", "parallel_multiple")
    queries: dict[str, list[str]] = {}
    for name in BUILDERS:
        for index in range(60):
            outcome = make_item(ItemSpec(index, name, categories[index % len(categories)], None, index // 16), 11,
                                lambda s: "train")
            if outcome.task is not None:
                queries.setdefault(name, []).append(outcome.task.query)
    every = [q for qs in queries.values() for q in qs]
    assert len(every) >= 400
    assert distinct_2(every) >= 0.59
    for name, qs in queries.items():
        starts = Counter(" ".join(re.findall(r"[a-z']+", s.lower())[:2]) for q in qs
                         for s in re.split(r"(?<=[.?!])\s+", q))
        assert len(starts) >= 0.58 * sum(starts.values()), (name, starts.most_common(5))
        assert max(starts.values()) <= 0.2 * len(qs), (name, starts.most_common(3))


_WRITTEN_DATE = (r"(?:\d{4}-\d{2}-\d{2}|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2}, \d{4}|"
                 r"\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{4})")


def _date_style(text: str) -> str:
    """ISO, month first or day first; with the month in full or cut to three letters."""
    import re

    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return "iso"
    month = re.search(r"[A-Z][a-z]+", text).group(0)
    return ("day" if text[0].isdigit() else "month") + ("-short" if len(month) == 3 and month != "May" else "")


def test_dates_are_written_as_people_write_them_one_way_per_query() -> None:
    """A user writes "March 12, 2026", "12 Mar 2026" or 2026-03-12, and keeps to one way in a message; every
    date the query says is the date the calls take."""
    import re

    from covert.language.values import mentions, normalize_text, written_dates

    styles: Counter[str] = Counter()
    for index in range(240):
        task = make_item(ItemSpec(index, "calendar", "sequential", None, index // 60), 11, lambda s: "train").task
        if task is None:
            continue
        said = re.findall(_WRITTEN_DATE, task.query)
        kinds = {_date_style(d) for d in said}
        assert len(kinds) <= 1, task.query
        styles.update(kinds)
        values = [*(v for c in task.calls for v in c.arguments.values()), *(s.get("value") for s in task.selections)]
        dates = {v for v in values if isinstance(v, str) and written_dates(v)}
        for text in said:  # each date written is one a call takes or a record is picked by, said right
            assert any(mentions(normalize_text(text), value) for value in dates), (text, task.query)
    assert len(styles) >= 4 and styles["iso"] < sum(styles.values()) / 2, styles


def test_a_written_date_is_a_mention_of_its_iso_value() -> None:
    from covert.language.values import mentions, normalize_text, written_dates

    assert written_dates("2026-03-12") == ("March 12, 2026", "12 March 2026", "Mar 12, 2026", "12 Mar 2026")
    for text in ("Book it for March 12, 2026.", "on 12 Mar 2026 please", "2026-03-12", "Mar 12, 2026?"):
        assert mentions(normalize_text(text), "2026-03-12"), text
    for text in ("March 13, 2026", "March 12, 2025", "12 March"):
        assert not mentions(normalize_text(text), "2026-03-12"), text
    assert written_dates("2026-13-01") == written_dates("2026-03-12T10:00") == written_dates("ab12-03-12") == ()


def test_fill_turns_a_qualified_possessive_round_and_drops_a_doubled_stop() -> None:
    from covert.language.realize import fill

    assert fill("what's {c}'s job title?", {"c": "my contact at Northwind Analytics"}) == \
        "what's the job title of my contact at Northwind Analytics?"
    assert fill("what's {c}'s job title?", {"c": "Chloe Tanaka"}) == "what's Chloe Tanaka's job title?"
    assert fill("fix {p}'s name on {r}", {"p": "the passenger born on May 2, 1980", "r": "ABC123"}) == \
        "fix the name of the passenger born on May 2, 1980 on ABC123"
    # a reference by "whose" is turned round too, and the possessed noun stops before the words after it
    assert fill("What is {j}'s completion date under the vault {v}?",
                {"j": "the job whose output path is s3://logs/2022/", "v": "media"}) == \
        "What is the completion date of the job whose output path is s3://logs/2022/ under the vault media?"
    assert fill("Subject: {s}. Text: {b}", {"s": "Lunch next week?", "b": "Are you free?"}) == \
        "Subject: Lunch next week? Text: Are you free?"
    assert fill("Subject: {s}. Text: {b}", {"s": "Lunch", "b": "Hi"}) == "Subject: Lunch. Text: Hi"


def test_fill_capitalises_a_value_that_opens_a_sentence() -> None:
    """"... for Liam? Economy, on my Visa", never "? economy"; an address or an id stays as typed."""
    from covert.language.realize import fill

    frame = "can you reserve {f} for {p}? {c}, on {m}"
    assert fill(frame, {"f": "SK101", "p": "Liam", "c": "economy", "m": "my Visa"}) == \
        "can you reserve SK101 for Liam? Economy, on my Visa"
    assert fill("done. {who} here", {"who": "ana.lee@mail.example"}) == "done. ana.lee@mail.example here"
    assert fill("done! {what}", {"what": "iPhone case"}) == "done! iPhone case"
    assert fill("book {c} seats", {"c": "economy"}) == "book economy seats"


def test_a_quoted_sentence_takes_no_second_stop() -> None:
    """'It reads "Kept for 30 days."', never '... days.".'; an unfinished quote keeps the template's stop."""
    from covert.language.answers import fill_answer

    assert fill_answer('It reads "{d}".', {"d": "Kept for 30 days."}, 0)[0] == 'It reads "Kept for 30 days."'
    assert fill_answer('It reads "{d}".', {"d": "Kept"}, 0)[0] == 'It reads "Kept".'
    from covert.language.realize import sentence
    from covert.language.values import finish_sentence

    assert sentence('answer my email with "I will be there.".') == 'Answer my email with "I will be there."'
    assert finish_sentence('add your note: "It still fails.". Shall I?') == 'Add your note: "It still fails." Shall I?'


def test_an_identification_said_again_is_dropped_not_made_it() -> None:
    """A sentence that only says again who the user is ("zara@... here.") goes; it never becomes "it here."
    A sentence with more to say keeps its back-reference."""
    import random

    from covert.language.realize import refer_back

    email = "zara.brennan@larkspurhealth.com"
    parts = [f"{email} here; the meeting is on 23 Apr 2026.",
             f"Can you schedule a meeting on 20 Apr 2026 at 14:30? {email} here.", f"{email} here."]
    for seed in range(8):
        out = refer_back(parts, {email: "email"}, random.Random(seed))
        assert out == [parts[0], "Can you schedule a meeting on 20 Apr 2026 at 14:30?", ""], out
        kept = refer_back(["Cancel booking WS3.", "Then rebook booking WS3 for May."], {"booking WS3": "booking"},
                          random.Random(seed))
        assert kept[1] in ("Then rebook that booking for May.", "Then rebook the same booking for May.",
                           "Then rebook it for May."), kept


def test_a_back_reference_brings_its_own_determiner() -> None:
    """A DNS row asked for a response policy "for the the same project": a phrase said again after "the"
    is replaced with its determiner, never after it."""
    parts = ["Pull up every location under project fraud-apac-277.", "Add a policy for the project fraud-apac-277."]
    said = {refer_back(parts, {"project fraud-apac-277": "project"}, random.Random(seed))[1] for seed in range(40)}
    assert said == {"Add a policy for it.", "Add a policy for the same project.", "Add a policy for that project."}
    parts[1] = "Thanks. The project fraud-apac-277 needs a policy."  # a determiner that opened a sentence
    opened = {refer_back(parts, {"project fraud-apac-277": "project"}, random.Random(seed))[1] for seed in range(40)}
    assert opened == {"Thanks. That project needs a policy.", "Thanks. The same project needs a policy.",
                      "Thanks. It needs a policy."}
