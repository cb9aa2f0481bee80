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


def test_a_crashed_worker_is_replaced(raw_pool: SandboxPool) -> None:
    assert raw_pool.call(DOUBLE, "double", {"x": 1, "items": []}).ok
    crashed = raw_pool.call(CRASH, "die", None)
    assert (crashed.ok, crashed.error_kind) == (False, "crash")
    assert "status 3" in crashed.detail
    assert raw_pool.call(DOUBLE, "double", {"x": 2, "items": []}).value == {"value": 4, "items": []}
    assert raw_pool.stats["spawns"] == 2
    assert raw_pool.stats["replaced_crash"] == 1


def test_exceptions_come_back_with_their_line(pool: SandboxPool) -> None:
    result = pool.call("def f(p):\n    return 1 // p\n", "f", 0)
    assert (result.ok, result.error_kind) == (False, "exception")
    assert "ZeroDivisionError" in result.detail and ":2 in f" in result.detail
    missing = pool.call("def f(p):\n    return 1\n", "g", 0)
    assert missing.error_kind == "exception" and "AttributeError" in missing.detail
    assert pool.stats["spawns"] <= 2  # an exception does not cost the worker


def test_the_prefilter_refuses_before_anything_runs(pool: SandboxPool) -> None:
    result = pool.call("import os\ndef f(p):\n    return os.getpid()\n", "f", None)
    assert (result.ok, result.error_kind) == (False, "forbidden")
    assert result.reasons == ("forbidden_import: import os is not allowed (line 1)",)
    assert pool.stats["spawns"] == 0 and pool.stats["prefilter_rejected"] == 1


def test_oversized_output_is_refused_and_oversized_input_is_a_caller_error(pool: SandboxPool) -> None:
    result = pool.call("def big(n):\n    return 'x' * n\n", "big", 2 << 20)
    assert (result.ok, result.error_kind) == (False, "output_too_large")
    with pytest.raises(ValueError, match="payload is over"):
        pool.call(DOUBLE, "double", {"x": 1, "items": ["y" * (2 << 20)]})


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


def test_same_inputs_same_result(pool: SandboxPool) -> None:
    source = "import random\ndef f(seed):\n    r = random.Random(seed)\n    return [r.random() for _ in range(5)]\n"
    first = pool.call(source, "f", 7, worker=0)
    second = pool.call(source, "f", 7, worker=1)
    assert first.ok and first == second
