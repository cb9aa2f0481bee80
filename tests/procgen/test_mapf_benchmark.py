"""The MAPF-FrozenLake benchmark grid as a dataset: its cells, byte-identical regeneration (a small grid here;
the full 3,150 rows in benchmarks/mapf_bench.py), rows loaded with datasets and scored through
covert.rewards.score, and the valid/optimal report for policies and completions files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from covert.cli import main
from covert.io.reader import iter_rows
from covert.procgen.contract import Instance
from covert.procgen.mapf_benchmark import (
    BENCHMARK_GRID,
    benchmark_items,
    format_report,
    noisy_policy,
    reference_policy,
    report,
    write_benchmark,
)
from covert.rewards import score

SMALL = {3: (3, 4), 4: (4,), 5: (6,)}


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mapfb") / "ds"
    write_benchmark(out, seed=3, per_cell=3, grid=SMALL)
    return out


def test_the_full_grid_has_the_papers_cells() -> None:
    items = benchmark_items()
    assert len(items) == 3150
    cells = Counter((item.config["agents"], item.config["grid_size"]) for item in items)
    assert set(cells.values()) == {150}
    assert sorted(cells) == [(a, n) for a in (3, 4, 5) for n in range(a, 11)]
    assert sorted(BENCHMARK_GRID) == [3, 4, 5]


def test_regenerates_byte_identically_with_any_worker_count(bench: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    write_benchmark(again, seed=3, per_cell=3, grid=SMALL, workers=2)
    assert _files(again) == _files(bench)
    other = tmp_path / "other"
    write_benchmark(other, seed=4, per_cell=3, grid=SMALL)
    assert _files(other)["manifest.json"] != _files(bench)["manifest.json"]


def test_rows_load_with_datasets_and_score_through_covert_rewards(bench: Path, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    files = sorted(str(p) for p in (bench / "rl-procgen").glob("*.parquet"))
    rows = list(datasets.load_dataset("parquet", data_files=files, split="train", cache_dir=str(tmp_path / "c")))
    assert len(rows) == 12 and {row["extra_info"]["split"] for row in rows} == {"test"}
    answers = {row["task_id"]: row["messages"][-1]["content"] for row in iter_rows(bench, "sft-procgen")}
    for row in rows:
        assert score(row, answers[row["task_id"]]).value == 1.0
        assert score(row, "Agent 0: UP").value == 0.0
    assert main(["validate", str(bench)]) == 0


def test_report_reference_is_perfect_and_noisy_is_not(bench: Path) -> None:
    rows = list(iter_rows(bench, "rl-procgen"))
    lines = report(rows, reference_policy)
    assert [(x.agents, x.count, x.valid, x.optimal) for x in lines] == [
        ("3", 6, 100.0, 100.0), ("4", 3, 100.0, 100.0), ("5", 3, 100.0, 100.0), ("all", 12, 100.0, 100.0)]
    noisy = report(rows, noisy_policy(0.3, seed=1))
    assert noisy[-1].optimal < 100.0 and noisy[-1].optimal <= noisy[-1].valid
    assert report(rows, noisy_policy(0.3, seed=1)) == noisy  # the scripted policy is deterministic
    assert report(rows, {})[-1].valid == 0.0  # no responses: every row fails
    table = format_report(lines, "t")
    assert table.splitlines()[1].split() == ["agents", "n", "valid", "%", "optimal", "%"]


def test_report_cli_reads_completions_and_policies(bench: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    rows = list(iter_rows(bench, "rl-procgen"))
    lines = []
    for number, row in enumerate(rows):
        instance = Instance("", row["reward_model"]["ground_truth"]["procgen"]["data"])
        text = reference_policy(instance, row["task_id"]) if number % 2 == 0 else "I cannot solve this."
        completion = [{"role": "assistant", "content": text}] if number % 4 == 0 else text
        lines.append(json.dumps({"task_id": row["task_id"], "completion": completion}))
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("\n".join(lines) + "\n")
    assert main(["mapf-report", "--dataset", str(bench), "--predictions", str(predictions)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].split() == ["all", "12", "50.00", "50.00"]
    assert main(["mapf-report", "--dataset", str(bench), "--policy", "reference"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].split() == ["all", "12", "100.00", "100.00"]
    for bad in (["--policy", "noisy:2"], ["--policy", "oracle"], ["--predictions", str(tmp_path / "none.jsonl")]):
        assert main(["mapf-report", "--dataset", str(bench), *bad]) == 2
        assert "error" in capsys.readouterr().err
    predictions.write_text("{not json\n")
    assert main(["mapf-report", "--dataset", str(bench), "--predictions", str(predictions)]) == 2
    assert main(["mapf-benchmark", "--out", str(tmp_path / "x"), "--per-cell", "0"]) == 2
