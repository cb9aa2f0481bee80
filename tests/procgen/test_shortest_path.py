"""shortest_path: determinism, the optimum against an enumeration of every simple path, any shortest path accepted."""

from __future__ import annotations

from covert.procgen.registry import get_env

ENV = get_env("shortest_path")


def simple_paths(n: int, edges: list[list[int]], source: int, target: int) -> list[tuple[list[int], int]]:
    adjacent: dict[int, dict[int, int]] = {v: {} for v in range(n)}
    for u, v, w in edges:
        adjacent[u][v] = adjacent[v][u] = w
    out = []

    def walk(path: list[int], length: int) -> None:
        if path[-1] == target:
            out.append((list(path), length))
            return
        for nxt, w in adjacent[path[-1]].items():
            if nxt not in path:
                walk([*path, nxt], length + w)

    walk([source], 0)
    return out


def test_scorer_agrees_with_every_simple_path() -> None:
    for level in range(3):
        for index in range(15):
            instance = ENV.sample(6, ENV.config_at(level), index)
            d = instance.data
            paths = simple_paths(d["n"], d["edges"], d["source"], d["target"])
            best = min(length for _, length in paths)
            assert d["best"] == best
            for path, length in paths:
                assert (ENV.score(instance, f"Answer: {path}").value == 1.0) == (length == best)


def test_wrong_answers_have_reasons() -> None:
    instance = ENV.sample(1, ENV.config_at(2), 0)
    d = instance.data
    assert ENV.score(instance, f"Answer: [{d['target']}, {d['source']}]").reasons == ("wrong_endpoints",)
