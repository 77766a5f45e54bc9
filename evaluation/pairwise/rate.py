"""Ratings of one study (or of pooled studies) from pairwise votes: Bradley-Terry on the Elo scale,
cluster-bootstrap intervals, the provisional mark, ranks where the intervals separate, and, when
the votes carry lengths, the length-controlled ratings beside the raw ones.

The provisional rule: a system is provisional when it has fewer than MIN_VOTES votes (its
interval is then 290-450 Elo points wide in the calibration) or was compared on fewer than
MIN_ITEMS items (under 5 items its interval covered 92%, not 95%: too few clusters; 10 keeps a
margin; docs/pairwise.md), when its rating has no finite estimate (it won or lost every
comparison, or its group did), or when it was never compared, even indirectly, with the largest
connected set of systems. Provisional systems keep their rating and interval but get no
rank and take no part in the ranking of the others.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from common import messages

from .bootstrap import Draws, Scheme, intervals
from .bt import Fit, fit_bt, win_probability
from .ranks import rank_ranges
from .votes import Battles, check_votes

MIN_VOTES = 30
MIN_ITEMS = 10
N_RESAMPLES = 1000
LC = "_length_controlled"  # suffix of the length-controlled columns

SYSTEM_COLUMNS = [
    "system",
    "rating",
    "ci_low",
    "ci_high",
    "votes",
    "items",
    "raters",
    "wins",
    "losses",
    "ties",
    "provisional",
    "why_provisional",
    "separated",
    "component",
    "rank_best",
    "rank_worst",
    "rank",
]
DIFF_COLUMNS = ["system_a", "system_b", "diff", "ci_low", "ci_high", "p", "ordered"]


@dataclass
class StudyRatings:
    """What `rate` returns.

    Args:
        systems: one row per system, best rating first (SYSTEM_COLUMNS, and with lengths
            rating_length_controlled, ci_low_length_controlled, ci_high_length_controlled).
        differences: one row per pair, higher rating first: diff = rating_a - rating_b with its
            interval and the p of "no difference" (unadjusted), and `ordered` when the ranking places
            a above b: their rating intervals do not overlap (with lengths also the length-controlled
            diff and its interval).
        length_effect: None, or the length coefficient (see `length_summary`).
        warnings: things the reader must know (no finite ratings, disconnected systems).
        n_votes, n_items, n_raters, tie_share: what the ratings rest on.
        level, n_resamples, scheme, seed: how the intervals were made; interval_df the smallest t
            degrees of freedom among the ratings' intervals (inf for percentile intervals).
    """

    systems: pd.DataFrame
    differences: pd.DataFrame
    length_effect: dict[str, Any] | None
    warnings: list[str]
    n_votes: int
    n_items: int
    n_raters: int
    tie_share: float
    level: float
    n_resamples: int
    scheme: str
    interval_df: float
    seed: int
    draws: Draws | None = field(default=None, repr=False)

    def rating(self, system: str, length_controlled: bool = False) -> float:
        row = self.systems.set_index("system").loc[system]
        return float(row["rating" + (LC if length_controlled else "")])


def rate(
    votes: pd.DataFrame | Battles,
    *,
    length: bool | None = None,
    level: float = 0.95,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    scheme: Scheme = "twoway",
    min_votes: int = MIN_VOTES,
    min_items: int = MIN_ITEMS,
) -> StudyRatings:
    """Ratings of the votes (a frame with `votes.VOTE_COLUMNS`, or `Battles`); see the module docstring.

    `length`: fit the length-controlled model too (default: when the votes carry lengths).
    `scheme`: "twoway" (see `bootstrap`); "items", "items+raters" and "votes" are percentile
    intervals of one bootstrap, for the calibration's comparison."""
    battles = votes if isinstance(votes, Battles) else Battles.from_votes(check_votes(votes))
    if length is None:
        length = battles.length_diff is not None
    names = battles.systems
    k = len(names)
    fit = fit_bt(battles)
    ivs, draws = intervals(battles, _estimates(fit), fit, False, n_resamples, seed, scheme, level)
    counts = battles.per_system()
    flags, scc = list(fit.why_not_finite), fit.scc
    # An interval of no width is no interval: the resamples never moved the rating (every vote a tie,
    # say), so the votes say nothing of how far it could be off. It is left out, and a warning says why.
    flat = ~(np.asarray(ivs.high[:k]) - np.asarray(ivs.low[:k]) > 1e-9)
    no_interval = ~fit.finite | flat
    table = counts.assign(
        rating=fit.ratings,
        ci_low=np.where(no_interval, math.nan, ivs.low[:k]),
        ci_high=np.where(no_interval, math.nan, ivs.high[:k]),
        separated=flags,
        component=fit.component,
    )
    why = _provisional(counts, flags, fit.component, min_votes, min_items)
    table["why_provisional"] = why
    table["provisional"] = [bool(w) for w in why]

    differences = _differences(names, fit, ivs, table)
    _rank(table, names, differences)

    warnings = _warnings(names, fit, flags) + _flat_warnings(names, fit, flat, battles.score)
    if battles.n_raters == 1:
        warnings.append(messages.english("pw_warn_one_rater"))

    length_effect = None
    if length:
        table, differences, length_effect = _length_controlled(
            battles,
            table,
            differences,
            fit,
            level,
            n_resamples,
            seed,
            scheme,
            no_interval,
            scc,
        )
    table = table.sort_values(["component", "rating"], ascending=[True, False], kind="stable").reset_index(drop=True)
    return StudyRatings(
        systems=table[[c for c in SYSTEM_COLUMNS if c in table] + [c for c in table if c.endswith(LC)]],
        differences=differences,
        length_effect=length_effect,
        warnings=warnings,
        n_votes=int(len(battles.a)),
        n_items=battles.n_items,
        n_raters=battles.n_raters,
        tie_share=float(np.mean(battles.score == 0.5)) if len(battles.score) else math.nan,
        level=level,
        n_resamples=n_resamples,
        scheme=scheme,
        interval_df=float(np.min(ivs.df[:k])) if k else math.nan,
        seed=seed,
        draws=draws,
    )


def _provisional(counts: pd.DataFrame, flags: list[str], component: np.ndarray, min_votes: int,
                 min_items: int) -> list[str]:  # fmt: skip
    """Per system, why its rating is provisional ("" when it is not)."""
    why = []
    for s in range(len(counts)):
        reasons = []
        if counts["votes"].iloc[s] < min_votes:
            reasons.append(messages.text("pw_fewer_votes", n=counts["votes"].iloc[s], least=min_votes))
        if counts["items"].iloc[s] < min_items:
            reasons.append(messages.text("pw_fewer_items", n=counts["items"].iloc[s], least=min_items))
        if flags[s]:
            reasons.append(flags[s])
        if component[s] != 0:
            reasons.append(messages.english("pw_never_compared_main"))
        why.append("; ".join(reasons))
    return why


def _differences(names: Sequence[str], fit: Fit, ivs: Any, table: pd.DataFrame) -> pd.DataFrame:
    """Pairwise differences, higher rating first. A pair is ordered where the two systems' intervals do
    not overlap (see ranks.py), both can be ranked, and they are on one scale."""
    k, scc = len(names), fit.scc
    pairs = [(i, j) if fit.ratings[i] >= fit.ratings[j] else (j, i) for i, j in itertools.combinations(range(k), 2)]
    pairs.sort(key=lambda ij: (-fit.ratings[ij[0]], -fit.ratings[ij[1]]))
    rankable = ~table["provisional"].to_numpy()
    low, high = table["ci_low"].to_numpy(float), table["ci_high"].to_numpy(float)
    rows = []
    for i, j in pairs:
        same = fit.component[i] == fit.component[j]
        at = k + i * k + j
        # a difference whose resamples never moved has no interval (see `flat` in `rate`)
        finite_gap = same and scc[i] == scc[j] and float(ivs.high[at]) - float(ivs.low[at]) > 1e-9
        rows.append(
            {
                "system_a": names[i],
                "system_b": names[j],
                "diff": float(fit.ratings[i] - fit.ratings[j]) if same else math.nan,
                "ci_low": float(ivs.low[at]) if finite_gap else math.nan,
                "ci_high": float(ivs.high[at]) if finite_gap else math.nan,
                "p": float(ivs.p[at]) if same else math.nan,
                "ordered": bool(rankable[i] and rankable[j] and same and low[i] > high[j]),
            }
        )
    return pd.DataFrame(rows, columns=DIFF_COLUMNS)


def _rank(table: pd.DataFrame, names: Sequence[str], differences: pd.DataFrame) -> None:
    """The table's rank columns: the range of ranks each rankable system can take, and its rank when one."""
    ranked = [names[s] for s in range(len(names)) if not table["provisional"].iloc[s]]
    ordered = differences[differences["ordered"]]
    ranges = rank_ranges(ranked, [(str(a), str(b)) for a, b in zip(ordered["system_a"], ordered["system_b"])])
    table["rank_best"] = pd.array([ranges[s][0] if s in ranges else None for s in names], dtype="Int64")
    table["rank_worst"] = pd.array([ranges[s][1] if s in ranges else None for s in names], dtype="Int64")
    single = [ranges[s][0] if s in ranges and ranges[s][0] == ranges[s][1] else None for s in names]
    table["rank"] = pd.array(single, dtype="Int64")


def _warnings(names: Sequence[str], fit: Fit, flags: list[str]) -> list[str]:
    k = len(names)
    warnings = []
    if fit.separated:
        which = (messages.text("pw_separated_system", system=names[s], why=flags[s]) for s in range(k) if flags[s])
        warnings.append(messages.text("pw_warn_separated", systems=", ".join(which)))
    if fit.component.max() > 0:
        groups = [
            ", ".join(names[s] for s in range(k) if fit.component[s] == c) for c in range(fit.component.max() + 1)
        ]
        warnings.append(messages.text("pw_warn_components", groups=" | ".join(groups)))
    return warnings


def _flat_warnings(names: Sequence[str], fit: Fit, flat: np.ndarray, score: np.ndarray) -> list[str]:
    """Why a finite rating has no interval: its resamples never moved it."""
    if not np.any(flat & fit.finite):
        return []
    if len(score) and bool(np.all(score == 0.5)):
        return [messages.english("pw_warn_all_ties")]
    who = ", ".join(names[s] for s in range(len(names)) if flat[s] and fit.finite[s])
    return [messages.text("pw_warn_no_interval", who=who)]


def _estimates(fit: Fit) -> np.ndarray:
    """The point estimates in the layout of `Draws.quantities`."""
    r = fit.ratings
    return np.concatenate([r, (r[:, None] - r[None, :]).ravel(), [fit.length_elo]])


def _length_controlled(
    battles: Battles,
    table: pd.DataFrame,
    differences: pd.DataFrame,
    raw: Fit,
    level: float,
    n_resamples: int,
    seed: int,
    scheme: Scheme,
    no_interval: np.ndarray,
    scc: np.ndarray,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    fit = fit_bt(battles, length=True)
    ivs, _ = intervals(battles, _estimates(fit), raw, True, n_resamples, seed, scheme, level)
    k = len(battles.systems)
    table = table.assign(
        **{
            "rating" + LC: fit.ratings,
            "ci_low" + LC: np.where(no_interval, math.nan, ivs.low[:k]),
            "ci_high" + LC: np.where(no_interval, math.nan, ivs.high[:k]),
        }
    )
    index = {s: n for n, s in enumerate(battles.systems)}
    i = differences["system_a"].map(index).to_numpy(int)
    j = differences["system_b"].map(index).to_numpy(int)
    same = raw.component[i] == raw.component[j]
    finite_gap = same & (scc[i] == scc[j])
    differences = differences.assign(
        **{
            "diff" + LC: np.where(same, fit.ratings[i] - fit.ratings[j], math.nan),
            "ci_low" + LC: np.where(finite_gap, ivs.low[k + i * k + j], math.nan),
            "ci_high" + LC: np.where(finite_gap, ivs.high[k + i * k + j], math.nan),
        }
    )
    summary = length_summary(fit.length_elo, float(ivs.low[-1]), float(ivs.high[-1]), fit.length_scale)
    return table, differences, summary


def length_summary(elo_per_rms: float, low: float, high: float, rms: float) -> dict[str, Any]:
    """The length coefficient in three readings: Elo points per root-mean-square relative length
    difference (the fitted unit), Elo points for an answer twice as long as its rival (relative
    difference 1/3), and the win probability that gives between two equally rated systems."""
    per_double = (1 / 3) / rms if rms > 0 else math.nan
    twice = elo_per_rms * per_double
    return {
        "elo_per_rms_difference": elo_per_rms,
        "ci_low": low,
        "ci_high": high,
        "rms_relative_difference": rms,
        "elo_if_twice_as_long": twice,
        "ci_low_if_twice_as_long": low * per_double,
        "ci_high_if_twice_as_long": high * per_double,
        "win_probability_if_twice_as_long": win_probability(twice, 0.0) if math.isfinite(twice) else math.nan,
    }
