"""The behaviour signature of a procedural environment and the similarity of two signatures (L5 novelty).

A signature is computed from what the environment does on fixed seeds, never from its code: the
instances it samples (the shape of their data, the words of their task statement), the form of its
reference answers, and its scorer's verdicts on probe answers. It has four groups of features:

- ``probes``: the scorer's mean value over the instances on each probe answer (trivial answers, garbage,
  another instance's reference), divided by the number of probes (the group sums to at most 1);
- ``schema``: the instance data's key paths with their JSON types, hashed into buckets, as shares;
- ``answers``: the form of each reference's answer (digit runs as ``9``, letter runs as ``a``), hashed,
  as shares;
- ``words``: the task statement's words (letters only, three or more, numbers dropped), hashed, as shares.

Similarity is the weighted Jaccard (Ruzicka) index of two signatures: the sum of their element-wise
minima over the sum of their maxima. Each hashed group sums to 1 and the probes to at most 1, so no group
outweighs another and the probes (mostly zeros) do not dilute the others. The same behaviour gives 1.0; two environments
that pose different problems (other words, other data, other answers) score far lower even when they
share a template, and a copy with rewritten code but the same behaviour still scores 1.0.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

SCHEMA_BUCKETS = 32
ANSWER_BUCKETS = 32
WORD_BUCKETS = 64
MAX_TEXT_CHARS = 20_000  # bound the work a hostile candidate's prompt or reference can cause
MAX_PATHS = 400
_WORD = re.compile(r"[a-z]{3,}")
_DIGITS = re.compile(r"[0-9]+")
_LETTERS = re.compile(r"[A-Za-z]+")
_SPACE = re.compile(r"\s+")


def _bucket(token: str, buckets: int) -> int:
    return int.from_bytes(hashlib.blake2b(token.encode("utf-8", "replace"), digest_size=4).digest(), "big") % buckets


def _shares(tokens: Iterable[str], buckets: int) -> list[float]:
    counts = [0.0] * buckets
    total = 0
    for token in tokens:
        counts[_bucket(token, buckets)] += 1
        total += 1
    return [round(c / total, 6) for c in counts] if total else counts


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "list", dict: "object"}.get(type(value), "null")


def schema_paths(data: Any, prefix: str = "", depth: int = 0, out: list[str] | None = None) -> list[str]:
    """The key paths of JSON ``data`` with their types (``edges[][]:number``), at most :data:`MAX_PATHS`, one
    entry per distinct path and at most 4 levels deep; list elements share one path."""
    out = [] if out is None else out
    if len(out) >= MAX_PATHS:
        return out
    kind = _type_name(data)
    entry = f"{prefix}:{kind}"
    if entry not in out:
        out.append(entry)
    if depth >= 4:
        return out
    if isinstance(data, dict):
        for key in sorted(data)[:50]:
            schema_paths(data[key], f"{prefix}.{key}", depth + 1, out)
    elif isinstance(data, list):
        for item in data[:20]:
            schema_paths(item, f"{prefix}[]", depth + 1, out)
    return out


def answer_form(reference: str) -> str:
    """The form of a reference's answer (the text after its last ``Answer:``, else its last line): digit runs
    become ``9``, letter runs ``a``, white space one blank; at most 60 characters."""
    text = reference[-MAX_TEXT_CHARS:]
    _head, marker, answer = text.rpartition("Answer:")
    if not marker:
        answer = (text.strip().splitlines() or [""])[-1]
    form = _LETTERS.sub("a", _DIGITS.sub("9", answer.strip()))
    return _SPACE.sub(" ", form)[:60]


def statement_words(prompt: str) -> set[str]:
    """The distinct lower-case words (three or more letters) of a task statement."""
    return set(_WORD.findall(prompt[:MAX_TEXT_CHARS].lower()))


def behaviour_signature(items: Sequence[dict[str, Any]], probe_scores: Sequence[Sequence[float]]) -> list[float]:
    """The signature of instances ``items`` (``{"prompt", "data", "reference"}``) and the scorer's values
    ``probe_scores`` (one row per instance, one value per probe answer): ``probes + schema + answers +
    words`` (see the module doc)."""
    rows = [list(row) for row in probe_scores]
    width = len(rows[0]) if rows else 0
    probes = [round(sum(row[j] for row in rows) / len(rows) / width, 6) for j in range(width)] if width else []
    schema = _shares((p for item in items for p in schema_paths(item["data"])), SCHEMA_BUCKETS)
    answers = _shares((answer_form(item["reference"]) for item in items), ANSWER_BUCKETS)
    words = _shares(sorted(set().union(*(statement_words(item["prompt"]) for item in items))), WORD_BUCKETS)
    return probes + schema + answers + words


def behaviour_similarity(a: Sequence[float], b: Sequence[float]) -> float:
    """The weighted Jaccard index of two signatures in [0, 1] (0 when their shapes differ or both are empty)."""
    if not a or len(a) != len(b):
        return 0.0
    top = sum(max(x, y) for x, y in zip(a, b, strict=True))
    if top <= 0:
        return 1.0 if list(a) == list(b) else 0.0
    return sum(min(x, y) for x, y in zip(a, b, strict=True)) / top

