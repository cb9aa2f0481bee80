"""TRL integration: a GRPO reward function, and ``environment_factory`` classes that show each row
exactly its own tools.

TRL (``GRPOTrainer(environment_factory={name: factory})``) routes a row by its ``environment`` column
and shows it the public methods of that environment's class, fixed when the trainer starts. So a row
must route to a class whose methods are its ``tools``: :func:`trl_dataset` sets each row's
``environment`` to :func:`environment_name` (the builder name when the row offers all of the
builder's tools, else ``<builder>/<digest of its tools>``), and :func:`environment_factory` makes one
class per name::

    from covert.rewards import environment_factory, trl_dataset, trl_reward

    train = trl_dataset(load_dataset(DIR, "rl", split="train"))
    GRPOTrainer(..., train_dataset=train, reward_funcs=trl_reward,
                environment_factory=environment_factory(train))

Rows with a user scenario (``rl-multiturn``) also get ``ask_user(question)``: covert's template user
answers from the scenario, and :func:`trl_reward` scores each ``ask_user`` call and its answer as
the assistant's question and the user's reply (:func:`user_turns`). The reward replays the calls of a
completion on the row's initial state, so it does not depend on the environment instances TRL kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import orjson

from covert.env import builder_names, canonical_bytes, get_builder
from covert.rewards.composite import Scorer, default_scorer
from covert.rewards.rowview import builder_of
from covert.rewards.trl_env import USER_TOOL, CovertEnvironment, environment_class, has_user_scenario

__all__ = [
    "USER_TOOL",
    "CovertEnvironment",
    "environment_class",
    "environment_factory",
    "environment_name",
    "make_trl_reward",
    "trl_dataset",
    "trl_reward",
    "user_turns",
]

_SKIP = ("completions", "environments", "prompts", "completion_ids")


def make_trl_reward(scorer: Scorer | None = None, name: str = "covert_reward") -> Callable[..., list[float]]:
    """A TRL reward function ``f(completions, **columns) -> list[float]`` using ``scorer``.

    Each completion is scored against the row its columns make up; on rows with a user scenario its
    ``ask_user`` calls are read as user turns (:func:`user_turns`).
    """

    def reward(completions: Sequence[Any], **columns: Any) -> list[float]:
        active = scorer or default_scorer()
        n = len(completions)
        rows: list[dict[str, Any]] = [{} for _ in range(n)]
        for key, values in columns.items():
            if isinstance(values, (list, tuple)) and len(values) == n and key not in _SKIP:
                for row, value in zip(rows, values):
                    row[key] = value
        out = []
        for row, completion in zip(rows, completions):
            if has_user_scenario(row):
                completion = user_turns(completion)
            out.append(active.score(row, completion).value)
        return out

    reward.__name__ = name
    reward.__qualname__ = name
    return reward


trl_reward = make_trl_reward()
"""The default TRL reward function (default :class:`~covert.rewards.Scorer`)."""


def user_turns(completion: Any, tool: str = USER_TOOL) -> Any:
    """``completion`` (TRL's messages) with each ``ask_user`` call and its tool result turned into an
    assistant question and a user reply, after the results of the other calls of its turn.

    Calls that are not well-formed (no string ``question``) or have no result are left as calls
    (a call no row offers, which the reward counts as wrong). Text completions are returned as is.
    """
    if not isinstance(completion, list):
        return completion
    out: list[Any] = []
    i = 0
    while i < len(completion):
        message = completion[i]
        i += 1
        calls = message.get("tool_calls") if isinstance(message, Mapping) and message.get("role") == "assistant" else None
        if not isinstance(calls, list) or not any(_is_question(c, tool) for c in calls):
            out.append(message)
            continue
        results = []
        while i < len(completion) and len(results) < len(calls) and _role(completion[i]) == "tool":
            results.append(completion[i])
            i += 1
        kept_calls, kept_results, questions = [], [], []
        for k, call in enumerate(calls):
            result = results[k] if k < len(results) else None
            if _is_question(call, tool) and result is not None and result.get("name") in (tool, None):
                questions.append((call["function"]["arguments"]["question"], _text(result.get("content"))))
            else:
                kept_calls.append(call)
                if result is not None:
                    kept_results.append(result)
        kept_results += results[len(calls):]
        text = message.get("content") if isinstance(message.get("content"), str) else ""
        if kept_calls:
            out.append({**message, "tool_calls": kept_calls})
            out.extend(kept_results)
            text = ""
        for question, answer in questions:
            out.append({"role": "assistant", "content": " ".join(t for t in (text.strip(), question.strip()) if t)})
            out.append({"role": "user", "content": answer})
            text = ""
    return out


def _is_question(call: Any, tool: str) -> bool:
    function = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(function, Mapping) or function.get("name") != tool:
        return False
    arguments = function.get("arguments")
    return isinstance(arguments, Mapping) and isinstance(arguments.get("question"), str)


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, Mapping) else None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str))
    return "" if content is None else str(content)


def environment_name(row: Mapping[str, Any]) -> str:
    """The TRL environment a row routes to: its builder's name when it offers exactly the builder's
    tools (as the builder specifies them) and has no user scenario, else ``<builder>/<digest>``,
    the digest naming its tool specs (in name order) and whether it asks the user. A procedural text
    row (``data_source`` ``covert/procgen/<env>``, no tools) keeps its own ``environment``: it calls no tool."""
    if _procgen_text(row):
        return str(row.get("environment") or row["data_source"].split("/", 1)[1])
    builder = _builder_of(row)
    tools = _tools_of(row)
    asks = has_user_scenario(row)
    own = get_builder(builder).environment.openai_tools()
    if not asks and (tools is None or _by_name(tools) == _by_name(own)):
        return builder
    specs = _by_name(tools if tools is not None else own)
    digest = hashlib.sha256(canonical_bytes({"tools": specs, "ask_user": asks})).hexdigest()[:16]
    return f"{builder}/{digest}"


def trl_dataset(dataset: Any) -> Any:
    """``dataset`` with each row's ``environment`` set to :func:`environment_name` (a
    ``datasets.Dataset``, ``IterableDataset`` or a list of row dicts; the other columns are kept as they
    are). Pass the result to ``GRPOTrainer(train_dataset=...)`` and to :func:`environment_factory`."""
    if isinstance(dataset, list):
        return [{**row, "environment": environment_name(row)} for row in dataset]
    if hasattr(dataset, "add_column") and hasattr(dataset, "remove_columns") and hasattr(dataset, "__len__"):
        names = [environment_name(row) for row in _routing_rows(dataset)]
        return dataset.remove_columns("environment").add_column("environment", names)
    if hasattr(dataset, "map"):
        return dataset.map(lambda row: {"environment": environment_name(row)})
    raise TypeError(f"trl_dataset takes a datasets.Dataset, an IterableDataset or a list of rows, "
                    f"not {type(dataset).__name__}")


def environment_factory(rows: Any = "all") -> dict[str, type[CovertEnvironment]]:
    """``{name: environment class}`` for ``GRPOTrainer(environment_factory=...)``.

    ``rows`` is what :func:`trl_dataset` returned (a ``datasets.Dataset`` or a list of rows): one
    class per :func:`environment_name` among them, whose methods are that name's tools (plus
    ``ask_user`` on rows with a user scenario). Given builder names instead (``"all"``, a name, or a
    list of names): one class per builder with all its tools, named after the builder (for rows that
    offer every tool of their builder and have no user scenario).

    Raises ``ValueError`` when a row's ``environment`` is not its :func:`environment_name` (the rows
    did not go through :func:`trl_dataset`, so TRL would show them another tool list).
    """
    if isinstance(rows, str) or (isinstance(rows, (list, tuple)) and rows and all(isinstance(r, str) for r in rows)):
        names = builder_names() if rows == "all" else [rows] if isinstance(rows, str) else list(rows)
        return {name: environment_class(name) for name in names}
    classes: dict[str, type[CovertEnvironment]] = {}
    for row in _routing_rows(rows):
        name = environment_name(row)
        if row.get("environment") != name:
            raise ValueError(f"row {row.get('task_id') or '?'} routes to environment {row.get('environment')!r}, but "
                             f"its tools are those of {name!r}: pass the rows through covert.rewards.trl_dataset first")
        if _procgen_text(row):
            raise ValueError(f"row {row.get('task_id') or '?'} is a procedural text row: it offers no tools, so it "
                             "needs no environment (train on it without environment_factory)")
        if name not in classes:
            tools = _tools_of(row)
            builder = _builder_of(row)
            digest = name.partition("/")[2]
            title = f"{builder.title().replace('_', '')}Environment" + (f"_{digest}" if digest else "")
            classes[name] = environment_class(builder, _by_name(tools) if tools is not None else None,
                                              ask_user=has_user_scenario(row), name=title)
    return classes


def _routing_rows(rows: Any) -> Iterator[Mapping[str, Any]]:
    """The rows with only what routing reads: a Dataset's other columns (the initial states) are not
    decoded."""
    if not (hasattr(rows, "column_names") and hasattr(rows, "select_columns") and hasattr(rows, "flatten")):
        if not isinstance(rows, Iterable):
            raise TypeError(f"rows are a datasets.Dataset or a list of rows, not {type(rows).__name__}")
        yield from rows
        return
    wanted = [c for c in ("task_id", "environment", "builder", "data_source", "tools") if c in rows.column_names]
    if "extra_info" not in rows.column_names:
        yield from rows.select_columns(wanted)
        return
    flat = rows.select_columns([*wanted, "extra_info"]).flatten()  # a struct column becomes extra_info.<field>
    if "extra_info" in flat.column_names:  # extra_info is not a struct: it is decoded whole
        yield from flat
        return
    scenario = "extra_info.user_scenario" in flat.column_names
    for row in flat.select_columns([*wanted, *(["extra_info.user_scenario"] if scenario else [])]):
        out = {c: row[c] for c in wanted}
        out["extra_info"] = {"user_scenario": row["extra_info.user_scenario"]} if scenario else {}
        yield out


def _builder_of(row: Mapping[str, Any]) -> str:
    builder = builder_of(row)
    if builder is None:
        raise ValueError(f"row {row.get('task_id') or '?'} names no builder (builder, environment or data_source "
                         f"covert/<name>): pass covert RL rows")
    return builder


def _procgen_text(row: Mapping[str, Any]) -> bool:
    source = row.get("data_source")
    return isinstance(source, str) and source.startswith("covert/procgen/") and not _tools_of(row)


def _tools_of(row: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    tools = row.get("tools")
    if isinstance(tools, (str, bytes)):
        tools = orjson.loads(tools)
    if tools is None:
        return None
    if not isinstance(tools, list) or not all(isinstance(t, Mapping) for t in tools):
        raise ValueError(f"row {row.get('task_id') or '?'}: tools is a list of OpenAI-format tool specs")
    return tools


def _by_name(tools: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The specs in name order (the order TRL lists an environment's methods in)."""
    return sorted(tools, key=lambda t: str((t.get("function") or {}).get("name")))
