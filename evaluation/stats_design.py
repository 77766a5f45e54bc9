"""Simulated rating studies: calibration of the primary analysis and a power planner.

A simulated study has `items` prompts, each answered once by every method (one output per item and
method), and `raters` raters who score every output. A rating is

    clip(round(mean + method effect + item + rater + output + noise), 1, 5)

with item ~ N(0, sd_item), rater ~ N(0, sd_rater), output ~ N(0, sd_output) (one draw per output:
its own quality), noise ~ N(0, sd_resid) per rating. Positions follow a rotation over items and
raters, as the blind tab's balanced order does, and `position_effect` adds to the latent score of
whatever is shown first.

Because every random effect is normal, the expected *observed* score of a method (after rounding
and clipping) has a closed form: the latent score is N(mean + effect, total variance), so
E[score] = sum_k k * P(latent rounds to k). `expected_scores` gives it; it is the known value a
CI of a method difference must cover.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from . import human

DEFAULT_SD = {"item": 0.7, "rater": 0.4, "output": 0.6, "resid": 0.8}


@dataclass(frozen=True)
class Design:
    items: int = 20
    raters: int = 3
    methods: int = 3
    mean: float = 3.2
    sd_item: float = DEFAULT_SD["item"]
    sd_rater: float = DEFAULT_SD["rater"]
    sd_output: float = DEFAULT_SD["output"]
    sd_resid: float = DEFAULT_SD["resid"]
    effects: tuple[float, ...] = ()  # latent shift per method (missing = 0)
    position_effect: float = 0.0  # latent shift of the output shown first

    def effect(self, m: int) -> float:
        return self.effects[m] if m < len(self.effects) else 0.0

    @property
    def total_sd(self) -> float:
        return math.sqrt(self.sd_item**2 + self.sd_rater**2 + self.sd_output**2 + self.sd_resid**2)


METHOD_NAMES = tuple("ABCDEFGHIJ")


def latent(design: Design, rng: np.random.Generator, n_studies: int = 1) -> np.ndarray:
    """Latent scores, shape (studies, items, raters, methods), position effect included."""
    s, i, r, m = n_studies, design.items, design.raters, design.methods
    x = (
        design.mean
        + np.array([design.effect(k) for k in range(m)])[None, None, None, :]
        + rng.normal(0, design.sd_item, (s, i, 1, 1))
        + rng.normal(0, design.sd_rater, (s, 1, r, 1))
        + rng.normal(0, design.sd_output, (s, i, 1, m))
        + rng.normal(0, design.sd_resid, (s, i, r, m))
    )
    if design.position_effect:
        x = x + design.position_effect * (positions(design) == 0)[None]
    return x


def observed(x: np.ndarray) -> np.ndarray:
    return np.clip(np.round(x), 1, 5)


def positions(design: Design) -> np.ndarray:
    """(items, raters, methods) display positions, 0 = first: a rotation by item and rater."""
    i = np.arange(design.items)[:, None, None]
    r = np.arange(design.raters)[None, :, None]
    m = np.arange(design.methods)[None, None, :]
    return (m + i + r) % design.methods


def simulate(design: Design, seed: int | np.random.Generator = 0, study_id: int = 1) -> pd.DataFrame:
    """One study as a ratings frame (the columns of `human.REQUIRED_COLUMNS`); the three dimensions
    are independent draws of the same design."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    scores = [observed(latent(design, rng))[0] for _ in human.DIMENSIONS]
    i, r, m = np.meshgrid(np.arange(design.items), np.arange(design.raters), np.arange(design.methods), indexing="ij")
    pos = positions(design)
    frame = pd.DataFrame(
        {
            "study_id": study_id,
            "item_id": i.ravel(),
            "output_id": (i * design.methods + m).ravel(),
            "method": np.array(METHOD_NAMES)[m.ravel()],
            "rater": np.char.add("r", r.ravel().astype(str)),
            "position": pos.ravel(),
        }
    )
    for dim, sc in zip(human.DIMENSIONS, scores):
        frame[dim] = sc.ravel().astype(int)
    return frame


def expected_scores(design: Design) -> np.ndarray:
    """E[observed score] per method: the latent score is normal, so the rounding bins' probabilities
    give it exactly (position effect not included)."""
    sd = design.total_sd
    out = []
    for k in range(design.methods):
        mu = design.mean + design.effect(k)
        cuts = np.array([-np.inf, 1.5, 2.5, 3.5, 4.5, np.inf])
        p = np.diff(stats.norm.cdf((cuts - mu) / sd))
        out.append(float(np.dot(p, np.arange(1, 6))))
    return np.array(out)


# ---- calibration -----------------------------------------------------------------------------------


@dataclass
class Calibration:
    design: Design
    n_null: int
    n_known: int
    fpr_wilcoxon: float  # one pre-specified pair, unadjusted, alpha = 0.05
    fpr_friedman: float
    fpr_any_holm: float  # any pair significant after Holm (familywise)
    true_diff: float
    coverage_t: float  # the primary CI (t over item differences)
    coverage_percentile: float  # percentile bootstrap over items, for comparison
    mean_ci_width_t: float
    mixed_reps: int = 0
    fpr_mixed: float = math.nan
    coverage_mixed: float = math.nan
    extra: dict[str, Any] = field(default_factory=dict)

    def lines(self) -> list[str]:
        d = self.design
        out = [
            f"design: {d.items} items x {d.raters} raters x {d.methods} methods, SDs item {d.sd_item}, rater {d.sd_rater}, "
            f"output {d.sd_output}, rating {d.sd_resid}; scores rounded and clipped to 1-5",
            f"false-positive rate at alpha=0.05 over {self.n_null} null studies: Wilcoxon on items (one pair) "
            f"{self.fpr_wilcoxon:.3f}, Friedman {self.fpr_friedman:.3f}, any pair after Holm {self.fpr_any_holm:.3f}",
            f"coverage of the 95% CI of a known difference ({self.true_diff:+.3f} on the 1-5 scale) over {self.n_known} "
            f"studies: t interval over items {self.coverage_t:.3f} (mean width {self.mean_ci_width_t:.2f}), "
            f"percentile bootstrap over items {self.coverage_percentile:.3f}",
        ]
        if self.mixed_reps:
            out.append(
                f"mixed model (REML, Wald 95%) over {self.mixed_reps} studies each: false-positive rate "
                f"{self.fpr_mixed:.3f}, coverage {self.coverage_mixed:.3f}"
            )
        return out


def _percentile_ci(diff: np.ndarray, rng: np.random.Generator, n_resamples: int = 1000) -> tuple[float, float]:
    idx = rng.integers(0, len(diff), (n_resamples, len(diff)))
    boot = diff[idx].mean(axis=1)
    return float(np.quantile(boot, 0.025)), float(np.quantile(boot, 0.975))


def calibrate(
    design: Design = Design(),
    n_null: int = 500,
    n_known: int = 500,
    known_effect: float = 0.5,
    seed: int = 0,
    mixed_reps: int = 0,
    dimension: str = human.DIMENSIONS[0],
) -> Calibration:
    """Simulate null studies (no method effect) and studies where the last method is shifted by
    `known_effect` on the latent scale, and run the app's own functions on each: the false-positive
    rates of the primary tests, and how often the 95% CI of the known difference (on the observed
    1-5 scale, `expected_scores`) covers it."""
    rng = np.random.default_rng(seed)
    null = replace(design, effects=())
    hits_w = hits_f = hits_any = 0
    for _ in range(n_null):
        df = simulate(null, rng)
        pw = human.pairwise_wilcoxon(df, [dimension])
        hits_w += bool(pw["p_value"].iloc[0] < 0.05)
        hits_any += bool((pw["p_holm"] < 0.05).any())
        if design.methods >= 3:
            hits_f += bool(human.friedman(df, [dimension])["p_value"].iloc[0] < 0.05)
    known = replace(design, effects=(0.0,) * (design.methods - 1) + (known_effect,))
    truth = expected_scores(known)
    true_diff = float(truth[-1] - truth[0])
    a, b = METHOD_NAMES[design.methods - 1], METHOD_NAMES[0]
    cover_t = cover_p = 0
    widths = []
    for _ in range(n_known):
        df = simulate(known, rng)
        pw = human.pairwise_wilcoxon(df, [dimension], methods=[a, b]).iloc[0]
        cover_t += bool(pw["ci_low"] <= true_diff <= pw["ci_high"])
        widths.append(pw["ci_high"] - pw["ci_low"])
        table = human.item_table(df, dimension)
        lo, hi = _percentile_ci((table[a] - table[b]).to_numpy(float), rng)
        cover_p += bool(lo <= true_diff <= hi)
    result = Calibration(
        design=design,
        n_null=n_null,
        n_known=n_known,
        fpr_wilcoxon=hits_w / n_null,
        fpr_friedman=hits_f / n_null if design.methods >= 3 else math.nan,
        fpr_any_holm=hits_any / n_null,
        true_diff=true_diff,
        coverage_t=cover_t / n_known,
        coverage_percentile=cover_p / n_known,
        mean_ci_width_t=float(np.mean(widths)),
    )
    if mixed_reps:
        fp = cov = 0
        for _ in range(mixed_reps):
            mm, _ = human.mixed_model(simulate(null, rng), [dimension])
            row = mm[(mm["method_a"] == METHOD_NAMES[0]) & (mm["method_b"] == METHOD_NAMES[1])].iloc[0]
            fp += bool(row["p_value"] < 0.05)
            mm, _ = human.mixed_model(simulate(known, rng), [dimension])
            row = mm[(mm["method_a"] == b) & (mm["method_b"] == a)].iloc[0]
            cov += bool(row["ci_low"] <= -true_diff <= row["ci_high"])
        result.mixed_reps, result.fpr_mixed, result.coverage_mixed = mixed_reps, fp / mixed_reps, cov / mixed_reps
    return result


# ---- power ------------------------------------------------------------------------------------------


def _holm_rows(p: np.ndarray) -> np.ndarray:
    """Holm adjustment along the last axis (NaN treated as 1)."""
    p = np.where(np.isnan(p), 1.0, p)
    order = np.argsort(p, axis=-1, kind="stable")
    sorted_p = np.take_along_axis(p, order, axis=-1)
    m = p.shape[-1]
    adj = np.minimum(1.0, np.maximum.accumulate(sorted_p * (m - np.arange(m)), axis=-1))
    out = np.empty_like(adj)
    np.put_along_axis(out, order, adj, axis=-1)
    return out


def simulated_power(design: Design, n_studies: int = 300, alpha: float = 0.05, seed: int = 0) -> float:
    """Share of simulated studies in which the pair (last method, first method) is significant by
    the primary analysis: Wilcoxon on item means, Holm over all method pairs. Vectorised over
    studies (the same test as `human.pairwise_wilcoxon`, which a test checks)."""
    rng = np.random.default_rng(seed)
    scores = observed(latent(design, rng, n_studies))  # (S, I, R, M)
    item_means = scores.mean(axis=2)  # (S, I, M)
    pairs = [(a, b) for a in range(design.methods) for b in range(a + 1, design.methods)]
    pvals = np.full((n_studies, len(pairs)), np.nan)
    for k, (a, b) in enumerate(pairs):
        diff = item_means[:, :, a] - item_means[:, :, b]
        nonzero = np.count_nonzero(diff, axis=1) > 0
        if nonzero.any() and design.items <= human.EXACT_MAX_N:
            pvals[nonzero, k] = human.signed_rank_exact_p(diff[nonzero])  # what scipy gives, faster
        elif nonzero.any():
            with np.errstate(all="ignore"):
                pvals[nonzero, k] = stats.wilcoxon(diff[nonzero], axis=1, zero_method="wilcox").pvalue
    target = pairs.index((0, design.methods - 1))
    return float((_holm_rows(pvals)[:, target] < alpha).mean())


def pilot_sds(ratings: pd.DataFrame, dimension: str) -> dict[str, float]:
    """Standard deviations of item, rater, output and rating noise from a pilot study's ratings (the
    mixed model's variance components; 1/12 is taken off the residual for the rounding to integers,
    which the simulation adds back). Missing components (one rater, one rating per output) get the
    defaults."""
    _, vc = human.mixed_model(ratings, [dimension])
    var = dict(zip(vc["component"], vc["variance"]))
    if not var:
        raise ValueError("the pilot ratings are too few to estimate variances (need 2+ items and 2+ methods)")
    return {
        "item": math.sqrt(max(var.get("item", DEFAULT_SD["item"] ** 2), 0.0)),
        "rater": math.sqrt(max(var.get("rater", DEFAULT_SD["rater"] ** 2), 0.0)),
        "output": math.sqrt(max(var.get("output", DEFAULT_SD["output"] ** 2), 0.0)),
        "resid": math.sqrt(max(var.get("residual", DEFAULT_SD["resid"] ** 2) - 1 / 12, 0.01)),
    }


def power_grid(
    delta: float,
    items: Sequence[int] = (8, 12, 16, 24, 32, 48, 64),
    raters: Sequence[int] = (1, 2, 3, 5),
    methods: int = 3,
    sds: Mapping[str, float] | None = None,
    mean: float = 3.2,
    n_studies: int = 200,
    alpha: float = 0.05,
    seed: int = 0,
) -> pd.DataFrame:
    """Power to detect a difference `delta` (latent scale, about the 1-5 scale away from the ends)
    between two of `methods` methods, for each items x raters design (every rater rates every item)."""
    sds = {**DEFAULT_SD, **(sds or {})}
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
                sd_output=sds["output"],
                sd_resid=sds["resid"],
                effects=(0.0,) * (methods - 1) + (float(delta),),
            )
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


def plan(delta: float, target: float = 0.8, **kwargs: Any) -> tuple[pd.DataFrame, str]:
    """The power grid and one line: the design with the fewest ratings that reaches `target`."""
    grid = power_grid(delta, **kwargs)
    ok = grid[grid["power"] >= target].sort_values(["ratings", "items"])
    methods = kwargs.get("methods", 3)
    if ok.empty:
        best = grid.sort_values("power").iloc[-1]
        line = (
            f"No design in the grid reaches {target:.0%} power for Δ = {delta:g}; the best is {int(best['items'])} items × "
            f"{int(best['raters'])} raters ({best['power']:.0%}). Add items: they help more than raters."
        )
    else:
        best = ok.iloc[0]
        line = (
            f"{int(best['items'])} items × {int(best['raters'])} rater{'s' if best['raters'] != 1 else ''} ({int(best['ratings'])} ratings with {methods} methods) "
            f"give {best['power']:.0%} power to detect Δ = {delta:g} between two methods (Wilcoxon on items, Holm over all "
            f"pairs, α = {kwargs.get('alpha', 0.05)}), by simulation."
        )
    return grid, line
