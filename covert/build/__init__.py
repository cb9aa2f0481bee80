"""Stage 1 end to end: generate validated tasks in rounds and stream them into a Hub-layout dataset.

Items are made in rounds. Within a round every item is a pure function of (config, index, the round's
sampling weights), so the output is identical for any number of workers. Between rounds the
self-evolving sampler re-weights target tools: under-covered tools and tools whose tasks pass
validation are sampled more.
"""

from __future__ import annotations

import gc
import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

import covert
from covert import interrupts
from covert.env import item_rng, resolve_builders
from covert.imports.prefixes import LIVE_PREFIX
from covert.io.background import Background
from covert.io.card import write_card
from covert.io.loader_safe import LoaderUnsafe
from covert.io.parquet import ShardWriter, close_writers, encode_row
from covert.io.portable import portable_command
from covert.io.staging import discard, prepare_output, publish
from covert.scale.engine import ENGINES, open_pool, ordered_map
from covert.synth.blueprint import can_make
from covert.synth.generate import ItemSpec, Outcome, make_item
from covert.synth.records import CATEGORIES
from covert.synth.stats import BuildStats

SPLITS = ("train", "validation", "test")
DEFAULT_MIX = {"simple": 0.12, "multiple": 0.12, "parallel": 0.12, "parallel_multiple": 0.12,
               "sequential": 0.2, "state_changing": 0.24, "irrelevance": 0.08}
ROUND_SIZE = 512


class BuildError(ValueError):
    """Bad build input; the message says what to do."""


@dataclass
class BuildConfig:
    """Everything that determines a build's output (recorded in the manifest)."""

    builders: list[str]
    num_tasks: int
    seed: int = 0
    mix: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_MIX))
    split_ratios: tuple[float, float, float] = (0.8, 0.1, 0.1)
    rows_per_shard: int = 5000
    tasks_per_state: int = 16
    round_size: int = ROUND_SIZE  # items per self-evolving round: the sampler re-weights between rounds
    multi_turn: bool = False
    thinking: bool = True
    license: str = "apache-2.0"

    def configs(self) -> tuple[str, ...]:
        """The configs this build writes."""
        return ("sft", "rl", "sft-multiturn", "rl-multiturn") if self.multi_turn else ("sft", "rl")

    def validate(self) -> None:
        """Raise :class:`BuildError` on bad values."""
        if self.num_tasks <= 0:
            raise BuildError(f"--num-tasks must be a positive integer, got {self.num_tasks}")
        if self.rows_per_shard <= 0:
            raise BuildError("rows per shard must be positive")
        if self.tasks_per_state <= 0:
            raise BuildError("--tasks-per-state must be positive")
        if self.round_size <= 0:
            raise BuildError(f"--round-size must be a positive integer, got {self.round_size}")
        unknown = set(self.mix) - set(CATEGORIES)
        if unknown:
            raise BuildError(f"unknown categories {sorted(unknown)}; known: {', '.join(CATEGORIES)}")
        names = self.builders.split(",") if isinstance(self.builders, str) else list(self.builders)
        live = [n.strip() for n in names if n.strip().startswith(LIVE_PREFIX)]
        if live:  # a live MCP server has no language resources for synthesis; it has its own task generator
            raise BuildError(f"{live[0]} is a live MCP environment: make its tasks with "
                             f"`covert live-mcp {live[0][len(LIVE_PREFIX):]} --num-tasks N --out DIR`")
        resolve_builders(self.builders)


def split_of(seed: int, ratios: tuple[float, float, float]):
    """Split by a hash of the oracle's tool-sequence signature: a signature never crosses splits."""

    def assign(signature: str) -> str:
        digest = hashlib.sha256(f"{seed}:{signature}".encode()).digest()
        point = int.from_bytes(digest[:8], "big") / 2**64
        if point < ratios[0]:
            return "train"
        return "validation" if point < ratios[0] + ratios[1] else "test"

    return assign


class TargetSampler:
    """Self-evolving sampling weights over (builder, tool) targets."""

    def __init__(self, builders: list[Any]) -> None:
        self.targets = {b.name: list(b.tools) for b in builders}
        self.weights = {(b, t): 1.0 for b, tools in self.targets.items() for t in tools}
        self._cumulative = self._cumulate()

    def _cumulate(self) -> dict[str, list[float]]:
        return {b: list(accumulate(self.weights[(b, t)] for t in tools)) for b, tools in self.targets.items()}

    def update(self, stats: BuildStats) -> None:
        """Boost tools with little coverage and targets whose candidates pass."""
        for key in self.weights:
            builder, tool = key
            used = stats.tool_use[builder].get(tool, 0)
            tried = stats.target_tries.get(key, 0)
            passed = stats.target_accepts.get(key, 0)
            acceptance = (passed + 1) / (tried + 2)
            self.weights[key] = round((1.0 / (1.0 + used) ** 0.5) * (0.25 + acceptance), 6)
        self._cumulative = self._cumulate()

    def pick(self, rng: Any, builder: str) -> str:
        """A target tool of ``builder``, drawn by weight."""
        return rng.choices(self.targets[builder], cum_weights=self._cumulative[builder])[0]


def plan_round(config: BuildConfig, builders: list[Any], sampler: TargetSampler, start: int, size: int,
               exhausted: frozenset[tuple[str, str]] = frozenset()) -> list[ItemSpec]:
    """Item specs of one round; a category in ``exhausted`` for a builder (see
    :meth:`BuildStats.exhausted`) is not drawn for it while it has another one it can make."""
    categories = [c for c in CATEGORIES if config.mix.get(c, 0) > 0]
    weights = [config.mix[c] for c in categories]
    specs = []
    rng = item_rng("plan", config.seed, start)  # one stream per round: planning runs in this process
    for index in range(start, start + size):
        builder = builders[index % len(builders)]
        # items of one builder share a seeded initial state in runs of ``tasks_per_state`` (or the
        # builder's own, when it shares its states over fewer)
        world = (index // len(builders)) // min(config.tasks_per_state,
                                                 builder.tasks_per_state or config.tasks_per_state)
        category = rng.choices(categories, weights)[0]
        if not can_make(builder, category) or (builder.name, category) in exhausted:
            # e.g. a domain whose only repeatable tools identify people, or an imported API whose
            # parallel calls can never differ: another category it can make
            makeable = [(c, w) for c, w in zip(categories, weights) if can_make(builder, c)]
            possible = [(c, w) for c, w in makeable if (builder.name, c) not in exhausted] or makeable
            category = rng.choices([c for c, _ in possible], [w for _, w in possible])[0]
        target = sampler.pick(rng, builder.name) if category != "irrelevance" else None
        specs.append(ItemSpec(index, builder.name, category, target, world))
    return specs


_WORKER_CONFIG: dict[str, Any] = {}


# Collect young garbage less often while building: environments imported from large API specs keep
# hundreds of thousands of long-lived objects, and the default thresholds make the collector walk
# them over and over (a quarter of an imported build's CPU time at the default thresholds).
BUILD_GC_THRESHOLD = (20000, 20, 20)


def _init_worker(seed: int, ratios: tuple[float, float, float], multi_turn: bool = False,
                 thinking: bool = True, keep_tasks: bool = False) -> None:
    gc.set_threshold(*BUILD_GC_THRESHOLD)
    _WORKER_CONFIG.update(seed=seed, split_of=split_of(seed, ratios), multi_turn=multi_turn, thinking=thinking,
                          keep_tasks=keep_tasks)


def _work(spec: ItemSpec) -> tuple:
    cfg = _WORKER_CONFIG
    return _pack(make_item(spec, cfg["seed"], cfg["split_of"], cfg["multi_turn"], cfg["thinking"]))


def work_item(spec: ItemSpec, seed: int, ratios: tuple[float, float, float], multi_turn: bool = False,
              thinking: bool = True) -> tuple:
    """Make one item and pack it for the writer: the unit of work every engine runs.

    Returns ``(rejection reasons, split, signature, {config: encoded row}, facts, task or None)``. The
    spec is not in it: it would only travel back to the caller, which has it (a process pool pickles
    every byte of the result, and the writer's process unpickles it).
    """
    return _pack(make_item(spec, seed, split_of(seed, ratios), multi_turn, thinking))


def _pack(outcome: Outcome) -> tuple:
    if outcome.task is None:
        return (outcome.rejections, "", "", {}, {}, None)
    task = outcome.task
    split = outcome.rows["rl"]["extra_info"]["split"]
    facts = {"tools": [c.name for c in task.calls], "query": task.query, "category": task.category,
             "builder": task.builder, "method": task.method}
    keep = task if _WORKER_CONFIG.get("keep_tasks") else None
    return (outcome.rejections, split, task.signature,
            outcome.encoded, facts, keep)


# Items made one after another in a process are grouped by builder (at most this many at a time, never
# more than the caller still needs): consecutive items of one builder share its world, its caches and
# its code, which stay warm, where the round's order cycles through every builder item by item (that
# switching cost a default build several percent of its CPU time). Results are handed on in round order.
GROUP_LIMIT = 512


def builder_groups(specs: list[ItemSpec], wanted: Callable[[], int]) -> Iterator[list[int]]:
    """Positions in ``specs``, a block at a time, each block in builder order (and in round order within
    a builder). A block holds at most :data:`GROUP_LIMIT` items and at most ``wanted()``: how many
    results the caller can still use, asked again before each block (none: the blocks end), so no item
    is made that the caller would not use."""
    position = 0
    while position < len(specs):
        size = min(wanted(), GROUP_LIMIT, len(specs) - position)
        if size <= 0:
            return
        yield sorted(range(position, position + size), key=lambda i: (specs[i].builder, i))
        position += size


def _outcomes(specs: list[ItemSpec], pool: Any, wanted: Callable[[], int] | None = None) -> Iterator[tuple]:
    """``(spec, *packed outcome)`` for each of ``specs``, in their order, made on ``pool`` (local workers
    or Ray; see :func:`covert.scale.engine.open_pool`) or here when it is ``None``, in
    :func:`builder_groups` of at most ``wanted()`` items (default: the whole round)."""
    for block in builder_groups(specs, wanted or (lambda: len(specs))):
        ordered = [specs[i] for i in block]
        made = ordered_map(_work, ordered, pool, chunksize=16)
        results = dict(zip(block, made, strict=True))
        for i in sorted(block):
            yield (specs[i], *results.pop(i))


def _llm_round(llm: Any, batch: list[tuple], config: BuildConfig, stats: BuildStats) -> list[tuple]:
    """Let the LLM rewrite the queries of one round's accepted tasks; rebuild the rows of those it
    rewrote, drop those the self-review rejected."""
    from covert.conversation.rows import multiturn_rows
    from covert.synth.generate import shared_state
    from covert.views import rl_row, sft_row

    specs = {item[4].index: item[0] for item in batch}

    def state_of(task: Any) -> Any:
        return shared_state(task.builder, config.seed, specs[task.index].world).fork()

    rewritable = [item for item in batch if item[4].category != "irrelevance"]
    results = dict(zip((id(item) for item in rewritable), llm.realize([i[4] for i in rewritable], state_of), strict=True))
    kept = []
    for item in batch:
        new = results.get(id(item), item[4])
        if new is None:
            stats.rejections["review_disagree"] += 1
            continue
        kept.append((item, new))
    plans: list[str | None] = [None] * len(kept)
    if config.multi_turn and config.thinking:
        with_calls = [i for i, (_, task) in enumerate(kept) if task.calls]
        for i, plan in zip(with_calls, llm.plans([kept[i][1] for i in with_calls]), strict=True):
            plans[i] = plan
    out = []
    for (item, new), plan in zip(kept, plans, strict=True):
        spec, split, signature, rows, task = item
        if new is not task or plan is not None:
            fresh = {"sft": sft_row(new), "rl": rl_row(new, split, spec.index)}
            if config.multi_turn:
                fresh["sft-multiturn"], fresh["rl-multiturn"] = multiturn_rows(new, split, spec.index,
                                                                               config.thinking, plan)
            try:
                rows = {name: encode_row(row, name) for name, row in fresh.items()}
            except LoaderUnsafe:
                stats.rejections["loader_unsafe_value"] += 1
                continue
        out.append((spec, split, signature, rows, new))
    return out


def value_data() -> dict[str, str]:
    """The versions of the data imported environments draw their values from (Faker's lists): another
    release gives other values, so ``covert regenerate`` compares them."""
    from covert.imports.fieldvalues import faker_version

    return {"faker": faker_version()}


def _evaluation_source(builder: Any) -> bool:
    """Whether a builder is an environment imported from evaluation data (covert.imports)."""
    spec = getattr(builder, "spec", None)
    return bool(getattr(spec, "evaluation_source", False))


def build(config: BuildConfig, out: str | Path, workers: int = 1, overwrite: bool = False,
          progress: bool = True, command: str = "", engine: str = "local",
          ray_address: str | None = None, llm: Any = None, allow_eval_sources: bool = False) -> dict[str, Any]:
    """Build the dataset described by ``config`` into ``out``; returns the manifest.

    Environments imported from evaluation data (BFCL) are refused unless ``allow_eval_sources``; the
    manifest and the dataset card then say which ones the dataset was built on.

    ``engine="local"`` runs ``workers`` processes on this machine; ``engine="ray"`` runs the items as
    Ray Data tasks (local Ray, or the cluster at ``ray_address``). Output bytes are the same either way.
    ``llm`` (an :class:`~covert.synth.llm_realize.EvolvingRealizer`) rewrites queries with an LLM.
    """
    thresholds, collecting = gc.get_threshold(), gc.isenabled()
    gc.disable()  # what binding (or reading kept bindings) makes lives as long as the build:
    try:
        made = _bindings_made()
        config.validate()  # resolves (binds) the builders
        builders = resolve_builders(config.builders)
        if _bindings_made() > made:  # binding from a spec leaves garbage behind: not to be frozen
            gc.collect()
        gc.freeze()  # the collector need not walk it, now or later
        if collecting:
            gc.enable()
        gc.set_threshold(*BUILD_GC_THRESHOLD)
        return _checked_build(config, builders, Path(out), workers, overwrite, progress, command, engine,
                              ray_address, llm, allow_eval_sources)
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        if collecting:
            gc.enable()


def _bindings_made() -> int:
    """How many imported environments this process has bound from their specs (not read back)."""
    envs = sys.modules.get("covert.imports.envs")  # loaded only once an imported environment is asked for
    return envs.bindings_made() if envs is not None else 0


def _checked_build(config: BuildConfig, builders: list[Any], out: Path, workers: int, overwrite: bool,
                   progress: bool, command: str, engine: str, ray_address: str | None, llm: Any,
                   allow_eval_sources: bool) -> dict[str, Any]:
    if engine not in ENGINES:
        raise BuildError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if llm is not None and engine != "local":
        raise BuildError("--llm runs with --engine local (the LLM stage batches requests in this process)")
    evaluation = [b.name for b in builders if _evaluation_source(b)]
    if evaluation and not allow_eval_sources:
        raise BuildError(f"{', '.join(evaluation[:5])} derive from an evaluation source (BFCL); training on them "
                         "contaminates that benchmark. Pass --allow-eval-sources to build anyway")
    config.builders = [b.name for b in builders]
    staging = prepare_output(out, overwrite)
    try:
        with Background() as background:  # Parquet encoding overlaps making the next rows
            manifest = _build_into(config, builders, staging, workers, progress, command, engine, ray_address,
                                   llm, background)
        publish(staging, out)
    except BaseException:
        discard(staging)
        raise
    return manifest


def _build_into(config: BuildConfig, builders: list[Any], root: Path, workers: int, progress: bool,
                command: str, engine: str = "local", ray_address: str | None = None,
                llm: Any = None, background: Background | None = None) -> dict[str, Any]:
    from covert.progress import bar as progress_bar

    writers = {(c, s): ShardWriter(root, c, s, config.rows_per_shard, background)
               for c in config.configs() for s in SPLITS}
    stats = BuildStats(builders)
    sampler = TargetSampler(builders)
    examples: dict[str, dict[str, Any]] = {}
    accepted = 0
    start = 0
    pool = open_pool(engine, workers, _init_worker,
                     (config.seed, config.split_ratios, config.multi_turn, config.thinking, llm is not None), ray_address)
    bar = progress_bar(config.num_tasks, unit="task", desc="build", enabled=progress)
    try:
        while accepted < config.num_tasks:
            if start > 50 * config.num_tasks + 10 * config.round_size:
                raise BuildError("too few candidates pass validation; check the builders with `covert list`")
            interrupts.check()
            specs = plan_round(config, builders, sampler, start, config.round_size, stats.exhausted())
            start += config.round_size
            batch: list[tuple] = []

            def wanted(batch: list[tuple] = batch, accepted: int = accepted) -> int:
                return config.num_tasks - accepted - len(batch)  # what this round can still use

            for spec, rejections, split, signature, rows, facts, task in _outcomes(specs, pool, wanted):
                if accepted + len(batch) >= config.num_tasks:
                    break  # an engine that hands on more than ``wanted`` (Ray) stops here
                if rows and stats.said_before(facts["query"]):
                    rejections, rows, facts = [*rejections, "duplicate_query"], {}, {}
                stats.record(spec, rejections, facts)
                if rows:
                    batch.append((spec, split, signature, rows, task))
            if llm is not None:
                batch = _llm_round(llm, batch, config, stats)
            for _spec, split, signature, rows, _ in batch:
                for name, row in rows.items():
                    if "extra_info" in row:
                        row["extra_info"]["index"] = accepted
                    writers[(name, split)].add(row)
                    examples.setdefault(name, row)
                stats.count_split(split, signature)
                accepted += 1
                bar.update(1)
            sampler.update(stats)
    finally:
        bar.close()
        if pool is not None:
            pool.close()
    files, _ = close_writers(writers, root)
    summary = stats.summary()
    manifest = {
        "covert_version": covert.__version__,
        "command": portable_command(command),
        "config": asdict(config),
        "builders": {b.name: {"version": b.version, "license": b.license, "sources": list(b.sources),
                              **({"evaluation_source": True} if _evaluation_source(b) else {})} for b in builders},
        "summary": summary,
        "rows": {f"{c}/{s}": w.rows for (c, s), w in writers.items()},
        **({"llm": llm.summary()} if llm is not None else {}),
        **({"value_data": value_data()} if any(b.name.startswith("api.") for b in builders) else {}),
        "files": dict(sorted(files.items())),
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    write_card(root, manifest, examples)
    return manifest
