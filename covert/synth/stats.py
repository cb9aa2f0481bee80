"""Build statistics: acceptance and rejections by reason, categories, coverage, diversity."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from typing import Any

DIVERSITY_SAMPLE = 5000  # queries whose 4-grams are counted (bounded memory)
EXHAUSTED_AFTER = 2  # items of a (builder, category) that failed every attempt before the planner gives it up


class BuildStats:
    """Counts collected while building; :meth:`summary` is what the CLI prints and the manifest keeps."""

    def __init__(self, builders: list[Any]) -> None:
        self.tools_of = {b.name: list(b.tools) for b in builders}
        self.accepted = 0
        self.candidates = 0
        self.rejections: Counter[str] = Counter()
        self.per_category: Counter[str] = Counter()
        self.per_builder: Counter[str] = Counter()
        self.per_split: Counter[str] = Counter()
        self.tool_use: dict[str, Counter[str]] = {b.name: Counter() for b in builders}
        self.target_tries: Counter[tuple[str, str]] = Counter()
        self.target_accepts: Counter[tuple[str, str]] = Counter()
        self.category_items: Counter[tuple[str, str]] = Counter()  # (builder, planned category): items made
        self.category_accepts: Counter[tuple[str, str]] = Counter()
        self.methods: Counter[str] = Counter()
        self.signatures: set[str] = set()
        self.split_signatures: dict[str, set[str]] = defaultdict(set)
        self.query_hashes: set[bytes] = set()
        self.fourgrams: set[int] = set()
        self.fourgram_total = 0
        self.sampled_queries = 0

    def said_before(self, query: str) -> bool:
        """Whether an accepted task of this build already opened with ``query`` word for word: a second row
        with the same first turn teaches nothing the first did not, so the build rejects it."""
        return hashlib.blake2b(query.encode(), digest_size=12).digest() in self.query_hashes

    def record(self, spec: Any, rejections: list[str], facts: dict[str, Any]) -> None:
        """One item's outcome."""
        self.candidates += len(rejections) + (1 if facts else 0)
        self.rejections.update(rejections)
        if spec.target:
            self.target_tries[(spec.builder, spec.target)] += len(rejections) + (1 if facts else 0)
        self.category_items[(spec.builder, spec.category)] += 1
        if not facts:
            return
        self.category_accepts[(spec.builder, spec.category)] += 1
        if spec.target:
            self.target_accepts[(spec.builder, spec.target)] += 1
        self.accepted += 1
        self.per_category[facts["category"]] += 1
        self.per_builder[facts["builder"]] += 1
        self.methods[facts["method"]] += 1
        self.tool_use[facts["builder"]].update(facts["tools"])
        query = facts["query"]
        self.query_hashes.add(hashlib.blake2b(query.encode(), digest_size=12).digest())
        if self.sampled_queries < DIVERSITY_SAMPLE:
            self.sampled_queries += 1
            words = query.lower().split()
            self.fourgram_total += max(len(words) - 3, 0)
            self.fourgrams.update(map(hash, zip(words, words[1:], words[2:], words[3:])))

    def exhausted(self, items: int = EXHAUSTED_AFTER) -> frozenset[tuple[str, str]]:
        """The ``(builder, category)`` pairs whose every one of at least ``items`` items failed all its
        attempts: the builder cannot make that category (an imported API whose parallel calls can never
        differ, whose records nothing tells apart), so the planner stops drawing it. Hand-written builders
        make every category they can, so their plans never change."""
        return frozenset(key for key, made in self.category_items.items()
                         if made >= items and not self.category_accepts.get(key))

    def count_split(self, split: str, signature: str) -> None:
        """Where an accepted task went."""
        self.per_split[split] += 1
        self.signatures.add(signature)
        self.split_signatures[split].add(signature)

    def summary(self) -> dict[str, Any]:
        """Plain-data summary."""
        coverage = {}
        for builder, tools in self.tools_of.items():
            used = self.tool_use[builder]
            coverage[builder] = {"covered": sum(1 for t in tools if used.get(t)), "tools": len(tools),
                                 "missing": [t for t in tools if not used.get(t)]}
        leaked = len(self.split_signatures["train"] & self.split_signatures["test"])
        return {
            "accepted": self.accepted,
            "candidates": self.candidates,
            "acceptance_rate": round(self.accepted / self.candidates, 4) if self.candidates else 0.0,
            "rejected_by_reason": dict(sorted(self.rejections.items(), key=lambda kv: (-kv[1], kv[0]))),
            "per_category": dict(sorted(self.per_category.items())),
            "per_builder": dict(sorted(self.per_builder.items())),
            "per_split": dict(sorted(self.per_split.items())),
            "methods": dict(sorted(self.methods.items())),
            "tool_coverage": coverage,
            "diversity": {
                "unique_query_share": round(len(self.query_hashes) / self.accepted, 4) if self.accepted else 0.0,
                "distinct_4gram_ratio": round(len(self.fourgrams) / self.fourgram_total, 4) if self.fourgram_total else 0.0,
                "distinct_4gram_sample": self.sampled_queries,
                "distinct_tool_sequences": len(self.signatures),
            },
            "train_test_shared_signatures": leaked,
        }
