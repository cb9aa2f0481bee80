"""``covert score`` (registered by :mod:`covert.cli`): score predictions against a dataset's rows."""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any


class _InputError(Exception):
    """Bad input: one line on stderr, exit status 2."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``covert score``."""
    from covert.scale.engine import add_engine_arguments

    s = sub.add_parser("score", help="score predictions (JSONL of {task_id, completion}) against a dataset")
    s.add_argument("--dataset", required=True, help="a covert dataset directory")
    s.add_argument("--config", default="rl", help="the config whose rows hold the ground truth: rl (default), sft, rl-augmented, sft-augmented")
    s.add_argument("--predictions", required=True, help='JSONL file, one {"task_id", "completion"} per line')
    s.add_argument("--mode", choices=("partial", "exact"), default="partial", help="dense or 0/1 reward")
    s.add_argument("--json", action="store_true", help="print the per-row scores and summary as JSON")
    s.add_argument("--quiet", action="store_true", help="print the summary only (and no progress bar)")
    s.add_argument("--llm", default=None, metavar="SPEC",
                   help="judge the special behaviours with an LLM: vllm:MODEL, openai:URL[#MODEL] or hf:PATH")
    s.add_argument("--llm-cache", default=None, help="cache directory for LLM judge requests")
    s.add_argument("--workers", type=int, default=1, help="worker processes (the scores are the same for any number)")
    add_engine_arguments(s, "scoring")
    s.set_defaults(func=_cmd_score)


def _cmd_score(args: argparse.Namespace) -> int:
    try:
        return _score(args)
    except _InputError as exc:
        print(f"covert: error: {exc}", file=sys.stderr)
        return 2


def _score(args: argparse.Namespace) -> int:
    from covert.io.checked import open_dataset
    from covert.io.reader import DatasetError, iter_rows

    predictions = _read_predictions(Path(args.predictions))
    wanted = {task_id for task_id, _, _ in predictions}
    rows: dict[str, dict[str, Any]] = {}
    total = 0
    try:
        open_dataset(args.dataset)
        for row in iter_rows(args.dataset, args.config):
            total += 1
            if row.get("task_id") in wanted:
                rows[row["task_id"]] = row
    except (DatasetError, OSError) as exc:
        raise _InputError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    except Exception as exc:  # noqa: BLE001 - an unreadable shard is bad input, reported on one line
        raise _InputError(f"cannot read {args.dataset}/{args.config}: {type(exc).__name__}") from None
    for task_id, line, _ in predictions:
        if task_id not in rows:
            raise _InputError(f"line {line} of {args.predictions}: task_id {task_id!r} is not in {args.dataset} ({args.config})")
    judge = None
    if getattr(args, "llm", None) and (args.engine != "local" or args.workers > 1):
        raise _InputError("--llm judges in this process: score with --engine local --workers 1")
    if getattr(args, "llm", None):
        from covert.cli import open_llm
        from covert.llm.judge import BackendJudge

        judge = BackendJudge(open_llm(args.llm, args.llm_cache))
    from covert.progress import tracked
    from covert.scale.engine import open_pool, ordered_map

    if judge is not None:
        _start_scorer(args.mode, judge)
        pool = None
    else:
        pool = open_pool(args.engine, args.workers, _start_scorer, (args.mode,), args.ray_address)
    try:
        work = ((task_id, rows[task_id], completion) for task_id, _, completion in predictions)
        results = list(tracked(ordered_map(score_prediction, work, pool, chunksize=16), len(predictions),
                               desc="score", enabled=not args.quiet))
    finally:
        if pool is not None:
            pool.close()
    summary = _summary(results)
    summary["rows_in_config"] = total
    if args.json:
        print(json.dumps({"rows": [] if args.quiet else results, "summary": summary}, indent=2))
        return 0
    if not args.quiet:
        width = max(len(r["task_id"]) for r in results)
        for r in results:
            why = "; ".join(r["reasons"][:3])
            print(f"{r['task_id']:<{width}}  {r['value']:.3f}  {r['category']:<17} {r['builder']:<10} {why}".rstrip())
        print()
    unscored = total - len(rows)
    print(f"scored {summary['count']} predictions; mean {summary['mean']:.4f}"
          + (f" (over the {len(rows)} of {total} rows of {args.config} that have a prediction; the other {unscored} are "
             "not counted)" if unscored else ""))
    for title in ("per_category", "per_builder", "per_component"):
        print(title.replace("_", " ") + ":")
        for name, stats in summary[title].items():
            print(f"  {name:<28} {stats['mean']:.4f}  (n={stats['count']})")
    return 0


_SCORER: list[Any] = []  # in each worker: the Scorer _start_scorer made


def _start_scorer(mode: str, judge: Any = None) -> None:
    """Make this process's :class:`~covert.rewards.composite.Scorer` (runs once in every worker)."""
    from covert.rewards.composite import RewardConfig, Scorer

    _SCORER[:] = [Scorer(RewardConfig(mode=mode), judge=judge, judge_all=judge is not None)]


def score_prediction(item: tuple[str, dict[str, Any], Any]) -> dict[str, Any]:
    """Score one ``(task_id, row, completion)``: the per-row entry ``covert score`` prints (the unit of work
    of every engine)."""
    from covert.io.kinds import row_labels

    task_id, row, completion = item
    result = _SCORER[0].score(row, completion)
    builder, category = row_labels(row)  # procedural rows group by environment and level
    return {"task_id": task_id, "category": category, "builder": builder, **result.to_dict()}


def _read_predictions(path: Path) -> list[tuple[str, int, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _InputError(f"predictions file {path} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _InputError(f"cannot read {path}: {type(exc).__name__}") from None
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            raise _InputError(f"line {number} of {path} is not valid JSON") from None
        if not isinstance(item, dict) or not isinstance(item.get("task_id"), str) or "completion" not in item:
            raise _InputError(f'line {number} of {path}: each line is {{"task_id": ..., "completion": ...}}')
        out.append((item["task_id"], number, item["completion"]))
    if not out:
        raise _InputError(f"{path} holds no predictions")
    return out


def _summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    by: dict[str, dict[str, list[float]]] = {"per_category": defaultdict(list), "per_builder": defaultdict(list),
                                             "per_component": defaultdict(list)}
    for r in results:
        by["per_category"][r["category"]].append(r["value"])
        by["per_builder"][r["builder"]].append(r["value"])
        for name, value in r["components"].items():
            by["per_component"][name].append(value)
    values = [r["value"] for r in results]
    return {
        "count": len(values),
        "mean": sum(values) / len(values),
        **{title: {name: {"mean": sum(v) / len(v), "count": len(v)} for name, v in sorted(groups.items())}
           for title, groups in by.items()},
    }
