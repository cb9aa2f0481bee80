"""Stage 1 end to end: build, load with `datasets`, validate, determinism, splits, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from covert.build import BuildConfig, build
from covert.cli import main
from covert.io.reader import DatasetError, iter_rows
from covert.validation.dataset import validate_dataset

NUM = 240


def _build(out: Path, workers: int = 1, seed: int = 5, builders: str = "all") -> dict:
    return build(BuildConfig(builders=builders.split(","), num_tasks=NUM, seed=seed, rows_per_shard=100), out,
                 workers=workers, progress=False)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ds") / "data"
    _build(out)
    return out


def _shard_hashes(root: Path) -> dict[str, str]:
    return json.loads((root / "manifest.json").read_text())["files"]


def test_load_dataset_both_configs(dataset: Path) -> None:
    from datasets import load_dataset

    sft = load_dataset(str(dataset), "sft")
    rl = load_dataset(str(dataset), "rl")
    assert sum(len(s) for s in sft.values()) == NUM == sum(len(s) for s in rl.values())
    row = next(r for r in sft["train"] if r["num_calls"] > 0)
    call = next(m for m in row["messages"] if m.get("tool_calls"))["tool_calls"][0]
    assert isinstance(call["function"]["arguments"], dict)
    name = call["function"]["name"]
    spec = next(t for t in row["tools"] if t["function"]["name"] == name)
    assert set(call["function"]["arguments"]) <= set(spec["function"]["parameters"]["properties"])
    rl_row = rl["train"][0]
    assert rl_row["data_source"].startswith("covert/") and rl_row["environment"] == rl_row["builder"]
    assert isinstance(rl_row["reward_model"]["ground_truth"], dict)
    assert rl_row["extra_info"]["split"] == "train"


def test_no_two_rows_open_with_the_same_request(tmp_path: Path) -> None:
    from datasets import load_dataset

    out = tmp_path / "ds"
    manifest = build(BuildConfig(builders=["messaging"], num_tasks=300, seed=11), out, progress=False)
    # one domain's requests repeat sooner or later: the build drops the repeats and makes others instead
    assert manifest["summary"]["rejected_by_reason"].get("duplicate_query", 0) > 0
    rows = load_dataset(str(out), "sft", split="train+validation+test")
    firsts = [next(m["content"] for m in row["messages"] if m["role"] == "user") for row in rows]
    assert len(rows) == 300 and len(set(firsts)) == len(firsts)


def test_validate_passes_and_reports(dataset: Path, capsys) -> None:
    report = validate_dataset(dataset)
    assert report.ok, report.failures[:5]
    assert main(["validate", str(dataset)]) == 0
    assert "all rows valid" in capsys.readouterr().out


def test_validate_catches_tampering(dataset: Path, tmp_path: Path) -> None:
    import shutil

    import pyarrow.parquet as pq

    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy)
    shard = sorted((copy / "sft").glob("train-*.parquet"))[0]
    table = pq.read_table(shard)
    pq.write_table(table.slice(0, len(table) - 1), shard)
    with pytest.raises(DatasetError, match="does not match its manifest hash"):
        validate_dataset(copy)
    assert main(["validate", str(copy)]) == 2  # a damaged file is one line and exit 2, before any row


def test_test_split_signatures_never_in_train(dataset: Path) -> None:
    def signatures(split: str) -> set[str]:
        out = set()
        for row in iter_rows(dataset, "rl", split):
            calls = row["reward_model"]["ground_truth"]["calls"]
            query = row["prompt"][-1]["content"]
            out.add("|".join("+".join(sorted(c["name"] for c in g)) for g in calls) if calls else f"irrelevance:{query}")
        return out

    train, test = signatures("train"), signatures("test")
    assert train and test
    assert not train & test


def test_manifest_and_card(dataset: Path) -> None:
    manifest = json.loads((dataset / "manifest.json").read_text())
    assert manifest["summary"]["accepted"] == NUM
    assert set(manifest["summary"]["per_category"]) >= {"simple", "parallel", "sequential", "state_changing"}
    card = (dataset / "README.md").read_text()
    assert card.startswith("---\n") and "configs:" in card and "config_name: rl" in card
    from huggingface_hub import DatasetCard

    parsed = DatasetCard(card)
    assert parsed.data.license == "apache-2.0"


def test_same_command_same_bytes_and_workers_do_not_matter(dataset: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    _build(again)
    assert _shard_hashes(again) == _shard_hashes(dataset)
    parallel = tmp_path / "parallel"
    _build(parallel, workers=2)
    assert _shard_hashes(parallel) == _shard_hashes(dataset)
    for rel in _shard_hashes(dataset):
        assert (again / rel).read_bytes() == (dataset / rel).read_bytes()


def test_round_size_is_part_of_the_config_and_workers_still_do_not_matter(dataset: Path, tmp_path: Path) -> None:
    """Smaller rounds re-weight the sampler more often (other output), the same for any worker count."""
    runs = {}
    for workers in (1, 2):
        out = tmp_path / f"rounds-{workers}"
        manifest = build(BuildConfig(builders=["all"], num_tasks=NUM, seed=5, rows_per_shard=100, round_size=48), out,
                         workers=workers, progress=False)
        assert manifest["config"]["round_size"] == 48
        runs[workers] = _shard_hashes(out)
    assert runs[1] == runs[2]
    assert runs[1] != _shard_hashes(dataset)  # the default, 512, plans these 240 items in a single round
    assert json.loads((dataset / "manifest.json").read_text())["config"]["round_size"] == 512


def test_same_bytes_across_processes_and_hash_seeds(tmp_path: Path) -> None:
    """Separate processes with different PYTHONHASHSEED (set iteration order) write the same bytes."""
    hashes = []
    for seed in ("1", "2"):
        out = tmp_path / f"h{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-m", "covert.cli", "build", "--num-tasks", "120", "--seed", "3", "--out",
                        str(out), "--quiet", "--multi-turn"], check=True, env=env, capture_output=True, timeout=300)
        hashes.append(_shard_hashes(out))
    assert hashes[0] == hashes[1]


def test_chat_template_renders_every_row(dataset: Path) -> None:
    tokenizer = pytest.importorskip("tests.tiny_tokenizer").tiny_tool_tokenizer()
    count = 0
    for row in iter_rows(dataset, "sft"):
        text = tokenizer.apply_chat_template(row["messages"], tools=row["tools"], tokenize=False)
        assert row["messages"][1]["content"] in text
        for message in row["messages"]:
            for call in message.get("tool_calls") or []:
                assert f'"name": "{call["function"]["name"]}"' in text
        encoded = tokenizer.apply_chat_template(row["messages"], tools=row["tools"], tokenize=True)
        ids = encoded["input_ids"] if hasattr(encoded, "keys") else encoded
        assert len(ids) > 10 and tokenizer.decode(ids).count("<tool_call>") == text.count("<tool_call>")
        count += 1
    assert count == NUM


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "covert.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--builders", "nope"], "unknown builder"),
        (["--num-tasks", "0"], "positive"),
        (["--num-tasks", "-3"], "positive"),
        (["--round-size", "0"], "positive"),
    ],
)
def test_bad_input_one_line_nonzero(tmp_path: Path, args: list[str], needle: str) -> None:
    result = _cli("build", "--out", str(tmp_path / "x"), "--quiet", *args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], result.stderr
    assert not (tmp_path / "x").exists()


def test_existing_output_needs_overwrite(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "exists"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    result = _cli("build", "--num-tasks", "5", "--out", str(out), "--quiet")
    assert result.returncode == 2 and "--overwrite" in result.stderr
    assert (out / "keep.txt").read_text() == "mine"


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere; covered by the read-only parent check below")
def test_unwritable_dir(tmp_path: Path) -> None:  # pragma: no cover - non-root only
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    result = _cli("build", "--num-tasks", "5", "--out", str(locked / "x"), "--quiet")
    assert result.returncode == 2


def test_unwritable_location(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = _cli("build", "--num-tasks", "5", "--out", str(blocker / "sub" / "x"), "--quiet")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1


def _default_sigint() -> None:
    """Ctrl-C as in a terminal, even where this test runs as a background job (which ignores SIGINT) or
    after a library in this process blocked the signal (a blocked mask survives exec)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_build_leaves_nothing_visible(tmp_path: Path, signum: int, status: int) -> None:
    out = tmp_path / "big"
    log = tmp_path / "stderr.txt"
    with log.open("wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "covert.cli", "build", "--num-tasks", "200000", "--out",
                                 str(out), "--quiet", "--rows-per-shard", "200"], stdout=subprocess.DEVNULL,
                                stderr=stderr, preexec_fn=_default_sigint)
    deadline = time.time() + 120
    staged: list[Path] = []
    while not staged and time.time() < deadline and proc.poll() is None:
        staged = list(tmp_path.glob(".big.partial-*/sft/.*.parquet.tmp"))  # shards in progress
        time.sleep(0.1)
    assert staged, f"no shard was being written; stderr: {log.read_text()[-2000:]}"
    proc.send_signal(signum)
    try:
        proc.wait(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == status, log.read_text()[-2000:]
    assert "interrupted" in log.read_text().lower()
    assert not out.exists()
    assert not list(tmp_path.glob(".big*")), "the staging directory was left behind"


def test_show_prints_a_trajectory(dataset: Path, capsys) -> None:
    assert main(["show", str(dataset), "--config", "sft", "--index", "3"]) == 0
    out = capsys.readouterr().out
    assert "user:" in out and "system:" in out
    assert main(["show", str(dataset), "--index", "999999"]) == 2
