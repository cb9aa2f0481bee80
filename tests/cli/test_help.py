"""Every subcommand has a description and every option a line of help that shows its default; ``covert
--version`` says which covert this is."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

import covert
from covert.cli import DefaultsHelpFormatter, main, parser


def _commands(p: argparse.ArgumentParser, name: str = "covert") -> list[tuple[str, argparse.ArgumentParser]]:
    """Every (sub)parser of the CLI, with the command line that reaches it."""
    found = [(name, p)]
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                found += _commands(sub, f"{name} {sub_name}")
    return found


COMMANDS = _commands(parser())


def test_the_walk_reaches_every_command() -> None:
    names = {name for name, _ in COMMANDS}
    assert {"covert build", "covert validate", "covert show", "covert calibrate", "covert export",
            "covert live-mcp git", "covert envs verify", "covert import openapi"} <= names
    assert len(names) > 30


@pytest.mark.parametrize(("name", "command"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_every_command_and_option_is_explained(name: str, command: argparse.ArgumentParser) -> None:
    assert command.description and command.description.strip(), f"{name} has no description"
    for action in command._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)):
            continue
        label = "/".join(action.option_strings) or action.dest
        assert action.help and action.help.strip() and action.help != argparse.SUPPRESS, f"{name} {label}: no help"
    formatter = DefaultsHelpFormatter(name)
    for action in command._actions:
        if not action.option_strings or isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            continue
        if action.default is not None and action.default is not False and action.default != argparse.SUPPRESS:
            # the default is shown in the option's help line: in its own words, or as "(default: X)"
            line = formatter._get_help_string(action) % {"default": action.default}
            assert "default" in line, f"{name} {action.option_strings[0]}: default {action.default!r} not shown"
    text = command.format_help()
    # a description is printed as written (argparse %-formats only help lines): no doubled '%%' shows
    assert "%%" not in text, f"{name}: a literal %% in its help"


def test_every_store_option_names_where_the_store_is_by_default() -> None:
    """``--store`` falls back to $COVERT_ENVS, then ~/.cache/covert/envs, for every command that takes it."""
    stores = [(name, a) for name, command in COMMANDS for a in command._actions if "--store" in a.option_strings]
    assert len(stores) >= 6, stores
    for name, action in stores:
        assert "$COVERT_ENVS" in action.help and "~/.cache/covert/envs" in action.help, (name, action.help)


def test_help_of_build_shows_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["build", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "Synthesize, validate and write" in out
    options = " ".join(out.split("options:", 1)[1].split())
    for option, default in (("--num-tasks", "1000"), ("--seed", "0"), ("--workers", "1"), ("--builders", "all")):
        line = options.split(f"{option} {option.strip('-').replace('-', '_').upper()}", 1)[1].split(" --", 1)[0]
        assert f"(default: {default})" in line, (option, line)


def test_version() -> None:
    result = subprocess.run([sys.executable, "-m", "covert.cli", "--version"], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0
    assert result.stdout.strip() == f"covert {covert.__version__}"
