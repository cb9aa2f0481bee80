"""Every covert reward entry point gives a row the same score before and after any covert transformation
of it, and a row it cannot read is said to be unreadable (an exception or a :class:`BadRowWarning`),
never scored a silent 0.

Rows of every RL config (``rl``, ``rl-multiturn``, ``rl-augmented``, ``rl-procgen``) of a real build are
loaded with ``datasets.load_dataset``; hypothesis draws a row and a completion (the oracle, a final answer
that states nothing, the oracle with every argument wrong, the oracle without its last call turn), and
checks ``score`` before against each transformation after: ``covert.rewards.trl_dataset`` (with
``score``, ``Scorer``, ``oracle_completion`` and ``trl_reward``), verl's ``CovertRLHFDataset`` (with
``compute_score``), OpenEnv's reset by index (the episode's reward), and ``covert export``.
"""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from covert.procgen.rows import procgen_truth
from covert.rewards import (
    BadRowWarning,
    Scorer,
    compute_score,
    oracle_completion,
    score,
    trl_dataset,
    trl_reward,
)
from covert.user.simulator import STOP_SIGNALS
from tests.integrations.conftest import load

CONFIGS = ("rl", "rl-multiturn", "rl-augmented", "rl-procgen")
SFT_OF = {"rl": "sft", "rl-multiturn": "sft-multiturn", "rl-augmented": "sft-augmented", "rl-procgen": "sft-procgen"}
KINDS = ("oracle", "nothing", "wrong_arguments", "short")
EXAMPLES = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def folders(covert_data: Path, augmented_data: Path, procgen_data: Path) -> dict[str, Path]:
    return {"rl": covert_data, "rl-multiturn": covert_data, "rl-augmented": augmented_data, "rl-procgen": procgen_data}


@pytest.fixture(scope="module")
def rows(folders: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    cache = tmp_path_factory.mktemp("invariance-cache")
    return {config: load(folders[config], config, cache) for config in CONFIGS}


@pytest.fixture(scope="module")
def trl_rows(folders: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    from datasets import load_dataset

    cache = tmp_path_factory.mktemp("invariance-trl")
    return {config: list(trl_dataset(load_dataset(str(folders[config]), config, split="train", cache_dir=str(cache))))
            for config in CONFIGS}


def completion(row: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    oracle = oracle_completion(row)
    if kind == "oracle":
        return oracle
    if kind == "nothing":
        return [{"role": "assistant", "content": "I could not find anything."}]
    if kind == "wrong_arguments":
        out = copy.deepcopy(oracle)
        for message in out:
            for call in message.get("tool_calls") or []:
                call["function"]["arguments"] = {k: "ZZ-wrong" for k in call["function"]["arguments"]}
        return out
    calls = [k for k, m in enumerate(oracle) if m.get("tool_calls")]
    return oracle[:calls[-1]] + oracle[-1:] if calls else [{"role": "assistant", "content": ""}]


def hermes(messages: list[dict[str, Any]]) -> str:
    """Messages as a Qwen-style chat template shows a rollout to verl."""
    out = []
    for m in messages:
        if m["role"] == "assistant":
            text = m.get("content") or ""
            for call in m.get("tool_calls") or []:
                body = json.dumps({"name": call["function"]["name"], "arguments": call["function"]["arguments"]})
                text += f"<tool_call>\n{body}\n</tool_call>"
            out.append(f"<|im_start|>assistant\n{text}<|im_end|>\n")
        elif m["role"] == "tool":
            out.append(f"<|im_start|>user\n<tool_response>\n{m['content']}\n</tool_response><|im_end|>\n")
        else:
            out.append(f"<|im_start|>user\n{m['content']}<|im_end|>\n")
    return "".join(out)


def solution_text(row: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    """What verl decodes of a rollout: the chat-template text, or a procedural row's answer text."""
    if procgen_truth(row) is not None and not row.get("tools"):
        return messages[-1].get("content") or ""
    return hermes(messages)


def draw(data: Any, rows: dict[str, list[dict[str, Any]]]) -> tuple[str, int, str]:
    config = data.draw(st.sampled_from(CONFIGS), label="config")
    index = data.draw(st.integers(0, len(rows[config]) - 1), label="row")
    return config, index, data.draw(st.sampled_from(KINDS), label="completion")


def test_every_config_has_rows_and_its_oracle_scores_one(rows: dict[str, list[dict[str, Any]]]) -> None:
    for config in CONFIGS:
        assert len(rows[config]) >= 10, config
        for row in rows[config]:
            assert score(row, oracle_completion(row)).value == 1.0, (config, row["task_id"])
            assert score(row, completion(row, "nothing")).value < 1.0, (config, row["task_id"])


@EXAMPLES
@given(data=st.data())
def test_trl_dataset_changes_no_score(data: Any, rows: dict, trl_rows: dict) -> None:
    config, index, kind = draw(data, rows)
    row, routed = rows[config][index], trl_rows[config][index]
    assert routed["task_id"] == row["task_id"]
    messages = completion(row, kind)
    before = score(row, messages)
    with warnings.catch_warnings():
        warnings.simplefilter("error", BadRowWarning)  # a row read wrongly would warn: fail on it
        assert score(routed, messages) == before
        assert Scorer().score(routed, messages) == before
        assert oracle_completion(routed) == oracle_completion(row)
        columns = {k: [v] for k, v in routed.items()}
        assert trl_reward([messages], **columns) == [before.value]


@EXAMPLES
@given(data=st.data())
def test_verl_formatting_changes_no_score(data: Any, rows: dict, verl_rows: dict) -> None:
    config, index, kind = draw(data, rows)
    row, formatted = rows[config][index], verl_rows[config][index]
    assert formatted["task_id"] == row["task_id"]
    text = solution_text(row, completion(row, kind))
    before = compute_score(row["data_source"], text, row["reward_model"]["ground_truth"], row["extra_info"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", BadRowWarning)
        after = compute_score(formatted["data_source"], text, formatted["reward_model"]["ground_truth"],
                              formatted["extra_info"])
    assert after == before
    if kind == "oracle":
        assert after == 1.0
    if kind == "nothing":
        assert after < 1.0


@pytest.fixture(scope="module")
def verl_rows(folders: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """Each config's train rows as verl's ``RLHFDataset`` (covert's ``CovertRLHFDataset``) gives them."""
    pytest.importorskip("verl")
    from omegaconf import OmegaConf

    from covert.rewards.verl_dataset import CovertRLHFDataset
    from tests.tiny_tokenizer import tiny_tool_tokenizer

    tokenizer = tiny_tool_tokenizer()
    out = {}
    for config in CONFIGS:
        files = sorted(str(p) for p in (folders[config] / config).glob("train-*.parquet"))
        settings_ = OmegaConf.create({"max_prompt_length": 1_000_000, "filter_overlong_prompts": False,
                                      "cache_dir": str(tmp_path_factory.mktemp("verl-cache"))})
        dataset = CovertRLHFDataset(data_files=files, tokenizer=tokenizer, config=settings_)
        out[config] = [dataset[i] for i in range(len(dataset))]
    return out


@pytest.fixture(scope="module")
def openenv(folders: dict[str, Path]) -> Any:
    pytest.importorskip("openenv.core")
    from covert.integrations.openenv import CovertOpenEnv

    return CovertOpenEnv(datasets=sorted({str(path) for path in folders.values()}))


def _play(env: Any, messages: list[dict[str, Any]], **reset: Any) -> Any:
    from covert.integrations.openenv import CovertAction

    result = env.reset(**reset)
    for message in messages:
        if message["role"] == "assistant":
            result = env.step(CovertAction(content=message.get("content") or "", tool_calls=message.get("tool_calls")))
            if result.done:
                break
    return result


@EXAMPLES
@given(data=st.data())
def test_openenv_reset_by_index_changes_no_score(data: Any, rows: dict, folders: dict, openenv: Any) -> None:
    config = data.draw(st.sampled_from(CONFIGS[:3]), label="config")
    index = data.draw(st.integers(0, len(rows[config]) - 1), label="row")
    kind = data.draw(st.sampled_from(KINDS), label="completion")
    row = rows[config][index]
    messages = completion(row, kind)
    by_index = _play(openenv, messages, index=index, dataset=str(folders[config]), config=config)
    played = openenv.completion
    by_row = _play(openenv, messages, row=row)
    assert (by_index.done, by_index.reward) == (by_row.done, by_row.reward)
    if by_index.done:  # the episode's reward is the reward of its conversation, the user's goodbye left out
        scored = played[:-1] if by_index.stop in STOP_SIGNALS and played and played[-1]["role"] == "user" else played
        assert by_index.reward == score(row, scored).value
    if kind == "oracle":
        assert by_index.done and by_index.reward == 1.0 == score(row, messages).value


def test_openenv_says_a_procedural_text_row_has_no_episode(rows: dict, openenv: Any) -> None:
    with pytest.raises(ValueError, match="procedural text row offers no tools"):
        openenv.reset(row=rows["rl-procgen"][0])


@pytest.fixture(scope="module")
def exports(folders: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], list[dict]]:
    """``covert export`` of each config's sft rows (openai-jsonl, verl-sft, sharegpt) and rl rows (xlam),
    read back with ``datasets.load_dataset``, in the order of the exported rows."""
    from datasets import load_dataset

    from covert.publish.export import export

    out: dict[tuple[str, str], list[dict]] = {}
    folder = tmp_path_factory.mktemp("exports")
    for config in CONFIGS:
        for fmt, source, suffix in (("openai-jsonl", SFT_OF[config], "jsonl"), ("verl-sft", SFT_OF[config], "parquet"),
                                    ("sharegpt", SFT_OF[config], "jsonl"), ("xlam", config, "jsonl")):
            path = folder / f"{config}-{fmt}.{suffix}"
            try:
                export(folders[config], fmt, path, config=source, split="train")
            except Exception as error:  # noqa: BLE001 - a format that cannot hold these rows says so
                out[(config, fmt)] = [{"export_error": str(error)}]
                continue
            kind = "parquet" if suffix == "parquet" else "json"
            out[(config, fmt)] = list(load_dataset(kind, data_files=str(path), split="train",
                                                   cache_dir=str(folder / "cache")))
    return out


def _sft_rows(folders: dict[str, Path], config: str) -> list[dict[str, Any]]:
    from covert.io.reader import iter_rows

    return list(iter_rows(folders[config], SFT_OF[config], "train"))


@EXAMPLES
@given(data=st.data())
def test_exported_trajectories_score_as_the_recorded_ones(data: Any, rows: dict, folders: dict,
                                                          exports: dict) -> None:
    config = data.draw(st.sampled_from(CONFIGS[:3]), label="config")  # procgen text rows: see below
    sft = _sft_rows(folders, config)
    index = data.draw(st.integers(0, len(sft) - 1), label="row")
    fmt = data.draw(st.sampled_from(["openai-jsonl", "verl-sft"]), label="format")
    rl = {row["task_id"]: row for row in rows[config]}[sft[index]["task_id"]]
    recorded = oracle_completion(sft[index])
    exported = exports[(config, fmt)]
    assert "export_error" not in exported[0], exported[0]
    messages = exported[index]["messages"]
    start = next(k for k, m in enumerate(messages) if m["role"] == "assistant")
    after = [{k: v for k, v in m.items() if v is not None} for m in messages[start:]]
    assert score(rl, after) == score(rl, recorded)
    assert score(rl, after).value == 1.0


@pytest.mark.parametrize("fmt", ["xlam", "sharegpt", "openai-jsonl"])
def test_an_exported_record_is_not_a_row_and_scoring_it_says_so(fmt: str, rows: dict, exports: dict) -> None:
    record = next(r for r in exports[("rl", fmt)])
    assert "export_error" not in record, record
    with pytest.warns(BadRowWarning, match="could not score this row"):
        result = score(record, oracle_completion(rows["rl"][0]))
    assert result.value == 0.0 and result.reasons[0].startswith("row:")
    with pytest.raises(ValueError):
        oracle_completion(record) if fmt != "openai-jsonl" else oracle_completion({**record, "messages": None})


def test_procedural_text_rows_are_exported_as_plain_conversations(exports: dict) -> None:
    """A procedural text row has no tools: exported, it is a conversation without a tool call."""
    for fmt in ("openai-jsonl", "verl-sft", "sharegpt"):
        records = exports[("rl-procgen", fmt)]
        assert records and "export_error" not in records[0], records[:1]
        text = json.dumps(records[0])
        assert '"tool_calls": [{' not in text and '"function_call"' not in text, text[:300]
