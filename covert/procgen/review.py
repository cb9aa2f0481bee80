"""L4 of admission: the model that wrote a procedural environment reviews it (:mod:`covert.procgen.candidates`
sends this request; :mod:`covert.procgen.generate` writes the candidates)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from covert.llm.base import ChatRequest, SamplingParams

REVIEW_SCHEMA = {"type": "object", "required": ["verdict", "reason"], "additionalProperties": False,
                 "properties": {"verdict": {"enum": ["accept", "reject"]}, "reason": {"type": "string"}}}


def review_request(source: str, items: Sequence[dict[str, Any]]) -> ChatRequest:
    """L4: the model reviews an environment it wrote, given two sampled instances with their references."""
    shown = "\n\n".join(f"Instance {n + 1} prompt:\n{i['prompt'][:3000]}\n\nReference answer:\n{i['reference'][:2000]}"
                        for n, i in enumerate(items))
    text = ("Review this procedural environment module. Reject it if the prompt is ambiguous or does not say "
            "how to answer, if the reference answer is wrong, or if score() would reject a correct answer "
            "that differs from the reference. Reply as JSON {\"verdict\": \"accept\" | \"reject\", \"reason\": "
            f"\"...\"}}.\n\n```python\n{source[:30000]}```\n\n{shown}")
    return ChatRequest([{"role": "user", "content": text}], json_schema=REVIEW_SCHEMA,
                       sampling=SamplingParams(temperature=0.0, max_tokens=300, seed=0))
