"""The README's list of the columns of sft and rl rows names every column covert writes there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from covert.io.features import features_for

README = Path(__file__).resolve().parents[2] / "README.md"


def _what_you_get() -> str:
    text = README.read_text()
    section = text[text.index("## What you get"):text.index("## Commands")]
    return re.sub(r"```.*?```", "", section, flags=re.S)  # the prose and its code spans, not the folder tree


def _columns(config: str) -> list[str]:
    out = []
    for name, feature in features_for(config).items():
        out.append(name)
        if "_type" not in feature:  # a struct column: its fields are listed too
            out += list(feature)
    return out


@pytest.mark.parametrize("config", ["sft", "rl", "rl-multiturn", "rl-g1"])
def test_every_column_is_in_the_readme(config: str) -> None:
    shown = set(re.findall(r"[a-z_]+", " ".join(re.findall(r"`([^`]+)`", _what_you_get()))))
    missing = [name for name in _columns(config) if name not in shown]
    assert not missing, f"README 'What you get' does not name the {config} columns {missing}"
