"""SFT and RL rows of a procedural environment's tool-call form, in the shape of covert's tool rows.

The rows follow ``schemas/sft_row.schema.json`` and ``schemas/rl_row.schema.json`` (configs
``sft-procgen-tools`` and ``rl-procgen-tools``): the prompt (system and user message) with the tools offered,
the builder ``procgen.<env>`` (:mod:`covert.procgen.tool_forms`), the instance's own initial state
(``initial_state`` / ``extra_info.initial_state``), the oracle calls grouped by turn, and the expected final
state's hash and diff. The ground truth also holds the instance's identity and data::

    {"procgen": {"env", "version", "seed", "config", "index", "form": "tools", "data"}}

so ``covert.rewards.score`` (and the TRL and verl rewards through it) hand a completion to the environment's
tool scorer (any optimal plan scores 1, not only the oracle's), and ``covert validate`` re-derives the
instance, its optimum and both rows from that identity, then replays the oracle calls.
"""

from __future__ import annotations

from typing import Any

from covert.env import State
from covert.procgen.contract import Instance, ProceduralEnv
from covert.procgen.rows import ground_truth, level_of, task_id
from covert.procgen.tool_form import ToolForm
from covert.procgen.tool_forms import builder_version
from covert.views import call_id, outputs_hash, tool_content

SFT_TOOLS_CONFIG = "sft-procgen-tools"
RL_TOOLS_CONFIG = "rl-procgen-tools"
TOOLS_CONFIGS = (SFT_TOOLS_CONFIG, RL_TOOLS_CONFIG)
CATEGORY = "state_changing"
ABILITY = "tool_use"
FORM = "tools"
COMPONENTS = {"calls": 0.0, "state": 1.0, "facts": 0.0, "behaviour": 0.0}
"""Reward weights the rows record: the final state alone (any optimal plan is right, not only the oracle's)."""


class TooManyCalls(ValueError):
    """An instance whose oracle needs more calls than a row may hold."""


def make_tool_rows(env: ProceduralEnv, form: ToolForm, seed: int, config: dict[str, Any], index: int,
                   split: str, row_index: int) -> tuple[dict[str, Any], dict[str, Any], Instance]:
    """``(sft row, rl row, instance)`` of instance ``index`` in ``form``; ``config`` must be complete.

    Raises :class:`TooManyCalls` when the oracle needs more than ``form.max_calls`` calls.
    """
    instance = env.sample(seed, config, index)
    data = instance.data
    groups = form.oracle(instance)
    count = sum(len(g) for g in groups)
    if count > form.max_calls:
        raise TooManyCalls(f"{env.name} instance {index} needs {count} tool calls; a row holds at most "
                           f"{form.max_calls}: use a smaller configuration")
    tid = task_id(env, seed, config, index) + "-tools"
    state = form.initial_state(data)
    initial = State.from_dict(state)
    session = form.environment(initial.fork())
    ids = [call_id(tid, i) for i in range(count)]
    messages: list[dict[str, Any]] = [{"role": "system", "content": form.system_prompt},
                                      {"role": "user", "content": form.prompt(data)}]
    outputs = []
    n = 0
    for group in groups:
        turn = {"role": "assistant", "content": "", "tool_calls": []}
        results = []
        for call in group:
            output = session.call(call["name"], call["arguments"])
            outputs.append(output)
            turn["tool_calls"].append({"id": ids[n], "type": "function",
                                       "function": {"name": call["name"], "arguments": call["arguments"]}})
            results.append({"role": "tool", "tool_call_id": ids[n], "name": call["name"],
                            "content": tool_content(output)})
            n += 1
        messages += [turn, *results]
    messages.append({"role": "assistant", "content": form.answer(data)})
    final = session.state
    truth = {
        "behaviour": "tool_use", "calls": groups, "answer_facts": [], "selections": [], "reasoning": [],
        "final_state_hash": final.hash(), "outputs_hash": outputs_hash(outputs),
        "state_diff": [change.to_dict() for change in initial.diff(final)],
        "procgen": {**ground_truth(env, seed, config, index, instance)["procgen"], "form": FORM},
    }
    common = {
        "task_id": tid, "environment": form.builder_name, "builder": form.builder_name,
        "builder_version": builder_version(env, form), "category": CATEGORY,
        "difficulty": f"L{level_of(env, config)}", "num_calls": count, "augmentations": [], "base_task_id": None,
        "pass_rate": None, "calibration": None, "tools": form.environment.openai_tools(),
    }
    sft = {**common, "messages": messages, "initial_state": state, "ground_truth": truth}
    rl = {**common, "prompt": messages[:2], "data_source": "covert/" + form.builder_name, "ability": ABILITY,
          "reward_model": {"style": "rule", "ground_truth": truth, "components": dict(COMPONENTS)},
          "extra_info": {"index": row_index, "split": split, "task_id": tid, "initial_state": state}}
    return sft, rl, instance

