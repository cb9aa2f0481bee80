"""RL and SFT rows of one procedural instance, and reading such rows back.

An instance is named by (environment, version, seed, config, index); both rows carry that identity and
the instance's hidden data as ground truth::

    {"procgen": {"env", "version", "seed", "config", "index", "data"}}

so a row scores without the environment re-sampling anything (``covert.rewards.score``), and
``covert validate`` re-derives the instance from its identity and compares.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from covert.procgen.contract import Instance, ProceduralEnv, config_key

RL_CONFIG = "rl-procgen"
SFT_CONFIG = "sft-procgen"
CONFIGS = (SFT_CONFIG, RL_CONFIG)
ENVIRONMENT_PREFIX = "procgen/"
DATA_SOURCE_PREFIX = "covert/procgen/"
ABILITY = "reasoning"


def task_id(env: ProceduralEnv, seed: int, config: dict[str, Any], index: int) -> str:
    """The id of an instance: the environment's name and a digest of its full identity."""
    key = f"{env.name}:{env.version}:{seed}:{config_key(config)}:{index}"
    return f"procgen-{env.name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def level_of(env: ProceduralEnv, config: dict[str, Any]) -> int:
    """The difficulty level of a configuration: the highest level any of its knobs is at."""
    return max((knob.level_of(config[knob.name]) for knob in env.knobs), default=0)


def ground_truth(env: ProceduralEnv, seed: int, config: dict[str, Any], index: int,
                 instance: Instance) -> dict[str, Any]:
    """The ground truth both rows carry: the instance's identity and hidden data."""
    return {"procgen": {"env": env.name, "version": env.version, "seed": seed, "config": dict(config),
                        "index": index, "data": instance.data}}


def make_rows(env: ProceduralEnv, seed: int, config: dict[str, Any], index: int,
              split: str, row_index: int) -> tuple[dict[str, Any], dict[str, Any], Instance]:
    """``(sft row, rl row, instance)`` of instance ``index``; ``config`` must be complete (checked)."""
    instance = env.sample(seed, config, index)
    reference = env.reference(instance)
    tid = task_id(env, seed, config, index)
    truth = ground_truth(env, seed, config, index, instance)
    common = {"task_id": tid, "environment": ENVIRONMENT_PREFIX + env.name, "env_version": env.version,
              "env_config": dict(config), "env_seed": seed, "env_index": index, "level": level_of(env, config),
              "asymmetry": env.asymmetry}
    prompt = [{"role": "user", "content": instance.prompt}]
    sft = {**common, "messages": [*prompt, {"role": "assistant", "content": reference}], "ground_truth": truth}
    rl = {**common, "prompt": prompt, "data_source": DATA_SOURCE_PREFIX + env.name, "ability": ABILITY,
          "reward_model": {"style": "rule", "ground_truth": truth},
          "extra_info": {"index": row_index, "split": split, "task_id": tid}}
    return sft, rl, instance


def procgen_truth(row: Any) -> Mapping[str, Any] | None:
    """The ``procgen`` ground truth of a row in any form scoring meets (an RL or SFT row, TRL's columns,
    verl's ``ground_truth`` as a dict or JSON text), or ``None`` when the row is not a procgen row."""
    if not isinstance(row, Mapping):
        return None
    truth = row.get("ground_truth")
    reward_model = row.get("reward_model")
    if isinstance(reward_model, (str, bytes)):
        reward_model = _loads(reward_model)
    if isinstance(reward_model, Mapping) and reward_model.get("ground_truth") is not None:
        truth = reward_model["ground_truth"]
    if isinstance(truth, (str, bytes)):
        truth = _loads(truth)
    if isinstance(truth, Mapping) and isinstance(truth.get("procgen"), Mapping):
        return truth["procgen"]
    return None


def _loads(text: str | bytes) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None
