"""``covert envs verify`` and ``covert envs list``: admit imported APIs as environments, and list them."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from covert.errors import UsageError


def iter_specs(store: Path) -> Iterator[tuple[str, Any]]:
    """``(spec file relative to the store, ApiSpec or the error that kept it from loading)``, sorted."""
    from covert.imports.store import StoreError, read_spec, spec_files

    for path in spec_files(store):
        rel = str(path.relative_to(store))
        try:
            yield rel, read_spec(path)
        except (StoreError, OSError, ValueError, TypeError, KeyError) as exc:
            yield rel, exc


def verify_store(store: str | Path | None = None, allow_unlicensed: bool = False) -> dict[str, Any]:
    """Verify every spec of the store, write the admitted list, and return the report."""
    from covert.imports.envs import prune_compiled, save_compiled, store_dir, write_admitted
    from covert.imports.verify import Verdict, admit, exclusions, summarize

    root = store_dir(store)
    verdicts: list[Verdict] = []
    admitted: dict[str, Any] = {}
    unreadable = 0
    for rel, spec in iter_specs(root):
        if isinstance(spec, Exception):
            unreadable += 1
            verdicts.append(Verdict(rel, "unknown", reasons=["unreadable_spec"]))
            continue
        verdict = admit(spec, allow_unlicensed=allow_unlicensed)
        verdicts.append(verdict)
        if verdict.admitted and verdict.builder is not None:
            admitted[verdict.name] = {
                "spec": rel, "version": verdict.builder.version, "source": spec.source, "api": spec.api,
                "title": spec.title, "license": spec.license, "evaluation_source": spec.evaluation_source,
                "tools": verdict.tools, "exclude": exclusions(verdict),
            }
            save_compiled(root, verdict.builder)  # the validators verification compiled: builds load them
    path = write_admitted(root, admitted)
    prune_compiled(root, set(admitted))
    report = summarize(verdicts)
    report["store"] = str(root)
    report["admitted_list"] = str(path)
    report["unreadable_specs"] = unreadable
    report["verdicts"] = [{"api": v.api, "source": v.source, "name": v.name, "admitted": v.admitted,
                           "reasons": v.reasons, "tools": v.tools, "tool_failures": v.tool_failures}
                          for v in verdicts]
    return report


def _cmd_verify(args: argparse.Namespace) -> int:
    from covert.imports.envs import store_dir

    root = store_dir(args.store)
    if not (root / "specs").is_dir():
        raise UsageError(f"{root} holds no imported specs; run `covert import ...` first or pass --store DIR")
    report = verify_store(root, allow_unlicensed=args.allow_unlicensed)
    if args.report:
        from covert.io.staging import write_atomically

        write_atomically(Path(args.report), json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"{report['admitted']} of {report['environments']} environments admitted "
          f"({report['admission_rate']:.1%}), {report['tools_admitted']} tools")
    for source, row in report["by_source"].items():
        print(f"  {source}: {row['admitted']} admitted, {row['rejected']} rejected, {row['tools']} tools")
    for reason, count in report["rejections"].items():
        print(f"  rejected {reason}: {count}")
    for reason, count in report["operations_left_out"].items():
        print(f"  operations left out, {reason}: {count}")
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from covert.imports.envs import read_admitted, store_dir

    entries = read_admitted(store_dir(args.store)).get("environments", {})
    if args.json:
        print(json.dumps(entries, indent=2, sort_keys=True))
        return 0
    width = max((len(n) for n in entries), default=11)
    print(f"{'environment':<{width}}  source    tools  license")
    for name, entry in entries.items():
        mark = "  (evaluation source)" if entry.get("evaluation_source") else ""
        print(f"{name:<{width}}  {entry['source']:<8}  {entry['tools']:>5}  {entry.get('license') or '-'}{mark}")
    print(f"{len(entries)} environments, {sum(e['tools'] for e in entries.values())} tools")
    return 0


def register(subparsers: Any) -> None:
    """Add ``covert envs`` to the CLI."""
    envs = subparsers.add_parser("envs", help="verify and list environments imported from API specs")
    sub = envs.add_subparsers(dest="envs_command", required=True)
    verify = sub.add_parser("verify", help="bind and verify every imported spec; admit those that hold")
    verify.add_argument("--store", default=None, help="environment store (default ~/.cache/covert/envs)")
    verify.add_argument("--report", default=None, help="write the full report (JSON) here")
    verify.add_argument("--allow-unlicensed", action="store_true", help="admit specs that declare no license")
    verify.set_defaults(func=_cmd_verify)
    listing = sub.add_parser("list", help="list the admitted environments")
    listing.add_argument("--store", default=None, help="environment store (default ~/.cache/covert/envs)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=_cmd_list)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("run `covert envs ...`")
