"""Re-checking procedural rows (``covert validate``): the row's shape against its JSON Schema, then the
instance and reference re-derived from (environment, version, seed, config, index) and compared.

A broken row raises :class:`covert.errors.Invalid` with a stable reason code and the environment's
name as the detail, so ``covert validate`` counts failures per reason and environment.
"""

from __future__ import annotations

from typing import Any

from covert.errors import Invalid
from covert.io.features import base_config
from covert.procgen.contract import ConfigError, Instance
from covert.procgen.registry import UnknownEnvironmentError, get_env
from covert.procgen.rows import RL_CONFIG, SFT_CONFIG, make_rows
from covert.procgen.tool_rows import RL_TOOLS_CONFIG, SFT_TOOLS_CONFIG, TOOLS_CONFIGS

SCHEMAS = {SFT_CONFIG: "procgen_sft_row", RL_CONFIG: "procgen_rl_row",
           SFT_TOOLS_CONFIG: "sft_row", RL_TOOLS_CONFIG: "rl_row"}


def is_procgen_config(config: str) -> bool:
    """Whether a dataset config holds procedural rows (an evolved dataset's generations too)."""
    return base_config(config) in SCHEMAS


def validate_procgen_row(row: dict[str, Any], config: str) -> None:
    """Check one row of ``sft-procgen`` or ``rl-procgen`` (or a generation of either), or of a tool form's
    ``sft-procgen-tools`` / ``rl-procgen-tools`` (:mod:`covert.procgen.tool_validate`); raises :class:`Invalid`."""
    from covert.schemas import SchemaViolation, validator

    config = base_config(config)
    if config in TOOLS_CONFIGS:
        from covert.procgen.tool_validate import validate_tool_row

        validate_tool_row(row, config)
        return
    try:
        validator(SCHEMAS[config])(row)
    except SchemaViolation as exc:
        raise Invalid("schema_violation", str(exc).splitlines()[0][:120]) from None
    truth = row["ground_truth"] if config == SFT_CONFIG else row["reward_model"]["ground_truth"]
    ident = truth["procgen"]
    name = ident["env"]
    try:
        env = get_env(name)
    except UnknownEnvironmentError:
        raise Invalid("unknown_environment", name) from None
    if ident["version"] != env.version:
        raise Invalid("version_mismatch", f"{name} {ident['version']} (row) vs {env.version} (installed)")
    identity = (row["environment"], row["env_version"], row["env_seed"], row["env_config"], row["env_index"])
    if identity != (f"procgen/{name}", ident["version"], ident["seed"], ident["config"], ident["index"]):
        raise Invalid("identity_mismatch", name)
    try:
        config_full = env.check_config(ident["config"])
    except ConfigError:
        raise Invalid("bad_config", name) from None
    if config_full != ident["config"]:
        raise Invalid("incomplete_config", name)
    try:
        sft, rl, instance = make_rows(env, ident["seed"], config_full, ident["index"], "train", 0)
    except Exception as exc:  # noqa: BLE001 - an environment that fails to re-derive is a counted failure
        raise Invalid("rederive_failed", f"{name}: {type(exc).__name__}") from None
    if instance.data != ident["data"]:
        raise Invalid("instance_mismatch", name)
    if row["task_id"] != sft["task_id"] or row["level"] != sft["level"] or row["asymmetry"] != sft["asymmetry"]:
        raise Invalid("metadata_mismatch", name)
    if config == SFT_CONFIG:
        if row["messages"][:-1] != sft["messages"][:-1]:
            raise Invalid("prompt_mismatch", name)
        answer = row["messages"][-1]
        if answer["role"] != "assistant":
            raise Invalid("no_answer", name)
        if answer["content"] != sft["messages"][-1]["content"]:
            raise Invalid("reference_mismatch", name)
        response = answer["content"]
    else:
        if row["prompt"] != rl["prompt"]:
            raise Invalid("prompt_mismatch", name)
        if row["data_source"] != rl["data_source"] or row["ability"] != rl["ability"] \
                or row["extra_info"]["task_id"] != row["task_id"]:
            raise Invalid("metadata_mismatch", name)
        response = sft["messages"][-1]["content"]  # the reference make_rows derived just now
    scored = env.score(Instance("", instance.data), response)
    if scored.value != 1.0:
        raise Invalid("reference_scores_below_1", f"{name}: {', '.join(scored.reasons)}")
