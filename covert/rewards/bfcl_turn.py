"""One BFCL turn of calls checked against its expected calls: paired, then explained.

BFCL's prediction is one turn, ``[{function_name: {param: value}}]``, and its answer one group of
expected calls. :func:`check_turn` gives the result :func:`covert.rewards.matching.match_turns` gives
that turn (the same pairs, counts and reasons, with BFCL's ``wrong_count`` reason first), reading the
calls as they are: no :class:`~covert.rewards.parsing.ToolCall` is made unless a mismatch must be
worded, and no alignment of turns is searched (there is one turn on each side).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from covert.rewards.matching import MAX_PREDICTED_CALLS, CallsResult, Mismatch, explain_pairs, pair_block
from covert.rewards.parsing import ToolCall


class Expected(Protocol):
    """An expected call: :class:`~covert.rewards.matching.CallMatcher` or
    :class:`~covert.rewards.bfcl_direct.DirectMatcher`."""

    name: str
    matches: Callable[[dict[str, Any]], bool]

    def check(self, call: ToolCall) -> Mismatch | None:
        """``None`` when ``call`` is this call, else the first mismatch."""


def check_turn(expected: Sequence[Expected], calls: Any) -> CallsResult | None:
    """How BFCL-format ``calls`` match the ``expected`` calls, or ``None`` when the calls are not a
    plain list of well-formed calls (``{str: {str: value}}``, at most
    :data:`~covert.rewards.matching.MAX_PREDICTED_CALLS`): read them with
    :func:`covert.rewards.bfcl.read_calls` then."""
    if type(calls) is not list or len(calls) > MAX_PREDICTED_CALLS:
        return None
    names: list[str] = []
    arguments: list[dict[str, Any]] = []
    for item in calls:
        if type(item) is not dict or len(item) != 1:
            return None
        ((name, given),) = item.items()
        if type(name) is not str or type(given) is not dict:
            return None
        for key in given:
            if type(key) is not str:
                return None
        names.append(name)
        arguments.append(given)

    count, n = len(calls), len(expected)
    wanted = [m.name for m in expected]
    seen: dict[int, bool] = {}  # verdicts by i * n + j: pairing and explaining ask again about a pair
    by_name: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        by_name.setdefault(name, []).append(i)

    def fits(i: int, j: int) -> bool:
        if names[i] != wanted[j]:
            return False
        key = i * n + j
        verdict = seen.get(key)
        if verdict is None:
            verdict = seen[key] = expected[j].matches(arguments[i])
        return verdict

    pairs = pair_block(range(count), range(n), fits, [by_name.get(name, ()) for name in wanted])
    if len(pairs) == count == n:
        return CallsResult(n, n, n)

    def check(i: int, j: int) -> Mismatch | None:
        return expected[j].check(ToolCall(names[i], arguments[i]))

    reasons = explain_pairs(names, wanted, pairs, fits, check, None)
    if count != n:
        reasons.insert(0, f"calls:wrong_count: {count} calls, expected {n}")
    return CallsResult(len(pairs), count, n, tuple(reasons))
