"""Every command that reads a dataset, on every kind of dataset covert writes: it works, or it says in
one line (exit 2) that it does not apply and what does. No traceback, no misleading error.

Each kind is written once, small, by the real commands: a tool build, a multi-turn build, its
augmentation, calibration and evolution, a procedural dataset (text and tool form), an evolved
procedural one, and a live-MCP dataset on mcp-server-git.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from covert.cli import main
from covert.io.checked import open_dataset
from covert.io.features import kind_of
from covert.io.kinds import text_config
from covert.io.reader import iter_rows
from covert.rewards import oracle_completion

LIVE = importlib.util.find_spec("mcp_server_git") is not None

# kind -> the commands that make it (run in order; "{root}" is the folder of all kinds)
KINDS: dict[str, list[list[str]]] = {
    "tool": [["build", "--builders", "retail,airline", "--num-tasks", "24", "--seed", "1", "--out", "{root}/tool"]],
    "multi-turn": [["build", "--builders", "retail", "--num-tasks", "10", "--seed", "2", "--multi-turn",
                    "--out", "{root}/multi-turn"]],
    "augmented": [["augment", "{root}/tool", "--out", "{root}/augmented", "--kinds", "noisy", "distractors"]],
    "calibrated": [["calibrate", "{root}/tool", "--k", "2", "--out", "{root}/calibrated"]],
    "evolved": [["evolve", "{root}/tool", "--out", "{root}/evolved", "--generations", "2", "--tasks", "2", "--k", "2"]],
    "procgen": [["procgen", "--envs", "knapsack,sat", "--num-tasks", "12", "--seed", "0", "--out", "{root}/procgen"]],
    "procgen-tools": [["procgen", "--envs", "mapf_frozenlake", "--num-tasks", "4", "--form", "tools",
                       "--out", "{root}/procgen-tools"]],
    "evolved-procgen": [["evolve-procgen", "knapsack", "--out", "{root}/evolved-procgen", "--generations", "2",
                         "--per-config", "3", "--instances", "4"]],
    "live-mcp": [["live-mcp", "git", "--num-tasks", "2", "--out", "{root}/live-mcp"]],
}
PROCEDURAL = ("procgen", "procgen-tools", "evolved-procgen")
# (command, kind) pairs whose answer is a one-line "does not apply"; every other pair must work
NOT_APPLICABLE = {
    **{("augment", k): "does not apply" for k in PROCEDURAL},
    **{("calibrate", k): "does not apply" for k in PROCEDURAL},
    **{("evolve", k): "does not apply" for k in PROCEDURAL},
    ("regenerate", "evolved-procgen"): "does not apply",
    ("regenerate", "live-mcp"): "does not apply",
    **{("mapf-report", k): "holds no mapf_frozenlake rows" for k in KINDS if k != "procgen-tools"},
    **{("live-mcp replay", k): "does not apply" for k in KINDS if k != "live-mcp"},
}


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    # the live server's one warning about the sandbox is not an answer of the command
    err = "\n".join(line for line in captured.err.splitlines() if not line.startswith("covert: warning:"))
    return status, captured.out, err


@pytest.fixture(scope="module")
def kinds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("kinds")
    made = {}
    for kind, commands in KINDS.items():
        if kind == "live-mcp" and not LIVE:
            continue
        for command in commands:
            assert main([a.replace("{root}", str(root)) for a in command]) == 0, (kind, command)
        made[kind] = root / kind
    return made


def _predictions(root: Path, config: str, out: Path) -> int:
    """A predictions file with the right completion of the first two rows of ``config``; the row count."""
    rows = list(iter_rows(root, config))
    lines = []
    for row in rows[:2]:
        if text_config(config):  # a procedural text row's answer is its SFT twin's last message
            twin = next(r for r in iter_rows(root, "sft" + config[2:]) if r["task_id"] == row["task_id"])
            completion: Any = twin["messages"][-1]["content"]
        else:
            completion = oracle_completion(row)
        lines.append(json.dumps({"task_id": row["task_id"], "completion": completion}))
    out.write_text("\n".join(lines) + "\n")
    return len(rows)


def _commands(root: Path, work: Path) -> list[tuple[str, list[str], Callable[[str], None] | None]]:
    """(name, arguments, check of stdout) of every dataset-reading command on one dataset."""
    dataset = open_dataset(root)
    counts = {c: sum(n for key, n in dataset.manifest["rows"].items() if key.split("/", 1)[0] == c)
              for c in dataset.configs}
    configs = [c for c in dataset.configs if counts[c]]  # a generation may have kept no task
    out: list[tuple[str, list[str], Callable[[str], None] | None]] = [
        ("show", ["show", str(root)], None),
        ("validate", ["validate", str(root), "--quiet"], lambda text: _is("all rows valid", text)),
        ("report", ["report", str(root), "--out", str(work / "report")], None),
        ("audit", ["audit", str(root)], None),
        ("calibrate", ["calibrate", str(root), "--k", "1", "--out", str(work / "calibrated")], None),
        ("augment", ["augment", str(root), "--out", str(work / "augmented"), "--kinds", "noisy", "--quiet"], None),
        ("evolve", ["evolve", str(root), "--out", str(work / "evolved"), "--generations", "2", "--tasks", "1",
                    "--k", "1", "--quiet"], None),
        ("regenerate", ["regenerate", str(root), "--out", str(work / "again"), "--quiet"],
         lambda text: _is("shards match the manifest", text)),
        ("mapf-report", ["mapf-report", str(root), "--policy", "reference"], None),
        ("live-mcp replay", ["live-mcp", "replay", str(root), "--limit", "1", "--quiet"], None),
    ]
    for config in configs:
        out.append(("show", ["show", str(root), "--config", config, "--index", str(counts[config] - 1)],
                    lambda text: _is("user:", text)))
        if kind_of(config) == "sft":
            out.append(("export", ["export", str(root), "--to", "openai-jsonl", "--config", config,
                                   "--out", str(work / f"{config}.jsonl")], lambda text: _is("wrote ", text)))
            out.append(("export", ["export", str(root), "--to", "verl-sft", "--config", config,
                                   "--out", str(work / "new" / f"{config}")], lambda text: _is("(Parquet", text)))
        else:
            predictions = work / f"{config}.predictions.jsonl"
            total = _predictions(root, config, predictions)
            out.append(("score", ["score", "--dataset", str(root), "--config", config, "--predictions",
                                  str(predictions), "--quiet"],
                        lambda text, total=total: _is(f"mean 1.0000 (over the 2 of {total} rows", text)
                        if total > 2 else _is("mean 1.0000", text)))
    return out


def _is(expected: str, text: str) -> None:
    assert expected in text, f"expected {expected!r} in {text[-500:]!r}"


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_dataset_command_on(kind: str, kinds: dict[str, Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    if kind not in kinds:
        pytest.skip("mcp-server-git is not installed (pip install 'covert[live-mcp]')")
    problems = []
    for name, args, check in _commands(kinds[kind], tmp_path):
        status, out, err = _run(args, capsys)
        expected = NOT_APPLICABLE.get((name, kind))
        line = f"covert {' '.join(args)}"
        if expected is not None:
            if status != 2 or len(err.splitlines()) != 1 or expected not in err:
                problems.append(f"{line}: expected one line saying {expected!r}, exit 2; got {status}: {err[-300:]}")
            continue
        if status != 0:
            problems.append(f"{line}: exit {status}: {err.strip()[-300:]}")
            continue
        if check is not None:
            try:
                check(out)
            except AssertionError as exc:
                problems.append(f"{line}: {exc}")
    assert not problems, "\n".join(problems)
