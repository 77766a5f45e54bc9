"""`python -m evaluation.human RATINGS.csv [--json] [--no-mixed] [--scale MIN-MAX] [--exclude-failed-attention]`:
the human-rating statistics of a ratings file, per study id.

The file is wide (an `arena.files.export` file, or one with just REQUIRED_COLUMNS: one row per rating, a
column per dimension) or long (one row per score: LONG_COLUMNS, optional position, attention_passed,
scale_min, scale_max; any dimensions, any scale of 2 to 11 points).

Bad input (no file, not a CSV, a missing column, a score outside its scale, an unknown dimension, a scale
that does not parse, a rubric with no dimension, an empty file, the same rater rating the same output
twice with different scores) prints one `error:` line and exits with 2. The same rating repeated
exactly (a file concatenated twice) is collapsed, with a `warning:` line. `--help` and argument errors
answer before pandas and scipy load.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from common.errors import UserError
from common.rubric import parse_scale

from .columns import LONG_COLUMNS, REQUIRED_COLUMNS

RULE_NAMES = ("attention", "straight-lining", "speeder", "against", "unrelated")  # evaluation.human.quality.RULES


def parse_scales(values: Sequence[str]) -> dict[str, tuple[int, int]]:
    """--scale values: "1-10" for every dimension, "quality=1-10" for one; UserError when one does not
    parse (as `common.rubric.parse_scale`)."""
    out: dict[str, tuple[int, int]] = {}
    for text in values:
        name, sep, scale = text.rpartition("=")
        key = name.strip() if sep else ""
        if sep and not key:
            raise UserError(f"--scale {text!r}: name the dimension before '=' (e.g. quality=1-10)")
        out[key] = parse_scale(scale)
    return out


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.human",
        description="Human-rating statistics (items and raters as samples) from a ratings CSV.",
    )
    parser.add_argument(
        "ratings",
        help="CSV: an `arena.files.export` file or one with columns "
        + ", ".join(REQUIRED_COLUMNS)
        + "; or the long format: "
        + ", ".join(LONG_COLUMNS)
        + " (optional position, attention_passed, scale_min, scale_max)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (default: plain-language lines)")
    parser.add_argument("--no-mixed", action="store_true", help="skip the mixed model (faster)")
    parser.add_argument(
        "--scale",
        action="append",
        default=[],
        metavar="[DIMENSION=]MIN-MAX",
        help="the scores' scale, e.g. 1-10 (every dimension) or quality=1-7 (one); default: the file's "
        "scale_min/scale_max columns, else 1-5",
    )
    parser.add_argument(
        "--dimensions", help="comma-separated dimension names to expect (a wide file's columns; others are an error)"
    )
    parser.add_argument(
        "--exclude-failed-attention",
        action="store_true",
        help="drop every rater with any false attention_passed (and say how many)",
    )
    parser.add_argument(
        "--exclude",
        default="",
        metavar="RULES",
        help="drop raters by flag, comma-separated: " + ", ".join(RULE_NAMES),
    )
    return parser


def _rules(args: argparse.Namespace) -> list[str]:
    rules = [r.strip() for r in args.exclude.split(",") if r.strip()]
    unknown = [r for r in rules if r not in RULE_NAMES]
    if unknown:
        raise UserError(f"--exclude: unknown rule(s) {', '.join(unknown)} (known: {', '.join(RULE_NAMES)})")
    return list(dict.fromkeys((["attention"] if args.exclude_failed_attention else []) + rules))


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        scales = parse_scales(args.scale)
        rules = _rules(args)
        dimensions = None if args.dimensions is None else [d.strip() for d in args.dimensions.split(",")]
        if dimensions is not None and not [d for d in dimensions if d]:
            raise UserError("--dimensions names no dimension")
        # late: pandas and scipy load only once the arguments are read, so --help answers at once
        from .ratings import read_ratings_file
        from .summary import summarise  # late, as the line above

        data = read_ratings_file(args.ratings, scales or None, [d for d in dimensions or [] if d] or None)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for note in data.warnings:
        print(f"warning: {note}", file=sys.stderr)
    result = summarise(
        data.frame, mixed=not args.no_mixed, rubrics=data.rubrics, exclude=rules, failed_attention=data.failed_attention
    )
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
    else:
        for sid, study in result["studies"].items():
            print_study(sid, study)
    return 0


def print_study(sid: str, study: dict[str, Any]) -> None:
    """The plain-language report of one study."""
    from . import words  # late: pandas-free words need numpy, loaded only once the data is read

    print(
        f"study {sid}: {study['n_items']} items, {study['n_raters']} raters, {study['n_ratings']} ratings, "
        f'{study["n_cant_judge"]} "can\'t judge" answers (left out of every statistic); results hold '
        f"{study['scope']}; family: {study['family']['description']}"
    )
    print("  " + study["raters_excluded"]["meaning"])
    if "sensitivity" in study:
        print("  " + study["sensitivity"]["meaning"])
    print("  " + study["rater_taste"]["meaning"])
    for dim, d in study["dimensions"].items():
        for method, m in d["means"].items():
            lo, hi = (m[k] if m[k] is not None else math.nan for k in ("ci_low", "ci_high"))
            ci = f"[{words.fmt(lo)}, {words.fmt(hi)}]" if m["status"] == "ok" else f"({m['status']})"
            print(f"  {dim} ({d['scale'][0]}-{d['scale'][1]}) {method}: {words.fmt(m['mean'])} {ci}")
        for p in d["pairwise"]:
            print("  " + p["meaning"])
        if d["position_effect"]:
            print("  " + d["position_effect"]["meaning"])
    flagged = [r["meaning"] for r in study["raters"] if r["flags"]]
    print("  Raters: " + (" ".join(flagged) if flagged else "no rater raised a flag."))
