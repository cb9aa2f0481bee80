"""The environment base class: tools over a copy-on-write state, called by name with JSON arguments."""

from __future__ import annotations

from typing import Any, ClassVar

import fastjsonschema
import orjson

from covert.env.jsonsafe import admit
from covert.env.schema import closed, strip_private_keys
from covert.env.state import State
from covert.env.tools import ToolError, ToolSpec, collect_tools
from covert.env.validators import argument_validator

UNKNOWN_TOOL = "unknown_tool"
INVALID_ARGUMENTS = "invalid_arguments"
INTERNAL_ERROR = "internal_error"


def error_observation(code: str, message: str) -> dict[str, Any]:
    """The observation an agent sees when a call fails."""
    return {"error": {"code": code, "message": message}}


def is_error(observation: Any) -> bool:
    """Whether a tool observation is an error observation."""
    return (
        isinstance(observation, dict)
        and len(observation) == 1
        and isinstance(observation.get("error"), dict)
        and "code" in observation["error"]
    )


class Environment:
    """Base class of every environment. Subclasses define tools with ``@tool`` methods.

    Class attributes:
        name: The environment's short name (the builder's name).
        tool_specs: Specs of every tool, by name, collected when the subclass is defined.
    """

    name: ClassVar[str] = ""
    tool_specs: ClassVar[dict[str, ToolSpec]] = {}
    _validators: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.tool_specs = collect_tools(cls)
        cls._validators = {}

    def __init__(self, state: State | dict[str, Any] | None = None) -> None:
        self.state: State = State.from_dict({"tables": {}}) if state is None else _as_state(state)

    # -- public API ------------------------------------------------------------------------------
    def reset(self, state: State | dict[str, Any]) -> None:
        """Start over from ``state``; a :class:`State` is forked (O(1)), a dict is loaded."""
        self.state = _as_state(state)

    def call(self, name: str, arguments: dict[str, Any] | str | None = None) -> Any:
        """Run one tool. Returns its JSON result, or an error observation; never raises."""
        spec = self.tool_specs.get(name) if isinstance(name, str) else None
        if spec is None:
            return error_observation(UNKNOWN_TOOL, f"There is no tool named {_text(name, 80)!r}.")
        if type(arguments) is not dict:
            if arguments is None:
                arguments = {}
            elif isinstance(arguments, (str, bytes)):
                try:
                    arguments = orjson.loads(arguments)
                except orjson.JSONDecodeError:
                    return error_observation(INVALID_ARGUMENTS, "Arguments are not valid JSON.")
            if not isinstance(arguments, dict):
                return error_observation(INVALID_ARGUMENTS, "Arguments must be a JSON object.")
        arguments, problem = admit(arguments)
        if problem is not None:
            return error_observation(INVALID_ARGUMENTS, problem[:300])
        try:
            (self._validators.get(name) or self._validator(name))(arguments)
        except fastjsonschema.JsonSchemaValueException as exc:
            message = exc.message
            if message.startswith("data."):
                message = message[len("data."):]
            elif message.startswith("data "):
                message = "arguments " + message[len("data "):]
            return error_observation(INVALID_ARGUMENTS, message[:300])
        except Exception as exc:
            return error_observation(INVALID_ARGUMENTS, f"Arguments could not be checked: {type(exc).__name__}.")
        try:
            return getattr(self, spec.method)(**arguments)
        except ToolError as exc:
            return error_observation(exc.code, exc.message)
        except Exception as exc:
            return error_observation(INTERNAL_ERROR, f"{type(exc).__name__}: {_text(exc, 200)}")

    @classmethod
    def openai_tools(cls, names: list[str] | None = None) -> list[dict[str, Any]]:
        """OpenAI-format specs of the named tools (default: all, in definition order).

        The list and its spec dicts are shared between calls with the same names: treat them as read-only.
        """
        cache = cls.__dict__.get("_openai_cache")
        if cache is None:
            cache = {name: spec.openai() for name, spec in cls.tool_specs.items()}
            cls._openai_cache = cache
            cls._openai_lists = {}
        key = tuple(names) if names is not None else tuple(cls.tool_specs)
        found = cls._openai_lists.get(key)
        if found is None:
            found = [cache[n] for n in key]
            if len(cls._openai_lists) < 4096:
                cls._openai_lists[key] = found
        return found

    @classmethod
    def argument_schema(cls, name: str) -> dict[str, Any]:
        """The JSON Schema the arguments of tool ``name`` are checked against (compiled with
        :data:`VALIDATOR_OPTIONS`)."""
        # draft-04 semantics: 2.0 is not an integer, so an int parameter always reaches the tool as int
        return {"$schema": "http://json-schema.org/draft-04/schema#",
                **closed(strip_private_keys(cls.tool_specs[name].parameters))}

    @classmethod
    def _validator(cls, name: str) -> Any:
        """The argument validator of tool ``name``, compiled in this process on first use
        (:func:`covert.env.validators.argument_validator`: fastjsonschema's verdicts and messages, bounded
        patterns, nothing read from disk)."""
        validator = cls._validators.get(name)
        if validator is None:
            validator = argument_validator(cls.argument_schema(name))
            cls._validators[name] = validator
        return validator


def _text(value: Any, limit: int) -> str:
    try:
        return str(value)[:limit]
    except Exception:
        return f"<unprintable {type(value).__name__}>"


def _as_state(state: State | dict[str, Any]) -> State:
    if isinstance(state, State):
        return state.fork()
    return State.from_dict(state)
