"""Simulated guessing studies, to calibrate the blinding index's interval (evaluation/blinding.py).

A design has I items, R raters, k responses per item; each (item, rater) answer is missing with
probability `missing`, "don't know" with probability `dont_know`, and otherwise right with probability
logistic(logit(p) + rater effect + item effect): `p_correct` None is random guessing (1/k, no effects),
`rater_sd` gives raters their own skill, `item_sd` items that are easier or harder to recognise. The
truth a study's interval should cover is these raters' index over the population of items (the item
effect integrated out by Gauss-Hermite quadrature), which is 0 under random guessing.

`calibrate` analyses every simulated study with the app's own `score_interval` and returns how often
the interval excludes 0 (under random guessing: the false "the blind did not hold") and how often it
misses the truth. tests/test_blinding.py runs a seeded subset; benchmarks/bench_blinding.py the grid.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .blinding import score_interval

QUADRATURE_POINTS = 40


@dataclass(frozen=True)
class GuessDesign:
    items: int = 16
    raters: int = 3
    k: int = 3
    dont_know: float = 0.0
    missing: float = 0.0
    p_correct: float | None = None  # None: random guessing
    rater_sd: float = 0.0  # logit scale
    item_sd: float = 0.0  # logit scale

    def label(self) -> str:
        guess = "random" if self.p_correct is None else f"p={self.p_correct:g}"
        extra = "".join(
            f" {name}={value:g}"
            for name, value in (
                ("dk", self.dont_know),
                ("miss", self.missing),
                ("rater_sd", self.rater_sd),
                ("item_sd", self.item_sd),
            )
            if value
        )
        return f"I={self.items} R={self.raters} k={self.k} {guess}{extra}"


def _logit(p: float) -> float:
    return float(np.log(p / (1 - p)))


def simulate(
    design: GuessDesign, n_studies: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(item means (S, I) with NaN for unanswered items, answers per item (S, I), don't-know share (S,),
    truth (S,)) for `n_studies` simulated studies."""
    S, I, R, k = n_studies, design.items, design.raters, design.k
    chance = 1.0 / k
    answered = rng.random((S, I, R)) >= design.missing
    dont_know = rng.random((S, I, R)) < design.dont_know
    if design.p_correct is None:
        rater_logit = np.full((S, 1, R), _logit(chance))
        item_effect = np.zeros((S, I, 1))
        item_sd = 0.0
    else:
        rater_logit = _logit(design.p_correct) + design.rater_sd * rng.standard_normal((S, 1, R))
        item_effect = design.item_sd * rng.standard_normal((S, I, 1))
        item_sd = design.item_sd
    p = 1.0 / (1.0 + np.exp(-(rater_logit + item_effect)))
    correct = rng.random((S, I, R)) < p
    s = np.where(dont_know, 0.0, np.where(correct, 1.0, -1.0 / (k - 1)))
    r = answered.sum(axis=2).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(r > 0, np.where(answered, s, 0.0).sum(axis=2) / np.where(r > 0, r, 1.0), np.nan)
    n_answers = answered.sum(axis=(1, 2))
    share = np.where(n_answers > 0, (dont_know & answered).sum(axis=(1, 2)) / np.maximum(n_answers, 1), 0.0)
    # these raters' expected p over the population of items
    nodes, weights = np.polynomial.hermite_e.hermegauss(QUADRATURE_POINTS)
    weights = weights / weights.sum()
    expected_p = (weights / (1.0 + np.exp(-(rater_logit[..., None] + item_sd * nodes)))).sum(axis=-1)[:, 0, :]
    truth = (1.0 - design.dont_know) * (expected_p.mean(axis=1) - chance) / (1.0 - chance)
    return means, r, share, truth


@dataclass
class Calibration:
    design: GuessDesign
    studies: int
    excludes_zero: float  # share of studies whose 95% CI excludes 0
    above_zero: float  # ... lies above 0 ("the blind did not hold")
    misses_truth: float  # share whose CI does not cover the truth
    truth: float  # mean truth over the studies
    mean_width: float

    def line(self) -> str:
        return (
            f"{self.design.label():<52} excl. 0: {self.excludes_zero:6.1%} (above {self.above_zero:5.1%})  "
            f"misses truth {self.truth:+.2f}: {self.misses_truth:6.1%}  mean width {self.mean_width:.2f}"
        )

    def as_dict(self) -> dict:
        return {**{k: v for k, v in vars(self).items() if k != "design"}, "design": asdict(self.design)}


def calibrate(design: GuessDesign, n_studies: int = 2000, seed: int = 0, chunk: int = 2000) -> Calibration:
    """Simulate `n_studies` studies of `design` and analyse each with `score_interval`."""
    rng = np.random.default_rng(seed)
    excl = above = miss = 0
    truths, widths = [], []
    done = 0
    while done < n_studies:
        n = min(chunk, n_studies - done)
        means, r, share, truth = simulate(design, n, rng)
        _, lo, hi = score_interval(means, r, design.k, share)
        ok = ~np.isnan(lo)
        excl += int(((lo > 0) | (hi < 0))[ok].sum())
        above += int((lo > 0)[ok].sum())
        miss += int(((lo > truth) | (hi < truth))[ok].sum())
        truths.append(truth[ok])
        widths.append((hi - lo)[ok])
        done += n
    analysed = int(sum(len(t) for t in truths))
    return Calibration(
        design,
        analysed,
        excl / analysed,
        above / analysed,
        miss / analysed,
        float(np.concatenate(truths).mean()),
        float(np.concatenate(widths).mean()),
    )


# Random guessing in the designs a small study has: few items, one to five raters, don't-knows,
# missing answers, two to four responses.
NULL_DESIGNS: tuple[GuessDesign, ...] = (
    GuessDesign(items=6, raters=1),
    GuessDesign(items=8, raters=1),
    GuessDesign(items=8, raters=2),
    GuessDesign(items=4, raters=2),
    GuessDesign(items=8, raters=3, dont_know=0.3),
    GuessDesign(items=12, raters=1, dont_know=0.5),
    GuessDesign(items=16, raters=1),
    GuessDesign(items=16, raters=3, dont_know=0.3, missing=0.2),
    GuessDesign(items=8, raters=5, dont_know=0.1, missing=0.3),
    GuessDesign(items=8, raters=1, k=2),
    GuessDesign(items=5, raters=1, k=2),
    GuessDesign(items=8, raters=2, k=4, dont_know=0.2),
    GuessDesign(items=32, raters=2),
    GuessDesign(items=20, raters=10),
)
# A known non-zero index: recognisable methods, raters with their own skill, items easier or harder,
# and raters who are systematically wrong.
KNOWN_DESIGNS: tuple[GuessDesign, ...] = (
    GuessDesign(items=8, raters=1, p_correct=0.8),
    GuessDesign(items=8, raters=3, dont_know=0.2, p_correct=0.6),
    GuessDesign(items=16, raters=2, missing=0.2, p_correct=0.7, rater_sd=1.0),
    GuessDesign(items=8, raters=2, p_correct=0.95),
    GuessDesign(items=24, raters=3, dont_know=0.1, missing=0.1, p_correct=0.5, rater_sd=1.5),
    GuessDesign(items=8, raters=1, k=2, p_correct=0.75),
    GuessDesign(items=32, raters=5, dont_know=0.2, missing=0.2, p_correct=0.55, rater_sd=0.5),
    GuessDesign(items=16, raters=3, p_correct=0.6, item_sd=1.5),
    GuessDesign(items=8, raters=3, p_correct=0.7, rater_sd=0.5, item_sd=1.0),
    GuessDesign(items=12, raters=2, p_correct=0.15),
)
