"""The worked reasoning of a MAPF-FrozenLake reference plan, written as a person would solve the map.

The text says how far each agent is from its goal (the lower bound on the makespan), whether the agents'
own shortest routes collide when followed at the same time and where, how the plan avoids that (which
agent waits or detours), and why its makespan is the least possible.
"""

from __future__ import annotations

from covert.procgen.mapf_grid import MapfMap, distances_to
from covert.procgen.mapf_ladder import independent_paths
from covert.procgen.mapf_sim import simulate


def _first_collision(grid: MapfMap, paths: list[list[tuple[int, int]]]) -> str | None:
    """The first collision of the agents' own shortest routes followed together, in words."""
    horizon = max(len(p) for p in paths)
    at = [p + [p[-1]] * (horizon - len(p)) for p in paths]
    for t in range(1, horizon):
        for a in range(grid.agents):
            for b in range(a + 1, grid.agents):
                if at[a][t] == at[b][t]:
                    return f"agents {a} and {b} would both be on {at[a][t]} at step {t}"
                if at[a][t] == at[b][t - 1] and at[b][t] == at[a][t - 1]:
                    return f"agents {a} and {b} would swap cells {at[a][t - 1]} and {at[b][t - 1]} at step {t}"
    return None


def explain(grid: MapfMap, moves: list[list[str]], makespan: int) -> str:
    """The reasoning that leads to the plan ``moves`` of optimal makespan ``makespan``."""
    dists = [distances_to(grid, goal)[start] for start, goal in zip(grid.starts, grid.goals)]
    bound = max(dists)
    needs = [f"agent {i} needs {d} move{'s' if d != 1 else ''}" for i, d in enumerate(dists)]
    lines = [f"Alone, {', '.join(needs[:-1])} and {needs[-1]}, so no plan can finish in fewer than {bound} "
             "time steps."]
    paths = independent_paths(grid) or []
    collision = _first_collision(grid, paths) if paths else None
    if collision is None:
        lines.append("Followed at the same time, these shortest routes never put two agents on one cell or swap two "
                     "agents, so each agent can simply take its own route.")
    else:
        lines.append(f"Followed at the same time, these shortest routes collide: {collision}.")
        changes = []
        for i, (plan, dist) in enumerate(zip(moves, dists)):
            waits = sum(1 for m in plan if m == "WAIT")
            detour = sum(1 for m in plan if m != "WAIT") - dist
            parts = []
            if waits:
                parts.append(f"waits {waits} step{'s' if waits != 1 else ''}")
            if detour:
                parts.append(f"takes a route {detour} move{'s' if detour != 1 else ''} longer")
            if parts:
                changes.append(f"agent {i} " + " and ".join(parts))
        if changes:
            lines.append("To avoid this, " + "; ".join(changes) + ".")
        else:
            lines.append("To avoid this, the agents take other shortest routes of the same length.")
    outcome = simulate(grid, moves)
    if not outcome.valid or outcome.makespan != makespan:
        raise ValueError("the plan to explain must be valid and of the given makespan")
    checked = "Checked step by step, no two agents are ever on one cell or swap cells, and every agent is on its goal"
    if makespan == bound:
        lines.append(f"{checked} at step {makespan}, which meets the lower bound of {bound}.")
    else:
        lines.append(f"{checked} at step {makespan}. Every way around the collision costs time: searching the "
                     f"alternatives shows that no conflict-free plan finishes in {makespan - 1} steps, so {makespan} "
                     "is the fewest.")
    return "\n".join(lines)

