"""``covert augment``: a base dataset in, a new dataset out with the base configs plus augmented ones.

Layout choice: the output directory holds the base configs ``sft`` and ``rl`` copied byte for byte
(the source folder is checked by :func:`covert.io.checked.open_dataset` and every row it carries is
validated first, so a source edited behind an updated manifest is refused), plus two augmented configs,
``sft-augmented`` and ``rl-augmented``, with the same features, splits and shard naming. Each augmented
row stays in its base row's split (so no task crosses from train to test), names its base row in
``base_task_id`` and lists what was applied in ``augmentations``; rows of every kind share the two
configs, in base-row order and then kind order. Two configs rather than one per kind keep the card and
loading simple (``load_dataset(dir, "sft-augmented")``), and the kind of each row is one column away.

The manifest is the base manifest plus ``augmentation_config`` (kinds, intensity, seed, shard size,
source and the base shards' sha256), ``augmentation`` (rows per kind: the card's augmentation table),
``augmentation_summary`` (rows, base rows a kind does not apply to, rejections by reason) and the
sha256 of every shard; running the recorded command on the same base gives byte-identical shards. The source is
never written to: everything goes to a staging directory that replaces ``--out`` when complete.
"""

from __future__ import annotations

import json
import shlex
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import covert
from covert import interrupts
from covert.augment.llm import KINDS as LLM_KINDS
from covert.augment.registry import INTENSITIES, NotApplicable, RowPair, get_kind, kind_names
from covert.augment.rows import augment_pair
from covert.augment.verify import is_augmented, validate_augmented_pair, validate_augmented_row
from covert.build import SPLITS
from covert.errors import Invalid, UsageError
from covert.io.background import Background
from covert.io.checked import open_dataset
from covert.io.features import kind_of
from covert.io.kinds import dataset_kind, does_not_apply
from covert.io.portable import portable_command, portable_path
from covert.io.reader import DatasetError
from covert.io.staging import discard, prepare_output, publish, restore
from covert.scale.engine import Pool, open_pool, ordered_map
from covert.validation import validate_row

AUGMENTED = {"sft": "sft-augmented", "rl": "rl-augmented"}


class AugmentError(UsageError):
    """Bad augmentation input (one line on the command line, exit status 2); the message says what to do."""


@dataclass
class AugmentConfig:
    """Everything that determines the augmented shards (recorded in the manifest)."""

    kinds: list[str] = field(default_factory=kind_names)
    intensity: str = "medium"
    seed: int = 0
    rows_per_shard: int = 5000

    def validate(self) -> None:
        """Raise :class:`AugmentError` on bad values."""
        if not self.kinds:
            raise AugmentError(f"--kinds is empty; choose from {', '.join(kind_names())}")
        for kind in self.kinds:
            try:
                get_kind(kind)
            except KeyError as exc:
                raise AugmentError(exc.args[0]) from None
        if len(set(self.kinds)) != len(self.kinds):
            raise AugmentError("--kinds names a kind twice")
        if self.intensity not in INTENSITIES:
            raise AugmentError(f"unknown --intensity {self.intensity!r}; choose one of {', '.join(INTENSITIES)}")
        if self.rows_per_shard <= 0:
            raise AugmentError("rows per shard must be positive")


def resolve_source(src: str) -> tuple[Path, str | None]:
    """A local dataset directory, or a Hub dataset repo id downloaded to the cache; and its revision."""
    path = Path(src)
    if path.parent.is_dir():
        restore(path)  # a killed run that was replacing it left it in .NAME.old-PID
    if path.is_dir():
        return path, None
    if path.exists():
        raise AugmentError(f"{src} is a file; pass a dataset directory or a Hub dataset repo id")
    from covert.io.source import check_source

    check_source(src)
    from huggingface_hub import snapshot_download

    try:
        local = Path(snapshot_download(src, repo_type="dataset"))
    except Exception as exc:  # noqa: BLE001 - any fetch failure is bad input for the command line
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise AugmentError(f"{src} is neither a local directory nor a downloadable Hub dataset ({message})") from None
    return local, local.name


@dataclass
class _Tally:
    rows: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    rejected: dict[str, Counter[str]] = field(default_factory=dict)

    def summary(self, kinds: list[str], base: int) -> dict[str, Any]:
        """Per kind: rows written, base rows it does not apply to, rows rejected by validation (by reason)."""
        return {"base_tasks": base, "per_kind": {
            k: {"rows": self.rows[k], "not_applicable": self.skipped[k],
                "rejected": dict(sorted(self.rejected.get(k, Counter()).items()))} for k in kinds}}


_WORKER: dict[str, Any] = {}


def _init_worker(config: AugmentConfig, keep_raw: bool = False) -> None:
    _WORKER["config"] = config
    _WORKER["keep_raw"] = keep_raw


def _augment_one(pair: tuple[dict[str, Any], dict[str, Any]]) -> list[tuple[str, str, Any, Any]]:
    """All kinds on one base pair: ``(kind, "ok"|"skipped"|"rejected", sft or reason, rl)`` each."""
    from covert.io.parquet import encode_row

    config: AugmentConfig = _WORKER["config"]
    sft, rl = pair
    out = []
    for kind in config.kinds:
        try:
            made = augment_pair(RowPair(sft, rl), kind, config.seed, config.intensity)
            validate_augmented_pair(made.sft, made.rl)
        except NotApplicable:
            out.append((kind, "skipped", None, None))
            continue
        except Invalid as exc:
            out.append((kind, "rejected", exc.reason, None))
            continue
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, StopIteration) as exc:
            out.append((kind, "rejected", f"malformed_base_row:{type(exc).__name__}", None))
            continue
        if _WORKER.get("keep_raw") and kind in LLM_KINDS:
            out.append((kind, "raw", made.sft, made.rl))
        else:
            out.append((kind, "ok", encode_row(made.sft, "sft"), encode_row(made.rl, "rl")))
    return out


def _with_llm(results: Iterator[list[tuple]], llm: Any, batch: int = 64) -> Iterator[list[tuple]]:
    """Pass outcomes through, with the LLM rewriting the raw indirect/ambiguous rows in batches."""
    from covert.augment.registry import RowPair
    from covert.io.parquet import encode_row

    pending: list[list[tuple]] = []

    def flush() -> Iterator[list[tuple]]:
        raw = [(k, RowPair(sft, rl)) for outcomes in pending for k, status, sft, rl in outcomes if status == "raw"]
        rewritten = iter(llm.rewrite(raw))
        for outcomes in pending:
            done = []
            for kind, status, sft, rl in outcomes:
                if status == "raw":
                    pair = next(rewritten)
                    done.append((kind, "ok", encode_row(pair.sft, "sft"), encode_row(pair.rl, "rl")))
                else:
                    done.append((kind, status, sft, rl))
            yield done
        pending.clear()

    for outcomes in results:
        pending.append(outcomes)
        if len(pending) >= batch:
            yield from flush()
    yield from flush()


def _check_row(item: tuple[str, str, dict[str, Any]]) -> str | None:
    """Validate one source row as ``covert validate`` does; ``None``, or the line saying why it fails."""
    config, where, row = item
    try:
        (validate_augmented_row if is_augmented(row) else validate_row)(row, kind_of(config))
    except Invalid as exc:
        return f"{where}: row {row.get('task_id', '?')} fails validation ({exc.reason}: {exc.detail}"[:300] + ")"
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        return f"{where}: row {row.get('task_id', '?')} is malformed ({type(exc).__name__})"
    return None


def _validate_source(source: Path, src: str, configs: list[str], pool: Pool | None) -> None:
    """Refuse a source with a row that fails validation: its shards may match a manifest that was
    updated after an edit, and the augmented dataset would carry (and be built from) the bad row."""
    fix = (f"; the source was changed after it was built: restore it from a good copy or rebuild it "
           f"(`covert regenerate {src} --out NEW`), and check it with `covert validate`")

    def items() -> Iterator[tuple[str, str, dict[str, Any]]]:
        from covert.io.reader import iter_shard_rows

        for config in configs:
            for path, row, unloadable in iter_shard_rows(source, config, check_loadable=True):
                if unloadable:
                    raise AugmentError(f"{path}: row {row.get('task_id', '?')} stores numbers datasets.load_dataset "
                                       f"reads back as other values ({', '.join(unloadable[:2])}); rebuild the source "
                                       "with this covert (`covert regenerate`)")
                yield config, str(path), row

    results = ordered_map(_check_row, items(), pool, chunksize=8)
    for failure in results:
        interrupts.check()
        if failure is not None:
            raise AugmentError(failure + fix)


def pairs_of(root: Path, split: str) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """The (sft, rl) rows of one split, checked to hold the same tasks in the same order."""
    from covert.io.reader import iter_rows

    sft_rows, rl_rows = iter_rows(root, "sft", split), iter_rows(root, "rl", split)
    try:
        for sft in sft_rows:
            rl = next(rl_rows, None)
            if rl is None or rl.get("task_id") != sft.get("task_id"):
                raise AugmentError(f"{root}: the sft and rl configs do not hold the same tasks in the same order "
                                   f"(split {split}); augment a dataset written by `covert build`")
            yield sft, rl
        if next(rl_rows, None) is not None:
            raise AugmentError(f"{root}: the rl config of split {split} has more rows than sft")
    except DatasetError:
        raise
    except (ValueError, OSError, KeyError) as exc:  # unreadable shards: Arrow and JSON errors are ValueErrors
        raise AugmentError(f"{root}: cannot read the {split} rows ({type(exc).__name__}); run `covert validate`") from None


def _check_locations(source: Path, out: Path) -> None:
    src, dst = source.resolve(), out.resolve()
    if src == dst or src in dst.parents or dst in src.parents:
        raise AugmentError(f"--out {out} overlaps the source {source}; write the augmented dataset elsewhere")


def _carried(config: str) -> bool:
    """Source configs copied as they are: every config but earlier augmentations (sft, rl, the
    multi-turn views, ...); the augmented configs are written anew."""
    return not config.endswith("-augmented")


def _copy_base(source: Path, manifest: dict[str, Any], staging: Path) -> dict[str, str]:
    from covert.io.parquet import sha256_file

    files = {rel: digest for rel, digest in manifest.get("files", {}).items() if _carried(rel.split("/")[0])}
    if not any(rel.startswith("sft/") for rel in files) or not any(rel.startswith("rl/") for rel in files):
        raise AugmentError(f"{source} has no sft and rl shards in its manifest; augment a dataset written by `covert build`")
    for rel, digest in files.items():
        origin = source / rel
        if not origin.is_file() or sha256_file(origin) != digest:
            raise AugmentError(f"{source}/{rel} is missing or does not match its manifest hash; run `covert validate`")
        target = staging / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(origin, target)
    return files


def regenerate_command(src: str, out: str | Path, config: AugmentConfig) -> str:
    """The command that writes these augmented configs again (recorded in the manifest and the card)."""
    return (f"covert augment {shlex.quote(src)} --out {shlex.quote(str(out))} --kinds {','.join(config.kinds)} "
            f"--intensity {config.intensity} --seed {config.seed} --rows-per-shard {config.rows_per_shard}")


def augment_dataset(src: str | Path, out: str | Path, config: AugmentConfig, overwrite: bool = False,
                    workers: int = 1, progress: bool = False, command: str | None = None,
                    llm: Any = None, engine: str = "local", ray_address: str | None = None) -> dict[str, Any]:
    """Write the base configs and their augmented configs to ``out``; returns the new manifest.

    ``engine`` runs the rows on ``workers`` local processes (``"local"``) or as Ray Data tasks (``"ray"``,
    on local Ray or the cluster at ``ray_address``): the same bytes either way.

    ``command`` is the regeneration command to record (default: the one this call amounts to).
    ``llm`` (a :class:`covert.augment.llm.LLMRephraser`) rewrites indirect and ambiguous queries.
    """
    config.validate()
    if workers < 1:
        raise AugmentError("--workers must be at least 1")
    source, revision = resolve_source(str(src))
    manifest = open_dataset(source).manifest  # manifest, shards, sha256, footers and card, or one line
    if dataset_kind(manifest) == "procgen":
        raise AugmentError(does_not_apply(
            "augment", src, manifest, "tool datasets with sft and rl configs (covert build, covert live-mcp)",
            "a procedural dataset is made harder with --level and --config, or `covert evolve-procgen`"))
    out = Path(out)
    _check_locations(source, out)
    staging = prepare_output(out, overwrite)
    try:
        command = command or regenerate_command(str(src), out, config)
        with Background() as background:  # Parquet encoding overlaps augmenting the next rows
            result = _augment_into(source, revision, str(src), manifest, config, staging, workers, progress, command,
                                   llm, background, engine, ray_address)
        publish(staging, out)
    except BaseException:
        discard(staging)
        raise
    return result


def _augment_into(source: Path, revision: str | None, src: str, base: dict[str, Any], config: AugmentConfig,
                  root: Path, workers: int, progress: bool, command: str, llm: Any = None,
                  background: Background | None = None, engine: str = "local",
                  ray_address: str | None = None) -> dict[str, Any]:
    from covert.io.parquet import ShardWriter, close_writers
    from covert.progress import bar as progress_bar

    tally = _Tally()
    examples: dict[str, dict[str, Any]] = {}
    base_rows = sum(v for k, v in base.get("rows", {}).items() if k.startswith("sft/"))
    pool = open_pool(engine, workers, _init_worker, (config, llm is not None), ray_address)
    bar = None
    seen = 0
    try:
        carried = sorted({rel.split("/")[0] for rel in base["files"] if _carried(rel.split("/")[0])})
        _validate_source(source, src, carried, pool)
        base_files = _copy_base(source, base, root)
        writers = {(name, split): ShardWriter(root, name, split, config.rows_per_shard, background)
                   for name in AUGMENTED.values() for split in SPLITS}
        bar = progress_bar(base_rows or None, unit="task", desc="augment", enabled=progress)
        for split in SPLITS:
            pairs = pairs_of(source, split)
            results = ordered_map(_augment_one, pairs, pool, chunksize=8)
            if llm is not None:
                results = _with_llm(results, llm)
            for outcomes in results:
                interrupts.check()
                seen += 1
                bar.update(1)
                for kind, status, sft, rl in outcomes:
                    if status == "skipped":
                        tally.skipped[kind] += 1
                    elif status == "rejected":
                        tally.rejected.setdefault(kind, Counter())[sft] += 1
                    else:
                        tally.rows[kind] += 1
                        rl["extra_info"]["index"] = sum(tally.rows.values()) - 1
                        writers[(AUGMENTED["sft"], split)].add(sft)
                        writers[(AUGMENTED["rl"], split)].add(rl)
                        examples.setdefault(AUGMENTED["sft"], sft)
                        examples.setdefault(AUGMENTED["rl"], rl)
    finally:
        if bar is not None:
            bar.close()
        if pool is not None:
            pool.close()
    written, counts = close_writers(writers, root)
    files = {**base_files, **written}
    rows = {k: v for k, v in base.get("rows", {}).items() if _carried(k.split("/")[0])}
    rows.update(counts)
    manifest = {
        **base,
        "command": portable_command("\n".join(c for c in (base.get("command", ""), command) if c)),
        "augmentation_config": {**asdict(config), "source": portable_path(src), "source_revision": revision,
                                "covert_version": covert.__version__, "base_files": dict(sorted(base_files.items()))},
        "augmentation": {k: tally.rows[k] for k in config.kinds},
        "augmentation_summary": tally.summary(config.kinds, seen),
        **({"augmentation_llm": llm.summary()} if llm is not None else {}),
        "rows": rows,
        "files": dict(sorted(files.items())),
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    _write_card(root, source, manifest, examples)
    return manifest


def _write_card(root: Path, source: Path, manifest: dict[str, Any], examples: dict[str, dict[str, Any]]) -> None:
    from covert.io.card import render_card
    from covert.io.parquet import encode_row
    from covert.io.reader import iter_rows

    for view in sorted({rel.split("/")[0] for rel in manifest["files"] if _carried(rel.split("/")[0])}):
        first = next(iter_rows(source, view), None)
        if first is not None:
            examples.setdefault(view, encode_row(first, view))
    (root / "README.md").write_text(card_with_augmentations(render_card(manifest, examples, root=root), manifest))


def card_with_augmentations(card: str, manifest: dict[str, Any]) -> str:
    """The rendered card with a paragraph on the augmented configs and the kinds that made them."""
    config = manifest["augmentation_config"]
    per_kind = manifest["augmentation_summary"]["per_kind"]
    lines = ["`sft-augmented` and `rl-augmented` hold oracle-preserving augmentations of the base rows, in the base "
             "rows' splits and with the same features. Each row names its base row in `base_task_id` and what was "
             "applied, with its parameters, in `augmentations`. Every row passed the preservation proof: the oracle "
             "re-executed on the augmented task gives the same calls, final state and answer facts, and a change "
             "of expected behaviour (`clarify`, `retry`, `report_error`) is recorded in `ground_truth` with its "
             f"rubric. Intensity `{config['intensity']}`, seed {config['seed']}.", "",
             "| kind | what it does | base rows it does not apply to | rejected |", "|---|---|---|---|"]
    lines += [f"| {k} | {get_kind(k).description} | {per_kind[k]['not_applicable']} | "
              f"{sum(per_kind[k]['rejected'].values())} |" for k in config["kinds"]]
    section = "\n".join(lines) + "\n\n"
    marker = "## Validation"
    return card.replace(marker, section + marker, 1) if marker in card else card + "\n" + section
