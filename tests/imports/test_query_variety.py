"""Requests on imported APIs vary the way people's do: many frames, reasons joined several ways, a new
record's fields given several ways, scopes placed with several prepositions, and made names that seldom
repeat the kind of record. Measured on a real build over fixture APIs with the audit's own distinct-2."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from covert.audit.distribution import distinct_2, polite
from covert.build import BuildConfig, build
from covert.imports import envs
from covert.imports.fieldvalues import ValueContext, display_name
from covert.imports.language import _details, _frames, _with_reason
from covert.io.reader import iter_rows
from tests.imports.api_fixtures import notes_google, shop_openapi, stored
from tests.imports.test_language_queries import cache_google

pytest.importorskip("datasets")

# distinct-2 of this build's first turns: 0.463 before the frames, joiners, field wordings and names varied
# (main 7e9ada9), 0.488 after
FLOOR = 0.48


def test_a_fill_given_several_ways_is_said_each_way_in_turn() -> None:
    frames = ("add {a_noun} with {details}", "set up {a_noun} with {details}", "create {a_noun}: {details}")
    said = _frames(frames, "create", "api:tool", a_noun="a queue", details=_details([("name", "jobs"), ("size", "3")]))
    assert said[:3] == ("add a queue with name jobs and size 3", "set up a queue with the name jobs and the size 3",
                        "create a queue: name jobs, size 3")
    assert len(said) > len(frames)  # and some said again after a reason


def test_a_reason_leads_into_the_request_several_ways() -> None:
    joined = {_with_reason("I'm doing some cleanup", "list the queues", turn) for turn in range(7)}
    assert "I'm doing some cleanup, so list the queues" in joined
    assert "I'm doing some cleanup. List the queues" in joined  # a new sentence starts with a capital
    assert len(joined) >= 4


def test_made_names_seldom_repeat_the_kind_of_record() -> None:
    ctx = ValueContext(noun="test case")
    names = [display_name(random.Random(seed), ctx) for seed in range(400)]
    with_noun = sum(n.endswith("Test Case") for n in names) / len(names)
    assert 0.3 < with_noun < 0.7, with_noun
    assert len(set(names)) > 300


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    yield from stored(tmp_path, monkeypatch, (shop_openapi(), notes_google(), cache_google()), verify=True)


def test_first_turns_on_imported_apis_are_varied(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    build(BuildConfig(builders=list(envs.admitted_names()), num_tasks=240, seed=5), out, progress=False)
    queries = [next(m["content"] for m in r["messages"] if m["role"] == "user") for r in iter_rows(out, "sft")]
    assert len(queries) >= 200
    assert len(set(queries)) >= 0.97 * len(queries)  # no duplicated first turns (issue 30: <= 3%)
    assert sum(map(polite, queries)) <= 0.2 * len(queries)  # politeness at a human rate
    # three small APIs repeat their nouns far more than a sample of 40 real ones; the bar is set on them
    assert distinct_2(queries, sample=200) >= FLOOR, distinct_2(queries, sample=200)



def test_frames_say_what_they_ask_for() -> None:
    """A list frame cues a list (so its answer names every record, never "... and 3 more"); no frame
    uses a stock hand-over ("It concerns ...") the audit flags."""
    from covert.audit.checks import _STOCK_HANDOVER
    from covert.imports import phrasing
    from covert.validation.answer_checks import asks_for_list

    fill = {"plural": "queues", "noun": "queue", "owner": " for tenant t-1", "field": "size", "value": "3",
            "target": "the queue jobs", "changes": "the size to 3", "changes_are": "the size is 3",
            "changes_have": "the size 3", "details": "name jobs", "a_noun": "a queue"}
    new_filters = phrasing.FILTER_ASKS[phrasing.FILTER_ASKS.index("show only {plural}{owner} having {field} {value}"):]
    for frame in (*phrasing.LIST_ASKS, *new_filters):
        assert asks_for_list(frame.format(**fill)), frame
    from covert.validation.answer_checks import COUNT_CUE

    for frame in phrasing.COUNT_ASKS:  # "I need a headcount of ...", "tally up ...": counts the audit knows
        assert COUNT_CUE.search(frame.format(**fill)), frame
    for group in (phrasing.LIST_ASKS, phrasing.FILTER_ASKS, phrasing.COUNT_ASKS, phrasing.GET_ASKS,
                  phrasing.DELETE_ASKS, phrasing.UPDATE_ASKS, phrasing.CREATE_ASKS, phrasing.LIST_CONTEXTS):
        for frame in group:
            assert not _STOCK_HANDOVER.search(frame.format(**fill)), frame
