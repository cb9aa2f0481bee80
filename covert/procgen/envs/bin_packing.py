"""Planted bin packing: load parcels into k vans of equal capacity; the parcels were cut to fill every van exactly,
so every van must end up exactly full (NP-hard; any packing within the capacity scores 1)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer
from covert.procgen.trace import SearchTrace


def first_fit_decreasing(sizes: list[int], bins: int, capacity: int, best: bool = False) -> list[int]:
    """Parcels from the largest down, each into the first van it fits (``best``: the fullest van it fits);
    0 for a parcel no van takes."""
    load = [0] * bins
    out = [0] * len(sizes)
    for i in sorted(range(len(sizes)), key=lambda k: (-sizes[k], k)):
        fits = [b for b in range(bins) if load[b] + sizes[i] <= capacity]
        if not fits:
            continue
        b = max(fits, key=lambda x: (load[x], -x)) if best else fits[0]
        load[b] += sizes[i]
        out[i] = b + 1
    return out


def pack(sizes: list[int], bins: int, capacity: int, budget: Budget | None = None) -> list[int] | None:
    """A packing by backtracking, largest parcels first, never trying two vans with the same load for one
    parcel; ``budget`` counts placements tried."""
    order = sorted(range(len(sizes)), key=lambda k: (-sizes[k], k))
    load = [0] * bins
    out = [0] * len(sizes)

    def go(k: int) -> bool:
        if k == len(order):
            return True
        i = order[k]
        tried: set[int] = set()
        for b in range(bins):
            if load[b] + sizes[i] > capacity or load[b] in tried:
                continue
            tried.add(load[b])
            if budget is not None:
                budget.spend()
            load[b] += sizes[i]
            out[i] = b + 1
            if go(k + 1):
                return True
            load[b] -= sizes[i]
        return False

    return out if go(0) else None


def exact_subsets(left: list[int], sizes: list[int], need: int, budget: Budget | None = None) -> Iterator[list[int]]:
    """Sets of parcels from ``left`` (heaviest first) that weigh exactly ``need``, each choice of weights once;
    ``budget`` counts parcels tried."""
    def go(start: int, need: int, chosen: list[int]) -> Iterator[list[int]]:
        if need == 0:
            yield list(chosen)
            return
        seen: set[int] = set()
        for k in range(start, len(left)):
            size = sizes[left[k]]
            if size > need or size in seen:
                continue
            seen.add(size)
            if budget is not None:
                budget.spend()
            chosen.append(left[k])
            yield from go(k + 1, need - size, chosen)
            chosen.pop()

    yield from go(0, need, [])


def fill_vans(sizes: list[int], bins: int, capacity: int, budget: Budget | None = None,
              trace: SearchTrace | None = None) -> list[int] | None:
    """A packing when the parcels weigh exactly ``bins`` x ``capacity``: van after van, the heaviest parcel left
    goes into the next van, which is filled to the top with a set of the other parcels left, backing up when a
    later van cannot be filled; ``budget`` counts parcels tried, ``trace`` collects the steps in words."""
    out = [0] * len(sizes)

    def go(van: int, left: list[int]) -> bool:
        if not left:
            return True
        first, rest = left[0], left[1:]
        for others in exact_subsets(rest, sizes, capacity - sizes[first], budget):
            held = [first, *others]
            if trace is not None:
                trace.note(f"Van {van}: parcel {first + 1} ({sizes[first]}, the heaviest left) with "
                           + (", ".join(f"{i + 1} ({sizes[i]})" for i in others) or "nothing")
                           + f" makes {capacity}.")
            for i in held:
                out[i] = van
            if go(van + 1, [i for i in rest if i not in others]):
                return True
        if trace is not None:
            trace.note(f"Van {van}: no set of the parcels left fills it with parcel {first + 1} ({sizes[first]}): "
                       "back up.")
        return False

    if sum(sizes) != bins * capacity:
        return None
    return out if go(1, sorted(range(len(sizes)), key=lambda k: (-sizes[k], k))) else None


class BinPacking(ProceduralEnv):
    """Parcels and k vans of one capacity; any assignment of every parcel within the capacity scores 1."""

    name = "bin_packing"
    version = "2"
    description = "planted bin packing: parcels into k equal vans that they fill exactly"
    asymmetry = "verify"
    hidden_fields = ("planted",)
    knobs = (
        Knob("vans", (2, 3, 4, 5, 6, 8), "vans (bins)"),
        Knob("parcels_per_van", (2, 3, 4, 5), "parcels each van holds in the hidden packing"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        k, per = config["vans"], config["parcels_per_van"]
        capacity = rng.randint(10 * per, 20 * per)
        for _ in range(100):  # first fit, largest first, does not already pack them
            parcels = []
            for van in range(1, k + 1):
                cuts = sorted(rng.sample(range(1, capacity), per - 1))
                parcels += [(b - a, van) for a, b in zip([0, *cuts], [*cuts, capacity])]
            rng.shuffle(parcels)
            sizes = [s for s, _ in parcels]
            if 0 in first_fit_decreasing(sizes, k, capacity):
                break
        listing = ", ".join(f"{i}: {s}" for i, s in enumerate(sizes, 1))
        prompt = (f"{len(sizes)} parcels (number: weight) must go into {k} vans, each carrying at most {capacity}: "
                  f"{listing}.\n\nAssign every parcel to a van so that no van carries more than {capacity}.\n"
                  f"End your response with a line 'Answer: ' followed by the van (1 to {k}) of each parcel, parcels 1 "
                  f"to {len(sizes)} in order, e.g. Answer: [1, 2, 1, ...].")
        return Instance(prompt, {"sizes": sizes, "bins": k, "capacity": capacity,
                                 "planted": [van for _, van in parcels]})

    def reference(self, instance: Instance) -> str:
        """The weights add up to every van full, then the van-by-van search written out."""
        d = instance.data
        trace = SearchTrace()
        vans = fill_vans(d["sizes"], d["bins"], d["capacity"], trace=trace) or d["planted"]
        lines = [f"The parcels weigh {sum(d['sizes'])} in all, exactly {d['bins']} x {d['capacity']}, so every van "
                 "must be filled to the top. The heaviest parcel left has to go somewhere, so I fill the next van "
                 "with it and a set of the other parcels left that makes exactly the capacity, and back up when a "
                 "later van cannot be filled."]
        lines += trace.lines()
        for van in range(1, d["bins"] + 1):
            held = [d["sizes"][i] for i, v in enumerate(vans) if v == van]
            lines.append(f"Van {van}: {' + '.join(map(str, held))} = {sum(held)}.")
        return "\n".join(lines) + f"\nAnswer: {vans}"

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        vans = int_list_answer(response, limit=len(d["sizes"]) + 1)
        if vans is None:
            return Score(0.0, ("unparsable",))
        if len(vans) != len(d["sizes"]) or any(not 1 <= v <= d["bins"] for v in vans):
            return Score(0.0, ("not_one_van_per_parcel",), {"length": len(vans)})
        loads = [sum(s for s, v in zip(d["sizes"], vans) if v == van) for van in range(1, d["bins"] + 1)]
        over = sum(1 for load in loads if load > d["capacity"])
        if over:
            return Score(0.0, ("overloaded_van",), {"overloaded": over})
        return Score(1.0, (), {"largest_load": max(loads)})

    def ladder(self) -> tuple[Rung, ...]:
        """First fit and best fit, largest first, backtracking (60 placements), van by van (2,000 parcels tried)."""
        def greedy(best: bool) -> Callable[[Instance, Budget], str]:
            def solve(inst: Instance, budget: Budget) -> str:
                d = inst.data
                return f"Answer: {first_fit_decreasing(d['sizes'], d['bins'], d['capacity'], best)}"
            return solve

        def search(inst: Instance, budget: Budget) -> str | None:
            d = inst.data
            found = pack(d["sizes"], d["bins"], d["capacity"], budget)
            return None if found is None else f"Answer: {found}"

        def van_by_van(inst: Instance, budget: Budget) -> str | None:
            d = inst.data
            found = fill_vans(d["sizes"], d["bins"], d["capacity"], budget)
            return None if found is None else f"Answer: {found}"

        return (Rung("first_fit_decreasing", 1, "passes", greedy(False)),
                Rung("best_fit_decreasing", 1, "passes", greedy(True)),
                Rung("backtrack_60", 60, "placements", search),
                Rung("van_by_van_2000", 2000, "parcels", van_by_van))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"parcels": float(len(d["sizes"])), "vans": float(d["bins"]),
                "parcels_per_van": len(d["sizes"]) / d["bins"]}


ENV = BinPacking()
