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
import re
import shutil
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from covert.io.checked import check_manifest, dataset_problems
from covert.io.reader import DatasetError, parse_manifest
from covert.io.staging import restore

_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


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
    path = Path(source)
    if path.parent.is_dir():
        restore(path)  # a killed run that was replacing it left it in .NAME.old-PID
    if path.exists():
        manifest, problems = dataset_problems(path)
        return manifest, [f"{p.path}{p.what}" for p in problems]
    if not _REPO_ID.match(source):
        raise RegenerateError(f"{source} is neither a dataset directory nor a Hub dataset id (owner/name)")
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
    for name, info in sorted(manifest.get("builders", {}).items()):
        try:
            have = get_builder(name).version
        except UnknownBuilderError:
            problems.append(f"builder {name} is not installed")
            continue
        if have != info.get("version"):
            problems.append(f"builder {name} is {have} here, the dataset was built with {info.get('version')}")
    return problems


def config_from_manifest(manifest: dict[str, Any]) -> Any:
    """The manifest's ``BuildConfig``."""
    from covert.build import BuildConfig

    recorded = dict(manifest.get("config") or {})
    known = {f.name for f in fields(BuildConfig)}
    unknown = sorted(set(recorded) - known)
    if unknown:
        raise RegenerateError(f"the manifest's config has fields this covert does not know: {', '.join(unknown)}")
    if "split_ratios" in recorded:
        recorded["split_ratios"] = tuple(recorded["split_ratios"])
    try:
        return BuildConfig(**recorded)
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


def regenerate(source: str, out: str | Path, workers: int = 1, overwrite: bool = False, progress: bool = False,
               engine: str = "local", ray_address: str | None = None, revision: str | None = None) -> Comparison:
    """Rebuild the dataset ``source`` describes into ``out`` and compare every shard's sha256."""
    from covert.build import build

    manifest, source_problems = read_source(source, revision)
    if "files" not in manifest or "config" not in manifest:
        raise RegenerateError(f"{source}: manifest.json lacks its config or shard hashes; it cannot be regenerated")
    problems = version_mismatches(manifest)
    if problems:
        raise RegenerateError(f"{source}: cannot regenerate byte for byte: " + "; ".join(problems))
    config = config_from_manifest(manifest)
    options = {"workers": workers, "progress": progress}
    if "augmentation_config" not in manifest:
        rebuilt = build(config, out, overwrite=overwrite, command=manifest.get("command", ""), engine=engine,
                        ray_address=ray_address, **options)
        return compare(manifest["files"], rebuilt["files"], source_problems)
    # an augmented dataset: rebuild its base next to ``out``, then augment it with the recorded settings
    from covert.augment.dataset import AugmentConfig, augment_dataset

    recorded = manifest["augmentation_config"]
    augment_config = AugmentConfig(**{k: v for k, v in recorded.items() if k in {f.name for f in fields(AugmentConfig)}})
    build_command, _, augment_command = manifest.get("command", "").partition("\n")
    out = Path(out)
    base = out.parent / f".{out.name}.base-{os.getpid()}"
    try:
        build(config, base, overwrite=True, command=build_command, engine=engine, ray_address=ray_address, **options)
        rebuilt = augment_dataset(base, out, augment_config, overwrite=overwrite, command=augment_command, **options)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return compare(manifest["files"], rebuilt["files"], source_problems)
