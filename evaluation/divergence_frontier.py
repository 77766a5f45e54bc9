"""MAUVE's divergence frontier (Pillutla et al., NeurIPS 2021), written here from the paper so that the
product ships no GPL code: `mauve-text` (GPLv3) is a test-only dependency that
tests/test_divergence_frontier.py compares this module with, within 0.01 on the same features.

The steps and their defaults are the paper's and `mauve-text` 0.4.0's:

1. **Quantise.** Both feature sets are stacked, each row scaled to unit length, and projected by PCA
   onto the fewest leading components that explain 90% of the variance; k-means (5 starts of at most
   500 iterations, the start with the lowest within-cluster sum of squares kept, seed 25) puts the
   joint points into `n/10` buckets (n = the smaller set, at least 2), and each set becomes a
   histogram over the buckets.
2. **The divergence curve.** For 25 mixtures R_λ = λP + (1−λ)Q, λ evenly spaced over [1e-6, 1−1e-6],
   the point (exp(−c·KL(Q‖R_λ)), exp(−c·KL(P‖R_λ))) with the scaling c = 5, closed by (1, 0) and (0, 1).
3. **MAUVE** is the area under that curve: 1 when the histograms are equal, near 0 when disjoint.

k-means decides the score (another partition of the same points can move MAUVE by 0.05), so ours runs
as faiss (MIT) runs it for `mauve-text`: the same seeded starting points (faiss's Mersenne Twister
permutation), Lloyd's iterations in float32, an emptied bucket split off a populous one with faiss's
draws, the start with the lowest sum of squares kept. The buckets are then faiss's up to float32
rounding on near-ties, and the scores agree to the test's 0.01 (in practice to 1e-6).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BUCKETS_PER_POINT = 10  # "auto": one bucket per 10 texts of the smaller set
EXPLAINED_VARIANCE = 0.9
KMEANS_STARTS = 5
KMEANS_ITERATIONS = 500
CURVE_POINTS = 25
SCALING = 5.0
SEED = 25
EPSILON = 1 / 1024  # how far faiss nudges the two halves of a split bucket apart


def buckets_for(n_p: int, n_q: int) -> int:
    """mauve-text's "auto" number of buckets: the smaller set's size / 10, rounded half to even, ≥ 2."""
    return max(2, int(round(min(n_p, n_q) / BUCKETS_PER_POINT)))


def pca_project(x: np.ndarray, explained_variance: float = EXPLAINED_VARIANCE) -> np.ndarray:
    """`x` centred and projected on its fewest leading principal components whose share of the total
    variance reaches `explained_variance`."""
    if not 0.0 < explained_variance < 1.0:
        raise ValueError(f"explained_variance must be in (0, 1), not {explained_variance}")
    centred = x - x.mean(axis=0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    share = np.cumsum(s**2) / max(float(np.sum(s**2)), np.finfo(float).tiny)
    keep = int(np.argmax(share >= explained_variance)) + 1
    return u[:, :keep] * s[:keep]


def _mersenne(seed: int, n: int) -> np.ndarray:
    """The first `n` 32-bit outputs of a Mersenne Twister seeded with `seed` (std::mt19937's seeding,
    which numpy's legacy RandomState shares), as int64."""
    return np.random.RandomState(seed & 0xFFFFFFFF).randint(0, 2**32, size=n, dtype=np.uint64).astype(np.int64)


def _first_of_permutation(n: int, k: int, seed: int) -> np.ndarray:
    """The first `k` entries of faiss's Fisher-Yates permutation of range(n) for `seed` (its starting
    centres: draw i swaps place i with place i + draw mod (n - i))."""
    perm = np.arange(n)
    for i, draw in enumerate(_mersenne(seed, k)):
        j = i + int(draw) % (n - i)
        perm[i], perm[j] = perm[j], perm[i]
    return perm[:k]


def _nearest(x: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's nearest centre and its squared distance (float32, a rounding below zero read as
    zero). Computed in float64: faiss's float32 kernels are close to exact, and float32 products here
    picked the other of two centres 1e-7 apart where faiss picked the nearer (a bucket's two halves
    after a split are that close)."""
    x64, c64 = x.astype(np.float64), centres.astype(np.float64)
    d = (x64 * x64).sum(axis=1)[:, None] + (c64 * c64).sum(axis=1)[None, :] - 2.0 * (x64 @ c64.T)
    labels = d.argmin(axis=1)
    return labels, np.maximum(d[np.arange(len(x)), labels], 0.0).astype(np.float32)


class _SplitDraws:
    """faiss's draws for splitting clusters: a Mersenne Twister seeded 1234 at every iteration, each
    draw a float32 in [0, 1]."""

    def __init__(self) -> None:
        self.draws = np.zeros(0, dtype=np.float32)
        self.used = 0

    def next(self) -> np.float32:
        if self.used == len(self.draws):
            raw = _mersenne(1234, 2 * len(self.draws) + 64)
            self.draws = raw.astype(np.float32) / np.float32(2**32 - 1)
        self.used += 1
        return self.draws[self.used - 1]


def _split_empty(centres: np.ndarray, counts: np.ndarray, n: int) -> bool:
    """Give every empty bucket half of a populous one, chosen as faiss chooses it (walking the buckets,
    bucket j taken with probability (size_j - 1) / (n - k)), the two centres nudged apart by 1/1024 of
    their coordinates. Whether any bucket was empty."""
    k = len(centres)
    draws = _SplitDraws()
    split = False
    for empty in np.flatnonzero(counts == 0):
        j = 0
        while not draws.next() < np.float32((counts[j] - 1.0) / np.float32(n - k)):
            j = (j + 1) % k
        up = np.where(np.arange(centres.shape[1]) % 2 == 0, 1 + EPSILON, 1 - EPSILON)
        centres[empty] = (centres[j].astype(np.float64) * up).astype(np.float32)
        centres[j] = (centres[j].astype(np.float64) * (2 - up)).astype(np.float32)
        counts[empty] = counts[j] / 2
        counts[j] -= counts[empty]
        split = True
    return split


def _lloyd(x: np.ndarray, centres: np.ndarray, max_iter: int) -> tuple[np.ndarray, float]:
    """Lloyd's iterations from `centres`: the centres after the last one and the sum of squared
    distances of the last assignment. Stops early once no point changes bucket and none was split:
    from there every further iteration repeats the same centres."""
    k = len(centres)
    before: np.ndarray | None = None
    objective = np.float32(0)
    for _ in range(max_iter):
        labels, distances = _nearest(x, centres)
        objective = np.cumsum(distances, dtype=np.float32)[-1]  # faiss adds them up in order, in float32
        if before is not None and np.array_equal(labels, before):
            break
        counts = np.bincount(labels, minlength=k).astype(np.float32)
        sums = np.zeros_like(centres)
        np.add.at(sums, labels, x)
        filled = counts > 0
        centres = np.where(filled[:, None], sums * (np.float32(1) / np.where(filled, counts, 1))[:, None], sums)
        before = None if _split_empty(centres, counts, len(x)) else labels
    return centres, float(objective)


def kmeans_labels(
    x: np.ndarray, k: int, starts: int = KMEANS_STARTS, max_iter: int = KMEANS_ITERATIONS, seed: int = SEED
) -> np.ndarray:
    """Each row's bucket (0..k-1) after k-means as faiss runs it for mauve-text: `starts` runs from k
    distinct points of a seeded permutation (run r: seed + 1 + 15486557·r), each of `max_iter` Lloyd
    iterations, in float32; the run with the lowest sum of squares kept (the first on a tie)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    if not 1 <= k <= len(x):
        raise ValueError(f"k-means needs 1 to {len(x)} buckets for {len(x)} points, not {k}")
    if k == len(x):  # every point its own bucket, as faiss does without iterating
        return np.arange(k)
    best: tuple[np.ndarray, float] | None = None
    for run in range(max(1, starts)):
        start = x[_first_of_permutation(len(x), k, seed + 1 + run * 15486557)].copy()
        centres, objective = _lloyd(x, start, max(1, max_iter))
        if best is None or objective < best[1]:
            best = (centres, objective)
    assert best is not None
    return _nearest(x, best[0])[0]


@dataclass(frozen=True)
class Quantisation:
    """How step 1 buckets the points (mauve-text's defaults). `buckets` None: `buckets_for`
    (mauve-text's "auto")."""

    buckets: int | None = None
    explained_variance: float = EXPLAINED_VARIANCE
    starts: int = KMEANS_STARTS
    max_iter: int = KMEANS_ITERATIONS
    seed: int = SEED


def histograms(p: np.ndarray, q: np.ndarray, how: Quantisation = Quantisation()) -> tuple[np.ndarray, np.ndarray]:
    """P's and Q's histograms over the buckets of their joint quantisation (step 1)."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    if p.ndim != 2 or q.ndim != 2 or p.shape[1] != q.shape[1] or not len(p) or not len(q):
        raise ValueError(f"MAUVE needs two non-empty (n, d) feature sets of the same d, not {p.shape} and {q.shape}")
    k = buckets_for(len(p), len(q)) if how.buckets is None else int(how.buckets)
    joint = np.vstack([q, p])
    norms = np.linalg.norm(joint, axis=1, keepdims=True)
    joint = joint / np.where(norms > 0, norms, 1.0)  # a zero row stays zero
    projected = pca_project(joint, how.explained_variance)
    labels = kmeans_labels(projected, k, how.starts, how.max_iter, how.seed + 2)  # mauve-text's offset
    q_counts = np.bincount(labels[: len(q)], minlength=k)
    p_counts = np.bincount(labels[len(q) :], minlength=k)
    return p_counts / p_counts.sum(), q_counts / q_counts.sum()


def kl(a: np.ndarray, b: np.ndarray) -> float:
    """KL(a‖b) in nats; infinite where b misses mass that a has."""
    if np.any((a > 0) & (b <= 0)):
        return float("inf")
    where = a > 0
    return float(np.sum(a[where] * np.log(a[where] / b[where])))


def divergence_curve(
    p_hist: np.ndarray, q_hist: np.ndarray, points: int = CURVE_POINTS, scaling: float = SCALING
) -> np.ndarray:
    """(points + 2, 2): the curve's (x, y) in order of λ from ≈0 (R = Q, x = 1) to ≈1 (R = P, y = 1),
    between its closing points (1, 0) and (0, 1) (step 2)."""
    rows = [(1.0, 0.0)]
    for lam in np.linspace(1e-6, 1 - 1e-6, points):
        mixture = lam * p_hist + (1 - lam) * q_hist
        rows.append((np.exp(-scaling * kl(q_hist, mixture)), np.exp(-scaling * kl(p_hist, mixture))))
    rows.append((0.0, 1.0))
    return np.asarray(rows)


def area_under(curve: np.ndarray) -> float:
    """The area between the curve and the axes: the trapezoids along the curve in its own order (x
    falls and y rises with λ), so points that tie on x are joined as the curve joins them."""
    x, y = curve[::-1, 0], curve[::-1, 1]
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))


def mauve(
    p: np.ndarray,
    q: np.ndarray,
    how: Quantisation = Quantisation(),
    points: int = CURVE_POINTS,
    scaling: float = SCALING,
) -> float:
    """MAUVE of feature sets `p` (model texts) and `q` (human texts), rows are texts (step 3).

    >>> rng = np.random.default_rng(0)
    >>> same = rng.normal(size=(60, 8))
    >>> round(mauve(same, same.copy()), 3), mauve(same, same + 50.0) < 0.1
    (1.0, True)
    """
    p_hist, q_hist = histograms(p, q, how)
    return area_under(divergence_curve(p_hist, q_hist, points, scaling))
