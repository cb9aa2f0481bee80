"""MAPF-FrozenLake maps: the grid model, its text encoding, distances and canonical shortest paths.

A map is an ``N x N`` grid of frozen cells (``F``) and holes (``H``) with ``K`` agents (2 to 5). Agent
``i`` starts on the cell marked ``START_MARKS[i]`` and must reach the cell marked ``GOAL_MARKS[i]``
(``S s A B C`` and ``G g a b c`` for agents 0-4, as the published testbed writes them). Coordinates are
``(row, column)`` counted from 0 at the top-left corner; ``UP`` decreases the row.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cached_property

START_MARKS = ("S", "s", "A", "B", "C")
GOAL_MARKS = ("G", "g", "a", "b", "c")
FROZEN = "F"
HOLE = "H"
MAX_AGENTS = len(START_MARKS)

#: Moves and their (row, column) offsets; the order is the canonical tie-break order.
MOVES: dict[str, tuple[int, int]] = {"UP": (-1, 0), "DOWN": (1, 0), "LEFT": (0, -1), "RIGHT": (0, 1), "WAIT": (0, 0)}

Cell = tuple[int, int]


@dataclass(frozen=True)
class MapfMap:
    """One MAPF-FrozenLake map.

    Attributes:
        size: The side ``N`` of the square grid.
        holes: The hole cells, sorted.
        starts: Agent ``i``'s start cell at index ``i``.
        goals: Agent ``i``'s goal cell at index ``i``.
    """

    size: int
    holes: tuple[Cell, ...]
    starts: tuple[Cell, ...]
    goals: tuple[Cell, ...]

    @property
    def agents(self) -> int:
        """The number of agents."""
        return len(self.starts)

    @cached_property
    def hole_set(self) -> frozenset[Cell]:
        """The holes as a set."""
        return frozenset(self.holes)

    def inside(self, cell: Cell) -> bool:
        """Whether ``cell`` lies on the grid."""
        return 0 <= cell[0] < self.size and 0 <= cell[1] < self.size

    def passable(self, cell: Cell) -> bool:
        """Whether an agent may stand on ``cell`` (on the grid and not a hole)."""
        return self.inside(cell) and cell not in self.hole_set

    def neighbours(self, cell: Cell) -> list[Cell]:
        """Passable cells one move (or a wait) away, in :data:`MOVES` order."""
        out = []
        for dr, dc in MOVES.values():
            nxt = (cell[0] + dr, cell[1] + dc)
            if self.passable(nxt):
                out.append(nxt)
        return out

    def rows(self) -> list[str]:
        """The grid as strings, one character per cell (agents' marks over ``F``/``H``)."""
        grid = [[FROZEN] * self.size for _ in range(self.size)]
        for r, c in self.holes:
            grid[r][c] = HOLE
        for i, (r, c) in enumerate(self.starts):
            grid[r][c] = START_MARKS[i]
        for i, (r, c) in enumerate(self.goals):
            grid[r][c] = GOAL_MARKS[i]
        return ["".join(row) for row in grid]

    def to_data(self) -> dict[str, object]:
        """A JSON-serialisable form (read back with :meth:`from_data`)."""
        return {"size": self.size, "holes": [list(h) for h in self.holes],
                "starts": [list(s) for s in self.starts], "goals": [list(g) for g in self.goals]}

    @classmethod
    def from_data(cls, data: dict[str, object]) -> MapfMap:
        """The map stored by :meth:`to_data`; raises ``ValueError`` on a malformed or inconsistent record."""
        try:
            size = int(data["size"])  # type: ignore[arg-type]
            holes = tuple(sorted((int(r), int(c)) for r, c in data["holes"]))  # type: ignore[union-attr]
            starts = tuple((int(r), int(c)) for r, c in data["starts"])  # type: ignore[union-attr]
            goals = tuple((int(r), int(c)) for r, c in data["goals"])  # type: ignore[union-attr]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a MAPF map record: {exc}") from None
        grid = cls(size, holes, starts, goals)
        marked = list(starts) + list(goals)
        if not 2 <= size <= 64 or not 1 <= len(starts) <= MAX_AGENTS or len(goals) != len(starts):
            raise ValueError("MAPF map record: size 2-64 and 1-5 agents, with one goal per agent")
        if len(set(marked)) != len(marked) or not all(grid.passable(c) for c in marked):
            raise ValueError("MAPF map record: starts and goals must be distinct passable cells")
        return grid


def distances_to(grid: MapfMap, target: Cell) -> dict[Cell, int]:
    """Shortest move counts from every passable cell that can reach ``target`` (BFS, holes blocked)."""
    dist = {target: 0}
    queue = deque([target])
    while queue:
        cell = queue.popleft()
        for nxt in grid.neighbours(cell):
            if nxt not in dist:
                dist[nxt] = dist[cell] + 1
                queue.append(nxt)
    return dist


def canonical_path(grid: MapfMap, agent: int, dist: dict[Cell, int] | None = None) -> list[Cell] | None:
    """Agent ``agent``'s shortest path ignoring the others (ties broken in :data:`MOVES` order), or
    ``None`` when its goal is unreachable."""
    dist = distances_to(grid, grid.goals[agent]) if dist is None else dist
    cell = grid.starts[agent]
    if cell not in dist:
        return None
    path = [cell]
    while dist[cell] > 0:
        cell = next(n for n in grid.neighbours(cell) if dist.get(n) == dist[cell] - 1)
        path.append(cell)
    return path


def crossing_pairs(paths: list[list[Cell]]) -> int:
    """How many agent pairs' paths share at least one cell (the paths "cross")."""
    cells = [set(p) for p in paths]
    return sum(1 for i in range(len(cells)) for j in range(i + 1, len(cells)) if cells[i] & cells[j])


def render_prompt(grid: MapfMap) -> str:
    """The task text, worded as the MAPF-FrozenLake testbed writes it, plus the answer format."""
    lines = [f"You are a multi-agent path planning expert. There is a {grid.size}x{grid.size} frozen lake map "
             f"with {grid.agents} agents:"]
    lines += [" ".join(row) for row in grid.rows()]
    legend = ", ".join(f"{START_MARKS[i]}/{GOAL_MARKS[i]} = agent {i}" for i in range(grid.agents))
    lines.append(f"Start and goal cells: {legend} (start/goal); F is frozen ice, H is a hole.")
    for i in range(grid.agents):
        lines.append(f"Agent {i} needs to go from {grid.starts[i]} to {grid.goals[i]}")
    lines += [
        "Coordinates are (row, column), counted from 0 at the top-left corner.",
        "All agents move at the same time, one step per time step. Each step an agent makes one move: UP, DOWN, "
        "LEFT, RIGHT or WAIT. An agent must never leave the map or step onto a hole, two agents must never be on "
        "the same cell at the same time, and two agents must never swap cells in one step. An agent that has "
        "made all its moves stays where it is.",
        "Find a plan that brings every agent to its goal in as few time steps as possible.",
        "Write the final plan inside <answer></answer>, one line per agent, for example:",
        "<answer>",
        *[f"Agent {i}: {example}" for i, example in zip(range(grid.agents), _EXAMPLES)],
        "</answer>",
    ]
    return "\n".join(lines)


_EXAMPLES = ("RIGHT, DOWN, DOWN", "WAIT, LEFT, UP", "DOWN, DOWN", "UP, WAIT, RIGHT", "LEFT")
