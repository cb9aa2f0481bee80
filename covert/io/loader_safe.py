"""JSON text that every loader users use decodes to the very values covert wrote.

``datasets.Json`` columns are decoded by pandas' ujson without precise floats: a number is read as
``(int part + fraction digits * 10**-n) * 10**exp`` in doubles, so ``0.3`` comes back as
``0.30000000000000004`` and ``0.7`` as ``0.7000000000000001``. Correct parsers (``json``, orjson,
pyarrow) read the shortest form exactly. Both read any *other* decimal spelling of the same number
exactly as well when it happens to suit ujson's arithmetic (``0.30`` is ``30 * 0.01``, which is the
double nearest 0.3). So every float whose shortest form ujson would misread is written in another
spelling of the same decimal that it reads exactly; a float for which no spelling works is refused
(:class:`LoaderUnsafe`), and the build rejects that row with a counted reason.

:func:`ujson_float` is a model of that decoder (its parsing of numbers, digit for digit); the test
suite checks it against pandas' own on a large sample, so the model cannot silently drift.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

import orjson

from covert.env.jsonsafe import map_floats

__all__ = ["LoaderUnsafe", "dumps", "float_text", "ujson_float", "unsafe_numbers"]

_MAX_DECIMALS = 15  # ujson keeps at most this many fraction digits and drops the rest
_POW10_NEG = [1.0] + [float(f"1e-{n}") for n in range(1, _MAX_DECIMALS + 1)]
_U64 = 2**64 - 1
_MAYBE_FLOAT = re.compile(rb"\d[.eE]")
_CACHE_LIMIT = 1 << 16
_texts: dict[float, Any] = {}


class LoaderUnsafe(ValueError):
    """A value that ``datasets.load_dataset`` could not give back as written."""


def ujson_float(text: str) -> float:
    """The double pandas' ujson (``precise_float=False``, as ``datasets`` uses it) reads from ``text``,
    a JSON number with a fraction or an exponent; NaN where it refuses the number."""
    i, n, sign = 0, len(text), 1.0
    if text.startswith("-"):
        sign, i = -1.0, 1
    whole = 0
    while i < n and text[i].isdigit():
        previous = whole
        whole = (whole * 10 + ord(text[i]) - 48) & _U64  # unsigned 64-bit arithmetic, as in C
        if (sign > 0 and previous > whole) or (sign < 0 and whole > 2**63):
            return math.nan  # ujson refuses the number ("Value is too big!"): it never reads back
        i += 1
    fraction, decimals = 0.0, 0
    if i < n and text[i] == ".":
        i += 1
        while i < n and text[i].isdigit():
            if decimals < _MAX_DECIMALS:
                fraction = fraction * 10.0 + (ord(text[i]) - 48)
                decimals += 1
            i += 1
    value = (float(whole) + fraction * _POW10_NEG[decimals]) * sign
    if i < n and text[i] in "eE":
        i += 1
        exp_sign = 1.0
        if i < n and text[i] in "+-":
            exp_sign = -1.0 if text[i] == "-" else 1.0
            i += 1
        exponent = 0.0
        while i < n and text[i].isdigit():
            exponent = exponent * 10.0 + (ord(text[i]) - 48)
            i += 1
        try:
            value = value * math.pow(10.0, exponent * exp_sign)
        except OverflowError:
            value = math.copysign(math.inf, value)
    return value


def _spellings(shortest: str) -> list[str]:
    """Other spellings of the decimal ``shortest``: trailing zeros, then integer mantissas with an
    exponent, shortest first."""
    sign, digits, exponent = Decimal(shortest).as_tuple()
    assert isinstance(exponent, int)
    prefix = "-" if sign else ""
    mantissa = "".join(map(str, digits)).lstrip("0") or "0"
    fixed, scientific = [], []
    for zeros in range(_MAX_DECIMALS + 1):
        body, exp = mantissa + "0" * zeros, exponent - zeros
        if -exp <= _MAX_DECIMALS and exp < 0:
            whole, frac = body[:exp] or "0", body[exp:].rjust(-exp, "0")
            fixed.append(f"{prefix}{whole}.{frac}")
        scientific.append(f"{prefix}{body}e{exp}")
    return fixed + scientific


def float_text(value: float) -> bytes | None:
    """``None`` when ujson reads the shortest form of ``value`` exactly, else a spelling it does
    read exactly (as bytes). Raises :class:`LoaderUnsafe` when there is none."""
    found = _texts.get(value, _texts)
    if found is not _texts:
        if isinstance(found, LoaderUnsafe):
            raise found
        return found
    shortest = orjson.dumps(value).decode()
    result: Any = None
    if math.isfinite(value) and ujson_float(shortest) != value:
        result = next((s.encode() for s in _spellings(shortest)
                       if ujson_float(s) == value and float(s) == value), None)
        if result is None:
            result = LoaderUnsafe(f"the float {shortest} cannot be written so that datasets.load_dataset reads it back exactly")
    if len(_texts) >= _CACHE_LIMIT:
        _texts.clear()
    _texts[value] = result
    if isinstance(result, LoaderUnsafe):
        raise result
    return result


def _exact_spelling(value: float) -> Any:
    text = float_text(value)
    return value if text is None else orjson.Fragment(text)


def dumps(value: Any) -> bytes:
    """Compact JSON bytes of ``value`` that ``json.loads``, orjson, pyarrow and ``datasets.Json``
    (pandas' ujson) all decode to ``value``. Raises :class:`LoaderUnsafe` for a value they cannot
    share (an integer beyond 64 bits, a lone surrogate, a float with no exact spelling)."""
    try:
        text = orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError) as exc:
        raise LoaderUnsafe(f"a value cannot be written as JSON that loads back the same: {exc}") from None
    if type(value) is not float and not _has_float_token(text):
        return text  # no float inside: nothing ujson could misread
    found = _recent.get(text)
    if found is not None:
        return found  # the same JSON as a value just written (one task's ground truth in its SFT and RL rows)
    if type(value) is not float and _reads_exactly(value):
        result = text  # every float reads back exactly in its shortest form: nothing to respell
    else:
        # floats ujson would misread become orjson.Fragments holding an exact spelling
        fixed = map_floats(value, _exact_spelling)
        result = text if fixed is value else orjson.dumps(fixed)
    if len(_recent) >= _RECENT_LIMIT:
        _recent.clear()
    _recent[text] = result
    return result


# the loader-safe JSON of recently written texts (it depends on the text alone: equal texts hold equal floats)
_recent: dict[bytes, bytes] = {}
_RECENT_LIMIT = 16


# the float tokens of orjson's compact JSON (a lower-case e), inside a list or an object: a fraction (``12.5``, ``1.25e+30``) or a
# signed exponent (``1e-7``, ``1e+20``), then a delimiter; digits in strings are followed by other characters
_FRACTION = re.compile(rb"\.\d+[e,\]}]")
_EXPONENT = re.compile(rb"e[-+]\d+[,\]}]")


def _has_float_token(text: bytes) -> bool:
    """Whether orjson's ``text`` of a list or an object may hold a float (false positives: digits in strings)."""
    return _FRACTION.search(text) is not None or (
        (b"e-" in text or b"e+" in text) and _EXPONENT.search(text) is not None)


def _reads_exactly(value: dict | list) -> bool:
    """Whether ujson reads every float of ``value`` (those :func:`map_floats` reaches: through dicts and
    lists) back exactly in its shortest form, as orjson writes it. Walking the value costs less than
    scanning its JSON text for float tokens (strings hold many digits and dots, and no floats); raises
    :class:`LoaderUnsafe` as :func:`float_text` does. The walk goes depth first, in order, without recursion."""
    if not isinstance(value, (dict, list)):
        return True
    stack = [iter(value.values() if isinstance(value, dict) else value)]
    while stack:
        for item in stack[-1]:
            kind = type(item)
            if kind is str or kind is int:
                continue
            if kind is float:
                if _texts.get(item, _texts) is not None and float_text(item) is not None:
                    return False
            elif isinstance(item, dict):
                stack.append(iter(item.values()))
                break
            elif isinstance(item, list):
                stack.append(iter(item))
                break
        else:
            stack.pop()
    return True


# a number with a fraction or an exponent where a JSON value starts and ends (it may still sit inside a
# string: confirmed by tokenising, which only misread-looking candidates pay for)
_FLOAT_VALUE = re.compile(rb"[:,\[](-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?=[,\]}])")
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')


def unsafe_numbers(text: bytes | str) -> list[str]:
    """Numbers in compact JSON ``text`` (outside strings) that ``datasets.load_dataset`` would read
    back as another value: stored data that cannot be trusted to load as written.

    The answers for long texts are remembered (a few, by text): rows share long cells (an initial state
    by the tasks of one world, a tool list by a builder's rows), and a dataset is checked row by row."""
    global _recent_size
    if not _SHARED_CELL <= len(text) <= _RECENT_BYTES // 8:
        return _unsafe_numbers(text)
    found = _recent_cells.get(text)
    if found is None:
        found = _unsafe_numbers(text)
        while _recent_cells and (len(_recent_cells) >= _RECENT_CELLS or _recent_size + len(text) > _RECENT_BYTES):
            _recent_size -= _forget_oldest()
        _recent_cells[text] = found
        _recent_size += len(text)
    return list(found)


def _forget_oldest() -> int:
    """Drop the oldest remembered text; its length."""
    oldest = next(iter(_recent_cells))
    del _recent_cells[oldest]
    return len(oldest)


# answers of unsafe_numbers for recently checked long texts, oldest forgotten first: at most 256 texts and
# 32 MB of them are kept alive (a text over 4 MB is checked again each time)
_recent_cells: dict[bytes | str, list[str]] = {}
_recent_size = 0
_RECENT_CELLS = 256
_RECENT_BYTES = 32 << 20
_SHARED_CELL = 2048  # shorter texts are rarely shared and cheap to check again


def _unsafe_numbers(text: bytes | str) -> list[str]:
    raw = text.encode() if isinstance(text, str) else text
    if not _MAYBE_FLOAT.search(raw) or not _misread_candidates(raw):
        return []
    suspects = [m.start(1) for m in _FLOAT_VALUE.finditer(raw) if _misread(m.group(1))]
    numbers = {m.start(): m.group(0).decode() for m in _TOKEN.finditer(raw) if m.group(0)[:1] != b'"'}
    return [numbers[start] for start in suspects if start in numbers]


_read_exactly: set[bytes] = set()  # float tokens already known to read back exactly


def _misread(token: bytes) -> bool:
    """Whether ujson reads the number ``token`` as another value than correct parsers do."""
    if token in _read_exactly:
        return False
    spelled = token.decode()
    if ("." in spelled or "e" in spelled or "E" in spelled) and ujson_float(spelled) != float(spelled):
        return True
    if len(_read_exactly) >= _CACHE_LIMIT:
        _read_exactly.clear()
    _read_exactly.add(token)
    return False


def _misread_candidates(raw: bytes) -> bool:
    """Whether some float-looking token of compact JSON ``raw`` is one ujson would misread (tokens in
    strings may count too: callers then decide exactly, by walking the value or tokenising the text)."""
    return any(_misread(token) for token in set(_FLOAT_VALUE.findall(raw)) - _read_exactly)
