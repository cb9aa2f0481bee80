"""The sandbox worker: the program that runs inside the sandbox (stdlib only, run as a script).

It speaks length-prefixed JSON on its inherited stdin/stdout (4-byte big-endian length, then UTF-8
JSON). The first message is ``init``: the worker applies its resource limits and, where it can, a
seccomp filter, installs the trusted helper modules it was given, and answers. Every later message is
a ``call``: load a module from source text (once per source; cached), call an entry point on a JSON
payload, answer with the JSON value or with an error record. Untrusted code never sees the protocol
pipe: fd 1 is pointed at /dev/null before any untrusted code runs.

This file is trusted code; it is never imported by covert itself (only launched).
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import resource
import signal
import struct
import sys
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
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def apply_limits(limits: dict[str, Any]) -> None:
    """rlimits for the whole worker life (the per-call CPU budget is set before each call)."""
    mib = 1024 * 1024
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_mb"] * mib, limits["memory_mb"] * mib))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_mb"] * mib, limits["file_mb"] * mib))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["open_files"], limits["open_files"]))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits["processes"], limits["processes"]))
    life = int(limits["lifetime_cpu_s"]) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (life, life))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails with EFBIG instead of killing
    signal.signal(signal.SIGPROF, signal.SIG_DFL)


def _budget_cpu(cpu_s: float) -> None:
    soft = int(_cpu_used() + cpu_s) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (min(soft, hard), hard))


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


class _Missing(Exception):
    """The parent sent no source for a module this worker no longer holds (evicted): it resends."""


class Worker:
    """The worker's state: limits, the trusted modules and the cache of loaded untrusted modules."""

    def __init__(self, init: dict[str, Any]) -> None:
        self.limits = init["limits"]
        for name, source in sorted(init.get("modules", {}).items()):
            _install_module(name, source)
        self.modules: dict[str, types.ModuleType] = {}

    def load(self, key: str, source: str | None) -> types.ModuleType:
        if key in self.modules:
            return self.modules[key]
        if source is None:
            raise _Missing(key)
        if hashlib.sha256(source.encode("utf-8")).hexdigest() != key:
            raise ValueError("module key does not match its source")
        module = types.ModuleType(f"candidate_{key[:12]}")
        module.__file__ = f"<candidate {key[:12]}>"
        sys.modules[module.__name__] = module  # dataclasses and typing look modules up by name
        exec(compile(source, module.__file__, "exec"), module.__dict__)
        if len(self.modules) >= _MODULE_CACHE_SIZE:
            oldest = next(iter(self.modules))
            sys.modules.pop(self.modules.pop(oldest).__name__, None)
        self.modules[key] = module
        return module

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        # The CPU budget of one call: a profiling timer (SIGPROF ends the worker) at the exact budget,
        # and RLIMIT_CPU (whole seconds, SIGXCPU) behind it should the timer be disarmed.
        _budget_cpu(float(self.limits["cpu_s"]))
        signal.setitimer(signal.ITIMER_PROF, float(self.limits["cpu_s"]))
        try:
            return self._call(request)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            try:
                module = self.load(request["key"], request.get("source"))
            except _Missing:
                return {"ok": False, "kind": "missing_module", "loaded": False, "cpu_used": _cpu_used()}
            harness = request.get("harness")
            if harness:
                fn = getattr(sys.modules[harness], request["entry"])
                value = fn(module, request["payload"])
            else:
                target: Any = module
                for part in request["entry"].split("."):
                    target = getattr(target, part)
                value = target(request["payload"])
            text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except BaseException as exc:  # noqa: BLE001 - everything the candidate raises is reported
            if isinstance(exc, KeyboardInterrupt):
                raise
            return {**_failure(exc), "loaded": request["key"] in self.modules, "cpu_used": _cpu_used()}
        if len(text.encode("utf-8")) > self.limits["max_output_bytes"]:
            return {"ok": False, "kind": "output_too_large", "type": "", "errno": None, "loaded": True,
                    "cpu_used": _cpu_used(),
                    "detail": f"the result is {len(text)} characters, over {self.limits['max_output_bytes']} bytes"}
        return {"ok": True, "value_json": text, "cpu_used": _cpu_used(), "loaded": True}


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
    seccomp = install_seccomp() if init.get("seccomp", True) else "off"
    try:
        worker = Worker(init)
    except BaseException as exc:  # noqa: BLE001 - a broken trusted module is reported, not hidden
        _write(out, {"ok": False, "kind": "crash", "detail": f"worker init failed: {exc!r}"})
        raise SystemExit(4) from None
    _write(out, {"ok": True, "seccomp": seccomp, "pid": os.getpid()})
    limit = int(init["limits"]["max_input_bytes"]) + int(init["limits"]["max_source_bytes"]) + 65536
    while True:
        request = _read(inp, limit)
        if request is None:
            return
        _write(out, worker.call(request))


if __name__ == "__main__":
    main()
