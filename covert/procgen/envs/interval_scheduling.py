"""Weighted interval scheduling: non-overlapping bookings of the largest total value (a DP over end times)."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from itertools import pairwise

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer


def best_schedule(intervals: list[list[int]], budget: Budget | None = None,
                  steps: list[str] | None = None) -> tuple[int, list[int]]:
    """The best total value and one optimal choice (1-based numbers, ascending); ``[start, end, value]``
    intervals are half-open, so one may start when another ends. ``budget`` counts the requests compared
    with earlier ones; ``steps`` collects the table in words."""
    order = sorted(range(len(intervals)), key=lambda i: (intervals[i][1], i))
    ends = [intervals[i][1] for i in order]
    best = [0] * (len(order) + 1)
    for k, i in enumerate(order, 1):
        start, _, value = intervals[i]
        if budget is not None:
            budget.spend(k)
        before = bisect.bisect_right(ends, start, 0, k - 1)
        best[k] = max(best[k - 1], best[before] + value)
        if steps is not None:
            earlier = f"best up to request {order[before - 1] + 1} ({best[before]})" if before else "nothing (0)"
            steps.append(f"request {i + 1} (ends {intervals[i][1]}): with it {value} + {earlier} = "
                         f"{best[before] + value}, without it {best[k - 1]}; best so far {best[k]}")
    chosen, k = [], len(order)
    while k > 0:
        i = order[k - 1]
        before = bisect.bisect_right(ends, intervals[i][0], 0, k - 1)
        if best[before] + intervals[i][2] >= best[k] and best[k] != best[k - 1]:
            chosen.append(i + 1)
            k = before
        else:
            k -= 1
    return best[-1], sorted(chosen)


def fits(picked: list[int], intervals: list[list[int]], i: int) -> bool:
    """Whether request ``i`` (0-based) overlaps none of ``picked``."""
    s, e, _ = intervals[i]
    return all(e <= intervals[j][0] or intervals[j][1] <= s for j in picked)


def greedy_schedule(intervals: list[list[int]], key: str) -> list[int]:
    """Requests taken in order of earliest end (``key="end"``) or highest pay (``"pay"``) when they fit."""
    if key == "end":
        order = sorted(range(len(intervals)), key=lambda i: (intervals[i][1], i))
    else:
        order = sorted(range(len(intervals)), key=lambda i: (-intervals[i][2], i))
    picked: list[int] = []
    for i in order:
        if fits(picked, intervals, i):
            picked.append(i)
    return sorted(i + 1 for i in picked)


class IntervalScheduling(ProceduralEnv):
    """Booking requests with times and payments; any non-overlapping choice of the best total is accepted."""

    name = "interval_scheduling"
    version = "2"
    description = "weighted interval scheduling: non-overlapping bookings of the largest total value"
    asymmetry = "reason"
    hidden_fields = ("best",)
    knobs = (
        Knob("requests", (4, 6, 8, 10, 14, 18, 25), "number of booking requests"),
        Knob("horizon", (12, 24, 48), "hours the requests fall within"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        horizon = config["horizon"]
        intervals = []
        for _ in range(config["requests"]):
            start = rng.randrange(horizon - 1)
            end = rng.randint(start + 1, min(horizon, start + max(2, horizon // 3)))
            intervals.append([start, end, rng.randint(1, 20)])
        lines = "\n".join(f"- request {i + 1}: from hour {s} to hour {e}, pays {v}"
                          for i, (s, e, v) in enumerate(intervals))
        prompt = (f"A room receives {len(intervals)} booking requests:\n{lines}\n\n"
                  "The room holds one booking at a time; a booking may start at the hour another ends. Accept a "
                  "set of requests that do not overlap and whose total pay is as large as possible.\n"
                  "End your response with a line 'Answer: ' followed by the accepted request numbers as a list, "
                  "e.g. Answer: [2, 5].")
        return Instance(prompt, {"intervals": intervals, "best": best_schedule(intervals)[0]})

    def reference(self, instance: Instance) -> str:
        """The table of best totals by end hour, written out, then the requests it keeps."""
        intervals = instance.data["intervals"]
        steps: list[str] = []
        best, chosen = best_schedule(intervals, steps=steps)
        lines = ["I sort the requests by end hour. For each one, the best total up to it is the larger of: "
                 "taking it (its pay plus the best total of the requests that end by its start) or leaving it "
                 "(the best total before it)."]
        lines += [s[0].upper() + s[1:] + "." for s in steps]
        pays = " + ".join(str(intervals[i - 1][2]) for i in chosen)
        lines.append(f"Going back through the choices, requests {chosen} are kept; they do not overlap and pay "
                     f"{pays} = {best}.")
        return "\n".join(lines) + f"\nAnswer: {chosen}"

    def score(self, instance: Instance, response: str) -> Score:
        intervals = instance.data["intervals"]
        n = len(intervals)
        chosen = int_list_answer(response, limit=n + 1)
        if chosen is None:
            return Score(0.0, ("unparsable",))
        if any(not 1 <= i <= n for i in chosen):
            return Score(0.0, ("unknown_request",))
        if len(set(chosen)) != len(chosen):
            return Score(0.0, ("duplicate_request",))
        picked = sorted(intervals[i - 1] for i in chosen)
        if any(a[1] > b[0] for a, b in pairwise(picked)):
            return Score(0.0, ("overlap",))
        total = sum(v for _, _, v in picked)
        if total != instance.data["best"]:
            return Score(0.0, ("suboptimal",), {"total": total, "best": instance.data["best"]})
        return Score(1.0, (), {"total": total})

    def ladder(self) -> tuple[Rung, ...]:
        """Earliest end first, highest pay first, the table of best totals (150 comparisons)."""
        def greedy(key: str) -> Callable[[Instance, Budget], str]:
            return lambda inst, budget: f"Answer: {greedy_schedule(inst.data['intervals'], key)}"

        def table(inst: Instance, budget: Budget) -> str:
            return f"Answer: {best_schedule(inst.data['intervals'], budget)[1]}"

        return (Rung("earliest_end", 1, "passes", greedy("end")), Rung("highest_pay", 1, "passes", greedy("pay")),
                Rung("dp_150", 150, "comparisons", table))

    def statistics(self, instance: Instance) -> dict[str, float]:
        intervals = instance.data["intervals"]
        overlaps = sum(1 for i in range(len(intervals)) for j in range(i + 1, len(intervals))
                       if not fits([j], intervals, i))
        return {"requests": float(len(intervals)), "overlapping_pairs": float(overlaps),
                "horizon": float(max(e for _, e, _ in intervals))}


ENV = IntervalScheduling()
