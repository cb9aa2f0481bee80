"""User scenarios in the style of tau2: a persona, a goal, what the user knows and what they do not."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from covert.env import Builder
from covert.language.values import join_phrases, render


@dataclass
class KnownItem:
    """One piece of information the user holds and hands over when asked.

    Attributes:
        label: What it is, as the assistant would ask for it ("email", "zip").
        value: The value itself (as the oracle uses it).
        text: The sentence the user says to hand it over ("my email is ...").
        call: The oracle call that needs it.
        labels: One label per value, when the item holds several ("origin", "date"), so that a question
            can leave out what the user said already.
    """

    label: str
    value: Any
    text: str
    call: int
    labels: tuple[str, ...] = ()


@dataclass
class UserScenario:
    """What a simulated user knows about their task.

    Attributes:
        persona: Who the user is (a short description).
        goal: What they want, in their own words (the opening request).
        known: Information they hand over when asked.
        unknown: Things they do not know and must never invent (internal ids the agent looks up).
        instructions: The scenario as text, for an LLM user simulator.
        asks_back: Per confirmation the assistant asks for, in order, a question the user asks before
            agreeing ("" where they agree at once): a user who checks what is about to change.
    """

    persona: str
    goal: str
    known: list[KnownItem] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    instructions: str = ""
    asks_back: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for rows."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UserScenario:
        """Inverse of :meth:`to_dict`."""
        return cls(persona=data["persona"], goal=data["goal"], known=[KnownItem(**k) for k in data["known"]],
                   unknown=list(data["unknown"]), instructions=data.get("instructions", ""),
                   asks_back=[str(q) for q in data.get("asks_back") or []])

    def known_values(self) -> list[Any]:
        """Every value the user may say."""
        return [k.value for k in self.known]


def scenario_of(task: Any, builder: Builder, opening: str, extra: list[KnownItem] | None = None,
                contexts: list[dict[str, Any]] | None = None) -> UserScenario:
    """The user scenario of a task: the goal is the opening request; what the held-back context sentences
    (``contexts``, default every one) hand over is known, and so is ``extra`` (what the opening holds
    back); ids the oracle looks up are unknown."""
    language = builder.language
    known: list[KnownItem] = []
    inputs = {(u["call"], u["param"]): u["value"] for u in task.user_inputs}
    for part in task.dialogue.get("contexts", []) if contexts is None else contexts:
        values = [inputs[(part["call"], p)] for p in part["params"] if (part["call"], p) in inputs]
        if part.get("selection"):
            sel = next((s for s in task.selections if s["call"] == part["call"] and s["param"] in part["params"]), None)
            values = [sel["value"]] if sel and sel.get("value") is not None else []
        nouns = [language.noun_of_field(p) for p in part["params"] if (part["call"], p) in inputs]
        label = join_phrases([language.noun_of_field(p) for p in part["params"]])
        if part.get("selection"):
            spec = builder.tools[task.calls[part["call"]].name]
            ref = language.references.get(spec.param_entity(part["params"][0]))
            label = ref.noun if ref is not None else label
        value = values[0] if len(values) == 1 else values
        labels = tuple(nouns) if len(values) > 1 and len(nouns) == len(values) and not part.get("selection") else ()
        known.append(KnownItem(label=label, value=value, text=part["text"], call=part["call"], labels=labels))
    known += extra or []
    unknown = []
    for i, call in enumerate(task.calls):
        spec = builder.tools[call.name]
        for param in call.arguments:
            ref = language.references.get(spec.param_entity(param))
            if ref is not None and (i, param) not in inputs and not ref.user_knows_id:
                noun = f"{ref.noun} id"
                if noun not in unknown:
                    unknown.append(noun)
    persona = _persona(task)
    lines = [f"You are {persona}.", f"Your request: {opening}"]
    if known:
        lines.append("You know, and give only when asked: " + "; ".join(f"{k.label}: {render(k.value)}" for k in known) + ".")
    if unknown:
        lines.append("You do not know: " + ", ".join(unknown) + ". Never make such values up.")
    lines.append("When your request is done, thank the agent and end the conversation.")
    return UserScenario(persona=persona, goal=opening, known=known, unknown=unknown, instructions=" ".join(lines))


def _persona(task: Any) -> str:
    names = [u["value"] for u in task.user_inputs if u["param"] in ("first_name", "name", "full_name")]
    who = f"{names[0]}, a customer" if names and isinstance(names[0], str) else "a customer"
    return f"{who} of a {task.builder.replace('_', ' ')} service"
