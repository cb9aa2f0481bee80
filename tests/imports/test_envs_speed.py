"""What makes builds on imported environments fast changes no byte: cut-down specs kept in the store
(cold, warm, corrupt or stale, one worker or two), one cached state per builder and world, and goals
drawn only from tools a user can ask for. Nothing the store holds is loaded as code: files of earlier
versions (pickled bindings, marshalled validators) are ignored with a warning, never run."""

from __future__ import annotations

import hashlib
import marshal
import pickle
import random
import shutil
from pathlib import Path

import fastjsonschema
import orjson
import pytest

from covert.build import BuildConfig, build
from covert.env import Builder, get_builder
from covert.env.validators import VALIDATOR_OPTIONS
from covert.errors import Rejected
from covert.imports import envs
from covert.imports.state_cache import MADE, STATES, StoredStatesBuilder, with_stored_states
from covert.imports.state_cache import WORLDS_KEPT as WORLDS_IN_STORE
from covert.imports.store import read_spec, save_spec
from covert.synth import generate
from covert.synth.blueprint import askable, can_make, sample_blueprint
from covert.synth.generate import WORLDS_KEPT, shared_state
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
    generate._STATES.clear()  # and seeded states drawn again, or read back from the store
    build(BuildConfig(**CONFIG), out, workers=workers, progress=False)
    return _parquet(out)


def test_cold_warm_corrupt_stale_and_two_workers_build_the_same_bytes(store: Path, tmp_path: Path) -> None:
    warm = _build(tmp_path / "warm")
    folder = store / envs.COMPILED
    shutil.rmtree(folder)
    assert _build(tmp_path / "cold") == warm
    assert _build(tmp_path / "warm-again") == warm  # now with the cut-down specs and states the first build wrote
    assert {p.parent.parent.name for p in (folder / STATES).glob("*/*/*.json")} == set(NAMES)
    made = {p.parts[-5] for p in (folder / STATES).glob(f"*/*/{MADE}/*/*.json")}  # and the records creates made
    assert made and made <= set(NAMES)
    specs = sorted(folder.glob(f"*{envs.SLIM_SUFFIX}"))
    assert [p.name for p in specs] == sorted(f"{name}{envs.SLIM_SUFFIX}" for name in NAMES)
    specs[0].write_text("{not json")
    specs[1].write_bytes(specs[1].read_bytes()[:50])
    assert _build(tmp_path / "mended") == warm
    assert all(orjson.loads(p.read_bytes())["key"] for p in specs[:2])  # rewritten whole
    assert _build(tmp_path / "two", workers=2) == warm


def test_a_cut_down_spec_is_used_only_for_the_spec_file_and_code_it_was_made_from(store: Path) -> None:
    name = "api.openapi.shop.example.1.0"
    full = get_builder(name)
    slim_at = store / envs.COMPILED / f"{name}{envs.SLIM_SUFFIX}"
    data = orjson.loads(slim_at.read_bytes())
    assert data["spec"] is not None and len(data["spec"]["operations"]) < len(shop_openapi().operations)
    envs.clear_caches()
    light = get_builder(name)
    assert light.spec.operations == tuple(b.role.op for b in light.bound.tools.values())
    assert envs.fingerprint(light) == envs.fingerprint(full)
    # a spec file that changed (re-imported) makes the cut-down copy stale: the binder reads the file
    entry = envs.read_admitted(store)["environments"][name]
    spec_file = store / entry["spec"]
    key = envs._slim_key(envs._file_digest(spec_file), entry)
    spec_file.write_bytes(spec_file.read_bytes() + b" ")
    assert envs._slim_key(envs._file_digest(spec_file), entry) != key
    envs.clear_caches()
    assert envs.fingerprint(get_builder(name)) == envs.fingerprint(full)
    assert orjson.loads(slim_at.read_bytes())["key"] == envs._slim_key(envs._file_digest(spec_file), entry)  # made again


def test_validators_say_what_fastjsonschema_says(store: Path) -> None:
    builder = get_builder("api.openapi.shop.example.1.0")
    rng = random.Random(0)
    checked = 0
    for tool in builder.tools:
        schema = builder.environment.argument_schema(tool)
        plain = fastjsonschema.compile(schema, **VALIDATOR_OPTIONS)
        cached = builder.environment._validator(tool)  # bounded patterns and formats, same messages
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
        slim_at = store / envs.COMPILED / f"{name}{envs.SLIM_SUFFIX}"
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


class _Planted:
    """A pickle that, loaded, would leave a marker file behind (what a crafted ``.bound`` file did)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (Path.write_text, (self.marker, "code from the store ran"))


def test_files_of_an_earlier_covert_in_the_store_are_never_run(store: Path, tmp_path: Path,
                                                               capfd: pytest.CaptureFixture[str]) -> None:
    """A crafted ``<store>/compiled/<env>.bound`` (a pickle) or ``.validators`` (marshalled bytecode) with
    the header and digest an earlier covert checked: the build ignores it with one warning line, and
    ``covert envs verify`` deletes it."""
    from covert.cli import main

    fresh = _build(tmp_path / "fresh")
    folder = store / envs.COMPILED
    marker = tmp_path / "marker"
    for name in NAMES:
        body = pickle.dumps({"key": "foreign", "api": _Planted(marker), "language": None}, protocol=5)
        (folder / f"{name}.bound").write_bytes(b"covert-bound 2\n" + hashlib.sha256(body).hexdigest().encode()
                                               + b"\n" + body)
        code = compile(f"open({str(marker)!r}, 'w').write('bytecode from the store ran')", "<planted>", "exec")
        (folder / f"{name}.validators").write_bytes(b"covert-validators 1\n" + marshal.dumps(code))
    capfd.readouterr()
    assert _build(tmp_path / "planted") == fresh
    assert not marker.exists()
    warned = [line for line in capfd.readouterr().err.splitlines() if "warning" in line]
    assert len(warned) == 1 and str(folder) in warned[0] and "covert envs verify" in warned[0]
    envs.clear_caches()
    assert main(["envs", "verify"]) == 0
    assert not [p for p in folder.iterdir() if p.suffix in (".bound", ".validators")]
    assert not marker.exists()


def test_seeded_states_are_kept_in_the_store_and_read_back(store: Path) -> None:
    """A state is drawn once and kept as JSON under the environment's content key; a later process reads
    it back (what the file says is what it gets); a damaged file is drawn again and rewritten."""
    name = NAMES[1]
    builder = get_builder(name)
    assert isinstance(builder, StoredStatesBuilder)
    drawn = builder.state(7, 2)
    kept = builder.states_at / "7-2-1.json"
    assert orjson.loads(kept.read_bytes()) == drawn.to_dict()
    assert builder.state(7, 2).hash() == drawn.hash()
    planted = orjson.loads(kept.read_bytes())
    table = next(t for t in planted["tables"] if planted["tables"][t])
    planted["tables"][table] = {}
    kept.write_bytes(orjson.dumps(planted))
    envs.clear_caches()
    assert get_builder(name).state(7, 2).to_dict()["tables"][table] == {}  # read back, not drawn
    for damage in (b"{not json", b"[1, 2]", b'{"tables": 3}'):
        kept.write_bytes(damage)
        envs.clear_caches()
        assert get_builder(name).state(7, 2).hash() == drawn.hash()
        assert orjson.loads(kept.read_bytes()) == drawn.to_dict()
    get_builder(name).state(7, WORLDS_IN_STORE)
    assert not (builder.states_at / f"7-{WORLDS_IN_STORE}-1.json").exists()  # past the worlds kept


def test_the_records_create_tools_make_are_kept_in_the_store_and_read_back(store: Path) -> None:
    """The n-th record a create tool makes is drawn once and kept as JSON beside the environment's
    states; a later process reads it back (what the file says is what the call makes), and a damaged
    file is drawn again and rewritten."""
    name = NAMES[0]

    def created() -> dict:
        builder = get_builder(name)
        state = builder.state(5, 0).fork()
        return builder.env(state).call("createCustomer", {"email": "ana@example.com", "name": "Ana Diaz"})

    first = created()
    folder = get_builder(name).states_at / MADE / "createCustomer"
    [kept] = list(folder.glob("*.json"))
    stored_record = orjson.loads(kept.read_bytes())
    assert stored_record.keys() == first.keys() and stored_record["name"] != "Ana Diaz"  # drawn, before the call's values
    planted = {**stored_record, "metadata": {"planted": "yes"}}
    kept.write_bytes(orjson.dumps(planted))
    envs.clear_caches()
    assert created()["metadata"] == {"planted": "yes"}  # read back, not drawn
    for damage in (b"{not json", b"[1, 2]"):
        kept.write_bytes(damage)
        envs.clear_caches()
        assert created() == first
        assert orjson.loads(kept.read_bytes()) == stored_record


def test_a_changed_environment_keeps_its_states_under_a_new_key_and_verify_prunes(store: Path) -> None:
    """The content key follows the spec file, the admitted entry and the code: a changed entry draws
    again into a new folder and the old one goes; ``covert envs verify`` drops the states of environments
    it no longer admits."""
    from covert.cli import main

    name = NAMES[0]
    old = get_builder(name)
    first = old.state(3, 0).hash()
    admitted = envs.read_admitted(store)
    admitted["environments"][name]["license_note"] = "changed"
    (store / envs.ADMITTED).write_text(orjson.dumps(admitted).decode())
    envs.clear_caches()
    new = get_builder(name)
    assert new.states_at != old.states_at and new.states_at.parent == old.states_at.parent
    assert new.state(3, 0).hash() == first
    assert new.states_at.is_dir() and not old.states_at.exists()
    other = get_builder(NAMES[1])
    other.state(3, 0)
    spec_file = store / envs.read_admitted(store)["environments"][NAMES[1]]["spec"]
    spec_file.unlink()
    envs.clear_caches()
    assert main(["envs", "verify"]) == 0
    states = store / envs.COMPILED / STATES
    assert NAMES[1] not in {p.name for p in states.iterdir()} and name in {p.name for p in states.iterdir()}


def test_a_state_json_would_change_is_never_kept(tmp_path: Path) -> None:
    """A state holding what JSON does not read back the same (a tuple, NaN) is drawn every time."""
    base = envs.make_builder(shop_openapi())

    def odd_state(rng: random.Random, scale: int) -> dict:
        return {"tables": {"t": {"1": {"pair": (1, 2), "ratio": float("nan")}}}, "counters": {}}

    from dataclasses import replace

    builder = with_stored_states(replace(base, make_state=odd_state), tmp_path, "key")
    assert isinstance(builder, Builder)
    builder.state(0, 0)
    assert not any(tmp_path.rglob("*.json"))
    kept = with_stored_states(base, tmp_path, "key")
    assert kept.bound is base.bound and kept.spec is base.spec
    assert kept.state(0, 0).hash() == base.state(0, 0).hash()
    assert [p.name for p in tmp_path.rglob("*.json")] == ["0-0-1.json"]


def _bound_afresh(store: Path, name: str) -> tuple[Path, Builder, str, dict]:
    """The path of ``name``'s cut-down spec's file, its builder bound from the whole spec (which writes that
    file again), the builder's fingerprint and the file's data."""
    slim_at = store / envs.COMPILED / f"{name}{envs.SLIM_SUFFIX}"
    slim_at.unlink(missing_ok=True)
    envs.clear_caches()
    fresh = get_builder(name)
    return slim_at, fresh, envs.fingerprint(fresh), orjson.loads(slim_at.read_bytes())


def test_a_cut_down_spec_carries_its_vocabulary_and_a_bad_one_is_worked_out_again(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from covert.imports import resources
    from covert.imports.model import ApiSpec

    name = "api.google.notes.v1"
    slim_at, _fresh, whole, data = _bound_afresh(store, name)  # with its vocabulary
    read_back = ApiSpec.from_dict(data["spec"])
    assert data["vocabulary"] and data["vocabulary"] == sorted(resources.spec_vocabulary(read_back))

    def walked(name: str) -> tuple[str, ...]:
        raise AssertionError("the vocabulary was worked out again")

    with monkeypatch.context() as patched:  # read back, the spec's schemas are not walked for it
        patched.setattr(resources, "_long_words", walked)
        envs.clear_caches()
        assert envs.fingerprint(get_builder(name)) == whole
    for bad in ({"not": "a list"}, [1, 2], None):
        slim_at.write_bytes(orjson.dumps({**data, "vocabulary": bad}))
        envs.clear_caches()
        assert envs.fingerprint(get_builder(name)) == whole


def test_a_cut_down_spec_carries_its_intents_and_a_bad_one_is_worked_out_again(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from covert.imports import language

    name = "api.openapi.shop.example.1.0"
    slim_at, fresh, whole, data = _bound_afresh(store, name)  # with its intents
    assert set(data["intents"]) == set(fresh.language.intents)
    asks = [t for said in data["intents"].values() for parts in said for t in parts[0]]
    assert asks and all(isinstance(t, str) for t in asks)

    def worked_out(*args: object) -> None:
        raise AssertionError("the intents were worked out again")

    with monkeypatch.context() as patched:  # read back, no intent is worked out again
        patched.setattr(language, "_intents", worked_out)
        envs.clear_caches()
        kept = get_builder(name)
        assert envs.fingerprint(kept) == whole
        assert kept.language.intents == fresh.language.intents
        assert list(kept.language.intents) == list(fresh.language.intents)  # in the tools' order
    calls = []
    real = language._intents
    monkeypatch.setattr(language, "_intents", lambda *a: calls.append(a) or real(*a))
    tool = next(iter(data["intents"]))
    for bad in ({"not": "a list"}, [1, 2], {**data["intents"], tool: [["ask", [], [], []]]},
                {**data["intents"], tool: [[[1], [], [], []]]}, {tool: data["intents"][tool]}):
        slim_at.write_bytes(orjson.dumps({**data, "intents": bad}))
        envs.clear_caches()
        calls.clear()
        assert envs.fingerprint(get_builder(name)) == whole
        assert calls  # what does not read back as intents for exactly its tools is worked out again
