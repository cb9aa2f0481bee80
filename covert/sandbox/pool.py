"""A pool of warm sandbox workers: each loads a module once and serves many calls; a bad one is replaced."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import selectors
import signal
import struct
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

from covert.sandbox.launch import Launcher, make_launcher
from covert.sandbox.limits import ERROR_KINDS, Limits, SandboxResult, classify_exception
from covert.sandbox.prefilter import ALLOWED_MODULES, prefilter

_HEADER = struct.Struct(">I")
_GRACE_S = 5.0  # seconds the parent waits past a call's wall clock for the worker to answer it


class SandboxError(RuntimeError):
    """A worker could not be started at all (one line saying why)."""


class _Timeout(Exception):
    pass


class _Worker:
    """One worker process and what it has loaded."""

    def __init__(self, launcher: Launcher, init: dict[str, Any], limits: Limits) -> None:
        self.limits = limits
        self.isolated = launcher.isolated
        self.proc = subprocess.Popen(  # noqa: S603 - argv built by covert.sandbox.launch
            list(launcher.argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        self.loaded: set[str] = set()
        self.calls = 0
        self.cpu_used = 0.0
        self.killed_for_time = False
        self._selector = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)
        try:
            self.send(init)
            reply = self.receive(limits.startup_s, 1 << 20)
        except (_Timeout, OSError, ValueError) as exc:
            self.kill()
            raise SandboxError(f"a sandbox worker did not start: {exc or 'timed out'}") from None
        if reply is None or not reply.get("ok"):
            self.kill()
            raise SandboxError(f"a sandbox worker did not start: {(reply or {}).get('detail', 'it exited')}")
        self.seccomp = str(reply.get("seccomp", "off"))

    def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, allow_nan=False).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(_HEADER.pack(len(data)) + data)
        self.proc.stdin.flush()

    def _read_exact(self, size: int, deadline: float) -> bytes:
        chunks: list[bytes] = []
        fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        while size > 0:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                raise _Timeout()
            chunk = os.read(fd, min(size, 1 << 20))
            if not chunk:
                raise EOFError()
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def receive(self, wall_s: float, max_bytes: int) -> dict[str, Any] | None:
        """The next reply; ``None`` when the worker died; raises _Timeout past ``wall_s``; ValueError if it
        announces more than ``max_bytes``."""
        deadline = time.monotonic() + wall_s
        try:
            (size,) = _HEADER.unpack(self._read_exact(_HEADER.size, deadline))
            if size > max_bytes:
                raise ValueError(f"the worker announced a {size}-byte reply")
            return json.loads(self._read_exact(size, deadline).decode("utf-8"))
        except EOFError:
            return None

    def death(self) -> tuple[str, str]:
        """The error kind and detail of a worker that stopped answering."""
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.returncode
        sig = -code if code is not None and code < 0 else 0
        if code is not None and code > 128 and self.isolated:  # bubblewrap exits 128 + the child's signal
            sig = code - 128
        if sig in (signal.SIGXCPU, signal.SIGPROF):
            return "timeout", f"the worker exceeded its CPU limit of {self.limits.cpu_s:g} s"
        if sig:
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = f"signal {sig}"
            return "crash", f"the worker was killed by {name}"
        return "crash", f"the worker exited with status {code}"

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self._selector.close()


class SandboxPool:
    """Warm sandbox workers that run untrusted module source. See :mod:`covert.sandbox` for the API.

    Thread-safe: calls on different slots run in parallel, calls on one slot one after another.
    """

    def __init__(self, limits: Limits | None = None, size: int = 2, *, use_prefilter: bool = True,
                 seccomp: bool = True, use_bwrap: bool = True, ro_binds: tuple[str, ...] = (),
                 trusted_modules: Mapping[str, str] | None = None,
                 allowed_modules: frozenset[str] = ALLOWED_MODULES) -> None:
        if size < 1:
            raise ValueError("a sandbox pool needs at least one worker")
        self.limits = limits or Limits()
        self.size = size
        self.use_prefilter = use_prefilter
        self.allowed_modules = allowed_modules
        self.launcher = make_launcher(tmp_mb=self.limits.file_mb, ro_binds=tuple(ro_binds), use_bwrap=use_bwrap)
        self._init = {"op": "init", "limits": self.limits.to_dict(), "seccomp": seccomp,
                      "modules": dict(trusted_modules or {})}
        self._workers: list[_Worker | None] = [None] * size
        self._next = 0
        self._lock = threading.Lock()
        self._slot_locks = [threading.Lock() for _ in range(size)]
        self.stats: Counter[str] = Counter()
        self.seccomp_status = "not started"

    # -- public API ------------------------------------------------------------------------------------

    @property
    def isolated(self) -> bool:
        """Whether workers run under bubblewrap (False: the degraded fallback)."""
        return self.launcher.isolated

    @property
    def warning(self) -> str:
        """Empty under the full sandbox; else the loud line a run summary must show."""
        parts = [self.launcher.warning]
        if self.seccomp_status not in ("on", "not started", "off"):
            parts.append(f"seccomp filter {self.seccomp_status}")
        return "; ".join(p for p in parts if p)

    def call(self, source: str, entry: str, payload: Any, *, harness: str | None = None,
             worker: int | None = None) -> SandboxResult:
        """Run ``entry(payload)`` from module ``source`` in a worker; with ``harness`` (the name of a trusted
        module), run ``harness.entry(module, payload)`` instead. ``worker`` pins a slot (0..size-1)."""
        reasons = prefilter(source, allowed_modules=self.allowed_modules, max_bytes=self.limits.max_source_bytes) \
            if self.use_prefilter else _size_only(source, self.limits.max_source_bytes)
        if reasons:
            self._count("prefilter_rejected")
            return SandboxResult(False, None, "forbidden", "; ".join(reasons)[:500], self.warning, tuple(reasons))
        data = json.dumps(payload, ensure_ascii=False, allow_nan=False)
        if len(data.encode("utf-8")) > self.limits.max_input_bytes:
            raise ValueError(f"sandbox payload is over {self.limits.max_input_bytes} bytes; cut it first")
        with self._lock:
            slot = self._slot(worker)
        with self._slot_locks[slot]:
            return self._call_in(slot, source, entry, payload, harness)

    def _call_in(self, slot: int, source: str, entry: str, payload: Any, harness: str | None) -> SandboxResult:
        proc = self._worker(slot)
        key = hashlib.sha256(source.encode("utf-8")).hexdigest()
        request = {"op": "call", "key": key, "entry": entry, "harness": harness, "payload": payload,
                   "source": None if key in proc.loaded else source}
        self._count("calls")
        # the worker enforces the wall clock on the call's child; this is the backstop should it not answer
        wall_s = self.limits.wall_s + _GRACE_S
        try:
            proc.send(request)
            reply = proc.receive(wall_s, self.limits.max_output_bytes + 65536)
            if isinstance(reply, dict) and reply.get("kind") == "missing_module":  # evicted from the worker
                proc.loaded.discard(key)
                proc.send({**request, "source": source})
                reply = proc.receive(wall_s, self.limits.max_output_bytes + 65536)
        except _Timeout:
            self._retire(slot, "timeout")
            return SandboxResult(False, None, "timeout", f"the call ran past {self.limits.wall_s:g} s of wall "
                                 "clock", self.warning)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            self._retire(slot, "crash")
            return SandboxResult(False, None, "crash", f"the worker broke the protocol: {exc}"[:500], self.warning)
        except ValueError as exc:
            self._retire(slot, "output_too_large")
            return SandboxResult(False, None, "output_too_large", str(exc), self.warning)
        except OSError:
            reply = None
        if reply is None:
            kind, detail = proc.death()
            self._retire(slot, kind)
            return SandboxResult(False, None, kind, detail, self.warning)
        if not isinstance(reply, dict):
            self._retire(slot, "crash")
            return SandboxResult(False, None, "crash", "the worker broke the protocol: a reply that is not an "
                                 "object", self.warning)
        proc.calls += 1
        cpu = reply.get("cpu_used")
        proc.cpu_used = float(cpu) if type(cpu) in (int, float) else proc.cpu_used
        if reply.get("loaded") is True:
            proc.loaded.add(key)
        if proc.cpu_used > self.limits.lifetime_cpu_s - self.limits.cpu_s:
            self._retire(slot, "lifetime")
        if reply.get("ok") is True:
            return _value_of(reply.get("value_json"), self.warning)
        kind = classify_exception(reply)
        if kind not in ERROR_KINDS:
            kind = "crash"
        if kind in ("memory", "timeout", "crash"):  # the worker is sound (the call had its own process): a fresh
            self._retire(slot, kind)  # one all the same, as the call's limits would have cost it
        detail = " ".join(f"{reply.get('detail', '')} [{reply.get('where', '')}]".split())[:500]
        return SandboxResult(False, None, kind, detail, self.warning)

    def _count(self, key: str) -> None:
        with self._lock:
            self.stats[key] += 1

    def close(self) -> None:
        """Stop every worker."""
        for slot, proc in enumerate(self._workers):
            if proc is not None:
                proc.kill()
                self._workers[slot] = None

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # interpreter shutdown
            self.close()

    # -- internals -------------------------------------------------------------------------------------

    def _slot(self, worker: int | None) -> int:
        if worker is not None:
            if not 0 <= worker < self.size:
                raise ValueError(f"worker {worker} is not in 0..{self.size - 1}")
            return worker
        slot = self._next
        self._next = (self._next + 1) % self.size
        return slot

    def _worker(self, slot: int) -> _Worker:
        proc = self._workers[slot]
        if proc is None or proc.proc.poll() is not None:
            if proc is not None:
                proc.kill()
            proc = _Worker(self.launcher, self._init, self.limits)
            self._count("spawns")
            self.seccomp_status = proc.seccomp
            self._workers[slot] = proc
        return proc

    def _retire(self, slot: int, why: str) -> None:
        proc = self._workers[slot]
        if proc is not None:
            proc.kill()
        self._workers[slot] = None
        self._count(f"replaced_{why}")


def _value_of(text: Any, warning: str) -> SandboxResult:
    """The call's value, read from the JSON text the call's process wrote; a result that is not JSON a
    caller can read (not text, too deep, not JSON) is a ``crash``, never an exception here."""
    if not isinstance(text, str):
        return SandboxResult(False, None, "crash", "the call returned no value text", warning)
    try:
        return SandboxResult(True, json.loads(text), None, "", warning)
    except (ValueError, RecursionError, MemoryError) as exc:
        return SandboxResult(False, None, "crash", f"the call's value is not JSON a caller can read "
                             f"({type(exc).__name__})", warning)


def _size_only(source: str, max_bytes: int) -> list[str]:
    if len(source.encode("utf-8", "replace")) > max_bytes:
        return [f"too_large: the source is over {max_bytes} bytes"]
    return []
