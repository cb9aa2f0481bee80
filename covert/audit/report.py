"""Running the checks over a dataset and tabulating the rates per builder and category."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from covert.audit import imported as _imported  # noqa: F401 - registers the checks of imported rows
from covert.audit.checks import CHECKS, Check, Verdict, closing, opening
from covert.audit.distribution import (
    EMAIL_IS,
    PROPOSAL,
    SAMPLES,
    confirmation_replies,
    distinct_2,
    fixed_plan_share,
    polite,
)
from covert.audit.imported import source_of
from covert.audit.queries import QueryStats
from covert.audit.rows import row_view
from covert.scale.engine import Pool, open_pool, ordered_map

ALL = "all"


@dataclass
class Tally:
    """Applicable and flagged rows of one check."""

    applicable: int = 0
    flagged: int = 0

    @property
    def rate(self) -> float | None:
        return self.flagged / self.applicable if self.applicable else None

    def to_dict(self) -> dict[str, Any]:
        return {"applicable": self.applicable, "flagged": self.flagged,
                "rate": round(self.rate, 4) if self.rate is not None else None}


@dataclass
class CheckResult:
    """One check over one config: tallies overall, per builder, per category and per cell."""

    check: Check
    total: Tally = field(default_factory=Tally)
    per_builder: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    per_category: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    per_cell: dict[tuple[str, str], Tally] = field(default_factory=lambda: defaultdict(Tally))
    per_source: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    kinds: Counter[str] = field(default_factory=Counter)
    flagged: list[tuple[str, str, str]] = field(default_factory=list)  # (task_id, kind, detail)

    def add(self, builder: str, category: str, flagged: bool) -> None:
        for tally in (self.total, self.per_builder[builder], self.per_category[category],
                      self.per_cell[(builder, category)], self.per_source[source_of(builder)]):
            tally.applicable += 1
            tally.flagged += flagged

    def to_dict(self, examples: int, seed: int) -> dict[str, Any]:
        sample = random.Random(seed).sample(self.flagged, min(examples, len(self.flagged)))
        return {
            "description": self.check.description, "bar": self.check.bar, **self.total.to_dict(),
            "kinds": dict(self.kinds.most_common()),
            "per_builder": {k: v.to_dict() for k, v in sorted(self.per_builder.items())},
            "per_category": {k: v.to_dict() for k, v in sorted(self.per_category.items())},
            "per_source": {k: v.to_dict() for k, v in sorted(self.per_source.items())},
            "per_cell": {f"{b}/{c}": v.to_dict() for (b, c), v in sorted(self.per_cell.items())},
            "examples": [{"task_id": t, "kind": k, "detail": d} for t, k, d in sorted(sample)],
        }


@dataclass
class ConfigAudit:
    """The audit of one config of a dataset."""

    config: str
    rows: int = 0
    results: dict[str, CheckResult] = field(default_factory=dict)
    openings: Counter[str] = field(default_factory=Counter)
    closings: Counter[str] = field(default_factory=Counter)
    queries: list[str] = field(default_factory=list)
    query_groups: dict[str, QueryStats] = field(default_factory=lambda: defaultdict(QueryStats))
    plans: list[list[str]] = field(default_factory=list)
    confirmations: list[str] = field(default_factory=list)

    def add(self, found: RowFindings) -> None:
        """Count one row's findings (rows are added in the dataset's order)."""
        self.rows += 1
        if found.query:
            self.query_groups[source_of(found.builder)].add(found.query)
            if found.builder.startswith("api."):
                self.query_groups["api (all imported)"].add(found.query)
            self.openings[opening(found.query)] += 1
            self.closings[closing(found.query)] += 1
            self.queries.append(found.query)
        if found.plans:
            self.plans.append(list(found.plans))
        self.confirmations += found.confirmations
        for name, verdict in found.verdicts:
            result = self.results[name]
            result.add(found.builder, found.category, verdict.flagged)
            if verdict.flagged:
                result.kinds[verdict.kind] += 1
                result.flagged.append((found.task_id, verdict.kind, verdict.detail))

    def language(self) -> dict[str, Any]:
        """The config's distribution measures (:mod:`covert.audit.distribution`)."""
        queries = self.queries
        fixed, plans = fixed_plan_share(self.plans)
        d2 = distinct_2(queries)
        return {
            "politeness": round(sum(map(polite, queries)) / len(queries), 4) if queries else None,
            "distinct_2": round(d2, 4) if d2 is not None else None,
            "my_email_is": round(sum(bool(EMAIL_IS.search(q)) for q in queries) / len(queries), 4) if queries else None,
            "fixed_plans": round(fixed, 4) if fixed is not None else None, "plans": plans,
            **confirmation_replies(self.confirmations),
        }

    def to_dict(self, examples: int = 5, seed: int = 0) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "checks": {name: r.to_dict(examples, seed) for name, r in self.results.items()},
            "language": self.language(),
            "queries": {
                "distinct_openings": len([k for k in self.openings if k]),
                "distinct_closings": len([k for k in self.closings if k]),
                "openings": dict(self.openings.most_common(12)),
                "closings": dict(self.closings.most_common(12)),
                "per_source": {k: v.to_dict() for k, v in sorted(self.query_groups.items())},
            },
        }


def checks_for(config: str) -> list[Check]:
    """The checks that apply to the rows of ``config`` (every config's, plus multi-turn's or augmented's)."""
    wanted = {"all", *(["multiturn"] if "multiturn" in config else []), *(["augmented"] if "augmented" in config else [])}
    return [c for c in CHECKS if c.configs in wanted]


@dataclass(frozen=True)
class RowFindings:
    """What auditing one row found: its verdicts (check name, verdict; the checks that apply to it) and what
    the config's distribution measures take from it (its first user turn, plans and confirmation replies)."""

    task_id: str
    builder: str
    category: str
    query: str
    plans: tuple[str, ...]
    confirmations: tuple[str, ...]
    verdicts: tuple[tuple[str, Verdict], ...]


def row_findings(item: tuple[dict[str, Any], str]) -> RowFindings:
    """Run the checks of config ``item[1]`` on the row ``item[0]``: the unit of work of :func:`audit_rows` on
    every engine (it depends on the row alone)."""
    row, config = item
    view = row_view(row)
    verdicts = ((check.name, check.fn(view)) for check in checks_for(config))
    return RowFindings(
        task_id=view.task_id, builder=view.builder, category=view.category, query=view.query,
        plans=tuple(text for kind, text in view.extras.get("timeline") or [] if kind == "reasoning"),
        confirmations=tuple(reply for question, reply, _ in view.extras.get("exchanges") or []
                            if PROPOSAL.search(question)),
        verdicts=tuple((name, verdict) for name, verdict in verdicts if verdict is not None))


def audit_rows(rows: Iterable[dict[str, Any]], config: str = "sft", pool: Pool | None = None) -> ConfigAudit:
    """Run every check that applies to ``config`` on SFT-shaped rows (``messages`` and ``tools``): here, or
    on ``pool`` (:func:`covert.scale.engine.open_pool`), whose results come back in the rows' order, so the
    audit is the same on every engine."""
    audit = ConfigAudit(config, results={c.name: CheckResult(c) for c in checks_for(config)})
    for found in ordered_map(row_findings, ((row, config) for row in rows), pool, chunksize=32):
        audit.add(found)
    return audit


def sft_configs(root: Path) -> list[str]:
    """The configs of a dataset whose rows carry messages (sft, sft-multiturn, sft-augmented, ...)."""
    return sorted(p.name for p in root.iterdir() if p.is_dir() and p.name.startswith("sft") and any(p.glob("*.parquet")))


def audit_dataset(root: str | Path, configs: list[str] | None = None, workers: int = 1, engine: str = "local",
                  ray_address: str | None = None) -> dict[str, ConfigAudit]:
    """Audit every SFT config of a dataset directory (or the ones named). The rows are checked on
    ``workers`` local processes (``engine="local"``) or as Ray Data tasks (``engine="ray"``, on local Ray
    or the cluster at ``ray_address``): the same audit either way."""
    from covert.io.reader import DatasetError, iter_rows, load_manifest

    root = Path(root)
    load_manifest(root)
    names = configs or sft_configs(root)
    if not names:
        raise DatasetError(f"{root} has no sft config to audit; build one with `covert build`")
    pool = open_pool(engine, workers, ray_address=ray_address)
    try:
        return {name: audit_rows(iter_rows(root, name), name, pool) for name in names}
    finally:
        if pool is not None:
            pool.close()


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _rate(tally: Tally | None) -> str:
    if tally is None or tally.rate is None:
        return "-"
    return f"{100 * tally.rate:.1f}%"


def format_table(audit: ConfigAudit, by: str) -> str:
    """A table: one line per check, a column for all rows and one per category (``by="category"``) or
    builder (``by="builder"``); a cell is the flagged share of the rows the check applies to."""
    keys = sorted({k for r in audit.results.values() for k in getattr(r, f"per_{by}")})
    width = max(len(name) for name in audit.results) if audit.results else 10
    cols = [ALL, *keys]
    col_width = [max(7, len(c)) for c in cols]
    lines = [f"{by:<{width}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cols, col_width, strict=True)) + "    bar"]
    for name, result in audit.results.items():
        per = getattr(result, f"per_{by}")
        cells = [_rate(result.total)] + [_rate(per.get(k)) for k in keys]
        lines.append(f"{name:<{width}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells, col_width, strict=True))
                     + f"  {100 * result.check.bar:>4.0f}%")
    return "\n".join(lines)


def format_report(audits: dict[str, ConfigAudit], examples: int = 0, seed: int = 0) -> str:
    """The report ``covert audit`` prints."""
    out = []
    for name, audit in audits.items():
        out.append(f"== {name}: {audit.rows} rows (share of the rows each check applies to; '-' = none)")
        out.append(format_table(audit, "category"))
        out.append("")
        out.append(format_table(audit, "builder"))
        out.append("")
        if any(k.startswith("api.") for k in audit.query_groups):
            out.append(format_table(audit, "source"))
            out.append("")
        out.append("queries per source: rows, duplicated first turns, distinct-2 (over an equal sample), polite")
        for source, stats in sorted(audit.query_groups.items()):
            d = stats.to_dict()
            out.append(f"  {source:<24} {d['rows']:>6}  dup {_share(d['duplicate_first_turns'])}  "
                       f"distinct-2 {d['distinct_2'] if d['distinct_2'] is not None else '-'} "
                       f"(mean of {SAMPLES} x {d['distinct_2_sample']})  polite {_share(d['polite'])}")
        out.append("")
        out.append("applicable rows and kinds:")
        for check_name, result in audit.results.items():
            kinds = ", ".join(f"{k} {n}" for k, n in result.kinds.most_common(6))
            out.append(f"  {check_name:<24} {result.total.flagged:>6} of {result.total.applicable:<6} {kinds}")
        total = sum(audit.openings.values()) or 1
        greeted = total - audit.openings.get("", 0)
        thanked = total - audit.closings.get("", 0)
        out.append(f"queries: {greeted / total:.0%} open with a greeting ({len(audit.openings) - ('' in audit.openings)}"
                   f" distinct), {thanked / total:.0%} close with a thank-you "
                   f"({len(audit.closings) - ('' in audit.closings)} distinct)")
        out.append("  openings: " + ", ".join(f"{k or '(none)'} {n}" for k, n in audit.openings.most_common(8)))
        out.append("  closings: " + ", ".join(f"{k or '(none)'} {n}" for k, n in audit.closings.most_common(8)))
        lang = audit.language()
        out.append("language: " + ", ".join(f"{k} {v}" for k, v in lang.items()))
        if examples:
            out.append("examples of flagged rows:")
            for check_name, result in audit.results.items():
                rng = random.Random(seed)
                for task_id, kind, detail in sorted(rng.sample(result.flagged, min(examples, len(result.flagged)))):
                    out.append(f"  {check_name:<24} {task_id}  [{kind}] {detail}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"
