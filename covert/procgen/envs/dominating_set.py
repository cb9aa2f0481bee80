"""Planted dominating set: open at most k clinics so that every village has a clinic in it or next door (NP-hard;
the map is built around k hidden clinic villages; any such set of at most k villages scores 1)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer
from covert.procgen.trace import SearchTrace, edge_listing, note_to, written_search


def reach(n: int, roads: list[list[int]]) -> list[set[int]]:
    """Each village with the villages next door (itself included), villages 1..n at indices 1..n."""
    near = [{v} for v in range(n + 1)]
    for u, v in roads:
        near[u].add(v)
        near[v].add(u)
    return near


def greedy_clinics(n: int, roads: list[list[int]]) -> list[int]:
    """Repeatedly open a clinic where it serves the most villages still unserved (often more than needed)."""
    near = reach(n, roads)
    unserved = set(range(1, n + 1))
    chosen = []
    while unserved:
        v = max(range(1, n + 1), key=lambda x: (len(near[x] & unserved), -x))
        chosen.append(v)
        unserved -= near[v]
    return sorted(chosen)


def search_clinics(n: int, roads: list[list[int]], k: int, budget: Budget | None = None,
                   trace: SearchTrace | None = None) -> list[int] | None:
    """At most ``k`` clinics by backtracking: the unserved village with the fewest places that could serve it
    is served first, trying each of those places; ``budget`` counts clinics tried."""
    near = reach(n, roads)

    note = note_to(trace)

    def go(chosen: list[int], unserved: set[int]) -> list[int] | None:
        if not unserved:
            return chosen
        if len(chosen) == k:
            note(f"All {k} clinics are open and villages {sorted(unserved)} are unserved: back up.")
            return None
        village = min(unserved, key=lambda v: (len(near[v]), v))
        for place in sorted(near[village], key=lambda x: (-len(near[x] & unserved), x)):
            if budget is not None:
                budget.spend()
            note(f"Village {village} must be served from one of {sorted(near[village])}: try a clinic in {place}.")
            found = go([*chosen, place], unserved - near[place])
            if found is not None:
                return found
        return None

    found = go([], set(range(1, n + 1)))
    return None if found is None else sorted(found)


class DominatingSet(ProceduralEnv):
    """Villages and roads around k hidden clinic villages; any set of at most k villages serving all scores 1."""

    name = "dominating_set"
    version = "1"
    description = "planted dominating set: at most k nodes that are, or neighbour, every node"
    asymmetry = "verify"
    hidden_fields = ("planted",)
    knobs = (
        Knob("villages", (6, 8, 10, 12, 15, 20, 25), "villages (nodes)"),
        Knob("extra_roads", (20, 50, 100), "roads beyond those to the hidden clinics, in percent of the villages"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["villages"]
        k = max(2, n // 4)
        for _ in range(200):  # the most-served-first greedy opens more than k clinics
            planted = sorted(rng.sample(range(1, n + 1), k))
            roads = {(min(v, c), max(v, c)) for v in range(1, n + 1) if v not in planted
                     for c in [rng.choice(planted)]}
            for _ in range(20 * n):
                if len(roads) >= n - k + n * config["extra_roads"] // 100:
                    break
                u, v = sorted(rng.sample(range(1, n + 1), 2))
                roads.add((u, v))
            edges = [list(r) for r in sorted(roads)]
            if len(greedy_clinics(n, edges)) > k:
                break
        listing = edge_listing(edges)
        prompt = (f"A valley has {n} villages, numbered 1 to {n}, joined by these roads: {listing}.\n\nOpen clinics "
                  f"in at most {k} villages so that every village either has a clinic or is joined by a road to a "
                  "village with one.\nEnd your response with a line 'Answer: ' followed by the clinic villages as a "
                  "list, e.g. Answer: [2, 7].")
        return Instance(prompt, {"n": n, "k": k, "edges": edges, "planted": planted})

    def reference(self, instance: Instance) -> str:
        """The search written out: the hardest village to serve first, each place that could serve it in turn."""
        d = instance.data
        trace = SearchTrace()
        chosen = search_clinics(d["n"], d["edges"], d["k"], trace=trace) or d["planted"]
        return written_search("I take the unserved village with the fewest places that could serve it (itself and "
                              "its neighbours), try a clinic in each of those places in turn, and back up when the "
                              "clinics run out.", trace,
                              f"Check: every one of the {d['n']} villages is one of {chosen} or next to one.", chosen)

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        chosen = int_list_answer(response, limit=d["n"] + 1)
        if chosen is None:
            return Score(0.0, ("unparsable",))
        if any(not 1 <= v <= d["n"] for v in chosen):
            return Score(0.0, ("unknown_village",))
        if len(set(chosen)) > d["k"]:
            return Score(0.0, ("too_many_clinics",), {"clinics": len(set(chosen))})
        near = reach(d["n"], d["edges"])
        served = set().union(*(near[v] for v in chosen)) if chosen else set()
        unserved = d["n"] - len(served)
        if unserved:
            return Score(0.0, ("unserved_village",), {"unserved": unserved})
        return Score(1.0, (), {"clinics": len(set(chosen))})

    def ladder(self) -> tuple[Rung, ...]:
        """Most villages served first, backtracking with 5 and 50 clinics tried."""
        def search(inst: Instance, budget: Budget) -> str | None:
            found = search_clinics(inst.data["n"], inst.data["edges"], inst.data["k"], budget)
            return None if found is None else f"Answer: {found}"

        return (Rung("most_served_first", 1, "passes",
                     lambda i, b: f"Answer: {greedy_clinics(i.data['n'], i.data['edges'])}"),
                Rung("backtrack_5", 5, "clinics", search), Rung("backtrack_50", 50, "clinics", search))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"villages": float(d["n"]), "roads": float(len(d["edges"])), "clinics": float(d["k"])}


ENV = DominatingSet()
