"""Exports: every format is read back the way its trainer reads it and checked against the rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from covert.cli import main
from covert.io.reader import iter_rows
from covert.publish.export import OBSERVATION_SEPARATOR, ExportError, export


@pytest.fixture(params=["sft", "sft-multiturn"])
def source(request: pytest.FixtureRequest, dataset: Path, multiturn: Path) -> tuple[Path, str]:
    """An sft config to export: single-turn rows, or multi-turn conversations with plans."""
    return (dataset if request.param == "sft" else multiturn), request.param


def _rows(dataset: Path, config: str = "sft", split: str | None = None) -> list[dict]:
    return list(iter_rows(dataset, config, split))


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _calls(messages: list[dict]) -> list[list[dict]]:
    return [m["tool_calls"] for m in messages if m["role"] == "assistant" and m.get("tool_calls")]


def test_openai_jsonl(source: tuple[Path, str], tmp_path: Path) -> None:
    dataset, config = source
    out = tmp_path / "train.jsonl"
    report = export(dataset, "openai-jsonl", out, config=config)
    rows, records = _rows(dataset, config), _jsonl(out)
    assert report.rows == len(rows) == len(records) and not report.skipped
    for row, record in zip(rows, records, strict=True):
        assert set(record) == {"messages", "tools"} and record["tools"] == row["tools"]
        assert [m["role"] for m in record["messages"]] == [m["role"] for m in row["messages"]]
        for ours, theirs in zip(_calls(row["messages"]), _calls(record["messages"]), strict=True):
            for a, b in zip(ours, theirs, strict=True):
                assert isinstance(b["function"]["arguments"], str)
                assert json.loads(b["function"]["arguments"]) == a["function"]["arguments"]
                assert (b["id"], b["type"], b["function"]["name"]) == (a["id"], "function", a["function"]["name"])
        issued: set[str] = set()
        for message in record["messages"]:
            issued |= {c["id"] for c in message.get("tool_calls", [])}
            if message["role"] == "tool":
                assert set(message) == {"role", "tool_call_id", "content"} and message["tool_call_id"] in issued
            else:
                assert set(message) <= {"role", "content", "tool_calls"}


@pytest.mark.parametrize("name", ["train.jsonl", "train.json"])
def test_sharegpt_for_llama_factory(source: tuple[Path, str], tmp_path: Path, name: str) -> None:
    dataset, config = source
    out = tmp_path / name
    export(dataset, "sharegpt", out, config=config)
    records = json.loads(out.read_text()) if name.endswith(".json") else _jsonl(out)
    rows = _rows(dataset, config)
    assert len(records) == len(rows)
    for row, record in zip(rows, records, strict=True):
        turns = record["conversations"]
        for i, turn in enumerate(turns):  # LLaMA-Factory: human/observation at odd, gpt/function_call at even positions
            assert turn["from"] in (("human", "observation") if i % 2 == 0 else ("gpt", "function_call"))
        assert len(turns) % 2 == 0 and turns[-1]["from"] == "gpt"
        assert record["system"] == "\n\n".join(m["content"] for m in row["messages"] if m["role"] == "system")
        assert json.loads(record["tools"]) == row["tools"]
        calls = [json.loads(t["value"]) for t in turns if t["from"] == "function_call"]
        calls = [c if isinstance(c, list) else [c] for c in calls]
        assert calls == [[{"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in turn]
                         for turn in _calls(row["messages"])]
        observations = [t["value"].split(OBSERVATION_SEPARATOR) for t in turns if t["from"] == "observation"]
        assert [r for o in observations for r in o] == [m["content"] for m in row["messages"] if m["role"] == "tool"]
        assert [len(o) for o in observations] == [len(c) for c in calls]
        finals = [m["content"] for m in row["messages"] if m["role"] == "assistant" and not m.get("tool_calls")]
        assert [t["value"] for t in turns if t["from"] == "gpt"] == finals
        users = [m["content"] for m in row["messages"] if m["role"] == "user"]
        assert [t["value"] for t in turns if t["from"] == "human"] == users


@pytest.mark.parametrize("config", ["sft", "rl", "rl-multiturn"])
def test_xlam(dataset: Path, multiturn: Path, tmp_path: Path, config: str) -> None:
    dataset = multiturn if "multiturn" in config else dataset
    out = tmp_path / "xlam.jsonl"
    export(dataset, "xlam", out, config=config, split="train")
    rows, records = _rows(dataset, config, "train"), _jsonl(out)
    assert len(records) == len(rows) > 0
    for row, record in zip(rows, records, strict=True):
        truth = row["ground_truth"] if config == "sft" else row["reward_model"]["ground_truth"]
        messages = row["messages"] if config == "sft" else row["prompt"]
        assert record["id"] == row["task_id"]
        assert record["query"] == next(m["content"] for m in messages if m["role"] == "user")
        assert json.loads(record["answers"]) == [{"name": c["name"], "arguments": c["arguments"]}
                                                 for turn in truth["calls"] for c in turn]
        tools = json.loads(record["tools"])
        assert [(t["name"], t["parameters"]) for t in tools] == [
            (t["function"]["name"], t["function"]["parameters"]) for t in row["tools"]]
        if truth["behaviour"] != "tool_use":
            assert json.loads(record["answers"]) == []


def _plain(value):
    """What verl does to a pandas cell: numpy arrays become lists, recursively."""
    import numpy as np

    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, np.ndarray)):
        return [_plain(v) for v in list(value)]
    return value


@pytest.mark.parametrize("backend", [None, "pyarrow"])
def test_verl_sft_parquet_reads_with_pandas_without_json_decoding(source: tuple[Path, str], tmp_path: Path,
                                                                 backend) -> None:
    import pandas as pd

    dataset, config = source
    out = tmp_path / "sft.parquet"
    export(dataset, "verl-sft", out, config=config)
    frame = pd.read_parquet(out, **({"dtype_backend": backend} if backend else {}))
    rows = _rows(dataset, config)
    assert len(frame) == len(rows)
    for (_, record), row in zip(frame.iterrows(), rows, strict=True):
        messages, tools = _plain(record["messages"]), _plain(record["tools"])
        assert isinstance(messages, list) and all(isinstance(m, dict) for m in messages)
        assert [(m["role"], m["content"]) for m in messages] == [(m["role"], m["content"]) for m in row["messages"]]
        assert [m["tool_call_id"] for m in messages] == [m.get("tool_call_id") for m in row["messages"]]
        assert [m["reasoning_content"] for m in messages] == [m.get("reasoning_content") for m in row["messages"]]
        for ours, theirs in zip(_calls(row["messages"]), [m["tool_calls"] for m in messages if m["tool_calls"]],
                                strict=True):
            assert [json.loads(c["function"]["arguments"]) for c in theirs] == [c["function"]["arguments"] for c in ours]
            assert [c["id"] for c in theirs] == [c["id"] for c in ours]
        assert [(t["function"]["name"], json.loads(t["function"]["parameters"])) for t in tools] == [
            (t["function"]["name"], t["function"]["parameters"]) for t in row["tools"]]
        assert record["task_id"] == row["task_id"]
    if config == "sft-multiturn":  # the multi-turn plans survive
        assert any(m["reasoning_content"] for cell in frame["messages"] for m in _plain(cell))


def test_export_is_atomic_and_leaves_no_partial_file(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "keep.jsonl"
    out.write_text("previous\n")
    with pytest.raises(ExportError, match="no rows"):
        export(dataset, "openai-jsonl", out, split="no-such-split")
    assert out.read_text() == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.jsonl"]


@pytest.mark.parametrize("argv", [
    ["--to", "openai-jsonl", "--config", "rl"],
    ["--to", "verl-sft", "--config", "rl-multiturn"],
    ["--to", "xlam", "--config", "no-such-config"],
    ["--to", "sharegpt", "--split", "nope"],
])
def test_bad_export_requests_are_one_line_errors(dataset: Path, tmp_path: Path, capsys, argv: list[str]) -> None:
    assert main(["export", str(dataset), "--out", str(tmp_path / "x"), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("covert: error:") and "\n" not in err
    assert not (tmp_path / "x").exists()


def test_export_of_a_non_dataset_fails_cleanly(tmp_path: Path, capsys) -> None:
    assert main(["export", str(tmp_path), "--to", "xlam", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "not a covert dataset" in capsys.readouterr().err


def test_cli_export_prints_the_llama_factory_entry(dataset: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "covert_tools.json"
    assert main(["export", str(dataset), "--to", "sharegpt", "--out", str(out), "--split", "test"]) == 0
    printed = capsys.readouterr().out
    entry = json.loads(printed.split("entry: ", 1)[1])
    assert entry == {"covert_tools": {"file_name": "covert_tools.json", "formatting": "sharegpt",
                                      "columns": {"messages": "conversations", "system": "system", "tools": "tools"}}}
    assert len(json.loads(out.read_text())) == len(_rows(dataset, "sft", "test"))
