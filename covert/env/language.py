"""A builder's language resources: how users phrase intents, refer to entities and supply values.

Templates use ``{slot}`` placeholders:

- in :attr:`Intent.ask` and :attr:`Intent.context`, slots are the tool's parameter names; covert fills
  them with the value or with a reference to the entity (``order #W8812``, ``the order with the blender``);
- in :attr:`Intent.answer`, slots are paths into the tool's output (``status``, ``refund.amount``);
  the filled values are the answer facts the final message must communicate.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from covert.env.state import State

ValueSampler = Callable[[random.Random, State], Any]


@dataclass(frozen=True)
class Intent:
    """One way a user wants a tool used.

    Attributes:
        ask: Request templates used when the call is a goal of the task ("cancel {order_id}").
        answer: Final-answer templates; slots are output paths, their values become answer facts.
        context: Templates that hand over the parameters when the call is only a lookup on the way
            ("my email is {email}"). Needed for tools whose parameters the user supplies.
        ask_many: Request templates for several calls of the tool asked at once (a parallel task), for
            tools whose ``ask`` reads as one call only ("create a schema with ..."); empty: ``ask`` says
            one call or several alike ("cancel {order_id}" -> "cancel #A and #B").
    """

    ask: tuple[str, ...]
    answer: tuple[str, ...]
    context: tuple[str, ...] = ()
    ask_many: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reference:
    """How a user refers to one entity, such as ``order_id``.

    Attributes:
        noun: Singular noun ("order").
        plural: Plural noun ("orders").
        by_id: Templates quoting the id ("order {value}"); used when the user knows the id.
        user_knows_id: Whether a user would plausibly know the id. If not, a task must look it up.
        by_field: Describing templates per field of the entity's records ("the order with the {value}");
            a task uses one when the field's value singles the record out among its siblings.
        superlative: Per numeric field, phrases for its largest and smallest record
            (("my most expensive order", "my cheapest order")).
    """

    noun: str
    plural: str
    by_id: tuple[str, ...] = ("{value}",)
    user_knows_id: bool = True
    by_field: dict[str, tuple[str, ...]] = field(default_factory=dict)
    superlative: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Language:
    """Everything a builder says about how people talk to its tools.

    Attributes:
        scope: What the assistant helps with, as a noun phrase ("orders, returns and exchanges").
        intents: Per tool, the ways users ask for it.
        references: Per entity (parameter name such as ``order_id``), how users refer to it.
        entity_tables: Per entity, the state table holding its records (``{"order_id": "orders"}``).
        values: Samplers for parameters the user supplies, keyed ``"tool.param"`` or ``"param"``.
        field_nouns: Readable names of output fields ("total" -> "order total").
        field_units: The unit an output field's numbers are in, said after them where an answer states a
            value computed from the field ("kwh" -> "kWh": "the readings come to 60.08 kWh"); amounts of
            money get their currency from the outputs instead.
        out_of_scope: Requests no tool of the domain can serve (for irrelevance tasks).
        identity: How the domain identifies its user (a :class:`covert.env.policy.Identity`), if it does.
        phrases: How a user says a parameter's value when not verbatim, keyed ``"tool.param"``: the phrase
            and the noun a second mention refers back with (a resource path
            ``projects/harbor-42/locations/us-central1`` said as "project harbor-42 in us-central1",
            then "that project"); validation grounds such a path by its parts
            (:func:`covert.language.query_leaks.path_said`).
        actions: Per write tool, how a conversation restates the change ("delete {name}"; slots are argument
            names, as in ``builders/<name>/dialogue.py``), for tools whose names are no phrase.
        reads: Per read tool, what the agent checks ("list the custom metrics").
        fixed: ``"tool.param"`` keys whose value is the same in every call on one state (an imported
            API's project or region): calls of a tool that takes nothing else cannot differ, so the
            tool is never asked about several times in one parallel turn.
        eligible: Per ``"tool.param"`` that names a record, what the call needs of that record (given the
            state and the record): the tool fails on every record the test refuses (a return needs a
            delivered order). Synthesis draws the person a task is about among those holding such records,
            picks among them where it chooses one of a person's records, and counts a call on a refused
            record as failed without running it; the calls it keeps still run, and validation replays them.
        register: How its users write (``"developer"`` for an imported API; ``""``: the realizer's default).
        everyday: Everyday requests no tool serves, already worded, drawn in place of the shared ones
            (:mod:`covert.synth.irrelevance`); an imported API brings a few hundred.
    """

    scope: str
    intents: dict[str, tuple[Intent, ...]]
    references: dict[str, Reference]
    entity_tables: dict[str, str]
    values: dict[str, ValueSampler]
    field_nouns: dict[str, str] = field(default_factory=dict)
    field_units: dict[str, str] = field(default_factory=dict)
    out_of_scope: tuple[str, ...] = ()
    identity: Any = None
    phrases: dict[str, Callable[[Any], tuple[str, str]]] = field(default_factory=dict)
    actions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    reads: dict[str, str] = field(default_factory=dict)
    fixed: frozenset[str] = frozenset()
    eligible: dict[str, Callable[[State, dict[str, Any]], bool]] = field(default_factory=dict)
    register: str = ""
    everyday: tuple[str, ...] = ()

    def sampler(self, tool: str, param: str) -> ValueSampler | None:
        """The value sampler for one parameter, most specific first."""
        return self.values.get(f"{tool}.{param}") or self.values.get(param)

    def noun_of_field(self, name: str) -> str:
        """A readable name for an output field."""
        return self.field_nouns.get(name) or name.replace("_", " ")
