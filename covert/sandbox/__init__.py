"""Run untrusted Python (LLM-written code) in a sandbox: JSON in, JSON out, the state stays with the caller.

API::

    from covert.sandbox import Limits, SandboxPool, prefilter

    with SandboxPool(limits=Limits(cpu_s=2, memory_mb=256, wall_s=5), size=2) as pool:
        result = pool.call(source, "fn_name", payload)   # fn_name(payload) -> a JSON value
    result.ok, result.value, result.error_kind, result.detail, result.warning

- ``prefilter(source) -> list[str]``: reasons (``"code: detail (line N)"``) to refuse a module without
  running it (defence in depth only; the OS barrier below is the barrier): imports outside :data:`ALLOWED_MODULES`, ``eval``/``exec``/``compile``/``open``/``__import__``
  and the like, dunder and private attribute access, ``.format`` on non-literals. ``SandboxPool`` applies
  it to every source (``use_prefilter=False`` turns it off, so that tests exercise the OS barrier alone).
- ``SandboxPool.call(source, entry, payload, harness=None, worker=None)`` runs ``entry`` (a dotted name in
  the module) on ``payload`` in a warm worker. With ``harness="name"`` it runs ``name.entry(module,
  payload)``, where ``name`` is one of the ``trusted_modules`` (name -> source text) the pool installs in
  every worker at start (how covert.procgen drives a candidate environment inside the sandbox).
  ``worker`` pins one of the ``size`` slots (two slots are two processes).
- :class:`SandboxResult`: ``ok``, ``value``, ``error_kind`` (``None`` or one of ``timeout``, ``memory``,
  ``crash``, ``forbidden``, ``exception``, ``output_too_large``), ``detail`` (one line), ``warning``
  (non-empty when the call did not run under the full sandbox: show it in the run summary) and
  ``reasons`` (the prefilter's). Errors from a barrier of the sandbox (``PermissionError``, EROFS,
  ENETUNREACH, EFBIG ...) are ``forbidden``.
- ``pool.stats``: ``spawns``, ``calls``, ``prefilter_rejected`` and ``replaced_<why>``.

The worker (``covert/sandbox/worker.py``, stdlib only) runs under bubblewrap: every namespace unshared
(no network), the system bound read-only, a private size-limited ``/tmp``, no capabilities,
``--die-with-parent`` and a new session; it then sets rlimits (address space, CPU per call, file size,
open files, processes, no core files) and a seccomp filter (written here with ctypes; x86_64 and
aarch64) that refuses fork/clone/exec, sockets, ptrace, mount, namespaces and kill with EPERM. The worker
itself never runs untrusted code: each call runs in a child it forks for that call, which applies the
per-call CPU budget, ``RLIMIT_NPROC`` and the seccomp filter, reaches only its own one-shot result pipe
(never the protocol pipe) and dies with the call; the worker reads one bounded frame from it, checks
its shape and answers the parent itself. So nothing a module does (patching the harness, writing frames
to any descriptor) outlives its call or reaches another call's answer; callers still check the shape of
every value (the module may forge its own). The worker enforces each call's wall clock, the parent
enforces one behind it and kills the worker's process group. A worker whose call timed out, crashed or
ran out of memory is replaced. Where bubblewrap cannot run, workers are plain subprocesses with the same
rlimits and seccomp filter, and every result carries a loud ``warning``.
"""

from covert.sandbox.launch import bwrap_unavailable_reason
from covert.sandbox.limits import ERROR_KINDS, Limits, SandboxResult
from covert.sandbox.pool import SandboxError, SandboxPool
from covert.sandbox.prefilter import ALLOWED_MODULES, prefilter

__all__ = ["ALLOWED_MODULES", "ERROR_KINDS", "Limits", "SandboxError", "SandboxPool", "SandboxResult",
           "bwrap_unavailable_reason", "prefilter"]
