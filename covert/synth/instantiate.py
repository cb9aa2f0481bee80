"""Instantiation: bind a blueprint's arguments from the state and earlier outputs, execute the oracle,
and realize the query and answer.

Arguments are bound entity by entity. A linked parameter (an entity the language can refer to) takes
its value from an earlier output when one carries it: a scalar field directly, a list element singled
out by a describing field or by a max/min reasoning node. Otherwise the user supplies it, and the query
must carry it. Values that came from outputs are never put in the query.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from covert.env import Builder, State, is_error
from covert.env.policy import (
    acts,
    choose_principal,
    identity_of,
    principal_view,
    required_call,
    row_prompt,
    self_as_other,
)
from covert.errors import Rejected
from covert.language.answers import Composer, aggregate_currency, is_amount
from covert.language.plurals import singular
from covert.language.realize import (
    AGGREGATE_ASKS,
    CLARIFICATIONS,
    OWN_COUNT_ASKS,
    RECORD_COUNT_ASKS,
    SELECTION_CONTEXTS,
    compose_query,
    fill,
    plural_noun,
    plural_subject,
    register_of,
    sentence,
    slots,
    vary_request,
)
from covert.language.spoken import Unspeakable, say
from covert.language.values import (
    get_path,
    join_phrases,
    mentions,
    normalize_text,
    overlaps,
    render,
    scalar_set,
    written_dates,
)
from covert.synth.blueprint import Blueprint
from covert.synth.graph import ToolGraph, tool_graph
from covert.synth.irrelevance import decline, irrelevant_request
from covert.synth.records import Call, Task
from covert.validation import (
    mixed_turn,
    off_target_lookup,
    order_dependent,
    takes_from_earlier_turn,
    undoes_earlier_write,
    unused_read,
)
from covert.validation.answer_checks import asks_for_list

OPTIONAL_PROBABILITY = 0.35
_SNAKE = re.compile(r"^[a-z]+(?:_[a-z]+)+$")
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")
STEP_TRIES = 4
NO_CHANGE = "no_change"  # what a try whose write changed nothing failed of
INELIGIBLE = {"error": {"code": "ineligible_record", "message": "the call's record fails its eligible test"}}


@dataclass
class _Step:
    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    phrases: dict[str, str] = field(default_factory=dict)
    user_params: list[str] = field(default_factory=list)
    sources: set[int] = field(default_factory=set)  # the earlier calls whose outputs gave arguments


# (id(builder), parallel, steps) -> (builder, its eligible tests, needs): the builder is kept, so an id is not reused
_NEEDS: dict[tuple[int, bool, tuple[str, ...]], tuple[Builder, Any, tuple[tuple[str, int, Any], ...]]] = {}


class Instantiator:
    """Binds, executes and realizes one blueprint on one state."""

    def __init__(self, builder: Builder, blueprint: Blueprint, state: State, rng: random.Random) -> None:
        self.builder = builder
        self.language = builder.language
        self.blueprint = blueprint
        self.graph: ToolGraph = tool_graph(builder)
        self.initial = state
        self.env = builder.env(state)
        self.rng = rng
        self.calls: list[Call] = []
        self.steps: list[_Step] = []
        self.selections: list[dict[str, Any]] = []
        self.reasoning: list[dict[str, Any]] = []
        self.origins: dict[str, str] = {}
        self.said_values: dict[str, str] = {}  # how this task says a value a varied phrase hook said once
        self.date_style: int | None = None  # how this task writes dates: ISO or one of values.written_dates
        self.context_parts: list[dict[str, Any]] = []
        self.repeats: dict[str, str] = {}
        self.composer = Composer(rng)
        # the person the task is about: value samplers only see their records (see covert.env.policy)
        self.identity = identity_of(builder)
        table = self.identity.table if self.identity is not None else None
        parallel = blueprint.method == "parallel"
        needs = self._needed_records(blueprint) if table else ()
        self.principal: str | None = choose_principal(self.identity, state, rng, 2 if parallel else 1, needs) if table else None
        self._view: tuple[int, frozenset[tuple[str, str]], State] | None = None
        self._writes = 0  # write calls made so far (the principal's view changes with them)
        self.self_values: dict[str, Any] = {}
        # records the value samplers do not see while a call is bound (see _hiding)
        self._hidden: frozenset[tuple[str, str]] = frozenset()

    def _needed_records(self, blueprint: Blueprint) -> tuple[tuple[str, int, Any], ...]:
        """``(table, n, test)``: the person the task is about needs ``n`` records of each owned table that a
        step names a record of (by its first required parameter that names one, as :meth:`_varying_param`
        takes it): one, or two where a parallel turn calls the step's tool several times; records the
        step's call can act on where the language says which (``Language.eligible``; else ``test`` is
        ``None``). A function of the builder and the plan's tools and method, cached."""
        identity = self.identity
        if identity is None:
            return ()
        key = (id(self.builder), blueprint.method == "parallel", tuple(blueprint.steps))
        found = _NEEDS.get(key)
        if found is not None and found[0] is self.builder and found[1] is self.language.eligible:
            return found[2]
        needs = self._needs_of(blueprint)
        if len(_NEEDS) >= 8192:
            _NEEDS.clear()
        _NEEDS[key] = (self.builder, self.language.eligible, needs)
        return needs

    def _needs_of(self, blueprint: Blueprint) -> tuple[tuple[str, int, Any], ...]:
        identity = self.identity
        assert identity is not None
        needs: dict[tuple[str, str], tuple[int, Any]] = {}
        eligible = self.language.eligible
        for tool in dict.fromkeys(blueprint.steps):
            if tool in identity.tools:
                continue
            for param, _, entity, linkable, _, required in _parameters(self.builder, tool):
                if required and linkable and param not in identity.self_params:
                    table = self.language.entity_tables.get(entity)
                    if table in identity.owners:
                        repeated = blueprint.method == "parallel" and blueprint.steps.count(tool) > 1
                        name = f"{tool}.{param}" if f"{tool}.{param}" in eligible else ""
                        n = max(needs.get((table, name), (0, None))[0], 2 if repeated else 1)
                        needs[(table, name)] = (n, eligible.get(name))
                    break
        return tuple((table, n, test) for (table, _), (n, test) in sorted(needs.items(), key=lambda kv: kv[0]))

    def _sampling_state(self) -> State:
        """What the value samplers see: the live state, cut down to the principal's records (less those
        hidden while a call is bound; see :meth:`_hiding`)."""
        if self.principal is None or self.identity is None:
            return self.env.state
        # the view lasts until a write changes the state (read tools never write: the builder contract)
        writes = self._writes
        if self._view is None or self._view[0] != writes or self._view[1] != self._hidden:
            view = principal_view(self.env.state, self.identity, self.principal)
            self._view = (writes, self._hidden, view.without(set(self._hidden)) if self._hidden else view)
        return self._view[2]

    # -- binding ---------------------------------------------------------------------------------
    def run(self) -> None:
        """Bind and execute every step; a call that fails its precondition is re-bound (up to
        :data:`STEP_TRIES` times) with everything it recorded rolled back, so the oracle never fails."""
        parallel = self.blueprint.method == "parallel"
        for tool in self.blueprint.steps:
            try:
                step, output = self._execute(tool)
            except Rejected:
                # one person may have fewer records than the plan asks about: a parallel turn keeps
                # the calls it has of a tool rather than failing on one more
                if parallel and any(s.tool == tool for s in self.steps):
                    continue
                raise
            self.steps.append(step)
            self.calls.append(Call(tool, step.args, output))
            self._writes += self.builder.tools[tool].writes
        if parallel and len(self.steps) < len(self.blueprint.steps):
            if len(self.steps) < 2:
                raise Rejected("duplicate_parallel_call", self.blueprint.steps[0])
            b = self.blueprint
            self.blueprint = Blueprint(b.category, b.method, [s.tool for s in self.steps],
                                       list(range(len(self.steps))), b.reasoning, b.superlative, dict(b.notes))

    def _execute(self, tool: str) -> tuple[_Step, Any]:
        error = ""
        failed: set[tuple[str, str]] = set()  # the principal's records a failed try named: others are drawn next
        writes = self.builder.tools[tool].writes
        for _ in range(STEP_TRIES):
            marks = (len(self.selections), len(self.reasoning), dict(self.origins))
            step = self._bind_step(tool, failed, f"{tool}:{error}")
            # a read never changes the state (the builder contract): only a write's try has anything to undo
            saved = self.env.state.fork() if writes else self.env.state
            # a record the call cannot act on (Language.eligible) fails it: no need to run it to know
            refused = self._refused(step)
            output = INELIGIBLE if refused else self.env.call(tool, step.args)
            if is_error(output):
                error = output["error"]["code"]
                failed |= {r for p in step.args for r in self._named_records(step, p)}
                if refused and self._futile(step, refused, failed):
                    break
            elif writes and saved.same_content(self.env.state):
                # a write that changes nothing (locking a locked door) is a redundant step validation
                # rejects: another draw may change something (unlocking it)
                error = NO_CHANGE
            else:
                return step, output
            self.env.state = saved
            self._view = None
            del self.selections[marks[0]:], self.reasoning[marks[1]:]
            self.origins = marks[2]
        if error == NO_CHANGE:
            raise Rejected("redundant_step", f"dropping write {tool} changes nothing")
        raise Rejected("precondition_failed", f"{tool}:{error}")

    def _bind_step(self, tool: str, failed: set[tuple[str, str]], detail: str) -> _Step:
        """One binding of ``tool``'s call; the principal's records in ``failed`` (those earlier tries of
        this call named, which failed its precondition) are out of the samplers' sight."""
        if self.blueprint.method != "parallel":
            return self._hiding(failed, "precondition_failed", detail, self._bind, tool, True)
        first = next((s for s in self.steps if s.tool == tool), None)
        reason, hidden = "duplicate_parallel_call", set(failed)
        varying = ""
        if first is not None:
            varying = self._varying_param(first)
            if not varying:
                raise Rejected("no_parallel_param", tool)
            if self.principal is not None:
                # the records the turn already asks about are not drawn again (from the principal's few)
                hidden |= {r for s in self.steps if s.tool == tool and varying in s.user_params
                           for r in self._named_records(s, varying)}
        exhausted, why = (reason, tool) if hidden - failed else ("precondition_failed", detail)
        return self._hiding(hidden, exhausted, why, self._bind_parallel, tool, first, varying, reason)

    def _hiding(self, hidden: set[tuple[str, str]], reason: str, detail: str, bind: Any, *args: Any) -> _Step:
        """``bind(*args)`` with the ``hidden`` records out of the samplers' sight; when that leaves a
        sampler nothing to draw, the attempt is rejected for ``reason`` (what drawing the hidden records
        again would have come to)."""
        if not hidden:
            return bind(*args)
        self._hidden = frozenset(hidden)
        try:
            return bind(*args)
        except Rejected as exc:
            if exc.reason in ("principal_has_none", "unfillable_parameter", "no_distinct_choice"):
                raise Rejected(reason, detail) from None
            raise
        finally:
            self._hidden = frozenset()

    def _named_records(self, step: _Step, param: str) -> set[tuple[str, str]]:
        """The ``(table, id)`` records that ``param`` of ``step`` names (never the user's own record: the
        task stays about them)."""
        table = self.language.entity_tables.get(self.builder.tools[step.tool].param_entity(param))
        if table is None or (self.identity is not None and table == self.identity.table):
            return set()
        value = step.args.get(param)
        return {(table, v) for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)}

    def _bind_parallel(self, tool: str, first: _Step | None, varying: str, reason: str) -> _Step:
        for _ in range(6):
            step = self._bind(tool, link=False)
            if first is not None:
                # the calls of a tool differ in one thing only: what the user asks about several times
                for param in [p for p in step.user_params if p not in first.user_params and p != varying]:
                    step.args.pop(param, None)
                    step.phrases.pop(param, None)
                    step.user_params.remove(param)
                for param in first.user_params:
                    if param != varying:
                        step.args[param] = first.args[param]
                        step.phrases[param] = first.phrases[param]
                        if param not in step.user_params:
                            step.user_params.append(param)
                # every call of the tool says the one thing that varies (an optional one left out would
                # make a third call the request never asked for)
                if varying not in step.args or any(step.args.get(varying) == s.args.get(varying)
                                                   for s in self.steps if s.tool == tool):
                    continue
            if self._writes_same_id(step):
                reason = "parallel_write_conflict"
                continue
            return step
        raise Rejected(reason, tool)

    def _writes_same_id(self, step: _Step) -> bool:
        """Whether a write of the parallel turn would act on an id another write of the turn acts on:
        their order would matter, so they cannot run together."""
        if not self.builder.tools[step.tool].writes:
            return False
        mine = _id_arguments(self.builder, step.tool, step.args)
        return any(mine & _id_arguments(self.builder, s.tool, s.args) for s in self.steps
                   if self.builder.tools[s.tool].writes)

    def _varying_param(self, step: _Step) -> str:
        """The one parameter that differs between parallel calls of a tool: its first linked entity."""
        return _varying_of(self.builder, step.tool, step.user_params)

    def _bind(self, tool: str, link: bool) -> _Step:
        step = _Step(tool)
        joint: dict[str, Any] | None = None
        needs = _phrasing_needs(self.language, tool)
        for param, schema, entity, linkable, is_list, required in _parameters(self.builder, tool):
            # an optional parameter every request of the tool names is always given; the draws are made
            # all the same, so what is drawn for the other parameters does not change
            wanted = required or self.rng.random() < OPTIONAL_PROBABILITY or param in needs
            if linkable and link and wanted and self._bind_from_output(step, param, entity, is_list):
                continue
            if not required and not self._wants_optional(tool, param, schema) and param not in needs:
                continue
            if joint is None:
                sampler = self.language.values.get(tool)
                joint = self._sampled(sampler, tool) if sampler else {}
            value = self._user_value(tool, param, schema, entity, joint)
            if value is None:
                if required:
                    raise Rejected("unfillable_parameter", f"{tool}.{param}")
                continue
            step.args[param] = value
            step.user_params.append(param)
            said = self.language.phrases.get(f"{tool}.{param}")
            step.phrases[param] = self._in_words(said, value) if said is not None else self._user_phrase(entity, value)
        return step

    def _in_words(self, said: Any, value: Any) -> str:
        """A value in words by its phrase hook. A hook that ``varies`` draws one of its ways of saying the
        value with the task's generator, once per task: a second mention says it the same way."""
        if not getattr(said, "varies", False):
            return said(value)[0]
        key = str(value)
        if key not in self.said_values:
            self.said_values[key] = said(value, self.rng)[0]
        return self.said_values[key]

    def _wants_optional(self, tool: str, param: str, schema: dict[str, Any]) -> bool:
        return _givable(self.language, tool, param, schema) and self.rng.random() < OPTIONAL_PROBABILITY

    def _sampled(self, sampler: Any, tool: str) -> Any:
        """A sampler's draw on :meth:`_sampling_state`; a sampler with nothing left to pick among the
        principal's records rejects the attempt."""
        try:
            return sampler(self.rng, self._sampling_state())
        except (IndexError, KeyError, ValueError, TypeError) as exc:
            if self.principal is None:
                raise
            raise Rejected("principal_has_none", f"{tool}: {type(exc).__name__}") from None

    def _user_value(self, tool: str, param: str, schema: dict[str, Any], entity: str, joint: dict[str, Any]) -> Any:
        own = self.identity is not None and param in self.identity.self_params
        if own and param in self.self_values:
            return self.self_values[param]  # the user names themselves the same way throughout
        value = self._fresh_value(tool, param, schema, entity, joint)
        if own and value is not None:
            self.self_values[param] = value
        return value

    def _fresh_value(self, tool: str, param: str, schema: dict[str, Any], entity: str, joint: dict[str, Any]) -> Any:
        ref = self.language.references.get(entity)
        if param in joint:
            return joint[param]
        sampler = self.language.sampler(tool, param)
        if sampler is not None:
            return self._sampled(sampler, tool)
        if ref is not None:
            if not ref.user_knows_id:
                raise Rejected("ungrounded_id", f"{tool}.{param}: users cannot know a {ref.noun} id")
            later = self._later_sampler(tool, entity) if schema.get("type") != "array" else None
            if later is not None:
                return self._sampled(later, tool)
            table = self.language.entity_tables.get(entity)
            ids = self._sampling_state().ids(table) if table else []
            if not ids:
                return None
            able = self._able(tool, param, entity, ids)
            if able is not None:
                ids = [k for k in ids if k in able]
            chosen = self.rng.choice(ids)
            return [chosen] if schema.get("type") == "array" else chosen
        if "enum" in schema:
            return self.rng.choice(schema["enum"])
        if schema.get("type") == "boolean":
            return self.rng.random() < 0.5
        return None

    def _later_sampler(self, tool: str, entity: str) -> Any:
        """The sampler a later write of the task has for a record of ``entity`` (``"tool.param"``), for a
        lookup that names the record the write then acts on: the user asks about one it can act on (a
        delivered order before returning its items), not any of theirs. ``None`` if no later write has one."""
        return self._later_write(tool, entity, self.language.values)

    def _later_test(self, tool: str, entity: str) -> Any:
        """The ``eligible`` test a later write of the task has for a record of ``entity``, for a lookup that
        picks from a listed output the record the write then acts on (see :meth:`_later_sampler`)."""
        return self._later_write(tool, entity, self.language.eligible)

    def _later_write(self, tool: str, entity: str, found_in: dict[str, Any]) -> Any:
        """What ``found_in`` holds for ``"later.param"``: the first write after the step being bound (a
        step of ``tool``, not in a parallel turn) whose parameter takes one record of ``entity``."""
        steps = self.blueprint.steps
        position = len(self.steps)
        if not found_in or self.blueprint.method == "parallel" or position >= len(steps) or steps[position] != tool:
            return None
        for later in steps[position + 1:]:
            if not self.builder.tools[later].writes:
                continue
            for param, _, other, _, is_list, _ in _parameters(self.builder, later):
                if other == entity and not is_list:
                    found = found_in.get(f"{later}.{param}")
                    if found is not None:
                        return found
        return None

    def _written(self, value: Any) -> str:
        """``value`` as the user writes it: a date as people write dates ("March 12, 2026", "12 Mar 2026"
        or 2026-03-12), one way for the whole task, as a person keeps to theirs; anything else rendered."""
        text = render(value)
        written = written_dates(value) if isinstance(value, str) else ()
        if not written:
            return text
        if self.date_style is None:
            self.date_style = self.rng.randrange(len(written) + 1)
        return (text, *written)[self.date_style]

    def _user_phrase(self, entity: str, value: Any) -> str:
        ref = self.language.references.get(entity)
        if ref is None:
            text = self._written(value)
            # a code a person says in words: "basic economy", not "basic_economy"
            return text.replace("_", " ") if isinstance(value, str) and _SNAKE.match(value) else text
        values = value if isinstance(value, list) else [value]
        phrases = []
        for item in values:
            earlier = self.origins.get(str(item), "")
            # the same record is named the same way throughout (so a second mention can refer back)
            phrase = earlier if render(item) in earlier else self.rng.choice(ref.by_id).format(value=render(item))
            self.origins.setdefault(str(item), phrase)
            phrases.append(phrase)
        return join_phrases(phrases)

    def _bind_from_output(self, step: _Step, param: str, entity: str, is_list: bool) -> bool:
        scalar = None
        listed = None
        # a fan-out's reads all take what its lookup returned, so they can share the turn after it
        last = 0 if self.blueprint.method == "fanout" else len(self.calls) - 1
        source = -1
        for index in range(min(last, len(self.calls) - 1), -1, -1):
            call = self.calls[index]
            for out in self.graph.by_entity[call.name].get(entity, ()):
                if not out.in_list:
                    value = get_path(call.output, out.path)
                    if value is not None and value != "" and scalar is None:
                        scalar, source = value, index
                elif listed is None and out.path.count("[]") == 1:
                    listed = (index, out.path)
        if scalar is not None:
            step.sources.add(source)
            step.args[param] = [scalar] if is_list else scalar
            step.phrases[param] = self.origins.get(str(scalar)) or self._possessive(entity)
            return True
        if listed is not None:
            taken = {v for k, v in step.args.items() if isinstance(v, str)}
            value, phrase = self._select(step.tool, param, entity, *listed, taken=taken)
            step.sources.add(listed[0])
            step.args[param] = [value] if is_list else value
            step.phrases[param] = phrase
            return True
        return False

    def _given_values(self, source: int) -> list[str]:
        """What the user said for the call at ``source`` (its user-given arguments), in lower case."""
        step = self.steps[source] if source < len(self.steps) else None
        args = self.calls[source].arguments
        names = step.user_params if step is not None else list(args)
        return [v.lower() for name in names for v in _strings(args.get(name)) if len(v) >= 3]

    def _possessive(self, entity: str) -> str:
        return f"my {self.language.references[entity].noun}"

    def _select(self, tool: str, param: str, entity: str, source: int, path: str,
                taken: set[str] = frozenset()) -> tuple[Any, str]:
        list_path, _, key = path.partition("[]")
        key = key.lstrip(".")
        elements = get_path(self.calls[source].output, list_path) if list_path else self.calls[source].output
        if not isinstance(elements, list) or not elements or not all(isinstance(e, dict) for e in elements):
            raise Rejected("empty_list", f"{self.calls[source].name}.{list_path}")
        hidden = {k for _, k in self._hidden}  # records that failed this call's precondition in an earlier try
        # an element without the id (an optional field of an imported API's list) cannot be acted on
        candidates = [e for e in elements if e.get(key) is not None and e.get(key) not in taken
                      and e.get(key) not in hidden]
        if not candidates:
            raise Rejected("no_distinct_choice", f"{entity} in {self.calls[source].name}.{list_path}")
        # only records the call can act on, where the language says which
        able = self._able(tool, param, entity, [e.get(key) for e in candidates])
        if able is not None:
            candidates = [e for e in candidates if e.get(key) in able]
        # a lookup of the record a later write acts on picks one the write can act on (the order to return
        # is a delivered one), where there is one
        later = self._later_test(tool, entity)
        table = self.language.entity_tables.get(entity) if later is not None else None
        if table is not None:
            fitting = _accepted(later, self.env.state, table, [e.get(key) for e in candidates])
            if fitting:
                able = fitting if able is None else able & fitting
                candidates = [e for e in candidates if e.get(key) in fitting]
        ref = self.language.references[entity]
        record: dict[str, Any] = {"call": len(self.calls), "param": param, "source_call": source,
                                  "list_path": list_path, "key": key}
        says = self._says_of(entity, key)
        if ref.superlative and self.rng.random() < self.blueprint.superlative:
            for numeric in self.rng.sample(sorted(ref.superlative), len(ref.superlative)):
                values = [e.get(numeric) for e in elements]
                if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
                    continue
                mode = self.rng.choice(("max", "min"))
                best = max(values) if mode == "max" else min(values)
                if values.count(best) != 1 or len(values) < 2:
                    continue
                chosen = elements[values.index(best)]
                if chosen.get(key) is None or chosen.get(key) in taken or chosen.get(key) in hidden \
                        or (able is not None and chosen.get(key) not in able) or not says(chosen, numeric):
                    continue
                phrase = ref.superlative[numeric][0 if mode == "max" else 1]
                record.update(mode=mode, by=numeric, value=best, chosen=chosen[key])
                self.selections.append(record)
                self.reasoning.append({"op": f"arg{mode}", "call": source, "list_path": list_path,
                                       "field": numeric, "result": chosen[key]})
                self.origins.setdefault(str(chosen[key]), phrase)
                return chosen[key], phrase
        order = list(range(len(candidates)))
        self.rng.shuffle(order)
        fields = sorted(ref.by_field)
        given = self._given_values(source)
        for position in order:
            chosen = candidates[position]
            unique = [
                f for f in fields
                if isinstance(chosen.get(f), (str, int, float)) and chosen.get(f) != ""
                and sum(1 for e in elements if e.get(f) == chosen[f]) == 1 and says(chosen, f)
            ]
            # a record the user already described (the sender they searched for, the keyword in its
            # subject) is singled out by something else, not by what they said again
            fresh = [f for f in unique if not overlaps(chosen[f], given)]
            if unique and not fresh and len(elements) == 1:
                record.update(mode="only", by="", value=None, chosen=chosen[key])
                self.selections.append(record)
                return chosen[key], f"that {ref.noun}"
            unique = fresh or unique
            if unique:
                by = self.rng.choice(unique)
                phrase = self.rng.choice(ref.by_field[by]).format(value=self._written(chosen[by]))
                record.update(mode="field", by=by, value=chosen[by], chosen=chosen[key])
                self.selections.append(record)
                self.origins.setdefault(str(chosen[key]), phrase)
                return chosen[key], phrase
        if len(elements) == 1:
            phrase = self._possessive(entity)
            record.update(mode="only", by="", value=None, chosen=elements[0][key])
            self.selections.append(record)
            return elements[0][key], phrase
        raise Rejected("no_unique_descriptor", f"{entity} in {self.calls[source].name}.{list_path}")

    def _says_of(self, entity: str, key: str) -> Any:
        """A test of whether a listed element's field describes the record of ``entity`` its ``key`` names:
        a queue listed with its farm's id (``queues[].farmId``) does not describe the farm by its own
        name, so "the farm called Metrics Sync" (the queue's name) is never said. A field the record
        holds under another value is the element's own, not the record's, and so is one the record lacks but
        records of its table have (the queue's ``updatedBy``, where the farm was never updated: never "the
        farm updated by" the queue's editor); one no record of the table has is a view's (a home's city, a
        booking's hotel name) and is kept."""
        table = self.language.entity_tables.get(entity)
        state = self.env.state
        fields: list[set[str]] = []  # what the table's records hold, worked out at the first need

        def says(element: dict[str, Any], field_: str) -> bool:
            value = element.get(key)
            held = state.get(table, value) if table is not None and isinstance(value, str) else None
            if held is None:
                return True
            if field_ in held:
                return held[field_] == element.get(field_)
            if not fields:
                fields.append({f for k in state.ids(table) for f in (state.get(table, k) or ())})
            return field_ not in fields[0]

        return says

    def _refused(self, step: _Step) -> str:
        """The parameter of ``step`` that names a record the language's ``eligible`` test of it refuses
        (so the call would fail), or ``""``."""
        eligible = self.language.eligible
        if not eligible:
            return ""
        state = self.env.state
        spec = self.builder.tools[step.tool]
        for param, value in step.args.items():
            test = eligible.get(f"{step.tool}.{param}")
            table = self.language.entity_tables.get(spec.param_entity(param)) if test is not None else None
            if table is None:
                continue
            for key in value if isinstance(value, list) else [value]:
                record = state.get(table, key) if isinstance(key, str) else None
                if record is not None and not test(state, record):
                    return param
        return ""

    def _futile(self, step: _Step, param: str, failed: set[tuple[str, str]]) -> bool:
        """Whether every further try of ``step``'s call fails as this one did on ``param``'s record (a required
        parameter): a value taken straight from an earlier output is the same on every try, and a value the user gives comes
        from the principal's records, of which no record the call can act on is left (less ``failed``).
        A value picked from a listed output is not: the next pick sees only records it can act on."""
        tool = step.tool
        if param not in self.builder.tools[tool].parameters["required"]:
            return False  # another try may leave it out
        if any(s["call"] == len(self.calls) and s["param"] == param for s in self.selections):
            return False
        if param not in step.user_params:
            return True
        out = set(failed)
        first = next((s for s in self.steps if s.tool == tool), None) if self.blueprint.method == "parallel" else None
        if first is not None:
            if param != self._varying_param(first):
                return True  # a later call of a parallel turn says what the first said, but for one thing
            # nor are the records the turn already asks about drawn again
            out |= {r for s in self.steps if s.tool == tool for r in self._named_records(s, param)}
        test = self.language.eligible[f"{tool}.{param}"]
        table = self.language.entity_tables[self.builder.tools[tool].param_entity(param)]
        view, state = self._sampling_state(), self.env.state
        return not any((table, k) not in out and test(state, record) for k, record in view.records(table))

    def _able(self, tool: str, param: str, entity: str, keys: list[Any]) -> set[Any] | None:
        """Those of ``keys`` (records of ``entity``'s table) that ``tool``'s call can act on by the
        language's ``eligible`` test of ``tool.param`` on the live state; ``None`` when there is no test.
        None of them: the call fails whichever is drawn, so the attempt is rejected as it would be after
        failing (``precondition_failed``)."""
        test = self.language.eligible.get(f"{tool}.{param}")
        table = self.language.entity_tables.get(entity)
        if test is None or table is None:
            return None
        able = _accepted(test, self.env.state, table, keys)
        if not able:
            raise Rejected("precondition_failed", f"{tool}: no {entity} it can act on")
        return able

    # -- realization -----------------------------------------------------------------------------
    def realize(self) -> tuple[str, str, list[dict[str, Any]]]:
        """The query, the final answer and its facts."""
        blueprint = self.blueprint
        contexts: list[str] = []
        asks: list[str] = []
        answers: list[str] = []
        facts: list[dict[str, Any]] = []
        goals = set(blueprint.goals)
        aggregate_step = blueprint.reasoning[1] if blueprint.reasoning else None
        if blueprint.method == "parallel":
            groups: dict[str, list[int]] = {}
            for i, step in enumerate(self.steps):
                groups.setdefault(step.tool, []).append(i)
            for tool, members in groups.items():
                intent = self.rng.choice(self.language.intents[tool])
                lists = self._phrase_lists(members)
                phrases = {param: join_phrases(values) for param, values in lists.items()}
                needed = set().union(*(self.steps[i].user_params for i in members))
                intent = self._worded(intent, tool, needed, phrases, len(members) > 1)
                templates = intent.ask_many if len(members) > 1 and intent.ask_many else intent.ask
                template, said = _quoted_each(self._template(templates, needed, phrases, tool), phrases, lists)
                ask = fill(template, said)
                asks.append(vary_request(plural_subject(ask, list(phrases.values())), self.rng))
                for i in members:
                    answers.append(self._answer(intent.answer, i, facts, ask))
        else:
            # what the requests will say: a context sentence need not say it first
            asked = [step.args[p] for i, step in enumerate(self.steps) if i in goals and i != aggregate_step
                     for p in step.user_params]
            for i, step in enumerate(self.steps):
                needed = set(step.user_params)
                intent = self.rng.choice(self.language.intents[step.tool])
                if i in goals and i != aggregate_step:
                    intent = self._worded(intent, step.tool, needed, step.phrases)
                    ask = fill(self._template(intent.ask, needed, step.phrases, step.tool), step.phrases)
                    asks.append(vary_request(plural_subject(ask, list(step.phrases.values())), self.rng))
                    answers.append(self._answer(intent.answer, i, facts, ask))
                elif needed and not self._said_by_goals(step, goals, aggregate_step):
                    part = self._context(i, step, needed, normalize_text(" ".join(contexts)), asked)
                    if part is not None:
                        contexts.append(part["text"])
                        self.context_parts.append(part)
            if aggregate_step is not None:
                ask, answer = self._aggregate(blueprint.reasoning[0], aggregate_step, facts)
                asks.append(vary_request(ask, self.rng))
                answers.append(answer)
        contexts = self._drop_repeated_contexts(contexts, asks)
        said = normalize_text(" ".join(contexts + asks))
        trailing: list[str] = []
        for sel in self.selections:
            phrase = self.origins.get(str(sel["chosen"]))
            if not phrase or normalize_text(phrase) in said:
                continue
            if sel["mode"] == "field" and mentions(said, sel["value"]):
                continue
            template = self.rng.choice(SELECTION_CONTEXTS + CLARIFICATIONS)
            text = template.format(phrase=phrase)
            (trailing if template in CLARIFICATIONS else contexts).append(text)
            self.context_parts.append({"call": sel["call"], "text": text, "params": [sel["param"]], "selection": True})
            said += " " + normalize_text(phrase)
        self.asks = asks
        self.repeats = self._record_phrases()
        query = compose_query(self.rng, contexts, asks, register_of(self.builder), self.repeats,
                              trailing)
        return query, " ".join(sentence(a) for a in answers), facts

    def _context(self, index: int, step: _Step, needed: set[str], said: str, asked: list[Any]) -> dict[str, Any] | None:
        """The context sentence that hands over what step ``index`` needs from the user, leaving out what
        an earlier context sentence already said or a request will say (the dates of a stay, once): a
        template for just the new values, else a plain "I mean ..." for new records, else the full
        template, else (no template says them) a plain "I mean ..." for all of them. ``None`` when
        everything is said elsewhere."""
        templates = _context_templates(self.language, step.tool)
        if not templates:
            raise Rejected("no_context_phrasing", step.tool)
        fresh = {p for p in needed if not _said(said, step.args.get(p)) and step.args.get(p) not in asked}
        if not fresh:
            return None
        if fresh != needed:
            repeated = needed - fresh
            fitting = [t for t in templates if fresh <= slots(t) <= set(step.phrases) and not slots(t) & repeated]
            if fitting:
                template = self.rng.choice(fitting)
                return {"call": index, "text": fill(template, step.phrases), "params": sorted(slots(template) & needed)}
            named = self._naming(index, step, fresh)
            if named is not None:
                return named
        try:
            text = fill(self._template(templates, needed, step.phrases, step.tool), step.phrases)
        except Rejected:
            # no context sentence of the tool says these (a listing's parent record): the records by name
            named = self._naming(index, step, needed)
            if named is None:
                raise
            return named
        return {"call": index, "text": text, "params": sorted(needed)}

    def _naming(self, index: int, step: _Step, params: set[str]) -> dict[str, Any] | None:
        """A plain "I'm asking about ..." naming the records ``params`` of step ``index`` refer to; ``None``
        when one of them is no record the language can refer to."""
        refs = self.language.references
        if not all(self.builder.tools[step.tool].param_entity(p) in refs for p in params):
            return None
        phrase = join_phrases([step.phrases[p] for p in sorted(params)])
        return {"call": index, "text": self.rng.choice(SELECTION_CONTEXTS).format(phrase=phrase),
                "params": sorted(params)}

    def _drop_repeated_contexts(self, contexts: list[str], asks: list[str]) -> list[str]:
        """The context sentences less those whose every value the requests already say ("Their name is
        Dana Whitfield." before "Email Dana Whitfield ...")."""
        asked = normalize_text(" ".join(asks))
        kept = []
        for part in list(self.context_parts):
            values = [self.steps[part["call"]].args.get(p) for p in part["params"]]
            if values and all(isinstance(v, (str, int, float)) and not isinstance(v, bool) and mentions(asked, v)
                              for v in values):
                self.context_parts.remove(part)
            else:
                kept.append(part["text"])
        return kept

    def _record_phrases(self) -> dict[str, str]:
        """Phrases that name one record ("booking WS3MHA9K", "my stay in Lisbon") -> the record's noun."""
        out: dict[str, str] = {}
        for step in self.steps:
            spec = self.builder.tools[step.tool]
            for param, phrase in step.phrases.items():
                ref = self.language.references.get(spec.param_entity(param))
                value = step.args.get(param)
                if ref is not None and phrase and not isinstance(value, list) and " and " not in phrase:
                    out.setdefault(phrase, ref.noun)
                said = self.language.phrases.get(f"{step.tool}.{param}")
                if said is not None and phrase and value is not None:
                    out.setdefault(phrase, said(value)[1])
        return out

    def _said_by_goals(self, step: _Step, goals: set[int], aggregate_step: int | None) -> bool:
        """Whether every value this lookup needs from the user is also asked for by a goal step,
        so a separate context sentence would only repeat it."""
        goal_values = [
            self.steps[g].args.get(p) for g in goals if g != aggregate_step for p in self.steps[g].user_params
        ]
        return all(step.args[p] in goal_values for p in step.user_params)

    def _phrase_lists(self, members: list[int]) -> dict[str, list[str]]:
        """Per parameter, the distinct phrases the calls ``members`` of a parallel turn give it, in order."""
        lists: dict[str, list[str]] = {}
        for param in self.steps[members[0]].phrases:
            values = lists[param] = []
            for i in members:
                phrase = self.steps[i].phrases.get(param, "")
                if phrase not in values:
                    values.append(phrase)
        return lists

    def _worded(self, intent: Any, tool: str, needed: set[str], available: dict[str, str], many: bool = False) -> Any:
        """``intent`` (drawn among the tool's intents) when one of its requests says just what the user
        gives; else one of the tool's intents that has such a request, drawn (an update of the name alone,
        when the drawn intent also says the city): the calls have run, so the plan is rejected only when
        no request of the tool fits."""
        if self._fitting(intent, needed, available, many):
            return intent
        others = [other for other in self.language.intents[tool] if self._fitting(other, needed, available, many)]
        return self.rng.choice(others) if others else intent

    @staticmethod
    def _fitting(intent: Any, needed: set[str], available: dict[str, str], many: bool) -> bool:
        return _fits(intent.ask_many if many and intent.ask_many else intent.ask, needed, available)

    def _template(self, templates: tuple[str, ...], needed: set[str], available: dict[str, str], tool: str) -> str:
        have = available.keys()
        fitting = [t for t, names in _slotted(templates) if needed <= names and names <= have]
        if not fitting:
            raise Rejected("no_phrasing", f"{tool} with {sorted(needed)}")
        return self.rng.choice(fitting)

    def _answer(self, templates: tuple[str, ...], index: int, facts: list[dict[str, Any]], ask: str) -> str:
        """The answer to goal call ``index``; a list the request ``ask`` asks for is named in full."""
        call = self.calls[index]
        return self.composer.goal(templates, call.output, index, call.name, facts, asks_for_list(ask))

    def reasoning_inputs(self, op: str, index: int) -> list[tuple[str, str, list[Any]]]:
        """The lists of call ``index``'s output that aggregate ``op`` can run over (``(list_path, key,
        elements)``: two elements or more, numeric for all but a count), in a fixed order; none: rejected."""
        call = self.calls[index]
        options = []
        for out in self.graph.list_fields[call.name]:
            list_path, key = out.list_path, out.key
            elements = get_path(call.output, list_path)
            if not isinstance(elements, list) or len(elements) < 2:
                continue
            numeric = out.numeric and all(
                isinstance(e, dict) and isinstance(e.get(key), (int, float)) and not isinstance(e.get(key), bool)
                for e in elements
            )
            if op == "count" or numeric:
                options.append((list_path, key, elements))
        if not options:
            raise Rejected("no_reasoning_input", f"{op} over {call.name}")
        return sorted(options, key=lambda o: (o[0], o[1]))

    def _aggregate(self, op: str, index: int, facts: list[dict[str, Any]]) -> tuple[str, str]:
        call = self.calls[index]
        list_path, key, elements = self.rng.choice(self.reasoning_inputs(op, index))
        if op == "count" and _counts_what_was_given(call.arguments, elements):
            raise Rejected("count_of_given", f"{call.name}.{list_path}")
        plural, noun_ref = self._list_nouns(call.name, list_path)
        field_noun = self.language.noun_of_field(key)
        own = self._own_list(index)
        record = "" if own else self._record_phrase(index)  # "my bookings", not "my bookings for my profile"
        # the list of one record is said with it ("the emails for my contact at Northwind Analytics")
        items = f"{'my' if own else 'the'} {plural}" + (f" for {record}" if record else "")
        words = {"field": field_noun, "items": items, "plural": plural, "record": record,
                 "whose": "your" if own else "the", "whats": "what are" if plural_noun(field_noun) else "what's"}
        reasoning: dict[str, Any] = {"op": op, "call": index, "list_path": list_path, "field": key}
        money: dict[str, str] = {}
        if op == "count":
            result: Any = len(elements)
            words["value"] = str(result)
        elif op == "sum":
            result = round(sum(e[key] for e in elements), 2)
            money = self._money(call.output, list_path, key, list(range(len(elements))), result)
            words["value"] = money.get("said") or self._with_unit(result, key)
        else:
            values = [e[key] for e in elements]
            best = max(values) if op == "max" else min(values)
            if values.count(best) != 1:
                raise Rejected("reasoning_tie", f"{op} {key}")
            at = values.index(best)
            chosen = elements[at]
            label = self._label(chosen, noun_ref)
            result = best
            money = self._money(call.output, list_path, key, [at], result)
            words.update(value=money.get("said") or self._with_unit(best, key), label=label)
            facts.append({"value": label, "reasoning": len(self.reasoning)})
        reasoning["result"] = result
        if op == "count" and record:
            asks = RECORD_COUNT_ASKS
        else:
            asks = AGGREGATE_ASKS[op] + (OWN_COUNT_ASKS if op == "count" and own else ())
            if "total" in field_noun.split():  # never "the total booking total"
                asks = tuple(a for a in asks if "total {field}" not in a and "{field} of {items} in total" not in a)
        ask = self.rng.choice(asks).format(**words)
        if op == "count":
            one = noun_ref.noun if noun_ref is not None else singular(plural)
            answer, extra = self.composer.aggregate(op, words, result, (one, plural), own=own)
        else:
            answer, extra = self.composer.aggregate(op, words)
            extra = {**extra, **money}
        facts.append({"value": render(result), "reasoning": len(self.reasoning), **extra})
        self.reasoning.append(reasoning)
        return ask, answer

    def _money(self, output: Any, list_path: str, key: str, indexes: list[int], amount: Any) -> dict[str, str]:
        """The fact fields of an aggregate amount said with its currency (``form``, ``unit``: the currency's
        path in the output, ``said``), when ``key`` is an amount (:func:`covert.language.answers.is_amount`) and
        the elements ``indexes`` name one currency; ``{}`` for a field that is no amount, or amounts without
        a currency."""
        if not is_amount(self.language, key):
            return {}
        try:
            unit = aggregate_currency(output, list_path, key, indexes)
            return {"form": "money", "unit": unit, "said": say("money", amount, get_path(output, unit))}
        except Unspeakable:
            return {}

    def _with_unit(self, value: Any, key: str) -> str:
        """A number computed from field ``key``, with the unit the language gives the field ("60.08 kWh")."""
        unit = self.language.field_units.get(key)
        if not unit:
            return render(value)
        return f"{render(value)}{'' if unit == '%' else ' '}{unit}"

    def _record_phrase(self, index: int) -> str:
        """How the request names the one record call ``index`` is about ("my contact at Northwind
        Analytics", "the Hall Light"), or ``""`` for a call that is about no single record."""
        step = self.steps[index]
        spec = self.builder.tools[step.tool]
        own = set(self.identity.self_params) if self.identity is not None else set()
        for param, value in step.args.items():
            # who the user is names no record a list is of ("the number of slots for the same email address")
            if spec.param_entity(param) in self.language.references and not isinstance(value, list) \
                    and param not in own:
                return step.phrases.get(param, "")
        return ""

    def _own_list(self, index: int) -> bool:
        """Whether the list call ``index`` returned is the user's own records: it takes nothing but who
        the user is (their inbox, the bookings on their customer id), not a search or another record."""
        identity = self.identity
        own = set(identity.self_params) if identity is not None else set()
        if identity is not None:
            own.update(rule for rule in identity.owners.values() if isinstance(rule, str))
            own.add(identity.output_field)
        return all(key in own or key.endswith(("customer_id", "user_id")) for key in self.calls[index].arguments)

    def _list_nouns(self, tool: str, list_path: str) -> tuple[str, Any]:
        """The plural and reference of what a listed output holds: of the entities its elements carry, the
        one the list's own name says most of (``threatModelJobSummaries`` holds threat model jobs, though
        each names its threat model too); on a tie, not one the call is asked for, then the first."""
        name = list_path.rsplit(".", 1)[-1]
        refs = [(out.entity, self.language.references[out.entity]) for out in self.graph.outputs[tool]
                if out.path.startswith(list_path + "[]") and out.entity in self.language.references]
        if refs:
            said = _stems(name)
            # on a tie, not the record the call asks the list for (ListEnvironments' Items carry their
            # ApplicationId: the list holds environments, not applications)
            spec = self.builder.tools[tool]
            asked = {spec.param_entity(p) for p in spec.parameters.get("required", ())}
            _, ref = max(refs, key=lambda pair: (len(said & _stems(pair[1].noun)), pair[0] not in asked))
            return ref.plural, ref
        return self.language.field_nouns.get(name) or name.replace("_", " "), None

    def _label(self, element: dict[str, Any], ref: Any) -> str:
        """How an answer names a record: a name or title first, a date last ("The Ashgrove Hotel has the
        highest booking total", not "2026-03-29 has ...")."""
        if ref is not None:
            for name in sorted(ref.by_field, key=lambda n: (bool(_ISO_DAY.match(str(element.get(n)))),
                                                            "name" not in n and "title" not in n, n)):
                if isinstance(element.get(name), (str, int, float)):
                    return render(element[name])
        raise Rejected("no_label", "list element has no describing field")


def _counts_what_was_given(arguments: dict[str, Any], elements: list[Any]) -> bool:
    """Whether a list names nothing but the records the call was given in a list argument (and one more, the
    user: ``find_free_slots(email, person_ids=[Hugo])`` lists Fatima and Hugo): counting it asks the user how
    many people they named ("How many colleagues are there for the same email address?")."""
    given = [value for value in arguments.values() if isinstance(value, list) and 0 < len(value) >= len(elements) - 1]
    if not given:
        return False
    held = [{str(v) for v in e.values() if isinstance(v, (str, int))} for e in elements if isinstance(e, dict)]
    return any(all(any(str(one) in h for h in held) for one in value) for value in given)


def _quoted_each(template: str, phrases: dict[str, str], lists: dict[str, list[str]]) -> tuple[str, dict[str, str]]:
    """A request that quotes a slot (``with text "{Text}"``) filled by several values quotes each value
    (``with text "A" and "B"``), never the two joined inside one pair of quotes."""
    said = phrases
    for param, values in lists.items():
        quoted = f'"{{{param}}}"'
        if len(values) > 1 and quoted in template:
            template = template.replace(quoted, f"{{{param}}}")
            said = {**said, param: join_phrases([f'"{v}"' for v in values])}
    return template, said


@lru_cache(maxsize=4096)
def _stems(name: str) -> frozenset[str]:
    """The words of a name or noun (camelCase, snake_case or spaced), lower case, without a plural "s"."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return frozenset(w.lower().removesuffix("s") for w in re.split(r"[^A-Za-z0-9]+", spaced) if w)


def _varying_of(builder: Builder, tool: str, params: list[str]) -> str:
    """Of ``params`` (those the user gives a call of ``tool``), the one parallel calls of the tool differ in:
    the first that names a linked record, else the first that is no date or time, never one in which the
    user names themselves or one fixed per state; ``""`` when none."""
    identity = identity_of(builder)
    own = identity.self_params if identity is not None else ()
    fixed = builder.language.fixed  # one project or region per state: it never varies
    spec = builder.tools[tool]
    params = [p for p in params if p not in own and f"{tool}.{p}" not in fixed]
    for param in params:
        if spec.param_entity(param) in builder.language.references:
            return param
    # a date or a time bounds a range the calls share ("from X to Y"): it cannot be the one that varies
    params = [p for p in params if p not in ("since", "until", "before", "after")
              and not any(w in p for w in ("date", "time", "start", "end", "check_"))]
    return params[0] if params else ""


@cache
def never_varies(builder: Builder, tool: str) -> bool:
    """Whether no parameter of ``tool`` can be the one its parallel calls differ in (all name the user, are
    fixed per state, or are dates and times; or an optional one the user is never given a value for, which
    :meth:`Instantiator._wants_optional` needs: an enum or a sampler, and a slot of a request): a parallel
    turn keeps one call of it, the others all fail."""
    spec = builder.tools[tool]
    required = spec.parameters["required"]
    return not _varying_of(builder, tool, [p for p, schema in spec.parameters["properties"].items()
                                           if p in required or _givable(builder.language, tool, p, schema)])


def _givable(language: Any, tool: str, param: str, schema: dict[str, Any]) -> bool:
    """Whether the user can be given a value for the optional parameter ``param``: it has an enum or a
    sampler, and a request of the tool has a slot for it."""
    return ("enum" in schema or language.sampler(tool, param) is not None) and param in _phrased_slots(language, tool)


def _reject_unvarying_turn(builder: Builder, blueprint: Blueprint) -> None:
    """Reject at once a parallel plan that keeps fewer than two calls whatever is drawn: every call of a tool
    that :func:`never_varies` but its first fails (``no_parallel_param``), so it keeps one, and run() rejects
    a turn of one call as ``duplicate_parallel_call`` (as it would after making the first calls)."""
    counts: dict[str, int] = {}
    for tool in blueprint.steps:
        counts[tool] = counts.get(tool, 0) + 1
    if sum(1 if n > 1 and never_varies(builder, tool) else n for tool, n in counts.items()) < 2:
        raise Rejected("duplicate_parallel_call", blueprint.steps[0])


@cache
def _parameters(builder: Builder, tool: str) -> tuple[tuple[str, dict[str, Any], str, bool, bool, bool], ...]:
    """Per parameter of ``tool``: name, schema, entity, whether the language can refer to the entity
    (so an earlier output may supply it), whether it is a list, whether it is required."""
    spec = builder.tools[tool]
    required = spec.parameters["required"]
    out = []
    for param, schema in spec.parameters["properties"].items():
        entity = spec.param_entity(param)
        out.append((param, schema, entity, entity in builder.language.references, schema.get("type") == "array",
                    param in required))
    return tuple(out)


# (what, id(language), tool) -> (language, what was worked out for the tool): the language is kept, so
# its id is not reused while the entry lives
_PER_TOOL: dict[tuple[str, int, str], tuple[Any, Any]] = {}


def _of_tool(what: str, language: Any, tool: str, work_out: Any) -> Any:
    """``work_out(language, tool)``, worked out once per language and tool."""
    found = _PER_TOOL.get((what, id(language), tool))
    if found is not None and found[0] is language:
        return found[1]
    value = work_out(language, tool)
    if len(_PER_TOOL) >= 65536:
        _PER_TOOL.clear()
    _PER_TOOL[(what, id(language), tool)] = (language, value)
    return value


def _context_templates(language: Any, tool: str) -> tuple[str, ...]:
    """Every context template of ``tool``'s intents, in order."""
    return _of_tool("contexts", language, tool,
                    lambda lang, name: tuple(t for it in lang.intents[name] for t in it.context))


# id(templates) -> (templates, ((template, its slots), ...)): the tuple is kept, so an id is not reused
_SLOTTED: dict[int, tuple[tuple[str, ...], tuple[tuple[str, frozenset[str]], ...]]] = {}


def _slotted(templates: tuple[str, ...]) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each template of an intent's tuple with its :func:`slots` (computed once per tuple; the intents'
    tuples live as long as their builders)."""
    found = _SLOTTED.get(id(templates))
    if found is not None and found[0] is templates:
        return found[1]
    pairs = tuple((t, slots(t)) for t in templates)
    if len(_SLOTTED) >= 65536:
        _SLOTTED.clear()
    _SLOTTED[id(templates)] = (templates, pairs)
    return pairs


def _fits(templates: tuple[str, ...], needed: set[str], available: dict[str, str]) -> bool:
    """Whether one of ``templates`` says every ``needed`` value and nothing that is not ``available``."""
    have = available.keys()
    return any(needed <= names and names <= have for _, names in _slotted(templates))


def _phrased_slots(language: Any, tool: str) -> frozenset[str]:
    """Parameters that some ask or context template of ``tool`` can express."""
    return _of_tool("phrased", language, tool, lambda lang, name: frozenset().union(*_template_slots(lang, name)))


def _phrasing_needs(language: Any, tool: str) -> frozenset[str]:
    """Parameters that every ask and context template of ``tool`` names: a request of the tool cannot be
    worded without them (an imported create says the name or description it gives the new record), so
    the user always gives them."""
    return _of_tool("needs", language, tool,
                    lambda lang, name: frozenset.intersection(*_template_slots(lang, name) or [frozenset()]))


def _template_slots(language: Any, tool: str) -> list[frozenset[str]]:
    """The :func:`slots` of each ask and context template of ``tool``'s intents (worked out once per
    tuple of templates, as :func:`_fits` reads them)."""
    return [names for intent in language.intents.get(tool, ()) for templates in (intent.ask, intent.context)
            for _, names in _slotted(templates)]


@lru_cache(maxsize=256)
def make_task_id(builder: str, seed: int, index: int) -> str:
    """A stable task id: the builder name and a short hash of (builder, seed, index) (remembered for the
    few items in flight: every attempt of an item has its id)."""
    digest = hashlib.sha1(f"{builder}:{seed}:{index}".encode()).hexdigest()[:12]
    return f"{builder}-{digest}"


def _id_arguments(builder: Builder, tool: str, args: dict[str, Any]) -> set[Any]:
    """The id values a call acts on: arguments of ``*_id``/``*_number`` parameters or of linked entities."""
    spec = builder.tools[tool]
    refs = builder.language.references
    out: set[Any] = set()
    for key, value in args.items():
        if key.endswith(("_id", "_ids", "_number")) or spec.param_entity(key) in refs:
            out.update(v for v in (value if isinstance(value, list) else [value]) if isinstance(v, (str, int)))
    return out


def group_calls(blueprint: Blueprint, steps: list[str], bindings: list[set[int]], writes: list[bool]) -> list[list[int]]:
    """Group calls into assistant turns: parallel categories in one turn, a fan-out's lookup and then its
    reads together, otherwise consecutive reads that do not depend on each other (a call never shares
    a turn with a call whose output it uses)."""
    if blueprint.method == "parallel":
        return [list(range(len(steps)))]
    if blueprint.method == "fanout":
        return [[0], list(range(1, len(steps)))]
    groups: list[list[int]] = []
    for i in range(len(steps)):
        current = groups[-1] if groups else None
        if (
            current is not None and not writes[i] and not any(writes[j] for j in current)
            and not (bindings[i] & set(current))
        ):
            current.append(i)
        else:
            groups.append([i])
    return groups


def _reject_unused_reads(builder: Builder, inst: Instantiator, scalars: list[set[Any]]) -> None:
    """Reject at once a plan with a read that feeds nothing (validation would reject the row as a
    redundant step after its query and answer were made): the same test without the query, so it
    rejects only what validation rejects."""
    blueprint = inst.blueprint
    used = set(blueprint.goals) | {s["source_call"] for s in inst.selections}
    if blueprint.reasoning:
        used.add(blueprint.reasoning[1])
    calls = [{"name": c.name, "arguments": c.arguments} for c in inst.calls]
    names = [c["name"] for c in calls]
    for j, call in enumerate(calls):
        if j in used or builder.tools[call["name"]].writes or required_call(builder, names, j):
            continue
        if unused_read(builder, calls, scalars, j):
            raise Rejected("redundant_step", f"nothing uses the output of {call['name']}")


def _reject_broken_rules(builder: Builder, inst: Instantiator, groups: list[list[int]], scalars: list[set[Any]]) -> None:
    """Reject at once, before the query and answer are made, a plan that validation rejects whatever they
    say: a sequential task whose later turns take nothing from an earlier turn's output
    (``category_sequential``, by its test without the query), a parallel task whose calls take more than
    one turn (``category_parallel_turns``: one that must identify first is sequential), or one that identifies the user twice
    (``repeated_identification``, as :func:`covert.env.policy.violations` counts identifications)."""
    identity = inst.identity
    if identity is not None and identity.table is None:
        found = next(self_as_other(identity, [{"name": c.name, "arguments": c.arguments} for c in inst.calls],
                                   [c.output for c in inst.calls]), None)
        if found is not None:
            raise Rejected(*found)
    if identity is not None and identity.table is not None and identity.tools:
        lookups = [c.name for c in inst.calls if c.name in identity.tools
                   and not (isinstance(c.output, dict) and "error" in c.output)]
        if len(lookups) > 1:
            raise Rejected("repeated_identification", ", ".join(lookups))
    undone = undoes_earlier_write([(c.name, c.arguments, builder.tools[c.name].writes) for c in inst.calls])
    if undone:
        raise Rejected("undone_write", undone)
    off_target = inst.selections and off_target_lookup(
        [{"name": c.name, "arguments": c.arguments} for c in inst.calls], [c.output for c in inst.calls],
        inst.selections, [builder.tools[c.name].writes for c in inst.calls])
    if off_target:
        raise Rejected("off_target_lookup", off_target)
    if inst.blueprint.category in ("parallel", "parallel_multiple") and len(groups) > 1:
        raise Rejected("category_parallel_turns", f"{len(groups)} turns")
    if inst.blueprint.category == "sequential":
        turns = [[{"name": inst.calls[i].name, "arguments": inst.calls[i].arguments} for i in g] for g in groups]
        if not takes_from_earlier_turn(builder, turns, scalars):
            raise Rejected("category_sequential", "no call takes a value from an earlier turn's output")


def _reject_order_dependent(builder: Builder, inst: Instantiator, groups: list[list[int]], initial: State) -> None:
    """Reject at once, before the query and answer are made, a plan whose first turn mixes reads and writes
    and whose reads give other outputs when the turn runs in reverse (``parallel_order_dependent``, by
    validation's own test: :func:`covert.validation.order_dependent`, from the initial state)."""
    if not groups:
        return
    turn = [{"name": inst.calls[i].name, "arguments": inst.calls[i].arguments} for i in groups[0]]
    env_cls = builder.environment
    if mixed_turn(env_cls, turn) and order_dependent(env_cls, turn, [inst.calls[i].output for i in groups[0]], initial):
        raise Rejected("parallel_order_dependent", ", ".join(c["name"] for c in turn)[:200])


def instantiate(builder: Builder, blueprint: Blueprint, state: State, rng: random.Random, seed: int,
                index: int) -> Task:
    """Execute and realize ``blueprint``; raises :class:`Rejected` with a reason when it cannot."""
    task_id = make_task_id(builder.name, seed, index)
    if blueprint.category == "irrelevance":
        register = register_of(builder)
        query = compose_query(rng, [], [vary_request(irrelevant_request(builder.language, state, rng), rng)], register)
        answer = decline(builder.language.scope, rng)
        return Task(
            task_id=task_id, builder=builder.name, builder_version=builder.version, category="irrelevance",
            method="irrelevance", seed=seed, index=index, tools=list(builder.tools), initial_state=state.to_dict(),
            query=query, calls=[], groups=[], answer=answer, facts=[], selections=[], reasoning=[],
            final_state_hash=state.hash(), state_diff=[], behaviour="decline", difficulty="easy",
            system_prompt=builder.system_prompt, dialogue={"asks": [query], "contexts": []},
        )
    if not blueprint.steps:
        raise Rejected("empty_blueprint", blueprint.method)
    if blueprint.category in ("sequential", "state_changing") and len(blueprint.steps) < 2:
        raise Rejected("blueprint_too_short", blueprint.method)
    if blueprint.method == "parallel":
        _reject_unvarying_turn(builder, blueprint)
    inst = Instantiator(builder, blueprint, state, rng)
    inst.run()
    blueprint = inst.blueprint
    if blueprint.reasoning:  # what the aggregate runs over is known from the outputs: checked before the query
        inst.reasoning_inputs(*blueprint.reasoning)
    scalars = [scalar_set(c.output) for c in inst.calls[:-1]]  # the last output feeds no later call
    _reject_unused_reads(builder, inst, [*scalars, set()])
    bindings = [{s["source_call"] for s in inst.selections if s["call"] == i} for i in range(len(inst.calls))]
    for i, call in enumerate(inst.calls):
        items = [v for value in call.arguments.values() for v in (value if isinstance(value, list) else [value])]
        used = [v for v in items if isinstance(v, str) and len(v) >= 3]
        bindings[i].update(j for j in range(i) if any(v in scalars[j] for v in used))
        bindings[i] |= inst.steps[i].sources
    identity = inst.identity
    if identity is not None and identity.tools:
        # an identification never shares a turn with a call that acts after it: it has to come first
        names = [c.name for c in inst.calls]
        for i, name in enumerate(names):
            if acts(builder, identity, name):
                bindings[i].update(j for j in range(i) if names[j] in identity.tools)
    writes = [builder.tools[c.name].writes for c in inst.calls]
    groups = group_calls(blueprint, blueprint.steps, bindings, writes)
    _reject_broken_rules(builder, inst, groups, scalars)
    _reject_order_dependent(builder, inst, groups, state)
    query, answer, facts = inst.realize()
    final = inst.env.state
    calls_n = len(inst.calls)
    hard = calls_n >= 4 or inst.reasoning or blueprint.method == "merge"
    difficulty = "hard" if hard else ("easy" if calls_n == 1 and not inst.selections else "medium")
    offered = list(dict.fromkeys(blueprint.steps)) if blueprint.category in ("simple", "parallel") else list(builder.tools)
    return Task(
        task_id=task_id, builder=builder.name, builder_version=builder.version, category=blueprint.category,
        method=blueprint.method, seed=seed, index=index, tools=offered, initial_state=state.to_dict(), query=query,
        calls=inst.calls, groups=groups, answer=answer, facts=facts, selections=inst.selections,
        reasoning=inst.reasoning, final_state_hash=final.hash(),
        state_diff=[c.to_dict() for c in state.diff(final)], behaviour="tool_use", difficulty=difficulty,
        system_prompt=row_prompt(builder, [[inst.calls[i].name for i in g] for g in groups], inst.principal, state),
        dialogue={"asks": inst.asks, "contexts": inst.context_parts, "repeats": inst.repeats},
        user_inputs=[{"call": i, "param": p, "value": step.args[p]} for i, step in enumerate(inst.steps)
                     for p in step.user_params],
    )


def _accepted(test: Any, state: State, table: str, keys: list[Any]) -> set[Any]:
    """Those of ``keys`` whose record of ``table`` ``test(state, record)`` accepts (a key with no record is
    kept: nothing says the call cannot act on it)."""
    out = set()
    for key in keys:
        record = state.get(table, key) if isinstance(key, str) else None
        if record is None or test(state, record):
            out.add(key)
    return out


def _said(text: str, value: Any) -> bool:
    """Whether ``value`` (a scalar, or every item of a list) is already in the normalized ``text``."""
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(isinstance(v, (str, int, float)) and not isinstance(v, bool) and mentions(text, v)
                               for v in items)


def _strings(value: Any) -> list[str]:
    """The string values in ``value`` (a scalar or a list)."""
    items = value if isinstance(value, list) else [value]
    return [v for v in items if isinstance(v, str)]
