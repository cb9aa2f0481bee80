"""A small synchronous MCP client over stdio, with hard bounds (stdlib only).

Live environments (:mod:`covert.imports.live_mcp`) drive a real MCP server for a whole episode from
code that is not async (rewards, replay), so this client speaks the stdio transport directly:
newline-delimited JSON-RPC 2.0 (``initialize``, ``notifications/initialized``, ``tools/list``,
``tools/call``). Every read has a deadline (per call and per episode), every message a size cap, and
the server runs in its own process group under rlimits (set by a small exec shim, :func:`limited_argv`),
so a server that hangs, floods or dies is killed and reported with a :class:`LiveServerError`
(``reason`` one of :data:`REASONS`), never a stall.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PROTOCOL_VERSION = "2025-06-18"
REASONS = ("seed_failed", "server_failed", "server_timeout", "server_died", "output_too_large", "input_too_large",
           "call_limit", "episode_timeout", "protocol_error")


class LiveServerError(RuntimeError):
    """A live MCP server that could not serve: ``reason`` is a stable code (:data:`REASONS`)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class LiveLimits:
    """Bounds on one episode against a live server.

    Attributes:
        startup_s: Wall-clock seconds the server may take to start and answer ``initialize``.
        call_s: Wall-clock seconds one tool call may take.
        episode_s: Wall-clock seconds the whole episode (start, every call, snapshots) may take.
        max_calls: Tool calls the agent may make in one episode (snapshot reads are not counted).
        max_output_bytes: Largest JSON-RPC message accepted from the server (a call's output included).
        max_input_bytes: Largest request sent to the server (kept under a pipe's buffer, so a server that
            stops reading can never block the write).
        memory_mb: Address space of the server process (RLIMIT_AS), in MiB.
        cpu_s: CPU seconds of the server process (RLIMIT_CPU).
        file_mb: Largest file the server may write (RLIMIT_FSIZE), in MiB.
    """

    startup_s: float = 30.0
    call_s: float = 10.0
    episode_s: float = 120.0
    max_calls: int = 64
    max_output_bytes: int = 256 << 10
    max_input_bytes: int = 32 << 10
    memory_mb: int = 2048
    cpu_s: int = 120
    file_mb: int = 16

    def __post_init__(self) -> None:
        if (min(self.startup_s, self.call_s, self.episode_s) <= 0 or self.max_calls < 1 or self.max_output_bytes < 1024
                or not 1024 <= self.max_input_bytes <= 60 << 10):
            raise ValueError(f"bad live limits {self}: times must be > 0, max_calls >= 1, max_output_bytes >= 1024, "
                             "max_input_bytes from 1 KiB to 60 KiB")


# Sets the limits, then becomes the server: a shim instead of preexec_fn, which is unsafe in a process
# with threads (tasks are made on several threads at once).
_SHIM = ("import os, resource, sys; a = [int(x) for x in sys.argv[1:5]]; "
         "[resource.setrlimit(k, (v, v)) for k, v in zip((resource.RLIMIT_AS, resource.RLIMIT_CPU, "
         "resource.RLIMIT_FSIZE, resource.RLIMIT_CORE), a)]; os.execvp(sys.argv[5], sys.argv[5:])")


def limited_argv(argv: Sequence[str], limits: LiveLimits) -> list[str]:
    """``argv`` run under the limits' rlimits (address space, CPU, file size, no core files)."""
    values = [limits.memory_mb << 20, limits.cpu_s, limits.file_mb << 20, 0]
    return [os.path.realpath(sys.executable), "-I", "-S", "-c", _SHIM, *map(str, values), *argv]


class StdioClient:
    """One MCP server process on stdio. Use as a context manager; :meth:`close` always kills it.

    Args:
        argv: The command that starts the server.
        env: Its whole environment.
        cwd: Its working directory.
        limits: The bounds of the episode (the episode clock starts here).
    """

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: str | None, limits: LiveLimits) -> None:
        self.limits = limits
        self.argv = tuple(argv)
        self.started = time.monotonic()
        self.calls = 0
        self._next_id = 0
        self._buffer = b""
        if not argv or shutil.which(argv[0]) is None:
            raise LiveServerError("server_failed", f"{argv[0] if argv else 'nothing'} cannot be run: no such program")
        try:
            self.proc = subprocess.Popen(limited_argv(argv, limits), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, env=dict(env), cwd=cwd, start_new_session=True)
        except OSError as exc:
            raise LiveServerError("server_failed", f"{argv[0]} could not be started: {exc}") from None
        self._selector = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)
        self.server_info: dict[str, Any] = {}
        try:
            init = self._request("initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                                                "clientInfo": {"name": "covert-live", "version": "1"}},
                                 limits.startup_s, "server_timeout")
            self.server_info = init.get("serverInfo") or {} if isinstance(init, dict) else {}
            self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        except BaseException:
            self.close()
            raise

    # -- public API ------------------------------------------------------------------------------
    def new_episode(self) -> None:
        """Start the counts of a new episode on this server: no calls made, the clock from now."""
        self.calls = 0
        self.started = time.monotonic()

    def list_tools(self) -> list[dict[str, Any]]:
        """Every tool the server lists (all pages, at most 50)."""
        tools: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        for _ in range(50):
            result = self._request("tools/list", params, self.limits.call_s, "server_timeout")
            tools.extend(t for t in result.get("tools") or [] if isinstance(t, dict))
            cursor = result.get("nextCursor")
            if not cursor:
                break
            params = {"cursor": cursor}
        return tools

    def call_tool(self, name: str, arguments: Mapping[str, Any], counted: bool = True) -> tuple[str, bool]:
        """(text, is_error) of one ``tools/call``; ``counted`` calls count against ``max_calls``."""
        if counted:
            if self.calls >= self.limits.max_calls:
                raise LiveServerError("call_limit", f"the episode made {self.calls} calls; at most "
                                                    f"{self.limits.max_calls} are allowed")
            self.calls += 1
        result = self._request("tools/call", {"name": name, "arguments": dict(arguments)}, self.limits.call_s,
                               "server_timeout")
        parts = [c.get("text", "") for c in result.get("content") or [] if isinstance(c, dict) and c.get("type") == "text"]
        return "\n".join(p for p in parts if isinstance(p, str)), result.get("isError") is True

    def close(self) -> None:
        """Stop the server: close its stdin, give it a moment, then kill its whole process group."""
        proc = self.proc
        if proc.poll() is None:
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
                proc.wait(timeout=0.5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL is not ignorable
            proc.wait(timeout=5)
        self._selector.close()
        if proc.stdout is not None:
            proc.stdout.close()

    def __enter__(self) -> StdioClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transport -------------------------------------------------------------------------------
    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        data = json.dumps(message).encode() + b"\n"
        if len(data) > self.limits.max_input_bytes:
            raise LiveServerError("input_too_large", f"a request of {len(data)} bytes; at most "
                                                     f"{self.limits.max_input_bytes} are sent")
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise LiveServerError("server_died", f"{self._name()} exited (status {self.proc.poll()})") from None

    def _request(self, method: str, params: dict[str, Any], timeout: float, reason: str) -> dict[str, Any]:
        self._next_id += 1
        ident = self._next_id
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        now = time.monotonic()
        episode_end = self.started + self.limits.episode_s
        deadline = min(now + timeout, episode_end)
        while True:
            message = self._read_message(deadline, method, episode_end)
            if message.get("id") == ident and ("result" in message or "error" in message):
                if "error" in message:
                    error = message["error"] if isinstance(message["error"], dict) else {}
                    raise LiveServerError("protocol_error", f"{method}: {str(error.get('message'))[:200]}")
                result = message.get("result")
                return result if isinstance(result, dict) else {}
            if "method" in message and "id" in message:  # a request from the server: we offer nothing
                self._send({"jsonrpc": "2.0", "id": message["id"],
                            "error": {"code": -32601, "message": "not supported by this client"}})

    def _read_message(self, deadline: float, method: str, episode_end: float) -> dict[str, Any]:
        cap = self.limits.max_output_bytes
        while True:
            line, sep, rest = self._buffer.partition(b"\n")
            if sep:
                self._buffer = rest
                if len(line) > cap:
                    self.close()
                    raise LiveServerError("output_too_large", f"{method}: the server sent a message over {cap} bytes")
                if not line.strip():
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    continue  # a server's stray print on stdout is not a message
                if isinstance(message, dict):
                    return message
                continue
            if len(self._buffer) > cap:
                self.close()
                raise LiveServerError("output_too_large", f"{method}: the server sent a message over {cap} bytes")
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                if deadline >= episode_end:
                    raise LiveServerError("episode_timeout", f"the episode ran past {self.limits.episode_s:g}s "
                                                             f"(during {method})")
                raise LiveServerError("server_timeout", f"{self._name()} did not answer {method} in time")
            if not self._selector.select(timeout=left):
                continue
            assert self.proc.stdout is not None
            try:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
            except BlockingIOError:
                continue
            if not chunk:
                self.close()
                status = self.proc.returncode
                raise LiveServerError("server_died", f"{self._name()} exited (status {status}) during {method}")
            self._buffer += chunk

    def _name(self) -> str:
        return str(self.server_info.get("name") or os.path.basename(self.argv[-1] if self.argv else "server"))
