"""Synchronous simulation of a MAPF-FrozenLake plan and what went wrong in it.

Every agent makes its ``t``-th move at step ``t``; an agent whose list has run out waits. A move off the grid
is counted (``out_of_bounds``) and the agent stays put; a move onto a hole is counted (``holes``) and the
agent falls in: it stays in the hole, does nothing more and takes no part in conflicts. A word that is not a
move is counted (``unknown_moves``) and the agent waits. After each step, every pair of agents on one cell
is a vertex conflict and every pair that swapped cells is a swap conflict.
"""

from __future__ import annotations

from dataclasses import dataclass

from covert.procgen.mapf_grid import MOVES, Cell, MapfMap


@dataclass(frozen=True)
class Outcome:
    """The result of simulating a plan.

    Attributes:
        steps: The number of time steps simulated (the longest move list).
        unknown_moves: Words that are not moves.
        out_of_bounds: Moves off the grid.
        holes: Agents that stepped onto a hole.
        vertex_conflicts: (step, agent pair) occurrences of two agents on one cell.
        swap_conflicts: (step, agent pair) occurrences of two agents swapping cells.
        all_goals_reached: Every agent ends on its own goal.
        makespan: The first step from which every agent stays on its goal, or ``None``.
        final: Each agent's final cell.
    """

    steps: int
    unknown_moves: int
    out_of_bounds: int
    holes: int
    vertex_conflicts: int
    swap_conflicts: int
    all_goals_reached: bool
    makespan: int | None
    final: tuple[Cell, ...]

    @property
    def has_illegal_moves(self) -> bool:
        """Some move was not a move, left the grid or entered a hole."""
        return bool(self.unknown_moves or self.out_of_bounds or self.holes)

    @property
    def conflict_free(self) -> bool:
        """No vertex and no swap conflict."""
        return not (self.vertex_conflicts or self.swap_conflicts)

    @property
    def valid(self) -> bool:
        """No illegal move, no conflict, and every agent on its goal at the end."""
        return self.all_goals_reached and self.conflict_free and not self.has_illegal_moves


def simulate(grid: MapfMap, moves: tuple[tuple[str, ...], ...] | list[list[str]]) -> Outcome:
    """Run ``moves`` (one list per agent, as many lists as agents) on ``grid``."""
    k = grid.agents
    pos = list(grid.starts)
    fallen = [False] * k
    steps = max((len(m) for m in moves), default=0)
    unknown = oob = holes = vertex = swap = 0
    last_off_goal = 0 if any(p != g for p, g in zip(pos, grid.goals)) else -1  # last time off some goal
    for t in range(steps):
        before = list(pos)
        for i in range(k):
            if fallen[i]:
                continue
            move = moves[i][t] if t < len(moves[i]) else "WAIT"
            offset = MOVES.get(move)
            if offset is None:
                unknown += 1
                continue
            nxt = (pos[i][0] + offset[0], pos[i][1] + offset[1])
            if not grid.inside(nxt):
                oob += 1
                continue
            pos[i] = nxt
            if nxt in grid.hole_set:
                holes += 1
                fallen[i] = True
        active = [i for i in range(k) if not fallen[i]]
        for x, a in enumerate(active):
            for b in active[x + 1:]:
                if pos[a] == pos[b]:
                    vertex += 1
                elif pos[a] == before[b] and pos[b] == before[a]:
                    swap += 1
        if any(pos[i] != grid.goals[i] or fallen[i] for i in range(k)):
            last_off_goal = t + 1
    reached = all(pos[i] == grid.goals[i] and not fallen[i] for i in range(k))
    return Outcome(steps=steps, unknown_moves=unknown, out_of_bounds=oob, holes=holes, vertex_conflicts=vertex,
                   swap_conflicts=swap, all_goals_reached=reached, makespan=last_off_goal + 1 if reached else None,
                   final=tuple(pos))
