"""Stage summaries (schema, failure categories) and the learnability buffer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from covert.evolve.buffer import LearnabilityBuffer
from covert.evolve.summary import Episode, check_summary, stage_summary, tool_failures
from covert.evolve.tools import TOOL_KNOBS

A = {"calls": 1, "distractors": "none", "noise": "none", "ambiguity": False}
B = {"calls": 2, "distractors": "low", "noise": "none", "ambiguity": False}


def test_tool_failures_from_reward_reasons() -> None:
    reasons = ["calls:wrong_function: cancel_order", "calls:wrong_value: get_order.order_id", "state:mismatch: 2 paths",
               "facts:missing: 42.50", "calls:wrong_value: other"]
    assert tool_failures(reasons) == ("wrong_tool", "wrong_argument", "state_mismatch", "wrong_answer_facts")
    assert tool_failures(["unrelated text"]) == ()


def test_summary_rates_failures_and_examples() -> None:
    episodes = [Episode(A, True), Episode(A, False, ("missing_call",), trajectory="x" * 5000),
                Episode(B, False, ("wrong_tool", "state_mismatch")), Episode(B, False, ("wrong_tool",))]
    doc = stage_summary("tools", "tool", "1", TOOL_KNOBS, 2, episodes)
    by = {json.dumps(c["config"], sort_keys=True): c for c in doc["configs"]}
    a, b = by[json.dumps(A, sort_keys=True)], by[json.dumps(B, sort_keys=True)]
    assert (a["pass_rate"], a["episodes"], a["failures"]) == (0.5, 2, {"missing_call": 1})
    assert b["pass_rate"] == 0.0 and b["failures"] == {"wrong_tool": 2, "state_mismatch": 1}
    assert doc["failures"] == {"wrong_tool": 2, "missing_call": 1, "state_mismatch": 1}
    assert len(doc["examples"]) == 3 and len(doc["examples"][0]["trajectory"]) <= 1500
    broken = {**doc, "stage": -1}
    with pytest.raises(ValueError, match="stage summary"):
        check_summary(broken)


def test_buffer_prefers_learnable_and_stale_entries() -> None:
    buffer = LearnabilityBuffer(capacity=3, staleness_weight=0.0)
    buffer.update("e", {"x": 1}, 0.5, 10, stage=0)
    buffer.update("e", {"x": 2}, 0.95, 10, stage=0)
    buffer.update("e", {"x": 3}, 0.0, 10, stage=0)
    probs = buffer.probabilities()
    keys = sorted(probs, key=probs.get, reverse=True)
    assert keys[0].endswith('{"x":1}') and abs(sum(probs.values()) - 1) < 1e-9
    buffer.update("e", {"x": 4}, 0.3, 10, stage=1)  # over capacity: the least learnable (p=0) goes
    assert not any(k.endswith('{"x":3}') for k in buffer.entries)
    assert [e.config["x"] for e in buffer.learnable()] == [1, 4]
    assert buffer.sample(20, seed=4) == buffer.sample(20, seed=4)
    stale = LearnabilityBuffer(staleness_weight=0.5)
    stale.update("e", {"x": 1}, 0.5, 10, stage=0)
    stale.update("e", {"x": 2}, 0.5, 10, stage=5)
    p = stale.probabilities()
    assert p['e|{"x":1}'] > p['e|{"x":2}']  # same learnability: the one unseen for five stages is replayed more


def test_cli_engineer(tmp_path: Path) -> None:
    doc = stage_summary("tools", "tool", "1", TOOL_KNOBS, 0, [Episode(A, True)] * 9 + [Episode(A, False, ("missing_call",))])
    (tmp_path / "s.json").write_text(json.dumps(doc))
    cli = [sys.executable, "-c", "import sys; from covert.cli import main; sys.exit(main())"]
    ok = subprocess.run([*cli, "engineer", str(tmp_path / "s.json"), "--out", str(tmp_path / "c.json")],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    out = json.loads((tmp_path / "c.json").read_text())
    assert out["stage"] == 1 and out["decisions"][0]["action"] == "raise" and out["configs"][0]["calls"] == 2
    (tmp_path / "bad.json").write_text('{"schema": "nope"}')
    bad = subprocess.run([*cli, "engineer", str(tmp_path / "bad.json"), "--out", str(tmp_path / "d.json")],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1 and not (tmp_path / "d.json").exists()
