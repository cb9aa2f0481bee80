"""What LLM-written custom actions cost: validation per implementation, and a sandboxed custom tool call
against a generic (in-process) tool call of the same environment, measured in one run.

    PYTHONPATH=. python benchmarks/custom_actions_bench.py [--calls 300]

Uses the helpdesk API of the tests (``tests/imports/custom_action_fixtures.py``) and its correct
``closeTicket`` implementation; no LLM is needed.
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--validations", type=int, default=5)
    args = parser.parse_args()

    from covert.imports.bind import bind
    from covert.imports.custom_actions import action_sandbox, parse_reply, runtime_pool, target_of
    from covert.imports.custom_actions_check import Validator, custom_roles
    from covert.imports.envs import make_builder
    from covert.imports.resources import infer
    from covert.sandbox import bwrap_unavailable_reason
    from tests.imports.custom_action_fixtures import CORRECT, helpdesk_openapi

    spec = helpdesk_openapi()
    code = parse_reply(CORRECT, "closeTicket")
    api = bind(spec)
    _resources, roles = infer(spec)
    target = target_of(custom_roles(spec)[0].op, spec, api.resources, roles)
    print(f"load: {os.getloadavg()[0]:.2f} (1 min), sandbox: {bwrap_unavailable_reason() or 'bubblewrap'}")
    with action_sandbox(size=2) as pool:
        validator = Validator(api, pool)
        assert validator.check(target, code) is None  # warm: workers started, module loaded
        started = time.perf_counter()
        for _ in range(args.validations):
            assert validator.check(target, code) is None
        per = (time.perf_counter() - started) / args.validations
        print(f"validation of one implementation (warm pool, {pool.stats['calls']} sandbox calls so far): "
              f"{per * 1000:.1f} ms")

    builder = make_builder(spec, custom={"closeTicket": code})
    env = builder.env(builder.state(0, 0))
    ids = env.state.ids("tickets")
    runtime_pool()  # started once per process
    env.call("closeTicket", {"ticket_id": ids[0]})
    timings = {}
    for tool in ("getTicket", "closeTicket"):
        started = time.perf_counter()
        for n in range(args.calls):
            env.reset(builder.state(0, 0))
            out = env.call(tool, {"ticket_id": ids[n % len(ids)]})
            assert "error" not in out, out
        timings[tool] = (time.perf_counter() - started) / args.calls
    for tool, seconds in timings.items():
        print(f"{tool}: {seconds * 1e6:.0f} us per call")
    print(f"custom (sandboxed) / generic (in-process): {timings['closeTicket'] / timings['getTicket']:.1f}x")


if __name__ == "__main__":
    main()
