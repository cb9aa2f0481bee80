"""Type-aware comparison of an argument value with its acceptable values, compiled once per reference.

Rules (the same for covert rows and BFCL data):

- The declared JSON-schema type decides what a value must be: an ``int`` is accepted where a
  ``number`` is declared, a string is never read as a number, and a ``bool`` is not an ``int``.
- Strings compare after a configurable :class:`StringNorm` (case, whitespace, punctuation).
- Arrays compare element by element, in order; objects compare key by key against a
  :class:`DictPattern`, whose keys each hold their own acceptable values (``OPTIONAL`` among them
  means the key may be left out).
- An acceptable value whose type differs from the declared type (BFCL writes variable names as
  strings for numeric parameters) is compared exactly, by its own type.

:func:`compile_value` turns the acceptable values of one parameter into a check
``value -> None | "wrong_type" | "wrong_value"``; compiling once and checking many completions is
what keeps scoring fast.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

Check = Callable[[Any], "str | None"]
CACHE_SIZE = 1 << 16
CACHED_LENGTH = 256  # the memo holds at most CACHE_SIZE strings of this length: bounded memory
WRONG_TYPE = "wrong_type"
WRONG_VALUE = "wrong_value"


class _Optional:
    __slots__ = ()

    def __repr__(self) -> str:
        return "OPTIONAL"


OPTIONAL = _Optional()
"""Marks a parameter (or object key) that may be left out."""


@dataclass(frozen=True)
class StringNorm:
    """How strings are normalised before they are compared.

    Attributes:
        casefold: Compare case-insensitively.
        whitespace: ``"keep"``, ``"collapse"`` (runs of whitespace become one space, ends stripped) or
            ``"remove"`` (all whitespace dropped).
        remove: Characters deleted before comparing (punctuation such as ``",.-"``).
        quotes: Read single quotes as double quotes.
    """

    casefold: bool = True
    whitespace: str = "collapse"
    remove: str = ""
    quotes: bool = False
    apply: Callable[[str], str] = field(default=str, init=False, repr=False, compare=False)
    """The normalisation as a plain function."""
    cached: Callable[[str], str] = field(default=str, init=False, repr=False, compare=False)
    """:attr:`apply` memoised, for strings of at most :data:`CACHED_LENGTH` characters."""
    function: Callable[[str], str] = field(default=str, init=False, repr=False, compare=False)
    """:attr:`apply`, through the memo for short strings (what compiled checks call)."""

    def __post_init__(self) -> None:
        if self.whitespace not in ("keep", "collapse", "remove"):
            raise ValueError(f"whitespace must be keep, collapse or remove, not {self.whitespace!r}")
        apply = _normalizer(self)
        cached = lru_cache(maxsize=CACHE_SIZE)(apply)

        def function(text: str) -> str:
            return cached(text) if len(text) <= CACHED_LENGTH else apply(text)

        object.__setattr__(self, "apply", apply)
        object.__setattr__(self, "cached", cached)
        object.__setattr__(self, "function", function)

    def __call__(self, text: str) -> str:
        """The normalised form of ``text``."""
        return self.function(text)

    def __reduce__(self) -> tuple[Any, ...]:
        return StringNorm, (self.casefold, self.whitespace, self.remove, self.quotes)


def _normalizer(norm: StringNorm) -> Callable[[str], str]:
    """A function doing exactly the steps ``norm`` asks for, and no others."""
    table: dict[int, Any] = {ord(c): None for c in norm.remove}
    if norm.quotes:
        table[ord("'")] = '"'
    steps: list[Callable[[str], str]] = []
    if table and all(k < 128 and (v is None or ord(v) < 128) for k, v in table.items()):
        # ASCII edits on UTF-8 bytes: several times faster than str.translate, and exact (an ASCII byte
        # never occurs inside a multi-byte UTF-8 sequence)
        delete = bytes(k for k, v in table.items() if v is None)
        swap = bytes.maketrans(bytes(k for k, v in table.items() if v is not None),
                               "".join(v for v in table.values() if v is not None).encode())
        steps.append(lambda text: text.encode("utf-8", "surrogatepass").translate(swap, delete)
                     .decode("utf-8", "surrogatepass"))
    elif table:
        steps.append(lambda text: text.translate(table))
    if norm.casefold:
        steps.append(str.lower)
    if norm.whitespace == "collapse":
        steps.append(lambda text: " ".join(text.split()))
    elif norm.whitespace == "remove":
        steps.append(lambda text: "".join(text.split()))
    if not steps:
        return str
    if len(steps) == 1:
        return steps[0]
    if len(steps) == 2:
        first, second = steps
        return lambda text: second(first(text))

    def apply(text: str) -> str:
        for step in steps:
            text = step(text)
        return text

    return apply


EXACT = StringNorm(casefold=False, whitespace="keep")
"""Strings must be identical."""
LENIENT = StringNorm()
"""Case-insensitive, whitespace runs collapsed: covert's default for argument values."""
BFCL = StringNorm(casefold=True, whitespace="keep", remove=" ,./-_*^", quotes=True)
"""BFCL's standardisation: lower case, spaces and ``,./-_*^`` removed, ``'`` read as ``"``."""


class DictPattern:
    """An acceptable object: for each key, the acceptable values of that key (``OPTIONAL`` if it may
    be left out). Keys not listed are not allowed."""

    __slots__ = ("fields",)

    def __init__(self, fields: dict[str, tuple[Any, ...]]) -> None:
        self.fields = fields

    def __repr__(self) -> str:
        return f"DictPattern({self.fields!r})"


def pattern_of(value: Any) -> Any:
    """The pattern that accepts exactly ``value`` (objects become a :class:`DictPattern` whose keys
    each accept their one value)."""
    if isinstance(value, dict):
        return DictPattern({k: (pattern_of(v),) for k, v in value.items()})
    if isinstance(value, list):
        return [pattern_of(v) for v in value]
    return value


def schema_kind(schema: Any) -> str | None:
    """The JSON-schema type a parameter declares, or ``None`` when it declares one we do not check."""
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if kind in ("string", "integer", "number", "boolean", "array", "object"):
        return kind
    if "enum" in schema and schema["enum"] and all(isinstance(v, str) for v in schema["enum"]):
        return "string"
    return None


def _is_number(value: Any) -> bool:
    kind = type(value)
    return kind is int or kind is float


def _conforms(value: Any, kind: str) -> bool:
    if kind == "string":
        return type(value) is str
    if kind == "integer":
        return type(value) is int
    if kind == "number":
        return _is_number(value)
    if kind == "boolean":
        return type(value) is bool
    if kind == "array":
        return type(value) is list
    return type(value) is dict


def _typed_alternative(alt: Any, kind: str) -> bool:
    """Whether an acceptable value is of the declared kind (otherwise it is compared exactly)."""
    if kind in ("integer", "number"):
        return _is_number(alt)
    if kind == "object":
        return isinstance(alt, (dict, DictPattern))
    return _conforms(alt, kind)


def _infer_kind(value: Any) -> str | None:
    if isinstance(value, DictPattern):
        return "object"
    kind = type(value)
    if kind is str:
        return "string"
    if kind is bool:
        return "boolean"
    if kind is int or kind is float:
        return "number"
    if kind is list:
        return "array"
    if kind is dict:
        return "object"
    return None


def _exact(value: Any, alt: Any) -> bool:
    return type(value) is type(alt) and value == alt


def compile_value(alternatives: Sequence[Any], schema: Any, norm: StringNorm) -> Check:
    """A check of one value against its acceptable ``alternatives`` (``OPTIONAL`` entries are ignored
    here; the caller handles absence). ``schema`` is the parameter's JSON schema, or ``None``."""
    alts = [a for a in alternatives if a is not OPTIONAL]
    kind = schema_kind(schema)
    if kind is None:
        return _compile_untyped(alts, schema, norm)
    typed = [a for a in alts if _typed_alternative(a, kind)]
    loose = [a for a in alts if not _typed_alternative(a, kind)]
    if not loose and kind in ("string", "integer", "number", "boolean"):
        return _compile_scalar(typed, kind, norm)
    if not loose and kind == "array":
        items = schema_kind(schema.get("items")) or _common_element_kind(typed)
        if items in ("string", "integer", "number", "boolean") and all(
            not any(a is OPTIONAL for a in alt) and all(_typed_alternative(x, items) for x in alt) for alt in typed
        ):
            return _compile_scalar_array(typed, items, norm)
    match = _compile_typed(typed, kind, schema, norm)

    def check(value: Any) -> str | None:
        if _conforms(value, kind):
            if match(value):
                return None
            return None if loose and any(_exact(value, a) for a in loose) else WRONG_VALUE
        return None if loose and any(_exact(value, a) for a in loose) else WRONG_TYPE

    return check


def _compile_scalar(typed: list[Any], kind: str, norm: StringNorm) -> Check:
    """The common case, specialised: a scalar parameter whose acceptable values all have its type."""
    if kind == "string":
        normalize = norm.function
        strings = frozenset(normalize(a) for a in typed)

        def check_string(value: Any) -> str | None:
            if type(value) is str:
                return None if normalize(value) in strings else WRONG_VALUE
            return WRONG_TYPE

        return _scalar(check_string, kind, strings, norm, frozenset(typed))
    if kind == "boolean":
        flags = frozenset(typed)

        def check_bool(value: Any) -> str | None:
            if type(value) is bool:
                return None if value in flags else WRONG_VALUE
            return WRONG_TYPE

        return _scalar(check_bool, kind, flags)
    numbers = frozenset(typed)
    if kind == "integer":

        def check_int(value: Any) -> str | None:
            if type(value) is int:
                return None if value in numbers else WRONG_VALUE
            return WRONG_TYPE

        return _scalar(check_int, kind, numbers)

    def check_number(value: Any) -> str | None:
        kind = type(value)
        if kind is int or kind is float:
            return None if value in numbers else WRONG_VALUE
        return WRONG_TYPE

    return _scalar(check_number, kind, numbers)


_ELEMENT_TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}


def _compile_scalar_array(typed: list[list[Any]], items: str, norm: StringNorm) -> Check:
    """Arrays of scalars, specialised: element types checked, then one set lookup of the whole array."""
    kinds = _ELEMENT_TYPES[items]
    raw = frozenset(tuple(alt) for alt in typed)
    normalize = norm.function
    accepted = frozenset(tuple(normalize(x) for x in alt) for alt in typed) if items == "string" else raw

    def check_array(value: Any) -> str | None:
        if type(value) is not list:
            return WRONG_TYPE
        for element in value:
            if type(element) not in kinds:
                return WRONG_VALUE
        # elements are type-checked, so tuple equality cannot mistake a bool for an int
        exact = tuple(value)
        if exact in raw:
            return None
        if items == "string" and tuple(normalize(x) for x in exact) in accepted:
            return None
        return WRONG_VALUE

    return check_array


def _scalar(check: Check, kind: str, accepted: frozenset[Any], norm: StringNorm | None = None,
            raw: frozenset[Any] = frozenset()) -> Check:
    """Tag a scalar check with what it accepts (normalised, and as written), so
    :mod:`covert.rewards.fastmatch` can inline it."""
    check.scalar = (kind, accepted, norm, raw)  # type: ignore[attr-defined]
    return check


def _compile_typed(typed: list[Any], kind: str, schema: Any, norm: StringNorm) -> Callable[[Any], bool]:
    if kind == "string":
        normalize = norm.function
        normalized = frozenset(normalize(a) for a in typed)
        return lambda value: normalize(value) in normalized
    if kind in ("integer", "number"):
        numbers = frozenset(typed)
        return lambda value: value in numbers
    if kind == "boolean":
        flags = tuple(typed)
        return lambda value: any(value is a for a in flags)
    if kind == "array":
        items = schema.get("items") if isinstance(schema, dict) else None
        arrays = [_compile_array(a, items, norm) for a in typed]
        return lambda value: any(a(value) for a in arrays)
    properties = schema.get("properties") if isinstance(schema, dict) else None
    objects = [_compile_object(a, properties, norm) for a in typed]
    return lambda value: any(o(value) for o in objects)


def _compile_array(alt: list[Any], items: Any, norm: StringNorm) -> Callable[[Any], bool]:
    checks = [compile_value((element,), items, norm) for element in alt]
    size = len(checks)

    def match(value: list[Any]) -> bool:
        if len(value) != size:
            return False
        return all(check(v) is None for check, v in zip(checks, value))

    return match


def _compile_object(alt: Any, properties: Any, norm: StringNorm) -> Callable[[Any], bool]:
    pattern = alt if isinstance(alt, DictPattern) else pattern_of(alt)
    props = properties if isinstance(properties, dict) else {}
    fields = {key: compile_value(options, props.get(key), norm) for key, options in pattern.fields.items()}
    needed = [key for key, options in pattern.fields.items() if not any(o is OPTIONAL for o in options)]

    def match(value: dict[str, Any]) -> bool:
        for key, item in value.items():
            check = fields.get(key)
            if check is None or check(item) is not None:
                return False
        return all(key in value for key in needed)

    return match


def _common_element_kind(arrays: list[Any]) -> str | None:
    """The kind every element of every array has, when it is one scalar kind (``number`` for ints and
    floats alike, as an untyped element compares): untyped elements of that kind compare exactly as
    typed ones do, so the arrays can be checked as typed arrays of it."""
    kinds = {_infer_kind(x) for alt in arrays if type(alt) is list for x in alt}
    if len(kinds) == 1:
        (kind,) = kinds
        if kind in ("string", "number", "boolean"):
            return kind
    return None


def _compile_untyped(alts: list[Any], schema: Any, norm: StringNorm) -> Check:
    """An undeclared type: a value compares with the acceptable values of its own kind. When every
    acceptable value has one kind, that is the check of a parameter declaring the kind (same verdicts,
    same codes), so the typed check is used: it is the faster one."""
    kinds = {_infer_kind(alt) for alt in alts}
    if len(kinds) == 1:
        (kind,) = kinds
        if kind in ("string", "number", "boolean"):
            return _compile_scalar(list(alts), kind, norm)
        if kind in ("array", "object"):
            declared = {"type": kind}
            if isinstance(schema, dict) and kind == "array" and "items" in schema:
                declared["items"] = schema["items"]
            if isinstance(schema, dict) and kind == "object" and "properties" in schema:
                declared["properties"] = schema["properties"]
            return compile_value(alts, declared, norm)
    return _compile_by_kind(alts, schema, norm)


def _compile_by_kind(alts: list[Any], schema: Any, norm: StringNorm) -> Check:
    """The general untyped check: acceptable values grouped by kind, a value checked against its kind's."""
    by_kind: dict[str | None, list[Any]] = {}
    for alt in alts:
        by_kind.setdefault(_infer_kind(alt), []).append(alt)
    matchers = {
        kind: _compile_typed(group, kind, schema if isinstance(schema, dict) else None, norm)
        for kind, group in by_kind.items() if kind is not None
    }
    others = by_kind.get(None, [])

    def check(value: Any) -> str | None:
        # _infer_kind keeps bool and number apart, so a bool never matches a number or the reverse
        match = matchers.get(_infer_kind(value)) if not isinstance(value, DictPattern) else None
        if match is not None:
            return None if match(value) else WRONG_VALUE
        if any(_exact(value, a) for a in others):
            return None
        return WRONG_TYPE if alts else WRONG_VALUE

    return check
