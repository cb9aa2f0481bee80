"""``covert score``: per-row scores and a summary; bad input is one line and exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from covert.cli import main
from covert.rewards import oracle_completion


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def test_score_prints_rows_and_summary(pairs, dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chosen = pairs[:10]
    lines = []
    for i, (rl, sft) in enumerate(chosen):
        completion = oracle_completion(sft) if i % 2 == 0 else "no idea"
        lines.append(json.dumps({"task_id": rl["task_id"], "completion": completion}))
    predictions = _write(tmp_path / "p.jsonl", lines)
    assert main(["score", "--dataset", str(dataset), "--config", "rl", "--predictions", str(predictions)]) == 0
    out = capsys.readouterr().out
    for rl, _ in chosen:
        assert rl["task_id"] in out
    assert "scored 10 predictions; mean" in out
    for title in ("per category:", "per builder:", "per component:"):
        assert title in out
    assert main(["score", "--dataset", str(dataset), "--predictions", str(predictions), "--json", "--mode", "exact"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["value"] for r in report["rows"]] == [1.0 if i % 2 == 0 else 0.0 for i in range(10)]
    assert report["summary"]["mean"] == 0.5 and report["summary"]["count"] == 10
    assert set(report["summary"]["per_component"]) <= {"calls", "state", "facts", "behaviour"}
    assert main(["score", "--dataset", str(dataset), "--config", "sft", "--predictions", str(predictions), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("scored 10 predictions")


@pytest.mark.parametrize("content, message", [
    (None, "not found"),
    (["{oops"], "line 1 of"),
    (['{"completion": "x"}'], "each line is"),
    (['{"task_id": "nope", "completion": "x"}'], "is not in"),
    ([""], "holds no predictions"),
])
def test_bad_predictions_exit_2_with_one_line(dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              content, message) -> None:
    path = tmp_path / "p.jsonl"
    if content is not None:
        _write(path, content)
    assert main(["score", "--dataset", str(dataset), "--predictions", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("covert: error:") and message in err and "\n" not in err


def test_bad_dataset_exits_2(pairs, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    predictions = _write(tmp_path / "p.jsonl", [json.dumps({"task_id": pairs[0][0]["task_id"], "completion": ""})])
    assert main(["score", "--dataset", str(tmp_path / "missing"), "--predictions", str(predictions)]) == 2
    assert "no manifest.json" in capsys.readouterr().err
