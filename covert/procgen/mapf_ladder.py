"""The MAPF-FrozenLake solver ladder: independent shortest paths, prioritized planning, CBS under node budgets.

- **independent**: each agent follows its own shortest path as if alone (valid only when the paths happen
  not to collide);
- **prioritized**: agents plan one after another, longest distance first, each by a space-time search that
  avoids the cells and swaps the earlier agents reserved (valid when that order works, not always optimal);
- **cbs**: conflict-based search on the makespan (:mod:`covert.procgen.mapf_solver`), exact, giving up past
  its node budget.

Every rung reads only the map (starts, goals, holes) and writes a plan in the prompt's answer format.
"""

from __future__ import annotations

from itertools import pairwise

from covert.procgen.contract import Budget, BudgetExceeded, Instance, Rung
from covert.procgen.mapf_grid import MOVES, Cell, MapfMap, canonical_path, distances_to
from covert.procgen.mapf_solver import SolverBudgetExceeded, solve

_NAMES = {offset: name for name, offset in MOVES.items()}


def path_moves(path: list[Cell] | tuple[Cell, ...]) -> list[str]:
    """The moves along a path of cells, trailing waits on the goal dropped."""
    end = len(path) - 1
    while end > 0 and path[end - 1] == path[end]:
        end -= 1
    return [_NAMES[(b[0] - a[0], b[1] - a[1])] for a, b in pairwise(path[:end + 1])]


def plan_text(moves: list[list[str]]) -> str:
    """A plan in the prompt's answer format."""
    lines = [f"Agent {i}: {', '.join(m) if m else 'WAIT'}" for i, m in enumerate(moves)]
    return "<answer>\n" + "\n".join(lines) + "\n</answer>"


def independent_paths(grid: MapfMap) -> list[list[Cell]] | None:
    """Each agent's canonical shortest path ignoring the others (``None`` if a goal is unreachable)."""
    paths = []
    for agent in range(grid.agents):
        path = canonical_path(grid, agent)
        if path is None:
            return None
        paths.append(path)
    return paths


def prioritized_paths(grid: MapfMap, budget: Budget) -> list[list[Cell]] | None:
    """Prioritized planning: agents in order of decreasing distance to their goal, each by breadth-first
    search over (cell, time) avoiding earlier agents' cells, swaps and parked goals. ``None`` when an agent
    finds no path within the horizon; ``budget`` counts expanded (cell, time) states."""
    dists = [distances_to(grid, goal) for goal in grid.goals]
    if any(start not in d for start, d in zip(grid.starts, dists)):
        return None
    order = sorted(range(grid.agents), key=lambda a: (-dists[a][grid.starts[a]], a))
    horizon = 2 * grid.size * grid.size + 2 * grid.agents
    occupied: dict[tuple[Cell, int], int] = {}
    moving: set[tuple[Cell, Cell, int]] = set()
    parked: dict[Cell, int] = {}  # cell -> time from which an agent stays there for good
    last_visit: dict[Cell, int] = {}  # cell -> last time any planned agent stands on it
    paths: list[list[Cell] | None] = [None] * grid.agents
    for agent in order:
        path = _space_time_search(grid, agent, occupied, moving, parked, last_visit, horizon, budget)
        if path is None:
            return None
        paths[agent] = path
        for t, cell in enumerate(path):
            occupied[(cell, t)] = agent
            last_visit[cell] = max(last_visit.get(cell, 0), t)
        for t, (a, b) in enumerate(pairwise(path)):
            moving.add((a, b, t))
        parked[path[-1]] = len(path) - 1
    return paths  # type: ignore[return-value]


def _space_time_search(grid: MapfMap, agent: int, occupied: dict[tuple[Cell, int], int],
                       moving: set[tuple[Cell, Cell, int]], parked: dict[Cell, int], last_visit: dict[Cell, int],
                       horizon: int, budget: Budget) -> list[Cell] | None:
    start, goal = grid.starts[agent], grid.goals[agent]

    def free(cell: Cell, t: int) -> bool:
        return (cell, t) not in occupied and not (cell in parked and parked[cell] <= t)

    if not free(start, 0):
        return None
    frontier = [start]
    parents: list[dict[Cell, Cell]] = []
    for t in range(horizon):
        if goal in frontier and last_visit.get(goal, -1) < t:
            path = [goal]
            for back in reversed(parents):
                path.append(back[path[-1]])
            return path[::-1]
        nxt: dict[Cell, Cell] = {}
        for cell in frontier:
            budget.spend()
            for step in grid.neighbours(cell):
                if step in nxt or not free(step, t + 1) or (step, cell, t) in moving:
                    continue
                nxt[step] = cell
        if not nxt:
            return None
        parents.append(nxt)
        frontier = sorted(nxt)
    return None


def _independent(instance: Instance, budget: Budget) -> str | None:
    grid = MapfMap.from_data(instance.data)
    paths = independent_paths(grid)
    if paths is None:
        return None
    budget.spend(sum(len(p) for p in paths))
    return plan_text([path_moves(p) for p in paths])


def _prioritized(instance: Instance, budget: Budget) -> str | None:
    paths = prioritized_paths(MapfMap.from_data(instance.data), budget)
    return None if paths is None else plan_text([path_moves(p) for p in paths])


def _cbs(instance: Instance, budget: Budget) -> str | None:
    try:
        found = solve(MapfMap.from_data(instance.data), max_nodes=budget.limit)
    except SolverBudgetExceeded:
        raise BudgetExceeded(f"conflict-based search expanded more than {budget.limit} nodes") from None
    return None if found is None else plan_text(found.moves())


def mapf_ladder() -> tuple[Rung, ...]:
    """The ladder, weakest first."""
    return (Rung("independent", 10_000, "steps", _independent),
            Rung("prioritized", 20_000, "states", _prioritized),
            Rung("cbs_20", 20, "nodes", _cbs),
            Rung("cbs_400", 400, "nodes", _cbs))
