"""``covert engineer`` and ``covert evolve`` (registered by :mod:`covert.cli`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def failure_knobs_for(summary: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """The evidence map of a summary's environment: tool environments share one; a procedural environment
    may declare ``failure_knobs``."""
    if summary.get("kind") == "tool":
        from covert.evolve.tools import FAILURE_KNOBS

        return FAILURE_KNOBS
    import importlib

    try:
        module = importlib.import_module(f"covert.procgen.envs.{summary.get('environment')}")
    except ImportError:
        return {}
    return dict(getattr(getattr(module, "ENV", None), "failure_knobs", {}) or {})


def write_json(path: Path, data: Any) -> None:
    """Write JSON to ``path`` whole or not at all."""
    from covert.atomic import write_atomically

    write_atomically(path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def _band(text: str) -> tuple[float, float]:
    from covert.errors import UsageError

    try:
        low, high = (float(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"--band takes LOW,HIGH such as 0.2,0.8, not {text!r}") from None
    if not 0 <= low < high <= 1:
        raise UsageError(f"--band needs 0 <= LOW < HIGH <= 1, got {text!r}")
    return low, high


def _engineer(args: argparse.Namespace) -> int:
    from covert.errors import UsageError
    from covert.evolve.engineer import LLMEngineer, RuleEngineer
    from covert.evolve.summary import check_summary

    try:
        summary = json.loads(Path(args.summary).read_text())
        check_summary(summary)
    except OSError as exc:
        raise UsageError(f"cannot read {args.summary}: {exc.strerror}; pass a stage summary JSON file") from None
    except ValueError as exc:
        raise UsageError(f"{args.summary}: {str(exc).splitlines()[0][:200]}") from None
    band = _band(args.band)
    if args.llm:
        from covert.cli import open_llm

        engineer: Any = LLMEngineer(open_llm(args.llm, args.llm_cache), band=band, seed=args.seed,
                                    failure_knobs=failure_knobs_for(summary))
    else:
        engineer = RuleEngineer(band=band, failure_knobs=failure_knobs_for(summary))
    proposal = engineer.propose(summary)
    write_json(Path(args.out), proposal.to_dict())
    for d in proposal.decisions:
        print(f"{d.action:8s} {d.reason}")
    print(f"wrote {len(proposal.configs)} configuration(s) for stage {proposal.stage} to {args.out}")
    return 0


def _evolve(args: argparse.Namespace) -> int:
    from covert.evolve.dataset import EvolveConfig, evolve_dataset

    config = EvolveConfig(generations=args.generations, seed=args.seed, k=args.k, tasks=args.tasks, llm=args.llm)
    backend = None
    if args.llm:
        from covert.cli import open_llm

        backend = open_llm(args.llm, args.llm_cache)
    manifest = evolve_dataset(args.dir, args.out, config, overwrite=args.overwrite, backend=backend,
                             progress=not args.quiet)
    for g in manifest["evolution"]["schedule"]["generations"]:
        s = g["structure"]
        measures = ", ".join(f"{n} {s[n]:g}" for n in ("calls", "turns", "user_turns", "failed_calls",
                                                        "distractor_tools", "output_chars", "augmentations") if n in s)
        rate = f", LLM pass@{args.k} {g['llm_pass_rate']}" if g["llm_pass_rate"] is not None else ""
        print(f"generation {g['generation']}: {g['tasks']} tasks, {measures}{rate}")
    print(f"kept {manifest['evolution']['kept']}, rejected {manifest['evolution']['rejected']}; wrote {args.out}")
    return 0


def _json_arg(text: str | None, what: str, default: Any) -> Any:
    from covert.errors import UsageError

    if text is None:
        return default
    try:
        return json.loads(text)
    except ValueError:
        raise UsageError(f"{what} must be JSON, e.g. '{{\"grid_size\": 3}}'; got {text[:60]!r}") from None


def _evolve_procgen(args: argparse.Namespace) -> int:
    from covert.errors import UsageError
    from covert.evolve.procedural_dataset import lineage_of, write_procgen_generations
    from covert.procgen.contract import ConfigError
    from covert.procgen.registry import UnknownEnvironmentError, get_env

    if args.generations < 1 or args.per_config < 1 or args.k < 1 or args.instances < 2:
        raise UsageError("--generations, --per-config and --k must be at least 1, --instances at least 2")
    if not 0 <= args.margin < 1:
        raise UsageError(f"--margin is a drop in solve rate between 0 and 1, not {args.margin}")
    try:
        env = get_env(args.env)
    except UnknownEnvironmentError as exc:
        raise UsageError(str(exc)) from None
    if not env.ladder():
        raise UsageError(f"{env.name} has no solver ladder, so its difficulty cannot be measured; define ladder()")
    start = _json_arg(args.start, "--start", env.default_config())
    starts = start if isinstance(start, list) else [start]
    try:
        starts = [env.check_config(c) for c in starts]
    except (ConfigError, TypeError, AttributeError) as exc:
        raise UsageError(f"--start: {exc}") from None
    llm = None
    if args.llm:
        from covert.cli import open_llm
        from covert.procgen.ladder import backend_solver

        llm = backend_solver(open_llm(args.llm, args.llm_cache), seed=args.seed)
    try:
        lineage = lineage_of(env, starts, args.generations, args.seed, args.instances, args.margin, llm, args.k)
    except RuntimeError as exc:
        raise UsageError(f"--start: {str(exc).splitlines()[0]}") from None
    command = (f"covert evolve-procgen {args.env} --out {args.out} --generations {args.generations} --seed {args.seed} "
               f"--per-config {args.per_config} --instances {args.instances} --margin {args.margin}"
               + (f" --start '{args.start}'" if args.start else "")
               + (f" --llm {args.llm} --k {args.k}" if args.llm else ""))
    write_procgen_generations(env, lineage, args.out, args.seed, args.per_config, command, overwrite=args.overwrite)
    for g, members in enumerate([] if args.quiet else lineage.generations):
        for m in members:
            d = m.difficulty
            rungs = ", ".join(f"{r.name} {r.solve_rate:.2f}" for r in d.rungs) if d else ""
            llm_text = f", LLM pass@{d.llm_k} {d.llm_pass_at_k:.2f}" if d and d.llm_pass_at_k is not None else ""
            print(f"generation {g}: {json.dumps(m.config, sort_keys=True)} ladder solve rate "
                  f"{d.solve_rate if d else None} ({rungs}){llm_text}" + (f" [{m.direction}]" if m.direction else ""))
    print(f"kept {dict(lineage.kept)}, rejected {dict(lineage.rejected)}; wrote {args.out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``covert engineer``, ``covert evolve`` and ``covert evolve-procgen``."""
    s = sub.add_parser("engineer", help="propose the next stage's environment configurations from a stage summary")
    s.add_argument("summary", help="a stage summary JSON file (schemas/stage_summary.schema.json)")
    s.add_argument("--out", required=True, help="where to write the proposed configurations (JSON)")
    s.add_argument("--band", default="0.2,0.8", help="the learnable band of pass rates, LOW,HIGH (default 0.2,0.8)")
    s.add_argument("--llm", default=None, help="an LLM engineer: vllm:MODEL, openai:URL[#MODEL] or hf:PATH (default: rules)")
    s.add_argument("--llm-cache", default=None, help="cache directory for LLM requests")
    s.add_argument("--seed", type=int, default=0, help="the LLM engineer's sampling seed")
    s.set_defaults(func=_engineer)

    s = sub.add_parser("evolve", help="evolve a dataset's tool tasks into harder generations (off-policy)",
                       description="Write DIR's sft and rl configs plus sft-gN / rl-gN per generation: each task made "
                                   "harder along one direction (horizon, constraints, observations; augmentations "
                                   "stack), kept only when it still validates and the direction's structural "
                                   "measures rose (with --llm: and the LLM's pass@k did not).")
    s.add_argument("dir", help="a dataset written by covert build")
    s.add_argument("--out", required=True, help="the new dataset directory")
    s.add_argument("--generations", type=int, default=4, help="generations to write, g0 = the base tasks (default 4)")
    s.add_argument("--llm", default=None, help="measure an LLM's pass@k on every task and keep no mutant it passes "
                                               "more often: vllm:MODEL, openai:URL[#MODEL] or hf:PATH")
    s.add_argument("--llm-cache", default=None, help="cache directory for LLM requests")
    s.add_argument("--k", type=int, default=4, help="LLM rollouts per task for pass@k (with --llm; default 4)")
    s.add_argument("--tasks", type=int, default=None, help="base tasks per split (default: all)")
    s.add_argument("--seed", type=int, default=0, help="seeds the mutations and their order (same seed, same bytes)")
    s.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=_evolve)

    s = sub.add_parser("evolve-procgen", help="evolve a procedural environment's configurations into harder generations",
                       description="Raise one knob at a time along the environment's directions; keep a configuration "
                                   "when the reference solves its instances and the environment's solver ladder (or, "
                                   "with --llm, the LLM's pass@k) finds fresh instances harder than the parent's. "
                                   "Writes sft-procgen-gN / rl-procgen-gN.")
    s.add_argument("env", help="a procedural environment (covert list)")
    s.add_argument("--out", required=True, help="the new dataset directory")
    s.add_argument("--generations", type=int, default=4, help="generations to write, g0 = the start configurations")
    s.add_argument("--start", default=None, help="start configuration(s) as JSON (an object or a list; default: easiest)")
    s.add_argument("--per-config", type=int, default=50, help="instances written per configuration (default 50)")
    s.add_argument("--instances", type=int, default=32, help="fresh instances each configuration is measured on (default 32)")
    s.add_argument("--margin", type=float, default=0.05, help="least drop in solve rate that counts as harder (default 0.05)")
    s.add_argument("--llm", default=None, help="also measure an LLM's pass@k and judge by it: vllm:MODEL, openai:URL[#MODEL] or hf:PATH")
    s.add_argument("--llm-cache", default=None, help="cache directory for LLM requests")
    s.add_argument("--k", type=int, default=4, help="LLM samples per instance for pass@k (with --llm; default 4)")
    s.add_argument("--seed", type=int, default=0, help="the run seed (same seed, same bytes)")
    s.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    s.add_argument("--quiet", action="store_true",
                   help="print only the closing line (not each configuration and its ladder solve rates)")
    s.set_defaults(func=_evolve_procgen)
