"""A catalogue of mutations of BFCL's reference answers, each with the verdict BFCL's rules give it
(shared by the conformance tests and ``benchmarks/bfcl_match_bench.py``)."""

from __future__ import annotations

import re
from typing import Any

from covert.rewards import reference_calls


def standardize(text: str) -> str:
    """BFCL's string standardisation, as its checker documents it."""
    return re.sub(r"[ ,./\-_*^]", "", text).lower().replace("'", '"')


def _params(functions: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(f for f in functions if f["name"] == name)["parameters"]


def catalogue(functions: list[dict[str, Any]], answer: dict[str, Any], category: str) -> list[tuple[str, Any, bool]]:
    """(kind, calls, valid under BFCL's rules) for one entry."""
    ref = reference_calls(answer, functions)
    out: list[tuple[str, Any, bool]] = [("reference", ref, True)]
    (name, arguments), = ref[0].items()
    params = _params(functions, name)
    props, required = params.get("properties", {}), params.get("required", [])
    alts = answer["ground_truth"][0][name]

    def with_args(new: dict[str, Any], call_name: str = name) -> list[dict[str, Any]]:
        return [{call_name: new}, *ref[1:]]

    out.append(("wrong_function", with_args(arguments, name + "_v2"), False))
    out.append(("extra_param", with_args({**arguments, "covert_extra": 1}), False))
    out.append(("wrong_count", [*ref, ref[0]], False))
    if len(ref) > 1:
        out.append(("reordered", list(reversed(ref)), True))
    for param, value in arguments.items():
        kind = props.get(param, {}).get("type")
        options = alts.get(param, [])
        typed = [a for a in options if a != ""]
        if param in required:
            out.append((f"missing_required:{param}", with_args({k: v for k, v in arguments.items() if k != param}), False))
        elif "" in options:
            out.append((f"drop_optional:{param}", with_args({k: v for k, v in arguments.items() if k != param}), True))
        else:
            out.append((f"drop_needed:{param}", with_args({k: v for k, v in arguments.items() if k != param}), False))
        if kind in ("integer", "float") and type(value) in (int, float) and all(type(a) in (int, float) for a in typed):
            out.append((f"number_as_string:{param}", with_args({**arguments, param: str(value)}), False))
            if kind == "integer":
                out.append((f"bool_for_int:{param}", with_args({**arguments, param: True}), False))
            elif value == int(value):
                out.append((f"int_for_float:{param}", with_args({**arguments, param: int(value)}), True))
        if kind == "string" and isinstance(value, str) and all(isinstance(a, str) for a in typed):
            out.append((f"string_as_number:{param}", with_args({**arguments, param: 12345}), False))
            accepted = {standardize(a) for a in typed}
            for label, variant in (("upper", value.upper()), ("ignorable_punctuation", f" {value}."),
                                   ("other_punctuation", value + "!?")):
                if variant != value:
                    out.append((f"{label}:{param}", with_args({**arguments, param: variant}),
                                standardize(variant) in accepted))
    return out
