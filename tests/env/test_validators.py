"""Argument validators (covert.env.validators): fastjsonschema's messages, patterns and formats checked
in bounded time whatever the pattern, and nothing loaded from disk."""

from __future__ import annotations

import random

import fastjsonschema
import pytest

from covert.env import get_builder, validators
from covert.env.patterns import MAX_FORMAT_LENGTH, bounded_pattern, checkable
from covert.env.validators import VALIDATOR_OPTIONS, compile_validator
from tests.env.probes import pattern_environment
from tests.fresh_python import run_json

# the pattern: 49 s on a 27-character name with a backtracking engine
CATASTROPHIC = r"^(\w+\s?)*$"
HOSTILE_TEXTS = ["a" * 26 + "!", "a" * (64 * 1024 - 1) + "!", "a " * 20000 + "!"]


def _outcome(validate, args) -> str:
    try:
        validate(args)
        return "ok"
    except fastjsonschema.JsonSchemaValueException as exc:
        return exc.message


def test_hand_written_validators_say_what_fastjsonschema_says() -> None:
    rng = random.Random(0)
    checked = 0
    for name in ("retail", "banking", "calendar"):
        environment = get_builder(name).environment
        for tool_name in environment.tool_specs:
            schema = environment.argument_schema(tool_name)
            plain = fastjsonschema.compile(schema, **VALIDATOR_OPTIONS)
            ours = compile_validator(schema)
            props = list(schema.get("properties") or {})
            for args in ({}, {"bogus": 1}, {p: rng.choice([None, 3.5, "x", [], {}, 7]) for p in props}):
                assert _outcome(ours, args) == _outcome(plain, args), (tool_name, args)
                checked += 1
    assert checked > 100


def test_a_catastrophic_pattern_is_checked_in_bounded_time_in_a_fresh_process() -> None:
    """Without the bounded engine this process runs for hours (the subprocess would time out)."""
    result = run_json(f"""
import json
from covert.env.validators import compile_validator
validate = compile_validator({{"type": "object", "properties": {{"name": {{"type": "string", "pattern": {CATASTROPHIC!r}}}}}}})
said = []
for text in {HOSTILE_TEXTS!r}:
    try:
        validate({{"name": text}})
        said.append("ok")
    except Exception as exc:
        said.append(exc.message[:40])
print(json.dumps(said))
""")
    assert result == [f"data.name must match pattern {CATASTROPHIC}"] * 3


def test_patterns_follow_json_schema_semantics() -> None:
    assert bounded_pattern(CATASTROPHIC).search("hello world")
    assert not bounded_pattern(CATASTROPHIC).search("hello world!")
    assert bounded_pattern(r"^\d+$").search("123") and not bounded_pattern(r"^\d+$").search("١٢٣")  # ECMA: ASCII
    assert bounded_pattern("b+").search("abbc") and not bounded_pattern("b+").fullmatch("abbc")
    # lookaround runs with a backtracking budget: it still answers, a text exhausting it does not match
    lookahead = bounded_pattern(r"^(?=.*\d)(a|a)*\d$")
    assert lookahead.checked and lookahead.search("aa1") and not lookahead.search("a" * 50_000 + "!")
    # a pattern no bounded engine compiles is documentation only: every text passes, importers drop it
    unchecked = bounded_pattern(r"[\uD800\uDBFF-\uDC00]*")
    assert not unchecked.checked and unchecked.search("anything") and not checkable(unchecked.pattern)
    assert checkable(CATASTROPHIC) and not checkable("(unclosed") and not checkable(3)


def test_formats_read_a_bounded_length() -> None:
    validate = compile_validator({"type": "object", "properties": {"e": {"type": "string", "format": "email"},
                                                                    "r": {"type": "string", "format": "regex"}}})
    assert _outcome(validate, {"e": "maria.chen@example.com", "r": "^a+$"}) == "ok"
    # fastjsonschema's own e-mail expression is quadratic: 64 KB of dots took 7.5 s
    assert _outcome(validate, {"e": "." * 65536}) == "data.e must be email"
    assert _outcome(validate, {"e": "a" * MAX_FORMAT_LENGTH + "@example.com"}) == "data.e must be email"
    assert _outcome(validate, {"r": "(" * 60000}) == "data.r must be a valid regex"


def test_a_tool_with_a_hostile_pattern_answers_with_an_error_observation() -> None:
    env = pattern_environment({"pattern": CATASTROPHIC})
    assert env.call("create", {"name": "ok name"}) == {"name": "ok name"}
    for text in HOSTILE_TEXTS:
        out = env.call("create", {"name": text})
        assert out["error"]["code"] == "invalid_arguments" and "must match pattern" in out["error"]["message"]


def test_nothing_is_read_from_or_written_to_a_validator_cache(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Earlier versions kept marshalled bytecode in ``~/.cache/covert/validators``: a file planted there
    (or anywhere) is never run, and a tool call writes nothing under the home folder."""
    monkeypatch.setenv("HOME", str(tmp_path))
    folder = tmp_path / ".cache" / "covert" / "validators"
    folder.mkdir(parents=True)
    marker = tmp_path / "marker"
    planted = folder / "retail-0000000000000000.validators"
    planted.write_bytes(b"covert-validators 1\n" + repr(f"open({str(marker)!r}, 'w')").encode())
    result = run_json("""
import json
from covert.env import get_builder
builder = get_builder("retail")
env = builder.env(builder.state(0, 0))
print(json.dumps(sorted(env.call(t, {"bogus": 1})["error"]["code"] for t in builder.tools)[:1]))
""")
    assert result == ["invalid_arguments"]
    assert not marker.exists() and [p.name for p in folder.iterdir()] == [planted.name]


def test_a_schema_is_compiled_once_per_process() -> None:
    """Imported APIs repeat argument schemas across tools: the same schema (same JSON, same key order)
    gets the same validator; another key order is another schema (its errors may come in another order)."""
    first = compile_validator({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}})
    again = compile_validator({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}})
    other = compile_validator({"type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "string"}}})
    assert first is again and other is not first
    assert first({"a": "x", "b": 1}) == {"a": "x", "b": 1}
    with pytest.raises(fastjsonschema.JsonSchemaValueException):
        first({"a": 1})


NESTED = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "type": "object",
    "required": ["kind", "body"],
    "additionalProperties": False,
    "properties": {
        "kind": {"type": "string", "enum": ["ALPHA", "BETA", "GAMMA_DELTA"]},
        "level": {"enum": [1, 2.5, True, None, "one"]},
        "flag": {"enum": [False]},
        "empty": {"enum": []},
        "body": {
            "type": "object",
            "required": ["items"],
            "properties": {
                "items": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False,
                    "properties": {"state": {"type": "string", "enum": ["ON", "OFF"]},
                                   "code": {"type": "string", "pattern": "^[a-z]{2}-[0-9]+$"},
                                   "count": {"type": "integer", "minimum": 1}}}},
                "mode": {"type": "string", "enum": ["FAST", "SLOW"], "format": "email"},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "uniqueItems": True},
                "region": {"type": "string", "enum": [f"region-{n:02d}" for n in range(60)]},
            },
        },
    },
}


def _failure(validate, args) -> tuple:
    try:
        return ("ok", validate(args))
    except fastjsonschema.JsonSchemaValueException as exc:
        return (exc.message, exc.value, exc.name, exc.rule, exc.definition)


@pytest.mark.parametrize("deferred_bytes", [validators.DEFERRED_BYTES, 0, 10**9])
def test_enums_definitions_and_deferred_properties_fail_as_fastjsonschema_fails(
        deferred_bytes: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The generated code names enums of strings and the definitions failures report instead of writing
    them out, and checks large properties with functions compiled on first use: every outcome (message,
    value, name, rule, definition) is fastjsonschema's, for enums of strings, of mixed members (True is not
    1, 2.5 is not "2.5") and empty ones, nested in arrays, whichever properties are deferred (none, the
    large ones, all, and theirs in turn)."""
    monkeypatch.setattr(validators, "DEFERRED_BYTES", deferred_bytes)
    monkeypatch.setattr(validators, "_COMPILED", {})
    plain = fastjsonschema.compile(NESTED, **VALIDATOR_OPTIONS)
    ours = compile_validator(NESTED)
    deferred = ours.__globals__["DEFERRED"]
    assert len(deferred) == {0: 5, 10**9: 0}.get(deferred_bytes, 1)  # the default defers "body" only
    assert all(d.validate is None for d in deferred)  # nothing compiled before a value is checked
    rng = random.Random(5)
    pool = ["ALPHA", "alpha", "GAMMA_DELTA", "ON", "OFF", "x", "y", "ab-12", "a@b.co", "FAST", "one", 1, 1.0, 2.5,
            True, False, None, 0, [], {}, ["x", "x"], ["x", "y"], ["z"], "region-07", "region-60"]
    cases = [{}, {"kind": "ALPHA"}, {"kind": "ALPHA", "body": {"items": []}}, {"kind": "BETA", "body": {}},
             {"kind": "ALPHA", "body": {"items": [{"state": "ON", "code": "ab-1", "count": 2}]}, "extra": 1}]
    for _ in range(600):
        item = {k: rng.choice(pool) for k in ("state", "code", "count") if rng.random() < 0.6}
        body = {k: rng.choice(pool) for k in ("mode", "tags", "region") if rng.random() < 0.5}
        body["items"] = [item] if rng.random() < 0.9 else rng.choice(pool)
        args = {k: rng.choice(pool) for k in ("level", "flag", "empty") if rng.random() < 0.3}
        args.update(kind=rng.choice(["ALPHA", "BETA", "GAMMA_DELTA", "ZETA", 1, None]), body=body)
        cases.append(args)
    outcomes = [_failure(ours, args) for args in cases]
    assert outcomes == [_failure(plain, args) for args in cases]
    rules = {outcome[3] for outcome in outcomes if outcome[0] != "ok"}
    assert {"enum", "pattern", "additionalProperties", "required", "type"} <= rules
    assert ("ok", cases[2]) in outcomes
    assert all(d.validate is not None for d in deferred)


def test_a_failed_check_builds_its_exception_only_when_it_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """A validator's code holds one short ``raise FAILED(n, locals())`` per check; the exception's
    expression, fastjsonschema's own, is compiled when that check first fails, and builds the same
    exception (message, value, name, rule, definition) from the failing function's locals, in loops too."""
    monkeypatch.setattr(validators, "_COMPILED", {})
    monkeypatch.setattr(validators, "DEFERRED_BYTES", 10**9)
    ours = compile_validator(NESTED)
    plain = fastjsonschema.compile(NESTED, **VALIDATOR_OPTIONS)
    failed = ours.__globals__["FAILED"]
    assert len(failed._expressions) > 20 and not failed._code
    assert _failure(ours, {"kind": "ALPHA", "body": {"items": []}})[0] == "ok" and not failed._code
    looped = {"kind": "ALPHA", "body": {"items": [{"state": "ON"}, {"state": "ON", "count": 0}]}}
    assert _failure(ours, looped) == _failure(plain, looped)
    assert _failure(ours, looped)[2] == "data.body.items[1].count" and len(failed._code) == 1


def test_argument_validators_decide_as_fastjsonschema_and_compile_it_only_for_a_refused_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A valid call is recognised by jsonschema-rs (fastjsonschema's validator is not compiled for it); a
    refused one raises fastjsonschema's exception. Over every hand-written tool, an imported-style schema
    with patterns, enums and nesting, and values of every kind, the verdict and the message are
    fastjsonschema's; schemas with its own keywords (formats, multipleOf, uniqueItems, $ref) or a pattern
    only the bounded engine runs are left to it, and so are values jsonschema-rs cannot read."""
    monkeypatch.setattr(validators, "_CHECKS", {})
    monkeypatch.setattr(validators, "_COMPILED", {})
    rng = random.Random(3)
    pool = [None, True, False, 0, 1, -3, 2.0, 2.5, 10**30, "", "x", "ab-12", "ALPHA", "ON", "region-07", [], ["x"],
            {}, {"state": "ON"}, {"a": 1}, "2024-05-01T10:00:00Z", "AB-12", "ab-1234567"]
    schemas = [get_builder(name).environment.argument_schema(tool) for name in ("retail", "banking", "calendar",
                                                                                "airline")
               for tool in get_builder(name).environment.tool_specs]
    plain_nested = dict(NESTED)
    plain_nested["properties"] = {**NESTED["properties"], "body": {
        **NESTED["properties"]["body"], "properties": {k: v for k, v in NESTED["properties"]["body"]["properties"].items()
                                                       if k not in ("mode", "tags")}}}
    schemas.append(plain_nested)
    compared = refused = 0
    for schema in schemas:
        plain = fastjsonschema.compile(schema, **VALIDATOR_OPTIONS)
        ours = validators.argument_validator(schema)
        props = list(schema.get("properties") or {})
        for _ in range(40):
            args = {p: rng.choice(pool) for p in props if rng.random() < 0.7}
            if rng.random() < 0.1:
                args["bogus"] = 1
            expected = _failure(plain, args)
            assert _failure(ours, args) == expected, (schema.get("title"), args)
            compared += 1
            refused += expected[0] != "ok"
    assert compared > 1000 and 100 < refused < compared
    fast = validators.argument_validator(plain_nested)
    assert fast._fast is not None
    valid = {"kind": "ALPHA", "body": {"items": [{"state": "ON", "code": "ab-12", "count": 2}], "region": "region-07"}}
    monkeypatch.setattr(validators, "_CHECKS", {})
    fresh = validators.argument_validator(plain_nested)
    assert fresh(valid) == valid and fresh._full is None  # no fastjsonschema for a valid call
    with pytest.raises(fastjsonschema.JsonSchemaValueException, match="must match pattern"):
        fresh({**valid, "body": {"items": [{"code": "AB-12"}]}})
    assert fresh._full is not None
    # fastjsonschema's own keywords and a lookaround pattern: no jsonschema-rs verdict at all
    for schema in (NESTED, {"type": "object", "properties": {"n": {"type": "number", "multipleOf": 0.1}}},
                   {"type": "object", "properties": {"p": {"type": "string", "pattern": r"^(?=.*\d)[a-z0-9]+$"}}}):
        assert validators.argument_validator(schema)._fast is None
    # a value jsonschema-rs cannot read is fastjsonschema's to judge
    loose = validators.argument_validator({"type": "object", "properties": {"tags": {"type": "array"}}})
    assert loose._fast is not None
    with pytest.raises(fastjsonschema.JsonSchemaValueException, match="must be array"):
        loose({"tags": {"a", "b"}})
