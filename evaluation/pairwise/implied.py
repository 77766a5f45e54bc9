"""Pairwise outcomes implied by 1-5 ratings, so that 1-5 studies can join a pairwise leaderboard.

Per study, item and rater, every two methods that rater scored on that item make one comparison.
Each method's score is the rater's mean over the chosen dimensions (default: all three), taken
over the dimensions both methods were judged on (a "can't judge" leaves that dimension out of
that comparison only); several samples of one method on one item are averaged first, so a rater
counts once per item and pair. The higher score wins, equal scores tie; a pair with no dimension
judged for both gives no comparison.

The comparisons of one (item, rater) are not independent (three methods give three comparisons
from three scores): the leaderboard's intervals resample items, raters and (item, rater) cells,
which is what keeps them honest about that.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

KEYS = ("study_id", "item_id", "rater")


def implied_votes(ratings: pd.DataFrame, dimensions: Sequence[str] | None = None) -> pd.DataFrame:
    """Votes (study_id, item_id, rater, system_a, system_b, winner, and len_a, len_b when the
    ratings carry `new_tokens`) from a 1-5 ratings frame (`evaluation.human` columns); systems are
    the methods, `system_a` the first of the two in sorted order. `dimensions`: default all three
    (`evaluation.human.columns.DIMENSIONS`). Empty frame: no votes."""
    if dimensions is None:
        # late: the 1-5 columns come from the store's schema (SQLAlchemy), which the votes CLI never needs
        from ..human.columns import DIMENSIONS

        dimensions = DIMENSIONS
    columns = [*KEYS, "system_a", "system_b", "winner"]
    dims = [d for d in dimensions if d in ratings.columns]
    if ratings.empty or not dims:
        return pd.DataFrame(columns=columns)
    frame = ratings[[*KEYS, "method"]].astype(str).copy()
    for d in dims:
        frame[d] = pd.to_numeric(ratings[d], errors="coerce").to_numpy(float)
    has_length = "new_tokens" in ratings.columns
    if has_length:
        frame["_len"] = pd.to_numeric(ratings["new_tokens"], errors="coerce").to_numpy(float)
    cell = frame.groupby([*KEYS, "method"], sort=True).mean(numeric_only=True).reset_index()
    rows = []
    for _, group in cell.groupby(list(KEYS), sort=True):
        scores = group[dims].to_numpy(float)
        methods = group["method"].tolist()
        lengths = group["_len"].to_numpy(float) if has_length else None
        for i, j in itertools.combinations(range(len(methods)), 2):
            both = ~np.isnan(scores[i]) & ~np.isnan(scores[j])
            if not both.any():
                continue
            gap = scores[i][both].mean() - scores[j][both].mean()
            row = {
                "study_id": group["study_id"].iloc[0],
                "item_id": group["item_id"].iloc[0],
                "rater": group["rater"].iloc[0],
                "system_a": methods[i],
                "system_b": methods[j],
                "winner": "a" if gap > 1e-9 else "b" if gap < -1e-9 else "tie",
            }
            if lengths is not None:
                row |= {"len_a": lengths[i], "len_b": lengths[j]}
            rows.append(row)
    out = pd.DataFrame(rows, columns=columns + (["len_a", "len_b"] if has_length else []))
    if has_length and out[["len_a", "len_b"]].isna().any().any():
        out = out.drop(columns=["len_a", "len_b"])  # lengths only where every comparison has them
    return out
