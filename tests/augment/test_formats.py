"""Every output format parses back to exactly the value written (types included); bad text is a
FormatError, never a crash; the YAML is YAML any reader understands."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from covert.augment import formats

KEYS = st.one_of(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True), st.text(max_size=6))
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
                      max_leaves=20)
OUTPUTS = st.one_of(st.dictionaries(KEYS, VALUES, max_size=5), st.lists(st.dictionaries(KEYS, VALUES, max_size=4), max_size=4),
                    VALUES)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


@SETTINGS
@given(OUTPUTS)
def test_every_format_round_trips(value: object) -> None:
    for fmt in formats.FORMATS:
        if formats.can_dump(value, fmt):
            text = formats.dump(value, fmt)
            assert formats.same(formats.load(text, fmt), value), (fmt, text)
            assert formats.roundtrips(value, fmt)


@SETTINGS
@given(st.text(max_size=80), st.sampled_from(formats.FORMATS))
def test_garbage_is_a_format_error_or_a_value(text: str, fmt: str) -> None:
    with contextlib.suppress(formats.FormatError):
        formats.load(text, fmt)


@SETTINGS
@given(VALUES.filter(lambda v: formats.can_dump(v, "yaml")))
def test_yaml_is_read_the_same_by_pyyaml(value: object) -> None:
    yaml = pytest.importorskip("yaml")
    text = formats.dump(value, "yaml")
    assert formats.same(yaml.safe_load(text), value), text


def test_same_is_strict_about_types() -> None:
    assert formats.same({"a": [1, "x"]}, {"a": [1, "x"]})
    assert not formats.same(1, 1.0) and not formats.same(1, True) and not formats.same({"a": 1}, {"b": 1})


def test_tables_need_records_and_kv_needs_identifier_keys() -> None:
    assert not formats.can_dump(["a", "b"], "markdown") and not formats.can_dump(["a", "b"], "csv")
    assert formats.can_dump([{"a": 1}, {"b": "|x|"}], "markdown")
    assert not formats.can_dump({"a b": 1}, "kv") and formats.can_dump({"a": {"b": [1, {}]}}, "kv")
    assert not formats.can_dump({"a": "bell\x07"}, "xml") and not formats.can_dump({"a": float("nan")}, "json")
    with pytest.raises(formats.FormatError):
        formats.dump(["a"], "csv")
    with pytest.raises(formats.FormatError):
        formats.load("x", "toml")


def test_a_table_keeps_scalars_apart_from_strings() -> None:
    value = {"id": "007", "n": 7, "flag": "true", "empty": "", "none": None, "rows": [{"a": "1", "b": 1}, {"a": None}]}
    for fmt in ("markdown", "csv", "kv", "yaml", "xml"):
        assert formats.same(formats.load(formats.dump(value, fmt), fmt), value), fmt
