"""A stdio transport to an MCP server that bounds what the server can make covert read.

The SDK's stdio client reads each JSON-RPC message (one line) whole, however long, and parses it: a
server that lists 6,000 tools or one 300 MB description held ~900 MB until the import's timeout. This
transport reads the server's stdout with a line limit of :data:`MAX_MESSAGE_BYTES` and counts every
byte against :data:`MAX_TOTAL_BYTES`; past either it stops reading, kills the server and raises
:class:`TransportLimit` (the import is refused with its reason). It hands the SDK's ``ClientSession``
the same pair of streams the SDK's own client does.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

MAX_MESSAGE_BYTES = 8 * 1024 * 1024  # one JSON-RPC message (a page of tools) from the server
MAX_TOTAL_BYTES = 64 * 1024 * 1024  # everything the server sends during an import


class TransportLimit(Exception):
    """The server sent more than the transport reads; ``reason`` is a counted snake_case code."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def parse_message(line: bytes) -> Any:
    """One JSON-RPC message from the server, as the installed SDK's own stdio client parses it: mcp 2.x's
    ``JSONRPCMessage`` is a plain union read through ``jsonrpc_message_adapter``, 1.x's a model."""
    import mcp.types

    adapter = getattr(mcp.types, "jsonrpc_message_adapter", None)
    if adapter is not None:
        return adapter.validate_json(line, by_name=False)
    return mcp.types.JSONRPCMessage.model_validate_json(line)


@contextlib.asynccontextmanager
async def bounded_stdio(command: Sequence[str], env: dict[str, str] | None = None,
                        cwd: str | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """``(read stream, write stream)`` for ``mcp.ClientSession`` to the server ``command`` starts."""
    import anyio
    from mcp.client.stdio import get_default_environment
    from mcp.shared.message import SessionMessage

    # as the SDK's client: the server sees the usual variables (and ``env``), not this process's secrets
    env = env or {}

    process = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env={**get_default_environment(), **env}, cwd=cwd, limit=MAX_MESSAGE_BYTES + 1)
    read_send, read_receive = anyio.create_memory_object_stream(0)
    write_send, write_receive = anyio.create_memory_object_stream(0)
    failure: list[TransportLimit] = []

    async def from_server() -> None:
        assert process.stdout is not None
        total = 0
        async with read_send:
            while True:
                try:
                    line = await process.stdout.readline()
                except (ValueError, asyncio.LimitOverrunError):  # a line longer than the limit
                    failure.append(TransportLimit("message_too_large", f"the server sent a message over "
                                                  f"{MAX_MESSAGE_BYTES >> 20} MiB"))
                    break
                if not line:
                    break
                total += len(line)
                if total > MAX_TOTAL_BYTES:
                    failure.append(TransportLimit("too_much_output", f"the server sent over {MAX_TOTAL_BYTES >> 20} MiB"))
                    break
                try:
                    message: Any = SessionMessage(parse_message(line))
                except Exception as exc:  # noqa: BLE001 - the session reports a malformed message
                    message = exc
                await read_send.send(message)
        if failure:
            process.kill()

    async def to_server() -> None:
        assert process.stdin is not None
        async with write_receive:
            async for message in write_receive:
                data = message.message.model_dump_json(by_alias=True, exclude_none=True)
                process.stdin.write(data.encode("utf-8") + b"\n")
                with contextlib.suppress(ConnectionError):
                    await process.stdin.drain()

    reading = asyncio.ensure_future(from_server())
    writing = asyncio.ensure_future(to_server())
    try:
        yield read_receive, write_send
    except BaseException:
        if failure:
            raise failure[0] from None
        raise
    finally:
        for task in (reading, writing):
            task.cancel()
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        with contextlib.suppress(Exception):
            await process.wait()
    if failure:
        raise failure[0]
