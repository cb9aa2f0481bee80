"""What a sandboxed call may use (:class:`Limits`) and what it returns (:class:`SandboxResult`)."""

from __future__ import annotations

import errno
from dataclasses import asdict, dataclass, field
from typing import Any

ERROR_KINDS = ("timeout", "memory", "crash", "forbidden", "exception", "output_too_large")
"""Every ``SandboxResult.error_kind`` that is not ``None``."""

# OS errors that mean "a barrier of the sandbox said no" (seccomp EPERM, read-only file system, no network).
FORBIDDEN_ERRNOS = frozenset({errno.EPERM, errno.EACCES, errno.EROFS, errno.ENETUNREACH, errno.ENETDOWN,
                              errno.EHOSTUNREACH, errno.EAFNOSUPPORT, errno.ECONNREFUSED, errno.EFBIG, errno.EMFILE, errno.EAGAIN,
                              errno.ENOSYS})


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed call (CPU, wall clock) and of its worker (the rest).

    Attributes:
        cpu_s: CPU seconds one call may use (RLIMIT_CPU, reset before each call).
        memory_mb: Address space of the worker process (RLIMIT_AS), in MiB.
        wall_s: Wall-clock seconds one call may take; the parent kills the worker past it.
        file_mb: Largest file the worker may write (RLIMIT_FSIZE) and size of its private /tmp, in MiB.
        open_files: Open file descriptors (RLIMIT_NOFILE).
        processes: RLIMIT_NPROC (0: no new processes; not enforced for root, where seccomp does the job).
        max_input_bytes: Largest JSON payload sent in.
        max_output_bytes: Largest JSON value sent back.
        max_source_bytes: Largest module source accepted.
        lifetime_cpu_s: CPU seconds a worker may use over its life before it is replaced.
        startup_s: Wall-clock seconds a worker may take to start.
    """

    cpu_s: float = 2.0
    memory_mb: int = 256
    wall_s: float = 5.0
    file_mb: int = 8
    open_files: int = 32
    processes: int = 0
    max_input_bytes: int = 1 << 20
    max_output_bytes: int = 1 << 20
    max_source_bytes: int = 256 << 10
    lifetime_cpu_s: float = 120.0
    startup_s: float = 20.0

    def __post_init__(self) -> None:
        if self.cpu_s <= 0 or self.wall_s <= 0 or self.memory_mb < 32 or self.file_mb < 1:
            raise ValueError(f"bad sandbox limits {self}: cpu_s and wall_s must be > 0, memory_mb >= 32, "
                             "file_mb >= 1")
        if self.lifetime_cpu_s < self.cpu_s:
            raise ValueError("lifetime_cpu_s must be at least cpu_s")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (what the worker is told)."""
        return asdict(self)


@dataclass(frozen=True)
class SandboxResult:
    """The outcome of one sandboxed call.

    Attributes:
        ok: Whether the entry point returned a JSON value.
        value: That value (``None`` when not ok).
        error_kind: ``None`` when ok, else one of :data:`ERROR_KINDS`.
        detail: One line saying what happened (the exception, the signal, the prefilter's reasons).
        warning: Set when the call did not run under the full sandbox (no bubblewrap, no seccomp); a run
            summary must show it.
        reasons: The prefilter's reasons when ``error_kind == "forbidden"`` came from it.
    """

    ok: bool
    value: Any = None
    error_kind: str | None = None
    detail: str = ""
    warning: str = ""
    reasons: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.ok != (self.error_kind is None) or (self.error_kind is not None and self.error_kind not in ERROR_KINDS):
            raise ValueError(f"inconsistent sandbox result: ok={self.ok} error_kind={self.error_kind!r}")


def classify_exception(record: dict[str, Any]) -> str:
    """The error kind of an exception reported by the worker (barrier errors are ``forbidden``)."""
    kind = record.get("kind", "exception")
    if kind != "exception":
        return str(kind)
    if record.get("type") == "PermissionError":
        return "forbidden"
    if record.get("errno") in FORBIDDEN_ERRNOS:
        return "forbidden"
    return "exception"
