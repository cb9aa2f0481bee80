"""The engineer's rules hold in code: an LLM engineer (the real OpenAI-compatible backend against a scripted
server on loopback) that moves an in-band configuration, hardens a too-hard one, moves too far or cites no
linked evidence is refused, the previous configuration kept with the reasons; a change within the rules is
taken. The prompt carries valid and optimal rates, statistics, the evidence map and the failures' maps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from covert.evolve.engineer import LLMEngineer, RuleEngineer, guard
from covert.evolve.summary import Episode, stage_summary
from covert.procgen.envs.mapf_frozenlake import ENV
from tests.scripted_chat import ScriptedChat

pytest.importorskip("httpx")

IN_BAND = {"grid_size": 4, "agents": 3, "hole_percent": 10, "conflict_percent": 25}
TOO_HARD = {"grid_size": 6, "agents": 4, "hole_percent": 20, "conflict_percent": 50}
MAP = "F F H\nS F G\ns F g"


def _episodes(config: dict[str, Any], passed: int, failures: dict[str, int]) -> list[Episode]:
    out = [Episode(config, True, valid=True, optimal=True, statistics={"optimal_makespan": 5.0})
           for _ in range(passed)]
    for category, count in failures.items():
        out += [Episode(config, False, (category,), valid=False, optimal=False, statistics={"optimal_makespan": 7.0},
                        trajectory="<answer>\nAgent 0: RIGHT\n</answer>", instance=MAP) for _ in range(count)]
    return out


def _summary() -> dict[str, Any]:
    episodes = _episodes(IN_BAND, 4, {"vertex_conflict": 16}) + _episodes(TOO_HARD, 2, {"vertex_conflict": 14, "hole": 4})
    return stage_summary(ENV.name, "procedural", ENV.version, ENV.knobs, 2, episodes, failure_order=())


def _index(summary: dict[str, Any], config: dict[str, Any]) -> int:
    return next(i for i, e in enumerate(summary["configs"]) if e["config"] == config)


@pytest.fixture()
def server() -> Iterator[ScriptedChat]:
    chat = ScriptedChat(lambda text: "{}").start()
    yield chat
    chat.stop()


def _ask(server: ScriptedChat, items: list[dict[str, Any]]) -> Any:
    server.reply = lambda text: json.dumps({"configs": items})
    return LLMEngineer(server.backend(), failure_knobs=ENV.failure_knobs).propose(_summary())


def test_moving_an_in_band_configuration_and_hardening_a_too_hard_one_are_refused(server: ScriptedChat) -> None:
    summary = _summary()
    band, hard = _index(summary, IN_BAND), _index(summary, TOO_HARD)
    assert summary["configs"][band]["pass_rate"] == 0.2 and summary["configs"][hard]["pass_rate"] == 0.1
    proposal = _ask(server, [
        {"previous_index": band, "config": {**IN_BAND, "grid_size": 9, "agents": 5}, "evidence": ["vertex_conflict"],
         "reason": "bigger"},
        {"previous_index": hard, "config": {**TOO_HARD, "agents": 5}, "evidence": ["vertex_conflict"],
         "reason": "more agents"},
    ])
    by_previous = {json.dumps(d.previous, sort_keys=True): d for d in proposal.decisions}
    moved = by_previous[json.dumps(IN_BAND, sort_keys=True)]
    harder = by_previous[json.dumps(TOO_HARD, sort_keys=True)]
    assert (moved.action, moved.config) == ("refused", IN_BAND)
    assert "inside [0.2, 0.8]" in moved.reason and "grid_size by 5" in moved.reason
    assert (harder.action, harder.config) == ("refused", TOO_HARD)
    assert "never made harder (agents)" in harder.reason
    assert proposal.configs == [IN_BAND, TOO_HARD] or proposal.configs == [TOO_HARD, IN_BAND]


def test_a_bounded_change_that_cites_linked_evidence_is_taken(server: ScriptedChat) -> None:
    hard = _index(_summary(), TOO_HARD)
    proposal = _ask(server, [{"previous_index": hard, "config": {**TOO_HARD, "agents": 3},
                              "evidence": ["vertex_conflict"], "reason": "fewer agents collide less"}])
    decision = next(d for d in proposal.decisions if d.previous == TOO_HARD)
    assert (decision.action, decision.config, decision.changed) == ("llm", {**TOO_HARD, "agents": 3}, ("agents",))
    assert decision.evidence == ("vertex_conflict",)


@pytest.mark.parametrize("config,evidence,why", [
    ({**TOO_HARD, "agents": 2, "hole_percent": 0, "conflict_percent": 0}, ["vertex_conflict", "hole"], "3 knobs"),
    ({**TOO_HARD, "grid_size": 3}, ["goals_not_reached"], "grid_size by 3 levels"),
    ({**TOO_HARD, "hole_percent": 10}, ["vertex_conflict"], "change to hole_percent cites no failure evidence"),
    ({**TOO_HARD, "agents": 3}, [], "change to agents cites no failure evidence"),
    ({**TOO_HARD, "agents": 3}, ["out_of_bounds"], "change to agents cites no failure evidence"),
], ids=["three-knobs", "three-levels", "unlinked-evidence", "no-evidence", "evidence-not-shown"])
def test_unbounded_or_uncited_changes_are_refused(server: ScriptedChat, config: dict[str, Any], evidence: list[str],
                                                  why: str) -> None:
    hard = _index(_summary(), TOO_HARD)
    proposal = _ask(server, [{"previous_index": hard, "config": config, "evidence": evidence, "reason": "x"}])
    decision = next(d for d in proposal.decisions if d.previous == TOO_HARD)
    assert (decision.action, decision.config) == ("refused", TOO_HARD), decision
    assert why.replace(" levels", "") in decision.reason.replace(" levels", ""), decision.reason


def test_the_prompt_carries_rates_statistics_evidence_map_and_failure_maps(server: ScriptedChat) -> None:
    _ask(server, [])
    prompt = server.requests[-1]["messages"][-1]["content"]
    for needle in ('"valid_rate": 0.2', '"optimal_rate": 0.1', '"optimal_makespan"', '"vertex_conflict": ["agents"',
                   "Problem:\nF F H\nS F G", "at most 2 knobs, each by at most 2 levels", "never make a too-hard"):
        assert needle in prompt, needle
    schema = server.requests[-1]["response_format"]["json_schema"]["schema"]
    assert "evidence" in schema["properties"]["configs"]["items"]["required"]


def test_the_rule_engineer_passes_its_own_guard() -> None:
    summary = _summary()
    engineer = RuleEngineer(failure_knobs=ENV.failure_knobs)
    for decision, entry in zip(engineer.propose(summary).decisions, summary["configs"]):
        assert decision.action in ("keep", "lower"), decision
        assert not guard(ENV.knobs, entry, decision.previous, decision.config, decision.evidence,
                         ENV.failure_knobs, engineer.band)
