"""The tools an MCP server lists -> :class:`ApiSpec` (needs the ``mcp`` SDK, the ``imports`` extra).

The server is started on stdio with the given command (through :mod:`covert.imports.mcp_transport`: a
message over 8 MiB, or over 64 MiB in all, stops the import early), initialised, and asked ``tools/list``
(all pages, at most :data:`MAX_PAGES`; a server listing more than
:data:`~covert.imports.common.MAX_OPERATIONS` tools is refused, ``too_many_tools``), then stopped. Both
spellings of the SDK's fields are read: mcp 1.x's camelCase (``inputSchema``, ``readOnlyHint``) and
mcp 2.x's snake_case (``input_schema``, ``read_only_hint``). Every parameter travels as ``argument``.

Effect: ``readOnlyHint``/``read_only_hint`` true -> read; false -> write; absent -> ``unknown``. The
hints kept on each operation use snake_case names (``read_only_hint``, ``destructive_hint``,
``idempotent_hint``, ``open_world_hint``, ``title``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shlex
from collections.abc import Sequence
from typing import Any

from covert.imports.common import MAX_OPERATIONS, ParameterSet, clean_text, tool_name
from covert.imports.mcp_transport import TransportLimit, bounded_stdio
from covert.imports.model import ApiSpec, Operation, SpecRejected
from covert.imports.schema import Normalizer, json_pointer
from covert.io.portable import portable_command

MAX_PAGES = 50
HINTS = {"read_only_hint": "readOnlyHint", "destructive_hint": "destructiveHint",
         "idempotent_hint": "idempotentHint", "open_world_hint": "openWorldHint", "title": "title"}


def _get(obj: Any, snake: str, camel: str | None = None) -> Any:
    """A field by its snake_case or camelCase name, from a pydantic model or a dict."""
    for key in (snake, camel):
        if key is None:
            continue
        if isinstance(obj, dict):
            if key in obj:
                return obj[key]
        elif hasattr(obj, key):
            value = getattr(obj, key)
            if value is not None:
                return value
    return None


def _as_dict(obj: Any) -> dict[str, Any]:
    if isinstance(obj, dict):
        return obj
    dump = getattr(obj, "model_dump", None)
    return dump(by_alias=True, exclude_none=True) if callable(dump) else {}


def hints_of(annotations: Any) -> dict[str, Any]:
    """The tool annotations as snake_case hints (either SDK spelling, or a plain dict of either)."""
    if annotations is None:
        return {}
    out = {}
    for snake, camel in HINTS.items():
        value = _get(annotations, snake, camel)
        if value is not None:
            out[snake] = value
    return out


def effect_of(hints: dict[str, Any]) -> str:
    """read / write / unknown from the hints."""
    read_only = hints.get("read_only_hint")
    if read_only is True:
        return "read"
    if read_only is False or hints.get("destructive_hint") is True:
        return "write"
    return "unknown"


def tools_to_spec(tools: Sequence[Any], server: str, version: str, command: Sequence[str],
                  license: str | None = None, allow_unlicensed: bool = False,
                  provenance: dict[str, str] | None = None) -> ApiSpec:
    """An ApiSpec from listed tools (SDK ``Tool`` objects of either version, or their JSON dicts)."""
    if license is None and not allow_unlicensed:
        raise SpecRejected("no_license", f"MCP server {server!r}: give its license with --license "
                                         "(or pass --allow-unlicensed)")
    taken: set[str] = set()
    ops: list[Operation] = []
    skipped: list[tuple[str, str]] = []
    listed: list[Any] = []
    for tool in tools:
        raw_name = _get(tool, "name")
        if not isinstance(raw_name, str) or not raw_name:
            skipped.append(("?", "invalid_tool"))
            continue
        if len(ops) >= MAX_OPERATIONS:
            skipped.append((raw_name, "too_many_operations"))
            continue
        schema = _as_dict(_get(tool, "input_schema", "inputSchema") or {"type": "object"})
        output = _get(tool, "output_schema", "outputSchema")
        listed.append({"name": raw_name, "input": schema})
        try:
            ops.append(_operation(raw_name, tool, schema, _as_dict(output) if output is not None else None, taken))
        except SpecRejected as exc:
            skipped.append((raw_name, exc.reason))
    if not ops:
        raise SpecRejected("no_operations", f"MCP server {server!r} lists no importable tool")
    digest = hashlib.sha256(json.dumps(listed, sort_keys=True).encode()).hexdigest()
    prov = {"command": portable_command(shlex.join(command)), "server_version": version, "sha256": digest, **(provenance or {})}
    return ApiSpec(source="mcp", api=f"mcp:{server}", title=server, version=version, description="",
                   license=license, license_url=None, provenance=prov, operations=tuple(ops),
                   skipped=tuple(skipped))


def _operation(raw_name: str, tool: Any, schema: dict[str, Any], output: dict[str, Any] | None,
               taken: set[str]) -> Operation:
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})} if isinstance(schema, dict) else {}
    norm = Normalizer(lambda ref: json_pointer(schema, ref) if ref.startswith("#") else defs[ref])
    resolved = norm.normalize({k: v for k, v in schema.items() if k not in ("$defs", "definitions", "$schema")})
    params = ParameterSet()
    required = set(resolved.get("required", ()))
    for name, prop in (resolved.get("properties") or {}).items():
        params.add(name, prop, "argument", required=name in required)
    response = None
    if isinstance(output, dict) and output:
        norm_out = Normalizer(lambda ref: json_pointer(output, ref))
        response = norm_out.normalize({k: v for k, v in output.items() if k not in ("$defs", "definitions", "$schema")})
    hints = hints_of(_get(tool, "annotations"))
    title = _get(tool, "title")
    if isinstance(title, str) and "title" not in hints:
        hints["title"] = title
    return Operation(op_id=raw_name, name=tool_name(raw_name, taken), description=clean_text(_get(tool, "description")),
                     parameters=params.schema(), response=response, effect=effect_of(hints), hints=hints)


async def _list(command: Sequence[str], env: dict[str, str] | None, cwd: str | None) -> tuple[str, str, list[Any]]:
    from mcp import ClientSession

    async with bounded_stdio(command, env, cwd) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        info = _get(init, "server_info", "serverInfo")
        name = _get(info, "name") or command[0]
        version = _get(info, "version") or ""
        tools: list[Any] = []
        result = await session.list_tools()
        for _ in range(MAX_PAGES):
            tools.extend(_get(result, "tools") or [])
            if len(tools) > MAX_OPERATIONS:
                raise TransportLimit("too_many_tools", f"the server lists over {MAX_OPERATIONS} tools")
            cursor = _get(result, "next_cursor", "nextCursor")
            if not cursor:
                break
            result = await _next_page(session, cursor)
        return str(name), str(version), tools


async def _next_page(session: Any, cursor: str) -> Any:
    try:
        from mcp.types import PaginatedRequestParams  # mcp 2.x
    except ImportError:
        return await session.list_tools(cursor=cursor)
    return await session.list_tools(params=PaginatedRequestParams(cursor=cursor))


def list_tools(command: Sequence[str], timeout: float = 30.0, env: dict[str, str] | None = None,
               cwd: str | None = None) -> tuple[str, str, list[Any]]:
    """(server name, server version, tools) from the MCP server ``command`` starts on stdio."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise SpecRejected("mcp_unavailable", "importing MCP tools needs the mcp SDK: "
                                              "pip install 'covert[imports]'") from None
    try:
        return asyncio.run(asyncio.wait_for(_list(command, env, cwd), timeout))
    except TransportLimit as limit:
        raise SpecRejected(limit.reason, f"{command[0]}: {limit.detail}") from None
    except TimeoutError:
        raise SpecRejected("server_timeout", f"{command[0]} did not list its tools within {timeout:g}s") from None
    except (OSError, ValueError) as exc:
        raise SpecRejected("server_failed", f"{command[0]} could not be started: {exc}") from None
    except Exception as exc:  # an MCP or transport error from a server we do not control
        leaves = _leaves(exc)  # the SDK's task groups wrap what the transport raised
        limit = next((e for e in leaves if isinstance(e, TransportLimit)), None)
        if limit is not None:
            raise SpecRejected(limit.reason, f"{command[0]}: {limit.detail}") from None
        exc = next((e for e in leaves if isinstance(e, Exception)), exc)
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SpecRejected("server_failed", f"{command[0]}: {type(exc).__name__}: {first}"[:300]) from None


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside ``error`` (an exception group's, at any depth), or ``[error]``."""
    inner = getattr(error, "exceptions", None)
    if not isinstance(inner, tuple):
        return [error]
    return [leaf for e in inner for leaf in _leaves(e)]


def import_server(command: Sequence[str], name: str | None = None, license: str | None = None,
                  timeout: float = 30.0, allow_unlicensed: bool = False, env: dict[str, str] | None = None,
                  cwd: str | None = None) -> ApiSpec:
    """The ApiSpec of the MCP server that ``command`` starts; raises :class:`SpecRejected`."""
    if license is None and not allow_unlicensed:
        raise SpecRejected("no_license", f"MCP server {command[0]!r}: give its license with --license "
                                         "(or pass --allow-unlicensed)")
    server, version, tools = list_tools(command, timeout, env, cwd)
    return tools_to_spec(tools, name or server, version, command, license, allow_unlicensed)
