"""Calibration of the pairwise ratings by simulation: one table, every figure from one run.

Simulated studies (evaluation.pairwise.simulate) have true Bradley-Terry strengths, items that
favour different systems and differ in how decisive they are, raters with their own taste and
their own readiness to call a tie (about 30% ties), a small left-side bias, and, in the length
design, longer answers that win more often. Each study is rated by the app's own
`evaluation.pairwise.rate`, and its intervals are scored against the population targets (the
same estimator on a study of unboundedly many items and raters).

Columns: coverage of the 95% intervals of rating differences by scheme (twoway = the app's
default; items = percentile bootstrap over items; items+raters = the pigeonhole bootstrap;
votes = votes as if independent), of the per-system ratings and of the length-controlled
differences; the mean width of a difference's interval; the ranking rule's errors (share of
ordered pairs ordered against the target, share of studies with any such pair) and power (share
of truly different pairs it ordered); the provisional rule (share marked, coverage of the
provisional and of the other systems' rating intervals).

    python benchmarks/bench_pairwise_calibration.py --studies 300 --resamples 500
    python benchmarks/bench_pairwise_calibration.py --studies 50 --only base,null   # quick look
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

from evaluation.pairwise import simulate as sim

BASE = sim.PairDesign()
DESIGNS: dict[str, sim.PairDesign] = {
    "base": BASE,
    "3 raters": replace(BASE, raters=3),
    "2 raters": replace(BASE, raters=2),
    "20 items x 10 raters": replace(BASE, items=20, raters=10),
    "strong taste: sd 0.6, 60 x 8": replace(BASE, items=60, raters=8, sd_rater=0.6),
    "no rater taste": replace(BASE, sd_rater=0.0, sd_rater_tie=0.0),
    "no item effects": replace(BASE, sd_item=0.0, sd_decisive=0.0),
    "30% of votes missing": replace(BASE, missing=0.3),
    "small: 3 systems 15 x 3": replace(BASE, systems=3, elo=(0.0, 50.0, 100.0), items=15, raters=3),
    "newcomer with few votes": replace(BASE, systems=5, elo=(0.0, 50.0, 100.0, 200.0, 100.0), share=(1, 1, 1, 1, 0.2)),
    "null: all equal": replace(BASE, elo=(0.0, 0.0, 0.0, 0.0)),
    "one rater: 100 items": replace(BASE, items=100, raters=1),
    "length: S0 shorter and longer wins": replace(BASE, length_effect=1.0, length_log_mean=(3.9, 4.6, 4.6, 4.6)),
}
LENGTH_DESIGNS = {"length: S0 shorter and longer wins"}


def fmt(v: object) -> str:
    if isinstance(v, float):
        return "–" if math.isnan(v) else f"{v:.3f}" if abs(v) < 10 else f"{v:.0f}"
    return str(v)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=300, help="simulated studies per design (default 300)")
    ap.add_argument("--resamples", type=int, default=500, help="bootstrap resamples per scheme (default 500)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", help="comma-separated design names (default: all)")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    if args.studies < 1 or args.resamples < 50:
        print("error: need --studies >= 1 and --resamples >= 50", file=sys.stderr)
        return 2
    names = list(DESIGNS) if not args.only else [n.strip() for n in args.only.split(",")]
    unknown = [n for n in names if n not in DESIGNS]
    if unknown:
        print(f"error: unknown design(s) {', '.join(unknown)}; known: {', '.join(DESIGNS)}", file=sys.stderr)
        return 2
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    start = time.perf_counter()
    rows = []
    header: list[str] = []
    for n, name in enumerate(names):
        design = DESIGNS[name]
        length = name in LENGTH_DESIGNS
        t0 = time.perf_counter()
        cal = sim.calibrate(design, args.studies, args.seed + n, args.resamples, length=length)
        row = {"name": name} | cal.row()
        if length:
            row["gap S3-S0 raw (target)"] = f"{cal.raw_gap:.0f} ({cal.target_gaps[0]:.0f})"
            row["gap S3-S0 LC (target)"] = f"{cal.lc_gap:.0f} ({cal.target_gaps[1]:.0f})"
        rows.append(row)
        if not header:
            header = [k for k in row if k not in ("design",)]
            print("| " + " | ".join(header) + " |")
            print("|" + "---|" * len(header))
        print("| " + " | ".join(fmt(row.get(k, "")) for k in header) + " |", f"  ({time.perf_counter() - t0:.0f} s)")
        for extra in ("gap S3-S0 raw (target)", "gap S3-S0 LC (target)"):
            if extra in row:
                print(f"    {name}: {extra} = {row[extra]}")
    print(
        f"{args.studies} studies per design, {args.resamples} resamples per scheme, seed {args.seed}; "
        f"{time.perf_counter() - start:.0f} s; load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
