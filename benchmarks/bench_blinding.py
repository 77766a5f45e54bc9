"""Calibration of the blinding index's 95% interval by simulation, all figures from one run.

Random-guessing studies (the index is 0) in the designs a small study has (few items, one to ten
raters, don't-knows, missing answers, two to four responses) give how often the interval excludes 0;
studies with a known index (recognisable methods, raters with their own skill, items easier or harder
to recognise, raters who are systematically wrong) give how often it misses the truth. The app's own
`evaluation.blinding.score_interval` analyses every study; the two intervals it was chosen over are
computed on the same simulated studies, side by side:

  * t:     mean of item means +- t(I-1) * sd / sqrt(I);
  * boot:  percentile cluster bootstrap over items (B resamples).

    python benchmarks/bench_blinding.py                   # 4000 studies per design, B = 1000
    python benchmarks/bench_blinding.py --studies 1000 --boot 500 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

from evaluation import blinding_sim as sim
from evaluation.blinding import score_interval


def t_interval(means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = ~np.isnan(means)
    n = keep.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nanmean(means, axis=1)
        sd = np.nanstd(means, axis=1, ddof=1)
        half = stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n)
    return mean - half, mean + half


def bootstrap_interval(means: np.ndarray, rng: np.random.Generator, b: int) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = np.full(len(means), np.nan), np.full(len(means), np.nan)
    for s, row in enumerate(means):
        x = row[~np.isnan(row)]
        if len(x) < 2:
            continue
        boots = x[rng.integers(0, len(x), (b, len(x)))].mean(axis=1)
        lo[s], hi[s] = np.quantile(boots, [0.025, 0.975])
    return lo, hi


def run(design: sim.GuessDesign, n: int, b: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    means, r, share, truth = sim.simulate(design, n, rng)
    found = {}
    intervals = {
        "score": score_interval(means, r, design.k, share)[1:],
        "t": t_interval(means),
        "boot": bootstrap_interval(means, rng, b),
    }
    for name, (lo, hi) in intervals.items():
        ok = ~np.isnan(lo)
        found[name] = {
            "excludes_zero": float(((lo > 0) | (hi < 0))[ok].mean()),
            "misses_truth": float(((lo > truth) | (hi < truth))[ok].mean()),
            "width": float((hi - lo)[ok].mean()),
        }
    return {"design": design.label(), "truth": float(truth.mean()), **found}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=4000, help="simulated studies per design (default 4000)")
    ap.add_argument("--boot", type=int, default=1000, help="bootstrap resamples for the comparison (default 1000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    if args.studies < 100 or args.boot < 100:
        print("error: --studies and --boot must be at least 100", file=sys.stderr)
        return 2
    start = time.perf_counter()
    rows = {"null": [], "known": []}
    print(f"{args.studies} studies per design; 95% intervals: score (the app's), t on item means, percentile bootstrap")
    for kind, designs, what in (
        ("null", sim.NULL_DESIGNS, "excludes 0 (random guessing)"),
        ("known", sim.KNOWN_DESIGNS, "misses the known index"),
    ):
        key = "excludes_zero" if kind == "null" else "misses_truth"
        print(f"\n{what}:{'':<24}{'score':>8}{'t':>8}{'boot':>8}   truth   width(score)")
        for k, design in enumerate(designs):
            row = run(design, args.studies, args.boot, args.seed + 1000 * (kind == "known") + k)
            rows[kind].append(row)
            print(
                f"  {row['design']:<50}{row['score'][key]:8.1%}{row['t'][key]:8.1%}{row['boot'][key]:8.1%}"
                f"   {row['truth']:+.2f}   {row['score']['width']:.2f}"
            )
    worst = {
        name: (
            max(r[name]["excludes_zero"] for r in rows["null"]),
            max(r[name]["misses_truth"] for r in rows["known"]),
        )
        for name in ("score", "t", "boot")
    }
    print("\nworst case over the designs: excludes 0 under random guessing / misses a known index")
    for name, (null, known) in worst.items():
        print(f"  {name:<6} {null:6.1%} / {known:6.1%}")
    ok = worst["score"][0] <= 0.08 and worst["score"][1] <= 0.07
    print(
        f"targets for the app's interval (excludes 0 in at most 8%, misses a known index in at most 7%): "
        f"{'yes' if ok else 'NO'}   ({time.perf_counter() - start:.0f} s, load average {os.getloadavg()[0]:.2f})"
    )
    if args.json:
        Path(args.json).write_text(json.dumps({"studies": args.studies, "boot": args.boot, **rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
