"""Planted clique: find k people who all know each other in a network with a hidden group of k mutual
acquaintances (hard to find, trivial to check; any k-clique scores 1)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer
from covert.procgen.trace import SearchTrace, edge_listing, note_to, written_search


def adjacency(n: int, edges: list[list[int]]) -> list[set[int]]:
    """Who knows whom, people 1..n at indices 1..n."""
    near: list[set[int]] = [set() for _ in range(n + 1)]
    for u, v in edges:
        near[u].add(v)
        near[v].add(u)
    return near


def find_clique(n: int, edges: list[list[int]], k: int, budget: Budget | None = None,
                trace: SearchTrace | None = None) -> list[int] | None:
    """A group of ``k`` people who all know each other, by backtracking over candidates that know everyone
    chosen so far (most connected first); ``budget`` counts people tried."""
    near = adjacency(n, edges)

    note = note_to(trace)

    def go(chosen: list[int], candidates: list[int]) -> list[int] | None:
        if len(chosen) == k:
            return chosen
        if len(chosen) + len(candidates) < k:
            left = {0: "no one left knows", 1: "only 1 person left knows"}.get(len(candidates),
                                                                          f"only {len(candidates)} people left know")
            needed = k - len(chosen)
            note(f"With {chosen}, {left} all of them and {needed} more {'is' if needed == 1 else 'are'} needed: "
                 "back up.")
            return None
        for i, person in enumerate(candidates):
            if budget is not None:
                budget.spend()
            note(f"Add {person} to {chosen or 'the group'}.")
            found = go([*chosen, person], [c for c in candidates[i + 1:] if c in near[person]])
            if found is not None:
                return found
        return None

    order = sorted(range(1, n + 1), key=lambda p: (-len(near[p]), p))
    found = go([], order)
    return None if found is None else sorted(found)


def greedy_clique(n: int, edges: list[list[int]], k: int, start: int | None = None) -> list[int]:
    """From the most connected person (or ``start``), keep adding the most connected person who knows everyone
    chosen so far."""
    near = adjacency(n, edges)
    order = sorted(range(1, n + 1), key=lambda p: (-len(near[p]), p))
    chosen = [start if start is not None else order[0]]
    for person in order:
        if len(chosen) == k:
            break
        if person not in chosen and all(person in near[c] for c in chosen):
            chosen.append(person)
    return sorted(chosen)


class PlantedClique(ProceduralEnv):
    """A random acquaintance network with a hidden group of k mutual acquaintances; any such group scores 1."""

    name = "planted_clique"
    version = "2"
    description = "planted clique: k nodes all joined to each other, hidden in a random graph"
    asymmetry = "verify"
    hidden_fields = ("planted",)
    knobs = (
        Knob("people", (6, 8, 10, 12, 15, 20, 25), "people in the network (nodes)"),
        Knob("density", (25, 40, 55), "percent chance that two people outside the group know each other"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["people"]
        k = max(3, n // 3 + 1)
        for _ in range(100):  # the most connected person's greedy group is not already a k-group
            planted = sorted(rng.sample(range(1, n + 1), k))
            inside = set(planted)
            edges = [[u, v] for u in range(1, n + 1) for v in range(u + 1, n + 1)
                     if (u in inside and v in inside) or rng.randrange(100) < config["density"]]
            if len(greedy_clique(n, edges, k)) < k:
                break
        lines = edge_listing(edges)
        prompt = (f"In a network of {n} people, numbered 1 to {n}, these pairs know each other: {lines}.\n\n"
                  f"Find {k} people who all know each other (every two of them are one of the pairs above).\n"
                  f"End your response with a line 'Answer: ' followed by the {k} people as a list, e.g. "
                  "Answer: [2, 5, 9].")
        return Instance(prompt, {"n": n, "k": k, "edges": edges, "planted": planted})

    def reference(self, instance: Instance) -> str:
        """The backtracking search written out, then the check of every pair."""
        d = instance.data
        trace = SearchTrace()
        chosen = find_clique(d["n"], d["edges"], d["k"], trace=trace) or d["planted"]
        pairs = d["k"] * (d["k"] - 1) // 2
        return written_search("I build the group one person at a time, most connected people first, keeping only "
                              "candidates who know everyone already chosen, and back up when too few candidates "
                              "remain.", trace, f"Check: all {pairs} pairs among {chosen} are in the list of "
                              "acquaintances.", chosen)

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        chosen = int_list_answer(response, limit=d["n"] + 1)
        if chosen is None:
            return Score(0.0, ("unparsable",))
        if any(not 1 <= p <= d["n"] for p in chosen) or len(set(chosen)) != len(chosen):
            return Score(0.0, ("unknown_or_repeated_person",))
        if len(chosen) != d["k"]:
            return Score(0.0, ("wrong_size",), {"size": len(chosen)})
        near = adjacency(d["n"], d["edges"])
        strangers = sum(1 for i, a in enumerate(chosen) for b in chosen[i + 1:] if b not in near[a])
        if strangers:
            return Score(0.0, ("strangers_in_group",), {"strangers": strangers})
        return Score(1.0, (), {"size": len(chosen)})

    def ladder(self) -> tuple[Rung, ...]:
        """Greedy from the most connected person, greedy from every person, backtracking (60 people tried)."""
        def every_start(inst: Instance, budget: Budget) -> str:
            d = inst.data
            tries = [greedy_clique(d["n"], d["edges"], d["k"], s) for s in range(1, d["n"] + 1)]
            return f"Answer: {max(tries, key=len)}"

        def search(inst: Instance, budget: Budget) -> str | None:
            found = find_clique(inst.data["n"], inst.data["edges"], inst.data["k"], budget)
            return None if found is None else f"Answer: {found}"

        return (Rung("greedy", 1, "passes",
                     lambda i, b: f"Answer: {greedy_clique(i.data['n'], i.data['edges'], i.data['k'])}"),
                Rung("greedy_every_start", 1, "passes", every_start), Rung("backtrack_60", 60, "people", search))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"people": float(d["n"]), "pairs": float(len(d["edges"])), "group": float(d["k"]),
                "density": 2 * len(d["edges"]) / (d["n"] * (d["n"] - 1))}


ENV = PlantedClique()
