"""Intervals for Bradley-Terry ratings from cluster bootstraps over items and raters.

Votes on one item are not independent (an item can favour one system, or make every difference
plain), and neither are the votes of one rater (raters have their own taste); the claim is about
items and people in general, so both are samples. The default interval ("twoway") is the
two-way cluster variance of Cameron, Gelbach & Miller (2011), with each of its three parts from a
bootstrap of the same estimator as the data:

    V = V_items + V_raters - V_cells

where V_items is the variance of a quantity over resamples of the items (with replacement, within
each study when studies are pooled), V_raters over resamples of the raters, and V_cells over
resamples of the (item, rater) cells; each of the first two counts the cell-level noise once, the
third takes the double count away. The interval is estimate ± t(df) sqrt(V) with
df = min(items, raters) - 1: the rater part of V rests on as many raters as there are, and with
3 raters it is an uncertain number (the t quantile pays for that). Where V <= 0 (possible by
chance), max(V_items, V_raters) is used; with one rater V = V_items and df = items - 1.

The calibration by simulation (docs/pairwise.md, benchmarks/bench_pairwise_calibration.py) is
what chose this: percentiles of the item bootstrap cover 86-94% when raters differ in taste, the
pigeonhole bootstrap (items and raters resampled together) 96-99.6%, and this one 93-97% with
three or more raters. The other schemes stay here, for that comparison.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from .bt import ELO_PER_LOGIT, Fit, Problem, to_elo
from .votes import Battles

Unit = Literal["items", "raters", "cells", "votes", "items+raters"]
Scheme = Literal["twoway", "items", "items+raters", "votes"]
SCHEMES: tuple[str, ...] = ("twoway", "items", "items+raters", "votes")


def _multinomial(rng: np.random.Generator, n: int, b: int) -> np.ndarray:
    return rng.multinomial(n, np.full(n, 1 / n), size=b).astype(float)


def _strata(units: np.ndarray, study: np.ndarray) -> list[np.ndarray]:
    """The unit codes of each study (units are numbered across studies)."""
    n = int(units.max()) + 1
    return [np.unique(units[study == s]) for s in np.unique(study)] if n else []


def vote_weights(
    battles: Battles, n_resamples: int, rng: np.random.Generator, unit: Unit = "items", chunk: int = 250
) -> Iterator[np.ndarray]:
    """Chunks of resampling weights, each (b, votes): the count of the vote's item ("items"; drawn
    within each study), rater ("raters"), (item, rater) cell ("cells"; within each study), or the
    vote itself ("votes", as if votes were independent), or item count times rater count
    ("items+raters", the pigeonhole bootstrap)."""
    cells = battles.cell
    item_strata = _strata(battles.item, battles.study)
    cell_strata = _strata(cells, battles.study)
    for start in range(0, n_resamples, chunk):
        b = min(chunk, n_resamples - start)
        if unit == "votes":
            yield _multinomial(rng, len(battles.a), b)
            continue
        if unit == "raters":
            yield _multinomial(rng, battles.n_raters, b)[:, battles.rater]
            continue
        codes, strata = (cells, cell_strata) if unit == "cells" else (battles.item, item_strata)
        w = np.zeros((b, int(codes.max()) + 1))
        for members in strata:
            w[:, members] = _multinomial(rng, len(members), b)
        w = w[:, codes]
        if unit == "items+raters":
            w = w * _multinomial(rng, battles.n_raters, b)[:, battles.rater]
        yield w


@dataclass(frozen=True)
class Draws:
    """Resampled fits: `ratings` (B, K) Elo, NaN where the system was absent from the resample;
    `length_elo` (B,) the length coefficient in Elo per RMS relative length difference (NaN in the
    raw fit); `separated` (B,) the resamples where the MLE was not finite."""

    ratings: np.ndarray
    length_elo: np.ndarray
    separated: np.ndarray

    def quantities(self) -> np.ndarray:
        """(B, K + K*K + 1): the ratings, all differences rating_i - rating_j, the length coefficient."""
        r = self.ratings
        diff = (r[:, :, None] - r[:, None, :]).reshape(len(r), -1)
        return np.hstack([r, diff, self.length_elo[:, None]])


def bootstrap(
    battles: Battles,
    scale: Fit,
    length: bool = False,
    n_resamples: int = 1000,
    seed: int | np.random.Generator = 0,
    unit: Unit = "items",
) -> Draws:
    """Refit `n_resamples` resamples of the votes by `unit` (see `vote_weights`). Each resample is
    put on the data's scale: centred on the systems `scale` (the data's fit) centres on."""
    problem = Problem.of(battles, length)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    member = np.stack([(battles.a == k) | (battles.b == k) for k in range(problem.k)], 1).astype(float)
    theta0, gamma0, _ = problem.fit(np.ones((1, len(battles.a))))
    start = np.concatenate([theta0[0], gamma0[:1]]) if length else theta0[0]
    # The length-controlled fit has a row per vote: keep a chunk's (resamples x votes x params)
    # Hessian terms near 4 million numbers (32 MB), whatever the study's size.
    chunk = 250 if not length else int(np.clip(4_000_000 // (len(battles.a) * problem.X.shape[1]), 8, 250))
    ratings, gammas, seps = [], [], []
    for w in vote_weights(battles, n_resamples, rng, unit, chunk):
        theta, gamma, sep = problem.fit(w, start)
        ratings.append(np.where(w @ member > 0, to_elo(theta, scale.component, scale.finite), np.nan))
        gammas.append(gamma * ELO_PER_LOGIT)
        seps.append(sep)
    return Draws(np.concatenate(ratings), np.concatenate(gammas), np.concatenate(seps))


@dataclass(frozen=True)
class Intervals:
    """Per quantity: interval bounds and the two-sided p of "quantity = 0" (NaN where unknown)."""

    low: np.ndarray
    high: np.ndarray
    p: np.ndarray
    se: np.ndarray
    df: float


def _enough(draws: np.ndarray) -> np.ndarray:
    return np.isfinite(draws).sum(axis=0) >= 20


def percentile_intervals(estimate: np.ndarray, draws: np.ndarray, level: float = 0.95) -> Intervals:
    """Percentile intervals and bootstrap p (twice the smaller share of draws on either side of 0,
    +1 corrected); NaN where under 20 draws are finite."""
    ok = _enough(draws)
    safe = np.where(ok, draws, 0.0) if draws.size else draws
    alpha = (1 - level) / 2
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo = np.where(ok, np.nanquantile(safe, alpha, axis=0), np.nan)
        hi = np.where(ok, np.nanquantile(safe, 1 - alpha, axis=0), np.nan)
        finite = np.isfinite(draws)
        n = finite.sum(axis=0)
        below = ((draws <= 0) & finite).sum(axis=0)
        above = ((draws >= 0) & finite).sum(axis=0)
        p = np.where(ok, np.minimum(1.0, 2 * (np.minimum(below, above) + 1) / (n + 1)), np.nan)
        se = np.where(ok, np.nanstd(safe, axis=0, ddof=1), np.nan)
    return Intervals(lo, hi, p, se, np.inf)


def twoway_intervals(
    estimate: np.ndarray,
    items: np.ndarray,
    raters: np.ndarray | None,
    cells: np.ndarray | None,
    n_items: int,
    n_raters: int,
    n_cells: int,
    level: float = 0.95,
) -> Intervals:
    """estimate ± t(df) sqrt(V_items + V_raters - V_cells) from the three sets of draws (see the
    module docstring); `raters` and `cells` None (one rater): V_items with df = items - 1."""

    def var(draws: np.ndarray, n: int) -> np.ndarray:
        # A bootstrap over n clusters gives (n - 1) / n of the unbiased variance of a mean.
        return np.nanvar(draws, axis=0, ddof=1) * n / max(n - 1, 1)

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns (the raw fit's length term)
        v_items = var(items, n_items)
        ok = _enough(items)
        if raters is None or cells is None or n_raters < 2:
            v, df = v_items, max(n_items - 1, 1)
        else:
            v_raters = var(raters, n_raters)
            v = v_items + v_raters - var(cells, n_cells)
            v = np.where(v > 0, v, np.maximum(v_items, v_raters))
            ok &= _enough(raters) & _enough(cells)
            df = max(min(n_items, n_raters) - 1, 1)
        se = np.where(ok, np.sqrt(v), np.nan)
        half = stats.t.ppf(0.5 + level / 2, df) * se
        p = np.where(se > 0, 2 * stats.t.sf(np.abs(estimate) / se, df), np.where(estimate == 0, 1.0, 0.0))
    return Intervals(estimate - half, estimate + half, np.where(ok, p, np.nan), se, float(df))


def intervals(
    battles: Battles,
    estimate: np.ndarray,
    scale: Fit,
    length: bool,
    n_resamples: int,
    seed: int,
    scheme: Scheme,
    level: float,
) -> tuple[Intervals, Draws]:
    """Intervals of every quantity of `Draws.quantities` (ratings, differences, length coefficient)
    by `scheme`; also the item-bootstrap draws."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}")
    rng = np.random.default_rng(seed)
    unit: Unit = "items" if scheme == "twoway" else scheme
    first = bootstrap(battles, scale, length, n_resamples, rng, unit)
    if scheme != "twoway":
        return percentile_intervals(estimate, first.quantities(), level), first
    n_cells = battles.n_cells
    if battles.n_raters < 2:
        return twoway_intervals(estimate, first.quantities(), None, None, battles.n_items, 1, n_cells, level), first
    by_rater = bootstrap(battles, scale, length, n_resamples, rng, "raters").quantities()
    by_cell = bootstrap(battles, scale, length, n_resamples, rng, "cells").quantities()
    ivs = twoway_intervals(
        estimate, first.quantities(), by_rater, by_cell, battles.n_items, battles.n_raters, n_cells, level
    )
    return ivs, first
