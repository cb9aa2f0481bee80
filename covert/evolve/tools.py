"""Tool-environment configurations made from covert's own rows, their structural measures, and a scripted
trainee (a test double) for them.

A configuration of a tool environment has four knobs: how many oracle calls a task needs (``calls``),
how many distractor tools it offers (``distractors``), how noisy its tool outputs are (``noise``) and
whether the query leaves out a value the agent must ask for (``ambiguity``); evolution adds two
(:data:`EVOLVE_KNOBS`): an indirect query (``indirect``) and a failing call (``errors``). Its rows are base
rows with that many calls, given every augmentation the configuration sets, stacked in the kinds' order
(stage 2); every row is validated, so the reference still solves it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from covert.env import item_rng
from covert.procgen.contract import Knob

INTENSITY_LEVELS = ("none", "low", "medium", "high")
TOOL_KNOBS = (
    Knob("calls", (1, 2, 3, 4), "oracle calls a task needs (4: four or more)"),
    Knob("distractors", INTENSITY_LEVELS, "distractor tools offered next to the real ones (none, 3, 5, 9)"),
    Knob("noise", INTENSITY_LEVELS, "noisy tool outputs: extra fields, envelopes, filler records"),
    Knob("ambiguity", (False, True), "the query leaves out a value the agent must ask the user for"),
)
#: Evolution's knobs: the engineer's four, plus an indirect query and a failing call.
EVOLVE_KNOBS = (
    *TOOL_KNOBS,
    Knob("indirect", (False, True), "the query asks indirectly (the request is implied, values paraphrased)"),
    Knob("errors", INTENSITY_LEVELS, "one oracle call fails: transiently (retry it, up to 1/2/3 times) or for "
                                     "good (report it, claim nothing)"),
)
#: Knob -> the augmentation kind that realizes it (applied in the kinds' order, stacked).
KIND_OF = {"distractors": "distractors", "indirect": "indirect", "ambiguity": "ambiguous", "noise": "noisy",
           "errors": "erroneous"}
#: Which knob makes which failure more likely (the engineer's evidence map for tool environments).
FAILURE_KNOBS: dict[str, tuple[str, ...]] = {
    "wrong_tool": ("distractors",), "extra_call": ("distractors",), "wrong_argument": ("noise", "ambiguity"),
    "missing_argument": ("ambiguity",), "missing_call": ("calls",), "state_mismatch": ("calls",),
    "wrong_answer_facts": ("noise",), "unhandled_error": ("noise",),
}


def calls_level(num_calls: int) -> int:
    """The ``calls`` level a task with ``num_calls`` oracle calls belongs to."""
    return max(1, min(4, num_calls))


def augmentations_for(config: dict[str, Any]) -> list[tuple[str, str]]:
    """The (kind, intensity) stack a row of ``config`` gets: every augmentation the configuration sets, in
    the kinds' order (distractors, indirect, ambiguous, noisy, erroneous)."""
    from covert.augment.registry import get_kind

    stack = []
    for knob, kind in KIND_OF.items():
        value = config.get(knob, False if knob in ("ambiguity", "indirect") else "none")
        if value is True:
            stack.append((kind, "medium"))
        elif value not in (False, "none"):
            stack.append((kind, str(value)))
    return sorted(stack, key=lambda item: get_kind(item[0]).position)


@dataclass(frozen=True)
class ConfigRows:
    """The validated rows of one configuration and what was left out, by reason."""

    config: dict[str, Any]
    pairs: list[Any]
    left_out: Counter[str]


def config_rows(pairs: Sequence[Any], config: dict[str, Any], seed: int = 0, limit: int | None = None) -> ConfigRows:
    """Rows of ``config`` from base (sft, rl) :class:`~covert.augment.registry.RowPair` s: the base tasks with
    the configured number of calls, given every configured augmentation (stacked), each augmented pair
    validated (replay). A task on which some configured kind has nothing to change is left out."""
    from covert.augment.registry import NotApplicable
    from covert.augment.rows import augment_pair
    from covert.augment.verify import validate_augmented_pair
    from covert.errors import Invalid

    out: list[Any] = []
    left: Counter[str] = Counter()
    for pair in pairs:
        if limit is not None and len(out) >= limit:
            break
        if pair.sft["num_calls"] == 0 or calls_level(pair.sft["num_calls"]) != config["calls"]:
            continue
        stack = augmentations_for(config)
        if not stack:
            out.append(pair)
            continue
        mutant = pair
        try:
            for kind, intensity in stack:
                try:
                    mutant = augment_pair(mutant, kind, seed=seed, intensity=intensity, stack=True)
                except NotApplicable:
                    left[f"{kind}_not_applicable"] += 1
                    raise
            validate_augmented_pair(mutant.sft, mutant.rl)
        except NotApplicable:
            continue
        except Invalid as exc:
            left[f"invalid:{exc.reason}"] += 1
            continue
        out.append(mutant)
    return ConfigRows(config, out, left)


def structure(row: dict[str, Any]) -> dict[str, float]:
    """Structural measures of an SFT row, what makes a task longer, more constrained or noisier to observe:

    - horizon: ``calls`` (oracle calls), ``turns`` (assistant tool-call turns: the depth of the chain of
      dependent calls);
    - constraints: ``user_turns`` (the user must be asked), ``failed_calls`` (tool messages that are
      errors: a call to retry or a failure to report), ``indirect`` (the request is implied);
    - observations: ``distractor_tools``, ``output_chars`` (characters of tool output the agent reads),
      ``augmentations`` (kinds stacked on the task).
    """
    import orjson

    records = row.get("augmentations") or []
    kinds = [r.get("kind") for r in records]
    messages = row["messages"]
    tools = [m for m in messages if m["role"] == "tool"]
    failed = 0
    for m in tools:
        try:
            shown = orjson.loads(m["content"])
        except orjson.JSONDecodeError:
            continue
        failed += isinstance(shown, dict) and "error" in shown
    truth = row["ground_truth"]
    return {"calls": float(row["num_calls"]),
            "turns": float(sum(1 for m in messages if m["role"] == "assistant" and m.get("tool_calls"))),
            "user_turns": float(sum(1 for m in messages if m["role"] == "user") - 1),
            "failed_calls": float(failed), "indirect": float("indirect" in kinds),
            "distractor_tools": float(sum(r.get("k", 0) for r in records if r.get("kind") == "distractors")),
            "output_chars": float(sum(len(m["content"]) for m in tools)),
            "augmentations": float(len(records)), "clarify": float(truth.get("behaviour") == "clarify")}


#: Which structural measures each evolution direction raises.
DIRECTION_MEASURES: dict[str, tuple[str, ...]] = {
    "horizon": ("calls", "turns"),
    "constraints": ("user_turns", "failed_calls", "indirect"),
    "observations": ("distractor_tools", "output_chars", "augmentations"),
}


def row_features(row: dict[str, Any]) -> dict[str, float]:
    """What makes a tool task hard for the scripted trainee: calls, distractor tools, noise level, ambiguity."""
    features = {"calls": float(row["num_calls"]), "distractors": 0.0, "noise": 0.0, "ambiguity": 0.0}
    for record in row.get("augmentations") or ():
        if record["kind"] == "distractors":
            features["distractors"] = float(record.get("k", 0))
        elif record["kind"] in ("noisy", "multi_format", "erroneous"):
            features["noise"] = float(INTENSITY_LEVELS.index(record.get("intensity", "medium")))
        elif record["kind"] == "ambiguous":
            features["ambiguity"] = 1.0
    return features


#: Difficulty weights of the scripted tool trainee (per extra call, per distractor, per noise level, ambiguity).
WEIGHTS = {"calls": 0.9, "distractors": 0.22, "noise": 0.7, "ambiguity": 1.3}
MISTAKE_OF = {"calls": "skipped_call", "distractors": "wrong_tool", "noise": "wrong_argument", "ambiguity": "wrong_argument"}


@dataclass
class ToolTrainee:
    """A scripted tool-use policy of known skill: its error rate rises with calls, distractors, noise and
    ambiguity (a logistic curve in the weighted difficulty minus its skill), and the mistake it makes
    follows the cause (distractors: calls a wrong tool; calls: skips one; noise, ambiguity: a wrong
    argument). ``learn`` raises the skill by how much learnable material a stage trained on.
    """

    skill: float = 1.0
    seed: int = 0
    sharpness: float = 1.6
    learning_rate: float = 2.0

    def difficulty(self, row: dict[str, Any]) -> dict[str, float]:
        """Each cause's share of the difficulty of ``row``."""
        f = row_features(row)
        return {"calls": WEIGHTS["calls"] * max(0.0, f["calls"] - 1), "distractors": WEIGHTS["distractors"] * f["distractors"],
                "noise": WEIGHTS["noise"] * f["noise"], "ambiguity": WEIGHTS["ambiguity"] * f["ambiguity"]}

    def failure_probability(self, row: dict[str, Any]) -> float:
        """The chance one rollout of ``row`` goes wrong."""
        d = sum(self.difficulty(row).values())
        return 1.0 / (1.0 + math.exp(-self.sharpness * (d - self.skill)))

    def policy(self, row: dict[str, Any], attempt: int) -> Any:
        """The rollout policy of attempt ``attempt`` on ``row`` (deterministic per seed, skill and attempt)."""
        from covert.rollouts.policies import ScriptedPolicy

        rng = item_rng("tool-trainee", self.seed, round(self.skill, 6), row["task_id"], attempt)
        mistake = None
        if rng.random() < self.failure_probability(row):
            causes = self.difficulty(row)
            names = sorted(causes)
            weights = [causes[n] for n in names]
            cause = rng.choices(names, weights=weights)[0] if sum(weights) > 0 else "calls"
            mistake = MISTAKE_OF[cause]
        return ScriptedPolicy(row, error_rate=0.0, seed=self.seed, mistake=mistake)

    def learn(self, trained: Iterable[tuple[float, int]]) -> None:
        """Improve on what was trained on: ``(pass_rate, episodes)`` per configuration; learnable material
        (p(1-p) large) teaches most."""
        pairs = list(trained)
        episodes = sum(n for _, n in pairs)
        if episodes:
            self.skill += self.learning_rate * sum(p * (1 - p) * n for p, n in pairs) / episodes


def tool_episodes(trainee: ToolTrainee, rows: ConfigRows, k: int = 1) -> list[Any]:
    """Roll ``trainee`` out ``k`` times on every RL row of a configuration; the episodes for a summary."""
    from covert.evolve.summary import Episode, tool_failures
    from covert.rollouts.runner import run

    episodes = []
    for pair in rows.pairs:
        for attempt in range(k):
            rollout = run(trainee.policy(pair.rl, attempt), pair.rl)
            passed = rollout.reward.value >= 1.0
            failures = () if passed else (tool_failures(rollout.reward.reasons) or ("wrong_behaviour",))
            text = " | ".join(f"{m['role']}: {str(m.get('content') or m.get('tool_calls'))[:160]}"
                              for m in rollout.messages[len(pair.rl["prompt"]):])
            query = next((m.get("content") or "" for m in pair.rl["prompt"] if m.get("role") == "user"), "")
            episodes.append(Episode(rows.config, passed, failures, statistics=row_features(pair.rl), trajectory=text,
                                    instance="" if passed else str(query)))
    return episodes
