"""One item end to end: sample a blueprint, instantiate it, build both rows, validate them.

Everything here is a pure function of ``(builder, seed, index, category, target)``, so items can be
made in any order, in any process, with identical results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from covert.conversation.dialogue import ConversationError
from covert.conversation.rows import multiturn_rows
from covert.env import State, get_builder, item_rng
from covert.errors import Invalid, Rejected
from covert.io.loader_safe import LoaderUnsafe
from covert.io.parquet import encode_row
from covert.language.values import normalize_text
from covert.synth.blueprint import sample_blueprint
from covert.synth.instantiate import instantiate
from covert.synth.records import Task
from covert.validation import TRIVIAL_READ, adds_nothing, validate_pair
from covert.views import ground_truth, rl_row, sft_row

ATTEMPTS = 6


@dataclass
class ItemSpec:
    """What to make for one index."""

    index: int
    builder: str
    category: str
    target: str | None
    state_index: int = -1

    @property
    def world(self) -> int:
        """Which seeded initial state the item uses (items may share one, see ``tasks_per_state``)."""
        return self.index if self.state_index < 0 else self.state_index


@dataclass
class Outcome:
    """The result of one item: its rows (if accepted), the same rows encoded for Parquet, and the
    reasons of every rejected attempt."""

    spec: ItemSpec
    task: Task | None = None
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    encoded: dict[str, dict[str, Any]] = field(default_factory=dict)
    rejections: list[str] = field(default_factory=list)
    signature: str = ""


_STATES: dict[tuple[str, int], dict[int, State]] = {}
WORLDS_KEPT = 2  # per builder: a build visits each builder's worlds in increasing order


def shared_state(builder: str, seed: int, world: int) -> State:
    """The seeded initial state ``world`` of a builder, cached so items sharing it build it once.

    The cache keeps the last :data:`WORLDS_KEPT` worlds of every builder rather than the last few of
    all builders: a build on hundreds of environments cycles through them all before any world repeats."""
    worlds = _STATES.setdefault((builder, seed), {})
    state = worlds.get(world)
    if state is None:
        if len(_STATES) > 4096:
            _STATES.clear()
            worlds = _STATES.setdefault((builder, seed), {})
        state = get_builder(builder).state(seed, world)
        while len(worlds) >= WORLDS_KEPT:
            del worlds[next(iter(worlds))]
        worlds[world] = state
    return state


def make_task(spec: ItemSpec, seed: int, attempt: int, state: State | None = None) -> Task:
    """Sample and instantiate one candidate; raises :class:`Rejected`."""
    builder = get_builder(spec.builder)
    rng = item_rng(builder.name, seed, spec.index, attempt)
    state = state if state is not None else shared_state(spec.builder, seed, spec.world)
    blueprint = sample_blueprint(builder, spec.category, rng, spec.target)
    return instantiate(builder, blueprint, state, rng, seed, spec.index)


def make_item(spec: ItemSpec, seed: int, split_of: Any, multi_turn: bool = False, thinking: bool = True) -> Outcome:
    """Up to :data:`ATTEMPTS` candidates for one item; the first whose rows all validate is kept.

    With ``multi_turn`` the item also gets its conversation views (``sft-multiturn``, ``rl-multiturn``).
    """
    outcome = Outcome(spec)
    state = shared_state(spec.builder, seed, spec.world).fork()
    for attempt in range(ATTEMPTS):
        try:
            task = make_task(spec, seed, attempt, state)
            if task.calls and task.final_state_hash == state.hash() and adds_nothing(normalize_text(task.query),
                                                                                    task.facts):
                raise Invalid("trivial", TRIVIAL_READ)  # what validation would find, before the rows are made
            split = split_of(task.signature)
            truth = ground_truth(task)
            sft = sft_row(task, truth)
            rl = rl_row(task, split, spec.index, truth)
            validate_pair(sft, rl, state)
            rows = {"sft": sft, "rl": rl}
            if multi_turn:
                rows["sft-multiturn"], rows["rl-multiturn"] = multiturn_rows(task, split, spec.index, thinking)
                validate_pair(rows["sft-multiturn"], rows["rl-multiturn"], state)
            # a row that datasets.load_dataset would not read back as written is never kept
            encoded = {config: encode_row(row, config) for config, row in rows.items()}
        except LoaderUnsafe:
            outcome.rejections.append("loader_unsafe_value")
            continue
        except (Rejected, Invalid) as exc:
            outcome.rejections.append(exc.reason)
            continue
        except ConversationError as exc:
            outcome.rejections.append(f"conversation:{exc}")
            continue
        outcome.task, outcome.rows, outcome.encoded, outcome.signature = task, rows, encoded, task.signature
        return outcome
    return outcome
