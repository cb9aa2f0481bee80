"""The behaviour signature of L5 novelty, in this process on the registered environments (no sandbox)."""

from __future__ import annotations

from covert.procgen.novelty import answer_form, behaviour_signature, behaviour_similarity, schema_paths
from covert.procgen.registry import get_env


def signature_of(name: str, seed: int = 0, count: int = 6) -> list[float]:
    env = get_env(name)
    items = []
    for index in range(count):
        instance = env.sample(seed, env.config_at(0), index)
        items.append({"prompt": instance.prompt, "data": instance.data, "reference": env.reference(instance)})
    return behaviour_signature(items, [[0.0, 0.0]] * count)


def test_same_template_environments_are_far_apart_and_an_environment_is_its_own_duplicate() -> None:
    cover, dominating = signature_of("vertex_cover"), signature_of("dominating_set")
    assert behaviour_similarity(cover, cover) == 1.0
    assert behaviour_similarity(cover, signature_of("vertex_cover")) == 1.0  # deterministic
    assert behaviour_similarity(cover, dominating) < 0.85  # same data (n, edges), same answer form, other words
    for a, b in (("job_sequencing", "interval_scheduling"), ("longest_increasing_subsequence",
                                                             "longest_common_subsequence")):
        assert behaviour_similarity(signature_of(a), signature_of(b)) < 0.85, (a, b)


def test_other_instances_of_one_environment_stay_close() -> None:
    """Fresh instances (another seed) of the same environment keep its signature: the measure sees the
    problem, not the numbers."""
    assert behaviour_similarity(signature_of("vertex_cover", seed=0), signature_of("vertex_cover", seed=7)) >= 0.9


def test_the_parts_of_a_signature() -> None:
    assert schema_paths({"n": 3, "edges": [[0, 1], [1, 2]]}) == [":object", ".edges:list", ".edges[]:list",
                                                                  ".edges[][]:number", ".n:number"]
    assert answer_form("We cover 0-1 first.\nAnswer: [0, 12, 3]") == "[9, 9, 9]"
    assert answer_form("moves RRD") == "a a"
    assert behaviour_similarity([], []) == 0.0 and behaviour_similarity([1.0], [1.0, 0.0]) == 0.0
    assert behaviour_similarity([0.0, 0.0], [0.0, 0.0]) == 1.0
    item = {"prompt": "Cover the graph.", "data": {"n": 2}, "reference": "Answer: [0]"}
    probes = behaviour_signature([item, item], [[1.0, 0.0], [0.0, 0.0]])[:2]
    assert probes == [0.25, 0.0]  # per probe: mean over instances, over the number of probes
    assert len(schema_paths([[[[[[1]]]]]] * 1000)) <= 6  # bounded depth and breadth
