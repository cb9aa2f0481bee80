"""``covert audit DIR`` (registered by :mod:`covert.cli`): the quality rates of a dataset's rows."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``covert audit DIR [--config C] [--json] [--examples N] [--workers W] [--engine E]``."""
    from covert.scale.engine import add_engine_arguments

    s = sub.add_parser("audit", help="measure answer, conversation and label defects per builder and category",
                       description="Run the audit's checks on every SFT config of a dataset (or the ones named) and "
                                   "print, per check, the share of the rows it applies to that have the defect.")
    s.add_argument("dir", help="a covert dataset directory")
    s.add_argument("--config", action="append", default=None,
                   help="an SFT config to audit (repeatable; default: every sft* config)")
    s.add_argument("--json", action="store_true", help="print the full report as JSON (rates per builder/category cell)")
    s.add_argument("--examples", type=int, default=0, help="print this many flagged rows per check (sampled; --json lists 5 unless told)")
    s.add_argument("--seed", type=int, default=0, help="seed of the example sample")
    s.add_argument("--workers", type=int, default=1, help="worker processes (the report is the same for any number)")
    add_engine_arguments(s, "row checks")
    s.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from covert.audit.report import audit_dataset, format_report
    from covert.errors import UsageError

    if args.examples < 0:
        raise UsageError("--examples must be 0 or more")
    audits = audit_dataset(args.dir, args.config, workers=args.workers, engine=args.engine,
                           ray_address=args.ray_address)
    if args.json:
        report = {"dataset": str(args.dir),
                  "configs": {name: a.to_dict(args.examples or 5, args.seed) for name, a in audits.items()}}
        print(json.dumps(report, indent=2))
    else:
        print(format_report(audits, args.examples, args.seed), end="")
    return 0
