"""Optimal one-to-one assignment (the Hungarian algorithm), small and dependency-free."""

from __future__ import annotations

import math
from collections.abc import Sequence


def assign(weights: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """Pairs ``(row, column)`` of a one-to-one assignment with the largest total weight.

    ``weights`` is a rectangular matrix (rows x columns, either may be the larger); pairs of weight 0
    or less are left out of the result. O(n^3) for n = max(rows, columns).
    """
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if not rows or not cols:
        return []
    n = max(rows, cols)
    top = max(max(r) for r in weights)
    # minimise cost = top - weight on an n x n matrix padded with zero weights
    cost = [[top - (weights[i][j] if i < rows and j < cols else 0.0) for j in range(n)] for i in range(n)]
    u = [0.0] * (n + 1)
    v = [0.0] * (n + 1)
    owner = [0] * (n + 1)  # owner[j]: the row (1-based) assigned to column j; 0 = none
    way = [0] * (n + 1)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        best = [math.inf] * (n + 1)
        used = [False] * (n + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            delta = math.inf
            j1 = 0
            row = cost[i0 - 1]
            ui0 = u[i0]
            for j in range(1, n + 1):
                if used[j]:
                    continue
                reduced = row[j - 1] - ui0 - v[j]
                if reduced < best[j]:
                    best[j] = reduced
                    way[j] = j0
                if best[j] < delta:
                    delta = best[j]
                    j1 = j
            for j in range(n + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    best[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    pairs = []
    for j in range(1, n + 1):
        i = owner[j] - 1
        if i < rows and j - 1 < cols and weights[i][j - 1] > 0:
            pairs.append((i, j - 1))
    pairs.sort()
    return pairs
