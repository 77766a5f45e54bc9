"""Simulated pairwise studies with known Bradley-Terry targets, for calibration.

A study has `items` prompts and `raters` raters; each (item, rater) cell gets one vote on one pair
of systems (a rotation over items and raters, so every pair meets equally often per rater and
each system is on the left half the time; or, with `share`, pairs drawn with probability
proportional to the systems' shares). The vote of rater r on item i between s (left) and t is

    D = d_i * (beta_s - beta_t + u_is - u_it + v_rs - v_rt) + position + gamma * (L_s - L_t) / (L_s + L_t)
    P(s wins) = sigmoid(D - tau_r),  P(t wins) = sigmoid(-D - tau_r),  tie otherwise

with item preferences u_is ~ N(0, sd_item) (items favour different systems), item decisiveness
log d_i ~ N(0, sd_decisive), rater tastes v_rs ~ N(0, sd_rater), a rater's own tie threshold
tau_r = tie * exp(N(0, sd_rater_tie)) (about 30% ties at the defaults), and output lengths
log L_is ~ N(length_log_mean_s, sd_length). A tie is "both bad" half the time (BT counts both alike).

The target of the intervals is the population Bradley-Terry rating: what the estimator converges
to with unboundedly many items and raters drawn from the same design. Item and rater effects make
the population's votes less decisive than beta alone says (the marginal model is not exactly BT),
so the target is computed, not assumed: `targets` fits the same model to a very large study in
which every vote has its own item and rater.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy.special import expit

from .bootstrap import Scheme
from .bt import ELO_PER_LOGIT, Problem, to_elo
from .rate import rate
from .votes import Battles

SYSTEM_NAMES = tuple(f"S{k}" for k in range(26))


@dataclass(frozen=True)
class PairDesign:
    """One simulated design (see the module docstring); strengths in Elo points, effects in log-odds."""

    systems: int = 4
    elo: tuple[float, ...] = (0.0, 50.0, 100.0, 200.0)
    items: int = 40
    raters: int = 5
    sd_item: float = 0.6
    sd_decisive: float = 0.5
    sd_rater: float = 0.3
    tie: float = 0.75
    sd_rater_tie: float = 0.3
    position: float = 0.1
    length_effect: float = 0.0
    length_log_mean: tuple[float, ...] = ()
    sd_length: float = 0.4
    missing: float = 0.0
    share: tuple[float, ...] = ()

    def beta(self) -> np.ndarray:
        elo = np.array([self.elo[k] if k < len(self.elo) else 0.0 for k in range(self.systems)])
        return elo / ELO_PER_LOGIT

    def log_length(self) -> np.ndarray:
        return np.array(
            [self.length_log_mean[k] if k < len(self.length_log_mean) else math.log(100) for k in range(self.systems)]
        )

    def pair_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        pairs = np.array(list(itertools.combinations(range(self.systems), 2)))
        if not self.share:
            return pairs, np.full(len(pairs), 1 / len(pairs))
        w = np.array([self.share[k] if k < len(self.share) else 1.0 for k in range(self.systems)])
        p = w[pairs[:, 0]] * w[pairs[:, 1]]
        return pairs, p / p.sum()


def _votes(
    design: PairDesign,
    rng: np.random.Generator,
    left: np.ndarray,
    right: np.ndarray,
    item: np.ndarray,
    rater: np.ndarray,
    n_items: int,
    n_raters: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(score of the left system, left length, right length) per vote."""
    k = design.systems
    u = rng.normal(0, design.sd_item, (n_items, k))
    d = np.exp(rng.normal(0, design.sd_decisive, n_items))
    v = rng.normal(0, design.sd_rater, (n_raters, k))
    tau = design.tie * np.exp(rng.normal(0, design.sd_rater_tie, n_raters))
    log_len = design.log_length()[None, :] + rng.normal(0, design.sd_length, (n_items, k))
    lengths = np.exp(log_len + rng.normal(0, 0.5, (n_items, 1)))  # some prompts want longer answers
    beta = design.beta()
    len_l, len_r = lengths[item, left], lengths[item, right]
    diff = (
        d[item] * (beta[left] - beta[right] + u[item, left] - u[item, right] + v[rater, left] - v[rater, right])
        + design.position
        + design.length_effect * (len_l - len_r) / (len_l + len_r)
    )
    p_left, p_right = expit(diff - tau[rater]), expit(-diff - tau[rater])
    x = rng.random(len(diff))
    score = np.where(x < p_left, 1.0, np.where(x < p_left + p_right, 0.0, 0.5))
    return score, np.round(len_l), np.round(len_r)


def schedule(design: PairDesign, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """(item, rater, left, right) per vote: the balanced rotation, or draws by `share`; cells dropped
    at random with probability `missing`."""
    pairs, prob = design.pair_probabilities()
    grid_i, grid_r = np.meshgrid(np.arange(design.items), np.arange(design.raters), indexing="ij")
    i, r = grid_i.ravel(), grid_r.ravel()
    if design.share:
        pick = rng.choice(len(pairs), size=len(i), p=prob)
        flip = rng.random(len(i)) < 0.5
    else:
        m = len(pairs)
        offset = rng.permutation(design.raters)  # each rater starts the rotation elsewhere
        pick = (i + offset[r]) % m
        flip = ((i + offset[r]) // m + r) % 2 == 1
    left = np.where(flip, pairs[pick, 1], pairs[pick, 0])
    right = np.where(flip, pairs[pick, 0], pairs[pick, 1])
    keep = rng.random(len(i)) >= design.missing
    return i[keep], r[keep], left[keep], right[keep]


def simulate(design: PairDesign, seed: int | np.random.Generator = 0, study_id: str = "1") -> pd.DataFrame:
    """One study as a votes frame (`votes.VOTE_COLUMNS` and len_a, len_b)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    item, rater, left, right = schedule(design, rng)
    score, len_l, len_r = _votes(design, rng, left, right, item, rater, design.items, design.raters)
    tie_kind = np.where(rng.random(len(score)) < 0.5, "tie", "bothbad")
    winner = np.where(score == 1.0, "a", np.where(score == 0.0, "b", tie_kind))
    names = np.array(SYSTEM_NAMES[: design.systems])
    return pd.DataFrame(
        {
            "study_id": study_id,
            "item_id": np.char.add("i", item.astype(str)),
            "rater": np.char.add("r", rater.astype(str)),
            "system_a": names[left],
            "system_b": names[right],
            "winner": winner,
            "len_a": len_l,
            "len_b": len_r,
        }
    )


@lru_cache(maxsize=64)
def targets(design: PairDesign, n_votes: int = 400_000, seed: int = 12345) -> tuple[np.ndarray, np.ndarray]:
    """(raw, length-controlled) population ratings, Elo, one per system (see the module docstring):
    the same fits on `n_votes` votes that each have their own item and rater."""
    rng = np.random.default_rng(seed)
    pairs, prob = design.pair_probabilities()
    pick = rng.choice(len(pairs), size=n_votes, p=prob)
    flip = rng.random(n_votes) < 0.5
    left = np.where(flip, pairs[pick, 1], pairs[pick, 0])
    right = np.where(flip, pairs[pick, 0], pairs[pick, 1])
    own = np.arange(n_votes)
    score, len_l, len_r = _votes(design, rng, left, right, own, own, n_votes, n_votes)
    battles = Battles(
        systems=SYSTEM_NAMES[: design.systems],
        a=left,
        b=right,
        score=score,
        item=own,
        rater=own,
        study=np.zeros(n_votes, int),
        length_diff=(len_l - len_r) / (len_l + len_r),
    )
    comps = np.zeros(design.systems, int)
    out = []
    for length in (False, True):
        theta, _, _ = Problem.of(battles, length).fit(np.ones((1, n_votes)))
        out.append(to_elo(theta, comps)[0])
    return out[0], out[1]


def exchangeable(design: PairDesign) -> bool:
    """No system differs from another in the design: every population difference is exactly 0."""
    same = len(set(design.beta())) == 1 and len(set(design.log_length())) == 1
    return same and (not design.share or len(set(design.share)) == 1 and len(design.share) == design.systems)


# ---- calibration -----------------------------------------------------------------------------------


@dataclass
class PairCalibration:
    """Figures of one calibration run (see `calibrate`)."""

    design: PairDesign
    n_studies: int
    n_resamples: int
    coverage: dict[str, float]  # per scheme: intervals of rating differences that cover the target
    coverage_ratings: float  # per-system rating intervals (twoway)
    coverage_length_controlled: float  # length-controlled differences (twoway); NaN when not run
    width: float  # mean width of the twoway interval of a difference, Elo
    wrong_order_share: float  # of the pairs the ranking ordered, share ordered against the target
    any_wrong_order: float  # share of studies with at least one pair ordered against the target
    ordered_share: float  # share of truly different pairs that the ranking ordered (power)
    provisional_share: float  # systems marked provisional
    coverage_provisional: float  # rating intervals of provisional systems (NaN: none)
    coverage_established: float  # rating intervals of the others
    raw_gap: float = math.nan  # mean raw estimate of (last system - first system), Elo
    lc_gap: float = math.nan  # the same, length-controlled
    target_gaps: tuple[float, float] = (math.nan, math.nan)  # the targets of both

    def row(self) -> dict[str, float | int | str]:
        d = self.design
        out: dict[str, float | int | str] = {
            "design": f"{d.systems} sys, {d.items} items x {d.raters} raters",
            "studies": self.n_studies,
        }
        out |= {f"cover {k}": v for k, v in self.coverage.items()}
        out |= {
            "cover ratings": self.coverage_ratings,
            "cover LC": self.coverage_length_controlled,
            "width": self.width,
            "wrong order": self.wrong_order_share,
            "studies w/ wrong order": self.any_wrong_order,
            "power": self.ordered_share,
            "provisional": self.provisional_share,
            "cover prov.": self.coverage_provisional,
            "cover estab.": self.coverage_established,
        }
        return out


def _share(hits: list[bool]) -> float:
    return float(np.mean(hits)) if hits else math.nan


def calibrate(
    design: PairDesign,
    n_studies: int = 200,
    seed: int = 0,
    n_resamples: int = 500,
    schemes: tuple[Scheme, ...] = ("twoway", "items", "items+raters", "votes"),
    length: bool = False,
) -> PairCalibration:
    """Simulate `n_studies` studies of `design`, rate each with the app's `rate` (every scheme in
    `schemes`; the first is the one whose ranks, provisional marks and length-controlled intervals
    are scored), and compare with the population targets (`targets`)."""
    raw_t, lc_t = targets(design)
    if exchangeable(design):
        raw_t = lc_t = np.full(design.systems, 1000.0)
    rng = np.random.default_rng(seed)
    cover: dict[str, list[bool]] = {s: [] for s in schemes}
    cover_r, cover_lc, widths, prov, cover_prov, cover_est = [], [], [], [], [], []
    wrong, any_wrong, power, raw_gap, lc_gap = [], [], [], [], []
    names = SYSTEM_NAMES[: design.systems]
    index = {s: k for k, s in enumerate(names)}
    for _ in range(n_studies):
        votes = simulate(design, rng)
        battles = Battles.from_votes(votes, systems=names)
        study_seed = int(rng.integers(2**31))
        for n, scheme in enumerate(schemes):
            res = rate(battles, length=length and n == 0, scheme=scheme, n_resamples=n_resamples, seed=study_seed)
            d = res.differences
            i, j = d["system_a"].map(index).to_numpy(int), d["system_b"].map(index).to_numpy(int)
            ok = np.isfinite(d["ci_low"].to_numpy(float))
            truth = raw_t[i] - raw_t[j]
            cover[scheme] += list(((d["ci_low"] <= truth) & (truth <= d["ci_high"])).to_numpy(bool)[ok])
            if n:
                continue
            widths += list((d["ci_high"] - d["ci_low"]).to_numpy(float)[ok])
            claimed = d["ordered"].to_numpy(bool)
            wrong += list(truth[claimed] <= 0)
            any_wrong.append(bool((truth[claimed] <= 0).any()))
            power += list(claimed[np.abs(truth) > 1.0]) if not exchangeable(design) else []
            t = res.systems
            k = t["system"].map(index).to_numpy(int)
            has = np.isfinite(t["ci_low"].to_numpy(float))
            hit = ((t["ci_low"] <= raw_t[k]) & (raw_t[k] <= t["ci_high"])).to_numpy(bool)
            cover_r += list(hit[has])
            p = t["provisional"].to_numpy(bool)
            prov += list(p)
            cover_prov += list(hit[has & p])
            cover_est += list(hit[has & ~p])
            if length:
                lc_truth = lc_t[i] - lc_t[j]
                ok_lc = np.isfinite(d["ci_low_length_controlled"].to_numpy(float))
                inside = (d["ci_low_length_controlled"] <= lc_truth) & (lc_truth <= d["ci_high_length_controlled"])
                cover_lc += list(inside.to_numpy(bool)[ok_lc])
                last, first = names[-1], names[0]
                raw_gap.append(res.rating(last) - res.rating(first))
                lc_gap.append(res.rating(last, True) - res.rating(first, True))
    return PairCalibration(
        design=design,
        n_studies=n_studies,
        n_resamples=n_resamples,
        coverage={s: _share(c) for s, c in cover.items()},
        coverage_ratings=_share(cover_r),
        coverage_length_controlled=_share(cover_lc),
        width=float(np.mean(widths)) if widths else math.nan,
        wrong_order_share=_share(wrong),
        any_wrong_order=_share(any_wrong),
        ordered_share=_share(power),
        provisional_share=_share(prov),
        coverage_provisional=_share(cover_prov),
        coverage_established=_share(cover_est),
        raw_gap=float(np.mean(raw_gap)) if raw_gap else math.nan,
        lc_gap=float(np.mean(lc_gap)) if lc_gap else math.nan,
        target_gaps=(float(raw_t[-1] - raw_t[0]), float(lc_t[-1] - lc_t[0])),
    )
