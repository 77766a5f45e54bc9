"""Bradley-Terry by maximum likelihood, on the Elo scale, with an optional length covariate.

The model: system k has a strength theta_k (log-odds units) and

    P(A beats B) = 1 / (1 + exp(-(theta_A - theta_B + gamma * z)))

where z is the vote's standardised relative length difference (only in the length-controlled fit;
see `length_feature`). A tie or "both bad" is half a win for each side, so vote n contributes
s_n log p_n + (1 - s_n) log(1 - p_n) with s_n in {0, 1/2, 1}: the same likelihood as FastChat's
(each tie as one A-win and one B-win of half weight). On the Elo scale

    rating_k = 1000 + 400 / ln(10) * (theta_k - mean over systems of theta)

so that a 400-point gap is 10:1 odds, and the mean over the systems is 1000.

The fit is Newton's method on the log-likelihood with a tiny ridge (1e-6 on theta: it pins each
connected set of systems to mean 0 and moves ratings by far less than 0.01 point), vectorised over
a batch of vote weightings, which is how the bootstrap refits a thousand resamples at once.

The maximum-likelihood estimate is finite only when, within each set of systems connected by
comparisons, every system has beaten or tied someone and lost to or tied someone along every cut
(the win graph is strongly connected: Zermelo 1929, Ford 1957). Where it is not (a system that won
or lost everything), the fit adds one virtual tie of each system against an average system (a
weak prior, PRIOR_VOTES votes each) so the ratings stay finite; `Fit.separated` says so, and the
caller reports such ratings as having no interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.special import expit

from common import messages

from .votes import Battles

ELO_SCALE = 400.0
ELO_BASE = 10.0
ELO_MEAN = 1000.0
ELO_PER_LOGIT = ELO_SCALE / math.log(ELO_BASE)  # ≈ 173.7 Elo points per unit of log-odds
RIDGE = 1e-6
PRIOR_VOTES = 1.0


def win_probability(rating_a: float, rating_b: float) -> float:
    """P(A beats B) for two Elo ratings (a tie counted as half a win).

    >>> round(win_probability(1400, 1000), 4)
    0.9091
    """
    return 1.0 / (1.0 + ELO_BASE ** ((rating_b - rating_a) / ELO_SCALE))


# ---- the batched solver ------------------------------------------------------------------------------


def newton_logistic(
    X: np.ndarray,
    wins: np.ndarray,
    totals: np.ndarray,
    ridge: float = RIDGE,
    max_iter: int = 100,
    tol: float = 1e-12,
    start: np.ndarray | None = None,
) -> np.ndarray:
    """Maximise sum_r wins_r log p_r + (totals_r - wins_r) log(1 - p_r) - ridge/2 |beta|^2 with
    logit p_r = X_r . beta, for each row of `wins` and `totals` (shape (B, R); X is (R, P)).
    Returns beta, shape (B, P). Newton steps with step halving, so the penalised likelihood never
    goes down; it is strictly concave, so this converges from any `start` (default zero; the
    bootstrap starts from the data's fit, a few steps from every resample's)."""
    wins, totals = np.atleast_2d(wins).astype(float), np.atleast_2d(totals).astype(float)
    B, P = totals.shape[0], X.shape[1]
    beta = np.zeros((B, P)) if start is None else np.broadcast_to(np.asarray(start, float), (B, P)).copy()
    penalty = ridge * np.eye(P)

    def objective(b: np.ndarray, rows: np.ndarray) -> np.ndarray:
        eta = b @ X.T  # w log p + (n - w) log(1 - p) = -n log(1 + e^-eta) - (n - w) eta
        ll = -totals[rows] * np.logaddexp(0.0, -eta) - (totals[rows] - wins[rows]) * eta
        return ll.sum(axis=1) - 0.5 * ridge * (b**2).sum(axis=1)

    current = objective(beta, np.arange(B))
    active = np.ones(B, bool)
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        bb = beta[idx]
        eta = bb @ X.T
        p = expit(eta)
        grad = (wins[idx] - totals[idx] * p) @ X - ridge * bb
        h = totals[idx] * p * (1.0 - p)
        hess = np.matmul((h[:, :, None] * X[None]).transpose(0, 2, 1), X) + penalty
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        t = np.ones(len(idx))
        new, value = bb + step, objective(bb + step, idx)
        for _ in range(40):
            worse = value < current[idx] - 1e-12 * np.abs(current[idx])
            if not worse.any():
                break
            t = np.where(worse, t / 2, t)
            new = bb + t[:, None] * step
            value = objective(new, idx)
        beta[idx], current[idx] = new, value
        # The Newton decrement, not the step: along the ridge-only direction (a shift of all
        # strengths) rounding noise keeps steps near 1e-9 while nothing that matters moves.
        done = ((grad * step).sum(axis=1) < tol) | (np.max(np.abs(t[:, None] * step), axis=1) < tol)
        active[idx[done]] = False
        if not active.any():
            break
    return beta


# ---- the comparison graph ----------------------------------------------------------------------------


def closure(adj: np.ndarray) -> np.ndarray:
    """Reachability (batched boolean matrices, self included) by repeated squaring."""
    k = adj.shape[-1]
    reach = (adj | np.eye(k, dtype=bool)).astype(float)
    for _ in range(max(1, math.ceil(math.log2(max(k, 2))))):
        reach = ((reach @ reach) > 0).astype(float)
    return reach > 0


def win_matrices(rows_a: np.ndarray, rows_b: np.ndarray, wins: np.ndarray, totals: np.ndarray, k: int) -> np.ndarray:
    """(B, K, K) half-win weights: M[a, b] = what a scored against b, summed over rows."""
    wins, totals = np.atleast_2d(wins), np.atleast_2d(totals)
    m = wins @ _onehot(rows_a * k + rows_b, k * k) + (totals - wins) @ _onehot(rows_b * k + rows_a, k * k)
    return np.asarray(m).reshape(-1, k, k)


def _onehot(index: np.ndarray, width: int) -> sparse.csr_array:
    n = len(index)
    return sparse.csr_array((np.ones(n), (np.arange(n), index)), shape=(n, width))


def separated(m: np.ndarray) -> np.ndarray:
    """Per batch: True where some system cannot reach, through wins, a system it was compared with
    (directly or not): then the MLE is not finite."""
    beats = m > 0
    compared = closure(beats | beats.transpose(0, 2, 1))
    return (compared & ~closure(beats)).any(axis=(1, 2))


def components(m: np.ndarray) -> np.ndarray:
    """Connected sets of systems (through any comparison) of one K x K matrix: a label per system,
    0 for the set with the most systems (ties by the first system)."""
    k = m.shape[-1]
    reach = closure(((m + m.T) > 0)[None])[0]
    labels = np.full(k, -1)
    groups: list[np.ndarray] = []
    for s in range(k):
        if labels[s] < 0:
            members = np.flatnonzero(reach[s])
            labels[members] = len(groups)
            groups.append(members)
    order = sorted(range(len(groups)), key=lambda g: (-len(groups[g]), groups[g][0]))
    rank = {g: r for r, g in enumerate(order)}
    return np.array([rank[g] for g in labels])


def to_elo(theta: np.ndarray, comps: np.ndarray, anchor: np.ndarray | None = None) -> np.ndarray:
    """Elo ratings from strengths (..., K): the mean over each connected set's `anchor` systems
    (default: all of them) at 1000."""
    out = np.array(theta, dtype=float, copy=True)
    anchor = np.ones(len(comps), bool) if anchor is None else anchor
    for c in np.unique(comps):
        cols = comps == c
        ref = cols & anchor if (cols & anchor).any() else cols
        out[..., cols] -= out[..., ref].mean(axis=-1, keepdims=True)
    return ELO_MEAN + ELO_PER_LOGIT * out


def finite_sets(m: np.ndarray, comps: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """For one K x K win matrix: the strongly connected set of each system (a label), which
    systems are in the largest such set of their connected set (their ratings are finite when
    centred on it), and for every other system why its rating is not finite."""
    k = m.shape[-1]
    reach = closure((m > 0)[None])[0]
    scc = np.array([int(np.flatnonzero(reach[s] & reach[:, s])[0]) for s in range(k)])
    main = {}
    for c in np.unique(comps):
        labels = scc[comps == c]
        values, counts = np.unique(labels, return_counts=True)
        main[int(c)] = int(values[np.argmax(counts)])
    finite = np.array([scc[s] == main[int(comps[s])] for s in range(k)])
    why = []
    for s in range(k):
        ref = main[int(comps[s])]
        if finite[s]:
            why.append("")
        elif m[:, s].sum() == 0:
            why.append(messages.english("pw_won_every"))
        elif m[s].sum() == 0:
            why.append(messages.english("pw_lost_every"))
        elif reach[s, ref] and not reach[ref, s]:
            why.append(messages.english("pw_never_lost"))
        elif reach[ref, s] and not reach[s, ref]:
            why.append(messages.english("pw_never_beat"))
        else:
            why.append(messages.english("pw_no_finite_gap"))
    return scc, finite, why


# ---- the fits ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """The rows one Bradley-Terry fit runs on, and how a vote weighting maps onto them.

    Without lengths the rows are the pairs of systems that met (votes aggregated), with lengths they
    are the votes (the covariate differs per vote). `row_of_vote` maps each vote to its row."""

    k: int
    X: np.ndarray
    rows_a: np.ndarray
    rows_b: np.ndarray
    row_of_vote: np.ndarray
    score: np.ndarray  # each vote's score, oriented as its row (row a vs row b)
    length_scale: float | None  # RMS of the relative length difference (None: no covariate)

    @classmethod
    def of(cls, battles: Battles, length: bool = False) -> Problem:
        k = len(battles.systems)
        if length:
            if battles.length_diff is None:
                raise ValueError("these votes have no lengths")
            z, scale = length_feature(battles.length_diff)
            X = np.zeros((len(battles.a), k + 1))
            X[np.arange(len(battles.a)), battles.a] = 1.0
            X[np.arange(len(battles.a)), battles.b] = -1.0
            X[:, k] = z
            n = np.arange(len(battles.a))
            return cls(k, X, battles.a, battles.b, n, battles.score, scale)
        lo, hi = np.minimum(battles.a, battles.b), np.maximum(battles.a, battles.b)
        pair_id = lo * k + hi
        pairs, row = np.unique(pair_id, return_inverse=True)
        rows_a, rows_b = pairs // k, pairs % k
        X = np.zeros((len(pairs), k))
        X[np.arange(len(pairs)), rows_a] = 1.0
        X[np.arange(len(pairs)), rows_b] = -1.0
        oriented = np.where(battles.a == lo, battles.score, 1.0 - battles.score)
        return cls(k, X, rows_a, rows_b, row, oriented, None)

    def totals(self, vote_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(wins, totals) per row for each weighting of the votes, shape (B, rows)."""
        w = np.atleast_2d(np.asarray(vote_weights, dtype=float))
        if self.length_scale is not None:  # one row per vote
            return w * self.score, w
        onehot = _onehot(self.row_of_vote, self.X.shape[0])
        return np.asarray((w * self.score) @ onehot), np.asarray(w @ onehot)

    def fit(
        self, vote_weights: np.ndarray, start: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(theta (B, K), gamma (B,) or NaN, separated (B,)) for each weighting of the votes;
        `start`: (theta, and gamma when there is one) to start Newton from."""
        wins, totals = self.totals(vote_weights)
        sep = separated(win_matrices(self.rows_a, self.rows_b, wins, totals, self.k))
        P = self.X.shape[1]
        prior_x = np.zeros((self.k, P))
        prior_x[:, : self.k] = np.eye(self.k)
        prior_totals = PRIOR_VOTES * sep[:, None] * np.ones((1, self.k))
        beta = newton_logistic(
            np.vstack([self.X, prior_x]),
            np.hstack([wins, 0.5 * prior_totals]),
            np.hstack([totals, prior_totals]),
            start=start,
        )
        gamma = beta[:, self.k] if P > self.k else np.full(len(beta), math.nan)
        return beta[:, : self.k], gamma, sep


def length_feature(diff: np.ndarray) -> tuple[np.ndarray, float]:
    """The covariate of the length-controlled fit: the relative length difference divided by its
    root mean square over the votes (not centred: z = 0 still means equal length, which is what a
    length-controlled rating is about). (z, scale); scale 0 gives z = 0 (no length differences)."""
    scale = float(np.sqrt(np.mean(diff**2))) if len(diff) else 0.0
    return (diff / scale if scale > 0 else np.zeros_like(diff)), scale


@dataclass(frozen=True)
class Fit:
    """One Bradley-Terry fit.

    Args:
        systems: names, in the order of the arrays.
        ratings: Elo ratings, the mean over each connected set of systems at 1000 (where the MLE is
            not finite: the mean over the systems of its largest strongly connected set).
        component: the connected set of each system (0 = the largest).
        separated: True when the MLE is not finite and the weak prior was used.
        finite: per system, whether its rating has a finite estimate on that scale.
        why_not_finite: per system, "" or why not ("won every comparison", ...).
        length_elo: the length coefficient in Elo points per root-mean-square relative length
            difference (NaN in the raw fit).
        length_scale: that root mean square (NaN in the raw fit).
    """

    systems: tuple[str, ...]
    ratings: np.ndarray
    component: np.ndarray
    separated: bool
    finite: np.ndarray
    why_not_finite: tuple[str, ...]
    scc: np.ndarray
    length_elo: float = math.nan
    length_scale: float = math.nan

    def rating(self, system: str) -> float:
        return float(self.ratings[self.systems.index(system)])


def fit_bt(battles: Battles, length: bool = False) -> Fit:
    """Bradley-Terry ratings of one set of votes (see the module docstring); with `length`, the
    length-controlled fit (theta_A - theta_B + gamma z)."""
    problem = Problem.of(battles, length)
    weights = np.ones((1, len(battles.a)))
    theta, gamma, sep = problem.fit(weights)
    wins, totals = problem.totals(weights)
    m = win_matrices(problem.rows_a, problem.rows_b, wins, totals, problem.k)[0]
    comps = components(m)
    scc, finite, why = finite_sets(m, comps)
    return Fit(
        systems=battles.systems,
        ratings=to_elo(theta, comps, finite)[0],
        component=comps,
        separated=bool(sep[0]),
        finite=finite,
        why_not_finite=tuple(why),
        scc=scc,
        length_elo=float(gamma[0] * ELO_PER_LOGIT) if length else math.nan,
        length_scale=float(problem.length_scale) if length and problem.length_scale is not None else math.nan,
    )
