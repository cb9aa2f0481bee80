"""Reading MAPF-FrozenLake maps from files a user has locally (the published benchmark's instances, or any maps
written in the testbed's notation) and scoring responses on them.

A map is a grid of rows in the testbed's notation: ``F`` frozen, ``H`` hole, ``S s A B C`` the starts and
``G g a b c`` the goals of agents 0-4 (rows as ``"SFFH"`` or ``"S F F H"``). Accepted files:

- ``.json``: one record, or a list of records, or ``{"instances"|"data"|"maps": [records]}``;
- ``.jsonl``: one record per line;
- ``.txt``: one map (its grid lines; other lines are ignored);
- a directory: every such file in it, sorted by name.

A record is a map itself (a list of row strings, or one string of rows) or an object holding one under
``map``, ``grid``, ``desc``, ``layout`` or ``board`` (or a ``prompt`` whose grid lines are read), with an
optional ``id``. The optimum of each map is found by the exact solver (:mod:`covert.procgen.mapf_solver`)
with a larger budget than the sampler's; a map it cannot settle, or that is no valid map, is skipped with a
counted reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from covert.procgen.contract import Instance
from covert.procgen.mapf_grid import (
    FROZEN,
    GOAL_MARKS,
    HOLE,
    START_MARKS,
    MapfMap,
    crossing_pairs,
    render_prompt,
)
from covert.procgen.mapf_ladder import independent_paths
from covert.procgen.mapf_solver import SolverBudgetExceeded, solve

#: Constraint-tree nodes the exact solver may spend on one published map.
PUBLISHED_NODES = 50_000
MAX_FILES = 10_000
MAX_BYTES = 200_000_000
_CELLS = set(FROZEN + HOLE + "".join(START_MARKS) + "".join(GOAL_MARKS))
_ROW = re.compile(r"^\s*([FHSsABCGgabc](?:\s*[FHSsABCGgabc])+)\s*$")
_KEYS = ("map", "grid", "desc", "layout", "board")


class PublishedMapError(ValueError):
    """A record that is not a MAPF-FrozenLake map."""


@dataclass(frozen=True)
class PublishedInstance:
    """One map read from a file: its id (the record's ``id``, else ``FILE#N``) and the instance to score."""

    id: str
    instance: Instance


def parse_grid(rows: list[str]) -> MapfMap:
    """The map of grid rows in the testbed's notation; :class:`PublishedMapError` naming the problem."""
    cells = [[ch for ch in row if not ch.isspace()] for row in rows if row.strip()]
    size = len(cells)
    if not 2 <= size <= 64 or any(len(r) != size for r in cells):
        raise PublishedMapError(f"a map is a square grid of 2 to 64 rows, got {size} rows of lengths "
                                f"{sorted({len(r) for r in cells})}")
    starts: dict[int, tuple[int, int]] = {}
    goals: dict[int, tuple[int, int]] = {}
    holes = []
    for r, row in enumerate(cells):
        for c, ch in enumerate(row):
            if ch not in _CELLS:
                raise PublishedMapError(f"unknown cell {ch!r} at {(r, c)}")
            if ch == HOLE:
                holes.append((r, c))
            elif ch in START_MARKS:
                starts[START_MARKS.index(ch)] = (r, c)
            elif ch in GOAL_MARKS:
                goals[GOAL_MARKS.index(ch)] = (r, c)
    agents = len(starts)
    if not agents or set(starts) != set(range(agents)) or set(goals) != set(starts):
        raise PublishedMapError("every agent 0..k-1 needs one start and one goal mark")
    grid = MapfMap(size, tuple(sorted(holes)), tuple(starts[i] for i in range(agents)),
                   tuple(goals[i] for i in range(agents)))
    return MapfMap.from_data(grid.to_data())  # the record checks (distinct passable starts and goals)


def _rows_of(record: Any) -> list[str]:
    if isinstance(record, str):
        lines = record.splitlines()
        grid = [m.group(1) for m in map(_ROW.match, lines) if m]
        return grid if grid else lines
    if isinstance(record, list) and all(isinstance(r, str) for r in record):
        return record
    if isinstance(record, list) and all(isinstance(r, list) for r in record):
        return ["".join(str(c) for c in r) for r in record]
    if isinstance(record, dict):
        for key in _KEYS:
            if key in record:
                return _rows_of(record[key])
        if isinstance(record.get("prompt"), str):
            return [m.group(1) for m in map(_ROW.match, record["prompt"].splitlines()) if m]
    raise PublishedMapError("no map in the record: give rows of F/H/start/goal marks, or a map/grid/desc field")


def _records(path: Path) -> list[tuple[str, Any]]:
    if path.stat().st_size > MAX_BYTES:
        raise PublishedMapError(f"{path} is larger than {MAX_BYTES // 1_000_000} MB")
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".txt":
        return [(path.name, text)]
    if path.suffix == ".jsonl":
        out = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    out.append((f"{path.name}#{number}", json.loads(line)))
                except ValueError:
                    raise PublishedMapError(f"line {number} of {path} is not JSON") from None
        return out
    try:
        value = json.loads(text)
    except ValueError:
        raise PublishedMapError(f"{path} is not JSON") from None
    if isinstance(value, dict):
        for key in ("instances", "data", "maps"):
            if isinstance(value.get(key), list):
                value = value[key]
                break
    if isinstance(value, list) and value and not all(isinstance(v, str) for v in value):
        return [(f"{path.name}#{n}", v) for n, v in enumerate(value, start=1)]
    return [(path.name, value)]


def read_published(path: str | Path) -> tuple[list[PublishedInstance], dict[str, int]]:
    """The maps under ``path`` with their optimal makespans, and the skipped records counted by reason
    (``not_a_map``, ``no_plan``, ``optimum_unknown``). Raises :class:`PublishedMapError` for a path that
    holds no readable file."""
    root = Path(path)
    if root.is_dir():
        files = sorted(p for p in root.rglob("*") if p.suffix in (".json", ".jsonl", ".txt") and p.is_file())
    elif root.is_file():
        files = [root]
    else:
        raise PublishedMapError(f"{path} does not exist; pass a file or directory of maps (.json, .jsonl, .txt)")
    if not files:
        raise PublishedMapError(f"{path} holds no .json, .jsonl or .txt file")
    found: list[PublishedInstance] = []
    skipped: dict[str, int] = {}
    for file in files[:MAX_FILES]:
        for label, record in _records(file):
            ident = str(record["id"]) if isinstance(record, dict) and "id" in record else label
            try:
                grid = parse_grid(_rows_of(record))
            except (PublishedMapError, ValueError):
                skipped["not_a_map"] = skipped.get("not_a_map", 0) + 1
                continue
            try:
                solution = solve(grid, max_nodes=PUBLISHED_NODES)
            except SolverBudgetExceeded:
                skipped["optimum_unknown"] = skipped.get("optimum_unknown", 0) + 1
                continue
            if solution is None:
                skipped["no_plan"] = skipped.get("no_plan", 0) + 1
                continue
            paths = independent_paths(grid) or []
            data = {**grid.to_data(), "optimal_makespan": solution.makespan, "crossing_pairs": crossing_pairs(paths)}
            found.append(PublishedInstance(ident, Instance(render_prompt(grid), data)))
    return found, dict(sorted(skipped.items()))
