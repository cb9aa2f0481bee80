"""Stage-1 throughput: validated tasks/s per core end to end, a per-stage breakdown, and peak RSS.

    python benchmarks/build_bench.py                 # 10k and 100k tasks, all builders, 1 worker
    python benchmarks/build_bench.py --sizes 2000    # quicker
    python benchmarks/build_bench.py --baseline 8fa3513 --baseline a4f85a7   # the issue-35 workload, 3 rounds
    python benchmarks/build_bench.py --baseline a4f85a7 --num-tasks 3000 --repeats 5          # quicker
    python benchmarks/build_bench.py --baseline a4f85a7 --in-turns     # all trees at once, taking turns
    python benchmarks/build_bench.py --imported 100 --tasks-per-env 20 --store DIR   # imported vs hand-written
    python benchmarks/build_bench.py --imported 100 --store DIR --samples 0,1,2 --repeats 3   # three samples

With ``--baseline COMMIT`` (repeatable) the benchmark runs the workload of issue 35, ``covert build
--builders all --num-tasks 20000 --seed 3 --workers 1`` (``--num-tasks`` and ``--seed`` change it), on
this working tree and on each commit (checked out with ``git worktree add`` into a temporary folder,
run with ``PYTHONPATH`` pointing at it), in one run: each round builds once per tree, the order rotating
between rounds. After each build it writes the same rows to Parquet again (Python values, JSON columns
serialised with orjson, to Arrow to zstd Parquet: the floor of data movement) and prints, per tree, tasks per CPU-second, the floor and the
build's CPU time over the floor's, and per baseline the ratio of rates (best against best, and the
median of the rounds' own ratios, steadier on a shared machine whose speed drifts). ``--concurrent``
runs a round's builds at the same time, ``--in-turns`` starts them together and lets them run by turns
of a fraction of a second (one stopped while the others run): the same drift for all, without sharing
the caches. Each tree first runs one build that is not timed, so all run from bytecode, as an installed
package does. Later issues measure against the fixed baseline a4f85a7 (see the README).

Without ``--baseline``, each size runs `covert build` in a fresh subprocess (so peak RSS is that run's own) with one worker.
The build encodes Parquet on a second thread, so the per-core rate is tasks per CPU-second, counting
every thread's CPU time (the bar is judged on it); tasks per wall-clock second is printed beside it.
The stage breakdown times each stage on a sample of items in this process.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BAR_TASKS_PER_CORE = 2000
BAR_RSS_MB = 1024
BAR_TIMES_FLOOR = 5.0
IMPORTED_BAR = 0.6  # imported tasks/s per core over hand-written, in one run (issue 30)


def start_build(num_tasks: int, builders: str, out: Path, tree: Path | None = None) -> subprocess.Popen:
    """A `covert build` subprocess (of the code in ``tree`` when given, else of the installed covert) that
    prints its wall seconds, CPU seconds (all threads) and peak RSS (MB); see :func:`build_result`."""
    code = (
        "import resource, sys, time;"
        "from covert.build import BuildConfig, build;"
        "usage = lambda: resource.getrusage(resource.RUSAGE_SELF);"
        "t, u = time.perf_counter(), usage();"
        f"build(BuildConfig(builders={builders.split(',')!r}, num_tasks={num_tasks}, seed=0), {str(out)!r}, "
        "workers=1, overwrite=True, progress=False);"
        "e = usage();"
        "print(time.perf_counter() - t);"
        "print(e.ru_utime + e.ru_stime - u.ru_utime - u.ru_stime);"
        "print(e.ru_maxrss / 1024)"
    )
    env = dict(os.environ)
    # as installed code runs: from bytecode Python keeps (a shell that sets PYTHONDONTWRITEBYTECODE would
    # make every build compile each module it imports from source, a cost that grows with the code base)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tree, env=env)


def run_build(num_tasks: int, builders: str, out: Path, tree: Path | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (all threads) and peak RSS (MB) of one `covert build` subprocess
    (of the code in ``tree`` when given, else of the installed covert)."""
    return build_result(start_build(num_tasks, builders, out, tree))


def run_in_turns(processes: list[subprocess.Popen], turn_s: float = 0.25) -> None:
    """Let started ``processes`` run by turns until all have ended: the one whose turn it is runs for
    ``turn_s`` seconds while the others are stopped (SIGSTOP / SIGCONT). Each then sees the machine's
    speed drift as the others do, at a granularity far finer than a build, without sharing the CPU
    caches and memory bandwidth with them as builds running at the same time do. An ended process is
    left unreaped, so its caller still reads its CPU time (:func:`cli_build_result`) and exit status."""
    for process in processes[1:]:
        process.send_signal(signal.SIGSTOP)
    turn = 0
    try:
        while True:
            running = [p for p in processes if not _ended(p)]
            if not running:
                return
            current = running[turn % len(running)]
            current.send_signal(signal.SIGCONT)
            deadline = time.perf_counter() + turn_s
            while not _ended(current) and time.perf_counter() < deadline:
                time.sleep(min(0.005, turn_s))
            if not _ended(current) and len(running) > 1:
                current.send_signal(signal.SIGSTOP)
            turn += 1
    finally:
        for process in processes:
            if not _ended(process):
                process.send_signal(signal.SIGCONT)


def _ended(process: subprocess.Popen) -> bool:
    """Whether ``process`` has exited, without reaping it (``Popen.poll`` would, and its CPU time with it)."""
    if process.returncode is not None:
        return True
    return os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def build_result(process: subprocess.Popen) -> tuple[float, float, float]:
    """What :func:`start_build`'s subprocess printed: wall seconds, CPU seconds and peak RSS (MB)."""
    stdout, stderr = process.communicate()
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, process.args, stdout, stderr)
    seconds, cpu, rss = stdout.split()
    return float(seconds), float(cpu), float(rss)


def stage_breakdown(sample: int, builders: str) -> dict[str, float]:
    """Mean µs per accepted task spent in each stage, over ``sample`` items."""
    from covert.build import DEFAULT_MIX, TargetSampler, plan_round, split_of
    from covert.build import BuildConfig as Config
    from covert.env import get_builder, item_rng, resolve_builders
    from covert.errors import Invalid, Rejected
    from covert.io.parquet import encode_row
    from covert.synth.blueprint import sample_blueprint
    from covert.synth.generate import shared_state
    from covert.synth.instantiate import instantiate
    from covert.validation import validate_pair
    from covert.views import ground_truth, rl_row, sft_row

    chosen = resolve_builders(builders)
    config = Config(builders=[b.name for b in chosen], num_tasks=sample, mix=dict(DEFAULT_MIX))
    specs = plan_round(config, chosen, TargetSampler(chosen), 0, sample)
    assign = split_of(0, config.split_ratios)
    spent: dict[str, float] = defaultdict(float)
    accepted = 0

    def timed(stage: str, fn, *args):
        start = time.perf_counter_ns()
        try:
            return fn(*args)
        finally:
            spent[stage] += time.perf_counter_ns() - start

    for spec in specs:
        builder = get_builder(spec.builder)
        state = timed("state factory (shared per tasks_per_state)", lambda s=spec: shared_state(s.builder, 0, s.world).fork())
        for attempt in range(6):
            rng = item_rng(builder.name, 0, spec.index, attempt)
            try:
                blueprint = timed("blueprint", sample_blueprint, builder, spec.category, rng, spec.target)
                task = timed("instantiate + realize", instantiate, builder, blueprint, state, rng, 0, spec.index)
                split = assign(task.signature)
                truth = timed("views", ground_truth, task)
                sft = timed("views", sft_row, task, truth)
                rl = timed("views", rl_row, task, split, spec.index, truth)
                timed("validate (L1-L3)", validate_pair, sft, rl, state)
            except (Rejected, Invalid):
                continue
            timed("encode rows", encode_row, sft, "sft")
            timed("encode rows", encode_row, rl, "rl")
            accepted += 1
            break
    return {stage: ns / 1000 / max(accepted, 1) for stage, ns in spent.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--builders", default="all")
    parser.add_argument("--sample", type=int, default=3000, help="items for the stage breakdown")
    parser.add_argument("--baseline", action="append", default=[],
                        help="a commit to measure against in the same run (repeatable)")
    parser.add_argument("--num-tasks", type=int, default=20000, help="with --baseline: tasks per build")
    parser.add_argument("--seed", type=int, default=3, help="with --baseline: the build's seed")
    parser.add_argument("--repeats", type=int, default=None,
                        help="builds per size and tree (default 1; with --baseline, rounds, default 3)")
    timing = parser.add_mutually_exclusive_group()
    timing.add_argument("--concurrent", action="store_true",
                        help="with --baseline: run the two trees' builds of each round at the same time")
    timing.add_argument("--in-turns", action="store_true",
                        help="with --baseline: run the two trees' builds of each round by turns of 0.25 s")
    parser.add_argument("--imported", type=int, default=0,
                        help="compare with a build on this many admitted imported environments (seeded sample)")
    parser.add_argument("--tasks-per-env", type=int, default=20, help="with --imported: tasks per imported environment")
    parser.add_argument("--store", default=None, help="with --imported: the environment store (default $COVERT_ENVS)")
    parser.add_argument("--samples", default="0",
                        help="with --imported: seeds of the environment samples, comma-separated (one run each)")
    args = parser.parse_args()
    if args.repeats is None:
        args.repeats = 3 if args.baseline else 1
    if args.imported:
        ratios = [compare_imported(args.imported, args.tasks_per_env, args.builders, args.store, args.repeats,
                                   int(seed))["ratio"] for seed in args.samples.split(",")]
        if len(ratios) > 1:
            print(f"ratios over {len(ratios)} samples: {', '.join(f'{r:.3f}' for r in ratios)}; "
                  f"lowest {min(ratios):.3f} (bar >= {IMPORTED_BAR}: {'PASS' if min(ratios) >= IMPORTED_BAR else 'FAIL'})")
        return
    if args.baseline:
        mode = "concurrent" if args.concurrent else "in-turns" if args.in_turns else "sequential"
        compare_commits(args.baseline, args.num_tasks, args.seed, args.builders, args.repeats, mode)
        return

    print(f"covert build benchmark: builders={args.builders}, 1 worker, Python {sys.version.split()[0]}")
    breakdown = stage_breakdown(args.sample, args.builders)
    total = sum(breakdown.values())
    print(f"\nper-stage µs per accepted task (sample of {args.sample} items, rejected attempts included):")
    for stage, micros in sorted(breakdown.items(), key=lambda kv: -kv[1]):
        print(f"  {stage:<30} {micros:9.1f}  {micros / total:6.1%}")
    print(f"  {'total (excl. Parquet writes)':<30} {total:9.1f}")

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            seconds, cpu, rss = run_build(size, args.builders, Path(tmp) / f"d{size}")
            rows.append({"tasks": size, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
                         "tasks_per_s_wall": round(size / seconds, 1), "tasks_per_s_per_core": round(size / cpu, 1),
                         "peak_rss_mb": round(rss, 1)})
    print("\nend to end (generate, validate, write sft + rl); the per-core rate is tasks per CPU-second of all")
    print("threads (the bar is judged on it); the wall-clock rate also gains from the writer thread's second core:")
    print(f"  {'tasks':>8} {'seconds':>9} {'CPU s':>8} {'tasks/s wall':>13} {'tasks/s/core':>13} {'peak RSS MB':>12}")
    for r in rows:
        print(f"  {r['tasks']:>8} {r['seconds']:>9} {r['cpu_seconds']:>8} {r['tasks_per_s_wall']:>13} "
              f"{r['tasks_per_s_per_core']:>13} {r['peak_rss_mb']:>12}")
    best = min(r["tasks_per_s_per_core"] for r in rows)
    worst_rss = max(r["peak_rss_mb"] for r in rows)
    print(f"\nbar: >= {BAR_TASKS_PER_CORE} validated tasks/s per core: {best} "
          f"{'PASS' if best >= BAR_TASKS_PER_CORE else 'FAIL'}")
    print(f"bar: peak RSS < {BAR_RSS_MB} MB at the largest size and flat in N: {worst_rss} MB "
          f"{'PASS' if worst_rss < BAR_RSS_MB else 'FAIL'}")
    print(json.dumps({"breakdown_us": breakdown, "runs": rows}))


def compare_imported(environments: int, per_env: int, hand_written: str, store: str | None, repeats: int,
                     sample_seed: int = 0) -> dict:
    """Validated tasks/s per core on ``environments`` imported environments and on the hand-written
    builders, in one run (same number of tasks, builds alternating, best of ``repeats``), and their
    ratio (bar: imported >= :data:`IMPORTED_BAR` of hand-written, issue 30). The first imported build starts with no compiled
    validators in the store (cold); the others find what it wrote (warm)."""
    import shutil

    from covert.imports.envs import COMPILED, store_dir

    root = store_dir(store)
    os.environ["COVERT_ENVS"] = str(root)
    sample = imported_sample(environments, sample_seed)
    tasks = len(sample) * per_env
    shutil.rmtree(root / COMPILED, ignore_errors=True)
    print(f"covert build benchmark: {len(sample)} imported environments x {per_env} tasks = {tasks} tasks, against "
          f"hand-written builders={hand_written} ({tasks} tasks); sample seed {sample_seed}; 1 worker, best of {repeats}, "
          f"load {os.getloadavg()[0]:.2f}")
    best = {"imported (cold)": float("inf"), "imported": float("inf"), "hand-written": float("inf")}
    with tempfile.TemporaryDirectory() as tmp:
        for attempt in range(repeats + 1):
            if attempt == 0:
                _, cpu, _ = run_build(tasks, ",".join(sample), Path(tmp) / "imported")
                best["imported (cold)"] = cpu
                continue
            _, cpu, _ = run_build(tasks, ",".join(sample), Path(tmp) / "imported")
            best["imported"] = min(best["imported"], cpu)
            _, cpu, _ = run_build(tasks, hand_written, Path(tmp) / "hand")
            best["hand-written"] = min(best["hand-written"], cpu)
    rates = {label: round(tasks / cpu, 1) for label, cpu in best.items()}
    for label, rate in rates.items():
        print(f"  {label:<16} {rate:9.1f} validated tasks/s per core ({best[label]:.2f} CPU s)")
    ratio = rates["imported"] / rates["hand-written"]
    cold = rates["imported (cold)"] / rates["hand-written"]
    print(f"ratio imported / hand-written: {ratio:.3f} warm, {cold:.3f} cold (bar >= {IMPORTED_BAR}: {'PASS' if ratio >= IMPORTED_BAR else 'FAIL'})")
    return {"environments": len(sample), "tasks_per_env": per_env, "rates": rates, "ratio": round(ratio, 3),
            "ratio_cold": round(cold, 3)}


def imported_sample(environments: int, sample_seed: int = 0) -> tuple[str, ...]:
    """A seeded sample of ``environments`` admitted environments of the store ``$COVERT_ENVS``, sorted
    (exits with a message when it admits none)."""
    import random

    from covert.imports.envs import admitted_names, store_dir

    root = store_dir(None)
    names = list(admitted_names(str(root)))
    if not names:
        sys.exit(f"{root} admits no environments; run `covert import ...` and `covert envs verify` first")
    return tuple(sorted(random.Random(sample_seed).sample(names, min(environments, len(names)))))


def export_tree(ref: str, into: Path) -> Path:
    """The committed tree ``ref`` of this repository, exported into ``into``."""
    repo = Path(__file__).resolve().parents[1]
    archive = subprocess.run(["git", "archive", ref], cwd=repo, capture_output=True, check=True).stdout
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


@contextlib.contextmanager
def checked_out(ref: str, into: Path) -> Iterator[Path]:
    """``ref`` checked out (detached) with ``git worktree add`` into ``into``; removed again on exit."""
    repo = Path(__file__).resolve().parents[1]
    subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(into), ref], cwd=repo, check=True,
                   capture_output=True)
    try:
        yield into
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(into)], cwd=repo, capture_output=True)
        subprocess.run(["git", "worktree", "prune"], cwd=repo, capture_output=True)


def start_cli_build(num_tasks: int, seed: int, builders: str, out: Path, tree: Path) -> subprocess.Popen:
    """``covert build --builders B --num-tasks N --seed S --workers 1`` of the code in ``tree``, as a subprocess
    (the issue's workload, the CLI's summary included); :func:`cli_build_result` reads its costs."""
    argv = ["build", "--builders", builders, "--num-tasks", str(num_tasks), "--seed", str(seed), "--workers", "1",
            "--out", str(out), "--overwrite", "--quiet"]
    code = f"import sys; from covert.cli import main; sys.exit(main({argv!r}))"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # from bytecode, as an installed package runs
    errors = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (closed by cli_build_result) a file, not a pipe: never blocks
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=errors, cwd=tree,
                               env=env)
    process.errors = errors  # type: ignore[attr-defined]
    return process


def cli_build_result(process: subprocess.Popen) -> tuple[float, float]:
    """Wall seconds (from start to reaping) and CPU seconds (all threads, user + system, from the kernel's
    account of the child) of a :func:`start_cli_build` subprocess."""
    started = time.perf_counter()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    with process.errors:  # type: ignore[attr-defined]
        process.errors.seek(0)  # type: ignore[attr-defined]
        stderr = process.errors.read()  # type: ignore[attr-defined]
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, process.args, "", stderr)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def parquet_floor(dataset: Path, into: Path) -> float:
    """CPU seconds (all threads) to write the rows of every Parquet file of ``dataset`` to Parquet again, from
    the rows as a build holds them: Python values, JSON columns as Python data (one object for equal values,
    as rows of one world share their initial state), serialised with orjson (each shared object once), to
    Arrow, zstd-compressed in row groups of 500 as the build writes them. The floor of data movement a build
    cannot go below; reading and decoding the rows is not timed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    into.mkdir(parents=True, exist_ok=True)
    spent = 0.0
    for number, path in enumerate(sorted(dataset.rglob("*.parquet"))):
        table = pq.read_table(path)
        kinds = [(field.name, field.type) for field in table.schema]
        schema = pa.schema([field.with_type(_plain(field.type)) for field in table.schema])
        texts: dict[str, Any] = {}
        rows = [{name: _from_json(row[name], kind, texts) for name, kind in kinds}
                for row in table.cast(schema).to_pylist()]
        del table, texts
        before = resource.getrusage(resource.RUSAGE_SELF)
        written: dict[int, tuple[Any, bytes]] = {}
        encoded = [{name: _to_json(row[name], kind, written) for name, kind in kinds} for row in rows]
        pq.write_table(pa.Table.from_pylist(encoded, schema=schema), into / f"{number}.parquet", compression="zstd",
                       row_group_size=ROW_GROUP, write_statistics=False)
        after = resource.getrusage(resource.RUSAGE_SELF)
        spent += after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return spent


def _from_json(value: Any, kind: Any, texts: dict[str, Any]) -> Any:
    """A stored value as a build holds it: JSON text (an Arrow extension type) decoded, equal texts to one object."""
    import orjson
    import pyarrow as pa

    if value is None:
        return None
    if isinstance(kind, pa.BaseExtensionType):
        if value not in texts:
            texts[value] = orjson.loads(value)
        return texts[value]
    if pa.types.is_struct(kind):
        return {field.name: _from_json(value.get(field.name), field.type, texts) for field in kind}
    return value


def _to_json(value: Any, kind: Any, written: dict[int, tuple[Any, bytes]]) -> Any:
    """The inverse of :func:`_from_json`, as a writer does it: each object serialised once (by identity)."""
    import orjson
    import pyarrow as pa

    if value is None:
        return None
    if isinstance(kind, pa.BaseExtensionType):
        found = written.get(id(value))
        if found is None or found[0] is not value:
            found = written[id(value)] = (value, orjson.dumps(value))
        return found[1]
    if pa.types.is_struct(kind):
        return {field.name: _to_json(value.get(field.name), field.type, written) for field in kind}
    return value


ROW_GROUP = 500  # rows per row group, as covert.io.parquet writes them


def _plain(kind: Any) -> Any:
    """An Arrow type with every extension type (covert's JSON columns) replaced by its storage type."""
    import pyarrow as pa

    if isinstance(kind, pa.BaseExtensionType):
        return _plain(kind.storage_type)
    if pa.types.is_struct(kind):
        return pa.struct([field.with_type(_plain(field.type)) for field in kind])
    if pa.types.is_list(kind):
        return pa.list_(kind.value_field.with_type(_plain(kind.value_type)))
    return kind


MODES = {"sequential": "one tree at a time", "concurrent": "all trees at once", "in-turns": "all trees by turns"}


def compare_commits(refs: list[str], num_tasks: int, seed: int, builders: str, repeats: int,
                    mode: str = "sequential") -> dict:
    """The issue-35 workload (``covert build --num-tasks N --seed S --workers 1``) on this working tree and on
    each of ``refs`` (checked out with ``git worktree add``), in one run: ``repeats`` rounds, each building once
    per tree in turn, the order rotating between rounds (A B C, B C A, ...), and after each build the Parquet
    floor of that build's rows. Printed per tree: tasks per CPU-second (best and median), the floor, and the
    build's CPU time over the floor's (best over best); per baseline, the ratio of rates (this tree / baseline), best against
    best and the median of the rounds' own ratios (the steadier figure on a shared machine)."""
    print(f"covert build benchmark: this tree against {', '.join(refs)}; `covert build --builders {builders} "
          f"--num-tasks {num_tasks} --seed {seed} --workers 1`, {repeats} rounds ({MODES[mode]}), "
          f"load {os.getloadavg()[0]:.2f}")
    repo = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        trees = [("this tree", repo)] + [
            (ref, stack.enter_context(checked_out(ref, Path(tmp) / f"tree-{k}"))) for k, ref in enumerate(refs)]
        for _, tree in trees:  # one build each, not timed: bytecode written, as an installed package has it
            cli_build_result(start_cli_build(200, seed, builders, Path(tmp) / "warm-up", tree))
        cpu: dict[str, list[float]] = {label: [] for label, _ in trees}
        floor: dict[str, list[float]] = {label: [] for label, _ in trees}
        for round_ in range(repeats):
            order = trees[round_ % len(trees):] + trees[:round_ % len(trees)]
            outs = {label: Path(tmp) / f"build-{k}" for k, (label, _) in enumerate(trees)}
            if mode == "sequential":
                for label, tree in order:
                    cpu[label].append(cli_build_result(start_cli_build(num_tasks, seed, builders, outs[label], tree))[1])
            else:
                started = [(label, start_cli_build(num_tasks, seed, builders, outs[label], tree)) for label, tree in order]
                if mode == "in-turns":
                    run_in_turns([process for _, process in started])
                for label, process in started:
                    cpu[label].append(cli_build_result(process)[1])
            for label, _ in order:
                floor[label].append(parquet_floor(outs[label], Path(tmp) / "floor"))
                print(f"  round {round_ + 1}: {label:<10} {num_tasks / cpu[label][-1]:8.1f} tasks/s/core, "
                      f"{cpu[label][-1] / floor[label][-1]:5.2f}x its Parquet floor", flush=True)
    result: dict = {"tasks": num_tasks, "seed": seed, "trees": {}, "against": {}}
    print(f"\n  {'tree':<10} {'best tasks/s/core':>18} {'median':>8} {'floor CPU s':>12} {'build / floor':>14}")
    for label, _ in trees:
        best, median = num_tasks / min(cpu[label]), num_tasks / statistics.median(cpu[label])
        times_floor = min(cpu[label]) / min(floor[label])  # the floor is the same work each round: best of all
        result["trees"][label] = {"tasks_per_s_per_core": round(best, 1), "median": round(median, 1),
                                  "floor_cpu_s": round(min(floor[label]), 3), "build_over_floor": round(times_floor, 2)}
        print(f"  {label:<10} {best:>18.1f} {median:>8.1f} {min(floor[label]):>12.3f} {times_floor:>13.2f}x")
    for ref in refs:
        paired = sorted(b / n for n, b in zip(cpu["this tree"], cpu[ref], strict=True))
        best = min(cpu[ref]) / min(cpu["this tree"])
        result["against"][ref] = {"best": round(best, 3), "median": round(statistics.median(paired), 3)}
        print(f"  this tree / {ref}: {best:.3f} (best against best), median of the rounds' ratios "
              f"{statistics.median(paired):.3f} (range {paired[0]:.3f}-{paired[-1]:.3f})")
    mine = result["trees"]["this tree"]
    rate_ok = mine["tasks_per_s_per_core"] >= BAR_TASKS_PER_CORE
    floor_ok = mine["build_over_floor"] <= BAR_TIMES_FLOOR
    print(f"bar: >= {BAR_TASKS_PER_CORE} tasks/s per core ({mine['tasks_per_s_per_core']}) or <= {BAR_TIMES_FLOOR}x "
          f"the Parquet floor ({mine['build_over_floor']}x): {'PASS' if rate_ok or floor_ok else 'FAIL'}")
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
