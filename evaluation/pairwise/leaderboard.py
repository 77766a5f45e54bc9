"""One leaderboard of systems across studies of the same model set.

Pairwise studies give their votes; 1-5 studies give the comparisons their scores imply
(`implied.implied_votes`). All of them go into one Bradley-Terry fit (`rate.rate`): items are
resampled within their own study, raters across studies (one name, one person), and (item, rater)
cells within studies, so a study with many comparisons per item does not count as more evidence
than it holds. Each row says which studies it rests on and how many comparisons each gave.

A leaderboard is for one model: the same decoding method on two models is two systems, and mixing
them would rank models, not decoders. Studies whose `model` differs are refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .implied import implied_votes
from .rate import StudyRatings, rate
from .votes import LENGTH_COLUMNS, VOTE_COLUMNS, check_votes


@dataclass
class Leaderboard:
    """`table`: one row per system (`rate`'s columns, then `studies`: the study ids it appears in,
    and `comparisons_by_study`: {study id: comparisons}); `ratings`: the full `StudyRatings`;
    `sources`: one row per study (study_id, kind "pairwise" or "1-5", comparisons, items, raters)."""

    table: pd.DataFrame
    ratings: StudyRatings
    sources: pd.DataFrame


def _models(frame: pd.DataFrame | None) -> set[str]:
    if frame is None or frame.empty or "model" not in frame.columns:
        return set()
    return {str(m) for m in frame["model"].dropna().unique() if str(m).strip()}


def leaderboard(
    votes: pd.DataFrame | None = None,
    ratings: pd.DataFrame | None = None,
    *,
    dimensions: Sequence[str] | None = None,
    **rate_options: Any,
) -> Leaderboard:
    """The leaderboard of pairwise `votes` (VOTE_COLUMNS, any number of studies) and 1-5 `ratings`
    (the `evaluation.human` frame, any number of studies) together; `dimensions` of the 1-5 scores
    (default all three) make the implied comparisons. `rate_options` go to `rate`
    (level, n_resamples, seed, min_votes, min_items); length control runs when every comparison
    has lengths. Raises ValueError without any comparison, when a study id is both kinds, or when
    the studies are of more than one model."""
    models = _models(votes) | _models(ratings)
    if len(models) > 1:
        raise ValueError(f"one leaderboard per model: these studies use {', '.join(sorted(models))}")
    parts: list[pd.DataFrame] = []
    kinds: dict[str, str] = {}
    if votes is not None and not votes.empty:
        checked = check_votes(votes)
        parts.append(checked)
        kinds |= {s: "pairwise" for s in checked["study_id"].unique()}
    if ratings is not None and not ratings.empty:
        implied = implied_votes(ratings, dimensions)
        if not implied.empty:
            implied = check_votes(implied, "implied comparisons")
            both = sorted(set(implied["study_id"]) & set(kinds))
            if both:
                raise ValueError(f"study id(s) {', '.join(both)} are given both as pairwise votes and as 1-5 ratings")
            parts.append(implied)
            kinds |= {s: "1-5" for s in implied["study_id"].unique()}
    if not parts:
        raise ValueError("no comparisons: give pairwise votes or 1-5 ratings with two or more methods per item")
    with_length = all(all(c in p.columns for c in LENGTH_COLUMNS) for p in parts)
    keep = list(VOTE_COLUMNS) + (list(LENGTH_COLUMNS) if with_length else [])
    pooled = pd.concat([p[keep] for p in parts], ignore_index=True)
    result = rate(pooled, **rate_options)
    by_study = {
        system: {
            str(s): int(n)
            for s, n in pooled[(pooled["system_a"] == system) | (pooled["system_b"] == system)]
            .groupby("study_id", sort=True)
            .size()
            .items()
        }
        for system in result.systems["system"]
    }
    table = result.systems.assign(
        studies=[sorted(by_study[s]) for s in result.systems["system"]],
        comparisons_by_study=[by_study[s] for s in result.systems["system"]],
    )
    sources = pd.DataFrame(
        [
            {
                "study_id": str(s),
                "kind": kinds[s],
                "comparisons": int(len(g)),
                "items": int(g["item_id"].nunique()),
                "raters": int(g["rater"].nunique()),
            }
            for s, g in pooled.groupby("study_id", sort=True)
        ],
        columns=["study_id", "kind", "comparisons", "items", "raters"],
    )
    return Leaderboard(table=table, ratings=result, sources=sources)
