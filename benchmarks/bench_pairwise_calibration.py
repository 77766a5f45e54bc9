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

Then two small tables: the provisional rule's grounds (a newcomer's coverage by the number of
items it was compared on, its interval width by its votes) and the 1-5 length-adjusted contrast
on studies with no method effect at equal length.

    python benchmarks/bench_pairwise_calibration.py --studies 200 --resamples 300
    python benchmarks/bench_pairwise_calibration.py --studies 50 --only "base,null: all equal"   # a quick look
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

import numpy as np
import pandas as pd

from evaluation.pairwise import length_adjusted_contrast, rate
from evaluation.pairwise import simulate as sim

BASE = sim.PairDesign()
DESIGNS: dict[str, sim.PairDesign] = {
    "base": BASE,
    "3 raters": replace(BASE, raters=3),
    "2 raters": replace(BASE, raters=2),
    "20 items x 10 raters": replace(BASE, items=20, raters=10),
    "strong taste: sd 0.6 and 60 x 8": replace(BASE, items=60, raters=8, sd_rater=0.6),
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


def provisional_rows(n_studies: int, resamples: int, seed: int) -> list[dict]:
    """The provisional rule's grounds: a newcomer system (S4, elo 100) with a small share of the
    votes; coverage of its rating interval by the number of items it was compared on, and the
    interval's mean width by its number of votes."""
    by_items: dict[str, list[bool]] = {}
    by_votes: dict[str, list[float]] = {}
    for n, share in enumerate((0.05, 0.1, 0.2)):
        design = replace(DESIGNS["newcomer with few votes"], share=(1, 1, 1, 1, share))
        raw, _ = sim.targets(design)
        rng = np.random.default_rng(seed + 100 + n)
        for _ in range(n_studies):
            res = rate(sim.simulate(design, rng), length=False, n_resamples=resamples, seed=int(rng.integers(2**31)))
            row = res.systems.set_index("system").loc["S4"]
            if not np.isfinite(row["ci_low"]):
                continue
            items = int(row["items"])
            bucket = "0-4" if items < 5 else "5-9" if items < 10 else "10-19" if items < 20 else "20+"
            by_items.setdefault(bucket, []).append(bool(row["ci_low"] <= raw[4] <= row["ci_high"]))
            votes = int(row["votes"])
            vb = "<15" if votes < 15 else "15-29" if votes < 30 else "30+"
            by_votes.setdefault(vb, []).append(float(row["ci_high"] - row["ci_low"]))
    rows = [
        {"newcomer compared on": f"{k} items", "intervals": len(v), "coverage": float(np.mean(v))}
        for k, v in sorted(by_items.items(), key=lambda kv: int(kv[0].split("-")[0].rstrip("+")))
    ]
    rows += [
        {"newcomer compared on": f"{k} votes", "intervals": len(v), "mean width": float(np.mean(v))}
        for k, v in sorted(by_votes.items(), key=lambda kv: int(kv[0].strip("<+").split("-")[0]))
    ]
    return rows


def simulate_1_to_5(
    rng: np.random.Generator, items: int, raters: int, length_gain: float, direct: float
) -> pd.DataFrame:
    """A 1-5 study of two methods: "long" writes about twice as long as "short" (log2 lengths differ
    by 1 on average, SD 0.6 per output); latent score = 3 + item + rater + output + noise +
    direct (for "long") + length_gain * (log2 length - its mean), rounded and clipped to 1-5."""
    rows = []
    for i in range(items):
        item = rng.normal(0, 0.6)
        for m, method in enumerate(("short", "long")):
            log_len = 5.0 + m + rng.normal(0, 0.6)
            output = rng.normal(0, 0.5)
            for r in range(raters):
                latent = 3 + item + output + rng.normal(0, 0.7) + direct * m + length_gain * (log_len - 5.5)
                score = int(np.clip(np.round(latent + 0.3 * (r - raters / 2) / raters), 1, 5))
                rows.append(
                    {
                        "study_id": 1,
                        "item_id": i,
                        "output_id": 2 * i + m,
                        "method": method,
                        "rater": f"r{r}",
                        "position": (i + r + m) % 2,
                        "coherence": score,
                        "new_tokens": int(round(2**log_len)),
                    }
                )
    return pd.DataFrame(rows)


def length_contrast_rows(n_studies: int, seed: int) -> list[dict]:
    """The 1-5 length-adjusted contrast where the truth is known to be "no method effect at equal
    length": how often the unadjusted and the adjusted 95% intervals of long - short cover 0."""
    rows = []
    for n, (label, gain) in enumerate((("raters reward length (0.5 per doubling)", 0.5), ("no length effect", 0.0))):
        rng = np.random.default_rng(seed + 200 + n)
        raw, adj = [], []
        for _ in range(n_studies):
            out = length_adjusted_contrast(simulate_1_to_5(rng, 25, 3, gain, 0.0), ["coherence"]).iloc[0]
            raw.append(out["ci_low"] <= 0 <= out["ci_high"])
            adj.append(out["ci_low_length_adjusted"] <= 0 <= out["ci_high_length_adjusted"])
        rows.append(
            {
                "1-5 study, 25 items x 3 raters, no method effect": label,
                "studies": n_studies,
                "unadjusted covers 0": float(np.mean(raw)),
                "length-adjusted covers 0": float(np.mean(adj)),
            }
        )
    return rows


def print_table(rows: list[dict]) -> None:
    header = list(dict.fromkeys(k for r in rows for k in r))
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(fmt(r.get(k, "")) for k in header) + " |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=300, help="simulated studies per design (default 300)")
    ap.add_argument("--resamples", type=int, default=500, help="bootstrap resamples per scheme (default 500)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", help="comma-separated design names (default: all)")
    ap.add_argument("--json", help="also write the rows to this file")
    ap.add_argument("--extra-only", action="store_true", help="only the provisional and 1-5 length tables")
    args = ap.parse_args()
    if args.studies < 1 or args.resamples < 50:
        print("error: need --studies >= 1 and --resamples >= 50", file=sys.stderr)
        return 2
    names = [] if args.extra_only else list(DESIGNS) if not args.only else [n.strip() for n in args.only.split(",")]
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
    if names:
        print(
            f"{args.studies} studies per design, {args.resamples} resamples per scheme, seed {args.seed}; "
            f"{time.perf_counter() - start:.0f} s; load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
    extra = []
    if not args.only:
        print("\nprovisional rule: a newcomer's rating interval by what it rests on")
        extra = provisional_rows(args.studies, args.resamples, args.seed)
        print_table(extra)
        print("\n1-5 studies: the length-adjusted contrast (evaluation.pairwise.length_adjusted_contrast)")
        lengths = length_contrast_rows(args.studies, args.seed)
        print_table(lengths)
        extra += lengths
        print(
            f"total {time.perf_counter() - start:.0f} s; load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows + extra, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
