"""Rater diagnostics for the organizer: agreement with the rest, time per item, straight-lining.

* leave-one-out Krippendorff's alpha (ordinal) per dimension: alpha of all raters, alpha without
  this rater; change = with - without. A rater whose removal raises the others' agreement
  (change < 0) scores differently from the rest;
* median seconds per item: the store keeps when each rating was first saved (`created_at`; an
  item's scores are saved together on Submit). The gaps between a rater's consecutive items are
  the time spent on the next item (reading and scoring); the first item has no gap and gaps over
  30 minutes count as breaks, not work. Re-submitting changes `updated_at` only, so the gaps are
  those of the first pass;
* straight-lining: the share of a rater's items in which every output got the same score on
  every dimension; flagged at 80% or more over at least 3 items, or when a rater used only one
  score value in all their ratings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from . import stats
from .columns import DIMENSIONS

BREAK_SECONDS = 30 * 60
FLAT_SHARE = 0.8


def leave_one_out_alpha(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] = DIMENSIONS,
    scales: Mapping[str, tuple[int, int]] | None = None,
) -> pd.DataFrame:
    """One row per rater: for each dimension, alpha without this rater and the change
    (alpha with everybody - alpha without); `scales`: each dimension's (low, high), default 1-5."""
    raters = list(dict.fromkeys(ratings["rater"]))
    rows = {r: {"rater": r} for r in raters}
    for dim in dimensions:
        df = ratings.assign(_score=pd.to_numeric(ratings[dim], errors="coerce")).dropna(subset=["_score"])
        table = df.pivot_table(index="rater", columns="output_id", values="_score", aggfunc="mean")
        scale = (scales or {}).get(dim)
        full = stats.alpha_of(table.to_numpy(float), scale=scale)
        for r in raters:
            without = (
                stats.alpha_of(table.drop(index=r, errors="ignore").to_numpy(float), scale=scale)
                if len(table) > 2
                else math.nan
            )
            rows[r][f"alpha_without_{dim}"] = without
            rows[r][f"alpha_change_{dim}"] = full - without if np.isfinite(full) and np.isfinite(without) else math.nan
    return pd.DataFrame(list(rows.values()))


def seconds_per_item(ratings: pd.DataFrame) -> pd.Series:
    """Median seconds between a rater's consecutive items (see the module docstring); NaN where
    there are no usable times."""
    if "created_at" not in ratings:
        return pd.Series(dtype=float)
    t = pd.to_datetime(ratings["created_at"], errors="coerce", utc=True)
    df = ratings.assign(_t=t).dropna(subset=["_t"])
    out = {}
    for rater, group in df.groupby("rater", sort=False):
        starts = group.groupby("item_id")["_t"].min().sort_values()
        gaps = starts.diff().dt.total_seconds().dropna()
        gaps = gaps[(gaps >= 0) & (gaps <= BREAK_SECONDS)]
        out[rater] = float(gaps.median()) if len(gaps) else math.nan
    return pd.Series(out, dtype=float)


def timed_items(ratings: pd.DataFrame) -> pd.Series:
    """How many timed gaps (items after a rater's first, breaks left out) `seconds_per_item` rests on."""
    if "created_at" not in ratings:
        return pd.Series(dtype=int)
    t = pd.to_datetime(ratings["created_at"], errors="coerce", utc=True)
    df = ratings.assign(_t=t).dropna(subset=["_t"])
    out = {}
    for rater, group in df.groupby("rater", sort=False):
        gaps = group.groupby("item_id")["_t"].min().sort_values().diff().dt.total_seconds().dropna()
        out[rater] = int(((gaps >= 0) & (gaps <= BREAK_SECONDS)).sum())
    return pd.Series(out, dtype=int)


def straight_lining(ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS) -> pd.DataFrame:
    """Per rater: items, distinct score values used, share of items with one score everywhere, flag."""
    rows = []
    for rater, group in ratings.groupby("rater", sort=False):
        scores = group[list(dimensions)].apply(pd.to_numeric, errors="coerce")
        values = np.unique(scores.to_numpy(float)[~np.isnan(scores.to_numpy(float))])
        per_item = scores.assign(item_id=group["item_id"].to_numpy()).groupby("item_id")
        multi = per_item.size() > 1
        flat = per_item.apply(lambda g: np.unique(g[list(dimensions)].to_numpy(float)).size == 1)[multi]
        share = float(flat.mean()) if len(flat) else math.nan
        flag = bool(len(values) == 1 and len(group) > 1) or bool(len(flat) >= 3 and share >= FLAT_SHARE)
        rows.append(
            {
                "rater": rater,
                "items": int(group["item_id"].nunique()),
                "ratings": int(len(group)),
                "distinct_scores": int(len(values)),
                "flat_items_share": share,
                "straight_lining": flag,
            }
        )
    return pd.DataFrame(
        rows, columns=["rater", "items", "ratings", "distinct_scores", "flat_items_share", "straight_lining"]
    )


def rater_diagnostics(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] = DIMENSIONS,
    scales: Mapping[str, tuple[int, int]] | None = None,
) -> pd.DataFrame:
    """Everything above, one row per rater (`scales`: each dimension's, default 1-5). The flags of
    rater quality control (against the consensus, speeders, exclusion rules) are in `quality`."""
    if ratings.empty:
        return pd.DataFrame(
            columns=[
                "rater",
                "items",
                "ratings",
                "median_s_per_item",
                "distinct_scores",
                "flat_items_share",
                "straight_lining",
            ]
        )
    out = straight_lining(ratings, dimensions)
    out.insert(3, "median_s_per_item", out["rater"].map(seconds_per_item(ratings)).astype(float))
    return out.merge(leave_one_out_alpha(ratings, dimensions, scales), on="rater", how="left")


def explain(diag: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS) -> list[str]:
    """One line per rater who stands out (or one line saying nobody does)."""
    lines = []
    for row in diag.to_dict("records"):
        notes = []
        if row.get("straight_lining"):
            notes.append(
                f"gave the same score everywhere on {row['flat_items_share']:.0%} of items"
                if np.isfinite(row.get("flat_items_share", math.nan))
                else "used a single score value"
            )
        drops = [
            d
            for d in dimensions
            if np.isfinite(row.get(f"alpha_change_{d}", math.nan)) and row[f"alpha_change_{d}"] < -0.05
        ]
        if drops:
            notes.append(
                "agreement rises without them on " + ", ".join(f"{d} ({row[f'alpha_change_{d}']:+.2f})" for d in drops)
            )
        secs = row.get("median_s_per_item", math.nan)
        if np.isfinite(secs) and secs < 10:
            notes.append(f"a median of {secs:.0f} s per item")
        if notes:
            lines.append(f"{row['rater']}: " + "; ".join(notes) + ".")
    return lines or [
        "No rater stands out (no straight-lining, no rater lowers agreement by more than 0.05, no item under 10 s)."
    ]
