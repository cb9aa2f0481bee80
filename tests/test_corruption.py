"""Corrupt datasets against the commands that read them: one line and exit 2, or correctly handled, and
nothing that was there before changes.

One small dataset is built per module; each case copies it, damages the copy one way, runs one command
in-process through :func:`covert.cli.main` (two cases also as real subprocesses) and checks the exit
status, that the error is one line without a traceback, that the tree that was there is unchanged,
and that a refused command wrote nothing. ``EXPECTED`` is the matrix; cases not in it exit 2.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from covert.build import BuildConfig, build
from covert.cli import main
from covert.io.parquet import ShardWriter, encode_row
from covert.io.reader import DatasetError, iter_rows, iter_shard_rows

SHARD = "sft/test-00000-of-00001.parquet"  # the first shard of the sft config: every command here reads it


def _build(out: Path) -> None:
    build(BuildConfig(builders=["retail", "banking"], num_tasks=60, seed=3, rows_per_shard=20), out, progress=False,
          command="covert build --builders retail,banking --num-tasks 60 --seed 3 --rows-per-shard 20 --out DIR")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corruption") / "ds"
    _build(out)
    assert (out / SHARD).is_file()
    return out


# ---- the corruptions ---------------------------------------------------------------------------------


def _manifest(root: Path) -> dict:
    return json.loads((root / "manifest.json").read_text())


def _write_manifest(root: Path, manifest: dict) -> None:
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def _rehash(root: Path, rel: str) -> None:
    manifest = _manifest(root)
    manifest["files"][rel] = hashlib.sha256((root / rel).read_bytes()).hexdigest()
    _write_manifest(root, manifest)


def _flip(root: Path, detected: bool = True) -> None:
    """Flip one byte of a compressed data page of ``SHARD``: the first one from the middle of the file
    that Arrow's decompression reports (``detected``), or the first that decodes to other values
    without an error (zstd frames carry no checksum). Deterministic: the dataset's bytes are."""
    import pyarrow.parquet as pq

    path = root / SHARD
    original = path.read_bytes()
    reference = pq.read_table(path)
    for offset in range(len(original) // 2, len(original) - 200):
        data = bytearray(original)
        data[offset] ^= 0xFF
        path.write_bytes(bytes(data))
        try:
            changed = not pq.read_table(path).equals(reference)
            failed = False
        except (OSError, ValueError):
            changed, failed = True, True
        if changed and not failed and not detected and not _rows_read(root):
            continue  # the rows no longer read as covert's rows: detected after all, not a silent flip
        if changed and failed == detected:
            return
    raise AssertionError("no such byte")


def _rows_read(root: Path) -> bool:
    """Whether every row of ``SHARD`` still reads as a covert row."""
    try:
        list(iter_shard_rows(root, SHARD.split("/")[0]))
    except Exception:  # noqa: BLE001 - any failure to read is what this asks about
        return False
    return True


def tamper_oracle(root: Path, rel: str = "rl/train-00000-of-00003.parquet") -> None:
    """Change one oracle argument of a shard's first row, rewrite the shard as covert writes shards, and
    put the shard's new sha256 into the manifest (so only the rows' own validation can tell)."""
    config, name = rel.split("/")
    rows = [row for path, row, _ in iter_shard_rows(root, config) if path.name == name]
    truth = rows[0]["reward_model"]["ground_truth"] if config.startswith("rl") else rows[0]["ground_truth"]
    call = next(c for turn in truth["calls"] for c in turn if any(isinstance(v, str) for v in c["arguments"].values()))
    key = next(k for k, v in call["arguments"].items() if isinstance(v, str))
    call["arguments"][key] += "0"
    rewrite_shard(root, rel, rows)


def rewrite_shard(root: Path, rel: str, rows: list[dict[str, Any]]) -> None:
    """Write ``rows`` as the shard ``rel`` (``config/name.parquet``), as covert writes shards, and put its
    new sha256 into the manifest (so only the rows' own validation can tell)."""
    config = rel.split("/")[0]
    with tempfile.TemporaryDirectory() as tmp:
        writer = ShardWriter(Path(tmp), config, "x", 10**6)
        for row in rows:
            writer.add(encode_row(row, config))
        [made] = writer.close()
        shutil.move(made, root / rel)
    _rehash(root, rel)


CELL_MB = int(os.environ.get("COVERT_CORRUPTION_CELL_MB", "20"))  # issue 32's shard held 206 MB: set it for the long run


def huge_cell(root: Path) -> None:
    """One ``messages`` cell of ``SHARD`` made :data:`CELL_MB` MB of JSON (over the 16 MiB cell limit; it
    compresses to almost nothing), the shard rewritten as covert writes them and rehashed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = root / SHARD
    table = pq.read_table(path)
    cells = table.column("messages").to_pylist()
    cells[0] = json.dumps([{"role": "user", "content": "x" * (CELL_MB << 20)}])
    field = table.schema.field("messages")
    table = table.set_column(table.schema.get_field_index("messages"), field, pa.array(cells, type=field.type))
    pq.write_table(table, path, compression="zstd")
    _rehash(root, SHARD)


def _broken_configs(root: Path) -> None:
    card = root / "README.md"
    text = card.read_text()
    assert "- config_name: sft" in text
    card.write_text(text.replace("- config_name: sft", "- name: sft", 1))


CORRUPTIONS: dict[str, Callable[[Path], None]] = {
    "intact": lambda root: None,
    "manifest_invalid_json": lambda root: (root / "manifest.json").write_text((root / "manifest.json").read_text()[:-40]),
    "manifest_wrong_shape": lambda root: _write_manifest(root, {**_manifest(root), "files": sorted(_manifest(root)["files"])}),
    "shard_deleted": lambda root: (root / "sft" / "train-00001-of-00003.parquet").unlink(),
    "extra_shard": lambda root: shutil.copyfile(root / SHARD, root / "sft" / "test-00001-of-00001.parquet"),
    "shard_truncated": lambda root: (root / SHARD).write_bytes((root / SHARD).read_bytes()[:-300]),
    "shard_empty": lambda root: (root / SHARD).write_bytes(b""),
    "shard_byte_flipped": _flip,
    "shard_byte_flipped_rehashed": lambda root: (_flip(root), _rehash(root, SHARD)),
    # not one of the twelve: a flip that decodes without an error, behind an updated hash
    "shard_silently_flipped_rehashed": lambda root: (_flip(root, detected=False), _rehash(root, SHARD)),
    "readme_deleted": lambda root: (root / "README.md").unlink(),
    "readme_configs_broken": _broken_configs,
    "oracle_tampered_rehashed": tamper_oracle,
    "config_folder_missing": lambda root: shutil.rmtree(root / "rl"),
    # issue 32: a builder this covert does not have; a cell over the 16 MiB limit
    "manifest_unknown_builder": lambda root: _write_manifest(
        root, {**_manifest(root), "builders": {**_manifest(root)["builders"], "no_such_builder": {"version": "1"}}}),
    "huge_cell_rehashed": huge_cell,
}

# ---- the commands ------------------------------------------------------------------------------------


def _predictions(work: Path, pristine: Path) -> Path:
    path = work / "predictions.jsonl"
    first = next(iter_rows(pristine, "sft"))["task_id"]
    path.write_text(json.dumps({"task_id": first, "completion": "no tool call"}) + "\n")
    return path


COMMANDS: dict[str, Callable[[Path, Path, Path], list[str]]] = {
    "validate": lambda ds, work, pristine: ["validate", str(ds)],
    "show": lambda ds, work, pristine: ["show", str(ds), "--index", "0"],
    "augment": lambda ds, work, pristine: ["augment", str(ds), "--out", str(work / "augmented"), "--kinds",
                                           "distractors,noisy", "--quiet"],
    "regenerate": lambda ds, work, pristine: ["regenerate", str(ds), "--out", str(work / "rebuilt"), "--quiet"],
    "export": lambda ds, work, pristine: ["export", str(ds), "--to", "openai-jsonl", "--out", str(work / "out.jsonl")],
    "score": lambda ds, work, pristine: ["score", "--dataset", str(ds), "--config", "sft", "--predictions",
                                         str(_predictions(work, pristine)), "--quiet"],
}
OUTPUTS = ("augmented", "rebuilt", "out.jsonl")

# what each case gives where it is not a one-line refusal with exit status 2
_REBUILT_DESPITE_SOURCE = 1  # regenerate: says which source files differ, rebuilds, and the rebuild matches
EXPECTED: dict[tuple[str, str], int] = {
    **{("intact", command): 0 for command in COMMANDS},
    **{(corruption, "regenerate"): _REBUILT_DESPITE_SOURCE for corruption in (
        "shard_deleted", "extra_shard", "shard_truncated", "shard_empty", "shard_byte_flipped", "readme_deleted",
        "readme_configs_broken", "config_folder_missing")},
    # the damaged page matches its (updated) hash: the rebuild differs from the manifest in that shard
    ("shard_byte_flipped_rehashed", "regenerate"): 1,
    # the flip changed a row's initial state: only replaying the row tells (validate: exit 1, augment refuses)
    ("shard_silently_flipped_rehashed", "validate"): 1,
    ("shard_silently_flipped_rehashed", "regenerate"): 1,
    ("shard_silently_flipped_rehashed", "show"): 0,
    ("shard_silently_flipped_rehashed", "export"): 0,
    ("shard_silently_flipped_rehashed", "score"): 0,
    # a consistent folder whose row was edited: validate reports the row (exit 1), regenerate's rebuild
    # differs in that shard (exit 1), augment refuses the source; show, export and score read what is there
    ("oracle_tampered_rehashed", "validate"): 1,
    ("oracle_tampered_rehashed", "regenerate"): 1,
    ("oracle_tampered_rehashed", "show"): 0,
    ("oracle_tampered_rehashed", "export"): 0,
    ("oracle_tampered_rehashed", "score"): 0,
    # a manifest naming a builder this covert lacks: validate and regenerate refuse (they replay or rebuild
    # with it); the others read the rows, whose own builders are there
    **{("manifest_unknown_builder", command): 0 for command in ("show", "augment", "export", "score")},
    # the rebuild is covert's own bytes: it differs from the manifest in the shard holding the huge cell
    ("huge_cell_rehashed", "regenerate"): 1,
}


def tree(root: Path) -> dict[str, str]:
    """relative path -> sha256 of every file under ``root`` (hidden ones included)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def run_case(pristine: Path, work: Path, corruption: str, command: str,
             capsys: pytest.CaptureFixture[str] | None = None) -> tuple[int, str, str]:
    """Copy, damage, run one command in-process; returns (exit status, stdout, stderr)."""
    ds = work / "ds"
    shutil.copytree(pristine, ds)
    CORRUPTIONS[corruption](ds)
    argv = COMMANDS[command](ds, work, pristine)
    if capsys is None:
        import contextlib
        import io

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        return code, out.getvalue(), err.getvalue()
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_corruption_matrix(pristine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                           corruption: str, command: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    before: dict[str, str] = {}

    def snapshot_after_damage(root: Path) -> None:
        before.update(tree(root))

    ds = work / "ds"
    shutil.copytree(pristine, ds)
    CORRUPTIONS[corruption](ds)
    argv = COMMANDS[command](ds, work, pristine)
    snapshot_after_damage(work)
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    expected = EXPECTED.get((corruption, command), 2)
    assert code == expected, (corruption, command, captured.out[-800:], captured.err[-800:])
    assert "Traceback" not in captured.err
    after = tree(work)
    new = {rel for rel in after if rel not in before}
    assert {rel: after[rel] for rel in before} == before, "a file that was there changed"
    assert all(rel.split("/")[0] in OUTPUTS for rel in new), sorted(new)[:5]
    assert not [p.name for p in work.iterdir() if p.name.startswith(".")], "a staging leftover stayed"
    if code == 2:
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("covert: error: "), captured.err
        assert not new, f"a refused command wrote {sorted(new)[:3]}"
        if corruption != "intact":
            assert str(ds) in lines[0]  # the line names the damaged file (or the dataset)
    if (corruption, command) in EXPECTED and command == "regenerate" and corruption != "intact":
        assert "differ" in captured.out or "the source differs" in captured.out, captured.out


@pytest.mark.parametrize(("corruption", "needle"), [
    ("manifest_invalid_json", "manifest.json is not valid JSON"),
    ("manifest_wrong_shape", "manifest.json: `files` must be an object"),
    ("shard_deleted", "train-00001-of-00003.parquet is missing"),
    ("extra_shard", "test-00001-of-00001.parquet is not in manifest.json"),
    ("shard_truncated", "does not match its manifest hash"),
    ("shard_empty", "does not match its manifest hash"),
    ("shard_byte_flipped", "does not match its manifest hash"),
    ("readme_deleted", "README.md is missing"),
    ("readme_configs_broken", "README.md: configs:"),
    ("config_folder_missing", "/rl is missing"),
])
def test_each_refusal_names_the_file_and_what_to_do(pristine: Path, tmp_path: Path, capsys, corruption: str,
                                                     needle: str) -> None:
    code, _, err = run_case(pristine, tmp_path, corruption, "validate", capsys)
    assert code == 2 and needle in err and ("restore" in err or "remove it" in err), err


def test_a_damaged_page_behind_a_matching_hash_is_named(pristine: Path, tmp_path: Path, capsys) -> None:
    code, _, err = run_case(pristine, tmp_path, "shard_byte_flipped_rehashed", "export", capsys)
    assert code == 2 and f"{SHARD} cannot be read" in err and "damaged" in err, err


def test_augment_refuses_a_tampered_row_and_names_it(pristine: Path, tmp_path: Path, capsys) -> None:
    """The issue's case: augment of a source whose oracle argument was edited (manifest hash updated)
    exited 0 and wrote a dataset that failed ``covert validate``."""
    code, _, err = run_case(pristine, tmp_path, "oracle_tampered_rehashed", "augment", capsys)
    assert code == 2, err
    assert "rl/train-00000-of-00003.parquet: row " in err and "fails validation" in err
    assert not (tmp_path / "augmented").exists()


def test_regenerate_names_the_source_files_that_differ(pristine: Path, tmp_path: Path, capsys) -> None:
    code, out, _ = run_case(pristine, tmp_path, "shard_deleted", "regenerate", capsys)
    first, second, third = out.strip().splitlines()[:3]
    assert code == 1
    assert first.startswith("the source differs from its manifest in 1 file: sft/train-00001-of-00003.parquet is missing")
    assert second.startswith("rebuilt: all ") and "match the manifest's sha256" in second
    assert "a rebuild that matches the manifest" in third
    assert tree(tmp_path / "rebuilt") == tree(pristine)  # the rebuild is the repair


@pytest.mark.parametrize("corruption", ["readme_deleted", "readme_configs_broken"])
def test_the_card_problems_are_the_ones_load_dataset_has(pristine: Path, tmp_path: Path, corruption: str) -> None:
    """What ``validate`` now refuses, ``datasets.load_dataset`` cannot read either (and the intact card
    loads)."""
    from datasets import load_dataset

    train = json.loads((pristine / "manifest.json").read_text())["rows"]["sft/train"]
    assert train > 0 and len(load_dataset(str(pristine), "sft", cache_dir=str(tmp_path / "c0"))["train"]) == train
    ds = tmp_path / "ds"
    shutil.copytree(pristine, ds)
    CORRUPTIONS[corruption](ds)
    with pytest.raises(Exception):  # noqa: B017, PT011 - datasets raises ValueError or its own errors here
        load_dataset(str(ds), "sft", cache_dir=str(tmp_path / "c1"))


def test_calibrate_and_push_use_the_same_checks(pristine: Path, tmp_path: Path, capsys) -> None:
    ds = tmp_path / "ds"
    shutil.copytree(pristine, ds)
    CORRUPTIONS["shard_truncated"](ds)
    before = tree(ds)
    assert main(["calibrate", str(ds), "--k", "1"]) == 2
    assert f"{SHARD} does not match its manifest hash" in capsys.readouterr().err
    assert main(["push", str(ds), "someone/covert-tools"]) == 2  # refused before any network call
    err = capsys.readouterr().err.strip()
    assert "fails covert validate" in err and SHARD in err and "\n" not in err
    assert tree(ds) == before and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_the_reader_names_a_damaged_shard_without_the_checks(pristine: Path, tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    shutil.copytree(pristine, ds)
    CORRUPTIONS["shard_empty"](ds)
    with pytest.raises(DatasetError, match=f"{SHARD} cannot be read"):
        list(iter_rows(ds, "sft"))


@pytest.mark.parametrize(("corruption", "command"), [("manifest_invalid_json", "validate"),
                                                     ("shard_truncated", "augment")])
def test_real_subprocess_runs(pristine: Path, tmp_path: Path, corruption: str, command: str) -> None:
    ds = tmp_path / "ds"
    shutil.copytree(pristine, ds)
    CORRUPTIONS[corruption](ds)
    before = tree(tmp_path)
    result = subprocess.run([sys.executable, "-m", "covert.cli", *COMMANDS[command](ds, tmp_path, pristine)],
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("covert: error: ") and str(ds) in lines[0], result.stderr
    assert tree(tmp_path) == before
