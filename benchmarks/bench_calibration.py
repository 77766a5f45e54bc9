"""Calibration of the human-rating statistics by simulation, both figures from one run.

Null studies (item, rater and output random effects, no method effect) give the false-positive
rate of the primary tests at alpha = 0.05; studies where one method is shifted by a known amount
give how often the 95% CI of that difference covers its true value on the 1-5 scale. The app's
own functions (`evaluation.human`) analyse every simulated study. `--mixed N` adds N null and N
shifted studies for the mixed model (slow: about a second per fit on a busy CPU).

    python benchmarks/bench_calibration.py --null 2000 --known 2000 --mixed 100
    python benchmarks/bench_calibration.py --items 8 --raters 3     # a small study
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from evaluation import stats_design as sd


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--null", type=int, default=2000, help="null studies (default 2000)")
    ap.add_argument("--known", type=int, default=2000, help="studies with a known difference (default 2000)")
    ap.add_argument("--mixed", type=int, default=0, help="studies of each kind for the mixed model (default 0)")
    ap.add_argument("--items", type=int, default=20)
    ap.add_argument("--raters", type=int, default=3)
    ap.add_argument("--methods", type=int, default=3)
    ap.add_argument("--effect", type=float, default=0.5, help="latent shift of the last method (default 0.5)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    if min(args.null, args.known) < 1 or args.items < 2 or args.raters < 1 or args.methods < 2:
        print("error: need --null/--known >= 1, --items >= 2, --raters >= 1, --methods >= 2", file=sys.stderr)
        return 2
    design = sd.Design(items=args.items, raters=args.raters, methods=args.methods)
    start = time.perf_counter()
    cal = sd.calibrate(
        design, n_null=args.null, n_known=args.known, known_effect=args.effect, seed=args.seed, mixed_reps=args.mixed
    )
    for line in cal.lines():
        print(line)
    ok_fpr = 0.03 <= cal.fpr_wilcoxon <= 0.07
    ok_cov = 0.93 <= cal.coverage_t <= 0.97
    print(
        f"targets: false-positive rate in [0.03, 0.07]: {'yes' if ok_fpr else 'NO'}; "
        f"coverage in [0.93, 0.97]: {'yes' if ok_cov else 'NO'}   ({time.perf_counter() - start:.0f} s)"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {k: v for k, v in vars(cal).items() if k not in ("design", "extra")} | {"design": vars(design)},
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
