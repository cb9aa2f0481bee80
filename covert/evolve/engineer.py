"""The environment engineer: a stage summary in, the next stage's configurations out.

Rules (LLM-as-Environment-Engineer's findings): keep every configuration whose pass rate is inside the
learnable band; change few knobs at a time; move toward the band using the failure evidence (lower the
knob behind the dominant failure of a too-hard configuration, raise the knob behind the failures a
too-easy configuration still shows). Whatever proposes a configuration (rules or an LLM), the result is
checked against the knobs' levels: values are clamped to the nearest level, and an unparsable or no-op
proposal falls back to the previous configuration with a recorded reason.

The rules are enforced in code (:func:`guard`), not only stated in the prompt: a change is refused, and
the previous configuration kept, when it moves a configuration inside the band, changes more than
:data:`MAX_KNOBS` knobs or moves a knob more than :data:`MAX_STEP` levels (:data:`MAX_STEPS` in all),
makes a too-hard configuration harder or a too-easy one easier, or cites no failure evidence of that
configuration linked to each knob it changes (a too-easy one may cite its pass rate).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from covert.evolve.summary import check_summary, knobs_of
from covert.procgen.contract import Knob, config_key

BAND = (0.2, 0.8)
MAX_KNOBS = 2  # knobs changed per configuration per stage
MAX_STEPS = 3  # knob levels moved per configuration per stage, all knobs together
MAX_STEP = 2  # knob levels one knob moves per stage
PASS_RATE_EVIDENCE = "pass_rate"  # what a too-easy configuration with no failures cites
OUTPUT_ID = "covert/stage-config@1"


@dataclass(frozen=True)
class Decision:
    """What the engineer did with one configuration."""

    previous: dict[str, Any]
    config: dict[str, Any]
    action: str  # keep, raise, lower, llm, fallback, refused
    changed: tuple[str, ...]
    reason: str
    pass_rate: float | None
    evidence: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form."""
        return {"previous": self.previous, "config": self.config, "action": self.action,
                "changed": list(self.changed), "reason": self.reason, "pass_rate": self.pass_rate,
                "evidence": list(self.evidence)}


@dataclass(frozen=True)
class Proposal:
    """The next stage's configurations, one decision per configuration of the summary."""

    environment: str
    stage: int
    engineer: str
    decisions: tuple[Decision, ...]
    notes: tuple[str, ...] = field(default=())

    @property
    def configs(self) -> list[dict[str, Any]]:
        """The next stage's configurations (distinct, in decision order)."""
        seen: dict[str, dict[str, Any]] = {}
        for d in self.decisions:
            seen.setdefault(config_key(d.config), d.config)
        return list(seen.values())

    def to_dict(self) -> dict[str, Any]:
        """The document ``covert engineer`` writes."""
        return {"schema": OUTPUT_ID, "environment": self.environment, "stage": self.stage, "engineer": self.engineer,
                "configs": self.configs, "decisions": [d.to_dict() for d in self.decisions], "notes": list(self.notes)}


def clamp(knob: Knob, value: Any) -> Any:
    """The level of ``knob`` nearest to ``value`` (exact match first; numbers by distance; else ``None``)."""
    for level in knob.levels:
        if level == value and type(level) is type(value):
            return level
    numeric = [lv for lv in knob.levels if isinstance(lv, (int, float)) and not isinstance(lv, bool)]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and numeric and math.isfinite(value):
        return min(numeric, key=lambda lv: (abs(lv - value), knob.levels.index(lv)))
    if isinstance(value, str):
        for level in knob.levels:
            if str(level).lower() == value.strip().lower():
                return level
    return None


def checked_config(knobs: Sequence[Knob], proposed: Any, previous: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``proposed`` made valid: every knob present, each value clamped to a level (the previous value where
    a value is missing or unusable). Returns the configuration and notes on what was repaired."""
    notes: list[str] = []
    if not isinstance(proposed, Mapping):
        return dict(previous), ["proposal is not an object"]
    names = {k.name for k in knobs}
    for extra in sorted(set(proposed) - names):
        notes.append(f"unknown knob {extra!r} ignored")
    out: dict[str, Any] = {}
    for knob in knobs:
        if knob.name not in proposed:
            out[knob.name] = previous[knob.name]
            continue
        value = clamp(knob, proposed[knob.name])
        if value is None:
            notes.append(f"{knob.name}: {str(proposed[knob.name])[:40]!r} is not a level; kept {previous[knob.name]!r}")
            value = previous[knob.name]
        elif value != proposed[knob.name] or type(value) is not type(proposed[knob.name]):
            notes.append(f"{knob.name}: {proposed[knob.name]!r} clamped to {value!r}")
        out[knob.name] = value
    return out, notes


def guard(knobs: Sequence[Knob], entry: Mapping[str, Any], previous: Mapping[str, Any], config: Mapping[str, Any],
          evidence: Sequence[str], failure_knobs: Mapping[str, Sequence[str]], band: tuple[float, float]) -> list[str]:
    """Why the change ``previous -> config`` of one summary entry breaks the engineer's rules (empty: it
    does not). ``evidence`` are the failure categories the proposal cites; ``failure_knobs`` links each
    category to the knobs that make it likelier (with no link known for a category, citing one this
    configuration shows covers any knob)."""
    changed = [k for k in knobs if config[k.name] != previous[k.name]]
    if not changed:
        return []
    problems: list[str] = []
    p = entry.get("pass_rate")
    low, high = band
    if p is not None and low <= p <= high:
        problems.append(f"pass rate {p:.2f} is inside [{low}, {high}]: a configuration in the learnable band is kept")
    moves = {k.name: k.level_of(config[k.name]) - k.level_of(previous[k.name]) for k in changed}
    if len(changed) > MAX_KNOBS:
        problems.append(f"changes {len(changed)} knobs; at most {MAX_KNOBS} per stage")
    big = [f"{n} by {abs(m)}" for n, m in moves.items() if abs(m) > MAX_STEP]
    if big:
        problems.append(f"moves {', '.join(big)} levels; at most {MAX_STEP} per knob")
    if sum(abs(m) for m in moves.values()) > MAX_STEPS:
        problems.append(f"moves {sum(abs(m) for m in moves.values())} levels in all; at most {MAX_STEPS}")
    if p is not None and p < low and any(m > 0 for m in moves.values()):
        harder = ", ".join(n for n, m in moves.items() if m > 0)
        problems.append(f"pass rate {p:.2f} is below the band: a too-hard configuration is never made harder ({harder})")
    if p is not None and p > high and any(m < 0 for m in moves.values()):
        easier = ", ".join(n for n, m in moves.items() if m < 0)
        problems.append(f"pass rate {p:.2f} is above the band: a too-easy configuration is never made easier ({easier})")
    shown = {c for c, n in (entry.get("failures") or {}).items() if n}
    cited = [c for c in evidence if c in shown]
    if p is not None and p > high:
        cited += [c for c in evidence if c == PASS_RATE_EVIDENCE]
    for knob in changed:
        linked = [c for c in cited if c == PASS_RATE_EVIDENCE or c not in failure_knobs
                  or knob.name in failure_knobs[c]]
        if not linked:
            problems.append(f"the change to {knob.name} cites no failure evidence of this configuration linked to "
                            f"it (shown: {', '.join(sorted(shown)) or 'none'})")
    return problems


class RuleEngineer:
    """The default engineer: deterministic rules on the summary's pass rates and failure counts.

    Args:
        band: The learnable band of pass rates (inclusive).
        failure_knobs: Per failure category, the knobs that make it more likely when raised (the evidence
            map: for MAPF, ``vertex_conflict -> (agents, conflict_density)``). Knobs not named are used in
            their declared order when there is no evidence.
    """

    name = "rule"

    def __init__(self, band: tuple[float, float] = BAND, failure_knobs: Mapping[str, Sequence[str]] | None = None) -> None:
        if not 0.0 <= band[0] < band[1] <= 1.0:
            raise ValueError(f"a band is (low, high) with 0 <= low < high <= 1, got {band}")
        self.band = band
        self.failure_knobs = {k: tuple(v) for k, v in (failure_knobs or {}).items()}

    def propose(self, summary: Mapping[str, Any]) -> Proposal:
        """The next stage's configurations for one environment's summary."""
        check_summary(summary)
        knobs = knobs_of(summary)
        decisions = tuple(self._decide(knobs, entry) for entry in summary["configs"])
        return Proposal(summary["environment"], summary["stage"] + 1, self.name, decisions)

    def _decide(self, knobs: Sequence[Knob], entry: Mapping[str, Any]) -> Decision:
        previous, notes = checked_config(knobs, entry["config"], _first_levels(knobs, entry["config"]))
        p = entry["pass_rate"]
        if p is None or entry["episodes"] == 0:
            return Decision(previous, previous, "keep", (), "no episodes: nothing to go on, kept", p)
        low, high = self.band
        if low <= p <= high:
            return Decision(previous, previous, "keep", (), f"pass rate {p:.2f} is inside [{low}, {high}]: kept", p)
        direction = 1 if p > high else -1
        distance = p - high if direction > 0 else low - p
        steps = min(MAX_STEPS, 1 + int(distance / 0.15))
        order = self._knob_order(knobs, entry["failures"], direction)
        config = dict(previous)
        changed: list[str] = []
        for name in order:
            if steps == 0 or len(changed) == MAX_KNOBS:
                break
            knob = next(k for k in knobs if k.name == name)
            rank = knob.level_of(config[name])
            share = steps if len(changed) == MAX_KNOBS - 1 else max(1, math.ceil(steps / 2)) if len(order) > 1 else steps
            share = min(MAX_STEP, share)
            target = max(0, min(len(knob.levels) - 1, rank + direction * share))
            if target != rank:
                config[name] = knob.levels[target]
                changed.append(name)
                steps -= abs(target - rank)
        verb = "raise" if direction > 0 else "lower"
        if not changed:
            edge = "hardest" if direction > 0 else "easiest"
            return Decision(previous, previous, "keep", (), f"pass rate {p:.2f} is outside the band but every knob is at its {edge} level: kept", p)
        evidence = _evidence(entry["failures"], self.failure_knobs, changed)
        why = "too easy" if direction > 0 else "too hard"
        moves = ", ".join(f"{n} {previous[n]!r} -> {config[n]!r}" for n in changed)
        reason = f"pass rate {p:.2f} is {why}: {verb} {moves}" + (f" ({evidence})" if evidence else "")
        if notes:
            reason += "; " + "; ".join(notes)
        cited = tuple(c for c, n in entry["failures"].items() if n)
        if direction > 0:
            cited += (PASS_RATE_EVIDENCE,)
        refused = guard(knobs, entry, previous, config, cited, self.failure_knobs, self.band)
        if refused:
            return Decision(previous, previous, "refused", (), "; ".join(refused), p, cited)
        return Decision(previous, config, verb, tuple(changed), reason, p, cited)

    def _knob_order(self, knobs: Sequence[Knob], failures: Mapping[str, int], direction: int) -> list[str]:
        """Knobs to move, most evidence first: weight of each knob = the failures it is linked to. When some
        knob has linked evidence, only such knobs move (a change must answer evidence); else, with no
        failure linked to any knob, every knob in declared order."""
        weight = {k.name: 0 for k in knobs}
        for category, count in failures.items():
            for name in self.failure_knobs.get(category, ()):
                if name in weight:
                    weight[name] += count
        declared = [k.name for k in knobs]
        ranked = sorted(declared, key=lambda n: (-weight[n], declared.index(n)))
        unlinked = any(n and c not in self.failure_knobs for c, n in failures.items())
        if direction < 0 and any(weight.values()) and not unlinked:
            return [n for n in ranked if weight[n]]
        return ranked


def _first_levels(knobs: Sequence[Knob], config: Mapping[str, Any]) -> dict[str, Any]:
    return {k.name: config.get(k.name, k.levels[0]) if clamp(k, config.get(k.name)) is not None else k.levels[0]
            for k in knobs}


def _evidence(failures: Mapping[str, int], failure_knobs: Mapping[str, Sequence[str]], changed: Sequence[str]) -> str:
    linked = [f"{c} x{n}" for c, n in failures.items() if n and set(failure_knobs.get(c, ())) & set(changed)]
    return "failure evidence: " + ", ".join(linked[:3]) if linked else ""


# -- an LLM engineer ----------------------------------------------------------------------------------------

MAX_REPLY_CHARS = 20_000


def proposal_schema(knobs: Sequence[Knob]) -> dict[str, Any]:
    """The JSON Schema an LLM engineer's reply is constrained to."""
    config = {"type": "object", "additionalProperties": False, "required": [k.name for k in knobs],
              "properties": {k.name: {"enum": list(k.levels)} for k in knobs}}
    return {"type": "object", "additionalProperties": False, "required": ["configs"],
            "properties": {"configs": {"type": "array", "items": {
                "type": "object", "additionalProperties": False,
                "required": ["previous_index", "config", "evidence", "reason"],
                "properties": {"previous_index": {"type": "integer", "minimum": 0}, "config": config,
                               "evidence": {"type": "array", "maxItems": 8,
                                            "items": {"type": "string", "maxLength": 60}},
                               "reason": {"type": "string", "maxLength": 400}}}}}}


def engineer_prompt(summary: Mapping[str, Any], band: tuple[float, float],
                    failure_knobs: Mapping[str, Sequence[str]] | None = None) -> str:
    """The request an LLM engineer reads: the rules (as :func:`guard` enforces them), the knobs, each
    configuration's pass, valid and optimal rates, failure counts and instance statistics, which knob
    makes which failure likelier, and failure examples with the problem they failed on (a MAPF map)."""
    rows = [{"index": i, "config": e["config"], "episodes": e["episodes"], "pass_rate": e["pass_rate"],
             "valid_rate": e["valid_rate"], "optimal_rate": e["optimal_rate"], "failures": e["failures"],
             "statistics": e["statistics"]} for i, e in enumerate(summary["configs"])]
    examples = "\n\n".join(
        f"Example {n + 1}: config {json.dumps(e['config'], sort_keys=True)}, failures {', '.join(e['failures'])}\n"
        + (f"Problem:\n{e['instance'][:1500]}\n" if e.get("instance") else "")
        + f"Attempt:\n{e['trajectory'][:1200]}" for n, e in enumerate(summary["examples"]))
    links = json.dumps({k: list(v) for k, v in (failure_knobs or {}).items()}, sort_keys=True)
    return (
        "You are the environment engineer of an RL training run. For each configuration below, propose the "
        "configuration for the next stage. Rules (a proposal that breaks one is refused and the configuration "
        f"kept): a configuration whose pass rate is inside [{band[0]}, {band[1]}] is kept unchanged; otherwise "
        f"change at most {MAX_KNOBS} knobs, each by at most {MAX_STEP} levels and {MAX_STEPS} levels in all, toward "
        "the band (never make a too-hard configuration harder or a too-easy one easier); list in \"evidence\" "
        "the failure categories of that configuration your change answers, each linked to a knob you change "
        f"(a too-easy configuration may cite \"{PASS_RATE_EVIDENCE}\"). Use only the listed levels of each knob. "
        'Reply with JSON: {"configs": [{"previous_index": i, "config": {...}, "evidence": ["..."], '
        '"reason": "..."}]}.\n\n'
        f"Environment: {summary['environment']} (stage {summary['stage']})\n"
        f"Knobs (levels easiest first): {json.dumps(summary['knobs'], ensure_ascii=False)}\n"
        f"Which knobs make which failure likelier when raised: {links}\n"
        f"Configurations (pass, valid and optimal rates, failure counts, mean instance statistics): "
        f"{json.dumps(rows, ensure_ascii=False)}\n"
        f"Failure examples:\n{examples[:6000]}\n"
    )


def parse_reply(text: str) -> Any:
    """The JSON object in an LLM reply (fenced or bare); ``None`` when there is none. Bounded work."""
    text = (text or "")[:MAX_REPLY_CHARS]
    fenced = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.S)
    candidates = [fenced.group(1)] if fenced else []
    start = text.find("{")
    if start >= 0:
        candidates.append(text[start:text.rfind("}") + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return None


class LLMEngineer:
    """An engineer backed by an LLM through covert's backend seam (``covert.llm``), constrained to the
    proposal schema where the backend supports it. Its reply goes through the same checks as the rules;
    anything unusable falls back to the previous configuration with the reason recorded.

    Every proposed change then passes :func:`guard` or is refused (the previous configuration kept, the
    reasons recorded).

    Args:
        backend: A ``covert.llm`` backend (``generate([ChatRequest]) -> [Completion]``).
        band: The learnable band the prompt states and the guard enforces.
        max_tokens: Reply budget.
        failure_knobs: The environment's evidence map (failure category -> knobs), shown in the prompt and
            checked against each change's cited evidence.
    """

    def __init__(self, backend: Any, band: tuple[float, float] = BAND, max_tokens: int = 1024, seed: int = 0,
                 failure_knobs: Mapping[str, Sequence[str]] | None = None) -> None:
        self.backend = backend
        self.band = band
        self.failure_knobs = {k: tuple(v) for k, v in (failure_knobs or {}).items()}
        self.max_tokens = max_tokens
        self.seed = seed
        self.name = f"llm:{getattr(backend, 'name', type(backend).__name__)}"

    def propose(self, summary: Mapping[str, Any]) -> Proposal:
        """Ask the LLM; check and clamp its reply; fall back per configuration where it is unusable."""
        from covert.llm import ChatRequest, SamplingParams

        check_summary(summary)
        knobs = knobs_of(summary)
        request = ChatRequest(messages=[{"role": "user", "content": engineer_prompt(summary, self.band,
                                                                                      self.failure_knobs)}],
                              sampling=SamplingParams(temperature=0.0, max_tokens=self.max_tokens, seed=self.seed),
                              json_schema=proposal_schema(knobs))
        notes: list[str] = []
        try:
            completion = self.backend.generate([request])[0]
            text = completion.text or ""
            if completion.error:
                notes.append(f"backend error: {str(completion.error)[:120]}")
            reply = completion.parsed if completion.parsed is not None else parse_reply(text)
        except Exception as exc:  # a failing backend must not end the training run
            reply = None
            notes.append(f"backend raised {type(exc).__name__}: {str(exc)[:120]}")
        proposed = reply.get("configs") if isinstance(reply, dict) else None
        if not isinstance(proposed, list):
            notes.append("reply had no parsable configs")
            proposed = []
        by_index: dict[int, Any] = {}
        for item in proposed[: len(summary["configs"]) * 2]:
            if isinstance(item, dict) and isinstance(item.get("previous_index"), int):
                by_index.setdefault(item["previous_index"], item)
        decisions = []
        for i, entry in enumerate(summary["configs"]):
            previous, _ = checked_config(knobs, entry["config"], _first_levels(knobs, entry["config"]))
            item = by_index.get(i)
            if item is None:
                decisions.append(Decision(previous, previous, "fallback", (), "no usable proposal for it: previous kept",
                                          entry["pass_rate"]))
                continue
            config, repairs = checked_config(knobs, item.get("config"), previous)
            changed = tuple(k.name for k in knobs if config[k.name] != previous[k.name])
            if not changed:
                decisions.append(Decision(previous, previous, "fallback", (), "proposal changes nothing: previous kept"
                                          + ("; " + "; ".join(repairs) if repairs else ""), entry["pass_rate"]))
                continue
            reason = str(item.get("reason", ""))[:400] or "no reason given"
            cited = item.get("evidence")
            cited = tuple(str(c)[:60] for c in cited[:8]) if isinstance(cited, list) else ()
            refused = guard(knobs, entry, previous, config, cited, self.failure_knobs, self.band)
            if refused:
                decisions.append(Decision(previous, previous, "refused", (), "refused: " + "; ".join(refused),
                                          entry["pass_rate"], cited))
                continue
            decisions.append(Decision(previous, config, "llm", changed, reason + ("; " + "; ".join(repairs) if repairs else ""),
                                      entry["pass_rate"], cited))
        return Proposal(summary["environment"], summary["stage"] + 1, self.name, tuple(decisions), tuple(notes))
