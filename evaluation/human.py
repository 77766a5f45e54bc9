"""Statistics over human ratings, on the store's `ratings_frame()` (one row per rating).

Columns used: study_id, study_name, item_id, scenario, output_id, method, rater and the three
1-5 scores. Fixed in advance (arXiv:2506.13681's advice):
  * per method x dimension: mean, 95% percentile bootstrap CI over ratings (2000 resamples,
    seeded), N ratings;
  * pairwise: Wilcoxon signed-rank on paired units, a unit = (item, rater), the scores of one
    method averaged when it has several samples on that item; zero differences dropped
    (scipy's "wilcox"); Holm's correction over all method pairs of one dimension;
  * Friedman across all methods on the units where every method was rated;
  * agreement: Krippendorff's alpha, ordinal, per dimension, units = outputs, coders = raters;
  * Spearman between per-output PPL and per-output mean score, per dimension.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

DIMENSIONS: tuple[str, ...] = ("coherence", "informativeness", "naturalness")


def _as_list(value: Any) -> list | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return list(value) if isinstance(value, (list, tuple, set)) else [value]


def filter_ratings(ratings: pd.DataFrame, study: Any = None, scenario: Any = None, rater: Any = None) -> pd.DataFrame:
    """Rows matching every given filter; a filter is a value or a list of values. `study` matches
    study_id or study_name."""
    df = ratings
    studies = _as_list(study)
    if studies is not None:
        keys = {str(s) for s in studies}
        df = df[df["study_id"].astype(str).isin(keys) | df.get("study_name", pd.Series(index=df.index, dtype=str)).astype(str).isin(keys)]
    for col, value in (("scenario", scenario), ("rater", rater)):
        values = _as_list(value)
        if values is not None:
            df = df[df[col].astype(str).isin({str(v) for v in values})]
    return df


def bootstrap_ci(values: Sequence[float], level: float = 0.95, n_resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean; (nan, nan) under two values or no spread."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) < 2:
        return math.nan, math.nan
    if np.all(x == x[0]):
        return float(x[0]), float(x[0])
    res = stats.bootstrap((x,), np.mean, confidence_level=level, n_resamples=n_resamples,
                          method="percentile", rng=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def method_means(ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS, seed: int = 0, n_resamples: int = 2000) -> pd.DataFrame:
    """One row per method x dimension: mean, ci_low, ci_high, n."""
    rows = []
    for method, group in ratings.groupby("method", sort=False):
        for dim in dimensions:
            x = pd.to_numeric(group[dim], errors="coerce").dropna().to_numpy(float)
            lo, hi = bootstrap_ci(x, seed=seed, n_resamples=n_resamples)
            rows.append({"method": method, "dimension": dim, "mean": float(x.mean()) if len(x) else math.nan,
                         "ci_low": lo, "ci_high": hi, "n": int(len(x))})
    return pd.DataFrame(rows, columns=["method", "dimension", "mean", "ci_low", "ci_high", "n"])


def paired_table(ratings: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Units (item, rater) x methods of mean scores; NaN where a method was not rated."""
    df = ratings.assign(_score=pd.to_numeric(ratings[dimension], errors="coerce")).dropna(subset=["_score"])
    return df.pivot_table(index=["item_id", "rater"], columns="method", values="_score", aggfunc="mean")


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


def pairwise_wilcoxon(ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS, methods: Sequence[str] | None = None) -> pd.DataFrame:
    """Wilcoxon signed-rank per method pair and dimension on paired units, Holm-corrected within a
    dimension. Columns: dimension, method_a, method_b, n_pairs, mean_diff (a - b), statistic,
    p_value, p_holm."""
    rows = []
    for dim in dimensions:
        table = paired_table(ratings, dim)
        names = [m for m in (methods or list(table.columns)) if m in table.columns]
        block = []
        for a, b in itertools.combinations(names, 2):
            pair = table[[a, b]].dropna()
            diff = (pair[a] - pair[b]).to_numpy(float)
            stat = p = math.nan
            if np.count_nonzero(diff) >= 1:
                res = stats.wilcoxon(pair[a], pair[b], zero_method="wilcox")
                stat, p = float(res.statistic), float(res.pvalue)
            block.append({"dimension": dim, "method_a": a, "method_b": b, "n_pairs": int(len(pair)),
                          "mean_diff": float(diff.mean()) if len(diff) else math.nan, "statistic": stat, "p_value": p})
        for row, adj in zip(block, holm([r["p_value"] for r in block])):
            row["p_holm"] = adj
        rows += block
    return pd.DataFrame(rows, columns=["dimension", "method_a", "method_b", "n_pairs", "mean_diff", "statistic", "p_value", "p_holm"])


def friedman(ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS) -> pd.DataFrame:
    """Friedman chi-square across all methods per dimension, on complete units only."""
    rows = []
    for dim in dimensions:
        table = paired_table(ratings, dim).dropna()
        stat = p = math.nan
        k = table.shape[1]
        if k >= 3 and len(table) >= 2 and table.to_numpy().std() > 0:
            res = stats.friedmanchisquare(*[table[c] for c in table.columns])
            stat, p = float(res.statistic), float(res.pvalue)
        rows.append({"dimension": dim, "k_methods": int(k), "n_units": int(len(table)), "statistic": stat, "p_value": p})
    return pd.DataFrame(rows, columns=["dimension", "k_methods", "n_units", "statistic", "p_value"])


def reliability_matrix(ratings: pd.DataFrame, dimension: str) -> np.ndarray:
    """Raters x outputs matrix of scores (NaN = not rated), as `krippendorff.alpha` expects."""
    df = ratings.assign(_score=pd.to_numeric(ratings[dimension], errors="coerce")).dropna(subset=["_score"])
    return df.pivot_table(index="rater", columns="output_id", values="_score", aggfunc="mean").to_numpy(float)


def krippendorff_alpha(ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS, level: str = "ordinal") -> pd.DataFrame:
    """Krippendorff's alpha per dimension; NaN when fewer than two raters overlap on an output."""
    import krippendorff

    rows = []
    for dim in dimensions:
        data = reliability_matrix(ratings, dim)
        pairable = int((np.sum(~np.isnan(data), axis=0) >= 2).sum()) if data.size else 0
        alpha = math.nan
        if data.shape[0] >= 2 and pairable >= 1:
            values = np.unique(data[~np.isnan(data)])
            if len(values) >= 2:
                # The value domain is the 1-5 scale, so an unused score still counts as a rank step.
                domain = np.union1d(values, np.arange(1, 6)) if level == "ordinal" else None
                alpha = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=domain))
        rows.append({"dimension": dim, "alpha": alpha, "raters": int(data.shape[0]), "units_pairable": pairable})
    return pd.DataFrame(rows, columns=["dimension", "alpha", "raters", "units_pairable"])


def ppl_correlation(ratings: pd.DataFrame, ppl_by_output: Mapping[Any, float], dimensions: Sequence[str] = DIMENSIONS) -> pd.DataFrame:
    """Spearman rho between each output's PPL and its mean score per dimension."""
    per_output = ratings.groupby("output_id")[list(dimensions)].mean(numeric_only=True)
    ppl = pd.Series({k: v for k, v in ppl_by_output.items()}, dtype=float)
    joined = per_output.join(ppl.rename("ppl"), how="inner").dropna(subset=["ppl"])
    rows = []
    for dim in dimensions:
        sub = joined[["ppl", dim]].dropna()
        rho = p = math.nan
        if len(sub) >= 3 and sub["ppl"].nunique() > 1 and sub[dim].nunique() > 1:
            res = stats.spearmanr(sub["ppl"], sub[dim])
            rho, p = float(res.statistic), float(res.pvalue)
        rows.append({"dimension": dim, "spearman_rho": rho, "p_value": p, "n_outputs": int(len(sub))})
    return pd.DataFrame(rows, columns=["dimension", "spearman_rho", "p_value", "n_outputs"])
