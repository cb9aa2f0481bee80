"""`covert augment --llm`: LLM rewrites of indirect/ambiguous queries stay under the preservation proof."""

from __future__ import annotations

from pathlib import Path

from covert.augment.dataset import AugmentConfig, augment_dataset
from covert.augment.llm import LLMRephraser, constraint
from covert.augment.registry import RowPair
from covert.build import BuildConfig, build
from covert.io.reader import iter_rows
from covert.validation.dataset import validate_dataset


def test_garbage_rewrites_are_rejected_and_the_rule_rows_kept(random_model_dir: Path, tmp_path: Path) -> None:
    from covert.llm import open_backend

    base = tmp_path / "base"
    build(BuildConfig(builders=["retail", "hotels"], num_tasks=10, seed=2), base, progress=False)
    config = AugmentConfig(kinds=["indirect", "ambiguous"], seed=1)
    rephraser = LLMRephraser(open_backend(f"hf:{random_model_dir}", cache_dir=tmp_path / "cache"), max_tokens=20)
    with_llm = augment_dataset(base, tmp_path / "llm", config, llm=rephraser)
    plain = augment_dataset(base, tmp_path / "plain", config)
    summary = with_llm["augmentation_llm"]
    assert summary["requests"] > 0 and summary["accepted"] == 0
    assert sum(summary["rejected_by_reason"].values()) == summary["requests"]
    assert with_llm["files"] == plain["files"]
    assert validate_dataset(tmp_path / "llm").ok


def test_constraint_keeps_user_values_and_withholds_the_missing_one(tmp_path: Path) -> None:
    base = tmp_path / "base"
    build(BuildConfig(builders=["retail"], num_tasks=30, seed=3), base, progress=False)
    out = tmp_path / "aug"
    augment_dataset(base, out, AugmentConfig(kinds=["ambiguous"], seed=0))
    sft = {r["task_id"]: r for r in iter_rows(out, "sft-augmented")}
    rows = [(sft[r["task_id"]], r) for r in iter_rows(out, "rl-augmented")]
    assert rows
    for sft_row, rl_row in rows:
        must, never = constraint(RowPair(sft_row, rl_row))
        withheld = str(rl_row["reward_model"]["ground_truth"]["clarify"]["value"])
        assert withheld in never and withheld not in must
