"""Reading with shared cells (what ``covert validate`` does): equal long cells decode once, to one object,
and validating the rows changes none of them."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from covert.build import BuildConfig, build
from covert.io.features import kind_of
from covert.io.reader import SharedCells, iter_checked_rows, iter_rows
from covert.validation import validate_row


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shared") / "ds"
    build(BuildConfig(builders=["retail", "calendar"], num_tasks=60, seed=4), out, progress=False)
    return out


def test_shared_rows_are_the_rows_and_equal_long_cells_are_one_object(dataset: Path) -> None:
    shared = SharedCells()
    sft = [row for row, _ in iter_checked_rows(dataset, "sft", shared)]
    rl = [row for row, _ in iter_checked_rows(dataset, "rl", shared)]
    assert sft == list(iter_rows(dataset, "sft")) and rl == list(iter_rows(dataset, "rl"))
    for s, r in zip(sft, rl, strict=True):  # the two views of a task: one decoded state, one tool list
        assert s["initial_state"] is r["extra_info"]["initial_state"]
        assert s["tools"] is r["tools"] or len(orjson.dumps(s["tools"])) < SharedCells.SHORTEST
    states = {orjson.dumps(row["initial_state"]) for row in sft}
    assert len({id(row["initial_state"]) for row in sft}) == len(states) < len(sft)
    assert len({id(row["tools"]) for row in sft}) < len(sft)
    assert len({id(row["messages"]) for row in sft}) == len(sft)  # a column not named is decoded per row
    plain = [row for row, _ in iter_checked_rows(dataset, "sft")]
    assert len({id(row["initial_state"]) for row in plain}) == len(plain)  # without shared cells: per row


def test_validation_changes_no_shared_cell(dataset: Path) -> None:
    shared = SharedCells()
    rows = [(config, row) for config in ("sft", "rl") for row, _ in iter_checked_rows(dataset, config, shared)]
    for config, row in rows:
        validate_row(row, kind_of(config))
    assert [row for _, row in rows] == [*iter_rows(dataset, "sft"), *iter_rows(dataset, "rl")]


def test_the_least_recently_read_text_is_forgotten_first() -> None:
    shared = SharedCells()
    texts = [orjson.dumps({"k": i, "pad": "x" * SharedCells.SHORTEST}).decode() for i in range(SharedCells.CELLS + 1)]
    first = shared.loads(texts[0])
    for text in texts[1:SharedCells.CELLS]:
        shared.loads(text)
    assert shared.loads(texts[0]) is first  # read again: now the most recent
    shared.loads(texts[-1])  # one text too many: the least recently read (texts[1]) goes
    assert shared.loads(texts[0]) is first
    assert shared.loads(texts[1]) == orjson.loads(texts[1])
    short = orjson.dumps({"k": 1}).decode()
    assert shared.loads(short) is not shared.loads(short)  # short texts are decoded each time
