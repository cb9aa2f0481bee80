"""An exact solver for the optimal makespan of a MAPF-FrozenLake map: conflict-based search on makespan.

Rules (the classical MAPF model the testbed uses): agents move synchronously, one move or a wait per step;
two agents may not occupy one cell at the same time (vertex conflict) nor swap cells in one step (swap or
edge conflict); following another agent into the cell it is leaving is allowed; an agent that reaches its
goal stays there (it may still pass through its goal earlier). The makespan of a plan is the first time
step from which every agent is on its goal for good.

The search is CBS with the makespan as the cost. A constraint-tree node's key is the largest of the agents'
earliest arrival times under the node's constraints, a lower bound on the makespan of every plan that obeys
them; each agent's path is chosen among those that arrive by the key with the fewest conflicts with the
other agents' paths. Nodes are expanded in key order, so the first conflict-free node has the optimal
makespan. The work is bounded: more than ``max_nodes`` expanded nodes raises :class:`SolverBudgetExceeded`.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from itertools import pairwise

from covert.procgen.mapf_grid import MOVES, Cell, MapfMap

DEFAULT_MAX_NODES = 4000
_INF = 1 << 30


class SolverBudgetExceeded(RuntimeError):
    """The search expanded more constraint-tree nodes than its budget allows."""


@dataclass(frozen=True)
class Solution:
    """An optimal plan.

    Attributes:
        makespan: The optimal makespan.
        paths: Agent ``i``'s cells at time steps ``0..makespan`` at index ``i``.
        nodes: Constraint-tree nodes expanded.
    """

    makespan: int
    paths: tuple[tuple[Cell, ...], ...]
    nodes: int

    def moves(self) -> list[list[str]]:
        """Each agent's moves, trailing waits on its goal dropped."""
        names = {offset: name for name, offset in MOVES.items()}
        out = []
        for path in self.paths:
            end = len(path) - 1
            while end > 0 and path[end - 1] == path[end]:
                end -= 1
            out.append([names[(b[0] - a[0], b[1] - a[1])] for a, b in pairwise(path[:end + 1])])
        return out


class _Problem:
    """The map flattened to cell numbers with neighbour lists (the wait first)."""

    def __init__(self, grid: MapfMap) -> None:
        n = grid.size
        self.n = n
        self.cells = n * n
        self.starts = [r * n + c for r, c in grid.starts]
        self.goals = [r * n + c for r, c in grid.goals]
        self.nbrs: list[tuple[int, ...]] = []
        for idx in range(self.cells):
            cell = divmod(idx, n)
            if not grid.passable(cell):
                self.nbrs.append(())
                continue
            near = [idx] + [r * n + c for r, c in grid.neighbours(cell) if (r, c) != cell]
            self.nbrs.append(tuple(near))


@dataclass
class _Constraints:
    vertex: frozenset[tuple[int, int]] = frozenset()  # (cell, t): not on cell at time t
    edge: frozenset[tuple[int, int, int]] = frozenset()  # (u, v, t): not moving u -> v between t and t+1

    def add(self, vertex: tuple[int, int] | None = None, edge: tuple[int, int, int] | None = None) -> _Constraints:
        return _Constraints(self.vertex | {vertex} if vertex else self.vertex,
                            self.edge | {edge} if edge else self.edge)


def _earliest_arrival(prob: _Problem, agent: int, cons: _Constraints) -> int | None:
    """The first time the agent can be on its goal and stay there for good, or ``None`` if never."""
    goal = prob.goals[agent]
    settle = 0  # the goal must be free of constraints from the arrival on
    last = 0
    for cell, t in cons.vertex:
        last = max(last, t)
        if cell == goal:
            settle = max(settle, t + 1)
    for u, v, t in cons.edge:
        last = max(last, t + 1)
        if u == goal and v == goal:
            settle = max(settle, t + 1)
    reach = {prob.starts[agent]}
    # past every constraint the reachable set only grows, so it is final within one pass over the cells
    bound = max(last, settle) + prob.cells + 1
    for t in range(bound + 1):
        if t >= settle and goal in reach:
            return t
        nxt = set()
        for u in reach:
            for v in prob.nbrs[u]:
                if (v, t + 1) not in cons.vertex and (u, v, t) not in cons.edge:
                    nxt.add(v)
        if not nxt:
            return None
        reach = nxt
    return None


def _position(path: list[int], t: int) -> int:
    return path[t] if t < len(path) else path[-1]


def _plan(prob: _Problem, agent: int, cons: _Constraints, horizon: int, others: list[list[int] | None]) -> list[int]:
    """A path for ``agent`` on its goal at ``horizon`` (and after), with the fewest conflicts with ``others``."""
    goal = prob.goals[agent]
    start = prob.starts[agent]
    live = [p for p in others if p is not None]
    best = {start: 0}
    parents: list[dict[int, int]] = []
    for t in range(horizon):
        occupied: dict[int, int] = {}
        moves: dict[tuple[int, int], int] = {}
        for p in live:
            last = len(p) - 1
            a, b = p[min(t, last)], p[min(t + 1, last)]
            occupied[b] = occupied.get(b, 0) + 1
            if a != b:
                moves[(b, a)] = moves.get((b, a), 0) + 1
        nxt: dict[int, int] = {}
        back: dict[int, int] = {}
        for u in sorted(best):
            base = best[u]
            for v in prob.nbrs[u]:
                if (v, t + 1) in cons.vertex or (u, v, t) in cons.edge:
                    continue
                cost = base + occupied.get(v, 0) + (moves.get((u, v), 0) if u != v else 0)
                if cost < nxt.get(v, _INF):
                    nxt[v] = cost
                    back[v] = u
        parents.append(back)
        best = nxt
    if goal not in best:
        raise AssertionError("no path within the horizon")  # the horizon is never below the earliest arrival
    path = [goal]
    for back in reversed(parents):
        path.append(back[path[-1]])
    path.reverse()
    return path


def _conflicts(paths: list[list[int]]) -> tuple[int, tuple[str, int, int, int, int, int] | None]:
    """The number of conflicts and the earliest: ``("vertex", a, b, cell, t, 0)``, or ``("edge", a, b, x, y, t)``
    where ``a`` moves ``x -> y`` and ``b`` moves ``y -> x`` between ``t`` and ``t + 1``."""
    horizon = max(len(p) for p in paths)
    paths = [p + [p[-1]] * (horizon - len(p)) if len(p) < horizon else p for p in paths]
    count = 0
    first = None
    for t in range(horizon):
        seen: dict[int, int] = {}
        for a, p in enumerate(paths):
            cell = p[t]
            if cell in seen:
                count += 1
                if first is None:
                    first = ("vertex", seen[cell], a, cell, t, 0)
            else:
                seen[cell] = a
        if t + 1 >= horizon:
            break
        steps = {}
        for a, p in enumerate(paths):
            u, v = p[t], p[t + 1]
            if u != v:
                other = steps.get((v, u))
                if other is not None:
                    count += 1
                    if first is None:
                        first = ("edge", other, a, v, u, t)
                steps[(u, v)] = a
    return count, first


def solve(grid: MapfMap, max_nodes: int = DEFAULT_MAX_NODES) -> Solution | None:
    """The optimal-makespan plan of ``grid``, ``None`` when no plan exists.

    Raises :class:`SolverBudgetExceeded` after ``max_nodes`` expanded constraint-tree nodes.
    """
    prob = _Problem(grid)
    k = len(prob.starts)
    root_cons = [_Constraints() for _ in range(k)]
    arrivals = [_earliest_arrival(prob, a, root_cons[a]) for a in range(k)]
    if any(a is None for a in arrivals):
        return None
    key = max(arrivals)  # type: ignore[type-var]
    paths: list[list[int] | None] = [None] * k
    for a in range(k):
        paths[a] = _plan(prob, a, root_cons[a], key, paths)
    full: list[list[int]] = paths  # type: ignore[assignment]
    count, first = _conflicts(full)
    tie = 0
    heap = [(key, count, tie, arrivals, root_cons, full, first)]
    expanded = 0
    while heap:
        key, count, _, arrivals, cons, paths_now, first = heapq.heappop(heap)
        if first is None:
            n = prob.n
            cells = tuple(tuple(divmod(_position(p, t), n) for t in range(key + 1)) for p in paths_now)
            return Solution(makespan=key, paths=cells, nodes=expanded)
        expanded += 1
        if expanded > max_nodes:
            raise SolverBudgetExceeded(f"conflict-based search expanded more than {max_nodes} nodes")
        kind, a, b, x, y, z = first
        if kind == "vertex":
            branches = [(a, (x, y), None), (b, (x, y), None)]
        else:  # a moved x -> y and b moved y -> x between z and z + 1
            branches = [(a, None, (x, y, z)), (b, None, (y, x, z))]
        for agent, vertex, edge in branches:
            new_cons = list(cons)
            new_cons[agent] = cons[agent].add(vertex, edge)
            arrival = _earliest_arrival(prob, agent, new_cons[agent])
            if arrival is None:
                continue
            new_arrivals = list(arrivals)
            new_arrivals[agent] = arrival
            new_key = max(new_arrivals)
            others = [p if i != agent else None for i, p in enumerate(paths_now)]
            new_paths = list(paths_now)
            new_paths[agent] = _plan(prob, agent, new_cons[agent], new_key, others)
            new_count, new_first = _conflicts(new_paths)
            tie += 1
            heapq.heappush(heap, (new_key, new_count, tie, new_arrivals, new_cons, new_paths, new_first))
    return None


def joint_solvable(grid: MapfMap, max_states: int = 20_000) -> bool | None:
    """Whether any conflict-free plan exists, by search over joint positions; ``None`` when the joint
    state space (free cells to the power of the agents) is larger than ``max_states``.

    Conflict-based search cannot prove that a map has no plan (it runs to its budget), so the sampler
    uses this to drop unsolvable small maps cheaply.
    """
    prob = _Problem(grid)
    free = sum(1 for nbrs in prob.nbrs if nbrs)
    if free ** len(prob.starts) > max_states:
        return None
    start, goal = tuple(prob.starts), tuple(prob.goals)
    seen = {start}
    frontier = [start]
    while frontier:
        nxt_frontier = []
        for state in frontier:
            if state == goal:
                return True
            for nxt in _joint_successors(prob, state):
                if nxt not in seen:
                    seen.add(nxt)
                    nxt_frontier.append(nxt)
        frontier = nxt_frontier
    return False


def _joint_successors(prob: _Problem, state: tuple[int, ...]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for a, u in enumerate(state):
        grown = []
        for partial in out:
            for v in prob.nbrs[u]:
                if v in partial:
                    continue
                if any(state[b] == v and partial[b] == u for b in range(a)):
                    continue  # swap with an earlier agent
                grown.append((*partial, v))
        out = grown
    return out
