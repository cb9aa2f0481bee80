"""``covert mapf-benchmark`` and ``covert mapf-report`` (registered by :mod:`covert.cli`)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from covert.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``covert mapf-benchmark`` and ``covert mapf-report``."""
    from covert.scale.engine import add_engine_arguments

    b = sub.add_parser("mapf-benchmark", help="write the MAPF-FrozenLake benchmark grid (3-5 agents, 3x3-10x10) "
                                              "as a dataset")
    b.add_argument("--out", required=True, help="the dataset directory to write")
    b.add_argument("--seed", type=int, default=0, help="the run seed every instance is drawn from")
    b.add_argument("--per-cell", type=int, default=150, help="instances per (agents, grid size) cell (150: "
                                                             "3,150 rows)")
    b.add_argument("--workers", type=int, default=1, help="worker processes (same output for any number)")
    add_engine_arguments(b, "instances")
    b.add_argument("--form", choices=("text", "tools"), default="text",
                   help="text: the benchmark's prompt and plan text; tools: the look/move/wait tool form as tool rows")
    b.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=_cmd_benchmark)
    r = sub.add_parser("mapf-report", help="valid %% and optimal %% per agent count on MAPF-FrozenLake rows",
                       description="Score a completions file or a scripted policy on a MAPF-FrozenLake dataset (or on "
                                   "maps you have locally, --published) and print valid % and optimal % per agent "
                                   "count. With --predictions, only the rows that have a prediction are scored (as "
                                   "`covert score` does), and the report says how many that is.")
    r.add_argument("dir", nargs="?", default=None, metavar="DIR",
                   help="a procgen dataset directory (e.g. from mapf-benchmark); or give it as --dataset DIR")
    r.add_argument("--dataset", default=None, metavar="DIR", help="the dataset directory (same as DIR)")
    r.add_argument("--published", metavar="PATH", help="maps you have locally (the published benchmark's files, "
                   "or any maps in the testbed's notation): a .json/.jsonl/.txt file or a directory of them")
    r.add_argument("--prompts", metavar="OUT", help="with --published: write each map's id and prompt as JSONL to "
                   "OUT (what a model answers) and stop")
    r.add_argument("--config", default=None,
                   help="the config holding the rows (default: rl-procgen, else rl-procgen-tools)")
    source = r.add_mutually_exclusive_group()
    source.add_argument("--predictions", help='JSONL file, one {"task_id", "completion"} per line')
    source.add_argument("--policy", help="reference, or noisy[:ACCURACY] (a scripted policy; ACCURACY 0.5 unless "
                                         "given)")
    r.add_argument("--seed", type=int, default=0, help="seed of the noisy policy")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=_cmd_report)


def _cmd_benchmark(args: argparse.Namespace) -> int:
    from covert.procgen.mapf_benchmark import write_benchmark

    command = "covert " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["mapf-benchmark"] else ""
    from covert.procgen.mapf_benchmark import format_selection, selection_bias

    manifest = write_benchmark(args.out, seed=args.seed, per_cell=args.per_cell, workers=args.workers,
                               overwrite=args.overwrite, command=command, form=args.form, progress=not args.quiet,
                               engine=args.engine, ray_address=args.ray_address)
    print(f"wrote {manifest['summary']['accepted']} MAPF-FrozenLake instances to {args.out}")
    print(format_selection(selection_bias(manifest)))
    return 0


def _published(args: argparse.Namespace) -> list[tuple[str, Any]]:
    from covert.procgen.mapf_published import PublishedMapError, read_published

    try:
        found, skipped = read_published(args.published)
    except (PublishedMapError, OSError, UnicodeDecodeError) as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    if skipped:
        print("skipped: " + ", ".join(f"{reason} {count}" for reason, count in skipped.items()), file=sys.stderr)
    if not found:
        raise UsageError(f"{args.published} holds no map the exact solver settles; see the skipped counts")
    return [(item.id, item.instance) for item in found]


def _cmd_report(args: argparse.Namespace) -> int:
    from covert.io.checked import open_dataset
    from covert.io.reader import DatasetError, iter_rows
    from covert.procgen.mapf_benchmark import (
        format_report,
        mapf_rows,
        noisy_policy,
        read_completions,
        reference_policy,
        report,
        report_instances,
    )

    if args.dir and args.dataset and args.dir != args.dataset:
        raise UsageError(f"give the dataset once: DIR {args.dir!r} and --dataset {args.dataset!r} differ")
    where = args.dir or args.dataset
    if where and args.published:
        raise UsageError("give a dataset (DIR) or --published PATH, not both")
    if not where and not args.published:
        raise UsageError("give the dataset: covert mapf-report DIR --predictions FILE (or --policy reference), "
                         "or --published PATH")
    if args.prompts and not args.published:
        raise UsageError("--prompts writes the prompts of --published maps; pass --published PATH")
    items = _published(args) if args.published else None
    if items is not None and args.prompts:
        import json

        from covert.atomic import write_atomically

        write_atomically(Path(args.prompts), "".join(json.dumps({"task_id": i, "prompt": inst.prompt}) + "\n"
                                                     for i, inst in items))
        print(f"wrote {len(items)} prompts to {args.prompts}")
        return 0
    if args.policy is None and args.predictions is None:
        raise UsageError("pass --predictions FILE or --policy reference|noisy[:ACCURACY]")
    if args.policy is not None:
        name, _, accuracy = args.policy.partition(":")
        if name == "reference" and not accuracy:
            responses = reference_policy
        elif name == "noisy":
            try:
                value = float(accuracy) if accuracy else 0.5
            except ValueError:
                raise UsageError(f"--policy noisy:ACCURACY takes a number in [0, 1], not {accuracy!r}") from None
            if not 0.0 <= value <= 1.0:
                raise UsageError(f"--policy noisy:ACCURACY takes a number in [0, 1], not {value}")
            responses = noisy_policy(value, args.seed)
        else:
            raise UsageError(f"--policy is reference or noisy[:ACCURACY], not {args.policy!r}")
    else:
        try:
            responses = read_completions(args.predictions)
        except FileNotFoundError:
            raise UsageError(f"predictions file {args.predictions} not found") from None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise UsageError(str(exc)) from None
    if items is not None:
        lines = report_instances(items, responses)
        print(format_report(lines, f"MAPF-FrozenLake: {args.published} ({args.policy or args.predictions})"))
        return 0
    try:
        dataset = open_dataset(where)
        config = args.config or next((c for c in ("rl-procgen", "rl-procgen-tools") if c in dataset.configs),
                                     "rl-procgen")
        if config not in dataset.configs:
            raise UsageError(f"{where} holds no mapf_frozenlake rows: it has no config {config} (its configs: "
                             f"{', '.join(dataset.configs)}); write some with `covert mapf-benchmark --out DIR`")
        rows = list(iter_rows(where, config))
    except (DatasetError, OSError) as exc:
        raise UsageError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    rows = mapf_rows(rows)
    if not rows:
        raise UsageError(f"{where} ({config}) holds no mapf_frozenlake rows; write some with "
                         "`covert mapf-benchmark --out DIR`")
    note = ""
    if not callable(responses):
        known = {str(row.get("task_id")) for row in rows}
        unknown = sorted(set(responses) - known)
        if unknown:
            raise UsageError(f"{args.predictions}: task_id {unknown[0]!r} is not a mapf_frozenlake row of {where} "
                             f"({config})")
        scored = [row for row in rows if str(row.get("task_id")) in responses]
        if len(scored) < len(rows):
            note = (f"scored the {len(scored)} of {len(rows)} rows that have a prediction; the other "
                    f"{len(rows) - len(scored)} are not counted")
        rows = scored
    lines = report(rows, responses, progress=not args.quiet)
    print(format_report(lines, f"MAPF-FrozenLake: {where} ({args.policy or args.predictions})"))
    if note:
        print(note)
    return 0
