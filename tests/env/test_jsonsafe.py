"""Values from model text that no state may take are refused at the tool boundary, on every builder."""

from __future__ import annotations

import json

import pytest

from covert.env import builder_names, get_builder, is_error
from covert.env.jsonsafe import admit

HOSTILE = [
    float("nan"), float("inf"), -float("inf"), 2**64, -(2**63) - 1, 2**63, "\ud800", "ok \udfff end",
    {"nested": [1, {"deep": float("nan")}]}, ["a", "\ud83d"],
]


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_admit_names_the_problem(value: object) -> None:
    arguments = {"field": value}
    _, problem = admit(arguments)
    assert problem is not None and problem.startswith("field"), problem


def test_admit_keeps_sound_values_and_canonicalises_floats() -> None:
    sound = {"a": 1, "b": [0.5, "x", None, True], "c": {"d": 2**63 - 1, "e": -(2**63)}}
    assert admit(sound) == (sound, None)
    fixed, problem = admit({"amount": 0.30000000000000004})
    assert problem is None and fixed == {"amount": 0.3}


@pytest.mark.parametrize("name", builder_names())
def test_tools_refuse_hostile_values_and_the_state_stays_sound(name: str) -> None:
    builder = get_builder(name)
    env = builder.env(builder.state(7, 0))
    before = env.state.hash()
    refused = 0
    for spec in env.tool_specs.values():
        properties = spec.parameters.get("properties", {})
        for key in properties:
            for value in HOSTILE:
                arguments = {k: "x" for k in spec.parameters.get("required", [])}
                arguments[key] = value
                output = env.call(spec.name, arguments)
                assert is_error(output), (spec.name, key, value, output)
                json.dumps(output)  # whatever came back serialises
                refused += 1
    assert refused > 0
    assert env.state.hash() == before
    env.state.to_json()


def test_nan_text_from_a_model_never_moves_money() -> None:
    builder = get_builder("banking")
    env = builder.env(builder.state(7, 0))
    tool = next(n for n in env.tool_specs if "transfer" in n)
    before = env.state.to_json()
    text = '{"amount": NaN, "from_account_id": "a", "to_account_id": "b"}'
    assert is_error(env.call(tool, text))  # as text: not JSON
    output = env.call(tool, json.loads(text))  # as a trainer's json.loads hands it over
    assert is_error(output) and "finite" in output["error"]["message"]
    assert env.state.to_json() == before
