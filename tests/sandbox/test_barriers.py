"""Hostile code is stopped by the OS-level barriers and reported with the right kind.

Each case runs with the AST prefilter OFF (``raw_pool``), so what stops it is the sandbox itself
(namespaces, read-only binds, seccomp, rlimits, the parent's wall clock), and with it ON (``pool``).
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from covert.sandbox import Limits, SandboxPool

CONNECT = "import socket\n\ndef f(p):\n    s = socket.create_connection(('127.0.0.1', p['port']), timeout=1)\n" \
          "    s.sendall(b'escaped')\n    return 'connected'\n"
CONNECT_OUT = "import socket\n\ndef f(p):\n    socket.create_connection(('1.1.1.1', 80), timeout=1)\n    return 1\n"
WRITE = "def f(p):\n    with open(p['path'], 'w') as fh:\n        fh.write('escaped')\n    return 'written'\n"
FORK = "import os\n\ndef f(p):\n    pid = os.fork()\n    if pid == 0:\n        os._exit(0)\n    return pid\n"
SPAWN = "import subprocess\n\ndef f(p):\n    return subprocess.run(['/bin/sh', '-c', 'echo escaped > /tmp/x']).returncode\n"
LOOP = "def f(p):\n    n = 0\n    while True:\n        n += 1\n"
SLEEP = "import time\n\ndef f(p):\n    time.sleep(60)\n"
ALLOC = "def f(p):\n    hoard = []\n    while True:\n        hoard.append(bytearray(1 << 20))\n"
HOSTILE = {"connect": CONNECT, "write": WRITE, "fork": FORK, "spawn": SPAWN, "alloc": ALLOC}


@pytest.fixture()
def listener() -> socket.socket:
    server = socket.create_server(("127.0.0.1", 0))
    server.setblocking(False)
    yield server
    server.close()


def _no_connection(server: socket.socket) -> bool:
    try:
        conn, _ = server.accept()
    except BlockingIOError:
        return True
    conn.close()
    return False


def test_a_socket_to_the_host_never_connects(raw_pool: SandboxPool, listener: socket.socket) -> None:
    result = raw_pool.call(CONNECT, "f", {"port": listener.getsockname()[1]})
    assert (result.ok, result.error_kind) == (False, "forbidden"), result
    assert _no_connection(listener)


def test_the_network_namespace_alone_stops_sockets(bwrap_ok: None, listener: socket.socket) -> None:
    """With seccomp off too, socket() works but there is no route out and nothing on the private loopback."""
    with SandboxPool(limits=Limits(cpu_s=1, wall_s=3), size=1, use_prefilter=False, seccomp=False) as p:
        inside = p.call(CONNECT, "f", {"port": listener.getsockname()[1]})
        outside = p.call(CONNECT_OUT, "f", {})
    assert (inside.error_kind, outside.error_kind) == ("forbidden", "forbidden"), (inside, outside)
    assert "Connection refused" in inside.detail and "unreachable" in outside.detail
    assert _no_connection(listener)


def test_writes_outside_the_private_tmp_fail(bwrap_ok: None, tmp_path: Path) -> None:
    """tmp_path is bound read-only into the sandbox: the file exists there, the write is refused, nothing
    appears on the host; /tmp inside is private and vanishes with the worker."""
    target = tmp_path / "escape.txt"
    with SandboxPool(limits=Limits(cpu_s=1, wall_s=3), size=1, use_prefilter=False, ro_binds=(str(tmp_path),)) as p:
        bound = p.call(WRITE, "f", {"path": str(target)})
        root = p.call(WRITE, "f", {"path": "/escape.txt"})
        private = p.call(WRITE, "f", {"path": "/tmp/inside.txt"})
        system = p.call(WRITE, "f", {"path": "/usr/escape.txt"})
    assert (bound.error_kind, root.error_kind, system.error_kind) == ("forbidden",) * 3, (bound, root, system)
    assert "Read-only file system" in bound.detail
    assert private.ok and private.value == "written"
    assert not target.exists() and not Path("/usr/escape.txt").exists() and not Path("/escape.txt").exists()


def test_processes_cannot_be_spawned(raw_pool: SandboxPool) -> None:
    forked = raw_pool.call(FORK, "f", {})
    spawned = raw_pool.call(SPAWN, "f", {})
    assert (forked.error_kind, spawned.error_kind) == ("forbidden", "forbidden"), (forked, spawned)
    assert "Operation not permitted" in forked.detail


def test_an_endless_loop_is_stopped_by_the_cpu_limit(raw_pool: SandboxPool) -> None:
    result = raw_pool.call(LOOP, "f", {})
    assert (result.ok, result.error_kind) == (False, "timeout")
    assert "CPU limit" in result.detail or "wall clock" in result.detail
    assert raw_pool.call("def f(p):\n    return p\n", "f", 1).value == 1  # replaced
    assert raw_pool.stats["replaced_timeout"] == 1


def test_a_sleeper_is_stopped_by_the_wall_clock(raw_pool: SandboxPool) -> None:
    result = raw_pool.call(SLEEP, "f", {})
    assert (result.ok, result.error_kind) == (False, "timeout")
    assert "wall clock" in result.detail


def test_unbounded_allocation_is_stopped(raw_pool: SandboxPool) -> None:
    result = raw_pool.call(ALLOC, "f", {})
    assert (result.ok, result.error_kind) == (False, "memory"), result
    assert raw_pool.stats["replaced_memory"] == 1


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_with_the_prefilter_on_hostile_code_never_runs(pool: SandboxPool, case: str, tmp_path: Path) -> None:
    result = pool.call(HOSTILE[case], "f", {"port": 9, "path": str(tmp_path / "x")})
    if case == "alloc":  # pure Python: the filter has nothing to refuse, the rlimit stops it
        assert result.error_kind == "memory"
    else:
        assert result.error_kind == "forbidden" and result.reasons
    assert not (tmp_path / "x").exists()
