"""The OpenEnv server starts without OpenEnv's web interface, says what to set when it is slow to
start, and its clients retry a handshake the server is not ready for."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("openenv.core")

from covert.integrations.openenv import CovertEnv, serve  # noqa: E402
from covert.integrations.openenv.server import LAUNCH, START_TIMEOUT_ENV, free_port, start_timeout  # noqa: E402


def test_the_server_serve_starts_does_not_import_the_web_interface() -> None:
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", LAUNCH, "--help"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "--max-sessions" in out.stdout, out.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time")}
    assert "openenv.core.env_server.http_server" in imported and "fastapi" in imported
    # "gradio" itself shows as the attempt that stops at once; none of its modules load
    assert not {name for name in imported if name.startswith(("gradio.", "gradio_client"))}


def test_the_start_timeout_comes_from_the_call_or_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(START_TIMEOUT_ENV, raising=False)
    assert start_timeout() == 300.0 and start_timeout(12) == 12.0
    monkeypatch.setenv(START_TIMEOUT_ENV, "45")
    assert start_timeout() == 45.0 and start_timeout(7) == 7.0
    for bad in ("soon", "0", "-3"):
        monkeypatch.setenv(START_TIMEOUT_ENV, bad)
        with pytest.raises(ValueError, match=START_TIMEOUT_ENV):
            start_timeout()


def test_a_server_slower_than_the_timeout_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(START_TIMEOUT_ENV, "0.2")  # no server answers /health that soon
    with pytest.raises(TimeoutError, match=f"set {START_TIMEOUT_ENV}=SECONDS or pass serve\\(timeout=SECONDS\\)"), serve():
        pass
    with pytest.raises(TimeoutError, match=r"pass a larger serve\(timeout=SECONDS\)"), serve(timeout=0.2):
        pass


def test_a_client_retries_the_handshake_until_the_server_is_up() -> None:
    port = free_port()
    ready = threading.Event()
    done = threading.Event()

    def run_server() -> None:
        time.sleep(1.0)  # the client's first handshakes find nothing listening
        with serve(port=port):
            ready.set()
            done.wait(120)

    thread = threading.Thread(target=run_server, daemon=True)
    thread.start()
    try:
        client = CovertEnv(base_url=f"http://127.0.0.1:{port}", connect_timeout_s=5, connect_attempts=40).sync()
        with client as env:
            env.connect()
            assert ready.is_set()
            assert env.state().step_count == 0
    finally:
        done.set()
        thread.join(60)


def test_a_handshake_that_never_succeeds_says_what_to_change() -> None:
    client = CovertEnv(base_url=f"http://127.0.0.1:{free_port()}", connect_timeout_s=1, connect_attempts=2).sync()
    with pytest.raises(ConnectionError, match=r"after 2 attempts .*connect_timeout_s=\.\.\., connect_attempts=\.\.\."):
        client.connect()
