"""Distractor tools: offer k extra tools next to the task's own, in shuffled order.

Three sources: near-misses of the oracle tools (a deprecated variant, an asynchronous or scheduled
variant, a dry-run preview, a batch variant, an archive-only lookup: similar names and descriptions,
different semantics), tools of other builders, and tools that share an entity parameter with an
oracle tool (``flag_order_for_review(order_id)``). The oracle tools are never removed or renamed.

Why no sequence of distractor calls reaches the oracle's final state: a distractor is only a spec in
the row. Its name is not one of the environment's tools, and the environment dispatches by name, so
any call to it returns an ``unknown_tool`` error observation and leaves the state untouched. A sequence
of distractor calls therefore ends in the initial state: for a task that changes state, that is not
the oracle's final state; for a read-only task, the error observations contain none of the answer
facts, which the task's own checks already keep out of the query. :func:`check` verifies every step
of this argument on each row: every distractor name is unknown to the environment, calling it changes
nothing, and its error observation reveals no answer fact.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from covert.augment.registry import Kind, NotApplicable, RowPair
from covert.augment.rows import flat_calls
from covert.env import builder_names, get_builder, is_error
from covert.env.environment import UNKNOWN_TOOL
from covert.errors import Invalid
from covert.language.values import mentions, normalize_text
from covert.views import tool_content

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class Config:
    """``k`` distractors, drawn round-robin from the three sources."""

    k: int = 5

    @classmethod
    def for_intensity(cls, level: str) -> Config:
        return cls(k={"low": 3, "medium": 5, "high": 9}[level])


def _spec(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


def _readable(name: str) -> str:
    return name.replace("_", " ")


def _batch(parameters: dict[str, Any]) -> dict[str, Any]:
    properties = {
        key: {"type": "array", "items": schema, "description": f"One or more values; {schema['description']}"}
        for key, schema in parameters["properties"].items()
    }
    return {**parameters, "properties": properties}


def near_misses(spec: dict[str, Any], writes: bool) -> list[dict[str, Any]]:
    """Tools that look like ``spec`` but do something else."""
    function = spec["function"]
    name, description, parameters = function["name"], function["description"], function["parameters"]
    verb, _, rest = name.partition("_")
    what = _readable(name)
    out = [
        _spec(f"{name}_legacy", f"Deprecated (API v1, kept for old integrations): {description} Reads the frozen "
              "legacy store, so results can be out of date, and changes made here are not applied.", parameters),
        _spec(f"{name}_async", f"Queues a request to {what} and returns a job id instead of the result; "
              "the job runs later and its outcome is not returned here.", parameters),
    ]
    if writes:
        out.append(_spec(f"preview_{name}", f"Dry run: shows what '{what}' would change, without changing "
                         "anything.", parameters))
        out.append(_spec(f"schedule_{name}", f"Schedules '{what}' for the next maintenance window instead of "
                         "doing it now.", parameters))
    elif rest:
        out.append(_spec(f"{verb}_archived_{rest}", f"Looks only in the archive of records closed more than two "
                         f"years ago. {description}", parameters))
    if parameters["properties"]:
        out.append(_spec(f"{name}_batch", f"Runs '{what}' for several records at once and returns one summary "
                         "line per record, without the details.", _batch(parameters)))
    return out


_SHARED = (
    ("flag_{noun}_for_review", "Flags a {words} for manual review by the back-office team; nothing about it changes.",
     "note", {"type": "string", "description": "Why the {words} needs a look."}),
    ("export_{noun}_report", "Exports a printable report about a {words} to the document archive.",
     "file_format", {"type": "string", "enum": ["pdf", "csv"], "description": "File format of the report."}),
    ("subscribe_to_{noun}_updates", "Subscribes the user to notifications whenever a {words} changes.",
     "channel", {"type": "string", "enum": ["email", "sms", "push"], "description": "Where notifications go."}),
    ("get_{noun}_audit_log", "Lists who viewed or changed a {words}, and when.",
     "limit", {"type": "integer", "description": "Most entries to return."}),
)


def shared_parameter_tools(spec: dict[str, Any], tool: Any, language: Any) -> list[dict[str, Any]]:
    """Tools taking the same entity parameter as ``spec`` (an id of a record the language refers to)."""
    out = []
    properties = spec["function"]["parameters"]["properties"]
    for param, schema in properties.items():
        ref = language.references.get(tool.param_entity(param))
        if ref is None:
            continue
        noun, words = re.sub(r"[^A-Za-z0-9]+", "_", ref.noun).strip("_").lower(), ref.noun
        for name, description, extra, extra_schema in _SHARED:
            extra_schema = {**extra_schema, "description": extra_schema["description"].format(words=words)}
            parameters = {"type": "object", "properties": {param: schema, extra: extra_schema}, "required": [param]}
            out.append(_spec(name.format(noun=noun), description.format(words=words), parameters))
    return out


@cache
def _other_domains(builder: str) -> tuple[dict[str, Any], ...]:
    return tuple(t for name in builder_names() if name != builder for t in get_builder(name).environment.openai_tools())


def apply(pair: RowPair, rng: random.Random, config: Config) -> RowPair:
    """Add ``config.k`` distractors and shuffle the tool order."""
    sft = pair.sft
    builder = get_builder(sft["builder"])
    own = builder.environment.tool_specs
    offered = sft["tools"]
    anchors = list(dict.fromkeys(c["name"] for c in flat_calls(sft["ground_truth"]))) or [
        t["function"]["name"] for t in offered]
    specs = {t["function"]["name"]: t for t in offered}
    near = [s for a in anchors if a in specs for s in near_misses(specs[a], own[a].writes)] if anchors else []
    shared = [s for a in anchors if a in specs for s in shared_parameter_tools(specs[a], own[a], builder.language)]
    pools = [near, list(_other_domains(builder.name)), shared]
    sources = ("near_miss", "other_domain", "shared_parameter")
    taken = set(own) | set(specs)
    chosen: list[dict[str, Any]] = []
    counts = dict.fromkeys(sources, 0)
    for pool in pools:
        rng.shuffle(pool)
    cursor = [0, 0, 0]
    while len(chosen) < config.k and any(cursor[i] < len(pools[i]) for i in range(3)):
        for i, pool in enumerate(pools):
            while cursor[i] < len(pool) and len(chosen) < config.k:
                candidate = pool[cursor[i]]
                cursor[i] += 1
                name = candidate["function"]["name"]
                if name not in taken and _NAME.fullmatch(name):
                    taken.add(name)
                    chosen.append(candidate)
                    counts[sources[i]] += 1
                    break
    if not chosen:
        raise NotApplicable("no distractor candidates")
    tools = [*offered, *chosen]
    rng.shuffle(tools)
    record = {"k": len(chosen), "added": [t["function"]["name"] for t in chosen], "sources": counts}
    return RowPair({**sft, "tools": tools}, {**pair.rl, "tools": tools}, record)


_PLACEHOLDER = "no_such_tool"


def check(ctx: Any) -> None:
    """The distractors are recorded, not executable, change nothing and reveal no answer fact: calling one
    gives the same error as calling any unknown name, apart from the name (which the row offers anyway)."""
    added = ctx.augmentation.get("added")
    foreign = [t["function"]["name"] for t in ctx.row["tools"] if t["function"]["name"] not in ctx.builder.tools]
    if not isinstance(added, list) or not added or sorted(added) != sorted(foreign):
        raise Invalid("distractors_not_recorded", f"offered {foreign[:5]}, recorded {str(added)[:80]}")
    env = ctx.builder.env(ctx.initial)
    facts = [f["value"] for f in ctx.truth["answer_facts"]]
    blank = tool_content(env.call(_PLACEHOLDER, {}))
    if any(mentions(normalize_text(blank), fact) for fact in facts):
        raise Invalid("distractor_reveals_fact", _PLACEHOLDER)
    for name in added:
        output = env.call(name, {})
        if not is_error(output) or output["error"]["code"] != UNKNOWN_TOOL:
            raise Invalid("distractor_executable", name)
        if tool_content(output).replace(name, _PLACEHOLDER) != blank:
            raise Invalid("distractor_reveals_fact", f"{name}: its error says more than that the tool is unknown")
    if any(env.state.changed_keys().values()):
        raise Invalid("distractor_changed_state")


KIND = Kind(name="distractors", position=10, config=Config, apply=apply, check=check,
            description="extra near-miss, other-domain and shared-parameter tools in shuffled order")
