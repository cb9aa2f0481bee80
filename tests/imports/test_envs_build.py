"""Imported environments behave like builders: listed, built, validated, loaded and scored, regenerated
byte for byte; evaluation sources are refused unless allowed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from covert.build import BuildConfig, BuildError, build
from covert.cli import main
from covert.imports import envs
from covert.imports.model import ApiSpec
from covert.imports.store import StoreError, save_spec
from covert.io.reader import iter_rows
from covert.rewards import Scorer, oracle_completion
from tests.imports.api_fixtures import memory_mcp, notes_google, queues_botocore, shop_openapi, stored

datasets = pytest.importorskip("datasets")
NAMES = ["api.openapi.shop.example.1.0", "api.google.notes.v1", "api.botocore.queues.2012-11-05", "api.mcp.memory"]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bfcl = ApiSpec(**{**memory_mcp().__dict__, "source": "bfcl", "api": "bfcl:memory", "evaluation_source": True})
    yield from stored(tmp_path, monkeypatch, (shop_openapi(), notes_google(), queues_botocore(), memory_mcp(), bfcl))


def test_verify_list_and_covert_list(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report_path = tmp_path / "report.json"
    assert main(["envs", "verify", "--store", str(store), "--report", str(report_path)]) == 0
    printed = capsys.readouterr().out
    assert "5 of 5 environments admitted" in printed and "custom_action_no_llm" in printed
    report = json.loads(report_path.read_text())
    assert report["by_source"]["openapi"] == {"admitted": 1, "rejected": 0, "tools": 8}
    assert main(["envs", "list"]) == 0
    listed = capsys.readouterr().out
    assert "api.bfcl.memory" in listed and "(evaluation source)" in listed and "5 environments, 24 tools" in listed
    assert main(["list"]) == 0
    covert_list = capsys.readouterr().out
    assert all(name in covert_list for name in NAMES)


def test_envs_verify_without_specs_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["envs", "verify", "--store", str(tmp_path / "empty")]) != 0
    assert "holds no imported specs" in capsys.readouterr().err


def test_build_on_imported_environments_validates_scores_and_regenerates(store: Path, tmp_path: Path) -> None:
    assert main(["envs", "verify"]) == 0
    config = dict(builders=NAMES, num_tasks=160, seed=5)
    first, second = tmp_path / "a", tmp_path / "b"
    manifest = build(BuildConfig(**config), first, progress=False)
    build(BuildConfig(**config), second, workers=2, progress=False)
    for path in sorted(p for p in first.rglob("*.parquet")):
        assert path.read_bytes() == (second / path.relative_to(first)).read_bytes(), path
    assert set(manifest["builders"]) == set(NAMES)
    assert manifest["builders"]["api.openapi.shop.example.1.0"]["license"] == "MIT"
    assert main(["validate", str(first)]) == 0
    assert "api.openapi.shop.example.1.0" in (first / "README.md").read_text()
    scorer = Scorer()
    loaded = datasets.load_dataset(str(first), "rl", cache_dir=str(tmp_path / "cache"))
    rows = [row for split in loaded for row in loaded[split]]
    assert {r["builder"] for r in rows} == set(NAMES)
    for row in rows:
        assert scorer.score(row, oracle_completion(row, scorer)).value == 1.0, row["task_id"]
    # the queries speak in words: no tool names, no path templates
    for row in iter_rows(first, "sft"):
        query = " ".join(m["content"] for m in row["messages"] if m["role"] == "user")
        assert "{" not in query and "/v1/" not in query
        assert not any(tool["function"]["name"] in query for tool in row["tools"])


def test_evaluation_sources_are_refused_unless_allowed(store: Path, tmp_path: Path) -> None:
    assert main(["envs", "verify"]) == 0
    with pytest.raises(BuildError, match="evaluation source"):
        build(BuildConfig(builders=["api.bfcl.memory"], num_tasks=20), tmp_path / "refused", progress=False)
    assert not (tmp_path / "refused").exists()
    manifest = build(BuildConfig(builders=["api.bfcl.memory"], num_tasks=20), tmp_path / "ok", progress=False,
                     allow_eval_sources=True)
    assert manifest["builders"]["api.bfcl.memory"]["evaluation_source"] is True
    assert "Evaluation sources" in (tmp_path / "ok" / "README.md").read_text()


def test_a_changed_spec_is_not_silently_rebuilt(store: Path) -> None:
    assert main(["envs", "verify"]) == 0
    changed = ApiSpec(**{**shop_openapi().__dict__, "description": "A shop, changed."})
    save_spec(store, changed)
    envs.clear_caches()
    with pytest.raises(StoreError, match="run `covert envs verify` again"):
        envs.admitted_builder("api.openapi.shop.example.1.0")
    # the CLI says it in one line and exits non-zero
    assert main(["build", "--builders", "api.openapi.shop.example.1.0", "--num-tasks", "4",
                 "--out", str(store.parent / "stale")]) == 2
