"""`covert build ... | head`: a reader that goes away stops the CLI quietly, with the dataset intact."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from covert.validation.dataset import validate_dataset


def test_a_closed_stdout_ends_quietly_and_keeps_the_dataset(tmp_path: Path) -> None:
    out = tmp_path / "data"
    read, write = os.pipe()
    os.close(read)  # nobody reads: the first write to stdout fails with EPIPE
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", "covert.cli", "build", "--num-tasks", "24", "--out", str(out),
                           "--quiet"], stdout=write, stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    os.close(write)
    assert done.returncode == 141, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr[-2000:]
    report = validate_dataset(out)  # the build was published before the summary was printed
    assert report.ok and sum(report.rows.values()) > 0
