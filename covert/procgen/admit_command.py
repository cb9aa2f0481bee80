"""``covert procgen-admit``: admit candidate procedural environments (files, or written by an LLM)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from covert.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``covert procgen-admit``."""
    s = sub.add_parser("procgen-admit", help="admit candidate procedural environments through the sandboxed "
                                             "stages L1-L5 (files, or --generate N with --llm)")
    s.add_argument("files", nargs="*", help="candidate environment modules (.py)")
    s.add_argument("--llm", default=None, metavar="SPEC", help="backend that writes candidates (--generate), "
                   "reviews them (--review) and, with --solver llm, solves them")
    s.add_argument("--llm-cache", default=None, help="cache directory for LLM requests")
    s.add_argument("--generate", type=int, default=0, metavar="N", help="with --llm: N candidates written by it")
    s.add_argument("--max-tokens", type=int, default=3000, help="most tokens per written module (--generate) and per solver answer (--solver llm)")
    s.add_argument("--seed", type=int, default=0, help="seed of the LLM's candidates and of the scripted solver")
    s.add_argument("--review", action="store_true", help="with --llm: L4, the LLM reviews each environment")
    s.add_argument("--solver", default="ladder", help="L5 solver: 'ladder' (the candidate's own solver ladder, "
                   "default), 'llm' (the --llm backend) or 'noisy:P', a scripted solver right with probability P "
                   "(a test double: it checks the band, not real difficulty)")
    s.add_argument("--instances", type=int, default=6, help="instances per seed and level (m)")
    s.add_argument("--samples", type=int, default=4, help="solver samples per instance (k)")
    s.add_argument("--band", default="0.1,0.9", help="admitted solver pass-rate band LO,HI")
    s.add_argument("--pool", default=None, help="environment pool JSON: novelty against it; admitted ones join")
    s.add_argument("--round", type=int, default=0, help="rotation round (with --pool)")
    s.add_argument("--no-seed-novelty", action="store_true", help="do not reject copies of the seed environments")
    s.add_argument("--report", default=None, help="write the full report as JSON here")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=_cmd_admit)


def _band(text: str) -> tuple[float, float]:
    try:
        low, high = (float(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"bad --band {text!r}: expected LO,HI such as 0.1,0.9") from None
    if not 0 <= low <= high <= 1:
        raise UsageError(f"bad --band {text!r}: need 0 <= LO <= HI <= 1")
    return low, high


def _backend(args: argparse.Namespace) -> Any:
    from covert.llm import BackendUnavailable, open_backend

    try:
        return open_backend(args.llm, cache_dir=args.llm_cache)
    except (ValueError, BackendUnavailable) as exc:
        raise UsageError(str(exc).splitlines()[0]) from None


def _solver(args: argparse.Namespace, backend: Any) -> Any:
    from covert.procgen.candidates import BackendSolver, NoisyReferenceSolver

    if args.solver == "ladder":
        return None
    if args.solver == "llm":
        if backend is None:
            raise UsageError("--solver llm needs --llm SPEC")
        return BackendSolver(backend, seed=args.seed, max_tokens=args.max_tokens)
    kind, _, p = args.solver.partition(":")
    try:
        if kind == "noisy":
            return NoisyReferenceSolver(float(p), seed=args.seed)
    except ValueError:
        pass
    raise UsageError(f"bad --solver {args.solver!r}: use 'ladder', 'llm' or 'noisy:P' with P in [0, 1]")


def _cmd_admit(args: argparse.Namespace) -> int:
    from covert.procgen.candidates import Admission, AdmissionConfig, Candidate, admit_all, seed_candidates
    from covert.procgen.pool import EnvPool
    from covert.progress import bar

    if not args.files and not args.generate:
        raise UsageError("nothing to admit: pass candidate module files or --generate N --llm SPEC")
    if (args.generate or args.review) and not args.llm:
        raise UsageError("--generate and --review need --llm SPEC")
    if args.instances < 1 or args.samples < 1 or args.max_tokens < 1:
        raise UsageError("--instances, --samples and --max-tokens must be at least 1")
    try:
        candidates = [Candidate.from_file(f) for f in args.files]
        pool = EnvPool.load(args.pool) if args.pool else None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    backend = _backend(args) if args.llm else None
    failures: dict[str, int] = {}
    if args.generate:
        from covert.procgen.generate import generate_candidates

        generated, failures = generate_candidates(backend, args.generate, seed=args.seed, max_tokens=args.max_tokens)
        candidates += generated
    config = AdmissionConfig(instances=args.instances, samples=args.samples, band=_band(args.band),
                             review=args.review)
    seeds = [] if args.no_seed_novelty else seed_candidates()
    # profiling the seeds (novelty) takes most of a run of few candidates: the bar counts them too
    with (Admission(config, solver=_solver(args, backend), pool=pool, reviewer=backend) as admission,
          bar(len(seeds) + len(candidates), unit="env", desc="procgen-admit", enabled=not args.quiet) as progress):
        known = []
        for seed in seeds:
            known.append(admission.profile(seed))
            progress.update(1)
        report = admit_all(candidates, admission, known=known, on_verdict=lambda _c, _v: progress.update(1))
    if pool is not None:
        for candidate, verdict in zip(candidates, report.verdicts, strict=True):
            if verdict.admitted:
                pool.add(candidate, verdict, args.round)
        retired = pool.rotate(args.round)
        pool.save(args.pool)
    data = report.to_dict()
    data["generation_failures"] = failures
    if report.warning:
        print(f"WARNING: {report.warning}", file=sys.stderr)
    print(f"candidates {len(candidates) + sum(failures.values())}: admitted {data['admitted']}, "
          f"rejected {data['rejected'] + sum(failures.values())}")
    for reason, count in {**failures, **data["rejections"]}.items():
        print(f"  {reason:<36} {count:>5}")
    for verdict in report.verdicts:
        rate = "" if verdict.pass_rate is None else f" pass rate {verdict.pass_rate:.2f}"
        status = "admitted" if verdict.admitted else f"rejected {verdict.rejection}"
        print(f"{verdict.label}: {status}{rate}" + (f" ({verdict.name})" if verdict.name else ""))
    if pool is not None:
        print(f"pool {args.pool}: {len(pool.members)} members" + (f", retired {len(retired)}" if retired else ""))
    if args.report:
        target = Path(args.report)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_text(json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(target)
    return 0
