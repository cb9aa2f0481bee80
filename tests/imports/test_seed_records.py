"""Seed records an LLM writes once per table (`covert envs seed --llm`): the real OpenAI-compatible backend
talks to a scripted chat server on loopback; a real store, a real build loaded with `datasets.load_dataset`,
`covert validate` replaying it, and the same bytes on a rebuild without the server."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest

from covert.cli import main
from covert.imports import envs
from covert.imports.bind import bind
from covert.imports.seed_records import SeedError, askable_fields, parse_seeds, seed_prompt
from tests.imports.api_fixtures import shop_openapi, stored
from tests.scripted_chat import ScriptedChat

SHOP = "api.openapi.shop.example.1.0"
CUSTOMERS = [
    {"name": "Aurelia Blackwood", "email": "aurelia@blackwood-ceramics.co.uk", "city": "Bristol", "balance": 120.5,
     "status": "active"},
    {"name": "Tomasz Wiśniewski", "email": "tomasz.w@poczta.pl", "city": "Gdańsk", "balance": 0, "status": "suspended"},
    {"name": "Keanu Kahale", "email": "keanu@kahale-surf.com", "city": "Hilo", "balance": 48.0, "status": "active"},
]
ORDERS = [{"title": "Glazed stoneware mugs x6", "total": 84.0}, {"title": "Surfboard wax, tropical", "total": 12.5}]


def _reply(prompt: str) -> str:
    if "customers" in prompt:
        return "Here you go:\n```json\n" + json.dumps({"records": CUSTOMERS}) + "\n```"
    if "orders" in prompt:
        return json.dumps(ORDERS)
    return "no idea"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    yield from stored(tmp_path, monkeypatch, (shop_openapi(),), verify=True)


@pytest.fixture
def chat() -> ScriptedChat:
    server = ScriptedChat(_reply).start()
    yield server
    server.stop()


def _customers() -> object:
    return bind(shop_openapi()).resources["customers"]


def test_the_prompt_asks_for_descriptive_fields_only() -> None:
    customers = _customers()
    fields = askable_fields(customers)
    assert list(fields) == ["name", "email", "city", "balance", "status"]  # no id, no timestamp
    prompt = seed_prompt("Example Shop", "A shop.", customers, fields)
    assert "Write 5 different customers" in prompt and "one of \"active\", \"suspended\"" in prompt
    assert "- created" not in prompt and "- id " not in prompt


def test_a_reply_keeps_only_the_values_that_hold() -> None:
    reply = json.dumps({"records": [
        {"id": "cus_1", "name": "Ines Duarte", "email": "ines@duarte.pt", "balance": -4, "status": "closed",
         "created": "2020-01-01T00:00:00Z"},
        {"name": "string", "email": "not an email", "city": "design final 32"},
        {"name": "Ines Duarte", "email": "ines@duarte.pt"},
        "a sentence",
        {"city": "Porto", "balance": 15.25},
    ]})
    outcome = parse_seeds(reply, _customers())
    assert outcome.records == [{"email": "ines@duarte.pt", "name": "Ines Duarte"},
                               {"balance": 15.25, "city": "Porto"}]
    dropped = dict(outcome.dropped)
    assert dropped["schema"] == 2  # balance below its minimum, a status outside the enum
    assert dropped["not_asked"] == 2  # the id and the timestamp are covert's
    assert dropped["placeholder"] == 1 and dropped["not_email"] == 1 and dropped["word_salad"] == 1
    assert dropped["empty_record"] == 1 and dropped["repeated_record"] == 1 and dropped["not_an_object"] == 1


def test_a_reply_with_nothing_usable_is_a_counted_failure() -> None:
    with pytest.raises(SeedError, match="not_json"):
        parse_seeds("I cannot help with that.", _customers())
    with pytest.raises(SeedError, match="no_records"):
        parse_seeds('{"records": [{"name": "lorem ipsum dolor"}]}', _customers())
    with pytest.raises(SeedError, match="not_json"):
        parse_seeds("[" * 100_000, _customers())  # bounded: a hostile reply is cut and refused


def _rows(out: Path, tmp_path: Path) -> list[dict]:
    loaded = datasets.load_dataset(str(out), "rl", cache_dir=str(tmp_path / "cache"))
    return [row for split in loaded for row in loaded[split]]


def test_seeded_states_replay_the_same_bytes_without_the_llm(store: Path, chat: ScriptedChat, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    llm = f"openai:{chat.url}#scripted"
    assert main(["envs", "seed", "--llm", llm, "--store", str(store)]) == 0
    printed = capsys.readouterr().out
    assert "1 of 1 environments seeded" in printed and "2 of 2 tables" in printed
    entry = json.loads((store / "admitted.json").read_text())["environments"][SHOP]
    assert entry["seed_records"]["records"] == 5 and (store / entry["seed_records"]["file"]).is_file()
    asked = len(chat.requests)
    assert asked == 2  # one request per table
    envs.clear_caches()
    builder = envs.admitted_builder(SHOP)
    assert builder.version == f"{entry['version']}+s{entry['seed_records']['sha256'][:10]}"
    assert any("seed records written by" in source for source in builder.sources)

    first, second = tmp_path / "a", tmp_path / "b"
    args = ["build", "--builders", SHOP, "--num-tasks", "24", "--seed", "4"]
    assert main([*args, "--out", str(first)]) == 0
    chat.reply = lambda prompt: pytest.fail("a build asked the LLM")  # type: ignore[assignment]
    assert main([*args, "--out", str(second)]) == 0
    for path in sorted(first.rglob("*.parquet")):
        assert path.read_bytes() == (second / path.relative_to(first)).read_bytes(), path
    assert main(["validate", str(first)]) == 0
    for row in _rows(first, tmp_path):
        state = row["extra_info"]["initial_state"]["tables"]
        for records, written in ((state["customers"], CUSTOMERS), (state["orders"], ORDERS)):
            fields = list(written[0])
            mine = [{k: r.get(k) for k in fields} for r in records.values()]
            said = [r for r in mine if r in written]
            assert len(said) == min(len(written), len(mine))  # every seed record once, when there is room
            assert len({json.dumps(r, sort_keys=True) for r in said}) == len(said)
        assert len({c["email"] for c in state["customers"].values()}) == len(state["customers"])
    capsys.readouterr()

    # a second run leaves seeded environments alone; a verify of the same spec keeps their records
    assert main(["envs", "seed", "--llm", llm, "--store", str(store)]) == 0
    assert "(1 already were)" in capsys.readouterr().out and len(chat.requests) == asked
    assert main(["envs", "verify", "--store", str(store)]) == 0
    assert json.loads((store / "admitted.json").read_text())["environments"][SHOP]["seed_records"] == \
        entry["seed_records"]

    # records changed behind covert's back: one line, and nothing built
    seeds = store / entry["seed_records"]["file"]
    seeds.write_text(seeds.read_text().replace("Bristol", "Bath"))
    envs.clear_caches()
    capsys.readouterr()
    assert main([*args, "--out", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err.strip()
    assert "changed since they were written" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "c").exists()


def test_seed_needs_an_admitted_store_and_a_reachable_llm(tmp_path: Path, store: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["envs", "seed", "--llm", "openai:http://127.0.0.1:9#m", "--store", str(tmp_path / "none")]) == 2
    assert "admits no environments" in capsys.readouterr().err
    assert main(["envs", "seed", "--llm", "openai:http://127.0.0.1:9#m", "--store", str(store),
                 "--only", "api.nope"]) == 2
    assert "not admitted" in capsys.readouterr().err
    assert main(["envs", "seed", "--llm", "openai:http://127.0.0.1:9#m", "--store", str(store)]) == 2
    assert "cannot reach the LLM server" in capsys.readouterr().err
    assert "seed_records" not in json.loads((store / "admitted.json").read_text())["environments"][SHOP]
