"""Importing covert and its runtime stays cheap: no heavy ML or data dependency is pulled in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "vllm", "ray", "transformers", "datasets", "pyarrow")


def test_import_covert_env_is_light() -> None:
    script = (
        "import json, sys\n"
        "import covert, covert.env\n"
        f"heavy = {HEAVY!r}\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in heavy)\n"
        "print(json.dumps({'loaded': loaded, 'covert': covert.__file__}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(REPO)
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert Path(report["covert"]).resolve().is_relative_to(REPO)
    assert report["loaded"] == [], f"importing covert.env pulled in heavy modules: {report['loaded']}"


def test_library_modules_do_not_load_ml_stacks() -> None:
    """Rewards (what a trainer imports), LLM seam, augmentation, rollouts and the CLI load no torch,
    vLLM, Ray, transformers or HTTP client until a backend or engine is chosen."""
    script = (
        "import json, sys\n"
        "import covert.rewards, covert.llm, covert.augment, covert.rollouts.runner, covert.cli, covert.build\n"
        "heavy = ('torch', 'vllm', 'ray', 'transformers', 'httpx')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(REPO)
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []
