"""The registry of procedural environments: discovery, names, knobs, both asymmetries."""

from __future__ import annotations

import pytest

from covert.env import builder_names
from covert.procgen.contract import ConfigError
from covert.procgen.registry import UnknownEnvironmentError, env_names, get_env, resolve_envs


def test_at_least_ten_seeds_of_both_asymmetries() -> None:
    names = env_names()
    assert len(names) >= 10
    kinds = {get_env(n).asymmetry for n in names}
    assert kinds == {"reason", "verify"}
    assert sum(get_env(n).asymmetry == "verify" for n in names) >= 3
    assert not set(names) & set(builder_names())


def test_every_env_has_a_curriculum_of_ordered_levels() -> None:
    for name in env_names():
        env = get_env(name)
        assert env.knobs and env.version and env.description
        assert max(len(k.levels) for k in env.knobs) >= 3, name
        for knob in env.knobs:
            assert len(set(knob.levels)) == len(knob.levels), (name, knob.name)
        assert env.check_config(env.config_at(99)) == {k.name: k.levels[-1] for k in env.knobs}
        schema = env.config_schema()
        assert set(schema["properties"]) == {k.name for k in env.knobs}


def test_resolve_and_errors() -> None:
    assert [e.name for e in resolve_envs("all")] == env_names()
    assert [e.name for e in resolve_envs("sat, knapsack,sat")] == ["sat", "knapsack"]
    with pytest.raises(UnknownEnvironmentError, match="known: "):
        get_env("nope")
    with pytest.raises(ConfigError, match="has no knob"):
        get_env("knapsack").check_config({"colour": 1})
