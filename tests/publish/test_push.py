"""``covert push``: the commits it builds, what a resumed push skips, and what it refuses. No network."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from huggingface_hub import CommitOperationAdd, CommitOperationDelete
from huggingface_hub.hf_api import RepoFile, RepoFolder

from covert.cli import main
from covert.io.parquet import sha256_file
from covert.io.reader import load_manifest
from covert.publish.push import (
    LAST,
    PushError,
    RemoteFile,
    local_files,
    plan_upload,
    push_dataset,
    remote_index,
)


def _on_hub(files, lfs_suffix: str = ".parquet") -> list:
    """Entries as ``HfApi.list_repo_tree`` returns them for files already uploaded."""
    entries: list = [RepoFolder(path="sft", oid="0" * 40)]
    for f in files:
        if f.path.endswith(lfs_suffix):
            entries.append(RepoFile(path=f.path, size=f.size, oid="1" * 40,
                                    lfs={"size": f.size, "oid": f.sha256, "pointerSize": 134}))
        else:
            entries.append(RepoFile(path=f.path, size=f.size, oid=f.git_sha1))
    return entries


def test_local_files_are_the_folder_as_it_is(dataset: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy)
    (copy / ".cache").mkdir()
    (copy / ".cache" / "junk").write_text("x")
    files = local_files(copy)
    manifest = load_manifest(copy)
    assert [f.path for f in files] == sorted([*manifest["files"], "README.md", "manifest.json"])
    for f in files:
        assert f.size == (copy / f.path).stat().st_size and f.sha256 == sha256_file(copy / f.path)
        if f.path in manifest["files"]:
            assert f.sha256 == manifest["files"][f.path]
    if shutil.which("git"):
        for f in files[:3]:
            blob = subprocess.run(["git", "hash-object", str(copy / f.path)], capture_output=True, text=True, check=True)
            assert blob.stdout.strip() == f.git_sha1


def test_fresh_push_plan_batches_data_first_and_the_card_last(dataset: Path) -> None:
    files = local_files(dataset)
    plan = plan_upload(files, {}, max_files=4, max_bytes=10**9)
    added = [f.path for c in plan.commits for f in c.add]
    assert sorted(added) == sorted(f.path for f in files) and len(added) == len(set(added))
    assert not plan.skipped and not plan.up_to_date
    *data, last = plan.commits
    assert [f.path for f in last.add] == list(LAST) and not last.delete
    assert all(len(c.add) <= 4 for c in data) and all(f.path not in LAST for c in data for f in c.add)
    assert [c.message.split(":")[0] for c in plan.commits] == [
        f"covert push {i}/{len(plan.commits)}" for i in range(1, len(plan.commits) + 1)]


def test_byte_limit_splits_commits(dataset: Path) -> None:
    files = local_files(dataset)
    biggest = max(f.size for f in files)
    plan = plan_upload(files, {}, max_files=100, max_bytes=biggest)
    for commit in plan.commits[:-1]:
        assert len(commit.add) == 1 or sum(f.size for f in commit.add) <= biggest


def test_commit_operations_are_huggingface_hub_operations(dataset: Path) -> None:
    files = local_files(dataset)
    commit = plan_upload(files, {}, max_files=3).commits[0]
    ops = commit.operations(dataset)
    assert all(isinstance(op, CommitOperationAdd) for op in ops)
    assert [op.path_in_repo for op in ops] == [f.path for f in commit.add]
    for op, f in zip(ops, commit.add, strict=True):
        assert op.upload_info.size == f.size and op.upload_info.sha256.hex() == f.sha256


def test_resumed_push_uploads_only_what_is_missing(dataset: Path) -> None:
    files = local_files(dataset)
    first = plan_upload(files, {}, max_files=3)
    done = [f for commit in first.commits[:2] for f in commit.add]  # the push died after two commits
    remote = remote_index(_on_hub(done))
    assert set(remote) == {f.path for f in done}
    again = plan_upload(files, remote, max_files=3)
    assert sorted(again.skipped) == sorted(f.path for f in done)
    assert sorted(f.path for c in again.commits for f in c.add) == sorted(f.path for f in files if f not in done)
    finished = plan_upload(files, remote_index(_on_hub(files)), max_files=3)
    assert finished.up_to_date and sorted(finished.skipped) == sorted(f.path for f in files)


def test_changed_content_is_uploaded_again_and_stale_shards_deleted(dataset: Path) -> None:
    files = local_files(dataset)
    remote = remote_index(_on_hub(files))
    shard = next(f for f in files if f.path.endswith(".parquet"))
    card = next(f for f in files if f.path == "README.md")
    remote[shard.path] = RemoteFile(shard.path, shard.size, "f" * 64, "1" * 40)  # same size, other bytes
    remote[card.path] = RemoteFile(card.path, card.size, None, "e" * 40)
    for stale in ("sft/train-00007-of-00009.parquet", "notes/keep.md"):
        remote[stale] = RemoteFile(stale, 10, None, "d" * 40)
    plan = plan_upload(files, remote)
    *data, last = plan.commits
    assert [f.path for c in data for f in c.add] == [shard.path]
    assert [f.path for f in last.add] == ["README.md"] and last.delete == ["sft/train-00007-of-00009.parquet"]
    ops = last.operations(dataset)
    assert isinstance(ops[-1], CommitOperationDelete) and ops[-1].path_in_repo == "sft/train-00007-of-00009.parquet"


def test_plan_rejects_nonsense_limits(dataset: Path) -> None:
    with pytest.raises(PushError):
        plan_upload(local_files(dataset), {}, max_files=0)


def test_push_refuses_a_dataset_that_fails_validate(dataset: Path, tmp_path: Path, capsys) -> None:
    import pyarrow.parquet as pq

    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy)
    shard = sorted((copy / "rl").glob("train-*.parquet"))[0]
    table = pq.read_table(shard)
    pq.write_table(table.slice(0, len(table) - 1), shard)
    with pytest.raises(PushError, match="fails covert validate"):
        push_dataset(copy, "someone/covert-tools")
    assert main(["push", str(copy), "someone/covert-tools"]) == 2
    err = capsys.readouterr().err.strip()
    assert "fails covert validate" in err and "\n" not in err


def test_push_without_network_is_a_one_line_resumable_error(dataset: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_ENDPOINT": "http://127.0.0.1:9", "HF_TOKEN": "hf_test"}
    result = subprocess.run([sys.executable, "-m", "covert.cli", "push", str(dataset), "someone/covert-tools"],
                            capture_output=True, text=True, env=env, timeout=120, check=False)
    assert result.returncode == 2, result.stderr
    err = result.stderr.strip().splitlines()
    assert len(err) == 1 and "push to someone/covert-tools stopped" in err[0] and "run the same command again" in err[0]


def test_push_refuses_a_malformed_repo_id_at_once(dataset: Path, tmp_path: Path, capsys) -> None:
    # checked before the dataset (a missing folder is not reached) and not offered as a push to resume
    with pytest.raises(PushError, match="is not a Hub repo id"):
        push_dataset(tmp_path / "nope", "not a repo id")
    assert main(["push", str(dataset), "someone/covert tools"]) == 2
    err = capsys.readouterr().err.strip()
    assert "'someone/covert tools' is not a Hub repo id" in err and "\n" not in err and "resume" not in err, err
