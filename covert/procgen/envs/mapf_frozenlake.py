"""MAPF-FrozenLake: multi-agent path planning on a frozen lake, scored on validity and optimal makespan.

The testbed of "LLM-as-Environment-Engineer" (From Trainee to Trainer, arXiv 2606.17682): an ``N x N`` lake of
frozen cells and holes with 2-5 agents that move synchronously to their goals. The reference is an optimal
plan from an exact conflict-based search on the makespan (:mod:`covert.procgen.mapf_solver`); a response is
valid when its moves are legal, conflict-free and bring every agent to its goal, and optimal when it is valid
and its makespan equals the optimum.
"""

from __future__ import annotations

import json
import random
from collections import OrderedDict

from covert.procgen.contract import (
    ConfigError,
    Instance,
    JSONValue,
    Knob,
    ProceduralEnv,
    Rung,
    Score,
    instance_rng,
)
from covert.procgen.mapf_explain import explain
from covert.procgen.mapf_grid import MapfMap, crossing_pairs, distances_to, render_prompt
from covert.procgen.mapf_ladder import independent_paths, mapf_ladder, path_moves, plan_text
from covert.procgen.mapf_moves import parse_plan
from covert.procgen.mapf_sim import simulate
from covert.procgen.mapf_solver import Solution, SolverBudgetExceeded, joint_solvable, solve

#: Resampling attempts per instance before the configuration is declared unsatisfiable.
MAX_ATTEMPTS = 2000
#: Constraint-tree nodes the exact solver may expand per attempt; an instance over budget is resampled
#: (counted in the instance's ``budget_resamples``, so the selection is reported, not hidden).
SOLVER_NODES = 4000
#: The budget of the first, short search of each attempt.
QUICK_NODES = 200
#: Conflict level -> how many qualifying draws the sampler compares, keeping the most conflicted.
DRAWS = {0: 1, 25: 2, 50: 4, 75: 8}


class MapfFrozenLake(ProceduralEnv):
    """Multi-agent path finding on a FrozenLake grid (optimal makespan by conflict-based search)."""

    name = "mapf_frozenlake"
    version = "2"
    description = "Multi-agent path planning on a frozen lake: conflict-free moves to every goal in the fewest steps"
    asymmetry = "verify"
    hidden_fields = ("optimal_makespan", "crossing_pairs", "collisions", "shared_cells", "attempts",
                     "budget_resamples")
    knobs = (
        Knob("grid_size", tuple(range(3, 11)), "side N of the N x N lake"),
        Knob("agents", (2, 3, 4, 5), "number of agents (each with its own start and goal)"),
        Knob("hole_percent", (0, 10, 20, 30, 40, 50), "share of the cells that are holes, in percent (ratio 0-0.5)"),
        Knob("conflict_percent", (0, 25, 50, 75),
             "conflict density: least share of agent pairs, in percent, whose independent shortest paths cross; "
             "the instance is also the most conflicted of 1, 2, 4 or 8 such draws (collisions of the shortest "
             "routes followed together, then shared cells), so every level adds conflicts at any agent count"),
    )

    #: Which knob makes which failure more likely (the environment engineer's evidence map).
    failure_knobs = {
        "vertex_conflict": ("agents", "conflict_percent"), "swap_conflict": ("agents", "conflict_percent"),
        "hole": ("hole_percent",), "out_of_bounds": ("grid_size",), "goals_not_reached": ("grid_size", "agents"),
        "not_optimal": ("conflict_percent", "grid_size"), "unparsable": ("agents",),
    }
    #: Evolution directions: longer horizons (bigger lakes, more agents), tighter constraints.
    directions = {"horizon": ("grid_size", "agents"), "constraints": ("conflict_percent", "hole_percent")}

    def check_config(self, config: dict[str, JSONValue]) -> dict[str, JSONValue]:
        """The base checks, plus room for every start and goal: ``2 * agents <= grid_size ** 2``."""
        full = super().check_config(config)
        if 2 * full["agents"] > full["grid_size"] ** 2:
            raise ConfigError(f"{full['agents']} agents need {2 * full['agents']} start and goal cells; a "
                              f"{full['grid_size']}x{full['grid_size']} lake has {full['grid_size'] ** 2}: "
                              "use a larger grid_size or fewer agents")
        return full

    def sample(self, seed: int, config: dict[str, JSONValue], index: int) -> Instance:
        """A solvable instance whose optimum the exact solver finds within its budget (bounded resampling):
        the most conflicted of :data:`DRAWS` qualifying draws at the configuration's conflict level."""
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n, k = int(config["grid_size"]), int(config["agents"])
        cells = [(r, c) for r in range(n) for c in range(n)]
        hole_count = min((int(config["hole_percent"]) * n * n + 50) // 100, n * n - 2 * k)
        pairs = k * (k - 1) // 2
        need = -(-int(config["conflict_percent"]) * pairs // 100)  # ceiling
        draws = DRAWS[int(config["conflict_percent"])]
        pool: list[tuple[tuple[int, int, int], MapfMap]] = []
        over_budget = 0
        for attempt in range(MAX_ATTEMPTS):
            holes = sorted(rng.sample(cells, hole_count))
            free = largest_region(n, set(holes))
            if len(free) < 2 * k:
                continue
            marks = rng.sample(free, 2 * k)  # starts and goals in one region: every goal is reachable
            grid = MapfMap(n, tuple(holes), tuple(marks[:k]), tuple(marks[k:]))
            paths = independent_paths(grid)
            if paths is None:
                continue
            crossing = crossing_pairs(paths)
            if crossing < need:
                continue
            pool.append(((collisions(grid, paths), shared_cells(paths), -len(pool)), grid))
            if len(pool) < draws and attempt + 1 < MAX_ATTEMPTS:
                continue
            pool.sort(key=lambda item: item[0], reverse=True)
            while pool:  # the most conflicted draw that has a plan the solver finds; else a fresh batch
                (collided, shared, _), best = pool.pop(0)
                solution, ran_out = _solve_within_budget(best)
                if solution is not None:
                    break
                over_budget += ran_out
            if solution is None:
                continue
            _remember(best, solution)
            data: dict[str, JSONValue] = {**best.to_data(), "optimal_makespan": solution.makespan,
                                          "crossing_pairs": crossing_pairs(independent_paths(best) or []),
                                          "collisions": collided, "shared_cells": shared,
                                          "attempts": attempt + 1, "budget_resamples": over_budget}
            return Instance(prompt=render_prompt(best), data=data)
        raise RuntimeError(f"{self.name}: no solvable instance in {MAX_ATTEMPTS} attempts for {config}; "
                           "lower hole_percent or conflict_percent")

    def reference(self, instance: Instance) -> str:
        """The worked reasoning, then an optimal plan: one ``Agent i: ...`` line per agent inside
        ``<answer>`` tags."""
        grid = MapfMap.from_data(instance.data)
        solution = _reference_solution(grid)
        if solution is None:
            raise ValueError("this MAPF instance has no solution")
        return explain(grid, solution.moves(), solution.makespan) + "\n" + format_plan(solution.moves())

    def ladder(self) -> tuple[Rung, ...]:
        """Independent shortest paths, prioritized planning, CBS with 20 and 400 nodes
        (:mod:`covert.procgen.mapf_ladder`)."""
        return mapf_ladder()

    def score(self, instance: Instance, response: str) -> Score:
        """Simulate the response's moves: value ``optimum / makespan`` for a valid plan, else 0."""
        try:
            grid = MapfMap.from_data(instance.data)
            optimum = int(instance.data["optimal_makespan"])
        except (KeyError, TypeError, ValueError):
            return Score(0.0, ("bad_instance",), {"valid": False, "optimal": False})
        parsed = parse_plan(response, grid.agents)
        if parsed.moves is None:
            return Score(0.0, ("unparsable",), {
                "parsed": False, "has_illegal_moves": False, "out_of_bounds": 0, "holes": 0, "vertex_conflicts": 0,
                "swap_conflicts": 0, "unknown_moves": 0, "all_goals_reached": False, "valid": False,
                "optimal": False, "makespan": None, "optimal_makespan": optimum})
        outcome = simulate(grid, parsed.moves)
        reasons = []
        if parsed.missing:
            reasons.append("missing_agents")
        if parsed.too_long:
            reasons.append("too_many_moves")
        for count, reason in ((outcome.unknown_moves, "unknown_moves"), (outcome.out_of_bounds, "out_of_bounds"),
                              (outcome.holes, "hole"), (outcome.vertex_conflicts, "vertex_conflict"),
                              (outcome.swap_conflicts, "swap_conflict")):
            if count:
                reasons.append(reason)
        if not outcome.all_goals_reached:
            reasons.append("goals_not_reached")
        valid = outcome.valid and not parsed.missing and not parsed.too_long
        optimal = valid and outcome.makespan == optimum
        if valid and not optimal:
            reasons.append("not_optimal")
        value = optimum / outcome.makespan if valid and outcome.makespan else 0.0
        details: dict[str, JSONValue] = {
            "parsed": True, "form": parsed.form, "has_illegal_moves": outcome.has_illegal_moves,
            "out_of_bounds": outcome.out_of_bounds, "holes": outcome.holes,
            "vertex_conflicts": outcome.vertex_conflicts, "swap_conflicts": outcome.swap_conflicts,
            "unknown_moves": outcome.unknown_moves, "all_goals_reached": outcome.all_goals_reached,
            "valid": valid, "optimal": optimal, "makespan": outcome.makespan, "optimal_makespan": optimum,
        }
        return Score(min(1.0, value), tuple(reasons), details)

    def perturb(self, instance: Instance, reference: str, rng: random.Random) -> str:
        """A plan with one fault, as a weaker planner makes it: a late start (valid, not optimal), a dropped
        last move (a goal not reached) or two moves swapped (a hole, a conflict or a wrong turn)."""
        moves = [list(m) for m in parse_plan(reference, len(instance.data["starts"])).moves or ()]
        if not moves:
            return reference
        agent = rng.randrange(len(moves))
        fault = rng.choice(("late_start", "drop_last", "swap_two"))
        plan = moves[agent]
        turns = [i for i in range(len(plan) - 1) if plan[i] != plan[i + 1]]
        if fault == "late_start":
            plan.insert(0, "WAIT")
        elif fault == "swap_two" and turns:  # swapping two equal moves would change nothing
            i = rng.choice(turns)
            plan[i], plan[i + 1] = plan[i + 1], plan[i]
        elif plan:
            plan.pop()
        return format_plan(moves)

    def statistics(self, instance: Instance) -> dict[str, float]:
        """Instance facts for stage summaries: the optimal makespan, its lower bound (the longest distance),
        how many agent pairs' shortest paths cross, collide when followed together and share cells, and
        the holes."""
        grid = MapfMap.from_data(instance.data)
        dists = [distances_to(grid, g)[s] for s, g in zip(grid.starts, grid.goals)]
        return {"optimal_makespan": float(instance.data["optimal_makespan"]), "lower_bound": float(max(dists)),
                "mean_distance": sum(dists) / len(dists), "agents": float(grid.agents),
                "crossing_pairs": float(instance.data["crossing_pairs"]),
                "collisions": float(instance.data.get("collisions", 0)),
                "shared_cells": float(instance.data.get("shared_cells", 0)), "holes": float(len(grid.holes))}

    def score_tools(self, instance: Instance, completion: object) -> Score:
        """Score the tool-call form (:mod:`covert.procgen.mapf_tools`): replay the completion's ``move`` and
        ``wait`` calls and match the final state against the optimal one; never raises."""
        from covert.procgen.mapf_tools import score_tool_calls

        try:
            MapfMap.from_data(instance.data)
            int(instance.data["optimal_makespan"])
        except (KeyError, TypeError, ValueError):
            return Score(0.0, ("bad_instance",), {"valid": False, "optimal": False})
        return score_tool_calls(dict(instance.data), completion)


def _solve_within_budget(grid: MapfMap) -> tuple[Solution | None, bool]:
    """The optimal plan, or ``None`` when there is none or the solver runs over budget; the flag says
    whether it ran over budget (the instance may have a plan the sampler then leaves out).

    A short search first (most maps need a handful of nodes); a map it cannot settle is checked for any plan
    at all over joint positions when that space is small (search cannot prove there is none), then searched
    with the full budget.
    """
    try:
        return solve(grid, max_nodes=QUICK_NODES), False
    except SolverBudgetExceeded:
        pass
    if joint_solvable(grid) is False:
        return None, False
    try:
        return solve(grid, max_nodes=SOLVER_NODES), False
    except SolverBudgetExceeded:
        return None, True


_SOLVED: OrderedDict[str, Solution] = OrderedDict()  # recent solutions by map (a memo: solving is pure)


def _map_key(grid: MapfMap) -> str:
    return json.dumps(grid.to_data(), sort_keys=True)


def _remember(grid: MapfMap, solution: Solution) -> None:
    _SOLVED[_map_key(grid)] = solution
    while len(_SOLVED) > 512:
        _SOLVED.popitem(last=False)


def _reference_solution(grid: MapfMap) -> Solution | None:
    found = _SOLVED.get(_map_key(grid))
    if found is None:
        found = solve(grid, max_nodes=SOLVER_NODES)
        if found is not None:
            _remember(grid, found)
    return found


def collisions(grid: MapfMap, paths: list[list[tuple[int, int]]]) -> int:
    """Vertex and swap conflicts when every agent follows its own shortest path at the same time."""
    outcome = simulate(grid, [path_moves(p) for p in paths])
    return outcome.vertex_conflicts + outcome.swap_conflicts


def shared_cells(paths: list[list[tuple[int, int]]]) -> int:
    """Cells shared by two agents' shortest paths, summed over agent pairs."""
    cells = [set(p) for p in paths]
    return sum(len(cells[i] & cells[j]) for i in range(len(cells)) for j in range(i + 1, len(cells)))


def largest_region(size: int, holes: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """The largest 4-connected region of non-hole cells, sorted (the first such region in row order on ties)."""
    seen: set[tuple[int, int]] = set(holes)
    best: list[tuple[int, int]] = []
    for r in range(size):
        for c in range(size):
            if (r, c) in seen:
                continue
            region = [(r, c)]
            seen.add((r, c))
            for cr, cc in region:
                for nxt in ((cr - 1, cc), (cr + 1, cc), (cr, cc - 1), (cr, cc + 1)):
                    if 0 <= nxt[0] < size and 0 <= nxt[1] < size and nxt not in seen:
                        seen.add(nxt)
                        region.append(nxt)
            if len(region) > len(best):
                best = region
    return sorted(best)


def format_plan(moves: list[list[str]]) -> str:
    """A plan written in the answer format the prompt asks for."""
    return plan_text(moves)


ENV = MapfFrozenLake()
