"""Every corpus-scale command on the Ray engine (local Ray, one session for the whole module) gives the
same bytes and the same results as the local engine, through the command line: build, augment, validate,
score, calibrate, procgen, mapf-benchmark, regenerate (every step of its chain on Ray), audit and envs
verify."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from covert.build import BuildConfig, build
from covert.cli import main
from covert.io.parquet import ShardWriter, encode_row, sha256_file
from covert.io.reader import iter_rows, load_manifest
from covert.rewards import oracle_completion
from covert.scale import ray_engine
from covert.scale.engine import open_pool
from covert.scale.ray_engine import RayPool, blocks
from tests.imports.api_fixtures import memory_mcp, notes_google, shop_openapi, stored

ray = pytest.importorskip("ray", reason="the ray engine needs the 'ray' extra")
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*"),
              pytest.mark.filterwarnings("ignore:The maximum number of concurrent tasks:UserWarning")]

NUM = 60
ON_RAY = ["--engine", "ray", "--workers", "2"]


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    yield
    if ray.is_initialized():
        ray.shutdown()


@pytest.fixture(scope="module")
def built(local_ray, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ray") / "local"
    build(BuildConfig(builders=["all"], num_tasks=NUM, seed=21, rows_per_shard=20), out, progress=False)
    return out


@pytest.fixture
def ray_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The per-item functions the Ray engine is handed from now on (module.name, in order): the real
    :class:`RayPool` runs them, this only records what each command sent to Ray."""
    ran: list[str] = []

    class Recorded(RayPool):
        def imap(self, fn, items, chunksize=16):  # type: ignore[no-untyped-def]
            ran.append(f"{fn.__module__}.{fn.__qualname__}")
            return super().imap(fn, items, chunksize=chunksize)

    monkeypatch.setattr(ray_engine, "RayPool", Recorded)
    return ran


def _same_tree(a: Path, b: Path) -> None:
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_build_writes_the_same_shards_as_local(built: Path, tmp_path: Path) -> None:
    on_ray = build(BuildConfig(builders=["all"], num_tasks=NUM, seed=21, rows_per_shard=20), tmp_path / "ray",
                   workers=2, progress=False, engine="ray")
    assert on_ray["files"] == load_manifest(built)["files"] and len(on_ray["files"]) >= 6
    assert load_manifest(tmp_path / "ray") == load_manifest(built)


def test_ray_pool_keeps_order_sets_the_environment_and_raises_as_local(local_ray, monkeypatch) -> None:
    monkeypatch.setenv("COVERT_PROBE", "from-the-caller")
    pool = open_pool("ray", 2)
    assert isinstance(pool, RayPool)
    texts = [json.dumps([i, "x" * (i % 7)]) for i in range(700)]  # more than one window of chunks
    assert list(pool.imap(json.loads, texts, chunksize=3)) == [json.loads(t) for t in texts]
    assert list(pool.imap(json.loads, [], chunksize=3)) == []
    assert list(pool.imap(os.getenv, ["COVERT_PROBE"] * 5)) == ["from-the-caller"] * 5
    with pytest.raises(json.JSONDecodeError):
        list(pool.imap(json.loads, ["1", "2", "not json", "4"], chunksize=1))
    assert blocks(512, 2) == 4 and blocks(512, 1) == 2 and blocks(3, 8) == 3 and blocks(1, 0) == 1


def _both(tmp_path: Path, argv: list[str], status: int = 0) -> tuple[Path, Path]:
    """Run ``covert *argv`` with ``{out}`` as .../local/out on the local engine and as .../ray/out on Ray
    (the manifests record the output folder by its last component); the two outputs."""
    outs = []
    for engine, extra in (("local", []), ("ray", ON_RAY)):
        out = tmp_path / engine / "out"
        assert main([*(str(out) if a == "{out}" else a for a in argv), "--quiet", *extra]) == status
        outs.append(out)
    return outs[0], outs[1]


def test_augment_calibrate_and_regenerate_on_ray_write_the_bytes_of_local(built: Path, tmp_path: Path,
                                                                          ray_runs: list[str]) -> None:
    augmented = _both(tmp_path / "augment", ["augment", str(built), "--out", "{out}", "--seed", "4",
                                             "--kinds", "distractors,noisy,erroneous", "--rows-per-shard", "50"])
    _same_tree(*augmented)
    calibrated = _both(tmp_path / "calibrate", ["calibrate", str(augmented[1]), "--out", "{out}",
                                                "--policy", "scripted:0.3", "--k", "3", "--seed", "2"])
    _same_tree(*calibrated)
    assert 0 < load_manifest(calibrated[1])["calibration"]["mean_pass_rate"] < 1
    steps = {"covert.augment.dataset._check_row", "covert.augment.dataset._augment_one",
             "covert.rollouts.calibrate.task_passes"}
    assert set(ray_runs) == steps
    ray_runs.clear()
    assert main(["regenerate", str(calibrated[1]), "--out", str(tmp_path / "again"), "--quiet", *ON_RAY]) == 0
    assert set(ray_runs) == {"covert.build._work", *steps}
    assert load_manifest(tmp_path / "again")["files"] == load_manifest(calibrated[0])["files"]


def _break_rows(root: Path, config: str, count: int) -> None:
    """Rewrite the train shard of ``config`` with the first ``count`` rows' instance data changed."""
    shard = root / config / "train-00000-of-00001.parquet"
    rows = list(iter_rows(root, config, "train"))
    for row in rows[:count]:
        data = row["reward_model"]["ground_truth"]["procgen"]["data"]
        first = next(iter(data))
        data[first] = [0] if isinstance(data[first], list) else 0
    shard.unlink()
    writer = ShardWriter(root, config, "train", 10_000)
    for row in rows:
        writer.add(encode_row(row, config))
    writer.close()
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["files"][f"{config}/train-00000-of-00001.parquet"] = sha256_file(shard)
    (root / "manifest.json").write_text(json.dumps(manifest))


def _validated(root: Path, capsys: pytest.CaptureFixture[str], status: int, *extra: str) -> dict:
    capsys.readouterr()
    assert main(["validate", str(root), "--json", "--quiet", *extra]) == status
    return json.loads(capsys.readouterr().out)


def test_procgen_regenerate_and_validate_on_ray_match_local(local_ray, tmp_path: Path, ray_runs: list[str],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    local, on_ray = _both(tmp_path, ["procgen", "--envs", "knapsack,subset_sum,topological_order", "--num-tasks",
                                     "40", "--seed", "3", "--level", "1", "--out", "{out}"])
    _same_tree(local, on_ray)
    assert set(ray_runs) == {"covert.procgen.dataset._work"}
    ray_runs.clear()
    assert main(["regenerate", str(local), "--out", str(tmp_path / "again"), "--quiet", *ON_RAY]) == 0
    assert set(ray_runs) == {"covert.procgen.dataset._work"}
    assert load_manifest(tmp_path / "again")["files"] == load_manifest(local)["files"]
    good = _validated(local, capsys, 0, *ON_RAY)
    _break_rows(on_ray, "rl-procgen", 3)
    broken = _validated(on_ray, capsys, 1)
    assert sum(1 for _, _, reason in broken["first"] if reason.startswith("instance_mismatch")) == 3
    assert _validated(on_ray, capsys, 1, *ON_RAY) == broken
    assert good["rows"] == broken["rows"] and good["failures"] == 0


def test_mapf_benchmark_on_ray_writes_the_bytes_of_local(local_ray, tmp_path: Path, ray_runs: list[str]) -> None:
    _same_tree(*_both(tmp_path, ["mapf-benchmark", "--per-cell", "1", "--seed", "5", "--out", "{out}"]))
    assert set(ray_runs) == {"covert.procgen.dataset._work"}


def test_score_on_ray_prints_the_same_json(built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sft = {row["task_id"]: row for row in iter_rows(built, "sft")}
    lines = [json.dumps({"task_id": task_id, "completion": oracle_completion(row) if i % 3 else "no idea"})
             for i, (task_id, row) in enumerate(sft.items())]
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("\n".join(lines) + "\n")
    argv = ["score", "--dataset", str(built), "--predictions", str(predictions), "--json", "--quiet"]
    assert main(argv) == 0
    local = capsys.readouterr().out
    assert main([*argv[:-2], "--json", "--engine", "ray", "--workers", "2"]) == 0
    on_ray = json.loads(capsys.readouterr().out)
    assert on_ray["summary"] == json.loads(local)["summary"] and len(on_ray["rows"]) == len(lines)
    assert 0 < on_ray["summary"]["mean"] < 1


def test_audit_on_ray_prints_the_same_json(built: Path, capsys: pytest.CaptureFixture[str], ray_runs: list[str]) -> None:
    argv = ["audit", str(built), "--json", "--examples", "4"]
    assert main(argv) == 0
    local = capsys.readouterr().out
    assert main([*argv, *ON_RAY]) == 0
    assert capsys.readouterr().out == local and json.loads(local)["configs"]["sft"]["rows"] == NUM
    assert set(ray_runs) == {"covert.audit.report.row_findings"}


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from stored(tmp_path, monkeypatch, (shop_openapi(), notes_google(), memory_mcp()))


def test_envs_verify_on_ray_admits_the_same(local_ray, store: Path, tmp_path: Path) -> None:
    reports = {}
    for engine in ("local", "ray"):
        report = tmp_path / f"{engine}.json"
        assert main(["envs", "verify", "--store", str(store), "--report", str(report), "--engine", engine,
                     "--workers", "2"]) == 0
        reports[engine] = json.loads(report.read_text())
        reports[engine]["admitted_list_bytes"] = (store / "admitted.json").read_bytes().decode()
    assert reports["ray"] == reports["local"] and reports["local"]["admitted"] >= 2
