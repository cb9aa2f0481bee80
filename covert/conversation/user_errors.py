"""Rule-based detection of a simulated user spoiling a rollout (AutoForge's masking of erroneous user
behaviour): the user contradicted its scenario (said a value it does not hold) or omitted information
it holds when asked for it."""

from __future__ import annotations

import re
from typing import Any

from covert.language.values import normalize_text, render
from covert.user.scenario import UserScenario

INVENTED = "user_invented_value"
OMITTED = "user_omitted_known_info"
_VALUE_LIKE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|#?[A-Za-z]*\d[\w#-]{2,}")
_DONT_KNOW = ("don't know", "do not know", "not sure", "no idea")


def detect_user_errors(messages: list[dict[str, Any]], scenario: UserScenario) -> list[str]:
    """Flags for a rollout's user turns; an empty list means the user behaved."""
    allowed = normalize_text(" ".join([scenario.goal, *(k.text for k in scenario.known),
                                       *(render(v) for v in scenario.known_values())]))
    flags: list[str] = []
    previous = ""
    said = ""
    for message in messages:
        if message.get("role") == "assistant":
            previous = (message.get("content") or "").lower()
            continue
        if message.get("role") != "user":
            continue
        text = message.get("content") or ""
        for token in _VALUE_LIKE.findall(text):
            if normalize_text(token.rstrip(".")) not in allowed:
                flags.append(INVENTED)
                break
        if any(p in text.lower() for p in _DONT_KNOW) and _asks_unsaid(previous, scenario, said):
            flags.append(OMITTED)
        said += " " + normalize_text(text)
    return sorted(set(flags))


def _asks_unsaid(question: str, scenario: UserScenario, said: str) -> bool:
    """Whether the question asks for a known item the user has not handed over yet."""
    words = set(re.findall(r"[a-z0-9]+", question))
    for item in scenario.known:
        label = {w for w in re.findall(r"[a-z0-9]+", item.label.lower()) if w not in ("and", "the", "of")}
        if label and label <= words and normalize_text(item.text) not in said:
            return True
    return False
