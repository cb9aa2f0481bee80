"""The ``covert`` command line: a thin face over the library."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from covert.errors import UsageError
from covert.scale.engine import add_engine_arguments

__all__ = ["UsageError", "main", "parser"]


def _cmd_list(args: argparse.Namespace) -> int:
    from covert.env import builder_names, get_builder
    from covert.env.registry import source_names
    from covert.procgen.registry import env_names, get_env

    names = builder_names() + source_names()
    rows = [{**get_builder(name).summary(), "kind": "builder"} for name in names]
    procedural = [{**get_env(name).summary(), "knob_names": [k.name for k in get_env(name).knobs],
                   "levels": max((len(k.levels) for k in get_env(name).knobs), default=0)} for name in env_names()]
    if args.json:
        total = sum(r["tools"] for r in rows)
        print(json.dumps({"builders": rows, "total_builders": len(rows), "total_tools": total,
                          "tools": {name: [
                              {**spec.openai(), "covert": spec.metadata()} for spec in get_builder(name).tools.values()
                          ] for name in names},
                          "procedural": procedural, "total_procedural": len(procedural)}, indent=2))
        return 0
    width = max([len(r["name"]) for r in rows + procedural] + [7])
    print(f"{'name':<{width}}  kind        version  tools  read  write  description")
    for r in rows:
        print(f"{r['name']:<{width}}  builder     {r['version']:<7}  {r['tools']:>5}  {r['read_tools']:>4}  "
              f"{r['write_tools']:>5}  {r['description']}")
    for r in procedural:
        print(f"{r['name']:<{width}}  procedural  {r['version']:<7}  {'-':>5}  {'-':>4}  {'-':>5}  {r['description']} "
              f"[{r['asymmetry']}; knobs {', '.join(r['knob_names'])}; {r['levels']} levels]")
    print(f"{len(procedural)} procedural environments; {len(rows)} builders, {sum(r['tools'] for r in rows)} tools")
    return 0


def _cmd_graph(args: argparse.Namespace) -> int:
    from covert.env import get_builder
    from covert.synth.graph import tool_graph

    graph = tool_graph(get_builder(args.builder))
    if args.format == "json":
        text = json.dumps(graph.to_dict(), indent=2)
    elif args.format == "dot":
        text = graph.to_dot(args.builder)
    else:
        lines = [f"{args.builder}: {len(graph.tools)} tools, {len([e for e in graph.edges if e.source != e.target])} edges"]
        for edge in graph.edges:
            if edge.source != edge.target:
                lines.append(f"  {edge.source} --{edge.path} -> {edge.param}--> {edge.target}")
        text = "\n".join(lines)
    if args.out:
        _write_text(Path(args.out), text + "\n")
    else:
        print(text)
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    from covert.build import BuildConfig, build

    optional = {name: value for name, value in (("tasks_per_state", args.tasks_per_state),
                                                ("round_size", args.round_size)) if value is not None}
    config = BuildConfig(builders=args.builders.split(","), num_tasks=args.num_tasks, seed=args.seed,
                         rows_per_shard=args.rows_per_shard, multi_turn=args.multi_turn,
                         thinking=not args.no_thinking, license=args.license, **optional)
    command = "covert " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["build"] else ""
    realizer = _realizer(args) if args.llm else None
    manifest = build(config, args.out, workers=args.workers, overwrite=args.overwrite,
                     progress=not args.quiet, command=command, engine=args.engine, ray_address=args.ray_address,
                     llm=realizer, allow_eval_sources=args.allow_eval_sources)
    _print_summary(manifest["summary"], manifest["rows"])
    if "llm" in manifest:
        llm = manifest["llm"]
        rates = ", ".join(f"{r['acceptance_rate']:.0%}" for r in llm["rounds"])
        print(f"llm: {llm['accepted']} of {llm['requests']} queries accepted; acceptance per round: {rates}")
        for reason, count in llm["rejected_by_reason"].items():
            print(f"  {reason:<28} {count:>8}")
    print(f"wrote {args.out}")
    if args.report:
        from covert.report.command import report_after

        report_after(args.out)
    return 0


def open_llm(spec: str, cache_dir: str | None) -> Any:
    """The backend of a ``--llm`` spec, checked reachable and cached; bad input -> :class:`UsageError`."""
    from covert.llm import BackendUnavailable, open_backend

    try:
        return open_backend(spec, cache_dir=cache_dir)
    except (ValueError, BackendUnavailable) as exc:
        raise UsageError(str(exc).splitlines()[0]) from None


def _realizer(args: argparse.Namespace) -> Any:
    from covert.synth.llm_realize import EvolvingRealizer, LLMConfig

    cache = args.llm_cache or str(Path(args.out).with_name(Path(args.out).name + ".llm-cache"))
    return EvolvingRealizer(open_llm(args.llm, cache), LLMConfig(spec=args.llm, review=args.review, seed=args.seed))


def _print_summary(summary: dict[str, Any], rows: dict[str, int]) -> None:
    print(f"accepted {summary['accepted']} of {summary['candidates']} candidates "
          f"(acceptance {summary['acceptance_rate']:.1%})")
    print("rejected by reason:")
    for reason, count in summary["rejected_by_reason"].items():
        print(f"  {reason:<28} {count:>8}")
    print("per category:")
    for name, count in summary["per_category"].items():
        print(f"  {name:<28} {count:>8}")
    print("per builder (tasks, tool coverage):")
    for name, count in summary["per_builder"].items():
        cov = summary["tool_coverage"][name]
        missing = f"  missing: {', '.join(cov['missing'])}" if cov["missing"] else ""
        print(f"  {name:<28} {count:>8}   {cov['covered']}/{cov['tools']}{missing}")
    print("rows: " + ", ".join(f"{k} {v}" for k, v in rows.items() if v))
    print("diversity: " + ", ".join(f"{k} {v}" for k, v in summary["diversity"].items()))


def _cmd_validate(args: argparse.Namespace) -> int:
    from covert.imports.live_mcp import recycling
    from covert.validation.dataset import describe, validate_dataset

    # live MCP rows are replayed on servers recycled between episodes, in this process (workers end theirs)
    in_process = args.workers <= 1 and args.engine == "local"
    with recycling() if in_process else contextlib.nullcontext():
        report = validate_dataset(args.dir, progress=not args.quiet, workers=args.workers, engine=args.engine,
                                  ray_address=args.ray_address)
    result = describe(report)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print("rows: " + ", ".join(f"{k} {v}" for k, v in result["rows"].items()))
        if report.ok:
            print("all rows valid (L1 format, L2 replay x2, L3 grounding/minimality/answerability)")
        else:
            print(f"{result['failures']} failures:")
            for reason, count in result["by_reason"].items():
                print(f"  {count:>6}  {reason}")
    return 0 if report.ok else 1


def _cmd_show(args: argparse.Namespace) -> int:
    from covert.io.checked import open_dataset
    from covert.io.reader import iter_rows

    dataset = open_dataset(args.dir)
    config = args.config or default_config(dataset.configs)
    if config not in dataset.configs:
        raise UsageError(f"{args.dir} has no config {config!r}; its configs: {', '.join(dataset.configs)}")
    if args.index < 0:
        raise UsageError(f"--index is 0 or more, not {args.index}")
    count = 0
    for count, row in enumerate(iter_rows(args.dir, config, args.split), start=1):
        if count - 1 == args.index:
            print(format_row(row))
            return 0
    raise UsageError(f"--index {args.index} is out of range for {config}/{args.split or 'all splits'} "
                     f"({count} rows)")


def default_config(configs: tuple[str, ...]) -> str:
    """The config ``covert show`` reads when none is named: ``sft``, else the first SFT config."""
    return "sft" if "sft" in configs else next((c for c in configs if c.startswith("sft")), configs[0])


def format_row(row: dict[str, Any], config: str | None = None) -> str:
    """A readable trajectory of any row covert writes (tool, multi-turn, augmented, procedural, evolved,
    live MCP); ``config`` is accepted for callers of older versions and not needed."""
    where = row.get("builder") or row.get("environment", "")
    kind = row.get("category") or (f"level {row['level']}" if row.get("level") is not None else "")
    label = row.get("difficulty") or row.get("asymmetry") or ""
    head = f"{row['task_id']}  [{' · '.join(str(x) for x in (where, kind, label) if x not in ('', None))}]"
    messages = row["messages"] if "messages" in row else row["prompt"]
    lines = [head]
    if row.get("tools"):
        lines.append(f"tools: {', '.join(t['function']['name'] for t in row['tools'])}")
    lines.append("")
    for m in messages:
        if m["role"] == "assistant" and m.get("tool_calls"):
            for call in m["tool_calls"]:
                args = json.dumps(call["function"]["arguments"], ensure_ascii=False)
                lines.append(f"assistant → {call['function']['name']}({args})")
        elif m["role"] == "tool":
            lines.append(f"tool[{m['name']}]: {m['content'][:400]}")
        else:
            lines.append(f"{m['role']}: {m['content']}")
    if "reward_model" in row:
        truth = row["reward_model"]["ground_truth"]
        lines.append("")
        if "procgen" in truth:
            instance = truth["procgen"]
            lines.append(f"instance: {instance['env']} {instance['version']} config {json.dumps(instance['config'])} "
                         f"seed {instance['seed']} index {instance['index']}")
        else:
            lines.append(f"oracle: {json.dumps(truth['calls'], ensure_ascii=False)[:600]}")
            lines.append(f"facts: {[f['value'] for f in truth['answer_facts']]}")
    return "\n".join(lines)


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def parser(extensions: bool = True) -> argparse.ArgumentParser:
    """The argument parser; without ``extensions``, covert's own commands only (``build``, ``validate`` ...):
    the commands of :data:`_EXTENSIONS` are left out, and so are the imports their registration costs."""
    from covert import __version__

    p = argparse.ArgumentParser(prog="covert", description="Verified tool-use training data for LLM agents.",
                                formatter_class=DefaultsHelpFormatter)
    p.add_argument("--version", action="version", version=f"covert {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("list", help="list builders and procedural environments")
    s.add_argument("--json", action="store_true", help="print JSON, with every tool spec")
    s.set_defaults(func=_cmd_list)

    s = sub.add_parser("graph", help="print or export a builder's tool graph")
    s.add_argument("builder", help="a builder name (see `covert list`)")
    s.add_argument("--format", choices=("text", "json", "dot"), default="text",
                   help="text (one edge a line), json, or dot (Graphviz)")
    s.add_argument("--out", help="write to this file instead of stdout")
    s.set_defaults(func=_cmd_graph)

    s = sub.add_parser("build", help="synthesize, validate and write SFT and RL datasets")
    s.add_argument("--builders", default="all", help="'all' or comma-separated builder names")
    s.add_argument("--num-tasks", type=int, default=1000, help="validated tasks to write, over all builders")
    s.add_argument("--seed", type=int, default=0, help="the run seed (same seed, same bytes)")
    s.add_argument("--out", required=True, help="the dataset directory to write (a Hub dataset repo on disk)")
    s.add_argument("--workers", type=int, default=1, help="worker processes (the output is the same for any number)")
    s.add_argument("--rows-per-shard", type=int, default=5000, help="rows per Parquet shard")
    s.add_argument("--tasks-per-state", type=int, default=None,
                   help="tasks that share one seeded initial state (default 16; 1 = a fresh state per task)")
    s.add_argument("--round-size", type=int, default=None,
                   help="items per self-evolving round (default 512): the sampler re-weights target tools between "
                        "rounds; larger rounds amortize per-round scheduling on a Ray cluster. Part of the config: "
                        "another value gives other output")
    s.add_argument("--overwrite", action="store_true", help="replace an existing --out (atomically, when complete)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument("--multi-turn", action="store_true",
                   help="also write conversation views (sft-multiturn, rl-multiturn with user scenarios)")
    s.add_argument("--license", default="apache-2.0", help="license id stated in the dataset card")
    s.add_argument("--no-thinking", action="store_true",
                   help="no reasoning_content (plans) on assistant turns of multi-turn rows")
    s.add_argument("--llm", default=None, metavar="SPEC",
                   help="rewrite queries with an LLM: vllm:MODEL, openai:URL[#MODEL] or hf:PATH")
    s.add_argument("--llm-cache", default=None, help="cache directory for LLM requests (default: OUT.llm-cache)")
    s.add_argument("--review", action="store_true", help="with --llm: semantic self-review (L4) of every task")
    add_engine_arguments(s, "items")
    s.add_argument("--report", action="store_true", help="also write OUT/report (figures, HTML; see covert report)")
    s.add_argument("--allow-eval-sources", action="store_true",
                   help="build on environments imported from evaluation data (BFCL); the card says so")
    s.set_defaults(func=_cmd_build)

    s = sub.add_parser("validate", help="check a dataset's files (exit 2 on the first that fails) and re-check "
                                        "every row (exit 1 on any failure)")
    s.add_argument("dir", help="a dataset directory covert wrote")
    s.add_argument("--json", action="store_true", help="print the row counts and failures as JSON")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument("--workers", type=int, default=1, help="worker processes (the report is the same for any number)")
    add_engine_arguments(s, "row checks")
    s.set_defaults(func=_cmd_validate)

    s = sub.add_parser("show", help="pretty-print one row of any config")
    s.add_argument("dir", help="a dataset directory covert wrote")
    s.add_argument("--config", default=None, help="the config to read (default: sft, else the dataset's first "
                                                   "sft config, e.g. sft-procgen)")
    s.add_argument("--split", default=None, help="train, validation or test (default: all splits, in that order)")
    s.add_argument("--index", type=int, default=0, help="which row, counted from 0")
    s.set_defaults(func=_cmd_show)

    if extensions:
        for module in _EXTENSIONS:
            import importlib

            importlib.import_module(module).register(sub)
    _explain(p)
    return p


def _parser_for(argv: list[str]) -> argparse.ArgumentParser:
    """The parser for ``argv``: covert's own commands only when ``argv`` starts with one of them (registering
    every extension imports rewards, audit, augmentation ... : a tenth of a second a run), else all of them
    (``covert --help`` lists every command; an unknown command names every choice)."""
    core = parser(extensions=False)
    commands = next(a for a in core._actions if isinstance(a, argparse._SubParsersAction)).choices
    return core if argv and argv[0] in commands else parser()


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Help that shows each option's default, unless its help already says it or there is none to say."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (not action.option_strings or default is None or default is False or default == argparse.SUPPRESS
                or "default" in text
                or isinstance(action, (argparse._VersionAction, argparse._HelpAction))):
            return text
        return f"{text} (default: %(default)s)"


def _explain(p: argparse.ArgumentParser) -> None:
    """Give every subcommand the formatter that shows defaults and, where it has none, its one-line help as
    its description (``covert build --help`` then says what the command does)."""
    p.formatter_class = DefaultsHelpFormatter
    for action in p._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help for choice in action._choices_actions}
        for name, command in action.choices.items():
            if not command.description and helps.get(name):
                line = helps[name].replace("%%", "%")
                command.description = line[0].upper() + line[1:] + ("" if line.endswith(".") else ".")
            _explain(command)


# subcommands that live next to the library code they face; each module defines register(subparsers)
_EXTENSIONS = ("covert.augment.command", "covert.rewards.command", "covert.publish.command",
               "covert.rollouts.command", "covert.report.command", "covert.audit.command", "covert.evolve.command",
               "covert.procgen.command", "covert.procgen.mapf_command", "covert.procgen.admit_command",
               "covert.imports.command", "covert.imports.envs_command",
               "covert.imports.live_mcp_command")


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    from covert import interrupts
    from covert.build import BuildError
    from covert.env import UnknownBuilderError
    from covert.io.reader import DatasetError

    argv = sys.argv[1:] if argv is None else argv
    top = _parser_for(argv)
    args, extra = top.parse_known_args(argv)
    if extra:  # said with the usage of the command they were given to, not covert's own
        _innermost(top, args).error(f"unrecognized arguments: {' '.join(extra)}")
    if getattr(args, "workers", 1) < 1:
        print("covert: error: --workers must be at least 1", file=sys.stderr)
        return 2
    with interrupts.handled():
        try:
            status = args.func(args)
            sys.stdout.flush()  # a reader that went away shows here, not in the interpreter's exit
            return status
        except (UsageError, BuildError, UnknownBuilderError, DatasetError, FileNotFoundError,
                PermissionError) as exc:
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            print(f"covert: error: {message}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("covert: interrupted; nothing partial was left in place", file=sys.stderr)
            return interrupts.exit_status()
        except BrokenPipeError:
            return _reader_gone()


def _innermost(p: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)parser of the command ``args`` holds (``covert live-mcp git`` -> the ``git`` parser)."""
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction) and getattr(args, action.dest, None) in action.choices:
            return _innermost(action.choices[getattr(args, action.dest)], args)
    return p


def _reader_gone() -> int:
    """The reader of standard output went away (``covert build ... | head``): what was written stays
    written; stop quietly (no traceback, none at exit either) with the status a shell gives SIGPIPE."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the interpreter's flush of stdout at exit would fail again
    os.close(devnull)
    return 141


if __name__ == "__main__":
    sys.exit(main())
