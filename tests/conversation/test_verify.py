"""What the assistant says in a conversation: validation rejects rows broken on purpose, with a reason."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from covert.cli import main
from covert.env import get_builder
from covert.errors import Invalid
from covert.io.card import write_card
from covert.io.parquet import ShardWriter, encode_row, sha256_file
from covert.synth.generate import ItemSpec, make_item
from covert.validation import validate_row
from covert.validation.dataset import validate_dataset


def _rows() -> list[dict]:
    out = []
    for i in range(40):
        outcome = make_item(ItemSpec(i, ("banking", "retail", "hotels", "airline")[i % 4], "state_changing", None), 5,
                            lambda s: "train", True)
        if outcome.task is not None:
            out.append(outcome.rows["sft-multiturn"])
        if len(out) == 3:
            break
    return out


ROWS = _rows()


def _reason(row: dict) -> str:
    with pytest.raises(Invalid) as info:
        validate_row(row, "sft")
    return info.value.reason


def _confirmation(row: dict) -> int:
    """Index of the first confirmation turn (the assistant text just before a user's "go ahead")."""
    messages = row["messages"]
    return next(i for i, m in enumerate(messages[:-1]) if m["role"] == "assistant" and not m.get("tool_calls")
                and "go ahead" in messages[i + 1]["content"].lower())


def _write_call(row: dict, after: int) -> dict:
    builder = get_builder(row["builder"])
    turn = next(m for m in row["messages"][after:] if m.get("tool_calls"))
    return next(c["function"] for c in turn["tool_calls"] if builder.tools[c["function"]["name"]].writes)


def test_rows_as_built_validate() -> None:
    assert ROWS
    for row in ROWS:
        validate_row(row, "sft")
        assert any(m["role"] == "user" for m in row["messages"][2:]), "the user speaks again"


def test_rejects_a_confirmation_that_pastes_argument_keys() -> None:
    row = copy.deepcopy(ROWS[0])
    i = _confirmation(row)
    call = _write_call(row, i)
    key, value = next(iter(call["arguments"].items()))
    row["messages"][i]["content"] = f"I'm about to {call['name']} ({key.replace('_', ' ')} {value}). Shall I go ahead?"
    assert _reason(row) == "confirmation_pastes_keys"
    row["messages"][i]["content"] = f"Calling it with {key}. Shall I go ahead?"
    assert _reason(row) == "confirmation_pastes_keys"


def test_rejects_a_confirmation_or_plan_that_quotes_a_tool_description() -> None:
    row = copy.deepcopy(ROWS[0])
    i = _confirmation(row)
    call = _write_call(row, i)
    description = get_builder(row["builder"]).tools[call["name"]].description.split(". ")[0]
    row["messages"][i]["content"] = f"I'm about to do this: {description}. Shall I go ahead?"
    assert _reason(row) == "confirmation_pastes_description"
    row = copy.deepcopy(ROWS[0])
    turn = next(m for m in row["messages"] if m.get("tool_calls"))
    turn["reasoning_content"] = f"The user wants this. First: {description}."
    assert _reason(row) == "plan_pastes_description"


def test_rejects_a_user_who_never_supplies_what_was_asked() -> None:
    row = copy.deepcopy(ROWS[0])
    messages = row["messages"]
    i = next(k for k, m in enumerate(messages) if m["role"] == "assistant" and not m.get("tool_calls")
             and k + 1 < len(messages) and "go ahead" not in messages[k + 1]["content"].lower())
    messages[i + 1]["content"] = "Sorry, I'd rather not say."
    assert _reason(row) == "user_supplies_nothing"


def test_covert_validate_rejects_each_broken_row(tmp_path: Path) -> None:
    """The checks through ``covert validate``, on a real Parquet config with its manifest and card."""
    good = ROWS[0]
    pasted = copy.deepcopy(good)
    i = _confirmation(pasted)
    pasted["messages"][i]["content"] = f"Running it with {next(iter(_write_call(pasted, i)['arguments']))}. Shall I go ahead?"
    silent = copy.deepcopy(good)
    k = next(k for k, m in enumerate(silent["messages"]) if m["role"] == "assistant" and not m.get("tool_calls")
             and "go ahead" not in silent["messages"][k + 1]["content"].lower())
    silent["messages"][k + 1]["content"] = "Sorry, I'd rather not say."
    broken = {"confirmation_pastes_keys": pasted, "user_supplies_nothing": silent}
    rows = [good, *(dict(row, task_id=f"{row['task_id']}-{reason}") for reason, row in broken.items())]
    root = tmp_path / "data"
    writer = ShardWriter(root, "sft", "train", 1000)
    for row in rows:
        writer.add(encode_row(row, "sft"))
    manifest = {"files": {str(p.relative_to(root)): sha256_file(p) for p in writer.close()},
                "rows": {"sft/train": len(rows)}}
    (root / "manifest.json").write_text(json.dumps(manifest))
    write_card(root, manifest, {"sft": rows[0]})
    report = validate_dataset(root)
    assert {reason.split(":")[0] for reason in report.reasons()} == set(broken)
    assert main(["validate", str(root)]) == 1
