"""Online rollouts, user-error flags and difficulty calibration."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from covert.build import BuildConfig, build
from covert.conversation.user_errors import INVENTED, OMITTED, detect_user_errors
from covert.io.reader import iter_rows, load_manifest
from covert.rollouts.calibrate import calibrate, frontier
from covert.rollouts.policies import ScriptedPolicy, parse_policy_spec
from covert.rollouts.runner import run, run_many
from covert.user.scenario import UserScenario
from covert.validation.dataset import validate_dataset


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rollouts") / "ds"
    build(BuildConfig(builders=["all"], num_tasks=160, seed=4, multi_turn=True), out, progress=False)
    return out


@pytest.mark.parametrize("config", ["rl", "rl-multiturn"])
def test_oracle_policy_scores_one_on_every_row(dataset: Path, config: str) -> None:
    rows = list(iter_rows(dataset, config))
    rollouts = run_many(lambda row: ScriptedPolicy(row), rows, concurrency=4)
    for row, rollout in zip(rows, rollouts, strict=True):
        assert rollout.reward.value == 1.0, (row["task_id"], rollout.reward.reasons)
        assert rollout.final_state_hash == row["reward_model"]["ground_truth"]["final_state_hash"]
        assert not rollout.masked
        if config == "rl-multiturn":
            assert rollout.stop in ("done", "out_of_scope")


def test_error_injected_policy_scores_lower_with_reasons(dataset: Path) -> None:
    rows = list(iter_rows(dataset, "rl-multiturn"))
    kinds = set()
    for row in rows:
        policy = ScriptedPolicy(row, error_rate=1.0)
        rollout = run(policy, row)
        assert rollout.reward.value < 1.0, (policy.mistake, row["task_id"])
        assert rollout.reward.reasons
        kinds.add(policy.mistake)
        if policy.mistake == "missing_facts":
            assert rollout.reward.components.get("facts", 1.0) < 1.0
        if policy.mistake == "wrong_argument":
            assert rollout.reward.components["calls"] < 1.0
    assert {"wrong_argument", "skipped_call", "missing_facts"} <= kinds


def test_batched_runs_match_single_runs(dataset: Path) -> None:
    rows = list(iter_rows(dataset, "rl"))[:30]
    single = [run(ScriptedPolicy(r, 0.5, seed=1), r).reward.value for r in rows]
    batched = [r.reward.value for r in run_many(lambda r: ScriptedPolicy(r, 0.5, seed=1), rows, concurrency=8)]
    assert single == batched


def test_user_error_detection() -> None:
    scenario = UserScenario.from_dict({
        "persona": "a customer", "goal": "cancel my order",
        "known": [{"label": "email", "value": "a@b.example", "text": "my email is a@b.example", "call": 0}],
        "unknown": ["user id"], "instructions": ""})
    good = [{"role": "assistant", "content": "What email should I use?"},
            {"role": "user", "content": "My email is a@b.example."}]
    assert detect_user_errors(good, scenario) == []
    invented = [{"role": "user", "content": "My email is zed@c.example and my id is U99812."}]
    assert INVENTED in detect_user_errors(invented, scenario)
    omitted = [{"role": "assistant", "content": "What email should I use?"},
               {"role": "user", "content": "Sorry, I don't know that."}]
    assert OMITTED in detect_user_errors(omitted, scenario)


def test_calibrate_matches_error_rate(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "calibrated"
    error_rate, k = 0.3, 10
    summary = calibrate(dataset, policy=f"scripted:{error_rate}", k=k, seed=2, out=out)
    rows = list(iter_rows(out, "rl"))
    rates = [r["pass_rate"] for r in rows]
    assert all(r is not None and 0 <= r <= 1 for r in rates)
    mean = sum(rates) / len(rates)
    sigma = math.sqrt(error_rate * (1 - error_rate) / (len(rates) * k))
    assert abs(mean - (1 - error_rate)) < 4 * sigma, (mean, sigma)
    assert summary["mean_pass_rate"] == pytest.approx(mean, abs=1e-4)
    recorded = load_manifest(out)["command"].splitlines()[-1]
    assert recorded == f"covert calibrate {dataset.name} --policy scripted:0.3 --k 10 --seed 2 --out calibrated"
    assert not any(str(p) in (out / "README.md").read_text() for p in (tmp_path, dataset.parent))
    assert all(r["calibration"]["k"] == k for r in rows)
    sft_rates = {r["task_id"]: r["pass_rate"] for r in iter_rows(out, "sft")}
    assert sft_rates == {r["task_id"]: r["pass_rate"] for r in rows}
    assert validate_dataset(out).ok
    kept = frontier(rows, 0.2, 0.8)
    assert kept and all(0.2 <= r["pass_rate"] <= 0.8 for r in kept)
    assert not any(Path(dataset).glob("**/*.tmp"))
    assert next(iter_rows(dataset, "rl"))["pass_rate"] is None  # the source is untouched


def test_calibrate_cli_bad_input(dataset: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "covert.cli", "calibrate", str(dataset), "--policy", "magic"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    with pytest.raises(ValueError):
        parse_policy_spec("scripted:2")


def test_spoiled_rollouts_are_flagged_and_masked_out_of_advantages(dataset: Path) -> None:
    from covert.rewards.advantages import environment_advantages, user_error_mask
    from covert.rollouts.runner import user_for
    from covert.user.simulator import ErrantUser

    rows = [r for r in iter_rows(dataset, "rl-multiturn") if r["extra_info"]["user_scenario"]["known"]][:24]
    rollouts = []
    for i, row in enumerate(rows):
        scenario = user_for(row).scenario
        user = ErrantUser(scenario, error_rate=1.0, seed=i) if i % 2 else None
        rollouts.append(run(ScriptedPolicy(row), row, user=user or "auto"))
    spoiled = [r.masked for r in rollouts]
    assert spoiled == [bool(i % 2) for i in range(len(rows))]
    mask = user_error_mask(spoiled)
    advantages = environment_advantages([r.reward.value for r in rollouts], [row["builder"] for row in rows], mask)
    assert all(a == 0.0 for a, keep in zip(advantages, mask, strict=True) if not keep)
