"""Calibration of the human-rating analysis across study designs, and the power planner.

`calibrate` runs the app's own functions (`evaluation.human.stats`) on simulated studies
(`evaluation.human.sim`) and counts: null studies (no method differs) give the false-positive rate
on the headline family (any pair x dimension significant after the family adjustment); studies
where the last method is shifted give how often the 95% CIs cover the known values (a difference,
and every method's mean) and how often the shifted pair is found (power, max-T against Holm on the
same p-values). `DESIGNS` are the designs of the calibration table in docs/statistics.md;
`calibrations` runs several over one pool of processes.

`simulated_power` is the planner's engine: the primary analysis in closed form on complete
(every rater rates every item) simulated studies, vectorised over studies; a test checks it gives
the p-values of `stats.pairwise`.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from itertools import zip_longest
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from common import messages

from . import crossed
from . import stats as hs
from .sim import (
    DEFAULT_SD,
    METHOD_NAMES,
    Design,
    conditional_scores,
    expected_scores,
    latent,
    observed,
    population_scores,
    positions,
    prompt_scores,
    simulate,
    simulate_study,
)

__all__ = [
    "DEFAULT_SD",
    "DESIGNS",
    "METHOD_NAMES",
    "Calibration",
    "Design",
    "calibrate",
    "calibrations",
    "closed_form_calibration",
    "conditional_scores",
    "expected_scores",
    "latent",
    "observed",
    "pilot_sds",
    "plan",
    "population_scores",
    "positions",
    "power_grid",
    "prompt_scores",
    "simulate",
    "simulate_study",
    "simulated_power",
    "study_tests",
]

ALPHA = hs.ALPHA

# A sampler survey as published ones run it: one prompt, several settings, a 1-10 scale, two questions,
# dozens of respondents, a quarter of whom fail an attention item and answer at random (they are
# excluded, the rule declared in advance). The latent SDs are the base design's in 1-10 units (x 9/4);
# with one prompt the outputs are fixed (no output SD: what one sample of a method is like on this
# prompt is part of "these prompts only").
SURVEY = Design(
    items=1,
    raters=60,
    methods=4,
    mean=5.5,
    sd_item=1.6,
    sd_rater=0.9,
    sd_rater_method=0.7,
    sd_output=0.0,
    sd_resid=1.8,
    scale=(1, 10),
    dimensions=("quality", "diversity"),
    attention_fail=0.25,
)

# A yes/no question (common/questions/yes_no.py): the base design's latent scores, 0 below the cut at
# 0.5 and 1 above it; a latent mean of 0.3 puts about 45% of the answers at "yes".
YES_NO = Design(mean=0.3, scale=(0, 1), dimensions=("correct", "on topic"))

# The calibration table's designs: the README's base design, then one change at a time.
DESIGNS: dict[str, tuple[str, Design]] = {
    "base": ("20 items × 3 raters × 3 methods (SDs item 0.7, rater 0.4, output 0.6, rating 0.8)", Design()),
    "taste": ("raters' own taste for a method, SD 0.3 (and their severity, SD 0.4)", Design(sd_rater_method=0.3)),
    "missing": ("15% can't judge, 10% of items skipped", Design(cant_judge=0.15, skipped=0.10)),
    "few raters": ("2 raters × 6 methods (15 pairs), 2 samples", Design(raters=2, methods=6, samples=2)),
    "incomplete": ("8 raters, 2–3 per item", Design(raters=8, raters_per_item=(2, 3))),
    "ceiling": ("ceiling: mean 4.5, most scores 4–5", Design(mean=4.5)),
    "position": ("position effect +0.3 for the first shown, balanced by design", Design(position_effect=0.3)),
    "correlated": ("the three dimensions correlated 0.8", Design(dim_correlation=0.8)),
    "variance": (
        "methods differing only in variance (output SD 0.3, 0.6, 1.0)",
        Design(mean=3.0, output_sds=(0.3, 0.6, 1.0)),
    ),
    "samples": ("2 samples per (item, method)", Design(samples=2)),
    # issue 34: real studies' designs
    "pilot": ("6 items × 3 raters (a pilot)", Design(items=6)),
    "dominant": (
        "one rater gives 80% of the ratings (20 items, 5 raters; taste SD 0.3)",
        Design(items=20, raters=5, dominant=0.8, sd_rater_method=0.3),
    ),
    "two prompts": (
        "2 prompts × 40 raters, each rater 1–2 of them (taste SD 0.3)",
        Design(items=2, raters=40, items_per_rater=(1, 2), sd_output=0.0, sd_rater_method=0.3),
    ),
    "ordinal": (
        "ordinal thresholds with a ceiling (cuts 1.5, 2.3, 3.0, 3.6; mean 4.2: half the scores are 5)",
        Design(mean=4.2, cuts=(1.5, 2.3, 3.0, 3.6)),
    ),
    "survey": (
        "1 prompt × 60 raters × 4 methods, 1–10, two questions, a quarter fail an attention item (excluded)",
        SURVEY,
    ),
    # issue 46: yes/no questions, stored 0/1 and analysed as proportions by the same machinery. The
    # latent model is the base design's with one cut: "yes" when the latent score passes 0.5.
    "yes-no": ("yes/no, 20 items × 3 raters × 3 methods (about 45% yes)", YES_NO),
    "yes-no rare": (
        "yes/no, rare yes (about 15%), 8 raters, 2–3 per item",
        replace(YES_NO, mean=-0.8, raters=8, raters_per_item=(2, 3)),
    ),
}


@dataclass
class Calibration:
    name: str
    label: str
    design: Design
    n_null: int
    n_known: int
    effect: float
    fwer: float  # headline family (pairs x dimensions), step-down max-T: the primary analysis
    fwer_holm: float  # the same p-values, Holm over the same family
    fwer_item: float  # before issue 22: item-level Wilcoxon, Holm within a dimension, any dimension
    coverage: float  # 95% CI of the known difference (last - first method, first dimension)
    coverage_means: float  # 95% CIs of every method's mean (first dimension)
    power: float  # the shifted pair found, max-T
    power_holm: float  # ... Holm
    true_diff: float  # last - first method, population
    scope: str
    mixed_reps: int = 0
    fwer_mixed: float = math.nan  # mixed model, Holm over its pairs x dimensions
    coverage_mixed: float = math.nan
    seconds: float = 0.0  # CPU time of its studies (over every worker)
    extra: dict[str, Any] = field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        return {
            "design": self.label,
            "false positives (max-T)": self.fwer,
            "Holm": self.fwer_holm,
            "item-level (before)": self.fwer_item,
            "CI coverage, difference": self.coverage,
            "CI coverage, per method": self.coverage_means,
            "power max-T": self.power,
            "power Holm": self.power_holm,
            "mixed model false positives": self.fwer_mixed,
            "mixed model coverage": self.coverage_mixed,
        }

    def targets_met(self) -> bool:
        ok = 0.03 <= self.fwer <= 0.07 and 0.93 <= self.coverage <= 0.97 and 0.93 <= self.coverage_means <= 0.97
        if self.mixed_reps:
            ok = ok and 0.03 <= self.fwer_mixed <= 0.07 and 0.93 <= self.coverage_mixed <= 0.97
        return ok


@dataclass
class _Counts:
    null: int = 0
    known: int = 0
    mixed: int = 0
    fwer: int = 0
    fwer_holm: int = 0
    fwer_item: int = 0
    cover: int = 0
    cover_means: int = 0
    n_means: int = 0
    power: int = 0
    power_holm: int = 0
    fwer_mixed: int = 0
    cover_mixed: int = 0
    scope: str = ""

    def add(self, other: _Counts) -> _Counts:
        for k in vars(self):
            if k != "scope":
                setattr(self, k, getattr(self, k) + getattr(other, k))
        self.scope = self.scope or other.scope
        return self


def _analysed(design: Design, frame: pd.DataFrame) -> pd.DataFrame:
    """The ratings the analysis sees: with attention items, the raters who failed one are excluded (the
    rule "drop raters who fail any attention item", declared before the study)."""
    if design.attention_fail and "attention_passed" in frame:
        return frame[frame["attention_passed"].astype(bool)]
    return frame


def _run(design: Design, n_null: int, n_known: int, mixed_reps: int, effect: float, seed: int) -> _Counts:
    """One worker's share of `calibrate` (own random stream)."""
    rng = np.random.default_rng(seed)
    c = _Counts()
    dims = list(design.dimensions)
    dim0 = dims[0]
    first, last = METHOD_NAMES[0], METHOD_NAMES[design.methods - 1]
    known = design.with_effect(effect)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n_null):
            frame = _analysed(design, simulate(design, rng))
            pw = hs.pairwise(frame, dims)
            c.fwer += bool((pw["p_holm"] < ALPHA).any())
            c.fwer_holm += bool((np.array(hs.holm(pw["p_value"])) < ALPHA).any())
            c.fwer_item += bool((hs.pairwise_wilcoxon(frame, dims)["p_holm"] < ALPHA).any())
            c.null += 1
        for _ in range(n_known):
            frame, truth = simulate_study(known, rng)
            frame = _analysed(design, frame)
            pw = hs.pairwise(frame, dims)
            k = int(np.flatnonzero((pw["dimension"] == dim0) & (pw["method_a"] == first) & (pw["method_b"] == last))[0])
            row = pw.iloc[k]
            t = truth.of(str(row["scope"]))
            c.cover += bool(row["ci_low"] <= t[0] - t[-1] <= row["ci_high"])
            c.power += bool(row["p_holm"] < ALPHA)
            c.power_holm += bool(hs.holm(pw["p_value"])[k] < ALPHA)
            c.scope = str(row["scope"])
            for r in hs.method_means(frame, [dim0]).to_dict("records"):
                t_m = truth.of(str(r["scope"]))[METHOD_NAMES.index(r["method"])]
                c.cover_means += bool(r["ci_low"] <= t_m <= r["ci_high"])
                c.n_means += 1
            c.known += 1
        for _ in range(mixed_reps):
            mm, _ = hs.mixed_model(_analysed(design, simulate(design, rng)), dims)
            c.fwer_mixed += bool((np.array(hs.holm(mm["p_value"])) < ALPHA).any()) if len(mm) else False
            frame, truth = simulate_study(known, rng)
            mm, _ = hs.mixed_model(_analysed(design, frame), dims)
            row = mm[(mm["dimension"] == dim0) & (mm["method_a"] == first) & (mm["method_b"] == last)].iloc[0]
            t = truth.of(str(row["scope"]))
            c.cover_mixed += bool(row["ci_low"] <= t[0] - t[-1] <= row["ci_high"])
            c.mixed += 1
    return c


CHUNK = 25  # studies of each kind per worker job: small enough to keep every worker busy to the end


def _chunks(n: int, size: int = CHUNK) -> list[int]:
    return [min(size, n - k) for k in range(0, n, size)]


def _resolve(design: Design | str) -> tuple[str, str, Design]:
    if isinstance(design, str):
        label, d = DESIGNS[design]
        return design, label, d
    return "custom", "custom design", design


def _timed_run(*args: Any) -> tuple[_Counts, float]:
    start = time.process_time()
    return _run(*args), time.process_time() - start


def calibrations(
    designs: Sequence[Design | str],
    n_null: int = 500,
    n_known: int = 500,
    effect: float = 0.5,
    seed: int = 0,
    mixed_reps: int | Sequence[int] = 0,
    workers: int = 1,
) -> Iterator[Calibration]:
    """`calibrate` for several designs (the k-th seeded `seed + k`) over one pool of `workers`
    processes that works through every design's chunks, yielding each design's Calibration in order
    as soon as it is complete. `seconds`: the CPU time its chunks took."""
    mixed = [mixed_reps] * len(designs) if isinstance(mixed_reps, int) else list(mixed_reps)
    plans = []
    for k, design in enumerate(designs):
        d = _resolve(design)[2]
        sizes = list(zip_longest(_chunks(n_null), _chunks(n_known), _chunks(mixed[k]), fillvalue=0))
        plans.append([(d, a, b, m, effect, (seed + k) * 1000 + j) for j, (a, b, m) in enumerate(sizes)])
    pool = ProcessPoolExecutor(workers) if workers > 1 else None
    try:
        futures = [[pool.submit(_timed_run, *job) if pool else None for job in jobs] for jobs in plans]
        for design, jobs, futs in zip(designs, plans, futures):
            c, cpu = _Counts(), 0.0
            for job, fut in zip(jobs, futs):
                part, t = fut.result() if fut is not None else _timed_run(*job)
                c.add(part)
                cpu += t
            yield _summary(design, c, effect, cpu)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _summary(design: Design | str, c: _Counts, effect: float, seconds: float) -> Calibration:
    name, label, d = _resolve(design)
    truth = population_scores(d.with_effect(effect))
    return Calibration(
        name=name,
        label=label,
        design=d,
        n_null=c.null,
        n_known=c.known,
        effect=effect,
        fwer=c.fwer / max(c.null, 1),
        fwer_holm=c.fwer_holm / max(c.null, 1),
        fwer_item=c.fwer_item / max(c.null, 1),
        coverage=c.cover / max(c.known, 1),
        coverage_means=c.cover_means / max(c.n_means, 1),
        power=c.power / max(c.known, 1),
        power_holm=c.power_holm / max(c.known, 1),
        true_diff=float(truth[-1] - truth[0]),
        scope=c.scope,
        mixed_reps=c.mixed,
        fwer_mixed=c.fwer_mixed / c.mixed if c.mixed else math.nan,
        coverage_mixed=c.cover_mixed / c.mixed if c.mixed else math.nan,
        seconds=seconds,
    )


def calibrate(
    design: Design | str = "base",
    n_null: int = 500,
    n_known: int = 500,
    effect: float = 0.5,
    seed: int = 0,
    mixed_reps: int = 0,
    workers: int = 1,
) -> Calibration:
    """Calibration of one design (a Design or a name in DESIGNS), `workers` processes."""
    return next(iter(calibrations([design], n_null, n_known, effect, seed, mixed_reps, workers)))


# ---- the primary analysis in closed form, vectorised over simulated studies -------------------------


PLANNER_DRAWS = 5000  # max-T draws per simulated study in the planner (p error about 0.003 near 0.05)


def study_tests(cells: np.ndarray, alpha: float = ALPHA, draws: int = hs.FAMILY_DRAWS) -> dict[str, np.ndarray]:
    """The primary analysis (`stats.pairwise`) of complete studies given as cell means, shape
    (studies, dimensions, items, raters, methods): per contrast (dimension-major, pairs in order)
    the estimate, SE, df, raw p and the family-adjusted p, and per study the pooled taste that entered
    (0 where it did not). The max-T step is run only where it can matter (raw p < alpha <= Holm p):
    elsewhere Holm's p already decides."""
    S, D, I, R, M = cells.shape
    pairs = [(a, b) for a in range(M) for b in range(a + 1, M)]
    d = np.stack([cells[..., a] - cells[..., b] for a, b in pairs], axis=2).reshape(S, D * len(pairs), I, R)
    est = d.mean(axis=(-2, -1))
    ok = np.ptp(d.reshape(S, D * len(pairs), -1), axis=-1) > 0
    items_fixed = R >= crossed.MIN_RANDOM_RATERS and I < crossed.MIN_RANDOM_ITEMS
    applied = np.zeros(S)
    if items_fixed:  # one or two prompts: the raters are the sample (`crossed.balanced_items_fixed`)
        var, df, _ = crossed.balanced_items_fixed(d)
    elif R >= crossed.MIN_RANDOM_RATERS:
        ms = np.stack(crossed.mean_squares(d), axis=-1)  # (S, C, 3)
        theta_v = (ms[..., 1] - ms[..., 2]) / I
        df_r, df_e = R - 1.0, (I - 1.0) * (R - 1.0)
        n_ok = np.maximum(ok.sum(axis=1), 1)
        at = np.maximum(np.where(ok, theta_v, 0.0).sum(axis=1) / n_ok, 0.0)
        var_at = (2 / I**2) * ((ms[..., 2] + I * at[:, None]) ** 2 / df_r + ms[..., 2] ** 2 / df_e)
        var_null = (2 / I**2) * (ms[..., 2] ** 2 / df_r + ms[..., 2] ** 2 / df_e)
        pooled, se, used = np.full(S, np.nan), np.full(S, np.nan), np.zeros(S, dtype=bool)
        for s in range(S):
            if ok[s].any():
                est_s, se_s, _, used_s = crossed.pool_values(
                    theta_v[s][ok[s]], var_at[s][ok[s]], var_null[s][ok[s]], D * (M - 1)
                )
                pooled[s], se[s], used[s] = est_s, se_s, used_s
        applied = np.where(used, np.maximum(pooled, 0.0), 0.0)
        var, var_f, _, _ = crossed.balanced_given_taste(ms, I, R, applied[:, None])
        var = var + (applied / R)[:, None]
        var_f = var_f + np.where(used, se**2, 0.0)[:, None] / R**2
        with np.errstate(invalid="ignore", divide="ignore"):
            df = 2 * var**2 / var_f
    else:
        var, df, _ = crossed.balanced_mean_variance(d, conditional=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        se_c = np.sqrt(var)
        p = np.where(ok, 2 * special.stdtr(df, -np.abs(est / se_c)), np.nan)
    family = np.full_like(p, np.nan)
    keys = [(dim, a, b) for dim in range(D) for a, b in pairs]
    pattern = hs.taste_pattern(keys)
    # (S, C, units): each item's share of each estimate, or each rater's when the prompts are fixed
    contributions = d.mean(axis=-2) / R if items_fixed else d.mean(axis=-1) / I
    for s in range(S):
        good = np.flatnonzero(np.isfinite(p[s]))
        if not len(good):
            continue
        holm_p = np.array(hs.holm(p[s, good]))
        adj = holm_p.copy()
        if len(good) > 1 and np.any((p[s, good] < alpha) & (holm_p >= alpha)):
            X = contributions[s, good].T
            if items_fixed or R < crossed.MIN_RANDOM_RATERS or not applied[s] > 0:
                adj = hs.max_t_flips(X[np.any(X != 0, axis=1)], p[s, good], holm_p, draws=draws)
            else:  # `stats.family_covariance` on a complete table
                centred = X - X.mean(axis=0)
                cov = centred.T @ centred * (I / (I - 1))
                cov = cov + applied[s] / (2 * R) * pattern[np.ix_(good, good)]
                adj = hs.max_t_stepdown(p[s, good], hs.correlation(cov), holm_p, draws=draws)
        family[s, good] = adj
    return {"estimate": est, "se": se_c, "df": df, "p": p, "p_family": family, "taste": applied}


def closed_forms_apply(design: Design) -> bool:
    """Whether `study_tests` analyses the design's studies as the app does: complete tables only (no
    missing cells, no dominant rater, no raters excluded for failing an attention item)."""
    incomplete = design.raters_per_item or design.items_per_rater or design.skipped or design.cant_judge
    return not (incomplete or design.dominant or design.attention_fail)


def _truths(design: Design, draw: dict[str, np.ndarray]) -> np.ndarray:
    """(studies, methods) expected scores of the first dimension for the design's scope."""
    m = len(draw["latent"])
    if design.raters < crossed.MIN_RANDOM_RATERS:  # these raters only: their own expected scores
        return np.array([conditional_scores(design, draw["rater"][s, 0], draw["taste"][s, 0]) for s in range(m)])
    if design.items < crossed.MIN_RANDOM_ITEMS:  # these prompts only: raters in general on them
        return np.array([prompt_scores(design, draw["prompt"][s, 0]) for s in range(m)])
    return np.broadcast_to(population_scores(design), (m, design.methods))


def closed_form_calibration(
    design: Design, n_studies: int, effect: float = 0.5, seed: int = 0, chunk: int = 1000
) -> dict[str, float] | None:
    """The family false-positive rate (max-T and Holm) and the coverage of the shifted difference
    (last - first method, first dimension) over `n_studies` null and `n_studies` shifted complete
    studies, by `study_tests` (the app's p-values, df and decisions on complete tables: a test checks
    it): thousands of studies in seconds, which pins the rates that the app's own run estimates to
    about +-0.03. None where the app's analysis has no closed form (`closed_forms_apply`)."""
    if not closed_forms_apply(design):
        return None
    rng = np.random.default_rng(seed)
    dims, k = len(design.dimensions), design.methods - 2  # pair (first, last) of the first dimension
    known = design.with_effect(effect)
    fwer = fwer_holm = cover = 0
    for start in range(0, n_studies, chunk):
        m = min(chunk, n_studies - start)
        null = study_tests(observed(latent(design, rng, m, dims)["latent"], design).mean(axis=-1))
        fwer += int((np.nan_to_num(null["p_family"], nan=1.0) < ALPHA).any(axis=1).sum())
        fwer_holm += sum(bool((np.array(hs.holm(np.nan_to_num(p, nan=1.0))) < ALPHA).any()) for p in null["p"])
        draw = latent(known, rng, m, dims)
        out = study_tests(observed(draw["latent"], known).mean(axis=-1))
        truth = _truths(known, draw)
        half = special.stdtrit(out["df"][:, k], 0.975) * out["se"][:, k]
        cover += int((np.abs(out["estimate"][:, k] - (truth[:, 0] - truth[:, -1])) <= half).sum())
    return {
        "n": n_studies,
        "fwer": fwer / n_studies,
        "fwer_holm": fwer_holm / n_studies,
        "coverage": cover / n_studies,
    }


def simulated_power(
    design: Design, n_studies: int = 300, alpha: float = ALPHA, seed: int = 0, dims: int = len(hs.DIMENSIONS)
) -> float:
    """Share of simulated studies in which the pair (first, last method) on the first dimension is
    significant by the primary analysis, adjusted over the whole family (every pair x `dims`
    dimensions, independent draws unless the design correlates them). Complete studies only."""
    if not closed_forms_apply(design):
        raise ValueError("the planner simulates complete studies (every rater rates every item)")
    rng = np.random.default_rng(seed)
    cells = observed(latent(design, rng, n_studies, dims)["latent"], design).mean(axis=-1)
    out = study_tests(cells, alpha, draws=PLANNER_DRAWS)
    target = design.methods - 2  # pair (0, M - 1) is the (M - 1)-th pair of the first dimension
    return float(np.nan_to_num(out["p_family"][:, target], nan=1.0).__lt__(alpha).mean())


def pilot_sds(ratings: pd.DataFrame, dimension: str) -> dict[str, float]:
    """Standard deviations of item, rater, taste (rater x method), output and rating noise from a
    pilot study's ratings (the mixed model's variance components; 1/12 is taken off the residual for
    the rounding to integers, which the simulation adds back). Components the pilot cannot estimate
    (one rater, one rating per output) get the defaults (taste: 0)."""
    _, vc = hs.mixed_model(ratings, [dimension])
    var = dict(zip(vc["component"], vc["variance"]))
    if not var:
        raise ValueError("the pilot ratings are too few to estimate variances (need 2+ items and 2+ methods)")

    def sd(name: str, default: float) -> float:
        return math.sqrt(max(var.get(name, default**2), 0.0))

    return {
        "item": sd("item", DEFAULT_SD["item"]),
        "rater": sd("rater", DEFAULT_SD["rater"]),
        "rater_method": sd("rater:method", 0.0),
        "output": sd("output", DEFAULT_SD["output"]),
        "resid": math.sqrt(
            max(var.get("residual", DEFAULT_SD["resid"] ** 2) + var.get("item:rater", 0.0) - 1 / 12, 0.01)
        ),
    }


def power_grid(
    delta: float,
    items: Sequence[int] = (8, 12, 16, 24, 32, 48, 64),
    raters: Sequence[int] = (1, 2, 3, 5),
    methods: int = 3,
    sds: Mapping[str, float] | None = None,
    mean: float = 3.2,
    n_studies: int = 200,
    alpha: float = ALPHA,
    seed: int = 0,
) -> pd.DataFrame:
    """Power to detect a difference `delta` (latent scale, about the 1-5 scale away from the ends)
    between two of `methods` methods, for each items x raters design (every rater rates every
    item), with the primary analysis and its family (every pair x the three dimensions)."""
    sds = {**DEFAULT_SD, "rater_method": 0.0, **(sds or {})}
    rows = []
    for n_items in items:
        for n_raters in raters:
            design = Design(
                items=int(n_items),
                raters=int(n_raters),
                methods=int(methods),
                mean=mean,
                sd_item=sds["item"],
                sd_rater=sds["rater"],
                sd_rater_method=sds["rater_method"],
                sd_output=sds["output"],
                sd_resid=sds["resid"],
            ).with_effect(float(delta))
            power = simulated_power(design, n_studies=n_studies, alpha=alpha, seed=seed + 1000 * n_items + n_raters)
            rows.append(
                {
                    "items": int(n_items),
                    "raters": int(n_raters),
                    "ratings": int(n_items * n_raters * methods),
                    "power": power,
                }
            )
    return pd.DataFrame(rows, columns=["items", "raters", "ratings", "power"])


def plan(delta: float, target: float = 0.8, lang: str = "en", **kwargs: Any) -> tuple[pd.DataFrame, str]:
    """The power grid and one line, in `lang`: the design with the fewest ratings that reaches `target`."""
    grid = power_grid(delta, **kwargs)
    ok = grid[grid["power"] >= target].sort_values(["ratings", "items"])
    methods = kwargs.get("methods", 3)
    how = messages.text("power_how", lang, alpha=kwargs.get("alpha", ALPHA))
    if ok.empty:
        best = grid.sort_values("power").iloc[-1]
        line = messages.text(
            "power_none", lang, target=f"{target:.0%}", delta=f"{delta:g}", items=int(best["items"]),
            raters=int(best["raters"]), power=f"{best['power']:.0%}",
        )  # fmt: skip
    else:
        best = ok.iloc[0]
        n_r = int(best["raters"])
        line = messages.text(
            "power_best", lang, items=int(best["items"]), n=n_r, ratings=int(best["ratings"]), methods=methods,
            power=f"{best['power']:.0%}", delta=f"{delta:g}", how=how,
        )  # fmt: skip
        if n_r < crossed.MIN_RANDOM_RATERS:
            line += messages.text("power_few_raters", lang, n=n_r)
    return grid, line
