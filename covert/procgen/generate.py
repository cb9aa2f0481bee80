"""EvoEnv's generator: an LLM writes a new procedural environment module from the seeds as examples.

:func:`generation_request` builds the prompt: the contract (``covert/procgen/contract.py``), the answer
parsers' signatures, one or two seed modules and a theme; :func:`extract_module` takes the module out of
the reply (the last fenced ``python`` block, else the whole text when it parses). Candidates are then
admitted by :mod:`covert.procgen.candidates`; nothing generated runs outside the sandbox.
:func:`covert.procgen.review.review_request` is the L4 prompt: the model judges its own environment.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from covert.llm.base import Backend, ChatRequest, SamplingParams
from covert.procgen.candidates import CANDIDATE_MODULES, Candidate

THEMES = ("interval scheduling", "longest increasing subsequence", "graph colouring with a planted colouring",
          "edit distance", "bipartite matching", "exact cover with a planted cover", "coin change",
          "shortest path on a weighted grid", "2-SAT with a planted assignment", "sudoku-like latin squares",
          "minimum spanning tree weight", "word ladder", "set cover with a planted cover", "matrix chain order")
_ENVS = Path(__file__).resolve().parent / "envs"
_FENCE = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.DOTALL)


def seed_sources() -> dict[str, str]:
    """The seed environments' module sources, by name (sorted)."""
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(_ENVS.glob("[a-z]*.py"))}


def _parser_signatures() -> str:
    source = (Path(__file__).resolve().parent / "parse.py").read_text(encoding="utf-8")
    lines = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            doc = (ast.get_docstring(node) or "").split("\n")[0]
            lines.append(f"def {node.name}({ast.unparse(node.args)}) -> {ast.unparse(node.returns) if node.returns else 'Any'}:"
                         f"  # {doc}")
    return "\n".join(lines)


def generation_request(index: int, *, seed: int = 0, examples: int = 2, max_tokens: int = 3000,
                       temperature: float = 0.8) -> ChatRequest:
    """The chat request for candidate ``index``: contract, parsers, ``examples`` seeds (rotated by index)
    and a theme (rotated too), sampled under ``seed + index``."""
    seeds = seed_sources()
    names = list(seeds)
    shown = [names[(index + j) % len(names)] for j in range(min(examples, len(names)))] if names else []
    contract = (Path(__file__).resolve().parent / "contract.py").read_text(encoding="utf-8")
    theme = THEMES[index % len(THEMES)]
    parts = [
        "You write procedural reasoning environments for training language models. An environment is one "
        "Python module that defines ENV, an instance of a subclass of ProceduralEnv, following this contract:",
        f"```python\n{contract}```",
        "Answer parsers you may import from covert.procgen.parse:", f"```python\n{_parser_signatures()}\n```",
    ]
    for name in shown:
        parts += [f"An example environment, {name}.py:", f"```python\n{seeds[name]}```"]
    parts.append(
        f"Write a NEW environment about: {theme}. Rules: sample() draws randomness only from instance_rng; "
        "reference() returns a correct answer written as a model should write it; score() accepts every "
        "correct answer, not only the reference, never raises on any text, and gives trivial answers less "
        "than 1; knobs have ordered levels, easiest first. Import only these modules: "
        f"{', '.join(sorted(CANDIDATE_MODULES))}. No file, network or process access; no eval, exec, "
        "getattr or dunder attributes. Reply with the whole module in one ```python block.")
    return ChatRequest([{"role": "user", "content": "\n\n".join(parts)}],
                       sampling=SamplingParams(temperature=temperature, max_tokens=max_tokens, seed=seed + index))


def extract_module(text: str) -> str | None:
    """The module in a reply: the last fenced python block, else the whole reply (admission's L1 then
    refuses what does not parse); ``None`` for an empty reply."""
    blocks = _FENCE.findall(text or "")
    if blocks:
        return blocks[-1].strip() + "\n"
    stripped = (text or "").strip()
    return stripped + "\n" if stripped else None


def generate_candidates(backend: Backend, count: int, *, seed: int = 0, examples: int = 2,
                        max_tokens: int = 3000) -> tuple[list[Candidate], dict[str, int]]:
    """``count`` candidates written by ``backend``; replies with no module are counted by reason
    (``no_module`` or the backend's error code) and left out."""
    requests = [generation_request(i, seed=seed, examples=examples, max_tokens=max_tokens) for i in range(count)]
    candidates: list[Candidate] = []
    failures: dict[str, int] = {}
    for i, completion in enumerate(backend.generate(requests)):
        source = extract_module(completion.text) if completion.error is None else None
        if source is None:
            reason = f"generate:{completion.reason or 'no_module'}"
            failures[reason] = failures.get(reason, 0) + 1
            continue
        candidates.append(Candidate(f"gen-{seed}-{i}", source, f"llm:{backend.model_id}"))
    return candidates, dict(sorted(failures.items()))
