"""LLM backends in the other roles: the LLM user simulator and a policy made from a backend."""

from __future__ import annotations

from pathlib import Path

from covert.build import BuildConfig, build
from covert.conversation.llm_user import LLMUser
from covert.io.reader import iter_rows
from covert.rollouts.policies import BackendPolicy
from covert.rollouts.runner import run
from covert.user.scenario import UserScenario


def test_llm_user_and_backend_policy_roll_out(random_model_dir: Path, trained_model_dir: Path, tmp_path: Path) -> None:
    from covert.llm import open_backend

    build(BuildConfig(builders=["retail"], num_tasks=4, seed=1, multi_turn=True), tmp_path / "ds", progress=False)
    row = next(iter_rows(tmp_path / "ds", "rl-multiturn"))
    user_backend = open_backend(f"hf:{random_model_dir}")
    user = LLMUser(UserScenario.from_dict(row["extra_info"]["user_scenario"]), user_backend, max_tokens=12)
    assert user.opening() == row["extra_info"]["user_scenario"]["goal"]
    policy = BackendPolicy(open_backend(f"hf:{trained_model_dir}"), max_tokens=48)
    rollout = run(policy, row, user=user, max_turns=3)
    assert rollout.messages[: len(row["prompt"])] == row["prompt"]
    assert 0.0 <= rollout.reward.value <= 1.0
    assert rollout.stop in ("turn_limit", "done", "transfer", "out_of_scope")
    assert all(m["role"] in ("system", "user", "assistant", "tool") for m in rollout.messages)


def test_llm_judge_rejects_garbage_and_falls_back(random_model_dir: Path) -> None:
    from covert.llm import open_backend
    from covert.llm.judge import BackendJudge
    from covert.rewards.judge import RUBRICS, Rubric, RuleJudge

    judge = BackendJudge(open_backend(f"hf:{random_model_dir}"), max_tokens=16)
    rubric = Rubric("decline", RUBRICS["decline"])
    transcript = [{"role": "assistant", "content": "I'm sorry, I can't help with that here."}]
    verdict = judge.judge(rubric, transcript)
    assert verdict.score == RuleJudge().judge(rubric, transcript).score
    assert sum(judge.errors.values()) == 1 and "rejected" in verdict.rationale
