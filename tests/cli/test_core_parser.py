"""covert's own commands (``build``, ``validate`` ...) are parsed without registering the extension commands,
whose registration imports rewards, audit and augmentation; every other command line sees them all."""

from __future__ import annotations

import argparse

import pytest

from covert.cli import _EXTENSIONS, _parser_for, main, parser
from tests.fresh_python import run_json

BUILD = ["build", "--builders", "retail", "--num-tasks", "4", "--seed", "3", "--workers", "1", "--out", "x", "--quiet"]
EXTENSION_PACKAGES = ("covert.rewards", "covert.audit", "covert.augment", "covert.publish", "covert.evolve")


def _commands(p: argparse.ArgumentParser) -> set[str]:
    return set(next(a for a in p._actions if isinstance(a, argparse._SubParsersAction)).choices)


def test_a_core_command_parses_as_with_every_command_registered() -> None:
    for argv in (BUILD, ["validate", "somewhere", "--workers", "2"], ["list", "--json"], ["show", "d", "--index", "3"]):
        assert vars(_parser_for(argv).parse_args(argv)) == vars(parser().parse_args(argv)), argv


def test_only_a_leading_core_command_leaves_the_extensions_out() -> None:
    every = _commands(parser())
    core = _commands(parser(extensions=False))
    assert {"build", "validate", "show", "list"} <= core < every
    assert {"score", "audit", "augment"} <= every - core
    assert _commands(_parser_for(BUILD)) == core
    for argv in (["score", "--help"], ["--help", "build"], ["-h"], [], ["nonsense"]):
        assert _commands(_parser_for(argv)) == every, argv


def test_help_and_unknown_commands_still_name_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in ("build", "score", "audit", "augment"))
    with pytest.raises(SystemExit) as exit_:
        main(["nonsense"])
    assert exit_.value.code == 2
    assert "'score'" in capsys.readouterr().err


def test_an_extension_command_still_runs_through_main(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["score", "--help"])
    assert exit_.value.code == 0
    assert "usage: covert score" in capsys.readouterr().out


def test_a_core_command_imports_no_extension() -> None:
    """In a fresh interpreter, ``covert list`` runs without importing any extension command's package."""
    assert len(_EXTENSIONS) >= 10
    loaded = run_json(
        "import contextlib, io, json, sys\n"
        "from covert.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    status = main(['list'])\n"
        f"print(json.dumps([status, sorted(m for m in sys.modules if m.startswith({EXTENSION_PACKAGES!r}))]))"
    )
    assert loaded == [0, []]
