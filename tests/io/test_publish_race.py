"""Two runs into the same new ``--out``: the second to publish fails with one line, unless ``--overwrite``
(issue 32: both exited 0 and one dataset was silently replaced)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from covert.io.staging import OutputError, prepare_output, publish

REPO = Path(__file__).resolve().parents[2]


def _staged(out: Path, overwrite: bool, text: str) -> Path:
    """A staging folder as a run of its own would have it (one process here: moved aside under a name
    of its own, as another pid would name it)."""
    staging = prepare_output(out, overwrite)
    (staging / "data.txt").write_text(text)
    return staging.rename(staging.with_name(f"{text}-run"))


def test_the_second_to_publish_fails_and_the_first_dataset_stays(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    first, second = _staged(out, False, "first"), _staged(out, False, "second")  # both saw no `out`
    publish(first, out)
    with pytest.raises(OutputError, match=r"written by another run while this one was working.*--overwrite"):
        publish(second, out)
    assert (out / "data.txt").read_text() == "first" and second.is_dir()  # the caller discards its staging


@pytest.mark.parametrize("exchange", [True, False])
def test_with_overwrite_the_later_run_replaces_it(tmp_path: Path, exchange: bool) -> None:
    out = tmp_path / "ds"
    first, second = _staged(out, False, "first"), _staged(out, True, "second")
    publish(first, out)
    publish(second, out, exchange=exchange)
    assert sorted(p.name for p in out.iterdir()) == ["data.txt"] and (out / "data.txt").read_text() == "second"


def test_two_builds_into_one_new_out(tmp_path: Path) -> None:
    """The issue's command, two real processes at once: one exits 0, the other 2 with one line, and the
    dataset is the winner's whole (its seed in the manifest, every shard hash right)."""
    from covert.io.checked import open_dataset

    out = tmp_path / "x"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = {seed: subprocess.Popen([sys.executable, "-m", "covert.cli", "build", "--builders", "retail",
                                     "--num-tasks", "40", "--seed", str(seed), "--out", str(out)],
                                    cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for seed in (1, 2)}
    codes = {seed: (p.wait(timeout=600), p.stderr.read()) for seed, p in procs.items()}
    assert sorted(code for code, _ in codes.values()) == [0, 2], codes
    winner = next(seed for seed, (code, _) in codes.items() if code == 0)
    loser_err = next(err for code, err in codes.values() if code == 2)
    errors = [line for line in loser_err.splitlines() if "error" in line]
    assert len(errors) == 1 and ("another run" in errors[0] or "already exists" in errors[0]), loser_err
    assert json.loads((out / "manifest.json").read_text())["config"]["seed"] == winner
    open_dataset(out)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging folder left behind
