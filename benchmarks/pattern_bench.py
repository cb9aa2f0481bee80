"""The slowest a tool argument gets to check: hostile schema patterns against hostile texts up to 64 KB.

An imported spec's ``pattern`` is someone else's and the argument is a model's. Each pattern below is
a classic catastrophic-backtracking shape (nested or overlapping repetition, lookaround, a
backreference), set as the ``pattern`` of a tool's ``name`` parameter; each text is matched through
``Environment.call`` (the path a build, a reward's replay and every trainer session take), and the
slowest single call is printed (max over patterns and texts, the best of three runs each). Formats
fastjsonschema checks with its own expressions (``email`` is quadratic in Python's ``re``) are timed
the same way.

Bar: every argument of up to 64 KB checked in <= 50 ms, whatever the pattern.

Run: ``python benchmarks/pattern_bench.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.env.probes import pattern_environment

BAR_MS = 50.0
PATTERNS = [r"^(\w+\s?)*$", r"^(a+)+$", r"^(a|a)*$", r"^(a|aa)*$", r"^(.*a){12}$", r"^([a-z0-9]+-?)*[a-z0-9]$",
            r"^(\d+\.?)+$", r"^(?=.*\d)(a|a)*\d$", r"^(\w+)\s\1*(\w+\s?)*$", r"(x+x+)+y"]
FORMATS = ["email", "hostname", "date-time", "uri", "ipv6", "regex"]
SIZES = [27, 1024, 16 * 1024, 64 * 1024]
FILLERS = ["a", "a ", "1.", "x", ".", "a-", "0:"]


def _worst(schema: dict[str, Any]) -> tuple[float, int, str]:
    env = pattern_environment(schema)
    env.call("create", {"name": "warm"})  # compiles the validator
    worst = (0.0, 0, "")
    for size in SIZES:
        for filler in FILLERS:
            text = (filler * size)[: size - 1] + "!"
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                env.call("create", {"name": text})
                best = min(best, time.perf_counter() - start)
            worst = max(worst, (best * 1000, size, filler))
    return worst


def main() -> None:
    overall = 0.0
    for schema in [{"pattern": p} for p in PATTERNS] + [{"format": f} for f in FORMATS]:
        ms, size, filler = _worst(schema)
        overall = max(overall, ms)
        print(f"{ms:8.3f} ms  worst at {size:6d} chars of {filler!r:5}  {schema}")
    print(f"worst case: {overall:.3f} ms per argument (bar {BAR_MS:.0f} ms): {'PASS' if overall <= BAR_MS else 'FAIL'}")


if __name__ == "__main__":
    main()
