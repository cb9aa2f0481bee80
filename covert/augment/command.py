"""``covert augment`` (registered by :mod:`covert.cli`)."""

from __future__ import annotations

import argparse
from typing import Any


def _run(args: argparse.Namespace) -> int:
    from covert.augment.dataset import AugmentConfig, augment_dataset
    from covert.augment.registry import kind_names

    kinds = ([k.strip() for text in args.kinds for k in text.split(",") if k.strip()] if args.kinds is not None
             else kind_names())
    config = AugmentConfig(kinds=kinds, intensity=args.intensity, seed=args.seed, rows_per_shard=args.rows_per_shard)
    llm = None
    if args.llm:
        from covert.augment.llm import LLMRephraser
        from covert.cli import open_llm

        cache = args.llm_cache or f"{args.out.rstrip('/')}.llm-cache"
        llm = LLMRephraser(open_llm(args.llm, cache), seed=args.seed)
    manifest = augment_dataset(args.src, args.out, config, overwrite=args.overwrite, workers=args.workers,
                               progress=not args.quiet, llm=llm, engine=args.engine, ray_address=args.ray_address)
    _print_summary(manifest)
    print(f"wrote {args.out}")
    if args.report:
        from covert.report.command import report_after

        report_after(args.out)
    return 0


def _print_summary(manifest: dict[str, Any]) -> None:
    summary = manifest["augmentation_summary"]
    per_kind = summary["per_kind"]
    print(f"augmented {summary['base_tasks']} base tasks into {sum(k['rows'] for k in per_kind.values())} rows")
    print(f"  {'kind':<14} {'rows':>8} {'n/a':>8} {'rejected':>9}")
    for kind, counts in per_kind.items():
        reasons = ", ".join(f"{r} {n}" for r, n in counts["rejected"].items())
        print(f"  {kind:<14} {counts['rows']:>8} {counts['not_applicable']:>8} {sum(counts['rejected'].values()):>9}"
              + (f"   ({reasons})" if reasons else ""))


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``covert augment SRC --out DIR [--kinds ...] [--intensity ...] [--seed S] [--overwrite]``."""
    from covert.scale.engine import add_engine_arguments

    s = sub.add_parser("augment", help="write oracle-preserving augmented configs of a dataset",
                       description="Copy a dataset's sft and rl configs and add sft-augmented and rl-augmented: "
                                   "every base row augmented by each kind, each augmented row validated.")
    s.add_argument("src", help="a dataset directory, or a Hub dataset repo id")
    s.add_argument("--out", required=True, help="the new dataset directory")
    s.add_argument("--kinds", nargs="+", default=None, metavar="KIND",
                   help="kinds to apply, comma- or space-separated (default: all): distractors, indirect, ambiguous, "
                        "noisy, multi_format, erroneous")
    s.add_argument("--intensity", default="medium",
                   help="low, medium or high: how much each augmentation adds (distractor tools, noise, ...)")
    s.add_argument("--seed", type=int, default=0, help="the augmentation seed (same seed, same bytes)")
    s.add_argument("--rows-per-shard", type=int, default=5000, help="rows per Parquet shard")
    s.add_argument("--workers", type=int, default=1, help="worker processes (the output is the same for any number)")
    add_engine_arguments(s, "rows")
    s.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument("--llm", default=None, metavar="SPEC",
                   help="rewrite indirect and ambiguous queries with an LLM: vllm:MODEL, openai:URL[#MODEL] or hf:PATH")
    s.add_argument("--llm-cache", default=None, help="cache directory for LLM requests (default: OUT.llm-cache)")
    s.add_argument("--report", action="store_true", help="also write OUT/report (figures, HTML; see covert report)")
    s.set_defaults(func=_run)
