"""Tasks synthesized against a live MCP server (``mcp.git``), verified by replay in a second episode.

Task ``i`` of run ``seed`` is a pure function of ``(seed, i)`` and the installed server: a seeded
repository (:func:`covert.imports.live_mcp_git.make_recipe`), one of :data:`KINDS` drawn for it, the
oracle calls run on a live server (their outputs and the final snapshot recorded), then replayed in a
second episode on a freshly written repository (a server started for it, or one recycled: see
:func:`covert.imports.live_mcp_episode.recycling`): the outputs and the final-state hash must come out
the same, else the task is rejected (``replay_mismatch``). Kinds: commit the new file, commit a change, create a branch,
start a branch and switch to it, switch branches, name the latest commit and its author, list the
uncommitted files, say what an uncommitted edit changes (the diff).

:func:`task_rows` gives the rows in covert's SFT and RL shapes (``covert.views``), which validate
against ``schemas/``; :func:`replay_row` replays one row's oracle on a fresh server and checks the
recorded hashes.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from covert.env import State, get_builder, is_error, item_rng
from covert.imports.live_mcp import PREFIX, LiveEnvironment, recipe_of, recycling, state_of
from covert.imports.live_mcp_client import LiveServerError
from covert.imports.live_mcp_git import make_recipe
from covert.synth.records import Call, Task
from covert.views import outputs_hash, rl_row, sft_row

NAME = PREFIX + "git"
NEW_BRANCHES = ("feature-search", "fix-typo", "docs-refresh", "cleanup", "feature-export", "try-caching")
COMMIT_MESSAGES = {"CHANGELOG.md": "Start a changelog", "docs/faq.md": "Add an FAQ page", "src/cache.py": "Add a cache module",
                   "notes.txt": "Add working notes", "LICENSE": "Add a license file"}


class TaskRejected(Exception):
    """A task that did not verify: ``reason`` is a stable code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass(frozen=True)
class Plan:
    """A drawn task before it runs: the request, the oracle calls by turn and how to answer."""

    kind: str
    category: str
    query: str
    turns: list[list[tuple[str, dict[str, Any]]]]
    answer: Callable[[list[Any]], tuple[str, list[dict[str, Any]]]]
    difficulty: str = "easy"


def _files(state: Any, pick: Callable[[dict[str, Any]], bool]) -> list[str]:
    return sorted(path for path, record in state.records("files") if pick(record))


def _latest(state: Any) -> tuple[str, dict[str, Any]] | None:
    parents = {r.get("parent") for _, r in state.records("commits")}
    for sha, record in state.records("commits"):
        if sha not in parents:
            return sha, record
    return None


def plan_task(rng: random.Random, state: Any) -> Plan:
    """One task for the seeded repository ``state`` (its snapshot)."""
    untracked = _files(state, lambda r: r["untracked"])
    modified = _files(state, lambda r: r["unstaged"] == "modified")
    current = next((name for name, r in state.records("branches") if r["current"]), "main")
    head = next((r["commit"] for _, r in state.records("branches") if r["current"]), None)
    # a checkout that would overwrite uncommitted edits fails: switch only where it cannot
    others = [name for name, r in state.records("branches") if not r["current"] and (not modified or r["commit"] == head)]
    kinds = ["create_branch", "start_branch", "latest_commit", "pending_files"]
    if untracked:
        kinds.append("commit_new_file")
    if modified:
        kinds += ["commit_change", "describe_change"]
    if others:
        kinds.append("switch_branch")
    kind = rng.choice(sorted(kinds))
    if kind == "commit_new_file":
        path = rng.choice(untracked)
        message = COMMIT_MESSAGES.get(path, f"Add {path}")
        return Plan(kind, "state_changing", f"I just wrote {path}. Please commit it on its own with the message "
                    f"\"{message}\".", [[("git_add", {"files": [path]})], [("git_commit", {"message": message})]],
                    lambda outs: (f"Done: {path} is committed as \"{message}\" ({_sha(outs[-1])[:7]}).", []))
    if kind == "commit_change":
        path = rng.choice(modified)
        message = f"Update {path.rsplit('/', 1)[-1]}"
        return Plan(kind, "state_changing", f"Commit my edits to {path}, and only that file, with the message "
                    f"\"{message}\".", [[("git_add", {"files": [path]})], [("git_commit", {"message": message})]],
                    lambda outs: (f"Committed your change to {path} as \"{message}\" ({_sha(outs[-1])[:7]}).", []))
    if kind == "describe_change":
        path = modified[0] if len(modified) == 1 else rng.choice(modified)
        ask = "What have I changed in {path} since my last commit?" if len(modified) == 1 else \
            "What are my uncommitted edits to {path}?"
        return Plan(kind, "simple", ask.format(path=path), [[("git_diff_unstaged", {})]],
                    lambda outs: _describe_change(path, outs[0]))
    if kind == "switch_branch":
        branch = rng.choice(others)
        return Plan(kind, "simple", f"Switch me over to the {branch} branch, please.",
                    [[("git_checkout", {"branch_name": branch})]],
                    lambda outs: (f"You are now on {branch}.", []))
    if kind in ("create_branch", "start_branch"):
        taken = {name for name, _ in state.records("branches")}
        branch = rng.choice([b for b in NEW_BRANCHES if b not in taken])
        if kind == "create_branch":
            return Plan(kind, "simple", f"Make a new branch called {branch} from {current}; I'll switch to it later.",
                        [[("git_create_branch", {"branch_name": branch, "base_branch": current})]],
                        lambda outs: (f"Created {branch} from {current}; you are still on {current}.", []))
        return Plan(kind, "state_changing", f"I want to start work on {branch}: create that branch from {current} "
                    "and switch to it.", [[("git_create_branch", {"branch_name": branch, "base_branch": current})],
                                          [("git_checkout", {"branch_name": branch})]],
                    lambda outs: (f"Created {branch} from {current} and switched to it.", []), "medium")
    if kind == "latest_commit":
        found = _latest(state)
        assert found is not None
        _, record = found
        facts = [_quoted(record["author"]), _quoted(record["message"])]
        return Plan(kind, "simple", "Who made the most recent commit on this branch, and what did the message say?",
                    [[("git_log", {})]],
                    lambda outs: (f"The latest commit is \"{record['message']}\" by {record['author']}.", facts))
    pending = _files(state, lambda r: r["untracked"] or r["unstaged"] is not None or r["staged"] is not None)
    facts = [_quoted(path) for path in pending]
    return Plan("pending_files", "simple", "Which files have I added or changed that aren't committed yet?",
                [[("git_status", {})]],
                lambda outs: ("Not committed yet: " + ", ".join(pending) + ".", facts))


def _describe_change(path: str, diff: Any) -> tuple[str, list[dict[str, Any]]]:
    """The answer and facts of a diff read: the lines the edit to ``path`` adds and removes."""
    added, removed, inside = [], [], False
    for line in (diff if isinstance(diff, str) else "").splitlines():
        if line.startswith("diff --git "):
            inside = line.endswith(f" b/{path}")
        elif inside and line.startswith("+") and not line.startswith("+++") and line[1:].strip():
            added.append(line[1:].strip())
        elif inside and line.startswith("-") and not line.startswith("---") and line[1:].strip():
            removed.append(line[1:].strip())
    added, removed = added[:2], removed[:2]
    def quote(lines: list[str]) -> str:
        return " and ".join(f"\"{line}\"" for line in lines)

    if added and removed:
        said = f"Your edit to {path} changes {quote(removed)} to {quote(added)}."
    elif added:
        said = f"Your edit to {path} adds {quote(added)}."
    else:
        said = f"Your edit to {path} removes {quote(removed)}." if removed else f"{path} has no line changes."
    return said, [_quoted(v) for v in added + removed]


def _quoted(value: str, call: int = 0) -> dict[str, Any]:
    """An answer fact quoted verbatim from the text output of oracle call ``call``."""
    return {"value": value, "call": call, "path": "", "quote": True}


def _sha(output: Any) -> str:
    text = output if isinstance(output, str) else ""
    return text.rsplit(" ", 1)[-1] if "hash" in text else ""


@dataclass
class Run:
    """What running a plan's calls on a live environment gave."""

    outputs: list[Any]
    final: Any
    diff: list[dict[str, Any]] = field(default_factory=list)


def run_calls(env: LiveEnvironment, turns: list[list[tuple[str, dict[str, Any]]]]) -> Run:
    """Run the calls turn by turn on ``env``; the final state and its diff from the initial state."""
    initial = env.state
    outputs = [env.call(name, arguments) for turn in turns for name, arguments in turn]
    final = env.state
    return Run(outputs, final, [c.to_dict() for c in initial.diff(final)])


def make_task(seed: int, index: int) -> Task:
    """Task ``index`` of run ``seed``, verified in a second live episode; raises :class:`TaskRejected`."""
    builder = get_builder(NAME)
    env_cls = builder.environment
    rng = item_rng(NAME, seed, index)
    recipe = make_recipe(rng)
    env = env_cls(state_of(recipe, {}))
    try:
        env = env_cls.seeded(recipe)  # type: ignore[attr-defined]
        initial = env.state
        plan = plan_task(rng, initial)
        first = run_calls(env, plan.turns)
    except LiveServerError as exc:
        raise TaskRejected(exc.reason, exc.message) from None
    finally:
        env.close()
    if any(is_error(out) for out in first.outputs):
        raise TaskRejected("oracle_error", str(next(o for o in first.outputs if is_error(o)))[:200])
    if first.final.hash() == initial.hash() and plan.category == "state_changing":
        raise TaskRejected("no_change", plan.kind)
    replay = env_cls(initial)
    try:
        second = run_calls(replay, plan.turns)
    except LiveServerError as exc:
        raise TaskRejected(exc.reason, exc.message) from None
    finally:
        replay.close()
    if second.outputs != first.outputs or second.final.hash() != first.final.hash():
        raise TaskRejected("replay_mismatch", plan.kind)
    answer, facts = plan.answer(first.outputs)
    calls = [Call(name, arguments, out) for (name, arguments), out in
             zip([c for turn in plan.turns for c in turn], first.outputs, strict=True)]
    groups, at = [], 0
    for turn in plan.turns:
        groups.append(list(range(at, at + len(turn))))
        at += len(turn)
    return Task(task_id=f"{NAME}-{seed}-{index:06d}", builder=NAME, builder_version=builder.version,
                category=plan.category, method=f"live:{plan.kind}", seed=seed, index=index,
                tools=list(env_cls.tool_specs), initial_state=initial.to_dict(), query=plan.query, calls=calls,
                groups=groups, answer=answer, facts=facts, selections=[], reasoning=[],
                final_state_hash=first.final.hash(), state_diff=first.diff, difficulty=plan.difficulty,
                system_prompt=builder.system_prompt)


def task_rows(task: Task, index: int, split: str = "train") -> tuple[dict[str, Any], dict[str, Any]]:
    """(SFT row, RL row) of one task."""
    return sft_row(task), rl_row(task, split, index)


def _attempt(seed: int, index: int) -> Task | str:
    try:
        return make_task(seed, index)
    except TaskRejected as exc:
        return exc.reason


def make_tasks(seed: int, num_tasks: int, max_attempts: int | None = None,
               workers: int = 1, progress: bool = False) -> tuple[list[Task], Counter[str]]:
    """``num_tasks`` verified tasks (drawing indexes 0, 1, ... and skipping rejected ones) and the
    rejections by reason. ``workers`` threads run tasks at once (the work is in the server processes);
    the tasks are taken in index order, so the result is the same for any number of workers.
    ``progress`` draws a bar of the tasks verified (on a terminal)."""
    from covert.progress import bar

    get_builder(NAME)  # list the server's tools once, before any thread needs them
    tasks: list[Task] = []
    rejected: Counter[str] = Counter()
    limit = max_attempts if max_attempts is not None else 2 * num_tasks + 4
    index = 0
    with recycling(keep=max(2, workers)), ThreadPoolExecutor(max_workers=max(1, workers)) as pool, \
            bar(num_tasks, unit="task", desc="live-mcp", enabled=progress) as made:
        while len(tasks) < num_tasks and index < limit:
            batch = range(index, min(limit, index + max(1, min(workers, num_tasks - len(tasks)))))
            for outcome in pool.map(lambda i: _attempt(seed, i), batch):
                if len(tasks) == num_tasks:
                    break
                index += 1
                if isinstance(outcome, Task):
                    tasks.append(outcome)
                    made.update(1)
                else:
                    rejected[outcome] += 1
    return tasks, rejected


def replay_row(row: dict[str, Any]) -> str:
    """Replay an RL or SFT row's oracle on a fresh live server; returns the final-state hash, or raises
    :class:`TaskRejected` (``initial_mismatch``, ``replay_mismatch``, ``server_*``)."""
    truth = row.get("ground_truth") or row["reward_model"]["ground_truth"]
    initial = row.get("initial_state") or row["extra_info"]["initial_state"]
    env_cls = get_builder(row["builder"]).environment
    if row.get("builder_version") != get_builder(row["builder"]).version:
        raise TaskRejected("builder_version", f"row has {row.get('builder_version')}")
    turns = [[(c["name"], c.get("arguments") or {}) for c in turn] for turn in truth["calls"]]
    expected = State.from_dict(initial)
    fresh = env_cls(expected)
    try:
        fresh = env_cls.seeded(recipe_of(expected))  # type: ignore[attr-defined]
        if fresh.state.hash() != expected.hash():
            raise TaskRejected("initial_mismatch", "the fresh server's snapshot differs from the row's initial state")
        run = run_calls(fresh, turns)
    except LiveServerError as exc:
        raise TaskRejected(exc.reason, exc.message) from None
    finally:
        fresh.close()
    if outputs_hash(run.outputs) != truth["outputs_hash"]:
        raise TaskRejected("replay_mismatch", "the outputs differ from the recorded ones")
    if run.final.hash() != truth["final_state_hash"]:
        raise TaskRejected("replay_mismatch", "the final state differs from the recorded one")
    return run.final.hash()
