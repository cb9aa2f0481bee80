"""The MAPF-FrozenLake benchmark grid as a dataset, and the paper-shaped report of valid % and optimal %.

The grid of the testbed's benchmark: 3 agents on 3x3 to 10x10, 4 agents on 4x4 to 10x10 and 5 agents on
5x5 to 10x10, 150 instances per (agents, size) cell: 21 cells, 3,150 rows. The rows go through the procedural
dataset writer (:func:`covert.procgen.dataset.build_procgen`, every row in the ``test`` split), so the same
seed gives the same bytes. The report scores one response per row (from a completions file or a policy) and
gives, per agent count and overall, the share of valid plans and of optimal plans.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from covert.procgen.contract import Instance
from covert.procgen.envs.mapf_frozenlake import ENV, SOLVER_NODES

#: Agent count -> the grid sizes it is benchmarked on.
BENCHMARK_GRID: dict[int, tuple[int, ...]] = {3: tuple(range(3, 11)), 4: tuple(range(4, 11)), 5: tuple(range(5, 11))}
PER_CELL = 150
#: Knob values every benchmark instance shares (the published grid fixes agents and size; its instances have a
#: hole ratio of 0.1).
BENCHMARK_KNOBS: dict[str, int] = {"hole_percent": 10, "conflict_percent": 25}

Policy = Callable[[Instance, str], str]


def benchmark_items(per_cell: int = PER_CELL, grid: dict[int, tuple[int, ...]] | None = None,
                    knobs: dict[str, int] | None = None) -> list[Any]:
    """The benchmark's instances in order: each (agents, size) cell, instance indices ``0..per_cell-1``."""
    from covert.procgen.dataset import PlanItem

    grid = BENCHMARK_GRID if grid is None else grid
    knobs = BENCHMARK_KNOBS if knobs is None else knobs
    items = []
    for agents, sizes in sorted(grid.items()):
        for size in sizes:
            config = ENV.check_config({**knobs, "grid_size": size, "agents": agents})
            items += [PlanItem(ENV.name, config, index) for index in range(per_cell)]
    return items


def write_benchmark(out: str | Path, seed: int = 0, per_cell: int = PER_CELL, workers: int = 1,
                    overwrite: bool = False, grid: dict[int, tuple[int, ...]] | None = None,
                    command: str = "", form: str = "text", progress: bool = False, engine: str = "local",
                    ray_address: str | None = None) -> dict[str, Any]:
    """Write the benchmark grid into ``out`` (the Hub layout, all rows in ``test``); returns the manifest.
    ``form="tools"`` writes the tool-call form (configs ``sft-procgen-tools`` / ``rl-procgen-tools``);
    ``progress`` draws a bar of the instances written. The instances are made on ``workers`` local
    processes (``engine="local"``) or as Ray Data tasks (``engine="ray"``, on local Ray or the cluster at
    ``ray_address``): the same bytes either way.

    The sampler drops a draw whose optimum the exact solver cannot settle within its node budget; the
    manifest's ``summary.sampling`` counts those draws per cell (:func:`selection_bias` reads them), so
    the tilt toward easier instances is reported."""
    from covert.procgen.dataset import ProcgenConfig, ProcgenError, build_procgen

    if per_cell <= 0:
        raise ProcgenError(f"--per-cell must be a positive integer, got {per_cell}")
    items = benchmark_items(per_cell, grid)
    config = ProcgenConfig(envs=[ENV.name], num_tasks=len(items), seed=seed, split_ratios=(0.0, 0.0, 1.0), form=form)
    return build_procgen(config, out, overwrite=overwrite, workers=workers, command=command, items=items,
                         progress=progress, engine=engine, ray_address=ray_address)


def selection_bias(manifest: dict[str, Any]) -> list[tuple[int, int, int, int, int]]:
    """Per benchmark cell: ``(agents, grid_size, instances, draws, draws dropped because the solver ran out of
    budget)``, from a benchmark manifest's ``summary.sampling``."""
    out = []
    for key, counts in (manifest.get("summary", {}).get("sampling") or {}).items():
        name, _, config = key.partition(":")
        if name != ENV.name:
            continue
        knobs = json.loads(config)
        out.append((knobs["agents"], knobs["grid_size"], counts.get("instances", 0), counts.get("attempts", 0),
                    counts.get("budget_resamples", 0)))
    return sorted(out)


def format_selection(rows: list[tuple[int, int, int, int, int]]) -> str:
    """The selection table: per cell, how many draws the solver's node budget dropped."""
    lines = [f"draws the exact solver could not settle within {SOLVER_NODES} nodes (dropped; the rest are the "
             "instances):", f"{'agents':<8}{'size':>5}{'n':>6}{'draws':>8}{'dropped':>9}"]
    lines += [f"{a:<8}{g:>5}{n:>6}{d:>8}{b:>9}" for a, g, n, d, b in rows]
    total = sum(r[4] for r in rows)
    lines.append(f"all: {total} of {sum(r[3] for r in rows)} draws dropped for the budget")
    return "\n".join(lines)


# -- policies -----------------------------------------------------------------------------------------------
def reference_policy(instance: Instance, task_id: str) -> str:
    """The exact solver's plan (valid and optimal on every instance)."""
    return ENV.reference(instance)


def noisy_policy(accuracy: float = 0.5, seed: int = 0) -> Policy:
    """A scripted policy: the optimal plan with probability ``accuracy``; otherwise the plan with one fault,
    drawn per task: a late start (valid, not optimal), a dropped last move, or two moves swapped."""

    def policy(instance: Instance, task_id: str) -> str:
        rng = random.Random(f"{seed}:{task_id}")
        reference = ENV.reference(instance)
        if rng.random() < accuracy:
            return reference
        return ENV.perturb(instance, reference, rng)

    return policy


# -- the report ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReportLine:
    """One line of the report: ``agents`` is ``"3"``, ``"4"``, ``"5"`` or ``"all"``."""

    agents: str
    count: int
    valid: float
    optimal: float


def mapf_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The MAPF-FrozenLake rows among ``rows`` (RL or SFT rows of a procgen dataset)."""
    from covert.procgen.rows import procgen_truth

    out = []
    for row in rows:
        truth = procgen_truth(row)
        if truth is not None and truth.get("env") == ENV.name:
            out.append(row)
    return out


def report(rows: Iterable[dict[str, Any]], responses: dict[str, Any] | Policy, progress: bool = False) -> list[ReportLine]:
    """Valid % and optimal % per agent count and overall. ``responses`` maps task ids to completions (text,
    or messages; a row without one counts as a failure) or is a policy called on each row's instance.

    Rows of the tool form (``--form tools``) score a completion's ``move``/``wait`` calls
    (:meth:`~covert.procgen.envs.mapf_frozenlake.MapfFrozenLake.score_tools`); a policy's text plan is played
    as those calls (:func:`plan_as_calls`). ``progress`` draws a bar of the rows scored."""
    from covert.procgen.rows import procgen_truth
    from covert.progress import tracked

    scored = []
    chosen = mapf_rows(rows)
    for row in tracked(chosen, len(chosen), desc="mapf-report", enabled=progress):
        truth = procgen_truth(row)
        data = truth["data"]  # type: ignore[index]
        instance = Instance("", data)
        task_id = str(row.get("task_id"))
        completion = responses(instance, task_id) if callable(responses) else responses.get(task_id, "")
        if truth.get("form") == "tools":  # type: ignore[union-attr]
            if callable(responses):
                completion = plan_as_calls(str(completion), len(data["starts"]))
            details = ENV.score_tools(instance, completion).details
        else:
            details = ENV.score(instance, _text_of(completion)).details
        scored.append((len(data["starts"]), details))
    return _tally(scored)


def report_instances(items: Iterable[tuple[str, Instance]], responses: dict[str, Any] | Policy) -> list[ReportLine]:
    """The same report on ``(id, instance)`` pairs (maps read from files, :mod:`covert.procgen.mapf_published`);
    ``responses`` maps ids to completions or is a policy."""
    scored = []
    for ident, instance in items:
        completion = responses(instance, ident) if callable(responses) else responses.get(ident, "")
        scored.append((len(instance.data["starts"]), ENV.score(instance, _text_of(completion)).details))
    return _tally(scored)


def _tally(scored: list[tuple[int, dict[str, Any]]]) -> list[ReportLine]:
    tally: dict[str, list[int]] = {}
    for agents, details in scored:
        for key in (str(agents), "all"):
            counts = tally.setdefault(key, [0, 0, 0])
            counts[0] += 1
            counts[1] += bool(details.get("valid"))
            counts[2] += bool(details.get("optimal"))
    order = sorted((k for k in tally if k != "all"), key=int) + (["all"] if tally else [])
    return [ReportLine(k, tally[k][0], 100 * tally[k][1] / tally[k][0], 100 * tally[k][2] / tally[k][0])
            for k in order]


def plan_as_calls(plan: str, agents: int) -> list[dict[str, Any]]:
    """A text plan played through the tool form: one assistant turn of ``move``/``wait`` calls per time step
    (an unparsable plan makes no calls)."""
    from covert.procgen.mapf_moves import parse_plan
    from covert.procgen.mapf_tools import oracle_groups

    moves = parse_plan(plan, agents).moves
    groups = oracle_groups([list(m) for m in moves]) if moves else []
    turns: list[dict[str, Any]] = [
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": f"call_{t}_{i}", "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for i, c in enumerate(group)]} for t, group in enumerate(groups)]
    return [*turns, {"role": "assistant", "content": "Done." if groups else plan}]


def format_report(lines: list[ReportLine], title: str = "") -> str:
    """The report as the paper's table: one line per agent count, valid % and optimal %."""
    out = [title] if title else []
    out.append(f"{'agents':<8}{'n':>6}{'valid %':>10}{'optimal %':>11}")
    out += [f"{line.agents:<8}{line.count:>6}{line.valid:>10.2f}{line.optimal:>11.2f}" for line in lines]
    return "\n".join(out)


def read_completions(path: str | Path) -> dict[str, Any]:
    """A JSONL file of ``{"task_id", "completion"}`` lines (a completion is text, or messages: text rows read
    the last assistant message, tool-form rows the tool calls); raises ``ValueError`` naming the bad line."""
    out: dict[str, Any] = {}
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except (ValueError, RecursionError):
            raise ValueError(f"line {number} of {path} is not JSON") from None
        if not isinstance(item, dict) or not isinstance(item.get("task_id"), str) or "completion" not in item:
            raise ValueError(f'line {number} of {path}: each line is {{"task_id": ..., "completion": ...}}')
        out[item["task_id"]] = item["completion"]
    return out


def _text_of(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list):
        for message in reversed(completion):
            if isinstance(message, dict) and message.get("role") == "assistant" and isinstance(message.get("content"), str):
                return message["content"]
    return ""
