"""Arrow columns assembled from buffers: the same arrays ``pa.array`` builds, and a build that loads
neither pandas nor ``huggingface_hub.repocard``."""

from __future__ import annotations

import pyarrow as pa
import pytest

from covert.io.parquet import _column
from tests.fresh_python import run_json


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        (["retail-1", "", "héllo wörld ✓", "x" * 5000], pa.string()),
        (["a", None, "b", None, None, "c", "d", "e", "f"], pa.string()),
        ([None, None, None], pa.string()),
        ([], pa.string()),
        ([1, None, -7, 2**31 - 1], pa.int32()),
        ([2**40, 0, None], pa.int64()),
        ([0.5, None, float("inf"), -0.0], pa.float64()),
        ([None] * 11, pa.float64()),
    ],
)
def test_columns_equal_what_pa_array_builds(values: list, kind: pa.DataType) -> None:
    built = _column(values, kind)
    built.validate(full=True)
    assert built.equals(pa.array(values, kind))
    assert built.null_count == values.count(None)


def test_json_columns_take_bytes_or_text_and_structs_nest() -> None:
    json_column = _column([b'{"a": 1}', '{"b": "\u00e9"}', None], pa.json_())
    json_column.validate(full=True)
    assert json_column.storage.to_pylist() == ['{"a": 1}', '{"b": "\u00e9"}', None]
    kind = pa.struct([("index", pa.int64()), ("split", pa.string()), ("state", pa.json_())])
    rows = [{"index": 3, "split": "train", "state": b"{}"}, {"index": 4, "split": None, "state": b"[1]"}]
    struct = _column(rows, kind)
    struct.validate(full=True)
    assert struct.to_pylist() == [{"index": 3, "split": "train", "state": "{}"},
                                  {"index": 4, "split": None, "state": "[1]"}]


def test_a_build_loads_neither_pandas_nor_the_hub_card_module(tmp_path) -> None:
    out = tmp_path / "d"
    loaded = run_json(
        "import json, sys\n"
        "from covert.build import BuildConfig, build\n"
        f"build(BuildConfig(builders=['retail', 'airline'], num_tasks=40), {str(out)!r}, progress=False)\n"
        "print(json.dumps({m: m in sys.modules for m in ('pandas', 'huggingface_hub.repocard')}))\n"
    )
    assert loaded == {"pandas": False, "huggingface_hub.repocard": False}
    assert (out / "README.md").read_text().startswith("---\n")
