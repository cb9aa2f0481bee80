"""What ``covert report`` plots, as plain data: read from a dataset's manifest and its rows.

Nothing here imports a plotting library: :func:`collect` reads ``manifest.json`` (the build summary,
``augmentation_summary``, ``calibration``) and a few columns of the SFT rows (counts and lengths), so
the numbers can be tested and printed without matplotlib.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from covert.io.reader import load_manifest, shard_paths

# One quality-rate source: (dataset root, manifest) -> {rate name: value in [0, 1]}. ``covert audit``
# (or anything else that measures a dataset) plugs in by appending to this list; see quality_rates.
QualitySource = Callable[[Path, dict[str, Any]], dict[str, float]]
QUALITY_SOURCES: list[QualitySource] = []


@dataclass
class ReportData:
    """Every number the report shows."""

    name: str
    manifest: dict[str, Any]
    per_category: dict[str, int]
    per_builder: dict[str, int]
    tool_calls: dict[str, dict[str, int]]  # builder -> tool -> oracle calls (0 for tools never called)
    calls_per_task: list[int]  # oracle tool calls per SFT trajectory
    assistant_turns: list[int]  # assistant messages per single-turn SFT conversation
    user_turns: list[int]  # user messages per multi-turn conversation (empty without sft-multiturn)
    query_words: list[int]
    answer_words: list[int]
    rejected_by_reason: dict[str, int]
    llm_rejected_by_reason: dict[str, int]
    augmentation: dict[str, dict[str, int]]  # kind -> rows, not_applicable, rejected
    quality: dict[str, float]
    pass_rates: list[float]
    pass_rate_by_category: dict[str, list[float]] = field(default_factory=dict)

    @property
    def calibrated(self) -> bool:
        """Whether rows carry ``pass_rate`` (``covert calibrate`` ran)."""
        return bool(self.pass_rates)


def _words(text: Any) -> int:
    return len(text.split()) if isinstance(text, str) else 0


def _read(root: Path, config: str, columns: list[str]) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = []
    for path in shard_paths(root, config):
        present = [c for c in columns if c in pq.read_schema(path).names]
        table = pq.read_table(path, columns=present)
        for name in present:
            if str(table.schema.field(name).type).startswith("extension<arrow.json"):
                table = table.set_column(table.schema.get_field_index(name), name, table.column(name).cast("string"))
        rows.extend(table.to_pylist())
    return rows


def _messages(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, (str, bytes)):
        value = orjson.loads(value)
    return value if isinstance(value, list) else []


def _all_tools(manifest: dict[str, Any], builder: str) -> list[str]:
    from covert.env import UnknownBuilderError, get_builder

    try:
        return list(get_builder(builder).tools)
    except UnknownBuilderError:
        return list((manifest.get("summary", {}).get("tool_coverage", {}).get(builder) or {}).get("missing", []))


def _sft_facts(root: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    calls: dict[str, Counter[str]] = {}
    per_task, turns, query, answer = [], [], [], []
    categories: Counter[str] = Counter()
    builders: Counter[str] = Counter()
    for row in _read(root, "sft", ["builder", "category", "messages"]):
        messages = _messages(row.get("messages"))
        builder = row.get("builder") or "?"
        builders[builder] += 1
        categories[row.get("category") or "?"] += 1
        used = calls.setdefault(builder, Counter())
        assistant = [m for m in messages if m.get("role") == "assistant"]
        names = [c.get("function", {}).get("name", "?") for m in assistant for c in m.get("tool_calls") or []]
        used.update(names)
        per_task.append(len(names))
        turns.append(len(assistant))
        query.append(_words(next((m.get("content") for m in messages if m.get("role") == "user"), "")))
        final = next((m.get("content") for m in reversed(assistant) if m.get("content")), "")
        answer.append(_words(final))
    tool_calls = {}
    for builder in sorted(set(calls) | set(manifest.get("builders", {}))):
        used = calls.get(builder, Counter())
        names = _all_tools(manifest, builder)
        tool_calls[builder] = {t: used.get(t, 0) for t in [*names, *sorted(set(used) - set(names))]}
    return {"tool_calls": tool_calls, "calls_per_task": per_task, "assistant_turns": turns, "query_words": query,
            "answer_words": answer, "per_category": dict(sorted(categories.items())),
            "per_builder": dict(sorted(builders.items()))}


def _user_turns(root: Path) -> list[int]:
    if not shard_paths(root, "sft-multiturn"):
        return []
    return [sum(1 for m in _messages(r.get("messages")) if m.get("role") == "user")
            for r in _read(root, "sft-multiturn", ["messages"])]


def _pass_rates(root: Path) -> tuple[list[float], dict[str, list[float]]]:
    config = "rl-multiturn" if shard_paths(root, "rl-multiturn") else "rl"
    rates: list[float] = []
    by_category: dict[str, list[float]] = {}
    for row in _read(root, config, ["category", "pass_rate"]):
        if row.get("pass_rate") is not None:
            rates.append(float(row["pass_rate"]))
            by_category.setdefault(row.get("category") or "?", []).append(float(row["pass_rate"]))
    return rates, dict(sorted(by_category.items()))


def _augmentation(manifest: dict[str, Any]) -> dict[str, dict[str, int]]:
    per_kind = (manifest.get("augmentation_summary") or {}).get("per_kind") or {}
    return {kind: {"rows": int(c.get("rows", 0)), "not_applicable": int(c.get("not_applicable", 0)),
                   "rejected": int(sum((c.get("rejected") or {}).values()))} for kind, c in per_kind.items()}


def _build_rates(root: Path, manifest: dict[str, Any]) -> dict[str, float]:
    """The rates every build records: acceptance and diversity (build summary), augmentation acceptance,
    mean calibrated pass rate."""
    summary = manifest.get("summary", {})
    diversity = summary.get("diversity", {})
    rates = {"acceptance rate": summary.get("acceptance_rate"),
             "unique query share": diversity.get("unique_query_share"),
             "distinct 4-gram ratio": diversity.get("distinct_4gram_ratio")}
    if summary.get("accepted"):
        rates["distinct tool sequences / task"] = diversity.get("distinct_tool_sequences", 0) / summary["accepted"]
    kinds = _augmentation(manifest)
    if kinds:
        made = sum(k["rows"] for k in kinds.values())
        tried = made + sum(k["rejected"] for k in kinds.values())
        rates["augmentation acceptance"] = made / tried if tried else 0.0
    if manifest.get("calibration"):
        rates["mean pass rate"] = manifest["calibration"].get("mean_pass_rate")
    return {k: round(float(v), 4) for k, v in rates.items() if isinstance(v, (int, float))}


def _recorded_rates(root: Path, manifest: dict[str, Any]) -> dict[str, float]:
    """Rates another command recorded in the manifest under ``quality`` (``{name: value in [0, 1]}``);
    the hook for ``covert audit``."""
    recorded = manifest.get("quality") or {}
    return {str(k): round(float(v), 4) for k, v in sorted(recorded.items())
            if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1}


def quality_rates(root: str | Path, manifest: dict[str, Any]) -> dict[str, float]:
    """The quality rates covert measures: the build's own, those recorded under ``manifest["quality"]``,
    then those of every function in :data:`QUALITY_SOURCES` (later sources win on a shared name)."""
    rates: dict[str, float] = {}
    for source in (_build_rates, _recorded_rates, *QUALITY_SOURCES):
        rates.update(source(Path(root), manifest))
    return rates


def collect(root: str | Path) -> ReportData:
    """Read everything the report shows from the dataset directory ``root``."""
    root = Path(root)
    manifest = load_manifest(root)
    facts = _sft_facts(root, manifest)
    summary = manifest.get("summary", {})
    rates, by_category = _pass_rates(root)
    return ReportData(
        name=root.resolve().name, manifest=manifest,
        per_category=summary.get("per_category") or facts["per_category"],
        per_builder=summary.get("per_builder") or facts["per_builder"],
        tool_calls=facts["tool_calls"], calls_per_task=facts["calls_per_task"],
        assistant_turns=facts["assistant_turns"], user_turns=_user_turns(root),
        query_words=facts["query_words"], answer_words=facts["answer_words"],
        rejected_by_reason=dict(summary.get("rejected_by_reason") or {}),
        llm_rejected_by_reason=dict((manifest.get("llm") or {}).get("rejected_by_reason") or {}),
        augmentation=_augmentation(manifest), quality=quality_rates(root, manifest),
        pass_rates=rates, pass_rate_by_category=by_category,
    )
