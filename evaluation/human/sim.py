"""Simulated rating studies with known answers, for calibration and power.

A study has `items` prompts; each method answers each prompt `samples` times (one output per
sample); raters score outputs on the design's dimensions (default: the default rubric's three), each on
the integer scale `scale`. A rating of output o (item i, method m) by rater r on one dimension is an
ordinal threshold model on the latent score

    mean + effect[m] + item[i] + rater[r] + taste[r, m] + output[o] + noise

with item ~ N(0, sd_item), rater ~ N(0, sd_rater) (severity), taste ~ N(0, sd_rater_method) (a
rater's own liking for a method, shared by every item they rate), output ~ N(0, sd_output or the
method's own `output_sds`) and noise ~ N(0, sd_resid) per rating; the score is the scale point whose
interval between `cuts` holds it (default cuts halfway between points: rounding, clipped to the scale).
Every random effect is drawn per dimension; `dim_correlation` correlates the dimensions' draws. Display
positions rotate over items and raters (the blind tab's balanced order) and `position_effect` adds to
whatever is shown first. Missing data as in real studies: `raters_per_item` gives each item a random
subset of the raters, `items_per_rater` each rater a random subset of the items, `dominant` lets rater 0
give that share of all ratings, `skipped` drops whole (item, rater) pairs, `cant_judge` blanks single
scores. `attention_fail`: that share of raters (at random) fail an attention item and answer at random
(uniform on the scale); their rows carry `attention_passed` False and the truth is the attentive raters'.

The known values an interval must cover have closed forms because every effect is normal: the
latent score is normal, so E[observed] = sum_k k * P(latent falls in k's interval). `population_scores`
averages over items and raters (the claim about both in general); `conditional_scores` fixes the
study's own raters (what a study with 1-2 raters can support); `Truth.items` fixes the study's own
prompts and outputs (what a study of 1-2 prompts can support).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .columns import DIMENSIONS
from .crossed import SCOPE_ITEMS, SCOPE_THESE

DEFAULT_SD = {"item": 0.7, "rater": 0.4, "output": 0.6, "resid": 0.8}
METHOD_NAMES = tuple("ABCDEFGHIJ")


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
    sd_rater_method: float = 0.0  # a rater's own taste for a method
    effects: tuple[float, ...] = ()  # latent shift per method (missing = 0)
    position_effect: float = 0.0  # latent shift of the output shown first
    samples: int = 1  # outputs per (item, method)
    raters_per_item: tuple[int, int] | None = None  # incomplete: each item gets lo..hi of the raters
    skipped: float = 0.0  # share of (item, rater) pairs skipped
    cant_judge: float = 0.0  # share of scores left blank ("can't judge"), per dimension
    dim_correlation: float = 0.0  # correlation of the dimensions' random draws
    output_sds: tuple[float, ...] = ()  # per method (missing = sd_output): methods differing in variance
    scale: tuple[int, int] = (1, 5)  # every dimension's scale
    cuts: tuple[float, ...] = ()  # thresholds between the scale's points (default: halfway)
    dimensions: tuple[str, ...] = field(default=DIMENSIONS)
    items_per_rater: tuple[int, int] | None = None  # incomplete: each rater gets lo..hi of the items
    dominant: float = 0.0  # the share of all ratings rater 0 gives (0: no dominant rater)
    attention_fail: float = 0.0  # the share of raters who fail an attention item and answer at random

    def effect(self, m: int) -> float:
        return self.effects[m] if m < len(self.effects) else 0.0

    def output_sd(self, m: int) -> float:
        return self.output_sds[m] if m < len(self.output_sds) else self.sd_output

    @property
    def total_sd(self) -> float:
        """The SD of one latent score (first method's output SD)."""
        return math.sqrt(
            self.sd_item**2 + self.sd_rater**2 + self.sd_rater_method**2 + self.output_sd(0) ** 2 + self.sd_resid**2
        )

    def with_effect(self, effect: float) -> Design:
        """The same design with the last method shifted by `effect` (the others unchanged)."""
        return replace(self, effects=(0.0,) * (self.methods - 1) + (float(effect),))

    @property
    def thresholds(self) -> np.ndarray:
        """The cut points between the scale's points (low + 0.5, low + 1.5, ... by default)."""
        low, high = self.scale
        if self.cuts:
            if len(self.cuts) != high - low:
                raise ValueError(f"{high - low} cuts are needed for the scale {low}-{high}, not {len(self.cuts)}")
            return np.asarray(self.cuts, dtype=float)
        return np.arange(low, high) + 0.5

    @property
    def points(self) -> np.ndarray:
        return np.arange(self.scale[0], self.scale[1] + 1, dtype=float)

    @property
    def random_items(self) -> bool:
        """Whether the analysis generalises over items (3 or more; else the prompts are fixed)."""
        return self.items >= 3


def _normal(rng: np.random.Generator, shape: tuple[int, ...], sd: float | np.ndarray, rho: float) -> np.ndarray:
    """N(0, sd) draws of shape (S, D, ...) whose D dimensions have correlation rho."""
    z = rng.standard_normal(shape)
    if rho:
        common = rng.standard_normal((shape[0], 1, *shape[2:]))
        z = math.sqrt(rho) * common + math.sqrt(1 - rho) * z
    return z * sd


def positions(design: Design) -> np.ndarray:
    """(items, raters, methods, samples) display positions, 0 = first: a rotation by item and rater."""
    n_out = design.methods * design.samples
    o = np.arange(n_out).reshape(design.methods, design.samples)
    i = np.arange(design.items)[:, None, None, None]
    r = np.arange(design.raters)[None, :, None, None]
    return (o[None, None] + i + r) % n_out


def latent(design: Design, rng: np.random.Generator, n_studies: int = 1, dims: int = 1) -> dict[str, np.ndarray]:
    """Latent scores, shape (studies, dims, items, raters, methods, samples), position effect
    included, with the draws they came from (raters' for the conditional truth, items' and outputs'
    for the truth on these prompts)."""
    s, d, i, r, m, k = n_studies, dims, design.items, design.raters, design.methods, design.samples
    rho = design.dim_correlation
    rater = _normal(rng, (s, d, 1, r, 1, 1), design.sd_rater, rho)
    taste = _normal(rng, (s, d, 1, r, m, 1), design.sd_rater_method, rho)
    out_sd = np.array([design.output_sd(j) for j in range(m)])[:, None]
    item = _normal(rng, (s, d, i, 1, 1, 1), design.sd_item, rho)
    output = _normal(rng, (s, d, i, 1, m, k), out_sd, rho)
    x = (
        design.mean
        + np.array([design.effect(j) for j in range(m)])[:, None]
        + item
        + rater
        + taste
        + output
        + _normal(rng, (s, d, i, r, m, k), design.sd_resid, rho)
    )
    if design.position_effect:
        x = x + design.position_effect * (positions(design) == 0)
    return {
        "latent": x,
        "rater": rater[:, :, 0, :, 0, 0],
        "taste": taste[:, :, 0, :, :, 0],
        "prompt": (item + output)[:, :, :, 0],  # (studies, dims, items, methods, samples)
    }


def observed(x: np.ndarray, design: Design | None = None) -> np.ndarray:
    """The scores of latent values: the scale point whose interval between the design's cuts holds each
    (the default design: rounded and clipped to 1-5)."""
    d = design if design is not None else Design()
    return d.scale[0] + np.searchsorted(d.thresholds, np.asarray(x, dtype=float)).astype(float)


def _expected_observed(mu: np.ndarray, sd: float | np.ndarray, design: Design | None = None) -> np.ndarray:
    """E[observed(N(mu, sd))], elementwise."""
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    d = design if design is not None else Design()
    mu = np.asarray(mu, dtype=float)
    cuts = np.concatenate([[-np.inf], d.thresholds, [np.inf]])
    z = (cuts - mu[..., None]) / np.asarray(sd, dtype=float)[..., None]
    return np.diff(stats.norm.cdf(z), axis=-1) @ d.points


def _with_position(design: Design, mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
    first = 1.0 / (design.methods * design.samples) if design.position_effect else 0.0
    return (1 - first) * _expected_observed(mu, sd, design) + first * _expected_observed(
        mu + design.position_effect, sd, design
    )


def population_scores(design: Design) -> np.ndarray:
    """E[observed score] per method over items, outputs, raters and their tastes."""
    m = design.methods
    mu = design.mean + np.array([design.effect(j) for j in range(m)])
    var = np.array(
        [
            design.sd_item**2
            + design.sd_rater**2
            + design.sd_rater_method**2
            + design.output_sd(j) ** 2
            + design.sd_resid**2
            for j in range(m)
        ]
    )
    return _with_position(design, mu, np.sqrt(var))


def conditional_scores(design: Design, rater: np.ndarray, taste: np.ndarray) -> np.ndarray:
    """E[observed score] per method given these raters' severities (raters,) and tastes (raters,
    methods), averaged over the raters with equal weight: what a study's own raters would give on
    endless items."""
    m = design.methods
    mu = design.mean + np.array([design.effect(j) for j in range(m)])[None, :] + rater[:, None] + taste
    sd = np.sqrt(
        np.array([design.sd_item**2 + design.output_sd(j) ** 2 + design.sd_resid**2 for j in range(m)])[None, :]
    )
    return _with_position(design, mu, np.broadcast_to(sd, mu.shape)).mean(axis=0)


def prompt_scores(design: Design, prompt: np.ndarray) -> np.ndarray:
    """E[observed score] per method given these prompts' and outputs' draws (items, methods, samples),
    over raters in general (severity, taste and noise), averaged over the items and samples with equal
    weight: what raters in general would give these prompts, the claim of a study of 1-2 prompts."""
    m = design.methods
    mu = design.mean + np.array([design.effect(j) for j in range(m)])[None, :, None] + prompt
    sd = math.sqrt(design.sd_rater**2 + design.sd_rater_method**2 + design.sd_resid**2)
    return _with_position(design, mu, np.full(mu.shape, sd)).mean(axis=(0, 2))


def expected_scores(design: Design) -> np.ndarray:
    """Kept name: `population_scores`."""
    return population_scores(design)


def _assignment(design: Design, rng: np.random.Generator) -> np.ndarray:
    """(items, raters) True where the rater rates the item."""
    seen = np.ones((design.items, design.raters), dtype=bool)
    if design.raters_per_item is not None:
        lo, hi = design.raters_per_item
        seen[:] = False
        load = np.zeros(design.raters)
        for i in range(design.items):
            k = int(rng.integers(lo, hi + 1))
            # least-loaded raters first (ties at random): every rater gets a fair share, as invites do
            order = np.lexsort((rng.random(design.raters), load))
            seen[i, order[:k]] = True
            load[order[:k]] += 1
    if design.items_per_rater is not None:
        lo, hi = design.items_per_rater
        seen[:] = False
        for r in range(design.raters):
            seen[rng.permutation(design.items)[: int(rng.integers(lo, hi + 1))], r] = True
    if design.dominant:
        seen = _dominated(design, rng)
    if design.skipped:
        seen &= rng.random(seen.shape) >= design.skipped
    return seen


def _dominated(design: Design, rng: np.random.Generator) -> np.ndarray:
    """Rater 0 rates every item; the other raters share the rest so that rater 0 gives `dominant` of
    all ratings: round(items x (1 - share) / share) (item, rater) pairs, dealt in turn to raters 1, 2,
    ... on items drawn at random (each other rater on distinct items)."""
    seen = np.zeros((design.items, design.raters), dtype=bool)
    seen[:, 0] = True
    others = max(int(round(design.items * (1 - design.dominant) / design.dominant)), design.raters - 1)
    for n in range(others):
        r = 1 + n % (design.raters - 1)
        free = np.flatnonzero(~seen[:, r])
        if len(free):
            seen[rng.choice(free), r] = True
    return seen


@dataclass(frozen=True)
class Truth:
    """The expected scores a simulated study's intervals must cover."""

    population: np.ndarray  # (methods,): over items and raters in general
    conditional: np.ndarray  # (dimensions, methods): for this study's raters
    prompts: np.ndarray | None = None  # (dimensions, methods): for this study's prompts, raters in general

    def of(self, scope: str | bool, dimension: int = 0) -> np.ndarray:
        """The truth for an estimate's scope (True: these raters only, as before scopes had names)."""
        if isinstance(scope, (bool, np.bool_)):
            return self.conditional[dimension] if scope else self.population
        if scope == SCOPE_THESE:
            return self.conditional[dimension]
        if scope == SCOPE_ITEMS and self.prompts is not None:
            return self.prompts[dimension]
        return self.population


def simulate(design: Design, seed: int | np.random.Generator = 0, study_id: int = 1) -> pd.DataFrame:
    """One study as a ratings frame (study_id, item_id, output_id, method, rater, position, one column
    per dimension, sample_index; attention_passed with `attention_fail`)."""
    return simulate_study(design, seed, study_id)[0]


def simulate_study(
    design: Design, seed: int | np.random.Generator = 0, study_id: int = 1
) -> tuple[pd.DataFrame, Truth]:
    """One study as a ratings frame, with the expected scores its intervals must cover."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    dims = len(design.dimensions)
    draw = latent(design, rng, 1, dims)
    scores = observed(draw["latent"], design)[0]  # (dims, items, raters, methods, samples)
    i, r, m, k = np.meshgrid(
        np.arange(design.items),
        np.arange(design.raters),
        np.arange(design.methods),
        np.arange(design.samples),
        indexing="ij",
    )
    seen = _assignment(design, rng)[i, r].ravel()
    frame = pd.DataFrame(
        {
            "study_id": study_id,
            "item_id": i.ravel(),
            "output_id": ((i * design.methods + m) * design.samples + k).ravel(),
            "method": np.array(METHOD_NAMES)[m.ravel()],
            "rater": np.char.add("r", r.ravel().astype(str)),
            "position": positions(design)[i, r, m, k].ravel(),
            "sample_index": k.ravel(),
        }
    )
    careless = rng.random(design.raters) < design.attention_fail if design.attention_fail else None
    for d, dim in enumerate(design.dimensions):
        values = scores[d].ravel().astype(float)
        if careless is not None:  # who fails the attention item answers at random
            lo, hi = design.scale
            random = rng.integers(lo, hi + 1, values.shape).astype(float)
            values = np.where(careless[r.ravel()], random, values)
        if design.cant_judge:
            values[rng.random(values.shape) < design.cant_judge] = np.nan
        frame[dim] = values if design.cant_judge else values.astype(int)
    if careless is not None:
        frame["attention_passed"] = ~careless[r.ravel()]
    frame = frame[seen].reset_index(drop=True)
    truth = Truth(
        population=population_scores(design),
        conditional=np.stack(
            [conditional_scores(design, draw["rater"][0, d], draw["taste"][0, d]) for d in range(dims)]
        ),
        prompts=np.stack([prompt_scores(design, draw["prompt"][0, d]) for d in range(dims)]),
    )
    return frame, truth
