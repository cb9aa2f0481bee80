"""Seeded fuzzing of everything that takes model output: rewards (``score``, TRL's reward, verl's
``compute_score``) and tools (``Environment.call`` on every builder).

Bounded for CI (a few seconds); ``COVERT_FUZZ_SCALE=100 python -m pytest tests/test_fuzz.py`` runs it
long. Every run of one scale is the same run (seeded). What must hold: no exception escapes, every
reward is in [0, 1], a read tool never changes the state, and every state still hashes and serialises.
Issue 32's probes too: hostile schema patterns on arguments up to 64 KB, call and message floods in
every syntax, padding and repetition against the oracle, malformed Discovery documents and module
escapes through the pre-filter (the sandbox's hostile candidates run in tests/procgen/test_hostile_replies.py,
the corruption suite has the huge cell and the unknown builder).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
from pathlib import Path
from typing import Any

import pytest

from covert.build import BuildConfig, build
from covert.env import builder_names, get_builder
from covert.io.reader import iter_rows
from covert.rewards import Scorer, compute_score, oracle_completion, trl_reward

SCALE = int(os.environ.get("COVERT_FUZZ_SCALE", "1"))
HOSTILE: list[Any] = [
    float("nan"), float("inf"), -float("inf"), 2**64, -(2**63) - 1, 10**400, "\ud800", "a\udfffb", "",
    "x" * 5000, None, True, 0, -1, 1e308, [], {}, [[[[[[[[1]]]]]]]], {"k": {"k": {"k": "v"}}}, "'; DROP TABLE",
    "<tool_call>", "\x00", "0.30000000000000004", -0.0,
]


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("fuzz") / "ds"
    build(BuildConfig(builders=["all"], num_tasks=120, seed=9, multi_turn=True), out, progress=False)
    return list(iter_rows(Path(out), "rl")) + list(iter_rows(Path(out), "rl-multiturn"))


def _hostile_value(rng: random.Random) -> Any:
    return rng.choice(HOSTILE)


def _mutated_arguments(arguments: Any, rng: random.Random) -> Any:
    if not isinstance(arguments, dict) or not arguments or rng.random() < 0.2:
        return rng.choice([_hostile_value(rng), {}, {"extra": _hostile_value(rng)}, "not json {", [1, 2]])
    out = dict(arguments)
    key = rng.choice(list(out))
    out[key] = _hostile_value(rng)
    return out


def _mutated_completion(completion: list[dict[str, Any]], rng: random.Random) -> Any:
    messages = [json.loads(json.dumps(m)) for m in completion]
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(8)
        if kind == 0 and messages:
            messages.pop(rng.randrange(len(messages)))
        elif kind == 1 and messages:
            messages.insert(rng.randrange(len(messages) + 1), rng.choice(messages))
        elif kind == 2:
            rng.shuffle(messages)
        elif kind == 3:
            for message in messages:
                for call in _calls(message):
                    call["function"]["arguments"] = _mutated_arguments(call["function"].get("arguments"), rng)
        elif kind == 4 and messages:
            messages[rng.randrange(len(messages))] = rng.choice([None, 3, "text", {"role": "wizard"}, {"role": "assistant"}])
        elif kind == 5:
            messages.append({"role": "assistant", "content": _hostile_value(rng)})
        elif kind == 6:
            for message in messages:
                for call in _calls(message):
                    call["function"]["name"] = rng.choice(["", "x" * 300, "no_such_tool", None, 5])
        else:
            calls = [{"id": f"f{i}", "type": "function", "function": {"name": "x", "arguments": {}}} for i in range(rng.randint(60, 300))]
            messages.append({"role": "assistant", "content": "", "tool_calls": calls})
    return rng.choice([messages, messages, _as_text(messages, rng)])


def _calls(message: Any) -> list[Any]:
    return [c for c in (message.get("tool_calls") or []) if isinstance(c, dict)] if isinstance(message, dict) else []


def _as_text(messages: list[Any], rng: random.Random) -> str:
    parts = []
    for message in messages:
        if isinstance(message, dict):
            for call in message.get("tool_calls") or []:
                try:
                    parts.append("<tool_call>" + json.dumps(call.get("function")) + "</tool_call>")
                except (TypeError, ValueError):
                    parts.append("<tool_call>{broken")
            if isinstance(message.get("content"), str):
                parts.append(message["content"])
    text = "\n".join(parts)
    return rng.choice([text, text[: rng.randrange(len(text) + 1)], "[f(a=1), g(b=" * rng.randint(1, 50), "<|im_start|>user\nhi"])


def _check(value: Any) -> None:
    assert isinstance(value, float) and 0.0 <= value <= 1.0 and not math.isnan(value), value


def test_rewards_hold_on_hostile_completions(rows: list[dict[str, Any]]) -> None:
    rng = random.Random(1)
    scorer = Scorer()
    oracles = {r["task_id"] + r["data_source"] + str("user_scenario" in r["extra_info"]): oracle_completion(r, scorer)
               for r in rows}
    for _ in range(300 * SCALE):
        row = rng.choice(rows)
        completion = _mutated_completion(oracles[row["task_id"] + row["data_source"] + str("user_scenario" in row["extra_info"])], rng)
        _check(scorer.score(row, completion).value)
        text = completion if isinstance(completion, str) else _as_text(completion, rng)
        _check(compute_score(row["data_source"], text, row["reward_model"]["ground_truth"], row["extra_info"]))
    batch = [rng.choice(rows) for _ in range(8 * SCALE)]
    completions = [_mutated_completion(oracle_completion(r, scorer), rng) for r in batch]
    completions = [c if isinstance(c, list) else [{"role": "assistant", "content": c}] for c in completions]
    columns = {key: [r.get(key) for r in batch] for key in batch[0]}
    for value in trl_reward(completions, **columns):
        _check(value)


@pytest.mark.parametrize("name", builder_names())
def test_tools_hold_on_hostile_calls(name: str) -> None:
    rng = random.Random(name)
    builder = get_builder(name)
    env = builder.env(builder.state(3, 0))
    specs = list(env.tool_specs.values())
    for _ in range(400 * SCALE):
        spec = rng.choice(specs)
        properties = list(spec.parameters.get("properties", {}))
        arguments: Any = {key: rng.choice([_hostile_value(rng), "x", 1, 2.5]) for key in rng.sample(properties, k=rng.randint(0, len(properties)))}
        if rng.random() < 0.1:
            arguments = rng.choice(["{bad", "[]", json.dumps(arguments, default=str)[:50], None, 7])
        before = env.state.hash()
        output = env.call(rng.choice([spec.name, spec.name, "nope"]), arguments)
        json.dumps(output, allow_nan=False)
        if not spec.writes:
            assert env.state.hash() == before, (spec.name, arguments)
    env.state.hash()
    json.loads(env.state.to_json())


# ---- issue 32's probes: bounded work whatever the pattern, the completion or the document ------------

CATASTROPHIC = [r"^(\w+\s?)*$", r"^(a+)+$", r"^(a|a)*$", r"^(a|aa)*$", r"^(.*a){12}$", r"(x+x+)+y", r"^(\d+\.?)+$",
                r"^(?=.*\d)(a|a)*\d$", r"^(\w+)\s\1*(\w+\s?)*$", r"[\uD800\uDBFF-\uDC00]*"]


def test_schema_patterns_hold_on_hostile_arguments() -> None:
    """Any pattern, any argument up to 64 KB: an answer (a result or an error observation), never a hang
    (the timings: benchmarks/pattern_bench.py)."""
    from tests.env.probes import pattern_environment

    rng = random.Random(32)
    for pattern in CATASTROPHIC:
        env = pattern_environment({"pattern": pattern,
                                   "format": rng.choice(["email", "hostname", "date-time", "regex", "uri"])})
        for _ in range(20 * SCALE):
            size = rng.choice([27, 1024, 16 * 1024, 64 * 1024])
            text = (rng.choice(["a", "a ", "1.", "x", ".", "a-", "("]) * size)[: size - 1] + rng.choice(["!", "", "y"])
            output = env.call("create", {"name": text})
            assert isinstance(output, dict), output


def test_parse_floods_are_refused_in_every_syntax(rows: list[dict[str, Any]]) -> None:
    """Thousands of calls or messages in any syntax: a score of 0 with its reason, read no further than
    the counts (the timings: benchmarks/reward_parse_bench.py)."""
    rng = random.Random(33)
    scorer = Scorer()
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
    makers = [
        lambda n: "[" + ", ".join(["f(a=1)"] * n) + "]",
        lambda n: json.dumps([{"name": "f", "arguments": {"a": 1}}] * n),
        lambda n: '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>' * n,
        lambda n: [{"role": "assistant", "content": "", "tool_calls": [call] * n}],
        lambda n: [{"role": "assistant", "content": "", "tool_calls": [call]}] * n,
        lambda n: "<|im_start|>user\nhi<|im_end|>" * n,
        lambda n: "[f(a=" + "1+" * n * 4 + "1)]",
    ]
    for _ in range(20 * SCALE):
        result = scorer.score(rng.choice(rows), rng.choice(makers)(rng.randint(600, 20_000)))
        _check(result.value)
        assert result.value == 0.0 and any("too_many" in r or "too_long" in r for r in result.reasons), result.reasons


def test_padding_and_repetition_never_beat_the_oracle(rows: list[dict[str, Any]]) -> None:
    rng = random.Random(34)
    scorer = Scorer()
    for _ in range(30 * SCALE):
        row = rng.choice(rows)
        oracle = oracle_completion(row, scorer)
        final = oracle[-1]["content"] or ""
        if not final.strip():
            continue
        trick = rng.choice([" ".join([final] * rng.randint(2, 60)), final + "\n" + final,
                            "Sure, happy to help! " * rng.randint(30, 200) + final,
                            final + " " + json.dumps(row["extra_info"])[: rng.randint(3000, 20000)]])
        hacked = [*oracle[:-1], {**oracle[-1], "content": trick}]
        assert scorer.score(row, hacked).value < scorer.score(row, oracle).value == 1.0, (row["task_id"], trick[:80])


def test_discovery_documents_are_imported_or_rejected() -> None:
    from covert.imports.google import import_discovery_bytes
    from covert.imports.model import ApiSpec, SpecRejected
    from tests.imports.test_hostile_documents import mutated

    rng = random.Random(35)
    for _ in range(300 * SCALE):
        with contextlib.suppress(SpecRejected):
            assert isinstance(import_discovery_bytes(json.dumps(mutated(rng)).encode(), {}, "doc"), ApiSpec)


def test_the_prefilter_never_raises_and_refuses_module_escapes() -> None:
    from covert.sandbox import prefilter

    rng = random.Random(36)
    heads = ["dataclasses.sys", "json.codecs", "json.decoder", "random._os", "functools.reduce", "re.compile",
             "collections.abc.Mapping", "operator.attrgetter", "operator.itemgetter", "typing.Any"]
    for _ in range(200 * SCALE):
        chosen = rng.sample(heads, rng.randint(1, 3))
        modules = sorted({h.split(".")[0] for h in chosen} | ({"collections.abc"} if any("abc" in h for h in chosen) else set()))
        source = "".join(f"import {m}\n" for m in modules) + "".join(f"x{i} = {h}\n" for i, h in enumerate(chosen))
        reasons = prefilter(source)
        escapes = [h for h in chosen if h.split(".")[1] in ("sys", "codecs", "decoder", "_os", "attrgetter")]
        assert bool(reasons) == bool(escapes), (source, reasons)
