"""Means and differences over a crossed items x raters table, with intervals that hold for items
and raters in general: the estimators of the human-rating analysis (`evaluation.human.stats`).

Every estimate is the mean over items of item means of cell values (a cell: one rater's score, or
difference of scores, on one item). Its variance is w'Vw, V from variance components of item,
rater and residual, and its t has Satterthwaite degrees of freedom (`evaluation.human.reml`).

* `crossed_mean` (a method's mean score): REML components, each >= 0; one estimated at 0 is
  dropped from the model, so it adds no degrees of freedom it does not have.
* `differences` (the method pairs of a study, all dimensions at once): per pair, the difference a - b
  in each (item, rater) cell. The rater component of a difference is a rater's taste for a over b,
  shared by all their items. With 3 raters one pair on one dimension has 2 degrees of freedom for
  it, and a t with an estimated df that small is far too liberal in the tails whenever the estimate
  happens to come out low. So the taste variance is pooled: the unbiased (unconstrained) estimates
  of every pair and dimension are averaged (under the model's assumption that a rater's taste varies
  about as much for every method and dimension; pairs of M methods carry M - 1 independent pieces of
  it per dimension), and it enters when its one-sided test reaches TASTE_TEST_LEVEL ("sometimes
  pool", Bozivich, Bancroft & Hartley 1956). The item and residual components stay the pair's own,
  so methods that differ only in how much they vary get their own intervals.
* With fewer than MIN_RANDOM_RATERS raters the rater component cannot be estimated: raters are fixed
  effects and the result holds for these raters only (scope SCOPE_THESE).

On a complete table (every rater scored every item) all of this has a closed form, the balanced
ANOVA one, which the code uses; a test checks it gives the REML numbers.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special

from . import reml

MIN_RANDOM_RATERS = 3  # below this, raters are fixed and results hold for these raters only
MIN_RANDOM_ITEMS = 3  # below this (one or two prompts), items are fixed: results hold for these prompts only
SCOPE_ALL = "items and raters"
SCOPE_THESE = "these raters only"
SCOPE_ITEMS = "these prompts only"
TASTE_TEST_LEVEL = 0.25  # the pooled taste enters when its one-sided test gives p < this ("sometimes pool")
# Where one rater carries more than half of an estimate (a study in which one rater gave most of the
# ratings), that rater's taste is most of the estimate's error, and the study barely measures it: the
# other raters' few ratings see it through a handful of items (one rater with 80% of 20 items: the taste
# estimate's SD over studies is as large as the taste could be). Leaving it out made the headline liberal
# (0.07-0.10); allowing for it through the pooled component made it conservative (0.005), because that
# estimate is biased up at the boundary. There the estimate is the mean over raters of each rater's own
# mean (`by_rater`): every rater counts once, and the spread of those rater means carries the taste
# whatever its size (docs/statistics.md, "One rater who gave most of the ratings").
LOPSIDED_SHARE = 0.5


@dataclass(frozen=True)
class Estimate:
    """A mean over items of item means, with its interval and t test against 0.

    status: "ok"; "not testable" (one item: variation between items cannot be seen); "not
    estimable" (every value the same: no variance to build an interval from); "no data"."""

    estimate: float
    se: float
    df: float
    ci_low: float
    ci_high: float
    statistic: float
    p_value: float
    status: str
    scope: str
    n_items: int
    n_raters: int
    n_cells: int
    components: Mapping[str, float] = field(default_factory=dict)


def _mean_of_means_weights(groups: np.ndarray) -> np.ndarray:
    """Each cell's weight in the mean over groups of group means: 1 / (groups x the group's cells)."""
    _, inverse, counts = np.unique(np.asarray(groups), return_inverse=True, return_counts=True)
    return 1.0 / (len(counts) * counts[inverse])


def item_weights(items: np.ndarray) -> np.ndarray:
    """Weights of the mean over items of item means."""
    return _mean_of_means_weights(items)


def rater_weights(raters: np.ndarray) -> np.ndarray:
    """Weights of the mean over raters of rater means (`by_rater`)."""
    return _mean_of_means_weights(raters)


def _finish(
    est: float, var: float, df: float, level: float, base: dict[str, Any], components: Mapping[str, float]
) -> Estimate:
    nan = math.nan
    if not (np.isfinite(var) and var > 0 and df > 0):
        return Estimate(est, nan, nan, nan, nan, nan, nan, "not estimable", components=components, **base)
    se = math.sqrt(var)
    # scipy.special's t functions: the same numbers as stats.t's, without its per-call overhead (0.3 ms)
    q = float(special.stdtrit(df, 0.5 + level / 2))
    t = est / se
    p = float(2 * special.stdtr(df, -abs(t)))
    return Estimate(est, se, df, est - q * se, est + q * se, t, p, "ok", components=components, **base)


def scope_of(n_items: int, n_raters: int) -> str:
    """Which sample an estimate generalises over: items and raters (SCOPE_ALL); items only, with 1-2
    raters fixed (SCOPE_THESE); raters only, with 1-2 items fixed (SCOPE_ITEMS: a survey of one
    prompt). With 1-2 raters the items are the sample as long as there are two of them."""
    if n_raters >= MIN_RANDOM_RATERS:
        return SCOPE_ALL if n_items >= MIN_RANDOM_ITEMS else SCOPE_ITEMS
    return SCOPE_THESE


def _degenerate(
    y: np.ndarray, items: np.ndarray, raters: np.ndarray, scope: str
) -> tuple[dict[str, Any], Estimate | None]:
    nan = math.nan
    n_items, n_raters = len(np.unique(items)), len(np.unique(raters))
    base: dict[str, Any] = dict(scope=scope, n_items=n_items, n_raters=n_raters, n_cells=len(y))
    if len(y) == 0:
        return base, Estimate(nan, nan, nan, nan, nan, nan, nan, "no data", **base)
    est = float(item_weights(items) @ y)
    if (n_items < 2 and scope != SCOPE_ITEMS) or (scope == SCOPE_ITEMS and len(y) < 2):
        return base, Estimate(est, nan, nan, nan, nan, nan, nan, "not testable", **base)
    if np.ptp(y) == 0:
        return base, Estimate(est, 0.0, nan, nan, nan, nan, nan, "not estimable", **base)
    return base, None


def complete_table(y: np.ndarray, items: np.ndarray, raters: np.ndarray) -> np.ndarray | None:
    """The items x raters table when every item has one value from every rater, else None."""
    iu, ii = np.unique(items, return_inverse=True)
    ru, rr = np.unique(raters, return_inverse=True)
    if len(y) != len(iu) * len(ru):
        return None
    table = np.full((len(iu), len(ru)), np.nan)
    table[ii, rr] = y
    return None if np.isnan(table).any() else table


def mean_squares(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(items, raters, residual) mean squares of complete tables (..., items, raters)."""
    t = np.asarray(tables, dtype=float)
    I, R = t.shape[-2], t.shape[-1]
    grand = t.mean(axis=(-2, -1), keepdims=True)
    row = t.mean(axis=-1, keepdims=True)
    col = t.mean(axis=-2, keepdims=True)
    ms_i = R * np.sum((row - grand) ** 2, axis=(-2, -1)) / (I - 1)
    ms_r = I * np.sum((col - grand) ** 2, axis=(-2, -1)) / max(R - 1, 1)
    ms_e = np.sum((t - row - col + grand) ** 2, axis=(-2, -1)) / max((I - 1) * (R - 1), 1)
    return ms_i, ms_r, ms_e


# ---- a method's mean -------------------------------------------------------------------------------


def crossed_mean(
    values: np.ndarray,
    items: np.ndarray,
    raters: np.ndarray,
    level: float = 0.95,
    conditional: bool | None = None,
    df_at: Mapping[str, float] | None = None,
) -> Estimate:
    """The mean over items of item means of `values` (one per cell), with a `level` t interval:
    REML components of item, rater and residual (each >= 0), Satterthwaite df. The scope follows the
    design (`scope_of`): with fewer than MIN_RANDOM_RATERS raters (or `conditional`) raters are fixed
    effects, the variance is over items only and the result holds for these raters (SCOPE_THESE);
    with fewer than MIN_RANDOM_ITEMS items (and raters enough) items are fixed, the variance is over
    raters only and the result holds for these prompts (SCOPE_ITEMS). `df_at`: components (pooled
    over several means, see `method_intervals`) at which to evaluate the df."""
    y, items, raters = np.asarray(values, dtype=float), np.asarray(items), np.asarray(raters)
    scope = scope_of(len(np.unique(items)), len(np.unique(raters)))
    if conditional is not None:
        scope = SCOPE_THESE if conditional else SCOPE_ALL
    est, source = _mean_with_source(y, items, raters, level, scope)
    return est if df_at is None else _df_at(est, source, df_at, level)


def _mean_with_source(
    y: np.ndarray, items: np.ndarray, raters: np.ndarray, level: float, scope: str
) -> tuple[Estimate, np.ndarray | tuple[reml.Fit, np.ndarray] | None]:
    """`crossed_mean` and what it came from (the complete table, or the REML fit and the weights;
    None unless both items and raters are samples), so that the df can be re-evaluated without a refit."""
    base, done = _degenerate(y, items, raters, scope)
    if done is not None:
        return done, None
    if scope == SCOPE_ALL and lopsided(items, raters):
        return by_rater(y, items, raters, level), None
    est = float(item_weights(items) @ y)
    table = complete_table(y, items, raters)
    if table is not None:
        if scope == SCOPE_ITEMS:
            b_var, b_df, b_comps = balanced_items_fixed(table)
        else:
            b_var, b_df, b_comps = balanced_mean_variance(table, scope == SCOPE_THESE)
        comps = {k: float(v) for k, v in b_comps.items()}
        return _finish(est, float(b_var), float(b_df), level, base, comps), table if scope == SCOPE_ALL else None
    w = item_weights(items)
    if scope == SCOPE_THESE:
        X = reml.indicators(raters)  # one fixed effect per rater: the target is the mean over these raters
        var, df, fit = free_variance(y, X, {"item": items}, w, "item")
    elif scope == SCOPE_ITEMS:
        X = reml.indicators(items)  # one fixed effect per item: the target is the mean over these prompts
        var, df, fit = free_variance(y, X, {"rater": raters}, w, "rater")
    else:
        fit = reml.fit_reml(y, np.ones((len(y), 1)), {"item": items, "rater": raters})
        var, df = reml.linear_variance(fit, w)
    return _finish(est, var, df, level, base, fit.components), (fit, w) if scope == SCOPE_ALL else None


def _df_at(
    est: Estimate,
    source: np.ndarray | tuple[reml.Fit, np.ndarray] | None,
    components: Mapping[str, float],
    level: float,
) -> Estimate:
    """`est` with its df evaluated at `components` (`balanced_df_at`, `reml.df_at`)."""
    if source is None or est.status != "ok":
        return est
    if isinstance(source, np.ndarray):
        n_items, n_raters = source.shape
        df = balanced_df_at(n_items, n_raters, components)
    else:
        df = reml.df_at(*source, components)
    base = dict(scope=est.scope, n_items=est.n_items, n_raters=est.n_raters, n_cells=est.n_cells)
    return _finish(est.estimate, est.se**2, df, level, base, est.components)


def balanced_df_at(I: int, R: int, components: Mapping[str, float]) -> float:
    """Satterthwaite df of the grand mean of a complete I x R table, evaluated at `components`
    (item, rater, residual; one at 0 leaves the model), as `reml.df_at` does by REML."""
    theta = np.array([components.get("item", 0.0), components.get("rater", 0.0), components["residual"]])
    B = np.array([[R, 0, 1], [0, I, 1], [0, 0, 1]], dtype=float)  # expected mean squares = B @ theta
    E = B @ theta
    dfs = np.array([I - 1.0, R - 1.0, (I - 1.0) * (R - 1.0)])
    info = B.T @ np.diag(dfs / (2 * E**2)) @ B
    grad = np.array([1 / I, 1 / R, 1 / (I * R)])
    keep = theta > 0
    keep[-1] = True
    var_f = float(grad[keep] @ np.linalg.pinv(info[np.ix_(keep, keep)]) @ grad[keep])
    f = float(grad @ theta)
    return 2 * f * f / var_f if var_f > 0 else math.inf


def method_intervals(
    cells: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]], level: float = 0.95
) -> tuple[list[Estimate], dict[str, float]]:
    """`crossed_mean` for every method x dimension of a study, the df evaluated at the components
    averaged over all of them. With 3 raters one method's own rater variance has 2 degrees of freedom;
    a df computed from it is large exactly when that estimate came out small, which makes narrow
    intervals too sure (coverage 0.93 with a rater taste); the pooled components give each interval
    the df its design has. Returns the estimates and the pooled components."""
    first = []
    for values, items, raters in cells:
        y, i, r = np.asarray(values, dtype=float), np.asarray(items), np.asarray(raters)
        first.append(_mean_with_source(y, i, r, level, scope_of(len(np.unique(i)), len(np.unique(r)))))
    random = [e for e, _ in first if e.scope == SCOPE_ALL and e.status == "ok" and "rater" in e.components]
    if not random:
        return [e for e, _ in first], {}
    pooled = {k: float(np.mean([e.components[k] for e in random])) for k in ("item", "rater", "residual")}
    out = [_df_at(e, source, pooled, level) for e, source in first]
    return out, pooled


def balanced_mean_variance(
    tables: np.ndarray, conditional: bool = False
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """(variance, df, components) of the grand mean of complete tables (..., items, raters).

    Raters fixed (`conditional`, or one rater): the items' mean square over I x R with items - 1 df,
    the item component free to go below 0 (its unbiased estimate: the t on item means, exact under
    the model; see `balanced_given_taste` for why it is not truncated at 0).

    Items and raters both samples: REML with components >= 0 is, on a balanced table, the ANOVA
    solution with the expected mean squares order-restricted (residual <= items, residual <= raters:
    a violator is pooled with the residual, the tree-order isotonic solution), and a component at 0
    leaves the model. The same numbers as `crossed_mean`'s REML path (a test checks)."""
    t = np.asarray(tables, dtype=float)
    I, R = t.shape[-2], t.shape[-1]
    ms_i, ms_r, ms_e = mean_squares(t)
    df_i, df_r, df_e = I - 1.0, R - 1.0, (I - 1.0) * (R - 1.0)
    if conditional or R < 2:
        # raters fixed: items and residual only (one rater: the residual is the item variation)
        if R < 2:
            return ms_i / (I * R), np.full_like(ms_i, df_i), {"item": np.zeros_like(ms_i), "residual": ms_i}
        return ms_i / (I * R), np.full_like(ms_i, df_i), {"item": (ms_i - ms_e) / R, "residual": ms_e}
    # tree order with the residual at the root: pool the smaller violator first, then the other
    first_is_i = ms_i <= ms_r
    small, big = np.where(first_is_i, ms_i, ms_r), np.where(first_is_i, ms_r, ms_i)
    df_small, df_big = np.where(first_is_i, df_i, df_r), np.where(first_is_i, df_r, df_i)
    pool1 = small < ms_e
    e1 = np.where(pool1, (df_small * small + df_e * ms_e) / (df_small + df_e), ms_e)
    pool2 = pool1 & (big < e1)
    e2 = np.where(pool2, (df_small * small + df_big * big + df_e * ms_e) / (df_small + df_big + df_e), e1)
    E_e = e2
    E_small = np.where(pool1, E_e, small)
    E_big = np.where(pool2, E_e, big)
    E_i, E_r = np.where(first_is_i, E_small, E_big), np.where(first_is_i, E_big, E_small)
    var = (E_i + E_r - E_e) / (I * R)
    # Satterthwaite with the dropped components out: what is left is (IR) var = the free mean squares
    free = 2 * (E_i**2 / df_i + E_r**2 / df_r + E_e**2 / df_e)
    one = 2 * np.where(first_is_i, E_r**2 / df_r, E_i**2 / df_i)  # the smaller one pooled: the other is left
    everything = 2 * E_e**2 / (df_i + df_r + df_e)
    terms = np.where(pool2, everything, np.where(pool1, one, free))
    df = 2 * (var * I * R) ** 2 / terms
    return var, df, {"item": (E_i - E_e) / R, "rater": (E_r - E_e) / I, "residual": E_e}


def balanced_items_fixed(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """(variance, df, components) of the grand mean of complete tables (..., items, raters) with the
    items fixed (one or two prompts) and the raters a sample: the mirror of raters fixed. The raters'
    mean square over I x R with raters - 1 df (the rater component free to go below 0); with one item,
    the one-sample t over raters."""
    t = np.asarray(tables, dtype=float)
    I, R = t.shape[-2], t.shape[-1]
    ms_r = _rater_ms(t) if I == 1 else mean_squares(t)[1]
    ms_e = mean_squares(t)[2] if I > 1 else np.zeros_like(ms_r)
    return ms_r / (I * R), np.full_like(ms_r, R - 1.0), {"rater": (ms_r - ms_e) / I, "residual": ms_e}


def _rater_ms(t: np.ndarray) -> np.ndarray:
    """The raters' mean square of one-item tables (..., 1, raters): I x the sample variance of the cells."""
    return np.var(t[..., 0, :], axis=-1, ddof=1)


# ---- differences: pairs of methods, taste pooled ------------------------------------------------


@dataclass
class PairFit:
    """One difference's unconstrained components (item, rater, residual) before the taste is pooled."""

    y: np.ndarray
    items: np.ndarray
    raters: np.ndarray
    theta: np.ndarray  # unconstrained (item, rater, residual)
    table: np.ndarray | None = None  # complete table: closed forms
    fit: reml.Fit | None = None  # otherwise the REML fit
    ms: tuple[float, float, float] = (math.nan, math.nan, math.nan)

    def cov_at(self, taste: float) -> np.ndarray:
        """Asymptotic covariance of (item, rater, residual) estimates with the rater component at `taste`."""
        u, _, e = self.theta
        if self.table is not None:
            I, R = self.table.shape
            E = np.array([e + R * u, e + I * taste, e])
            dfs = np.array([I - 1.0, R - 1.0, (I - 1.0) * (R - 1.0)])
            A = np.array([[1 / R, 0, -1 / R], [0, 1 / I, -1 / I], [0, 0, 1]])  # theta = A @ E
            return A @ np.diag(2 * E**2 / dfs) @ A.T
        assert self.fit is not None
        try:  # the information where the components are >= 0 (a negative unconstrained one may break V)
            return np.linalg.pinv(reml.information(self.fit, np.array([max(u, 0.0), max(taste, 0.0), e])))
        except np.linalg.LinAlgError:
            return np.linalg.pinv(self.fit.info)

    def gradient(self) -> np.ndarray:
        w = item_weights(self.items)
        if self.table is not None:
            I, R = self.table.shape
            return np.array([1 / I, 1 / R, 1 / (I * R)])
        assert self.fit is not None
        return reml.linear_gradient(self.fit, w)


def _residual_mle(terms: list[tuple[np.ndarray, float, np.ndarray]], start: np.ndarray) -> np.ndarray:
    """The REML residual variance e of balanced strata whose expected mean squares are e + shift:
    maximises -1/2 sum df (log(e + shift) + MS / (e + shift)) by Newton steps (vectorised)."""
    e = np.maximum(start, 1e-12)
    for _ in range(50):
        grad = sum(df * (ms - (e + c)) / (e + c) ** 2 for ms, df, c in terms)
        hess = sum(df * ((e + c) - 2 * ms) / (e + c) ** 3 for ms, df, c in terms)
        step = np.where(hess < 0, -grad / np.where(hess < 0, hess, -1.0), grad)
        e = np.maximum(e + step, e / 2)
        if np.all(np.abs(step) <= 1e-10 * (1 + e)):
            break
    return e


def balanced_given_taste(
    ms: np.ndarray, I: int, R: int, taste: float | np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """REML on a complete items x raters table of differences with the rater component held at
    `taste` and the item component free to go below 0: (variance of the mean without the taste part,
    its Var for Satterthwaite, item, residual). `ms`: (..., 3) mean squares of items, raters, residual.

    The variance of the mean is then the items' own mean square over I x R, with items - 1 degrees of
    freedom, whatever the item component comes out at: without the taste it is the paired t on the
    items' mean differences, exact under the model. Truncating the item component at 0 instead (REML
    with components >= 0) swapped that mean square for one pooled with the raters' and the residual's
    exactly when it had come out small, counted all their degrees of freedom (6 items x 3 raters: 17
    instead of 5), and gave p < 0.05 in 13-16% of null tests in that state (docs/statistics.md).
    The same numbers as the REML refit (a test checks)."""
    ms_i, ms_r, ms_e = ms[..., 0], ms[..., 1], ms[..., 2]
    df_i, df_r, df_e = I - 1.0, R - 1.0, (I - 1.0) * (R - 1.0)
    shift = I * np.asarray(taste, dtype=float)
    zero = np.zeros_like(ms_e)
    pooled = (df_r * ms_r + df_e * ms_e) / (df_r + df_e)
    e_in = _residual_mle([(ms_r, df_r, shift + zero), (ms_e, df_e, zero)], pooled)
    var = ms_i / (I * R)
    var_f = 2 * ms_i**2 / df_i / (I * R) ** 2
    return var, var_f, (ms_i - e_in) / R, e_in


def pair_fit(values: np.ndarray, items: np.ndarray, raters: np.ndarray) -> PairFit | None:
    """Unconstrained item, rater and residual components of one difference; None when the rater
    component cannot be separated (a rater with every cell, one rater, too few cells)."""
    y, items, raters = np.asarray(values, dtype=float), np.asarray(items), np.asarray(raters)
    table = complete_table(y, items, raters)
    if table is not None:
        I, R = table.shape
        ms_i, ms_r, ms_e = (float(x) for x in mean_squares(table))
        theta = np.array([(ms_i - ms_e) / R, (ms_r - ms_e) / I, ms_e])
        return PairFit(y, items, raters, theta, table=table, ms=(ms_i, ms_r, ms_e))
    fit = reml.fit_reml(y, np.ones((len(y), 1)), {"item": items, "rater": raters}, unconstrained=True)
    if fit.names != ("item", "rater", "residual"):
        return None
    return PairFit(y, items, raters, fit.theta.copy(), fit=fit)


@dataclass(frozen=True)
class Taste:
    """The pooled rater x method taste: per difference of two methods, its variance (2 x a rater's
    taste variance per method) and the test that decides whether it enters."""

    variance: float  # the pooled unconstrained estimate (may be < 0)
    se: float
    df: float
    p_value: float  # one-sided, H0: no taste
    used: bool  # p < TASTE_TEST_LEVEL
    n_pairs: int
    pieces: int  # independent pieces of information: sum over dimensions of (methods - 1)
    top_share: float = math.nan  # the largest share one rater has of a difference's estimate
    level: float = TASTE_TEST_LEVEL  # the level the test was held to

    @property
    def lopsided(self) -> bool:
        """One rater carries more than LOPSIDED_SHARE of some difference."""
        return bool(self.top_share > LOPSIDED_SHARE)

    @property
    def applied(self) -> float:
        return max(self.variance, 0.0) if self.used else 0.0


def pool_values(
    theta: np.ndarray,
    var_at: np.ndarray,
    var_null: np.ndarray,
    pieces: int | np.ndarray,
    level: float = TASTE_TEST_LEVEL,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(pooled variance, its SE, one-sided p, used) from the unconstrained rater components `theta`
    of the differences (last axis): `var_at` their sampling variances at the pooled value (the SE of
    what enters), `var_null` at no taste (the test's null distribution)."""
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    est = theta.mean(axis=-1)
    n = np.asarray(pieces, dtype=float)
    var, var0 = var_at.mean(axis=-1) / n, var_null.mean(axis=-1) / n
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.where(var > 0, np.sqrt(np.maximum(var, 0.0)), np.nan)
        p = stats.norm.sf(est / np.sqrt(var0))
    return est, se, p, p < level


def rater_share(items: np.ndarray, raters: np.ndarray) -> float:
    """The largest weight one rater has in a mean over items of item means (1/R on a complete table,
    near 1 when one rater gave almost every rating)."""
    if not len(raters):
        return math.nan
    _, codes = np.unique(np.asarray(raters), return_inverse=True)
    return float(np.bincount(codes, weights=item_weights(items)).max())


def lopsided(items: np.ndarray, raters: np.ndarray) -> bool:
    """Items and raters are both samples and one rater carries more than LOPSIDED_SHARE of the mean over
    items of item means: the estimate is then `by_rater`'s."""
    n_items, n_raters = len(np.unique(items)), len(np.unique(raters))
    return scope_of(n_items, n_raters) == SCOPE_ALL and rater_share(items, raters) > LOPSIDED_SHARE


def estimator_weights(items: np.ndarray, raters: np.ndarray) -> np.ndarray:
    """Each cell's weight in its estimate: per rater where one rater carries most of it (`lopsided`),
    else per item."""
    return rater_weights(raters) if lopsided(items, raters) else item_weights(items)


def by_rater(
    values: np.ndarray,
    items: np.ndarray,
    raters: np.ndarray,
    level: float = 0.95,
    item_variance: float | None = None,
) -> Estimate:
    """The mean over raters of each rater's mean over their cells, with an interval from the spread of
    those rater means: the estimator where one rater gave most of the ratings (`lopsided`).

    Every rater's mean has the same expectation, so their spread measures the error of their average,
    each rater's taste included, with no taste variance to estimate: that is what a study with one
    dominant rater cannot do (its estimate of the taste varies over studies as much as the taste could).
    Raters who rated the same items are not independent, though: an item's own effect is in each of
    their means, so the spread misses it, and the variance adds `item_variance` (the item component of
    the crossed model, REML, >= 0) times `shared_item_bias`, which makes it unbiased under the model
    (about a fifth of the variance with one rater on 20 items and 4-12 others on a few).

    The statistic t = mean / SE is not Student's t with raters - 1 df: one rater's mean is far more
    precise than the others', sits near the truth and bounds |t| (one exact rater of five: |t| <= 4),
    so t's tails are much thinner and a family of such tests held 0.009 instead of 0.05. Its p-value
    and interval come from `rater_mean_reference` instead: t's distribution in studies of this very
    layout simulated under the fitted model, the taste drawn from its estimate's uncertainty.
    `df` reports raters - 1, the spread's degrees of freedom.

    Args:
        values: one value per cell (a score, or a difference of two methods' scores).
        items, raters: each cell's item and rater codes.
        level: the interval's coverage.
        item_variance: the item component of `values`; fitted by REML when not given.

    Example:
        >>> e = by_rater(np.array([1.0, 1.0, 1.0, 3.0, 2.0]), np.array([0, 1, 2, 3, 4]), np.array([0, 0, 0, 1, 2]))
        >>> round(e.estimate, 3), e.df, round(e.se**2, 3)  # means 1, 3, 2: no item shared, var = 1 / 3
        (2.0, 2.0, 0.333)
    """
    y, items, raters = np.asarray(values, dtype=float), np.asarray(items), np.asarray(raters)
    base, done = _degenerate(y, items, raters, SCOPE_ALL)
    if done is not None:
        return done
    layout = RaterLayout.of(items, raters)
    means = np.bincount(layout.codes, weights=y) / layout.counts
    spread = float(means.var(ddof=1))
    fit = reml.fit_reml(y, np.ones((len(y), 1)), {"item": items, "rater": raters})
    comps = fit.components
    item = max(float(comps.get("item", 0.0) if item_variance is None else item_variance), 0.0)
    var = spread / len(means) + item * layout.bias
    est = float(means.mean())
    out = {"rater means": spread, "item": item}
    if not (np.isfinite(var) and var > 0):
        return _finish(est, var, len(means) - 1.0, level, base, out)
    taste, taste_se = comps.get("rater", 0.0), component_se(fit, "rater")
    abs_t = rater_mean_reference(layout, item, taste, taste_se, comps.get("residual", 0.0))
    se, t = math.sqrt(var), est / math.sqrt(var)
    q = float(np.quantile(abs_t, level))
    p = float((1 + np.count_nonzero(abs_t >= abs(t))) / (len(abs_t) + 1))
    out.update({"rater (taste)": float(taste), "rater SE": taste_se})
    return Estimate(est, se, len(means) - 1.0, est - q * se, est + q * se, t, p, "ok", components=out, **base)


@dataclass(frozen=True)
class RaterLayout:
    """Who rated what, as `by_rater` sees it: each cell's rater code, every rater's cell count, the
    raters x items matrix A of each item's weight in each rater's mean, and `shared_item_bias`."""

    codes: np.ndarray
    counts: np.ndarray
    A: np.ndarray

    @classmethod
    def of(cls, items: np.ndarray, raters: np.ndarray) -> RaterLayout:
        _, r = np.unique(np.asarray(raters), return_inverse=True)
        _, i = np.unique(np.asarray(items), return_inverse=True)
        n = np.bincount(r)
        A = np.zeros((len(n), int(i.max()) + 1))
        np.add.at(A, (r, i), 1.0 / n[r])
        return cls(r, n, A)

    @property
    def bias(self) -> float:
        R = len(self.counts)
        total, trace = float(np.sum(self.A.sum(axis=0) ** 2)), float(np.sum(self.A**2))
        return total / R**2 - (trace - total / R) / (R * (R - 1))


def shared_item_bias(items: np.ndarray, raters: np.ndarray) -> float:
    """What the spread of rater means misses per unit of item variance: the part of Var(mean of rater
    means) that items rated by several raters add, less what those shared items take out of the
    spread's expectation. With A the raters x items matrix of each item's weight in each rater's mean
    (1 / the rater's cells), M = A A', R raters: 1'M1 / R^2 - (tr M - 1'M1 / R) / (R (R - 1))."""
    return RaterLayout.of(items, raters).bias


def component_se(fit: reml.Fit, name: str) -> float:
    """The standard error of one variance component from the REML expected information (0 when the
    component is not in the fit)."""
    if name not in fit.names:
        return 0.0
    k = fit.names.index(name)
    cov = np.linalg.pinv(fit.info)
    return float(math.sqrt(max(cov[k, k], 0.0)))


REFERENCE_DRAWS = 20_000  # simulated studies per reference: p resolves to 5e-5, a family of 45 needs 1e-3
REFERENCE_SEED = 34  # fixed, so that the same ratings give the same p-values on every run


def rater_mean_reference(
    layout: RaterLayout,
    item: float,
    taste: float,
    taste_se: float,
    residual: float,
    draws: int = REFERENCE_DRAWS,
) -> np.ndarray:
    """|t| of `by_rater`'s statistic in `draws` null studies of `layout` (the same raters on the same
    items), simulated under the crossed model with the fitted components.

    A rater's mean is d_r = taste_r + (A u)_r + e_r: taste ~ N(0, taste), the items' effects u ~ N(0, item)
    shared through A, e_r ~ N(0, residual / cells_r). t = mean(d) / sqrt(var(d) / R + item x bias), as
    `by_rater` computes it. The taste is what a study with one dominant rater barely measures, and a
    reference at its point estimate alone (often 0) made a family of such tests liberal where the taste
    is large (0.08 of null studies); each simulated study draws it instead from |N(taste, taste_se^2)|, a
    size the study cannot tell from its estimate (folded, not cut at 0: an estimate of 0 does not show the
    taste is 0, and a reference that took it as 0 half the time stayed liberal, 0.077 of null studies
    with a taste of SD 1; folded 0.068). With every rater equally precise this is Student's t with R - 1 df.

    Args:
        layout: who rated what (`RaterLayout.of`).
        item, taste, residual: the variance components (REML, >= 0); `taste` is the rater component, a
            rater's taste for a difference, their severity for a method's mean.
        taste_se: its standard error.
        draws: simulated studies.

    Example:
        >>> layout = RaterLayout.of(np.arange(6), np.arange(6))  # six raters, one item each
        >>> ref = rater_mean_reference(layout, 0.0, 0.0, 0.0, 1.0)
        >>> round(float(np.quantile(ref, 0.95)), 1), round(float(stats.t.ppf(0.975, 5)), 1)
        (2.6, 2.6)
    """
    R = len(layout.counts)
    W = item * (layout.A @ layout.A.T) + residual * np.diag(1.0 / layout.counts)
    vals, vecs = np.linalg.eigh(W)
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    z_taste, z_cells, z_tastes = reference_normals(draws, R)
    tau = np.abs(taste + taste_se * z_taste)
    d = z_cells @ root.T + np.sqrt(tau)[:, None] * z_tastes
    with np.errstate(divide="ignore", invalid="ignore"):
        t = d.mean(axis=1) / np.sqrt(d.var(axis=1, ddof=1) / R + item * layout.bias)
    return np.sort(np.abs(np.nan_to_num(t, nan=np.inf)))  # a degenerate draw counts as extreme


REFERENCE_CACHED_RATERS = 16  # 5 MB of draws each at most; a lopsided study has few raters


def reference_normals(draws: int, raters: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The standard normals `rater_mean_reference` draws from its fixed seed, in its order: the tastes'
    sizes (draws,), the cells' (draws, raters), the tastes' signs and spread (draws, raters). They depend
    on the sizes alone, and an analysis asks for the same sizes once per difference (9 with 3 methods on
    3 dimensions), where drawing them was half of each call: kept for up to `REFERENCE_CACHED_RATERS`
    raters, read-only."""
    if raters <= REFERENCE_CACHED_RATERS:
        return _kept_normals(draws, raters)
    return _fresh_normals(draws, raters)


def _fresh_normals(draws: int, raters: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(REFERENCE_SEED)
    return rng.standard_normal(draws), rng.standard_normal((draws, raters)), rng.standard_normal((draws, raters))


@functools.lru_cache(maxsize=4)
def _kept_normals(draws: int, raters: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    kept = _fresh_normals(draws, raters)
    for z in kept:
        z.setflags(write=False)
    return kept


def pool_taste(fits: Sequence[PairFit], pieces: int, level: float = TASTE_TEST_LEVEL) -> Taste:
    """Average the unconstrained rater components of `fits` and test them against 0 (a Wald test
    with the SE at no taste)."""
    if not fits or pieces < 1:
        return Taste(math.nan, math.nan, math.nan, math.nan, False, 0, 0)
    top = max(rater_share(f.items, f.raters) for f in fits)
    theta = np.array([f.theta[1] for f in fits])
    at = max(float(theta.mean()), 0.0)
    var_at = np.array([f.cov_at(at)[1, 1] for f in fits])
    var_null = np.array([f.cov_at(0.0)[1, 1] for f in fits])
    est, se, p, used = (float(x) for x in pool_values(theta, var_at, var_null, pieces, level))
    df = 2 * at**2 / se**2 if se > 0 and at > 0 else math.nan
    return Taste(est, se, df, p, bool(used), len(fits), pieces, top, level)


def free_variance(
    y: np.ndarray,
    X: np.ndarray,
    blocks: Mapping[str, np.ndarray],
    w: np.ndarray,
    free: str,
    fixed: Mapping[str, float] | None = None,
    held_var: Mapping[str, float] | None = None,
    start: Mapping[str, float] | None = None,
) -> tuple[float, float, reml.Fit]:
    """(variance, df, fit) of the estimator w'y by REML with the `free` component (the sample the
    estimate generalises over: items, or raters when the prompts are fixed) allowed below 0 and kept
    in the df: its unbiased estimate, as on a complete table (`balanced_given_taste`). Where that leaves
    no positive variance (a rare, extreme table) the fit with every component >= 0 is used instead."""
    tries = (((free,), start), ((free,), None), ((), start))
    for k, (allow, begin) in enumerate(tries):
        try:
            fit = reml.fit_reml(y, X, blocks, unconstrained=allow, fixed=fixed, start=begin)
        except np.linalg.LinAlgError:  # a start where V is not positive definite: the next try
            if k == len(tries) - 1:
                raise
            continue
        var, df = reml.linear_variance(fit, w, held_var, keep_at_zero=(free,))
        if var > 0:
            break
    return var, df, fit


def pair_estimate(fit: PairFit, taste: Taste, level: float = 0.95) -> Estimate:
    """The difference's mean with its interval: the rater component at the pooled taste (0 when it
    did not enter), the pair's own item and residual components fitted given it (REML, the item
    component free to go below 0; on a complete table the closed form), Satterthwaite df over both
    (where one rater carries most of the difference, `differences` uses `by_rater` instead)."""
    base, done = _degenerate(fit.y, fit.items, fit.raters, SCOPE_ALL)
    if done is not None:
        return done
    est = float(item_weights(fit.items) @ fit.y)
    t_used = taste.applied
    taste_var = taste.se**2 if taste.used else 0.0
    if fit.table is None:
        blocks = {"item": fit.items, "rater": fit.raters}
        start = fit.fit.components if fit.fit is not None else None  # from the pair's own fit: fewer steps
        X, w = np.ones((len(fit.y), 1)), item_weights(fit.items)
        var, df, refit = free_variance(fit.y, X, blocks, w, "item", {"rater": t_used}, {"rater": taste_var}, start)
        comps = {"item": float(refit.theta[0]), "rater (pooled taste)": t_used, "residual": float(refit.theta[2])}
        return _finish(est, var, df, level, base, comps)
    I, R = fit.table.shape  # complete: every rater has the same share, never more than 1/3
    b_var, b_var_f, u, e = balanced_given_taste(np.array(fit.ms), I, R, t_used)
    var, var_f = float(b_var) + t_used / R, float(b_var_f) + taste_var / R**2
    df = 2 * var**2 / var_f if var > 0 and var_f > 0 else math.nan
    comps = {"item": float(u), "rater (pooled taste)": t_used, "residual": float(e)}
    return _finish(est, var, df, level, base, comps)


def differences(
    cells: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]], pieces: int, level: float = 0.95
) -> tuple[list[Estimate], Taste]:
    """Every difference of a study (each as (values, item codes, rater codes)), with the taste pooled
    over those where items and raters are both samples (`scope_of`); `pieces` = sum over
    dimensions of (methods - 1). Differences with 1-2 raters hold for these raters only, with 1-2
    items for these prompts only; where one rater carries most of a difference it is `by_rater`'s
    (the pooled taste is still estimated and reported, but enters none of them)."""
    fits: list[PairFit | None] = []
    for y, items, raters in cells:
        both = scope_of(len(np.unique(items)), len(np.unique(raters))) == SCOPE_ALL
        fits.append(pair_fit(y, items, raters) if both and len(y) and np.ptp(y) > 0 else None)
    taste = pool_taste([f for f in fits if f is not None], pieces)
    out = []
    for (y, items, raters), f in zip(cells, fits):
        # 1-2 raters: raters fixed; 1-2 items: items fixed, and a rater's taste is part of each
        # difference's own rater variation, estimated from the many raters such a survey has
        if f is None:
            out.append(crossed_mean(y, items, raters, level))
        else:
            out.append(
                by_rater(y, items, raters, level, f.theta[0])
                if lopsided(items, raters)
                else pair_estimate(f, taste, level)
            )
    return out, taste
