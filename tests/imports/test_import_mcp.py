"""MCP import from real servers started here over stdio (mcp-server-time, mcp-server-git on a temp repo)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from covert.cli import main
from covert.imports.mcp import effect_of, hints_of, import_server, tools_to_spec
from covert.imports.model import SpecRejected
from covert.imports.store import load_specs

pytest.importorskip("mcp", reason="the mcp SDK is in the imports/dev extras")


def test_time_server_tools_and_hints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("mcp_server_time", reason="mcp-server-time is in the dev extra")
    store = tmp_path / "store"
    command = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]
    assert main(["import", "mcp", "--license", "MIT", "--store", str(store), "--json", "--", *command]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["imported"] == 1 and counts["operations_by_effect"] == {"read": 2}
    (spec,) = list(load_specs(store))
    assert spec.source == "mcp" and spec.api == "mcp:mcp-time" and spec.license == "MIT"
    ops = {op.name: op for op in spec.operations}
    assert set(ops) == {"get_current_time", "convert_time"}
    convert = ops["convert_time"]
    assert convert.parameters["required"] == ["source_timezone", "time", "target_timezone"]
    assert {p["x-in"] for p in convert.parameters["properties"].values()} == {"argument"}
    assert convert.hints["read_only_hint"] is True and convert.hints["destructive_hint"] is False
    response = ops["get_current_time"].response
    if response is not None:  # servers that declare an output schema (mcp 2.x releases) give the response shape
        assert response["properties"]["is_dst"]["type"] == "boolean"


def test_git_server_read_and_write_tools(tmp_path: Path) -> None:
    pytest.importorskip("mcp_server_git", reason="mcp-server-git is in the dev extra")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    spec = import_server([sys.executable, "-m", "mcp_server_git", "--repository", str(repo)], license="MIT")
    ops = {op.name: op for op in spec.operations}
    assert ops["git_status"].effect == "read" and ops["git_log"].effect == "read"
    assert ops["git_commit"].effect == "write" and ops["git_create_branch"].effect == "write"
    assert ops["git_reset"].hints["destructive_hint"] is True
    assert "repo_path" in ops["git_commit"].parameters["required"]


def test_both_field_spellings() -> None:
    """mcp 1.x wire/camelCase (``inputSchema``, ``readOnlyHint``) and 2.x snake_case read the same."""
    camel = {"name": "delete_note", "description": "Delete a note.", "annotations": {"destructiveHint": True,
             "readOnlyHint": False}, "inputSchema": {"type": "object", "required": ["id"], "properties": {
                 "id": {"$ref": "#/$defs/Id"}}, "$defs": {"Id": {"type": "string", "format": "uuid"}}}}
    snake = {"name": "delete_note", "description": "Delete a note.", "annotations": {"destructive_hint": True,
             "read_only_hint": False}, "input_schema": camel["inputSchema"]}
    a = tools_to_spec([camel], "notes", "1", ["notes-server"], license="MIT")
    b = tools_to_spec([snake], "notes", "1", ["notes-server"], license="MIT")
    assert a.operations == b.operations
    op = a.operations[0]
    assert op.effect == "write" and op.hints == {"read_only_hint": False, "destructive_hint": True}
    assert op.parameters["properties"]["id"] == {"type": "string", "format": "uuid", "x-in": "argument"}
    assert effect_of(hints_of({"readOnlyHint": True})) == "read" and effect_of({}) == "unknown"


def test_failing_server_and_missing_license_are_rejections(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SpecRejected, match="no_license"):
        import_server([sys.executable, "-c", "pass"])
    with pytest.raises(SpecRejected) as info:
        import_server([sys.executable, "-c", "import sys; sys.exit(3)"], license="MIT", timeout=20)
    assert info.value.reason in ("server_failed", "server_timeout")
    assert main(["import", "mcp", "--store", str(tmp_path), "--allow-unlicensed", "--timeout", "20", "--",
                 str(tmp_path / "no-such-server")]) == 1
    assert "server_failed" in capsys.readouterr().err
    assert main(["import", "mcp", "--store", str(tmp_path)]) == 2


HOSTILE = str(Path(__file__).with_name("hostile_mcp_server.py"))


@pytest.mark.parametrize(("args", "reason"), [(["many", "6000"], "too_many_tools"),
                                              (["huge", "300"], "message_too_large")])
def test_a_hostile_server_is_refused_early(args: list[str], reason: str) -> None:
    """Issue 32: a server listing 6,000 tools, or one 300 MB description, held ~900 MB until the 30 s
    timeout. The transport reads at most 8 MiB a message and the import at most 5,000 tools."""
    with pytest.raises(SpecRejected) as caught:
        import_server([sys.executable, HOSTILE, *args], license="MIT", timeout=120)
    assert caught.value.reason == reason, caught.value


def test_a_server_within_the_limits_is_imported_page_by_page() -> None:
    spec = import_server([sys.executable, HOSTILE, "pages", "40"], license="MIT", timeout=60)
    assert len(spec.operations) == 40 and spec.provenance["command"].endswith("hostile_mcp_server.py pages 40")
