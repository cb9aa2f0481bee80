"""The pool of admitted LLM-written environments, with rotation that retires stale or too-easy members.

A pool is a JSON file (written to a temporary name, then renamed): each member keeps its source text,
the verdict's behaviour signature and pass rate, and the round it joined. :meth:`EnvPool.rotate` takes
fresh solver pass rates and retires members the solver has caught up with (``too_easy``), members older
than ``max_age`` rounds (``stale``) and, over ``capacity``, the easiest ones (``capacity``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from covert.atomic import write_atomically
from covert.procgen.candidates import Candidate, Verdict, ast_shape, source_sha

POOL_FORMAT = 1


@dataclass
class Member:
    """One admitted environment."""

    name: str
    version: str
    source: str
    sha: str
    joined: int
    pass_rate: float
    signature: list[float] = field(default_factory=list)
    label: str = ""


@dataclass
class EnvPool:
    """Admitted environments. ``capacity`` members at most; ``max_age`` rounds before a member is stale;
    a member whose pass rate goes above ``too_easy`` is retired."""

    capacity: int = 64
    max_age: int = 10
    too_easy: float = 0.9
    members: dict[str, Member] = field(default_factory=dict)
    retired: list[dict[str, Any]] = field(default_factory=list)

    def members_for_novelty(self) -> list[tuple[str, list[str], list[float]]]:
        """(name, AST shape, signature) of every member, for the novelty check."""
        return [(m.name, ast_shape(m.source), m.signature) for m in self.members.values()]

    def add(self, candidate: Candidate, verdict: Verdict, round_no: int) -> Member:
        """Add an admitted candidate; a member of the same name is replaced (a new version)."""
        if not verdict.admitted:
            raise ValueError(f"{candidate.label} was not admitted ({verdict.rejection}); only admitted "
                             "environments join the pool")
        member = Member(verdict.name, verdict.version, candidate.source, source_sha(candidate.source), round_no,
                        float(verdict.pass_rate or 0.0), list(verdict.signature), candidate.label)
        self.members[member.name] = member
        return member

    def rotate(self, round_no: int, pass_rates: Mapping[str, float] | None = None) -> list[dict[str, Any]]:
        """Update pass rates and retire stale, too-easy and surplus members; returns what was retired."""
        for name, rate in (pass_rates or {}).items():
            if name in self.members:
                self.members[name].pass_rate = float(rate)
        out: list[dict[str, Any]] = []
        for name in sorted(self.members):
            member = self.members[name]
            if member.pass_rate > self.too_easy:
                out.append({"name": name, "round": round_no, "reason": "too_easy", "pass_rate": member.pass_rate})
            elif round_no - member.joined >= self.max_age:
                out.append({"name": name, "round": round_no, "reason": "stale", "pass_rate": member.pass_rate})
        for item in out:
            del self.members[item["name"]]
        surplus = len(self.members) - self.capacity
        if surplus > 0:
            easiest = sorted(self.members.values(), key=lambda m: (-m.pass_rate, m.joined, m.name))[:surplus]
            for member in easiest:
                out.append({"name": member.name, "round": round_no, "reason": "capacity",
                            "pass_rate": member.pass_rate})
                del self.members[member.name]
        self.retired.extend(out)
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (members sorted by name)."""
        return {"format": POOL_FORMAT, "capacity": self.capacity, "max_age": self.max_age, "too_easy": self.too_easy,
                "members": [asdict(self.members[n]) for n in sorted(self.members)], "retired": self.retired}

    def save(self, path: str | Path) -> None:
        """Write the pool as JSON, atomically (same pool, same bytes)."""
        write_atomically(path, json.dumps(self.to_dict(), sort_keys=True, indent=1, ensure_ascii=False) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> EnvPool:
        """Read a pool file; a missing file is an empty pool; a bad one a one-line ValueError."""
        p = Path(path)
        if not p.exists():
            return cls()
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("format") != POOL_FORMAT:
                raise ValueError("no pool format marker")
            members = {m["name"]: Member(**m) for m in data["members"]}
            return cls(data["capacity"], data["max_age"], data["too_easy"], members, list(data.get("retired", [])))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path} is not a covert environment pool ({exc}); pass another --pool path") from None

    def candidates(self) -> Iterable[Candidate]:
        """The members as candidates (to re-admit them, e.g. after a contract change)."""
        return [Candidate(m.label or m.name, m.source, "pool") for m in self.members.values()]
