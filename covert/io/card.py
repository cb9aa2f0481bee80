"""The dataset card (README.md with ``configs:`` YAML) rendered from ``cards/dataset_card.md``."""

from __future__ import annotations

import contextlib
import json
from importlib import resources
from pathlib import Path
from typing import Any

DEFAULT_LICENSE = "apache-2.0"


def size_category(rows: int) -> str:
    """Hub ``size_categories`` value for a row count."""
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")):
        if rows < limit:
            return label
    return "10M<n<100M"


def _yaml(manifest: dict[str, Any], license_id: str) -> str:
    lines = [f"license: {license_id}", "task_categories:", "- text-generation", "language:", "- en",
             "tags:", "- tool-use", "- function-calling", "- agents", "- synthetic", "- covert",
             "size_categories:", f"- {size_category(manifest['summary']['accepted'])}", "configs:"]
    for config in ("sft", "rl"):
        lines.append(f"- config_name: {config}")
        if config == "sft":
            lines.append("  default: true")
        lines.append("  data_files:")
        for split in ("train", "validation", "test"):
            if manifest["rows"].get(f"{config}/{split}"):
                lines.append(f"  - split: {split}")
                lines.append(f"    path: {config}/{split}-*.parquet")
    return "\n".join(lines)


def _table(header: list[str], rows: list[list[Any]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def render_card(manifest: dict[str, Any], examples: dict[str, dict[str, Any]], repo: str = "DIR",
                license_id: str = DEFAULT_LICENSE) -> str:
    """The card text."""
    summary = manifest["summary"]
    splits = _table(["config", "split", "rows"], [[*k.split("/"), v] for k, v in manifest["rows"].items() if v])
    composition = "\n\n".join([
        _table(["builder", "version", "tasks", "tools covered"],
               [[b, info["version"], summary["per_builder"].get(b, 0),
                 f"{summary['tool_coverage'][b]['covered']}/{summary['tool_coverage'][b]['tools']}"]
                for b, info in manifest["builders"].items()]),
        _table(["category", "tasks"], [[c, n] for c, n in summary["per_category"].items()]),
        _table(["augmentation", "rows"], [[k, v] for k, v in manifest.get("augmentation_mix", {}).items()] or [["none", 0]]),
    ])
    validation = "\n\n".join([
        f"Accepted {summary['accepted']} of {summary['candidates']} candidates "
        f"(acceptance {summary['acceptance_rate']}). Rejections by reason:",
        _table(["reason", "candidates"], [[r, n] for r, n in summary["rejected_by_reason"].items()] or [["none", 0]]),
        "Diversity: " + ", ".join(f"{k} {v}" for k, v in summary["diversity"].items()) + ".",
    ])
    example_text = "\n\n".join(
        f"`{config}`:\n\n```json\n{json.dumps(_decoded(row), indent=1, ensure_ascii=False)[:3000]}\n```"
        for config, row in sorted(examples.items())
    )
    sources = sorted({s for info in manifest["builders"].values() for s in info.get("sources", [])})
    licenses = sorted({info.get("license", "Apache-2.0") for info in manifest["builders"].values()})
    license_text = (f"The dataset is released under `{license_id}`. It was built from covert builders licensed "
                    f"{', '.join(licenses)}. Sources: " + " ".join(sources))
    template = resources.files("cards").joinpath("dataset_card.md").read_text()
    values = {
        "yaml": _yaml(manifest, license_id), "title": "covert tool-use dataset", "covert_version": manifest["covert_version"],
        "splits_table": splits, "composition": composition, "validation": validation, "repo": repo,
        "examples": example_text, "command": manifest.get("command") or "covert build ...", "license": license_text,
    }
    for key, value in values.items():
        template = template.replace("{{ " + key + " }}", str(value))
    return template


def _decoded(row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in row.items():
        if isinstance(value, str) and value[:1] in "[{":
            with contextlib.suppress(ValueError):
                value = json.loads(value)
        if key in ("initial_state",) or (isinstance(value, dict) and "initial_state" in value):
            value = "<initial state omitted>" if key == "initial_state" else {**value, "initial_state": "<omitted>"}
        out[key] = value
    return out


def write_card(root: Path, manifest: dict[str, Any], examples: dict[str, dict[str, Any]]) -> None:
    """Write ``README.md`` into a dataset directory."""
    (root / "README.md").write_text(render_card(manifest, examples))
