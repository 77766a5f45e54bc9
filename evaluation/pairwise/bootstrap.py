"""Intervals for Bradley-Terry ratings from cluster bootstraps over items and raters.

Votes on one item are not independent (an item can favour one system, or make every difference
plain), and neither are the votes of one rater (raters have their own taste); the claim is about
items and people in general, so both are samples. The default interval ("twoway") is the
two-way cluster variance of Cameron, Gelbach & Miller (2011), with each of its three parts from a
bootstrap of the same estimator as the data:

    V = V_cells + max(V_items - V_cells, 0) + max(V_raters - V_cells, 0)

where V_items is the variance of a quantity over resamples of the items (with replacement, within
each study when studies are pooled), V_raters over resamples of the raters, and V_cells over
resamples of the (item, rater) cells. Each of the first two holds the cell-level noise once plus
its own part (items' or raters' spread); the formula is CGM's V_items + V_raters - V_cells with each
part kept at zero or more, because a variance component cannot be negative: with three raters who
happen to agree, the plain difference can fall near zero and give an absurdly narrow interval.
Each variance is multiplied by n / (n - 1) for its n clusters (a bootstrap over n clusters gives
(n - 1) / n of the unbiased variance of a mean). The interval is estimate ± t(df) sqrt(V), df by
Satterthwaite from the three parts with items - 1, raters - 1 and cells - 1 degrees of freedom
(between 1 and items - 1): where raters' tastes dominate V, df falls towards raters - 1, and
where they do not, few raters cost little. With one rater V = V_items and df = items - 1.

The calibration by simulation (docs/pairwise.md, benchmarks/bench_pairwise_calibration.py) is
what chose this: percentiles of the item bootstrap cover 86-91% when raters differ in taste (73%
with strong taste), the pigeonhole bootstrap (items and raters resampled together) 96-99.5%, and
this one 93.6-97.3% with two raters or more (98.0% in a 15 items x 3 raters study). The other
schemes stay here, for that comparison.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np

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
    """Per quantity: interval bounds, the two-sided p of "quantity = 0" (NaN where unknown), the
    standard error and the t degrees of freedom (inf for percentile intervals)."""

    low: np.ndarray
    high: np.ndarray
    p: np.ndarray
    se: np.ndarray
    df: np.ndarray


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
    return Intervals(lo, hi, p, se, np.full(lo.shape, np.inf))


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
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    def var(draws: np.ndarray, n: int) -> np.ndarray:
        # A bootstrap over n clusters gives (n - 1) / n of the unbiased variance of a mean.
        return np.nanvar(draws, axis=0, ddof=1) * n / max(n - 1, 1)

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns (the raw fit's length term)
        v_items = var(items, n_items)
        ok = _enough(items)
        if raters is None or cells is None or n_raters < 2:
            v, df = v_items, np.full(v_items.shape, float(max(n_items - 1, 1)))
        else:
            v_cells = var(cells, n_cells)
            item_part = np.maximum(v_items - v_cells, 0.0)  # variance components are never negative
            rater_part = np.maximum(var(raters, n_raters) - v_cells, 0.0)
            v = v_cells + item_part + rater_part
            ok &= _enough(raters) & _enough(cells)
            # Satterthwaite: each part carries its clusters' degrees of freedom.
            spread = item_part**2 / max(n_items - 1, 1) + rater_part**2 / max(n_raters - 1, 1)
            spread = spread + v_cells**2 / max(n_cells - 1, 1)
            sat = np.divide(v**2, spread, out=np.full(v.shape, float(n_items - 1)), where=spread > 0)
            df = np.clip(np.nan_to_num(sat, nan=n_items - 1), 1, max(n_items - 1, 1))
        se = np.where(ok, np.sqrt(v), np.nan)
        half = stats.t.ppf(0.5 + level / 2, df) * se
        p = np.where(se > 0, 2 * stats.t.sf(np.abs(estimate) / se, df), np.where(estimate == 0, 1.0, 0.0))
    return Intervals(estimate - half, estimate + half, np.where(ok, p, np.nan), se, df)


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
