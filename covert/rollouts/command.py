"""``covert calibrate`` (registered by :mod:`covert.cli`)."""

from __future__ import annotations

import argparse


def _calibrate(args: argparse.Namespace) -> int:
    from covert.errors import UsageError
    from covert.rollouts.calibrate import calibrate

    try:
        summary = calibrate(args.dir, policy=args.policy, k=args.k, seed=args.seed, out=args.out,
                            overwrite=args.overwrite, progress=not args.quiet, workers=args.workers,
                            engine=args.engine, ray_address=args.ray_address)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(f"calibrated {summary['tasks']} tasks with {summary['policy']} (k={summary['k']}): "
          f"mean pass rate {summary['mean_pass_rate']}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``covert calibrate``."""
    from covert.scale.engine import add_engine_arguments

    s = sub.add_parser("calibrate", help="record each task's pass rate under a policy (pass@k difficulty)")
    s.add_argument("dir", help="a tool dataset (covert build, covert live-mcp) with an rl config")
    s.add_argument("--policy", default="scripted", help="scripted or scripted:ERROR_RATE (a scripted policy that "
                                                        "errs at that rate)")
    s.add_argument("--k", type=int, default=8, help="rollouts per task: the pass rate is passes / k")
    s.add_argument("--seed", type=int, default=0, help="seed of the policy's errors")
    s.add_argument("--out", default=None, help="write a calibrated copy here instead of updating DIR")
    s.add_argument("--overwrite", action="store_true", help="with --out: replace an existing --out")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument("--workers", type=int, default=1, help="worker processes (the output is the same for any number)")
    add_engine_arguments(s, "rollouts")
    s.set_defaults(func=_calibrate)
