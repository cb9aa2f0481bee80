"""Planted exact cover: choose some of the given groups so that every item lies in exactly one chosen group (hard
to find, trivial to check; any exact cover scores 1)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer
from covert.procgen.trace import SearchTrace, note_to


def search_cover(items: int, groups: list[list[int]], budget: Budget | None = None,
                 trace: SearchTrace | None = None) -> list[int] | None:
    """Algorithm X: take the uncovered item in the fewest usable groups, try each of those groups in turn, and
    undo a choice that leaves some item with no usable group. ``budget`` counts groups tried."""

    note = note_to(trace)

    def go(covered: set[int], chosen: list[int]) -> list[int] | None:
        if len(covered) == items:
            return chosen
        usable = [g for g in range(len(groups)) if not covered & set(groups[g])]
        options = {item: [g for g in usable if item in groups[g]] for item in range(1, items + 1) if item not in covered}
        item = min(options, key=lambda i: (len(options[i]), i))
        if not options[item]:
            note(f"Item {item} is in no group that avoids the items already covered: back up.")
            return None
        for g in options[item]:
            if budget is not None:
                budget.spend()
            usable = len(options[item])
            note(f"Item {item} is in {usable} usable group{'s' if usable != 1 else ''}; try group {g + 1} {groups[g]}.")
            found = go(covered | set(groups[g]), [*chosen, g + 1])
            if found is not None:
                return found
        return None

    found = go(set(), [])
    return None if found is None else sorted(found)


def largest_first(items: int, groups: list[list[int]]) -> list[int]:
    """Groups from the largest down, each taken when it overlaps none taken so far."""
    covered: set[int] = set()
    chosen = []
    for g in sorted(range(len(groups)), key=lambda k: (-len(groups[k]), k)):
        if not covered & set(groups[g]):
            covered |= set(groups[g])
            chosen.append(g + 1)
    return sorted(chosen)


class ExactCover(ProceduralEnv):
    """Items 1..n and groups of them built around a hidden exact cover; any exact cover scores 1."""

    name = "exact_cover"
    version = "2"
    description = "planted exact cover: groups that together hold every item exactly once"
    asymmetry = "verify"
    hidden_fields = ("planted",)
    knobs = (
        Knob("items", (6, 8, 10, 12, 15, 18, 24), "items to cover"),
        Knob("decoys", (100, 200, 300), "extra groups, in percent of the hidden cover's groups"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["items"]
        for _ in range(100):  # taking the largest groups first does not already find a cover
            order = list(range(1, n + 1))
            rng.shuffle(order)
            cuts = sorted(rng.sample(range(1, n), max(1, n // 3 - 1)))
            planted = [sorted(order[a:b]) for a, b in zip([0, *cuts], [*cuts, n])]
            decoys = []
            for _ in range(len(planted) * config["decoys"] // 100):
                size = rng.randint(2, max(2, n // 3))
                decoys.append(sorted(rng.sample(range(1, n + 1), size)))
            groups = planted + decoys
            rng.shuffle(groups)
            groups = [list(g) for g in dict.fromkeys(tuple(g) for g in groups)]
            greedy = largest_first(n, groups)
            if sum(len(groups[g - 1]) for g in greedy) < n:
                break
        hidden = sorted(groups.index(g) + 1 for g in planted)
        lines = "\n".join(f"- group {i}: {', '.join(map(str, g))}" for i, g in enumerate(groups, 1))
        prompt = (f"The items 1 to {n} appear in these groups:\n{lines}\n\nChoose some groups so that every item from "
                  f"1 to {n} is in exactly one of the chosen groups.\n"
                  "End your response with a line 'Answer: ' followed by the chosen group numbers as a list, e.g. "
                  "Answer: [2, 5, 7].")
        return Instance(prompt, {"items": n, "groups": groups, "planted": hidden})

    def reference(self, instance: Instance) -> str:
        """The search written out: the most constrained item first, backing up from dead ends."""
        d = instance.data
        trace = SearchTrace()
        chosen = search_cover(d["items"], d["groups"], trace=trace) or d["planted"]
        lines = ["I repeatedly take the uncovered item that the fewest remaining groups contain, choose one of those "
                 "groups, and back up when some item can no longer be covered without overlap."]
        lines += trace.lines()
        lines.append(f"Check: groups {chosen} hold " + " + ".join(str(len(d["groups"][g - 1])) for g in chosen)
                     + f" = {d['items']} items, each of 1 to {d['items']} exactly once.")
        return "\n".join(lines) + f"\nAnswer: {chosen}"

    def score(self, instance: Instance, response: str) -> Score:
        n, groups = instance.data["items"], instance.data["groups"]
        chosen = int_list_answer(response, limit=len(groups) + 1)
        if chosen is None:
            return Score(0.0, ("unparsable",))
        if any(not 1 <= g <= len(groups) for g in chosen) or len(set(chosen)) != len(chosen):
            return Score(0.0, ("unknown_or_repeated_group",))
        held = [item for g in chosen for item in groups[g - 1]]
        if len(held) != len(set(held)):
            return Score(0.0, ("overlap",))
        if len(held) != n:
            return Score(0.0, ("uncovered_item",), {"covered": len(held)})
        return Score(1.0, (), {"groups": len(chosen)})

    def ladder(self) -> tuple[Rung, ...]:
        """Largest groups first, Algorithm X with 4 and with 40 groups tried."""
        def search(inst: Instance, budget: Budget) -> str | None:
            found = search_cover(inst.data["items"], inst.data["groups"], budget)
            return None if found is None else f"Answer: {found}"

        return (Rung("largest_first", 1, "passes",
                     lambda i, b: f"Answer: {largest_first(i.data['items'], i.data['groups'])}"),
                Rung("algorithm_x_4", 4, "groups", search), Rung("algorithm_x_40", 40, "groups", search))

    def statistics(self, instance: Instance) -> dict[str, float]:
        groups = instance.data["groups"]
        return {"items": float(instance.data["items"]), "groups": float(len(groups)),
                "mean_group": sum(map(len, groups)) / len(groups)}


ENV = ExactCover()
