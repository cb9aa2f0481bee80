"""LLM backends behind one seam: vLLM offline, OpenAI-compatible HTTP, local transformers.

``backend_from_spec("vllm:MODEL" | "openai:URL[#MODEL]" | "hf:PATH")`` picks one; only then is its
library (vllm, httpx, torch/transformers) imported, so importing ``covert.llm`` stays light.
Every backend takes a batch of :class:`ChatRequest` and returns one validated :class:`Completion`
per request; a bad output carries ``error`` and is never raised. :class:`CachedBackend` adds a
content-addressed disk cache so identical requests are never sent twice.
"""

from __future__ import annotations

from covert.llm.base import (
    Backend,
    BackendUnavailable,
    ChatRequest,
    Completion,
    SamplingParams,
    ToolCall,
    count_errors,
)
from covert.llm.cache import CachedBackend, DiskCache, request_key
from covert.llm.spec import SPEC_FORMS, backend_from_spec, open_backend

__all__ = [
    "SPEC_FORMS",
    "Backend",
    "BackendUnavailable",
    "CachedBackend",
    "ChatRequest",
    "Completion",
    "DiskCache",
    "SamplingParams",
    "ToolCall",
    "backend_from_spec",
    "count_errors",
    "open_backend",
    "request_key",
]
