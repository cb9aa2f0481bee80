"""Environment classes for TRL's ``GRPOTrainer(environment_factory=...)``.

TRL lists the public functions of an environment's *class* (``inspect.getmembers(type(env),
inspect.isfunction)``, in name order) as the tools of every prompt routed to it, and builds each
tool's schema from the method's signature and Google-style docstring
(``transformers.utils.get_json_schema``). So one class is made per tool set: its methods are exactly
the tools a row offers, each with the row's own name, description, parameters (types, enums, array
item types) and required list. A call runs on a :class:`~covert.rewards.session.Session` of the
row's builder: a tool the builder does not have (a distractor) gets the environment's
``unknown_tool`` error observation, as any unknown tool does.

Rows that carry a user scenario (``extra_info.user_scenario``, config ``rl-multiturn``) also get
:data:`USER_TOOL`, ``ask_user(question)``, answered by covert's template user
(:class:`~covert.user.simulator.TemplateUser`) from the scenario.
"""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Union

import orjson

from covert.env import error_observation, get_builder
from covert.rewards.composite import default_scorer
from covert.rewards.rowview import builder_of
from covert.rewards.session import CallRecord, Session
from covert.user.scenario import UserScenario
from covert.user.simulator import TemplateUser

USER_TOOL = "ask_user"
"""The name of the ask-the-user tool offered on rows with a user scenario."""
MAX_QUESTION_CHARS = 2000
MAX_QUESTIONS = 32
RESERVED = ("reset", "get_reward")
_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict,
                          "null": type(None)}


class CovertEnvironment:
    """Base of the generated environment classes; see :func:`environment_class`.

    Attributes:
        builder: The builder whose state and tools the calls run on (class attribute).
        tools: The OpenAI-format specs of the tools the class offers (class attribute).
        asks_user: Whether the class offers :data:`USER_TOOL` (class attribute).
        log: The tool calls made since the last :meth:`reset`.
        user: The simulated user of the episode (rows with a user scenario), else ``None``.
        questions: The ``(question, answer)`` pairs of the episode, in order.
    """

    builder = ""
    tools: tuple[Mapping[str, Any], ...] = ()
    asks_user = False

    def __init__(self) -> None:
        self._session: Session | None = None
        self.log: list[CallRecord] = []
        self.user: TemplateUser | None = None
        self.questions: list[tuple[str, str]] = []

    def reset(self, **row: Any) -> str | None:
        """Start an episode on ``row``'s initial state (the row's columns, as TRL passes them)."""
        prepared = default_scorer().prepare({**row, "environment": builder_of(row) or self.builder})
        if prepared.view.builder != self.builder:
            raise ValueError(f"row {prepared.view.task_id!r} is for {prepared.view.builder!r}, not {self.builder!r}")
        self._session = prepared.session()
        self.log = self._session.log
        scenario = user_scenario_of(row)
        self.user = TemplateUser(UserScenario.from_dict(scenario)) if scenario and self.asks_user else None
        self.questions = []
        return None

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self._session is None:
            raise RuntimeError("call reset(**row) before using the tools")
        return orjson.dumps(self._session.call(name, arguments)).decode()

    def _ask(self, question: Any) -> str:
        if self._session is None:
            raise RuntimeError("call reset(**row) before using the tools")
        if self.user is None:
            return _error("no_user", "There is no user to ask in this conversation.")
        if not isinstance(question, str) or not question.strip():
            return _error("invalid_arguments", "Ask a question: question is a non-empty string.")
        if len(self.questions) >= MAX_QUESTIONS:
            return _error("too_many_questions", f"The user answers at most {MAX_QUESTIONS} questions.")
        text = " ".join(question.split())[:MAX_QUESTION_CHARS]
        # the template user reads a message that does not end with "?" as the final answer
        asked = text if text.endswith("?") else text + "?"
        answer = self.user.reply({"role": "assistant", "content": asked}).content
        self.questions.append((question, answer))
        return answer


def _error(code: str, message: str) -> str:
    return orjson.dumps(error_observation(code, message)).decode()


def user_scenario_of(row: Mapping[str, Any]) -> Any:
    """The user scenario of a row (``extra_info.user_scenario``, JSON text decoded), or ``None``."""
    extra = row.get("extra_info")
    if isinstance(extra, (str, bytes)):
        try:
            extra = orjson.loads(extra)
        except orjson.JSONDecodeError:
            return None
    scenario = extra.get("user_scenario") if isinstance(extra, Mapping) else None
    if isinstance(scenario, (str, bytes)):
        try:
            scenario = orjson.loads(scenario)
        except orjson.JSONDecodeError:
            return None
    return scenario if isinstance(scenario, Mapping) and scenario.get("goal") is not None else None


def has_user_scenario(row: Mapping[str, Any]) -> bool:
    """Whether a row carries a user scenario (``extra_info.user_scenario``)."""
    return user_scenario_of(row) is not None


def environment_class(builder: str, tools: Sequence[Mapping[str, Any] | str] | None = None,
                      ask_user: bool = False, name: str | None = None) -> type[CovertEnvironment]:
    """A TRL environment class whose public methods are exactly ``tools`` (OpenAI-format specs, or
    names of ``builder``'s tools; default: all of ``builder``'s tools), plus ``ask_user`` if asked.

    Raises ``ValueError`` when a tool's name cannot be a method (``reset``, ``get_reward``, a leading
    underscore, not an identifier, or ``ask_user`` twice) or a name is not one of the builder's tools.
    """
    env_cls = get_builder(builder).environment
    if tools is None:
        specs: list[Mapping[str, Any]] = list(env_cls.openai_tools())
    else:
        own = {s["function"]["name"]: s for s in env_cls.openai_tools()}
        specs = []
        for tool in tools:
            if isinstance(tool, str):
                if tool not in own:
                    raise ValueError(f"{builder} has no tool {tool!r}")
                specs.append(own[tool])
            else:
                specs.append(tool)
    namespace: dict[str, Any] = {
        "builder": builder,
        "tools": tuple(specs),
        "asks_user": ask_user,
        "__doc__": f"covert {builder} environment for TRL ({len(specs)} tools{', and ask_user' if ask_user else ''}).",
    }
    for spec in specs:
        function = spec.get("function") if isinstance(spec, Mapping) else None
        tool = function.get("name") if isinstance(function, Mapping) else None
        if (not isinstance(tool, str) or not tool.isidentifier() or keyword.iskeyword(tool) or tool.startswith("_")
                or tool in RESERVED):
            raise ValueError(f"tool {tool!r} of a {builder} row cannot be a TRL environment method "
                             f"(reserved, private or not an identifier)")
        if tool in namespace or (ask_user and tool == USER_TOOL):
            raise ValueError(f"tool {tool!r} appears twice in a {builder} row's tools")
        namespace[tool] = tool_method(function)
    if ask_user:
        namespace[USER_TOOL] = _ask_user
    title = name or f"{builder.title().replace('_', '')}Environment"
    return type(title, (CovertEnvironment,), namespace)


# no hint on self or the return: get_json_schema would put them in the tool's schema
def _ask_user(self, question: str):  # type: ignore[no-untyped-def]
    """Ask the user a question and get their answer. Use it for what only the user knows (an id, an email, a name, a choice) and to have them confirm an action before you take it.

    Args:
        question: The question, as you would ask it in the conversation.
    """
    return self._ask(question)


_ask_user.__name__ = _ask_user.__qualname__ = USER_TOOL  # TRL names a tool by its function's __name__


def tool_method(function: Mapping[str, Any]) -> Callable[..., str]:
    """A method whose ``transformers.utils.get_json_schema`` is ``function``'s spec: its name and
    description, its parameters in their order with their types, enums, array item types and
    descriptions, and its required list. What a signature cannot carry is left out: ``default``
    values, descriptions inside ``items``, an empty ``required`` list. The call forwards whatever
    arguments the model sends: the environment validates them (an unknown, missing or ill-typed
    argument becomes an error observation, not an exception)."""
    name = function["name"]
    parameters = function.get("parameters") if isinstance(function.get("parameters"), Mapping) else {}
    properties = parameters.get("properties") if isinstance(parameters.get("properties"), Mapping) else {}
    required = list(dict.fromkeys(p for p in parameters.get("required") or () if p in properties))

    def method(self, **arguments):  # type: ignore[no-untyped-def]  # TRL reads __signature__ below
        return self._call(name, arguments)

    # get_json_schema lists the properties in annotation order and the required ones in signature
    # order; keyword-only parameters may come in any order, so both follow the row
    annotations: dict[str, Any] = {}
    for param in properties:
        if not isinstance(param, str) or not param.isidentifier() or keyword.iskeyword(param):
            raise ValueError(f"parameter {param!r} of tool {name!r} cannot be a Python parameter")
        annotations[param] = _hint(properties[param])
    signature = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for param in [*required, *(p for p in properties if p not in required)]:
        default = inspect.Parameter.empty if param in required else _default(properties[param])
        signature.append(inspect.Parameter(param, inspect.Parameter.KEYWORD_ONLY, default=default,
                                           annotation=annotations[param]))
    method.__name__ = name
    method.__qualname__ = name
    # no return annotation and no Returns section: get_json_schema would add a "return" entry that the
    # row's spec does not have
    method.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    method.__doc__ = _docstring(function, list(properties))
    return method


def _default(schema: Any) -> Any:
    return schema.get("default") if isinstance(schema, Mapping) else None


def _hint(schema: Any) -> Any:
    if not isinstance(schema, Mapping):
        return Any
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, (str, int, float, bool)) or v is None for v in enum):
        return Literal[tuple(enum)]
    kind = schema.get("type")
    if isinstance(kind, list):
        hints = [_hint({**schema, "type": k}) for k in kind if isinstance(k, str)]
        return Union[tuple(hints)] if len(hints) > 1 else hints[0] if hints else Any
    if kind == "array":
        items = schema.get("items")
        return list[_hint(items)] if isinstance(items, Mapping) and items.get("type") else list
    return _TYPES.get(kind, Any) if isinstance(kind, str) else Any


def _docstring(function: Mapping[str, Any], params: list[str]) -> str:
    properties = (function.get("parameters") or {}).get("properties") or {}
    lines = [_one_line(function.get("description") or function["name"]), ""]
    if params:
        lines.append("Args:")
        for param in params:
            spec = properties[param] if isinstance(properties[param], Mapping) else {}
            lines.append(f"    {param}: {_one_line(spec.get('description') or param)}")
    return "\n".join(lines).rstrip()


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())
