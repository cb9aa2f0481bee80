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
    from covert.io.staging import write_atomically

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

        engineer: Any = LLMEngineer(open_llm(args.llm, args.llm_cache), band=band, seed=args.seed)
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

    config = EvolveConfig(generations=args.generations, seed=args.seed, k=args.k, skill=args.skill, tasks=args.tasks)
    manifest = evolve_dataset(args.dir, args.out, config, overwrite=args.overwrite, progress=not args.quiet)
    for g in manifest["evolution"]["schedule"]["generations"]:
        print(f"generation {g['generation']}: {g['tasks']} tasks, reference pass rate {g['reference_pass_rate']}")
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

    if args.generations < 1 or args.per_config < 1 or args.k < 1 or args.instances < 1:
        raise UsageError("--generations, --per-config, --instances and --k must be at least 1")
    try:
        env = get_env(args.env)
    except UnknownEnvironmentError as exc:
        raise UsageError(str(exc)) from None
    start = _json_arg(args.start, "--start", env.default_config())
    starts = start if isinstance(start, list) else [start]
    weights = _json_arg(args.weights, "--weights", {})
    if not isinstance(weights, dict) or not all(isinstance(v, (int, float)) for v in weights.values()):
        raise UsageError("--weights must be a JSON object of knob name -> number")
    try:
        starts = [env.check_config(c) for c in starts]
    except (ConfigError, TypeError, AttributeError) as exc:
        raise UsageError(f"--start: {exc}") from None
    lineage = lineage_of(env, starts, args.generations, args.skill, weights, args.seed, args.instances, args.k,
                         progress=not args.quiet)
    command = (f"covert evolve-procgen {args.env} --out {args.out} --generations {args.generations} --seed {args.seed} "
               f"--per-config {args.per_config} --instances {args.instances} --k {args.k} --skill {args.skill}"
               + (f" --start '{args.start}'" if args.start else "") + (f" --weights '{args.weights}'" if args.weights else ""))
    write_procgen_generations(env, lineage, args.out, args.seed, args.per_config, command, overwrite=args.overwrite)
    for g, (members, rate) in enumerate(zip(lineage.generations, lineage.pass_rates())):
        print(f"generation {g}: {len(members)} configuration(s), reference pass rate {rate}")
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
                                   "harder along one direction (horizon, constraints, observations), kept only when it "
                                   "still validates and a fixed scripted reference policy passes it less often.")
    s.add_argument("dir", help="a dataset written by covert build")
    s.add_argument("--out", required=True, help="the new dataset directory")
    s.add_argument("--generations", type=int, default=4, help="generations to write, g0 = the base tasks (default 4)")
    s.add_argument("--k", type=int, default=8, help="reference-policy rollouts per task (default 8)")
    s.add_argument("--skill", type=float, default=1.0, help="the reference policy's skill (default 1.0)")
    s.add_argument("--tasks", type=int, default=None, help="base tasks per split (default: all)")
    s.add_argument("--seed", type=int, default=0, help="seeds the mutations and their order (same seed, same bytes)")
    s.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=_evolve)

    s = sub.add_parser("evolve-procgen", help="evolve a procedural environment's configurations into harder generations",
                       description="Raise one knob at a time along the environment's directions; keep a configuration "
                                   "when the reference solver solves its instances and a fixed scripted reference policy "
                                   "passes it less often than its parent. Writes sft-procgen-gN / rl-procgen-gN.")
    s.add_argument("env", help="a procedural environment (covert list)")
    s.add_argument("--out", required=True, help="the new dataset directory")
    s.add_argument("--generations", type=int, default=4, help="generations to write, g0 = the start configurations")
    s.add_argument("--start", default=None, help="start configuration(s) as JSON (an object or a list; default: easiest)")
    s.add_argument("--per-config", type=int, default=50, help="instances written per configuration (default 50)")
    s.add_argument("--instances", type=int, default=12, help="instances per configuration to test mutants on")
    s.add_argument("--k", type=int, default=2, help="reference-policy attempts per instance")
    s.add_argument("--skill", type=float, default=2.0, help="the scripted reference policy's skill")
    s.add_argument("--weights", default=None, help="JSON knob -> difficulty weight per level for the reference policy")
    s.add_argument("--seed", type=int, default=0, help="the run seed (same seed, same bytes)")
    s.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=_evolve_procgen)
