"""What the rater checks catch and how often they accuse an honest rater, on simulated studies.

    python benchmarks/bench_rater_checks.py [--studies 300] [--permutations 200]

For each design of `evaluation.human.rater_sim.DESIGNS`, `--studies` simulated studies, each with the
design's honest raters and one straight-liner per question ("flat"), one across questions ("grid"),
a speeder and a random clicker. Prints, per design and flag, how often it fired on the honest raters
(the false-alarm rate, with its exact 95% upper bound) and on the rater of its textbook case.
docs/studies.md quotes one run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from evaluation.human import quality
from evaluation.human import rater_sim as rs

TEXTBOOK = {"straight-lining": ("flat", "grid"), "speeder": ("speeder",), "unrelated": ("clicker",)}


def upper_bound(k: int, n: int) -> float:
    """Clopper-Pearson 95% upper bound of a rate seen k times in n."""
    return 1.0 if k >= n else float(stats.beta.ppf(0.975, k + 1, n - k))


def measure(name: str, studies: int, permutations: int) -> list[str]:
    design = rs.DESIGNS[name]
    honest = {flag: 0 for flag in quality.RULES if flag != "attention"}
    caught = {(flag, kind): 0 for flag, kinds in TEXTBOOK.items() for kind in kinds}
    n_honest = 0
    for seed in range(studies):
        frame = rs.study(design, seed)
        flags = quality.rater_flags(frame, list(design.dimensions), seed=seed, permutations=permutations)
        by = flags.set_index("rater")["flags"]
        for rater, raised in by.items():
            if str(rater).startswith("r"):
                n_honest += 1
                for flag in raised:
                    honest[flag] += 1
        for flag, kind in caught:
            caught[(flag, kind)] += flag in by[kind]
    lines = [f"{name}: {studies} studies, {n_honest} honest raters"]
    for flag, k in honest.items():
        lines.append(
            f"  {flag:16s} honest raters flagged {k}/{n_honest} = {k / n_honest:.2%} (95% upper {upper_bound(k, n_honest):.2%})"
        )
    for (flag, kind), k in caught.items():
        lines.append(f"  {flag:16s} textbook {kind:8s} flagged {k}/{studies} = {k / studies:.1%}")
    return lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--studies", type=int, default=300)
    p.add_argument("--permutations", type=int, default=200)
    args = p.parse_args()
    for name in rs.DESIGNS:
        start = time.perf_counter()
        print("\n".join(measure(name, args.studies, args.permutations)))
        print(f"  ({time.perf_counter() - start:.0f} s)")
    np.seterr(all="ignore")


if __name__ == "__main__":
    main()
