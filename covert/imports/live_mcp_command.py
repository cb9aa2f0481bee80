"""``covert live-mcp``: tasks synthesized against a live MCP server, and their replay on a fresh one.

- ``covert live-mcp git --num-tasks N --out DIR [--seed S] [--workers W] [--overwrite] [--json]``: verified tasks on
  ``mcp-server-git`` (environment ``mcp.git``) written as ``sft/`` and ``rl/`` Parquet plus a manifest.
- ``covert live-mcp replay DIR [--limit N] [--json]``: every RL row's oracle replayed on a fresh server
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
    g.set_defaults(func=_cmd_git)
    r = inner.add_parser("replay", help="replay a live-MCP dataset's rows on fresh servers and score their oracles")
    r.add_argument("dataset", help="a directory written by `covert live-mcp git`")
    r.add_argument("--limit", type=int, default=None, help="replay at most this many rows")
    r.add_argument("--json", action="store_true", help="print the summary as JSON")
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
        manifest = write_dataset(args.out, args.num_tasks, args.seed, args.overwrite, args.workers)
    except LiveServerError as exc:
        return _error(f"the live server failed: {exc}")
    if manifest["warning"]:
        print(manifest["warning"], file=sys.stderr)
    if args.json:
        print(json.dumps(manifest, indent=2, sort_keys=True))
    else:
        rejected = ", ".join(f"{k}={v}" for k, v in manifest["rejected"].items()) or "none"
        print(f"wrote {manifest['tasks']} verified tasks on {manifest['environment']} to {args.out} "
              f"(sandbox: {manifest['sandbox']}; rejected: {rejected})")
    return 0 if manifest["tasks"] == args.num_tasks else 1


def _cmd_replay(args: argparse.Namespace) -> int:
    from covert.imports.live_mcp_tasks import TaskRejected, replay_row
    from covert.io.reader import DatasetError, iter_rows
    from covert.rewards import oracle_completion, score

    summary: dict[str, Any] = {"rows": 0, "replayed": 0, "oracle_score_1": 0, "failures": []}
    try:
        for row in iter_rows(args.dataset, "rl"):
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
    except (DatasetError, FileNotFoundError) as exc:
        return _error(str(exc).splitlines()[0])
    if summary["rows"] == 0:
        return _error(f"{args.dataset} holds no rl rows; write one with `covert live-mcp git`")
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{summary['replayed']}/{summary['rows']} rows replayed on a fresh server with the same final state; "
              f"{summary['oracle_score_1']} oracles scored 1.0")
        for line in summary["failures"]:
            print(f"  {line}")
    return 0 if not summary["failures"] else 1

