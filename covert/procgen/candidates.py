"""Admission of candidate (LLM-written) procedural environments, stage by stage, inside the sandbox.

A candidate is module source text that should define ``ENV`` per :mod:`covert.procgen.contract`. Nothing
of it runs in this process: every call (import, ``sample``, ``reference``, ``score``) goes through a
:class:`covert.sandbox.SandboxPool` via the trusted :mod:`covert.procgen.harness`. The stages, each
with counted rejection reasons (``"stage:reason"``):

- ``L1`` interface and AST pre-filter: the prefilter's codes, ``no_env``/``interface``;
- ``exec`` sandboxed execution: ``describe`` and ``run`` on the fixed seeds at the easiest and hardest
  level (``timeout``, ``memory``, ``crash``, ``forbidden``, ``exception``, ``output_too_large``);
- ``L2`` determinism: the same instances and references from a second worker process (another hash
  seed): ``nondeterministic``; and a different seed must change something: ``seed_ignored``;
- ``L3`` reference self-consistency: the reference scores 1 (``reference_rejected``), also with the
  prompt blanked (``prompt_dependent``); trivial and garbage answers score below 1 (``trivial_accepted``)
  without raising (``score_raises``, ``bad_score``); perturbed references (those of
  :func:`covert.procgen.admission.perturbations`) score below 1 (``perturbation_insensitive``);
- ``L4`` (optional) the LLM reviews its own environment: ``review_rejected``, ``review_unparsable``;
- ``L5`` solver-relative difficulty: by default the candidate's own solver ladder
  (:meth:`~covert.procgen.contract.ProceduralEnv.ladder`, run in the sandbox, its answers judged by the
  candidate's scorer) solves a share of m fresh instances inside the band (``too_easy``, ``too_hard``;
  ``no_ladder`` when it has none); with a solver policy (an LLM, or a scripted one in tests), that policy's
  pass rate over k samples does. Novelty against the pool (``duplicate``) is checked first: a candidate is
  a duplicate when its AST is nearly a member's, or when its behaviour signature on the fixed seeds
  (:mod:`covert.procgen.novelty`: its instances' data shape and task words, its answers' form, its
  scorer's verdicts on probes) is, whatever its code looks like.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from covert.procgen.admission import TRIVIAL, perturbations
from covert.procgen.novelty import behaviour_signature, behaviour_similarity
from covert.procgen.replies import reply_problem
from covert.sandbox import ALLOWED_MODULES, Limits, SandboxPool, SandboxResult, prefilter

HARNESS = "covert_procgen_harness"
CANDIDATE_MODULES = ALLOWED_MODULES | {"covert.procgen.parse", "covert.procgen.trace"}
STAGES = ("L1", "exec", "L2", "L3", "L4", "L5")
_PROCGEN_DIR = Path(__file__).resolve().parent


def trusted_modules() -> dict[str, str]:
    """The modules installed in every candidate worker: the contract, the answer parsers, the search trace and the
    harness."""
    return {"covert.procgen.contract": (_PROCGEN_DIR / "contract.py").read_text(encoding="utf-8"),
            "covert.procgen.parse": (_PROCGEN_DIR / "parse.py").read_text(encoding="utf-8"),
            "covert.procgen.trace": (_PROCGEN_DIR / "trace.py").read_text(encoding="utf-8"),
            HARNESS: (_PROCGEN_DIR / "harness.py").read_text(encoding="utf-8")}


def candidate_sandbox(limits: Limits | None = None, *, use_prefilter: bool = True, **options: Any) -> SandboxPool:
    """A two-worker sandbox pool set up for candidates (two workers: L2 compares two processes)."""
    return SandboxPool(limits=limits or Limits(cpu_s=5, memory_mb=512, wall_s=15), size=2,
                       use_prefilter=use_prefilter, trusted_modules=trusted_modules(),
                       allowed_modules=CANDIDATE_MODULES, **options)


@dataclass(frozen=True)
class Candidate:
    """Module source text to admit; ``label`` names it in reports (a file name, ``gen-3``)."""

    label: str
    source: str
    origin: str = "file"

    @classmethod
    def from_file(cls, path: str | Path) -> Candidate:
        """Read a candidate module; a clear error when it is not a readable UTF-8 file."""
        p = Path(path)
        try:
            return cls(p.name, p.read_text(encoding="utf-8"), "file")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read candidate {path}: {exc}; pass Python module files") from None


@dataclass(frozen=True)
class StageResult:
    """One stage's outcome: ``reason`` is a snake_case code when not ok; ``detail`` one line."""

    stage: str
    ok: bool
    reason: str = ""
    detail: str = ""


@dataclass
class Verdict:
    """The admission record of one candidate."""

    label: str
    admitted: bool = False
    name: str = ""
    version: str = ""
    stages: list[StageResult] = field(default_factory=list)
    pass_rate: float | None = None
    level: int | None = None
    pass_rates: dict[str, float] = field(default_factory=dict)
    signature: list[float] = field(default_factory=list)
    nearest: str = ""
    similarity: float = 0.0
    warning: str = ""

    @property
    def rejection(self) -> str:
        """``"stage:reason"`` of the stage that rejected it, or empty when admitted."""
        for stage in self.stages:
            if not stage.ok:
                return f"{stage.stage}:{stage.reason}"
        return ""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        data = asdict(self)
        data["rejection"] = self.rejection
        return data


@dataclass(frozen=True)
class SolverItem:
    """What a solver is given: the prompt. ``reference`` is there only for scripted solvers that exercise
    the band (a real policy must read the prompt alone)."""

    prompt: str
    reference: str


class Solver(Protocol):
    """A solver policy: ``k`` responses for each item."""

    def __call__(self, items: Sequence[SolverItem], k: int) -> list[list[str]]: ...


class NoisyReferenceSolver:
    """A scripted solver for tests and runs without an LLM: each sample is the reference with probability
    ``p`` (seeded), else a wrong answer. It calibrates the band mechanics, not real difficulty."""

    def __init__(self, p: float, seed: int = 0) -> None:
        if not 0 <= p <= 1:
            raise ValueError("the solver's success probability must be in [0, 1]")
        self.p = p
        self.seed = seed

    def __call__(self, items: Sequence[SolverItem], k: int) -> list[list[str]]:
        rng = random.Random(self.seed)
        return [[item.reference if rng.random() < self.p else "I could not solve it." for _ in range(k)]
                for item in items]


class BackendSolver:
    """A solver policy behind the LLM seam: ``k`` sampled completions per prompt."""

    def __init__(self, backend: Any, *, temperature: float = 1.0, max_tokens: int = 1024, seed: int = 0) -> None:
        self.backend = backend
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed

    def __call__(self, items: Sequence[SolverItem], k: int) -> list[list[str]]:
        from covert.llm.base import ChatRequest, SamplingParams

        requests = [ChatRequest([{"role": "user", "content": item.prompt}],
                                sampling=SamplingParams(temperature=self.temperature, max_tokens=self.max_tokens,
                                                        seed=self.seed + j))
                    for item in items for j in range(k)]
        texts = [c.text if c.ok else "" for c in self.backend.generate(requests)]
        return [texts[i * k:(i + 1) * k] for i in range(len(items))]


@dataclass(frozen=True)
class AdmissionConfig:
    """Knobs of admission.

    Attributes:
        seeds: Fixed seeds for exec/L2/L3 and the behaviour signature (the first one).
        instances: Instances per seed and level (m).
        samples: Solver samples per instance (k).
        band: Admitted pass-rate interval of the solver, inclusive.
        max_levels: L5 calibration measures levels 0, 1, ... (every knob at that level), at most this many,
            and stops at the first whose pass rate is at most the band's top.
        trivial_tolerance: Largest fraction of all L3 instances a trivial answer may score 1 on (a path
            ``[0, 1]`` is right when the two ends are neighbours).
        min_perturbation_sensitivity: Smallest fraction of perturbed references that must score below 1
            (not all: a perturbed colouring of an easy graph is often still a colouring).
        max_ast_similarity: A candidate at or above this AST similarity to a pool member is a duplicate...
        max_behaviour_similarity: ...and so is one at or above this behaviour similarity
            (:func:`covert.procgen.novelty.behaviour_similarity`: the seeds' closest pair, dominating_set and
            vertex_cover, is at 0.79; a copy padded with dead code at 0.996).
        review: Run L4 (needs a reviewer backend).
    """

    seeds: tuple[int, ...] = (0, 1)
    instances: int = 6
    samples: int = 4
    band: tuple[float, float] = (0.1, 0.9)
    max_levels: int = 4
    trivial_tolerance: float = 0.1
    min_perturbation_sensitivity: float = 0.6
    max_ast_similarity: float = 0.97
    max_behaviour_similarity: float = 0.9
    review: bool = False


TRIVIAL_ANSWERS = (*TRIVIAL, "Answer: " + "9 " * 50_000)
"""The trivial answers of the seeds' admission, plus a long one (the sandbox bounds payloads to 1 MiB, so
the seeds' megabyte garbage is replaced by :func:`garbage`)."""


def garbage(seed: int, size: int = 4000) -> str:
    """Seeded printable garbage."""
    rng = random.Random(seed)
    return "".join(rng.choice("abc XYZ 0123456789 []{}(),.:;\n\t\\$#") for _ in range(size))


def ast_shape(source: str) -> list[str]:
    """The module's AST node types in walk order (names and constants ignored), at most 4000."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [type(node).__name__ for node in ast.walk(tree)][:4000]


def ast_similarity(a: Sequence[str], b: Sequence[str]) -> float:
    """Similarity in [0, 1] of two AST shapes."""
    if not a or not b:
        return 0.0
    return difflib.SequenceMatcher(None, list(a), list(b), autojunk=False).ratio()


class PoolView(Protocol):
    """What novelty needs from the environment pool."""

    def members_for_novelty(self) -> Iterable[tuple[str, list[str], list[float]]]: ...


class _Rejected(Exception):
    def __init__(self, stage: str, reason: str, detail: str = "") -> None:
        super().__init__(f"{stage}:{reason}")
        self.result = StageResult(stage, False, reason, " ".join(detail.split())[:300])


class Admission:
    """Runs the stages on candidates. ``sandbox`` defaults to :func:`candidate_sandbox` (closed by
    :meth:`close`); ``solver`` is the L5 policy (``None``: the candidate's own solver ladder); ``pool`` the
    environments admitted so far (novelty);
    ``reviewer`` a backend for L4."""

    def __init__(self, config: AdmissionConfig | None = None, *, solver: Solver | None = None,
                 pool: PoolView | None = None, reviewer: Any = None, sandbox: SandboxPool | None = None) -> None:
        self.config = config or AdmissionConfig()
        if self.config.review and reviewer is None:
            raise ValueError("L4 review needs a reviewer backend (--review needs --llm)")
        self.solver = solver
        self.pool = pool
        self.reviewer = reviewer
        self._own_sandbox = sandbox is None
        self.sandbox = sandbox or candidate_sandbox()
        self.counts: Counter[str] = Counter()

    def close(self) -> None:
        """Stop the sandbox workers this admission started."""
        if self._own_sandbox:
            self.sandbox.close()

    def __enter__(self) -> Admission:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the stages ------------------------------------------------------------------------------------

    def admit(self, candidate: Candidate, *, accepted: Sequence[tuple[str, list[str], list[float]]] = ()) -> Verdict:
        """Every stage on ``candidate``; stops at the first rejection. ``accepted`` adds members (name,
        AST shape, signature) to compare novelty against besides the pool."""
        verdict = Verdict(candidate.label)
        try:
            self._stages(candidate, verdict, accepted)
            verdict.admitted = True
        except _Rejected as rejected:
            verdict.stages.append(rejected.result)
        except Exception as exc:  # noqa: BLE001 - one hostile candidate never costs the others their verdicts
            verdict.stages.append(_Rejected("exec", "malformed_reply", f"{type(exc).__name__}: {exc}").result)
        verdict.warning = self.sandbox.warning
        for stage in verdict.stages:
            self.counts[f"{stage.stage}:{'passed' if stage.ok else stage.reason}"] += 1
        self.counts["admitted" if verdict.admitted else "rejected"] += 1
        return verdict

    def _call(self, stage: str, candidate: Candidate, entry: str, payload: Any, worker: int = 0) -> Any:
        result: SandboxResult = self.sandbox.call(candidate.source, entry, payload, harness=HARNESS, worker=worker)
        if not result.ok:
            if result.reasons:  # the prefilter refused it
                raise _Rejected("L1", result.reasons[0].split(":", 1)[0], "; ".join(result.reasons))
            if result.error_kind == "exception" and "the module must define ENV" in result.detail:
                raise _Rejected("L1", "no_env", result.detail)
            raise _Rejected(stage, str(result.error_kind), result.detail)
        problem = reply_problem(entry, payload, result.value)
        if problem:
            raise _Rejected(stage, "malformed_reply", problem)
        return result.value

    def profile(self, candidate: Candidate) -> tuple[str, list[str], list[float]]:
        """(name, AST shape, behaviour signature) of a trusted environment (a seed) for novelty checks,
        from stages L1-L3 in the sandbox; ValueError naming the stage if it does not pass them."""
        verdict = Verdict(candidate.label)
        try:
            self._early(candidate, verdict)
        except _Rejected as rejected:
            raise ValueError(f"{candidate.label} fails {rejected}: {rejected.result.detail}") from None
        return verdict.name, ast_shape(candidate.source), verdict.signature

    def _stages(self, candidate: Candidate, verdict: Verdict,
                accepted: Sequence[tuple[str, list[str], list[float]]]) -> None:
        cfg = self.config
        top, config_at, first = self._early(candidate, verdict)
        if cfg.review:
            self._l4(candidate, first)
            verdict.stages.append(StageResult("L4", True))

        levels = range(min(top, cfg.max_levels - 1) + 1)
        self._l5(candidate, verdict, [config_at(lv) for lv in levels], ast_shape(candidate.source), accepted)
        verdict.stages.append(StageResult("L5", True))

    def _early(self, candidate: Candidate, verdict: Verdict) -> tuple[int, Callable[[int], dict[str, Any]],
                                                                       list[dict[str, Any]]]:
        """L1, exec, L2 and L3; returns the top level, the level -> config function and the first run."""
        cfg = self.config
        info = self._call("exec", candidate, "describe", None)
        if info["problems"]:
            raise _Rejected("L1", "interface", "; ".join(info["problems"]))
        verdict.name, verdict.version = info["name"], info["version"]
        verdict.stages.append(StageResult("L1", True))

        top = max(len(k["levels"]) for k in info["knobs"]) - 1
        def config_at(level: int) -> dict[str, Any]:
            return {k["name"]: k["levels"][max(0, min(level, len(k["levels"]) - 1))] for k in info["knobs"]}
        plan = [(seed, level) for seed in cfg.seeds for level in dict.fromkeys((0, top))]
        indices = list(range(cfg.instances))
        runs = {(s, lv): self._call("exec", candidate, "run", {"seed": s, "config": config_at(lv), "indices": indices})
                for s, lv in plan}
        verdict.stages.append(StageResult("exec", True))

        for (s, lv), first in runs.items():
            again = self._call("L2", candidate, "run", {"seed": s, "config": config_at(lv), "indices": indices},
                               worker=1)
            if _canonical(again) != _canonical(first):
                raise _Rejected("L2", "nondeterministic", f"seed {s} level {lv} differs between two processes")
        if len(cfg.seeds) > 1 and all(
                [i["prompt"] for i in runs[(cfg.seeds[0], lv)]] == [i["prompt"] for i in runs[(cfg.seeds[1], lv)]]
                for lv in dict.fromkeys((0, top))):
            raise _Rejected("L2", "seed_ignored", "two seeds gave the same instances")
        verdict.stages.append(StageResult("L2", True))

        verdict.signature = self._l3(candidate, runs, plan)
        verdict.stages.append(StageResult("L3", True))
        return top, config_at, runs[plan[0]]

    def _l3(self, candidate: Candidate, runs: dict[tuple[int, int], list[dict[str, Any]]],
            plan: list[tuple[int, int]]) -> list[float]:
        cfg = self.config
        probe_scores: list[list[float]] = []
        probes = [*TRIVIAL_ANSWERS, garbage(0)]
        trivial_hits = [0] * len(probes)
        perturbed = sensitive = total = 0
        for position, key in enumerate(plan):
            items = runs[key]
            instances = [{"prompt": i["prompt"], "data": i["data"]} for i in items]
            responses = []
            for n, item in enumerate(items):
                other = items[(n + 1) % len(items)]["reference"]
                responses.append([item["reference"], *probes, other, *perturbations(item["reference"])])
            blank = [{"prompt": "", "data": i["data"]} for i in items]  # scoring may read only the data
            scored = self._call("L3", candidate, "score", {"instances": instances + blank,
                                                           "responses": responses + [[i["reference"]] for i in items]})
            for row in scored:
                for entry in row:
                    if "raised" in entry:
                        raise _Rejected("L3", "score_raises", entry["raised"])
                    if "invalid" in entry:
                        raise _Rejected("L3", "bad_score", entry["invalid"])
            for row in scored[:len(items)]:
                if row[0]["value"] != 1.0:
                    raise _Rejected("L3", "reference_rejected", f"the reference scored {row[0]['value']} "
                                    f"({', '.join(row[0]['reasons'])}) at seed {key[0]} level {key[1]}")
            for row in scored[len(items):]:
                if row[0]["value"] != 1.0:
                    raise _Rejected("L3", "prompt_dependent", "the reference scores below 1 once the prompt is "
                                    "blanked: score must read only the instance data")
            for row in scored[:len(items)]:
                total += 1
                for j in range(len(probes)):
                    trivial_hits[j] += row[1 + j]["value"] == 1.0
                for entry in row[2 + len(probes):]:
                    perturbed += 1
                    sensitive += entry["value"] < 1.0
                if position == 0:
                    probe_scores.append([entry["value"] for entry in row[1:2 + len(probes)]])
        worst = max(range(len(probes)), key=lambda j: trivial_hits[j])
        if trivial_hits[worst] > cfg.trivial_tolerance * total:
            raise _Rejected("L3", "trivial_accepted", f"the trivial answer {probes[worst][:30]!r} scored 1 on "
                            f"{trivial_hits[worst]} of {total} instances")
        if perturbed == 0 or sensitive < cfg.min_perturbation_sensitivity * perturbed:
            raise _Rejected("L3", "perturbation_insensitive", f"{sensitive} of {perturbed} perturbed references "
                            "scored below 1")
        return behaviour_signature(runs[plan[0]], probe_scores)

    def _l4(self, candidate: Candidate, items: list[dict[str, Any]]) -> None:
        from covert.procgen.review import review_request

        completion = self.reviewer.generate([review_request(candidate.source, items[:2])])[0]
        verdict = completion.parsed if completion.ok else None
        if not isinstance(verdict, dict) or verdict.get("verdict") not in ("accept", "reject"):
            raise _Rejected("L4", "review_unparsable", completion.error or "no verdict")
        if verdict["verdict"] != "accept":
            raise _Rejected("L4", "review_rejected", str(verdict.get("reason", "")))

    def _l5(self, candidate: Candidate, verdict: Verdict, configs: list[dict[str, Any]], shape: list[str],
            accepted: Sequence[tuple[str, list[str], list[float]]]) -> None:
        cfg = self.config
        members = list(self.pool.members_for_novelty()) if self.pool is not None else []
        for name, other_shape, other_signature in [*members, *accepted]:  # novelty first: it costs no solver
            a_sim = ast_similarity(shape, other_shape)
            b_sim = behaviour_similarity(verdict.signature, other_signature)
            if max(a_sim, b_sim) > verdict.similarity:  # the nearest member by either measure
                verdict.nearest, verdict.similarity = name, round(max(a_sim, b_sim), 4)
            if a_sim >= cfg.max_ast_similarity or b_sim >= cfg.max_behaviour_similarity:
                raise _Rejected("L5", "duplicate", f"too close to {name} (AST {a_sim:.3f}, behaviour {b_sim:.3f})")
        low, high = cfg.band
        for level, config in enumerate(configs):  # calibration: the easiest level whose pass rate is in the band
            rate = self._pass_rate(candidate, config)
            verdict.pass_rates[str(level)] = rate
            verdict.pass_rate, verdict.level = rate, level
            if rate <= high:
                break
        if verdict.pass_rate is not None and verdict.pass_rate > high:
            raise _Rejected("L5", "too_easy", f"the L5 solver solved {verdict.pass_rate:.2f} > {high} at every level "
                            f"up to {len(configs) - 1}")
        if verdict.pass_rate is not None and verdict.pass_rate < low:
            raise _Rejected("L5", "too_hard", f"the L5 solver solved {verdict.pass_rate:.2f} < {low} at level "
                            f"{verdict.level}")

    def _pass_rate(self, candidate: Candidate, config: dict[str, Any]) -> float:
        cfg = self.config
        if self.solver is None:
            return self._ladder_rate(candidate, config)
        items = self._call("L5", candidate, "run", {"seed": 10_000 + cfg.seeds[0], "config": config,
                                                    "indices": list(range(cfg.instances))})
        answers = self.solver([SolverItem(i["prompt"], i["reference"]) for i in items], cfg.samples)
        instances = [{"prompt": i["prompt"], "data": i["data"]} for i in items]
        scored = self._call("L5", candidate, "score", {"instances": instances,
                                                       "responses": [[a[:100_000] for a in row] for row in answers]})
        values = [e.get("value", 0.0) for row in scored for e in row]
        return sum(v == 1.0 for v in values) / max(1, len(values))


    def _ladder_rate(self, candidate: Candidate, config: dict[str, Any]) -> float:
        """The mean solve rate of the candidate's ladder rungs on fresh instances, judged by its scorer."""
        cfg = self.config
        run = self._call("L5", candidate, "ladder", {"seed": 10_000 + cfg.seeds[0], "config": config,
                                                     "indices": list(range(cfg.instances))})
        if not isinstance(run, dict) or not run.get("rungs"):
            raise _Rejected("L5", "no_ladder", "the environment has no solver ladder: define ladder()")
        scored = self._call("L5", candidate, "score", {"instances": run["instances"],
                                                       "responses": run["responses"]})
        rungs = len(run["rungs"])
        solved = [sum(e.get("value", 0.0) == 1.0 for e in row) for row in scored]
        return sum(solved) / max(1, rungs * len(solved))


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass
class AdmissionReport:
    """Verdicts of a batch and the counts by stage outcome."""

    verdicts: list[Verdict]
    counts: dict[str, int]
    warning: str = ""

    @property
    def admitted(self) -> list[Verdict]:
        """The admitted verdicts."""
        return [v for v in self.verdicts if v.admitted]

    def rejections(self) -> dict[str, int]:
        """Rejected candidates counted by ``"stage:reason"``, most frequent first."""
        counts = Counter(v.rejection for v in self.verdicts if not v.admitted)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {"admitted": len(self.admitted), "rejected": len(self.verdicts) - len(self.admitted),
                "rejections": self.rejections(), "stage_counts": self.counts, "warning": self.warning,
                "verdicts": [v.to_dict() for v in self.verdicts]}


def seed_candidates() -> list[Candidate]:
    """The registered seed environments that are single files a candidate could be (their imports pass the
    pre-filter), as candidates, sorted. Multi-module seeds (MAPF-FrozenLake and its solver modules) are
    trusted code, not examples of what a candidate may write."""
    found = []
    for path in sorted((_PROCGEN_DIR / "envs").glob("[a-z]*.py")):
        source = path.read_text(encoding="utf-8")
        if not prefilter(source, allowed_modules=CANDIDATE_MODULES):
            found.append(Candidate(path.name, source, "seed"))
    return found


def admit_all(candidates: Iterable[Candidate], admission: Admission,
              on_verdict: Callable[[Candidate, Verdict], None] | None = None,
              known: Sequence[tuple[str, list[str], list[float]]] = ()) -> AdmissionReport:
    """Admit candidates in order; novelty is checked against ``known`` profiles (see
    :meth:`Admission.profile`), the pool and the candidates admitted earlier in the batch."""
    verdicts: list[Verdict] = []
    accepted: list[tuple[str, list[str], list[float]]] = list(known)
    for candidate in candidates:
        verdict = admission.admit(candidate, accepted=accepted)
        verdicts.append(verdict)
        if verdict.admitted:
            accepted.append((verdict.name, ast_shape(candidate.source), verdict.signature))
        if on_verdict is not None:
            on_verdict(candidate, verdict)
    counts = dict(sorted(admission.counts.items()))
    return AdmissionReport(verdicts, counts, admission.sandbox.warning)


def source_sha(source: str) -> str:
    """The SHA-256 of a module's source text."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()
