"""The primary analysis of one study's ratings, fixed in advance: every frame of
`evaluation.human.stats` and one line per result (`evaluation.human.words`), for any rubric (its
dimensions and their scales, common/rubric.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import pandas as pd

from common.rubric import Rubric, rubric_of

from . import choices as ch
from . import stats as hs
from . import words
from .crossed import SCOPE_ITEMS


def top_rater_share(ratings: pd.DataFrame) -> float:
    """The share of the ratings the busiest rater gave (NaN without ratings)."""
    if ratings.empty:
        return float("nan")
    return float(ratings["rater"].astype(str).value_counts(normalize=True).iloc[0])


def analyse(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] | None = None,
    mixed: bool = True,
    seed: int = 0,
    methods: Sequence[str] | None = None,
    adjust: Literal["max-T", "holm"] = "max-T",
    rubric: Rubric | None = None,
    lang: str = "en",
) -> dict[str, Any]:
    """Frames and lines for one study. `rubric` (or just `dimensions`, each on the default scale):
    what was asked, default the mission's three 1-5 questions. `methods`: the study's method order
    (pairs are a - b in it, whatever the row order); repeated ratings are collapsed first (with a
    warning), so every statistic sees the same ratings. The scales' statistics read the questions
    with numeric answers (scales; yes/no as 0/1, a proportion); choices get counts and a test of
    independence (`choices`), comments are listed, never analysed. `lang`: the lines' language."""
    rubric = rubric if rubric is not None else rubric_of(dimensions)
    dims = list(rubric.numeric)
    ratings = hs.collapse_duplicates(ratings)
    order = hs.method_order(ratings, methods)
    means = hs.method_means(ratings, dims, order)
    pairwise, taste = hs.pairwise_analysis(ratings, dims, order, adjust=adjust, seed=seed)
    fried = hs.friedman(ratings, dims, order)
    agreement = hs.krippendorff_alpha(ratings, dims, scales=rubric.scales())
    position = hs.position_effect(ratings, dims)
    mm, vc = (
        hs.mixed_model(ratings, dims, methods=order)
        if mixed
        else (pd.DataFrame(columns=hs.MIXED_COLUMNS), pd.DataFrame(columns=hs.VC_COLUMNS))
    )
    items_fixed = bool(len(pairwise)) and (pairwise["scope"] == SCOPE_ITEMS).all()
    share = top_rater_share(ratings)
    lopsided = words.explain_lopsided(share, int(ratings["rater"].nunique()) if len(ratings) else 0, lang)
    counts, tests = ch.choice_counts(ratings, rubric, order), ch.choice_tests(ratings, rubric, order, seed)
    lines = (
        ([lopsided] if lopsided and not items_fixed else [])
        + [words.explain_pair(r, lang=lang) for r in pairwise.to_dict("records")]
        + ([words.explain_taste(taste, items_fixed, lang)] if len(pairwise) else [])
        + [words.explain_friedman(r, lang=lang) for r in fried.to_dict("records")]
        + [words.explain_mixed(r, lang=lang) for r in mm.to_dict("records")]
        + [words.explain_alpha(r, lang) for r in agreement.to_dict("records")]
        + [words.explain_position(r, lang) for r in position.to_dict("records")]
        + [ch.explain_choice(r, counts, lang) for r in tests.to_dict("records")]
    )
    return {
        "means": means,
        "pairwise": pairwise,
        "friedman": fried,
        "agreement": agreement,
        "position": position,
        "mixed": mm,
        "variance_components": vc,
        "lines": lines,
        "cant_judge": hs.cant_judge_counts(ratings, dims),
        "choice_counts": counts,
        "choice_tests": tests,
        "comments": ch.comments(ratings, rubric),
        "taste": taste,
        "methods": order,
        "adjust": adjust,
        "rubric": rubric,
        "top_rater_share": share,
        "items_fixed": items_fixed,
    }
