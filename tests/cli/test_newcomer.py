"""What a newcomer meets: one-line errors for careless input, the install that a hint names, the
environment id an import makes, what an export wrote, progress on a terminal and nowhere else."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from covert.build import BuildConfig, build
from covert.cli import main
from covert.io.reader import iter_rows
from covert.procgen.dataset import ProcgenConfig, build_procgen
from covert.procgen.registry import get_env
from covert.rewards import Score, oracle_completion
from tests.loopback import LoopbackServer, QuietHandler

REPO = Path(__file__).resolve().parents[2]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**env, "PYTHONPATH": str(REPO), **extra}


def _covert(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "covert.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env=_env(**env), timeout=300, check=False)


def _one_line(result: subprocess.CompletedProcess[str], *words: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and lines[0].startswith("covert: error:"), result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("newcomer") / "data" / "covert-tools"
    build(BuildConfig(builders=["retail"], num_tasks=12, seed=0), root, progress=False)
    return root


def test_report_out_a_file_is_one_line(dataset: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_text("mine")
    _one_line(_covert("report", str(dataset), "--out", str(target)), "is a file", "folder")
    assert target.read_text() == "mine"


def test_report_into_a_folder_of_other_pictures_keeps_them(dataset: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    (tmp_path / "holiday.png").write_bytes(b"\x89PNG mine")
    assert main(["report", str(dataset), "--out", str(tmp_path)]) == 0
    assert (tmp_path / "holiday.png").read_bytes() == b"\x89PNG mine" and (tmp_path / "report.html").is_file()


class _Counting(QuietHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.hits.append(self.path)
        self.send_response(404)
        self.end_headers()

    do_HEAD = do_GET  # noqa: N815


def test_a_missing_local_path_never_asks_the_hub(dataset: Path) -> None:
    server = LoopbackServer(_Counting).start()
    endpoint = server.url.removesuffix("/v1")
    try:
        typo = _covert("regenerate", "data/nope", "--out", "x", cwd=dataset.parents[1], HF_ENDPOINT=endpoint)
        _one_line(typo, "data/nope", "not looked up on the Hub")
        _one_line(_covert("augment", "./nope", "--out", "x", cwd=dataset.parents[1], HF_ENDPOINT=endpoint), "./nope")
        assert _Counting.hits == []
        # a Hub id (no local folder of its owner's name) is asked for: the server above sees it
        hub = _covert("regenerate", "someone/dataset", "--out", "x", cwd=dataset.parents[1], HF_ENDPOINT=endpoint,
                      HF_HUB_ETAG_TIMEOUT="2", HF_HUB_DOWNLOAD_TIMEOUT="2")
        assert hub.returncode == 2 and "Hub dataset someone/dataset" in hub.stderr
        assert any("someone/dataset" in path for path in _Counting.hits)
    finally:
        server.stop()


def test_procgen_level_out_of_range_names_the_range(tmp_path: Path) -> None:
    _one_line(_covert("procgen", "--envs", "knapsack", "--level", "99", "--out", str(tmp_path / "x")),
              "--level 99", "knapsack 0-6")
    assert not (tmp_path / "x").exists()


API = """openapi: 3.0.3
info: {title: Inventory Service, version: "2.1", license: {name: MIT, identifier: MIT}}
paths:
  /items:
    get:
      operationId: listItems
      summary: List the items in stock
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Item"}}}}}
    post:
      operationId: createItem
      summary: Add an item
      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/NewItem"}}}}
      responses:
        "201": {description: created, content: {application/json: {schema: {$ref: "#/components/schemas/Item"}}}}
  /items/{itemId}:
    parameters: [{name: itemId, in: path, required: true, schema: {type: string}, description: The item's id}]
    get:
      operationId: getItem
      summary: Get one item
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Item"}}}}
        "404": {description: not found}
    delete:
      operationId: deleteItem
      summary: Remove an item
      responses: {"204": {description: deleted}, "404": {description: not found}}
components:
  schemas:
    NewItem:
      type: object
      required: [name]
      properties:
        name: {type: string, description: The item's name, example: Desk lamp}
        quantity: {type: integer, description: How many are in stock, example: 12}
    Item:
      allOf:
        - $ref: "#/components/schemas/NewItem"
        - {type: object, required: [id], properties: {id: {type: string, description: The item's id, example: itm_4821}}}
"""


def test_import_prints_the_environment_id_the_build_takes(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    spec = tmp_path / "my-api.yaml"  # the id comes from the title and version, not from this name
    spec.write_text(API)
    store = str(tmp_path / "store")
    imported = _covert("import", "openapi", str(spec), "--store", store)
    assert imported.returncode == 0, imported.stderr
    assert "  api.openapi.inventory-service.2.1\n" in imported.stdout
    assert "my-api" not in imported.stdout
    assert _covert("envs", "verify", "--store", store).returncode == 0
    built = _covert("build", "--builders", "api.openapi.inventory-service.2.1", "--num-tasks", "4",
                    "--out", str(tmp_path / "ds"), COVERT_ENVS=store)
    assert built.returncode == 0, built.stderr


def test_import_of_a_server_that_cannot_be_bound_says_so_at_once(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    pytest.importorskip("mcp_server_time")
    store = str(tmp_path / "store")
    imported = _covert("import", "mcp", "--store", store, "--license", "MIT", "--", sys.executable, "-m",
                       "mcp_server_time")
    assert imported.returncode == 0, imported.stderr
    line = next(line for line in imported.stdout.splitlines() if line.startswith("  api.mcp."))
    assert "will not be admitted (no_bindable_operations" in line and "covert live-mcp" in line
    verified = _covert("envs", "verify", "--store", store)
    assert "0 of 1 environments admitted" in verified.stdout and "no_bindable_operations" in verified.stdout


def test_the_live_mcp_hint_installs_what_it_needs() -> None:
    line = next(line for line in (REPO / "pyproject.toml").read_text().splitlines() if line.startswith("live-mcp = "))
    needed = {re.split(r"[<>=!\[]", req)[0] for req in json.loads(line.split("=", 1)[1])}
    assert {"mcp", "mcp-server-git"} <= needed
    hint = _blocked("mcp_server_git", "from covert.imports.live_mcp_git import available; print(available())")
    assert hint.returncode == 0 and "pip install 'covert[live-mcp]'" in hint.stdout


BLOCKER = """
import sys
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Missing())
"""


def _blocked(modules: str, code: str) -> subprocess.CompletedProcess[str]:
    script = BLOCKER.format(blocked=set(modules.split(","))) + code
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=_env(), timeout=120,
                          check=False)


@pytest.mark.parametrize(("module", "missing", "extra"), [
    ("covert.integrations.openenv", "openenv", "openenv"),
    ("covert.integrations.verifiers", "verifiers", "verifiers"),
    ("covert.rewards.verl_dataset", "verl", "verl"),
    ("covert.rewards.verl_dataset", "omegaconf", "verl"),
])
def test_an_integration_without_its_extra_names_the_install(module: str, missing: str, extra: str) -> None:
    result = _blocked(missing, f"import {module}")
    last = result.stderr.strip().splitlines()[-1]
    assert result.returncode == 1 and last.startswith("ModuleNotFoundError:"), result.stderr
    assert f"pip install 'covert[{extra}]'" in last and missing in last
    assert "During handling" not in result.stderr  # the hint, not a chain of two tracebacks


def test_export_says_what_it_wrote(dataset: Path, tmp_path: Path) -> None:
    nested = tmp_path / "new" / "deeper" / "sft.jsonl"
    made = _covert("export", str(dataset), "--to", "openai-jsonl", "--out", str(nested))
    assert made.returncode == 0 and made.stdout.splitlines()[0] == (
        f"wrote 12 rows to {nested} (JSON Lines; created the folder {tmp_path / 'new'})")
    bare = tmp_path / "verl"
    parquet = _covert("export", str(dataset), "--to", "verl-sft", "--out", str(bare))
    assert parquet.stdout.strip() == f"wrote 12 rows to {bare} (Parquet, though the name does not end in .parquet)"
    failed = _covert("export", str(dataset), "--to", "openai-jsonl", "--config", "sft-nope", "--out",
                     str(tmp_path / "gone" / "x.jsonl"))
    _one_line(failed, "sft-nope")
    assert not (tmp_path / "gone").exists()


def test_export_of_procedural_rows(tmp_path: Path) -> None:
    root = tmp_path / "pg"
    build_procgen(ProcgenConfig(envs=["knapsack"], num_tasks=5, seed=0), root)
    out = tmp_path / "pg.jsonl"
    assert main(["export", str(root), "--to", "openai-jsonl", "--config", "sft-procgen", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 5 and all([m["role"] for m in r["messages"]] == ["user", "assistant"] for r in records)
    assert all("Answer:" in r["messages"][-1]["content"] and "tools" not in r for r in records)
    _one_line(_covert("export", str(root), "--to", "xlam", "--config", "sft-procgen", "--out", str(tmp_path / "x")),
              "xlam", "without tools")


def test_mapf_report_scores_the_rows_with_a_prediction(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "mapf"
    build_procgen(ProcgenConfig(envs=["mapf_frozenlake"], num_tasks=6, seed=0), root)
    sft = {r["task_id"]: r for r in iter_rows(root, "sft-procgen")}
    rows = list(iter_rows(root, "rl-procgen"))
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps({"task_id": r["task_id"], "completion": sft[r["task_id"]]["messages"][-1]
                                               ["content"]}) + "\n" for r in rows[:2]))
    assert main(["mapf-report", str(root), "--predictions", str(predictions)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2].split() == ["all", "2", "100.00", "100.00"]  # only the two rows it has, both right
    assert out[-1] == "scored the 2 of 6 rows that have a prediction; the other 4 are not counted"
    predictions.write_text(json.dumps({"task_id": "nope", "completion": "x"}) + "\n")
    assert main(["mapf-report", "--dataset", str(root), "--predictions", str(predictions)]) == 2
    assert "task_id 'nope'" in capsys.readouterr().err
    assert main(["mapf-report", str(root), "--dataset", str(tmp_path), "--policy", "reference"]) == 2
    assert "give the dataset once" in capsys.readouterr().err


def test_unrecognized_arguments_show_the_commands_usage(dataset: Path) -> None:
    result = _covert("augment", str(dataset), "--out", "x", "--kinds", "noisy", "--bogus")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: covert augment") and "unrecognized arguments: --bogus" in result.stderr


def test_a_reward_is_a_number_too(dataset: Path) -> None:
    from covert.rewards import score

    row = next(iter_rows(dataset, "rl"))
    result = score(row, oracle_completion(row))
    assert isinstance(result, Score) and float(result) == result.value == 1.0


def _on_a_terminal(*args: str) -> tuple[int, str, str]:
    """Run covert with stderr on a pseudo-terminal; (exit status, stdout, what the terminal showed)."""
    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a 100-column terminal
    process = subprocess.Popen([sys.executable, "-m", "covert.cli", *args], stdout=subprocess.PIPE,
                               stderr=secondary, env=_env(), text=False)
    os.close(secondary)
    shown = b""
    while True:
        ready, _, _ = select.select([primary], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the terminal's other end closed: the process is done
            break
        if not chunk:
            break
        shown += chunk
    out = process.stdout.read().decode() if process.stdout else ""
    status = process.wait(timeout=120)
    os.close(primary)
    return status, out, shown.decode(errors="replace")


def test_progress_is_drawn_on_a_terminal_only(dataset: Path, tmp_path: Path) -> None:
    status, out, terminal = _on_a_terminal("validate", str(dataset))
    assert status == 0 and "all rows valid" in out
    assert "validate sft" in terminal and "row" in terminal  # the bar, on stderr
    status, out, terminal = _on_a_terminal("validate", str(dataset), "--quiet")
    assert status == 0 and terminal.strip() == ""
    piped = _covert("build", "--builders", "retail", "--num-tasks", "3", "--out", str(tmp_path / "b"))
    assert piped.returncode == 0 and piped.stderr == ""  # stderr is a pipe: no bar
    status, _, terminal = _on_a_terminal("build", "--builders", "retail", "--num-tasks", "3", "--out",
                                         str(tmp_path / "c"))
    assert status == 0 and "build" in terminal and "task" in terminal


def test_procgen_admit_draws_its_bar_on_a_terminal(tmp_path: Path) -> None:
    """Profiling the seed environments takes most of a one-candidate run (~15 s): the bar counts them and the
    candidates; --quiet draws none."""
    from tests.procgen.test_admission import GOOD

    candidate = tmp_path / "double.py"
    candidate.write_text(GOOD + "\nENV = Double()\n")
    status, out, terminal = _on_a_terminal("procgen-admit", str(candidate), "--no-seed-novelty")
    assert status == 0 and "admitted 1" in out, out
    assert "procgen-admit" in terminal and "0/1" in terminal and "env" in terminal, terminal  # its first frame
    status, out, terminal = _on_a_terminal("procgen-admit", str(candidate), "--no-seed-novelty", "--quiet")
    assert status == 0 and "admitted 1" in out and terminal.strip() == "", terminal


def test_import_and_envs_verify_draw_their_bars_on_a_terminal(tmp_path: Path) -> None:
    """A corpus import (botocore: 439 specs, ~30 s) and its verification (~45 s) count specs on a bar; a
    one-file import shows the same bar, --quiet none."""
    pytest.importorskip("yaml")
    spec = tmp_path / "my-api.yaml"
    spec.write_text(API)
    store = str(tmp_path / "store")
    status, out, terminal = _on_a_terminal("import", "openapi", str(spec), "--store", store)
    assert status == 0 and "api.openapi.inventory-service.2.1" in out, out
    assert "import openapi" in terminal and "spec" in terminal, terminal
    status, out, terminal = _on_a_terminal("envs", "verify", "--store", store)
    assert status == 0 and "1 of 1 environments admitted" in out, out
    assert "envs verify" in terminal and "0/1" in terminal and "spec" in terminal, terminal  # its first frame
    for command in (("import", "openapi", str(spec)), ("envs", "verify")):
        status, out, terminal = _on_a_terminal(*command, "--store", store, "--quiet")
        assert status == 0 and terminal.strip() == "", (command, terminal)


def test_regenerate_refuses_a_procedural_dataset_of_another_version(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "pg"
    build_procgen(ProcgenConfig(envs=["knapsack"], num_tasks=3, seed=0), root)
    assert main(["regenerate", str(root), "--out", str(tmp_path / "again")]) == 0
    assert "shards match the manifest" in capsys.readouterr().out
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["environments"]["knapsack"]["version"] = "0.9"
    (root / "manifest.json").write_text(json.dumps(manifest))
    assert main(["regenerate", str(root), "--out", str(tmp_path / "other")]) == 2
    installed = get_env("knapsack").version
    assert f"procedural environment knapsack is {installed} here, the dataset was built with 0.9" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()


def test_regenerate_refuses_a_chain_that_repeats_a_step() -> None:
    from covert.publish.regenerate import RegenerateError, steps_of

    base = "covert build --builders retail --out a"
    assert steps_of({"command": f"{base}\ncovert evolve a --out b\ncovert augment b --out c",
                     "evolution": {}, "augmentation_config": {}}) == ["evolve", "augment"]
    assert steps_of({"command": base, "augmentation_config": {}, "calibration": {}}) == ["augment", "calibrate"]
    with pytest.raises(RegenerateError, match="repeats a step"):
        steps_of({"command": f"{base}\ncovert augment a --out b\ncovert augment b --out c"})
