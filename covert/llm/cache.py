"""A content-addressed on-disk cache of completions, and a backend wrapper that uses it.

The key of a request is the SHA-256 of the canonical JSON of (backend kind, model id, request with its
sampling params and seed). Entries live at ``<dir>/<k[:2]>/<k[2:4]>/<k>.json`` and are written
atomically (temporary file, fsync, rename) the moment each completion exists, so an interrupted run
resumes without paying for anything it already got. Transient failures (HTTP errors, timeouts) are not
cached; rejected model outputs are, since asking again would return the same output.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Sequence
from pathlib import Path

from covert.llm.base import Backend, ChatRequest, Completion, OnComplete, canonical_json

CACHE_FORMAT = 1
_tmp_counter = itertools.count()


def request_key(kind: str, model_id: str, request: ChatRequest) -> str:
    """The cache key of ``request`` sent to ``kind:model_id``."""
    payload = {"format": CACHE_FORMAT, "kind": kind, "model": model_id, "request": request.to_dict()}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


class DiskCache:
    """Completions stored by key under ``root`` in a two-level sharded layout."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        """Where the entry for ``key`` lives."""
        return self.root / key[:2] / key[2:4] / f"{key}.json"

    def get(self, key: str) -> Completion | None:
        """The cached completion, or ``None`` if absent or unreadable (then it is simply made again)."""
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
            if data.get("key") != key:
                return None
            return Completion.from_dict(data["completion"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, completion: Completion) -> None:
        """Store ``completion`` atomically: a reader sees the old entry or the whole new one."""
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{key}.{os.getpid()}.{next(_tmp_counter)}.tmp")
        text = canonical_json({"key": key, "completion": completion.to_dict()})
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)

    def __len__(self) -> int:
        return sum(1 for _ in self.root.glob("*/*/*.json")) if self.root.is_dir() else 0


class CachedBackend(Backend):
    """Wraps a backend so that identical requests are never sent twice (on disk or within a batch).

    ``stats``: ``hits`` served from disk, ``misses`` distinct requests sent to the backend,
    ``duplicates`` repeats within a batch answered by the same call, ``requests`` all requests seen.
    """

    def __init__(self, backend: Backend, cache_dir: str | os.PathLike[str]) -> None:
        super().__init__()
        self.backend = backend
        self.cache = DiskCache(cache_dir)
        self.kind = backend.kind  # type: ignore[misc]
        self.model_id = backend.model_id
        self.stats.update(hits=0, misses=0, duplicates=0)

    def generate(self, requests: Sequence[ChatRequest], on_complete: OnComplete | None = None) -> list[Completion]:
        """Answer from the cache where possible; send each distinct missing request once."""
        results: list[Completion | None] = [None] * len(requests)
        pending: dict[str, list[int]] = {}
        for i, request in enumerate(requests):
            key = request_key(self.backend.kind, self.backend.model_id, request)
            if key in pending:
                pending[key].append(i)
                self.stats["duplicates"] += 1
                continue
            cached = self.cache.get(key)
            if cached is None:
                pending[key] = [i]
                continue
            self.stats["hits"] += 1
            results[i] = cached
            if on_complete is not None:
                on_complete(i, cached)
        self.stats["requests"] += len(requests)
        keys = list(pending)
        self.stats["misses"] += len(keys)
        if keys:
            done: set[int] = set()

            def store(j: int, completion: Completion) -> None:
                if j in done:
                    return
                done.add(j)
                if not completion.transient:
                    self.cache.put(keys[j], completion)
                for i in pending[keys[j]]:
                    results[i] = completion
                    if on_complete is not None:
                        on_complete(i, completion)

            answers = self.backend.generate([requests[pending[k][0]] for k in keys], on_complete=store)
            for j, completion in enumerate(answers):
                store(j, completion)
        return [r if r is not None else Completion.failure("backend_error: no result") for r in results]

    def check_reachable(self) -> None:
        """Whether the wrapped backend can serve."""
        self.backend.check_reachable()

    def close(self) -> None:
        """Close the wrapped backend."""
        self.backend.close()
