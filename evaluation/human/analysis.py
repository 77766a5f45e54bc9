"""The primary analysis of one study's ratings, fixed in advance: every frame of
`evaluation.human.stats` and one line per result (`evaluation.human.words`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import pandas as pd

from . import stats as hs
from . import words


def analyse(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] = hs.DIMENSIONS,
    mixed: bool = True,
    seed: int = 0,
    methods: Sequence[str] | None = None,
    adjust: Literal["max-T", "holm"] = "max-T",
) -> dict[str, Any]:
    """Frames and lines for one study. `methods`: the study's method order (pairs are a - b in it,
    whatever the row order); repeated ratings are collapsed first (with a warning), so every
    statistic sees the same ratings."""
    ratings = hs.collapse_duplicates(ratings)
    order = hs.method_order(ratings, methods)
    means = hs.method_means(ratings, dimensions, order)
    pairwise, taste = hs.pairwise_analysis(ratings, dimensions, order, adjust=adjust, seed=seed)
    fried = hs.friedman(ratings, dimensions, order)
    agreement = hs.krippendorff_alpha(ratings, dimensions)
    position = hs.position_effect(ratings, dimensions)
    mm, vc = (
        hs.mixed_model(ratings, dimensions, methods=order)
        if mixed
        else (pd.DataFrame(columns=hs.MIXED_COLUMNS), pd.DataFrame(columns=hs.VC_COLUMNS))
    )
    lines = (
        [words.explain_pair(r) for r in pairwise.to_dict("records")]
        + ([words.explain_taste(taste)] if len(pairwise) else [])
        + [words.explain_friedman(r) for r in fried.to_dict("records")]
        + [words.explain_mixed(r) for r in mm.to_dict("records")]
        + [words.explain_alpha(r) for r in agreement.to_dict("records")]
        + [words.explain_position(r) for r in position.to_dict("records")]
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
        "cant_judge": hs.cant_judge_counts(ratings, dimensions),
        "taste": taste,
        "methods": order,
        "adjust": adjust,
    }
