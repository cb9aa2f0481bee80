"""MAPF-FrozenLake: the exact solver against brute force, the scorer against an independent simulator,
determinism across processes, answer forms and garbage."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections import deque

import pytest

from covert.procgen.contract import ConfigError, Instance
from covert.procgen.envs.mapf_frozenlake import ENV, format_plan
from covert.procgen.mapf_grid import MapfMap
from covert.procgen.mapf_solver import SolverBudgetExceeded, joint_solvable, solve
from tests.fresh_python import run_json
from tests.procgen.envcheck import check_determinism, check_garbage

HOLES = (0, 10, 20, 30, 40, 50)
DENSITY = (0, 25, 50, 75)
STEP = {"UP": (-1, 0), "DOWN": (1, 0), "LEFT": (0, -1), "RIGHT": (0, 1), "WAIT": (0, 0)}


# -- an independent brute force and simulator (written here from the rules, sharing no code) ----------------
def brute_force_makespan(data: dict) -> int | None:
    """Breadth-first search over joint positions: the fewest steps to the joint goal (agents then wait)."""
    n = data["size"]
    holes = {tuple(h) for h in data["holes"]}
    options = {(r, c): [(r + dr, c + dc) for dr, dc in STEP.values()
                        if 0 <= r + dr < n and 0 <= c + dc < n and (r + dr, c + dc) not in holes]
               for r in range(n) for c in range(n)}
    starts = tuple(tuple(s) for s in data["starts"])
    goals = tuple(tuple(g) for g in data["goals"])
    k = len(starts)
    dist = {starts: 0}
    queue = deque([starts])
    while queue:
        state = queue.popleft()
        if state == goals:
            return dist[state]
        for nxt in itertools.product(*(options[cell] for cell in state)):
            if len(set(nxt)) < k or nxt in dist:
                continue
            if any(nxt[a] == state[b] and nxt[b] == state[a] for a in range(k) for b in range(a + 1, k)):
                continue  # a swap (two agents that both stay put are caught as a shared cell above)
            dist[nxt] = dist[state] + 1
            queue.append(nxt)
    return None


def independent_simulation(data: dict, plan: list[list[str]]) -> dict:
    """Simulate ``plan`` step by step from the rules in the prompt and the scorer's docstring."""
    k = len(data["starts"])
    pos = [tuple(s) for s in data["starts"]]
    dead = [False] * k
    n = data["size"]
    counts = {"unknown_moves": 0, "out_of_bounds": 0, "holes": 0, "vertex_conflicts": 0, "swap_conflicts": 0}
    history = [list(pos)]
    horizon = max([len(p) for p in plan] + [0])
    for t in range(horizon):
        old = list(pos)
        for i in range(k):
            if dead[i]:
                continue
            word = plan[i][t] if t < len(plan[i]) else "WAIT"
            if word not in STEP:
                counts["unknown_moves"] += 1
                continue
            r, c = pos[i][0] + STEP[word][0], pos[i][1] + STEP[word][1]
            if not (0 <= r < n and 0 <= c < n):
                counts["out_of_bounds"] += 1
            elif [r, c] in data["holes"]:
                counts["holes"] += 1
                dead[i] = True
                pos[i] = (r, c)
            else:
                pos[i] = (r, c)
        for a in range(k):
            for b in range(a + 1, k):
                if dead[a] or dead[b]:
                    continue
                if pos[a] == pos[b]:
                    counts["vertex_conflicts"] += 1
                elif pos[a] == old[b] and pos[b] == old[a]:
                    counts["swap_conflicts"] += 1
        history.append([None if dead[i] else pos[i] for i in range(k)])
    goals = [tuple(g) for g in data["goals"]]
    reached = all(not dead[i] and pos[i] == goals[i] for i in range(k))
    makespan = None
    if reached:
        makespan = 0
        for t, snapshot in enumerate(history):
            if snapshot != goals:
                makespan = t + 1
    illegal = bool(counts["unknown_moves"] or counts["out_of_bounds"] or counts["holes"])
    valid = reached and not illegal and not counts["vertex_conflicts"] and not counts["swap_conflicts"]
    return {**counts, "has_illegal_moves": illegal, "all_goals_reached": reached, "valid": valid,
            "optimal": valid and makespan == data["optimal_makespan"], "makespan": makespan}


def reference_plan(instance: Instance) -> list[list[str]]:
    """The moves of the reference's answer block, one list per agent."""
    block = ENV.reference(instance).rsplit("<answer>", 1)[1].split("</answer>")[0]
    return [line.split(": ", 1)[1].split(", ") for line in block.strip().splitlines()]


def small_config(grid: int, agents: int, seed: int) -> dict:
    return {"grid_size": grid, "agents": agents, "hole_percent": HOLES[seed % 6], "conflict_percent": DENSITY[seed // 6 % 4]}


# -- the exact solver ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("grid,agents", [(3, 2), (3, 3), (4, 2), (4, 3)])
def test_exact_makespan_equals_brute_force_on_500_seeds(grid: int, agents: int) -> None:
    for seed in range(500):
        instance = ENV.sample(seed, small_config(grid, agents, seed), 0)
        expected = brute_force_makespan(instance.data)
        assert instance.data["optimal_makespan"] == expected, (seed, instance.prompt)


def test_reference_plans_are_optimal_for_the_independent_simulator() -> None:
    for seed in range(25):
        for grid, agents in ((4, 3), (6, 4), (8, 5)):
            instance = ENV.sample(seed, small_config(grid, agents, seed), 1)
            plan = reference_plan(instance)
            result = independent_simulation(instance.data, plan)
            assert result["optimal"], (seed, grid, result)
            assert ENV.score(instance, ENV.reference(instance)).value == 1.0


def test_solver_finds_no_plan_and_runs_out_of_budget() -> None:
    # two agents that must swap through a one-cell-wide corridor: no plan exists
    corridor = MapfMap(3, ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)), ((1, 0), (1, 2)), ((1, 2), (1, 0)))
    assert joint_solvable(corridor) is False
    assert brute_force_makespan(corridor.to_data()) is None
    with pytest.raises(SolverBudgetExceeded):
        solve(corridor, max_nodes=50)
    # a goal walled off by holes: the low level proves it at the root
    walled = MapfMap(3, ((0, 1), (1, 0), (1, 1)), ((2, 2), (0, 2)), ((0, 0), (2, 0)))
    assert solve(walled) is None


def test_waiting_at_a_goal_and_crossing_through_it() -> None:
    # agent 1 must cross agent 0's goal (the centre) before agent 0 may settle there
    grid = MapfMap(3, ((0, 0), (0, 2), (2, 0), (2, 2)), ((1, 0), (0, 1)), ((1, 1), (2, 1)))
    solution = solve(grid)
    assert solution is not None
    assert solution.makespan == brute_force_makespan(grid.to_data()) == 2
    assert solution.paths[0] == ((1, 0), (1, 0), (1, 1))


# -- the scorer ---------------------------------------------------------------------------------------------
def _mutate(plan: list[list[str]], rng: random.Random) -> list[list[str]]:
    plan = [list(p) for p in plan]
    for _ in range(rng.randint(1, 3)):
        agent = rng.randrange(len(plan))
        kind = rng.random()
        moves = plan[agent]
        if kind < 0.4 and moves:
            moves[rng.randrange(len(moves))] = rng.choice([*STEP, "JUMP"])
        elif kind < 0.6:
            moves.insert(rng.randint(0, len(moves)), rng.choice(list(STEP)))
        elif kind < 0.8 and moves:
            del moves[rng.randrange(len(moves))]
        else:
            moves.append(rng.choice(list(STEP)))
    return plan


def test_scorer_agrees_with_an_independent_simulator() -> None:
    rng = random.Random(17)
    fields = ("unknown_moves", "out_of_bounds", "holes", "vertex_conflicts", "swap_conflicts", "has_illegal_moves",
              "all_goals_reached", "valid", "optimal", "makespan")
    seen = set()
    for seed in range(60):
        grid, agents = rng.choice([(3, 2), (4, 3), (5, 4), (7, 5), (10, 5)])
        instance = ENV.sample(seed, small_config(grid, agents, seed), 2)
        reference = reference_plan(instance)
        for plan in [reference] + [_mutate(reference, rng) for _ in range(6)]:
            expected = independent_simulation(instance.data, plan)
            score = ENV.score(instance, format_plan(plan))
            assert {f: score.details[f] for f in fields} == {f: expected[f] for f in fields}, (seed, plan)
            seen.update(f for f in fields if expected[f] and f not in ("makespan",))
            assert (score.value == 1.0) == expected["optimal"]
            assert (score.value > 0) == expected["valid"]
    # the mutations reached every kind of outcome
    assert seen >= {"unknown_moves", "out_of_bounds", "holes", "vertex_conflicts", "swap_conflicts", "valid", "optimal"}


def _instance() -> Instance:
    return ENV.sample(3, {"grid_size": 5, "agents": 3, "hole_percent": 20, "conflict_percent": 25}, 0)


def test_every_answer_form_gets_the_same_score() -> None:
    instance = _instance()
    plan = reference_plan(instance)
    steps = max(len(p) for p in plan)
    padded = [p + ["WAIT"] * (steps - len(p)) for p in plan]
    forms = {
        "lines": ENV.reference(instance),
        "prose": "Let me think.\nAgent 0: DOWN (draft)\n\nFinal:\n" + "\n".join(
            f"**Agent {i}**: [{' '.join(m.lower() for m in p)}]" for i, p in enumerate(plan)),
        "letters": "\n".join(f"agent_{i} = {''.join(m[0] for m in p)}" for i, p in enumerate(plan)),
        "json": "```json\n" + json.dumps({f"agent_{i}": p for i, p in enumerate(plan)}) + "\n```",
        "json_list": json.dumps({"moves": plan}),
        "steps": "\n".join(f"Step {t + 1}: " + ", ".join(p[t] for p in padded) for t in range(steps)),
        "named_steps": "\n".join(f"t={t + 1}: " + ", ".join(f"Agent {i}: {p[t]}" for i, p in enumerate(padded))
                                 for t in range(steps)),
    }
    for name, text in forms.items():
        score = ENV.score(instance, text)
        assert score.value == 1.0 and score.details["optimal"], (name, score)


@pytest.mark.parametrize("text", [
    "", "   ", "no plan here", "\x00\xff\ud800", "{", "[[[[", "{\"0\": 5}", "Agent 0:", "Agent 99: UP",
    "<answer></answer>", "[" * 100_000, "Agent 0: " + "UP, " * 1_000_000, "Step 1: " * 50_000,
    json.dumps({"moves": [[{"a": 1}]]}), "Agent 0: UP\n" * 200_000,
])
def test_garbage_scores_zero_without_raising(text: str) -> None:
    score = ENV.score(_instance(), text)
    assert score.value == 0.0
    assert not score.details["valid"] and score.reasons


def test_non_text_and_bad_instances_score_zero() -> None:
    instance = _instance()
    assert ENV.score(instance, None).reasons == ("unparsable",)  # type: ignore[arg-type]
    assert ENV.score(Instance(instance.prompt, {"size": "x"}), ENV.reference(instance)).reasons == ("bad_instance",)


def test_a_valid_longer_plan_is_valid_but_not_optimal() -> None:
    instance = _instance()
    text = ENV.reference(instance).replace("Agent 0: ", "Agent 0: WAIT, ")
    score = ENV.score(instance, text)
    assert score.details["valid"] and not score.details["optimal"]
    assert score.value == instance.data["optimal_makespan"] / (instance.data["optimal_makespan"] + 1)
    assert "not_optimal" in score.reasons


# -- prompt, knobs, determinism -----------------------------------------------------------------------------
def test_prompt_follows_the_testbed_wording() -> None:
    instance = ENV.sample(0, {"grid_size": 6, "agents": 5, "hole_percent": 30}, 4)
    lines = instance.prompt.splitlines()
    assert lines[0] == "You are a multi-agent path planning expert. There is a 6x6 frozen lake map with 5 agents:"
    rows = lines[1:7]
    assert all(len(row.split(" ")) == 6 for row in rows)
    text = "".join(rows).replace(" ", "")
    for mark in "SsABCGgabc":
        assert text.count(mark) == 1
    assert set(text) <= set("SsABCGgabcFH")
    for i, (start, goal) in enumerate(zip(instance.data["starts"], instance.data["goals"])):
        assert f"Agent {i} needs to go from ({start[0]}, {start[1]}) to ({goal[0]}, {goal[1]})" in lines
    assert text.count("H") == len(instance.data["holes"]) == 11


def test_conflict_density_is_met_and_configs_are_checked() -> None:
    for index in range(20):
        data = ENV.sample(5, {"grid_size": 8, "agents": 5, "conflict_percent": 75}, index).data
        assert data["crossing_pairs"] >= 8  # ceil(0.75 * 10)
        assert data["crossing_pairs"] == ENV.statistics(Instance("", data))["crossing_pairs"]
    with pytest.raises(ConfigError, match="larger grid_size"):
        ENV.check_config({"grid_size": 3, "agents": 5})
    with pytest.raises(ConfigError):
        ENV.check_config({"grid_size": 11})
    with pytest.raises(ConfigError):
        ENV.check_config({"holes": 10})


def _digest(seed: int) -> str:
    rows = []
    for index in range(12):
        config = {"grid_size": 3 + index % 8, "agents": 2 + index % 2, "hole_percent": HOLES[index % 6]}
        instance = ENV.sample(seed, config, index)
        rows.append([instance.prompt, instance.data, ENV.reference(instance)])
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


def test_sampling_and_references_are_the_same_in_a_fresh_process() -> None:
    script = ("import json\nfrom tests.procgen.test_mapf_frozenlake import _digest\n"
              "print(json.dumps([_digest(7), _digest(8)]))")
    assert run_json(script) == [_digest(7), _digest(8)]
    assert _digest(7) != _digest(8)


def test_house_checks_determinism_and_garbage() -> None:
    check_determinism("mapf_frozenlake", count=2)
    check_garbage("mapf_frozenlake", extra=["Agent 0: " + "UP " * 3000, "<answer>" * 100_000])


def test_conflict_levels_differ_with_two_agents() -> None:
    """With one agent pair every level above 0 asks for one crossing pair; the draws compared still make each
    level more conflicted: mean collisions of the shortest routes and the independent solver's failures rise."""
    from covert.procgen.ladder import measure

    collisions, independent = [], []
    for level in (0, 25, 50, 75):
        config = {"grid_size": 4, "agents": 2, "hole_percent": 10, "conflict_percent": level}
        collisions.append(sum(ENV.sample(9, config, i).data["collisions"] for i in range(60)) / 60)
        independent.append(measure(ENV, config, seed=9, instances=60).rungs[0].solve_rate)
    assert collisions == sorted(collisions) and collisions[0] < collisions[1] < collisions[3], collisions
    assert independent[0] > independent[1] > independent[3], independent


def test_reasoning_names_the_bound_the_collision_and_the_fix() -> None:
    instance = ENV.sample(0, {"grid_size": 4, "agents": 3, "hole_percent": 10, "conflict_percent": 50}, 1)
    text = ENV.reference(instance)
    assert text.startswith("Alone, agent 0 needs ")
    assert "collide: agents" in text and "To avoid this" in text
    assert f"at step {instance.data['optimal_makespan']}" in text
    assert ENV.score(instance, text).value == 1.0
