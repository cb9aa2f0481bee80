"""Hand-written environments keep their compiled argument validators on disk (covert.env.compiled)."""

from __future__ import annotations

import json
from pathlib import Path

import fastjsonschema
import pytest

from covert.env import compiled as validator_files
from covert.env import get_builder
from covert.env.compiled import VALIDATOR_OPTIONS, cache_dir
from tests.fresh_python import run_json

# calls one builder's every tool with bad arguments in a fresh process; prints what it compiled and said
PROBE = """
import json
from covert.env import get_builder
builder = get_builder({name!r})
env = builder.env(builder.state(0, 0))
said = {{tool: env.call(tool, {{"bogus": 1}})["error"]["message"] for tool in sorted(builder.tools)}}
compiled = builder.environment._compiled_validators()
print(json.dumps({{"compiled": None if compiled is None else compiled.compiled, "said": said}}))
"""


def _probe(name: str, folder: str) -> dict:
    """The probe's result in a fresh process whose validator cache is ``folder``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COVERT_VALIDATOR_CACHE", folder)  # run_json hands this process's environment down
        return run_json(PROBE.format(name=name))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COVERT_VALIDATOR_CACHE", str(tmp_path / "validators"))
    return tmp_path / "validators"


def _plain_messages(name: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """What the probe's calls say here with validators fastjsonschema compiles afresh (no cache)."""
    builder = get_builder(name)
    environment = builder.environment
    plain = {tool: fastjsonschema.compile(environment.argument_schema(tool), **VALIDATOR_OPTIONS)
             for tool in environment.tool_specs}
    monkeypatch.setattr(environment, "_validators", plain)
    env = builder.env(builder.state(0, 0))
    return {tool: env.call(tool, {"bogus": 1})["error"]["message"] for tool in sorted(builder.tools)}


def _files(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"*{validator_files.SUFFIX}"))


def test_the_first_process_compiles_and_later_ones_load(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _probe("retail", str(folder))
    tools = get_builder("retail").tools
    assert first["compiled"] == len(tools)  # the whole environment at once, so the file has every tool
    [file] = _files(folder)
    assert file.name.startswith("retail-")
    later = _probe("retail", str(folder))
    assert later["compiled"] == 0 and later["said"] == first["said"]
    # the very messages fastjsonschema's own validators give (the rows' error observations depend on them)
    assert later["said"] == _plain_messages("retail", monkeypatch)


@pytest.mark.parametrize("damage", ["truncate", "flip", "foreign"])
def test_a_damaged_file_is_compiled_again_and_rewritten(folder: Path, damage: str) -> None:
    first = _probe("banking", str(folder))
    [file] = _files(folder)
    data = file.read_bytes()
    if damage == "truncate":
        file.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        file.write_bytes(data[:-5] + bytes([data[-5] ^ 0xFF]) + data[-4:])
    else:
        file.write_bytes(b"not a validators file\n" + data)
    again = _probe("banking", str(folder))
    assert again["compiled"] == len(get_builder("banking").tools) and again["said"] == first["said"]
    assert _probe("banking", str(folder))["compiled"] == 0  # rewritten whole


def test_other_schemas_under_the_same_name_keep_their_own_file(folder: Path) -> None:
    schemas = {tool: get_builder("hotels").environment.argument_schema(tool) for tool in get_builder("hotels").tools}
    changed = json.loads(json.dumps(schemas))
    next(iter(changed.values()))["properties"]["extra"] = {"type": "string"}
    assert validator_files.cache_file("hotels", schemas) != validator_files.cache_file("hotels", changed)
    assert validator_files.cache_file("hotels", schemas).parent == folder


def test_the_cache_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for off in ("0", "off"):
        monkeypatch.setenv("COVERT_VALIDATOR_CACHE", off)
        assert cache_dir() is None
        result = _probe("calendar", off)
        assert result["compiled"] is None and result["said"]
    assert not list(tmp_path.iterdir())


def test_a_folder_that_cannot_be_written_still_validates(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder should be: every write fails, even as root\n")
    result = _probe("messaging", str(blocked))
    assert result["compiled"] == len(get_builder("messaging").tools)
    assert result["said"] == _probe("messaging", str(tmp_path / "fresh"))["said"]
    assert blocked.read_text().startswith("a file where")
