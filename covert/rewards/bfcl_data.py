"""BFCL's test data, read from the ``bfcl-eval`` wheel (for conformance tests and benchmarks).

The wheel is fetched once with ``pip download bfcl-eval --no-deps`` into a cache directory
(``~/.cache/covert-bfcl`` by default) and read in place with :mod:`zipfile`; none of it is copied into
a covert checkout.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

DEFAULT_CACHE = Path.home() / ".cache" / "covert-bfcl"
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple")


class BfclUnavailable(RuntimeError):
    """The bfcl-eval wheel could not be found or downloaded."""


def bfcl_wheel(cache: Path = DEFAULT_CACHE, download: bool = True) -> Path:
    """The cached bfcl-eval wheel, downloaded first if needed; raises :class:`BfclUnavailable`."""
    found = sorted(Path(cache).glob("bfcl_eval-*.whl"))
    if not found and download:
        Path(cache).mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run([sys.executable, "-m", "pip", "download", "bfcl-eval", "--no-deps", "-d", str(cache)],
                           capture_output=True, text=True, timeout=300, check=True)
        except (subprocess.SubprocessError, OSError) as exc:
            raise BfclUnavailable(f"pip download bfcl-eval failed: {type(exc).__name__}") from None
        found = sorted(Path(cache).glob("bfcl_eval-*.whl"))
    if not found:
        raise BfclUnavailable(f"no bfcl-eval wheel in {cache}")
    return found[-1]


def load_bfcl(categories: tuple[str, ...] = CATEGORIES, cache: Path = DEFAULT_CACHE,
              download: bool = True) -> dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]:
    """``{category: [(test entry, possible answer), ...]}`` from the wheel's BFCL_v4 files."""
    wheel = bfcl_wheel(cache, download)
    data = {}
    with zipfile.ZipFile(wheel) as archive:
        for category in categories:
            try:
                questions = archive.read(f"bfcl_eval/data/BFCL_v4_{category}.json").decode().splitlines()
                answers = archive.read(f"bfcl_eval/data/possible_answer/BFCL_v4_{category}.json").decode().splitlines()
            except KeyError:
                raise BfclUnavailable(f"{wheel.name} has no BFCL_v4 data for {category}") from None
            by_id = {entry["id"]: entry for entry in map(json.loads, answers)}
            data[category] = [(q, by_id[q["id"]]) for q in map(json.loads, questions) if q["id"] in by_id]
    return data
