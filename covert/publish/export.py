"""``covert export``: a dataset's rows in the formats other trainers read.

- ``openai-jsonl``: OpenAI chat fine-tuning JSONL, ``{"messages": [...], "tools": [...]}``; assistant
  tool calls carry ``arguments`` as JSON strings and tool messages their ``tool_call_id``.

The conversational formats take an sft config (``sft`` or ``sft-multiturn``); xLAM takes any config.
Assistant ``reasoning_content`` (multi-turn plans) is kept only by ``verl-sft``: the OpenAI and ShareGPT
formats have no field for it.
- ``sharegpt``: ShareGPT as LLaMA-Factory reads it: ``conversations`` of ``{from, value}`` with
  ``human``/``gpt``/``function_call``/``observation``, ``system``, and ``tools`` as a JSON string.
  A turn's parallel calls are one ``function_call`` holding a JSON list, and their results one
  ``observation`` joined the way LLaMA-Factory joins tool responses. ``.json`` paths get a JSON array,
  anything else JSON Lines.
- ``xlam``: xLAM/APIGen rows: ``query``, ``tools`` (JSON string of ``{name, description, parameters}``)
  and ``answers`` (JSON string of the oracle's ``[{name, arguments}]``, every turn in order).
- ``verl-sft``: Parquet for verl's multi-turn SFT dataset, which reads it with pandas and does not
  decode JSON: ``messages`` and ``tools`` are plain list-of-struct columns. Parquet gives every row of
  a column one struct type, so the two open-ended objects, a call's ``arguments`` and a tool's
  ``parameters`` schema, are JSON strings (OpenAI's wire format); everything else is nested data.

The dataset is checked first (:func:`covert.io.checked.open_dataset`): a dataset with a missing, extra or
damaged shard is refused. Every writer goes through a temporary file that is renamed into place when complete.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from covert.io import loader_safe
from covert.io.checked import open_dataset
from covert.io.features import kind_of
from covert.io.kinds import row_labels, text_config
from covert.io.reader import DatasetError, iter_rows
from covert.io.staging import sweep
from covert.publish import FORMATS

# LLaMA-Factory's separator between the results of one turn's parallel calls.
OBSERVATION_SEPARATOR = "\n</tool_response>\n<tool_response>\n"


class ExportError(DatasetError):
    """A row or a request that cannot be exported; the message says why."""


@dataclass
class ExportReport:
    """What an export wrote."""

    path: Path
    rows: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    form: str = ""  # what the file holds: "JSON Lines", "a JSON array" or "Parquet"
    created: Path | None = None  # the folder made for ``path``, when it was not there

    def describe(self) -> str:
        """One line naming the file written, its form and the folder made for it."""
        made = f"; created the folder {self.created}" if self.created is not None else ""
        return f"wrote {self.rows} rows to {self.path} ({self.form}{made})"


def _dumps(value: Any) -> str:
    # loader-safe: pandas' ujson (load_dataset("json"), read_json) reads every number back as written
    return loader_safe.dumps(value).decode()


def ground_truth(row: dict[str, Any]) -> dict[str, Any]:
    """The oracle record of an SFT or RL row."""
    return row["ground_truth"] if "ground_truth" in row else row["reward_model"]["ground_truth"]


def to_openai(row: dict[str, Any]) -> dict[str, Any]:
    """One SFT row as an OpenAI chat fine-tuning record."""
    messages = []
    for message in row["messages"]:
        role = message["role"]
        if role == "tool":
            messages.append({"role": "tool", "tool_call_id": message["tool_call_id"], "content": message["content"]})
        elif role == "assistant" and message.get("tool_calls"):
            out: dict[str, Any] = {"role": "assistant"}
            if message.get("content"):
                out["content"] = message["content"]
            out["tool_calls"] = [{"id": call["id"], "type": "function",
                                  "function": {"name": call["function"]["name"],
                                               "arguments": _dumps(call["function"]["arguments"])}}
                                 for call in message["tool_calls"]]
            messages.append(out)
        else:
            messages.append({"role": role, "content": message.get("content") or ""})
    # a procedural text row offers no tools: its record is the conversation alone
    return {"messages": messages, "tools": row["tools"]} if "tools" in row else {"messages": messages}


def to_sharegpt(row: dict[str, Any]) -> dict[str, Any]:
    """One SFT row as a ShareGPT (LLaMA-Factory) record; raises :class:`ExportError` if turns do not alternate."""
    system = "\n\n".join(m["content"] for m in row["messages"] if m["role"] == "system")
    turns: list[dict[str, str]] = []
    results: list[str] = []
    for message in row["messages"]:
        role = message["role"]
        if role == "tool":
            results.append(message["content"])
            continue
        if results:
            turns.append({"from": "observation", "value": OBSERVATION_SEPARATOR.join(results)})
            results = []
        if role == "user":
            turns.append({"from": "human", "value": message["content"]})
        elif role == "assistant" and message.get("tool_calls"):
            if message.get("content"):
                raise ExportError("an assistant turn holds both text and tool calls, which ShareGPT cannot express")
            calls = [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in message["tool_calls"]]
            turns.append({"from": "function_call", "value": _dumps(calls[0] if len(calls) == 1 else calls)})
        elif role == "assistant":
            turns.append({"from": "gpt", "value": message.get("content") or ""})
    if results:
        turns.append({"from": "observation", "value": OBSERVATION_SEPARATOR.join(results)})
    for position, turn in enumerate(turns):
        expected = ("human", "observation") if position % 2 == 0 else ("gpt", "function_call")
        if turn["from"] not in expected:
            raise ExportError(f"turn {position} is {turn['from']}, ShareGPT needs {' or '.join(expected)} there")
    if len(turns) % 2:
        raise ExportError("ShareGPT needs the conversation to end with an assistant turn")
    return {"conversations": turns, "system": system, "tools": _dumps(row.get("tools") or [])}


def to_xlam(row: dict[str, Any]) -> dict[str, Any]:
    """One SFT or RL row as an xLAM record (the first user message is the query)."""
    messages = row["messages"] if "messages" in row else row["prompt"]
    query = next((m["content"] for m in messages if m["role"] == "user"), None)
    if query is None:
        raise ExportError("row has no user message")
    calls = [{"name": c["name"], "arguments": c["arguments"]} for turn in ground_truth(row)["calls"] for c in turn]
    tools = [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
              "parameters": t["function"].get("parameters", {})} for t in row["tools"]]
    return {"id": row["task_id"], "query": query, "tools": _dumps(tools), "answers": _dumps(calls)}


def to_verl(row: dict[str, Any]) -> dict[str, Any]:
    """One SFT row as plain nested data for verl (see :func:`verl_schema`)."""
    messages = []
    for message in row["messages"]:
        calls = message.get("tool_calls") or None
        messages.append({
            "role": message["role"], "content": message.get("content") or "",
            "tool_calls": [{"id": c["id"], "type": c.get("type", "function"),
                            "function": {"name": c["function"]["name"], "arguments": _dumps(c["function"]["arguments"])}}
                           for c in calls] if calls else None,
            "tool_call_id": message.get("tool_call_id"), "name": message.get("name"),
            "reasoning_content": message.get("reasoning_content"),
        })
    tools = [{"type": t.get("type", "function"),
              "function": {"name": t["function"]["name"], "description": t["function"].get("description", ""),
                           "parameters": _dumps(t["function"].get("parameters", {}))}} for t in row.get("tools") or []]
    builder, category = row_labels(row)
    return {"messages": messages, "tools": tools, "task_id": row["task_id"], "builder": builder, "category": category}


def verl_schema() -> Any:
    """The Arrow schema of the ``verl-sft`` Parquet file."""
    import pyarrow as pa

    call = pa.struct([("id", pa.string()), ("type", pa.string()),
                      ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())]))])
    message = pa.struct([("role", pa.string()), ("content", pa.string()), ("tool_calls", pa.list_(call)),
                         ("tool_call_id", pa.string()), ("name", pa.string()), ("reasoning_content", pa.string())])
    tool = pa.struct([("type", pa.string()), ("function", pa.struct([
        ("name", pa.string()), ("description", pa.string()), ("parameters", pa.string())]))])
    return pa.schema([("messages", pa.list_(message)), ("tools", pa.list_(tool)), ("task_id", pa.string()),
                      ("builder", pa.string()), ("category", pa.string())])


CONVERTERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "openai-jsonl": to_openai, "sharegpt": to_sharegpt, "xlam": to_xlam, "verl-sft": to_verl,
}
# formats that need whole trajectories (assistant turns), which only sft configs hold
_SFT_ONLY = ("openai-jsonl", "sharegpt", "verl-sft")


def export(root: str | Path, fmt: str, out: str | Path, config: str = "sft", split: str | None = None) -> ExportReport:
    """Write the rows of ``config`` (one ``split`` or all) in format ``fmt`` to ``out``, atomically."""
    if fmt not in CONVERTERS:
        raise ExportError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt in _SFT_ONLY and kind_of(config) != "sft":
        raise ExportError(f"--to {fmt} needs an sft config (sft, sft-multiturn, sft-procgen, ...): {config} rows are "
                          "prompts without assistant turns")
    if fmt == "xlam" and text_config(config):
        raise ExportError(f"--to xlam writes tool calls, and {config} rows are procedural text tasks without tools "
                          "or calls; export them --to openai-jsonl, sharegpt or verl-sft")
    dataset = open_dataset(root)  # missing, extra or damaged shards are refused before anything is written
    if config not in dataset.configs:
        raise ExportError(f"{root} has no config {config!r}; its configs: {', '.join(dataset.configs)}")
    out = Path(out)
    if out.is_dir():
        raise ExportError(f"{out} is a directory; give a file path to --out")
    if out.parent.is_dir():
        sweep(out)  # temporary files of killed exports
    form = ("Parquet" + (", though the name does not end in .parquet" if out.suffix != ".parquet" else "")
            if fmt == "verl-sft" else "a JSON array" if fmt == "sharegpt" and out.suffix == ".json"
            else "JSON Lines")
    report = ExportReport(out, form=form, created=_missing_folder(out.parent))
    records = _convert(iter_rows(root, config, split), CONVERTERS[fmt], report)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "verl-sft":
            _write_parquet(records, tmp)
        elif fmt == "sharegpt" and out.suffix == ".json":
            _write_json_array(records, tmp)
        else:
            _write_jsonl(records, tmp)
        if report.rows == 0:
            why = f" (every row skipped: {next(iter(report.skipped))})" if report.skipped else ""
            raise ExportError(f"no rows to export from {config}/{split or 'all splits'}{why}; nothing was written")
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        if report.created is not None:
            _remove_made(report.created)
        raise
    return report


def _missing_folder(folder: Path) -> Path | None:
    """The outermost folder of ``folder`` that does not exist yet (``None`` when it does)."""
    missing = None
    while not folder.exists():
        missing, folder = folder, folder.parent
        if folder == missing:
            break
    return missing


def _remove_made(top: Path) -> None:
    """Remove the folders an export that failed made for its file (those still empty)."""
    for folder in [*sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True), top]:
        with contextlib.suppress(OSError):
            folder.rmdir()


def _convert(rows: Iterable[dict[str, Any]], convert: Callable[[dict[str, Any]], dict[str, Any]],
             report: ExportReport) -> Iterator[dict[str, Any]]:
    for row in rows:
        try:
            record = convert(row)
        except (ExportError, KeyError, TypeError) as exc:
            reason = str(exc) if isinstance(exc, ExportError) else f"malformed row ({type(exc).__name__}: {exc})"
            report.skipped[reason] = report.skipped.get(reason, 0) + 1
            continue
        report.rows += 1
        yield record


def _write_jsonl(records: Iterable[dict[str, Any]], path: Path) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(_dumps(record) + "\n")


def _write_json_array(records: Iterable[dict[str, Any]], path: Path) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("[")
        for i, record in enumerate(records):
            handle.write(("," if i else "") + "\n" + _dumps(record))
        handle.write("\n]\n")


def _write_parquet(records: Iterable[dict[str, Any]], path: Path, batch: int = 1000) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = verl_schema()
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        buffer: list[dict[str, Any]] = []
        for record in records:
            buffer.append(record)
            if len(buffer) >= batch:
                writer.write_table(pa.Table.from_pylist(buffer, schema=schema))
                buffer = []
        if buffer:
            writer.write_table(pa.Table.from_pylist(buffer, schema=schema))


def llama_factory_entry(path: str | Path) -> dict[str, Any]:
    """The ``dataset_info.json`` entry LLaMA-Factory needs for a ``sharegpt`` export."""
    return {Path(path).stem: {"file_name": Path(path).name, "formatting": "sharegpt",
                              "columns": {"messages": "conversations", "system": "system", "tools": "tools"}}}
