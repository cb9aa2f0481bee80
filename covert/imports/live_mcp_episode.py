"""One live MCP server per episode: its sandbox, its start (or a warm one from the pool), its bounds
and its clean-up.

Per episode (:class:`LiveEpisode`): the recipe is checked, the server is started on an empty repository
under bubblewrap where it runs (every namespace unshared, so no network; the system read-only; only
the repository, bound at ``/repo``, and a private ``/tmp`` writable), otherwise as a plain subprocess
with a loud warning (:data:`FALLBACK_WARNING`, and :func:`sandbox_warning`), and the recipe is then
written into the repository (so a server started ahead, from the :class:`WarmPool`, serves the same
way). Servers are started from threads that live as long as the process (bubblewrap's
``--die-with-parent`` ends a server with the thread that started it), so an episode may be used from
any thread. The episode is bounded by :class:`~covert.imports.live_mcp_client.LiveLimits` (wall clock
per call and per episode, calls, message sizes, memory, CPU); the server's process group and the
temporary directory are removed when the episode closes, when its environment is garbage, or at exit
(within :func:`recycling`, a server that served cleanly is handed on to the next episode instead).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from covert.imports import live_mcp_git as git_server
from covert.imports.live_mcp_client import LiveLimits, LiveServerError, StdioClient

SERVERS = {"git": git_server}
FALLBACK_WARNING = ("SANDBOX DEGRADED: bubblewrap is unavailable ({why}); the live MCP server runs as a plain "
                    "subprocess with rlimits only, with the host's network and file system")
DEFAULT_LIMITS = LiveLimits()

_OPEN: weakref.WeakSet[LiveEpisode] = weakref.WeakSet()
_LOCK = threading.Lock()


def sandbox_mode() -> tuple[bool, str]:
    """(use bubblewrap, warning): bubblewrap unless it cannot run here or ``COVERT_LIVE_SANDBOX=0``."""
    if os.environ.get("COVERT_LIVE_SANDBOX", "1") == "0":
        return False, FALLBACK_WARNING.format(why="disabled by COVERT_LIVE_SANDBOX=0")
    from covert.sandbox import bwrap_unavailable_reason

    why = bwrap_unavailable_reason()
    if why and "--size" not in why:
        # the sandbox's own warning wraps the reason in the same words: keep the reason alone
        inner = why.partition("bubblewrap is unavailable (")[2].rpartition("); ")[0] or why
        return False, FALLBACK_WARNING.format(why=inner[:160])
    return True, ""


def sandbox_warning() -> str:
    """The warning a run summary must show (empty under the full sandbox)."""
    return sandbox_mode()[1]


def _bwrap_argv(repo: Path, env: dict[str, str], inner: list[str]) -> list[str]:
    from covert.sandbox.launch import _root_binds

    bwrap = shutil.which("bwrap") or "/usr/bin/bwrap"
    args = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    # the private /tmp first: binds made after it stay visible (a venv or a repository under /tmp, as in CI)
    args += ["--tmpfs", "/tmp", *_root_binds()]
    for path in git_server.extra_binds():
        args += ["--ro-bind", path, path]
    args += ["--proc", "/proc", "--dev", "/dev", "--bind", str(repo), git_server.REPO_INSIDE,
             "--chdir", git_server.REPO_INSIDE, "--remount-ro", "/", *inner]
    return args


_WARNED: set[str] = set()


def warned(message: str) -> bool:
    """Whether :func:`_warn_once` already said ``message`` in this process."""
    return message in _WARNED


def _warn_once(message: str) -> None:
    """Say once per process, on stderr, that live servers run without the sandbox."""
    if message not in _WARNED:
        _WARNED.add(message)
        print(f"covert: warning: {message}", file=sys.stderr)


@dataclass
class _Slot:
    """A started server on an empty repository, not yet given a recipe; ``episodes``: how many
    episodes it has served (a recycled server, see :func:`recycling`)."""

    root: Path
    client: StdioClient
    repo_path: str
    isolated: bool
    episodes: int = 0

    def reset(self, server: Any) -> bool:
        """Make the server's repository empty again (as a fresh start leaves it): everything under the
        repository and the home directory is removed (the directories themselves stay, bound into the
        sandbox) and an empty repository written; whether that worked."""
        try:
            for folder in (self.root / "repo", self.root / "home"):
                for child in folder.iterdir():
                    if child.is_dir() and not child.is_symlink():
                        shutil.rmtree(child)
                    else:
                        child.unlink()
            server.init_repo(self.root / "repo", self.root / "home")
        except (OSError, ValueError):
            return False
        self.client.new_episode()
        return True

    def close(self) -> None:
        self.client.close()
        shutil.rmtree(self.root, ignore_errors=True)


def _launch(server_name: str, use_bwrap: bool, limits: LiveLimits) -> _Slot:
    """Start ``server_name`` on a fresh empty repository in a private temporary directory."""
    server = SERVERS[server_name]
    root = Path(tempfile.mkdtemp(prefix="covert-live-"))
    try:
        repo, home = root / "repo", root / "home"
        repo.mkdir()
        home.mkdir()
        try:
            server.init_repo(repo, home)
        except ValueError as exc:
            raise LiveServerError("seed_failed", str(exc)) from None
        env = {**server.base_env("/tmp" if use_bwrap else str(home)), **server.agent_env()}
        if use_bwrap:
            argv = _bwrap_argv(repo, env, server.server_argv(server.REPO_INSIDE))
            return _Slot(root, StdioClient(argv, {"PATH": "/usr/bin:/bin"}, None, limits), server.REPO_INSIDE, True)
        return _Slot(root, StdioClient(server.server_argv(str(repo)), env, str(repo), limits), str(repo), False)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


_LAUNCHER: ThreadPoolExecutor | None = None


def _start(server_name: str, use_bwrap: bool, limits: LiveLimits) -> _Slot:
    """:func:`_launch` on one of the launcher threads, which live as long as the process: bubblewrap's
    ``--die-with-parent`` ends a server with the thread that started it, and the caller's thread may be
    short-lived (a trainer's worker, a request handler)."""
    global _LAUNCHER
    with _LOCK:
        if _LAUNCHER is None:
            _LAUNCHER = ThreadPoolExecutor(max_workers=16, thread_name_prefix="covert-live-launch")
        launcher = _LAUNCHER
    return launcher.submit(_launch, server_name, use_bwrap, limits).result()


class WarmPool:
    """Servers started ahead of need (``size`` per server and sandbox mode, default limits only), so an
    episode skips the server's start-up; one background thread refills the pool after each take (the
    same thread for the pool's life: bubblewrap's ``--die-with-parent`` ends a server with the thread
    that started it). Off (size 0) unless :func:`set_pool_size` or ``COVERT_LIVE_POOL=N`` asks for it.
    A pooled server is the same as a fresh one: it was started on an empty repository, and the recipe
    is written after."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._slots: dict[tuple[str, bool], list[_Slot]] = {}
        self._wanted: set[tuple[str, bool]] = set()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._launching = False
        self.recycle = 0  # idle recycled servers kept per key (see :func:`recycling`); 0: none

    def take(self, key: tuple[str, bool]) -> _Slot | None:
        """A warm (or recycled) server for ``(server, bubblewrap)``, or ``None``; asks for a refill."""
        if self.size <= 0 and self.recycle <= 0:
            return None
        with self._cond:
            slots = self._slots.setdefault(key, [])
            slot = slots.pop(0) if slots else None
            if self.size <= 0:
                return slot
            self._wanted.add(key)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True, name="covert-live-pool")
                self._thread.start()
            self._cond.notify_all()
        return slot

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._wanted or self.size <= 0:
                    self._cond.wait()
                key = next(iter(sorted(self._wanted)))
                if len(self._slots.get(key, [])) >= self.size:
                    self._wanted.discard(key)
                    self._cond.notify_all()
                    continue
                self._launching = True
            try:
                slot: _Slot | None = _launch(key[0], key[1], DEFAULT_LIMITS)
            except LiveServerError:
                slot = None
            with self._cond:
                if slot is None:
                    self._wanted.discard(key)
                elif self.size > 0:
                    self._slots.setdefault(key, []).append(slot)
                    slot = None
            if slot is not None:  # the pool was turned off (or the process is exiting) meanwhile
                slot.close()
            with self._cond:
                self._launching = False
                self._cond.notify_all()

    def give_back(self, key: tuple[str, bool], slot: _Slot) -> bool:
        """Keep a server whose episode ended cleanly (its repository already reset) for the next episode,
        when recycling is on and fewer than ``max(size, recycle)`` wait; whether it was kept."""
        with self._cond:
            slots = self._slots.setdefault(key, [])
            if self.recycle <= 0 or len(slots) >= max(self.size, self.recycle):
                return False
            slots.append(slot)
            return True

    def close_recycled(self) -> None:
        """Stop every waiting server that has served an episode (fresh warm ones stay)."""
        with self._cond:
            used = [slot for group in self._slots.values() for slot in group if slot.episodes]
            self._slots = {key: [slot for slot in group if not slot.episodes] for key, group in self._slots.items()}
        for slot in used:
            slot.close()

    def settle(self, timeout: float = 120.0) -> bool:
        """Wait until no server is being started for the pool; whether it settled in ``timeout``."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._launching and (self.size <= 0 or not self._wanted), timeout)

    def close(self) -> None:
        """Stop every warm server."""
        with self._cond:
            slots = [slot for group in self._slots.values() for slot in group]
            self._slots = {}
            self._wanted.clear()
            self._cond.notify_all()
        for slot in slots:
            slot.close()

    def warm(self) -> int:
        """How many servers wait in the pool."""
        with self._cond:
            return sum(len(group) for group in self._slots.values())


def _pool_size() -> int:
    try:
        return max(0, int(os.environ.get("COVERT_LIVE_POOL", "0")))
    except ValueError:
        return 0


POOL = WarmPool(_pool_size())


MAX_EPISODES = 64  # episodes one recycled server serves at most (its CPU rlimit counts them all)


@contextlib.contextmanager
def recycling(keep: int = 2) -> Iterator[None]:
    """Within this block an episode that ends cleanly hands its server back for the next episode instead
    of stopping it, for servers that keep nothing between calls but their repository
    (``KEEPS_NO_STATE``: mcp-server-git opens the repository afresh on every call). Its repository is
    emptied and written again from the next recipe, so the next episode sees what a fresh server
    would; an episode with any server error, or one with other limits, still ends its server. At most
    ``keep`` idle servers wait per server and sandbox mode, each serves at most :data:`MAX_EPISODES`
    episodes, and those still waiting are stopped when the block ends."""
    previous = POOL.recycle
    POOL.recycle = max(previous, keep)
    try:
        yield
    finally:
        POOL.recycle = previous
        if previous <= 0:
            POOL.close_recycled()


def set_pool_size(size: int) -> None:
    """Keep ``size`` warm servers per server and sandbox mode (0 turns the pool off and stops them)."""
    POOL.size = max(0, size)
    if POOL.size == 0:
        POOL.close()


class LiveEpisode:
    """One server process on one freshly written repository. Close it (or use it as a context manager).

    Args:
        recipe: The seed recipe (:func:`covert.imports.live_mcp_git.make_recipe`).
        limits: The episode's bounds (the episode clock starts when the recipe is written).
        sandbox: ``None``: bubblewrap where it runs; ``False``: a plain subprocess.
    """

    def __init__(self, recipe: dict[str, Any], limits: LiveLimits = DEFAULT_LIMITS, sandbox: bool | None = None) -> None:
        name = str(recipe.get("server"))
        server = SERVERS.get(name)
        if server is None:
            raise LiveServerError("server_failed", f"unknown live server {recipe.get('server')!r}; known: "
                                                   f"{', '.join(SERVERS)}")
        missing = server.available()
        if missing:
            raise LiveServerError("server_failed", missing)
        use_bwrap, self.warning = sandbox_mode()
        if not use_bwrap and sandbox is None:
            _warn_once(self.warning)
        if sandbox is False:
            use_bwrap, self.warning = False, FALLBACK_WARNING.format(why="disabled by the caller")
        self.client: StdioClient | None = None
        try:
            server.check_recipe(recipe)
        except ValueError as exc:
            raise LiveServerError("seed_failed", str(exc)) from None
        self._key, self._failed = (name, use_bwrap), False
        self._recyclable = limits == DEFAULT_LIMITS and getattr(server, "KEEPS_NO_STATE", False)
        slot = POOL.take(self._key) if limits == DEFAULT_LIMITS else None
        if slot is None:
            slot = _start(name, use_bwrap, limits)
        self._slot = slot
        self.root: Path | None
        self.root, self.client, self.repo_path, self.isolated = slot.root, slot.client, slot.repo_path, slot.isolated
        with _LOCK:
            _OPEN.add(self)
        self.server = server
        try:
            try:
                server.materialize(recipe, slot.root / "repo", slot.root / "home")
            except ValueError as exc:
                raise LiveServerError("seed_failed", str(exc)) from None
            self.client.started = time.monotonic()  # the episode's clock starts with its repository
        except BaseException:
            self._failed = True
            self.close()
            raise
        self._real = str(slot.root / "repo")

    @property
    def pid(self) -> int | None:
        """The pid of the process started (bubblewrap's, under the sandbox)."""
        return self.client.proc.pid if self.client is not None else None

    def list_tools(self) -> list[dict[str, Any]]:
        """The tools the server lists."""
        assert self.client is not None
        try:
            return self.client.list_tools()
        except LiveServerError:
            self._failed = True
            raise

    def call(self, name: str, arguments: dict[str, Any], counted: bool = True) -> tuple[str, bool]:
        """(text, is_error) of one tool call; the environment's own arguments are added, and its
        private paths read as ``/repo`` in what comes back."""
        if self.client is None:
            raise LiveServerError("server_died", "the episode is closed")
        try:
            text, is_error = self.client.call_tool(
                name, {**arguments, **{k: self.repo_path for k in self.server.INJECTED}}, counted)
        except LiveServerError:
            self._failed = True  # whatever went wrong, this server serves no other episode
            raise
        return text.replace(self._real, self.server.REPO_INSIDE), is_error

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """The server's state as tables (reads only, not counted as calls)."""
        def read(name: str, arguments: dict[str, Any]) -> str:
            text, is_error = self.call(name, arguments, counted=False)
            return "" if is_error else text

        return self.server.snapshot(read)

    def close(self) -> None:
        """Kill the server's process group and remove the temporary directory (idempotent); within
        :func:`recycling`, hand a server that served cleanly back instead."""
        client, self.client = self.client, None
        if client is not None and self._recycled(client):
            self.root = None  # the server's directory is the next episode's now: never removed from here
        elif client is not None:
            client.close()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
        with _LOCK:
            _OPEN.discard(self)

    def _recycled(self, client: StdioClient) -> bool:
        """Whether this episode's server went back to the pool for another episode."""
        slot = self._slot
        if (not self._recyclable or self._failed or POOL.recycle <= 0 or client.proc.poll() is not None
                or slot.episodes + 1 >= MAX_EPISODES or not slot.reset(self.server)):
            return False
        slot.episodes += 1
        return POOL.give_back(self._key, slot)

    def __enter__(self) -> LiveEpisode:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_episodes() -> int:
    """How many episodes are open in this process (tests check that none is left)."""
    with _LOCK:
        return sum(1 for e in _OPEN if e.client is not None)


@atexit.register
def _close_all() -> None:
    POOL.size = 0
    POOL.close()
    with _LOCK:
        episodes = list(_OPEN)
    for episode in episodes:
        episode.close()
