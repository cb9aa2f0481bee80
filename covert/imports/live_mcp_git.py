"""The git server (``mcp-server-git`` from PyPI) as a live environment: a seeded repository, its
launch (under bubblewrap where it runs), and the state snapshot read back through the server's tools.

The repository is a pure function of its recipe (:func:`make_recipe`): files, commits, branches and
uncommitted work, written with the git CLI under a fixed author and fixed dates
(``GIT_AUTHOR_DATE``/``GIT_COMMITTER_DATE``), so commit hashes are the same on every run. The server
gets a fixed clock (:data:`AGENT_TIME`) and the owner's identity in the repository's config, so the commits an
agent makes have reproducible hashes too. The server is started on the empty repository first and the
recipe written afterwards (it opens the repository on every call), so a warm server can be reused.

The snapshot (:func:`snapshot`) is what the server exposes, parsed into tables:
``repo`` (the checked-out branch), ``branches`` (name, current, head commit), ``commits`` (the
history of HEAD: author, date, message, parent) and ``files`` (staged, unstaged, untracked), so
the same history gives the same hash whatever wording the installed git uses for its hints.
"""

from __future__ import annotations

import importlib.util
import os
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

NAME = "git"
REPO_INSIDE = "/repo"  # the repository's path as the agent and the server see it
INJECTED = ("repo_path",)  # arguments the environment supplies; the agent never sees them
KEEPS_NO_STATE = True  # each call opens the repository afresh: a server may serve another episode (recycling)
LOG_DEPTH = 30
BASE_TIME = 1_709_287_200  # 2024-03-01 10:00:00 UTC
AGENT_TIME = BASE_TIME + 30 * 86_400  # "now" for every commit an agent makes: 2024-03-31 10:00:00 UTC

PEOPLE = (("Dana Reyes", "dana.reyes@example.com"), ("Kwame Mensah", "kwame.mensah@example.com"),
          ("Grace Liu", "grace.liu@example.com"), ("Tomas Novak", "tomas.novak@example.com"),
          ("Aisha Karimi", "aisha.karimi@example.com"))
PROJECTS = ("invoice-tool", "trail-map", "recipe-box", "bike-share", "weather-log", "book-club")
FILES = {
    "README.md": ("# {project}\n\nA small project.\n", "# {project}\n\nA small project.\n\n## Setup\n\nRun make.\n"),
    "src/main.py": ("def main():\n    print('hello')\n", "def main():\n    print('hello, {project}')\n"),
    "src/config.py": ("DEBUG = False\n", "DEBUG = False\nTIMEOUT = 30\n"),
    "docs/usage.md": ("# Usage\n\nStart the app.\n", "# Usage\n\nStart the app with --port.\n"),
    "Makefile": ("test:\n\tpytest\n", "test:\n\tpytest -q\n"),
}
MESSAGES = ("Add project skeleton", "Describe setup in the README", "Add configuration defaults",
            "Document the command line", "Add a test target", "Greet by project name")
NEW_FILES = ("CHANGELOG.md", "docs/faq.md", "src/cache.py", "notes.txt", "LICENSE")
BRANCHES = ("release-1.0", "hotfix-login", "experiment-cache")
_SHOWN = re.compile(r"^[Cc]ommit:? ([0-9a-f]{40})")  # git_show's first line (`git show` style, or older "Commit:")
_HEADER = re.compile(r"^(Changes to be committed|Changes not staged for commit|Untracked files|Unmerged paths):")
_ENTRY = re.compile(r"^\t(?:(new file|modified|deleted|renamed|typechange|both modified|both added):\s+)?(.+)$")


def make_recipe(rng: random.Random) -> dict[str, Any]:
    """A seeded repository: owner, commits (each a full set of file contents), branches, uncommitted work."""
    project = rng.choice(PROJECTS)
    owner = list(rng.choice(PEOPLE))
    names = sorted(FILES)
    count = rng.randint(2, 3)
    messages = rng.sample(MESSAGES, count)
    files: dict[str, str] = {}
    commits = []
    for i in range(count):
        open_paths = [p for p in names if p not in files or files[p] == FILES[p][0].format(project=project)]
        for path in rng.sample(open_paths, 2 if i == 0 else 1):  # every commit changes something
            version = 0 if path not in files else 1
            files[path] = FILES[path][version].format(project=project)
        author = list(owner) if i == 0 else list(rng.choice(PEOPLE))
        commits.append({"message": messages[i], "author": author, "time": BASE_TIME + 86_400 * i + rng.randint(0, 3600),
                        "files": dict(sorted(files.items()))})
    branches = [{"name": name, "at": rng.randrange(count)} for name in sorted(rng.sample(BRANCHES, rng.randint(0, 2)))]
    tracked_dirs = {p.rsplit("/", 1)[0] for p in files if "/" in p}
    new_path = rng.choice([p for p in NEW_FILES if "/" not in p or p.rsplit("/", 1)[0] in tracked_dirs])
    worktree = {new_path: f"{project}: {rng.choice(['draft', 'notes', 'todo'])}\n"}
    changed = [p for p in files if FILES[p][1].format(project=project) != files[p]]
    if changed and rng.random() < 0.6:
        path = rng.choice(sorted(changed))
        worktree[path] = FILES[path][1].format(project=project)
    return {"server": NAME, "project": project, "owner": owner, "commits": commits, "branches": branches,
            "worktree": dict(sorted(worktree.items()))}


def identity_env(when: int, who: tuple[str, str]) -> dict[str, str]:
    """The git identity and date of one seed commit."""
    name, email = who
    date = f"{when} +0000"
    return {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}


def agent_env() -> dict[str, str]:
    """The clock of the server, so of every commit an agent makes (its identity is the repository's config)."""
    date = f"{AGENT_TIME} +0000"
    return {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}


def base_env(home: str) -> dict[str, str]:
    """The environment of git and the server: no user or system git config, UTC, C.UTF-8."""
    return {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "TZ": "UTC", "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory",
            "GIT_CONFIG_VALUE_0": "*", "GIT_TERMINAL_PROMPT": "0", "PYTHONDONTWRITEBYTECODE": "1"}


_PATH = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}(/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}){0,4}$")
_BRANCH = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?!\.)){0,62}[A-Za-z0-9]$")
_PERSON = re.compile(r"^[^\x00-\x1f<>]{1,80}$")
MAX_COMMITS, MAX_FILES, MAX_TEXT, MAX_TOTAL = 20, 20, 16 << 10, 512 << 10


def check_recipe(recipe: Any) -> None:
    """Refuse a recipe that is not one :func:`make_recipe` could write (a row from disk is untrusted):
    paths inside the repository only, plain branch names, bounded sizes. Raises ``ValueError``."""
    def person(value: Any) -> bool:
        return (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) and _PERSON.match(v) for v in value))

    def when(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 4_102_444_800

    def files(value: Any) -> bool:
        return (isinstance(value, dict) and len(value) <= MAX_FILES and all(
            isinstance(p, str) and _PATH.match(p) and ".." not in p and not p.startswith(".git")
            and isinstance(t, str) and len(t) <= MAX_TEXT for p, t in value.items()))

    if not isinstance(recipe, dict) or recipe.get("server") != NAME:
        raise ValueError("the seed recipe is not a git recipe")
    commits = recipe.get("commits")
    if not isinstance(commits, list) or not 1 <= len(commits) <= MAX_COMMITS or not all(
            isinstance(c, dict) and isinstance(c.get("message"), str) and 0 < len(c["message"]) <= 500
            and person(c.get("author")) and when(c.get("time")) and files(c.get("files")) for c in commits):
        raise ValueError(f"the recipe's commits must be 1 to {MAX_COMMITS} of message, author, time and files")
    branches = recipe.get("branches")
    if not isinstance(branches, list) or len(branches) > MAX_FILES or not all(
            isinstance(b, dict) and isinstance(b.get("name"), str) and _BRANCH.match(b["name"]) and b["name"] != "main"
            and isinstance(b.get("at"), int) and 0 <= b["at"] < len(commits) for b in branches):
        raise ValueError("the recipe's branches must be plain names at one of its commits")
    if not files(recipe.get("worktree")) or not person(recipe.get("owner")):
        raise ValueError("the recipe needs a worktree of plain paths and an owner")
    total = sum(len(t) for c in commits for t in c["files"].values()) + sum(len(t) for t in recipe["worktree"].values())
    if total > MAX_TOTAL:
        raise ValueError(f"the recipe writes {total} characters; at most {MAX_TOTAL}")


def materialize(recipe: Mapping[str, Any], repo: Path, home: Path) -> None:
    """Write the recipe's repository into ``repo`` (an empty directory) with the git CLI; raises
    ``ValueError`` for a recipe :func:`check_recipe` refuses or that git cannot write."""
    check_recipe(recipe)
    env = base_env(str(home))

    def git(*args: str, extra: Mapping[str, str] | None = None) -> str:
        try:
            done = subprocess.run(["git", "-C", str(repo), *args], env={**env, **(extra or {})}, capture_output=True,
                                  text=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ValueError(f"git {args[0]} could not run while seeding the repository: {exc}") from None
        if done.returncode != 0:
            why = (done.stderr or done.stdout).strip()[:200]
            raise ValueError(f"git {args[0]} failed while seeding the repository: {why}")
        return done.stdout.strip()

    if not (repo / ".git").exists():
        init_repo(repo, home)
    git("config", "user.name", recipe["owner"][0])
    git("config", "user.email", recipe["owner"][1])
    heads = []
    for commit in recipe["commits"]:
        for path, text in commit["files"].items():
            _write(repo, path, text)
        git("add", "-A")
        git("commit", "-q", "-m", commit["message"], extra=identity_env(commit["time"], tuple(commit["author"])))
        heads.append(git("rev-parse", "HEAD"))
    for branch in recipe["branches"]:
        git("branch", branch["name"], heads[branch["at"]])
    for path, text in recipe["worktree"].items():
        _write(repo, path, text)


def init_repo(repo: Path, home: Path) -> None:
    """An empty repository on ``main`` in ``repo`` (what the server is started on)."""
    try:
        done = subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], env=base_env(str(home)),
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ValueError(f"git init could not run: {exc}") from None
    if done.returncode != 0:
        raise ValueError(f"git init failed: {done.stderr.strip()[:200]}")


def _write(repo: Path, path: str, text: str) -> None:
    target = repo / path
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    except OSError as exc:  # e.g. a file where the recipe wants a directory
        raise ValueError(f"cannot write {path} while seeding the repository: {exc.strerror}") from None


def server_argv(repo: str) -> list[str]:
    """How the server is started (the current Python, so the installed ``mcp-server-git``)."""
    return [sys.executable, "-m", "mcp_server_git", "--repository", repo]


def extra_binds() -> list[str]:
    """Directories the server's Python needs besides the system ones: the venv and the package's site."""
    binds = [os.path.realpath(sys.prefix)] if sys.prefix != sys.base_prefix else []
    spec = importlib.util.find_spec("mcp_server_git")
    if spec is not None and spec.origin:
        site = os.path.dirname(os.path.dirname(os.path.realpath(spec.origin)))
        if not any(site == b or site.startswith(b + "/") for b in binds):
            binds.append(site)
    return binds


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a finder that refuses it, or a broken installation
        return False


def available() -> str:
    """Empty when ``mcp-server-git`` can be started here, else what to install."""
    if not _installed("mcp_server_git") or not _installed("mcp"):
        return "the git live environment needs mcp-server-git and the mcp SDK: pip install 'covert[live-mcp]'"
    if shutil.which("git") is None:
        return "the git live environment needs the git program on PATH (mcp-server-git runs it): install git"
    return ""


# -- the snapshot --------------------------------------------------------------------------------

Call = Callable[[str, dict[str, Any]], str]


def snapshot(call: Call) -> dict[str, dict[str, Any]]:
    """The repository's state as tables, read through the server's own read tools."""
    status = call("git_status", {})
    head, files = parse_status(status)
    branches = {}
    for name, current in parse_branches(call("git_branch", {"branch_type": "local"})):
        shown = _SHOWN.match(call("git_show", {"revision": name}))
        branches[name] = {"current": current, "commit": shown.group(1) if shown else None}
    commits = {}
    if branches:  # each commit of HEAD's history with its parent (None past the log's depth)
        log = parse_log(call("git_log", {"max_count": LOG_DEPTH}))
        for i, entry in enumerate(log):
            parent = log[i + 1]["sha"] if i + 1 < len(log) else None
            commits[entry["sha"]] = {"author": entry["author"], "date": entry["date"], "message": entry["message"],
                                     "parent": parent}
    return {"repo": {"head": head}, "branches": branches, "commits": commits, "files": files}


def parse_status(text: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """(head, files) from ``git status`` long output."""
    head: dict[str, Any] = {"branch": None, "detached_at": None}
    files: dict[str, dict[str, Any]] = {}
    section = None
    for line in text.splitlines():
        if line.startswith("On branch "):
            head["branch"] = line[len("On branch "):].strip()
        elif line.startswith("HEAD detached at "):
            head["detached_at"] = line[len("HEAD detached at "):].strip()
        header = _HEADER.match(line)
        if header:
            section = header.group(1)
            continue
        entry = _ENTRY.match(line)
        if entry is None or section is None:
            continue
        kind, path = entry.group(1) or "untracked", entry.group(2).strip()
        if " (" in path and path.endswith(")"):  # "modified:   a.txt (new commits)"
            path = path[: path.rindex(" (")]
        record = files.setdefault(path, {"staged": None, "unstaged": None, "untracked": False})
        if section == "Changes to be committed":
            record["staged"] = kind
        elif section == "Untracked files":
            record["untracked"] = True
        else:
            record["unstaged"] = kind
    return head, files


def parse_branches(text: str) -> list[tuple[str, bool]]:
    """(name, current) of each local branch from ``git branch`` output (a detached HEAD is skipped)."""
    out = []
    for line in text.splitlines():
        current = line.startswith("*")
        name = line[2:].strip() if len(line) > 2 else ""
        if name and not name.startswith("("):
            out.append((name, current))
    return out


def parse_log(text: str) -> list[dict[str, Any]]:
    """The commits of the server's ``git_log`` output (sha, author, date, message), newest first."""
    out: list[dict[str, Any]] = []
    for block in re.split(r"\n(?=Commit: )", text):
        match = re.search(r"Commit: (\w+)\nAuthor: (.*)\nDate: (.*)\nMessage: (.*)", block, re.S)
        if match:
            out.append({"sha": match.group(1), "author": match.group(2).strip(), "date": match.group(3).strip(),
                        "message": match.group(4).strip()})
    return out
