"""Rater diagnostics for the organizer: agreement with the rest, time per item, straight-lining.

* leave-one-out Krippendorff's alpha (ordinal) per dimension: alpha of all raters, alpha without
  this rater; change = with - without. A rater whose removal raises the others' agreement
  (change < 0) scores differently from the rest;
* median seconds per item: the store keeps when each rating was first saved (`created_at`; an
  item's scores are saved together on Submit). The gaps between a rater's consecutive items are
  the time spent on the next item (reading and scoring); the first item has no gap and gaps over
  30 minutes count as breaks, not work. Re-submitting changes `updated_at` only, so the gaps are
  those of the first pass;
* straight-lining: the same score on every response of an item, question by question, or on every
  question of a response, far more often than the other raters (`evaluation.human.straight_lining`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from common import messages

from . import stats
from . import straight_lining as flat
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


def item_gaps(ratings: pd.DataFrame) -> pd.DataFrame:
    """One row per timed item of each rater (see the module docstring): rater, item_id and the seconds
    since the rater's previous item began (the time spent on this one); breaks left out."""
    empty = pd.DataFrame({"rater": pd.Series(dtype=object), "item_id": [], "seconds": pd.Series(dtype=float)})
    if "created_at" not in ratings:
        return empty
    t = pd.to_datetime(ratings["created_at"], errors="coerce", utc=True)
    df = ratings.assign(_t=t).dropna(subset=["_t"])
    parts = []
    for rater, group in df.groupby("rater", sort=False):
        starts = group.groupby("item_id")["_t"].min().sort_values()
        gaps = starts.diff().dt.total_seconds().dropna()
        gaps = gaps[(gaps >= 0) & (gaps <= BREAK_SECONDS)]
        parts.append(pd.DataFrame({"rater": rater, "item_id": gaps.index, "seconds": gaps.to_numpy(float)}))
    return pd.concat([empty, *parts], ignore_index=True) if parts else empty


def seconds_per_item(ratings: pd.DataFrame) -> pd.Series:
    """Median seconds between a rater's consecutive items (see the module docstring); NaN where
    there are no usable times."""
    if "created_at" not in ratings:
        return pd.Series(dtype=float)
    gaps = item_gaps(ratings).groupby("rater", sort=False)["seconds"].median()
    raters = list(dict.fromkeys(ratings["rater"]))
    return pd.Series({r: float(gaps.get(r, math.nan)) for r in raters}, dtype=float)


def timed_items(ratings: pd.DataFrame) -> pd.Series:
    """How many timed gaps (items after a rater's first, breaks left out) `seconds_per_item` rests on."""
    if "created_at" not in ratings:
        return pd.Series(dtype=int)
    counts = item_gaps(ratings).groupby("rater", sort=False).size()
    return pd.Series({r: int(counts.get(r, 0)) for r in dict.fromkeys(ratings["rater"])}, dtype=int)


def straight_lining(ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS) -> pd.DataFrame:
    """Per rater: items, distinct score values used, the flat patterns and the flag
    (`evaluation.human.straight_lining`: per question and across questions, against the others)."""
    return flat.straight_lining(ratings, dimensions)


def rater_diagnostics(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] = DIMENSIONS,
    scales: Mapping[str, tuple[int, int]] | None = None,
) -> pd.DataFrame:
    """Everything above, one row per rater (`scales`: each dimension's, default 1-5). The flags of
    rater quality control (against the consensus, speeders, exclusion rules) are in `quality`."""
    if ratings.empty:
        columns = [c for c in flat.COLUMNS if c != "flat_on"]
        return pd.DataFrame(columns=[*columns[:3], "median_s_per_item", *columns[3:]])
    out = straight_lining(ratings, dimensions)
    out.insert(3, "median_s_per_item", out["rater"].map(seconds_per_item(ratings)).astype(float))
    out["flat_on"] = out["flat_on"].map(", ".join)  # a table cell: the patterns in words
    return out.merge(leave_one_out_alpha(ratings, dimensions, scales), on="rater", how="left")


def flat_on_words(flat_on: str, lang: str = "en") -> str:
    """A `rater_diagnostics` row's `flat_on` cell (the patterns, comma separated: a question's name holds
    no comma) in `lang`."""
    patterns = [p for p in str(flat_on or "").split(", ") if p]
    return messages.text("story_list", lang).join(flat.pattern_words(p, lang) for p in patterns)


def explain(diag: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS, lang: str = "en") -> list[str]:
    """One line per rater who stands out (or one line saying nobody does), in `lang`."""
    lines = []
    for row in diag.to_dict("records"):
        notes = []
        if row.get("straight_lining"):
            notes.append(messages.text("rater_note_flat", lang, patterns=flat_on_words(row["flat_on"], lang)))
        drops = [
            d
            for d in dimensions
            if np.isfinite(row.get(f"alpha_change_{d}", math.nan)) and row[f"alpha_change_{d}"] < -0.05
        ]
        if drops:
            changes = messages.text("story_list", lang).join(
                f"{messages.dimension_name(d, lang)} ({row[f'alpha_change_{d}']:+.2f})" for d in drops
            )
            notes.append(messages.text("rater_note_agreement", lang, changes=changes))
        secs = row.get("median_s_per_item", math.nan)
        if np.isfinite(secs) and secs < 10:
            notes.append(messages.text("rater_note_seconds", lang, seconds=f"{secs:.0f}"))
        if notes:
            said = messages.text("story_join", lang).join(notes)
            lines.append(messages.text("rater_line", lang, rater=row["rater"], notes=said))
    return lines or [messages.text("rater_none_stands_out", lang)]
