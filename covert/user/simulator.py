"""Simulated users behind one interface. The default answers from its scenario only, by template."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from covert.language.values import finish_sentence
from covert.user.scenario import KnownItem, UserScenario

STOP_DONE = "done"
STOP_TRANSFER = "transfer"
STOP_OUT_OF_SCOPE = "out_of_scope"
STOP_SIGNALS = (STOP_DONE, STOP_TRANSFER, STOP_OUT_OF_SCOPE)

_PROPOSE = ("go ahead", "shall i", "should i go", "should i proceed", "proceed", "want me to")
_CONFIRM = (*_PROPOSE, "confirm")
_DECLINE = ("can't help", "cannot help", "outside what i can", "don't have a way", "unable to help",
            "not something i can")
_TRANSFER = ("transfer you", "human agent", "connect you with a")
_STOPWORDS = {"and", "the", "of", "a", "an", "my", "your", "id", "number"}


# how a user agrees once their question about a change is answered
AGREEMENTS = ("Okay, that's fine. Go ahead.", "Got it, thanks. Yes, do it.", "Perfect, then please go ahead.",
              "Alright, yes, please.")


@dataclass
class UserTurn:
    """What the user says, and whether they end the conversation (``stop`` is one of STOP_SIGNALS)."""

    content: str
    stop: str | None = None
    revealed: list[str] = field(default_factory=list)


class UserSimulator(Protocol):
    """Anything that opens a conversation and answers the assistant."""

    def opening(self) -> str:
        """The first user message."""
        ...

    def reply(self, assistant: dict[str, Any]) -> UserTurn:
        """The user's answer to an assistant message (one without tool calls)."""
        ...


class TemplateUser:
    """A deterministic user: opens with the goal, answers questions from its known items only,
    confirms proposed actions, ends when the assistant gives a final answer. It never reveals what it
    does not know and never invents a value: asked for anything else, it says it does not know."""

    def __init__(self, scenario: UserScenario) -> None:
        self.scenario = scenario
        self.revealed: set[int] = set()
        self.proposals = 0  # confirmations answered so far
        self.asking = False  # a question of the user's about a proposed change is open

    def opening(self) -> str:
        return self.scenario.goal

    def reply(self, assistant: dict[str, Any]) -> UserTurn:
        text = (assistant.get("content") or "").lower()
        if any(p in text for p in _TRANSFER):
            return UserTurn("Okay, I'll wait for them.", STOP_TRANSFER)
        if any(p in text for p in _DECLINE):
            return UserTurn("I see. Thanks anyway.", STOP_OUT_OF_SCOPE)
        if not text.rstrip().endswith("?"):  # a statement (a "?" inside quoted data does not count)
            return UserTurn("Thanks, that's all I needed.", STOP_DONE)
        if any(p in text for p in _PROPOSE):  # a proposed change restates values; it asks for none
            return self._agree_or_ask()
        asked = self._asked_items(text)
        if asked:
            self.revealed.update(i for i, _ in asked)
            return UserTurn(" ".join(finish_sentence(item.text) for _, item in asked), None,
                            [item.label for _, item in asked])
        if any(p in text for p in _CONFIRM):
            return self._agree_or_ask()
        return UserTurn("Sorry, I don't know that.")

    def _agree_or_ask(self) -> UserTurn:
        """The answer to a proposed change: the scenario's question about it the first time it is
        proposed (where it has one), then agreement."""
        k = self.proposals
        question = self.scenario.asks_back[k] if k < len(self.scenario.asks_back) else ""
        if question and not self.asking:
            self.asking = True
            return UserTurn(question)
        self.asking = False
        self.proposals += 1
        return UserTurn(AGREEMENTS[k % len(AGREEMENTS)] if question else "Yes, please go ahead.")

    def _asked_items(self, text: str) -> list[tuple[int, KnownItem]]:
        words = set(re.findall(r"[a-z0-9]+", text))

        def asks_for(label: str) -> bool:
            label_words = {w for w in re.findall(r"[a-z0-9]+", label.lower()) if w not in _STOPWORDS}
            return bool(label_words) and label_words <= words

        open_items = [(i, item) for i, item in enumerate(self.scenario.known) if i not in self.revealed]
        # asked for a whole item; else for one of an item's values (what the user said already is not asked again)
        return [(i, item) for i, item in open_items if asks_for(item.label)] or \
            [(i, item) for i, item in open_items if any(asks_for(label) for label in item.labels)]




class ErrantUser(TemplateUser):
    """A template user that errs the way AutoForge's simulated users do, for testing the masking:
    with probability ``error_rate`` per answer it either withholds a value it holds ("I don't know")
    or hands over a made-up one. Rollouts with it must be flagged and masked."""

    def __init__(self, scenario: UserScenario, error_rate: float = 0.5, seed: int = 0) -> None:
        super().__init__(scenario)
        import random

        self.rng = random.Random(f"errant:{seed}:{scenario.goal}")
        self.error_rate = error_rate

    def reply(self, assistant: dict[str, Any]) -> UserTurn:
        turn = super().reply(assistant)
        if not turn.revealed or self.rng.random() >= self.error_rate:
            return turn
        if self.rng.random() < 0.5:
            return UserTurn("Sorry, I don't know that.")
        return UserTurn(f"It's ZZ{self.rng.randrange(10**6, 10**7)}, I think.")
