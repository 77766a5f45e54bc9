"""Straight-lining: answers that do not follow the responses, over the numeric questions of a rubric.

Two patterns, each counted in units where an attentive rater has a reason to answer differently:

* per question: an item whose responses (two or more scored on the question) all got the same score
  on that question. A rater who gives 8 to every response on "quality" is flat on every item there;
* across questions: a response that got the same score on every question of the rubric (two or more
  answered). A rater who answers the grid in one column (5, 5, 5 on every response) is flat there.

A pattern flags a rater when it covers at least FLAT_SHARE of their units AND it is more frequent than
the other raters of the study make plausible: the binomial tail P(X >= k | n, p0) < FLAT_P, where k of
n units are flat and p0 is the other raters' share of flat units of the same pattern, bounded to
[FLAT_FLOOR, FLAT_CAP] (FLAT_CAP alone: with no one to compare with, half the units flat by chance is
the assumption). The share keeps a rater who is a little flatter than the rest from being called a
straight-liner; the tail keeps a handful of items from being enough when ties are common (a short
scale, similar responses). Units need numbers: a question of another type (text, a choice) is not
counted, so the checks extend to any rubric whose questions include numeric ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from common import messages

FLAT_SHARE = 0.8
FLAT_P = 0.001
FLAT_FLOOR, FLAT_CAP = 0.05, 0.5
ACROSS = "across questions"  # the pattern's name beside the questions' own
COLUMNS = ["rater", "items", "ratings", "distinct_scores", "flat_items_share", "flat_on", "flat_p", "straight_lining"]


def flat_units(ratings: pd.DataFrame, questions: Sequence[str]) -> pd.DataFrame:
    """Per rater and pattern (a question's name, or ACROSS): `units` counted and `flat` ones."""
    frame = ratings.assign(rater=ratings["rater"].astype(str))
    scores = frame[list(questions)].apply(pd.to_numeric, errors="coerce")
    parts = []
    for q in questions:
        answered = frame.assign(_s=scores[q]).dropna(subset=["_s"])
        per_item = answered.groupby(["rater", "item_id"])["_s"].agg(["size", "nunique"])
        unit = per_item["size"] >= 2
        counted = pd.DataFrame({"units": unit, "flat": unit & (per_item["nunique"] == 1)}).groupby(level="rater").sum()
        parts.append(counted.assign(pattern=q))
    if len(questions) >= 2:
        unit = scores.notna().sum(axis=1) >= 2
        same = scores.nunique(axis=1) == 1
        counted = pd.DataFrame({"rater": frame["rater"], "units": unit, "flat": unit & same}).groupby("rater").sum()
        parts.append(counted.assign(pattern=ACROSS))
    out = pd.concat(parts).reset_index() if parts else pd.DataFrame(columns=["rater", "units", "flat", "pattern"])
    return out.astype({"units": int, "flat": int})[["rater", "pattern", "units", "flat"]]


def pattern_tests(units: pd.DataFrame) -> pd.DataFrame:
    """`flat_units` with each row's `share`, the others' rate `p0` (bounded) and the binomial tail `p`."""
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    totals = units.groupby("pattern")[["units", "flat"]].transform("sum")
    rest_units, rest_flat = totals["units"] - units["units"], totals["flat"] - units["flat"]
    with np.errstate(invalid="ignore", divide="ignore"):
        others = np.where(rest_units > 0, rest_flat / rest_units.where(rest_units > 0, 1), FLAT_CAP)
        share = np.where(units["units"] > 0, units["flat"] / units["units"].where(units["units"] > 0, 1), np.nan)
    p0 = np.clip(others, FLAT_FLOOR, FLAT_CAP)
    tail = stats.binom.sf(units["flat"] - 1, units["units"], p0)
    return units.assign(share=share, p0=p0, p=np.where(units["units"] > 0, tail, np.nan))


def straight_lining(ratings: pd.DataFrame, questions: Sequence[str]) -> pd.DataFrame:
    """COLUMNS, one row per rater: the patterns that flag them (`flat_on`), the largest share of flat
    items on one question (`flat_items_share`), the smallest tail p of a pattern, and the flag."""
    questions = [q for q in questions if q in ratings]
    tested = pattern_tests(flat_units(ratings, questions))
    rows = []
    for rater, group in ratings.assign(rater=ratings["rater"].astype(str)).groupby("rater", sort=False):
        mine = tested[tested["rater"] == rater]
        on = [str(r.pattern) for r in mine.itertuples() if r.units and r.share >= FLAT_SHARE and r.p < FLAT_P]
        per_question = mine[(mine["pattern"] != ACROSS) & (mine["units"] > 0)]
        values = group[questions].apply(pd.to_numeric, errors="coerce").to_numpy(float)
        rows.append(
            {
                "rater": rater,
                "items": int(group["item_id"].nunique()),
                "ratings": int(len(group)),
                "distinct_scores": int(np.unique(values[~np.isnan(values)]).size),
                "flat_items_share": float(per_question["share"].max()) if len(per_question) else math.nan,
                "flat_on": on,
                "flat_p": float(mine["p"].min()) if mine["p"].notna().any() else math.nan,
                "straight_lining": bool(on),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def pattern_words(pattern: str, lang: str = "en") -> str:
    """A pattern's name in `lang`: a question's (the default rubric's translated) or ACROSS."""
    return messages.text("flat_across", lang) if pattern == ACROSS else messages.dimension_name(pattern, lang)


def flat_words(row: dict, lang: str = "en") -> str:
    """ "the same score on every response of an item on quality (100% of their items)", or across, in `lang`."""
    parts = []
    for pattern in row.get("flat_on") or []:
        if pattern == ACROSS:
            parts.append(messages.text("flat_across_words", lang))
        else:
            parts.append(messages.text("flat_question_words", lang, question=messages.dimension_name(pattern, lang)))
    share = row.get("flat_items_share", math.nan)
    on_questions = any(p != ACROSS for p in row.get("flat_on") or [])
    tail = messages.text("flat_share", lang, share=f"{share:.0%}") if on_questions and np.isfinite(share) else ""
    return messages.text("story_join", lang).join(parts) + tail
