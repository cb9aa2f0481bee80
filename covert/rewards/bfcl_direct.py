"""BFCL's answer format, and scores read straight off it (nothing compiled): the one-off path.

The helpers here turn BFCL's parameter specs and acceptable values into covert's terms
(:func:`json_schema`, :func:`alternatives`); :mod:`covert.rewards.bfcl` compiles references from them.

:func:`covert.rewards.bfcl.match_bfcl` scores one completion without compiling: compiling costs more
than checking once. :func:`score_directly` walks the entry and the calls once: calls BFCL's rules
accept score 1 (:func:`accepts_directly`: in order, then greedily paired), and one call against one
expected call that they reject scores 0 with the reason the compiled matcher gives. Other calls
are paired and explained as one turn (:func:`covert.rewards.bfcl_turn.check_turn`, the compiled
reference's own code) with :class:`DirectMatcher` objects in place of compiled matchers. Scalars and arrays of scalars
(almost every BFCL parameter) are checked inline; any other value by the very check the compiled
reference builds for it. Whatever is irregular (acceptable values not in a list, a spec that is not
a dict, a type name that is not a string) is left to the compiled reference, so every score is the
compiled reference's, reasons included.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from covert.rewards.compare import OPTIONAL, WRONG_TYPE, WRONG_VALUE, DictPattern, StringNorm, compile_value
from covert.rewards.matching import MISSING_ARGUMENT, UNEXPECTED_ARGUMENT, WRONG_FUNCTION, Mismatch
from covert.rewards.parsing import ToolCall
from covert.rewards.result import Score

TYPES = {
    "string": "string", "str": "string", "any": "string", "integer": "integer", "int": "integer",
    "float": "number", "number": "number", "boolean": "boolean", "bool": "boolean", "array": "array",
    "list": "array", "tuple": "array", "dict": "object", "object": "object",
}
"""BFCL's type names in JSON-schema terms."""

_MISSING = object()
_UNSURE: Any = object()  # a spec only the compiled reference can judge
_NUMBER = (int, float)
_ELEMENTS = {"string": (str,), "integer": (int,), "number": _NUMBER, "boolean": (bool,)}
"""The Python types a value's array elements may have, by declared (or inferred) item kind."""


def json_schema(schema: Any) -> dict[str, Any] | None:
    """A BFCL parameter schema in JSON-schema terms (``float`` -> ``number``, ``dict`` -> ``object``)."""
    if not isinstance(schema, Mapping):
        return None
    out: dict[str, Any] = {}
    kind = TYPES.get(schema.get("type"))
    if kind:
        out["type"] = kind
    if isinstance(schema.get("items"), Mapping):
        out["items"] = json_schema(schema["items"])
    if isinstance(schema.get("properties"), Mapping):
        out["properties"] = {k: json_schema(v) for k, v in schema["properties"].items()}
    return out


def alternatives(values: Any, schema: Mapping[str, Any] | None) -> list[Any]:
    """BFCL's acceptable values as patterns; ``""`` marks the parameter optional (and, for a
    string parameter, is also an acceptable value)."""
    values = values if isinstance(values, list) else [values]
    out: list[Any] = []
    for value in values:
        if value == "" and isinstance(value, str):
            out.append(OPTIONAL)
            if (schema or {}).get("type") == "string":
                out.append("")
        else:
            out.append(pattern(value))
    return out


def pattern(value: Any) -> Any:
    """A BFCL acceptable value as a pattern: inside objects, each key lists its acceptable values."""
    if isinstance(value, dict):
        return DictPattern({k: tuple(alternatives(v, {"type": "string"})) for k, v in value.items()})
    if isinstance(value, list):
        return [pattern(v) for v in value]
    return value


def score_directly(functions: Any, calls: Any, possible_answer: Any, norm: StringNorm) -> Score | None:
    """The score the compiled reference gives ``calls`` (exact and partial mode agree on these), when
    it can be read off the entry: calls BFCL's rules accept (1), or one well-formed call against one
    expected call that they reject (0, with the compiled reference's reason). ``None``: ask the
    compiled reference."""
    reason = _single_reason(functions, calls, possible_answer, norm)
    if reason is None:
        return Score(1.0, {"calls": 1.0}, []) if accepts_directly(functions, calls, possible_answer, norm) else None
    return Score(0.0, {"calls": 0.0}, [reason]) if reason else Score(1.0, {"calls": 1.0}, [])


def _single_reason(functions: Any, calls: Any, possible_answer: Any, norm: StringNorm) -> str | None:
    """For one well-formed call against one expected call: ``""`` when the compiled reference accepts
    it, else the reason its matcher gives (the first of a missing required parameter, a parameter not
    expected, a value not acceptable, a needed parameter left out, checked in that order). ``None``
    when the entry is not of that form or not plain enough to tell."""
    if type(calls) is not list or len(calls) != 1 or type(functions) is not list:
        return None
    if type(possible_answer) is dict:
        possible_answer = possible_answer.get("ground_truth", [])
    if type(possible_answer) is not list or len(possible_answer) != 1:
        return None
    item, entry = calls[0], possible_answer[0]
    if type(item) is not dict or len(item) != 1 or type(entry) is not dict or len(entry) != 1:
        return None
    ((called, arguments),) = item.items()
    ((name, answers),) = entry.items()
    if type(called) is not str or type(arguments) is not dict or type(answers) is not dict:
        return None
    for key in arguments:
        if type(key) is not str:
            return None  # not a call the compiled reference can read
    spec = _spec(functions, name)
    if spec is None:
        return None
    if called != name:
        return f"calls:wrong_function: {called[:80]} instead of {name}"
    properties, required = spec
    for param in required:
        if param not in arguments:
            return _why("missing_argument", name, param)
    for param, value in arguments.items():
        if param not in answers or param not in properties:
            return _why("unexpected_argument", name, param)
        values, schema = answers[param], properties[param]
        if type(values) is not list or type(schema) is not dict:
            return None
        code = _value_code(value, values, schema, norm)
        if code is _UNSURE:
            return None
        if code is not None:
            return _why(code, name, param)
    if len(arguments) < len(answers):
        for param, values in answers.items():
            if param in arguments:
                continue
            if type(values) is not list:
                return None
            if not _optional(values, param in properties):
                return _why("missing_argument", name, param)
    return ""


def _why(code: str, name: str, param: str) -> str:
    """A reason as the compiled reference words it (:class:`covert.rewards.matching.Mismatch`)."""
    return f"calls:{code}: {name}.{param}" if param else f"calls:{code}: {name}"


def accepts_directly(functions: Any, calls: Any, possible_answer: Any, norm: StringNorm) -> bool:
    """``True`` only if BFCL's rules, as covert compiles them, accept ``calls`` for this entry (an AST
    category's; relevance categories are not handled here). ``False``: not shown, ask the compiled
    reference. Calls are paired in order, then greedily: a greedy pass that pairs every call proves an
    optimal pairing exists; when it does not, the compiled reference decides."""
    if type(calls) is not list or type(functions) is not list:
        return False
    if type(possible_answer) is dict:
        possible_answer = possible_answer.get("ground_truth", [])
    if type(possible_answer) is not list or not possible_answer or len(calls) != len(possible_answer):
        return False
    for item in calls:
        if type(item) is not dict or len(item) != 1:
            return False
    expected = []
    for entry in possible_answer:
        if type(entry) is not dict or len(entry) != 1:
            return False
        ((name, answers),) = entry.items()
        spec = _spec(functions, name)
        if spec is None or type(answers) is not dict:
            return False
        expected.append((name, answers, *spec))
    if len(expected) == 1:
        name, answers, properties, required = expected[0]
        return _call_ok(calls[0].get(name), answers, properties, required, norm)
    for start, (name, answers, properties, required) in enumerate(expected):  # in order: the common case
        if not _call_ok(calls[start].get(name), answers, properties, required, norm):
            break
    else:
        return True
    pending = calls[start:]
    skip = 1  # the in-order pass found that expected[start] does not accept calls[start]
    for name, answers, properties, required in expected[start:]:
        for k in range(skip, len(pending)):
            if _call_ok(pending[k].get(name), answers, properties, required, norm):
                del pending[k]
                break
        else:
            return False
        skip = 0
    return True


class DirectMatcher:
    """One expected call read straight off a BFCL entry, with the interface of
    :class:`covert.rewards.matching.CallMatcher` (``name``, ``matches``, ``check``) and the same
    verdicts and mismatches, without compiling anything: for scoring one completion (a compiled
    matcher is faster from the second). Made by :func:`direct_matchers`, for regular entries only."""

    __slots__ = ("_answers", "_norm", "_properties", "_required", "name")

    def __init__(self, name: str, answers: dict[str, Any], properties: dict[str, Any], required: list[Any],
                 norm: StringNorm) -> None:
        self.name = name
        self._answers = answers
        self._properties = properties
        self._required = required
        self._norm = norm

    def matches(self, arguments: dict[str, Any]) -> bool:
        """Whether ``arguments`` are acceptable for this call."""
        return _call_ok(arguments, self._answers, self._properties, self._required, self._norm)

    def check(self, call: ToolCall) -> Mismatch | None:
        """``None`` when ``call`` is this call, else the first mismatch (in the compiled matcher's order)."""
        name, arguments = self.name, call.arguments
        answers, properties = self._answers, self._properties
        if call.name != name:
            return Mismatch(WRONG_FUNCTION, call.name)
        for param in self._required:
            if param not in arguments:
                return Mismatch(MISSING_ARGUMENT, name, param)
        for param, value in arguments.items():
            if param not in answers or param not in properties:
                return Mismatch(UNEXPECTED_ARGUMENT, name, param)
            code = _value_code(value, answers[param], properties[param], self._norm)
            if code is not None:
                return Mismatch(code, name, param)
        for param, values in answers.items():
            if param not in arguments and not _optional(values, param in properties):
                return Mismatch(MISSING_ARGUMENT, name, param)
        return None


def direct_matchers(functions: Any, possible_answer: Any, norm: StringNorm) -> list[DirectMatcher] | None:
    """The expected calls of a BFCL entry as :class:`DirectMatcher` objects, or ``None`` when the entry
    is not regular enough for them to be exact (function specs and answers that are not plain dicts
    and lists, types that are not strings): compile it then."""
    if type(functions) is not list:
        return None
    if type(possible_answer) is dict:
        possible_answer = possible_answer.get("ground_truth", [])
    if type(possible_answer) is not list or not possible_answer:
        return None
    specs: dict[str, tuple[dict[str, Any], list[Any], bool] | None] = {}  # by name: looked up once per entry
    out = []
    for entry in possible_answer:
        if type(entry) is not dict or len(entry) != 1:
            return None
        ((name, answers),) = entry.items()
        if type(name) is not str or type(answers) is not dict:
            return None
        spec = specs.get(name, _MISSING)
        if spec is _MISSING:
            found = _spec(functions, name)
            # every declared parameter regular (the common case): no parameter needs a look of its own
            spec = specs[name] = None if found is None else (*found, _all_regular(found[0]))
        if spec is None:
            return None
        properties, required, regular = spec
        for param, values in answers.items():
            if type(values) is not list:
                return None
            if not regular and param in properties and not _regular(properties[param]):
                return None
        out.append(DirectMatcher(name, answers, properties, required, norm))
    return out


def _regular(schema: Any) -> bool:
    """Whether a declared parameter's spec is one :func:`_value_code` judges exactly."""
    return _all_regular({"": schema})


def _all_regular(properties: dict[str, Any]) -> bool:
    """Whether every declared parameter's spec is one :func:`_value_code` judges exactly (a plain loop:
    this runs for every function of every one-off call)."""
    for schema in properties.values():
        if type(schema) is not dict:
            return False
        declared = schema.get("type")
        if declared is not None and type(declared) is not str:
            return False
        items = schema.get("items")
        if type(items) is dict:
            declared = items.get("type")
            if declared is not None and type(declared) is not str:
                return False
    return True


def _spec(functions: list[Any], name: Any) -> tuple[dict[str, Any], list[Any]] | None:
    """``(properties, required)`` of the last function spec named ``name`` (as the compiled
    reference takes it), or ``None`` when it is missing or irregular."""
    found = None
    for function in functions:
        if type(function) is not dict:
            return None
        if function.get("name") == name:
            found = function
    if found is None or type(name) is not str:
        return None
    parameters = found.get("parameters") or {}
    if type(parameters) is not dict:
        return None
    properties = parameters.get("properties") or {}
    required = parameters.get("required") or []
    if type(properties) is not dict or type(required) is not list:
        return None
    return properties, required


def _call_ok(arguments: Any, answers: dict[str, Any], properties: dict[str, Any], required: list[Any],
             norm: StringNorm) -> bool:
    """Whether one call's arguments are acceptable: required parameters present, every given one in
    the spec and in the answer with an acceptable value, every left-out one optional."""
    if type(arguments) is not dict:
        return False
    for param in required:
        if param not in arguments:
            return False
    for param, value in arguments.items():
        values = answers.get(param, _MISSING)
        schema = properties.get(param)
        if type(values) is not list or type(schema) is not dict or _value_code(value, values, schema, norm) is not None:
            return False
    if len(arguments) < len(answers):  # every given parameter is in the answer: some are left out
        for param, values in answers.items():
            if param not in arguments and not _optional(values, param in properties):
                return False
    return True


def _optional(values: Any, declared: bool) -> bool:
    """Whether a parameter may be left out (``""`` among its acceptable values), tested as the
    compiled reference tests it for a parameter the spec declares, or does not."""
    if type(values) is not list:
        return False
    if not declared:
        return "" in values
    for value in values:  # noqa: SIM110 - a plain loop: cheaper than any() over a generator
        if value == "" and isinstance(value, str):
            return True
    return False


def _value_code(value: Any, values: list[Any], schema: dict[str, Any], norm: StringNorm) -> str | None:
    """The compiled check's verdict on ``value``: ``None`` (acceptable), ``wrong_type`` or
    ``wrong_value``, inline for scalars and arrays of scalars whose acceptable values all have the
    declared type; :data:`_UNSURE` for a spec the compiled reference must judge."""
    declared = schema.get("type")
    if declared is not None and type(declared) is not str:
        return _UNSURE  # the compiled reference says what is wrong with this spec
    kind = TYPES.get(declared) if declared is not None else None
    if kind == "string":
        for alt in values:
            if type(alt) is not str:
                return _general(value, values, schema, norm)
        if type(value) is not str:
            return WRONG_TYPE
        if value in values:
            return None
        function = norm.function
        normalized = function(value)
        for alt in values:
            if function(alt) == normalized:
                return None
        return WRONG_VALUE
    if kind == "integer" or kind == "number" or kind == "boolean":
        if not _scalars(values, kind):
            return _general(value, values, schema, norm)
        if type(value) not in _ELEMENTS[kind]:
            return WRONG_TYPE
        return None if value in values else WRONG_VALUE
    if kind == "array":
        return _array_code(value, values, schema, norm)
    return _general(value, values, schema, norm)


def _scalars(values: list[Any], kind: str) -> bool:
    """Whether every acceptable value (``""`` aside) has the declared scalar kind."""
    types = _NUMBER if kind != "boolean" else (bool,)
    for alt in values:  # noqa: SIM110 - a plain loop: cheaper than any() over a generator
        if type(alt) not in types and not (type(alt) is str and alt == ""):
            return False
    return True


def _array_code(value: Any, values: list[Any], schema: dict[str, Any], norm: StringNorm) -> str | None:
    items = schema.get("items")
    if items is not None and type(items) is not dict:
        return _general(value, values, schema, norm)
    declared = items.get("type") if items is not None else None
    if declared is not None and type(declared) is not str:
        return _UNSURE
    kind = TYPES.get(declared) if declared is not None else None
    if kind not in (None, "string", "integer", "number", "boolean"):
        return _general(value, values, schema, norm)
    seen: set[type] = set()
    for alt in values:
        if type(alt) is str and alt == "":
            continue
        if type(alt) is not list:
            return _general(value, values, schema, norm)
        for element in alt:
            seen.add(type(element))
    if kind is None:  # undeclared items: one scalar kind among the elements decides (as compiled)
        if not seen or not (seen <= {str} or seen <= {int, float} or seen <= {bool}):
            return _general(value, values, schema, norm)
        kind = "string" if str in seen else "boolean" if bool in seen else "number"
    elif not seen <= set(_NUMBER if kind == "integer" else _ELEMENTS[kind]):
        return _general(value, values, schema, norm)
    if type(value) is not list:
        return WRONG_TYPE
    types = _ELEMENTS[kind]
    for element in value:
        if type(element) not in types:
            return WRONG_VALUE
    if value in values:
        return None
    if kind == "string":
        function = norm.function
        normalized = [function(x) for x in value]
        for alt in values:
            if type(alt) is list and [function(x) for x in alt] == normalized:
                return None
    return WRONG_VALUE


def _general(value: Any, values: list[Any], schema: dict[str, Any], norm: StringNorm) -> str | None:
    """The check the compiled reference builds for this parameter, built and run once."""
    converted = json_schema(schema)
    return compile_value(alternatives(values, converted), converted, norm)(value)
