"""The preservation proof of an augmented row: the oracle still holds, and what changed is explicit.

:func:`validate_augmented_row` checks one augmented SFT or RL row on its own, like
:func:`covert.validation.validate_row` does for base rows, and raises :class:`covert.errors.Invalid`:

1. L1: the row validates against its schema, with every offered tool (distractors included) checked
   against ``schemas/tool.schema.json``; every tool named like one of the builder's is exactly the
   builder's spec; every oracle tool is offered; anything else is a recorded distractor.
2. L2: the oracle is re-executed twice on the row's initial state: the same calls give the recorded
   outputs hash, final-state hash and answer facts, and no oracle call fails.
3. The kind's own proof (e.g. distractors cannot change state; the clarification gives exactly the
   missing value; a permanent failure leaves the recorded state).
4. L3: grounding, leaks, selections and minimality on the query the agent sees (for a clarification,
   the query plus the user's answer).
5. The SFT trajectory is the oracle's, changed only as the ground truth says: a clarifying exchange,
   a failed call followed by identical retries or by a failure report, tool outputs shown with noise or
   in another format (each proven to keep what the task needs). RL rows carry no outputs, so the
   presentation is regenerated from the row's record and proven the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

from covert.augment.registry import Kind, get_kind
from covert.augment.rows import augmented_task_id, flat_calls, truth_of
from covert.augment.simulator import template_answer
from covert.env import Builder, UnknownBuilderError, get_builder, is_error
from covert.env.state import State
from covert.schemas import SchemaViolation, validator
from covert.validation import (
    Invalid,
    Oracle,
    _check_deterministic,
    _check_replay,
    _check_semantics,
    _check_tools,
    _replay,
)
from covert.views import tool_content

__all__ = ["Context", "is_augmented", "validate_augmented_pair", "validate_augmented_row"]

_PAIR_FIELDS = ("task_id", "environment", "builder", "builder_version", "category", "difficulty", "num_calls",
                "augmentations", "base_task_id", "tools")


@dataclass
class Context:
    """What a kind's checks see: the row, its oracle re-executed, and the texts the agent is shown."""

    row: dict[str, Any]
    view: str
    builder: Builder
    kind: Kind
    augmentation: dict[str, Any]
    truth: dict[str, Any]
    calls: list[dict[str, Any]]
    outputs: list[Any]
    initial: State
    query: str
    clarification_answer: str
    answer: str | None


def is_augmented(row: dict[str, Any]) -> bool:
    """Whether a row is an augmented row (it names a base row)."""
    return bool(row.get("base_task_id"))


def validate_augmented_row(row: dict[str, Any], kind: str) -> None:
    """Validate one augmented row (``kind`` is the view: ``"sft"`` or ``"rl"``); raises ``Invalid``."""
    if kind not in ("sft", "rl"):
        raise ValueError(f"kind must be 'sft' or 'rl', got {kind!r}")
    try:
        _validate(row, kind)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, StopIteration) as exc:
        raise Invalid("malformed_augmented_row", f"{type(exc).__name__}: {exc}"[:160]) from None


def validate_augmented_pair(sft: dict[str, Any], rl: dict[str, Any]) -> None:
    """Both views of one augmented task: the SFT row fully, the RL row fully and as the same task."""
    validate_augmented_row(sft, "sft")
    validate_augmented_row(rl, "rl")
    if (
        any(sft.get(f) != rl.get(f) for f in _PAIR_FIELDS)
        or sft["ground_truth"] != rl["reward_model"]["ground_truth"]
        or sft["initial_state"] != rl["extra_info"]["initial_state"]
        or rl["prompt"] != sft["messages"][:2]
    ):
        raise Invalid("views_disagree", sft["task_id"])


def _validate(row: dict[str, Any], view: str) -> None:
    try:
        validator(f"{view}_row")(row)
    except SchemaViolation as exc:
        raise Invalid("schema", str(exc)[:200]) from None
    augmentations = row["augmentations"]
    if not row["base_task_id"] or not augmentations:
        raise Invalid("not_augmented", "an augmented row names its base row and its augmentation")
    try:
        specs = [get_kind(a["kind"]) for a in augmentations]
    except KeyError:
        raise Invalid("unknown_augmentation", str([a.get("kind") for a in augmentations])[:40]) from None
    if any(a.position >= b.position for a, b in pairwise(specs)) \
            or sum(k.present is not None for k in specs) > 1 or len({a.get("seed") for a in augmentations}) != 1:
        raise Invalid("stacked_augmentations", "stacked kinds run in their fixed order, with one seed and at most "
                                               "one kind that changes how outputs are shown")
    augmentation = next((a for a, k in zip(augmentations, specs) if k.present is not None), augmentations[0])
    spec = get_kind(augmentation["kind"])  # the kind that shows the outputs, when one does
    if row["task_id"] != augmented_task_id(row["base_task_id"], [k.name for k in specs], augmentation.get("seed")):
        raise Invalid("augmented_task_id", row["task_id"])
    if view == "rl" and row["extra_info"]["task_id"] != row["task_id"]:
        raise Invalid("task_id_mismatch", row["extra_info"]["task_id"])
    try:
        builder = get_builder(row["builder"])
    except UnknownBuilderError as exc:
        raise Invalid("unknown_builder", str(exc)) from None
    if row["builder_version"] != builder.version:
        raise Invalid("builder_version", f"row has {row['builder_version']}, installed {builder.version}")
    own = builder.environment.tool_specs
    names = [t["function"]["name"] for t in row["tools"]]
    if len(set(names)) != len(names):
        raise Invalid("duplicate_tool_name")
    foreign = [n for n in names if n not in own]
    if foreign and "distractors" not in {k.name for k in specs}:
        raise Invalid("unexpected_tool", foreign[0])
    truth = truth_of(row)
    messages = row["messages"] if view == "sft" else row["prompt"]
    if [m["role"] for m in messages[:2]] != ["system", "user"]:
        raise Invalid("message_order", "expected system, user first")
    if view == "rl" and len(messages) != 2:
        raise Invalid("message_order", "an RL prompt is the system and user messages")
    query = messages[1]["content"]
    clarification_answer = ""
    if truth["behaviour"] == "clarify":
        if view == "sft":
            if len(messages) < 4 or messages[3]["role"] != "user":
                raise Invalid("message_order", "a clarifying row has the user's answer as the fourth message")
            clarification_answer = messages[3]["content"]
        else:
            clarification_answer = template_answer(truth, query, truth["clarify"]["question"])
    answer = messages[-1]["content"] if view == "sft" else None
    seen_query = f"{query} {clarification_answer}".strip()
    state = row["initial_state"] if view == "sft" else row["extra_info"]["initial_state"]
    oracle = Oracle(view, builder.name, seen_query, [t for t in row["tools"] if t["function"]["name"] in own],
                    truth["calls"], truth, state, None, answer if truth["behaviour"] != "report_error" else None)
    _check_tools(builder.environment, oracle)
    initial = State.from_dict(state, copy=False)
    replay = _replay(builder.environment, oracle, initial)
    _check_deterministic(replay, _replay(builder.environment, oracle, initial))
    outputs = replay.outputs
    _check_replay(oracle, outputs, replay.final_hash)
    for i, output in enumerate(outputs):
        if is_error(output):
            raise Invalid("oracle_call_failed", f"call {i}: {output['error']['code']}")
    ctx = Context(row, view, builder, spec, augmentation, truth, flat_calls(truth), outputs, initial, query,
                  clarification_answer, answer)
    for kind, record in zip(specs, augmentations):  # each kind's own proof, on its own record
        if kind.check is not None:
            kind.check(replace(ctx, kind=kind, augmentation=record))
    _check_semantics(builder, oracle, replay, initial)
    if view == "sft":
        _check_trajectory(ctx)
    elif spec.present is not None and spec.check_output is not None:
        for j, output in enumerate(outputs):
            spec.check_output(ctx, j, spec.present(augmentation, truth, j, output))


def _content(ctx: Context, j: int, content: str) -> None:
    if ctx.kind.check_output is not None:
        ctx.kind.check_output(ctx, j, content)
    elif content != tool_content(ctx.outputs[j]):
        raise Invalid("replay_outputs", f"call {j}: tool message differs from the replayed output")


class _Cursor:
    def __init__(self, messages: list[dict[str, Any]], start: int) -> None:
        self.messages = messages
        self.pos = start

    def take(self, role: str, what: str) -> dict[str, Any]:
        if self.pos >= len(self.messages) or self.messages[self.pos]["role"] != role:
            raise Invalid("message_order", f"expected {what} at message {self.pos}")
        self.pos += 1
        return self.messages[self.pos - 1]

    def calls(self, group: list[dict[str, Any]]) -> list[str]:
        message = self.take("assistant", "an assistant tool-call turn")
        made = message.get("tool_calls") or []
        got = [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in made]
        if got != group:
            raise Invalid("calls_mismatch", str(got)[:120])
        return [c["id"] for c in made]

    def result(self, call_id: str, name: str) -> str:
        message = self.take("tool", "a tool message")
        if message["tool_call_id"] != call_id or message["name"] != name:
            raise Invalid("tool_call_ids", "every tool call needs exactly one tool message, in order")
        return message["content"]


def _check_trajectory(ctx: Context) -> None:
    """The SFT messages are the oracle's trajectory with exactly the recorded changes."""
    truth, messages = ctx.truth, ctx.row["messages"]
    cursor = _Cursor(messages, 2)
    if truth["behaviour"] == "clarify":
        question = cursor.take("assistant", "the clarifying question")
        if question.get("tool_calls") or not question["content"].strip():
            raise Invalid("clarification_question", "the assistant asks before calling tools")
        cursor.take("user", "the user's answer")
    failure = truth.get("failure") if truth["behaviour"] in ("retry", "report_error") else None
    failed = tool_content({"error": failure["error"]}) if failure else None
    flat = 0
    for t, group in enumerate(truth["calls"]):
        if failure and not failure["transient"] and t > failure["turn"]:
            break
        ids = cursor.calls(group)
        for k, call in enumerate(group):
            content = cursor.result(ids[k], call["name"])
            if failure and flat + k == failure["call"]:
                if content != failed:
                    raise Invalid("failure_not_shown", f"call {failure['call']}")
            else:
                _content(ctx, flat + k, content)
        if failure and failure["transient"] and t == failure["turn"]:
            j = failure["call"]
            for attempt in range(failure["attempts"]):
                (retry_id,) = cursor.calls([group[j - flat]])
                content = cursor.result(retry_id, group[j - flat]["name"])
                if attempt < failure["attempts"] - 1:
                    if content != failed:
                        raise Invalid("failure_not_shown", f"retry {attempt} of call {j}")
                else:
                    _content(ctx, j, content)
        flat += len(group)
    final = cursor.take("assistant", "the final answer")
    if final.get("tool_calls") or cursor.pos != len(messages):
        raise Invalid("message_order", "the trajectory ends with one final answer")
