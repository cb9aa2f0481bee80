"""An LLM judge behind the rewards' judge interface (rubric and transcript in, score and rationale out).

A model output that does not parse or validate is rejected, counted in :attr:`BackendJudge.errors`,
and the rule judge's verdict is used instead, so a bad output never becomes a reward.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from covert.rewards.judge import Judgement, Rubric, RuleJudge

VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "number", "minimum": 0, "maximum": 1},
                   "rationale": {"type": "string", "maxLength": 600}},
    "required": ["score", "rationale"],
    "additionalProperties": False,
}


def render_transcript(transcript: Sequence[Mapping[str, Any]], limit: int = 600) -> str:
    """A compact text form of a transcript for the judge prompt."""
    lines = []
    for message in transcript:
        role = message.get("role", "?")
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            arguments = function.get("arguments")
            text = arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()
            lines.append(f"assistant calls {function.get('name')}({text[:limit]})")
        content = message.get("content")
        if content:
            lines.append(f"{role}: {str(content)[:limit]}")
    return "\n".join(lines)


class BackendJudge:
    """Grades special behaviours with an LLM backend (``covert.llm``)."""

    def __init__(self, backend: Any, max_tokens: int = 200, seed: int = 0) -> None:
        self.backend = backend
        self.max_tokens = max_tokens
        self.seed = seed
        self.fallback = RuleJudge()
        self.errors: Counter[str] = Counter()

    def request(self, rubric: Rubric, transcript: Sequence[Mapping[str, Any]]) -> Any:
        """The chat request for one verdict."""
        from covert.llm import ChatRequest, SamplingParams

        text = (f"Rubric: {rubric.text}\n\nTranscript:\n{render_transcript(transcript)}\n\n"
                'Does the assistant meet the rubric? Answer JSON {"score": 0..1, "rationale": "..."}')
        return ChatRequest(messages=[{"role": "system", "content": "You grade AI assistant transcripts strictly."},
                                     {"role": "user", "content": text}],
                           json_schema=VERDICT_SCHEMA,
                           sampling=SamplingParams(temperature=0.0, max_tokens=self.max_tokens, seed=self.seed))

    def judge(self, rubric: Rubric, transcript: Sequence[Mapping[str, Any]]) -> Judgement:
        """The LLM's verdict, or the rule judge's when the LLM output is unusable."""
        completion = self.backend.generate([self.request(rubric, transcript)])[0]
        if completion.ok:
            return Judgement(float(completion.parsed["score"]), completion.parsed["rationale"])
        self.errors[completion.reason or "error"] += 1
        verdict = self.fallback.judge(rubric, transcript)
        return Judgement(verdict.score, f"llm judge output rejected ({completion.reason}); rule judge: {verdict.rationale}")
