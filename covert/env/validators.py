"""Argument validators of tools: fastjsonschema's, with patterns and formats checked in bounded time.

Every tool call checks its arguments with a validator that fastjsonschema generates from the tool's
argument schema (same code, same messages as ``fastjsonschema.compile``). Two things change:

- the regular expressions the generated code matches model text with are replaced: a schema's
  ``pattern`` and ``patternProperties`` by :class:`~covert.env.patterns.BoundedPattern` (linear time,
  or a backtracking budget), and a format's own expression (``email``, ``hostname`` ...) reads at most
  :data:`~covert.env.patterns.MAX_FORMAT_LENGTH` characters (a longer value fails the format); the
  ``regex`` format compiles at most that many characters too;
- nothing is kept on disk. Validators are compiled in the process that calls the tool, when it is first
  called (about 1 ms for a hand-written tool, a few for an imported one). Earlier versions kept their
  bytecode in files (``~/.cache/covert/validators``, ``<store>/compiled/*.validators``); covert no
  longer reads such files, since code loaded from disk runs with the user's rights whoever wrote it.
"""

from __future__ import annotations

import re
from typing import Any

import fastjsonschema
import jsonschema_rs
import orjson
from fastjsonschema.draft04 import CodeGeneratorDraft04
from fastjsonschema.draft06 import CodeGeneratorDraft06
from fastjsonschema.draft07 import CodeGeneratorDraft07
from fastjsonschema.exceptions import JsonSchemaDefinitionException
from fastjsonschema.ref_resolver import RefResolver

from covert.env.patterns import LINEAR, MAX_FORMAT_LENGTH, bounded_pattern

VALIDATOR_OPTIONS: dict[str, Any] = {"use_default": False}  # how argument schemas are compiled (fastjsonschema)
# fastjsonschema's own format expressions, as its generated code names them among its patterns
FORMATS = {f"{name}_re_pattern": pattern for generator in (CodeGeneratorDraft04, CodeGeneratorDraft06, CodeGeneratorDraft07)
           for name, pattern in generator.FORMAT_REGEXS.items()}


class _FormatPattern:
    """A format's expression that reads at most :data:`MAX_FORMAT_LENGTH` characters."""

    __slots__ = ("_compiled",)

    def __init__(self, compiled: re.Pattern[str]) -> None:
        self._compiled = compiled

    def match(self, text: str) -> Any:
        return None if len(text) > MAX_FORMAT_LENGTH else self._compiled.match(text)

    def search(self, text: str) -> Any:
        return None if len(text) > MAX_FORMAT_LENGTH else self._compiled.search(text)


class _SchemaPattern:
    """A schema's ``pattern``: what the generated code calls ``search`` on, in bounded time."""

    __slots__ = ("_pattern",)

    def __init__(self, pattern: str) -> None:
        self._pattern = bounded_pattern(pattern)

    def search(self, text: str) -> bool:
        return self._pattern.search(text)

    match = search  # never called by the generated code for a schema pattern; kept bounded all the same


class _BoundedRe:
    """What the generated code sees as ``re`` once it runs: ``compile`` (the ``regex`` format) reads at
    most :data:`MAX_FORMAT_LENGTH` characters."""

    error = re.error

    @staticmethod
    def compile(text: str) -> re.Pattern[str]:
        if len(text) > MAX_FORMAT_LENGTH:
            raise re.error(f"longer than {MAX_FORMAT_LENGTH} characters")
        return re.compile(text)


_COMPILED: dict[bytes, Any] = {}  # validators by their schema's exact JSON (key order kept: same code)
_COMPILED_KEPT = 4096


def compile_validator(schema: dict[str, Any]) -> Any:
    """The validator function of ``schema``: raises ``fastjsonschema.JsonSchemaValueException`` with
    fastjsonschema's message on bad data; its patterns and formats run in bounded time. Compiled once per
    process for each schema (imported APIs repeat their argument schemas across tools); the checks of a
    large property are compiled when a value of it is first checked (:class:`_Deferred`)."""
    try:
        key = orjson.dumps(schema)
    except (TypeError, orjson.JSONEncodeError):
        return _compiled(schema, fastjsonschema._get_code_generator_class(schema), deferring=False)
    found = _COMPILED.get(key)
    if found is None:
        if len(_COMPILED) >= _COMPILED_KEPT:
            _COMPILED.clear()
        # a schema that refers to its own parts ($ref) is compiled whole: a part alone would not resolve them
        found = _COMPILED[key] = _compiled(schema, fastjsonschema._get_code_generator_class(schema),
                                           deferring=b'"$ref"' not in key)
    return found


# what a schema may hold for jsonschema-rs to decide its valid calls: keywords both engines read alike
# (formats, multipleOf and uniqueItems are fastjsonschema's own: its expressions and bounded lengths, float
# arithmetic, Python's equality; $ref is resolved only as fastjsonschema resolves it)
_OWN_KEYWORDS = (b'"format"', b'"multipleOf"', b'"uniqueItems"', b'"$ref"')
_CHECKS: dict[bytes, ArgumentValidator] = {}


class ArgumentValidator:
    """A tool's argument check: the verdict of :func:`compile_validator`'s function, computed fast.

    A valid call (nearly every call a build makes) is recognised by jsonschema-rs, whose validator of an
    imported API's argument schema compiles about 15 times faster than fastjsonschema's generated code;
    only the first call it finds invalid compiles fastjsonschema's validator, which raises its own
    exception with its own message. jsonschema-rs decides only where both engines read the schema alike:
    patterns on the linear engine that :class:`~covert.env.patterns.BoundedPattern` uses first (a schema
    with a pattern that needs the bounded engine is left to fastjsonschema), and no keyword of
    :data:`_OWN_KEYWORDS`; a value it cannot read (a set, an integer past 64 bits) goes to fastjsonschema
    too. So the verdicts and the messages are fastjsonschema's, call for call."""

    __slots__ = ("_fast", "_full", "_schema")

    def __init__(self, schema: dict[str, Any], fast: Any) -> None:
        self._schema, self._fast, self._full = schema, fast, None

    def __call__(self, data: Any) -> Any:
        fast = self._fast
        if fast is not None:
            try:
                if fast(data):
                    return data
            except (ValueError, OverflowError, TypeError, jsonschema_rs.ValidationError):
                pass
        return self.full()(data)

    def full(self) -> Any:
        """fastjsonschema's validator of the schema (:func:`compile_validator`), compiled on first use."""
        if self._full is None:
            self._full = compile_validator(self._schema)
        return self._full


def argument_validator(schema: dict[str, Any]) -> ArgumentValidator:
    """The :class:`ArgumentValidator` of ``schema``, made once per process for each schema (same JSON)."""
    try:
        key = orjson.dumps(schema)
    except (TypeError, orjson.JSONEncodeError):
        return ArgumentValidator(schema, None)
    found = _CHECKS.get(key)
    if found is None:
        fast = None
        if not any(word in key for word in _OWN_KEYWORDS):
            try:
                fast = jsonschema_rs.validator_for(schema, pattern_options=LINEAR).is_valid
            except (ValueError, jsonschema_rs.ValidationError):
                fast = None  # a pattern only the bounded engine runs, or a schema it refuses: fastjsonschema's
        if len(_CHECKS) >= _COMPILED_KEPT:
            _CHECKS.clear()
        found = _CHECKS[key] = ArgumentValidator(schema, fast)
    return found


DEFERRED_BYTES = 1024  # a property whose schema's JSON is longer is checked by a function compiled on first use
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.-]+")  # property names whose path is written alike either way


class _Deferred:
    """The checks of one property of a schema, compiled when a value of that property is first checked: an
    imported create tool's arguments hold bodies of hundreds of fields, and a call gives a few of them.
    The function is the one fastjsonschema writes for the property's schema as a schema of its own, called
    with the property's path as ``name_prefix``: the same checks in the same order, with the same messages
    (``data.body.kind must be ...``) as the code written in place."""

    __slots__ = ("base", "schema", "validate")

    def __init__(self, schema: dict[str, Any], base: type) -> None:
        self.schema, self.base, self.validate = schema, base, None

    def __call__(self, data: Any, custom_formats: Any, name_prefix: str) -> Any:
        if self.validate is None:
            key = self.base.__name__.encode() + b"\0" + orjson.dumps(self.schema)
            found = _COMPILED.get(key)
            if found is None:
                if len(_COMPILED) >= _COMPILED_KEPT:
                    _COMPILED.clear()
                found = _COMPILED[key] = _compiled(self.schema, self.base, deferring=True)
            self.validate = found
        return self.validate(data, custom_formats, name_prefix)


class _NamedDefinitions:
    """A fastjsonschema code generator whose code names what it would write out as long literals: the
    (sub)schema each failure reports (``definition=DEFINITIONS[3]``, not the schema spelled out at every
    ``raise``) and an enum of strings (``data in ENUMS[0]``, not one comparison per member). An imported
    API's argument schema, written out so, made validators of a megabyte of source that took ``compile``
    most of their cost. The checks are the same, and each failure carries the same message, value, name,
    rule and an equal definition."""

    def generate_enum(self) -> None:
        """An enum of strings as one set lookup (what fastjsonschema's chain of ``isinstance(v, str)
        and v == member`` comparisons decides); any other enum as fastjsonschema writes it."""
        enum = self._definition["enum"]
        if not isinstance(enum, (list, tuple)) or not enum or not all(type(v) is str for v in enum):
            super().generate_enum()
            return
        self.enums.append(frozenset(enum))
        with self.l("if not (isinstance({variable}, str) and {variable} in ENUMS[{index}]):", index=len(self.enums) - 1):
            self.exc("{name} must be one of {}", self.e(enum), rule="enum")

    def generate_properties(self) -> None:
        """fastjsonschema's checks of an object's properties; at the top level, a large property's
        schema (over :data:`DEFERRED_BYTES` of JSON) is checked by a :class:`_Deferred` function."""
        if self._definition is not self._root_definition or not self.deferring or not self._fast_fail \
                or not self._detailed_exceptions or self._use_default:
            super().generate_properties()
            return
        self.create_variable_is_dict()
        with self.l("if {variable}_is_dict:"):
            self.create_variable_keys()
            for key, prop_definition in self._definition["properties"].items():
                key_name = re.sub(r"($[^a-zA-Z]|[^a-zA-Z0-9])", "", key)
                if not isinstance(prop_definition, (dict, bool)):
                    raise JsonSchemaDefinitionException(f"{self._variable}[{key_name}] must be object")
                with self.l('if "{}" in {variable}_keys:', self.e(key)):
                    self.l('{variable}_keys.remove("{}")', self.e(key))
                    self.l('{variable}__{0} = {variable}["{1}"]', key_name, self.e(key))
                    if isinstance(prop_definition, dict) and _PLAIN_KEY.fullmatch(key) \
                            and len(orjson.dumps(prop_definition)) > DEFERRED_BYTES:
                        self.deferred.append(_Deferred(prop_definition, self.base))
                        self.l('DEFERRED[{}]({variable}__{}, custom_formats, (name_prefix or "data") + {})',
                               len(self.deferred) - 1, key_name, repr("." + key))
                    else:
                        self.generate_func_code_block(
                            prop_definition, f"{self._variable}__{key_name}",
                            "{}.{}".format(self._variable_name, self.e(key).replace("{", "{{").replace("}", "}}")),
                            clear_variables=True)

    def exc(self, msg: str, *args: Any, append_to_msg: str | None = None, rule: str | None = None) -> None:
        """The ``raise`` of a failed check (fastjsonschema's, the definition named, not written out)."""
        if not self._detailed_exceptions or not self._fast_fail:
            super().exc(msg, *args, append_to_msg=append_to_msg, rule=rule)
            return
        arg = '"' + msg + '"'
        if append_to_msg:
            arg += " + (" + append_to_msg + ")"
        named = self._named.get(id(self._definition))
        if named is None:
            definition = self._expand_refs(self._definition)
            self.definitions.append(definition)
            named = self._named[id(self._definition)] = (len(self.definitions) - 1, definition)
        index, definition = named
        definition_rule = self.e(definition.get(rule) if isinstance(definition, dict) else None)
        written = len(self._code)
        self.l("raise JsonSchemaValueException(" + arg + ', value={variable}, name="{name}", '
               "definition=DEFINITIONS[{index}], rule={rule})",
               *args, index=index, rule=repr(rule), definition_rule=definition_rule)
        if len(self._code) == written:  # fastjsonschema merged it with the same line just before
            return
        # the line as written, kept as an expression compiled when the check first fails (see _Failure)
        line = self._code.pop()
        spaces = line[:len(line) - len(line.lstrip(" "))]
        self.failures.append(line.strip().removeprefix("raise "))
        self._code.append(f"{spaces}raise FAILED({len(self.failures) - 1}, locals())")


class _Failure:
    """The exceptions of a validator's failed checks, each written as fastjsonschema writes it
    (``JsonSchemaValueException(<message>, value=..., name=..., definition=..., rule=...)``) but compiled
    only when its check first fails: in the validator's code each is one short ``raise FAILED(n, locals())``.
    The messages of an imported API's argument schema made up most of its validator's source, and
    ``compile`` cost grows with the source; a valid call never needs them. Evaluated with the validator's
    globals and the failing function's locals, an expression builds the very exception it built in place."""

    __slots__ = ("_code", "_expressions", "_globals", "_name")

    def __init__(self, expressions: list[str], namespace: dict[str, Any], name: str) -> None:
        self._expressions, self._globals, self._name = expressions, namespace, name
        self._code: dict[int, Any] = {}

    def __call__(self, index: int, scope: dict[str, Any]) -> Exception:
        code = self._code.get(index)
        if code is None:
            code = self._code[index] = compile(self._expressions[index], f"<validator {self._name} check {index}>",
                                               "eval")
        return eval(code, self._globals, scope)  # noqa: S307 - written here from the schema, as the validator was


_GENERATORS: dict[type, type] = {}


def _generator(schema: dict[str, Any], resolver: RefResolver, base: type, deferring: bool) -> Any:
    """fastjsonschema's code generator ``base`` (the class of ``schema``'s draft) for ``schema``, naming the
    definitions it reports and, when ``deferring``, deferring the checks of large top-level properties."""
    named = _GENERATORS.get(base)
    if named is None:
        named = _GENERATORS[base] = type(f"Named{base.__name__}", (_NamedDefinitions, base), {})
    generator = named(schema, resolver=resolver, **VALIDATOR_OPTIONS)
    generator.definitions, generator.enums, generator.deferred, generator._named = [], [], [], {}
    generator.failures = []
    generator.base, generator.deferring = base, deferring
    return generator


def _compiled(schema: dict[str, Any], base: type, deferring: bool) -> Any:
    """The validator of ``schema`` written by the generator class ``base`` (see :func:`_generator`)."""
    resolver = RefResolver.from_schema(schema, handlers={}, store={})
    generator = _generator(schema, resolver, base, deferring)
    name = resolver.get_scope_name()
    source = generator.func_code
    namespace: dict[str, Any] = {"__name__": "covert_validator", **generator.global_state,
                                 "DEFINITIONS": generator.definitions, "ENUMS": generator.enums,
                                 "DEFERRED": generator.deferred}
    namespace["FAILED"] = _Failure(generator.failures, namespace, name)
    exec(compile(source, f"<validator {name}>", "exec"), namespace)  # noqa: S102 - generated here from the schema
    patterns = namespace.get("REGEX_PATTERNS", {})
    for key, compiled in list(patterns.items()):
        own = FORMATS.get(key) == getattr(compiled, "pattern", None)  # else a schema's pattern of that name
        patterns[key] = _FormatPattern(compiled) if own else _SchemaPattern(key)
    namespace["re"] = _BoundedRe
    return namespace[name]
