"""An LLM-driven user simulator behind the same interface as the template user.

The model sees the scenario's instructions and the conversation with roles swapped (the assistant's
messages are what it reads); it ends the conversation by writing one of the stop tokens. Its replies
are checked by the rule-based user-error detector, so a rollout it spoils gets masked.
"""

from __future__ import annotations

from typing import Any

from covert.user.scenario import UserScenario
from covert.user.simulator import STOP_DONE, STOP_OUT_OF_SCOPE, STOP_TRANSFER, UserTurn

STOP_TOKENS = {"###STOP###": STOP_DONE, "###TRANSFER###": STOP_TRANSFER, "###OUT-OF-SCOPE###": STOP_OUT_OF_SCOPE}


class LLMUser:
    """A simulated user played by an LLM backend (``covert.llm``)."""

    def __init__(self, scenario: UserScenario, backend: Any, temperature: float = 0.0, seed: int = 0,
                 max_tokens: int = 200) -> None:
        self.scenario = scenario
        self.backend = backend
        self.history: list[dict[str, Any]] = []
        self.params = {"temperature": temperature, "seed": seed, "max_tokens": max_tokens}

    def system_prompt(self) -> str:
        """The instructions the model plays by."""
        stops = ", ".join(f"{token} ({meaning})" for token, meaning in STOP_TOKENS.items())
        return (f"{self.scenario.instructions} You are the user, talking to a support assistant. Reply with one "
                f"short message at a time. Only give information from your scenario. To end, write one of: {stops}.")

    def opening(self) -> str:
        self.history.append({"role": "assistant", "content": self.scenario.goal})
        return self.scenario.goal

    def reply(self, assistant: dict[str, Any]) -> UserTurn:
        from covert.llm import ChatRequest, SamplingParams

        self.history.append({"role": "user", "content": assistant.get("content") or ""})
        request = ChatRequest(messages=[{"role": "system", "content": self.system_prompt()}, *self.history],
                              sampling=SamplingParams(**self.params))
        completion = self.backend.generate([request])[0]
        text = (completion.text or "").strip() if completion.ok else ""
        stop = next((meaning for token, meaning in STOP_TOKENS.items() if token in text), None)
        for token in STOP_TOKENS:
            text = text.replace(token, "").strip()
        if not text:
            text = "Thanks." if stop else "Sorry, could you say that again?"
        self.history.append({"role": "assistant", "content": text})
        return UserTurn(text, stop)
