"""Multi-level validation of a row, independent of how it was built.

- L1 format: the row validates against its schema in ``schemas/``; the offered tools are the builder's
  own specs; every oracle call validates against its tool's schema.
- L2 execution: replaying the oracle from the initial state reproduces the outputs, the final-state
  hash and the answer facts, and a second replay gives the same again (at build time the second run is
  the synthesizer's own, recorded in the row).
- L3 semantics: every argument is grounded (query, earlier output or default) and none was handed over
  in the query although an earlier output supplies it; no step is redundant; the task is non-trivial;
  every selection is answerable from the query; the answer facts derive from the outputs (raw values and
  spoken forms, :mod:`covert.validation.answer_checks`), the answer states them, claims nothing the outputs
  contradict and names an item of a list the user asked for. The calls fit
  their turns and their label: a call uses only values of earlier turns' outputs (never one that its own
  turn returns), no two writes of one turn act on the same id, and the category holds (parallel: two
  calls or more in one turn; parallel_multiple: two calls or more of two tools or more in one turn;
  sequential: a later turn takes a value from an earlier turn's output). On imported environments the
  query reads like a person's request, not a schema dump (:mod:`covert.language.query_leaks`:
  ``query_schema_leak``), and holds no filler value, no create that gives nothing and no write the
  assistant never names (:mod:`covert.imports.rowforms`). The trajectory obeys the
  row's own system prompt (:mod:`covert.env.policy`): it identifies the user before acting when the prompt
  asks for that, and acts on one person's records only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import orjson

from covert.env import Environment, UnknownBuilderError, get_builder, is_error
from covert.env.policy import required_call, violation
from covert.env.state import State
from covert.errors import Invalid
from covert.imports import rowforms
from covert.language.query_leaks import path_said, query_leaks
from covert.language.values import (
    enum_codes,
    get_path,
    in_scalars,
    mentions,
    normalize_text,
    said_twice,
    scalar_set,
)
from covert.schemas import SchemaViolation, builder_specs_valid, validator
from covert.validation.answer_checks import answer_problem, fact_problem
from covert.views import outputs_hash, tool_content

_ID_LIKE = re.compile(r"[\d_#@-]")
IMPORTED_PREFIX = "api."  # environments imported from API descriptions (covert.imports)


@dataclass(frozen=True)
class Oracle:
    """What validation needs from a row, whichever view it is."""

    kind: str
    builder: str
    query: str
    tools: list[dict[str, Any]]
    groups: list[list[dict[str, Any]]]
    truth: dict[str, Any]
    state: dict[str, Any]
    recorded_outputs: list[str] | None
    answer: str | None
    category: str | None = None  # the row's label; None skips the category invariants


def oracle_of(row: dict[str, Any], kind: str) -> Oracle:
    """Pull the oracle out of an SFT (``kind="sft"``) or RL (``kind="rl"``) row.

    The query is everything the user says: every user message of an SFT conversation; for an RL row,
    its prompt plus what its user scenario hands over when asked (multi-turn rows).
    """
    if kind == "sft":
        messages = row["messages"]
        said = [m["content"] for m in messages if m["role"] == "user"]
        outputs = [m["content"] for m in messages if m["role"] == "tool"]
        final = messages[-1]
        return Oracle(kind, row["builder"], " ".join(said), row["tools"],
                      row["ground_truth"]["calls"], row["ground_truth"], row["initial_state"], outputs,
                      final.get("content") if final["role"] == "assistant" else None, row.get("category"))
    said = [m["content"] for m in row["prompt"] if m["role"] == "user"]
    scenario = row["extra_info"].get("user_scenario") or {}
    said += [item["text"] for item in scenario.get("known", [])]
    return Oracle(kind, row["builder"], " ".join(said), row["tools"],
                  row["reward_model"]["ground_truth"]["calls"], row["reward_model"]["ground_truth"],
                  row["extra_info"]["initial_state"], None, None, row.get("category"))


def validate_row(row: dict[str, Any], kind: str, initial: State | None = None) -> None:
    """Run L1-L3 on one row; raises :class:`Invalid` with the first failure.

    ``initial`` may pass a :class:`State` already built from the row's initial state (the build does,
    to reuse its cached record digests); by default one is built from the row.
    """
    trusted = initial is not None
    try:
        validator(f"{kind}_row", trusted)(row)
    except SchemaViolation as exc:
        raise Invalid("schema", str(exc)[:200]) from None
    oracle = oracle_of(row, kind)
    try:
        builder = get_builder(oracle.builder)
    except UnknownBuilderError as exc:
        raise Invalid("unknown_builder", str(exc)) from None
    if row["builder_version"] != builder.version:
        raise Invalid("builder_version", f"row has {row['builder_version']}, installed {builder.version}")
    if trusted:
        try:
            builder_specs_valid(tuple(builder.tools), builder.environment)
        except SchemaViolation as exc:
            raise Invalid("schema", f"tool spec: {exc}"[:200]) from None
    _check_tools(builder.environment, oracle)
    if kind == "sft":
        _check_messages(row)
        from covert.conversation.verify import check_conversation

        check_conversation(row, {n for n, t in builder.tools.items() if t.writes})
    if initial is None:
        initial = State.recalled(oracle.state)
    if trusted:
        # at build time the synthesizer's own run of these calls, recorded in the row's hashes, is the
        # first run and _check_replay compares against it
        replay = _replay(builder.environment, oracle, initial)
    else:  # a row from disk is replayed twice
        replay, again = _replayed_twice(builder.environment, oracle, initial)
        _check_deterministic(replay, again)
    if oracle.builder.startswith(IMPORTED_PREFIX):
        told = " ".join(str(m.get("content") or "") for m in row["messages"]
                        if m["role"] == "assistant" and not m.get("tool_calls")) if kind == "sft" else None
        _check_imported(builder.environment, oracle, replay, told)
    _check_replay(oracle, replay.outputs, replay.final_hash)
    _check_semantics(builder, oracle, replay, initial)
    _check_parallel_order(builder.environment, oracle, replay)  # after the named conflict of two writes on one id
    messages = row["messages"] if kind == "sft" else row["prompt"]
    system = messages[0]["content"] if messages and messages[0].get("role") == "system" else ""
    broken = violation(builder, system, oracle.groups, replay.outputs, initial)
    if broken is not None:
        raise Invalid(*broken)


def validate_pair(sft: dict[str, Any], rl: dict[str, Any], initial: State | None = None) -> None:
    """Build-time check of the two views of one task: the SFT row fully (L1-L3), the RL
    row by schema and by carrying the very same oracle, state and query (so its replay is the same)."""
    validate_row(sft, "sft", initial)
    try:
        validator("rl_row", initial is not None)(rl)
    except SchemaViolation as exc:
        raise Invalid("schema", str(exc)[:200]) from None
    prompt_ok = rl["prompt"] == sft["messages"][: len(rl["prompt"])]
    if (
        rl["reward_model"]["ground_truth"] != sft["ground_truth"]
        or (rl["extra_info"]["initial_state"] is not sft["initial_state"]
            and rl["extra_info"]["initial_state"] != sft["initial_state"])
        or not prompt_ok
        or rl["tools"] != sft["tools"]
    ):
        raise Invalid("views_disagree", rl["task_id"])


_OWN_TOOLS: dict[type[Environment], dict[str, dict[str, Any]]] = {}


def _own_tools(env_cls: type[Environment]) -> dict[str, dict[str, Any]]:
    """An environment's OpenAI tool specs by name (built once per class; read-only)."""
    found = _OWN_TOOLS.get(env_cls)
    if found is None:
        found = _OWN_TOOLS[env_cls] = dict(zip(env_cls.tool_specs, env_cls.openai_tools(), strict=True))
    return found


def _check_tools(env_cls: type[Environment], oracle: Oracle) -> None:
    specs = {t["function"]["name"]: t for t in oracle.tools}
    own = _own_tools(env_cls)
    for tool in oracle.tools:
        name = tool["function"]["name"]
        if own.get(name) != tool:
            raise Invalid("tool_spec_mismatch", name)
    for group in oracle.groups:
        for call in group:
            if call["name"] not in specs:
                raise Invalid("oracle_tool_not_offered", call["name"])
            try:
                env_cls._validator(call["name"])(call["arguments"])
            except SchemaViolation as exc:
                raise Invalid("oracle_arguments_schema", f"{call['name']}: {exc}") from None


def _check_messages(row: dict[str, Any]) -> None:
    messages = row["messages"]
    if messages[0]["role"] != "system" or messages[1]["role"] != "user" or messages[-1]["role"] != "assistant":
        raise Invalid("message_order", "expected system, user, ..., assistant")
    turns = [m for m in messages if m["role"] == "assistant" and m.get("tool_calls")]
    calls = row["ground_truth"]["calls"]
    if len(turns) != len(calls):
        raise Invalid("turns_mismatch", f"{len(turns)} tool-call turns, {len(calls)} in ground truth")
    for turn, group in zip(turns, calls, strict=True):
        got = [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in turn["tool_calls"]]
        if got != group:
            raise Invalid("calls_mismatch", str(got)[:120])
    ids = [c["id"] for t in turns for c in t["tool_calls"]]
    answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    if ids != answered:
        raise Invalid("tool_call_ids", "every tool call needs exactly one tool message, in order")


@dataclass
class Replay:
    """One replay of an oracle: its outputs, the final-state hash, for every write call the state
    hashes just before and just after it, and the state before each parallel turn that mixes reads and
    writes (by turn index: what :func:`_check_parallel_order` runs again in reverse)."""

    outputs: list[Any]
    final_hash: str
    writes: dict[int, tuple[str, str]]
    mixed_turns: dict[int, State] = field(default_factory=dict)


def _replay(env_cls: type[Environment], oracle: Oracle, initial: State) -> Replay:
    env = env_cls(initial)
    outputs = []
    writes = {}
    mixed: dict[int, State] = {}
    for turn, group in enumerate(oracle.groups):
        if mixed_turn(env_cls, group):
            mixed[turn] = env.state.fork()
        for call in group:
            before = env.state.hash() if _writes(env_cls, call) else None
            outputs.append(env.call(call["name"], call["arguments"]))
            if before is not None:
                writes[len(outputs) - 1] = (before, env.state.hash())
    return Replay(outputs, env.state.hash(), writes, mixed)


# the two replays of the last few oracles, by environment, calls (their JSON) and initial snapshot
_REPLAYED: dict[tuple[type[Environment], bytes, Any], tuple[Replay, Replay]] = {}
_REPLAYED_KEPT = 8


def _replayed_twice(env_cls: type[Environment], oracle: Oracle, initial: State) -> tuple[Replay, Replay]:
    """Two replays of ``oracle`` from ``initial``, the state :meth:`State.recalled` gave for the row (no
    changes: its snapshot is its content, one object for equal state data while recalled): made once for
    the two views of one task, which ``covert validate`` checks one after the other (the same calls from
    the same state replay the same; the last few oracles are kept)."""
    try:
        key = (env_cls, orjson.dumps(oracle.groups), initial.snapshot)
    except (orjson.JSONEncodeError, TypeError):
        return _replay(env_cls, oracle, initial), _replay(env_cls, oracle, initial)
    found = _REPLAYED.pop(key, None)
    if found is None:
        found = (_replay(env_cls, oracle, initial), _replay(env_cls, oracle, initial))
        while len(_REPLAYED) >= _REPLAYED_KEPT:
            del _REPLAYED[next(iter(_REPLAYED))]
    _REPLAYED[key] = found  # now the most recent
    return found


def _writes(env_cls: type[Environment], call: dict[str, Any]) -> bool:
    spec = env_cls.tool_specs.get(call["name"])
    return spec is not None and spec.writes


def _check_parallel_order(env_cls: type[Environment], oracle: Oracle, replay: Replay) -> None:
    """Calls of one parallel turn run in any order: a read beside a write of its turn must give the same
    output whichever runs first (a list beside a create of its table sees the new record or not, so the
    turn is rejected as ``parallel_order_dependent``). Two creates in one turn stay: only the ids they are
    given follow the order. Each turn that mixes reads and writes runs again, in reverse, from the state
    the replay had before it."""
    starts = [sum(len(g) for g in oracle.groups[:turn]) for turn in range(len(oracle.groups))]
    for turn, state in replay.mixed_turns.items():
        group = oracle.groups[turn]
        if order_dependent(env_cls, group, replay.outputs[starts[turn]:starts[turn] + len(group)], state):
            raise Invalid("parallel_order_dependent", ", ".join(c["name"] for c in group)[:200])


def order_dependent(env_cls: type[Environment], group: list[dict[str, Any]], forward: list[Any], state: State) -> bool:
    """Whether a read of one turn's calls (``{"name", "arguments"}``, which gave the ``forward`` outputs run
    in order from ``state``) gives another output when the turn runs in reverse from ``state``. Shared
    with synthesis, which rejects such a turn before its query is made (the same test)."""
    other = env_cls(state)
    backward = [other.call(c["name"], c["arguments"]) for c in reversed(group)][::-1]
    return any(f != b for c, f, b in zip(group, forward, backward, strict=True) if not _writes(env_cls, c))


def mixed_turn(env_cls: type[Environment], group: list[dict[str, Any]]) -> bool:
    """Whether a turn holds two calls or more, reads and writes both (what :func:`_replay` keeps the state
    before, for :func:`order_dependent`)."""
    return len(group) > 1 and len({_writes(env_cls, c) for c in group}) == 2


def _check_deterministic(first: Replay, second: Replay) -> None:
    if second.outputs != first.outputs or second.final_hash != first.final_hash:
        raise Invalid("nondeterministic_replay")


def _check_replay(oracle: Oracle, outputs: list[Any], final_hash: str) -> None:
    truth = oracle.truth
    if final_hash != truth["final_state_hash"]:
        raise Invalid("replay_final_state", f"{final_hash} != {truth['final_state_hash']}")
    if outputs_hash(outputs) != truth["outputs_hash"]:
        raise Invalid("replay_outputs", "replayed outputs differ from the recorded ones")
    if oracle.recorded_outputs is not None and [tool_content(o) for o in outputs] != oracle.recorded_outputs:
        raise Invalid("replay_outputs", "tool messages differ from the replayed outputs")
    for i, output in enumerate(outputs):
        if is_error(output) and truth["behaviour"] == "tool_use":
            raise Invalid("oracle_call_failed", f"call {i}: {output['error']['code']}")
    for fact in truth["answer_facts"]:
        problem = fact_problem(fact, outputs, truth["reasoning"])
        if problem is not None:
            raise Invalid(*problem)
    if oracle.answer is not None:
        problem = answer_problem(oracle.answer, oracle.query, truth, outputs, oracle.groups)
        if problem is not None:
            raise Invalid(*problem)


def _check_imported(env_cls: type[Environment], oracle: Oracle, replay: Replay, told: str | None) -> None:
    """What a careful reader refuses in a row on an imported API (:mod:`covert.imports.rowforms`): a filler
    value in a call or an output (``filler_value``), a create that gives nothing but where the record goes
    although its tool takes fields (``empty_create``), an answer that names nothing of a write it reports
    (``write_answer_unnamed``), two writes of one turn that differ in numbers only (``parallel_near_duplicate``)
    or two creates of one turn that give their records the same name (``parallel_same_name``;
    ``told`` is what the assistant tells the user, ``None`` for an RL row)."""
    for group in oracle.groups:
        writes = [c for c in group if _writes(env_cls, c)]
        for i, first in enumerate(writes):
            for second in writes[i + 1:]:
                if first["name"] == second["name"] and rowforms.numbers_only_differ(first["arguments"],
                                                                                   second["arguments"]):
                    raise Invalid("parallel_near_duplicate", first["name"])
                if first["name"] == second["name"] and rowforms.is_create(first["name"]) and rowforms.same_name(
                        first["arguments"], second["arguments"]):
                    raise Invalid("parallel_same_name", first["name"])
    calls = [c for group in oracle.groups for c in group]
    answer = normalize_text(told) if told else None
    for call, output in zip(calls, replay.outputs, strict=True):
        found = rowforms.first_filler(call["arguments"]) or rowforms.first_filler(output)
        if found is not None:
            raise Invalid("filler_value", f"{call['name']}: {found[0]} {found[1]}={found[2][:40]!r}")
        if not _writes(env_cls, call) or is_error(output):
            continue
        properties = env_cls.tool_specs[call["name"]].parameters.get("properties") or {}
        if rowforms.is_create(call["name"]) and rowforms.empty_create(properties, call["arguments"]):
            raise Invalid("empty_create", call["name"])
        if answer is not None and oracle.truth["behaviour"] == "tool_use" and not rowforms.names_write(
                answer, properties, call["arguments"], output):
            raise Invalid("write_answer_unnamed", call["name"])


TRIVIAL_READ = "a read-only task whose answer adds nothing to the query"


def adds_nothing(query: str, facts: list[dict[str, Any]]) -> bool:
    """Whether an answer with ``facts`` tells the user nothing the (normalised) ``query`` did not say:
    a task that changes no state and answers so is trivial."""
    return not facts or all(mentions(query, f["value"]) for f in facts)


def _check_semantics(builder: Any, oracle: Oracle, replay: Replay, initial: State) -> None:
    truth = oracle.truth
    outputs = replay.outputs
    query = normalize_text(oracle.query)
    calls = [c for group in oracle.groups for c in group]
    if truth["behaviour"] == "decline":
        if calls:
            raise Invalid("decline_with_calls")
        return
    if not calls:
        raise Invalid("trivial", "no oracle call")
    if truth["final_state_hash"] == initial.hash() and adds_nothing(query, truth["answer_facts"]):
        raise Invalid("trivial", TRIVIAL_READ)
    specs = builder.tools
    raw_query = oracle.query.lower()
    for name in specs:
        if name in raw_query:
            raise Invalid("query_leaks_tool_name", name)
    for call in calls:
        for key in call["arguments"]:
            if "_" in key and key in raw_query:
                raise Invalid("query_leaks_argument_key", key)
    repeated = said_twice(oracle.query, [v for c in calls for v in scalar_set(c["arguments"]) if isinstance(v, str)],
                          _enum_codes(builder))
    if repeated:
        raise Invalid("value_said_twice", repeated)
    if oracle.builder.startswith(IMPORTED_PREFIX):
        leaks = query_leaks(oracle.query, oracle.tools, calls)
        if leaks:
            raise Invalid("query_schema_leak", "{}: {}".format(*leaks[0]))
    # what later calls may take from an output: the last output feeds nothing, so it is never walked
    scalars = [scalar_set(o) for o in outputs[:-1]] + [set()]
    seen: set[Any] = set()
    earlier: list[set[Any]] = []
    for output_scalars in scalars:
        earlier.append(seen)
        seen = seen | output_scalars
    first_use: dict[Any, int] = {}
    for i, call in enumerate(calls):
        for value in call["arguments"].values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str):
                    first_use.setdefault(item, i)
    for i, call in enumerate(calls):
        params = specs[call["name"]].parameters["properties"]
        for key, value in call["arguments"].items():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, bool) or item == params.get(key, {}).get("default", object()):
                    continue
                if isinstance(item, (dict, list)):
                    continue
                in_outputs = in_scalars(earlier[i], item)
                in_query = mentions(query, item) or path_said(query, item)
                if not in_outputs and not in_query and "enum" not in params.get(key, {}):
                    raise Invalid("ungrounded_argument", f"{call['name']}.{key}={str(item)[:40]}")
                if (in_outputs and in_query and isinstance(item, str) and _ID_LIKE.search(item)
                        and in_scalars(earlier[first_use[item]], item)):
                    raise Invalid("query_leaks_looked_up_value", f"{call['name']}.{key}")
    _check_selections(truth, outputs, query)
    off_target = off_target_lookup(calls, outputs, truth["selections"], [specs[c["name"]].writes for c in calls])
    if off_target:
        raise Invalid("off_target_lookup", off_target)
    _check_minimal(builder, oracle, calls, replay, initial, scalars)
    _check_turns(builder, oracle, outputs, query, scalars)


@cache
def _enum_codes(builder: Any) -> frozenset[str]:
    """The enum codes of a builder's tool parameters (said in plain speech, they are no repeated value)."""
    return enum_codes({"parameters": spec.parameters} for spec in builder.tools.values())


def _argument_items(call: dict[str, Any], params: dict[str, Any]) -> list[tuple[str, Any, bool]]:
    """``(key, item, chosen)`` for each scalar argument value a call takes from somewhere (not a boolean,
    not the parameter's default); ``chosen`` marks one of the parameter's enum values, which may be picked
    rather than looked up."""
    out = []
    for key, value in call["arguments"].items():
        schema = params.get(key, {})
        enum = schema.get("enum") or (schema.get("items") or {}).get("enum") or ()
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, (bool, dict, list)) or item is None:
                continue
            if item == schema.get("default", object()):
                continue
            out.append((key, item, item in enum))
    return out


def _check_turns(builder: Any, oracle: Oracle, outputs: list[Any], query: str, scalars: list[set[Any]]) -> None:
    """Calls fit their turns and the row's label.

    A call in turn k may use only what the user said and what turns before k returned: a value that only
    an output of its own turn holds is an id used before the call that returns it (``same_turn_dependency``).
    Two writes of one turn may not share an id argument: their order matters (``parallel_write_conflict``).
    The category holds: ``category_parallel`` (two calls or more in one turn), ``category_parallel_multiple``
    (two calls or more of two tools or more in one turn; a parallel row makes every call in that one turn:
    ``category_parallel_turns``), ``category_sequential`` (a call of a later turn
    takes a value from an earlier turn's output that the query does not give). ``scalars`` holds each
    output's :func:`scalar_set` but the last one's (which no later turn sees).
    """
    specs = builder.tools
    refs = builder.language.references
    before: set[Any] = set()
    position = 0
    depends = False
    for group in oracle.groups:
        last = len(outputs) - 1
        own = [scalars[k] if k < last or len(group) == 1 else scalar_set(outputs[k])
               for k in range(position, position + len(group))]
        written: dict[Any, str] = {}
        for j, call in enumerate(group):
            spec = specs[call["name"]]
            params = spec.parameters["properties"]
            siblings: set[Any] = set().union(*(own[m] for m in range(len(group)) if m != j))
            items = _argument_items(call, params)
            for key, item, chosen in items:
                if in_scalars(before, item):
                    if not mentions(query, item):
                        depends = True
                    continue
                if not chosen and in_scalars(siblings, item) and not mentions(query, item):
                    raise Invalid("same_turn_dependency", f"{call['name']}.{key}={str(item)[:40]} comes from its own turn")
            if spec.writes:
                for key, item, _ in items:
                    if not (key.endswith(("_id", "_ids", "_number")) or spec.param_entity(key) in refs):
                        continue
                    if item in written:
                        raise Invalid("parallel_write_conflict", f"{written[item]} and {call['name']} on {str(item)[:40]}")
                    written[item] = call["name"]
        for output_scalars in own:
            before |= output_scalars
        position += len(group)
    category = oracle.category
    if category in ("parallel", "parallel_multiple") and len(oracle.groups) > 1:
        raise Invalid("category_parallel_turns", f"the calls of a {category} row take {len(oracle.groups)} turns")
    if category == "parallel" and not any(len(g) >= 2 for g in oracle.groups):
        raise Invalid("category_parallel", "no turn holds two calls or more")
    if category == "parallel_multiple" and not any(len(g) >= 2 and len({c["name"] for c in g}) >= 2 for g in oracle.groups):
        raise Invalid("category_parallel_multiple", "no turn holds two calls or more of two tools or more")
    if category == "sequential" and not depends:
        raise Invalid("category_sequential", "no call takes a value from an earlier turn's output")


def takes_from_earlier_turn(builder: Any, groups: list[list[dict[str, Any]]], scalars: list[set[Any]]) -> bool:
    """Whether a call of a later turn takes a value that an earlier turn's output holds: what
    ``category_sequential`` asks of a sequential row, less the test that the query does not give the value
    (a weaker test, so a synthesis that rejects on it early rejects only what validation would).
    ``scalars`` are the outputs' :func:`scalar_set`, in call order (the last one may be left out)."""
    specs = builder.tools
    before: set[Any] = set()
    position = 0
    for group in groups:
        for call in group:
            params = specs[call["name"]].parameters["properties"]
            if any(in_scalars(before, item) for _, item, _ in _argument_items(call, params)):
                return True
        for k in range(position, position + len(group)):
            if k < len(scalars):
                before |= scalars[k]
        position += len(group)
    return False


_WHEN = re.compile(r"^\d{4}-\d{2}-\d{2}$|^\d{2}:\d{2}$")  # a calendar date or a clock time


def off_target_lookup(calls: list[dict[str, Any]], outputs: list[Any], selections: list[dict[str, Any]],
                      writes: list[bool]) -> str:
    """A write that takes what a search picked, acting at another date or time than the search asked about
    ("which rooms are free on May 7 at 11:15?", then a room booked for a meeting on May 9 at 14:00): the
    search answered a question the task never had. ``"search -> write: key"``, or ``""``."""
    for sel in selections:
        write, search = sel["call"], sel["source_call"]
        done = outputs[write] if write < len(outputs) else None
        if not writes[write] or not isinstance(done, dict):
            continue
        for key, asked in calls[search]["arguments"].items():
            got = done.get(key)
            if isinstance(asked, str) and isinstance(got, str) and got != asked and _WHEN.match(asked) and _WHEN.match(got):
                return f"{calls[search]['name']} -> {calls[write]['name']}: {key}"
    return ""


def _check_selections(truth: dict[str, Any], outputs: list[Any], query: str) -> None:
    for sel in truth["selections"]:
        source = outputs[sel["source_call"]]
        elements = get_path(source, sel["list_path"]) if sel["list_path"] else source
        if not isinstance(elements, list):
            raise Invalid("selection_source", str(sel)[:80])
        if sel["mode"] == "field":
            if not mentions(query, sel["value"]):
                raise Invalid("selection_not_in_query", f"{sel['by']}={sel['value']}")
            matches = [e for e in elements if e.get(sel["by"]) == sel["value"]]
            if len(matches) != 1 or matches[0].get(sel["key"]) != sel["chosen"]:
                raise Invalid("selection_ambiguous", f"{sel['by']}={sel['value']}")
        elif sel["mode"] in ("max", "min"):
            values = [e.get(sel["by"]) for e in elements]
            best = max(values) if sel["mode"] == "max" else min(values)
            if values.count(best) != 1 or elements[values.index(best)].get(sel["key"]) != sel["chosen"]:
                raise Invalid("selection_ambiguous", f"{sel['mode']} {sel['by']}")
        elif sel["mode"] == "only" and len(elements) != 1:
            raise Invalid("selection_ambiguous", "more than one candidate")


def _check_minimal(builder: Any, oracle: Oracle, calls: list[dict[str, Any]], replay: Replay,
                   initial: State, scalars: list[set[Any]]) -> None:
    """No step is redundant: dropping a write changes the final state, and every other step's output
    reaches the answer, a selection, a reasoning node or a later call."""
    truth = oracle.truth
    env_cls = builder.environment
    used_by_truth = {f["call"] for f in truth["answer_facts"] if "call" in f}
    used_by_truth |= {s["source_call"] for s in truth["selections"]}
    used_by_truth |= {r["call"] for r in truth["reasoning"]}
    query = normalize_text(oracle.query)
    last_write = max(replay.writes, default=-1)
    for j, call in enumerate(calls):
        if builder.tools[call["name"]].writes:
            before, after = replay.writes[j]
            if j == last_write and after == replay.final_hash:
                # nothing after the last write changes the state, so without it the run ends in the
                # state just before it: it is redundant exactly when it changed nothing
                if before == after:
                    raise Invalid("redundant_step", f"dropping write {call['name']} changes nothing")
                continue
            env = env_cls(initial)
            for k, other in enumerate(calls):
                if k != j:
                    env.call(other["name"], other["arguments"])
            if env.state.hash() == replay.final_hash:
                raise Invalid("redundant_step", f"dropping write {call['name']} changes nothing")
            continue
        if j in used_by_truth or required_call(builder, [c["name"] for c in calls], j):
            continue
        if unused_read(builder, calls, scalars, j, query):
            raise Invalid("redundant_step", f"nothing uses the output of {call['name']}")


def unused_read(builder: Any, calls: list[dict[str, Any]], scalars: list[set[Any]], j: int,
                query: str | None = None) -> bool:
    """Whether read ``j`` gives later calls nothing: no argument of a later call takes a value that only
    its output holds (what an earlier output already gave is no reason to make the call) and no later
    write acts on the record it looks at (checking an order's status before re-addressing it is one).
    ``scalars`` are the outputs' scalars; values the normalized ``query`` mentions are the user's, not
    the output's. Without ``query`` every value counts as taken from the output (a weaker test, so a
    synthesis that rejects on it early rejects only what validation would)."""
    known = set().union(*scalars[:j]) if j else set()
    later = calls[j + 1:]
    return not any(_feeds(scalars[j] - known, other, query) for other in later) and not any(
        builder.tools[other["name"]].writes and _same_record(calls[j], other) for other in later)


def _same_record(read: dict[str, Any], write: dict[str, Any]) -> bool:
    """Whether a read and a later write name the same record (an id-like string argument in common)."""
    ids = {v for v in scalar_set(read["arguments"]) if isinstance(v, str) and _ID_LIKE.search(v)}
    return bool(ids & scalar_set(write["arguments"]))


def _feeds(output_scalars: set[Any], later: dict[str, Any], query: str | None) -> bool:
    for value in later["arguments"].values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, (bool, dict, list)) or not in_scalars(output_scalars, item):
                continue
            if query is None or not mentions(query, item):
                return True
    return False


_UNDO = re.compile(r"^(cancel|delete|remove|void|revoke|close)_")


def undoes_earlier_write(calls: list[tuple[str, dict[str, Any], bool]]) -> str:
    """For ``(name, arguments, writes)`` in call order: the first write that cancels or deletes a record
    (``cancel_*``, ``delete_*`` ...) whose id an earlier, different write changed, as ``"a then b on id"``
    (``""`` for none). Changing an order's address and then cancelling it is no request that makes sense."""
    changed: dict[str, str] = {}
    for name, arguments, writes in calls:
        if not writes:
            continue
        ids = {str(v) for k, v in arguments.items()
               if isinstance(v, (str, int)) and not isinstance(v, bool) and str(k).endswith(("_id", "_number"))}
        if _UNDO.match(name):
            for value in sorted(ids):
                if value in changed and changed[value] != name:
                    return f"{changed[value]} then {name} on {value}"
        for value in ids:
            changed.setdefault(value, name)
    return ""
