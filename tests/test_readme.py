"""The README is what works: every Python snippet in it runs, and every ``covert.*`` name it shows
exists.

Snippets run in order, in one folder holding the datasets the README's commands write
(``data/covert-tools``; ``data/covert-mt`` built with ``--multi-turn``), each in a fresh namespace.
The LLM snippet talks to a scripted OpenAI-compatible server on loopback in place of the README's
``127.0.0.1:8000``.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from covert.build import BuildConfig, build

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPET = re.compile(r"```python\n(.*?)```", re.S)
DOTTED = re.compile(r"`(covert(?:\.[A-Za-z_]\w*)+)")
README_SERVER = "http://127.0.0.1:8000/v1"


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


@pytest.mark.parametrize("number", range(len(_snippets())))
def test_readme_snippet_runs(number: int, readme_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = _snippets()[number]
    monkeypatch.chdir(readme_folder)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(readme_folder / "hf-cache"))
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
    assert _resolve(dotted) is not None
