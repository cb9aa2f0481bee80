"""``covert live-mcp``: tasks synthesized against a live MCP server, and their replay on a fresh one.

- ``covert live-mcp git --num-tasks N --out DIR [--seed S] [--workers W] [--overwrite] [--json]``: verified tasks on
  ``mcp-server-git`` (environment ``mcp.git``) written as ``sft/`` and ``rl/`` Parquet plus a manifest.
- ``covert live-mcp replay DIR [--limit N] [--json]``: every RL row's oracle replayed on a freshly seeded repository
  (same final-state hash) and scored with :func:`covert.rewards.score` (its own oracle must score 1.0).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``covert live-mcp``."""
    p = sub.add_parser("live-mcp", help="tasks on a live MCP server run per episode (mcp-server-git)")
    inner = p.add_subparsers(dest="live_command", required=True)
    g = inner.add_parser("git", help="synthesize verified tasks on mcp-server-git into a dataset")
    g.add_argument("--num-tasks", type=int, required=True, help="how many verified tasks to write")
    g.add_argument("--out", required=True, help="output directory (sft/, rl/, manifest.json)")
    g.add_argument("--seed", type=int, default=0, help="run seed (same seed, same bytes)")
    g.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    g.add_argument("--workers", type=int, default=1, help="tasks made at once, each on its own servers (same bytes)")
    g.add_argument("--json", action="store_true", help="print the manifest as JSON")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    g.set_defaults(func=_cmd_git)
    r = inner.add_parser("replay", help="replay a live-MCP dataset's rows on freshly seeded repositories and score their oracles")
    r.add_argument("dataset", help="a directory written by `covert live-mcp git`")
    r.add_argument("--limit", type=int, default=None, help="replay at most this many rows")
    r.add_argument("--json", action="store_true", help="print the summary as JSON")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=_cmd_replay)


def _error(message: str) -> int:
    print(f"covert: error: {message}", file=sys.stderr)
    return 2


def _cmd_git(args: argparse.Namespace) -> int:
    from covert.imports.live_mcp_client import LiveServerError
    from covert.imports.live_mcp_dataset import write_dataset

    if args.num_tasks < 1:
        return _error("--num-tasks must be at least 1")
    try:
        manifest = write_dataset(args.out, args.num_tasks, args.seed, args.overwrite, args.workers,
                                 progress=not args.quiet)
    except LiveServerError as exc:
        return _error(f"the live server failed: {exc}")
    from covert.imports.live_mcp_episode import warned

    if manifest["warning"] and not warned(manifest["warning"]):
        print(f"covert: warning: {manifest['warning']}", file=sys.stderr)
    if args.json:
        print(json.dumps(manifest, indent=2, sort_keys=True))
    else:
        rejected = ", ".join(f"{k}={v}" for k, v in manifest["rejected"].items()) or "none"
        print(f"wrote {manifest['tasks']} verified tasks on {manifest['environment']} to {args.out} "
              f"(sandbox: {manifest['sandbox']}; rejected: {rejected})")
    return 0 if manifest["tasks"] == args.num_tasks else 1


def _replay_rows(args: argparse.Namespace, total: int, summary: dict[str, Any]) -> None:
    """Replay the dataset's RL rows (at most ``args.limit``) and score their oracles, into ``summary``."""
    from covert.imports.live_mcp_tasks import TaskRejected, replay_row
    from covert.io.reader import iter_rows
    from covert.progress import tracked
    from covert.rewards import oracle_completion, score

    for row in tracked(iter_rows(args.dataset, "rl"), total, desc="live-mcp replay", enabled=not args.quiet):
        if args.limit is not None and summary["rows"] >= args.limit:
            break
        summary["rows"] += 1
        try:
            replay_row(row)
            summary["replayed"] += 1
        except TaskRejected as exc:
            summary["failures"].append(f"{row['task_id']}: {exc}")
            continue
        result = score(row, oracle_completion(row))
        if result.value == 1.0:
            summary["oracle_score_1"] += 1
        else:
            summary["failures"].append(f"{row['task_id']}: oracle scored {result.value}: {result.reasons[:2]}")


def _cmd_replay(args: argparse.Namespace) -> int:
    from covert.imports.live_mcp import recycling
    from covert.io.checked import open_dataset
    from covert.io.kinds import dataset_kind, does_not_apply
    from covert.io.reader import DatasetError

    summary: dict[str, Any] = {"rows": 0, "replayed": 0, "oracle_score_1": 0, "failures": []}
    try:
        manifest = open_dataset(args.dataset).manifest
        if dataset_kind(manifest) != "live-mcp":
            return _error(does_not_apply("live-mcp replay", args.dataset, manifest, "datasets of `covert live-mcp git`",
                                         "`covert validate` replays the rows of every other kind"))
        total = sum(n for key, n in manifest["rows"].items() if key.split("/", 1)[0] == "rl")
        total = min(total, args.limit) if args.limit is not None else total
        with recycling():
            _replay_rows(args, total, summary)
    except (DatasetError, FileNotFoundError) as exc:
        return _error(str(exc).splitlines()[0])
    if summary["rows"] == 0:
        return _error(f"{args.dataset} holds no rl rows; write one with `covert live-mcp git`")
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{summary['replayed']}/{summary['rows']} rows replayed on a freshly seeded repository with the same final state; "
              f"{summary['oracle_score_1']} oracles scored 1.0")
        for line in summary["failures"]:
            print(f"  {line}")
    return 0 if not summary["failures"] else 1

