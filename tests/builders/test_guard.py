"""The no-real-I/O guard of the builder contract catches what it must (so its silence means something)."""

from __future__ import annotations

from tests.builders.contract import run_guarded


def _run_as_builder_code(source: str) -> list[str]:
    code = compile(source, "/somewhere/builders/fake_domain/env.py", "exec")
    return run_guarded(lambda: exec(code, {}))[1]


def test_guard_catches_clocks_randomness_files_and_sockets() -> None:
    assert "call to time.time" in _run_as_builder_code("import time\ntime.time()\n")
    assert any("random" in v for v in _run_as_builder_code("import random\nrandom.random()\n"))
    assert any(v.startswith("audit event open") for v in _run_as_builder_code("open('/etc/hostname').read()\n"))
    assert any("socket" in v for v in _run_as_builder_code("import socket\nsocket.socket().close()\n"))
    assert any("datetime" in v for v in _run_as_builder_code("import datetime\ndatetime.datetime.now()\n"))


def test_guard_allows_a_seeded_generator_and_pure_code() -> None:
    assert _run_as_builder_code("import random\nr = random.Random(3)\nr.random()\nsorted([3, 1])\n") == []
