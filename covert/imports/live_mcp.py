"""Live MCP environments: a real MCP server process per episode, its state read back and hashed.

``get_builder("mcp.git")`` (:func:`live_builder`) is a :class:`~covert.env.Builder` whose environment
drives ``mcp-server-git`` on a fresh, deterministically seeded repository in a private temporary
directory. Rows of this environment are ordinary covert rows: their ``initial_state`` holds the seed
recipe (table ``seed``) and the snapshot of the freshly seeded repository; replaying calls, or scoring
a completion with :func:`covert.rewards.score`, starts the server again and runs the calls on it.

Each environment runs one :class:`~covert.imports.live_mcp_episode.LiveEpisode` (started by its first
call): the server under bubblewrap where it runs, bounded, and removed with its temporary directory
when the episode closes, when the environment is garbage, or at exit (see
:mod:`covert.imports.live_mcp_episode`).

The state of an environment (:attr:`LiveEnvironment.state`) is the row's initial state until a call
is made, and afterwards the seed table plus a fresh snapshot (:func:`covert.imports.live_mcp_git.snapshot`).
A server that failed makes every later call an error observation and reading the state raises
:class:`LiveServerError`, so scoring gives 0 with the reason.
"""

from __future__ import annotations

import hashlib
import weakref
from functools import cache
from typing import Any, ClassVar

from covert.env import Builder, Environment, Language, State, ToolError, canonical_bytes, item_rng
from covert.env.tools import ToolSpec
from covert.imports.live_mcp_client import LiveLimits, LiveServerError
from covert.imports.live_mcp_episode import (
    DEFAULT_LIMITS,
    FALLBACK_WARNING,
    POOL,
    SERVERS,
    LiveEpisode,
    WarmPool,
    open_episodes,
    recycling,
    sandbox_mode,
    sandbox_warning,
    set_pool_size,
)
from covert.imports.prefixes import LIVE_PREFIX as PREFIX

GENERATOR_VERSION = "1"
SYSTEM_PROMPT = ("You are a coding assistant with access to the user's git repository through tools. Use the "
                 "tools to inspect and change the repository as the user asks, then say what you did or found.")

__all__ = ["DEFAULT_LIMITS", "FALLBACK_WARNING", "POOL", "PREFIX", "SERVERS", "LiveEnvironment", "LiveEpisode",
           "LiveLimits", "WarmPool", "environment_class", "live_builder", "open_episodes", "recipe_of", "recycling",
           "sandbox_mode", "sandbox_warning", "set_pool_size", "state_of"]


def state_of(recipe: dict[str, Any], tables: dict[str, dict[str, Any]]) -> State:
    """The covert state of a snapshot: the seed table plus the snapshot's tables."""
    return State.from_dict({"tables": {"seed": {"recipe": recipe}, **tables}}, copy=False)


def recipe_of(state: State) -> dict[str, Any]:
    """The seed recipe a live state carries; raises :class:`LiveServerError` when it has none."""
    recipe = state.get("seed", "recipe")
    if not isinstance(recipe, dict):
        raise LiveServerError("seed_failed", "the state has no seed recipe (table 'seed', record 'recipe')")
    return recipe


class LiveEnvironment(Environment):
    """Base of the live environment classes :func:`live_builder` makes; one episode per instance,
    started by the first call."""

    server_name: ClassVar[str] = ""
    limits: ClassVar[LiveLimits] = DEFAULT_LIMITS
    raw_names: ClassVar[dict[str, str]] = {}

    def __init__(self, state: State | dict[str, Any] | None = None) -> None:
        self._episode: LiveEpisode | None = None
        self._finalizer: Any = None
        self._current: State | None = None
        self._dirty = False
        self.failure: LiveServerError | None = None
        super().__init__(state)

    @classmethod
    def seeded(cls, recipe: dict[str, Any]) -> LiveEnvironment:
        """An environment with its episode started on ``recipe``: its state is the seed plus the
        snapshot of the freshly seeded repository (what a row's initial state records)."""
        env = cls(state_of(recipe, {}))
        env._start()
        env._dirty = True
        env._initial = env.state
        return env

    @property  # type: ignore[override]
    def state(self) -> State:
        """The row's initial state before any call, then the seed plus a fresh snapshot of the server."""
        if self.failure is not None:
            raise self.failure
        if self._dirty and self._episode is not None:
            try:
                tables = self._episode.snapshot()
            except LiveServerError as exc:
                self._fail(exc)
                raise
            self._current = state_of(recipe_of(self._initial), tables)
            self._dirty = False
        assert self._current is not None
        return self._current

    @state.setter
    def state(self, value: State) -> None:
        self.close()
        self._initial = value
        self._current = value
        self._dirty = False
        self.failure = None

    def _run(self, tool: str, arguments: dict[str, Any]) -> str:
        if self.failure is not None:
            raise ToolError(self.failure.reason, self.failure.message[:300])
        size = len(canonical_bytes(arguments))
        if size > self.limits.max_input_bytes - 1024:  # refused here; the server keeps running
            raise ToolError("invalid_arguments", f"the arguments take {size} bytes; at most "
                                                 f"{self.limits.max_input_bytes - 1024} are accepted")
        try:
            self._start()
            self._dirty = True
            text, is_error = self._episode.call(self.raw_names.get(tool, tool), arguments)
        except LiveServerError as exc:
            self._fail(exc)
            raise ToolError(exc.reason, exc.message[:300]) from None
        if is_error:
            raise ToolError("tool_error", text[:500] or "the tool failed")
        return text

    def _start(self) -> None:
        if self._episode is None:
            self._episode = LiveEpisode(recipe_of(self._initial), self.limits)
            self._finalizer = weakref.finalize(self, self._episode.close)

    def _fail(self, exc: LiveServerError) -> None:
        self.failure = exc
        self.close()

    @property
    def episode(self) -> LiveEpisode | None:
        """The running episode, if a call started one."""
        return self._episode

    def close(self) -> None:
        """Stop the server of this environment, if one runs."""
        episode, self._episode = getattr(self, "_episode", None), None
        if episode is not None:
            episode.close()


def _tool_method(tool: str) -> Any:
    def method(self: LiveEnvironment, **arguments: Any) -> str:
        return self._run(tool, arguments)

    method.__name__ = f"_live_{tool}"
    return method


def _described(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A parameter schema with a description (its title, or its name, where the server gives none)."""
    if isinstance(schema.get("description"), str) and schema["description"].strip():
        return schema
    title = schema.get("title") if isinstance(schema.get("title"), str) else name.replace("_", " ")
    return {**schema, "description": title[:1].upper() + title[1:] + "."}


def environment_class(server: str, tools: list[dict[str, Any]], version: str) -> type[LiveEnvironment]:
    """A :class:`LiveEnvironment` subclass whose tools are those the server lists, less the arguments
    the environment supplies itself (``repo_path``)."""
    from covert.imports.mcp import tools_to_spec

    module = SERVERS[server]
    spec = tools_to_spec(tools, f"mcp-{server}", version, module.server_argv(module.REPO_INSIDE), license="MIT")
    namespace: dict[str, Any] = {"server_name": server, "name": PREFIX + server}
    specs: dict[str, ToolSpec] = {}
    raw: dict[str, str] = {}
    for op in spec.operations:
        params = dict(op.parameters)
        params["properties"] = {k: _described(k, v) for k, v in (params.get("properties") or {}).items()
                                if k not in module.INJECTED}
        params["required"] = [k for k in params.get("required") or [] if k not in module.INJECTED]
        method = f"_live_{op.name}"
        namespace[method] = _tool_method(op.name)
        raw[op.name] = op.op_id
        specs[op.name] = ToolSpec(name=op.name, description=op.description or op.name.replace("_", " "), parameters=params,
                                  returns={"type": "string"}, writes=op.effect != "read",
                                  errors=("tool_error",), method=method)
    namespace["raw_names"] = raw
    cls = type(f"Live_{server}", (LiveEnvironment,), namespace)
    cls.tool_specs = specs
    return cls


def _make_state(server: str) -> Any:
    module = SERVERS[server]

    def make_state(rng: Any, scale: int) -> dict[str, Any]:
        recipe = module.make_recipe(rng)
        with LiveEpisode(recipe) as episode:
            return state_of(recipe, episode.snapshot()).to_dict()

    return make_state


@cache
def live_builder(name: str) -> Builder:
    """The builder of live environment ``mcp.<server>`` (the server is started once to list its tools)."""
    server = name[len(PREFIX):] if name.startswith(PREFIX) else name
    module = SERVERS.get(server)
    if module is None:
        from covert.env import UnknownBuilderError

        raise UnknownBuilderError(f"unknown live MCP environment {name!r}; known: "
                                  f"{', '.join(PREFIX + s for s in SERVERS)}")
    missing = module.available()
    if missing:
        from covert.env import UnknownBuilderError

        raise UnknownBuilderError(missing)
    try:
        with LiveEpisode(module.make_recipe(item_rng(name, "tools"))) as episode:
            tools = episode.list_tools()
            info = episode.client.server_info if episode.client is not None else {}
    except LiveServerError as exc:
        from covert.env import UnknownBuilderError

        raise UnknownBuilderError(f"live environment {name!r} could not start its server to list its tools: "
                                  f"{exc}") from None
    server_version = str(info.get("version") or "")
    digest = hashlib.sha256(canonical_bytes(tools)).hexdigest()[:8]
    version = f"{GENERATOR_VERSION}-{server_version}-{digest}"
    language = Language(scope="a git repository", intents={}, references={}, entity_tables={}, values={})
    return Builder(name=PREFIX + server, version=version, description=f"live {info.get('name', server)} server "
                   f"{server_version} on a seeded repository", environment=environment_class(server, tools, server_version),
                   make_state=_make_state(server), language=language, system_prompt=SYSTEM_PROMPT, license="MIT",
                   sources=(f"mcp-server-{server} {server_version} (PyPI, MIT), run live per episode",),
                   confirm_writes=False)
