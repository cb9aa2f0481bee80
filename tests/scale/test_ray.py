"""Every corpus-scale command on the Ray engine (local Ray, one session for the whole module) gives the
same bytes and the same results as the local engine: build, augment, validate, score, calibrate,
procgen and envs verify."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from covert.augment.dataset import AugmentConfig, augment_dataset
from covert.build import BuildConfig, build
from covert.cli import main
from covert.io.parquet import ShardWriter, encode_row, sha256_file
from covert.io.reader import iter_rows, load_manifest
from covert.procgen.dataset import ProcgenConfig, build_procgen
from covert.rewards import oracle_completion
from covert.rollouts.calibrate import calibrate
from covert.scale.engine import open_pool
from covert.scale.ray_engine import RayPool, blocks
from covert.validation.dataset import validate_dataset
from tests.imports.api_fixtures import memory_mcp, notes_google, shop_openapi, stored

ray = pytest.importorskip("ray", reason="the ray engine needs the 'ray' extra")
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*"),
              pytest.mark.filterwarnings("ignore:The maximum number of concurrent tasks:UserWarning")]

NUM = 60


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


def test_augment_on_ray_writes_the_same_bytes(built: Path, tmp_path: Path) -> None:
    config = AugmentConfig(kinds=["distractors", "noisy", "erroneous"], seed=4, rows_per_shard=50)
    augment_dataset(built, tmp_path / "local", config, command="covert augment SRC")
    augment_dataset(built, tmp_path / "ray", config, command="covert augment SRC", workers=2, engine="ray")
    _same_tree(tmp_path / "local", tmp_path / "ray")


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


def test_procgen_and_validate_on_ray_match_local(local_ray, tmp_path: Path) -> None:
    config = ProcgenConfig(envs=["knapsack", "subset_sum", "topological_order"], num_tasks=40, seed=3, level=1)
    build_procgen(config, tmp_path / "local", command="covert procgen")
    build_procgen(config, tmp_path / "ray", command="covert procgen", workers=2, engine="ray")
    _same_tree(tmp_path / "local", tmp_path / "ray")
    _break_rows(tmp_path / "ray", "rl-procgen", 3)
    local = validate_dataset(tmp_path / "ray")
    on_ray = validate_dataset(tmp_path / "ray", workers=2, engine="ray")
    assert sum(1 for _, _, reason in local.failures if reason.startswith("instance_mismatch")) == 3
    assert (on_ray.rows, on_ray.failures) == (local.rows, local.failures)
    good = validate_dataset(tmp_path / "local", engine="ray", workers=2)
    assert good.ok and good.rows == local.rows


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


def test_calibrate_on_ray_writes_the_same_bytes(built: Path, tmp_path: Path) -> None:
    local = calibrate(built, policy="scripted:0.3", k=3, seed=2, out=tmp_path / "local")
    on_ray = calibrate(built, policy="scripted:0.3", k=3, seed=2, out=tmp_path / "ray", workers=2, engine="ray")
    assert on_ray == local and 0 < local["mean_pass_rate"] < 1
    manifests = [json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("local", "ray")]
    assert manifests[0]["files"] == manifests[1]["files"]


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
