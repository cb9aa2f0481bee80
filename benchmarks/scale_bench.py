"""Scale-out: validated tasks/s with 1 and 2 workers, as local processes and as Ray Data tasks.

    python benchmarks/scale_bench.py                       # 2000 tasks, all builders, local Ray
    python benchmarks/scale_bench.py --num-tasks 500       # quicker
    python benchmarks/scale_bench.py --ray-address auto    # Ray on a running cluster
    python benchmarks/scale_bench.py --skip-ray            # without Ray installed

Each run is a fresh `covert build` in its own subprocess. Ray is started (local Ray with as many CPUs
as workers, or the cluster) before the clock starts, so its startup is printed apart from the build;
the Ray workers' first imports and the per-round Ray Data scheduling count in the build's time.
Scaling efficiency is tasks/s with 2 workers over twice tasks/s with 1 worker. Every run must write
the same shard bytes; the script says whether they did.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

WORKERS = (1, 2)


def run(engine: str, workers: int, num_tasks: int, builders: str, out: Path, ray_address: str | None) -> dict:
    """Seconds to build (and to start Ray) in a fresh subprocess, plus the shard hashes."""
    code = f"""
import json, time
from covert.build import BuildConfig, build
startup = 0.0
if {engine!r} == "ray":
    from covert.scale.ray_engine import ensure_ray
    t = time.perf_counter()
    ensure_ray({workers}, {ray_address!r})
    startup = time.perf_counter() - t
t = time.perf_counter()
manifest = build(BuildConfig(builders={builders.split(',')!r}, num_tasks={num_tasks}, seed=0), {str(out)!r},
                 workers={workers}, overwrite=True, progress=False, engine={engine!r}, ray_address={ray_address!r})
print(json.dumps({{"seconds": time.perf_counter() - t, "startup": startup, "files": manifest["files"]}}))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"{engine} with {workers} workers failed:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--num-tasks", type=int, default=2000)
    parser.add_argument("--builders", default="all")
    parser.add_argument("--ray-address", default=None, help="Ray cluster address (default: local Ray)")
    parser.add_argument("--skip-ray", action="store_true")
    args = parser.parse_args()

    engines = ["local"] if args.skip_ray else ["local", "ray"]
    if not args.skip_ray:
        try:
            import ray  # noqa: F401
        except ImportError:
            print("ray is not installed (pip install 'covert[ray]'); measuring local processes only")
            engines = ["local"]
    results: dict[tuple[str, int], dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for engine in engines:
            for workers in WORKERS:
                out = Path(tmp) / f"{engine}-{workers}"
                results[(engine, workers)] = run(engine, workers, args.num_tasks, args.builders, out, args.ray_address)

    print(f"covert scale bench: {args.num_tasks} validated tasks, builders {args.builders}")
    print(f"{'engine':<8} {'workers':>7} {'seconds':>8} {'tasks/s':>8} {'ray start s':>11}")
    for (engine, workers), r in results.items():
        startup = f"{r['startup']:.2f}" if engine == "ray" else "-"
        print(f"{engine:<8} {workers:>7} {r['seconds']:>8.2f} {args.num_tasks / r['seconds']:>8.1f} {startup:>11}")
    for engine in engines:
        one, two = (args.num_tasks / results[(engine, w)]["seconds"] for w in WORKERS)
        print(f"scaling efficiency {engine}: {two / (2 * one):.0%} (2 workers give {two / one:.2f}x of 1)")
    hashes = {json.dumps(r["files"], sort_keys=True) for r in results.values()}
    print("same shard bytes in every run: " + ("yes" if len(hashes) == 1 else "NO"))


if __name__ == "__main__":
    main()
