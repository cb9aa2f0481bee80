"""The environment store: one file per API, atomic writes, sorted reads, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from covert.imports.model import ApiSpec, Operation
from covert.imports.store import (
    StoreError,
    dump_spec,
    load_spec,
    load_specs,
    safe_id,
    save_spec,
    spec_path,
    store_dir,
)


def _spec(api: str) -> ApiSpec:
    op = Operation(op_id="get", name="get", description="Get one.", effect="read", response={"type": "object"},
                   parameters={"type": "object", "properties": {"id": {"type": "string", "x-in": "path"}}})
    return ApiSpec(source="openapi", api=api, title="T", version="1", description="", license="MIT",
                   license_url=None, provenance={"package": "p"}, operations=(op,), skipped=(("x", "no_responses"),))


def test_ids_map_to_distinct_safe_names() -> None:
    assert safe_id("openapi:a/b:1") != safe_id("openapi:a_b:1")
    assert safe_id("google:drive:v3").startswith("google_drive_v3~")
    assert Path(safe_id("x" * 400)).name == safe_id("x" * 400) and len(safe_id("x" * 400)) < 200


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    specs = [_spec("openapi:b:1"), _spec("openapi:a/x:1")]
    for spec in specs:
        path = save_spec(tmp_path, spec)
        assert path == spec_path(tmp_path, spec.api) and path.read_bytes() == dump_spec(spec)
    save_spec(tmp_path, specs[0])  # replacing leaves one file, no temp files
    assert sorted(p.name for p in (tmp_path / "specs").iterdir()) == sorted(
        f"{safe_id(s.api)}.json" for s in specs)
    assert sorted(s.api for s in load_specs(tmp_path)) == ["openapi:a/x:1", "openapi:b:1"]
    assert load_spec(tmp_path, "openapi:b:1") == specs[0]
    with pytest.raises(StoreError, match="import it first"):
        load_spec(tmp_path, "openapi:nope:1")
    spec_path(tmp_path, "openapi:b:1").write_text("{broken")
    with pytest.raises(StoreError, match="re-import it"):
        list(load_specs(tmp_path))
    assert list(load_specs(tmp_path / "empty")) == []


def test_store_dir_default_and_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COVERT_ENVS", raising=False)
    assert store_dir(None) == Path.home() / ".cache" / "covert" / "envs"
    monkeypatch.setenv("COVERT_ENVS", str(tmp_path))
    assert store_dir(None) == tmp_path
    assert store_dir(tmp_path / "x") == tmp_path / "x"
