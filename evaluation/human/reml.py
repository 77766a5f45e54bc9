"""Linear mixed models with crossed random effects, fitted by REML, and Satterthwaite degrees of
freedom: the small-sample machinery behind every interval and test of the human ratings.

The model is

    y = X b + sum_k Z_k u_k + e,    u_k ~ N(0, theta_k I),  e ~ N(0, theta_e I),

so Var(y) = V = sum_k theta_k Z_k Z_k' + theta_e I, with Z_k the 0/1 indicator matrix of factor k
(items, raters, outputs, rater x method...). The variance components theta are fitted by REML with
Fisher scoring (score and expected information as in Searle, Casella & McCulloch, "Variance
Components", ch. 6), projected on theta >= 0 with step halving on the REML log-likelihood.

Two kinds of estimate get an interval:

  * a fixed linear estimator w'y (the mean over items of item means, say): Var = w'V(theta)w, a
    linear function of theta;
  * a GLS contrast c'b of the fixed effects: Var = c'(X'V^-1 X)^-1 c.

For both, the Satterthwaite degrees of freedom are df = 2 f^2 / (g' F^-1 g), f the variance at the
estimate, g its gradient in theta and F the REML expected information (lmerTest's approach, with the
gradient in closed form). With a dominant rater component and 3 raters, df is close to 2: the
interval is as wide as 3 raters make it.

Example: a balanced 10 x 4 table with item and rater effects; the fitted components and the df of
the grand mean.

>>> rng = np.random.default_rng(0)
>>> items, raters = np.repeat(np.arange(10), 4), np.tile(np.arange(4), 10)
>>> y = rng.normal(0, 1, 10)[items] + rng.normal(0, 1, 4)[raters] + rng.normal(0, 0.5, 40)
>>> fit = fit_reml(y, np.ones((40, 1)), {"item": items, "rater": raters})
>>> fit.names
('item', 'rater', 'residual')
>>> var, df = linear_variance(fit, np.full(40, 1 / 40))
>>> bool(2 < df < 10)
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import linalg, sparse
from scipy.linalg import lapack
from threadpoolctl import ThreadpoolController

MAX_ITER = 200
TOL = 1e-6  # relative change of the components that ends the iteration
SPARSE_ROWS = 250
_threads: list[ThreadpoolController] = []


def one_thread():
    """A context in which BLAS runs on one thread. These matrices are small (a few hundred rows): on a
    shared 2-core machine a multi-threaded Cholesky of 180 x 180 took 46 ms against 0.4 ms on one
    thread, so every fit runs inside this."""
    if not _threads:
        _threads.append(ThreadpoolController())  # after numpy and scipy loaded their BLAS
    return _threads[0].limit(limits=1, user_api="blas")


@dataclass(frozen=True)
class Fit:
    """A REML fit: component names (residual last), their variances, the expected information."""

    names: tuple[str, ...]
    theta: np.ndarray  # variances, residual last
    info: np.ndarray  # REML expected information in theta
    Z: tuple[Any, ...]  # indicator matrices of the random factors, sparse (residual: none)
    X: np.ndarray
    y: np.ndarray
    beta: np.ndarray  # GLS estimate of the fixed effects
    cov_beta: np.ndarray  # (X'V^-1 X)^-1
    loglik: float  # REML log-likelihood (up to a constant)
    converged: bool
    held: tuple[str, ...] = ()  # components held at a value given from outside (`fixed`)
    G: tuple[np.ndarray, ...] = ()  # Z_k Z_k'
    Vi: np.ndarray | None = None  # V^-1 at theta

    @property
    def components(self) -> dict[str, float]:
        return dict(zip(self.names, (float(t) for t in self.theta)))

    def V(self) -> np.ndarray:
        return _covariance(self.theta, self.Z, len(self.y), self.G)


def indicators(codes: np.ndarray) -> np.ndarray:
    """The n x levels 0/1 matrix of a factor given as one code per observation."""
    _, inverse = np.unique(np.asarray(codes), return_inverse=True)
    out = np.zeros((len(inverse), int(inverse.max()) + 1 if len(inverse) else 0))
    out[np.arange(len(inverse)), inverse] = 1.0
    return out


def identifiable(X: np.ndarray, blocks: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The random factors that can be told apart from the fixed effects, the residual and each other:
    a factor with one level, one observation per level (it is the residual), a column space inside
    X's (a random effect nested in a fixed one) or the same grouping as an earlier factor is dropped."""
    kept: dict[str, np.ndarray] = {}
    seen: list[np.ndarray] = []
    q, _ = np.linalg.qr(X) if X.size else (np.zeros((len(next(iter(blocks.values()), [])), 0)), None)
    for name, codes in blocks.items():
        Z = indicators(codes)
        if Z.shape[1] < 2 or Z.shape[1] == Z.shape[0]:
            continue
        if np.abs(Z - q @ (q.T @ Z)).max() < 1e-9:  # every column of Z lies in X's column space
            continue
        gram = Z @ Z.T
        if any(np.array_equal(gram, other) for other in seen):
            continue
        seen.append(gram)
        kept[name] = Z
    return kept


def _covariance(theta: np.ndarray, Z: tuple[Any, ...], n: int, G: tuple[np.ndarray, ...] = ()) -> np.ndarray:
    V = np.eye(n) * theta[-1]
    for t, z, g in itertools.zip_longest(theta[:-1], Z, G):
        V += t * (_gram(z) if g is None else g)
    return V


def _gram(z: Any) -> np.ndarray:
    return np.asarray((z @ z.T).todense()) if sparse.issparse(z) else z @ z.T


def _parts(theta: np.ndarray, Z: tuple[Any, ...], X: np.ndarray, y: np.ndarray, G: tuple[np.ndarray, ...] = ()):
    V = _covariance(theta, Z, len(y), G)
    chol, info = lapack.dpotrf(V, lower=True, clean=True)
    if info != 0:
        raise linalg.LinAlgError("V is not positive definite")
    Vi, info = lapack.dpotri(chol, lower=True)
    if info != 0:
        raise linalg.LinAlgError("V is singular")
    Vi = np.tril(Vi) + np.tril(Vi, -1).T  # dpotri fills one triangle
    ViX = Vi @ X
    XtViX = X.T @ ViX
    H = np.linalg.pinv(XtViX) if X.shape[1] > 1 else 1.0 / XtViX
    P = Vi - ViX @ H @ ViX.T
    Py = P @ y
    logdet_v = 2.0 * float(np.sum(np.log(np.diag(chol))))
    sign, logdet_x = np.linalg.slogdet(XtViX)
    loglik = -0.5 * (logdet_v + (logdet_x if sign > 0 else 0.0) + float(y @ Py))
    return P, Py, H, Vi, loglik


def _score_info(P: np.ndarray, Py: np.ndarray, Z: tuple[Any, ...]) -> tuple[np.ndarray, np.ndarray]:
    # Z sparse (large problems): P Z_k and Z_j' (P Z_k) cost O(n^2) and O(n q), not O(n^2 q)
    k = len(Z)
    PZ = [np.asarray(z.T @ P).T if sparse.issparse(z) else P @ z for z in Z]
    score = np.empty(k + 1)
    info = np.empty((k + 1, k + 1))
    for j, (z, pz) in enumerate(zip(Z, PZ)):
        trace = z.multiply(pz).sum() if sparse.issparse(z) else np.sum(pz * z)
        score[j] = -0.5 * float(trace) + 0.5 * float(np.sum((z.T @ Py) ** 2))
        for l in range(j + 1):
            info[j, l] = info[l, j] = 0.5 * float(np.sum(np.asarray(z.T @ PZ[l]) ** 2))
        info[j, k] = info[k, j] = 0.5 * float(np.sum(pz**2))
    score[k] = -0.5 * float(np.trace(P)) + 0.5 * float(Py @ Py)
    info[k, k] = 0.5 * float(np.sum(P**2))
    return score, info


def fit_reml(
    y: np.ndarray,
    X: np.ndarray,
    blocks: Mapping[str, np.ndarray],
    unconstrained: bool | Collection[str] = False,
    fixed: Mapping[str, float] | None = None,
    start: Mapping[str, float] | None = None,
) -> Fit:
    """REML fit of y ~ X b + random factors `blocks` ({name: one code per observation}); the factors
    that cannot be identified are left out (see `identifiable`). Needs len(y) > rank(X).

    `unconstrained` (True, or the names of some components): these may come out negative (V must
    stay positive definite),
    as the ANOVA estimators do on a balanced table: an unbiased estimate to pool with others, where
    the truncated one would be biased upwards. `fixed`: components held at a given variance (a
    value estimated elsewhere, e.g. pooled over several fits), the others fitted given them.
    `start`: starting values by name (a previous fit's `components`), for a quicker refit."""
    with one_thread():
        return _fit(y, X, blocks, unconstrained, dict(fixed or {}), dict(start or {}))


def _names(unconstrained: bool | Collection[str]) -> Collection[str]:
    return () if isinstance(unconstrained, bool) else unconstrained


def _signed(names: tuple[str, ...], unconstrained: bool | Collection[str]) -> np.ndarray:
    """True for the components that may go below 0 (never the residual)."""
    if isinstance(unconstrained, bool):
        out = np.full(len(names), unconstrained)
    else:
        out = np.array([n in unconstrained for n in names])
    out[-1] = False
    return out


def _try_parts(theta: np.ndarray, Z: tuple[Any, ...], X: np.ndarray, y: np.ndarray, G: tuple[np.ndarray, ...]):
    try:
        return _parts(theta, Z, X, y, G)
    except linalg.LinAlgError:  # not positive definite (a negative component too large)
        return None


def _fit(
    y: np.ndarray,
    X: np.ndarray,
    blocks: Mapping[str, np.ndarray],
    unconstrained: bool | Collection[str],
    fixed: dict[str, float],
    start: dict[str, float],
) -> Fit:
    y = np.asarray(y, dtype=float)
    X = np.asarray(X, dtype=float).reshape(len(y), -1)
    kept = identifiable(X, blocks)
    names = (*kept, "residual")
    # sparse pays off on large problems only: below a few hundred rows its overhead dominates
    Z = tuple(sparse.csc_matrix(z) if len(y) > SPARSE_ROWS else z for z in kept.values())
    resid = y - X @ np.linalg.lstsq(X, y, rcond=None)[0]
    dof = max(len(y) - np.linalg.matrix_rank(X), 1)
    total = max(float(resid @ resid) / dof, 1e-8)
    theta = np.full(len(names), total / len(names))
    held = np.array([n in fixed for n in names])
    signed = _signed(names, unconstrained)
    edge = 1 / 32 if signed.any() else 1e-4  # with signed components the PD edge is near enough
    for k, n in enumerate(names):
        if n in fixed:
            theta[k] = fixed[n]
        elif n in start and np.isfinite(start[n]):
            theta[k] = max(float(start[n]), 0.0) if n == "residual" or n not in _names(unconstrained) else start[n]
    theta[-1] = max(theta[-1], total * 1e-3)
    floor = total * 1e-10  # the residual must stay positive for V to be invertible
    G = tuple(_gram(z) for z in Z)
    parts = _parts(theta, Z, X, y, G)
    loglik = parts[-1]
    converged = False
    for _ in range(MAX_ITER):
        score, info = _score_info(parts[0], parts[1], Z)
        # Newton (Fisher scoring) step on the free components; one held at 0 whose score still
        # points below 0 stays there (active set), so the others are optimised given it.
        free = ~held & ~((theta <= 0) & (score <= 0) & ~signed)
        free[-1] = not held[-1]
        step = np.zeros(len(theta))
        step[free] = np.linalg.lstsq(info[np.ix_(free, free)], score[free], rcond=None)[0]
        size, new = 1.0, None
        while size >= edge:
            cand = theta + size * step
            cand[:-1] = np.where(held[:-1] | signed[:-1], cand[:-1], np.maximum(cand[:-1], 0.0))
            cand[-1] = max(cand[-1], floor)
            new = _try_parts(cand, Z, X, y, G)
            if new is not None and new[-1] >= loglik - 1e-12:
                break
            size /= 2
            new = None
        if new is None:  # no step improves the likelihood: at the optimum (or a boundary)
            converged = True
            break
        change = float(np.max(np.abs(cand - theta)))
        theta, parts = cand, new
        done = change <= TOL * (1.0 + float(np.max(np.abs(theta)))) or abs(new[-1] - loglik) < 1e-9
        loglik = new[-1]
        if done:
            converged = True
            break
    P, Py, H, Vi, _ = parts
    _, info = _score_info(P, Py, Z)
    return Fit(
        names=names,
        theta=theta,
        info=info,
        Z=Z,
        X=X,
        y=y,
        beta=H @ (X.T @ (Vi @ y)),
        cov_beta=H,
        loglik=loglik,
        converged=converged,
        held=tuple(n for n in names if n in fixed),
        G=G,
        Vi=Vi,
    )


def information(fit: Fit, theta: np.ndarray) -> np.ndarray:
    """The REML expected information of `fit`'s model at other variances `theta`."""
    with one_thread():
        P, Py, *_ = _parts(np.asarray(theta, dtype=float), fit.Z, fit.X, fit.y, fit.G)
        return _score_info(P, Py, fit.Z)[1]


def _boundary_df(
    fit: Fit,
    f: float,
    grad: np.ndarray,
    held_var: Mapping[str, float] | None = None,
    keep_at_zero: Collection[str] = (),
) -> float:
    # A component estimated at 0 is left out of the model (as when it is dropped and the model
    # refitted): its gradient and information rows go, except those named in `keep_at_zero` (the
    # sample the estimate generalises over: dropping it when its estimate happens to be 0 turns a t
    # with items - 1 df into one with cells - 1 and makes the test liberal exactly there). A held
    # component's uncertainty is the variance of the estimate it was given (`held_var`), not this fit's.
    held = np.array([n in fit.held for n in fit.names])
    keep = ((fit.theta > 0) | np.isin(fit.names, list(keep_at_zero))) & ~held
    keep[-1] = True
    if not f > 0:
        return math.nan
    var_f = float(grad[keep] @ np.linalg.pinv(fit.info[np.ix_(keep, keep)]) @ grad[keep])
    for k, name in enumerate(fit.names):
        if name in fit.held:
            var_f += grad[k] ** 2 * float((held_var or {}).get(name, 0.0))
    return 2.0 * f * f / var_f if var_f > 0 else math.inf


def df_at(fit: Fit, w: np.ndarray, components: Mapping[str, float], keep_at_zero: Collection[str] = ()) -> float:
    """Satterthwaite df of the fixed linear estimator w'y with the variances at `components` (by
    name, e.g. pooled over several fits) instead of this fit's: the information and the variance
    evaluated there, a component at 0 left out unless named in `keep_at_zero`."""
    theta = np.array([max(float(components.get(n, 0.0)), 0.0) for n in fit.names])
    theta[-1] = max(theta[-1], 1e-12)
    grad = linear_gradient(fit, w)
    info = information(fit, theta)
    keep = (theta > 0) | np.isin(fit.names, list(keep_at_zero))
    keep[-1] = True
    f = float(grad @ theta)
    var_f = float(grad[keep] @ np.linalg.pinv(info[np.ix_(keep, keep)]) @ grad[keep])
    return 2.0 * f * f / var_f if f > 0 and var_f > 0 else math.nan


def linear_gradient(fit: Fit, w: np.ndarray) -> np.ndarray:
    """d(w'Vw)/d theta: ||Z_k'w||^2 per component, ||w||^2 for the residual."""
    w = np.asarray(w, dtype=float)
    return np.array([float(np.sum((z.T @ w) ** 2)) for z in fit.Z] + [float(w @ w)])


def linear_variance(
    fit: Fit, w: np.ndarray, held_var: Mapping[str, float] | None = None, keep_at_zero: Collection[str] = ()
) -> tuple[float, float]:
    """(variance, Satterthwaite df) of the fixed linear estimator w'y; `held_var`: the sampling
    variance of each held component's given value; `keep_at_zero`: components that stay in the df
    when estimated at 0 (see `_boundary_df`)."""
    grad = linear_gradient(fit, w)
    f = float(grad @ fit.theta)
    return f, _boundary_df(fit, f, grad, held_var, keep_at_zero)


def contrast(fit: Fit, c: np.ndarray, held_var: Mapping[str, float] | None = None) -> tuple[float, float, float]:
    """(estimate, variance, Satterthwaite df) of the GLS contrast c'b (`held_var` as in
    `linear_variance`)."""
    c = np.asarray(c, dtype=float)
    est = float(c @ fit.beta)
    var = float(c @ fit.cov_beta @ c)
    # d/dtheta_k of c'(X'V^-1 X)^-1 c = ||Z_k' V^-1 X H c||^2 (the residual: Z = I)
    with one_thread():
        a = (fit.Vi if fit.Vi is not None else np.linalg.inv(fit.V())) @ (fit.X @ (fit.cov_beta @ c))
    grad = np.array([float(np.sum((z.T @ a) ** 2)) for z in fit.Z] + [float(a @ a)])
    return est, var, _boundary_df(fit, var, grad, held_var)
