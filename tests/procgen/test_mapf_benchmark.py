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


def test_benchmark_instances_have_the_papers_hole_ratio_and_report_the_budget_selection(bench: Path) -> None:
    from covert.procgen.mapf_benchmark import BENCHMARK_KNOBS, format_selection, selection_bias

    assert BENCHMARK_KNOBS["hole_percent"] == 10
    for row in iter_rows(bench, "rl-procgen"):
        data = row["reward_model"]["ground_truth"]["procgen"]["data"]
        assert len(data["holes"]) == min((10 * data["size"] ** 2 + 50) // 100, data["size"] ** 2 - 2 * len(data["starts"]))
    manifest = json.loads((bench / "manifest.json").read_text())
    cells = selection_bias(manifest)
    assert [(a, g, n) for a, g, n, _, _ in cells] == [(3, 3, 3), (3, 4, 3), (4, 4, 3), (5, 6, 3)]
    assert all(draws >= n and 0 <= dropped <= draws for _, _, n, draws, dropped in cells)
    text = format_selection(cells)
    assert "dropped" in text and text.splitlines()[-1].startswith("all: ")


def _map_rows(instance: Instance) -> list[str]:
    from covert.procgen.mapf_grid import MapfMap

    return MapfMap.from_data(instance.data).rows()


def test_published_maps_load_from_json_jsonl_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from covert.procgen.mapf_published import read_published
    from covert.procgen.registry import get_env

    env = get_env("mapf_frozenlake")
    instances = [env.sample(5, {"grid_size": 4 + i % 3, "agents": 2 + i % 3, "hole_percent": 10}, i) for i in range(6)]
    maps = [_map_rows(i) for i in instances]
    folder = tmp_path / "published"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps({"instances": [{"id": "m0", "map": maps[0]},
                                                             {"id": "m1", "grid": [" ".join(r) for r in maps[1]]}]}))
    (folder / "b.jsonl").write_text("\n".join(json.dumps({"id": f"m{n}", "desc": maps[n]}) for n in (2, 3)) + "\n"
                                    + json.dumps({"id": "bad", "map": ["SFX", "FFF", "FFG"]}) + "\n")
    (folder / "c.txt").write_text("A map:\n" + "\n".join(" ".join(r) for r in maps[4]) + "\n")
    (folder / "d.json").write_text(json.dumps({"id": "m5", "prompt": instances[5].prompt}))
    found, skipped = read_published(folder)
    assert [f.id for f in found] == ["m0", "m1", "m2", "m3", "c.txt", "m5"]
    assert skipped == {"not_a_map": 1}
    for item, original in zip(found, instances):
        assert item.instance.data["optimal_makespan"] == original.data["optimal_makespan"]
        assert env.score(item.instance, env.reference(original)).details["optimal"]

    assert main(["mapf-report", "--published", str(folder), "--policy", "reference"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].split() == ["all", "6", "100.00", "100.00"]
    prompts = tmp_path / "prompts.jsonl"
    assert main(["mapf-report", "--published", str(folder), "--prompts", str(prompts)]) == 0
    written = [json.loads(line) for line in prompts.read_text().splitlines()]
    assert [w["task_id"] for w in written] == [f.id for f in found] and "frozen lake" in written[0]["prompt"]
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"task_id": "m0", "completion": env.reference(instances[0])}) + "\n")
    assert main(["mapf-report", "--published", str(folder), "--predictions", str(predictions)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].split()[:2] == ["all", "6"]
    assert main(["mapf-report", "--published", str(tmp_path / "missing"), "--policy", "reference"]) == 2
    assert main(["mapf-report", "--dataset", str(folder), "--prompts", str(prompts)]) == 2
