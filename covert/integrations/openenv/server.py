"""The OpenEnv server of covert environments: ``python -m covert.integrations.openenv``.

It is OpenEnv's own FastAPI app (``openenv.core.env_server.http_server.create_app``): ``/ws`` for
sessions (one :class:`CovertOpenEnv` each, up to ``--max-sessions`` at once), ``/reset``, ``/step``,
``/state``, ``/schema``, ``/health``. A session that sends nothing for ``--idle-timeout`` seconds
(default :data:`IDLE_TIMEOUT_S`, 300) is ended, its slot freed (OpenEnv's reaper looks every quarter of
the timeout, at least every 5 s): idle clients cannot hold every slot and lock new ones out. :func:`serve` starts one in a subprocess on a free loopback
port and stops it on exit.
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.types import ConcurrencyConfig

from covert.integrations.openenv.environment import MAX_TURNS, CovertOpenEnv
from covert.integrations.openenv.models import CovertAction, CovertObservation

MAX_SESSIONS = 64
IDLE_TIMEOUT_S = 300.0


def make_app(datasets: Sequence[str] = (), max_sessions: int = MAX_SESSIONS, max_turns: int = MAX_TURNS,
             idle_timeout: float = IDLE_TIMEOUT_S) -> Any:
    """The FastAPI app serving covert rows (and rows of ``datasets`` by index); a session idle for
    ``idle_timeout`` seconds is ended."""
    factory = functools.partial(CovertOpenEnv, datasets=tuple(datasets), max_turns=max_turns)
    concurrency = ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=idle_timeout)
    return create_app(factory, CovertAction, CovertObservation, env_name="covert", concurrency_config=concurrency)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the server (uvicorn) until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m covert.integrations.openenv",
                                     description="Serve covert environments over OpenEnv's HTTP/WebSocket API.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--dataset", action="append", default=[],
                        help="a covert dataset (directory or Hub repo id) whose rows reset(index=N) may start; repeatable")
    parser.add_argument("--max-sessions", type=int, default=MAX_SESSIONS)
    parser.add_argument("--max-turns", type=int, default=MAX_TURNS)
    parser.add_argument("--idle-timeout", type=float, default=IDLE_TIMEOUT_S,
                        help="seconds a session may send nothing before it is ended and its slot freed")
    args = parser.parse_args(argv)
    if args.idle_timeout <= 0:
        parser.error("--idle-timeout must be a positive number of seconds")
    import uvicorn

    logging.getLogger("uvicorn.error").addFilter(_quiet_disconnects)
    uvicorn.run(make_app(args.dataset, args.max_sessions, args.max_turns, args.idle_timeout), host=args.host,
                port=args.port, log_level="warning")


def _quiet_disconnects(record: logging.LogRecord) -> bool:
    """Drop the traceback OpenEnv's ``/ws`` handler logs when a client has already closed the socket."""
    error = record.exc_info[1] if record.exc_info else None
    return type(error).__name__ not in ("WebSocketDisconnect", "ClientDisconnected")


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerProcess:
    """A running server: ``url`` (``http://127.0.0.1:PORT``) and :meth:`close`."""

    def __init__(self, process: subprocess.Popen[bytes], url: str) -> None:
        self.process = process
        self.url = url

    def close(self) -> None:
        """Stop the server process."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


LAUNCH = ("import sys; sys.modules.setdefault('gradio', None); "
          "from covert.integrations.openenv.server import main; main(sys.argv[1:])")
"""How :func:`serve` starts the server: ``python -m covert.integrations.openenv`` without OpenEnv's Gradio
web interface. OpenEnv's server package imports it whether the interface is on or not (it is off here:
``ENABLE_WEB_INTERFACE=false``), and that import was two thirds of the server's start-up
(``benchmarks/openenv_startup_bench.py``); told that gradio is absent, OpenEnv leaves it out."""

START_TIMEOUT_ENV = "COVERT_OPENENV_START_TIMEOUT"
DEFAULT_START_TIMEOUT_S = 300.0
"""How long :func:`serve` waits for ``/health`` (a quiet machine needs a few seconds; a loaded one can
need minutes: ``benchmarks/openenv_startup_bench.py``)."""


def start_timeout(timeout: float | None = None) -> float:
    """``timeout``, else ``$COVERT_OPENENV_START_TIMEOUT``, else :data:`DEFAULT_START_TIMEOUT_S` (seconds)."""
    if timeout is not None:
        return float(timeout)
    text = os.environ.get(START_TIMEOUT_ENV)
    if text is None or not text.strip():
        return DEFAULT_START_TIMEOUT_S
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{START_TIMEOUT_ENV}={text!r} is not a number of seconds") from None
    if not value > 0:
        raise ValueError(f"{START_TIMEOUT_ENV}={text!r}: give a positive number of seconds")
    return value


@contextmanager
def serve(datasets: Sequence[str] = (), max_sessions: int = MAX_SESSIONS, max_turns: int = MAX_TURNS,
          port: int | None = None, timeout: float | None = None,
          idle_timeout: float = IDLE_TIMEOUT_S) -> Iterator[ServerProcess]:
    """Start the server in a subprocess on loopback, wait until ``/health`` answers (at most ``timeout``
    seconds, default ``$COVERT_OPENENV_START_TIMEOUT`` or 300), stop it on exit."""
    wait = start_timeout(timeout)
    port = port or free_port()
    command = [sys.executable, "-c", LAUNCH, "--port", str(port),
               "--max-sessions", str(max_sessions), "--max-turns", str(max_turns), "--idle-timeout", str(idle_timeout)]
    for path in datasets:
        command += ["--dataset", os.fspath(path)]
    process = subprocess.Popen(command, env={**os.environ, "ENABLE_WEB_INTERFACE": "false"})
    server = ServerProcess(process, f"http://127.0.0.1:{port}")
    try:
        _wait(server, wait, timeout is None)
        yield server
    finally:
        server.close()


def _wait(server: ServerProcess, timeout: float, from_environment: bool) -> None:
    started = time.monotonic()
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(f"the covert OpenEnv server exited with code {server.process.returncode}; see its output above")
        try:
            with urllib.request.urlopen(server.url + "/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() - started > timeout:
            how = f"set {START_TIMEOUT_ENV}=SECONDS or pass serve(timeout=SECONDS)" if from_environment else \
                "pass a larger serve(timeout=SECONDS)"
            raise TimeoutError(f"the covert OpenEnv server did not answer on {server.url} within {timeout:.0f} s "
                               f"(it was still starting: a busy machine imports slowly); {how}")
        time.sleep(0.1)
