"""JSON that every loader reads back as written: the ujson model against pandas' own decoder, the
writer's spellings, and the values covert refuses to write."""

from __future__ import annotations

import json
import random

import orjson
import pytest

from covert.env.jsonsafe import canonical_float, canonical_json
from covert.io.loader_safe import LoaderUnsafe, dumps, float_text, ujson_float, unsafe_numbers

ujson_loads = pytest.importorskip("datasets.utils.json").ujson_loads


def _floats(n: int, seed: int) -> list[float]:
    """Floats of the shapes covert's data holds (prices, rates, readings) and wide-range ones."""
    rng = random.Random(seed)
    makers = [
        lambda: round(rng.uniform(0, 1000), rng.randint(0, 6)),
        lambda: round(rng.uniform(-100, 100), 2),
        lambda: rng.randint(0, 10**6) / 100,
        lambda: 0.1 * rng.randint(0, 100),
        lambda: rng.uniform(-1e6, 1e6),
        lambda: rng.random() * 10.0 ** rng.randint(-25, 25),
    ]
    return [makers[i % len(makers)]() for i in range(n)]


def _ujson_or_none(text: str) -> float | None:
    try:
        return ujson_loads(text)
    except ValueError:
        return None


def test_model_reads_numbers_as_pandas_ujson_does() -> None:
    spellings = 0
    for value in _floats(60_000, seed=3):
        text = orjson.dumps(value).decode()
        candidates = [text, f"{value:.6f}", f"{value:.15f}", f"{value!r}0", f"{value:e}"]
        for candidate in candidates:
            expected = _ujson_or_none(candidate)
            modelled = ujson_float(candidate)
            if expected is None:
                assert modelled != modelled, candidate  # refused by ujson: NaN in the model
            else:
                assert modelled == expected, candidate
            spellings += 1
    assert spellings == 300_000


def test_written_floats_load_back_exactly_with_every_decoder() -> None:
    refused = 0
    misread_before = 0
    for value in _floats(60_000, seed=4):
        document = {"v": [value, {"x": value}], "s": "0.3"}
        if _ujson_or_none(orjson.dumps(value).decode()) != value:
            misread_before += 1
        try:
            text = dumps(document)
        except LoaderUnsafe:
            refused += 1
            continue
        for decoded in (ujson_loads(text), orjson.loads(text), json.loads(text)):
            assert decoded == document and decoded["v"][0] == value, (value, text)
        assert unsafe_numbers(text) == []
    assert misread_before > 1000  # the sample really exercises the bug
    assert refused < 300  # only wide-range floats with no exact spelling; prices never


def test_common_values_get_an_exact_spelling() -> None:
    assert _ujson_or_none("0.3") != 0.3  # the upstream behaviour this module exists for
    for value in (0.3, 0.7, 3.57, 2.3, 1.7, 89.99, -3.72, 1e-7, 100.0, -0.0):
        text = float_text(value)
        spelled = orjson.dumps(value).decode() if text is None else text.decode()
        assert ujson_loads(spelled) == value and float(spelled) == value
    assert dumps({"price": 0.3}) == b'{"price":0.30}'
    assert dumps({"price": 12.5, "note": "0.3"}) == b'{"price":12.5,"note":"0.3"}'


def test_strings_holding_numbers_are_never_rewritten() -> None:
    document = {"a": "0.3", "b": "x:0.3,", "c": ["0.7"], "d": 0.7}
    assert orjson.loads(dumps(document)) == document
    assert unsafe_numbers(orjson.dumps(document)) == ["0.7"]


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1, "\ud800", {"k": float("nan"), "z": object()}])
def test_values_no_loader_can_share_are_refused(value: object) -> None:
    with pytest.raises(LoaderUnsafe):
        dumps({"v": value})


def test_canonical_floats_undo_decoder_noise_and_keep_real_changes() -> None:
    assert canonical_float(0.30000000000000004) == 0.3
    assert canonical_float(0.7000000000000001) == 0.7
    assert canonical_float(3.5700000000000003) == 3.57
    assert canonical_float(89.99) == 89.99 and canonical_float(89.98) != canonical_float(89.99)
    for value in _floats(20_000, seed=5):
        assert canonical_float(canonical_float(value)) == canonical_float(value)
        noisy = _ujson_or_none(orjson.dumps(value).decode())
        shortest = repr(value)
        digits = shortest.lstrip("-").replace(".", "").lstrip("0")
        fraction = shortest.partition(".")[2]
        # ujson drops fraction digits past 15: only last-bit noise is undone, never lost digits
        if noisy is not None and "e" not in shortest and len(digits) <= 15 and len(fraction) <= 15:
            assert canonical_float(noisy) == value, value
    data = {"a": [1, 0.1, {"b": 0.30000000000000004}], "s": "0.30000000000000004"}
    assert canonical_json(data) == {"a": [1, 0.1, {"b": 0.3}], "s": "0.30000000000000004"}
    clean = {"a": [1, 0.1, {"b": 0.3}]}
    assert canonical_json(clean) is clean


def test_floats_deep_in_lists_and_records_are_respelled_the_same_every_time() -> None:
    """Floats are found by walking the value (not by scanning its text): deep in lists and records they
    are respelled, digits in strings never are, and the same JSON written again (a task's ground truth
    in its SFT and its RL row) gives the same bytes."""
    document = {"a": [1, {"b": 0.3, "c": [0.7, "0.3 and 0.7", 2.5]}], "d": 12.5, "e": [[0.1, [0.3]]]}
    first = dumps(document)
    assert first == dumps(dict(document)) == dumps(orjson.loads(orjson.dumps(document)))
    assert b'"0.3 and 0.7"' in first and b'"b":0.3,' not in first and b"[0.3]" not in first
    assert ujson_loads(first.decode()) == document
    assert dumps({"a": [{"b": [1.5, 2.25]}]}) == orjson.dumps({"a": [{"b": [1.5, 2.25]}]})
    with pytest.raises(LoaderUnsafe):
        dumps({"deep": [[{"x": 2 ** 70}]]})


def test_every_float_orjson_writes_is_seen_as_one() -> None:
    """A text with no float token is written as it is, unwalked: every float of every shape (fractions,
    exponents either way, whole, negative) must show up as one, inside a list and an object."""
    from covert.io.loader_safe import _has_float_token

    floats = [*_floats(3000, 7), 1e-7, 1e20, 1e16, 5e-324, 1.7976931348623157e308, -0.0, 3.0, -2.5e-9]
    for value in floats:
        assert _has_float_token(orjson.dumps([value])), value
        assert _has_float_token(orjson.dumps({"k": value, "s": "no 1.5 here"})), value
    assert not _has_float_token(orjson.dumps({"price": "$193.00.", "n": [1, 2], "note": "re-book 2e-3 later"}))


def test_long_shared_cells_are_checked_once_and_answer_the_same() -> None:
    from covert.io import loader_safe

    padding = "x" * loader_safe._SHARED_CELL
    risky = orjson.dumps({"note": padding, "price": 0.7, "text": "0.3"})
    safe = orjson.dumps({"note": padding, "price": 12.5})
    for text in (risky, risky.decode(), risky):  # bytes and str, seen again
        found = unsafe_numbers(text)
        assert found == ["0.7"]
        found.append("changed by a caller")  # the remembered answer is not the caller's list
    assert unsafe_numbers(risky) == ["0.7"] and unsafe_numbers(safe) == []
    for n in range(loader_safe._RECENT_CELLS + 10):  # bounded: the oldest are forgotten
        unsafe_numbers(orjson.dumps({"note": padding, "n": n}))
    assert len(loader_safe._recent_cells) <= loader_safe._RECENT_CELLS
    assert loader_safe._recent_size == sum(len(t) for t in loader_safe._recent_cells)
    assert unsafe_numbers(risky) == ["0.7"]  # forgotten, checked again: the same answer
