"""``covert augment`` end to end: layout, untouched source, byte-identical regeneration, loading, the
card, validation of every written row, and bad input."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import covert.validation.dataset
from covert.augment.dataset import AUGMENTED
from covert.augment.registry import kind_names
from covert.augment.verify import validate_augmented_row
from covert.cli import main
from covert.io.card import check_card
from covert.io.parquet import sha256_file
from covert.io.reader import iter_rows
from covert.validation import validate_row
from covert.validation.dataset import validate_dataset

REPO = Path(__file__).resolve().parents[2]


def _files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file()}


def _shards(root: Path, configs: tuple[str, ...] = tuple(AUGMENTED.values())) -> dict[str, str]:
    return {k: v for k, v in json.loads((root / "manifest.json").read_text())["files"].items()
            if k.split("/")[0] in configs}


@pytest.fixture(scope="module")
def augmented_ds(base_ds: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    before = _files(base_ds)
    out = tmp_path_factory.mktemp("augmented") / "out"
    assert main(["augment", str(base_ds), "--out", str(out), "--quiet", "--rows-per-shard", "150"]) == 0
    assert _files(base_ds) == before, "augmenting wrote into the source dataset"
    return out


def test_layout_manifest_and_card(base_ds: Path, augmented_ds: Path) -> None:
    base_manifest = json.loads((base_ds / "manifest.json").read_text())
    manifest = json.loads((augmented_ds / "manifest.json").read_text())
    for rel, digest in base_manifest["files"].items():
        assert sha256_file(augmented_ds / rel) == digest == manifest["files"][rel]  # copied byte for byte
    for rel, digest in manifest["files"].items():
        assert sha256_file(augmented_ds / rel) == digest
    config = manifest["augmentation_config"]
    assert config["kinds"] == kind_names() and config["intensity"] == "medium" and config["seed"] == 0
    assert config["base_files"] == base_manifest["files"] and manifest["config"] == base_manifest["config"]
    summary = manifest["augmentation_summary"]
    assert summary["base_tasks"] == sum(v for k, v in base_manifest["rows"].items() if k.startswith("sft/"))
    for kind, counts in summary["per_kind"].items():
        assert counts["rows"] == manifest["augmentation"][kind] > 0 and counts["rejected"] == {}
    for name in AUGMENTED.values():
        total = sum(v for k, v in manifest["rows"].items() if k.startswith(f"{name}/"))
        assert total == sum(manifest["augmentation"].values()) == sum(1 for _ in iter_rows(augmented_ds, name))
    card = (augmented_ds / "README.md").read_text()
    assert check_card(card, augmented_ds) == []
    assert "config_name: sft-augmented" in card and "config_name: rl-augmented" in card and "## Augmented" not in card
    assert "`sft-augmented` and `rl-augmented` hold oracle-preserving augmentations" in card
    assert "covert augment" in manifest["command"]


def test_every_written_row_passes_the_proof(augmented_ds: Path) -> None:
    ids, bases = {}, {}
    splits = {}
    for config in ("sft", "rl"):
        splits.update({r["task_id"]: r.get("extra_info", {}).get("split") for r in iter_rows(augmented_ds, config)
                       if config == "rl"})
        for row in iter_rows(augmented_ds, config):
            validate_row(row, config)
    for view, name in AUGMENTED.items():
        rows = list(iter_rows(augmented_ds, name))
        ids[name] = [r["task_id"] for r in rows]
        bases[name] = {r["base_task_id"] for r in rows}
        for row in rows:
            validate_augmented_row(row, view)
            if view == "rl":
                assert row["extra_info"]["split"] == splits[row["base_task_id"]]
    assert ids["sft-augmented"] == ids["rl-augmented"] and len(set(ids["sft-augmented"])) == len(ids["sft-augmented"])
    assert bases["sft-augmented"] <= set(splits)


@pytest.mark.xfail(not hasattr(covert.validation.dataset, "validate_augmented_row"), strict=True,
                   reason="covert/validation/dataset.py does not dispatch augmented rows to validate_augmented_row yet")
def test_covert_validate_passes(augmented_ds: Path) -> None:
    report = validate_dataset(augmented_ds)
    assert report.ok, report.failures[:5]
    assert set(report.rows) == {"sft", "rl", "sft-augmented", "rl-augmented"}


def test_load_dataset(augmented_ds: Path) -> None:
    from datasets import load_dataset

    sft = load_dataset(str(augmented_ds), "sft-augmented", split="train")
    rl = load_dataset(str(augmented_ds), "rl-augmented", split="train")
    assert len(sft) == len(rl) > 0
    row = next(r for r in sft if r["augmentations"][0]["kind"] == "erroneous")
    call = next(m for m in row["messages"] if m.get("tool_calls"))["tool_calls"][0]
    assert isinstance(call["function"]["arguments"], dict) and row["base_task_id"]
    assert isinstance(rl[0]["reward_model"]["ground_truth"], dict)


def test_same_inputs_give_byte_identical_shards(base_ds: Path, augmented_ds: Path, tmp_path: Path) -> None:
    again, parallel, regenerated, reseeded = (tmp_path / n for n in ("again", "parallel", "regenerated", "reseeded"))
    assert main(["augment", str(base_ds), "--out", str(again), "--quiet", "--rows-per-shard", "150"]) == 0
    assert main(["augment", str(base_ds), "--out", str(parallel), "--quiet", "--rows-per-shard", "150",
                 "--workers", "2"]) == 0
    # the augmented dataset's own (byte-identical) base configs regenerate its augmented configs
    assert main(["augment", str(augmented_ds), "--out", str(regenerated), "--quiet", "--rows-per-shard", "150"]) == 0
    expected = _shards(augmented_ds)
    assert _shards(again) == _shards(parallel) == _shards(regenerated) == expected
    for rel in expected:
        assert (again / rel).read_bytes() == (augmented_ds / rel).read_bytes()
    assert main(["augment", str(base_ds), "--out", str(reseeded), "--quiet", "--seed", "1", "--kinds", "noisy"]) == 0
    assert set(_shards(reseeded).values()).isdisjoint(expected.values())


def test_kinds_and_intensity_options(base_ds: Path, tmp_path: Path) -> None:
    out = tmp_path / "two"
    assert main(["augment", str(base_ds), "--out", str(out), "--quiet", "--kinds", "erroneous,distractors",
                 "--intensity", "high", "--seed", "5"]) == 0
    rows = list(iter_rows(out, "sft-augmented"))
    assert {r["augmentations"][0]["kind"] for r in rows} == {"erroneous", "distractors"}
    assert all(r["augmentations"][0]["intensity"] == "high" and r["augmentations"][0]["seed"] == 5 for r in rows)
    assert main(["augment", str(base_ds), "--out", str(out), "--quiet", "--kinds", "noisy", "--overwrite"]) == 0
    assert {r["augmentations"][0]["kind"] for r in iter_rows(out, "sft-augmented")} == {"noisy"}


@pytest.mark.parametrize("args, message", [
    (["--kinds", "telepathy"], "unknown augmentation kind"),
    (["--kinds", ","], "--kinds is empty"),
    (["--intensity", "extreme"], "unknown --intensity"),
    (["--rows-per-shard", "0"], "rows per shard"),
    (["--workers", "0"], "--workers"),
])
def test_bad_options_are_one_line_errors(base_ds: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         args: list[str], message: str) -> None:
    assert main(["augment", str(base_ds), "--out", str(tmp_path / "x"), "--quiet", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_bad_locations_are_one_line_errors(base_ds: Path, augmented_ds: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    not_a_dataset = tmp_path / "empty"
    not_a_dataset.mkdir()
    cases = [
        ([str(not_a_dataset), "--out", str(tmp_path / "a")], "not a covert dataset"),
        ([str(base_ds), "--out", str(base_ds)], "overlaps the source"),
        ([str(base_ds), "--out", str(base_ds / "inside")], "overlaps the source"),
        ([str(base_ds), "--out", str(augmented_ds)], "already exists"),
        ([str(base_ds / "manifest.json"), "--out", str(tmp_path / "b")], "is a file"),
    ]
    for args, message in cases:
        assert main(["augment", *args, "--quiet"]) == 2, args
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err


def test_a_source_whose_shards_do_not_match_its_manifest_is_refused(base_ds: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(base_ds, copy)
    shard = sorted((copy / "rl").glob("*.parquet"))[0]
    shard.write_bytes(shard.read_bytes()[:-10])
    assert main(["augment", str(copy), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    assert "does not match its manifest hash" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.partial-*"))


def test_an_unknown_hub_repo_is_a_one_line_error(tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-m", "covert.cli", "augment", "nobody/no-such-dataset", "--out",
                             str(tmp_path / "out"), "--quiet"], capture_output=True, text=True, env=env, timeout=120,
                            check=False)
    assert result.returncode == 2
    assert result.stderr.startswith("covert: error: nobody/no-such-dataset is neither a local directory")
    assert len(result.stderr.strip().splitlines()) == 1


def test_augment_carries_multiturn_configs(tmp_path) -> None:
    from covert.augment.dataset import AugmentConfig, augment_dataset
    from covert.build import BuildConfig, build
    from covert.validation.dataset import validate_dataset

    base = tmp_path / "base"
    source = build(BuildConfig(builders=["retail"], num_tasks=12, seed=4, multi_turn=True), base, progress=False)
    out = tmp_path / "aug"
    manifest = augment_dataset(base, out, AugmentConfig(kinds=["noisy"], seed=1))
    for rel, digest in source["files"].items():
        assert manifest["files"][rel] == digest  # every source shard, multi-turn included, copied as is
    assert any(rel.startswith("sft-multiturn/") for rel in manifest["files"])
    assert validate_dataset(out).ok
