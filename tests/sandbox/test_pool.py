"""Warm workers: values come back, workers are reused, a crashed one is replaced, the fallback warns."""

from __future__ import annotations

import pytest

from covert.sandbox import Limits, SandboxPool, SandboxResult

DOUBLE = "def double(payload):\n    return {'value': payload['x'] * 2, 'items': sorted(payload['items'])}\n"
CRASH = "import os\n\ndef die(payload):\n    os._exit(3)\n"


def test_a_well_behaved_function_returns_its_value(pool: SandboxPool) -> None:
    result = pool.call(DOUBLE, "double", {"x": 21, "items": [3, 1, 2]})
    assert result == SandboxResult(True, {"value": 42, "items": [1, 2, 3]})
    assert pool.isolated and pool.warning == ""
    assert pool.seccomp_status == "on"


def test_workers_are_reused_across_calls_and_modules(pool: SandboxPool) -> None:
    other = "def neg(p):\n    return -p\n"
    for i in range(10):
        assert pool.call(DOUBLE, "double", {"x": i, "items": []}).value == {"value": 2 * i, "items": []}
        assert pool.call(other, "neg", i).value == -i
    assert pool.stats["spawns"] == 2  # the two slots, started once each
    assert pool.stats["calls"] == 20


def test_a_crashed_worker_is_replaced(any_pool: SandboxPool) -> None:
    assert any_pool.call(DOUBLE, "double", {"x": 1, "items": []}).ok
    crashed = any_pool.call(CRASH, "die", None)
    assert (crashed.ok, crashed.error_kind) == (False, "crash")
    assert "status 3" in crashed.detail
    assert any_pool.call(DOUBLE, "double", {"x": 2, "items": []}).value == {"value": 4, "items": []}
    assert any_pool.stats["spawns"] == 2
    assert any_pool.stats["replaced_crash"] == 1


def test_the_cpu_budget_is_per_call_and_a_spinner_is_replaced(any_pool: SandboxPool) -> None:
    """Many short calls add up to more than one call's CPU budget without tripping it; an endless loop
    trips it (SIGPROF at the budget) and its worker is replaced."""
    busy = "def f(n):\n    return sum(i * i for i in range(n))\n"
    for _ in range(30):
        assert any_pool.call(busy, "f", 200_000).ok
    spinner = any_pool.call("def f(p):\n    while True:\n        pass\n", "f", None)
    assert spinner.error_kind == "timeout", spinner
    assert any_pool.call(busy, "f", 10).value == 285
    assert any_pool.stats["replaced_timeout"] == 1


def test_exceptions_come_back_with_their_line(any_pool: SandboxPool) -> None:
    result = any_pool.call("def f(p):\n    return 1 // p\n", "f", 0)
    assert (result.ok, result.error_kind) == (False, "exception")
    assert "ZeroDivisionError" in result.detail and ":2 in f" in result.detail
    missing = any_pool.call("def f(p):\n    return 1\n", "g", 0)
    assert missing.error_kind == "exception" and "AttributeError" in missing.detail
    assert any_pool.stats["spawns"] == 1  # an exception does not cost the worker


def test_the_prefilter_refuses_before_anything_runs(pool: SandboxPool) -> None:
    result = pool.call("import os\ndef f(p):\n    return os.getpid()\n", "f", None)
    assert (result.ok, result.error_kind) == (False, "forbidden")
    assert result.reasons == ("forbidden_import: import os is not allowed (line 1)",)
    assert pool.stats["spawns"] == 0 and pool.stats["prefilter_rejected"] == 1


def test_oversized_output_is_refused_and_oversized_input_is_a_caller_error(any_pool: SandboxPool) -> None:
    result = any_pool.call("def big(n):\n    return 'x' * n\n", "big", 2 << 20)
    assert (result.ok, result.error_kind) == (False, "output_too_large")
    with pytest.raises(ValueError, match="payload is over"):
        any_pool.call(DOUBLE, "double", {"x": 1, "items": ["y" * (2 << 20)]})
    big_in = any_pool.call("def n(p):\n    return len(p)\n", "n", "z" * 900_000)  # large, within bounds
    assert big_in.value == 900_000


def test_a_trusted_harness_drives_the_module(bwrap_ok: None) -> None:
    harness = "def run(module, payload):\n    return module.PREFIX + payload\n"
    with SandboxPool(limits=Limits(cpu_s=1, wall_s=3), size=1, trusted_modules={"covert_harness": harness}) as p:
        assert p.call("PREFIX = 'hello '\n", "run", "world", harness="covert_harness").value == "hello world"


def test_the_fallback_runs_but_warns_loudly() -> None:
    with SandboxPool(limits=Limits(cpu_s=1, wall_s=5), size=1, use_bwrap=False) as fallback:
        result = fallback.call(DOUBLE, "double", {"x": 5, "items": []})
    assert result.ok and result.value == {"value": 10, "items": []}
    assert result.warning.startswith("SANDBOX DEGRADED") and "disabled by the caller" in result.warning
    assert not fallback.isolated


def test_the_fallback_still_refuses_processes_by_seccomp() -> None:
    fork = "import os\n\ndef f(p):\n    pid = os.fork()\n    if pid == 0:\n        os._exit(0)\n    return pid\n"
    with SandboxPool(limits=Limits(cpu_s=1, wall_s=5), size=1, use_bwrap=False, use_prefilter=False) as fallback:
        result = fallback.call(fork, "f", None)
        if fallback.seccomp_status != "on":
            pytest.skip(f"no seccomp filter here: {fallback.seccomp_status}")
    assert (result.ok, result.error_kind) == (False, "forbidden"), result


def test_same_inputs_same_result(pool: SandboxPool) -> None:
    source = "import random\ndef f(seed):\n    r = random.Random(seed)\n    return [r.random() for _ in range(5)]\n"
    first = pool.call(source, "f", 7, worker=0)
    second = pool.call(source, "f", 7, worker=1)
    assert first.ok and first == second


def test_threads_share_a_pool() -> None:
    from concurrent.futures import ThreadPoolExecutor

    with SandboxPool(limits=Limits(cpu_s=1, wall_s=10), size=2, use_prefilter=False) as shared, \
            ThreadPoolExecutor(4) as executor:
        results = list(executor.map(lambda i: shared.call(DOUBLE, "double", {"x": i, "items": []}), range(40)))
        assert [r.value["value"] for r in results] == [2 * i for i in range(40)]
        assert shared.stats["calls"] == 40 and shared.stats["spawns"] == 2


def test_a_module_evicted_from_the_worker_is_sent_again(any_pool: SandboxPool) -> None:
    sources = [f"def f(p):\n    return {i}\n" for i in range(20)]  # more than the worker's module cache holds
    for _ in range(2):
        assert [any_pool.call(src, "f", None).value for src in sources] == list(range(20))
    assert any_pool.stats["spawns"] == 1
