"""The LLM stage of `covert build`: realization checked by L3, counted rejections, fail-fast."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from covert.build import BuildConfig, build
from covert.synth.llm_realize import EvolvingRealizer, LLMConfig, forbidden_values, required_values
from covert.validation.dataset import validate_dataset


def _config() -> BuildConfig:
    return BuildConfig(builders=["retail", "banking"], num_tasks=12, seed=5)


def test_random_model_garbage_is_rejected_counted_and_never_written(random_model_dir: Path, tmp_path: Path) -> None:
    from covert.llm import open_backend

    backend = open_backend(f"hf:{random_model_dir}", cache_dir=tmp_path / "cache")
    realizer = EvolvingRealizer(backend, LLMConfig(spec="hf:tiny", max_tokens=24))
    with_llm = build(_config(), tmp_path / "llm", progress=False, llm=realizer)
    plain = build(_config(), tmp_path / "plain", progress=False)
    llm = with_llm["llm"]
    assert llm["requests"] > 0 and llm["accepted"] == 0
    assert sum(llm["rejected_by_reason"].values()) == llm["requests"]
    assert all(reason.startswith("llm_") for reason in llm["rejected_by_reason"])
    assert with_llm["files"] == plain["files"]  # rejected outputs changed nothing that was written
    assert validate_dataset(tmp_path / "llm").ok
    # rejections feed back into the next round's prompt
    assert realizer.feedback
    task = _a_task()
    assert "Earlier drafts were rejected for" in realizer.query_request(task).messages[-1]["content"]


def test_cached_rerun_sends_nothing(random_model_dir: Path, tmp_path: Path) -> None:
    from covert.llm import open_backend

    cache = tmp_path / "cache"
    first = open_backend(f"hf:{random_model_dir}", cache_dir=cache)
    build(_config(), tmp_path / "a", progress=False, llm=EvolvingRealizer(first, LLMConfig(spec="x", max_tokens=16)))
    again = open_backend(f"hf:{random_model_dir}", cache_dir=cache)
    build(_config(), tmp_path / "b", progress=False, llm=EvolvingRealizer(again, LLMConfig(spec="x", max_tokens=16)))
    assert again.stats["misses"] == 0 and again.stats["hits"] > 0


def _a_task():
    from covert.synth.generate import ItemSpec, make_item

    outcome = next(o for i in range(50) if (o := make_item(ItemSpec(i, "retail", "state_changing", None), 1,
                                                            lambda s: "train")).task is not None)
    return outcome.task


def test_prompt_carries_the_minimal_information_constraint() -> None:
    task = _a_task()
    must, never = required_values(task), forbidden_values(task)
    assert must and never
    assert not set(must) & set(never)
    prompt = EvolvingRealizer(None, LLMConfig(spec="x")).query_request(task).messages[-1]["content"]
    for value in must + never:
        assert value in prompt


def test_unreachable_server_fails_fast(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "covert.cli", "build", "--num-tasks", "3", "--out",
                             str(tmp_path / "x"), "--llm", "openai:http://127.0.0.1:9/v1", "--quiet"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "127.0.0.1:9" in result.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("spec", ["nonsense", "openai:ftp://x", "hf:"])
def test_bad_spec_one_line(tmp_path: Path, spec: str) -> None:
    result = subprocess.run([sys.executable, "-m", "covert.cli", "build", "--num-tasks", "3", "--out",
                             str(tmp_path / "x"), "--llm", spec, "--quiet"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    json.dumps(result.stderr)


def test_review_and_plans_paths_with_a_trained_model(trained_model_dir: Path, tmp_path: Path) -> None:
    """The L4 review and the LLM plans of multi-turn rows run end to end; unusable outputs are counted,
    the template versions are kept, and every written row validates."""
    from covert.llm import open_backend

    realizer = EvolvingRealizer(open_backend(f"hf:{trained_model_dir}"), LLMConfig(spec="hf:t", review=True,
                                                                                   max_tokens=32))
    config = BuildConfig(builders=["retail"], num_tasks=6, seed=2, multi_turn=True)
    manifest = build(config, tmp_path / "ds", progress=False, llm=realizer)
    llm = manifest["llm"]
    assert llm["review"] is True and llm["requests"] > 0
    assert sum(llm["plans"].values()) > 0
    assert validate_dataset(tmp_path / "ds").ok
