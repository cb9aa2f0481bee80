"""The sandbox worker: the program that runs inside the sandbox (stdlib only, run as a script).

It speaks length-prefixed JSON on its inherited stdin/stdout (4-byte big-endian length, then UTF-8
JSON). The first message is ``init``: the worker applies its resource limits, installs the trusted
helper modules it was given, and answers. Every later message is a ``call``: run an entry point of a
module (given as source text, kept by its SHA-256 for later calls) on a JSON payload, and answer with
the JSON value or with an error record.

The worker itself never runs untrusted code. Each call runs in a child process forked for it: the child
closes every descriptor but its own one-shot result pipe (so it cannot reach the protocol pipe the
worker answers on), sets the per-call CPU budget and ``RLIMIT_NPROC``, installs the seccomp filter, then
loads the module and calls the entry point, and writes one frame. The worker reads at most one frame of
bounded size from that pipe, checks its shape, kills and reaps the child, and answers the parent with a
reply it built itself. So whatever a module does (patch ``sys.modules`` or the trusted harness, write to
any descriptor it finds, leave threads behind) lasts only as long as its own call, and the parent reads
nothing the module wrote except that one checked frame. The worker is not dumpable
(``PR_SET_DUMPABLE`` 0), so a child cannot open its descriptors through ``/proc``.

This file is trusted code; it is never imported by covert itself (only launched).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import json
import os
import resource
import select
import signal
import struct
import sys
import time
import traceback
import types
from typing import Any

_HEADER = struct.Struct(">I")
_MODULE_CACHE_SIZE = 16

# -- seccomp (x86_64 and aarch64): deny process creation, exec, sockets and namespace/kernel tricks ----

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_DENIED_SYSCALLS = {
    "x86_64": {"fork": 57, "vfork": 58, "clone": 56, "clone3": 435, "execve": 59, "execveat": 322,
               "socket": 41, "socketpair": 53, "connect": 42, "bind": 49, "ptrace": 101, "mount": 165,
               "umount2": 166, "unshare": 272, "setns": 308, "bpf": 321, "perf_event_open": 298,
               "keyctl": 250, "add_key": 248, "request_key": 249, "pivot_root": 155, "chroot": 161,
               "kexec_load": 246, "init_module": 175, "finit_module": 313, "process_vm_writev": 311,
               "userfaultfd": 323, "io_uring_setup": 425, "kill": 62},
    "aarch64": {"clone": 220, "clone3": 435, "execve": 221, "execveat": 281, "socket": 198,
                "socketpair": 199, "connect": 203, "bind": 200, "ptrace": 117, "mount": 40, "umount2": 39,
                "unshare": 97, "setns": 268, "bpf": 280, "perf_event_open": 241, "keyctl": 219,
                "add_key": 217, "request_key": 218, "pivot_root": 41, "chroot": 51, "kexec_load": 104,
                "init_module": 105, "finit_module": 273, "process_vm_writev": 271, "userfaultfd": 282,
                "io_uring_setup": 425, "kill": 129},
}


def _bpf(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def install_seccomp() -> str:
    """Install a deny-list seccomp filter (errno EPERM) on this process; returns ``"on"`` or why not."""
    arch = os.uname().machine
    if arch not in _AUDIT_ARCH:
        return f"unavailable: no syscall table for {arch}"
    ld_w_abs, jeq_k, ret_k = 0x20, 0x15, 0x06  # BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_RET|BPF_K
    allow, kill, deny = 0x7FFF0000, 0x80000000, 0x00050000 | errno.EPERM
    numbers = sorted(set(_DENIED_SYSCALLS[arch].values()))
    prog = [_bpf(ld_w_abs, 0, 0, 4), _bpf(jeq_k, 1, 0, _AUDIT_ARCH[arch]), _bpf(ret_k, 0, 0, kill),
            _bpf(ld_w_abs, 0, 0, 0)]
    if arch == "x86_64":  # x32 ABI syscalls (nr >= 0x40000000) are denied outright
        prog += [struct.pack("=HBBI", 0x25, 0, 1, 0x3FFFFFFF), _bpf(ret_k, 0, 0, deny)]  # BPF_JGT
    for i, nr in enumerate(numbers):
        remaining = len(numbers) - i - 1
        prog.append(_bpf(jeq_k, remaining + 1, 0, nr))  # match -> jump to the final "deny"
    prog += [_bpf(ret_k, 0, 0, allow), _bpf(ret_k, 0, 0, deny)]
    raw = b"".join(prog)
    buf = ctypes.create_string_buffer(raw, len(raw))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(prog), ctypes.cast(buf, ctypes.c_void_p))
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError as exc:
        return f"unavailable: {exc}"
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        return f"unavailable: PR_SET_NO_NEW_PRIVS failed (errno {ctypes.get_errno()})"
    if libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(fprog), 0, 0) != 0:
        return f"unavailable: PR_SET_SECCOMP failed (errno {ctypes.get_errno()})"
    return "on"


# -- limits ------------------------------------------------------------------------------------------


def _cpu_used() -> float:
    """CPU seconds of this worker and every call's child so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def apply_limits(limits: dict[str, Any]) -> None:
    """rlimits for the whole worker life, inherited by every call's child (the per-call CPU budget and
    ``RLIMIT_NPROC`` are set in the child: the worker forks one per call)."""
    mib = 1024 * 1024
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_mb"] * mib, limits["memory_mb"] * mib))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_mb"] * mib, limits["file_mb"] * mib))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["open_files"], limits["open_files"]))
    life = int(limits["lifetime_cpu_s"]) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (life, life))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails with EFBIG instead of killing
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    _not_dumpable()


def _not_dumpable() -> None:
    """PR_SET_DUMPABLE 0: no other process (a call's child included) may open this one's /proc entries."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE


def _limit_child(limits: dict[str, Any]) -> None:
    """In a call's child: its CPU budget (a fresh process: its CPU time starts at zero) and no new processes."""
    cpu_s = float(limits["cpu_s"])
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (min(int(cpu_s) + 1, hard), hard))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits["processes"], limits["processes"]))
    # The CPU budget of one call: a profiling timer (SIGPROF ends the child) at the exact budget,
    # and RLIMIT_CPU (whole seconds, SIGXCPU) behind it should the timer be disarmed.
    signal.setitimer(signal.ITIMER_PROF, cpu_s)


# -- protocol ------------------------------------------------------------------------------------------


def _read_exact(stream: Any, size: int) -> bytes:
    chunks = []
    while size > 0:
        chunk = stream.read(size)
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read(stream: Any, limit: int) -> Any:
    header = _read_exact(stream, _HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    if size > limit:
        raise SystemExit(3)
    body = _read_exact(stream, size)
    if len(body) < size:
        return None
    return json.loads(body.decode("utf-8"))


def _write(stream: Any, message: dict[str, Any]) -> None:
    data = json.dumps(message, ensure_ascii=False, allow_nan=False).encode("utf-8")
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _install_module(name: str, source: str) -> types.ModuleType:
    parts = name.split(".")
    for i in range(1, len(parts)):
        parent = ".".join(parts[:i])
        if parent not in sys.modules:
            package = types.ModuleType(parent)
            package.__path__ = []
            sys.modules[parent] = package
    module = types.ModuleType(name)
    module.__file__ = f"<trusted {name}>"
    sys.modules[name] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    if len(parts) > 1:
        setattr(sys.modules[".".join(parts[:-1])], parts[-1], module)
    return module


def _failure(exc: BaseException) -> dict[str, Any]:
    kind = "memory" if isinstance(exc, MemoryError) else "exception"
    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    try:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__][-3:]
        where = "; ".join(f"{f.filename}:{f.lineno} in {f.name}" for f in frames)
    except Exception:  # a broken traceback still gives the error line
        where = ""
    return {"ok": False, "kind": kind, "type": type(exc).__name__,
            "errno": getattr(exc, "errno", None) if isinstance(exc, OSError) else None,
            "detail": detail[:2000], "where": where[:1000]}


_KINDS = ("exception", "memory", "output_too_large")  # what a child may report (the rest the worker decides)
_RESULT_FD = 3  # the child's one-shot result pipe


class Worker:
    """The worker's state: limits, the trusted modules (installed here, inherited by every child) and the
    sources of recent modules, by SHA-256 (never run here)."""

    def __init__(self, init: dict[str, Any]) -> None:
        self.limits = init["limits"]
        self.seccomp = bool(init.get("seccomp", True))
        for name, source in sorted(init.get("modules", {}).items()):
            _install_module(name, source)
        self.sources: dict[str, str] = {}
        self.dying: list[int] = []  # children killed after their frame, not reaped yet

    def probe_seccomp(self) -> str:
        """Whether a child can install the seccomp filter (``"on"`` or why not; ``"off"`` when not asked)."""
        if not self.seccomp:
            return "off"
        status = self._in_child(lambda: {"ok": True, "value_json": json.dumps(install_seccomp())}, 10.0)
        try:
            return str(json.loads(status["value_json"])) if status.get("ok") else f"unavailable: {status.get('detail')}"
        except (ValueError, TypeError):
            return "unavailable: the probe gave no answer"

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        key, source = request["key"], request.get("source")
        if source is not None:
            if hashlib.sha256(source.encode("utf-8")).hexdigest() != key:
                return {**_failure(ValueError("module key does not match its source")), "loaded": False,
                        "cpu_used": _cpu_used()}
            if key not in self.sources and len(self.sources) >= _MODULE_CACHE_SIZE:
                self.sources.pop(next(iter(self.sources)))
            self.sources[key] = source
        if key not in self.sources:
            return {"ok": False, "kind": "missing_module", "loaded": False, "cpu_used": _cpu_used()}
        source = self.sources[key]
        reply = self._in_child(lambda: _run_call(self.limits, self.seccomp, key, source, request),
                               float(self.limits["wall_s"]))
        return {**reply, "loaded": True, "cpu_used": _cpu_used()}

    def _reap(self, pid: int) -> None:
        """Remember ``pid`` (killed) and reap every earlier child that has exited meanwhile."""
        still = []
        for old in self.dying:
            try:
                if os.waitpid(old, os.WNOHANG) == (0, 0):
                    still.append(old)
            except ChildProcessError:
                pass
        self.dying = [*still, pid]

    def _in_child(self, work: Any, wall_s: float) -> dict[str, Any]:
        """Run ``work()`` in a forked child that can reach nothing but its result pipe; the reply this
        worker builds from the child's one frame, its exit status or the wall clock."""
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            try:
                os.dup2(write_end, _RESULT_FD)
                os.closerange(_RESULT_FD + 1, max(_RESULT_FD + 2, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
                with os.fdopen(_RESULT_FD, "wb") as result:
                    _write(result, work())
            finally:
                os._exit(0)
        os.close(write_end)
        try:
            frame = _read_frame(read_end, int(self.limits["max_output_bytes"]) + 65536, wall_s)
        finally:
            os.close(read_end)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if isinstance(frame, dict):
            self._reap(pid)  # its status is not needed: reaped later (waiting for its exit costs ms)
            return frame
        _, status = os.waitpid(pid, 0)
        if frame == "timeout":
            return {"ok": False, "kind": "timeout", "detail": f"the call ran past {wall_s:g} s of wall clock"}
        return _ended(status, self.limits, frame)


def _run_call(limits: dict[str, Any], seccomp: bool, key: str, source: str, request: dict[str, Any]) -> dict[str, Any]:
    """In the child: limits and seccomp, then the module and its entry point; the frame to write."""
    _limit_child(limits)
    if seccomp:
        install_seccomp()
    try:
        module = types.ModuleType(f"candidate_{key[:12]}")
        module.__file__ = f"<candidate {key[:12]}>"
        sys.modules[module.__name__] = module  # dataclasses and typing look modules up by name
        exec(compile(source, module.__file__, "exec"), module.__dict__)
        harness = request.get("harness")
        if harness:
            value = getattr(sys.modules[harness], request["entry"])(module, request["payload"])
        else:
            target: Any = module
            for part in request["entry"].split("."):
                target = getattr(target, part)
            value = target(request["payload"])
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except BaseException as exc:  # noqa: BLE001 - everything the module raises is reported
        return _failure(exc)
    if len(text.encode("utf-8")) > limits["max_output_bytes"]:
        return {"ok": False, "kind": "output_too_large", "type": "", "errno": None,
                "detail": f"the result is {len(text)} characters, over {limits['max_output_bytes']} bytes"}
    return {"ok": True, "value_json": text}


def _read_frame(fd: int, limit: int, wall_s: float) -> Any:
    """The child's frame, checked (a dict this worker may forward); ``"timeout"``; or a string saying
    why there is none (the child died, or wrote something that is not a frame)."""
    deadline = time.monotonic() + wall_s
    data = b""
    need = _HEADER.size
    while len(data) < need:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return "timeout"
        chunk = os.read(fd, min(need - len(data), 1 << 20))
        if not chunk:
            return "no result" if not data else "a cut-off result"
        data += chunk
        if need == _HEADER.size and len(data) == need:
            (size,) = _HEADER.unpack(data)
            if size > limit:
                return f"a result of {size} bytes, over the limit"
            need += size
    try:
        message = json.loads(data[_HEADER.size:].decode("utf-8"))
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"a result that is not JSON ({type(exc).__name__})"
    return _checked(message)


def _checked(message: Any) -> Any:
    """The fields of a child's frame this worker forwards, with their types checked; a string saying what
    is wrong with it otherwise (the module may have written the frame itself)."""
    if not isinstance(message, dict) or not isinstance(message.get("ok"), bool):
        return "a result that is not a frame"
    if message["ok"]:
        text = message.get("value_json")
        return {"ok": True, "value_json": text} if isinstance(text, str) else "a result without a value"
    kind = message.get("kind")
    errno_ = message.get("errno")
    out = {"ok": False, "kind": kind if kind in _KINDS else "exception",
           "type": str(message.get("type", ""))[:100], "errno": errno_ if type(errno_) is int else None,
           "detail": str(message.get("detail", ""))[:2000], "where": str(message.get("where", ""))[:1000]}
    return out


def _ended(status: int, limits: dict[str, Any], why: str) -> dict[str, Any]:
    """The reply for a child that wrote no usable frame: how it ended."""
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGPROF):
        return {"ok": False, "kind": "timeout", "detail": f"the call exceeded its CPU limit of {limits['cpu_s']:g} s"}
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) != 0:
        return {"ok": False, "kind": "crash", "detail": f"the call's process exited with status {os.WEXITSTATUS(status)}"}
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) != signal.SIGKILL:
        try:
            name = signal.Signals(os.WTERMSIG(status)).name
        except ValueError:
            name = f"signal {os.WTERMSIG(status)}"
        return {"ok": False, "kind": "crash", "detail": f"the call's process was killed by {name}"}
    return {"ok": False, "kind": "crash", "detail": f"the call broke the protocol: {why}"}


def main() -> None:
    """Serve requests until stdin closes."""
    inp = os.fdopen(os.dup(0), "rb", buffering=0)
    out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the worker
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115
    init = _read(inp, 16 * 1024 * 1024)
    if init is None or init.get("op") != "init":
        raise SystemExit(2)
    apply_limits(init["limits"])
    try:
        worker = Worker(init)
    except BaseException as exc:  # noqa: BLE001 - a broken trusted module is reported, not hidden
        _write(out, {"ok": False, "kind": "crash", "detail": f"worker init failed: {exc!r}"})
        raise SystemExit(4) from None
    _write(out, {"ok": True, "seccomp": worker.probe_seccomp(), "pid": os.getpid()})
    limit = int(init["limits"]["max_input_bytes"]) + int(init["limits"]["max_source_bytes"]) + 65536
    while True:
        request = _read(inp, limit)
        if request is None:
            return
        _write(out, worker.call(request))


if __name__ == "__main__":
    main()
