"""Write procedural instances as a covert dataset: the Hub layout ``covert build`` writes (Parquet
shards per config and split, ``README.md`` card with ``configs:`` and ``dataset_info``, ``manifest.json``
with every shard's sha256), published atomically.

Two configs: ``sft-procgen`` (the prompt and the reference as the assistant's answer) and
``rl-procgen`` (the prompt, the environment's identity and the hidden instance data as ground truth). With
``form="tools"`` (environments that have a tool-call form, :mod:`covert.procgen.tool_forms`) the configs are
``sft-procgen-tools`` and ``rl-procgen-tools``, holding tool rows (:mod:`covert.procgen.tool_rows`).
Instance ``i`` of a plan is a pure function of (environment, version, seed, config, index), so the same
inputs give the same bytes for any number of workers.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import covert
from covert.errors import UsageError
from covert.io.portable import portable_command
from covert.procgen.contract import ConfigError, ProceduralEnv, config_key
from covert.procgen.registry import UnknownEnvironmentError, get_env, resolve_envs
from covert.procgen.rows import CONFIGS, level_of, make_rows
from covert.procgen.tool_forms import get_tool_form, tool_form_names
from covert.procgen.tool_rows import TOOLS_CONFIGS, TooManyCalls, make_tool_rows

SPLITS = ("train", "validation", "test")
FORMS = ("text", "tools")
MAX_SEED = 2**53 - 1  # seeds are stored in JSON; every loader reads integers up to here exactly


class ProcgenError(UsageError):
    """Bad input for a procedural dataset, or an environment that fails its own reference."""


@dataclass(frozen=True)
class PlanItem:
    """One instance to write: environment name, complete configuration, instance index."""

    env: str
    config: dict[str, Any]
    index: int


@dataclass
class ProcgenConfig:
    """Everything that determines a procedural dataset's output (recorded in the manifest).

    Attributes:
        envs: Environment names (``["all"]`` for every registered one).
        num_tasks: Instances in all; environment ``k`` of ``E`` gets instances ``k, k+E, ...`` in turn.
        seed: The run seed every instance is drawn from.
        level: Every knob at this difficulty level (clamped to each knob's levels); ``None``: each
            environment's instances cycle through every level of its curriculum.
        overrides: Knob values on top of the level, per environment (``{"knapsack": {"items": 8}}``).
        split_ratios: Train/validation/test shares; an instance's split is a hash of its prompt, so an
            instance drawn twice never lands in two splits.
        rows_per_shard: Rows per Parquet shard.
        license: License id stated in the card.
        form: ``"text"`` (the prompt and a text answer) or ``"tools"`` (the environment's tool-call form:
            tool rows whose oracle calls play the reference).
    """

    envs: list[str]
    num_tasks: int
    seed: int = 0
    level: int | None = None
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    split_ratios: tuple[float, float, float] = (0.8, 0.1, 0.1)
    rows_per_shard: int = 5000
    license: str = "apache-2.0"
    form: str = "text"

    def environments(self) -> list[ProceduralEnv]:
        """The environments, resolved (:class:`ProcgenError` for an unknown name)."""
        try:
            return resolve_envs(self.envs)
        except UnknownEnvironmentError as exc:
            raise ProcgenError(str(exc)) from None

    def configs(self) -> dict[str, dict[str, Any]]:
        """The complete, checked configuration of each environment."""
        out = {}
        for env in self.environments():
            base = env.config_at(self.level) if self.level is not None else env.default_config()
            try:
                out[env.name] = env.check_config({**base, **self.overrides.get(env.name, {})})
            except ConfigError as exc:
                raise ProcgenError(f"--config: {exc}") from None
        return out

    def validate(self) -> None:
        """Raise :class:`ProcgenError` on bad values."""
        if self.num_tasks <= 0:
            raise ProcgenError(f"--num-tasks must be a positive integer, got {self.num_tasks}")
        if not 0 <= self.seed <= MAX_SEED:
            raise ProcgenError(f"--seed must be between 0 and {MAX_SEED}, got {self.seed}")
        if self.level is not None and self.level < 0:
            raise ProcgenError(f"--level must be 0 or more, got {self.level}")
        if self.level is not None:
            tops = {env.name: max((len(k.levels) for k in env.knobs), default=1) - 1 for env in self.environments()}
            if self.level > max(tops.values(), default=0):
                ranges = ", ".join(f"{name} 0-{top}" for name, top in tops.items())
                raise ProcgenError(f"--level {self.level} is out of range: levels are {ranges} (an environment with "
                                   "fewer levels than --level stays at its hardest)")
        if self.rows_per_shard <= 0:
            raise ProcgenError("rows per shard must be positive")
        if len(self.split_ratios) != 3 or any(r < 0 for r in self.split_ratios) or abs(sum(self.split_ratios) - 1) > 1e-9:
            raise ProcgenError("split ratios are three non-negative shares that add up to 1")
        if self.form not in FORMS:
            raise ProcgenError(f"--form is text or tools, not {self.form!r}")
        names = {env.name for env in self.environments()}
        if self.form == "tools":
            lacking = sorted(n for n in names if get_tool_form(n) is None)
            if lacking:
                raise ProcgenError(f"--form tools: {', '.join(lacking)} has no tool form; environments with one: "
                                   f"{', '.join(tool_form_names())}")
        for name in self.overrides:
            if name not in names:
                raise ProcgenError(f"--config names environment {name!r}, which is not among --envs "
                                   f"({', '.join(sorted(names))})")
        self.configs()

    def curriculum(self, env: ProceduralEnv) -> list[dict[str, Any]]:
        """The configurations instances of ``env`` cycle through: with a ``level``, that one; without, every
        level of the environment's curriculum in turn (each knob at that level, clamped, then the overrides)."""
        if self.level is not None:
            return [self.configs()[env.name]]
        out = []
        for level in range(max(len(k.levels) for k in env.knobs)):
            try:
                out.append(env.check_config({**env.config_at(level), **self.overrides.get(env.name, {})}))
            except ConfigError as exc:
                raise ProcgenError(f"--config at level {level} of {env.name}: {exc}") from None
        return out

    def plan(self) -> list[PlanItem]:
        """The instances to write, in order: environment ``k`` of ``E`` gets instances ``k, k+E, ...``, and its
        ``j``-th instance the ``j``-th configuration of its curriculum, cyclically (:meth:`curriculum`)."""
        cycles = {env.name: self.curriculum(env) for env in self.environments()}
        names = list(cycles)
        items = []
        for i in range(self.num_tasks):
            name, index = names[i % len(names)], i // len(names)
            items.append(PlanItem(name, cycles[name][index % len(cycles[name])], index))
        return items


def parse_overrides(text: str | None, envs: Sequence[ProceduralEnv]) -> dict[str, dict[str, Any]]:
    """``--config`` JSON: ``{"env": {knob: value}}`` per environment, or one ``{knob: value}`` for every
    environment named."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ProcgenError(f"--config is not JSON ({exc}); pass e.g. '{{\"knapsack\": {{\"items\": 8}}}}'") from None
    if not isinstance(value, dict):
        raise ProcgenError("--config is a JSON object: {knob: value} or {environment: {knob: value}}")
    names = {env.name for env in envs}
    if value and all(isinstance(v, dict) for v in value.values()):
        return {str(k): dict(v) for k, v in value.items()}
    if any(isinstance(v, dict) for v in value.values()):
        raise ProcgenError("--config mixes knobs and environments; give {knob: value} or {environment: {knob: value}}")
    return {name: dict(value) for name in sorted(names)}


_WORKER: dict[str, Any] = {}


def configs_of(form: str) -> tuple[str, str]:
    """The ``(sft, rl)`` configs a form writes."""
    return TOOLS_CONFIGS if form == "tools" else CONFIGS


def _init_worker(seed: int, ratios: tuple[float, float, float], form: str = "text") -> None:
    from covert.build import split_of

    _WORKER.update(seed=seed, split_of=split_of(seed, ratios), form=form)


#: Instance data fields that say how an instance was drawn; summed per configuration in the manifest
#: (``summary.sampling``), so a sampler's selection (draws it dropped because its solver ran out of budget)
#: is reported, not hidden.
SAMPLING_FIELDS = ("attempts", "budget_resamples")


def _work(item: PlanItem) -> tuple[str, dict[str, Any], dict[str, Any], str, float, tuple[str, ...], dict[str, int]]:
    """``(split, encoded sft row, encoded rl row, prompt, reference score, reasons, sampling counts)`` of one
    instance."""
    from covert.io.parquet import encode_row

    env = get_env(item.env)
    if _WORKER["form"] == "tools":
        form = get_tool_form(env.name)
        try:
            sft, rl, instance = make_tool_rows(env, form, _WORKER["seed"], item.config, item.index, "train", 0)  # type: ignore[arg-type]
        except TooManyCalls as exc:
            raise ProcgenError(str(exc)) from None
        # the oracle conversation, scored by the environment's tool scorer (its replay on the instance)
        check = env.score_tools(instance, sft["messages"][2:])  # type: ignore[attr-defined]
    else:
        sft, rl, instance = make_rows(env, _WORKER["seed"], item.config, item.index, "train", 0)
        check = env.score(instance, sft["messages"][-1]["content"])
    configs = configs_of(_WORKER["form"])
    split = _WORKER["split_of"](f"procgen:{env.name}:{instance.prompt}")
    rl["extra_info"]["split"] = split
    sampling = {f: int(instance.data[f]) for f in SAMPLING_FIELDS if isinstance(instance.data.get(f), int)}
    return (split, encode_row(sft, configs[0]), encode_row(rl, configs[1]), instance.prompt, check.value,
            check.reasons, sampling)


def build_procgen(config: ProcgenConfig, out: str | Path, overwrite: bool = False, workers: int = 1,
                  command: str = "", items: Sequence[PlanItem] | None = None, progress: bool = False,
                  engine: str = "local", ray_address: str | None = None) -> dict[str, Any]:
    """Write the dataset ``config`` describes into ``out`` and return its manifest.

    ``engine`` makes the instances on ``workers`` local processes (``"local"``) or as Ray Data tasks
    (``"ray"``, on local Ray or the cluster at ``ray_address``): the same bytes either way.

    ``items`` replaces the round-robin plan with explicit instances (a benchmark grid over several
    configurations of one environment, say); ``config`` then supplies the seed, splits and license.
    Raises :class:`ProcgenError` when an environment's reference does not score 1 on an instance.
    ``progress`` draws a bar of the instances written (on a terminal).
    """
    from covert.io.background import Background
    from covert.io.staging import discard, prepare_output, publish

    config.validate()
    envs = config.environments()
    config.envs = [env.name for env in envs]
    plan = list(items) if items is not None else config.plan()
    if not plan:
        raise ProcgenError("the plan holds no instances")
    for item in plan:
        get_env(item.env).check_config(item.config)
    out = Path(out)
    staging = prepare_output(out, overwrite)
    try:
        with Background() as background:
            manifest = _write(config, plan, staging, workers, command, background, custom=items is not None,
                              progress=progress, engine=engine, ray_address=ray_address)
        publish(staging, out)
    except BaseException:
        discard(staging)
        raise
    return manifest


def _write(config: ProcgenConfig, plan: list[PlanItem], root: Path, workers: int, command: str,
           background: Any, custom: bool, progress: bool = False, engine: str = "local",
           ray_address: str | None = None) -> dict[str, Any]:
    from covert.io.parquet import ShardWriter, close_writers
    from covert.progress import tracked
    from covert.scale.engine import open_pool, ordered_map

    sft_config, rl_config = configs_of(config.form)
    writers = {(c, s): ShardWriter(root, c, s, config.rows_per_shard, background)
               for c in (sft_config, rl_config) for s in SPLITS}
    per_env: Counter[str] = Counter()
    per_level: Counter[str] = Counter()
    prompts: dict[str, set[str]] = {}
    duplicates: Counter[str] = Counter()
    sampling: dict[str, dict[str, int]] = {}
    examples: dict[str, dict[str, Any]] = {}
    init = (config.seed, config.split_ratios, config.form)
    pool = open_pool(engine, workers, _init_worker, init, ray_address)
    try:
        results = ordered_map(_work, plan, pool, chunksize=32)
        results = tracked(results, len(plan), unit="instance", desc="procgen", enabled=progress)
        for number, (item, (split, sft, rl, prompt, value, reasons, drawn)) in enumerate(zip(plan, results)):
            if value != 1.0:
                raise ProcgenError(f"{item.env}: the reference of instance {item.index} scores {value} "
                                   f"({', '.join(reasons) or 'no reason'}); fix the environment")
            rl["extra_info"]["index"] = number
            writers[(sft_config, split)].add(sft)
            writers[(rl_config, split)].add(rl)
            examples.setdefault(sft_config, sft)
            examples.setdefault(rl_config, rl)
            per_env[item.env] += 1
            if drawn:
                counts = sampling.setdefault(f"{item.env}:{config_key(item.config)}", {"instances": 0})
                counts["instances"] += 1
                for name, n in drawn.items():
                    counts[name] = counts.get(name, 0) + n
            per_level[f"{item.env}/L{level_of(get_env(item.env), item.config)}"] += 1
            seen = prompts.setdefault(item.env, set())
            if prompt in seen:
                duplicates[item.env] += 1
            seen.add(prompt)
    finally:
        if pool is not None:
            pool.close()
    files, _ = close_writers(writers, root)
    envs = sorted(per_env)
    manifest = {
        "covert_version": covert.__version__,
        "kind": "procgen",
        "command": portable_command(command),
        "config": {**asdict(config), "configs": {name: config.configs().get(name) for name in config.envs},
                   "plan": "custom" if custom else "round_robin",
                   **({"curriculum": {name: config.curriculum(get_env(name)) for name in config.envs}}
                      if config.level is None and not custom else {})},
        "environments": {name: {"version": get_env(name).version, "license": get_env(name).license,
                                "asymmetry": get_env(name).asymmetry, "description": get_env(name).description}
                         for name in envs},
        "summary": {"accepted": len(plan), "candidates": len(plan), "per_environment": dict(sorted(per_env.items())),
                    "per_level": dict(sorted(per_level.items())),
                    "duplicate_prompts": {name: duplicates[name] for name in envs},
                    **({"sampling": dict(sorted(sampling.items()))} if sampling else {})},
        "rows": {f"{c}/{s}": w.rows for (c, s), w in writers.items()},
        "files": dict(sorted(files.items())),
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    from covert.procgen.card import write_procgen_card

    write_procgen_card(root, manifest, examples)
    return manifest
