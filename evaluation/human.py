"""Statistics over human ratings, on the store's `ratings_frame()` (one row per rating), fixed in
advance (arXiv:2506.13681's advice).

The unit is the item. Every rater scores the same outputs, and each output is one sample whose
quality varies on its own, so ratings of one item are not independent units. Each method's score
on an item is the mean over that item's raters (and over the method's samples on it); all tests
and CIs work on those item scores:

  * per method x dimension: the mean over items, 95% CI from a two-way cluster bootstrap (items
    and raters resampled independently; with one rater it is the item bootstrap), n = items;
  * pairwise: Wilcoxon signed-rank on the item-level differences a - b (zero differences dropped,
    scipy's "wilcox"), Holm's correction over all method pairs of one dimension; the CI of the
    difference is the t interval over items (calibrated by simulation, see
    `evaluation.stats_design` and benchmarks/bench_calibration.py);
  * Friedman across all methods on the items where every method was rated;
  * mixed model score ~ method + (1|item) + (1|rater) + (1|output) (statsmodels MixedLM,
    variance components, REML): the method contrasts with 95% Wald CIs, the standardised effect
    (difference / total SD) and the variance components;
  * agreement: Krippendorff's alpha, ordinal, per dimension, units = outputs, coders = raters;
  * position: first-shown minus last-shown score with each output's own mean removed, t CI over
    items;
  * perplexity vs scores: Spearman within each method, and the partial correlation with method
    partialled out (ranks, method dummies regressed out), never pooled over methods.

`python -m evaluation.human RATINGS.csv --json` runs all of it on an export (see `main`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from arena.store.schema import SCORE_COLUMNS

DIMENSIONS: tuple[str, ...] = SCORE_COLUMNS  # the rating dimensions, named once: arena.store.schema
AlphaLevel = Literal["nominal", "ordinal", "interval", "ratio"]  # Krippendorff's levels of measurement
REQUIRED_COLUMNS: tuple[str, ...] = ("study_id", "item_id", "output_id", "method", "rater", "position", *DIMENSIONS)


def pseudonymize_raters(ratings: pd.DataFrame) -> pd.DataFrame:
    """Replace rater names by "rater 1…n", numbered in order of each rater's first rating (ties by
    name). For anything public: a rater's name is the credential that opens their ratings.

    >>> frame = pd.DataFrame({"rater": ["bo", "al", "bo"], "created_at": [2, 1, 3]})
    >>> pseudonymize_raters(frame)["rater"].tolist()
    ['rater 2', 'rater 1', 'rater 2']
    """
    if ratings.empty:
        return ratings
    first = ratings.groupby("rater")["created_at"].min().reset_index().sort_values(["created_at", "rater"])
    labels = {name: f"rater {i}" for i, name in enumerate(first["rater"], start=1)}
    return ratings.assign(rater=ratings["rater"].map(labels))


def _as_list(value: Any) -> list | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return list(value) if isinstance(value, (list, tuple, set)) else [value]


def _nan(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def filter_ratings(ratings: pd.DataFrame, study: Any = None, scenario: Any = None, rater: Any = None) -> pd.DataFrame:
    """Rows matching every given filter; a filter is a value or a list of values. `study` matches
    study_id or study_name."""
    df = ratings
    studies = _as_list(study)
    if studies is not None:
        keys = {str(s) for s in studies}
        df = df[
            df["study_id"].astype(str).isin(keys)
            | df.get("study_name", pd.Series(index=df.index, dtype=str)).astype(str).isin(keys)
        ]
    for col, value in (("scenario", scenario), ("rater", rater)):
        values = _as_list(value)
        if values is not None:
            df = df[df[col].astype(str).isin({str(v) for v in values})]
    return df


# ---- the item as the unit ------------------------------------------------------------------------


def _scored(ratings: pd.DataFrame, dimension: str) -> pd.DataFrame:
    # A "can't judge" answer has no score (NaN): it is missing data here, so every statistic runs on
    # the raters who did score (an item's mean is over them), never on a 0 or a 3 put in its place.
    return ratings.assign(_score=pd.to_numeric(ratings[dimension], errors="coerce")).dropna(subset=["_score"])


def cant_judge_counts(ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS) -> pd.DataFrame:
    """How many "can't judge" answers (a rating row without a score on that dimension), per method
    and dimension: columns method, dimension, n."""
    rows = []
    for dim in dimensions:
        if dim not in ratings or not len(ratings):
            continue
        missing = pd.to_numeric(ratings[dim], errors="coerce").isna()
        for method, n in ratings.loc[missing, "method"].value_counts(sort=False).items():
            rows.append({"method": method, "dimension": dim, "n": int(n)})
    return pd.DataFrame(rows, columns=["method", "dimension", "n"])


def item_table(ratings: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Items x methods: each method's score on an item, averaged over raters (each rater's mean over
    the method's samples first, so a rater counts once per item and method). NaN = not rated."""
    df = pd.DataFrame(
        {
            "item_id": ratings["item_id"].to_numpy(),
            "method": ratings["method"].to_numpy(),
            "rater": ratings["rater"].to_numpy(),
            "_score": pd.to_numeric(ratings[dimension], errors="coerce").to_numpy(float),
        }
    ).dropna(subset=["_score"])
    if df.empty:
        return pd.DataFrame()
    per_rater = df.groupby(["item_id", "method", "rater"], sort=False)["_score"].mean()
    return per_rater.groupby(["item_id", "method"], sort=False).mean().unstack("method")


def paired_table(ratings: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """The paired units of the tests: items x methods (see `item_table`)."""
    return item_table(ratings, dimension)


def rater_cube(
    ratings: pd.DataFrame, dimension: str, methods: Sequence[str] | None = None
) -> tuple[np.ndarray, list, list, list]:
    """Array items x raters x methods of each rater's mean score (NaN = not rated), with the labels."""
    df = _scored(ratings, dimension)
    cell = df.groupby(["item_id", "rater", "method"], sort=False)["_score"].mean()
    items = list(dict.fromkeys(df["item_id"]))
    raters = list(dict.fromkeys(df["rater"]))
    methods = list(methods) if methods is not None else list(dict.fromkeys(df["method"]))
    cube = np.full((len(items), len(raters), len(methods)), np.nan)
    ii = {v: k for k, v in enumerate(items)}
    rr = {v: k for k, v in enumerate(raters)}
    mm = {v: k for k, v in enumerate(methods)}
    for (i, r, m), v in cell.items():
        if m in mm:
            cube[ii[i], rr[r], mm[m]] = v
    return cube, items, raters, methods


def cluster_bootstrap_means(
    cube: np.ndarray, level: float = 0.95, n_resamples: int = 2000, seed: int = 0, chunk: int = 250
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile CIs (low, high per method) of the mean over items of the item means, resampling
    items and raters independently (two-way cluster bootstrap). Vectorised with resampling weights."""
    n_items, n_raters, n_methods = cube.shape
    rng = np.random.default_rng(seed)
    seen = ~np.isnan(cube)
    values = np.where(seen, cube, 0.0)
    stats_ = []
    for start in range(0, n_resamples, chunk):
        b = min(chunk, n_resamples - start)
        w_item = rng.multinomial(n_items, np.full(n_items, 1 / n_items), size=b).astype(float)
        w_rater = (
            rng.multinomial(n_raters, np.full(n_raters, 1 / n_raters), size=b).astype(float)
            if n_raters > 1
            else np.ones((b, 1))
        )
        num = np.einsum("irm,br->bim", values, w_rater)
        den = np.einsum("irm,br->bim", seen.astype(float), w_rater)
        with np.errstate(invalid="ignore", divide="ignore"):
            item_means = num / den
        has = ~np.isnan(item_means)
        total = np.einsum("bi,bim->bm", w_item, np.where(has, item_means, 0.0))
        count = np.einsum("bi,bim->bm", w_item, has.astype(float))
        with np.errstate(invalid="ignore", divide="ignore"):
            stats_.append(total / count)
    boot = np.concatenate(stats_)
    alpha = (1 - level) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanquantile(boot, alpha, axis=0), np.nanquantile(boot, 1 - alpha, axis=0)


def bootstrap_ci(
    values: Sequence[float], level: float = 0.95, n_resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean of independent values; (nan, nan) under two values."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) < 2:
        return math.nan, math.nan
    if np.all(x == x[0]):
        return float(x[0]), float(x[0])
    res = stats.bootstrap(
        (x,),
        np.mean,
        confidence_level=level,
        n_resamples=n_resamples,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def t_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): Student's t interval of the mean; NaN bounds under two values."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if len(x) < 2:
        return mean, math.nan, math.nan
    half = float(stats.t.ppf(0.5 + level / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return mean, mean - half, mean + half


def method_means(
    ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS, seed: int = 0, n_resamples: int = 2000
) -> pd.DataFrame:
    """One row per method x dimension: mean over items of the item means, 95% two-way cluster
    bootstrap CI, n = items, n_ratings = ratings behind it."""
    rows = []
    methods = list(dict.fromkeys(ratings["method"])) if len(ratings) else []
    for dim in dimensions:
        df = _scored(ratings, dim)
        if df.empty:
            continue
        cube, items, raters, names = rater_cube(df, dim, methods)
        if np.isnan(cube).all():
            continue
        lo, hi = cluster_bootstrap_means(cube, n_resamples=n_resamples, seed=seed)
        table = item_table(df, dim)
        for k, method in enumerate(names):
            col = table[method].dropna() if method in table else pd.Series(dtype=float)
            n_ratings = int((df["method"] == method).sum())
            if len(col) == 0:
                continue
            mean = float(col.mean())
            low, high = (float(lo[k]), float(hi[k])) if len(col) >= 2 else (math.nan, math.nan)
            rows.append(
                {
                    "method": method,
                    "dimension": dim,
                    "mean": mean,
                    "ci_low": low,
                    "ci_high": high,
                    "n": int(len(col)),
                    "n_ratings": n_ratings,
                }
            )
    out = pd.DataFrame(rows, columns=["method", "dimension", "mean", "ci_low", "ci_high", "n", "n_ratings"])
    order = {m: k for k, m in enumerate(methods)}
    return out.sort_values(
        ["method", "dimension"],
        key=lambda s: s.map(order) if s.name == "method" else s.map({d: k for k, d in enumerate(dimensions)}),
    ).reset_index(drop=True)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1); NaN stays NaN."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(len(p), math.nan)
    ok = np.flatnonzero(~np.isnan(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    m, running = len(order), 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[idx]))
        out[idx] = running
    return out.tolist()


EXACT_MAX_N = 13  # scipy's own limit: up to 2**13 sign patterns it enumerates them all


def signed_rank_exact_p(diffs: np.ndarray) -> np.ndarray:
    """Two-sided p of the Wilcoxon signed-rank test by enumerating all 2**n sign flips, for rows of
    n <= 13 differences (zeros dropped from the ranking, ties given average ranks). The same p as
    scipy's `wilcoxon(method="auto")` on a row with ties or zeros (its exact permutation test), and
    as its exact distribution on a row without: vectorised over rows and much faster."""
    d = np.atleast_2d(np.asarray(diffs, dtype=float))
    n = d.shape[1]
    if n > EXACT_MAX_N:
        raise ValueError(f"at most {EXACT_MAX_N} differences per row")
    a = np.where(d == 0, np.inf, np.abs(d))
    r = stats.rankdata(a, axis=1, method="average")
    r[d == 0] = 0.0
    observed = np.sum(r * (d > 0), axis=1)
    signs = ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(float)  # (2**n, n)
    null = signs @ r.T  # (2**n, rows)
    gamma = np.abs(np.finfo(float).eps * 100 * observed)
    less = np.mean(null <= observed + gamma, axis=0)
    greater = np.mean(null >= observed - gamma, axis=0)
    return np.clip(2 * np.minimum(less, greater), 0, 1)


def wilcoxon_p(diff: np.ndarray) -> tuple[float, float]:
    """(statistic, p) of the two-sided Wilcoxon signed-rank test, zeros dropped; NaN when all are
    zero. scipy's test, except that up to 13 differences the exact p comes from
    `signed_rank_exact_p` (the same value, without scipy's per-permutation overhead)."""
    diff = np.asarray(diff, dtype=float)
    diff = diff[~np.isnan(diff)]
    if np.count_nonzero(diff) < 1:
        return math.nan, math.nan
    if len(diff) <= EXACT_MAX_N:
        a = np.where(diff == 0, np.inf, np.abs(diff))
        r = stats.rankdata(a)
        r[diff == 0] = 0.0
        return float(min(np.sum(r * (diff > 0)), np.sum(r * (diff < 0)))), float(signed_rank_exact_p(diff)[0])
    res = stats.wilcoxon(diff, zero_method="wilcox")
    return float(res.statistic), float(res.pvalue)


PAIRWISE_COLUMNS = [
    "dimension",
    "method_a",
    "method_b",
    "n_pairs",
    "mean_diff",
    "ci_low",
    "ci_high",
    "statistic",
    "p_value",
    "p_holm",
]


def pairwise_wilcoxon(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] = DIMENSIONS,
    methods: Sequence[str] | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    """Per method pair and dimension, on items: n_pairs (items), mean_diff (a - b) with its t CI,
    Wilcoxon signed-rank statistic and p, Holm-corrected within a dimension."""
    rows = []
    for dim in dimensions:
        table = item_table(ratings, dim)
        names = [m for m in (methods or list(table.columns)) if m in table.columns]
        block: list[dict[str, Any]] = []
        for a, b in itertools.combinations(names, 2):
            pair = table[[a, b]].dropna()
            diff = (pair[a] - pair[b]).to_numpy(float)
            mean, lo, hi = t_interval(diff, level)
            stat, p = wilcoxon_p(diff)
            block.append(
                {
                    "dimension": dim,
                    "method_a": a,
                    "method_b": b,
                    "n_pairs": int(len(pair)),
                    "mean_diff": mean,
                    "ci_low": lo,
                    "ci_high": hi,
                    "statistic": stat,
                    "p_value": p,
                }
            )
        for row, adj in zip(block, holm([r["p_value"] for r in block])):
            row["p_holm"] = adj
        rows += block
    return pd.DataFrame(rows, columns=PAIRWISE_COLUMNS)


def friedman(ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS) -> pd.DataFrame:
    """Friedman chi-square across all methods per dimension, on the items every method was rated on."""
    rows = []
    for dim in dimensions:
        table = item_table(ratings, dim).dropna()
        stat = p = math.nan
        k = table.shape[1]
        if k >= 3 and len(table) >= 2 and table.to_numpy().std() > 0:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)
                res = stats.friedmanchisquare(*[table[c] for c in table.columns])
            stat, p = float(res.statistic), float(res.pvalue)  # NaN when every item ties all methods
        rows.append(
            {"dimension": dim, "k_methods": int(k), "n_units": int(len(table)), "statistic": stat, "p_value": p}
        )
    return pd.DataFrame(rows, columns=["dimension", "k_methods", "n_units", "statistic", "p_value"])


# ---- mixed model ---------------------------------------------------------------------------------

MIXED_COLUMNS = [
    "dimension",
    "method_a",
    "method_b",
    "estimate",
    "ci_low",
    "ci_high",
    "p_value",
    "effect_size",
    "effect_ci_low",
    "effect_ci_high",
]
VC_COLUMNS = ["dimension", "component", "variance", "sd"]


def fit_mixed(ratings: pd.DataFrame, dimension: str):
    """score ~ method + (1|item) + (1|rater) + (1|output) by REML (statsmodels MixedLM, one group with
    crossed variance components). The output term is there because each output is one sample rated
    by several raters; without it the model would count ratings of one output as independent.
    Returns (result, methods) or (None, methods) when it cannot be fitted."""
    from statsmodels.regression.mixed_linear_model import MixedLM  # late: statsmodels takes ~1 s to import

    df = _scored(ratings, dimension)
    methods = list(dict.fromkeys(df["method"]))
    if len(methods) < 2 or df["item_id"].nunique() < 2 or df["_score"].std() == 0:
        return None, methods
    data = pd.DataFrame(
        {
            "score": df["_score"].astype(float).to_numpy(),
            "g": 1,
            "m": pd.Categorical(df["method"], categories=methods).codes,
            "item": df["item_id"].astype(str).to_numpy(),
            "rater": df["rater"].astype(str).to_numpy(),
            "output": df["output_id"].astype(str).to_numpy(),
        }
    )
    vc = {"item": "0 + C(item)"}
    if data["rater"].nunique() > 1:
        vc["rater"] = "0 + C(rater)"
    if data.groupby("output")["score"].size().max() > 1 and data["output"].nunique() < len(data):
        vc["output"] = "0 + C(output)"
    model = MixedLM.from_formula("score ~ C(m)", groups="g", re_formula="0", vc_formula=vc, data=data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fits = []
            for method in ("powell", "lbfgs"):
                try:
                    fits.append(model.fit(reml=True, method=method))
                except Exception:  # noqa: BLE001 - one optimiser failing is not fatal if the other works
                    continue
            fits = [f for f in fits if np.isfinite(f.llf)]
            if not fits:
                return None, methods
            return max(fits, key=lambda f: f.llf), methods
        except (np.linalg.LinAlgError, ValueError):
            return None, methods


def mixed_model(
    ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS, level: float = 0.95
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(contrasts, variance components). Contrasts: every method pair a - b with its 95% Wald CI and
    p, and the standardised effect = estimate / total SD (all variance components plus residual)."""
    z = stats.norm.ppf(0.5 + level / 2)
    rows, comps = [], []
    for dim in dimensions:
        fit, methods = fit_mixed(ratings, dim)
        if fit is None:
            continue
        beta = np.concatenate([[0.0], np.asarray(fit.fe_params)[1:]])
        k = len(methods)
        cov = np.zeros((k, k))
        cov[1:, 1:] = np.asarray(fit.cov_params())[1:k, 1:k]
        names = list(fit.model.exog_vc.names)
        var = dict(zip(names, np.asarray(fit.vcomp, dtype=float)))
        var["residual"] = float(fit.scale)
        total_sd = math.sqrt(sum(max(v, 0.0) for v in var.values()))
        for name, v in var.items():
            comps.append({"dimension": dim, "component": name, "variance": v, "sd": math.sqrt(max(v, 0.0))})
        for a, b in itertools.combinations(range(k), 2):
            est = beta[a] - beta[b]
            se = math.sqrt(max(cov[a, a] + cov[b, b] - 2 * cov[a, b], 0.0))
            lo, hi = est - z * se, est + z * se
            p = float(2 * stats.norm.sf(abs(est) / se)) if se > 0 else math.nan
            rows.append(
                {
                    "dimension": dim,
                    "method_a": methods[a],
                    "method_b": methods[b],
                    "estimate": float(est),
                    "ci_low": lo,
                    "ci_high": hi,
                    "p_value": p,
                    "effect_size": est / total_sd if total_sd else math.nan,
                    "effect_ci_low": lo / total_sd if total_sd else math.nan,
                    "effect_ci_high": hi / total_sd if total_sd else math.nan,
                }
            )
    return pd.DataFrame(rows, columns=MIXED_COLUMNS), pd.DataFrame(comps, columns=VC_COLUMNS)


# ---- agreement, position, perplexity -------------------------------------------------------------


def reliability_matrix(ratings: pd.DataFrame, dimension: str) -> np.ndarray:
    """Raters x outputs matrix of scores (NaN = not rated), as `krippendorff.alpha` expects."""
    df = _scored(ratings, dimension)
    return df.pivot_table(index="rater", columns="output_id", values="_score", aggfunc="mean").to_numpy(float)


def alpha_of(data: np.ndarray, level: AlphaLevel = "ordinal") -> float:
    """Krippendorff's alpha of a raters x units matrix; NaN when it is undefined."""
    import krippendorff  # late: only agreement needs it

    if data.ndim != 2 or data.shape[0] < 2 or int((np.sum(~np.isnan(data), axis=0) >= 2).sum()) < 1:
        return math.nan
    values = np.unique(data[~np.isnan(data)])
    if len(values) < 2:
        return math.nan
    # The value domain is the 1-5 scale, so an unused score still counts as a rank step.
    domain = np.union1d(values, np.arange(1, 6)) if level == "ordinal" else None
    with np.errstate(all="ignore"):  # no expected disagreement (one value per unit) gives NaN, not a warning
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=domain))


def krippendorff_alpha(
    ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS, level: AlphaLevel = "ordinal"
) -> pd.DataFrame:
    """Krippendorff's alpha per dimension; NaN when fewer than two raters overlap on an output."""
    rows = []
    for dim in dimensions:
        data = reliability_matrix(ratings, dim)
        pairable = int((np.sum(~np.isnan(data), axis=0) >= 2).sum()) if data.size else 0
        rows.append(
            {
                "dimension": dim,
                "alpha": alpha_of(data, level) if data.size else math.nan,
                "raters": int(data.shape[0]),
                "units_pairable": pairable,
            }
        )
    return pd.DataFrame(rows, columns=["dimension", "alpha", "raters", "units_pairable"])


POSITION_COLUMNS = ["dimension", "first", "last", "diff", "ci_low", "ci_high", "p_value", "n_items", "adjusted_for"]


def position_effect(ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS, level: float = 0.95) -> pd.DataFrame:
    """Score shown first (position 0, "A") minus score shown last, per dimension. Each rating is first
    centred on its output's mean over raters (so output quality, and with it the method, drops out;
    outputs rated once then carry no information); when no output has two ratings, it is centred on
    its method's mean instead. Per item: mean centred score at the first position minus at the last;
    then the t interval and t-test over items (the item is the cluster)."""
    rows = []
    if "position" not in ratings:
        return pd.DataFrame(columns=POSITION_COLUMNS)
    for dim in dimensions:
        df = _scored(ratings, dim)
        df = df.assign(_pos=pd.to_numeric(df["position"], errors="coerce")).dropna(subset=["_pos"])
        if df.empty:
            continue
        counts = df.groupby("output_id")["_score"].transform("size")
        if (counts > 1).any():
            df = df[counts > 1]
            df = df.assign(_res=df["_score"] - df.groupby("output_id")["_score"].transform("mean"))
            basis = "output"
        else:
            df = df.assign(_res=df["_score"] - df.groupby("method")["_score"].transform("mean"))
            basis = "method"
        last = df.groupby("item_id")["_pos"].transform("max")
        first = df["_pos"] == 0
        is_last = (df["_pos"] == last) & (last > 0)
        a = df[first].groupby("item_id")["_res"].mean()
        b = df[is_last].groupby("item_id")["_res"].mean()
        diff = (a - b).dropna().to_numpy(float)
        mean, lo, hi = t_interval(diff, level)
        p = math.nan
        if len(diff) >= 2 and diff.std(ddof=1) > 0:
            p = float(stats.ttest_1samp(diff, 0.0).pvalue)
        rows.append(
            {
                "dimension": dim,
                "first": "A",
                "last": "last shown",
                "diff": mean,
                "ci_low": lo,
                "ci_high": hi,
                "p_value": p,
                "n_items": int(len(diff)),
                "adjusted_for": basis,
            }
        )
    return pd.DataFrame(rows, columns=POSITION_COLUMNS)


PPL_COLUMNS = ["dimension", "method", "spearman_rho", "p_value", "n_outputs"]


def _spearman(x: pd.Series, y: pd.Series) -> tuple[float, float]:
    if len(x) >= 3 and x.nunique() > 1 and y.nunique() > 1:
        res = stats.spearmanr(x, y)
        return float(res.statistic), float(res.pvalue)
    return math.nan, math.nan


def ppl_correlation(
    ratings: pd.DataFrame, ppl_by_output: Mapping[Any, float], dimensions: Sequence[str] = DIMENSIONS
) -> pd.DataFrame:
    """Perplexity against human score per output, never pooled over methods (the method drives both):
    Spearman rho within each method, plus a row "(method partialled out)": the partial Spearman
    correlation, ranks of both with method means removed, p from the t distribution with
    n - 2 - (methods - 1) degrees of freedom."""
    per_output = ratings.groupby("output_id").agg({**{d: "mean" for d in dimensions}, "method": "first"})
    ppl = pd.Series(dict(ppl_by_output.items()), dtype=float)
    joined = per_output.join(ppl.rename("ppl"), how="inner").dropna(subset=["ppl"])
    rows = []
    for dim in dimensions:
        sub = joined[["ppl", dim, "method"]].dropna()
        for method, group in sub.groupby("method", sort=False):
            rho, p = _spearman(group["ppl"], group[dim])
            rows.append(
                {"dimension": dim, "method": method, "spearman_rho": rho, "p_value": p, "n_outputs": int(len(group))}
            )
        rho = p = math.nan
        k = sub["method"].nunique()
        if len(sub) - 1 - k >= 1:
            rx = sub["ppl"].rank() - sub["ppl"].rank().groupby(sub["method"]).transform("mean")
            ry = sub[dim].rank() - sub[dim].rank().groupby(sub["method"]).transform("mean")
            if rx.std() > 0 and ry.std() > 0:
                rho = float(np.corrcoef(rx, ry)[0, 1])
                df_ = len(sub) - 2 - (k - 1)
                if abs(rho) < 1:
                    t = rho * math.sqrt(df_ / (1 - rho**2))
                    p = float(2 * stats.t.sf(abs(t), df_))
                else:
                    p = 0.0
        rows.append(
            {
                "dimension": dim,
                "method": "(method partialled out)",
                "spearman_rho": rho,
                "p_value": p,
                "n_outputs": int(len(sub)),
            }
        )
    return pd.DataFrame(rows, columns=PPL_COLUMNS)


# ---- plain-language lines ------------------------------------------------------------------------


def _f(v: float, digits: int = 2) -> str:
    return "–" if v is None or not np.isfinite(v) else f"{v:+.{digits}f}" if digits < 0 else f"{v:.{digits}f}"


def explain_pair(row: Mapping[str, Any], alpha: float = 0.05) -> str:
    fields: list[Any] = [row.get(k) for k in ("method_a", "method_b", "mean_diff", "ci_low", "ci_high", "p_holm")]
    a, b, d, lo, hi, p = fields
    if d is None or not np.isfinite(d):
        return f"{a} vs {b} on {row.get('dimension')}: no items where both were rated."
    if not np.isfinite(_nan(lo)):
        return f"{a} vs {b} on {row.get('dimension')}: {a} − {b} = {d:+.2f} on {row.get('n_pairs')} item(s), too few for a CI."
    head = f"{a} vs {b} on {row.get('dimension')}: {a} − {b} = {d:+.2f} points (95% CI {lo:+.2f} to {hi:+.2f}, {row.get('n_pairs')} items"
    if np.isfinite(_nan(p)) and p < alpha:
        better = a if d > 0 else b
        return head + f", Holm p = {p:.3g}): {better} is rated higher, and chance alone rarely gives a gap this size."
    return (
        head
        + (f", Holm p = {p:.3g}" if np.isfinite(_nan(p)) else "")
        + "): no clear difference; the data fit anything in that interval."
    )


def explain_friedman(row: Mapping[str, Any], alpha: float = 0.05) -> str:
    p = _nan(row.get("p_value"))
    if not np.isfinite(p):
        return f"Friedman on {row.get('dimension')}: not computed (needs 3+ methods and 2+ items rated by all)."
    verdict = (
        "at least one method is ranked differently from the others"
        if p < alpha
        else "no evidence that the methods are ranked differently"
    )
    return f"Friedman on {row.get('dimension')} ({row.get('k_methods')} methods, {row.get('n_units')} items): p = {p:.3g}, {verdict}."


def explain_mixed(row: Mapping[str, Any], alpha: float = 0.05) -> str:
    lo: Any = row.get("ci_low")
    hi: Any = row.get("ci_high")
    sig = np.isfinite(_nan(lo)) and (lo > 0 or hi < 0)
    return (
        f"Mixed model, {row.get('dimension')}: {row.get('method_a')} − {row.get('method_b')} = {row.get('estimate'):+.2f} "
        f"(95% CI {lo:+.2f} to {hi:+.2f}), {row.get('effect_size'):+.2f} SD of a single rating; "
        + (
            "the interval excludes 0."
            if sig
            else "the interval includes 0: no clear difference once item, rater and output variation are allowed for."
        )
    )


def explain_alpha(row: Mapping[str, Any]) -> str:
    a = _nan(row.get("alpha"))
    if not np.isfinite(a):
        return f"Agreement on {row.get('dimension')}: not computable (needs 2+ raters on the same outputs)."
    word = (
        "good (≥ 0.8)"
        if a >= 0.8
        else "tentative (0.667–0.8)"
        if a >= 0.667
        else "low (< 0.667): raters often disagree"
    )
    return f"Agreement on {row.get('dimension')}: Krippendorff's α = {a:.2f}, {word}."


def explain_position(row: Mapping[str, Any]) -> str:
    d, lo, hi = (_nan(row.get(k)) for k in ("diff", "ci_low", "ci_high"))
    if not np.isfinite(d):
        return f"Position on {row.get('dimension')}: not estimable."
    if not np.isfinite(lo):
        return f"Position on {row.get('dimension')}: first − last = {d:+.2f} on {row.get('n_items')} item(s), too few for a CI."
    tail = (
        "outputs shown first get higher scores"
        if lo > 0
        else "outputs shown last get higher scores"
        if hi < 0
        else "no clear position bias"
    )
    return (
        f"Position on {row.get('dimension')}: shown first − shown last = {d:+.2f} (95% CI {lo:+.2f} to {hi:+.2f}, "
        f"{row.get('n_items')} items): {tail}."
    )


# ---- everything for one set of ratings -----------------------------------------------------------


def analyse(
    ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS, mixed: bool = True, seed: int = 0
) -> dict[str, Any]:
    """The primary analysis of one study's ratings: frames and one line per result."""
    means = method_means(ratings, dimensions, seed=seed)
    pairwise = pairwise_wilcoxon(ratings, dimensions)
    fried = friedman(ratings, dimensions)
    agreement = krippendorff_alpha(ratings, dimensions)
    position = position_effect(ratings, dimensions)
    mm, vc = (
        mixed_model(ratings, dimensions)
        if mixed
        else (pd.DataFrame(columns=MIXED_COLUMNS), pd.DataFrame(columns=VC_COLUMNS))
    )
    lines = (
        [explain_pair(r) for r in pairwise.to_dict("records")]
        + [explain_friedman(r) for r in fried.to_dict("records")]
        + [explain_mixed(r) for r in mm.to_dict("records")]
        + [explain_alpha(r) for r in agreement.to_dict("records")]
        + [explain_position(r) for r in position.to_dict("records")]
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
        "cant_judge": cant_judge_counts(ratings, dimensions),
    }


# ---- command line --------------------------------------------------------------------------------


class InputError(ValueError):
    pass


def read_ratings(path: str) -> pd.DataFrame:
    """A ratings CSV (an `arena.export` file or just REQUIRED_COLUMNS; others ignored), validated.

    From an export of format 3 on, only rows of kind "rating" are ratings (skips and flags are not),
    and a score may be empty where the row's `cant_judge` names its dimension: it is read as NaN,
    missing data to every statistic."""
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{path} is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputError(f"{path} is not a readable CSV: {str(exc).splitlines()[0]}") from None
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}")
    if "row_kind" in df.columns:
        df = df[df["row_kind"].str.strip().isin(["", "rating"])].reset_index(drop=True)
    if df.empty:
        raise InputError(f"{path} has no ratings")
    cant = (df["cant_judge"] if "cant_judge" in df.columns else pd.Series("", index=df.index)).str.split(",")
    for col in ("study_id", "item_id", "output_id", "method", "rater"):
        blank = df[col].str.strip() == ""
        if blank.any():
            raise InputError(f"{path}, row {int(np.flatnonzero(blank)[0]) + 2}: {col} is empty")
    out = df.copy()
    for dim in DIMENSIONS:
        values = pd.to_numeric(df[dim].str.strip(), errors="coerce")
        unjudged = cant.map(lambda dims, d=dim: d in [x.strip() for x in dims]) & (df[dim].str.strip() == "")
        bad = (values.isna() | ~values.isin([1, 2, 3, 4, 5])) & ~unjudged
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(f"{path}, row {row + 2}: {dim} = {df[dim].iloc[row]!r} is not a score from 1 to 5")
        out[dim] = values.astype(float) if unjudged.any() else values.astype(int)
    pos = pd.to_numeric(df["position"].str.strip().replace("", np.nan), errors="coerce")
    if (df["position"].str.strip() != "").any() and (pos.isna() & (df["position"].str.strip() != "")).any():
        row = int(np.flatnonzero(pos.isna() & (df["position"].str.strip() != ""))[0])
        raise InputError(f"{path}, row {row + 2}: position = {df['position'].iloc[row]!r} is not a number")
    out["position"] = pos
    for col in ("study_id", "item_id", "output_id", "method", "rater"):
        out[col] = df[col].str.strip()
    return out


def _clean(v: Any) -> Any:
    if isinstance(v, (float, np.floating)):
        return None if not np.isfinite(v) else float(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    return v


def summarise(ratings: pd.DataFrame, mixed: bool = True) -> dict[str, Any]:
    """The CLI's JSON: {"unit", "studies": {study id: {..., "dimensions": {dim: {...}}}}}."""
    out: dict[str, Any] = {
        "unit": "item (scores averaged over raters, then over samples, per item and method)",
        "studies": {},
    }
    for sid, group in ratings.groupby("study_id", sort=False):
        res = analyse(group, mixed=mixed)
        dims = {}
        for dim in DIMENSIONS:
            m = res["means"][res["means"]["dimension"] == dim]
            pw = res["pairwise"][res["pairwise"]["dimension"] == dim]
            fr = res["friedman"][res["friedman"]["dimension"] == dim]
            ag = res["agreement"][res["agreement"]["dimension"] == dim]
            po = res["position"][res["position"]["dimension"] == dim]
            mm = res["mixed"][res["mixed"]["dimension"] == dim]
            vc = res["variance_components"][res["variance_components"]["dimension"] == dim]
            cj = res["cant_judge"][res["cant_judge"]["dimension"] == dim]
            dims[dim] = {
                "cant_judge": {r["method"]: int(r["n"]) for r in cj.to_dict("records")},
                "means": {
                    r["method"]: {
                        "mean": _clean(r["mean"]),
                        "ci_low": _clean(r["ci_low"]),
                        "ci_high": _clean(r["ci_high"]),
                        "n_items": _clean(r["n"]),
                        "n_ratings": _clean(r["n_ratings"]),
                    }
                    for r in m.to_dict("records")
                },
                "pairwise": [
                    {
                        "a": r["method_a"],
                        "b": r["method_b"],
                        "diff": _clean(r["mean_diff"]),
                        "ci_low": _clean(r["ci_low"]),
                        "ci_high": _clean(r["ci_high"]),
                        "p": _clean(r["p_value"]),
                        "p_holm": _clean(r["p_holm"]),
                        "n_items": _clean(r["n_pairs"]),
                        "meaning": explain_pair(r),
                    }
                    for r in pw.to_dict("records")
                ],
                "friedman_p": _clean(fr["p_value"].iloc[0]) if len(fr) else None,
                "agreement": _clean(ag["alpha"].iloc[0]) if len(ag) else None,
                "position_effect": (
                    {k: _clean(po.iloc[0][k]) for k in ("diff", "ci_low", "ci_high", "p_value", "n_items")}
                    | {"meaning": explain_position(po.iloc[0])}
                )
                if len(po)
                else None,
                "mixed_model": {
                    "contrasts": [
                        {"a": r["method_a"], "b": r["method_b"], **{k: _clean(r[k]) for k in MIXED_COLUMNS[3:]}}
                        for r in mm.to_dict("records")
                    ],
                    "variance_components": {r["component"]: _clean(r["variance"]) for r in vc.to_dict("records")},
                }
                if mixed
                else None,
            }
        out["studies"][str(sid)] = {
            "name": str(group["study_name"].iloc[0]) if "study_name" in group else None,
            "n_items": int(group["item_id"].nunique()),
            "n_raters": int(group["rater"].nunique()),
            "n_ratings": int(len(group)),
            "n_cant_judge": int(res["cant_judge"]["n"].sum()),
            "dimensions": dims,
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.human", description="Human-rating statistics (items as the unit) from a ratings CSV."
    )
    parser.add_argument(
        "ratings", help="CSV from `python -m arena.export`, or with columns " + ", ".join(REQUIRED_COLUMNS)
    )
    parser.add_argument("--json", action="store_true", help="print JSON (default: plain-language lines)")
    parser.add_argument("--no-mixed", action="store_true", help="skip the mixed model (faster)")
    args = parser.parse_args(argv)
    try:
        ratings = read_ratings(args.ratings)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = summarise(ratings, mixed=not args.no_mixed)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
    else:
        for sid, study in result["studies"].items():
            print(
                f"study {sid}: {study['n_items']} items, {study['n_raters']} raters, {study['n_ratings']} ratings, "
                f'{study["n_cant_judge"]} "can\'t judge" answers (left out of every statistic)'
            )
            for dim, d in study["dimensions"].items():
                for method, m in d["means"].items():
                    print(
                        f"  {dim} {method}: {_f(m['mean'] if m['mean'] is not None else math.nan)} "
                        f"[{_f(m['ci_low'] if m['ci_low'] is not None else math.nan)}, {_f(m['ci_high'] if m['ci_high'] is not None else math.nan)}]"
                    )
                for p in d["pairwise"]:
                    print("  " + p["meaning"])
                if d["position_effect"]:
                    print("  " + d["position_effect"]["meaning"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
