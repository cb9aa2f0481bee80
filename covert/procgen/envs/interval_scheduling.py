"""Weighted interval scheduling: non-overlapping bookings of the largest total value (a DP over end times)."""

from __future__ import annotations

import bisect
from itertools import pairwise

from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score, instance_rng
from covert.procgen.parse import int_list_answer


def best_schedule(intervals: list[list[int]]) -> tuple[int, list[int]]:
    """The best total value and one optimal choice (1-based numbers, ascending); ``[start, end, value]``
    intervals are half-open, so one may start when another ends."""
    order = sorted(range(len(intervals)), key=lambda i: (intervals[i][1], i))
    ends = [intervals[i][1] for i in order]
    best = [0] * (len(order) + 1)
    for k, i in enumerate(order, 1):
        start, _, value = intervals[i]
        before = bisect.bisect_right(ends, start, 0, k - 1)
        best[k] = max(best[k - 1], best[before] + value)
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


class IntervalScheduling(ProceduralEnv):
    """Booking requests with times and payments; any non-overlapping choice of the best total is accepted."""

    name = "interval_scheduling"
    version = "1"
    description = "weighted interval scheduling: non-overlapping bookings of the largest total value"
    asymmetry = "reason"
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
        best, chosen = best_schedule(instance.data["intervals"])
        return (f"Sorting the requests by end hour and keeping the best total up to each end gives {best}.\n"
                f"Answer: {chosen}")

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


ENV = IntervalScheduling()
