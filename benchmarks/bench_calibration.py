"""Calibration of the human-rating statistics across study designs, every figure from one run.

For each design of `evaluation.human.design.DESIGNS` (or a custom one): null studies (no method
differs) give the false-positive rate on the headline family (any pair x dimension significant
after the family adjustment: step-down max-T, and Holm on the same p-values; and the item-level
analysis used before issue 22); studies with the last method shifted by --effect give the coverage
of the 95% CIs (the shifted difference, and every method's mean) and the power to find the shifted
pair (max-T against Holm). --mixed N adds N null and N shifted studies for the mixed model. The
app's own functions analyse every simulated study; one pool of --workers processes works through
every design in chunks of 25 studies. --closed N adds, for the complete designs, N null and N
shifted studies analysed by the closed forms vectorised over studies (`design.study_tests`,
the app's numbers on complete tables): enough studies to pin a rate to about +-0.005.

    python benchmarks/bench_calibration.py --null 1000 --known 1000 --mixed 300 --closed 2000 --workers 2 --markdown
    python benchmarks/bench_calibration.py --designs pilot,dominant,"two prompts",ordinal,survey --null 300 --known 300
    python benchmarks/bench_calibration.py --designs taste,missing --null 300 --known 300
    python benchmarks/bench_calibration.py --null 200 --known 200 --mixed 150 --mixed-designs base,taste
    python benchmarks/bench_calibration.py --items 8 --raters 3 --null 500 --known 500   # a custom design
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

from evaluation.human import design as sd

TARGET_FPR = (0.03, 0.07)
TARGET_COVERAGE = (0.93, 0.97)


def _f(x: float) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def markdown(results: list[sd.Calibration]) -> str:
    head = (
        "| design | false positives, max-T | Holm | item-level (before) | CI coverage, difference | "
        "CI coverage, per method | power max-T / Holm | mixed model: false positives / coverage | "
        "closed form: false positives / coverage |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
    )
    rows = []
    for c in results:
        scope = f" ({c.scope})" if c.scope in ("these raters only", "these prompts only") else ""
        cf = c.extra.get("closed")
        closed = f"{_f(cf['fwer'])} / {_f(cf['coverage'])}" if cf else "– / –"
        rows.append(
            f"| {c.label}{scope} | **{_f(c.fwer)}** | {_f(c.fwer_holm)} | {_f(c.fwer_item)} | **{_f(c.coverage)}** | "
            f"**{_f(c.coverage_means)}** | {_f(c.power)} / {_f(c.power_holm)} | "
            f"{_f(c.fwer_mixed)} / {_f(c.coverage_mixed)} | {closed} |"
        )
    return head + "\n".join(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--null", type=int, default=1000, help="null studies per design (default 1000)")
    ap.add_argument("--known", type=int, default=1000, help="studies with a known difference per design (default 1000)")
    ap.add_argument("--mixed", type=int, default=0, help="studies of each kind for the mixed model (default 0)")
    ap.add_argument(
        "--mixed-designs", help="comma-separated names: run the mixed model on these designs only (default: all)"
    )
    ap.add_argument("--designs", default=",".join(sd.DESIGNS), help="comma-separated names (default: all)")
    ap.add_argument("--items", type=int, help="a custom design instead: items ...")
    ap.add_argument("--raters", type=int, default=3, help="... raters (with --items)")
    ap.add_argument("--methods", type=int, default=3, help="... methods (with --items)")
    ap.add_argument("--effect", type=float, default=0.5, help="latent shift of the last method (default 0.5)")
    ap.add_argument(
        "--closed",
        type=int,
        default=0,
        help="also N null + N shifted studies per complete design by the closed forms (seconds per 1000)",
    )
    ap.add_argument("--workers", "--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--markdown", action="store_true", help="also print the table as Markdown")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    names = [n.strip() for n in args.designs.split(",") if n.strip()]
    mixed_names = [n.strip() for n in (args.mixed_designs or ",".join(names)).split(",") if n.strip()]
    unknown = [n for n in names + mixed_names if n not in sd.DESIGNS]
    if min(args.null, args.known) < 1 or min(args.mixed, args.closed) < 0 or args.workers < 1 or unknown:
        print(
            "error: need --null/--known >= 1, --mixed/--closed >= 0, --workers >= 1"
            + (f"; unknown design(s) {', '.join(unknown)} (known: {', '.join(sd.DESIGNS)})" if unknown else ""),
            file=sys.stderr,
        )
        return 2
    if args.items is not None and (args.items < 2 or args.raters < 1 or args.methods < 2):
        print("error: need --items >= 2, --raters >= 1, --methods >= 2", file=sys.stderr)
        return 2
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    start = time.perf_counter()
    results = []
    jobs = (
        [("custom", sd.Design(items=args.items, raters=args.raters, methods=args.methods))]
        if args.items is not None
        else [(n, None) for n in names]
    )
    designs: list[sd.Design | str] = [custom if custom is not None else name for name, custom in jobs]
    mixed = [args.mixed if custom is not None or name in mixed_names else 0 for name, custom in jobs]
    for k, c in enumerate(sd.calibrations(designs, args.null, args.known, args.effect, args.seed, mixed, args.workers)):
        closed = sd.closed_form_calibration(c.design, args.closed, args.effect, args.seed + k) if args.closed else None
        c.extra["closed"] = closed
        met = c.targets_met()
        print(
            f"{c.label}: false positives on the family {c.fwer:.3f} (max-T), {c.fwer_holm:.3f} (Holm), "
            f"{c.fwer_item:.3f} (item-level, before) over {c.n_null} null studies; CI coverage {c.coverage:.3f} "
            f"(difference {c.true_diff:+.3f}), {c.coverage_means:.3f} (per method) over {c.n_known}; power "
            f"{c.power:.3f} max-T vs {c.power_holm:.3f} Holm"
            + (
                f"; mixed model over {c.mixed_reps}: false positives {c.fwer_mixed:.3f}, coverage {c.coverage_mixed:.3f}"
                if c.mixed_reps
                else ""
            )
            + (
                f"; closed form over {closed['n']}: false positives {closed['fwer']:.3f} (max-T), "
                f"{closed['fwer_holm']:.3f} (Holm), coverage {closed['coverage']:.3f}"
                if closed
                else ""
            )
            + f"; scope: {c.scope}; targets met: {'yes' if met else 'NO'} ({c.seconds:.0f} CPU s)",
            flush=True,
        )
        results.append(c)
    total = time.perf_counter() - start
    load_end = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    print(
        f"total {total:.0f} s with {args.workers} worker process(es); load average {load:.1f} at the start, "
        f"{load_end:.1f} at the end; targets: false positives in {list(TARGET_FPR)}, coverage in "
        f"{list(TARGET_COVERAGE)}: {sum(c.targets_met() for c in results)}/{len(results)} designs meet them"
    )
    if args.markdown:
        print()
        print(markdown(results))
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "seconds": total,
                    "workers": args.workers,
                    "load_average": [load, load_end],
                    "results": [
                        {k: v for k, v in asdict(c).items() if k not in ("design", "extra")}
                        | {"design": asdict(c.design), "closed_form": c.extra.get("closed")}
                        for c in results
                    ],
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
