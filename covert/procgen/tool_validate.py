"""Re-checking the rows of a procedural environment's tool form (``covert validate``).

For a row of ``sft-procgen-tools`` or ``rl-procgen-tools``: its JSON Schema (the tool-row contract), the
offered tools against the installed environment's own specs and every oracle call against its tool's
schema; then the instance re-derived from (environment, version, seed, config, index), which re-runs the
exact solver, and both rows rebuilt from it and compared; then the oracle calls replayed twice on the row's
own initial state: the same outputs and final state both times, no call refused, the recorded hashes, and
the final state the optimal one (every agent on its goal, time = the solver's optimal makespan). Last, the
environment's tool scorer gives the oracle conversation 1.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from covert.env import State, UnknownBuilderError, get_builder
from covert.procgen.contract import ConfigError, Instance
from covert.procgen.registry import UnknownEnvironmentError, get_env
from covert.procgen.tool_form import PREFIX
from covert.procgen.tool_forms import get_tool_form
from covert.procgen.tool_rows import FORM, SFT_TOOLS_CONFIG, TooManyCalls, make_tool_rows
from covert.validation import (
    Invalid,
    _check_deterministic,
    _check_messages,
    _check_replay,
    _check_tools,
    _replay,
    oracle_of,
)


def validate_tool_row(row: dict[str, Any], config: str) -> None:
    """Check one tool-form row (``config`` is ``sft-procgen-tools`` or ``rl-procgen-tools``); raises
    :class:`~covert.errors.Invalid` with a stable reason and the environment's name as the detail."""
    from covert.schemas import SchemaViolation, validator

    kind = "sft" if config == SFT_TOOLS_CONFIG else "rl"
    try:
        validator(f"{kind}_row")(row)
    except SchemaViolation as exc:
        raise Invalid("schema_violation", str(exc).splitlines()[0][:120]) from None
    truth = row["ground_truth"] if kind == "sft" else row["reward_model"]["ground_truth"]
    ident = truth.get("procgen")
    if not isinstance(ident, dict) or ident.get("form") != FORM or not isinstance(ident.get("env"), str):
        raise Invalid("no_instance_identity", str(row.get("builder"))[:80])
    name = ident["env"]
    form = get_tool_form(name)
    if form is None or row["builder"] != PREFIX + name or row["environment"] != row["builder"]:
        raise Invalid("unknown_tool_form", f"{row['builder']}"[:80])
    try:
        env = get_env(name)
        builder = get_builder(row["builder"])
    except (UnknownEnvironmentError, UnknownBuilderError):
        raise Invalid("unknown_environment", name) from None
    if ident.get("version") != env.version or row["builder_version"] != builder.version:
        raise Invalid("version_mismatch", f"{name} {row['builder_version']} (row) vs {builder.version} (installed)")
    oracle = oracle_of(row, kind)
    _check_tools(builder.environment, oracle)
    if kind == "sft":
        _check_messages(row)
    try:
        config_full = env.check_config(ident.get("config"))
    except (ConfigError, TypeError, AttributeError):
        raise Invalid("bad_config", name) from None
    if config_full != ident["config"]:
        raise Invalid("incomplete_config", name)
    try:
        sft, rl, instance = make_tool_rows(env, form, ident["seed"], config_full, ident["index"], "train", 0)
    except TooManyCalls:
        raise Invalid("too_many_calls", name) from None
    except Exception as exc:  # noqa: BLE001 - an environment that fails to re-derive is a counted failure
        raise Invalid("rederive_failed", f"{name}: {type(exc).__name__}") from None
    if instance.data != ident["data"]:
        raise Invalid("instance_mismatch", name)
    rebuilt = sft if kind == "sft" else rl
    for key, value in rebuilt.items():
        if key == "extra_info":
            mine = {k: v for k, v in row["extra_info"].items() if k not in ("index", "split")}
            if mine != {k: v for k, v in value.items() if k not in ("index", "split")}:
                raise Invalid("extra_info_mismatch", name)
        elif row.get(key) != value:
            raise Invalid(f"{key}_mismatch", name)
    initial = State.from_dict(oracle.state)
    replay = _replay(builder.environment, oracle, initial)
    _check_deterministic(replay, _replay(builder.environment, oracle, initial))
    _check_replay(dataclasses.replace(oracle, answer=None), replay.outputs, replay.final_hash)
    expected = form.expected_state(instance.data)
    if replay.final_hash != expected.hash():
        raise Invalid("not_the_optimal_final_state", name)
    completion = sft["messages"][2:]
    scored = env.score_tools(Instance("", instance.data), completion)  # type: ignore[attr-defined]
    if scored.value != 1.0:
        raise Invalid("oracle_scores_below_1", f"{name}: {', '.join(scored.reasons)}")
