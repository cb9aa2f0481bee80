"""``covert envs verify`` and ``covert envs list``: admit imported APIs as environments, and list them."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
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


def verify_store(store: str | Path | None = None, allow_unlicensed: bool = False, *, llm: Any = None,
                 revisions: int = 2, max_tokens: int = 1024, workers: int = 1, engine: str = "local",
                 ray_address: str | None = None, progress: bool = False) -> dict[str, Any]:
    """Verify every spec of the store, write the admitted list, and return the report.

    With ``llm`` (a :class:`covert.llm.Backend`), custom actions get LLM-written implementations,
    validated in the sandbox and revised up to ``revisions`` times
    (:mod:`covert.imports.custom_actions_check`); the report's ``custom_actions`` gives the first-pass and
    final pass rates. Without it they are left out and counted (``custom_action_no_llm``), and the specs
    are verified on ``workers`` local processes (``engine="local"``) or as Ray Data tasks (``engine="ray"``,
    on local Ray or the cluster at ``ray_address``): the same admitted list and report either way.
    ``progress`` draws a bar of the specs verified (on a terminal).
    """
    from covert.imports.envs import prune_compiled, store_dir, write_admitted
    from covert.imports.store import spec_files
    from covert.imports.verify import Verdict, summarize
    from covert.progress import tracked
    from covert.scale.engine import open_pool, ordered_map

    if llm is not None and (engine != "local" or workers > 1):
        raise UsageError("--llm writes custom actions in this process: verify with --engine local --workers 1")
    root = store_dir(store)
    from covert.imports.envs import read_admitted

    before = read_admitted(root).get("environments", {})
    verdicts: list[Verdict] = []
    admitted: dict[str, Any] = {}
    left_out: Counter[str] = Counter()
    unreadable = 0
    records: list[Any] = []
    in_environments = 0
    sandbox = None
    pool = None
    if llm is not None:
        from covert.imports.custom_actions import action_sandbox

        sandbox = action_sandbox(size=2)
    else:
        pool = open_pool(engine, workers, ray_address=ray_address)

    def items() -> Iterator[tuple[str, Any, bool, dict[str, Any] | None]]:
        for rel, spec in iter_specs(root):
            if isinstance(spec, Exception):
                yield rel, None, allow_unlicensed, None
                continue
            custom = None
            if sandbox is not None and (spec.license or allow_unlicensed):
                from covert.imports.custom_actions_check import write_actions

                outcome = write_actions(spec, llm, sandbox, revisions=revisions, max_tokens=max_tokens)
                records.extend(outcome.records)
                custom = outcome.admitted or None
            yield rel, spec, allow_unlicensed, custom

    try:
        verified = tracked(ordered_map(verify_spec, items(), pool, chunksize=4), len(spec_files(root)), unit="spec",
                           desc="envs verify", enabled=progress)
        for verdict, entry, dropped, custom, used in verified:
            verdicts.append(verdict)
            unreadable += verdict.reasons == ["unreadable_spec"]
            left_out.update(dropped)
            if entry is not None:
                admitted[verdict.name] = entry
                kept = before.get(verdict.name) or {}
                if kept.get("seed_records") and kept.get("version") == entry["version"]:
                    entry["seed_records"] = kept["seed_records"]  # the same tables: its seed records still fit
                if custom:
                    from covert.imports.custom_actions import save_code

                    entry["custom_actions"] = {op: save_code(root, code) for op, code in sorted(custom.items())}
                    in_environments += used
    finally:
        if sandbox is not None:
            sandbox.close()
        if pool is not None:
            pool.close()
    path = write_admitted(root, admitted)
    prune_compiled(root, set(admitted))
    report = summarize(verdicts, left_out)
    report["store"] = str(root)
    report["admitted_list"] = str(path)
    report["unreadable_specs"] = unreadable
    if llm is not None:
        from covert.imports.custom_actions_check import summarize_actions

        report["custom_actions"] = summarize_actions(records, in_environments, revisions)
        report["custom_actions"]["llm"] = repr(llm)
        report["custom_actions"]["sandbox_warning"] = sandbox.warning if sandbox is not None else ""
    report["verdicts"] = [{"api": v.api, "source": v.source, "name": v.name, "admitted": v.admitted,
                           "reasons": v.reasons, "tools": v.tools, "tool_failures": v.tool_failures}
                          for v in verdicts]
    return report


def verify_spec(item: tuple[str, Any, bool, dict[str, Any] | None]) -> tuple[Any, dict[str, Any] | None, list[str],
                                                                          dict[str, Any] | None, int]:
    """Bind and verify one spec ``(file relative to the store, ApiSpec or None when it did not load,
    allow_unlicensed, admitted custom actions or None)``: the unit of work of :func:`verify_store` on every
    engine. Returns the verdict without its builder (a builder stays in the process that made it), the
    admitted-list entry (``None`` unless admitted), the reasons of the operations it left out, the custom
    actions it was given, and how many of them are tools of the environment."""
    from covert.imports.verify import Verdict, admit, exclusions

    rel, spec, allow_unlicensed, custom = item
    if spec is None:
        return Verdict(rel, "unknown", reasons=["unreadable_spec"]), None, [], None, 0
    verdict = admit(spec, allow_unlicensed=allow_unlicensed, custom=custom)
    builder, verdict.builder = verdict.builder, None
    if not verdict.admitted or builder is None:
        return verdict, None, [], custom, 0
    entry = {"spec": rel, "version": builder.version, "source": spec.source, "api": spec.api, "title": spec.title,
             "license": spec.license, "evaluation_source": spec.evaluation_source, "tools": verdict.tools,
             "exclude": exclusions(Verdict(verdict.api, verdict.source, builder=builder))}
    bound = builder.bound  # type: ignore[attr-defined]
    used = {b.role.op.name for b in bound.tools.values() if b.role.kind == "custom"}
    return verdict, entry, [reason[1] for reason in bound.left_out], custom, len(used & set(custom or ()))


def _cmd_verify(args: argparse.Namespace) -> int:
    from covert.imports.envs import store_dir

    root = store_dir(args.store)
    if not (root / "specs").is_dir():
        raise UsageError(f"{root} holds no imported specs; run `covert import ...` first or pass --store DIR")
    llm = None
    if args.llm:
        from covert.llm import BackendUnavailable, open_backend

        if args.revisions < 0 or args.llm_max_tokens < 1:
            raise UsageError("--revisions must be 0 or more and --llm-max-tokens at least 1")
        try:
            llm = open_backend(args.llm, cache_dir=args.llm_cache)
        except (ValueError, BackendUnavailable) as exc:
            raise UsageError(str(exc)) from None
    try:
        report = verify_store(root, allow_unlicensed=args.allow_unlicensed, llm=llm, revisions=args.revisions,
                              max_tokens=args.llm_max_tokens, workers=args.workers, engine=args.engine,
                              ray_address=args.ray_address, progress=not args.quiet)
    finally:
        if llm is not None:
            llm.close()
    if args.report:
        from covert.atomic import write_atomically

        write_atomically(Path(args.report), json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"{report['admitted']} of {report['environments']} environments admitted "
          f"({report['admission_rate']:.1%}), {report['tools_admitted']} tools")
    for source, row in report["by_source"].items():
        print(f"  {source}: {row['admitted']} admitted, {row['rejected']} rejected, {row['tools']} tools")
    for reason, count in report["rejections"].items():
        print(f"  rejected {reason}: {count}")
    for reason, count in report["operations_left_out"].items():
        print(f"  operations left out, {reason}: {count}")
    actions = report.get("custom_actions")
    if actions:
        print(f"custom actions: {actions['attempted']} of {actions['custom_actions']} written by the LLM; "
              f"first pass {actions['first_pass']}/{actions['attempted']} ({actions['first_pass_rate']:.1%}), "
              f"final {actions['final_pass']}/{actions['attempted']} ({actions['final_pass_rate']:.1%}) after up "
              f"to {actions['revisions']} revisions; {actions['tools_in_admitted_environments']} became tools")
        for reason, count in actions["rejections"].items():
            print(f"  custom actions rejected, {reason}: {count}")
        if actions["sandbox_warning"]:
            print(f"  WARNING: {actions['sandbox_warning']}")
    return 0


def _check_admitted(root: Path, entries: dict[str, Any], names: list[str] | None) -> None:
    unknown = sorted(set(names or ()) - set(entries))
    if unknown:
        raise UsageError(f"not admitted in {root}: {', '.join(unknown)}; see `covert envs list`")


def seed_store(store: str | Path | None, llm: Any, *, only: list[str] | None = None, count: int = 5,
               max_tokens: int = 2048, again: bool = False) -> dict[str, Any]:
    """Ask ``llm`` for seed records of every table of the admitted environments (or of ``only``), keep what
    holds (:mod:`covert.imports.seed_records`), store it and name it in the admitted list; the report.
    Environments that already have seed records are left as they are unless ``again``."""
    from covert.imports.envs import admitted_builder, read_admitted, store_dir, write_admitted
    from covert.imports.seed_records import save_seeds, write_seeds

    root = store_dir(store)
    entries = read_admitted(root).get("environments", {})
    _check_admitted(root, entries, only)
    report: dict[str, Any] = {"environments": 0, "seeded": 0, "skipped": 0, "tables": 0, "tables_seeded": 0,
                              "records": 0, "values_dropped": Counter(), "tables_failed": Counter()}
    for name in sorted(only or entries):
        entry = entries[name]
        report["environments"] += 1
        if entry.get("seed_records") and not again:
            report["skipped"] += 1
            continue
        entry.pop("seed_records", None)
        builder = admitted_builder(name, str(root))
        api = builder.bound  # type: ignore[attr-defined]
        api.seeds = {}
        seeds, outcomes, failures = write_seeds(api, llm, count=count, max_tokens=max_tokens)
        report["tables"] += len(api.resources)
        report["tables_seeded"] += len(seeds)
        report["tables_failed"].update(failures)
        for outcome in outcomes:
            report["values_dropped"].update(outcome.dropped)
        if seeds:
            entry["seed_records"] = save_seeds(root, seeds, repr(llm))
            report["seeded"] += 1
            report["records"] += entry["seed_records"]["records"]
    write_admitted(root, entries)
    report["values_dropped"] = dict(report["values_dropped"].most_common())
    report["tables_failed"] = dict(report["tables_failed"].most_common())
    return report


def _cmd_seed(args: argparse.Namespace) -> int:
    from covert.imports.envs import read_admitted, store_dir
    from covert.llm import BackendUnavailable, open_backend

    root = store_dir(args.store)
    if not (root / "admitted.json").is_file():
        raise UsageError(f"{root} admits no environments; run `covert envs verify` first or pass --store DIR")
    if not 1 <= args.records <= 12 or args.llm_max_tokens < 1:
        raise UsageError("--records must be 1 to 12 and --llm-max-tokens at least 1")
    only = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else None
    _check_admitted(root, read_admitted(root).get("environments", {}), only)
    try:
        llm = open_backend(args.llm, cache_dir=args.llm_cache)
    except (ValueError, BackendUnavailable) as exc:
        raise UsageError(str(exc)) from None
    try:
        report = seed_store(root, llm, only=only, count=args.records, max_tokens=args.llm_max_tokens,
                            again=args.again)
    finally:
        llm.close()
    print(f"seed records: {report['seeded']} of {report['environments']} environments seeded "
          f"({report['skipped']} already were), {report['tables_seeded']} of {report['tables']} tables, "
          f"{report['records']} records")
    for reason, count in report["tables_failed"].items():
        print(f"  tables without seed records, {reason}: {count}")
    for reason, count in report["values_dropped"].items():
        print(f"  values dropped, {reason}: {count}")
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


STORE_HELP = "environment store folder (default $COVERT_ENVS or ~/.cache/covert/envs)"


def register(subparsers: Any) -> None:
    """Add ``covert envs`` to the CLI."""
    from covert.scale.engine import add_engine_arguments

    envs = subparsers.add_parser("envs", help="verify and list environments imported from API specs")
    sub = envs.add_subparsers(dest="envs_command", required=True)
    verify = sub.add_parser("verify", help="bind and verify every imported spec; admit those that hold")
    verify.add_argument("--store", default=None, help=STORE_HELP)
    verify.add_argument("--report", default=None, help="write the full report (JSON) here")
    verify.add_argument("--allow-unlicensed", action="store_true", help="admit specs that declare no license")
    verify.add_argument("--llm", default=None, metavar="SPEC",
                        help="write custom (non-CRUD) actions with this LLM (vllm:MODEL, openai:URL[#MODEL], "
                             "hf:PATH), validated in the sandbox; without it they are left out and counted")
    verify.add_argument("--revisions", type=int, default=2, metavar="N",
                        help="revisions of a custom action that fails validation (default 2)")
    verify.add_argument("--llm-cache", default=None, metavar="DIR",
                        help="cache the LLM's replies here: a rerun asks nothing again and admits the same code")
    verify.add_argument("--llm-max-tokens", type=int, default=1024, metavar="N",
                        help="longest reply the LLM may write for one custom action (default 1024)")
    verify.add_argument("--workers", type=int, default=1,
                        help="worker processes (the admitted list is the same for any number; 1 with --llm)")
    verify.add_argument("--quiet", action="store_true", help="no progress bar")
    add_engine_arguments(verify, "specs")
    verify.set_defaults(func=_cmd_verify)
    seed = sub.add_parser("seed", help="have an LLM write realistic seed records for the admitted environments' "
                                       "tables (stored once; builds replay them without the LLM)")
    seed.add_argument("--llm", required=True, metavar="SPEC",
                      help="the LLM that writes them (vllm:MODEL, openai:URL[#MODEL], hf:PATH)")
    seed.add_argument("--store", default=None, help=STORE_HELP)
    seed.add_argument("--only", default=None, metavar="NAMES",
                      help="comma-separated environment names (default: every admitted environment)")
    seed.add_argument("--records", type=int, default=5, metavar="N", help="records asked per table (default 5)")
    seed.add_argument("--again", action="store_true", help="write them again where an environment has them")
    seed.add_argument("--llm-cache", default=None, metavar="DIR",
                      help="cache the LLM's replies here: a rerun asks nothing again and keeps the same records")
    seed.add_argument("--llm-max-tokens", type=int, default=2048, metavar="N",
                      help="longest reply the LLM may write for one table (default 2048)")
    seed.set_defaults(func=_cmd_seed)
    listing = sub.add_parser("list", help="list the admitted environments")
    listing.add_argument("--store", default=None, help=STORE_HELP)
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=_cmd_list)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("run `covert envs ...`")
