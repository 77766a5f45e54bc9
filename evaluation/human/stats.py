"""Statistics over human ratings, on the store's `ratings_frame()` (one row per rating), fixed in
advance. The words for each result are in `evaluation.human.words`, the command line in
`evaluation.human.cli` (a map of the package: `evaluation/human/__init__.py`). The full reference, with the
calibration behind every choice, is docs/statistics.md.

Items and raters are both samples: the claim is about prompts and raters in general. The unit of
data is the cell (item, rater, method): a rater's mean score over the method's samples on the item.

  * per method: the mean over items of the item means; its variance from REML variance
    components of item, rater and residual (`evaluation.human.reml`), with Satterthwaite degrees
    of freedom, so 3 raters give an interval about as wide as 2 degrees of freedom make it;
  * pairwise (the primary analysis): per (item, rater) the difference a - b, so a rater's taste
    for a method is a rater component of the difference, shared by all their items. The estimate
    is the mean over items of the item mean differences, its variance comes from item, rater and
    residual components, its test is t with Satterthwaite df;
  * with 1-2 raters the rater component cannot be estimated: raters enter as fixed effects and
    every statement holds for these raters only (`scope`);
  * one family for the headline: every pair x dimension, adjusted together by a step-down max-T
    (the correlation of the estimates from a two-way cluster covariance, Gaussian copula on the t
    p-values), never above Holm over the same family;
  * secondary: item-level Wilcoxon and Friedman (raters as fixed, exploratory), a mixed model
    score ~ method + (1|item) + (1|rater) + (1|output) + (1|rater:method) + (1|item:rater) by REML
    with Satterthwaite df, Krippendorff's alpha, the position effect, perplexity vs scores.
"""

from __future__ import annotations

import itertools
import json
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import special

from common import messages
from common.rubric import DEFAULT_RUBRIC

from . import crossed, reml
from .columns import DIMENSIONS
from .crossed import MIN_RANDOM_RATERS, SCOPE_ALL, SCOPE_ITEMS, SCOPE_THESE, Estimate, estimator_weights

DEFAULT_SCALE: tuple[int, int] = (DEFAULT_RUBRIC.dimensions[0].low, DEFAULT_RUBRIC.dimensions[0].high)

AlphaLevel = Literal["nominal", "ordinal", "interval", "ratio"]  # Krippendorff's levels of measurement
ALPHA = 0.05
FAMILY_DRAWS = 20000  # Monte Carlo draws of the max-T null (p error about 0.0015 near 0.05)


class DuplicateRatingsWarning(UserWarning):
    """The same rater rated the same output more than once; one rating was kept."""


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
    labels = {name: messages.text("rater_pseudonym", n=i) for i, name in enumerate(first["rater"], start=1)}
    return ratings.assign(rater=ratings["rater"].map(labels))


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
        df = df[
            df["study_id"].astype(str).isin(keys)
            | df.get("study_name", pd.Series(index=df.index, dtype=str)).astype(str).isin(keys)
        ]
    for col, value in (("scenario", scenario), ("rater", rater)):
        values = _as_list(value)
        if values is not None:
            df = df[df[col].astype(str).isin({str(v) for v in values})]
    return df


def duplicate_ratings(ratings: pd.DataFrame) -> pd.Series:
    """True for every row that repeats an earlier (study, rater, output)."""
    keys = [c for c in ("study_id", "rater", "output_id") if c in ratings]
    if len(keys) < 3 or ratings.empty:
        return pd.Series(False, index=ratings.index)
    return ratings.duplicated(keys, keep="last")


def collapse_duplicates(ratings: pd.DataFrame) -> pd.DataFrame:
    """One rating per (study, rater, output): a repeat keeps the last row (the store never holds
    two; a concatenated file may), with a DuplicateRatingsWarning. Every analysis below starts here,
    so all of them see the same ratings."""
    dup = duplicate_ratings(ratings)
    if not dup.any():
        return ratings
    warnings.warn(
        f"{int(dup.sum())} repeated rating(s) of the same output by the same rater: the last one of each is kept",
        DuplicateRatingsWarning,
        stacklevel=2,
    )
    return ratings[~dup]


def method_order(ratings: pd.DataFrame, methods: Sequence[str] | None = None) -> list[str]:
    """The methods in the study's order whatever the row order: `methods` given, else the export's
    `study_methods` (a JSON list), else sorted by name; methods rated but not listed come last, sorted."""
    seen = sorted({str(m) for m in ratings["method"].dropna()}) if len(ratings) else []
    listed: list[str] = [str(m) for m in methods] if methods is not None else []
    if methods is None and "study_methods" in ratings and len(ratings):
        for raw in ratings["study_methods"].dropna().unique():
            try:
                value = json.loads(raw) if isinstance(raw, str) else list(raw)
            except (TypeError, ValueError):
                continue
            listed += [str(m) for m in value if str(m) not in listed]
    head = [m for m in dict.fromkeys(listed) if m in seen]
    return head + [m for m in seen if m not in head]


def scored(ratings: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """The rows with a score on `dimension`, the score in `_score`. A "can't judge" answer has no
    score (NaN): it is missing data, never a 0 or a 3 put in its place."""
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


@dataclass(frozen=True)
class Cube:
    """Each rater's mean score per item and method (over the method's samples), items x raters x
    methods, NaN where there is no score: the cells every analysis starts from."""

    values: np.ndarray
    items: list
    raters: list
    methods: list[str]

    def method(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(values, item codes, rater codes) of one method's cells."""
        v = self.values[:, :, self.methods.index(name)]
        i, r = np.nonzero(~np.isnan(v))
        return v[i, r], i, r

    def difference(self, a: str, b: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(a - b, item codes, rater codes) over the (item, rater) cells where both have a score."""
        d = self.values[:, :, self.methods.index(a)] - self.values[:, :, self.methods.index(b)]
        i, r = np.nonzero(~np.isnan(d))
        return d[i, r], i, r


def cube(ratings: pd.DataFrame, dimension: str, methods: Sequence[str] | None = None) -> Cube:
    """The `Cube` of one dimension, methods in `method_order`."""
    order = method_order(ratings, methods)
    score = pd.to_numeric(ratings[dimension], errors="coerce").to_numpy(float) if len(ratings) else np.array([])
    # items and raters coded over all rows, so that the codes of every dimension agree
    item_codes, items = pd.factorize(ratings["item_id"].to_numpy(), sort=True)
    rater_codes, raters = pd.factorize(ratings["rater"].astype(str).to_numpy(), sort=True)
    where = {m: k for k, m in enumerate(order)}
    method_codes = np.array([where.get(str(m), -1) for m in ratings["method"].to_numpy()], dtype=int)
    keep = (method_codes >= 0) & ~np.isnan(score)
    shape = (len(items), len(raters), len(order))
    total, count = np.zeros(shape), np.zeros(shape)
    idx = (item_codes[keep], rater_codes[keep], method_codes[keep])
    np.add.at(total, idx, score[keep])
    np.add.at(count, idx, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)
    present = [k for k in range(len(order)) if count[:, :, k].any()]
    return Cube(values[:, :, present], list(items), list(raters), [order[k] for k in present])


def cells(ratings: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """One row per (item, rater, method) with a score: the rater's mean over the method's samples
    on the item (a rater counts once per item and method)."""
    c = cube(ratings, dimension)
    i, r, m = np.nonzero(~np.isnan(c.values))
    return pd.DataFrame(
        {
            "item_id": np.asarray(c.items, dtype=object)[i],
            "rater": np.asarray(c.raters, dtype=object)[r],
            "method": np.asarray(c.methods, dtype=object)[m],
            "score": c.values[i, r, m],
        }
    )


def item_table(ratings: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Items x methods: each method's score on an item, the mean over its raters of the cells. NaN =
    not rated."""
    c = cube(ratings, dimension)
    if not c.values.size:
        return pd.DataFrame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an item a method has no score on: NaN
        means = np.nanmean(c.values, axis=1)
    table = pd.DataFrame(means, index=pd.Index(c.items, name="item_id"), columns=pd.Index(c.methods, name="method"))
    return table.dropna(how="all")


# ---- per method ----------------------------------------------------------------------------------

MEANS_COLUMNS = [
    "method",
    "dimension",
    "mean",
    "ci_low",
    "ci_high",
    "n",
    "n_ratings",
    "n_raters",
    "df",
    "status",
    "scope",
]


def method_means(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] = DIMENSIONS,
    methods: Sequence[str] | None = None,
    level: float = 0.95,
    **_: Any,
) -> pd.DataFrame:
    """One row per method x dimension: mean over items of the item means with its `level` interval
    (`crossed_mean`), n = items, n_ratings = scores behind it, n_raters, df, status and scope."""
    keys: list[tuple[str, str, int]] = []
    data: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for dim in dimensions:
        if dim not in ratings or not len(ratings):
            continue
        c = cube(ratings, dim, methods)
        n_scores = scored(ratings, dim)["method"].astype(str).value_counts()
        for method in c.methods:
            keys.append((dim, method, int(n_scores.get(method, 0))))
            data.append(c.method(method))
    estimates, _ = crossed.method_intervals(data, level)
    rows = [
        {
            "method": method,
            "dimension": dim,
            "mean": e.estimate,
            "ci_low": e.ci_low,
            "ci_high": e.ci_high,
            "n": e.n_items,
            "n_ratings": n_ratings,
            "n_raters": e.n_raters,
            "df": e.df,
            "status": e.status,
            "scope": e.scope,
        }
        for (dim, method, n_ratings), e in zip(keys, estimates)
    ]
    return pd.DataFrame(rows, columns=MEANS_COLUMNS)


# ---- pairwise: the primary analysis ----------------------------------------------------------------

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
    "se",
    "df",
    "n_raters",
    "status",
    "scope",
    "family",
]


@dataclass
class _Contrast:
    dimension: str
    a: str
    b: str
    estimate: Estimate
    items: np.ndarray  # item code per cell
    raters: np.ndarray  # rater code per cell
    psi: np.ndarray  # influence per cell: w * (d - estimate)
    weights: np.ndarray  # each cell's weight in the estimate (`crossed.estimator_weights`)


def pairwise(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] = DIMENSIONS,
    methods: Sequence[str] | None = None,
    level: float = 0.95,
    adjust: Literal["max-T", "holm"] = "max-T",
    seed: int = 0,
) -> pd.DataFrame:
    """The primary analysis: `pairwise_analysis` without the taste."""
    return pairwise_analysis(ratings, dimensions, methods, level, adjust, seed)[0]


def pairwise_analysis(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] = DIMENSIONS,
    methods: Sequence[str] | None = None,
    level: float = 0.95,
    adjust: Literal["max-T", "holm"] = "max-T",
    seed: int = 0,
) -> tuple[pd.DataFrame, crossed.Taste]:
    """The primary analysis: per method pair (in `method_order`) and dimension, the mean over items
    of the (item, rater) differences a - b with its interval and t test (`crossed_mean`), and
    `p_holm` adjusted over the whole family of pairs x dimensions (`adjust`: step-down max-T, or
    Holm). `family` says which family and adjustment. Returns (frame, the pooled taste)."""
    keys: list[tuple[str, str, str]] = []
    data: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    pieces = 0
    for dim in dimensions:
        if dim not in ratings or not len(ratings):
            continue
        c = cube(ratings, dim, methods)
        pieces += max(len(c.methods) - 1, 0)
        for a, b in itertools.combinations(c.methods, 2):
            keys.append((dim, a, b))
            data.append(c.difference(a, b))
    estimates, taste = crossed.differences(data, pieces, level)
    contrasts = []
    for (dim, a, b), (d, i, r), est in zip(keys, data, estimates):
        w = estimator_weights(i, r) if len(d) else d
        contrasts.append(_Contrast(dim, a, b, est, i, r, w * (d - est.estimate), w))
    adjusted, family = adjust_family(contrasts, adjust, seed)
    rows = []
    for k, con in enumerate(contrasts):
        e: Estimate = con.estimate
        rows.append(
            {
                "dimension": con.dimension,
                "method_a": con.a,
                "method_b": con.b,
                "n_pairs": e.n_items,
                "mean_diff": e.estimate,
                "ci_low": e.ci_low,
                "ci_high": e.ci_high,
                "statistic": e.statistic,
                "p_value": e.p_value,
                "p_holm": adjusted[k],
                "se": e.se,
                "df": e.df,
                "n_raters": e.n_raters,
                "status": e.status,
                "scope": e.scope,
                "family": family,
            }
        )
    return pd.DataFrame(rows, columns=PAIRWISE_COLUMNS), taste


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


def family_words(n_tests: int, n_dims: int, adjust: str, lang: str = "en") -> str:
    how = messages.text("hw_step_down_max_t" if adjust == "max-T" else "hw_holm", lang)
    return messages.text("hw_family", lang, n=n_tests, dims=n_dims, how=how)


def adjust_family(contrasts: Sequence[_Contrast], adjust: str = "max-T", seed: int = 0) -> tuple[list[float], str]:
    """Family-adjusted p-values over every testable contrast, and the family in words. max-T takes its
    null from sign flips of the items where the items are the only sample in the fitted model (raters
    fixed, or the pooled taste left out, and no rater carrying most of a contrast: `max_t_flips`), from
    sign flips of the raters where the prompts are fixed, else from the model's covariance of the
    estimates (`family_covariance`). Where one rater carries most of a contrast (`by_rater`
    estimates) the family is Holm's."""
    p = np.array([c.estimate.p_value for c in contrasts], dtype=float)
    ok = [int(k) for k in np.flatnonzero(np.isfinite(p))]
    out = [math.nan] * len(contrasts)
    n_dims = len({contrasts[k].dimension for k in ok})
    family = family_words(len(ok), n_dims, adjust)
    if not ok:
        return out, family
    holm_p: np.ndarray = np.asarray(holm(p[ok].tolist()), dtype=float)
    chosen = [contrasts[k] for k in ok]
    scopes = {c.estimate.scope for c in chosen}
    if adjust == "holm" or len(ok) == 1 or (SCOPE_ITEMS in scopes and len(scopes) > 1):
        adj = holm_p
    elif scopes == {SCOPE_ITEMS}:  # the prompts fixed: the raters are the sample, their signs flip
        adj = max_t_flips(rater_contributions(chosen), p[ok], holm_p, seed=seed)
    elif any(_lopsided(c) for c in chosen):
        # rater-mean estimates (`by_rater`): a correlation estimated from 4-7 raters made max-T liberal
        # (6 methods, one rater with 80%: 0.10), and Holm needs none
        adj, family = holm_p, family_words(len(ok), n_dims, "holm")
    elif not any(_taste(c) > 0 for c in chosen):
        adj = max_t_flips(item_contributions(chosen), p[ok], holm_p, seed=seed)
    else:
        adj = max_t_stepdown(p[ok], correlation(family_covariance(chosen)), holm_p, seed=seed)
    for j, k in enumerate(ok):
        out[k] = float(adj[j])
    return out, family


def _lopsided(c: _Contrast) -> bool:
    """One rater carries most of the contrast (`crossed.lopsided`): its estimate is `by_rater`'s, whose
    units are the raters, so flipping the items' signs is no null for it."""
    return crossed.lopsided(c.items, c.raters)


def _taste(c: _Contrast) -> float:
    """The pooled taste variance in a contrast's estimate (0 where it did not enter)."""
    return float(c.estimate.components.get("rater (pooled taste)", 0.0))


def item_contributions(contrasts: Sequence[_Contrast]) -> np.ndarray:
    """Items x contrasts: each item's share of each estimate (its weighted sum of differences; the
    estimate is the column sum), 0 where a contrast has no cell on the item."""
    codes = np.concatenate([c.items for c in contrasts])
    n_items = int(codes.max()) + 1 if len(codes) else 0
    X = np.zeros((n_items, len(contrasts)))
    for j, c in enumerate(contrasts):
        np.add.at(X[:, j], c.items, c.psi + c.weights * c.estimate.estimate)
    return X[np.any(X != 0, axis=1)]


def rater_contributions(contrasts: Sequence[_Contrast]) -> np.ndarray:
    """Raters x contrasts: each rater's share of each estimate (the weighted sum of their differences),
    0 where a contrast has no cell of the rater: `item_contributions` with the raters as the sample,
    for one or two prompts (items fixed)."""
    codes = np.concatenate([c.raters for c in contrasts])
    n_raters = int(codes.max()) + 1 if len(codes) else 0
    X = np.zeros((n_raters, len(contrasts)))
    for j, c in enumerate(contrasts):
        np.add.at(X[:, j], c.raters, c.psi + c.weights * c.estimate.estimate)
    return X[np.any(X != 0, axis=1)]


def taste_pattern(keys: Sequence[tuple[Any, Any, Any]]) -> np.ndarray:
    """Covariance pattern of the taste parts of differences (dimension, a, b) per unit of a rater's
    taste variance for one method: taste for a - b and for c - e share +1 for a = c or b = e and -1 for
    a = e or b = c, within a dimension (the model draws each dimension's taste on its own)."""
    dim = np.array([k[0] for k in keys], dtype=object)
    a = np.array([k[1] for k in keys], dtype=object)
    b = np.array([k[2] for k in keys], dtype=object)
    same = (a[:, None] == a[None, :]).astype(float) - (a[:, None] == b[None, :]) - (b[:, None] == a[None, :])
    same += b[:, None] == b[None, :]
    return same * (dim[:, None] == dim[None, :])


def family_covariance(contrasts: Sequence[_Contrast]) -> np.ndarray:
    """Covariance of the contrasts' estimates as the fitted model has it: the items' part from the
    item-cluster covariance of the influence values (items are independent draws; small-sample factor
    I / (I - 1), which makes it the balanced ANOVA's), plus the pooled taste where it entered, from its
    one variance and the pattern of which methods two differences share (`taste_pattern`), weighted
    by each rater's share of each estimate.

    Why not the two-way cluster covariance (items + raters - cells) that was here before: its rater
    part is a K x K matrix from R - 1 = 2 degrees of freedom with 3 raters, of rank 2, even where the
    pre-test found no taste and the marginal tests leave it out. It made the estimates look more
    correlated than they are and the max-T liberal (variance-only design: 0.051 against 0.039 with the
    true correlation, 2,000 closed-form null studies)."""
    K = len(contrasts)
    k = np.concatenate([np.full(len(c.psi), j) for j, c in enumerate(contrasts)])
    items = np.concatenate([c.items for c in contrasts])
    raters = np.concatenate([c.raters for c in contrasts])
    psi = np.concatenate([c.psi for c in contrasts])
    _, item_code = np.unique(items, return_inverse=True)
    sums = np.zeros((K, int(item_code.max()) + 1 if len(item_code) else 0))
    np.add.at(sums, (k, item_code), psi)
    n_items = sums.shape[1]
    cov = sums @ sums.T * (n_items / (n_items - 1) if n_items > 1 else 1.0)
    taste = np.array([_taste(c) for c in contrasts])
    if np.any(taste > 0):
        _, rater_code = np.unique(raters, return_inverse=True)
        weights = np.zeros((K, int(rater_code.max()) + 1))
        w = np.concatenate([c.weights for c in contrasts])
        np.add.at(weights, (k, rater_code), w)
        pattern = taste_pattern([(c.dimension, c.a, c.b) for c in contrasts])
        cov = cov + np.sqrt(np.outer(taste, taste)) / 2 * pattern * (weights @ weights.T)
    return cov


def correlation(cov: np.ndarray) -> np.ndarray:
    """The correlation matrix of a covariance estimate, clipped to positive semi-definite first."""
    vals, vecs = np.linalg.eigh((cov + cov.T) / 2)
    cov = (vecs * np.clip(vals, 0, None)) @ vecs.T
    sd = np.sqrt(np.clip(np.diag(cov), 1e-300, None))
    corr = cov / np.outer(sd, sd)
    np.fill_diagonal(corr, 1.0)
    return corr


_DRAWS: dict[tuple[str, int, int, int], np.ndarray] = {}


def _cached(kind: str, draws: int, k: int, seed: int) -> np.ndarray:
    """Null draws made once per kind, shape and seed (the adjusted p-values of a study are then the
    same on every run): standard normals (k x draws), or sign patterns of k items (draws x k; all
    2**k of them when that is no more than `draws`, exactly enumerated)."""
    key = (kind, draws, k, seed)
    if key not in _DRAWS:
        if len(_DRAWS) > 64:
            _DRAWS.clear()
        rng = np.random.default_rng(seed)
        if kind == "normal":
            _DRAWS[key] = rng.standard_normal((k, draws))
        elif 2**k <= draws:
            _DRAWS[key] = 1.0 - 2.0 * ((np.arange(2**k)[:, None] >> np.arange(k)[None, :]) & 1)
        else:
            _DRAWS[key] = rng.choice(np.array([-1.0, 1.0]), size=(draws, k))
    return _DRAWS[key]


def _stepdown(stat: np.ndarray, null: np.ndarray, p: np.ndarray, upper: np.ndarray | None) -> np.ndarray:
    """Step-down max-T adjusted p-values of observed |statistics| `stat` (k) against null draws of
    them (k x draws), each between the raw `p` and `upper`."""
    k, draws = null.shape
    order = np.argsort(-stat, kind="stable")
    null = null[order]
    exceed = np.empty(k)
    running = np.zeros(draws)
    for j in range(k - 1, -1, -1):  # the maximum over the hypotheses still in play at step j
        np.maximum(running, null[j], out=running)
        exceed[j] = np.count_nonzero(running >= stat[order[j]])
    adj_sorted = np.maximum.accumulate(exceed / draws)
    upper = np.ones_like(p) if upper is None else np.asarray(upper, dtype=float)
    out = np.empty_like(p)
    out[order] = adj_sorted
    none = np.empty(k, dtype=bool)
    none[order] = exceed == 0
    out = np.where(none, upper, np.clip(out, p, upper))
    out[order] = np.maximum.accumulate(out[order])  # keep the step-down order monotone after clipping
    return np.minimum(out, upper)


def max_t_stepdown(
    p: np.ndarray, corr: np.ndarray, upper: np.ndarray | None = None, draws: int = FAMILY_DRAWS, seed: int = 0
) -> np.ndarray:
    """Step-down max-T adjusted p-values (Westfall & Young) for two-sided tests with marginal
    p-values `p` whose estimates have correlation `corr`: the p-values go to the normal scale and the
    null distribution of their maximum is drawn from N(0, corr). Each adjusted p lies between the
    raw p and `upper` (Holm's, which max-T can never exceed in theory; the bound removes Monte Carlo
    noise at tiny p)."""
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    p = np.asarray(p, dtype=float)
    z = stats.norm.isf(np.clip(p, 1e-300, 1.0) / 2)
    vals, vecs = np.linalg.eigh(corr)
    root = vecs * np.sqrt(np.clip(vals, 0, None))
    with reml.one_thread():
        null = np.abs(root @ _cached("normal", draws, len(p), seed))
    return _stepdown(z, null, p, upper)


def max_t_flips(
    X: np.ndarray, p: np.ndarray, upper: np.ndarray | None = None, draws: int = FAMILY_DRAWS, seed: int = 0
) -> np.ndarray:
    """Step-down max-T adjusted p-values by sign flips of the items: `X` is items x contrasts, each
    item's share of each estimate (`item_contributions`). The statistic of contrast k is
    sum_i X_ik / sqrt(sum_i X_ik^2), a monotone function of its one-sample t on the items, and its
    null is sum_i s_i X_ik / sqrt(sum_i X_ik^2) over sign patterns s shared by every contrast (all
    2**items of them up to `draws`, else `draws` seeded ones).

    Why: where the fitted model has the items as its only sample (raters fixed, or the pooled taste
    left out by its pre-test), the items are independent and under the null each item's vector of
    differences is as likely as its negative, so the flips give the exact joint null of the whole
    family and need no estimated correlation. A normal null from a covariance estimated from the
    items does not: 20 items estimate a K x K correlation of rank at most 19, its eigenvalues spread,
    the contrasts look more correlated than they are and the max-T is liberal, the more so the fewer
    the items (closed-form null studies, 6 methods, 45 tests: 20 items x 2 raters 0.064 against 0.057
    with flips and 0.056 with the true correlation, 2,000 studies; 8 items x 2 raters 0.073 against
    0.057, 1,000). Where the taste entered there is no exact flip (a rater's taste is shared by all
    their items; 3 raters have 8 sign patterns), and `max_t_stepdown` with `family_covariance` is used.
    The statistic is not studentised per draw: its denominator does not change under flips.
    """
    p = np.asarray(p, dtype=float)
    X = np.asarray(X, dtype=float)
    norm = np.sqrt(np.sum(X**2, axis=0))
    norm = np.where(norm > 0, norm, 1.0)
    signs = _cached("flip", draws, X.shape[0], seed)
    with reml.one_thread():
        null = np.abs(signs @ X).T / norm[:, None]
    return _stepdown(np.abs(X.sum(axis=0)) / norm, null, p, upper)


# ---- item-level tests with raters fixed (secondary, exploratory) ----------------------------------

EXACT_MAX_N = 13  # scipy's own limit: up to 2**13 sign patterns it enumerates them all


def signed_rank_exact_p(diffs: np.ndarray) -> np.ndarray:
    """Two-sided p of the Wilcoxon signed-rank test by enumerating all 2**n sign flips, for rows of
    n <= 13 differences (zeros dropped from the ranking, ties given average ranks). The same p as
    scipy's `wilcoxon(method="auto")` on a row with ties or zeros (its exact permutation test), and
    as its exact distribution on a row without: vectorised over rows and much faster."""
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

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
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

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


def t_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): Student's t interval of the mean; NaN bounds under two values or when
    every value is the same (no interval can be built from no variation)."""
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if len(x) < 2 or np.ptp(x) == 0:
        return mean, math.nan, math.nan
    half = float(stats.t.ppf(0.5 + level / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return mean, mean - half, mean + half


WILCOXON_COLUMNS = PAIRWISE_COLUMNS[:10]


def pairwise_wilcoxon(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] = DIMENSIONS,
    methods: Sequence[str] | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    """Item-level analysis with raters fixed (the primary analysis before issue 22, now exploratory):
    per pair and dimension the item mean differences a - b, their t CI, the Wilcoxon signed-rank
    test, Holm within a dimension. It ignores that a rater's taste is shared by their items (see
    docs/statistics.md: 0.13 false positives with rater x method taste)."""
    rows = []
    order = method_order(ratings, methods)
    for dim in dimensions:
        table = item_table(ratings, dim)
        names = [m for m in order if m in table.columns]
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
    return pd.DataFrame(rows, columns=WILCOXON_COLUMNS)


def friedman(
    ratings: pd.DataFrame, dimensions: Sequence[str] = DIMENSIONS, methods: Sequence[str] | None = None
) -> pd.DataFrame:
    """Friedman chi-square across all methods per dimension, on the items every method was rated on
    (items as blocks, raters fixed: exploratory, not part of the headline family)."""
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    rows = []
    order = method_order(ratings, methods)
    for dim in dimensions:
        table = item_table(ratings, dim)
        table = table[[m for m in order if m in table.columns]].dropna() if len(table) else table
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


# ---- mixed model -----------------------------------------------------------------------------------

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
    "df",
    "scope",
]
VC_COLUMNS = ["dimension", "component", "variance", "sd"]


def fit_mixed(
    ratings: pd.DataFrame,
    dimension: str,
    methods: Sequence[str] | None = None,
    fixed: Mapping[str, float] | None = None,
    unconstrained: Sequence[str] = (),
    start: Mapping[str, float] | None = None,
):
    """score ~ method + (1|item) + (1|rater) + (1|output) + (1|rater:method) + (1|item:rater) by
    REML (`reml`). The output term: each output is one sample rated by several raters; the
    rater:method term: a rater's taste for a method is shared by all their items; item:rater: a
    rater's mood on one item is shared by the methods. With fewer than MIN_RANDOM_RATERS raters,
    rater and rater:method are fixed (sum-coded) and the contrasts hold for these raters only.
    `fixed` / `unconstrained` go to `fit_reml`. Returns (fit, methods, scope); fit is None when
    the model cannot be fitted."""
    df = scored(ratings, dimension)
    order = [m for m in method_order(ratings, methods) if m in set(df["method"].astype(str))]
    raters = df["rater"].astype(str).to_numpy()
    n_raters = len(set(raters))
    scope = SCOPE_ALL if n_raters >= MIN_RANDOM_RATERS else SCOPE_THESE
    if len(order) < 2 or df["item_id"].nunique() < crossed.MIN_RANDOM_ITEMS or df["_score"].std() == 0:
        return None, order, scope  # 1-2 prompts: the primary analysis speaks for these prompts; no mixed model
    m = pd.Categorical(df["method"].astype(str), categories=order).codes
    k = len(order)
    X = np.column_stack([np.ones(len(df))] + [(m == j).astype(float) for j in range(1, k)])
    item = df["item_id"].astype(str).to_numpy()
    blocks: dict[str, np.ndarray] = {"item": item, "output": df["output_id"].astype(str).to_numpy()}
    if scope == SCOPE_ALL:
        blocks |= {"rater": raters, "rater:method": np.char.add(np.char.add(raters, "|"), m.astype(str))}
    elif n_raters == 2:
        # raters fixed: a sum-coded rater effect and its interaction with method
        s = np.where(raters == sorted(set(raters))[0], 1.0, -1.0)
        X = np.column_stack([X, s] + [s * (m == j) for j in range(1, k)])
    blocks["item:rater"] = np.char.add(np.char.add(item, "|"), raters)
    y = df["_score"].astype(float).to_numpy()
    if len(y) <= np.linalg.matrix_rank(X) + 1:
        return None, order, scope
    try:
        return reml.fit_reml(y, X, blocks, unconstrained=unconstrained, fixed=fixed, start=start), order, scope
    except (np.linalg.LinAlgError, ValueError):
        return None, order, scope


def mixed_model(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] = DIMENSIONS,
    level: float = 0.95,
    methods: Sequence[str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(contrasts, variance components). Contrasts: every method pair a - b with its `level` t CI
    (Satterthwaite df) and p, and the standardised effect = estimate / total SD (all components).

    The rater:method variance is pooled over the dimensions as in the primary analysis (the
    unconstrained estimate of each dimension averaged, entering when its one-sided test reaches
    `crossed.TASTE_TEST_LEVEL`); each dimension is then refitted with it held there."""
    first = {dim: fit_mixed(ratings, dim, methods, unconstrained=("rater:method",)) for dim in dimensions}
    pooled = [(dim, fit) for dim, (fit, _, scope) in first.items() if fit is not None and "rater:method" in fit.names]
    taste = {"rater:method": 0.0}
    held_var = {"rater:method": 0.0}
    if pooled:
        k = [fit.names.index("rater:method") for _, fit in pooled]
        theta = np.array([fit.theta[j] for (_, fit), j in zip(pooled, k)])
        at = max(float(theta.mean()), 0.0)
        var_at: list[float] = []
        var_null: list[float] = []
        for (_, fit), j in zip(pooled, k):
            for value, out in ((at, var_at), (0.0, var_null)):
                th = np.maximum(fit.theta, 0.0)
                th[j] = value
                out.append(float(np.linalg.pinv(reml.information(fit, th))[j, j]))
        est, se, _, used = crossed.pool_values(theta, np.array(var_at), np.array(var_null), len(pooled))
        if used:
            taste, held_var = {"rater:method": max(float(est), 0.0)}, {"rater:method": float(se) ** 2}
    rows, comps = [], []
    for dim in dimensions:
        fit, names, scope = first[dim]
        if fit is not None and "rater:method" in fit.names:  # refit with the pooled taste held
            fit, names, scope = fit_mixed(ratings, dim, methods, fixed=taste, start=fit.components)
        if fit is None:
            continue
        var = fit.components
        total_sd = math.sqrt(sum(max(v, 0.0) for v in var.values()))
        for name, v in var.items():
            comps.append({"dimension": dim, "component": name, "variance": v, "sd": math.sqrt(max(v, 0.0))})
        for a, b in itertools.combinations(range(len(names)), 2):
            c = np.zeros(fit.X.shape[1])
            if a:
                c[a] += 1.0
            if b:
                c[b] -= 1.0
            est_c, v, df = reml.contrast(fit, c, held_var)
            se_c = math.sqrt(max(v, 0.0))
            ok = se_c > 0 and df > 0
            q = float(special.stdtrit(df, 0.5 + level / 2)) if ok else math.nan
            lo, hi = (est_c - q * se_c, est_c + q * se_c) if ok else (math.nan, math.nan)
            p = float(2 * special.stdtr(df, -abs(est_c) / se_c)) if ok else math.nan
            rows.append(
                {
                    "dimension": dim,
                    "method_a": names[a],
                    "method_b": names[b],
                    "estimate": est_c,
                    "ci_low": lo,
                    "ci_high": hi,
                    "p_value": p,
                    "effect_size": est_c / total_sd if total_sd else math.nan,
                    "effect_ci_low": lo / total_sd if total_sd else math.nan,
                    "effect_ci_high": hi / total_sd if total_sd else math.nan,
                    "df": df,
                    "scope": scope,
                }
            )
    return pd.DataFrame(rows, columns=MIXED_COLUMNS), pd.DataFrame(comps, columns=VC_COLUMNS)


# ---- agreement, position, perplexity -------------------------------------------------------------


def reliability_matrix(ratings: pd.DataFrame, dimension: str) -> np.ndarray:
    """Raters x outputs matrix of scores (NaN = not rated), as `krippendorff.alpha` expects."""
    df = scored(ratings, dimension)
    return df.pivot_table(index="rater", columns="output_id", values="_score", aggfunc="mean").to_numpy(float)


def alpha_of(data: np.ndarray, level: AlphaLevel = "ordinal", scale: tuple[int, int] | None = None) -> float:
    """Krippendorff's alpha of a raters x units matrix; NaN when it is undefined. `scale`: the rubric's
    (low, high): for the ordinal level an unused score still counts as a rank step (default: the
    default rubric's 1-5)."""
    import krippendorff  # late: only agreement needs it

    if data.ndim != 2 or data.shape[0] < 2 or int((np.sum(~np.isnan(data), axis=0) >= 2).sum()) < 1:
        return math.nan
    values = np.unique(data[~np.isnan(data)])
    if len(values) < 2:
        return math.nan
    low, high = scale if scale is not None else DEFAULT_SCALE
    domain = np.union1d(values, np.arange(low, high + 1)) if level == "ordinal" else None
    with np.errstate(all="ignore"):  # no expected disagreement (one value per unit) gives NaN, not a warning
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=domain))


def krippendorff_alpha(
    ratings: pd.DataFrame,
    dimensions: Sequence[str] = DIMENSIONS,
    level: AlphaLevel = "ordinal",
    scales: Mapping[str, tuple[int, int]] | None = None,
) -> pd.DataFrame:
    """Krippendorff's alpha per dimension (on its scale, `scales`); NaN when fewer than two raters
    overlap on an output."""
    rows = []
    for dim in dimensions:
        data = reliability_matrix(ratings, dim)
        pairable = int((np.sum(~np.isnan(data), axis=0) >= 2).sum()) if data.size else 0
        rows.append(
            {
                "dimension": dim,
                "alpha": alpha_of(data, level, (scales or {}).get(dim)) if data.size else math.nan,
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
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    rows = []
    if "position" not in ratings:
        return pd.DataFrame(columns=POSITION_COLUMNS)
    for dim in dimensions:
        df = scored(ratings, dim)
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
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

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
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

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
                "method": messages.english("stat_partialled"),
                "spearman_rho": rho,
                "p_value": p,
                "n_outputs": int(len(sub)),
            }
        )
    return pd.DataFrame(rows, columns=PPL_COLUMNS)
