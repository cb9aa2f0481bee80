"""The README is what works: every Python snippet in it runs, and every ``covert.*`` name it shows
exists.

Snippets run in order, in one folder holding the datasets the README's commands write
(``data/covert-tools``; ``data/covert-mt`` built with ``--multi-turn``), each in a fresh namespace.
The LLM snippet talks to a scripted OpenAI-compatible server on loopback in place of the README's
``127.0.0.1:8000``.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
from pathlib import Path

import pytest

from covert.build import BuildConfig, build

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPET = re.compile(r"```python\n(.*?)```", re.S)
DOTTED = re.compile(r"`(covert(?:\.[A-Za-z_]\w*)+)")
README_SERVER = "http://127.0.0.1:8000/v1"
ENTRY_POINT_GROUPS = set(re.findall(r"entry-point group `(covert[\w.]*)`", README.read_text()))


def _snippets() -> list[str]:
    return SNIPPET.findall(README.read_text())


def _resolve(dotted: str) -> object:
    """The module or attribute a dotted name means: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ModuleNotFoundError(dotted)


@pytest.fixture(scope="module")
def readme_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("readme")
    build(BuildConfig(builders=["all"], num_tasks=200, seed=0, multi_turn=True), folder / "data" / "covert-mt",
          progress=False)
    build(BuildConfig(builders=["all"], num_tasks=200, seed=0), folder / "data" / "covert-tools", progress=False)
    return folder


def test_the_readme_has_snippets() -> None:
    assert len(_snippets()) >= 3


def _verifiers_elsewhere(code: str) -> str | None:
    """The verifiers requirement of a snippet written for the verifiers API this environment lacks
    (``verifiers.v1`` is 0.4's, ``import verifiers as vf`` 0.3's), else ``None``."""
    wanted = "v1" if "verifiers.v1" in code else "classic" if "import verifiers as vf" in code else None
    if wanted is None:
        return None
    try:
        from covert.integrations.verifiers.version import verifiers_api

        installed = verifiers_api()
    except ImportError:
        installed = None
    if wanted == installed:
        return None
    return "verifiers>=0.4,<0.5" if wanted == "v1" else "verifiers>=0.3.1,<0.4"


@pytest.mark.parametrize("number", range(len(_snippets())))
def test_readme_snippet_runs(number: int, readme_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = _snippets()[number]
    monkeypatch.chdir(readme_folder)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(readme_folder / "hf-cache"))
    requirement = _verifiers_elsewhere(code)
    if requirement is not None:  # as written, in a venv with that verifiers (tests/overlay_venv.py)
        from tests.overlay_venv import overlay_python

        root = str(README.parent)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
        out = subprocess.run([str(overlay_python(requirement)), "-c", code], cwd=readme_folder, env=env,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, f"README.md snippet {number}:\n{out.stderr[-3000:]}"
        return
    if README_SERVER in code:
        from tests.llm.test_openai_backend import Scripted

        server = Scripted([]).start()
        code = code.replace(README_SERVER, server.url)
        try:
            exec(compile(code, f"README.md snippet {number}", "exec"), {"__name__": "__readme__"})
        finally:
            server.stop()
        return
    exec(compile(code, f"README.md snippet {number}", "exec"), {"__name__": "__readme__"})


@pytest.mark.parametrize("dotted", sorted(set(DOTTED.findall(README.read_text()))))
def test_every_covert_name_the_readme_shows_exists(dotted: str) -> None:
    if dotted in ENTRY_POINT_GROUPS:  # not a module: the group the plugin registry reads
        from covert.env.registry import GROUP

        assert dotted == GROUP
        return
    assert _resolve(dotted) is not None
