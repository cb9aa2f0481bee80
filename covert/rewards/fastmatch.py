"""Fast verdicts: one expected call compiled into a straight-line Python function.

``compile_matches(params, required)`` returns ``matches(arguments) -> bool``, the same verdict as
:meth:`covert.rewards.matching.CallMatcher.check` (``None`` or not), for scoring many completions
against one reference. Scalar checks (strings, integers, numbers, booleans whose acceptable values all
have the declared type) are inlined: a type test and a set lookup. Every other check is called as it
is. The generated source holds only generated names: parameter names and acceptable values reach it
as arguments of a factory (so the function reads them as closure cells), never as text, and the
compiled code is shared by every expected call of the same shape.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from functools import lru_cache
from types import CodeType
from typing import Any

from covert.rewards.compare import CACHED_LENGTH

_MISSING = object()
_TESTS = {
    # a string spelled exactly as an acceptable one skips normalisation
    "string": "type({v}) is not str or ({v} not in {raw} and ({memo}({v}) if len({v}) <= LIMIT else {norm}({v})) not in {accepted})",
    "integer": "type({v}) is not int or {v} not in {accepted}",
    "number": "(type({v}) is not int and type({v}) is not float) or {v} not in {accepted}",
    "boolean": "type({v}) is not bool or {v} not in {accepted}",
}


def compile_matches(params: Mapping[str, Any], required: Sequence[str],
                    first: Collection[str] = ()) -> Callable[[dict[str, Any]], bool]:
    """A fast ``matches(arguments) -> bool`` for one expected call.

    ``params`` maps each parameter to its :class:`~covert.rewards.matching.Param`; ``required`` names
    the parameters that must be present; parameters in ``first`` are checked first.
    """
    values: dict[str, Any] = {"MISSING": _MISSING, "LIMIT": CACHED_LENGTH}
    allowed = [p for p, spec in params.items() if spec.acceptable]
    needed = set(required) | {p for p, spec in params.items() if not spec.optional}
    if not needed <= set(allowed):
        return lambda arguments: False  # a needed parameter no value is acceptable for: nothing matches
    order = sorted(allowed, key=lambda p: (p not in first, p not in needed))
    body = ["    def matches(a):"]
    fetch = [f"            v{i} = a[K{i}]" for i, p in enumerate(order) if p in needed]
    if fetch:  # a missing needed parameter raises: cheaper than testing each lookup
        body += ["        try:", *fetch, "        except KeyError:", "            return False"]
    body.append(f"        n = {len(needed)}")
    for i, param in enumerate(order):
        spec = params[param]
        values[f"K{i}"] = param
        if param in needed:
            indent = "        "
        else:
            body += [f"        v{i} = a.get(K{i}, MISSING)", f"        if v{i} is not MISSING:", "            n += 1"]
            indent = "            "
        if spec.ignore:
            continue
        scalar = getattr(spec.check, "scalar", None)
        if scalar is not None:
            kind, accepted, norm, raw = scalar
            values[f"S{i}"] = accepted
            values[f"R{i}"] = raw
            if norm is not None:
                values[f"N{i}"] = norm.apply
                values[f"M{i}"] = norm.cached
            test = _TESTS[kind].format(v=f"v{i}", norm=f"N{i}", memo=f"M{i}", accepted=f"S{i}", raw=f"R{i}")
        else:
            values[f"C{i}"] = spec.check
            test = f"C{i}(v{i}) is not None"
        body += [f"{indent}if {test}:", f"{indent}    return False"]
    body += ["        return n == len(a)", "    return matches"]
    # the values are the factory's arguments, so the function reads them as closure cells (fast)
    source = "\n".join([f"def make({', '.join(values)}):", *body])
    namespace: dict[str, Any] = {}
    exec(_code(source), namespace)  # noqa: S102 - generated names only
    return namespace["make"](**values)


@lru_cache(maxsize=4096)
def _code(source: str) -> CodeType:
    """Compiled source, shared by every call of the same shape (the source holds no values)."""
    return compile(source, "<covert.rewards.fastmatch>", "exec")
