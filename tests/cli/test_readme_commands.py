"""The README's commands are what the CLI takes: every command of its table and every ``covert`` line of
its bash blocks is parsed by the real parser, so the README and the CLI cannot drift apart.

A table cell is a command line with placeholders: ``[...]`` is optional (tried with and without the
optional parts), ``a|b`` are alternatives (each is tried), and an upper-case word is a value (``N`` a
number, ``DIR`` a folder, ...).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import re
import shlex
from pathlib import Path

import pytest

from covert.cli import parser

README = Path(__file__).resolve().parents[2] / "README.md"
TEXT = README.read_text()
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z0-9_]*\b")
VALUES = {"N": "2", "S": "0", "W": "2", "K": "2", "I": "0", "G": "2", "R": "main", "ERR": "0.2", "JSON": "{}",
          "SPEC": "vllm:model"}


def table_commands() -> list[str]:
    """The ``covert ...`` code spans of the first cells of the README's command table."""
    start = TEXT.index("| command | what it does |")
    rows = TEXT[start:].split("\n\n", 1)[0].splitlines()[2:]
    out = []
    for row in rows:
        first = re.split(r"(?<!\\)\|", row)[1]
        out += [span for span in re.findall(r"`([^`]+)`", first) if span.startswith("covert")]
    return out


def bash_commands() -> list[str]:
    """Every ``covert ...`` command line of the README's bash blocks (continuations joined, comments dropped)."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", TEXT, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            for part in " ".join(shlex.quote(w) for w in words).split(" '&&' ") if words else []:
                if part.startswith("covert "):
                    out.append(part)
    return out


def variants(command: str) -> list[list[str]]:
    """The concrete argument lists a table cell stands for."""
    tokens = command.replace("\\|", "|").split()[1:]
    optional = []
    depth = 0
    for token in tokens:
        opens = token.startswith("[")
        depth += opens
        optional.append(depth > 0)
        depth -= token.endswith("]") and depth > 0
    lists = []
    for keep_optional in (True, False):
        chosen = [t.strip("[]") for t, opt in zip(tokens, optional) if keep_optional or not opt]
        choices = [t.split("|") if "|" in t else [t] for t in chosen]
        width = max(len(c) for c in choices) if choices else 1
        for i in range(width):  # every alternative once, the others at their first
            lists.append([_value(c[i] if i < len(c) else c[0]) for c in choices])
    unique = []
    for args in lists:
        if args not in unique:
            unique.append(args)
    return unique


def _value(token: str) -> str:
    return PLACEHOLDER.sub(lambda m: VALUES.get(m.group(0), m.group(0).lower()), token)


def _parses(args: list[str]) -> str:
    """Empty when the CLI's parser takes ``args``, else what it said."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            _, extra = parser().parse_known_args(args)
    except SystemExit as exc:
        return f"exit {exc.code}: {err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else ''}"
    return f"unrecognized arguments: {extra}" if extra else ""


def test_the_readme_has_a_command_table_and_bash_commands() -> None:
    commands = table_commands()
    assert len(commands) >= 25
    names = {c.split()[1] for c in commands}
    top = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(top.choices) <= names | {"--version"}, "a command the table does not show"
    assert len(bash_commands()) >= 8


@pytest.mark.parametrize("command", table_commands())
def test_every_table_command_parses(command: str) -> None:
    for args in variants(command):
        if args == ["--version"]:
            continue
        problem = _parses(args)
        assert not problem, f"`{command}` as {shlex.join(['covert', *args])}: {problem}"


@pytest.mark.parametrize("command", bash_commands())
def test_every_bash_command_parses(command: str) -> None:
    args = shlex.split(command)[1:]
    problem = _parses(args)
    assert not problem, f"`{command}`: {problem}"


def test_the_parser_check_catches_drift() -> None:
    """What the README said before: the test would have failed on it."""
    assert _parses(["mapf-report", "data/x", "--predictions", "p.jsonl"]) == ""  # now a positional too
    assert _parses(["augment", "src", "--out", "o", "--kinds", "noisy", "erroneous"]) == ""
    assert _parses(["show", "d", "--index", "I"]).startswith("exit 2")
    assert _parses(["build", "--out", "o", "--nope"]).startswith("unrecognized")
    assert variants("covert x [--a A] --b b|c") == [["x", "--a", "a", "--b", "b"], ["x", "--a", "a", "--b", "c"],
                                                   ["x", "--b", "b"], ["x", "--b", "c"]]
    assert list(itertools.chain.from_iterable(variants("covert show DIR --index I"))) == ["show", "dir", "--index", "0"]
