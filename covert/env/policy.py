"""Who the user is, and what their records are: the identification part of a domain's policy.

A builder whose system prompt asks the assistant to identify the user before acting declares an
:class:`Identity` on its language. Synthesis uses it to keep every task about one person (value samplers
see only that person's records, see :func:`principal_view`) and to give each row a system prompt that
states what the row's trajectory does: the builder's requirement when an identification call comes
first, otherwise a "signed in as" sentence (:func:`row_prompt`). Validation uses it to check that a row
obeys its own system prompt (:func:`violation`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from itertools import accumulate
from typing import Any

from covert.env import State

# An owner rule: the field of a record that holds its owner's id, ``(field, table)`` to follow that
# field to a record of ``table`` and take its owner, or a function of (tables, record).
OwnerRule = str | tuple[str, str] | Callable[[Any, dict[str, Any]], Any]


@dataclass(frozen=True)
class Identity:
    """How a domain identifies its user.

    Attributes:
        table: The state table of the people the assistant serves (``None``: the user says who they are
            in every call, as a calendar user does with their own email).
        tools: The lookups that identify the user from what they say (email, membership number, ...).
        output_field: The field of an identification lookup's output that names the person.
        match_field: The field of a ``table`` record that ``output_field`` holds (``""``: the record id).
        owners: Per owned table, how to find a record's owner (:data:`OwnerRule`).
        self_params: Parameters in which the user names themselves: one task uses one value for each.
        requirement: The sentence of the system prompt that demands identification before acting.
        signed_in: The sentence that replaces ``requirement`` when the row's user is already signed in,
            filled with the fields of the person's record.
    """

    table: str | None
    tools: tuple[str, ...] = ()
    output_field: str = ""
    match_field: str = ""
    owners: dict[str, OwnerRule] = field(default_factory=dict)
    self_params: tuple[str, ...] = ()
    requirement: str = ""
    signed_in: str = ""


def identity_of(builder: Any) -> Identity | None:
    """The builder's :class:`Identity`, if its language declares one."""
    return getattr(builder.language, "identity", None)


Tables = State | Mapping[str, Any]


def _get(tables: Tables, table: str, key: Any) -> dict[str, Any] | None:
    if not isinstance(key, str):
        return None
    if isinstance(tables, State):
        return tables.get(table, key)
    record = tables.get(table, {}).get(key)
    return record if isinstance(record, dict) else None


def _records(tables: Tables, table: str) -> list[tuple[str, dict[str, Any]]]:
    if isinstance(tables, State):
        return list(tables.records(table))
    return [(k, r) for k, r in tables.get(table, {}).items() if isinstance(r, dict)]


def owner_of(identity: Identity, tables: Tables, table: str, key: Any, depth: int = 0) -> Any:
    """Who owns record ``key`` of ``table``: a person's id, a set of ids (records several people
    share), or ``None`` (no such record, or nobody owns it)."""
    record = _get(tables, table, key)
    if record is None or depth > 4 or identity.table is None:
        return None
    if table == identity.table:
        return key
    rule = identity.owners.get(table)
    if rule is None:
        return None
    if isinstance(rule, str):
        return record.get(rule)
    if isinstance(rule, tuple):
        return owner_of(identity, tables, rule[1], record.get(rule[0]), depth + 1)
    return rule(tables, record)


def listed_in(table: str, list_field: str, key_field: str) -> Callable[[Tables, dict[str, Any]], frozenset[str]]:
    """An owner rule for records that people list by id (``accounts.home_ids`` lists homes): the
    people of ``table`` whose ``list_field`` holds the record's ``key_field``."""

    def owners(tables: Tables, record: dict[str, Any]) -> frozenset[str]:
        key = record.get(key_field)
        return frozenset(k for k, r in _records(tables, table) if key in (r.get(list_field) or ()))

    return owners


def owned_by(owner: Any, person: Any) -> bool:
    """Whether an :func:`owner_of` result lets ``person`` act on the record (unowned records: yes)."""
    if owner is None:
        return True
    if isinstance(owner, (set, frozenset, list, tuple)):
        return person in owner
    return owner == person


_CACHE_SIZE = 256
_OWNERSHIP: OrderedDict[tuple[int, str], dict[tuple[str, str], Any]] = OrderedDict()
_VIEWS: OrderedDict[tuple[int, str, str], State] = OrderedDict()


def _remember(cache: OrderedDict, key: Any, value: Any) -> Any:
    cache[key] = value
    if len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)
    return value


def ownership(identity: Identity, state: State) -> dict[tuple[str, str], Any]:
    """:func:`owner_of` of every record of the tables ``identity`` rules, by ``(table, key)``; cached by the
    state's content hash (tasks drawn on one shared state, and reads that change nothing, reuse it)."""
    key = (id(identity), state.hash())
    found = _OWNERSHIP.get(key)
    if found is not None:
        _OWNERSHIP.move_to_end(key)
        return found
    owned = [t for t in dict.fromkeys((identity.table, *identity.owners)) if t]
    changed = state.changed_keys()
    if changed and not any(callable(rule) for rule in identity.owners.values()):
        # a state changed by a few writes: its stored state's map with the records whose owner may differ redone
        found = _updated(identity, state, ownership(identity, state.stored()), set(owned), changed)
    else:
        found = {(table, k): owner_of(identity, state, table, k) for table in owned for k, _ in _records(state, table)}
    return _remember(_OWNERSHIP, key, found)


def _updated(identity: Identity, state: State, stored: dict[tuple[str, str], Any], owned: set[str],
             changed: dict[str, list[str]]) -> dict[tuple[str, str], Any]:
    """The :func:`ownership` of ``state`` from that of its stored state (``stored``): redone for the
    changed records and for every record whose owner rule follows a field to one of them (field and
    table rules only, whose owners depend on nothing else)."""
    result = dict(stored)
    for table, k in _dirty(identity, state, changed):
        if table not in owned:
            continue
        if state.get(table, k) is None:
            result.pop((table, k), None)
        else:
            result[(table, k)] = owner_of(identity, state, table, k)
    return result


def _dirty(identity: Identity, state: State, changed: dict[str, list[str]]) -> set[tuple[str, str]]:
    """The records of ``state`` whose owner may differ from its stored state's: the ``changed`` ones and
    every record whose owner rule follows a field to one of them (field and table rules only)."""
    dirty = {(table, k) for table, keys in changed.items() for k in keys}
    follows = [(table, rule) for table, rule in identity.owners.items() if isinstance(rule, tuple)]
    grew = True
    while grew:  # chains of rules (energy -> devices -> homes) take a pass per link
        grew = False
        for table, (field_name, target) in follows:
            targets = {k for t, k in dirty if t == target}
            if not targets:
                continue
            for k, record in state.records(table):
                if (table, k) not in dirty and record.get(field_name) in targets:
                    dirty.add((table, k))
                    grew = True
    return dirty


def principal_view(state: State, identity: Identity, principal: str) -> State:
    """A fork of ``state`` that holds only ``principal``'s records (and nobody else's), for the value
    samplers: whatever they pick then belongs to the person the task is about."""
    key = (id(identity), state.hash(), principal)
    cached = _VIEWS.get(key)
    if cached is None:
        # the view is a state of its own (not a fork with everyone else deleted): its reads and forks then
        # cost what a state of the principal's records costs, not one of every record
        changed = state.changed_keys()
        if changed and not any(callable(rule) for rule in identity.owners.values()):
            # a state changed by a few writes: the stored state's view with the records whose owner may differ redone
            kept = _kept(identity, state.stored(), principal)
            dirty = _dirty(identity, state, changed)
            for table, keys in kept.items():
                redo = {k for t, k in dirty if t == table}
                if redo:
                    kept[table] = [*(k for k in keys if k not in redo),
                                   *(k for k in redo if state.get(table, k) is not None
                                     and owned_by(owner_of(identity, state, table, k), principal))]
        else:
            kept = _kept(identity, state, principal)
        cached = _remember(_VIEWS, key, state.keeping(kept))
    else:
        _VIEWS.move_to_end(key)
    return cached.fork()


def _kept(identity: Identity, state: State, principal: str) -> dict[str, list[str]]:
    """Per owned table, the ids of the records ``principal`` may act on (see :func:`owned_by`)."""
    return {table: [*free, *mine.get(principal, ()), *(k for k, owner in shared if owned_by(owner, principal))]
            for table, (free, mine, shared) in _owner_index(identity, state).items()}


_INDEXES: OrderedDict[tuple[int, str], dict[str, tuple[list[str], dict[Any, list[str]], list[tuple[str, Any]]]]] = \
    OrderedDict()


def _owner_index(identity: Identity, state: State) -> dict[str, tuple[list[str], dict[Any, list[str]], list[tuple[str, Any]]]]:
    """:func:`ownership` of ``state`` by owned table: the records nobody owns, those of each single owner
    (by owner), and the others with their owners (records several people share, owners no key holds);
    cached by content, so each person's view of a state costs what their records cost."""
    key = (id(identity), state.hash())
    found = _INDEXES.get(key)
    if found is not None:
        _INDEXES.move_to_end(key)
        return found
    found = {table: ([], {}, []) for table in dict.fromkeys((identity.table, *identity.owners)) if table}
    for (table, k), owner in ownership(identity, state).items():
        free, mine, shared = found[table]
        if owner is None:
            free.append(k)
        elif isinstance(owner, (str, int)) and not isinstance(owner, bool):
            mine.setdefault(owner, []).append(k)
        else:
            shared.append((k, owner))
    return _remember(_INDEXES, key, found)


_WEIGHTS: OrderedDict[tuple[int, str], tuple[list[str], list[int]]] = OrderedDict()


def _owner_weights(identity: Identity, state: State) -> tuple[list[str], list[int]]:
    """The people of ``identity.table`` and 1 + the number of records each owns (cached by content)."""
    key = (id(identity), state.hash())
    found = _WEIGHTS.get(key)
    if found is not None:
        _WEIGHTS.move_to_end(key)
        return found
    people = state.ids(identity.table)
    weight = dict.fromkeys(people, 1)
    for (table, _), owner in ownership(identity, state).items():
        if table not in identity.owners:
            continue
        for person in owner if isinstance(owner, (set, frozenset, list, tuple)) else [owner]:
            if person in weight:
                weight[person] += 1
    return _remember(_WEIGHTS, key, (people, [weight[p] for p in people]))


_DRAWS: OrderedDict[tuple[int, str, int, Any], tuple[list[str], list[int]]] = OrderedDict()
_HOLDINGS: OrderedDict[tuple[int, str, str, Any], dict[str, int]] = OrderedDict()
RecordTest = Callable[[State, dict[str, Any]], bool]


def holdings(identity: Identity, state: State, table: str, test: RecordTest | None = None) -> dict[str, int]:
    """How many records of ``table`` each person of ``identity.table`` owns (those ``test(state, record)``
    accepts, when given; cached by content)."""
    key = (id(identity), state.hash(), table, test)
    found = _HOLDINGS.get(key)
    if found is not None:
        _HOLDINGS.move_to_end(key)
        return found
    count = dict.fromkeys(state.ids(identity.table), 0)
    _, mine, shared = _owner_index(identity, state).get(table, ((), {}, ()))  # nobody holds a record nobody owns
    for owner, keys in mine.items():
        if owner in count:
            count[owner] += len(keys) if test is None else sum(1 for k in keys if test(state, state.get(table, k)))
    for k, owner in shared:
        if test is not None and not test(state, state.get(table, k)):
            continue
        for person in owner if isinstance(owner, (set, frozenset, list, tuple)) else [owner]:
            if person in count:
                count[person] += 1
    return _remember(_HOLDINGS, key, count)


def choose_principal(identity: Identity, state: State, rng: Any, power: int = 1,
                     needs: tuple[tuple[Any, ...], ...] = ()) -> str | None:
    """The person a task is about, drawn with weight (1 + the number of records they own) ** ``power`` (a
    task about someone with nothing on file has little to do; a parallel task needs several records).
    With ``needs=((table, n), ...)`` only people who own at least ``n`` records of each ``table`` are drawn
    (everyone when nobody does): a task that acts on such records, or a turn that asks about several of
    them, has them to act on. A need ``(table, n, test)`` counts only the records ``test(state, record)``
    accepts (those a call can act on: a delivered order to return); when nobody holds enough of them,
    the needs are counted without their tests."""
    if identity.table is None:
        return None
    key = (id(identity), state.hash(), power, needs)
    found = _DRAWS.get(key)
    if found is None:
        people, weights = _owner_weights(identity, state)
        tested = any(len(need) > 2 and need[2] is not None for need in needs)
        for use_tests in (True, False) if tested else (False,):
            held = [(holdings(identity, state, need[0], need[2] if use_tests and len(need) > 2 else None), need[1])
                    for need in needs]
            if not held:
                break  # everyone fits
            fit = [i for i, p in enumerate(people) if held[0][0].get(p, 0) >= held[0][1]]
            for h, n in held[1:]:
                fit = [i for i in fit if h.get(people[i], 0) >= n]
            if fit:
                people, weights = [people[i] for i in fit], [weights[i] for i in fit]
                break
        # cumulative weights, as random.choices derives them from weights (the same draw)
        found = _remember(_DRAWS, key, (people, list(accumulate(w ** power for w in weights))))
    else:
        _DRAWS.move_to_end(key)
    people, cumulative = found
    if not people:
        return None
    return rng.choices(people, cum_weights=cumulative)[0]


def identified(identity: Identity, tables: Tables, output: Any) -> Any:
    """The person an identification lookup's output names (``None`` if it names nobody)."""
    if not isinstance(output, dict) or identity.table is None:
        return None
    value = output.get(identity.output_field)
    if value is None:
        return None
    if not identity.match_field:
        return value if _get(tables, identity.table, value) is not None else None
    return next((k for k, r in _records(tables, identity.table) if r.get(identity.match_field) == value), None)


@cache
def _owned_entities_of(builder: Any) -> dict[str, str]:
    identity = identity_of(builder)
    owned = {t for t in (identity.table, *identity.owners) if t} if identity is not None else set()
    return {e: t for e, t in builder.language.entity_tables.items() if t in owned}


def _owned_entities(builder: Any, identity: Identity) -> dict[str, str]:
    """Entity (parameter) -> owned table (of the builder's own identity; computed once per builder)."""
    if identity is identity_of(builder):
        return _owned_entities_of(builder)
    owned = {t for t in (identity.table, *identity.owners) if t}
    return {e: t for e, t in builder.language.entity_tables.items() if t in owned}


# (id(builder), id(identity), tool) -> (builder, identity, answer): the objects are kept, so an id is not reused
_ACTS: dict[tuple[int, int, str], tuple[Any, Identity, bool]] = {}


def acts(builder: Any, identity: Identity, name: str) -> bool:
    """Whether a call of tool ``name`` acts for the user: a write, or a read of one of their records
    by id (identification lookups do not act). Cached per builder, identity and tool."""
    key = (id(builder), id(identity), name)
    found = _ACTS.get(key)
    if found is not None and found[0] is builder and found[1] is identity:
        return found[2]
    answer = _acts(builder, identity, name)
    if len(_ACTS) < 65536:
        _ACTS[key] = (builder, identity, answer)
    return answer


def _acts(builder: Any, identity: Identity, name: str) -> bool:
    if name in identity.tools or name not in builder.tools:
        return False
    spec = builder.tools[name]
    if spec.writes:
        return True
    owned = _owned_entities(builder, identity)
    return any(spec.param_entity(p) in owned for p in spec.parameters["required"])


def identified_first(builder: Any, identity: Identity, turns: list[list[str]]) -> bool:
    """Whether an identification call runs in a turn before the first call that acts (tool names per turn)."""
    seen = False
    for turn in turns:
        if any(acts(builder, identity, name) for name in turn):
            return seen
        seen = seen or any(name in identity.tools for name in turn)
    return True


def signed_in_sentence(identity: Identity, record: dict[str, Any]) -> str:
    """The "signed in as" sentence for one person's record."""
    return identity.signed_in.format(**record)


def row_prompt(builder: Any, turns: list[list[str]], principal: str | None, tables: Tables) -> str:
    """The system prompt of one row: the builder's own when its trajectory identifies the user before it
    acts (or never acts), otherwise with the requirement replaced by the signed-in sentence."""
    identity = identity_of(builder)
    prompt = builder.system_prompt
    if identity is None or identity.table is None or principal is None or not identity.requirement:
        return prompt
    if identified_first(builder, identity, turns):
        return prompt
    record = _get(tables, identity.table, principal)
    if record is None:
        return prompt
    return prompt.replace(identity.requirement, signed_in_sentence(identity, record))


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def violations(builder: Any, system_prompt: str, turns: list[list[dict[str, Any]]], outputs: list[Any],
               tables: Tables) -> Iterator[tuple[str, str]]:
    """Every way a row breaks its own system prompt, as ``(reason, detail)`` pairs (none: it obeys).

    ``turns`` holds the calls (``{"name", "arguments"}``) per assistant turn, ``outputs`` their outputs
    in order, ``tables`` the initial state. Reasons: ``unidentified_action`` (the prompt demands
    identification and a call acts before any identification), ``policy_prompt`` (the prompt neither
    demands identification nor says who is signed in), ``two_identities`` (two people identified, or
    two values for a parameter in which the user names themselves), ``self_as_other`` (a call about someone
    else finds the user), ``repeated_identification`` (the user
    identified more than once: a second lookup of the same person), ``other_customer_records`` (a call
    acts on a record of someone other than the identified or signed-in person).
    """
    identity = identity_of(builder)
    if identity is None:
        return
    calls = [c for turn in turns for c in turn]
    for param in identity.self_params:
        values = {str(v) for c in calls for v in _items(c["arguments"].get(param)) if v is not None}
        if len(values) > 1:
            yield "two_identities", f"{param}: {', '.join(sorted(values))[:120]}"
    if identity.table is None:
        yield from self_as_other(identity, calls, outputs)
        return
    lookups = [c["name"] for i, c in enumerate(calls) if c["name"] in identity.tools and i < len(outputs)
               and not (isinstance(outputs[i], dict) and "error" in outputs[i])]
    if len(lookups) > 1:
        yield "repeated_identification", f"{', '.join(lookups)}: one identification is enough"
    principal = None
    if identity.requirement and identity.requirement in system_prompt:
        if not identified_first(builder, identity, [[c["name"] for c in turn] for turn in turns]):
            first = next(c["name"] for c in calls if acts(builder, identity, c["name"]))
            yield "unidentified_action", f"{first} before any of {', '.join(identity.tools)}"
    else:
        principal = next((k for k, r in _records(tables, identity.table)
                          if signed_in_sentence(identity, r) in system_prompt), None)
        if principal is None:
            yield "policy_prompt", "the system prompt neither asks to identify the user nor says who is signed in"
    people = {identified(identity, tables, outputs[i]) for i, c in enumerate(calls)
              if c["name"] in identity.tools and i < len(outputs)} - {None}
    if principal is not None:
        people.add(principal)
    if len(people) > 1:
        yield "two_identities", ", ".join(sorted(map(str, people)))
        return
    owned = _owned_entities(builder, identity)
    if not people:
        # nobody identified yet: the records a row acts on still belong to one person
        owners = [owner_of(identity, tables, owned[spec.param_entity(p)], item)
                  for c in calls if (spec := builder.tools.get(c["name"])) is not None
                  for p, v in c["arguments"].items() if spec.param_entity(p) in owned for item in _items(v)]
        singles = {o for o in owners if isinstance(o, str)}
        if len(singles) > 1:
            yield "other_customer_records", f"records of {', '.join(sorted(singles))[:120]} in one row"
        return
    (person,) = people
    for call in calls:
        spec = builder.tools.get(call["name"])
        if spec is None:
            continue
        for param, value in call["arguments"].items():
            table = owned.get(spec.param_entity(param))
            if table is None:
                continue
            for item in _items(value):
                owner = owner_of(identity, tables, table, item)
                if not owned_by(owner, person):
                    yield "other_customer_records", f"{call['name']}.{param}={str(item)[:40]} belongs to {owner}"
                    return


def self_as_other(identity: Identity, calls: list[dict[str, Any]], outputs: list[Any]) -> Iterator[tuple[str, str]]:
    """``self_as_other``: a call made about someone else (not as the user) finds the user themselves ("I
    need 45 minutes with my colleague" whose colleague is the user), for a domain whose user names
    themselves in a parameter (synthesis rejects such a plan before it is worded, validation the row)."""
    own = {str(v) for p in identity.self_params for c in calls for v in _items(c["arguments"].get(p)) if v is not None}
    for i, call in enumerate(calls):
        found = outputs[i] if i < len(outputs) else None
        if not own or not isinstance(found, dict) or any(p in call["arguments"] for p in identity.self_params):
            continue
        if any(found.get(p) is not None and str(found[p]) in own for p in identity.self_params):
            yield "self_as_other", f"{call['name']} finds the user as someone else"
            return


def violation(builder: Any, system_prompt: str, turns: list[list[dict[str, Any]]], outputs: list[Any],
              tables: Tables) -> tuple[str, str] | None:
    """The first of :func:`violations`, or ``None`` when the row obeys its system prompt."""
    return next(violations(builder, system_prompt, turns, outputs, tables), None)


def required_call(builder: Any, names: list[str], index: int) -> bool:
    """Whether call ``index`` (of tool names in order) is an identification the policy asks for: an
    identification lookup with a call that acts after it."""
    identity = identity_of(builder)
    if identity is None or names[index] not in identity.tools:
        return False
    return any(acts(builder, identity, n) for n in names[index + 1:])
