"""Custom (non-CRUD) actions written by an LLM, validated in the sandbox and revised: real tiny models, real
sandbox workers, a real store, a real build that `covert validate` replays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from covert.imports import envs
from covert.imports.bind import bind
from covert.imports.custom_actions import (
    ReplyError,
    action_sandbox,
    parse_reply,
    target_of,
)
from covert.imports.custom_actions_check import Validator, custom_roles
from covert.imports.resources import infer
from covert.imports.store import save_spec
from covert.sandbox import bwrap_unavailable_reason
from tests.imports.api_fixtures import notes_google, queues_botocore, shop_openapi, stored
from tests.imports.custom_action_fixtures import (
    BUGGY,
    CORRECT,
    HOSTILE,
    conversations,
    fit,
    helpdesk_openapi,
    hostile,
)
from tests.llm.conftest import one_torch_thread, random_model_dir, tiny_tokenizer  # noqa: F401 - fixtures

HELPDESK = "api.openapi.helpdesk.example.1.0"


@pytest.fixture(scope="session")
def closing_model_dir(tmp_path_factory: pytest.TempPathFactory, tiny_tokenizer: Any) -> Path:  # noqa: F811
    """A tiny Llama fitted to answer closeTicket's first-pass prompt with BUGGY and its revision prompt (which
    carries the validation error) with CORRECT."""
    pytest.importorskip("torch")
    import torch

    from tests.llm.tiny_models import save, tiny_llama

    first, revision = conversations(helpdesk_openapi(), "closeTicket", BUGGY)
    model = tiny_llama(tiny_tokenizer, seed=0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        loss = fit(model, tiny_tokenizer, [(first, BUGGY), (revision, CORRECT)])
    finally:
        torch.set_num_threads(threads)
    assert loss < 0.05, f"the tiny model did not learn its two replies (loss {loss:.3f})"
    return save(model, tiny_tokenizer, tmp_path_factory.mktemp("closing-lm"))


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    yield from stored(tmp_path, monkeypatch)


def _helpdesk_validator(pool: Any) -> tuple[Validator, Any]:
    spec = helpdesk_openapi()
    api = bind(spec)
    _resources, roles = infer(spec)
    target = target_of(custom_roles(spec)[0].op, spec, api.resources, roles)
    return Validator(api, pool), target


def test_targets_of_custom_actions_in_each_source_style() -> None:
    found = {}
    for spec in (shop_openapi(), notes_google(), queues_botocore(), helpdesk_openapi()):
        api = bind(spec)
        _resources, roles = infer(spec)
        for role in custom_roles(spec):
            target = target_of(role.op, spec, api.resources, roles)
            found[role.op.name] = target if isinstance(target, str) else (target.table, target.id_param, target.verb)
    assert found == {"cancelOrder": ("orders", "order_id", "cancel"), "notes_notes_trash": ("notes", "noteId", "trash"),
                     "PurgeQueue": ("queues", "QueueName", "purge"), "closeTicket": ("tickets", "ticket_id", "close")}


def test_replies_are_parsed_with_bounded_work() -> None:
    code = parse_reply("Here it is:\n" + CORRECT + "\nThat closes it.", "closeTicket")
    assert code.writes == ("tickets",) and code.code.startswith("WRITES") and "```" not in code.code
    cases = {"no module here": "no_code", "```python\ndef action(tables, args)\n    return 1\n```": "syntax_error",
             "```python\ndef action(tables):\n    return 1\n```": "no_action_function",
             "```python\ndef action(tables, args):\n    return 1\n```": "bad_writes",
             "```python\nWRITES = [len('x')]\ndef action(tables, args):\n    return 1\n```": "bad_writes",
             "```python\nWRITES = []\ndef action(tables, args):\n" + "    x = 1\n" * 5000 + "```": "too_large",
             "def action" + "(" * 20_000: "syntax_error", "def action" + "(" * 200_000: "too_large"}
    for reply, reason in cases.items():
        with pytest.raises(ReplyError) as caught:
            parse_reply(reply, "closeTicket")
        assert caught.value.reason == reason, reply[:60]


def test_hostile_replies_are_stopped_reported_and_never_admitted() -> None:
    if bwrap_unavailable_reason():
        pytest.skip(bwrap_unavailable_reason())
    expected = {"socket": {"forbidden"}, "write_outside_tmp": {"forbidden"}, "spawn": {"forbidden"},
                "loop_forever": {"timeout"}, "allocate_without_bound": {"memory"},
                "nondeterministic": {"nondeterministic"}}
    with action_sandbox(size=2) as pool:
        validator, target = _helpdesk_validator(pool)
        assert validator.check(target, parse_reply(CORRECT, "closeTicket")) is None
        for name, reply in HOSTILE.items():
            problem = validator.check(target, parse_reply(reply, "closeTicket"))
            assert problem is not None and problem[0] in expected[name], (name, problem)
            assert problem[1], name  # reported with its detail
        # the same barriers hold with the AST pre-filter off (the OS sandbox alone)
        raw = action_sandbox(size=2)
        raw.use_prefilter = False
        try:
            validator, target = _helpdesk_validator(raw)
            for name in ("socket", "write_outside_tmp", "spawn"):
                problem = validator.check(target, parse_reply(HOSTILE[name], "closeTicket"))
                assert problem is not None and problem[0] in ("forbidden", "exception"), (name, problem)
        finally:
            raw.close()
    assert not Path("/etc/covert-was-here").exists()


def test_checks_derived_from_the_operation() -> None:
    if bwrap_unavailable_reason():
        pytest.skip(bwrap_unavailable_reason())
    body = ("    t = tables['tickets'].get(args['ticket_id'])\n    if t is None:\n"
            "        return {'error': {'code': 'not_found', 'message': 'none'}}\n")
    cases = {
        "status_not_changed": "WRITES = ['tickets']\ndef action(tables, args):\n" + body + "    return t\n",
        "undeclared_write": "WRITES = []\ndef action(tables, args):\n" + body + "    t['status'] = 'closed'\n    return t\n",
        "unknown_table": "WRITES = ['orders']\ndef action(tables, args):\n" + body + "    return t\n",
        "output_schema_mismatch": "WRITES = ['tickets']\ndef action(tables, args):\n" + body
                                  + "    t['status'] = 'closed'\n    return {'ok': 1}\n",
        "missing_record_not_not_found": "WRITES = ['tickets']\ndef action(tables, args):\n"
                                        "    t = tables['tickets'].get(args['ticket_id'], {'id': args['ticket_id'], "
                                        "'subject': 'x', 'status': 'open'})\n    t['status'] = 'closed'\n    return t\n",
        "error_not_in_api_style": "WRITES = ['tickets']\ndef action(tables, args):\n"
                                  "    return {'error': {'code': 'TicketGone', 'message': 'no'}}\n",
        "bad_tables": "WRITES = ['tickets']\ndef action(tables, args):\n" + body
                      + "    t['status'] = 'closed'\n    tables.pop('tickets')\n    return t\n",
    }
    with action_sandbox(size=2) as pool:
        validator, target = _helpdesk_validator(pool)
        for reason, code in cases.items():
            problem = validator.check(target, parse_reply(code, "closeTicket"))
            assert problem is not None and problem[0] == reason, (reason, problem)


def test_a_random_model_gets_every_action_rejected_and_the_environments_are_still_admitted(
        store: Path, random_model_dir: Path) -> None:  # noqa: F811
    from covert.imports.envs_command import verify_store
    from covert.llm.hf_backend import TransformersBackend

    for make in (shop_openapi, notes_google, queues_botocore, helpdesk_openapi):
        save_spec(store, make())
    backend = TransformersBackend(str(random_model_dir))
    report = verify_store(store, llm=backend, revisions=1, max_tokens=40)
    actions = report["custom_actions"]
    assert report["admitted"] == 4 and report["rejected"] == 0
    assert actions["attempted"] == 4 and actions["first_pass"] == 0 and actions["final_pass"] == 0
    assert actions["first_pass_rate"] == 0.0 and actions["final_pass_rate"] == 0.0
    for record in actions["actions"]:
        assert record["attempts"] == 2 and not record["admitted"] and record["reason"], record
        assert len(record["reasons"]) == 2
    assert sum(actions["rejections"].values()) == 4
    assert report["operations_left_out"]["custom_action_no_llm"] >= 4
    entries = envs.read_admitted(store)["environments"]
    assert all("custom_actions" not in e for e in entries.values())
    assert not (store / "actions").exists()


def test_the_loop_revises_a_buggy_first_pass_and_the_build_on_it_replays(
        store: Path, closing_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if bwrap_unavailable_reason():
        pytest.skip(bwrap_unavailable_reason())
    datasets = pytest.importorskip("datasets")
    from covert.build import BuildConfig, build
    from covert.cli import main
    from covert.io.reader import iter_rows
    from covert.rewards import Scorer, oracle_completion

    save_spec(store, helpdesk_openapi())
    report_path = tmp_path / "report.json"
    verify = ["envs", "verify", "--store", str(store), "--llm", f"hf:{closing_model_dir}",
              "--llm-cache", str(tmp_path / "llm-cache"), "--report", str(report_path)]
    assert main(verify) == 0
    printed = capsys.readouterr().out
    assert "first pass 0/1 (0.0%), final 1/1 (100.0%)" in printed
    actions = json.loads(report_path.read_text())["custom_actions"]
    assert (actions["first_pass"], actions["final_pass"], actions["tools_in_admitted_environments"]) == (0, 1, 1)
    (record,) = actions["actions"]
    assert record["attempts"] == 2 and record["reasons"][0].startswith("exception: KeyError")
    entry = envs.read_admitted(store)["environments"][HELPDESK]
    stored = entry["custom_actions"]["closeTicket"]
    assert (store / stored["code"]).read_text() == parse_reply(CORRECT, "closeTicket").code
    assert "+c" in entry["version"] and entry["tools"] == 4

    config = dict(builders=[HELPDESK], num_tasks=60, seed=3)
    first, second = tmp_path / "a", tmp_path / "b"
    build(BuildConfig(**config), first, progress=False)
    build(BuildConfig(**config), second, workers=2, progress=False)
    for path in sorted(first.rglob("*.parquet")):
        assert path.read_bytes() == (second / path.relative_to(first)).read_bytes(), path
    assert main(["validate", str(first)]) == 0
    assert "custom actions written by an LLM" in (first / "README.md").read_text()
    closing = [row for row in iter_rows(first, "sft")
               if any(call["function"]["name"] == "closeTicket" for m in row["messages"] if m["role"] == "assistant"
                      for call in m.get("tool_calls") or ())]
    assert closing, "no task used the custom action"
    query = " ".join(m["content"] for m in closing[0]["messages"] if m["role"] == "user")
    assert "closeTicket" not in query and "{" not in query
    scorer = Scorer()
    loaded = datasets.load_dataset(str(first), "rl", cache_dir=str(tmp_path / "cache"))
    for split in loaded:
        for row in loaded[split]:
            assert scorer.score(row, oracle_completion(row, scorer)).value == 1.0, row["task_id"]

    # a rerun with the cache asks nothing again and admits the same code under the same version
    assert any(p.is_file() for p in (tmp_path / "llm-cache").rglob("*"))
    assert main(verify) == 0
    assert json.loads(report_path.read_text())["custom_actions"]["actions"] == actions["actions"]
    assert envs.read_admitted(store)["environments"][HELPDESK] == entry

    # the stored code is part of the version: a changed file is refused, never silently used
    (store / stored["code"]).write_text(CORRECT.replace("closed", "open"))
    envs.clear_caches()
    with pytest.raises(ValueError, match="changed since it was admitted"):
        envs.admitted_builder(HELPDESK)


def test_a_forked_worker_gets_its_own_pool_and_leaves_the_parents_alone() -> None:
    if bwrap_unavailable_reason():
        pytest.skip(bwrap_unavailable_reason())
    import gc
    import os

    from covert.imports.custom_actions import runtime_pool
    from covert.imports.envs import make_builder

    builder = make_builder(helpdesk_openapi(), custom={"closeTicket": parse_reply(CORRECT, "closeTicket")})
    env = builder.env(builder.state(0, 0))
    ids = env.state.ids("tickets")
    assert env.call("closeTicket", {"ticket_id": ids[0]})["status"] == "closed"
    spawns = runtime_pool().stats["spawns"]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its own pool, then the inherited one is collected
        try:
            child = builder.env(builder.state(0, 0))
            ok = child.call("closeTicket", {"ticket_id": ids[1]}).get("status") == "closed"
            gc.collect()
            os.write(write, b"1" if ok and runtime_pool().stats["spawns"] == 1 else b"0")
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"
    os.close(read)
    assert env.call("closeTicket", {"ticket_id": ids[2]})["status"] == "closed"
    assert runtime_pool().stats["spawns"] == spawns  # the parent's worker was not killed by the child
    missing = env.call("closeTicket", {"ticket_id": "no-such-ticket"})
    assert missing["error"]["code"] == "not_found"


def test_bad_llm_options_are_clear_errors(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from covert.cli import main

    save_spec(store, helpdesk_openapi())
    assert main(["envs", "verify", "--store", str(store), "--llm", "nonsense"]) != 0
    assert "bad --llm spec" in capsys.readouterr().err
    assert main(["envs", "verify", "--store", str(store), "--llm", f"hf:{tmp_path / 'nowhere'}"]) != 0
    assert "no transformers model" in capsys.readouterr().err
    assert main(["envs", "verify", "--store", str(store), "--llm", f"hf:{tmp_path}", "--revisions", "-1"]) != 0
    assert "--revisions must be 0 or more" in capsys.readouterr().err
    assert not (store / "admitted.json").exists()


PROTOCOL_BREAKERS = {  # issue 32: each aborted validation (RecursionError, AttributeError) before
    "deep_value": "    import json\n    real = json.dumps\n"
                  "    json.dumps = lambda v, *a, **k: real(v, *a, **k) if isinstance(v, dict) and 'ok' in v "
                  "else '[' * 300000 + ']' * 300000\n",
    "not_a_frame": "    import json\n    json.dumps = lambda *a, **k: '\"hello\"'\n",
    "forged_frames": "    import json, os, struct\n"
                     "    body = json.dumps({'ok': True, 'value_json': '\"forged\"', 'loaded': True}).encode()\n"
                     "    for fd in range(3, 64):\n"
                     "        try:\n            os.write(fd, struct.pack('>I', len(body)) + body)\n"
                     "        except OSError:\n            pass\n",
}


def test_an_action_that_breaks_the_protocol_is_rejected_with_its_reason() -> None:
    """A deep value, a patched ``json.dumps`` or frames written to every descriptor: a verdict with a
    reason, and the correct implementation checked after them still passes (nothing carried over)."""
    with action_sandbox(size=2) as raw:
        raw.use_prefilter = False
        validator, target = _helpdesk_validator(raw)
        for name, body in PROTOCOL_BREAKERS.items():
            problem = validator.check(target, parse_reply(hostile(body), "closeTicket"))
            assert problem is not None and problem[0] in ("crash", "exception", "malformed_reply"), (name, problem)
        assert validator.check(target, parse_reply(CORRECT, "closeTicket")) is None
