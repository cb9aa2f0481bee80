"""One hostile candidate never costs the batch its verdicts, and never reaches another's (issue 32).

A candidate's code runs beside the trusted harness in the sandbox: it can return a 300,000-deep JSON
value, patch ``json.dumps`` so that the reply is not a frame, write frames of its own to every
descriptor it can find, or replace the harness's ``score`` through ``sys.modules``. Each call now runs
in a child process of its own that reaches only its own result pipe, admission checks every answer's
shape, and the verdict is computed in this process: every candidate gets a verdict, a hostile one is
rejected with its reason, and the others get the verdict they get alone. These run with the AST
prefilter off (it would refuse ``import os``/``sys`` at L1): what holds them is the protocol.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from covert.procgen.candidates import (
    Admission,
    AdmissionConfig,
    Candidate,
    NoisyReferenceSolver,
    admit_all,
    candidate_sandbox,
)
from covert.sandbox import Limits

HERE = Path(__file__).parent / "candidates"
FAST = Limits(cpu_s=2, memory_mb=512, wall_s=5)
HONEST = (HERE / "max_subarray.py").read_text(encoding="utf-8")
YES_MAN = (HERE / "yes_man.py").read_text(encoding="utf-8")

DEEP_REPLY = """
import json
_real = json.dumps
def _deep(value, *args, **kwargs):
    if isinstance(value, dict) and "ok" in value:
        return _real(value, *args, **kwargs)
    return "[" * 300000 + "]" * 300000
json.dumps = _deep
"""
PATCHED_DUMPS = """
import json
json.dumps = lambda *args, **kwargs: '"hello"'
"""
FRAME_WRITER = """
import json, os, struct
_body = json.dumps({"ok": True, "value_json": json.dumps("forged"), "cpu_used": 0.0, "loaded": True}).encode()
for _fd in range(3, 64):
    try:
        os.write(_fd, struct.pack(">I", len(_body)) + _body)
    except OSError:
        pass
"""
# replaces the harness's score with an exact-match scorer: before, the patch stayed in the warm worker
# and an always-1.0 scorer admitted after it passed L3 and L5 with the patched harness
HARNESS_PATCHER = """
import sys
from covert.procgen.contract import Instance
def _exact(module, payload):
    env = module.ENV
    rows = []
    for item, responses in zip(payload["instances"], payload["responses"]):
        reference = env.reference(Instance(item["prompt"], item["data"]))
        rows.append([{"value": 1.0 if r == reference else 0.0, "reasons": []} for r in responses])
    return rows
sys.modules["covert_procgen_harness"].score = _exact
"""


def _hostile(prefix: str, base: str = HONEST) -> str:
    head, _, body = base.partition("from covert.procgen.contract")
    return head + prefix + "\nfrom covert.procgen.contract" + body


def _batch(sources: dict[str, str]) -> dict[str, str]:
    with candidate_sandbox(FAST, use_prefilter=False) as sandbox:
        admission = Admission(AdmissionConfig(), solver=NoisyReferenceSolver(0.5), sandbox=sandbox)
        report = admit_all([Candidate(label, source) for label, source in sources.items()], admission)
    assert [v.label for v in report.verdicts] == list(sources)
    return {v.label: "admitted" if v.admitted else v.rejection for v in report.verdicts}


@pytest.mark.parametrize(("prefix", "rejection"), [(DEEP_REPLY, "exec:crash"), (PATCHED_DUMPS, "exec:crash"),
                                                   (FRAME_WRITER, "exec:malformed_reply")])
def test_a_hostile_candidate_is_rejected_and_the_batch_goes_on(prefix: str, rejection: str) -> None:
    verdicts = _batch({"honest.py": HONEST, "hostile.py": _hostile(prefix), "honest2.py": HONEST})
    assert verdicts == {"honest.py": "admitted", "hostile.py": rejection, "honest2.py": "L5:duplicate"}


def test_a_patched_harness_never_reaches_the_next_candidate() -> None:
    alone = _batch({"yes_man.py": YES_MAN})
    assert alone == {"yes_man.py": "L3:trivial_accepted"}
    after = _batch({"patcher.py": _hostile(HARNESS_PATCHER, YES_MAN), "yes_man.py": YES_MAN})
    assert after["yes_man.py"] == "L3:trivial_accepted", after


def test_procgen_admit_gives_every_candidate_a_verdict(tmp_path: Path) -> None:
    """The issue's command: ``covert procgen-admit honest.py hostile.py honest2.py``."""
    files = {"honest.py": HONEST, "hostile.py": _hostile(DEEP_REPLY), "honest2.py": HONEST}
    for name, source in files.items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "covert.cli", "procgen-admit", *files, "--no-seed-novelty",
                             "--report", "report.json"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("honest.py: admitted") for line in lines), result.stdout
    assert "hostile.py: rejected exec:crash" in lines, result.stdout  # the prefilter lets `import json` pass
    assert any(line.startswith("honest2.py: ") for line in lines), result.stdout
