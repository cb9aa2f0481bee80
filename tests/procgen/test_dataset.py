"""``covert procgen``: the Hub layout, rows that validate and load with datasets, same inputs same bytes,
``covert validate`` re-deriving every instance and rejecting broken rows with counted reasons."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from covert.cli import main
from covert.errors import Invalid
from covert.io.checked import open_dataset
from covert.io.parquet import ShardWriter, encode_row, sha256_file
from covert.io.reader import iter_rows
from covert.procgen.dataset import PlanItem, ProcgenConfig, ProcgenError, build_procgen
from covert.procgen.validate import validate_procgen_row
from covert.schemas import load_schema
from covert.validation.dataset import validate_dataset
from tests.fresh_python import REPO

ENVS = ["knapsack", "subset_sum", "topological_order"]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pg") / "ds"
    build_procgen(ProcgenConfig(envs=ENVS, num_tasks=60, seed=3, level=1), out)
    return out


def test_layout_and_rows_validate_against_their_schemas(data: Path) -> None:
    import jsonschema

    dataset = open_dataset(data)
    assert dataset.configs == ("rl-procgen", "sft-procgen")
    manifest = json.loads((data / "manifest.json").read_text())
    assert manifest["kind"] == "procgen" and manifest["summary"]["per_environment"] == {e: 20 for e in ENVS}
    card = (data / "README.md").read_text()
    assert "dataset_info:" in card and "license: apache-2.0" in card
    for config, schema in (("rl-procgen", "procgen_rl_row"), ("sft-procgen", "procgen_sft_row")):
        rows = list(iter_rows(data, config))
        assert len(rows) == 60
        for row in rows:
            jsonschema.validate(row, load_schema(schema))
    rl = {r["task_id"]: r for r in iter_rows(data, "rl-procgen")}
    assert sorted(r["extra_info"]["index"] for r in rl.values()) == list(range(60))
    assert {r["env_config"]["items"] for r in rl.values() if r["environment"] == "procgen/knapsack"} == {6}


def test_rows_load_with_datasets_and_score(data: Path, tmp_path: Path) -> None:
    import datasets

    from covert.rewards import score

    rl = datasets.load_dataset(str(data), "rl-procgen", split="train", cache_dir=str(tmp_path / "c1"))
    sft = datasets.load_dataset(str(data), "sft-procgen", split="train", cache_dir=str(tmp_path / "c2"))
    answers = {row["task_id"]: row["messages"][-1]["content"] for row in sft}
    assert len(rl) == len(sft) > 0
    for row in rl:
        assert score(row, answers[row["task_id"]]).value == 1.0
        assert score(row, "Answer: nothing").value == 0.0
    for row in sft:
        assert score(row, row["messages"][-1]["content"]).value == 1.0


def test_same_inputs_same_bytes_for_any_workers(data: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_procgen(ProcgenConfig(envs=ENVS, num_tasks=60, seed=3, level=1), again, workers=2)
    first = json.loads((data / "manifest.json").read_text())
    second = json.loads((again / "manifest.json").read_text())
    assert first["files"] == second["files"]
    assert (data / "README.md").read_bytes() == (again / "README.md").read_bytes()
    other = tmp_path / "other"
    build_procgen(ProcgenConfig(envs=ENVS, num_tasks=60, seed=4, level=1), other)
    assert json.loads((other / "manifest.json").read_text())["files"] != first["files"]


def test_cli_writes_and_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    assert main(["procgen", "--envs", "knapsack,subset_sum", "--num-tasks", "8", "--seed", "1", "--out", str(out),
                 "--config", '{"knapsack": {"items": 4}}', "--level", "2"]) == 0
    rows = list(iter_rows(out, "rl-procgen"))
    assert {r["env_config"]["items"] for r in rows if r["environment"] == "procgen/knapsack"} == {4}
    assert {r["env_config"]["count"] for r in rows if r["environment"] == "procgen/subset_sum"} == {14}
    capsys.readouterr()
    assert main(["validate", str(out)]) == 0
    assert "all rows valid" in capsys.readouterr().out
    sft = list(iter_rows(out, "sft-procgen"))
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"task_id": r["task_id"], "completion": r["messages"][-1]["content"]
                                               if i % 2 else "Answer: nonsense"}) + "\n" for i, r in enumerate(sft)))
    assert main(["score", "--dataset", str(out), "--config", "rl-procgen", "--predictions", str(predictions),
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["mean"] == 0.5
    assert set(report["summary"]["per_builder"]) == {"procgen/knapsack", "procgen/subset_sum"}


@pytest.mark.parametrize("argv, message", [
    (["--envs", "nope"], "unknown procedural environment 'nope'"),
    (["--num-tasks", "0"], "--num-tasks must be a positive integer"),
    (["--config", "{bad"], "--config is not JSON"),
    (["--config", '{"items": 999}'], "knob 'items' takes one of"),
    (["--config", '{"knapsack": {"colour": 1}}'], "has no knob 'colour'"),
    (["--config", '{"sat": {"vars": 1}}', "--envs", "knapsack"], "not among --envs"),
    (["--level", "-1"], "--level must be 0 or more"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, argv: list[str], message: str) -> None:
    base = ["procgen", "--envs", "knapsack", "--num-tasks", "3", "--out", str(tmp_path / "x")]
    result = subprocess.run([sys.executable, "-m", "covert.cli", *base, *argv], capture_output=True, text=True,
                            cwd=REPO, check=False)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not (tmp_path / "x").exists()


def test_explicit_plan_items(tmp_path: Path) -> None:
    items = [PlanItem("knapsack", {"items": items, "weight_range": 10}, i) for i, items in enumerate((4, 6, 8))]
    manifest = build_procgen(ProcgenConfig(envs=["knapsack"], num_tasks=3, split_ratios=(0.0, 0.0, 1.0)),
                             tmp_path / "grid", items=items)
    assert manifest["rows"]["rl-procgen/test"] == 3 and manifest["config"]["plan"] == "custom"
    with pytest.raises(ProcgenError):
        build_procgen(ProcgenConfig(envs=["knapsack"], num_tasks=1), tmp_path / "bad", items=[])


def _broken(row: dict, config: str, how: str) -> dict:
    row = json.loads(json.dumps(row))
    truth = row["ground_truth"] if config == "sft-procgen" else row["reward_model"]["ground_truth"]
    if how == "data":
        first = next(iter(truth["procgen"]["data"]))
        truth["procgen"]["data"][first] = [0] if isinstance(truth["procgen"]["data"][first], list) else 0
    elif how == "version":
        truth["procgen"]["version"] = "0"
    elif how == "env":
        truth["procgen"]["env"] = "no_such_env"
    elif how == "seed":
        row["env_seed"] += 1
    elif how == "schema":
        row["level"] = "hard"
    elif how == "answer":
        row["messages"][-1]["content"] = "Answer: []"
    return row


@pytest.mark.parametrize("config, how, reason", [
    ("rl-procgen", "data", "instance_mismatch"), ("rl-procgen", "version", "version_mismatch"),
    ("rl-procgen", "env", "unknown_environment"), ("sft-procgen", "seed", "identity_mismatch"),
    ("sft-procgen", "schema", "schema_violation"), ("sft-procgen", "answer", "reference_mismatch"),
])
def test_broken_rows_are_rejected_with_a_reason(data: Path, config: str, how: str, reason: str) -> None:
    row = next(iter(iter_rows(data, config)))
    validate_procgen_row(row, config)
    with pytest.raises(Invalid) as caught:
        validate_procgen_row(_broken(row, config, how), config)
    assert caught.value.reason == reason


def test_validate_counts_broken_rows_of_a_dataset(data: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(data, copy)
    shard = copy / "rl-procgen" / "train-00000-of-00001.parquet"
    rows = list(iter_rows(copy, "rl-procgen", "train"))
    rows = [_broken(r, "rl-procgen", "data") if i < 3 else r for i, r in enumerate(rows)]
    shard.unlink()
    writer = ShardWriter(copy, "rl-procgen", "train", 10_000)
    for row in rows:
        writer.add(encode_row(row, "rl-procgen"))
    writer.close()
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["files"]["rl-procgen/train-00000-of-00001.parquet"] = sha256_file(shard)
    (copy / "manifest.json").write_text(json.dumps(manifest))
    report = validate_dataset(copy)
    assert not report.ok
    assert sum(n for reason, n in report.reasons().items() if reason.startswith("instance_mismatch")) == 3
    assert report.rows["rl-procgen"] == 60
