"""A cell over the stated limit (16 MiB) is refused with one line (exit 2) before it is decompressed
(issue 32: a 10 MB shard with one 206 MB JSON cell drove `covert validate` to 2.2 GB and `covert score`
to 1.7 GB). Peak memory is printed by benchmarks/cell_limit_bench.py."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from covert.build import BuildConfig, build
from covert.io.pages import largest_page
from covert.io.reader import MAX_CELL_BYTES, MAX_PAGE_BYTES, DatasetError, iter_rows

REPO = Path(__file__).resolve().parents[2]
SHARD = "rl/train-00000-of-00001.parquet"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cells") / "ds"
    build(BuildConfig(builders=["retail"], num_tasks=20, seed=3), out, progress=False)
    return out


def hostile(base: Path, out: Path, cell_bytes: int, data_page_size: int | None = None) -> Path:
    """``base`` copied with one ``prompt`` cell of ``cell_bytes`` in rl/train, the manifest's hash fixed
    (an attacker writes the manifest too)."""
    shutil.copytree(base, out)
    shard = out / SHARD
    table = pq.read_table(shard)
    prompts = table.column("prompt").to_pylist()
    prompts[0] = json.dumps([{"role": "user", "content": "x" * cell_bytes}])
    field = table.schema.field("prompt")
    table = table.set_column(table.schema.get_field_index("prompt"), field, pa.array(prompts, type=field.type))
    options = {"data_page_size": data_page_size} if data_page_size else {}
    pq.write_table(table, shard, compression="zstd", **options)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["files"][SHARD] = hashlib.sha256(shard.read_bytes()).hexdigest()
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return out


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "covert.cli", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


def test_validate_and_score_refuse_a_huge_cell_in_one_line(base: Path, tmp_path: Path) -> None:
    root = hostile(base, tmp_path / "big", 206 * 2**20)
    assert (root / SHARD).stat().st_size < 2**20  # JSON of one repeated character compresses ~1000x
    predictions = tmp_path / "p.jsonl"
    task = next(iter_rows(base, "rl"))["task_id"]
    predictions.write_text(json.dumps({"task_id": task, "completion": "hi"}) + "\n")
    for args in (("validate", str(root)), ("score", "--dataset", str(root), "--predictions", str(predictions))):
        result = _cli(*args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        [line] = result.stderr.strip().splitlines()
        assert "column prompt" in line and "16 MiB a cell may hold" in line and str(root) in line, line


def test_the_page_headers_are_read_before_anything_is_decompressed(base: Path, tmp_path: Path) -> None:
    root = hostile(base, tmp_path / "big", 40 * 2**20)
    size, column = largest_page(root / SHARD, pq.ParquetFile(root / SHARD).metadata)
    assert column == "prompt" and size > 40 * 2**20
    for shard in sorted(base.rglob("*.parquet")):  # covert's own shards: pages of about 1 MiB at most
        size, _ = largest_page(shard, pq.ParquetFile(shard).metadata)
        assert 0 < size < 2 * 2**20, shard


def test_a_cell_over_the_limit_in_a_page_under_it_is_refused_by_the_cell_check(base: Path, tmp_path: Path) -> None:
    cell = MAX_CELL_BYTES + 2**20
    assert cell < MAX_PAGE_BYTES
    root = hostile(base, tmp_path / "cell", cell)
    with pytest.raises(DatasetError, match="column prompt holds a cell of 17 MiB"):
        list(iter_rows(root, "rl"))


def test_a_cell_under_the_limit_is_read(base: Path, tmp_path: Path) -> None:
    root = hostile(base, tmp_path / "fits", MAX_CELL_BYTES - 2**20)
    rows = list(iter_rows(root, "rl", "train"))
    assert len(rows[0]["prompt"][0]["content"]) == MAX_CELL_BYTES - 2**20
