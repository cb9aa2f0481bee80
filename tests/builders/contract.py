"""The uniform test template every builder's test file instantiates.

A builder test file is::

    from tests.builders.contract import BuilderContract, Case

    class TestRetail(BuilderContract):
        builder_name = "retail"
        fingerprint = "<printed by the failing test>"
        cases = [Case("get_order_details", lambda s: {"order_id": s.ids("orders")[0]}), ...]
"""

from __future__ import annotations

import gc
import json
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import jsonschema
import pytest

from covert.env import Builder, State, get_builder, is_error
from covert.env.schema import ENTITY_KEY

TOOL_SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "tool.schema.json").read_text())


@dataclass(frozen=True)
class Case:
    """One call to check: ``args`` builds the arguments from the seeded state.

    ``expect`` is ``"ok"`` for the success path, or the error code the call must return.
    ``setup`` may change the state first (e.g. to reach a precondition) and returns nothing.
    """

    tool: str
    args: Callable[[State], dict[str, Any]]
    expect: str = "ok"
    setup: Callable[[Any], None] | None = None


# -- the no-real-I/O guard ------------------------------------------------------------------------
_FORBIDDEN_EVENTS = ("open", "socket.", "subprocess.", "os.system", "os.exec", "os.posix_spawn", "os.fork",
                     "os.remove", "os.rename", "os.mkdir", "shutil.", "urllib.", "http.", "ftplib.", "smtplib.",
                     "sqlite3.", "ctypes.", "os.listdir", "os.scandir", "glob.", "tempfile.")
_FORBIDDEN_CALLS = {"time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns", "now",
                    "utcnow", "today", "urandom", "getrandom", "random", "randint", "choice", "randrange",
                    "shuffle", "sample", "uniform", "getrandbits", "token_hex", "token_bytes", "uuid4", "uuid1"}
_GUARDED_CODE = ("/builders/", "/covert/env/", "/covert/language/values.py")
_FORBIDDEN_MODULES = {"time", "datetime", "random", "_random", "posix", "nt", "secrets", "uuid", "os"}


class _Guard:
    active = False
    violations: ClassVar[list[str]] = []
    installed = False

    thread: ClassVar[int] = 0

    @classmethod
    def audit(cls, event: str, args: tuple) -> None:
        # only the guarded thread: other tests may leave threads (servers, pools) doing their own I/O
        if cls.active and threading.get_ident() == cls.thread and event.startswith(_FORBIDDEN_EVENTS):
            cls.violations.append(f"audit event {event} {str(args)[:80]}")

    @classmethod
    def profile(cls, frame: Any, event: str, arg: Any) -> None:
        if event != "c_call":
            return
        # calls made by builder or runtime code only (not by a finalizer of some other test's object)
        filename = frame.f_code.co_filename if frame is not None else ""
        if not any(part in filename for part in _GUARDED_CODE):
            return
        name = getattr(arg, "__name__", "")
        owner = getattr(arg, "__self__", None)
        holder = owner if isinstance(owner, type) else type(owner)
        module = getattr(arg, "__module__", None) or getattr(holder, "__module__", "") or ""
        if name in _FORBIDDEN_CALLS and (module in _FORBIDDEN_MODULES or module.startswith(("time", "random", "datetime"))):
            # a seeded random.Random instance passed in by the caller is fine; the global one is not
            if owner is not None and type(owner).__name__ == "Random" and owner is not _global_random():
                return
            cls.violations.append(f"call to {module}.{name}")


def _global_random() -> Any:
    import random

    return random._inst  # type: ignore[attr-defined]


def run_guarded(fn: Callable[[], Any]) -> tuple[Any, list[str]]:
    """Run ``fn`` while recording file, socket, process, clock and global-randomness use."""
    if not _Guard.installed:
        sys.addaudithook(_Guard.audit)
        _Guard.installed = True
    _Guard.violations = []
    _Guard.thread = threading.get_ident()
    _Guard.active = True
    previous = sys.getprofile()
    gc_was_enabled = gc.isenabled()
    gc.disable()  # no finalizers of unrelated objects inside the guarded call
    sys.setprofile(_Guard.profile)
    try:
        result = fn()
    finally:
        sys.setprofile(previous)
        _Guard.active = False
        if gc_was_enabled:
            gc.enable()
    return result, list(_Guard.violations)


# -- the template ----------------------------------------------------------------------------------
class BuilderContract:
    """Checks every builder must pass: schemas, seeded determinism, every tool's paths, no real I/O."""

    builder_name: ClassVar[str]
    fingerprint: ClassVar[str]
    cases: ClassVar[list[Case]]

    @pytest.fixture(scope="class")
    def builder(self) -> Builder:
        return get_builder(self.builder_name)

    def test_tool_specs_validate(self, builder: Builder) -> None:
        assert builder.tools, "a builder needs tools"
        for spec in builder.tools.values():
            openai = spec.openai()
            jsonschema.validate(openai, TOOL_SCHEMA)
            params = openai["function"]["parameters"]
            assert set(params["required"]) <= set(params["properties"]), spec.name
            for name, prop in params["properties"].items():
                assert prop.get("description"), f"{spec.name}.{name} has no description"
                assert ENTITY_KEY not in json.dumps(openai), "covert annotations must not leak into specs"
            assert spec.returns, f"{spec.name} needs a return type (TypedDict) for the tool graph"

    def test_state_is_seeded(self, builder: Builder) -> None:
        first = builder.state(7, 3)
        assert first.hash() == builder.state(7, 3).hash()
        assert first.hash() != builder.state(7, 4).hash()
        assert first.hash() != builder.state(8, 3).hash()
        assert State.from_json(first.to_json()).hash() == first.hash()
        json.dumps(first.to_dict())  # plain JSON

    def test_cases_cover_every_tool_and_error(self, builder: Builder) -> None:
        ok = {c.tool for c in self.cases if c.expect == "ok"}
        assert not set(builder.tools) - ok, f"tools without a success case: {sorted(set(builder.tools) - ok)}"
        declared = {(s.name, code) for s in builder.tools.values() for code in s.errors}
        covered = {(c.tool, c.expect) for c in self.cases if c.expect != "ok"}
        assert not declared - covered, f"declared errors without a case: {sorted(declared - covered)}"
        assert not covered - declared, f"cases expect undeclared errors: {sorted(covered - declared)}"

    @pytest.mark.parametrize("index", [0, 1, 2])
    def test_cases_behave(self, builder: Builder, index: int) -> None:
        state = builder.state(11, index)
        before = state.hash()
        for case in self.cases:
            warm = builder.env(state)  # first calls compile validators and import lazily; not the tool's I/O
            if case.setup is not None:
                case.setup(warm)
            warm.call(case.tool, case.args(warm.state))
            env = builder.env(state)
            if case.setup is not None:
                case.setup(env)
            args = case.args(env.state)
            result, violations = run_guarded(lambda env=env, case=case, args=args: env.call(case.tool, args))
            assert not violations, f"{case.tool}: real I/O or global state: {violations}"
            json.dumps(result)
            if case.expect == "ok":
                assert not is_error(result), f"{case.tool}({args}) failed: {result}"
            else:
                assert is_error(result), f"{case.tool}({args}) should fail with {case.expect}, got {result}"
                assert result["error"]["code"] == case.expect, f"{case.tool}: {result}"
            if builder.tools[case.tool].writes is False:
                assert env.state.hash() == (env.state.hash() if case.setup else before), case.tool
        assert state.hash() == before, "tools must not mutate the stored state"
        assert State.from_dict(state.to_dict()).hash() == before

    def test_read_tools_do_not_write(self, builder: Builder) -> None:
        state = builder.state(5, 0)
        for case in self.cases:
            if builder.tools[case.tool].writes or case.setup is not None:
                continue
            env = builder.env(state)
            env.call(case.tool, case.args(env.state))
            assert env.state.hash() == state.hash(), f"read tool {case.tool} changed state"

    def test_language_covers_tools(self, builder: Builder) -> None:
        language = builder.language
        for name, spec in builder.tools.items():
            assert language.intents.get(name), f"{name} has no intent"
            for param, prop in spec.parameters["properties"].items():
                entity = spec.param_entity(param)
                fillable = (
                    entity in language.references
                    or "enum" in prop
                    or prop.get("type") == "boolean"
                    or param not in spec.parameters["required"]
                    or language.sampler(name, param) is not None
                    or name in language.values
                )
                assert fillable, f"{name}.{param}: add a Reference, a value sampler or a default"
        for entity, ref in language.references.items():
            if ref.user_knows_id:
                assert entity in language.entity_tables, f"{entity}: users quote it, so name its table"
        assert len(language.out_of_scope) >= 5, "give at least 5 out-of-scope requests"

    def test_ask_frames_say_each_slot_once(self, builder: Builder) -> None:
        """A request frame names each of its slots once, and the frames of one intent agree on the slots
        the user hands over (a frame glued to its neighbour by a misplaced string break says a name twice:
        "James Schmidt, born Jun 19, 2004Schmidt, born Jun 19, 2004", or drops the date of birth)."""
        import string

        for tool, intents in builder.language.intents.items():
            for intent in intents if isinstance(intents, (list, tuple)) else (intents,):
                frames = list(intent.ask)
                named = [[n for _, n, _, _ in string.Formatter().parse(f) if n] for f in frames]
                for frame, names in zip(frames, named, strict=True):
                    assert len(names) == len(set(names)), f"{tool}: a slot said twice in {frame!r}"
                required = set(builder.tools[tool].parameters.get("required") or ())
                for frame, names in zip(frames, named, strict=True):
                    missing = {n for other in named for n in other if n in required} - set(names)
                    assert not missing, f"{tool}: {frame!r} leaves out {sorted(missing)} that other frames give"

    def test_samplers_are_seeded(self, builder: Builder) -> None:
        from covert.env import item_rng

        state = builder.state(3, 1)
        for key, sampler in builder.language.values.items():
            first = sampler(item_rng("t", key), state)
            assert first == sampler(item_rng("t", key), state), key

    def test_fingerprint(self, builder: Builder) -> None:
        current = f"{builder.version}:{builder.fingerprint()}"
        assert current == self.fingerprint, (
            f"{builder.name} output changed: bump its version, then set fingerprint = "
            f"'{{version}}:{builder.fingerprint()}' (now {current!r})"
        )
