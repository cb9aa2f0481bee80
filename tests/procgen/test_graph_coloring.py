"""graph_coloring: determinism, the scorer against brute force over every colouring of small graphs."""

from __future__ import annotations

from itertools import product

from covert.procgen.registry import get_env

ENV = get_env("graph_coloring")


def test_scorer_agrees_with_brute_force_over_every_colouring() -> None:
    for config in ({"nodes": 4, "colours": 3, "density": 60}, {"nodes": 6, "colours": 3, "density": 45}):
        for index in range(6):
            instance = ENV.sample(5, config, index)
            n, k, edges = instance.data["n"], instance.data["k"], instance.data["edges"]
            proper = 0
            for colours in product(range(1, k + 1), repeat=n):
                ok = all(colours[u - 1] != colours[v - 1] for u, v in edges)
                proper += ok
                assert (ENV.score(instance, f"Answer: {list(colours)}").value == 1.0) == ok
            assert proper >= 1


def test_pairs_and_json_forms() -> None:
    instance = ENV.sample(0, ENV.config_at(2), 0)
    planted = instance.data["planted"]
    pairs = ", ".join(f"{i + 1}: {c}" for i, c in enumerate(planted))
    assert ENV.score(instance, f"Answer: {pairs}").value == 1.0
    as_json = "{" + ", ".join(f'"{i + 1}": {c}' for i, c in enumerate(planted)) + "}"
    assert ENV.score(instance, f"Answer: {as_json}").value == 1.0
    assert ENV.score(instance, f"Answer: {[9] * len(planted)}").reasons == ("unknown_colour",)
