"""Checks on what the assistant says in a conversation row, each with a counted rejection reason.

- ``user_supplies_nothing``: the assistant asked something, and the user's reply neither hands over a
  value a later call uses (or a value that picks a record) nor answers a proposed change.
- ``confirmation_pastes_keys``: a confirmation before a write shows an argument key (``card_id``, or
  ``card id CRD-1`` with the value after the spaced key) instead of saying the change in words.
- ``confirmation_pastes_description``: a confirmation quotes a tool's description.
- ``plan_pastes_description``: the reasoning of a tool-call turn quotes a tool's description.

A single-turn row (no assistant text before the answer, no reasoning) passes untouched.
"""

from __future__ import annotations

import re
from typing import Any

from covert.language.values import mentions, normalize_text, render

_MIN_QUOTE_WORDS = 5


def _description_sentences(tools: list[dict[str, Any]]) -> list[str]:
    out = []
    for tool in tools:
        description = str((tool.get("function") or {}).get("description") or "")
        first = description.split(". ")[0].strip().rstrip(".").lower()
        if len(first.split()) >= _MIN_QUOTE_WORDS:
            out.append(first)
    return out


def _values(calls: list[dict[str, Any]]) -> list[Any]:
    out = []
    for call in calls:
        for value in (call.get("arguments") or {}).values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, (str, int, float)) and not isinstance(item, bool):
                    out.append(item)
    return out


def _pasted_key(text: str, calls: list[dict[str, Any]]) -> str | None:
    lowered = text.lower()
    for call in calls:
        for key, value in (call.get("arguments") or {}).items():
            if "_" in key and re.search(rf"(?<![\w-]){re.escape(key.lower())}(?![\w-])", lowered):
                return key
            spaced = key.replace("_", " ").lower()
            if not isinstance(value, (dict, list)) and f"{spaced} {render(value).lower()}" in lowered:
                return key
    return None


def check_conversation(row: dict[str, Any], writes: set[str] | None = None) -> None:
    """Raise :class:`covert.errors.Invalid` for the first defect above. ``writes`` names the tools
    that change state (default: every tool the row's builder marks as writing)."""
    messages = row["messages"]
    if not any(m.get("reasoning_content") for m in messages) and sum(m["role"] == "user" for m in messages) < 2:
        return  # a single-turn row: nothing here to check
    if writes is None:
        from covert.env import get_builder

        writes = {n for n, t in get_builder(row["builder"]).tools.items() if t.writes}
    from covert.errors import Invalid

    descriptions = _description_sentences(row.get("tools") or [])
    selections = [s.get("value") for s in (row.get("ground_truth") or {}).get("selections", [])
                  if s.get("value") is not None]
    turns = [(i, [c["function"] for c in m["tool_calls"]]) for i, m in enumerate(messages)
             if m["role"] == "assistant" and m.get("tool_calls")]
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        reasoning = str(message.get("reasoning_content") or "").lower()
        if message.get("tool_calls"):
            quoted = next((d for d in descriptions if d in reasoning), None)
            if quoted:
                raise Invalid("plan_pastes_description", quoted[:80])
            continue
        if i + 1 >= len(messages) or messages[i + 1]["role"] != "user":
            continue
        text = str(message.get("content") or "")
        later = [calls for k, calls in turns if k > i]
        reply = normalize_text(str(messages[i + 1].get("content") or ""))
        earlier = normalize_text(" ".join(str(m.get("content") or "") for m in messages[:i] if m["role"] == "user"))
        supplied = any(mentions(reply, v) and not mentions(earlier, v)
                       for v in [*_values([c for calls in later for c in calls]), *selections])
        if supplied:
            continue
        proposed = [c for c in (later[0] if later else []) if c["name"] in writes]
        if not proposed:
            raise Invalid("user_supplies_nothing", text[:80])
        key = _pasted_key(text, proposed)
        if key:
            raise Invalid("confirmation_pastes_keys", key)
        quoted = next((d for d in descriptions if d in text.lower()), None)
        if quoted:
            raise Invalid("confirmation_pastes_description", quoted[:80])
