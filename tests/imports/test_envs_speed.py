"""What makes builds on imported environments fast changes no byte: compiled validators kept in the
store (cold, warm, corrupt or stale, one worker or two, or no cache at all), one cached state per
builder and world, and goals drawn only from tools a user can ask for."""

from __future__ import annotations

import hashlib
import pickle
import random
import shutil
from pathlib import Path

import fastjsonschema
import orjson
import pytest

from covert.build import BuildConfig, build
from covert.env import Environment, get_builder
from covert.env import compiled as validator_files
from covert.env.compiled import VALIDATOR_OPTIONS
from covert.imports import bound, compiled, envs
from covert.imports.bind import ImportedEnvironment
from covert.imports.store import read_spec, save_spec
from covert.synth.blueprint import askable, can_make, sample_blueprint
from covert.synth.generate import WORLDS_KEPT, shared_state
from covert.synth.records import Rejected
from tests.imports.api_fixtures import (
    memory_mcp,
    monitors_botocore,
    notes_google,
    queues_botocore,
    shop_openapi,
    stored,
)

NAMES = ["api.openapi.shop.example.1.0", "api.google.notes.v1", "api.botocore.queues.2012-11-05", "api.mcp.memory"]
CONFIG = dict(builders=NAMES, num_tasks=120, seed=3)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    yield from stored(tmp_path, monkeypatch, (shop_openapi(), notes_google(), queues_botocore(), memory_mcp()),
                      verify=True)


def _parquet(root: Path) -> dict[str, bytes]:
    files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.parquet"))}
    assert files
    return files


def _build(out: Path, workers: int = 1) -> dict[str, bytes]:
    envs.clear_caches()  # a fresh process's view: builders (and their validators) made again
    build(BuildConfig(**CONFIG), out, workers=workers, progress=False)
    return _parquet(out)


def test_verify_writes_the_compiled_validators_and_builds_load_them(store: Path) -> None:
    files = sorted(p.name for p in (store / compiled.COMPILED).glob(f"*{compiled.SUFFIX}"))
    assert files == sorted(f"{name}{compiled.SUFFIX}" for name in NAMES)
    builder = get_builder("api.openapi.shop.example.1.0")
    for tool in builder.tools:
        builder.environment._validator(tool)
    cache = builder.environment._compiled
    assert cache.compiled == 0  # every validator came from the store
    assert validator_files.read(cache.path, cache.key).keys() == set(builder.tools)


def test_cold_warm_corrupt_stale_and_two_workers_build_the_same_bytes(store: Path, tmp_path: Path) -> None:
    warm = _build(tmp_path / "warm")
    folder = store / compiled.COMPILED
    for path in folder.iterdir():
        path.unlink()
    assert _build(tmp_path / "cold") == warm
    assert _build(tmp_path / "warm-again") == warm  # now with the cut-down specs the first build wrote
    specs = sorted(folder.glob(f"*{envs.SLIM_SUFFIX}"))
    assert [p.name for p in specs] == sorted(f"{name}{envs.SLIM_SUFFIX}" for name in NAMES)
    specs[0].write_text("{not json")
    specs[1].write_bytes(specs[1].read_bytes()[:50])
    for kept in folder.glob(f"*{bound.BOUND_SUFFIX}"):  # else the bindings kept are read, not the specs
        kept.unlink()
    paths = sorted(folder.glob(f"*{compiled.SUFFIX}"))
    assert [p.name for p in paths] == sorted(f"{name}{compiled.SUFFIX}" for name in NAMES)  # written again
    paths[0].write_bytes(paths[0].read_bytes()[:200])  # truncated
    paths[1].write_bytes(b"not a compiled file at all")
    body = paths[2].read_bytes()
    paths[2].write_bytes(body[:-10] + bytes(b ^ 0xFF for b in body[-10:]))  # flipped bits: digest mismatch
    validator_files.write(paths[3], validator_files.cache_key("some other version"), {})  # whole, but for another version
    assert _build(tmp_path / "mended") == warm
    assert all(orjson.loads(p.read_bytes())["key"] for p in specs[:2])  # rewritten whole
    for path in paths:  # every bad file was rebuilt and is whole again
        name = path.name.removesuffix(compiled.SUFFIX)
        key = validator_files.cache_key(get_builder(name).version)
        assert validator_files.read(path, key).keys() == set(get_builder(name).tools), path
    assert _build(tmp_path / "two", workers=2) == warm


def test_a_cut_down_spec_is_used_only_for_the_spec_file_and_code_it_was_made_from(store: Path) -> None:
    name = "api.openapi.shop.example.1.0"
    full = get_builder(name)
    slim_at = store / compiled.COMPILED / f"{name}{envs.SLIM_SUFFIX}"
    data = orjson.loads(slim_at.read_bytes())
    assert data["spec"] is not None and len(data["spec"]["operations"]) < len(shop_openapi().operations)
    envs.clear_caches()
    light = get_builder(name)
    assert light.spec.operations == tuple(b.role.op for b in light.bound.tools.values())
    assert envs.fingerprint(light) == envs.fingerprint(full)
    # a spec file that changed (re-imported) makes the cut-down copy stale: the binder reads the file
    entry = envs.read_admitted(store)["environments"][name]
    spec_file = store / entry["spec"]
    key = envs._slim_key(spec_file, entry)
    spec_file.write_bytes(spec_file.read_bytes() + b" ")
    assert envs._slim_key(spec_file, entry) != key
    envs.clear_caches()
    assert envs.fingerprint(get_builder(name)) == envs.fingerprint(full)
    assert orjson.loads(slim_at.read_bytes())["key"] == envs._slim_key(spec_file, entry)  # made again


def test_a_build_without_the_cache_gives_the_same_bytes(store: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    cached = _build(tmp_path / "cached")
    # the validators exactly as every environment compiles them when nothing is cached
    monkeypatch.setattr(Environment, "_compiled_validators", classmethod(lambda cls: None))
    assert _build(tmp_path / "plain") == cached


def test_a_store_the_cache_cannot_be_written_to_still_validates(store: Path) -> None:
    folder = store / compiled.COMPILED
    shutil.rmtree(folder)
    folder.write_text("a file where the folder should be: every write fails, even as root\n")
    builder = get_builder("api.google.notes.v1")
    env = builder.env(builder.state(0, 0))
    for tool in builder.tools:
        out = env.call(tool, {"bogus": 1})
        assert out["error"]["code"] == "invalid_arguments", out
    assert builder.environment._compiled.compiled == len(builder.tools)


def test_cached_validators_say_what_fastjsonschema_says(store: Path) -> None:
    builder = get_builder("api.openapi.shop.example.1.0")
    rng = random.Random(0)
    checked = 0
    for tool in builder.tools:
        schema = builder.environment.argument_schema(tool)
        plain = fastjsonschema.compile(schema, **VALIDATOR_OPTIONS)
        cached = builder.environment._validator(tool)
        assert cached is not plain
        props = list(schema.get("properties") or {})
        samples = [{}, {"unknown_key": 1}, {p: rng.choice([None, 3.5, "x", [], {}]) for p in props}]
        for args in samples:
            outcomes = []
            for validate in (plain, cached):
                try:
                    validate(args)
                    outcomes.append("ok")
                except fastjsonschema.JsonSchemaValueException as exc:
                    outcomes.append(exc.message)
            assert outcomes[0] == outcomes[1], (tool, args)
            checked += outcomes[0] != "ok"
    assert checked >= len(builder.tools)


def test_a_state_stays_cached_while_a_build_cycles_through_many_builders() -> None:
    first = [shared_state("airline", seed, 0) for seed in range(100)]  # more keys than any small LRU holds
    assert all(shared_state("airline", seed, 0) is first[seed] for seed in range(100))
    for world in range(1, WORLDS_KEPT + 1):  # only the last few worlds of a builder are kept
        shared_state("airline", 0, world)
    again = shared_state("airline", 0, 0)
    assert again is not first[0] and again.hash() == first[0].hash()


def test_goals_are_tools_a_user_can_ask_for() -> None:
    builder = envs.make_builder(shop_openapi())
    context_only = [t for t in builder.tools if not askable(builder, t)]
    assert context_only == ["listOrders"]  # the fixture's list tool is only ever said as context
    for seed in range(40):
        for category in ("simple", "multiple", "parallel", "parallel_multiple", "state_changing"):
            if not can_make(builder, category):
                continue
            try:
                blueprint = sample_blueprint(builder, category, random.Random(seed), "listOrders")
            except Rejected:  # a plan no request can carry (a create beside a list of its table)
                continue
            goals = [blueprint.steps[g] for g in blueprint.goals]
            assert "listOrders" not in goals, (category, blueprint)


def test_every_api_binds_from_a_cut_down_spec_that_binds_the_same(store: Path) -> None:
    """Each cut-down copy binds to the very builder the whole spec makes (a record schema that comes
    from a read no tool implements keeps that read), and none of the four needs the whole spec."""
    for name, make in zip(NAMES, (shop_openapi, notes_google, queues_botocore, memory_mcp), strict=True):
        slim_at = store / compiled.COMPILED / f"{name}{envs.SLIM_SUFFIX}"
        slim_at.unlink(missing_ok=True)
        envs.clear_caches()
        whole = envs.fingerprint(get_builder(name))  # bound from the whole spec; writes the cut-down copy
        data = orjson.loads(slim_at.read_bytes())
        assert data["spec"] is not None, name
        assert len(data["spec"]["operations"]) <= len(make().operations)
        envs.clear_caches()
        assert envs.fingerprint(get_builder(name)) == whole, name


def test_a_record_schema_from_a_read_no_tool_implements_stays_in_the_cut_down_spec(tmp_path: Path) -> None:
    """The full monitor schema comes from GetMonitor, which binds to no tool: a copy with only the bound
    operations (or those on their tables) binds differently, so the read is kept, and custom actions go."""
    spec = read_spec(save_spec(tmp_path / "store", monitors_botocore()))  # as a store holds it
    whole = envs.make_builder(spec)
    assert "GetMonitor" not in whole.tools and "ListMonitors" in whole.tools
    target = envs.fingerprint(whole)
    assert envs.fingerprint(envs.make_builder(envs._light(whole.bound.spec, whole.bound), version=whole.version)) != target
    at = tmp_path / "monitors.spec"
    envs._save_slim(at, "key", whole, {})
    kept = orjson.loads(at.read_bytes())["spec"]
    assert kept is not None
    assert [op["name"] for op in kept["operations"]] == ["ListMonitors", "GetMonitor", "CreateMonitor"]
    again = envs._from_slim(at, "key", {}, whole.version)
    assert envs.fingerprint(again) == target


def test_a_kept_binding_builds_the_same_bytes_and_a_bad_one_is_bound_again(store: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    folder = store / compiled.COMPILED
    for path in folder.glob(f"*{bound.BOUND_SUFFIX}"):
        path.unlink()
    fresh = _build(tmp_path / "fresh")  # binds every environment and keeps the bindings
    kept = sorted(folder.glob(f"*{bound.BOUND_SUFFIX}"))
    assert [p.name for p in kept] == sorted(f"{name}{bound.BOUND_SUFFIX}" for name in NAMES)
    stamps = {p.name: p.stat().st_mtime_ns for p in kept}
    envs.clear_caches()
    calls = []
    real = envs.bind
    monkeypatch.setattr(envs, "bind", lambda *a, **k: calls.append(a) or real(*a, **k))  # counts; binds for real
    assert _build(tmp_path / "read-back") == fresh
    assert calls == []  # every builder came from its kept binding
    assert {p.name: p.stat().st_mtime_ns for p in kept} == stamps
    kept[0].write_bytes(kept[0].read_bytes()[:300])  # truncated
    kept[1].write_bytes(b"not a kept binding")
    body = kept[2].read_bytes()
    kept[2].write_bytes(body[:-10] + bytes(b ^ 0xFF for b in body[-10:]))  # flipped bits
    payload = pickle.dumps({"key": "made by other code", "api": None, "language": None})
    kept[3].write_bytes(bound.HEADER + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
    assert _build(tmp_path / "mended") == fresh
    assert len(calls) == 4  # each bad file was ignored: bound again ...
    for path in kept:  # ... and kept again, whole
        name = path.name.removesuffix(bound.BOUND_SUFFIX)
        entry = envs.read_admitted(store)["environments"][name]
        assert bound.load(path, bound.cache_key(store / entry["spec"], entry)) is not None, path


def test_a_kept_binding_is_stale_when_its_spec_file_or_entry_changes(store: Path) -> None:
    name = "api.google.notes.v1"
    full = get_builder(name)
    entry = envs.read_admitted(store)["environments"][name]
    spec_file = store / entry["spec"]
    key = bound.cache_key(spec_file, entry)
    path = store / compiled.COMPILED / f"{name}{bound.BOUND_SUFFIX}"
    api, language = bound.load(path, key)
    assert language.references.keys() == full.language.references.keys()
    assert api.version == full.version and list(api.tools) == list(full.bound.tools)
    assert all(callable(b.impl) for b in api.tools.values()) and issubclass(api.environment, ImportedEnvironment)
    assert bound.cache_key(spec_file, {**entry, "exclude": {"x": "y"}}) != key
    assert bound.cache_key(spec_file, {**entry, "version": "0.other"}) != key
    spec_file.write_bytes(spec_file.read_bytes() + b" ")  # re-imported
    assert bound.cache_key(spec_file, entry) != key
    assert bound.load(path, bound.cache_key(spec_file, entry)) is None
    envs.clear_caches()
    assert envs.fingerprint(get_builder(name)) == envs.fingerprint(full)
    assert bound.load(path, bound.cache_key(spec_file, entry)) is not None  # kept again for the new file
    assert bound.cache_key(store / "specs" / "missing.json", entry) is None
