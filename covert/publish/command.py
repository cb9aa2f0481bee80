"""``covert push``, ``covert regenerate`` and ``covert export`` (registered by :mod:`covert.cli`)."""

from __future__ import annotations

import argparse
import json


def _cmd_push(args: argparse.Namespace) -> int:
    from covert.publish.push import push_dataset

    plan = push_dataset(args.dir, args.repo_id, private=args.private, revision=args.revision)
    where = f"{args.repo_id}@{args.revision}" if args.revision else args.repo_id
    if plan.up_to_date:
        print(f"{where} is up to date")
    else:
        print(f"pushed {sum(len(c.add) for c in plan.commits)} files in {len(plan.commits)} commits to {where}")
    return 0


def _cmd_regenerate(args: argparse.Namespace) -> int:
    from covert.publish.regenerate import regenerate

    result = regenerate(args.source, args.out, workers=args.workers, overwrite=args.overwrite,
                        progress=not args.quiet, engine=args.engine, ray_address=args.ray_address,
                        revision=args.revision)
    print(result.describe())
    if result.ok:
        print(f"wrote {args.out}")
        return 0
    if result.rebuilt_ok:
        print(f"wrote {args.out}: a rebuild that matches the manifest, shard for shard (the source does not)")
    return 1


def _cmd_export(args: argparse.Namespace) -> int:
    from covert.publish.export import export, llama_factory_entry

    report = export(args.dir, args.to, args.out, config=args.config, split=args.split)
    print(report.describe())
    for reason, count in report.skipped.items():
        print(f"skipped {count} rows: {reason}")
    if args.to == "sharegpt":
        print("LLaMA-Factory dataset_info.json entry: " + json.dumps(llama_factory_entry(report.path)))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``push``, ``regenerate`` and ``export`` subcommands."""
    from covert.publish import FORMATS
    from covert.scale.engine import add_engine_arguments

    s = sub.add_parser("push", help="upload a dataset folder to the Hub (resumable; refuses invalid datasets)")
    s.add_argument("dir", help="a dataset directory covert wrote")
    s.add_argument("repo_id", help="Hub dataset repo, owner/name")
    s.add_argument("--private", action="store_true", help="create the repo private")
    s.add_argument("--revision", default=None, help="branch to push to (created if missing)")
    s.set_defaults(func=_cmd_push)

    s = sub.add_parser("regenerate", help="rebuild a dataset from its manifest and check every shard's sha256 "
                                          "(and the source's; exit 1 if either differs)")
    s.add_argument("source", metavar="DIR_OR_REPO", help="dataset directory or Hub dataset id")
    s.add_argument("--out", required=True, help="where to write the rebuilt dataset")
    s.add_argument("--revision", default=None, help="Hub revision of the manifest")
    s.add_argument("--workers", type=int, default=1, help="worker processes (the output is the same for any number)")
    s.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    add_engine_arguments(s, "items")
    s.set_defaults(func=_cmd_regenerate)

    s = sub.add_parser("export", help="write a dataset in another trainer's format")
    s.add_argument("dir", help="a dataset directory covert wrote")
    s.add_argument("--to", required=True, choices=FORMATS,
                   help="openai-jsonl (OpenAI chat fine-tuning), sharegpt (LLaMA-Factory; .json gives a JSON array), "
                        "xlam (query, tools, answers), verl-sft (Parquet for verl's multi-turn SFT)")
    s.add_argument("--out", required=True, help="the output file (its folder is made if missing, and said so)")
    s.add_argument("--config", default="sft", help="the config to export: sft, sft-multiturn, sft-augmented, sft-procgen, "
                                                     "...; rl configs for xlam")
    s.add_argument("--split", default=None, help="one split (default: all)")
    s.set_defaults(func=_cmd_export)
