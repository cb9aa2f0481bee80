"""Explicit features of each config, as Hugging Face ``datasets`` feature dicts and Arrow schemas.

JSON-typed columns use ``datasets.Json`` (Arrow's ``arrow.json`` extension type) so nested values come
back exactly as written: tool-call arguments as dicts holding only their own keys.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pyarrow as pa

_STR = {"dtype": "string", "_type": "Value"}
_INT32 = {"dtype": "int32", "_type": "Value"}
_INT64 = {"dtype": "int64", "_type": "Value"}
_JSON = {"_type": "Json"}
_FLOAT64 = {"dtype": "float64", "_type": "Value"}

_METADATA = {
    "task_id": _STR, "environment": _STR, "builder": _STR, "builder_version": _STR, "category": _STR,
    "difficulty": _STR, "num_calls": _INT32, "augmentations": _JSON, "base_task_id": _STR,
    "pass_rate": _FLOAT64, "calibration": _JSON,
}

FEATURES: dict[str, dict[str, Any]] = {
    "sft": {**_METADATA, "messages": _JSON, "tools": _JSON, "initial_state": _JSON, "ground_truth": _JSON},
    "rl": {
        **_METADATA, "prompt": _JSON, "tools": _JSON, "data_source": _STR, "ability": _STR,
        "reward_model": {"style": _STR, "ground_truth": _JSON, "components": _JSON},
        "extra_info": {"index": _INT64, "split": _STR, "task_id": _STR, "initial_state": _JSON},
    },
}
# procedural environments (covert.procgen): the instance's identity instead of builder metadata, no tools
_PROCGEN = {"task_id": _STR, "environment": _STR, "env_version": _STR, "env_config": _JSON, "env_seed": _INT64,
            "env_index": _INT64, "level": _INT32, "asymmetry": _STR}
FEATURES["sft-procgen"] = {**_PROCGEN, "messages": _JSON, "ground_truth": _JSON}
FEATURES["rl-procgen"] = {
    **_PROCGEN, "prompt": _JSON, "data_source": _STR, "ability": _STR,
    "reward_model": {"style": _STR, "ground_truth": _JSON},
    "extra_info": {"index": _INT64, "split": _STR, "task_id": _STR},
}
FEATURES["rl-multiturn"] = {
    **FEATURES["rl"],
    "extra_info": {**FEATURES["rl"]["extra_info"], "user_scenario": _JSON},
}


def kind_of(config: str) -> str:
    """``"rl"`` or ``"sft"``: which row contract a config's rows follow (``rl-augmented`` is ``rl``)."""
    return "rl" if config.startswith("rl") else "sft"


GENERATION_CONFIG = re.compile(r"^(sft|rl)(-procgen)?(-g\d+)$")
"""Configs of an evolved dataset (``sft-g0``, ``rl-g3``, ``rl-procgen-g2``): their rows carry a ``generation``
column."""


def base_config(config: str) -> str:
    """The config a generation config holds the rows of (``rl-procgen`` for ``rl-procgen-g2``), else ``config``."""
    match = GENERATION_CONFIG.match(config)
    return config[:match.start(3)] if match else config


def features_for(config: str) -> dict[str, Any]:
    """The features of a config: its own entry, else the one of its kind (multi-turn RL keeps the
    user scenario; the generation configs of an evolved dataset add ``generation``)."""
    if config in FEATURES:
        return FEATURES[config]
    generation = GENERATION_CONFIG.match(config)
    if generation:
        return {**FEATURES[base_config(config)], "generation": _INT32}
    if kind_of(config) == "rl":
        return FEATURES["rl-multiturn"] if "multiturn" in config else FEATURES["rl"]
    return FEATURES["sft"]


def _arrow_type(feature: dict[str, Any]) -> pa.DataType:
    if feature.get("_type") == "Json":
        return pa.json_()
    if feature.get("_type") == "Value":
        return {"string": pa.string(), "int32": pa.int32(), "int64": pa.int64(),
                "float64": pa.float64()}[feature["dtype"]]
    return pa.struct([pa.field(name, _arrow_type(sub)) for name, sub in feature.items()])


def arrow_schema(config: str) -> pa.Schema:
    """The Arrow schema of a config, with the ``huggingface`` metadata ``datasets`` reads features from."""
    features = features_for(config)
    metadata = {"huggingface": json.dumps({"info": {"features": features}})}
    return pa.schema([pa.field(name, _arrow_type(f)) for name, f in features.items()], metadata=metadata)
