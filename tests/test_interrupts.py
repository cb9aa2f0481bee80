"""A signal whose KeyboardInterrupt was swallowed still stops the next unit of work."""

from __future__ import annotations

import contextlib
import os
import signal

import pytest

from covert import interrupts


@pytest.fixture
def interactive_sigint():
    """SIGINT as in a terminal, even where the suite runs as a background job (which ignores it)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_swallowed_interrupt_is_raised_again_at_the_next_check(interactive_sigint) -> None:
    with interrupts.handled():
        interrupts.check()  # nothing received yet
        with contextlib.suppress(KeyboardInterrupt):  # as a finalizer would swallow it
            os.kill(os.getpid(), signal.SIGINT)
        with pytest.raises(KeyboardInterrupt):
            interrupts.check()
        assert interrupts.exit_status() == 130


def test_handlers_are_restored_and_ignored_signals_stay_ignored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupts.handled():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not before
        assert signal.getsignal(signal.SIGTERM) is before
    finally:
        signal.signal(signal.SIGINT, old_int)


def test_sigterm_status(interactive_sigint) -> None:
    with interrupts.handled():
        with contextlib.suppress(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
        assert interrupts.exit_status() == 143


def test_a_signal_handled_in_one_block_does_not_stop_later_work(interactive_sigint) -> None:
    with interrupts.handled(), contextlib.suppress(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGTERM)
    interrupts.check()  # a later build in this process (a notebook, a test) runs on
