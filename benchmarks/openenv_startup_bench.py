"""OpenEnv server start-up and session handshakes: what the server spends starting, and what clients see.

    python benchmarks/openenv_startup_bench.py [--repeat 3] [--sessions 20]

1. Start-up of the server process up to serving (its imports; ``--help`` stops it there): as
   ``serve()`` starts it now (``server.LAUNCH``: OpenEnv's Gradio web interface, which is off, left
   out) and as before (``python -m covert.integrations.openenv``, Gradio imported); median of
   ``--repeat`` runs, and the heaviest top-level imports ``-X importtime`` names.
2. ``serve()`` until ``/health`` answers.
3. ``--sessions`` clients at once, each: open the WebSocket (retrying a failed handshake), reset on a
   row of the served dataset by index, close; handshake and reset times, and failures.
Times depend on the machine's load: run it on a quiet machine and on a busy one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def _commands() -> tuple[list[str], list[str]]:
    from covert.integrations.openenv.server import LAUNCH

    return ["-c", LAUNCH, "--help"], ["-m", "covert.integrations.openenv", "--help"]


def _start_seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *command], check=True, capture_output=True)
    return time.perf_counter() - start


def _heaviest(command: list[str], n: int = 5) -> list[tuple[str, float]]:
    err = subprocess.run([sys.executable, "-X", "importtime", *command], capture_output=True,
                         text=True, check=True).stderr
    top: dict[str, float] = {}
    for line in err.splitlines():
        parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
        if len(parts) == 3 and parts[1].isdigit() and "." not in parts[2].strip():
            top[parts[2].strip()] = int(parts[1]) / 1e6
    return sorted(top.items(), key=lambda kv: -kv[1])[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=20)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")

    now, before = _commands()
    without = statistics.median(_start_seconds(now) for _ in range(args.repeat))
    with_gradio = statistics.median(_start_seconds(before) for _ in range(args.repeat))
    print(f"server process start-up, as serve() starts it (no Gradio): {without:6.2f} s (median of {args.repeat})")
    print(f"server process start-up before (python -m ..., Gradio):    {with_gradio:6.2f} s  "
          f"-> {1 - without / with_gradio:.0%} less")
    print("  heaviest top-level imports before: " + ", ".join(f"{m} {s:.1f} s" for m, s in _heaviest(before)))
    print("  heaviest top-level imports now:    " + ", ".join(f"{m} {s:.1f} s" for m, s in _heaviest(now)))

    from covert.build import BuildConfig, build
    from covert.integrations.openenv import CovertEnv, serve

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "ds"
        build(BuildConfig(builders=["all"], num_tasks=60, seed=0), data, progress=False)
        start = time.perf_counter()
        with serve([str(data)], max_sessions=max(64, args.sessions)) as server:
            print(f"serve() until /health answers: {time.perf_counter() - start:.2f} s")
            handshakes: list[float] = []
            resets: list[float] = []
            failures: list[str] = []

            def session(index: int) -> None:
                try:
                    begin = time.perf_counter()
                    with CovertEnv(base_url=server.url).sync() as env:
                        env.connect()
                        handshakes.append(time.perf_counter() - begin)
                        begin = time.perf_counter()
                        env.reset(index=index % 40)
                        resets.append(time.perf_counter() - begin)
                except Exception as error:  # noqa: BLE001 - counted and shown
                    failures.append(f"{type(error).__name__}: {str(error)[:120]}")

            threads = [threading.Thread(target=session, args=(i,)) for i in range(args.sessions)]
            start = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            print(f"{args.sessions} concurrent sessions in {time.perf_counter() - start:.2f} s: "
                  f"{len(failures)} failed; handshake median {statistics.median(handshakes or [0]):.2f} s, "
                  f"max {max(handshakes or [0]):.2f} s; first reset by index max {max(resets or [0]):.2f} s")
            for failure in failures[:3]:
                print(f"  {failure}")


if __name__ == "__main__":
    main()
