"""``covert procgen`` (registered by :mod:`covert.cli`): write procedural environments' instances as a dataset."""

from __future__ import annotations

import argparse
import shlex
import sys


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``covert procgen``."""
    from covert.scale.engine import add_engine_arguments

    s = sub.add_parser("procgen", help="sample procedural environments' instances into SFT and RL datasets")
    s.add_argument("--envs", default="all", help="'all' or comma-separated procedural environment names "
                                                 "(see `covert list`)")
    s.add_argument("--num-tasks", type=int, default=1000, help="instances in all, shared round-robin by the envs")
    s.add_argument("--seed", type=int, default=0, help="the run seed every instance is drawn from")
    s.add_argument("--out", required=True, help="the dataset directory to write")
    s.add_argument("--level", type=int, default=None,
                   help="difficulty level of every knob (0 = easiest; clamped to each knob's levels); default: each "
                        "environment's instances cycle through every level of its curriculum")
    s.add_argument("--config", default=None, metavar="JSON",
                   help='knob values on top of --level: {"knob": value} for every env, or {"env": {"knob": value}}')
    s.add_argument("--workers", type=int, default=1, help="worker processes (the output is the same for any number)")
    add_engine_arguments(s, "instances")
    s.add_argument("--rows-per-shard", type=int, default=5000, help="rows per Parquet shard")
    s.add_argument("--license", default="apache-2.0", help="license id stated in the dataset card")
    s.add_argument("--form", choices=("text", "tools"), default="text",
                   help="text: prompt and text answer (configs sft-procgen, rl-procgen); tools: the tool-call form "
                        "as tool rows (sft-procgen-tools, rl-procgen-tools; environments with one, e.g. mapf_frozenlake)")
    s.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=_cmd_procgen)


def _cmd_procgen(args: argparse.Namespace) -> int:
    from covert.procgen.dataset import ProcgenConfig, ProcgenError, build_procgen, parse_overrides
    from covert.procgen.registry import UnknownEnvironmentError, resolve_envs

    try:
        envs = resolve_envs(args.envs)
    except UnknownEnvironmentError as exc:
        raise ProcgenError(str(exc)) from None
    config = ProcgenConfig(envs=[e.name for e in envs], num_tasks=args.num_tasks, seed=args.seed, level=args.level,
                           overrides=parse_overrides(args.config, envs), rows_per_shard=args.rows_per_shard,
                           license=args.license, form=args.form)
    command = "covert " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["procgen"] else ""
    manifest = build_procgen(config, args.out, overwrite=args.overwrite, workers=args.workers, command=command,
                             progress=not args.quiet, engine=args.engine, ray_address=args.ray_address)
    print(f"wrote {manifest['summary']['accepted']} instances to {args.out}")
    for name, count in manifest["summary"]["per_environment"].items():
        dup = manifest["summary"]["duplicate_prompts"].get(name, 0)
        print(f"  {name:<24} {count:>8}" + (f"   ({dup} repeated prompts)" if dup else ""))
    print("rows: " + ", ".join(f"{k} {v}" for k, v in manifest["rows"].items() if v))
    return 0
