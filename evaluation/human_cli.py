"""`python -m evaluation.human RATINGS.csv [--json] [--no-mixed]`: the human-rating statistics of
an `arena.export` file (or one with just REQUIRED_COLUMNS), per study id.

Bad input (no file, not a CSV, a missing column, a score outside 1-5, an empty file, the same rater
rating the same output twice with different scores) prints one `error:` line and exits with 2.
The same rating repeated exactly (a file concatenated twice) is collapsed, with a `warning:` line.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import human_stats as hs
from . import human_words as words
from .human_analysis import analyse

SCORE_COLUMNS = hs.DIMENSIONS


class InputError(ValueError):
    pass


def read_ratings(path: str) -> pd.DataFrame:
    """`read_ratings_and_warnings` without the warnings."""
    return read_ratings_and_warnings(path)[0]


def read_ratings_and_warnings(path: str) -> tuple[pd.DataFrame, list[str]]:
    """A ratings CSV (an `arena.export` file or just REQUIRED_COLUMNS; others ignored), validated.

    From an export of format 3 on, only rows of kind "rating" are ratings (skips and flags are not),
    and a score may be empty where the row's `cant_judge` names its dimension: it is read as NaN,
    missing data to every statistic. Exact repeats of a rating are dropped (a warning says how
    many); a rater rating one output twice with different scores is an error."""
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{path} is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputError(f"{path} is not a readable CSV: {str(exc).splitlines()[0]}") from None
    missing = [c for c in hs.REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}")
    if "row_kind" in df.columns:
        df = df[df["row_kind"].str.strip().isin(["", "rating"])].reset_index(drop=True)
    if df.empty:
        raise InputError(f"{path} has no ratings")
    cant = (df["cant_judge"] if "cant_judge" in df.columns else pd.Series("", index=df.index)).str.split(",")
    for col in ("study_id", "item_id", "output_id", "method", "rater"):
        blank = df[col].str.strip() == ""
        if blank.any():
            raise InputError(f"{path}, row {int(np.flatnonzero(blank)[0]) + 2}: {col} is empty")
    out = df.copy()
    for dim in SCORE_COLUMNS:
        values = pd.to_numeric(df[dim].str.strip(), errors="coerce")
        unjudged = cant.map(lambda dims, d=dim: d in [x.strip() for x in dims]) & (df[dim].str.strip() == "")
        bad = (values.isna() | ~values.isin([1, 2, 3, 4, 5])) & ~unjudged
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(f"{path}, row {row + 2}: {dim} = {df[dim].iloc[row]!r} is not a score from 1 to 5")
        out[dim] = values.astype(float) if unjudged.any() else values.astype(int)
    pos = pd.to_numeric(df["position"].str.strip().replace("", np.nan), errors="coerce")
    if (df["position"].str.strip() != "").any() and (pos.isna() & (df["position"].str.strip() != "")).any():
        row = int(np.flatnonzero(pos.isna() & (df["position"].str.strip() != ""))[0])
        raise InputError(f"{path}, row {row + 2}: position = {df['position'].iloc[row]!r} is not a number")
    out["position"] = pos
    for col in ("study_id", "item_id", "output_id", "method", "rater"):
        out[col] = df[col].str.strip()
    return _without_repeats(out, path)


def _without_repeats(df: pd.DataFrame, path: str) -> tuple[pd.DataFrame, list[str]]:
    keys = ["study_id", "rater", "output_id"]
    dup = df.duplicated(keys, keep=False)
    if not dup.any():
        return df, []
    scores = df.loc[dup, keys + list(SCORE_COLUMNS)].astype(str)
    conflicting = scores.drop_duplicates().duplicated(keys, keep=False)
    if conflicting.any():
        first = scores.drop_duplicates()[conflicting].iloc[0]
        rows = [int(k) + 2 for k in np.flatnonzero((df[keys].astype(str) == first[keys].values).all(axis=1))]
        raise InputError(
            f"{path}, rows {', '.join(map(str, rows[:3]))}: rater {first['rater']!r} rated output "
            f"{first['output_id']!r} of study {first['study_id']!r} more than once with different scores"
        )
    repeats = int(df.duplicated(keys).sum())
    out = df.drop_duplicates(keys).reset_index(drop=True)
    return out, [f"{path}: {repeats} exact repeat(s) of a rating (same rater, output and scores) counted once"]


def _clean(v: Any) -> Any:
    if isinstance(v, (float, np.floating)):
        return None if not np.isfinite(v) else float(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    return v


UNIT = (
    "cell: one rater's mean over a method's samples on one item; estimates are means over items of item "
    "means, with items and raters both as samples (with 1-2 raters: these raters only, see scope)"
)


def summarise(ratings: pd.DataFrame, mixed: bool = True) -> dict[str, Any]:
    """The CLI's JSON: {"unit", "studies": {study id: {..., "family", "dimensions": {dim: {...}}}}}."""
    out: dict[str, Any] = {"unit": UNIT, "studies": {}}
    for sid, group in ratings.groupby("study_id", sort=False):
        res = analyse(group, mixed=mixed)
        pw_all = res["pairwise"]
        dims = {}
        for dim in hs.DIMENSIONS:
            m = res["means"][res["means"]["dimension"] == dim]
            pw = pw_all[pw_all["dimension"] == dim]
            fr = res["friedman"][res["friedman"]["dimension"] == dim]
            ag = res["agreement"][res["agreement"]["dimension"] == dim]
            po = res["position"][res["position"]["dimension"] == dim]
            mm = res["mixed"][res["mixed"]["dimension"] == dim]
            vc = res["variance_components"][res["variance_components"]["dimension"] == dim]
            cj = res["cant_judge"][res["cant_judge"]["dimension"] == dim]
            dims[dim] = {
                "cant_judge": {r["method"]: int(r["n"]) for r in cj.to_dict("records")},
                "means": {
                    r["method"]: {
                        "mean": _clean(r["mean"]),
                        "ci_low": _clean(r["ci_low"]),
                        "ci_high": _clean(r["ci_high"]),
                        "n_items": _clean(r["n"]),
                        "n_ratings": _clean(r["n_ratings"]),
                        "n_raters": _clean(r["n_raters"]),
                        "df": _clean(r["df"]),
                        "status": r["status"],
                        "scope": r["scope"],
                    }
                    for r in m.to_dict("records")
                },
                "pairwise": [
                    {
                        "a": r["method_a"],
                        "b": r["method_b"],
                        "diff": _clean(r["mean_diff"]),
                        "ci_low": _clean(r["ci_low"]),
                        "ci_high": _clean(r["ci_high"]),
                        "p": _clean(r["p_value"]),
                        "p_holm": _clean(r["p_holm"]),
                        "df": _clean(r["df"]),
                        "n_items": _clean(r["n_pairs"]),
                        "n_raters": _clean(r["n_raters"]),
                        "status": r["status"],
                        "scope": r["scope"],
                        "family": r["family"],
                        "meaning": words.explain_pair(r),
                    }
                    for r in pw.to_dict("records")
                ],
                "friedman_p": _clean(fr["p_value"].iloc[0]) if len(fr) else None,
                "agreement": _clean(ag["alpha"].iloc[0]) if len(ag) else None,
                "position_effect": (
                    {k: _clean(po.iloc[0][k]) for k in ("diff", "ci_low", "ci_high", "p_value", "n_items")}
                    | {"meaning": words.explain_position(po.iloc[0])}
                )
                if len(po)
                else None,
                "mixed_model": {
                    "contrasts": [
                        {
                            "a": r["method_a"],
                            "b": r["method_b"],
                            **{k: _clean(r[k]) for k in hs.MIXED_COLUMNS[3:] if k != "scope"},
                            "scope": r["scope"],
                        }
                        for r in mm.to_dict("records")
                    ],
                    "variance_components": {r["component"]: _clean(r["variance"]) for r in vc.to_dict("records")},
                }
                if mixed
                else None,
            }
        taste = res["taste"]
        out["studies"][str(sid)] = {
            "name": str(group["study_name"].iloc[0]) if "study_name" in group else None,
            "n_items": int(group["item_id"].nunique()),
            "n_raters": int(group["rater"].nunique()),
            "n_ratings": int(len(group)),
            "n_cant_judge": int(res["cant_judge"]["n"].sum()),
            "methods": res["methods"],
            "family": {
                "tests": int(pw_all["p_holm"].notna().sum()),
                "what": "every method pair x dimension, adjusted together: the headline names only these",
                "adjustment": "step-down max-T" if res["adjust"] == "max-T" else "Holm",
                "description": str(pw_all["family"].iloc[0]) if len(pw_all) else None,
            },
            "rater_taste": {
                "variance": _clean(taste.variance),
                "p": _clean(taste.p_value),
                "used": bool(taste.used),
                "meaning": words.explain_taste(taste),
            },
            "dimensions": dims,
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.human",
        description="Human-rating statistics (items and raters as samples) from a ratings CSV.",
    )
    parser.add_argument(
        "ratings", help="CSV from `python -m arena.export`, or with columns " + ", ".join(hs.REQUIRED_COLUMNS)
    )
    parser.add_argument("--json", action="store_true", help="print JSON (default: plain-language lines)")
    parser.add_argument("--no-mixed", action="store_true", help="skip the mixed model (faster)")
    args = parser.parse_args(argv)
    try:
        ratings, notes = read_ratings_and_warnings(args.ratings)
    except InputError as exc:
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
