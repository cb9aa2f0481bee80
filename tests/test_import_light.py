"""Importing covert and its runtime stays cheap: no heavy ML or data dependency is pulled in."""

from __future__ import annotations

from pathlib import Path

from tests.fresh_python import REPO, run_json

HEAVY = ("torch", "vllm", "ray", "transformers", "datasets", "pyarrow")


def test_import_covert_env_is_light() -> None:
    script = (
        "import json, sys\n"
        "import covert, covert.env\n"
        f"heavy = {HEAVY!r}\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in heavy)\n"
        "print(json.dumps({'loaded': loaded, 'covert': covert.__file__}))\n"
    )
    report = run_json(script)
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
    assert run_json(script) == []
