"""Live MCP environments: a real mcp-server-git per episode (under bubblewrap where it runs), tasks
synthesized and replayed against it, rows scored with the server run again; bounded fake servers."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from covert.cli import main
from covert.env import get_builder
from covert.imports.live_mcp_client import LiveLimits, LiveServerError, StdioClient

pytest.importorskip("mcp_server_git", reason="mcp-server-git is in the dev extra")

from covert.imports.live_mcp import LiveEpisode, open_episodes, sandbox_warning, state_of  # noqa: E402
from covert.imports.live_mcp_git import make_recipe  # noqa: E402
from covert.imports.live_mcp_tasks import TaskRejected, replay_row  # noqa: E402

SEED = 7  # its first two tasks: commit a new file (two writes), name the latest commit and its author (a read)


def _descends_from(pid: int, ancestor: int) -> bool:
    """Whether process ``pid`` descends from ``ancestor`` (by its parents in /proc, while they live)."""
    for _ in range(64):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return False
        pid = int(next((line.split(":\t", 1)[1] for line in status.splitlines() if line.startswith("PPid:")), "0"))
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
    return False


def _descendants() -> list[int]:
    """Live (non-zombie) processes descended from this one."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if fields.get("State", "").startswith("Z"):
            continue
        parents[int(entry)] = int(fields.get("PPid", "0"))
    out, me = [], os.getpid()
    for pid in parents:
        seen, up = set(), parents.get(pid)
        while up and up not in seen:
            if up == me:
                out.append(pid)
                break
            seen.add(up)
            up = parents.get(up)
    return out


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("live") / "git"
    assert main(["live-mcp", "git", "--num-tasks", "2", "--seed", str(SEED), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def rows(dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    from datasets import load_dataset

    cache = str(tmp_path_factory.mktemp("hf"))
    return {config: [dict(r) for r in load_dataset(str(dataset), config, split="train", cache_dir=cache)]
            for config in ("sft", "rl")}


def test_same_seed_same_bytes(dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    again = tmp_path / "again"
    assert main(["live-mcp", "git", "--num-tasks", "2", "--seed", str(SEED), "--out", str(again), "--json",
                 "--workers", "2"]) == 0  # two tasks at once: the same bytes as one at a time
    manifest = json.loads(capsys.readouterr().out)
    assert manifest == json.loads((dataset / "manifest.json").read_text())
    assert manifest["tasks"] == 2 and manifest["kinds"] == {"live:commit_new_file": 1, "live:latest_commit": 1}
    for shard in [*manifest["files"], "README.md"]:
        assert (again / shard).read_bytes() == (dataset / shard).read_bytes()
    assert manifest["sandbox"] == ("none" if sandbox_warning() else "bubblewrap")
    from covert.io.checked import dataset_problems

    assert dataset_problems(dataset)[1] == []  # covert's manifest and card checks (what `covert validate` reads)


def test_rows_validate_replay_and_score(rows: dict[str, list[dict[str, Any]]]) -> None:
    from covert.rewards import score
    from covert.schemas import validator
    from covert.validation import validate_row

    for kind in ("sft", "rl"):
        for row in rows[kind]:
            validator(f"{kind}_row")(row)
    write = next(r for r in rows["rl"] if r["category"] == "state_changing")
    read_rl = next(r for r in rows["rl"] if r["category"] == "simple")
    validate_row(read_rl, "rl")  # covert's own L1-L3 (facts quoted from the log's text), replayed on live servers
    sft = next(r for r in rows["sft"] if r["task_id"] == write["task_id"])
    right = score(write, sft["messages"][2:])
    assert right.value == 1.0 and right.components["state"] == 1.0
    read = next(r for r in rows["sft"] if r["category"] == "simple")
    assert score(read, read["messages"][2:]).value == 1.0  # facts quoted from the text of the server's log
    assert open_episodes() == 0


def test_wrong_plan_scores_below_one_and_hashes_differently(rows: dict[str, list[dict[str, Any]]]) -> None:
    from covert.rewards import score

    row = next(r for r in rows["rl"] if r["category"] == "state_changing")
    truth = row["reward_model"]["ground_truth"]
    (add,), (commit,) = truth["calls"]
    assert commit["name"] == "git_commit" and commit["arguments"]["message"] != "wip"
    wrong = [{"role": "assistant", "content": "", "tool_calls": [
                 {"id": "a", "type": "function", "function": {"name": add["name"], "arguments": add["arguments"]}}]},
             {"role": "assistant", "content": "", "tool_calls": [
                 {"id": "b", "type": "function", "function": {"name": "git_commit",
                                                              "arguments": {"message": "wip"}}}]},
             {"role": "assistant", "content": "Done."}]
    result = score(row, wrong)
    assert result.value < 1.0 and result.components["state"] < 1.0
    assert any(reason.startswith("state:mismatch") for reason in result.reasons)  # another final-state hash
    forged = {**row, "reward_model": {**row["reward_model"], "ground_truth": {**truth, "calls": [[add]]}}}
    with pytest.raises(TaskRejected, match="replay_mismatch"):
        replay_row(forged)


def test_sandboxed_server_is_isolated_and_agrees_with_the_fallback() -> None:
    from covert.sandbox import bwrap_unavailable_reason

    if bwrap_unavailable_reason():
        pytest.skip(f"bubblewrap cannot run here: {bwrap_unavailable_reason()}")
    from covert.env import item_rng

    recipe = make_recipe(item_rng("test", 1))
    started: dict[str, LiveEpisode] = {}
    thread = threading.Thread(target=lambda: started.setdefault("episode", LiveEpisode(recipe)))
    thread.start()
    thread.join()  # the thread that asked for the server is gone; the server is not
    with started["episode"] as boxed:
        assert boxed.isolated and boxed.warning == ""
        argvs = {pid: Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") for pid in _descendants()}
        servers = [pid for pid, argv in argvs.items() if b"mcp_server_git" in argv and not argv[0].endswith(b"bwrap")]
        assert servers
        assert all(os.readlink(f"/proc/{pid}/ns/net") != os.readlink("/proc/self/ns/net") for pid in servers)
        text, is_error = boxed.call("git_add", {"files": ["../../etc/passwd"]})
        assert is_error and "/repo" in text
        inside = state_of(recipe, boxed.snapshot()).hash()
        root = boxed.root
    assert not root.exists()
    with LiveEpisode(recipe, sandbox=False) as plain:
        assert not plain.isolated and "SANDBOX DEGRADED" in plain.warning
        assert state_of(recipe, plain.snapshot()).hash() == inside


FAKE_SERVER = r"""
import json, subprocess, sys, time
mode, marker = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"protocolVersion": "2025-06-18",
              "capabilities": {}, "serverInfo": {"name": "fake", "version": "0"}}}), flush=True)
    elif msg.get("method") == "tools/call":
        if mode == "hang":
            child = subprocess.Popen(["sleep", "600"])
            open(marker, "w").write(str(child.pid))
            time.sleep(600)
        if mode == "die":
            sys.exit(3)
        if mode == "flood":
            sys.stdout.write("x" * (1 << 20))
            sys.stdout.flush()
            time.sleep(600)
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": "ok"}],
              "isError": False}}), flush=True)
"""


def _read(path: Path) -> str:
    """A /proc file's text, or "State:\tX" when the process is gone meanwhile."""
    try:
        return path.read_text()
    except OSError:
        return "State:\tX"


@pytest.mark.parametrize(("mode", "reason"), [("hang", "server_timeout"), ("die", "server_died"),
                                              ("flood", "output_too_large")])
def test_a_misbehaving_server_is_stopped(tmp_path: Path, mode: str, reason: str) -> None:
    script = tmp_path / "fake.py"
    script.write_text(FAKE_SERVER)
    marker = tmp_path / "child.pid"
    limits = LiveLimits(call_s=1.5, startup_s=20, max_output_bytes=64 << 10)
    client = StdioClient([sys.executable, str(script), mode, str(marker)], {"PATH": "/usr/bin:/bin"}, None, limits)
    try:
        with pytest.raises(LiveServerError) as info:
            client.call_tool("anything", {})
        assert info.value.reason == reason
        assert client.proc.poll() is not None
    finally:
        client.close()
    if mode == "hang":  # the server's own child went with its process group (a SIGKILL lands when scheduled)
        child = int(marker.read_text())
        status = Path(f"/proc/{child}/status")
        deadline = time.monotonic() + 10
        while status.exists() and time.monotonic() < deadline and "State:\tZ" not in _read(status):
            time.sleep(0.05)
        state = _read(status) if status.exists() else "State:\tZ"
        assert "State:\tZ" in state or "State:\tX" in state
    assert not any(b"fake.py" in Path(f"/proc/{p}/cmdline").read_bytes() for p in _descendants())


def test_call_limit_and_episode_clock(tmp_path: Path) -> None:
    with pytest.raises(LiveServerError, match=r"server_failed: .*no such program"):
        StdioClient([str(tmp_path / "no-such-server")], {}, None, LiveLimits())
    script = tmp_path / "fake.py"
    script.write_text(FAKE_SERVER)
    with StdioClient([sys.executable, str(script), "ok", "-"], {"PATH": "/usr/bin:/bin"}, None,
                     LiveLimits(max_calls=2)) as client:
        assert client.call_tool("a", {}) == ("ok", False)
        assert client.call_tool("b", {}) == ("ok", False)
        with pytest.raises(LiveServerError, match="input_too_large"):  # refused before it is written
            client.call_tool("big", {"text": "x" * (40 << 10)}, counted=False)
        with pytest.raises(LiveServerError, match="call_limit"):
            client.call_tool("c", {})
        assert client.call_tool("d", {}, counted=False) == ("ok", False)  # the server still serves
    env_cls = get_builder("mcp.git").environment
    limited = type("Limited", (env_cls,), {"limits": LiveLimits(episode_s=0.05)})
    limited.tool_specs = env_cls.tool_specs
    from covert.env import item_rng

    env = limited(state_of(make_recipe(item_rng("test", 2)), {}))
    observation = env.call("git_status", {})
    assert observation["error"]["code"] in ("episode_timeout", "server_timeout")
    with pytest.raises(LiveServerError):
        _ = env.state
    assert env.call("git_status", {})["error"]["code"] == observation["error"]["code"]
    assert open_episodes() == 0


def test_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["live-mcp", "git", "--num-tasks", "0", "--out", str(tmp_path / "x")]) == 2
    assert "--num-tasks" in capsys.readouterr().err
    assert main(["live-mcp", "replay", str(tmp_path / "missing")]) == 2
    assert "covert: error:" in capsys.readouterr().err
    assert main(["build", "--builders", "mcp.git", "--num-tasks", "2", "--out", str(tmp_path / "b")]) == 2
    assert "covert live-mcp git" in capsys.readouterr().err


def test_replay_command_and_nothing_left_running(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import tempfile

    before = set(Path(tempfile.gettempdir()).glob("covert-live-*"))
    assert main(["live-mcp", "replay", str(dataset), "--limit", "1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary == {"rows": 1, "replayed": 1, "oracle_score_1": 1, "failures": []}  # replay_row: same hash
    assert open_episodes() == 0
    assert not any(b"mcp_server_git" in Path(f"/proc/{p}/cmdline").read_bytes() for p in _descendants())
    assert set(Path(tempfile.gettempdir()).glob("covert-live-*")) <= before  # every episode's directory is gone


def test_trl_environment_runs_the_live_server_per_episode(rows: dict[str, list[dict[str, Any]]]) -> None:
    import gc

    from covert.rewards import environment_factory, trl_dataset

    routed = trl_dataset(rows["rl"])
    classes = environment_factory(routed)
    env = classes[routed[0]["environment"]]()
    env.reset(**routed[0])
    assert "On branch main" in json.loads(env.git_status())  # answered by a real server
    assert open_episodes() == 1
    env.reset(**routed[1])  # the last episode's server goes with its session
    gc.collect()
    assert open_episodes() == 0


def test_a_hostile_recipe_is_refused_before_anything_runs(rows: dict[str, list[dict[str, Any]]], tmp_path: Path) -> None:
    import copy

    from covert.rewards import score

    row = copy.deepcopy(next(r for r in rows["rl"] if r["category"] == "state_changing"))
    recipe = row["extra_info"]["initial_state"]["tables"]["seed"]["recipe"]
    escape = f"../../../../../../..{tmp_path}/escaped.txt"
    recipe["worktree"][escape] = "owned\n"
    with pytest.raises(TaskRejected, match="seed_failed"):
        replay_row(row)
    sft = next(r for r in rows["sft"] if r["task_id"] == row["task_id"])
    result = score(row, sft["messages"][2:])
    assert result.value == 0.0 and any("seed_failed" in reason for reason in result.reasons)
    assert not (tmp_path / "escaped.txt").exists()
    assert open_episodes() == 0


def test_a_warm_pool_gives_the_same_episode() -> None:
    from covert.env import item_rng
    from covert.imports.live_mcp import POOL, set_pool_size

    recipe = make_recipe(item_rng("test", 3))

    def commit() -> tuple[str, str]:
        with LiveEpisode(recipe) as episode:
            episode.call("git_add", {"files": ["."]})
            text, is_error = episode.call("git_commit", {"message": "Save my work"})
            assert not is_error
            return text, state_of(recipe, episode.snapshot()).hash()

    set_pool_size(1)
    try:
        fresh = commit()  # no warm server yet: started here, and the pool starts filling
        assert POOL.settle() and POOL.warm() == 1
        assert commit() == fresh  # on the warm server: the same commit hash, the same state
    finally:
        set_pool_size(0)
        assert POOL.settle()
    assert POOL.warm() == 0 and open_episodes() == 0
    assert not any(b"mcp_server_git" in Path(f"/proc/{p}/cmdline").read_bytes() for p in _descendants())


def test_quoted_facts_must_occur_in_the_text_output() -> None:
    from covert.validation.answer_checks import fact_problem

    def quoted(value: str, call: int = 0) -> dict[str, Any]:
        return {"value": value, "call": call, "path": "", "quote": True}

    log = "Commit history:\nCommit: 1a2b\nAuthor: Grace Liu\nDate: 2024-03-02 10:00:00+00:00\nMessage: Add a test target\n"
    assert fact_problem(quoted("Grace Liu"), [log], []) is None
    assert fact_problem(quoted("Add a test target"), [log], []) is None
    assert fact_problem(quoted("Dana Reyes"), [log], [])[0] == "fact_not_derivable"
    assert fact_problem(quoted("Grace Liu", call=1), [log], [])[0] == "fact_not_derivable"
    assert fact_problem(quoted("Grace Liu"), [{"author": "Grace Liu"}], [])[0] == "fact_not_derivable"


def test_recipes_are_checked() -> None:
    import copy

    from covert.env import item_rng
    from covert.imports.live_mcp_git import check_recipe

    for index in range(300):
        check_recipe(make_recipe(item_rng("mcp.git", index % 5, index)))
    base = make_recipe(item_rng("test", 4))
    hostile = [lambda r: r["worktree"].update({"../evil": "x"}), lambda r: r["worktree"].update({"/etc/x": "x"}),
               lambda r: r["commits"][0]["files"].update({".git/hooks/post-commit": "x"}),
               lambda r: r.update(branches=[{"name": "--force", "at": 0}]),
               lambda r: r.update(branches=[{"name": "a..b", "at": 0}]),
               lambda r: r.update(branches=[{"name": "ok", "at": 99}]),
               lambda r: r["worktree"].update({"big": "x" * 20000}), lambda r: r.update(commits=[]),
               lambda r: r["commits"][0].update(author=["a\nb", "c"]), lambda r: r.update(server="memory")]
    for mutate in hostile:
        recipe = copy.deepcopy(base)
        mutate(recipe)
        with pytest.raises(ValueError):
            check_recipe(recipe)


def test_recycled_servers_serve_each_episode_as_a_fresh_one() -> None:
    import signal
    import tempfile

    from covert.env import item_rng
    from covert.imports.live_mcp import POOL, recycling

    recipes = [make_recipe(item_rng("test", i)) for i in (3, 4)]
    before = set(Path(tempfile.gettempdir()).glob("covert-live-*"))

    def commit(recipe: dict[str, Any]) -> tuple[int | None, tuple[str, str]]:
        with LiveEpisode(recipe) as episode:
            episode.call("git_add", {"files": ["."]})
            text, is_error = episode.call("git_commit", {"message": "Save my work"})
            assert not is_error
            return episode.pid, (text, state_of(recipe, episode.snapshot()).hash())

    fresh = [commit(recipe)[1] for recipe in recipes]  # each on a server started for it
    with recycling(keep=1):
        first_pid, first = commit(recipes[0])
        second_pid, second = commit(recipes[1])  # the same server, its repository written again
        again_pid, again = commit(recipes[0])
        assert first_pid == second_pid == again_pid and POOL.warm() == 1
        assert [first, second, again] == [fresh[0], fresh[1], fresh[0]]

        done = LiveEpisode(recipes[0])
        done.close()
        running = LiveEpisode(recipes[1])  # takes the server the closed episode handed back
        assert running.pid == first_pid
        done.close()  # closing again (as a dropped environment's finalizer does) leaves it alone
        assert running.call("git_status", {})[1] is False
        assert running.client is not None
        server = running.client.proc
        doomed = [pid for pid in _descendants() if pid == server.pid or _descends_from(pid, server.pid)]
        os.killpg(server.pid, signal.SIGKILL)  # a server that dies is never handed back
        for pid in doomed:  # the server itself too where a sandbox ran it apart from its group (and before it
            with contextlib.suppress(ProcessLookupError):  # could answer once more on a loaded machine)
                os.kill(pid, signal.SIGKILL)
        server.wait(timeout=10)
        with pytest.raises(LiveServerError):
            running.call("git_status", {})
        running.close()
        assert POOL.warm() == 0
        replaced_pid, made = commit(recipes[1])  # a server started afresh takes the dead one's place
        assert replaced_pid != first_pid and made == fresh[1]
    assert POOL.warm() == 0 and open_episodes() == 0  # the block stops the servers still waiting
    assert not any(b"mcp_server_git" in Path(f"/proc/{p}/cmdline").read_bytes() for p in _descendants())
    assert set(Path(tempfile.gettempdir()).glob("covert-live-*")) <= before
