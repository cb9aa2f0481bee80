"""Policies: a scripted reference policy that follows the oracle (with a configurable error rate),
and an adapter that makes a policy from an LLM backend."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

from covert.env import item_rng
from covert.views import call_id

MISTAKES = ("wrong_argument", "skipped_call", "missing_facts")  # plus "called_a_tool" on decline tasks


class ScriptedPolicy:
    """Follows a row's oracle: asks the user for what its scenario holds (multi-turn rows), makes the
    oracle calls turn by turn, then answers with every fact. With probability ``error_rate`` the
    rollout makes exactly one mistake (a wrong argument, a skipped call, or an answer without its
    facts), so its pass rate is ``1 - error_rate`` in expectation.
    """

    def __init__(self, row: Mapping[str, Any], error_rate: float = 0.0, seed: int = 0,
                 mistake: str | None = None) -> None:
        truth = row["reward_model"]["ground_truth"]
        self.turns: list[list[dict[str, Any]]] = [list(g) for g in truth["calls"]]
        self.facts = [f["value"] for f in truth["answer_facts"]]
        self.behaviour = truth["behaviour"]
        scenario = (row.get("extra_info") or {}).get("user_scenario") or {}
        self.questions = [f"What {k['label']} should I use?" for k in scenario.get("known", [])]
        if isinstance(truth.get("clarify"), dict):  # an ambiguous query: ask for the value it leaves out
            self.questions = [str(truth["clarify"].get("question") or f"What {truth['clarify']['label']} should I use?")]
        rng: random.Random = item_rng("scripted", seed, row["task_id"])
        self.mistake = rng.choice(MISTAKES) if rng.random() < error_rate else None
        if mistake is not None:  # a caller that decides the mistake itself (scripted trainees)
            if mistake not in (*MISTAKES, "wrong_tool"):
                raise ValueError(f"unknown mistake {mistake!r}; one of {', '.join((*MISTAKES, 'wrong_tool'))}")
            self.mistake = mistake
        if self.mistake == "wrong_tool":
            self._call_wrong_tool(row)
        self.task_id = row["task_id"]
        self._turn = 0
        if self.mistake is not None and self.behaviour == "decline":
            # the mistake on a no-tool task is to call a tool anyway
            first = row["tools"][0]["function"]["name"] if row.get("tools") else "lookup"
            self.turns, self.behaviour = [[{"name": first, "arguments": {}}]], "tool_use"
            self.mistake = "called_a_tool"
        if self.mistake == "skipped_call" and self.turns:
            self.turns[-1] = self.turns[-1][:-1] or []
            self.turns = [t for t in self.turns if t]
        if self.mistake == "wrong_argument" and self.turns:
            call = dict(self.turns[-1][0])
            arguments = dict(call["arguments"])
            key = next((k for k, v in arguments.items() if isinstance(v, (str, int, float))), None)
            if key is not None:
                arguments[key] = _corrupt(arguments[key])
                call["arguments"] = arguments
                self.turns[-1] = [call, *self.turns[-1][1:]]
            else:
                self.mistake = "missing_facts"

    def _call_wrong_tool(self, row: Mapping[str, Any]) -> None:
        """Swap one oracle call for a tool the oracle never uses (a distractor, where the row has one)."""
        used = {c["name"] for group in self.turns for c in group}
        others = sorted(t["function"]["name"] for t in row.get("tools") or () if t["function"]["name"] not in used)
        if not others or not self.turns:
            self.mistake = "skipped_call"  # applied below, like a drawn one
            return
        call = dict(self.turns[-1][0])
        self.turns[-1] = [{"name": others[0], "arguments": call["arguments"]}, *self.turns[-1][1:]]

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        if self.questions:
            return {"role": "assistant", "content": self.questions.pop(0)}
        if self.behaviour == "decline":
            return {"role": "assistant", "content": "I'm sorry, but I can't help with that here."}
        if self._turn < len(self.turns):
            group = self.turns[self._turn]
            self._turn += 1
            return {"role": "assistant", "content": "", "tool_calls": [
                {"id": call_id(self.task_id, 1000 * self._turn + i), "type": "function",
                 "function": {"name": c["name"], "arguments": c["arguments"]}} for i, c in enumerate(group)]}
        facts = [] if self.mistake == "missing_facts" else self.facts
        text = "Done." + (" Details: " + "; ".join(facts) + "." if facts else "")
        return {"role": "assistant", "content": text}


def _corrupt(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, float):
        return round(value * 1.5 + 1, 2)
    return f"{value}-x" if value else "x"


class BackendPolicy:
    """A policy from an LLM backend (``covert.llm``): one chat request per turn with the row's tools."""

    def __init__(self, backend: Any, temperature: float = 0.0, max_tokens: int = 512, seed: int = 0) -> None:
        self.backend = backend
        self.params = {"temperature": temperature, "max_tokens": max_tokens, "seed": seed}

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        from covert.llm import ChatRequest, SamplingParams

        request = ChatRequest(messages=messages, tools=tools, sampling=SamplingParams(**self.params))
        completion = self.backend.generate([request])[0]
        if completion.error:
            return {"role": "assistant", "content": ""}
        calls = [{"id": c.id or f"call_{i}", "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                 for i, c in enumerate(completion.tool_calls or [])]
        message: dict[str, Any] = {"role": "assistant", "content": completion.text or ""}
        if calls:
            message["tool_calls"] = calls
        return message


def parse_policy_spec(spec: str) -> tuple[str, float]:
    """``scripted`` or ``scripted:0.3`` -> ("scripted", 0.3); raises ValueError on anything else."""
    match = re.fullmatch(r"scripted(?::(0(?:\.\d+)?|1(?:\.0+)?))?", spec.strip())
    if not match:
        raise ValueError(f"unknown policy {spec!r}; use scripted or scripted:ERROR_RATE (e.g. scripted:0.2)")
    return "scripted", float(match.group(1) or 0.0)
