"""L5 novelty figures: behaviour and AST similarity of every pair of seed environments (as admission profiles
them, in the sandbox), the closest pairs first, and of a seed with a copy of it padded with dead code.

    PYTHONPATH=. python benchmarks/novelty_figures.py [--top 8] [--seed-env vertex_cover]

No timings: figures for the closing notes of issue 34 (which pairs the threshold separates, by how much).
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

from covert.procgen.candidates import (
    Admission,
    AdmissionConfig,
    Candidate,
    ast_shape,
    ast_similarity,
    candidate_sandbox,
    seed_candidates,
)
from covert.procgen.novelty import behaviour_similarity
from covert.sandbox import Limits

PADDING = "\n\n" + (Path(__file__).resolve().parents[1] / "tests/procgen/candidates/dead_code.txt").read_text()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=8, help="closest pairs to print")
    parser.add_argument("--seed-env", default="vertex_cover", help="the seed to pad with dead code")
    args = parser.parse_args()
    seeds = seed_candidates()
    original = next(s for s in seeds if s.label == f"{args.seed_env}.py")
    padded = Candidate("padded", original.source + PADDING)
    with Admission(sandbox=candidate_sandbox(Limits(cpu_s=2, memory_mb=256, wall_s=5))) as admission:
        profiles = [admission.profile(seed) for seed in seeds]
        copy = admission.profile(padded)
    pairs = sorted(((behaviour_similarity(a[2], b[2]), ast_similarity(a[1], b[1]), a[0], b[0])
                    for a, b in itertools.combinations(profiles, 2)), reverse=True)
    limit = AdmissionConfig()
    print(f"{len(profiles)} seeds, {len(pairs)} pairs; duplicate at behaviour >= {limit.max_behaviour_similarity} "
          f"or AST >= {limit.max_ast_similarity}")
    for behaviour, shape, a, b in pairs[:args.top]:
        print(f"  {a:32s} {b:32s} behaviour {behaviour:.3f}  AST {shape:.3f}")
    mine = next(p for p in profiles if p[0] == args.seed_env)
    print(f"{args.seed_env} padded with dead code: behaviour {behaviour_similarity(copy[2], mine[2]):.3f}, "
          f"AST {ast_similarity(ast_shape(padded.source), ast_shape(original.source)):.3f}")


if __name__ == "__main__":
    main()
