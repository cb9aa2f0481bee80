"""Imported environments as covert builders, and the admitted list in the environment store.

An API becomes a :class:`~covert.env.Builder` named ``api.<safe id>`` (:func:`make_builder`): its bound
environment, its seeded state factory and its generic language, versioned by a hash of the source spec
plus the binder version, carrying the spec's license and provenance. ``covert envs verify`` writes the
admitted ones to ``<store>/admitted.json``; the builder registry reads that file, so admitted
environments are listed by ``covert list`` and built by ``covert build`` in any process.

Store layout (the importers write ``specs/``)::

    <store>/specs/<safe api id>.json   one ApiSpec per file (covert.imports.store)
    <store>/admitted.json              {"binder_version", "environments": {name: entry}}
    <store>/compiled/<name>.spec       the spec cut down to what binding it reads (written on first use,
                                       kept only when it binds to the very same builder; JSON data)
    <store>/compiled/states/<name>/...  seeded states as JSON data, keyed by content (covert.imports.state_cache)

Nothing read from the store is code: specs and cut-down specs are JSON, bound into objects by covert's
own code. Files earlier versions kept there (``<name>.bound``, pickled bindings, and ``<name>.validators``,
marshalled bytecode) are never loaded: a store holding them gets a one-line warning, and
``covert envs verify`` deletes them.

An entry holds ``spec`` (the spec file, relative to the store), ``version``, ``source``, ``license``,
``evaluation_source``, ``tools``, ``exclude`` (tools left out by verification, with reasons) and, after
``covert envs verify --llm``, ``custom_actions`` (operation -> ``{"code", "sha256", "writes"}``: admitted
LLM-written implementations, stored as ``<store>/actions/<sha256>.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import shutil
import sys
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from covert.atomic import write_atomically
from covert.env import Builder, Intent, Language
from covert.env.schema import ENTITY_KEY
from covert.imports.bind import BINDER_VERSION, BoundApi, bind, forget_version
from covert.imports.language import build_language, said_title
from covert.imports.model import ApiSpec
from covert.imports.resources import classify, infer, remember_vocabulary, spec_vocabulary
from covert.imports.state_cache import STATES, with_stored_states
from covert.imports.store import StoreError, read_spec, store_dir

ADMITTED = "admitted.json"
COMPILED = "compiled"  # the folder of the store that keeps cut-down specs
IMPORTED_TASKS_PER_STATE = 4  # one project and region per state: a few requests each, then another
LEGACY_SUFFIXES = (".bound", ".validators")  # pickles and bytecode earlier versions kept: never loaded


@cache
def code_digest() -> str:
    """A digest of covert's own source code (every module): a cut-down spec made by other code is stale."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for source in sorted(root.rglob("*.py")):
        digest.update(str(source.relative_to(root)).encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def system_prompt(spec: ApiSpec, api: BoundApi) -> str:
    """The short policy an assistant follows on an imported API."""
    from covert.imports.language import resource_plurals, said_list

    plurals = said_list(resource_plurals(api)[:5])
    return (f"You are the assistant for {said_title(spec.title)}. You look up and manage {plurals} through its API tools. "
            "Look records up before acting on them, never invent ids, and confirm what changed.")


def reachable(api: BoundApi, references: dict[str, Any]) -> set[str]:
    """Tools a task can reach: every id a user cannot know comes from a reachable read that returns it."""
    producers: dict[str, set[str]] = {}
    for name, bound in api.tools.items():
        if not bound.spec.writes:
            for entity in _entities(bound.spec.returns):
                producers.setdefault(entity, set()).add(name)
    done: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, bound in api.tools.items():
            if name in done:
                continue
            needs = []
            for param in bound.spec.parameters["required"]:
                entity = bound.spec.param_entity(param)
                ref = references.get(entity)
                if ref is not None and not ref.user_knows_id:
                    needs.append(entity)
            if all(producers.get(e, set()) & (done - {name}) for e in needs):
                done.add(name)
                changed = True
    return done


def _entities(schema: Any, depth: int = 0) -> set[str]:
    out: set[str] = set()
    if not isinstance(schema, dict) or depth > 8:
        return out
    if ENTITY_KEY in schema:
        out.add(schema[ENTITY_KEY])
    for sub in (schema.get("properties") or {}).values():
        out |= _entities(sub, depth + 1)
    if isinstance(schema.get("items"), dict):
        out |= _entities(schema["items"], depth + 1)
    return out


def bind_reachable(spec: ApiSpec, exclude: dict[str, str] | None = None,
                   custom: dict[str, Any] | None = None) -> BoundApi:
    """Bind ``spec`` leaving out ``exclude`` and then every tool no task can reach (``unreachable_tool``);
    ``custom``: admitted implementations of custom actions (:mod:`covert.imports.custom_actions`)."""
    return _bind_reachable(spec, exclude, custom)[0]


def _bind_reachable(spec: ApiSpec, exclude: dict[str, str] | None, custom: dict[str, Any] | None = None,
                    version: str | None = None,
                    intents: dict[str, tuple[Intent, ...]] | None = None) -> tuple[BoundApi, Language]:
    """:func:`bind_reachable` and the language of the binding it returns (built once, not again);
    ``intents``: kept intents (see :func:`~covert.imports.language.build_language`)."""
    exclude = dict(exclude or {})
    api = bind(spec, exclude, custom, version)
    language = build_language(api, intents)
    for _ in range(4):
        unreachable = set(api.tools) - reachable(api, language.references)
        if not unreachable:
            return api, language
        exclude.update({name: "unreachable_tool" for name in unreachable})
        api = bind(spec, exclude, custom, version)
        language = build_language(api)
    return api, language


def make_builder(spec: ApiSpec, exclude: dict[str, str] | None = None, custom: dict[str, Any] | None = None,
                 version: str | None = None, intents: dict[str, tuple[Intent, ...]] | None = None) -> Builder:
    """The covert builder of an imported API (raises :class:`~covert.imports.bound.BindError`);
    ``custom``: admitted implementations of custom actions (:mod:`covert.imports.custom_actions`);
    ``version`` as for :func:`~covert.imports.bind.bind`; ``intents``: the intents an earlier process
    worked out for this very binding (kept beside its cut-down spec)."""
    api, language = _bind_reachable(spec, exclude, custom, version, intents)
    return builder_of(api, language)


def builder_of(api: BoundApi, language: Language) -> Builder:
    """The covert builder of a binding and its language."""
    spec = api.spec
    sources = [f"{spec.source} spec: {spec.title} {spec.version} ({spec.api})"]
    if spec.provenance:
        sources.append("provenance: " + ", ".join(f"{k}={v}" for k, v in sorted(spec.provenance.items())))
    if spec.license_url:
        sources.append(f"license: {spec.license_url}")
    if spec.evaluation_source:
        sources.append("evaluation source: derived from evaluation data")
    written = sorted(f"{b.spec.name} ({b.code.sha256[:12]})" for b in api.tools.values() if b.role.kind == "custom")
    if written:
        sources.append("custom actions written by an LLM, validated in the sandbox: " + ", ".join(written))
    description = (spec.description.split("\n")[0][:160] if spec.description else "") or f"{said_title(spec.title)} API"

    def make_state(rng: random.Random, scale: int) -> dict[str, Any]:
        return api.make_state(rng, scale)

    builder = Builder(
        name=api.name, version=api.version, description=description, environment=api.environment,
        make_state=make_state, language=language, system_prompt=system_prompt(spec, api),
        license=spec.license or "unknown", sources=tuple(sources), confirm_writes=True,
        tasks_per_state=IMPORTED_TASKS_PER_STATE,
    )
    object.__setattr__(builder, "bound", api)  # the binding, for verification and reports
    object.__setattr__(builder, "spec", spec)
    return builder


# -- the admitted list ------------------------------------------------------------------------------
def read_admitted(store: str | Path | None = None) -> dict[str, Any]:
    """The admitted list of a store (empty when none was written)."""
    path = store_dir(store) / ADMITTED
    if not path.is_file():
        return {"binder_version": BINDER_VERSION, "environments": {}}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise StoreError(f"{path} is not a readable admitted list ({exc}); run `covert envs verify` again") from None
    return data


def write_admitted(store: str | Path | None, environments: dict[str, Any]) -> Path:
    """Write the admitted list atomically (temp file, then rename)."""
    path = store_dir(store) / ADMITTED
    payload = {"binder_version": BINDER_VERSION, "environments": dict(sorted(environments.items()))}
    write_atomically(path, json.dumps(payload, indent=1, sort_keys=True) + "\n")
    clear_caches()
    return path


@cache
def _entries(root: str) -> dict[str, Any]:
    return read_admitted(root).get("environments", {})


@cache
def admitted_names(store: str | None = None) -> tuple[str, ...]:
    """Names of the admitted environments of the store, sorted."""
    return tuple(sorted(_entries(str(store_dir(store)))))


@cache
def admitted_builder(name: str, store: str | None = None) -> Builder | None:
    """The builder of one admitted environment, or ``None`` when the store does not admit ``name``."""
    root = store_dir(store)
    entry = _entries(str(root)).get(name)
    if entry is None:
        return None
    custom = None
    if entry.get("custom_actions"):
        from covert.imports.custom_actions import load_code

        custom = {op: load_code(root, op, found) for op, found in sorted(entry["custom_actions"].items())}
    warn_legacy(root)
    spec_digest = _file_digest(root / entry["spec"])
    builder = _bound_afresh(root, name, entry, custom, spec_digest)
    if entry.get("seed_records"):
        from covert.imports.seed_records import load_seeds

        builder = with_seeds(builder, load_seeds(root, name, entry["seed_records"]),
                             str(entry["seed_records"].get("written_by") or "an LLM"))
    if spec_digest is None:
        return builder
    return with_stored_states(builder, root / COMPILED, content_key(spec_digest, entry))


def with_seeds(builder: Builder, seeds: dict[str, list[dict[str, Any]]], written_by: str) -> Builder:
    """``builder`` whose states take their records' descriptive fields from LLM-written seed records
    (:mod:`covert.imports.seed_records`); its version carries their hash, its sources say who wrote them."""
    from covert.imports.seed_records import seeded_version, seeds_digest

    api: BoundApi = builder.bound  # type: ignore[attr-defined]
    api.seeds = {table: records for table, records in seeds.items() if table in api.resources}
    note = (f"seed records written by {written_by}, each value checked against its field's schema "
            f"({seeds_digest(seeds)[:12]})")
    seeded = replace(builder, version=seeded_version(builder.version, seeds), sources=(*builder.sources, note))
    object.__setattr__(seeded, "bound", api)
    object.__setattr__(seeded, "spec", builder.spec)  # type: ignore[attr-defined]
    return seeded


@cache
def warn_legacy(root: Path) -> int:
    """Say once per store (one line on stderr) that it holds files of earlier versions that covert
    never loads (pickled bindings, marshalled validators); returns how many there are."""
    folder = root / COMPILED
    found = sum(1 for p in folder.iterdir() if p.name.endswith(LEGACY_SUFFIXES)) if folder.is_dir() else 0
    if found:
        print(f"covert: warning: ignoring {found} file(s) of an earlier covert in {folder} (*.bound, *.validators: "
              "code is never loaded from the store); `covert envs verify` deletes them", file=sys.stderr)
    return found


def _bound_afresh(root: Path, name: str, entry: dict[str, Any], custom: dict[str, Any] | None,
                  spec_digest: str | None) -> Builder:
    """The builder of an admitted environment bound from its spec (the cut-down one when it is kept), with
    the cut-down spec kept for later processes; ``spec_digest``: :func:`_file_digest` of the spec file."""
    exclude = entry.get("exclude") or {}
    path = root / entry["spec"]
    slim_at = root / COMPILED / f"{name}{SLIM_SUFFIX}"
    # an environment with LLM-written actions is bound from its whole spec (the cut-down one is for CRUD)
    key = _slim_key(spec_digest, entry) if custom is None and spec_digest is not None else None
    builder = _from_slim(slim_at, key, exclude, entry.get("version")) if key is not None else None
    if builder is None or isinstance(builder, _Whole):
        if builder is None:  # no kept file says how this environment binds: a first binding
            _count_binding()
        spec = read_spec(path)
        if builder is not None:  # the vocabulary of this very spec, as the file keeps it
            remember_vocabulary(spec, builder.vocabulary)
        try:
            made = make_builder(spec, exclude, custom)
        finally:
            remember_vocabulary(spec, None)
        if made.version != entry.get("version"):
            raise StoreError(f"{name}: the store admitted version {entry.get('version')}, the binder makes "
                             f"{made.version}; run `covert envs verify` again")
        if key is not None and builder is None:
            _save_slim(slim_at, key, made, exclude)
        builder = made
    _slim(builder)
    return builder


_made = 0  # environments bound in this process with no kept file saying how they bind


def bindings_made() -> int:
    """How many admitted environments this process has bound with no cut-down spec's file kept for them
    (a first binding, which tries cut-down specs and keeps one). Binding what a kept file says (its cut-down
    spec, or the whole spec when the file says so) is not counted: it leaves no cyclic garbage (a full
    collection after binding 100 such environments found none and took a quarter of a second), so a build
    need not collect before it freezes the heap."""
    return _made


def _count_binding() -> None:
    global _made
    _made += 1


# -- the cut-down spec: what binding an admitted environment reads, kept beside its validators ------
SLIM_SUFFIX = ".spec"


LIGHTER = (False, True, "crud")  # the cut-downs tried, smallest first (see _light)


def _light(spec: ApiSpec, api: BoundApi, tables: bool | str = False) -> ApiSpec:
    """``spec`` with only the operations a bound tool implements (with ``tables``, also every
    operation the binder reads as one on the tables those tools use: their records' schemas may
    come from it; with ``"crud"``, every operation the binder reads as a list, get, create, update or
    delete of anything: a record schema may come from a read that is not bound itself)."""
    used = {id(bound.role.op) for bound in api.tools.values()}
    if tables == "crud":
        used |= {id(op) for op in spec.operations if classify(spec, op)[0] != "custom"}
    elif tables:
        used |= {id(role.op) for role in infer(spec)[1] if role.table in api.resources}
    return replace(spec, operations=tuple(op for op in spec.operations if id(op) in used))


def _slim(builder: Builder) -> None:
    """Let go of the operations no bound tool implements: a build keeps every environment it makes
    (hundreds, some from specs of tens of megabytes) and the collector walks what they hold."""
    api: BoundApi = builder.bound  # type: ignore[attr-defined]
    light = _light(api.spec, api)
    forget_version(api.spec)
    api.spec = light
    object.__setattr__(builder, "spec", light)


def _file_digest(path: Path) -> str | None:
    """The sha256 of a file's bytes (``None`` when it cannot be read)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _slim_key(spec_digest: str, entry: dict[str, Any]) -> str:
    """What a cut-down spec must have been made from: the spec file's bytes (their ``spec_digest``), the
    admitted entry and the code."""
    return hashlib.sha256(json.dumps([spec_digest, entry.get("version"), entry.get("exclude") or {}, code_digest()],
                                     sort_keys=True).encode()).hexdigest()


def content_key(spec_digest: str, entry: dict[str, Any]) -> str:
    """What an admitted environment's seeded states are made from: the spec file's bytes (their
    ``spec_digest``), the whole admitted entry (exclusions, custom actions, seed records) and the code."""
    return hashlib.sha256(json.dumps([spec_digest, entry, code_digest()], sort_keys=True).encode()).hexdigest()[:32]


def fingerprint(builder: Builder) -> str:
    """A digest of everything a build reads from an imported builder: tools, roles, tables, error
    style, language, prompt, sources and a few seeded states."""
    api: BoundApi = builder.bound  # type: ignore[attr-defined]
    language = builder.language
    parts = {
        "builder": [builder.name, builder.version, builder.description, builder.system_prompt, builder.license,
                    list(builder.sources), builder.confirm_writes],
        "tools": [[b.spec, b.role, b.fields, b.limit_param, b.token_param] for b in api.tools.values()],
        "resources": list(api.resources.values()), "style": api.style, "api": api.spec.api,
        "language": [language.scope, language.intents, language.references, language.entity_tables,
                     sorted(language.values), language.field_nouns, language.out_of_scope, repr(language.identity)],
        "states": [builder.state(seed, world).hash() for seed in (0, 1) for world in (0, 1)],
    }
    return hashlib.sha256(orjson.dumps(parts, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS,
                                       default=repr)).hexdigest()


def _save_slim(path: Path, key: str, builder: Builder, exclude: dict[str, str]) -> None:
    """Keep the cut-down spec of ``builder`` when binding it gives the very same builder (else nothing)."""
    api: BoundApi = builder.bound  # type: ignore[attr-defined]
    target = fingerprint(builder)
    same = False
    for tables in LIGHTER:
        light = _light(api.spec, api, tables)
        try:
            same = fingerprint(make_builder(light, exclude, version=builder.version)) == target
        except Exception:  # a cut-down spec that does not bind is simply not kept
            same = False
        if same:
            break
    with contextlib.suppress(OSError):  # a read-only store: the next process reads the whole spec again
        # when the cut-down spec binds differently, the file says so: later processes bind the whole spec
        spec = json.loads(json.dumps(light.to_dict(), sort_keys=True)) if same else None
        # the vocabulary of the spec as later processes read it back (its keys sorted: the walk is bounded),
        # of the whole spec as read when that is what they bind
        vocabulary = sorted(spec_vocabulary(ApiSpec.from_dict(spec) if spec is not None else api.spec))
        intents = _intents_data(builder.language.intents) if same else None
        if intents is not None and _intents_from(intents) != builder.language.intents:
            intents = None  # what would not read back as the very same intents is worked out again
        write_atomically(path, json.dumps({"key": key, "spec": spec, "vocabulary": vocabulary, "intents": intents},
                                          sort_keys=True) + "\n")


@dataclass(frozen=True)
class _Whole:
    """What a cut-down spec's file says of an environment that binds only from its whole spec: that spec's
    vocabulary (``None`` when the file gives none)."""

    vocabulary: frozenset[str] | None


def _from_slim(path: Path, key: str | None, exclude: dict[str, str], version: str | None) -> Any:
    """The builder from a cut-down spec made for ``key``; a :class:`_Whole` when the file says the whole
    spec is needed; ``None`` when there is no such file (missing, stale, corrupt)."""
    if key is None or not version or not path.is_file():
        return None
    try:
        data = orjson.loads(path.read_bytes())
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        if data.get("spec") is None:
            return _Whole(_vocabulary(data.get("vocabulary")))
        spec = ApiSpec.from_dict(data["spec"])
        remember_vocabulary(spec, _vocabulary(data.get("vocabulary")))
        try:
            return make_builder(spec, exclude, version=version, intents=_intents_from(data.get("intents")))
        finally:
            remember_vocabulary(spec, None)
    except Exception:  # a damaged file: bind the whole spec again (and write a good one)
        return None


MAX_VOCABULARY = 100_000  # words a cut-down spec's file may give its vocabulary (more: worked out again)
MAX_KEPT_TEMPLATES = 500_000  # templates a cut-down spec's file may give its intents (more: worked out again)


def _intents_data(intents: dict[str, tuple[Intent, ...]]) -> dict[str, list[list[list[str]]]]:
    """Intents as JSON data: per tool, each intent as its ask, answer, context and ask-many templates."""
    return {tool: [[list(i.ask), list(i.answer), list(i.context), list(i.ask_many)] for i in said]
            for tool, said in intents.items()}


def _intents_from(data: Any) -> dict[str, tuple[Intent, ...]] | None:
    """The intents a cut-down spec's file keeps (:func:`_intents_data`: strings only, bounded), or ``None``
    when it keeps none or anything else."""
    if not isinstance(data, dict):
        return None
    out: dict[str, tuple[Intent, ...]] = {}
    templates = 0
    for tool, said in data.items():
        if not isinstance(said, list):
            return None
        made = []
        for parts in said:
            if not isinstance(parts, list) or len(parts) != 4 or not all(isinstance(p, list) for p in parts):
                return None
            templates += sum(len(p) for p in parts)
            if templates > MAX_KEPT_TEMPLATES or not all(isinstance(t, str) for p in parts for t in p):
                return None
            ask, answer, context, ask_many = (tuple(p) for p in parts)
            made.append(Intent(ask=ask, answer=answer, context=context, ask_many=ask_many))
        out[tool] = tuple(made)
    return out


def _vocabulary(words: Any) -> frozenset[str] | None:
    """The vocabulary a cut-down spec's file gives (words only, bounded), or ``None`` when it gives none."""
    if not isinstance(words, list) or len(words) > MAX_VOCABULARY or not all(isinstance(w, str) for w in words):
        return None
    return frozenset(words)


def prune_compiled(store: str | Path | None, keep: set[str]) -> int:
    """Delete the cut-down specs and kept states of environments not in ``keep``, and every file of an
    earlier covert (:data:`LEGACY_SUFFIXES`); returns how many went (a state folder counts once)."""
    folder = store_dir(store) / COMPILED
    gone = 0
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        stem = path.name.removesuffix(SLIM_SUFFIX)
        if path.name.endswith(LEGACY_SUFFIXES) or (stem != path.name and stem not in keep):
            path.unlink(missing_ok=True)
            gone += 1
    states = folder / STATES
    for path in sorted(states.iterdir()) if states.is_dir() else []:
        if path.name not in keep:
            shutil.rmtree(path, ignore_errors=True)
            gone += 1
    return gone


def clear_caches() -> None:
    """Forget what was read from stores (after a store changed in this process)."""
    _entries.cache_clear()
    admitted_names.cache_clear()
    admitted_builder.cache_clear()
    warn_legacy.cache_clear()
