"""An LLM environment engineer backed by a tiny random model falls back safely, with recorded reasons."""

from __future__ import annotations

from pathlib import Path

from covert.evolve.engineer import LLMEngineer, parse_reply
from covert.evolve.summary import Episode, stage_summary
from covert.evolve.tools import TOOL_KNOBS

A = {"calls": 1, "distractors": "none", "noise": "none", "ambiguity": False}
B = {"calls": 3, "distractors": "high", "noise": "low", "ambiguity": False}


def _summary() -> dict:
    episodes = [Episode(A, True)] * 9 + [Episode(B, False, ("wrong_tool",))] * 9 + [Episode(B, True)]
    return stage_summary("tools", "tool", "1", TOOL_KNOBS, 3, episodes)


def test_random_model_engineer_falls_back_with_reasons(random_model_dir: Path) -> None:
    from covert.llm import backend_from_spec

    backend = backend_from_spec(f"hf:{random_model_dir}")
    summary = _summary()
    proposal = LLMEngineer(backend, max_tokens=48).propose(summary)
    assert proposal.stage == 4 and len(proposal.decisions) == 2
    for decision, entry in zip(proposal.decisions, summary["configs"]):
        # garbage in: every configuration stays what it was, each with a reason
        assert decision.action == "fallback" and decision.config == entry["config"] and decision.reason
    assert proposal.notes  # what went wrong with the reply is recorded
    again = LLMEngineer(backend, max_tokens=48).propose(summary)
    assert again.to_dict() == proposal.to_dict()


def test_parse_reply_is_bounded_and_tolerant() -> None:
    assert parse_reply('noise ```json\n{"configs": []}\n``` more') == {"configs": []}
    assert parse_reply("{" * 100_000) is None
    assert parse_reply("") is None
