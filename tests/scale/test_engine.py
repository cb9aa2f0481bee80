"""The engine seam without Ray: the local engine runs the initializer and maps in order, and asking for
Ray where it is not installed is one line and exit status 2, with nothing written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from covert.errors import EngineUnavailable, UsageError
from covert.scale.engine import open_pool, ordered_map
from tests.fresh_python import REPO

NO_RAY = "import sys; sys.modules['ray'] = None; from covert.cli import main; sys.exit(main(sys.argv[1:]))"


def _covert_without_ray(*argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run([sys.executable, "-c", NO_RAY, *argv], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def test_local_engine_maps_in_order_on_any_number_of_workers() -> None:
    texts = [json.dumps({"n": i}) for i in range(50)]
    assert open_pool("local", 1) is None
    assert list(ordered_map(json.loads, texts, None)) == [{"n": i} for i in range(50)]
    with open_pool("local", 2) as pool:
        assert list(ordered_map(json.loads, texts, pool, chunksize=4)) == [{"n": i} for i in range(50)]


def test_bad_engine_or_workers_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown engine 'spark'"):
        open_pool("spark", 1)
    with pytest.raises(UsageError, match="--workers must be at least 1"):
        open_pool("local", 0)


@pytest.mark.parametrize("argv", [
    ["procgen", "--envs", "knapsack", "--num-tasks", "4", "--out", "{out}", "--engine", "ray"],
    ["build", "--builders", "retail", "--num-tasks", "4", "--out", "{out}", "--engine", "ray", "--quiet"],
])
def test_ray_engine_without_ray_is_one_line_and_exit_2(tmp_path: Path, argv: list[str]) -> None:
    out = tmp_path / "out"
    result = _covert_without_ray(*(a.replace("{out}", str(out)) for a in argv))
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        "covert: error: --engine ray needs Ray Data, which is not installed: pip install 'covert[ray]' "
        "(or use --engine local)"]
    assert not out.exists() and not list(tmp_path.iterdir())


def test_engine_unavailable_is_a_usage_error_and_an_import_error() -> None:
    assert issubclass(EngineUnavailable, UsageError) and issubclass(EngineUnavailable, ImportError)
