"""Shared fixtures: the tiny tokenizer and the two tiny models, built once per session in a tmp dir."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread() -> Iterator[None]:
    """Run the tiny models on one thread: on a busy 2-core machine, OpenMP threads spinning against
    other processes make them 10-20x slower. The previous setting is restored after each module."""
    if importlib.util.find_spec("torch") is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@pytest.fixture(scope="session")
def tiny_tokenizer() -> Any:
    """The tool-aware tiny tokenizer of ``tests/tiny_tokenizer.py``."""
    pytest.importorskip("transformers")
    from tests.tiny_tokenizer import tiny_tool_tokenizer

    return tiny_tool_tokenizer()


@pytest.fixture(scope="session")
def random_model_dir(tmp_path_factory: pytest.TempPathFactory, tiny_tokenizer: Any) -> Path:
    """A randomly initialised tiny Llama: its outputs are garbage."""
    pytest.importorskip("torch")
    from tests.llm.tiny_models import save, tiny_llama

    return save(tiny_llama(tiny_tokenizer, seed=1), tiny_tokenizer, tmp_path_factory.mktemp("random-lm"))


@pytest.fixture(scope="session")
def trained_model_dir(tmp_path_factory: pytest.TempPathFactory, tiny_tokenizer: Any) -> Path:
    """A tiny Llama fitted to answer the tool prompt with a tool call and the JSON prompt with JSON."""
    pytest.importorskip("torch")
    from tests.llm.tiny_models import save, tiny_llama, train_answers

    model = tiny_llama(tiny_tokenizer, seed=0)
    loss = train_answers(model, tiny_tokenizer)
    assert loss < 0.1, f"the tiny model did not learn its two answers (loss {loss:.3f})"
    return save(model, tiny_tokenizer, tmp_path_factory.mktemp("trained-lm"))
