"""The dataset card: Hub metadata that passes the Hub's known-field checks, and a body that tells the truth."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from huggingface_hub import DatasetCard, DatasetCardData

from covert.io.card import (
    card_data,
    card_values,
    check_card,
    render_card,
    size_category,
    substitute,
    template_path,
)
from covert.io.reader import iter_rows, load_manifest


def _card(dataset: Path) -> str:
    return (dataset / "README.md").read_text()


def _json_blocks(text: str) -> list[dict]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", text, flags=re.S)]


def test_card_passes_hub_metadata_checks(dataset: Path) -> None:
    text = _card(dataset)
    assert check_card(text, dataset) == []
    data = DatasetCard(text).data
    assert isinstance(data, DatasetCardData)
    assert DatasetCardData(**data.to_dict()).to_dict() == data.to_dict()
    assert data.license == "apache-2.0" and data.size_categories == ["n<1K"]
    assert data.task_categories == ["text-generation"] and data.language == ["en"]
    configs = {c["config_name"]: c for c in data.to_dict()["configs"]}
    assert list(configs) == ["sft", "rl"] and configs["sft"].get("default") is True
    assert {e["split"] for e in configs["rl"]["data_files"]} <= {"train", "validation", "test"}


def test_load_dataset_reads_every_config_the_card_declares(dataset: Path, tmp_path: Path) -> None:
    from datasets import load_dataset

    manifest = load_manifest(dataset)
    for config in DatasetCard(_card(dataset)).data.to_dict()["configs"]:
        name = config["config_name"]
        # a private cache: datasets keys its cache of a local folder by the folder's name, not its files
        loaded = load_dataset(str(dataset), name, cache_dir=str(tmp_path / "cache"))
        assert {split: len(rows) for split, rows in loaded.items()} == {
            key.split("/")[1]: n for key, n in manifest["rows"].items() if key.startswith(name + "/") and n}


def test_card_body_reports_the_manifest(dataset: Path) -> None:
    text = _card(dataset)
    manifest = load_manifest(dataset)
    summary = manifest["summary"]
    for key, rows in manifest["rows"].items():
        config, split = key.split("/")
        assert f"| {config} | {split} | {rows} |" in text
    for builder, count in summary["per_builder"].items():
        assert f"| {builder} | {manifest['builders'][builder]['version']} | {count} |" in text
    for category, count in summary["per_category"].items():
        assert f"| {category} | {count} |" in text
    for reason, count in summary["rejected_by_reason"].items():
        assert f"| {reason} | {count} |" in text
    for builder, cov in summary["tool_coverage"].items():
        assert f"| {builder} | {cov['covered']}/{cov['tools']} |" in text
    assert manifest["command"] in text
    assert "covert.rewards.trl_reward" in text and "covert.rewards.compute_score" in text
    assert "SFTTrainer" in text and "GRPOTrainer" in text and "verl" in text
    assert "AutoForge: Automated Environment Synthesis for Agentic Reinforcement Learning" in text
    assert "COVERT" in text and "EnvFactory" in text
    assert "No augmentations" in text
    for rl_train in (f for f in manifest["files"] if f.startswith("rl/train-")):
        assert f"DIR/{rl_train}" in text


def test_card_shows_one_real_example_per_config_and_the_manifest(dataset: Path) -> None:
    blocks = _json_blocks(_card(dataset))
    sft, rl, excerpt = blocks
    assert sft["task_id"] in {r["task_id"] for r in iter_rows(dataset, "sft")}
    assert any(m["role"] == "user" for m in sft["messages"]) and sft["initial_state"] == "<omitted>"
    assert rl["task_id"] in {r["task_id"] for r in iter_rows(dataset, "rl")}
    assert rl["extra_info"]["initial_state"] == "<omitted>" and "ground_truth" in rl["reward_model"]
    manifest = load_manifest(dataset)
    assert excerpt["config"] == manifest["config"] and excerpt["covert_version"] == manifest["covert_version"]
    shown = {k: v for k, v in excerpt["files"].items() if k != "..."}
    assert shown and all(manifest["files"][k] == v for k, v in shown.items())


def test_substitution_renders_like_huggingface_hub_templates(dataset: Path) -> None:
    pytest.importorskip("jinja2")
    manifest = load_manifest(dataset)
    examples = {c: next(iter(iter_rows(dataset, c))) for c in ("sft", "rl")}
    data = card_data(manifest)
    values = card_values(manifest, examples, "me/covert-tools")
    via_jinja = str(DatasetCard.from_template(data, template_path=str(template_path()), **values))
    via_substitution = str(DatasetCard(substitute(template_path().read_text(), {"card_data": data.to_yaml(), **values})))
    assert via_jinja == via_substitution
    assert render_card(manifest, examples, "me/covert-tools").rstrip("\n") == via_jinja.rstrip("\n")
    assert 'load_dataset("me/covert-tools", "sft"' in via_jinja


def test_license_comes_from_the_build_config(dataset: Path) -> None:
    manifest = copy.deepcopy(load_manifest(dataset))
    manifest["config"]["license"] = "CC-BY-4.0"
    text = render_card(manifest, {})
    assert DatasetCard(text).data.license == "cc-by-4.0" and check_card(text) == []
    assert "released under `cc-by-4.0`" in text
    manifest["config"]["license"] = "acme-data-license-1.0"
    data = DatasetCard(render_card(manifest, {})).data.to_dict()
    assert data["license"] == "other" and data["license_name"] == "acme-data-license-1.0"
    assert check_card(render_card(manifest, {})) == []


def test_augmentation_mix_is_tabulated(dataset: Path) -> None:
    manifest = copy.deepcopy(load_manifest(dataset))
    manifest["augmentation"] = {"distractor_tools": 12, "noisy_output": {"json": 3, "yaml": 2}}
    text = render_card(manifest, {})
    assert "| distractor_tools | 12 |" in text and "| noisy_output / yaml | 2 |" in text


@pytest.mark.parametrize(("old", "new", "expect"), [
    ("- n<1K", "- tiny", "size_categories: unknown value 'tiny'"),
    ("- text-generation", "- tool-calling", "task_categories: unknown value 'tool-calling'"),
    ("license: apache-2.0", "license: apache", "license: unknown value 'apache'"),
    ("  default: true\n", "", "configs need exactly one default, found 0"),
    ("path: sft/train-*.parquet", "path: sft/nothing-*.parquet", "matches no file"),
    ("- split: train\n    path: sft/train-*.parquet", "- split: train set\n    path: sft/train-*.parquet", "configs:"),
])
def test_check_card_catches_bad_metadata(dataset: Path, old: str, new: str, expect: str) -> None:
    text = _card(dataset)
    assert old in text
    problems = check_card(text.replace(old, new, 1), dataset)
    assert any(expect in p for p in problems), problems


def test_check_card_reports_unparseable_yaml() -> None:
    assert check_card("---\nlicense: [unclosed\n---\n# x\n")[0].startswith("metadata does not parse")


def test_size_categories() -> None:
    assert [size_category(n) for n in (0, 999, 1000, 99_999, 5_000_000)] == [
        "n<1K", "n<1K", "1K<n<10K", "10K<n<100K", "1M<n<10M"]


def test_card_of_a_multi_turn_build_declares_every_config(multiturn: Path, tmp_path: Path) -> None:
    from datasets import load_dataset

    text = (multiturn / "README.md").read_text()
    assert check_card(text, multiturn) == []
    configs = [c["config_name"] for c in DatasetCard(text).data.to_dict()["configs"]]
    assert configs == ["sft", "rl", "sft-multiturn", "rl-multiturn"]
    assert "The same tasks also appear as `sft-multiturn`, `rl-multiturn`" in text
    assert len(_json_blocks(text)) == 5  # one example per config and the manifest
    rows = load_manifest(multiturn)["rows"]
    for name in configs:
        loaded = load_dataset(str(multiturn), name, cache_dir=str(tmp_path / "cache"))
        assert {s: len(r) for s, r in loaded.items()} == {
            k.split("/")[1]: n for k, n in rows.items() if k.split("/")[0] == name and n}
