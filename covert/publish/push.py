"""``covert push``: upload a dataset folder as it is, in resumable batches of commits.

The plan is pure data (:func:`plan_upload`): every file of the folder that the remote does not
already hold with the same size and content hash goes into a commit of at most ``max_files`` files
and ``max_bytes`` bytes. Data shards go first; ``manifest.json`` and ``README.md`` go in the last
commit, together with the deletion of remote shards the folder no longer has, so the card only
describes data that is already there. A commit is atomic on the Hub, so an interrupted push leaves
whole commits behind, and running it again uploads only what is still missing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from covert.io.parquet import sha256_file
from covert.io.reader import DatasetError

LAST = ("manifest.json", "README.md")
MAX_FILES = 50
MAX_BYTES = 1 << 30


class PushError(DatasetError):
    """A dataset that may not be pushed, or a push the Hub refused; the message says why."""


@dataclass(frozen=True)
class LocalFile:
    """One file of the dataset folder."""

    path: str
    size: int
    sha256: str
    git_sha1: str


@dataclass(frozen=True)
class RemoteFile:
    """What the Hub says about one file: its size, its LFS sha256 (LFS files) and its git blob id."""

    path: str
    size: int
    sha256: str | None
    blob_id: str | None

    def holds(self, local: LocalFile) -> bool:
        """Whether this remote file already has ``local``'s content."""
        return self.size == local.size and (self.sha256 == local.sha256 or self.blob_id == local.git_sha1)


@dataclass
class Commit:
    """One commit of a push: files to add and paths to delete."""

    message: str
    add: list[LocalFile] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)

    def operations(self, root: str | Path) -> list[Any]:
        """The huggingface_hub commit operations."""
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete

        ops: list[Any] = [CommitOperationAdd(path_in_repo=f.path, path_or_fileobj=str(Path(root) / f.path)) for f in self.add]
        return ops + [CommitOperationDelete(path_in_repo=path) for path in self.delete]


@dataclass
class UploadPlan:
    """The commits of a push and the files it skips because the remote already has them."""

    commits: list[Commit]
    skipped: list[str]

    @property
    def up_to_date(self) -> bool:
        """Whether the remote already holds every file (nothing to commit)."""
        return not self.commits


def git_blob_sha1(path: Path) -> str:
    """The git blob id of a file (what the Hub reports for files not stored in LFS)."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def local_files(root: str | Path) -> list[LocalFile]:
    """Every file of the dataset folder except hidden ones (staging leftovers, caches), sorted."""
    root = Path(root)
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and not any(part.startswith(".") for part in rel.parts):
            out.append(LocalFile(rel.as_posix(), path.stat().st_size, sha256_file(path), git_blob_sha1(path)))
    return out


def remote_index(entries: Iterable[Any]) -> dict[str, RemoteFile]:
    """Index ``HfApi.list_repo_tree(..., recursive=True)`` entries (folders are ignored) by path."""
    index = {}
    for entry in entries:
        if not hasattr(entry, "blob_id"):
            continue
        lfs = getattr(entry, "lfs", None)
        sha256 = getattr(lfs, "sha256", None) if lfs is not None else None
        index[entry.path] = RemoteFile(entry.path, entry.size, sha256, entry.blob_id)
    return index


def plan_upload(files: list[LocalFile], remote: dict[str, RemoteFile], max_files: int = MAX_FILES,
                max_bytes: int = MAX_BYTES) -> UploadPlan:
    """Batch the files the remote lacks into commits; data first, ``manifest.json`` and the card last."""
    if max_files < 1 or max_bytes < 1:
        raise PushError("commit limits must be positive")
    missing = [f for f in files if not (f.path in remote and remote[f.path].holds(f))]
    skipped = [f.path for f in files if f not in missing]
    local_paths = {f.path for f in files}
    stale = sorted(p for p in remote if p not in local_paths and p.endswith(".parquet"))
    data = [f for f in missing if f.path not in LAST]
    last = sorted((f for f in missing if f.path in LAST), key=lambda f: LAST.index(f.path))
    batches: list[list[LocalFile]] = []
    for item in data:
        if not batches or len(batches[-1]) >= max_files or sum(f.size for f in batches[-1]) + item.size > max_bytes:
            batches.append([])
        batches[-1].append(item)
    commits = [Commit(add=batch, message="") for batch in batches]
    if last or stale:
        commits.append(Commit(add=last, delete=stale, message=""))
    for number, commit in enumerate(commits, 1):
        what = "manifest, card" if commit.add and commit.add[0].path in LAST else f"{len(commit.add)} files"
        if commit.delete:
            what += f", delete {len(commit.delete)} stale shards"
        commit.message = f"covert push {number}/{len(commits)}: {what}"
    return UploadPlan(commits, skipped)


def refuse_invalid(root: str | Path) -> None:
    """Raise :class:`PushError` unless the dataset passes ``covert validate``."""
    from covert.validation.dataset import describe, validate_dataset

    try:
        report = validate_dataset(root)
    except DatasetError as exc:  # a missing, extra or damaged file, or a card load_dataset cannot use
        raise PushError(f"{root} fails covert validate: {exc}") from None
    if not report.ok:
        result = describe(report)
        reason = next(iter(result["by_reason"]), "?")
        raise PushError(f"{root} fails covert validate ({result['failures']} failures, e.g. {reason}); "
                        "fix or rebuild it before pushing")


def push_dataset(root: str | Path, repo_id: str, private: bool = False, revision: str | None = None,
                 api: Any = None, max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES,
                 log: Callable[[str], None] = print) -> UploadPlan:
    """Validate ``root``, then upload what the Hub repo ``repo_id`` (dataset) lacks; returns the plan it ran."""
    from huggingface_hub import HfApi
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:  # a malformed id is refused here, before the dataset is validated, and no rerun can resume it
        validate_repo_id(repo_id)
    except HFValidationError:
        raise PushError(f"{repo_id!r} is not a Hub repo id: give owner/name (letters, digits, '-', '_' and '.', "
                        "at most 96 characters)") from None
    root = Path(root)
    refuse_invalid(root)
    api = api or HfApi()
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        if revision and revision != "main":
            api.create_branch(repo_id, repo_type="dataset", branch=revision, exist_ok=True)
        remote = remote_index(api.list_repo_tree(repo_id, repo_type="dataset", revision=revision, recursive=True))
        plan = plan_upload(local_files(root), remote, max_files, max_bytes)
        if plan.skipped:
            log(f"{len(plan.skipped)} files already on the Hub with the same content; skipping them")
        for commit in plan.commits:
            api.create_commit(repo_id, commit.operations(root), commit_message=commit.message, repo_type="dataset",
                              revision=revision)
            log(commit.message)
    except PushError:
        raise
    except Exception as exc:  # the Hub's HTTP errors, offline mode, network and file errors: one line, resumable
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise PushError(f"push to {repo_id} stopped: {message}; run the same command again to resume") from None
    return plan
