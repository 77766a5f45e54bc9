"""`python -m evaluation.human RATINGS.csv [--json] [--no-mixed]`: the human-rating statistics of
an `arena.export` file (or one with just REQUIRED_COLUMNS), per study id.

Bad input (no file, not a CSV, a missing column, a score outside 1-5, an empty file, the same rater
rating the same output twice with different scores) prints one `error:` line and exits with 2.
The same rating repeated exactly (a file concatenated twice) is collapsed, with a `warning:` line.
`--help` and argument errors answer before pandas and scipy load.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence

from common.errors import UserError

from .columns import REQUIRED_COLUMNS


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.human",
        description="Human-rating statistics (items and raters as samples) from a ratings CSV.",
    )
    parser.add_argument(
        "ratings", help="CSV from `python -m arena.export`, or with columns " + ", ".join(REQUIRED_COLUMNS)
    )
    parser.add_argument("--json", action="store_true", help="print JSON (default: plain-language lines)")
    parser.add_argument("--no-mixed", action="store_true", help="skip the mixed model (faster)")
    args = parser.parse_args(argv)
    # late: pandas and scipy load only once the arguments are read, so --help answers at once
    from . import words
    from .ratings import read_ratings_and_warnings  # late, as the line above
    from .summary import summarise  # late, as the line above

    try:
        ratings, notes = read_ratings_and_warnings(args.ratings)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"warning: {note}", file=sys.stderr)
    result = summarise(ratings, mixed=not args.no_mixed)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return 0
    for sid, study in result["studies"].items():
        print(
            f"study {sid}: {study['n_items']} items, {study['n_raters']} raters, {study['n_ratings']} ratings, "
            f'{study["n_cant_judge"]} "can\'t judge" answers (left out of every statistic); family: '
            f"{study['family']['description']}"
        )
        print("  " + study["rater_taste"]["meaning"])
        for dim, d in study["dimensions"].items():
            for method, m in d["means"].items():
                lo, hi = (m[k] if m[k] is not None else math.nan for k in ("ci_low", "ci_high"))
                ci = f"[{words.fmt(lo)}, {words.fmt(hi)}]" if m["status"] == "ok" else f"({m['status']})"
                print(f"  {dim} {method}: {words.fmt(m['mean'])} {ci}")
            for p in d["pairwise"]:
                print("  " + p["meaning"])
            if d["position_effect"]:
                print("  " + d["position_effect"]["meaning"])
    return 0
