"""`covert list`: builders, versions, tool counts, read/write split; every spec validates."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema

from covert.schemas import load_schema


def test_list_json_has_eight_builders_and_eighty_tools() -> None:
    result = subprocess.run([sys.executable, "-m", "covert.cli", "list", "--json"], capture_output=True, text=True,
                            check=True)
    data = json.loads(result.stdout)
    assert data["total_builders"] >= 8
    assert data["total_tools"] >= 80
    schema = load_schema("tool")
    for builder in data["builders"]:
        assert builder["read_tools"] + builder["write_tools"] == builder["tools"]
        assert builder["write_tools"] >= 1 and builder["read_tools"] >= 1
        specs = data["tools"][builder["name"]]
        assert len(specs) == builder["tools"]
        for spec in specs:
            openai = {k: v for k, v in spec.items() if k != "covert"}
            jsonschema.validate(openai, schema)
            assert isinstance(spec["covert"]["writes"], bool) and "returns" in spec["covert"]


def test_list_text() -> None:
    result = subprocess.run([sys.executable, "-m", "covert.cli", "list"], capture_output=True, text=True, check=True)
    assert "retail" in result.stdout and "builders" in result.stdout.splitlines()[-1]


def test_unknown_subcommand_fails() -> None:
    result = subprocess.run([sys.executable, "-m", "covert.cli", "frobnicate"], capture_output=True, text=True)
    assert result.returncode == 2


def test_list_shows_procedural_environments_with_their_kind() -> None:
    result = subprocess.run([sys.executable, "-m", "covert.cli", "list", "--json"], capture_output=True, text=True,
                            check=True)
    data = json.loads(result.stdout)
    procedural = {env["name"]: env for env in data["procedural"]}
    assert data["total_procedural"] == len(procedural) >= 3 and "knapsack" in procedural
    assert all(env["kind"] == "procedural" and env["asymmetry"] in ("reason", "verify") for env in procedural.values())
    assert all(builder["kind"] == "builder" for builder in data["builders"])
    assert not set(procedural) & {b["name"] for b in data["builders"]}
    text = subprocess.run([sys.executable, "-m", "covert.cli", "list"], capture_output=True, text=True,
                          check=True).stdout.splitlines()
    assert text[0].split()[:3] == ["name", "kind", "version"]
    assert any(line.split()[:2] == ["knapsack", "procedural"] for line in text)
    assert any(line.split()[:2] == ["retail", "builder"] for line in text)
