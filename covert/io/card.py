"""The dataset card (``README.md``): Hub metadata plus a body rendered from ``cards/dataset_card.md``.

The template uses only ``{{ name }}`` placeholders, so plain substitution renders it exactly as
huggingface_hub's Jinja-based ``DatasetCard.from_template`` does, YAML header included.
:func:`check_card` checks the header against the Hub's known metadata fields without the network.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from covert.io.features import features_for

DEFAULT_LICENSE = "apache-2.0"
SPLITS = ("train", "validation", "test")
PRETTY_NAME = "covert tool-use dataset"
PLACEHOLDER_REPO = "DIR_OR_REPO_ID"
TASK_CATEGORIES = ["text-generation"]
TAGS = ["tool-use", "function-calling", "agents", "synthetic", "covert"]

# License identifiers the Hub accepts in card metadata (anything else is written as ``other``).
HUB_LICENSES = frozenset({
    "apache-2.0", "mit", "openrail", "bigscience-openrail-m", "creativeml-openrail-m", "bigscience-bloom-rail-1.0",
    "bigcode-openrail-m", "afl-3.0", "artistic-2.0", "bsl-1.0", "bsd", "bsd-2-clause", "bsd-3-clause",
    "bsd-3-clause-clear", "c-uda", "cc", "cc0-1.0", "cc-by-2.0", "cc-by-2.5", "cc-by-3.0", "cc-by-4.0",
    "cc-by-sa-3.0", "cc-by-sa-4.0", "cc-by-nc-2.0", "cc-by-nc-3.0", "cc-by-nc-4.0", "cc-by-nd-4.0",
    "cc-by-nc-nd-3.0", "cc-by-nc-nd-4.0", "cc-by-nc-sa-2.0", "cc-by-nc-sa-3.0", "cc-by-nc-sa-4.0",
    "cdla-sharing-1.0", "cdla-permissive-1.0", "cdla-permissive-2.0", "wtfpl", "ecl-2.0", "epl-1.0", "epl-2.0",
    "etalab-2.0", "eupl-1.1", "eupl-1.2", "agpl-3.0", "gfdl", "gpl", "gpl-2.0", "gpl-3.0", "lgpl", "lgpl-2.1",
    "lgpl-3.0", "isc", "lppl-1.3c", "ms-pl", "mpl-2.0", "odc-by", "odbl", "openrail++", "osl-3.0", "postgresql",
    "ofl-1.1", "ncsa", "unlicense", "zlib", "pddl", "lgpl-lr", "unknown", "other",
})
# Hub task categories covert may declare.
HUB_TASK_CATEGORIES = frozenset({
    "text-generation", "question-answering", "text-classification", "summarization", "translation",
    "reinforcement-learning", "text-retrieval", "table-question-answering", "zero-shot-classification",
})
_SIZE_LIMITS = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"))
_MAX_TEXT = 400
_MAX_ITEMS = 8
_MAX_FILES_SHOWN = 4


def size_category(rows: int) -> str:
    """Hub ``size_categories`` value for a row count."""
    for limit, label in _SIZE_LIMITS:
        if rows < limit:
            return label
    return "1B<n<10B"


def license_of(manifest: dict[str, Any]) -> str:
    """The dataset license: the build config's ``license``, else ``apache-2.0`` (Hub ids are lower case)."""
    value = (manifest.get("config") or {}).get("license") or DEFAULT_LICENSE
    return str(value).strip().lower()


def config_order(name: str) -> tuple[str, int, str]:
    """Sort key of configs: base views first, then by variant (``-augmented``, ``-multiturn``), sft before rl."""
    variant = name.split("-", 1)[1] if "-" in name else ""
    return variant, 0 if name.startswith("sft") else 1, name


def configs_of(manifest: dict[str, Any]) -> list[str]:
    """The dataset's configs, from the manifest's ``rows``, in :func:`config_order`."""
    return sorted({key.split("/", 1)[0] for key in manifest.get("rows", {})}, key=config_order)


def card_data(manifest: dict[str, Any], root: Path | None = None) -> Any:
    """The card's Hub metadata (``DatasetCardData``), with one ``configs:`` entry per config.

    With ``root`` (the dataset directory holding the shards) it also carries ``dataset_info``: each
    config's rows per split and the bytes of its shards. ``datasets`` keys its cache of a local
    dataset by the card's metadata, not by the files' content, so without it a dataset rebuilt in
    place, or another one in a folder of the same name, loads the rows cached for the first.
    """
    from huggingface_hub.repocard_data import DatasetCardData

    rows = manifest.get("rows", {})
    configs = []
    for config in configs_of(manifest):
        data_files = [{"split": split, "path": f"{config}/{split}-*.parquet"} for split in SPLITS
                      if rows.get(f"{config}/{split}")]
        if data_files:
            entry: dict[str, Any] = {"config_name": config}
            if not configs:
                entry["default"] = True
            entry["data_files"] = data_files
            configs.append(entry)
    license_id = license_of(manifest)
    extra = {} if license_id in HUB_LICENSES else {"license_name": license_id}
    other_license = bool(extra)
    if root is not None:
        extra["dataset_info"] = _dataset_info(manifest, Path(root), [c["config_name"] for c in configs])
    accepted = manifest.get("summary", {}).get("accepted", 0)
    return DatasetCardData(
        pretty_name=PRETTY_NAME, license="other" if other_license else license_id, language=["en"],
        task_categories=list(TASK_CATEGORIES), size_categories=[size_category(accepted)],
        annotations_creators=["machine-generated"], language_creators=["machine-generated"],
        multilinguality=["monolingual"], source_datasets=["original"], tags=list(TAGS), configs=configs, **extra,
    )


def _dataset_info(manifest: dict[str, Any], root: Path, configs: list[str]) -> list[dict[str, Any]]:
    """Per config: rows and uncompressed bytes per split (from the Parquet footers), the bytes of its
    shards (``download_size``) and of its data (``dataset_size``)."""
    import pyarrow.parquet as pq

    rows = manifest.get("rows", {})
    shards = [rel for rel in manifest.get("files", {}) if (root / rel).is_file()]
    infos = []
    for config in configs:
        splits, stored, data = [], 0, 0
        for split in SPLITS:
            if not rows.get(f"{config}/{split}"):
                continue
            paths = [root / rel for rel in shards if rel.startswith(f"{config}/{split}-")]
            size = 0
            for path in paths:
                metadata = pq.ParquetFile(path).metadata
                size += sum(metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups))
                stored += path.stat().st_size
            data += size
            splits.append({"name": split, "num_bytes": size, "num_examples": rows[f"{config}/{split}"]})
        infos.append({"config_name": config, "splits": splits, "download_size": stored, "dataset_size": data})
    return infos


def template_path() -> Path:
    """Where ``cards/dataset_card.md`` is (inside the installed package)."""
    return Path(str(resources.files("cards").joinpath("dataset_card.md")))


def render_card(manifest: dict[str, Any], examples: dict[str, dict[str, Any]], repo: str = PLACEHOLDER_REPO,
                root: Path | None = None, figures: list[tuple[str, str]] | None = None) -> str:
    """The card text for a dataset with this manifest; ``examples`` maps config -> one row (encoded or
    decoded); ``root``, the directory holding the shards, adds their ``dataset_info`` (see :func:`card_data`);
    ``figures`` (relative path, title) pairs add a Figures section (see :func:`embed_figures`).

    The text is exactly what ``DatasetCard.from_template`` renders (a test holds the two equal), made
    by plain substitution so a build does not import ``huggingface_hub.repocard`` (~0.4 s).
    """
    values = {"card_data": card_data(manifest, root).to_yaml(), **card_values(manifest, examples, repo)}
    values["figures"] = figures_section(figures or [])
    text = substitute(template_path().read_text(), values)
    return text if text.endswith("\n") else text + "\n"


def substitute(template: str, values: dict[str, str]) -> str:
    """Fill ``{{ name }}`` placeholders the way Jinja does for plain variables (one trailing newline dropped)."""
    for key, value in values.items():
        template = template.replace("{{ " + key + " }}", value)
    return template[:-1] if template.endswith("\n") else template


FIGURES_HEADING = "## Figures"
_AFTER_FIGURES = "\n\n## Configs and splits"


def figures_section(figures: list[tuple[str, str]]) -> str:
    """The card's Figures section for ``(relative path, title)`` pairs, led by a blank line; empty
    without figures (the card is then byte for byte what it is without ``covert report``)."""
    if not figures:
        return ""
    images = "\n\n".join(f"![{title}]({path})" for path, title in figures)
    return (f"\n\n{FIGURES_HEADING}\n\nDrawn by `covert report` from the manifest and the rows; "
            f"`report/report.html` holds them on one page with the numbers.\n\n{images}")


def embed_figures(card: str, figures: list[tuple[str, str]]) -> str:
    """A rendered card with its Figures section replaced by one for ``figures`` (inserted after the
    summary, where :func:`render_card` puts it; removed when ``figures`` is empty)."""
    start = card.find("\n\n" + FIGURES_HEADING + "\n")
    if start >= 0:
        end = card.find("\n\n## ", start + 2)
        card = card[:start] + (card[end:] if end >= 0 else "\n")
    section = figures_section(figures)
    at = card.find(_AFTER_FIGURES)
    if at < 0:
        return card.rstrip("\n") + section + "\n"
    return card[:at] + section + card[at:]


def write_card(root: Path, manifest: dict[str, Any], examples: dict[str, dict[str, Any]]) -> None:
    """Write ``README.md`` into a dataset directory."""
    (Path(root) / "README.md").write_text(render_card(manifest, examples, root=Path(root)))


def card_values(manifest: dict[str, Any], examples: dict[str, dict[str, Any]], repo: str) -> dict[str, str]:
    """Every template variable except ``card_data``."""
    summary = manifest.get("summary", {})
    files = sorted(manifest.get("files", {}))
    return {
        "pretty_name": PRETTY_NAME,
        "summary": _summary(manifest),
        "covert_version": str(manifest.get("covert_version", "?")),
        "splits_table": _splits_table(manifest),
        "builders_table": _table(["builder", "version", "tasks"], [
            [name, info.get("version", "?"), summary.get("per_builder", {}).get(name, 0)]
            for name, info in manifest.get("builders", {}).items()]),
        "categories_table": _table(["category", "tasks"], list(summary.get("per_category", {}).items())),
        "tool_coverage": _tool_coverage(summary),
        "augmentation": _augmentation(manifest.get("augmentation")),
        "validation": _validation(summary),
        "examples": _examples(examples),
        "repo": repo,
        "rl_train_files": ", ".join(f"DIR/{f}" for f in files if f.startswith("rl/train-")),
        "rl_val_files": ", ".join(f"DIR/{f}" for f in files if f.startswith("rl/validation-")),
        "command": manifest.get("command") or _command(manifest),
        "manifest_excerpt": _manifest_excerpt(manifest),
        "license_text": _license_text(manifest),
        "figures": "",  # render_card(figures=...) and embed_figures fill it (covert report)
    }


def _summary(manifest: dict[str, Any]) -> str:
    summary = manifest.get("summary", {})
    builders = ", ".join(f"`{b}`" for b in manifest.get("builders", {}))
    return (
        f"{summary.get('accepted', 0)} verified tool-use tasks from the builders {builders}, each written twice: "
        "as an SFT trajectory (config `sft`: `messages` and `tools`) and as an RL task (config `rl`: `prompt`, "
        "`tools`, `reward_model`, `extra_info`, the same `task_id`). They were generated by covert "
        f"{manifest.get('covert_version', '?')} in executable, stateful environments: every oracle tool call was "
        "executed and replayed twice, and the user query carries exactly what a solver needs. Every row passed "
        "validation (L1 format, L2 replay, L3 grounding, minimality and answerability) before it was written."
        + _other_configs(manifest)
    )


def _other_configs(manifest: dict[str, Any]) -> str:
    others = [c for c in configs_of(manifest) if c not in ("sft", "rl")]
    if not others:
        return ""
    return (" The same tasks also appear as " + ", ".join(f"`{c}`" for c in others)
            + (" (multi-turn conversations with a simulated user)" if any("multiturn" in c for c in others) else "")
            + ".")


def _splits_table(manifest: dict[str, Any]) -> str:
    rows = manifest.get("rows", {})
    body = [[config, split, rows.get(f"{config}/{split}", 0)] for config in configs_of(manifest) for split in SPLITS]
    return _table(["config", "split", "rows"], body)


def _tool_coverage(summary: dict[str, Any]) -> str:
    coverage = summary.get("tool_coverage", {})
    if not coverage:
        return "Not recorded."
    covered = sum(c.get("covered", 0) for c in coverage.values())
    total = sum(c.get("tools", 0) for c in coverage.values())
    table = _table(["builder", "tools used", "tools never used"], [
        [b, f"{c.get('covered', 0)}/{c.get('tools', 0)}", ", ".join(f"`{t}`" for t in c.get("missing", [])) or "none"]
        for b, c in coverage.items()])
    return f"{covered} of {total} tools appear in at least one oracle trajectory.\n\n{table}"


def _augmentation(mix: Any) -> str:
    if not mix:
        return ("No augmentations: every row is a base task (`augmentations` is empty). `covert augment` adds "
                "oracle-preserving variants.")
    if isinstance(mix, dict):
        flat = _flatten_counts(mix)
        if flat is not None:
            return _table(["augmentation", "rows"], flat)
    return "```json\n" + json.dumps(mix, indent=2, sort_keys=True, ensure_ascii=False) + "\n```"


def _flatten_counts(mix: dict[str, Any], prefix: str = "") -> list[list[Any]] | None:
    rows: list[list[Any]] = []
    for key, value in mix.items():
        name = f"{prefix}{key}"
        if isinstance(value, bool) or not isinstance(value, (int, float, dict)):
            return None
        if isinstance(value, dict):
            inner = _flatten_counts(value, name + " / ")
            if inner is None:
                return None
            rows.extend(inner)
        else:
            rows.append([name, value])
    return rows


def _validation(summary: dict[str, Any]) -> str:
    reasons = list(summary.get("rejected_by_reason", {}).items()) or [["none", 0]]
    diversity = summary.get("diversity", {})
    return "\n\n".join([
        f"{summary.get('accepted', 0)} of {summary.get('candidates', 0)} candidates were accepted "
        f"(acceptance rate {summary.get('acceptance_rate', 0)}). Candidates rejected, by reason:",
        _table(["reason", "candidates"], reasons),
        "Diversity: " + (", ".join(f"{k} {v}" for k, v in diversity.items()) or "not recorded") + ". "
        f"Oracle tool sequences shared by train and test: {summary.get('train_test_shared_signatures', 0)}. "
        "`covert validate DIR` re-checks every row and every shard hash.",
    ])


def _examples(examples: dict[str, dict[str, Any]]) -> str:
    parts = []
    for config in sorted(examples, key=config_order):
        preview = json.dumps(_preview(_decoded(examples[config], config)), indent=2, ensure_ascii=False)
        parts.append(f"`{config}` (long strings and lists shortened, the initial state omitted):\n\n"
                     f"```json\n{preview}\n```")
    return "\n\n".join(parts) or "No rows."


def _decoded(row: dict[str, Any], config: str) -> dict[str, Any]:
    from covert.io.reader import _decode

    return {name: _decode(row.get(name), feature) for name, feature in features_for(config).items()}


def _preview(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    out["tools"] = [t.get("function", {}).get("name") for t in row.get("tools") or []]
    if "initial_state" in out:
        out["initial_state"] = "<omitted>"
    if isinstance(out.get("extra_info"), dict):
        out["extra_info"] = {**out["extra_info"], "initial_state": "<omitted>"}
    return _shorten(out)


def _shorten(value: Any) -> Any:
    if isinstance(value, str) and len(value) > _MAX_TEXT:
        return value[:_MAX_TEXT] + f"… ({len(value) - _MAX_TEXT} more characters)"
    if isinstance(value, list):
        head = [_shorten(v) for v in value[:_MAX_ITEMS]]
        return head + ([f"… ({len(value) - _MAX_ITEMS} more)"] if len(value) > _MAX_ITEMS else [])
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    return value


def _command(manifest: dict[str, Any]) -> str:
    config = manifest.get("config", {})
    return (f"covert build --builders {','.join(config.get('builders', []))} --num-tasks {config.get('num_tasks')} "
            f"--seed {config.get('seed')} --out DIR")


def _manifest_excerpt(manifest: dict[str, Any]) -> str:
    files = sorted(manifest.get("files", {}).items())
    shown = dict(files[:_MAX_FILES_SHOWN])
    if len(files) > _MAX_FILES_SHOWN:
        shown["..."] = f"{len(files) - _MAX_FILES_SHOWN} more shards in manifest.json"
    excerpt = {key: manifest[key] for key in ("covert_version", "command", "config", "builders", "rows") if key in manifest}
    excerpt["files"] = shown
    return json.dumps(excerpt, indent=2, sort_keys=True, ensure_ascii=False)


def _license_text(manifest: dict[str, Any]) -> str:
    license_id = license_of(manifest)
    table = _table(["builder", "version", "license", "sources"], [
        [name, info.get("version", "?"), info.get("license", "?"), " ".join(info.get("sources", [])) or "-"]
        for name, info in manifest.get("builders", {}).items()])
    evaluation = [name for name, info in manifest.get("builders", {}).items() if info.get("evaluation_source")]
    warning = (f"\n\n**Evaluation sources.** The environments {', '.join(f'`{n}`' for n in evaluation)} derive from "
               "evaluation data (BFCL); this build was allowed to use them (`--allow-eval-sources`). Do not train "
               "on this dataset and then report results on that benchmark.") if evaluation else ""
    return (f"The dataset is released under `{license_id}` (the build config's `license`; covert's default is "
            f"`{DEFAULT_LICENSE}`). It was generated from these covert builders, whose licenses and sources "
            f"are:\n\n{table}{warning}")


def _table(header: list[str], rows: list[Any]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _resource(name: str) -> Any:
    import datasets

    return json.loads((Path(datasets.__file__).parent / "utils" / "resources" / name).read_text())


def check_card(text: str, root: str | Path | None = None) -> list[str]:
    """Problems with a card's metadata, checked offline against the Hub's known fields (empty when fine).

    Checks that the YAML parses into ``DatasetCardData`` and round-trips, that ``license``,
    ``size_categories``, ``task_categories``, ``language``, the creators and ``multilinguality`` hold
    known values, and that ``configs`` is valid for ``datasets`` with one default. With ``root``, every
    ``data_files`` pattern must also match a shard there.
    """
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard, DatasetCardData

    try:
        card = DatasetCard(text)
    except Exception as exc:  # YAML that does not parse, or a header that is not a mapping
        return [f"metadata does not parse: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"]
    data = card.data.to_dict()
    problems = []
    if DatasetCardData(**data).to_dict() != data:
        problems.append("metadata does not round-trip through DatasetCardData")
    problems += _check_values(data, "license", HUB_LICENSES, required=True)
    if data.get("license") == "other" and not data.get("license_name"):
        problems.append("license 'other' needs a license_name")
    problems += _check_values(data, "size_categories", set(_resource("size_categories.json")), required=True)
    problems += _check_values(data, "task_categories", HUB_TASK_CATEGORIES, required=True)
    problems += _check_values(data, "language", set(_resource("languages.json")))
    creators = _resource("creators.json")
    problems += _check_values(data, "language_creators", set(creators["language"]))
    problems += _check_values(data, "annotations_creators", set(creators["annotations"]))
    problems += _check_values(data, "multilinguality", set(_resource("multilingualities.json")))
    try:
        configs = MetadataConfigs.from_dataset_card_data(card.data)
    except ValueError as exc:
        return [*problems, f"configs: {str(exc).strip().splitlines()[0]}"]
    if not configs:
        problems.append("no configs")
    defaults = [name for name, config in configs.items() if config.get("default")]
    if len(defaults) != 1:
        problems.append(f"configs need exactly one default, found {len(defaults)}")
    if root is not None:
        for name, config in configs.items():
            for entry in config.get("data_files", []):
                patterns = entry["path"] if isinstance(entry["path"], list) else [entry["path"]]
                for pattern in patterns:
                    if not list(Path(root).glob(pattern)):
                        problems.append(f"config {name} split {entry['split']}: {pattern} matches no file")
    return problems


def _check_values(data: dict[str, Any], key: str, known: Any, required: bool = False) -> list[str]:
    value = data.get(key)
    if value is None:
        return [f"{key} is missing"] if required else []
    values = value if isinstance(value, list) else [value]
    return [f"{key}: unknown value {v!r}" for v in values if v not in known]
