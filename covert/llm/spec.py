"""Choosing a backend from a ``--llm`` spec string; the heavy library is imported only for the chosen one."""

from __future__ import annotations

import os
from typing import Any

from covert.llm.base import Backend

SPEC_FORMS = "vllm:MODEL, openai:URL[#MODEL] or hf:PATH"


def backend_from_spec(spec: str, **options: Any) -> Backend:
    """The backend named by ``spec``: ``vllm:MODEL``, ``openai:URL[#MODEL]`` or ``hf:PATH``.

    ``options`` go to the backend's constructor. A malformed spec raises ``ValueError`` with one line
    naming the accepted forms. Nothing is loaded or contacted here (see ``Backend.check_reachable``).
    """
    kind, sep, target = (spec or "").partition(":")
    if not sep or not target.strip():
        raise ValueError(f"bad --llm spec {spec!r}: expected {SPEC_FORMS}")
    if kind == "openai":
        url, _, model = target.partition("#")
        if not url.startswith(("http://", "https://")) or "://" not in url or not url.split("://", 1)[1]:
            raise ValueError(f"bad --llm spec {spec!r}: the URL must be http(s)://HOST[:PORT][/PATH] "
                             f"(expected {SPEC_FORMS})")
        from covert.llm.openai_backend import OpenAIBackend

        return OpenAIBackend(url, model or None, **options)
    if kind == "vllm":
        from covert.llm.vllm_backend import VLLMBackend

        return VLLMBackend(target, **options)
    if kind == "hf":
        from covert.llm.hf_backend import TransformersBackend

        return TransformersBackend(os.path.expanduser(target), **options)
    raise ValueError(f"bad --llm spec {spec!r}: expected {SPEC_FORMS}")


def open_backend(spec: str, *, cache_dir: str | os.PathLike[str] | None = None, check: bool = True,
                 **options: Any) -> Backend:
    """:func:`backend_from_spec`, checked with ``check_reachable()`` and wrapped in a cache if ``cache_dir``.

    Raises ``ValueError`` (bad spec) or ``BackendUnavailable`` (cannot serve), both with one-line
    messages, so a CLI can fail fast before any work.
    """
    backend = backend_from_spec(spec, **options)
    if check:
        backend.check_reachable()
    if cache_dir is not None:
        from covert.llm.cache import CachedBackend

        backend = CachedBackend(backend, cache_dir)
    return backend
