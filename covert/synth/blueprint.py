"""Blueprints: which tools a task calls, in which order, and which calls are its goals.

Sampling follows AutoForge: random walks on the tool graph, topology-aware backward sampling from a
target tool, merging of two sequences with redundant lookups removed, and reasoning nodes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cache, lru_cache

from covert.env import Builder
from covert.env.policy import identified_first, identity_of
from covert.errors import Rejected
from covert.synth.graph import ToolGraph, tool_graph

REASONING_OPS = ("sum", "count", "max", "min")


@dataclass
class Blueprint:
    """A plan for one task.

    Attributes:
        category: The task category.
        method: How it was sampled (single, walk, backward, merge, parallel, fanout, irrelevance).
        steps: Tool names in call order (parallel categories repeat a tool).
        goals: Indexes of the steps the user asks for; the others are lookups on the way.
        reasoning: An aggregate over a list output asked for instead of a goal step's own answer:
            ``(op, step)``; the field is chosen at instantiation.
        superlative: Probability that an element is singled out by a max/min reasoning node.
    """

    category: str
    method: str
    steps: list[str]
    goals: list[int]
    reasoning: tuple[str, int] | None = None
    superlative: float = 0.25
    notes: dict[str, str] = field(default_factory=dict)


@cache
def user_suppliable(builder: Builder, tool: str) -> bool:
    """Whether a user alone can supply every required parameter of ``tool``."""
    spec = builder.tools[tool]
    language = builder.language
    for param in spec.parameters["required"]:
        entity = spec.param_entity(param)
        ref = language.references.get(entity)
        if ref is not None and not ref.user_knows_id:
            return False
    return True


@cache
def _identity_lookup(builder: Builder, tool: str) -> bool:
    """A lookup that turns what the user says about themselves into an internal id (find my account):
    asking it several times in parallel makes no sense for one user."""
    graph = tool_graph(builder)
    refs = builder.language.references
    linked_out = graph.produced_entities(tool) & set(refs)
    spec = builder.tools[tool]
    consumes_linked = any(spec.param_entity(p) in refs for p in spec.parameters["properties"])
    return bool(linked_out) and not consumes_linked and all(not refs[e].user_knows_id for e in linked_out)


def _same_records_read_and_written(builder: Builder, graph: ToolGraph, steps: list[str]) -> None:
    """An API without a signed-in user (an imported one) whose turn both writes and reads records of one
    kind (creates a dataset and lists the datasets) is order-dependent: the read sees the write or not.
    Rejected here, as validation would (``parallel_order_dependent``); a domain with a user keeps its plans."""
    if identity_of(builder) is not None:
        return
    refs = graph.link_entities or set()
    written = set().union(*(graph.produced_entities(t) for t in steps if builder.tools[t].writes)) & refs
    if written and any(graph.produced_entities(t) & written for t in steps if not builder.tools[t].writes):
        raise Rejected("parallel_order_dependent", ", ".join(steps))


@cache
def singles_out(builder: Builder, producer: str, entity: str) -> bool:
    """Whether a record of ``entity`` that ``producer`` returns can be singled out: it returns one record,
    or the records say what tells them apart (a name, a highest or lowest amount), or they are the
    signed-in user's own (a person has one or two: "my dispute"). An imported API's list of records
    nothing tells apart (ids only) cannot feed a later call."""
    ref = builder.language.references.get(entity)
    if ref is None or ref.by_field or ref.superlative or identity_of(builder) is not None:
        return True
    return any(not out.in_list for out in tool_graph(builder).by_entity[producer].get(entity, ()))


def backward(builder: Builder, target: str, rng: random.Random, graph: ToolGraph | None = None,
             lookup_known: float = 0.5) -> list[str]:
    """Tools needed to call ``target``: producers of its linked inputs first (topological order).

    Ids the user cannot know always get a producer; ids the user could quote get one with
    probability ``lookup_known`` (so some tasks describe the record instead of quoting its id).
    """
    graph = graph or tool_graph(builder)
    order: list[str] = []
    produced: set[str] = set()

    def resolve(tool: str, depth: int) -> None:
        spec = builder.tools[tool]
        for param in spec.parameters["required"]:
            entity = spec.param_entity(param)
            ref = builder.language.references.get(entity)
            if ref is None or entity in produced:
                continue
            if ref.user_knows_id and rng.random() >= lookup_known:
                continue
            found = [p for p in graph.producers(entity) if p not in order and p != tool]
            candidates = [p for p in found if singles_out(builder, p, entity)]
            if found and not candidates and not ref.user_knows_id:
                # only lists of records nothing tells apart give this id: no request can lead to one
                raise Rejected("no_unique_descriptor", f"{entity} for {tool}")
            if not candidates or depth > 5:
                continue
            producer = rng.choice(candidates)
            resolve(producer, depth + 1)
            produced.update(graph.produced_entities(producer))
        if tool not in order:
            order.append(tool)

    resolve(target, 0)
    return [order[i] for i in _unrelayed(builder, order, {len(order) - 1})]


@cache
def _identity_entities(builder: Builder) -> frozenset[str]:
    """The entities that name the person a task is about (``guest_id``): one value in any task."""
    identity = identity_of(builder)
    if identity is None or identity.table is None:
        return frozenset()
    return frozenset(e for e, t in builder.language.entity_tables.items() if t == identity.table)


def _relays_identity(builder: Builder, tool: str, before: list[str], after: list[str]) -> bool:
    """Whether a read ``tool`` gives the steps ``after`` it nothing but the user's own id, which a step
    ``before`` it already returned (the user has one id: a booking's details read only for its guest id
    leave the booking unused, and validation rejects the row as redundant)."""
    person = _identity_entities(builder)
    if not person or builder.tools[tool].writes or not tool_graph(builder).produced_entities(tool) & person:
        return False
    return _relays(builder, tool, tuple(before), tuple(after))


@lru_cache(maxsize=1 << 14)
def _relays(builder: Builder, tool: str, before: tuple[str, ...], after: tuple[str, ...]) -> bool:
    graph = tool_graph(builder)
    needed = set().union(*(_required_entities(builder, t) for t in after))
    passed = graph.produced_entities(tool) & needed & builder.language.references.keys()
    return bool(passed) and passed <= _identity_entities(builder) and any(
        passed & graph.produced_entities(t) for t in before)


@cache
def _required_entities(builder: Builder, tool: str) -> frozenset[str]:
    """The entities of ``tool``'s required parameters."""
    spec = builder.tools[tool]
    return frozenset(spec.param_entity(p) for p in spec.parameters["required"])


def _unrelayed(builder: Builder, steps: list[str], keep: set[int]) -> list[int]:
    """The indexes of ``steps`` kept when the lookups that only relay the user's id are dropped (see
    :func:`_relays_identity`; never those in ``keep``: the goals)."""
    kept = list(range(len(steps)))
    pruned = True
    while pruned:
        pruned = False
        for position, i in enumerate(kept):
            if i in keep:
                continue
            before, after = [steps[k] for k in kept[:position]], [steps[k] for k in kept[position + 1:]]
            if _relays_identity(builder, steps[i], before, after):
                del kept[position]
                pruned = True
                break
    return kept


def random_walk(builder: Builder, rng: random.Random, length: int, graph: ToolGraph | None = None) -> list[str]:
    """A read-only walk that starts at a tool a user can call alone and follows producer edges."""
    graph = graph or tool_graph(builder)
    starts = [t for t, s in builder.tools.items() if not s.writes and user_suppliable(builder, t)]
    if not starts:
        return []
    walk = [rng.choice(starts)]
    while len(walk) < length:
        # a step after one that only hands on what it was given (an order's details, then tracking that
        # order) leaves the middle step unused: validation rejects it as redundant
        options = [t for t in graph.successors(walk[-1], fresh=True) if t not in walk and not builder.tools[t].writes
                   and not _relays_identity(builder, walk[-1], walk[:-1], [t])]
        if not options:
            break
        walk.append(rng.choice(options))
    return walk


def merge(first: list[str], second: list[str], graph: ToolGraph) -> list[str]:
    """Concatenate two sequences, dropping lookups of the second whose outputs the first already has."""
    merged = list(first)
    have: set[str] = set()
    for tool in first:
        have |= graph.produced_entities(tool) & (graph.link_entities or set())
    for tool in second:
        if tool in merged:
            continue
        spec = graph.tools[tool]
        gives = graph.produced_entities(tool) & (graph.link_entities or set())
        if not spec.writes and gives and gives <= have:
            continue
        merged.append(tool)
        have |= gives
    return merged


@dataclass(frozen=True)
class _Catalog:
    """The tools of one builder, sorted by the roles blueprints give them (computed once per builder)."""

    simple_ok: list[str]  # a user alone can supply every required parameter
    repeatable: list[str]  # worth calling several times in parallel
    linked: list[str]  # reads with a required linked parameter that some tool produces
    writes: list[str]
    goals: list[str]  # simple_ok tools a user can ask for (the goals of single-turn tasks)


def askable(builder: Builder, tool: str) -> bool:
    """Whether a user can ask for ``tool``'s result: some intent of it has a request template. A tool
    the language only mentions as context (a lookup on the way) is never a task's goal."""
    return any(intent.ask for intent in builder.language.intents.get(tool, ()))


def _goals(builder: Builder, tools: list[str]) -> list[str]:
    """The askable ones of ``tools`` (all of them when none is, so a plan can still be drawn)."""
    return [t for t in tools if askable(builder, t)] or tools


@cache
def _catalog(builder: Builder) -> _Catalog:
    graph = tool_graph(builder)
    tools = builder.tools
    simple_ok = [t for t in tools if user_suppliable(builder, t)]
    goals = _goals(builder, simple_ok)
    fixed = builder.language.fixed
    varies = [t for t in goals if not fixed or not all(f"{t}.{p}" in fixed for p in tools[t].parameters["required"])]
    repeatable = [
        t for t in varies
        if t not in builder.language.values and tools[t].parameters["required"] and not _identity_lookup(builder, t)
    ] or varies
    reads = [t for t, s in tools.items() if not s.writes]
    linked = [t for t in reads if any(
        graph.producers(tools[t].param_entity(p)) for p in tools[t].parameters["required"]
        if tools[t].param_entity(p) in builder.language.references
    )]
    writes = [t for t, s in tools.items() if s.writes]
    return _Catalog(simple_ok, repeatable, _goals(builder, linked), _goals(builder, writes), goals)


@cache
def _fan_outs(builder: Builder) -> dict[str, tuple[str, ...]]:
    """Per lookup a user can call alone: the reads that need nothing but what it returns (and what a
    user can say), so that two of them can run together in the turn after it."""
    graph = tool_graph(builder)
    refs = builder.language.references
    out: dict[str, tuple[str, ...]] = {}
    for lookup in _catalog(builder).simple_ok:
        if builder.tools[lookup].writes:
            continue
        gives = graph.produced_entities(lookup) & set(refs)
        members = []
        for tool, spec in builder.tools.items():
            if tool == lookup or spec.writes:
                continue
            needs = {spec.param_entity(p) for p in spec.parameters["required"]} & set(refs)
            if needs and needs <= gives and askable(builder, tool):
                members.append(tool)
        if len(members) >= 2:
            out[lookup] = tuple(members)
    return out


def fan_out(builder: Builder, rng: random.Random, target: str | None = None) -> Blueprint | None:
    """A parallel_multiple plan for a builder with too few tools a user can call alone: one lookup, then
    two or three different reads on what it returned, together in the next turn (``None`` if the tool
    graph has no such lookup)."""
    options = _fan_outs(builder)
    if not options:
        return None
    lookups = sorted(options)
    lookup = next((t for t in lookups if target in options[t]), None) or rng.choice(lookups)
    members = list(options[lookup])
    head = [target] if target in members else []
    rest = [t for t in members if t not in head]
    picks = head + rng.sample(rest, min(len(rest), rng.randint(2, 3) - len(head)))
    return Blueprint("parallel_multiple", "fanout", [lookup, *picks], list(range(1, len(picks) + 1)))


def identify_first(builder: Builder, blueprint: Blueprint, rng: random.Random) -> Blueprint:
    """The blueprint with an identification lookup put first when the domain's policy asks for one and
    no step identifies the user before the first step that acts for them (multi-step categories only:
    single-call rows say in their system prompt that the user is signed in)."""
    identity = identity_of(builder)
    if identity is None or not identity.tools or identified_first(builder, identity, [[t] for t in blueprint.steps]):
        return blueprint
    tools = [t for t in identity.tools if t in builder.tools]
    if not tools:
        return blueprint
    steps = [rng.choice(tools), *blueprint.steps]
    goals = {g + 1 for g in blueprint.goals} | ({blueprint.reasoning[1] + 1} if blueprint.reasoning else set())
    # the identification may leave a lookup that found the user's id for nothing
    kept = _unrelayed(builder, steps, goals | {0})
    where = {i: k for k, i in enumerate(kept)}
    reasoning = (blueprint.reasoning[0], where[blueprint.reasoning[1] + 1]) if blueprint.reasoning else None
    return Blueprint(blueprint.category, blueprint.method, [steps[i] for i in kept],
                     [where[g + 1] for g in blueprint.goals], reasoning=reasoning, superlative=blueprint.superlative,
                     notes={**blueprint.notes, "identified": "prepended"})


MOST_PARALLEL_CALLS = 4


@cache
def most_parallel_calls(builder: Builder, tool: str) -> int:
    """How many calls of ``tool`` one parallel turn may make (2 to :data:`MOST_PARALLEL_CALLS`): no more
    than the answer frames of its every intent, since each result of the turn is told in a frame of its own
    (a turn with more results than frames could only repeat one, and is rejected)."""
    frames = [len(intent.answer) for intent in builder.language.intents.get(tool, ())]
    return max(2, min([MOST_PARALLEL_CALLS, *frames]))


def parallel_tools(builder: Builder) -> list[str]:
    """The tools a parallel task may call several times: repeatable ones, except the identification
    lookups (the same identification for several people at once is two identities in one conversation)."""
    identity = identity_of(builder)
    return [t for t in _catalog(builder).repeatable if identity is None or t not in identity.tools]


@cache
def can_make(builder: Builder, category: str) -> bool:
    """Whether ``builder`` has tasks of ``category`` at all (the planner draws another category if not;
    a read-only imported API has no state-changing tasks; a single call is the goal of simple and
    multiple tasks, so a user has to be able to ask for it)."""
    if category == "state_changing":
        return bool(_catalog(builder).writes)
    if category in ("simple", "multiple"):
        return any(askable(builder, t) for t in _catalog(builder).goals)
    if category == "parallel":
        return any(askable(builder, t) for t in parallel_tools(builder))
    return True


def sample_blueprint(builder: Builder, category: str, rng: random.Random, target: str | None = None) -> Blueprint:
    """A blueprint of ``category``; ``target`` (a tool) steers which tool the task is about."""
    blueprint = _sample_blueprint(builder, category, rng, target)
    if category in ("sequential", "state_changing"):
        return identify_first(builder, blueprint, rng)
    return blueprint


def _sample_blueprint(builder: Builder, category: str, rng: random.Random, target: str | None) -> Blueprint:
    graph = tool_graph(builder)
    catalog = _catalog(builder)
    simple_ok, repeatable = catalog.goals, catalog.repeatable  # every step of a single-turn task is a goal
    if category == "irrelevance":
        return Blueprint(category, "irrelevance", [], [])
    if category in ("simple", "multiple"):
        tool = target if target in simple_ok else rng.choice(simple_ok)
        return Blueprint(category, "single", [tool], [0])
    if category == "parallel":
        allowed = parallel_tools(builder)
        if not allowed:
            raise Rejected("no_parallel_tool", builder.name)
        tool = target if target in allowed else rng.choice(allowed)
        n = rng.randint(2, most_parallel_calls(builder, tool))
        return Blueprint(category, "parallel", [tool] * n, list(range(n)))
    if category == "parallel_multiple":
        # two tools or more in one turn: without the target, two others are drawn
        pool = [t for t in simple_ok if t != target]
        head = [target] if target in simple_ok else []
        picks = head + rng.sample(pool, min(len(pool), rng.randint(1, 2) + (0 if head else 1)))
        if len(picks) < 2:
            fan = fan_out(builder, rng, target)
            if fan is not None:
                return fan
        steps: list[str] = []
        for tool in picks:
            steps.extend([tool] * (rng.choice((1, 1, 2)) if tool in repeatable else 1))
        rng.shuffle(steps)
        _same_records_read_and_written(builder, graph, steps)
        return Blueprint(category, "parallel", steps, list(range(len(steps))))
    if category == "sequential":
        linked = catalog.linked
        if linked and rng.random() < 0.6:
            goal = target if target in linked else rng.choice(linked)
            steps = backward(builder, goal, rng, graph, lookup_known=1.0)
            if len(steps) < 2:
                goal = rng.choice(linked)
                steps = backward(builder, goal, rng, graph, lookup_known=1.0)
            method = "backward"
        else:
            steps = random_walk(builder, rng, rng.randint(2, 5), graph)
            method = "walk"
        reasoning = None
        if steps and rng.random() < 0.35:
            lists = graph.list_fields[steps[-1]]
            numeric = [f for f in lists if f.numeric]
            ops = [op for op in REASONING_OPS if (numeric if op != "count" else lists)]
            if ops:
                reasoning = (rng.choice(ops), len(steps) - 1)
        return Blueprint(category, method, steps, [len(steps) - 1], reasoning=reasoning)
    if category == "state_changing":
        writes = catalog.writes
        goal = target if target in writes else rng.choice(writes)
        steps = backward(builder, goal, rng, graph, lookup_known=0.8)
        for _ in range(3):
            if len(steps) >= 2:
                break
            goal = rng.choice(writes)
            steps = backward(builder, goal, rng, graph, lookup_known=1.0)
        goals = [len(steps) - 1]
        method = "backward"
        if rng.random() < 0.3:
            other = rng.choice(writes)
            second = backward(builder, other, rng, graph)
            merged = merge(steps, second, graph)
            if other not in steps and len(merged) <= 8:
                steps = merged
                goals = [i for i, t in enumerate(steps) if t in (goal, other)]
                method = "merge"
        return Blueprint(category, method, steps, goals)
    raise ValueError(f"unknown category {category!r}")
