"""Shared fixtures: a warm pool under the full sandbox (skipped, with the reason, where bubblewrap cannot run)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from covert.sandbox import Limits, SandboxPool, bwrap_unavailable_reason

TEST_LIMITS = Limits(cpu_s=1, memory_mb=256, wall_s=3, file_mb=4)


@pytest.fixture(scope="session")
def bwrap_ok() -> None:
    """Skip unless bubblewrap can start a sandboxed Python on this machine."""
    why = bwrap_unavailable_reason()
    if why:
        pytest.skip(f"the full sandbox cannot run here: {why}")


@pytest.fixture()
def pool(bwrap_ok: None) -> Iterator[SandboxPool]:
    """A two-worker pool with the prefilter on."""
    with SandboxPool(limits=TEST_LIMITS, size=2) as p:
        yield p


@pytest.fixture()
def raw_pool(bwrap_ok: None) -> Iterator[SandboxPool]:
    """A one-worker pool with the AST prefilter OFF: only the OS-level barriers stand."""
    with SandboxPool(limits=TEST_LIMITS, size=1, use_prefilter=False) as p:
        yield p


@pytest.fixture()
def any_pool() -> Iterator[SandboxPool]:
    """A one-worker pool, prefilter OFF, under bubblewrap where it runs and on the fallback elsewhere: for
    the pool's mechanics (only well-behaved or self-harming code runs in it)."""
    with SandboxPool(limits=TEST_LIMITS, size=1, use_prefilter=False) as p:
        yield p
