"""LLM rewrites for the indirect and ambiguous augmentations, still under the preservation proof.

The rule-based kind makes the row first; the LLM then rephrases its opening user message under the
minimal-information constraint (values the oracle needs from the user verbatim; looked-up values and,
for an ambiguous row, the withheld value never). The rewrite is kept only if the augmented row still
passes :func:`covert.augment.verify.validate_augmented_pair`; otherwise the rule-based row is written and
the rejection is counted, so nothing the LLM wrote is ever written unchecked.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from covert.augment.registry import RowPair
from covert.augment.rows import flat_calls, query_of, truth_of, with_query
from covert.augment.verify import validate_augmented_pair
from covert.errors import Invalid
from covert.language.values import mentions, normalize_text, render

KINDS = ("indirect", "ambiguous")
SCHEMA = {"type": "object", "properties": {"query": {"type": "string", "minLength": 8, "maxLength": 800}},
          "required": ["query"], "additionalProperties": False}


def constraint(pair: RowPair) -> tuple[list[str], list[str]]:
    """(values the rewrite must keep verbatim, values it must never mention)."""
    query = query_of(pair.sft)
    said = normalize_text(query)
    truth = truth_of(pair.sft)
    must: list[str] = []
    never: list[str] = []
    for call in flat_calls(truth):
        never.append(call["name"])
        for key, value in call["arguments"].items():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, (bool, dict, list)):
                    continue
                (must if mentions(said, item) else never).append(render(item))
            if "_" in key:
                never.append(key)
    clarify = truth.get("clarify")
    if clarify:
        never.append(render(clarify["value"]))
    must = [m for m in dict.fromkeys(must) if m not in never]
    return must, list(dict.fromkeys(never))


class LLMRephraser:
    """Rewrites indirect and ambiguous rows' queries with an LLM backend, batch by batch."""

    def __init__(self, backend: Any, temperature: float = 0.7, max_tokens: int = 256, seed: int = 0) -> None:
        self.backend = backend
        self.params = {"temperature": temperature, "max_tokens": max_tokens, "seed": seed}
        self.requests = 0
        self.accepted = 0
        self.rejected: Counter[str] = Counter()

    def request(self, kind: str, pair: RowPair) -> Any:
        """The chat request for one row."""
        from covert.llm import ChatRequest, SamplingParams

        must, never = constraint(pair)
        style = ("Refer to things indirectly: describe instead of naming, imply the intent instead of stating it"
                 if kind == "indirect" else
                 "Keep it a little vague: the message must leave out the detail listed under 'never'")
        lines = [f"Rephrase this customer message. {style}. Keep it natural and short.",
                 f"Message: {query_of(pair.sft)}"]
        if must:
            lines.append("Keep each of these values exactly: " + "; ".join(must))
        if never:
            lines.append("Never mention: " + "; ".join(never))
        lines.append('Answer with JSON: {"query": "..."}')
        sampling = SamplingParams(**self.params)
        return ChatRequest(messages=[{"role": "user", "content": "\n".join(lines)}], json_schema=SCHEMA,
                           sampling=sampling)

    def rewrite(self, items: list[tuple[str, RowPair]]) -> list[RowPair]:
        """For each ``(kind, pair)``: the rewritten pair when it passes the proof, else the pair as is."""
        if not items:
            return []
        completions = self.backend.generate([self.request(kind, pair) for kind, pair in items])
        out = []
        for (_, pair), completion in zip(items, completions, strict=True):
            self.requests += 1
            if not completion.ok:
                self.rejected[f"llm_{completion.reason}"] += 1
                out.append(pair)
                continue
            candidate = with_query(pair, completion.parsed["query"].strip())
            try:
                validate_augmented_pair(candidate.sft, candidate.rl)
            except Invalid as exc:
                self.rejected[f"llm_{exc.reason}"] += 1
                out.append(pair)
                continue
            self.accepted += 1
            out.append(candidate)
        return out

    def summary(self) -> dict[str, Any]:
        """What the LLM stage did (for the manifest)."""
        return {"requests": self.requests, "accepted": self.accepted, "rejected_by_reason": dict(sorted(self.rejected.items()))}
