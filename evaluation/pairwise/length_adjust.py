"""A length-adjusted method contrast for 1-5 studies, to show next to the primary one.

Decoders differ most in how long they write, and raters reward length. The model, per dimension,
on the item scores of the primary analysis (each method's score on an item is the mean over the
item's raters, `evaluation.human.stats.item_table`):

    score[i, m] = alpha_i + mu_m + beta * log2(length[i, m]) + error

with alpha_i one constant per item (each item is its own baseline, as in the paired primary
analysis), mu_m one per method, and length[i, m] the mean length (new tokens, plus one) of method
m's outputs on item i. beta is the gain in score per doubling of length, learnt from the items
where a method wrote longer or shorter than it usually does relative to the others (the item and
method constants take out everything else), so it is not simply "the longer method was better".
The adjusted contrast is mu_a - mu_b: the gap that remains between two methods that wrote
equally long. Without the length term the same model gives the unadjusted contrast, which on
complete data is the primary analysis's mean item difference.

Ordinary least squares; standard errors robust to any correlation within an item (the
leave-one-item-out jackknife, CR3) and t intervals with items - 1 degrees of freedom.
Length is partly how a method does its job, so the adjusted contrast answers a narrower question
("at equal length, which do raters prefer?"), never a better one; the table shows both.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

LENGTH_COLUMNS_OUT = [
    "dimension",
    "method_a",
    "method_b",
    "n_items",
    "diff",
    "ci_low",
    "ci_high",
    "diff_length_adjusted",
    "ci_low_length_adjusted",
    "ci_high_length_adjusted",
    "p_length_adjusted",
    "length_slope",
    "length_slope_ci_low",
    "length_slope_ci_high",
]


def _cluster_ols(y: np.ndarray, X: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OLS coefficients and their leave-one-cluster-out jackknife covariance (CR3:
    (G - 1) / G * (X'X)^-1 sum_g X_g' (I - H_gg)^-1 e_g e_g' (I - H_gg)^-1 X_g (X'X)^-1). For a
    plain mean it is exactly the paired t interval's variance. With 25 items the CR1 sandwich
    covered 92-93% of the time; this one's coverage is in docs/pairwise.md."""
    xtx_inv = np.linalg.pinv(X.T @ X)
    beta = xtx_inv @ X.T @ y
    resid = y - X @ beta
    codes = np.unique(groups, return_inverse=True)[1]
    g = int(codes.max()) + 1
    meat = np.zeros((X.shape[1], X.shape[1]))
    for c in range(g):
        rows = codes == c
        xg = X[rows]
        leverage = np.eye(int(rows.sum())) - xg @ xtx_inv @ xg.T
        score = xg.T @ np.linalg.lstsq(leverage, resid[rows], rcond=None)[0]
        meat += np.outer(score, score)
    factor = (g - 1) / g if g > 1 else math.nan
    return beta, factor * xtx_inv @ meat @ xtx_inv


def _item_lengths(ratings: pd.DataFrame, length: str) -> pd.DataFrame:
    """Items x methods: mean length of the method's outputs on the item (one value per output)."""
    outputs = ratings.drop_duplicates("output_id") if "output_id" in ratings.columns else ratings
    values = pd.to_numeric(outputs[length], errors="coerce")
    frame = pd.DataFrame(
        {"item_id": outputs["item_id"].to_numpy(), "method": outputs["method"].to_numpy(), "v": values}
    )
    return frame.dropna().groupby(["item_id", "method"], sort=False)["v"].mean().unstack("method")


def length_adjusted_contrast(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] | None = None,
    length: str = "new_tokens",
    level: float = 0.95,
) -> pd.DataFrame:
    """Per dimension and method pair: the unadjusted contrast (diff, a - b, with its interval), the
    length-adjusted contrast with its interval and p, and the length slope (score points per
    doubling of length, shared by all methods of the dimension); see the module docstring.

    `ratings` is the 1-5 frame (`evaluation.human.columns.REQUIRED_COLUMNS`) with a `length` column per
    output (the store's `new_tokens`, or any count); `dimensions` default to all three. Methods
    are in sorted order (method_a before method_b). Raises ValueError without that column."""
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    # late: the 1-5 columns come from the store's schema (SQLAlchemy), which the votes CLI never needs
    from ..human.columns import DIMENSIONS
    from ..human.stats import item_table  # late, as the line above

    if length not in ratings.columns:
        raise ValueError(f"the ratings have no {length!r} column (the output lengths)")
    lengths = _item_lengths(ratings, length)
    rows = []
    for dim in DIMENSIONS if dimensions is None else dimensions:
        scores = item_table(ratings, dim)
        if scores.empty:
            continue
        long = scores.stack().rename("score").reset_index()
        long["len"] = [
            lengths.at[i, m] if i in lengths.index and m in lengths.columns else math.nan
            for i, m in zip(long["item_id"], long["method"])
        ]
        long = long.dropna()
        methods = sorted(set(long["method"]))
        items = list(dict.fromkeys(long["item_id"]))
        if len(methods) < 2 or len(items) < 2:
            continue
        item_idx = long["item_id"].map({v: k for k, v in enumerate(items)}).to_numpy(int)
        method_idx = long["method"].map({v: k for k, v in enumerate(methods)}).to_numpy(int)
        base = np.zeros((len(long), len(items) + len(methods) - 1))
        base[np.arange(len(long)), item_idx] = 1.0
        for m in range(1, len(methods)):
            base[method_idx == m, len(items) + m - 1] = 1.0
        x = np.log2(long["len"].to_numpy(float) + 1.0)
        y = long["score"].to_numpy(float)
        df = len(items) - 1
        tq = stats.t.ppf(0.5 + level / 2, df)
        fits = {}
        for adjusted, X in ((False, base), (True, np.column_stack([base, x]))):
            fits[adjusted] = _cluster_ols(y, X, item_idx)
        slope = fits[True][0][-1]
        slope_se = math.sqrt(max(fits[True][1][-1, -1], 0.0))
        for a, b in itertools.combinations(range(len(methods)), 2):
            contrast = {}
            for adjusted, (beta, cov) in fits.items():
                c = np.zeros(len(beta))
                if a:
                    c[len(items) + a - 1] += 1.0
                if b:
                    c[len(items) + b - 1] -= 1.0
                est = float(c @ beta)
                se = math.sqrt(max(float(c @ cov @ c), 0.0))
                contrast[adjusted] = (est, se)
            both = long.groupby("item_id")["method"].agg(lambda s: {methods[a], methods[b]} <= set(s)).sum()
            (d, se), (da, sea) = contrast[False], contrast[True]
            rows.append(
                {
                    "dimension": dim,
                    "method_a": methods[a],
                    "method_b": methods[b],
                    "n_items": int(both),
                    "diff": d,
                    "ci_low": d - tq * se,
                    "ci_high": d + tq * se,
                    "diff_length_adjusted": da,
                    "ci_low_length_adjusted": da - tq * sea,
                    "ci_high_length_adjusted": da + tq * sea,
                    "p_length_adjusted": float(2 * stats.t.sf(abs(da) / sea, df)) if sea > 0 else math.nan,
                    "length_slope": slope,
                    "length_slope_ci_low": slope - tq * slope_se,
                    "length_slope_ci_high": slope + tq * slope_se,
                }
            )
    return pd.DataFrame(rows, columns=LENGTH_COLUMNS_OUT)
