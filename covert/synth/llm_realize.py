"""LLM realization and COVERT's self-evolving synthesis loop.

An LLM rewrites each task's template query into a natural request from the blueprint, the state and
the minimal-information constraint (the values the query must carry verbatim, the looked-up values it
must not). The L1-L3 validator then decides: a query that drops a required value or leaks a forbidden
one is rejected with its reason and counted; the task keeps its template query, so nothing the LLM
wrote is ever written unchecked. Accepted queries join a few-shot pool per builder and category, and
the reasons of rejected ones are fed back into the next round's prompts. An optional semantic
self-review (L4) asks the LLM whether query, oracle and answer agree; a disagreement drops the task.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

from covert.env import get_builder
from covert.errors import Invalid
from covert.language.values import render
from covert.synth.records import Task
from covert.validation import validate_pair
from covert.views import rl_row, sft_row

QUERY_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string", "minLength": 8, "maxLength": 800}},
    "required": ["query"],
    "additionalProperties": False,
}
PLAN_SCHEMA = {
    "type": "object",
    "properties": {"plan": {"type": "string", "minLength": 20, "maxLength": 800}},
    "required": ["plan"],
    "additionalProperties": False,
}
REVIEW_SCHEMA = {
    "type": "object",
    "properties": {"agree": {"type": "boolean"}, "reason": {"type": "string", "maxLength": 300}},
    "required": ["agree", "reason"],
    "additionalProperties": False,
}


@dataclass
class LLMConfig:
    """Settings of the LLM stage (recorded in the manifest).

    Attributes:
        spec: The backend spec (``vllm:MODEL``, ``openai:URL[#MODEL]``, ``hf:PATH``).
        review: Run the semantic self-review (L4) on every accepted query.
        pool_size: Few-shot examples kept per builder and category.
        feedback_size: Recent rejection reasons fed back into prompts.
        temperature: Sampling temperature.
        max_tokens: Output budget per request.
        seed: Sampling seed (each request adds its task's index).
    """

    spec: str
    review: bool = False
    pool_size: int = 3
    feedback_size: int = 5
    temperature: float = 0.7
    max_tokens: int = 256
    seed: int = 0


@dataclass
class RoundReport:
    """What one round of LLM realization did."""

    round: int
    requests: int = 0
    accepted: int = 0
    rejected_by_reason: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        rate = round(self.accepted / self.requests, 4) if self.requests else 0.0
        return {"round": self.round, "requests": self.requests, "accepted": self.accepted, "acceptance_rate": rate,
                "rejected_by_reason": dict(sorted(self.rejected_by_reason.items()))}


def required_values(task: Task) -> list[str]:
    """Values the query must carry verbatim: what the user supplies and the descriptors they refer by."""
    values = [render(u["value"]) for u in task.user_inputs if not isinstance(u["value"], bool)]
    values += [render(s["value"]) for s in task.selections if s.get("mode") == "field" and s.get("value") is not None]
    return list(dict.fromkeys(v for v in values if v))


def forbidden_values(task: Task) -> list[str]:
    """Values the query must not hand over: ids the oracle looks up, tool names, argument keys."""
    supplied = {render(u["value"]) for u in task.user_inputs}
    looked_up = [
        render(v) for c in task.calls for v in c.arguments.values()
        if isinstance(v, str) and render(v) not in supplied and any(ch.isdigit() for ch in v)
    ]
    names = [c.name for c in task.calls]
    keys = [k for c in task.calls for k in c.arguments if "_" in k]
    return list(dict.fromkeys(looked_up + names + keys))


class EvolvingRealizer:
    """Rewrites queries with an LLM round by round, learning from what passes and what fails."""

    def __init__(self, backend: Any, config: LLMConfig) -> None:
        self.backend = backend
        self.config = config
        self.pool: dict[tuple[str, str], deque[str]] = defaultdict(lambda: deque(maxlen=config.pool_size))
        self.feedback: deque[str] = deque(maxlen=config.feedback_size)
        self.rounds: list[RoundReport] = []
        self.plan_counts: Counter[str] = Counter()

    # -- prompts -----------------------------------------------------------------------------------
    def query_request(self, task: Task) -> Any:
        """The chat request that asks for a natural query for ``task``."""
        from covert.llm import ChatRequest, SamplingParams

        builder = get_builder(task.builder)
        must = required_values(task)
        never = forbidden_values(task)
        lines = [
            f"Write the message a customer sends to the assistant of this service: {builder.description}",
            "The customer has a goal; write it as a person would, with implicit intent and natural wording.",
            f"What the customer wants (a rough draft you must rephrase): {task.query}",
        ]
        if must:
            lines.append("Include each of these values exactly as written: " + "; ".join(must))
        if never:
            lines.append("Never mention any of these (the assistant looks them up or they are internal): "
                         + "; ".join(never))
        examples = list(self.pool.get((task.builder, task.category), ()))
        if examples:
            lines.append("Messages that worked before:\n" + "\n".join(f"- {e}" for e in examples))
        if self.feedback:
            lines.append("Earlier drafts were rejected for: " + "; ".join(self.feedback))
        lines.append('Answer with JSON: {"query": "..."}')
        params = SamplingParams(temperature=self.config.temperature, max_tokens=self.config.max_tokens,
                                seed=self.config.seed + task.index)
        return ChatRequest(messages=[{"role": "system", "content": "You write realistic user requests."},
                                     {"role": "user", "content": "\n".join(lines)}],
                           json_schema=QUERY_SCHEMA, sampling=params)

    def review_request(self, task: Task) -> Any:
        """The L4 self-review request: do query, oracle calls and answer agree?"""
        from covert.llm import ChatRequest, SamplingParams

        calls = "; ".join(f"{c.name}({', '.join(f'{k}={render(v)}' for k, v in c.arguments.items())})" for c in task.calls)
        text = (f"User request: {task.query}\nTool calls the assistant makes: {calls or 'none'}\n"
                f"Final answer: {task.answer}\nDo the request, the calls and the answer agree (the calls do "
                'what was asked, nothing more, and the answer reports it)? Answer JSON {"agree": true|false, "reason": "..."}')
        params = SamplingParams(temperature=0.0, max_tokens=self.config.max_tokens, seed=self.config.seed + task.index)
        return ChatRequest(messages=[{"role": "user", "content": text}], json_schema=REVIEW_SCHEMA, sampling=params)

    # -- a round -----------------------------------------------------------------------------------
    def realize(self, tasks: list[Task], state_of: Any) -> list[Task | None]:
        """Rewrite one round of accepted tasks. Returns, per task, the task to write (with the LLM query
        when it validated, else unchanged) or ``None`` when the self-review rejected it."""
        report = RoundReport(len(self.rounds) + 1)
        completions = self.backend.generate([self.query_request(t) for t in tasks])
        out: list[Task | None] = []
        for task, completion in zip(tasks, completions, strict=True):
            report.requests += 1
            if not completion.ok:
                report.rejected_by_reason[f"llm_{completion.reason}"] += 1
                self.feedback.append(f"unusable output ({completion.reason})")
                out.append(task)
                continue
            candidate = dataclasses.replace(task, query=completion.parsed["query"].strip(),
                                            dialogue={"asks": [completion.parsed["query"].strip()], "contexts": []})
            try:
                validate_pair(sft_row(candidate), rl_row(candidate, "train", task.index), state_of(task))
            except Invalid as exc:
                report.rejected_by_reason[f"llm_{exc.reason}"] += 1
                self.feedback.append(f"{exc.reason}: {exc.detail}"[:160])
                out.append(task)
                continue
            report.accepted += 1
            self.pool[(task.builder, task.category)].append(candidate.query)
            out.append(candidate)
        if self.config.review:
            reviews = self.backend.generate([self.review_request(t) for t in out if t is not None])
            it = iter(reviews)
            for i, task in enumerate(out):
                if task is None:
                    continue
                review = next(it)
                if review.ok and not review.parsed["agree"]:
                    report.rejected_by_reason["review_disagree"] += 1
                    out[i] = None
        self.rounds.append(report)
        return out

    def plans(self, tasks: list[Task]) -> list[str | None]:
        """Interleaved-thinking plans for multi-turn rows: the reasoning before the first tool call.
        An unusable output gives ``None`` (the template plan is kept) and is counted."""
        from covert.llm import ChatRequest, SamplingParams

        requests = []
        for task in tasks:
            steps = ", then ".join(c.name for c in task.calls) or "no tool"
            text = (f"A user wrote: {task.query}\nYou are the assistant and will call: {steps}.\n"
                    "Write the short plan you think before acting (2-4 sentences: the goal, what to look up, "
                    'what to change, what to report). Answer JSON {"plan": "..."}')
            requests.append(ChatRequest(messages=[{"role": "user", "content": text}], json_schema=PLAN_SCHEMA,
                                        sampling=SamplingParams(temperature=0.0, max_tokens=self.config.max_tokens,
                                                                seed=self.config.seed + task.index)))
        out: list[str | None] = []
        for completion in self.backend.generate(requests) if requests else []:
            if completion.ok:
                out.append(completion.parsed["plan"].strip())
                self.plan_counts["accepted"] += 1
            else:
                out.append(None)
                self.plan_counts[f"rejected_{completion.reason}"] += 1
        return out

    def summary(self) -> dict[str, Any]:
        """Acceptance per round and rejections by reason, for the manifest."""
        total: Counter[str] = Counter()
        for r in self.rounds:
            total.update(r.rejected_by_reason)
        return {"spec": self.config.spec, "review": self.config.review,
                "requests": sum(r.requests for r in self.rounds), "accepted": sum(r.accepted for r in self.rounds),
                "rejected_by_reason": dict(sorted(total.items())), "rounds": [r.to_dict() for r in self.rounds],
                **({"plans": dict(sorted(self.plan_counts.items()))} if self.plan_counts else {})}
