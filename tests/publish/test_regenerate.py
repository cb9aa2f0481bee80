"""``covert regenerate``: build -> card -> regenerate gives the same shard hashes; other versions are refused."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import covert
from covert.cli import main
from covert.io.card import check_card
from covert.io.reader import load_manifest
from covert.publish.regenerate import RegenerateError, compare, config_from_manifest, regenerate


def test_build_card_regenerate_gives_identical_hashes(dataset: Path, tmp_path: Path) -> None:
    """Regenerate in a fresh process (its own hash seed), the way a user on another machine would."""
    assert check_card((dataset / "README.md").read_text(), dataset) == []
    out = tmp_path / "again"
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    result = subprocess.run([sys.executable, "-m", "covert.cli", "regenerate", str(dataset), "--out", str(out), "--quiet"],
                            capture_output=True, text=True, env=env, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    original = load_manifest(dataset)
    assert f"all {len(original['files'])} shards match" in result.stdout
    assert load_manifest(out) == original
    assert (out / "README.md").read_text() == (dataset / "README.md").read_text()


def test_augmented_dataset_regenerates_base_and_augmentations(dataset: Path, tmp_path: Path) -> None:
    from covert.augment.dataset import AugmentConfig, augment_dataset

    augmented = tmp_path / "augmented"
    manifest = augment_dataset(dataset, augmented, AugmentConfig(kinds=["distractors", "noisy"], seed=3),
                               command="covert augment DIR --out DIR2 --kinds distractors,noisy --seed 3")
    assert any(path.startswith("rl-augmented/") for path in manifest["files"])
    out = tmp_path / "again"
    env = {**os.environ, "PYTHONHASHSEED": "777"}
    result = subprocess.run([sys.executable, "-m", "covert.cli", "regenerate", str(augmented), "--out", str(out),
                             "--quiet"], capture_output=True, text=True, env=env, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert load_manifest(out)["files"] == manifest["files"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # the base it rebuilt is gone


def _with_manifest(dataset: Path, tmp_path: Path, change) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy)
    manifest = load_manifest(copy)
    change(manifest)
    (copy / "manifest.json").write_text(json.dumps(manifest))
    return copy


@pytest.mark.parametrize(("change", "message"), [
    (lambda m: m.update(covert_version="9.9.9"), f"covert {covert.__version__} is installed, the dataset was built with 9.9.9"),
    (lambda m: m["builders"]["retail"].update(version="0.0.1"), "builder retail is"),
    (lambda m: m["builders"].update(atlantis={"version": "1.0.0"}), "builder atlantis is not installed"),
])
def test_version_mismatch_is_one_line_before_building(dataset: Path, tmp_path: Path, capsys, change, message) -> None:
    source = _with_manifest(dataset, tmp_path, change)
    out = tmp_path / "out"
    assert main(["regenerate", str(source), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"covert: error: {source}: cannot regenerate byte for byte") and message in err
    assert "\n" not in err
    assert not out.exists()


def test_unknown_config_fields_are_refused(dataset: Path) -> None:
    manifest = load_manifest(dataset)
    assert config_from_manifest(manifest).num_tasks == manifest["config"]["num_tasks"]
    manifest["config"]["temperature"] = 0.7
    with pytest.raises(RegenerateError, match="temperature"):
        config_from_manifest(manifest)


def test_a_changed_shard_is_reported(dataset: Path, tmp_path: Path, capsys) -> None:
    first = sorted(load_manifest(dataset)["files"])[0]
    source = _with_manifest(dataset, tmp_path, lambda m: m["files"].update({first: "0" * 64}))
    assert main(["regenerate", str(source), "--out", str(tmp_path / "out"), "--quiet"]) == 1
    assert f"1 differ ({first})" in capsys.readouterr().out


def test_compare() -> None:
    result = compare({"a": "1", "b": "2", "c": "3"}, {"a": "1", "b": "x", "d": "4"})
    assert (result.matched, result.mismatched, result.missing, result.extra) == (["a"], ["b"], ["c"], ["d"])
    assert not result.ok and "1 differ (b); 1 missing (c); 1 unexpected (d)" in result.describe()
    assert compare({"a": "1"}, {"a": "1"}).describe() == "all 1 shards match the manifest's sha256"


def test_sources_that_are_not_datasets(tmp_path: Path, capsys) -> None:
    assert main(["regenerate", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "not a covert dataset" in capsys.readouterr().err
    assert main(["regenerate", "not a repo", "--out", str(tmp_path / "o")]) == 2
    assert "neither a dataset directory nor a Hub dataset id" in capsys.readouterr().err


def test_hub_source_without_network_is_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_ENDPOINT": "http://127.0.0.1:9", "HF_HOME": str(tmp_path / "hf")}
    result = subprocess.run([sys.executable, "-m", "covert.cli", "regenerate", "someone/covert-tools", "--out",
                             str(tmp_path / "o")], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert result.returncode == 2
    err = result.stderr.strip().splitlines()
    assert len(err) == 1 and "cannot read manifest.json of Hub dataset someone/covert-tools" in err[0]


def test_regenerate_function_in_process(dataset: Path, tmp_path: Path) -> None:
    result = regenerate(str(dataset), tmp_path / "again")
    assert result.ok and len(result.matched) == len(load_manifest(dataset)["files"])


def test_a_non_default_round_size_regenerates(tmp_path: Path) -> None:
    from covert.build import BuildConfig, build

    build(BuildConfig(builders=["retail", "banking"], num_tasks=60, seed=2, round_size=16), tmp_path / "ds",
          progress=False)
    result = regenerate(str(tmp_path / "ds"), tmp_path / "again")
    assert result.ok and load_manifest(tmp_path / "again")["config"]["round_size"] == 16
