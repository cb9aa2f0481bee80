"""``covert regenerate``: rebuild a dataset from its manifest and prove it is the same, shard for shard.

The manifest records everything that determines the output (the build config, the covert version and
every builder's version, and for an augmented dataset the augmentation settings) and the sha256 of
every shard. A regeneration with other versions could not give the same bytes, so it is refused
before anything is built.

A local source is also checked against its own manifest (:func:`covert.io.checked.dataset_problems`:
missing, extra or changed shards, unreadable footers, the card): the result says which source files
differ as well as whether the rebuild matches, and only a source and a rebuild that both match is a
success. A damaged source is still rebuilt: the rebuild, checked shard by shard, is its repair.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from covert.io.checked import check_manifest, dataset_problems
from covert.io.reader import DatasetError, parse_manifest
from covert.io.staging import restore


class RegenerateError(DatasetError):
    """A manifest that cannot be rebuilt here; the message says why."""


@dataclass
class Comparison:
    """Shard hashes of a rebuild against the manifest's."""

    matched: list[str] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    source: list[str] = field(default_factory=list)  # what differs in the source folder from its manifest

    @property
    def rebuilt_ok(self) -> bool:
        """Whether every rebuilt shard matches the manifest and none is missing or unexpected."""
        return not (self.mismatched or self.missing or self.extra)

    @property
    def ok(self) -> bool:
        """Whether the rebuild matches the manifest and the source folder did too."""
        return self.rebuilt_ok and not self.source

    def describe(self) -> str:
        """One line on the rebuild, preceded by one on the source folder when it differs from its manifest."""
        if self.rebuilt_ok:
            line = f"all {len(self.matched)} shards match the manifest's sha256"
        else:
            parts = [f"{len(v)} {k} ({', '.join(v[:3])}{', ...' if len(v) > 3 else ''})"
                     for k, v in (("differ", self.mismatched), ("missing", self.missing), ("unexpected", self.extra))
                     if v]
            line = "shards do not match the manifest: " + "; ".join(parts)
        if not self.source:
            return line
        head = (f"the source differs from its manifest in {len(self.source)} "
                f"{'file' if len(self.source) == 1 else 'files'}: {'; '.join(self.source[:3])}"
                f"{'; ...' if len(self.source) > 3 else ''}")
        return head + "\n" + ("rebuilt: " + line if self.rebuilt_ok else line)


def read_manifest(source: str, revision: str | None = None) -> dict[str, Any]:
    """The manifest of a local dataset directory, or of a Hub dataset repo ``owner/name`` (parsed and
    shape-checked: :class:`DatasetError` in one line otherwise)."""
    return read_source(source, revision)[0]


def read_source(source: str, revision: str | None = None) -> tuple[dict[str, Any], list[str]]:
    """The manifest of ``source`` and, for a local folder, each way its files differ from it (one
    line each); a Hub source's files are not fetched, so nothing is listed for them."""
    from covert.io.source import check_source

    path = Path(source)
    if path.parent.is_dir():
        restore(path)  # a killed run that was replacing it left it in .NAME.old-PID
    if path.exists():
        manifest, problems = dataset_problems(path)
        return manifest, [f"{p.path}{p.what}" for p in problems]
    check_source(source)
    from huggingface_hub import hf_hub_download

    try:
        local = hf_hub_download(source, "manifest.json", repo_type="dataset", revision=revision)
    except Exception as exc:  # not found, offline, no network: one line
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RegenerateError(f"cannot read manifest.json of Hub dataset {source}: {message}") from None
    where = f"manifest.json of Hub dataset {source}"
    manifest = parse_manifest(Path(local).read_bytes(), where)
    check_manifest(manifest, where)
    return manifest, []


def version_mismatches(manifest: dict[str, Any]) -> list[str]:
    """How this installation differs from the one that built the manifest (empty when it does not)."""
    import covert
    from covert.env import UnknownBuilderError, get_builder

    problems = []
    wanted = manifest.get("covert_version")
    if wanted != covert.__version__:
        problems.append(f"covert {covert.__version__} is installed, the dataset was built with {wanted}")
    augmented = (manifest.get("augmentation_config") or {}).get("covert_version", covert.__version__)
    if augmented != covert.__version__ and augmented != wanted:
        problems.append(f"covert {covert.__version__} is installed, the dataset was augmented with {augmented}")
    recorded = manifest.get("value_data") or {}
    if isinstance(recorded, dict) and recorded.get("faker"):
        from covert.build import value_data

        have_data = value_data()
        if have_data["faker"] != recorded["faker"]:
            problems.append(f"faker {have_data['faker']} is installed, the dataset's imported values were drawn "
                            f"with faker {recorded['faker']} (pip install 'faker=={recorded['faker']}')")
    return problems + installed_versions(manifest.get("builders"), get_builder, UnknownBuilderError, "builder")


def installed_versions(recorded: dict[str, Any] | None, get: Any, unknown: type[Exception], what: str) -> list[str]:
    """How the installed versions (``get(name).version``) differ from the ``recorded`` ones (name ->
    ``{"version": ...}``), one line each; ``what`` names them (builder, procedural environment)."""
    problems = []
    for name, info in sorted((recorded or {}).items()):
        try:
            have = get(name).version
        except unknown:
            problems.append(f"{what} {name} is not installed")
            continue
        if have != info.get("version"):
            problems.append(f"{what} {name} is {have} here, the dataset was built with {info.get('version')}")
    return problems


def config_from_manifest(manifest: dict[str, Any]) -> Any:
    """The manifest's ``BuildConfig``."""
    from covert.build import BuildConfig

    return recorded_config(BuildConfig, dict(manifest.get("config") or {}))


def recorded_config(cls: Any, recorded: dict[str, Any]) -> Any:
    """The config dataclass ``cls`` made of a manifest's recorded fields (:class:`RegenerateError` when it
    cannot be)."""
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(recorded) - known)
    if unknown:
        raise RegenerateError(f"the manifest's config has fields this covert does not know: {', '.join(unknown)}")
    if "split_ratios" in recorded:
        recorded["split_ratios"] = tuple(recorded["split_ratios"])
    try:
        return cls(**recorded)
    except TypeError as exc:
        raise RegenerateError(f"the manifest's config is incomplete: {exc}") from None


def compare(expected: dict[str, str], actual: dict[str, str], source: list[str] | None = None) -> Comparison:
    """Compare shard hashes (relative path -> sha256); ``source`` lists how the source folder differs."""
    result = Comparison(source=list(source or []))
    for path, digest in sorted(expected.items()):
        if path not in actual:
            result.missing.append(path)
        elif actual[path] == digest:
            result.matched.append(path)
        else:
            result.mismatched.append(path)
    result.extra = sorted(set(actual) - set(expected))
    return result


# the commands that rewrite a tool dataset, in the order the manifest's ``command`` lines record them, and the
# manifest entry that holds each one's settings
STEPS = {"augment": "augmentation_config", "evolve": "evolution", "calibrate": "calibration"}


def steps_of(manifest: dict[str, Any]) -> list[str]:
    """The commands that made a tool dataset out of its build, in order (``augment``, ``evolve``,
    ``calibrate``): read from the manifest's ``command`` lines; a step whose settings are recorded but whose
    line is not (datasets written before the lines were) is taken as augment, evolve, calibrate in turn."""
    lines = str(manifest.get("command") or "").splitlines()[1:]
    order = [line.split()[1] for line in lines if len(line.split()) > 1 and line.split()[0] == "covert"]
    order = [step for step in order if step in STEPS]
    if len(set(order)) != len(order):
        raise RegenerateError(f"the manifest records {', '.join(order)}: a chain that repeats a step keeps only the "
                              "last one's settings and cannot be rebuilt; run the recorded commands again instead")
    missing = [step for step in STEPS if STEPS[step] in manifest and step not in order]
    return [*(step for step in missing if step != "calibrate"), *order,
            *(step for step in missing if step == "calibrate")]


def regenerate(source: str, out: str | Path, workers: int = 1, overwrite: bool = False, progress: bool = False,
               engine: str = "local", ray_address: str | None = None, revision: str | None = None) -> Comparison:
    """Rebuild the dataset ``source`` describes into ``out`` and compare every shard's sha256.

    A tool dataset is built again and then augmented, evolved and calibrated as its manifest records; a
    procedural dataset of ``covert procgen`` is sampled again. Every step that runs on the engine seam (the
    build, augment, calibrate, procgen) runs on ``workers`` local processes (``engine="local"``) or as Ray
    Data tasks (``engine="ray"``, on local Ray or the cluster at ``ray_address``): the same bytes either way.
    A dataset this cannot rebuild (a live-MCP dataset, a benchmark grid) raises :class:`RegenerateError`
    saying what rebuilds it instead."""
    from covert.build import build
    from covert.io.kinds import dataset_kind, does_not_apply

    manifest, source_problems = read_source(source, revision)
    kind = dataset_kind(manifest)
    if kind == "live-mcp":
        raise RegenerateError(does_not_apply(
            "regenerate", source, manifest, "datasets of covert build (augmented, evolved, calibrated) and covert "
            "procgen", f"run the live server again (`covert live-mcp git --num-tasks {manifest.get('num_tasks')} "
            f"--seed {manifest.get('seed')} --out NEW`) and replay it (`covert live-mcp replay NEW`)"))
    if "files" not in manifest or "config" not in manifest:
        raise RegenerateError(f"{source}: manifest.json lacks its config or shard hashes; it cannot be regenerated")
    options = {"workers": workers, "progress": progress, "engine": engine, "ray_address": ray_address}
    if kind == "procgen":
        return _regenerate_procgen(source, manifest, source_problems, out, overwrite, options)
    problems = version_mismatches(manifest)
    if problems:
        raise RegenerateError(f"{source}: cannot regenerate byte for byte: " + "; ".join(problems))
    config = config_from_manifest(manifest)
    steps = steps_of(manifest)
    lines = str(manifest.get("command") or "").splitlines()
    out = Path(out)
    stages = [out.parent / f".{out.name}.base{i}-{os.getpid()}" for i in range(len(steps))] + [out]
    try:
        rebuilt = build(config, stages[0], overwrite=overwrite if not steps else True,
                        command=lines[0] if steps and lines else manifest.get("command", ""), **options)
        for i, step in enumerate(steps):
            command = next((line for line in lines if line.split()[1:2] == [step]), None)
            rebuilt = _apply(step, manifest[STEPS[step]], stages[i], stages[i + 1],
                             overwrite if stages[i + 1] == out else True, command, options)
    finally:
        for stage in stages[:-1]:
            shutil.rmtree(stage, ignore_errors=True)
    return compare(manifest["files"], rebuilt["files"], source_problems)


def _apply(step: str, recorded: dict[str, Any], src: Path, out: Path, overwrite: bool, command: str | None,
           options: dict[str, Any]) -> dict[str, Any]:
    """Run one recorded step (augment, evolve, calibrate) of a tool dataset from ``src`` into ``out``; its
    manifest. ``options`` holds ``workers``, ``progress``, ``engine`` and ``ray_address``; evolve, which runs
    in this process, takes only ``progress``."""
    if step == "augment":
        from covert.augment.dataset import AugmentConfig, augment_dataset

        config = AugmentConfig(**{k: v for k, v in recorded.items() if k in {f.name for f in fields(AugmentConfig)}})
        return augment_dataset(src, out, config, overwrite=overwrite, command=command, **options)
    if step == "evolve":
        from covert.evolve.dataset import EvolveConfig, evolve_dataset

        config = EvolveConfig(**{k: v for k, v in recorded.items() if k in {f.name for f in fields(EvolveConfig)}})
        return evolve_dataset(src, out, config, overwrite=overwrite, progress=options["progress"])
    from covert.io.reader import load_manifest
    from covert.rollouts.calibrate import calibrate

    calibrate(src, policy=recorded["policy"], k=recorded["k"], seed=recorded["seed"], out=out, overwrite=overwrite,
              **options)
    return load_manifest(out)


def _regenerate_procgen(source: str, manifest: dict[str, Any], source_problems: list[str], out: str | Path,
                        overwrite: bool, options: dict[str, Any]) -> Comparison:
    """Sample a ``covert procgen`` dataset again from its recorded config and compare its shards; ``options``
    holds ``workers``, ``progress``, ``engine`` and ``ray_address``."""
    import covert
    from covert.io.kinds import does_not_apply
    from covert.procgen.dataset import ProcgenConfig, build_procgen
    from covert.procgen.registry import UnknownEnvironmentError, get_env

    recorded = dict(manifest["config"])
    if recorded.pop("plan", None) != "round_robin":
        command = str(manifest.get("command") or "").splitlines()
        raise RegenerateError(does_not_apply(
            "regenerate", source, manifest, "datasets of covert build and covert procgen",
            f"its instances were planned by {'`' + command[-1] + '`' if command else 'another command'}: run that "
            "again into a new folder (the same seed gives the same bytes)"))
    recorded.pop("configs", None)  # derived from the config, recorded for the reader
    recorded.pop("curriculum", None)
    problems = [] if manifest.get("covert_version") == covert.__version__ else [
        f"covert {covert.__version__} is installed, the dataset was built with {manifest.get('covert_version')}"]
    problems += installed_versions(manifest.get("environments"), get_env, UnknownEnvironmentError,
                                   "procedural environment")
    if problems:
        raise RegenerateError("cannot regenerate byte for byte: " + "; ".join(problems))
    rebuilt = build_procgen(recorded_config(ProcgenConfig, recorded), out, overwrite=overwrite,
                            command=manifest.get("command", ""), **options)
    return compare(manifest["files"], rebuilt["files"], source_problems)
