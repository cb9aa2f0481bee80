"""Admission of candidate environments: every stage rejects what it should, with a counted reason.

Candidate modules live in tests/procgen/candidates/; everything they run runs in the sandbox. Hostile
ones are checked with the AST prefilter on (refused at L1) and OFF (stopped by the OS barriers), and are
never admitted either way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from covert.procgen.candidates import (
    Admission,
    AdmissionConfig,
    Candidate,
    NoisyReferenceSolver,
    admit_all,
    ast_shape,
    ast_similarity,
    candidate_sandbox,
    seed_candidates,
)
from covert.procgen.pool import EnvPool
from covert.sandbox import Limits, SandboxPool, bwrap_unavailable_reason

HERE = Path(__file__).parent / "candidates"
SEEDS = Path(__file__).resolve().parents[2] / "covert" / "procgen" / "envs"
FAST = Limits(cpu_s=1, memory_mb=256, wall_s=3)
HOSTILE = {"net_probe": "forbidden", "disk_writer": "forbidden", "spawner": "forbidden", "forever": "timeout",
           "hoarder": "memory"}


def candidate(name: str) -> Candidate:
    path = HERE / f"{name}.py"
    return Candidate.from_file(path if path.exists() else HERE / f"{name}.txt")


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxPool]:
    """The candidate sandbox with the prefilter on: bubblewrap where it runs, else the warned fallback
    (hostile candidates with the prefilter on never get past L1 or are pure-Python CPU/memory hogs)."""
    with candidate_sandbox(FAST) as pool:
        yield pool


@pytest.fixture(scope="module")
def raw_sandbox() -> Iterator[SandboxPool]:
    """The AST prefilter OFF: what stops hostile candidates is the sandbox itself."""
    why = bwrap_unavailable_reason()
    if why:
        pytest.skip(f"the full sandbox cannot run here: {why}")
    with candidate_sandbox(FAST, use_prefilter=False) as pool:
        yield pool


def admit(sandbox: SandboxPool, name: str, **config: object) -> tuple[str, Admission]:
    admission = Admission(AdmissionConfig(**config), solver=NoisyReferenceSolver(0.5), sandbox=sandbox)  # type: ignore[arg-type]
    verdict = admission.admit(candidate(name))
    return verdict.rejection, admission


def test_a_good_candidate_is_admitted(sandbox: SandboxPool) -> None:
    admission = Admission(solver=NoisyReferenceSolver(0.5), sandbox=sandbox)
    verdict = admission.admit(candidate("max_subarray"))
    assert verdict.admitted, verdict.stages
    assert [s.stage for s in verdict.stages] == ["L1", "exec", "L2", "L3", "L5"]
    assert verdict.name == "max_subarray" and 0.1 <= (verdict.pass_rate or 0) <= 0.9
    assert verdict.signature and verdict.warning == sandbox.warning


def test_a_degraded_sandbox_is_reported_on_every_verdict() -> None:
    with candidate_sandbox(FAST, use_bwrap=False) as fallback:
        report = admit_all([candidate("max_subarray"), candidate("yes_man")], Admission(sandbox=fallback))
    assert report.warning.startswith("SANDBOX DEGRADED")
    assert all(v.warning == report.warning for v in report.verdicts)
    assert report.to_dict()["warning"] == report.warning


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_candidates_are_refused_by_the_prefilter(sandbox: SandboxPool, name: str) -> None:
    rejection, admission = admit(sandbox, name)
    if name in ("forever", "hoarder"):  # pure Python: nothing for the filter, the sandbox stops it
        assert rejection.split(":")[1] == HOSTILE[name], rejection
    else:
        assert rejection.startswith("L1:forbidden_"), rejection
    assert admission.counts["rejected"] == 1 and admission.counts["admitted"] == 0


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_candidates_are_stopped_by_the_sandbox_with_the_filter_off(raw_sandbox: SandboxPool,
                                                                           name: str) -> None:
    rejection, admission = admit(raw_sandbox, name)
    stage, kind = rejection.split(":")
    assert kind == HOSTILE[name], rejection
    assert stage in ("exec", "L3")
    assert admission.counts["admitted"] == 0
    assert not Path("/usr/covert-escape.txt").exists()


@pytest.mark.parametrize(("name", "rejection"), [
    ("not_python", "L1:syntax_error"),
    ("no_env", "L1:no_env"),
    ("hash_order", "L2:nondeterministic"),
    ("yes_man", "L3:trivial_accepted"),
    ("off_by_one", "L3:reference_rejected"),
    ("fragile", "L3:score_raises"),
])
def test_broken_candidates_are_rejected_at_their_stage(sandbox: SandboxPool, name: str, rejection: str) -> None:
    assert admit(sandbox, name)[0] == rejection


def test_a_scorer_that_accepts_near_misses_is_caught(sandbox: SandboxPool) -> None:
    source = candidate("max_subarray").source.replace("if value == best", "if abs(value - best) <= 3", 1)
    admission = Admission(sandbox=sandbox)
    assert admission.admit(Candidate("lenient", source)).rejection == "L3:perturbation_insensitive"


def test_a_scorer_that_reads_the_prompt_is_caught(sandbox: SandboxPool) -> None:
    source = candidate("max_subarray").source.replace(
        "        value = int_answer(response)\n", "        if not instance.prompt:\n            return Score(0.0)\n"
        "        value = int_answer(response)\n", 1)
    assert Admission(sandbox=sandbox).admit(Candidate("reads_prompt", source)).rejection == "L3:prompt_dependent"


def test_the_solver_band_rejects_too_easy_and_too_hard(sandbox: SandboxPool) -> None:
    easy = Admission(solver=NoisyReferenceSolver(1.0), sandbox=sandbox).admit(candidate("max_subarray"))
    hard = Admission(solver=NoisyReferenceSolver(0.0), sandbox=sandbox).admit(candidate("max_subarray"))
    assert (easy.rejection, easy.pass_rate) == ("L5:too_easy", 1.0)
    assert (hard.rejection, hard.pass_rate) == ("L5:too_hard", 0.0)


def test_l5_measures_the_candidates_own_ladder_in_the_sandbox(sandbox: SandboxPool) -> None:
    """By default L5 runs the candidate's ladder in the sandbox and judges each rung by its scorer; the rate
    is the one the same rungs and scorer give in this process on the same instances."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("max_subarray_here", HERE / "max_subarray.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # trusted: our own test fixture
    env, config = module.ENV, AdmissionConfig()
    from covert.procgen.ladder import run_rung

    expected = []
    for level in range(3):
        settings = env.config_at(level)
        solved = [run_rung(env, rung, env.sample(10_000 + config.seeds[0], settings, i))[0]
                  for i in range(config.instances) for rung in env.ladder()]
        expected.append(sum(solved) / len(solved))
    verdict = Admission(sandbox=sandbox).admit(candidate("max_subarray"))
    assert verdict.admitted, verdict.stages
    assert [verdict.pass_rates[str(lv)] for lv in range(len(verdict.pass_rates))] == expected[:len(verdict.pass_rates)]
    assert verdict.pass_rate == expected[verdict.level] and 0.1 <= verdict.pass_rate <= 0.9


def test_a_candidate_without_a_ladder_is_not_admitted(sandbox: SandboxPool) -> None:
    source = candidate("max_subarray").source.replace("    def ladder(self)", "    def rungs(self)", 1)
    verdict = Admission(sandbox=sandbox).admit(Candidate("no_ladder", source))
    assert verdict.rejection == "L5:no_ladder", verdict.stages


class LengthSolver:
    """Right on 8 numbers, right half the time (seeded) on 16, wrong on more: a solver with a skill ceiling."""

    def __call__(self, items: object, k: int) -> list[list[str]]:
        import random

        rng = random.Random(0)
        out = []
        for item in items:  # type: ignore[attr-defined]
            count = item.prompt.split("\n")[0].count(",") + 1
            right = [count <= 8 or (count <= 16 and rng.random() < 0.5) for _ in range(k)]
            out.append([item.reference if r else "Answer: 0" for r in right])
        return out


def test_l5_calibrates_the_level_to_the_band(sandbox: SandboxPool) -> None:
    admission = Admission(AdmissionConfig(instances=8), solver=LengthSolver(), sandbox=sandbox)
    verdict = admission.admit(candidate("max_subarray"))
    assert verdict.admitted, verdict.stages
    assert verdict.level == 1 and verdict.pass_rates["0"] == 1.0 and 0.1 <= verdict.pass_rates["1"] <= 0.9


PADDING = "\n\n" + (HERE / "dead_code.txt").read_text()


def test_seeds_are_admitted_and_copies_are_duplicates() -> None:
    """Every seed is novel (the same-template pairs too: their behaviour signatures differ in task words, data
    shape and answers), while a renamed copy and a copy padded with dead code (its AST too far from the
    original's for the AST check alone) are duplicates. The seeds are real environments, so they run at the
    sandbox's default limits, not the toy candidates' 1 s CPU (CI once rejected cryptarithm there)."""
    seeds = seed_candidates()
    assert len(seeds) >= 30, "no seed environments"
    assert len(seeds) == len(list(SEEDS.glob("[a-z]*.py"))) - 1  # all but the multi-module MAPF-FrozenLake
    by_label = {s.label: s for s in seeds}
    twins = {"job_sequencing.py", "longest_increasing_subsequence.py", "vertex_cover.py"}  # once called duplicates
    assert twins <= set(by_label)
    original = by_label["vertex_cover.py"]
    renamed = Candidate("copy", original.source.replace('name = "vertex_cover"', 'name = "copy_env"'))
    padded = Candidate("padded", original.source.replace('name = "vertex_cover"', 'name = "cover_again"') + PADDING)
    assert renamed.source != original.source and "cover_again" in padded.source
    assert ast_similarity(ast_shape(padded.source), ast_shape(original.source)) < AdmissionConfig().max_ast_similarity
    with candidate_sandbox() as sandbox, Admission(solver=NoisyReferenceSolver(0.5), sandbox=sandbox) as admission:
        report = admit_all([*seeds, renamed, padded], admission)
    rejected = {v.name: v.rejection for v in report.verdicts[:len(seeds)] if not v.admitted}
    assert not rejected, rejected
    assert [v.admitted for v in report.verdicts] == [True] * len(seeds) + [False, False]
    assert [v.rejection for v in report.verdicts[-2:]] == ["L5:duplicate", "L5:duplicate"]
    assert report.verdicts[-1].nearest == "vertex_cover"
    assert report.rejections() == {"L5:duplicate": 2}
    assert report.counts["admitted"] == len(seeds)


def test_admission_is_deterministic(sandbox: SandboxPool) -> None:
    runs = []
    for _ in range(2):
        with Admission(solver=NoisyReferenceSolver(0.5), sandbox=sandbox) as admission:
            report = admit_all([candidate("max_subarray"), candidate("yes_man")], admission)
        runs.append(json.dumps(report.to_dict(), sort_keys=True))
    assert runs[0] == runs[1]


def test_the_pool_rotates_out_stale_too_easy_and_surplus_members(sandbox: SandboxPool, tmp_path: Path) -> None:
    seeds = [Candidate.from_file(p) for p in sorted(SEEDS.glob("[a-z]*.py"))][:3]
    pool = EnvPool(capacity=2, max_age=3, too_easy=0.8)
    with Admission(solver=NoisyReferenceSolver(0.5), sandbox=sandbox, pool=pool) as admission:
        for round_no, seed in enumerate(seeds):
            verdict = admission.admit(seed)
            assert verdict.admitted, verdict.stages
            pool.add(seed, verdict, round_no)
        again = admission.admit(seeds[0])
    assert again.rejection == "L5:duplicate"  # novelty is checked against the pool
    by_round = sorted(pool.members, key=lambda n: pool.members[n].joined)
    retired = pool.rotate(3, {by_round[2]: 0.95})
    assert [(r["name"], r["reason"]) for r in retired] == sorted([(by_round[0], "stale"), (by_round[2], "too_easy")])
    assert list(pool.members) == [by_round[1]]
    pool.save(tmp_path / "pool.json")
    first = (tmp_path / "pool.json").read_bytes()
    EnvPool.load(tmp_path / "pool.json").save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == first
    with pytest.raises(ValueError, match="not a covert environment pool"):
        (tmp_path / "bad.json").write_text("[]")
        EnvPool.load(tmp_path / "bad.json")


def test_capacity_retires_the_easiest(sandbox: SandboxPool) -> None:
    pool = EnvPool(capacity=1, max_age=100, too_easy=0.99)
    with Admission(solver=NoisyReferenceSolver(0.5), sandbox=sandbox) as admission:
        for path in sorted(SEEDS.glob("[a-z]*.py"))[:2]:
            seed = Candidate.from_file(path)
            pool.add(seed, admission.admit(seed), 0)
    first, second = sorted(pool.members)
    retired = pool.rotate(1, {first: 0.2, second: 0.7})
    assert [(r["name"], r["reason"]) for r in retired] == [(second, "capacity")]
    assert list(pool.members) == [first]


def test_the_cli_admits_files_and_writes_a_report(sandbox: SandboxPool, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from covert.cli import main

    seed = SEEDS / seed_candidates()[0].label
    files = [str(HERE / "max_subarray.py"), str(HERE / "net_probe.py"), str(HERE / "yes_man.py"), str(seed)]
    code = main(["procgen-admit", *files, "--pool", str(tmp_path / "pool.json"), "--report", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert code == 0, out
    report = json.loads((tmp_path / "r.json").read_text())
    assert (report["admitted"], report["rejected"]) == (1, 3)
    assert report["rejections"] == {"L1:forbidden_import": 1, "L3:trivial_accepted": 1, "L5:duplicate": 1}
    assert f"{seed.name}: rejected L5:duplicate" in out  # a copy of a seed is no new environment
    assert "max_subarray.py: admitted" in out and "net_probe.py: rejected L1:forbidden_import" in out
    assert [m["name"] for m in json.loads((tmp_path / "pool.json").read_text())["members"]] == ["max_subarray"]


def test_the_cli_refuses_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from covert.cli import main

    assert main(["procgen-admit"]) == 2
    assert main(["procgen-admit", str(tmp_path / "missing.py")]) == 2
    assert main(["procgen-admit", str(HERE / "max_subarray.py"), "--band", "0.9,0.1"]) == 2
    assert main(["procgen-admit", "--generate", "2"]) == 2
    err = capsys.readouterr().err
    assert "nothing to admit" in err and "cannot read candidate" in err and "--llm" in err


@pytest.fixture(scope="module")
def random_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised tiny Llama (tests/llm/tiny_models.py): its outputs are garbage."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tests.llm.tiny_models import save, tiny_llama
    from tests.tiny_tokenizer import tiny_tool_tokenizer

    tokenizer = tiny_tool_tokenizer()
    return save(tiny_llama(tokenizer, seed=1), tokenizer, tmp_path_factory.mktemp("random-lm"))


def test_a_tiny_random_model_writes_nothing_admissible(sandbox: SandboxPool, random_model: Path,
                                                       tmp_path: Path) -> None:
    """Every generated candidate (or reply without one) is rejected with a counted reason; nothing crashes,
    with L4 review on and the model as the L5 solver too."""
    import torch

    from covert.llm import open_backend
    from covert.procgen.candidates import BackendSolver
    from covert.procgen.generate import generate_candidates

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the tiny model on a busy 2-core machine
    try:
        backend = open_backend(f"hf:{random_model}", cache_dir=tmp_path / "cache")
        candidates, failures = generate_candidates(backend, 3, seed=0, examples=1, max_tokens=40)
        admission = Admission(AdmissionConfig(review=True, samples=1, instances=2), solver=BackendSolver(backend),
                              reviewer=backend, sandbox=sandbox)
        report = admit_all([*candidates, candidate("max_subarray")], admission)
    finally:
        torch.set_num_threads(threads)
    assert len(candidates) + sum(failures.values()) == 3
    assert all(not v.admitted and v.rejection for v in report.verdicts), [v.rejection for v in report.verdicts]
    assert report.verdicts[-1].rejection.startswith("L4:")  # a good module fails a garbage review
    assert sum(report.rejections().values()) == len(report.verdicts)


def test_the_cli_generates_with_a_tiny_random_model_and_rejects_everything(
        sandbox: SandboxPool, random_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    from covert.cli import main

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        argv = ["procgen-admit", "--generate", "2", "--llm", f"hf:{random_model}", "--llm-cache",
                str(tmp_path / "cache"), "--review", "--solver", "llm", "--instances", "2", "--samples", "1", "--max-tokens", "40"]
        assert main([*argv, "--report", str(tmp_path / "a.json")]) == 0
        assert main([*argv, "--report", str(tmp_path / "b.json")]) == 0  # from the cache: same bytes
    finally:
        torch.set_num_threads(threads)
    report = json.loads((tmp_path / "a.json").read_text())
    assert report["admitted"] == 0
    assert sum(report["rejections"].values()) + sum(report["generation_failures"].values()) == 2
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert "admitted 0" in capsys.readouterr().out
