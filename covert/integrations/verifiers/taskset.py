"""covert rows as a verifiers 0.4 taskset (``verifiers.v1``); see :mod:`covert.integrations.verifiers`.

``vf-eval covert_verifiers --env.taskset.dataset data/covert-tools`` (verifiers' own CLI; the id is the
top-level module ``covert_verifiers``, since verifiers 0.4 imports a taskset only by such a name), or in
Python ``verifiers.v1.load_environment(verifiers.v1.resolve_env_config({"taskset": {"id":
"covert_verifiers", "dataset": ...}}))``. Each task is one RL row (``CovertData.row``);
its tools come from the rollout's :class:`~covert.integrations.verifiers.toolset.CovertToolset`, its
reward is ``covert.rewards.score`` of the trace's messages, and its ``validate`` replays the oracle.
The agent runs in verifiers' ``null`` harness (a chat loop with the tools over MCP) on the local
subprocess runtime unless the run pins another.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import verifiers.v1 as vf

from covert.integrations.verifiers.calls import plain_message
from covert.integrations.verifiers.toolset import CovertToolset
from covert.rewards import oracle_completion, score
from covert.rewards.trl_env import user_scenario_of
from covert.user.scenario import UserScenario
from covert.user.simulator import TemplateUser

MAX_TURNS = 30
"""Model turns per rollout (the agent's ``max_turns`` unless the run sets it)."""


class CovertData(vf.TaskData):
    """One covert RL row (``row``, as ``datasets.load_dataset`` gives it) and its prompt."""

    row: dict[str, Any]


class CovertTaskConfig(vf.TaskConfig):
    """Where each rollout's tool server runs (``--env.taskset.task.tools.*``)."""

    tools: vf.ToolsetConfig = vf.ToolsetConfig()


def completion_of(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """A trace's messages as covert scores them: everything after the opening system and user messages."""
    out = [plain_message(m) for m in messages]
    start = 0
    while start < len(out) and out[start].get("role") in ("system", "user"):
        start += 1
    return out[start:]


class CovertTask(vf.Task[CovertData, vf.State, CovertTaskConfig]):
    """A covert row: the row's tools (one server per rollout) and covert's reward."""

    @classmethod
    def toolsets(cls, config: CovertTaskConfig) -> list[vf.Toolset]:
        return [CovertToolset(config.tools)]

    @property
    def key(self) -> str:
        """The row's ``task_id`` (unique in a covert config)."""
        return self.data.id or self.hash

    async def validate(self, runtime: Any) -> bool | None:
        """The row's oracle scores 1.0."""
        return score(self.data.row, oracle_completion(self.data.row)).value == 1.0

    @vf.reward
    async def covert(self, trace: vf.Trace) -> float:
        """``covert.rewards.score`` of the conversation; its components and reasons go to ``trace.info``."""
        result = score(self.data.row, completion_of(trace.messages))
        trace.info["covert"] = result.to_dict()
        return result.value


class CovertTasksetConfig(vf.TasksetConfig):
    """Which rows load (``--env.taskset.*``)."""

    dataset: str = "data/covert-tools"
    """A directory covert wrote, or a Hub repo id."""
    config: str = "rl"
    """``rl``, ``rl-multiturn``, ``rl-augmented``, ``rl-procgen``, ...; any config of RL rows."""
    split: str = "train"
    num_examples: int = -1
    """Rows to load (all: -1)."""
    cache_dir: str | None = None
    task: CovertTaskConfig = CovertTaskConfig()


def covert_task(row: Mapping[str, Any], config: CovertTaskConfig | None = None) -> CovertTask:
    """The task of one RL row."""
    row = dict(row)
    data = CovertData(id=str(row.get("task_id") or "") or None, name=str(row.get("task_id") or "") or None,
                      prompt=[dict(m) for m in row.get("prompt") or []], row=row)
    return CovertTask(data, config)


class CovertTaskset(vf.Taskset[CovertTask, CovertTasksetConfig]):
    """The rows of one config and split of a covert dataset, read with ``datasets.load_dataset``."""

    def load(self) -> Iterator[CovertTask]:
        import datasets

        rows = datasets.load_dataset(self.config.dataset, self.config.config, split=self.config.split,
                                     cache_dir=self.config.cache_dir)
        if self.config.num_examples >= 0:
            rows = rows.select(range(min(self.config.num_examples, len(rows))))
        for row in rows:
            yield covert_task(row, self.config.task)


class CovertEnvConfig(vf.EnvConfig):
    """The one agent seat: verifiers' ``null`` harness (a chat loop with MCP tools) on the local
    subprocess runtime, at most :data:`MAX_TURNS` model turns (``--env.agent.*`` changes any of it)."""

    agent: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"}, runtime=vf.SubprocessConfig(),
                                           max_turns=MAX_TURNS)


class CovertEnv(vf.Env[CovertEnvConfig]):
    """One rollout per row; on a row with a user scenario, covert's template user answers each message
    without tool calls (as in ``covert.rollouts``) until it ends the conversation."""

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        scenario = user_scenario_of(task.data.row)
        if scenario is None:
            await agents.agent.run(task)
            return
        user = TemplateUser(UserScenario.from_dict(scenario))
        async with agents.agent.interaction(task) as chat:
            segment = await chat.turn()
            while not segment.terminated:
                said = [plain_message(m) for m in segment.messages if getattr(m, "role", None) == "assistant"]
                reply = user.reply(said[-1] if said else {"role": "assistant", "content": ""})
                if reply.stop is not None:
                    break
                segment = await chat.turn(reply.content)
