"""``covert evolve``: generations whose structural measures rise along their direction (longer chains, more
constraints, noisier observations, augmentations stacking), that stay solvable (validate and replay), load
with ``datasets.load_dataset``, regenerate byte for byte, and, with an LLM (a scripted OpenAI-compatible
server), carry its pass@k."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from covert.evolve.dataset import EvolveConfig, evolve_dataset
from covert.evolve.tools import DIRECTION_MEASURES, structure
from covert.validation.dataset import validate_dataset

CONFIG = EvolveConfig(generations=4, seed=1, tasks=30)


@pytest.fixture(scope="module")
def evolved(base_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("evolved") / "ds"
    return out, evolve_dataset(base_dataset, out, CONFIG)


def test_structural_measures_rise_and_augmentations_stack(evolved: tuple[Path, dict]) -> None:
    out, manifest = evolved
    generations = manifest["evolution"]["schedule"]["generations"]
    assert all(g["tasks"] > 0 for g in generations), [g["tasks"] for g in generations]
    first, last = generations[0]["structure"], generations[-1]["structure"]
    # (output_chars is not among them: a multi-format or noisy rewrite of an output can shorten it while the
    # observations direction's distractor tools rise)
    for name in ("calls", "turns", "distractor_tools", "augmentations"):
        assert last[name] > first[name], (name, first[name], last[name])
    assert max(int(k) for k in generations[-1]["stacked"]) >= 2, generations[-1]["stacked"]  # stacked kinds
    assert generations[-1]["moved"] and json.loads((out / "schedule.json").read_text()) == manifest["evolution"]["schedule"]
    card = (out / "README.md").read_text()
    assert "## Evolution" in card and "| generation | tasks | augmentations |" in card
    report = validate_dataset(out)
    assert report.ok, report.failures[:5]
    assert all(report.rows[f"rl-g{g}"] > 0 for g in range(4))


def test_each_kept_mutant_rose_along_its_direction(evolved: tuple[Path, dict]) -> None:
    from covert.io.reader import iter_rows

    out, _ = evolved
    measures: dict[str, dict[str, float]] = {}
    for g in range(4):
        for row in iter_rows(out, f"sft-g{g}"):
            assert row["generation"] == g and row["pass_rate"] is None
            key = f"{row['task_id']}@g{g}"
            assert key not in measures, "two rows of one generation share a task id"
            measures[key] = structure(row)
            assert row["calibration"]["structure"] == measures[key]
            parent = row["calibration"]["parent"]
            if g == 0:
                assert parent is None and not row["augmentations"]
                continue
            direction = row["calibration"]["direction"]
            names = DIRECTION_MEASURES[direction]
            assert all(measures[key][n] >= measures[parent][n] for n in names)
            assert any(measures[key][n] > measures[parent][n] for n in names), (direction, row["task_id"])


def test_rows_load_with_load_dataset_and_score_with_their_oracle(evolved: tuple[Path, dict], tmp_path: Path) -> None:
    from datasets import load_dataset

    from covert.rewards import score
    from covert.rewards.composite import oracle_completion

    out, _ = evolved
    rows = load_dataset(str(out), "rl-g3", split="train", cache_dir=str(tmp_path / "cache"))
    assert len(rows) > 0 and set(rows["generation"]) == {3}
    for row in rows.select(range(min(10, len(rows)))):
        assert score(row, oracle_completion(row)).value == 1.0


def test_same_seed_same_bytes(base_dataset: Path, evolved: tuple[Path, dict], tmp_path: Path) -> None:
    again = evolve_dataset(base_dataset, tmp_path / "again", CONFIG)
    assert again["files"] == evolved[1]["files"]


def test_an_llm_pass_at_k_is_measured_and_judges_mutants(base_dataset: Path, tmp_path: Path) -> None:
    """A scripted model that never calls a tool passes nothing: pass@k is 0 on every task, so no mutant
    is passed more often than its parent, and every row records the measured rate."""
    pytest.importorskip("httpx")
    from tests.scripted_chat import ScriptedChat

    server = ScriptedChat(lambda text: "I cannot help with that.").start()
    try:
        config = EvolveConfig(generations=2, seed=1, tasks=6, k=2, llm=f"openai:{server.url}#scripted")
        manifest = evolve_dataset(base_dataset, tmp_path / "llm", config, backend=server.backend())
    finally:
        server.stop()
    generations = manifest["evolution"]["schedule"]["generations"]
    assert [g["llm_pass_rate"] for g in generations] == [0.0, 0.0]
    assert server.requests and all(r.get("tools") for r in server.requests)  # rollouts offered the row's tools
    assert "--llm 'openai:" in manifest["command"] or "--llm openai:" in manifest["command"]


def test_cli_evolve_and_bad_input(base_dataset: Path, tmp_path: Path) -> None:
    cli = [sys.executable, "-c", "import sys; from covert.cli import main; sys.exit(main())"]
    ok = subprocess.run([*cli, "evolve", str(base_dataset), "--out", str(tmp_path / "e"), "--generations", "2",
                         "--tasks", "8"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "generation 1:" in ok.stdout and "augmentations" in ok.stdout
    bad = subprocess.run([*cli, "evolve", str(base_dataset), "--out", str(tmp_path / "f"), "--generations", "0"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "--generations" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "f").exists()
