"""The one seam every LLM backend sits behind: chat requests in, validated completions out.

A backend never raises for one bad request: a failure (a bad output, an HTTP error, an exception in
the model) comes back as a :class:`Completion` with ``error`` set to a short reason string such as
``"invalid_json"`` or ``"schema_violation: $.query: ..."``. Only a backend that cannot work at all
(nothing listening at the URL, the library not installed) raises :class:`BackendUnavailable`, and
only from :meth:`Backend.check_reachable` or construction.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

OnComplete = Callable[[int, "Completion"], None]
"""Called as ``on_complete(index, completion)`` as soon as the completion of ``requests[index]`` is
ready (used by the cache to write each result the moment it exists)."""


class BackendUnavailable(RuntimeError):
    """The backend cannot serve at all (unreachable server, missing library or model); one-line message."""


@dataclass(frozen=True)
class SamplingParams:
    """How to sample. ``temperature == 0`` is greedy decoding; ``seed`` makes sampling reproducible."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 512
    seed: int | None = 0
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Normalise types so that equal settings give equal cache keys (0 and 0.0, lists and tuples).
        object.__setattr__(self, "temperature", float(self.temperature))
        object.__setattr__(self, "top_p", float(self.top_p))
        object.__setattr__(self, "max_tokens", int(self.max_tokens))
        object.__setattr__(self, "seed", None if self.seed is None else int(self.seed))
        stop = (self.stop,) if isinstance(self.stop, str) else tuple(str(s) for s in self.stop)
        object.__setattr__(self, "stop", stop)
        if self.temperature < 0 or not 0 < self.top_p <= 1 or self.max_tokens < 1:
            raise ValueError(f"bad sampling params: temperature {self.temperature} must be >= 0, "
                             f"top_p {self.top_p} in (0, 1], max_tokens {self.max_tokens} >= 1")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {"temperature": self.temperature, "top_p": self.top_p, "max_tokens": self.max_tokens,
                "seed": self.seed, "stop": list(self.stop)}


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion to make.

    ``messages`` are OpenAI chat messages (assistant ``tool_calls`` may carry ``arguments`` as a dict or
    a JSON string); ``tools`` are OpenAI function specs offered to this request alone; ``json_schema``,
    when set, constrains the output (where the backend can) and is always checked on the result.
    """

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    json_schema: dict[str, Any] | None = None
    sampling: SamplingParams = field(default_factory=SamplingParams)

    def __post_init__(self) -> None:
        if not isinstance(self.messages, list) or not self.messages:
            raise ValueError("a chat request needs a non-empty list of messages")
        if not all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in self.messages):
            raise ValueError("every message must be a dict with a 'role'")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (the cache key is computed from this)."""
        return {"messages": self.messages, "tools": self.tools or None, "json_schema": self.json_schema,
                "sampling": self.sampling.to_dict()}


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model made; ``arguments`` is already parsed into a dict."""

    name: str
    arguments: dict[str, Any]
    id: str = ""


@dataclass(frozen=True)
class Completion:
    """What a backend returns for one request.

    ``parsed`` holds the JSON value of the text when the request had a ``json_schema`` and the text
    validated. ``error`` is ``None`` on success, else ``"code"`` or ``"code: detail"``. ``transient``
    marks failures of the backend or transport (HTTP errors, timeouts, exceptions) rather than of the
    model's output: they may succeed when retried, so they are never cached.
    """

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    parsed: Any = None
    error: str | None = None
    transient: bool = False

    @property
    def ok(self) -> bool:
        """Whether the output parsed and validated."""
        return self.error is None

    @property
    def reason(self) -> str | None:
        """The error code without its detail (``"schema_violation"``), for counting."""
        return None if self.error is None else self.error.split(":", 1)[0]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        data = asdict(self)
        data["tool_calls"] = [asdict(c) for c in self.tool_calls]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Completion:
        """Inverse of :meth:`to_dict`."""
        calls = tuple(ToolCall(**c) for c in data.get("tool_calls") or ())
        return cls(**{**data, "tool_calls": calls})

    @classmethod
    def failure(cls, error: str, *, transient: bool = True) -> Completion:
        """A completion that carries only an error (kept to one line)."""
        return cls(error=one_line(error), transient=transient)


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def canonical_json(value: Any) -> str:
    """Canonical JSON text: sorted keys, no spaces, UTF-8 kept (same data, same bytes)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def count_errors(completions: Sequence[Completion]) -> dict[str, int]:
    """Rejected completions counted by reason code, sorted by count then name."""
    counts = Counter(c.reason for c in completions if c.reason is not None)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


class Backend(ABC):
    """A batch of chat requests in, one :class:`Completion` per request out, in order.

    ``kind`` and ``model_id`` name what answers (they are part of every cache key); ``stats`` counts
    what the backend did (``requests`` at least).
    """

    kind: ClassVar[str]
    model_id: str

    def __init__(self) -> None:
        self.stats: dict[str, int] = {"requests": 0}

    @abstractmethod
    def generate(self, requests: Sequence[ChatRequest], on_complete: OnComplete | None = None) -> list[Completion]:
        """Complete every request; call ``on_complete(i, completion)`` as each one is ready."""

    @abstractmethod
    def check_reachable(self) -> None:
        """Raise :class:`BackendUnavailable` (one line) if this backend cannot serve at all."""

    def close(self) -> None:
        """Free what the backend holds (models, connections)."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.kind}:{self.model_id})"
