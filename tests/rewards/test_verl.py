"""covert inside verl itself, as the README's "### verl" subsection configures it.

verl's own pieces run here: its Hydra config with the README's overrides, ``RLHFDataset`` (through
``data.custom_cls``) on covert's RL parquet, ``initialize_tools_from_config`` on the generated tool
config (all builders), ``ToolAgentLoop`` driven by a scripted server (a stand-in for the policy that
emits the oracle's tool-call text; verl parses it and runs covert's tools), and the reward loop's
``NaiveRewardManager`` loaded by ``load_reward_manager`` from ``custom_reward_function``.
"""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

verl = pytest.importorskip("verl")
pytest.importorskip("verl.experimental.agent_loop.tool_agent_loop")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from hydra import compose, initialize_config_dir  # noqa: E402
from tensordict import TensorDict  # noqa: E402
from verl import DataProto  # noqa: E402
from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap  # noqa: E402
from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop  # noqa: E402
from verl.tools.tool_registry import initialize_tools_from_config  # noqa: E402
from verl.trainer.ppo.reward import load_reward_manager  # noqa: E402
from verl.utils.dataset.rl_dataset import collate_fn, get_dataset_class  # noqa: E402
from verl.utils.import_utils import load_extern_object  # noqa: E402
from verl.workers.rollout.replica import TokenOutput  # noqa: E402

import covert.rewards.verl as covert_verl  # noqa: E402
from covert.build import BuildConfig, build  # noqa: E402
from covert.env import get_builder  # noqa: E402
from covert.io.reader import iter_rows  # noqa: E402
from covert.rewards import oracle_completion, score, verl_multi_turn_limits, verl_tool_config  # noqa: E402
from tests.tiny_tokenizer import tiny_tool_tokenizer  # noqa: E402

README = Path(__file__).resolve().parents[2] / "README.md"
QUICKSTART = "data/covert-tools"  # where the README's quickstart writes its dataset


# -- the README's verl subsection -----------------------------------------------------------------------


def verl_section() -> str:
    text = README.read_text()
    start = text.index("### verl")
    end = min(i for i in (text.find("\n## ", start), text.find("\n### ", start + 1), len(text)) if i != -1)
    return text[start:end]


def blocks(section: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section, re.DOTALL)


def readme_overrides(cwd: Path) -> list[str]:
    """The ``key=value`` overrides of the README's verl command line, run from ``cwd``."""
    (command,) = [b for b in blocks(verl_section(), "bash") if "verl.trainer" in b]  # not the install lines
    words = shlex.split(command.replace("\\\n", " ").replace("$PWD", str(cwd)))
    return [w for w in words if re.match(r"^[a-z_]+(\.[A-Za-z_]+)+=", w)]


# -- fixtures ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working directory like the README's: ``data/covert-tools`` holds
    ``covert build --builders retail,airline,hotels --num-tasks 40 --seed 3 --multi-turn``; then the
    README's verl snippets ran there."""
    root = tmp_path_factory.mktemp("verl")
    build(BuildConfig(builders=["retail", "airline", "hotels"], num_tasks=40, seed=3, multi_turn=True),
          root / QUICKSTART, progress=False)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        for snippet in blocks(verl_section(), "python"):
            exec(compile(snippet, "README.md", "exec"), {"__name__": "__readme__"})
    finally:
        os.chdir(cwd)
    return root


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return tiny_tool_tokenizer()


@pytest.fixture(scope="module")
def config(workdir: Path) -> Any:
    """verl's own trainer config with the README's overrides (paths made absolute), and lengths for
    the tiny tokenizer (about one token per byte)."""
    overrides = [o.replace(f"={QUICKSTART}", f"={workdir / QUICKSTART}") for o in readme_overrides(workdir)]
    overrides += ["actor_rollout_ref.rollout.prompt_length=16384", "actor_rollout_ref.rollout.response_length=32768",
                  "data.max_prompt_length=16384"]
    config_dir = Path(verl.__file__).parent / "trainer" / "config"
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


@pytest.fixture(scope="module")
def dataset(config: Any, tokenizer: Any, workdir: Path) -> Any:
    """verl's dataset class as the config names it, on covert's ``rl`` train parquet."""
    cls = get_dataset_class(config.data)
    return cls(data_files=config.data.train_files, tokenizer=tokenizer, config=config.data)


@pytest.fixture(scope="module")
def tools(config: Any) -> list[Any]:
    return initialize_tools_from_config(config.actor_rollout_ref.rollout.multi_turn.tool_config_path)


@pytest.fixture(scope="module")
def oracle(workdir: Path) -> dict[str, dict[str, Any]]:
    """SFT rows (the oracle conversations) by task id, and the RL rows read with pyarrow."""
    return {row["task_id"]: row for row in iter_rows(workdir / QUICKSTART, "sft")}


@pytest.fixture(scope="module")
def exact_rl(workdir: Path) -> dict[str, dict[str, Any]]:
    return {row["task_id"]: row for row in iter_rows(workdir / QUICKSTART, "rl", split="train")}


# -- a scripted policy server -----------------------------------------------------------------------------


class ScriptedServer:
    """What verl's ToolAgentLoop calls to generate (``generate(request_id, prompt_ids=...,
    sampling_params=...)``): it answers each turn with the next scripted assistant message, rendered
    as hermes text and tokenized, under the names the model was shown, and records each prompt (the
    tool responses included) it was given."""

    def __init__(self, tokenizer: Any, turns: list[dict[str, Any]], names: dict[str, str]) -> None:
        self.tokenizer = tokenizer
        self.turns = list(turns)
        self.names = names  # the row's tool name -> the name the model sees
        self.prompts: list[str] = []

    async def generate(self, request_id: str, *, prompt_ids: list[int], sampling_params: dict[str, Any],
                       **kwargs: Any) -> TokenOutput:
        self.prompts.append(self.tokenizer.decode(prompt_ids))
        message = self.turns.pop(0)
        text = message.get("content") or ""
        for call in message.get("tool_calls") or []:
            name = self.names.get(call["function"]["name"], call["function"]["name"])
            body = json.dumps({"name": name, "arguments": call["function"]["arguments"]}, ensure_ascii=False)
            text += f"\n<tool_call>\n{body}\n</tool_call>"
        ids = self.tokenizer.encode(text + "<|im_end|>", add_special_tokens=False)
        return TokenOutput(token_ids=ids, log_probs=[0.0] * len(ids), stop_reason="completed")


def assistant_turns(sft: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in sft["messages"] if m["role"] == "assistant"]


def visible_names(row: dict[str, Any]) -> dict[str, str]:
    """The row's tool name -> the name verl shows the model."""
    return dict(zip([t["function"]["name"] for t in row["tools"]], row["extra_info"].get("tool_selection") or []))


async def rollout(config: Any, tokenizer: Any, dataset: Any, tools: list[Any], row: dict[str, Any],
                  turns: list[dict[str, Any]]) -> tuple[Any, ScriptedServer]:
    """One rollout of verl's ToolAgentLoop, with ``row`` as verl's worker hands it (its non-tensor fields)."""
    server = ScriptedServer(tokenizer, turns, visible_names(row))
    loop = ToolAgentLoop(trainer_config=DictConfigWrap(config), server_manager=server, tokenizer=tokenizer,
                         processor=None, dataset_cls=type(dataset), data_config=DictConfigWrap(config.data),
                         tools=ToolListWrap(tools))
    kwargs = {k: v for k, v in row.items() if not isinstance(v, torch.Tensor)}
    output = await loop.run(sampling_params={"temperature": 1.0}, **kwargs)
    return output, server


def reward_batch(output: Any, row: dict[str, Any]) -> DataProto:
    """The one-sample batch verl's agent loop worker sends its reward workers (as in
    ``AgentLoopWorker._compute_score``), after a round trip through pickle, as between Ray workers."""
    prompts = torch.tensor(output.prompt_ids, dtype=torch.int64)
    responses = torch.tensor(output.response_ids, dtype=torch.int64)
    input_ids = torch.cat([prompts, responses])
    batch = TensorDict({"prompts": prompts[None], "responses": responses[None], "input_ids": input_ids[None],
                        "attention_mask": torch.ones_like(input_ids)[None]}, batch_size=1)
    kwargs = {k: v for k, v in row.items() if not isinstance(v, torch.Tensor)}
    non_tensor = {**{k: np.array([v]) for k, v in kwargs.items()},
                  "__num_turns__": np.array([output.num_turns]),
                  "tool_extra_fields": np.array([output.extra_fields], dtype=object)}
    return pickle.loads(pickle.dumps(DataProto(batch=batch, non_tensor_batch=non_tensor)))


def corrupt(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The oracle conversation with the first call's first string argument changed."""
    out = json.loads(json.dumps(turns))
    for message in out:
        for call in message.get("tool_calls") or []:
            for key, value in call["function"]["arguments"].items():
                if isinstance(value, str):
                    call["function"]["arguments"][key] = value + "X"
                    return out
    raise AssertionError("no string argument to corrupt")


# -- tests -------------------------------------------------------------------------------------------------


def test_readme_config_loads_covert_through_verls_loaders(config: Any, workdir: Path) -> None:
    reward = config.reward.custom_reward_function
    assert load_extern_object(reward.path, reward.name) is not None
    # the file form works as well: verl loads the file without registering it as a module
    from_file = load_extern_object(covert_verl.__file__, "compute_score")
    assert from_file is not covert_verl.compute_score and callable(from_file)
    multi_turn = config.actor_rollout_ref.rollout.multi_turn
    limits = verl_multi_turn_limits(iter_rows(workdir / QUICKSTART, "rl"))
    assert multi_turn.max_parallel_calls >= limits["max_parallel_calls"] > 1
    assert multi_turn.max_tool_response_length >= limits["max_tool_response_length"] > 256
    assert config.data.tool_config_path == multi_turn.tool_config_path
    assert (workdir / "covert_tools.yaml").read_text() == verl_tool_config("all")


def test_rlhf_dataset_loads_covert_rows_with_one_state_each(config: Any, tokenizer: Any, dataset: Any,
                                                             workdir: Path, exact_rl: dict[str, Any]) -> None:
    assert type(dataset).__name__ == "CovertRLHFDataset" and len(dataset) == len(exact_rl)
    for i in range(len(dataset)):
        row = dataset[i]
        create = row["tools_kwargs"]["covert"]["create_kwargs"]
        assert set(row["tools_kwargs"]) == {"covert"}
        assert create["initial_state"] is row["extra_info"]["initial_state"]  # shared, not copied
        assert create["ground_truth"] is row["reward_model"]["ground_truth"]
        assert create["task_id"] == row["task_id"] and create["environment"] == row["builder"]
        assert len(row["extra_info"]["tool_selection"]) == len(row["tools"])
        assert row["raw_prompt"] == row["prompt"]
    # one state per row on the way to verl's workers: a batch as verl collates and pickles it keeps
    # the entry and extra_info pointing at one state
    samples = [dataset[i] for i in range(4)]
    batch = pickle.loads(pickle.dumps(DataProto.from_single_dict(collate_fn(samples))))
    for extra, kwargs in zip(batch.non_tensor_batch["extra_info"], batch.non_tensor_batch["tools_kwargs"]):
        assert kwargs["covert"]["create_kwargs"]["initial_state"] is extra["initial_state"]
    bare = DataProto.from_single_dict(collate_fn([{**s, "tools_kwargs": {}} for s in samples]))
    states = sum(len(pickle.dumps(s["extra_info"]["initial_state"])) for s in samples)
    assert len(pickle.dumps(batch)) - len(pickle.dumps(bare)) < states / 20
    # the multi-turn config, whose state has an empty 'counters' table, loads as well
    multiturn = sorted((workdir / QUICKSTART / "rl-multiturn").glob("train-*.parquet"))
    turns = get_dataset_class(config.data)(data_files=[str(p) for p in multiturn], tokenizer=tokenizer,
                                           config=config.data)
    assert len(turns) > 0 and turns[0]["tools_kwargs"]["covert"]["create_kwargs"]["initial_state"]


def shown_tools(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The row's tools under the names the mixed-builder config gives them."""
    return [{**spec, "function": {**spec["function"], "name": name}}
            for spec, name in zip(row["tools"], row["extra_info"]["tool_selection"])]


def test_mixed_builder_tool_config_offers_each_row_its_own_tools(tools: list[Any], dataset: Any) -> None:
    by_name = {tool.name: tool for tool in tools}
    assert len(by_name) == len(tools) == sum(len(get_builder(b).tools) for b in covert_verl.builder_names())
    assert {"hotels__book_room", "calendar__book_room"} <= set(by_name) and "book_room" not in by_name
    for i in range(len(dataset)):
        row = dataset[i]
        for spec, name in zip(row["tools"], row["extra_info"]["tool_selection"]):
            own = spec["function"]["name"]
            assert name == (f"hotels__{own}" if own == "book_room" else own)
            assert covert_verl.own_name(name, row["builder"]) == own
        # verl's tool objects show the model the row's tools, items and defaults included
        assert [by_name[n].tool_schema.model_dump(exclude_unset=True, exclude_none=True)
                for n in row["extra_info"]["tool_selection"]] == shown_tools(row)


def widest(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The row with the largest parallel turn (then the most calls)."""
    return max(rows, key=lambda r: (max((len(g) for g in r["reward_model"]["ground_truth"]["calls"]), default=0),
                                    r["num_calls"]))


def test_tool_agent_loop_runs_covert_tools_and_the_reward_manager_scores_them(
        config: Any, tokenizer: Any, dataset: Any, tools: list[Any], oracle: dict[str, Any]) -> None:
    rows = [dataset[i] for i in range(len(dataset))]
    chosen = [widest([r for r in rows if r["builder"] == b and r["num_calls"] >= 2]) for b in ("retail", "airline")]
    chosen.append(next(r for r in rows if r["category"] == "irrelevance"))
    # a hotels row that books a room (or, where the sample holds none, one that offers it): the model sees
    # hotels__book_room among its tools
    booking = next((r for r in rows if "book_room" in json.dumps(r["reward_model"]["ground_truth"]["calls"])), None) \
        or next(r for r in rows if r["builder"] == "hotels" and r["num_calls"] >= 2
                and "hotels__book_room" in r["extra_info"]["tool_selection"])
    assert "hotels__book_room" in booking["extra_info"]["tool_selection"]
    assert max(len(g) for r in chosen for g in r["reward_model"]["ground_truth"]["calls"]) > 1

    async def run_all() -> list[tuple[float, float, Any, ScriptedServer]]:
        manager = load_reward_manager(config, tokenizer)  # verl makes it in the reward worker's event loop
        assert type(manager).__name__ == "NaiveRewardManager"
        results = []
        for row in [*chosen, booking]:
            turns = assistant_turns(oracle[row["task_id"]])
            output, server = await rollout(config, tokenizer, dataset, tools, row, turns)
            good = (await manager.run_single(reward_batch(output, row)))["reward_score"]
            bad = good
            if row["num_calls"]:
                bad_output, _ = await rollout(config, tokenizer, dataset, tools, row, corrupt(turns))
                bad = (await manager.run_single(reward_batch(bad_output, row)))["reward_score"]
            results.append((good, bad, output, server))
        return results

    results = asyncio.run(run_all())
    for row, (good, bad, output, server) in zip([*chosen, booking], results):
        sft = oracle[row["task_id"]]
        # covert's tools ran in verl, every oracle call of the row, and what they leave pickles
        assert output.extra_fields.get("covert_calls", 0) == row["num_calls"], row["task_id"]
        pickle.loads(pickle.dumps(output.extra_fields))
        # the policy's prompt offered the row's tools and no others
        assert server.prompts[0] == tokenizer.apply_chat_template(row["prompt"], tools=shown_tools(row),
                                                                  add_generation_prompt=True, tokenize=False)
        shown = "".join(server.prompts)
        assert '"code":"unknown_tool"' not in shown and '"code":"no_environment"' not in shown
        # verl's reward is covert's verdict on the oracle conversation
        assert good == score(row, oracle_completion(sft)).value
        # on the row's state, to the oracle's final state, each tool response shown to the policy whole
        if row["num_calls"]:
            assert output.extra_fields["covert_state_hash"] == row["reward_model"]["ground_truth"]["final_state_hash"]
            assert bad < 1.0, row["task_id"]
        for message in sft["messages"]:
            if message["role"] == "tool":
                assert message["content"] in shown
        assert good == 1.0, row["task_id"]


def test_verl_defaults_run_one_call_of_a_parallel_turn_and_cut_responses(
        config: Any, tokenizer: Any, dataset: Any, tools: list[Any], oracle: dict[str, Any]) -> None:
    """Why the README sets the two limits: with verl's defaults (1 call, 256 characters) the other
    calls of a parallel turn never run and longer tool responses are cut."""
    with initialize_config_dir(config_dir=str(Path(verl.__file__).parent / "trainer" / "config"), version_base=None):
        defaults = compose(config_name="ppo_trainer").actor_rollout_ref.rollout.multi_turn
    assert (defaults.max_parallel_calls, defaults.max_tool_response_length) == (1, 256)
    def first_response(r: dict[str, Any]) -> int:  # the first call always runs, whatever the limits
        return next(len(m["content"]) for m in oracle[r["task_id"]]["messages"] if m["role"] == "tool")

    parallel = [r for r in (dataset[i] for i in range(len(dataset)))
                if max((len(g) for g in r["reward_model"]["ground_truth"]["calls"]), default=0) > 1]
    row = max(parallel, key=lambda r: (first_response(r), r["num_calls"]))
    limited = config.copy()
    limited.actor_rollout_ref.rollout.multi_turn.max_parallel_calls = defaults.max_parallel_calls
    limited.actor_rollout_ref.rollout.multi_turn.max_tool_response_length = defaults.max_tool_response_length
    output, server = asyncio.run(rollout(limited, tokenizer, dataset, tools, row,
                                         assistant_turns(oracle[row["task_id"]])))
    assert output.extra_fields["covert_calls"] < row["num_calls"]
    assert first_response(row) > 256 and "(truncated)" in "".join(server.prompts)


def test_tool_refuses_another_builders_tool(tools: list[Any], dataset: Any) -> None:
    row = next(dataset[i] for i in range(len(dataset)) if dataset[i]["builder"] == "retail")
    tool = next(t for t in tools if t.name == "hotels__book_room")

    class Rollout:  # the two attributes of verl's AgentData a tool reads
        def __init__(self) -> None:
            self.tools_kwargs = row["tools_kwargs"]
            self.extra_fields: dict[str, Any] = {}

    async def call() -> str:
        instance, _ = await tool.create(create_kwargs={})
        response, _, metrics = await tool.execute(instance, {}, agent_data=Rollout())
        await tool.release(instance)
        assert metrics == {"tool_error": True}
        return response.text

    assert json.loads(asyncio.run(call()))["error"]["code"] == "unknown_tool"
    assert "book_room" in get_builder("hotels").environment.tool_specs
