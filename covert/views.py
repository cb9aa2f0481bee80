"""Views of a task record: the SFT row and the RL row (the contracts in ``schemas/``)."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from covert.env import get_builder
from covert.env.state import canonical_bytes

ABILITY = "tool_use"
REWARD_COMPONENTS = {"calls": 1.0, "state": 1.0, "facts": 1.0, "behaviour": 1.0}


def outputs_hash(outputs: list[Any]) -> str:
    """Hash of the oracle's tool outputs, so RL rows (which do not carry outputs) can check replay."""
    return hashlib.sha256(canonical_bytes(outputs)).hexdigest()[:32]


def tool_content(output: Any) -> str:
    """A tool output as the string a tool message carries."""
    return orjson.dumps(output).decode()


def call_id(task_id: str, index: int) -> str:
    """A deterministic tool-call id that looks like the ones APIs issue."""
    return "call_" + hashlib.sha1(f"{task_id}:{index}".encode()).hexdigest()[:24]


def _metadata(task: Any) -> dict[str, Any]:
    return {
        "task_id": task.task_id,
        "environment": task.builder,
        "builder": task.builder,
        "builder_version": task.builder_version,
        "category": task.category,
        "difficulty": task.difficulty,
        "num_calls": len(task.calls),
        "augmentations": task.augmentations,
        "base_task_id": None,
        "pass_rate": None,
        "calibration": None,
    }


def ground_truth(task: Any) -> dict[str, Any]:
    """The task's ground truth with the outputs hash added."""
    truth = task.ground_truth()
    truth["outputs_hash"] = outputs_hash([c.output for c in task.calls])
    return truth


def sft_row(task: Any, truth: dict[str, Any] | None = None) -> dict[str, Any]:
    """The SFT row: messages (system, user, assistant tool calls, tool results, final answer) and tools.

    ``truth`` may pass the task's :func:`ground_truth` when the caller already has it.
    """
    builder = get_builder(task.builder)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": task.system_prompt},
        {"role": "user", "content": task.query},
    ]
    ids = [call_id(task.task_id, i) for i in range(len(task.calls))]
    for group in task.groups:
        messages.append({
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": ids[i], "type": "function",
                 "function": {"name": task.calls[i].name, "arguments": task.calls[i].arguments}}
                for i in group
            ],
        })
        for i in group:
            messages.append({"role": "tool", "tool_call_id": ids[i], "name": task.calls[i].name,
                             "content": tool_content(task.calls[i].output)})
    messages.append({"role": "assistant", "content": task.answer})
    return {
        **_metadata(task),
        "messages": messages,
        "tools": builder.environment.openai_tools(task.tools),
        "initial_state": task.initial_state,
        "ground_truth": truth if truth is not None else ground_truth(task),
    }


def rl_row(task: Any, split: str, index: int, truth: dict[str, Any] | None = None) -> dict[str, Any]:
    """The RL row, shaped for both TRL GRPO (prompt, tools, environment) and verl (data_source,
    reward_model, extra_info). ``truth`` may pass the task's :func:`ground_truth` (it is copied)."""
    builder = get_builder(task.builder)
    truth = dict(truth) if truth is not None else ground_truth(task)
    return {
        **_metadata(task),
        "prompt": [{"role": "system", "content": task.system_prompt}, {"role": "user", "content": task.query}],
        "tools": builder.environment.openai_tools(task.tools),
        "data_source": f"covert/{task.builder}",
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": truth, "components": dict(REWARD_COMPONENTS)},
        "extra_info": {"index": index, "split": split, "task_id": task.task_id, "initial_state": task.initial_state},
    }
