"""Run a script in a fresh interpreter that imports covert from this checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def run_json(script: str) -> Any:
    """Run ``script`` with ``python -c`` (only this repository on ``PYTHONPATH``) and return the JSON
    it printed on its last line; fails the test with its stderr if it exits non-zero."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(REPO)
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])
