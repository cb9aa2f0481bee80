"""Builder discovery: names, lookup errors, and --builders specs."""

from __future__ import annotations

import pytest

from covert.env import Builder, UnknownBuilderError, builder_names, get_builder, resolve_builders


def test_builder_names_include_retail() -> None:
    names = builder_names()
    assert "retail" in names
    assert names == sorted(names)
    assert len(names) == len(set(names))


def test_get_builder() -> None:
    builder = get_builder("retail")
    assert isinstance(builder, Builder)
    assert builder.name == "retail"
    assert get_builder("retail") is builder
    summary = builder.summary()
    assert summary["name"] == "retail" and summary["tools"] == summary["read_tools"] + summary["write_tools"] > 0


def test_unknown_builder_names_the_known_ones() -> None:
    with pytest.raises(UnknownBuilderError) as info:
        get_builder("nope")
    message = str(info.value)
    assert "'nope'" in message
    for name in builder_names():
        assert name in message
    assert isinstance(info.value, KeyError), "a KeyError, but printed without KeyError's quotes"
    assert not message.startswith('"')


def test_resolve_all() -> None:
    builders = resolve_builders("all")
    assert [b.name for b in builders] == builder_names()
    assert resolve_builders(" all ")[0].name == builder_names()[0]


def test_resolve_names() -> None:
    assert [b.name for b in resolve_builders("retail")] == ["retail"]
    assert [b.name for b in resolve_builders(" retail , ")] == ["retail"]
    assert [b.name for b in resolve_builders(["retail"])] == ["retail"]
    with pytest.raises(UnknownBuilderError, match="retail"):
        resolve_builders("retail,nope")


@pytest.mark.parametrize("spec", ["", " ", ",", " , ", []])
def test_empty_spec_raises(spec: str | list[str]) -> None:
    with pytest.raises(UnknownBuilderError, match="no builder named"):
        resolve_builders(spec)
