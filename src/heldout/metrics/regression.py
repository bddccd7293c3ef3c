"""Standard errors and intervals for the mean squared error of a regression model.

The test MSE ``(1/N) sum_i (y_i - yhat_i)^2`` is the mean of the ``N`` squared
residuals, so the central limit theorem gives it a standard error
``s / sqrt(N)`` with ``s`` the sample standard deviation of the squared
residuals -- the route the source article (:cite:`validation_size`)
recommends for any metric that is a mean over items.

The article then proposes a "better" variance for Gaussian residuals,
``2 (MSE - B^2)(1 + 2 MSE) / N`` with ``B`` the mean residual.  That formula
is wrong (it adds the pure number 1 to an MSE, which has units).  The right
normal-theory value follows from the non-central chi-squared distribution:
if ``r ~ N(B, s2)`` then ``sum r^2 / s2`` is non-central chi-squared with
``N`` degrees of freedom and non-centrality ``N B^2 / s2``, whose variance
``2 (N + 2 N B^2 / s2)`` gives

``Var(MSE_hat) = 2 s2 (s2 + 2 B^2) / N``.

With ``B = 0`` the exact chi-squared interval
``[N MSE / chi2_{N, 1 - alpha/2}, N MSE / chi2_{N, alpha/2}]`` applies.

Methods of :func:`mse_interval`:

``"clt"``        normal interval with the sample variance of squared residuals
``"t"``          the same with a Student-t quantile (``N - 1`` degrees of freedom)
``"bootstrap"``  percentile bootstrap over items :cite:`efron1993`
``"normal"``     corrected normal-theory standard error (Gaussian residuals)
``"chi2"``       exact chi-squared interval (Gaussian residuals with zero mean)
``"article"``    the article's formula as printed (for comparison only)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from heldout._checks import (
    as_choice,
    as_count,
    as_draws,
    as_floats,
    as_positive,
    as_probability,
    as_real,
    check_work,
    same_shape,
    show,
)
from heldout._deprecate import level_to_alpha, renamed
from heldout._result import Result
from heldout.config import rng as _rng

METHODS = ("clt", "t", "bootstrap", "normal", "chi2", "article")


def _residuals(y, yhat) -> np.ndarray:
    y_arr = as_real(y, "y")
    p_arr = as_real(yhat, "yhat")
    same_shape(y_arr, p_arr, "y", "yhat")
    if y_arr.ndim == 0:
        raise ValueError("y must be an array of test targets, got a single number")
    if y_arr.shape[-1] < 2:
        raise ValueError(
            f"y must hold at least 2 test items along its last axis, got {y_arr.shape[-1]}"
        )
    for arr, name in ((y_arr, "y"), (p_arr, "yhat")):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must hold finite numbers (no NaN or infinity)")
    return y_arr - p_arr


def mse(y, yhat):
    """Mean squared error ``(1/N) sum (y_i - yhat_i)^2`` along the last axis.

    Examples
    --------
    >>> mse([1.0, 2.0, 3.0], [1.5, 2.0, 2.0])
    0.4166666666666667
    """
    r = _residuals(y, yhat)
    out = np.mean(r**2, axis=-1)
    return float(out) if np.ndim(out) == 0 else out


def mse_se(y, yhat, method: str = "clt"):
    """Standard error of the test MSE.

    ``"clt"``: ``s / sqrt(N)``, ``s^2 = (1/(N-1)) sum (r_i^2 - MSE)^2`` (the
    article's sigma^2); ``"normal"``: ``sqrt(2 s2 (s2 + 2 B^2) / N)`` with
    ``B = mean(r)``, ``s2 = MSE - B^2`` (Gaussian residuals); ``"article"``:
    the article's ``sqrt(2 (MSE - B^2)(1 + 2 MSE) / N)`` as printed.

    Examples
    --------
    >>> r = np.random.default_rng(1).normal(0.0, 2.0, 400)
    >>> round(mse_se(r, np.zeros(400)), 3), round(mse_se(r, np.zeros(400), method='normal'), 3)
    (0.259, 0.236)
    """
    as_choice(method, "method", ("clt", "normal", "article"))
    r = _residuals(y, yhat)
    n = r.shape[-1]
    sq = r**2
    m = sq.mean(axis=-1)
    if method == "clt":
        out = sq.std(axis=-1, ddof=1) / np.sqrt(n)
    elif method in ("normal", "article"):
        b = r.mean(axis=-1)
        s2 = np.maximum(m - b**2, 0.0)
        out = (
            np.sqrt(2 * s2 * (s2 + 2 * b**2) / n)
            if method == "normal"
            else np.sqrt(2 * s2 * (1 + 2 * m) / n)
        )
    else:
        raise ValueError(f"method must be 'clt', 'normal' or 'article', got {show(method)}")
    return float(out) if np.ndim(out) == 0 else out


def _bootstrap(sq: np.ndarray, alpha: float, draws: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap of the mean of ``sq`` along the last axis (rows handled in chunks)."""
    lead = sq.shape[:-1]
    flat = sq.reshape(-1, sq.shape[-1])
    n = flat.shape[1]
    lo = np.empty(flat.shape[0])
    hi = np.empty(flat.shape[0])
    chunk = max(1, int(4_000_000 // (draws * n)))
    q = [alpha / 2, 1 - alpha / 2]
    for start in range(0, flat.shape[0], chunk):
        rows = flat[start : start + chunk]
        idx = rng.integers(0, n, size=(rows.shape[0], draws, n))
        means = np.take_along_axis(rows[:, None, :], idx, axis=2).mean(axis=2)
        lo[start : start + chunk], hi[start : start + chunk] = np.quantile(means, q, axis=1)
    return lo.reshape(lead), hi.reshape(lead)


@dataclass(frozen=True)
class MSEInterval(Result):
    """The test MSE and an interval for the expected squared error; unpacks as ``(mse, low, high)``."""

    mse: float | np.ndarray
    low: float | np.ndarray
    high: float | np.ndarray


_LEVEL = {"level": ("alpha", level_to_alpha)}


@renamed(positional=("level", "method"), **_LEVEL)
def mse_interval(
    y, yhat, *, alpha: float = 0.05, method: str = "clt", draws: int = 2000, seed=None
) -> MSEInterval:
    """Interval for the expected squared error of a model, from its test residuals.

    Parameters
    ----------
    y, yhat
        Test targets and predictions (same shape; the last axis indexes the
        test items, leading axes are independent test sets).
    alpha
        One minus the nominal coverage, in (0, 1).
    method
        One of ``"clt"``, ``"t"``, ``"bootstrap"``, ``"normal"``, ``"chi2"``,
        ``"article"`` (see the module docstring for the formulas).
    draws, seed
        Bootstrap resamples and seed (``method="bootstrap"`` only).

    Returns
    -------
    MSEInterval
        ``(mse, low, high)``.  The upper end is ``inf`` only where it overflows (an
        ``alpha`` so small, below about ``1e-300``, that the interval is all of
        ``[low, inf)``).

    Examples
    --------
    >>> r = np.random.default_rng(1).normal(0.0, 2.0, 400)
    >>> ci = mse_interval(r, np.zeros(400), method="chi2")
    >>> round(ci.mse, 3), round(ci.low, 3), round(ci.high, 3)
    (3.34, 2.921, 3.856)
    """
    as_choice(method, "method", METHODS)
    # checked whatever the method, so that a bad value is never silently ignored
    draws = as_draws(draws, "draws", minimum=10)
    gen = _rng(seed)
    alpha = as_probability(alpha, "alpha", scalar=True)
    r = _residuals(y, yhat)
    n = r.shape[-1]
    sq = r**2
    m = sq.mean(axis=-1)
    z = -special.ndtri(alpha / 2)
    if method == "clt":
        half = z * mse_se(y, yhat, "clt")
        lo, hi = m - half, m + half
    elif method == "t":
        half = -special.stdtrit(n - 1, alpha / 2) * mse_se(y, yhat, "clt")
        lo, hi = m - half, m + half
    elif method in ("normal", "article"):
        half = z * mse_se(y, yhat, method)
        lo, hi = m - half, m + half
    elif method == "chi2":
        lo = n * m / special.chdtri(n, alpha / 2)
        # the lower chi-squared quantile from the lower tail itself: chdtri(n, 1 - alpha/2)
        # would round 1 - alpha/2 to 1 for tiny alpha and give an upper end of inf
        with np.errstate(over="ignore", divide="ignore"):
            hi = n * m / (2.0 * special.gammaincinv(n / 2.0, alpha / 2))
    elif method == "bootstrap":
        check_work(float(draws) * sq.size, 500_000_000, "draws times the residuals")
        lo, hi = _bootstrap(sq, alpha, draws, gen)
    else:
        raise ValueError(f"method must be one of {METHODS}, got {show(method)}")

    def out(v):
        return float(v) if np.ndim(v) == 0 else v

    return MSEInterval(out(m), out(np.maximum(lo, 0.0)), out(hi))


@dataclass(frozen=True)
class Residuals(Result):
    """Drawn residuals and their true MSE; unpacks as ``(residuals, true_mse)``."""

    residuals: np.ndarray
    true_mse: float


@renamed(rng="seed")
def sample_residuals(
    kind: str, size, *, bias: float = 0.0, scale: float = 1.0, df: float = 5.0, seed=None
) -> Residuals:
    """Draw residuals ``bias + scale * e`` and return them with their true MSE.

    ``kind``: ``"normal"`` (``E e^2 = 1``), ``"laplace"`` (``E e^2 = 2``) or
    ``"t"`` (Student t with ``df > 2``, ``E e^2 = df / (df - 2)``).  True MSE is
    ``bias^2 + scale^2 E e^2``.

    ``seed`` (an int, a Generator or None) goes through :func:`heldout.config.rng`.

    Returns
    -------
    Residuals
        ``(residuals, true_mse)``.

    Examples
    --------
    >>> res = sample_residuals("t", 5, scale=2.0, df=4.0, seed=1)
    >>> res.residuals.shape, res.true_mse
    ((5,), 8.0)
    """
    as_choice(kind, "kind", ("normal", "laplace", "t"))
    scale = as_positive(scale, "scale", scalar=True)
    bias = as_real(bias, "bias", scalar=True)
    df = as_positive(df, "df", scalar=True)
    if df <= 2:
        raise ValueError(f"df must exceed 2 for a finite MSE, got {show(df)}")
    if as_floats(size, "size").ndim > 1:
        raise ValueError(
            f"size must be a count or a shape (a 1-D list of counts), got {show(size)}"
        )
    shape = tuple(np.atleast_1d(as_count(size, "size", minimum=1)).tolist())
    check_work(float(np.prod(shape)), 500_000_000, "size (residuals drawn)")
    size = shape if np.ndim(size) else shape[0]
    rng = _rng(seed)
    if kind == "normal":
        e, m2 = rng.standard_normal(size), 1.0
    elif kind == "laplace":
        e, m2 = rng.laplace(size=size), 2.0
    elif kind == "t":
        e, m2 = rng.standard_t(df, size=size), df / (df - 2)
    else:
        raise ValueError(f"kind must be 'normal', 'laplace' or 't', got {show(kind)}")
    return Residuals(bias + scale * e, bias**2 + scale**2 * m2)


@dataclass(frozen=True)
class MethodCoverage(Result):
    """Simulated coverage of one interval method (:func:`mse_coverage`)."""

    coverage: float
    se: float
    width: float


@renamed(**_LEVEL)
def mse_coverage(
    n: int,
    *,
    kind: str = "normal",
    bias: float = 0.0,
    scale: float = 1.0,
    df: float = 5.0,
    alpha: float = 0.05,
    methods=("clt", "t", "bootstrap", "normal", "chi2", "article"),
    reps: int = 2000,
    draws: int = 500,
    seed=None,
) -> dict[str, MethodCoverage]:
    """Coverage of the MSE intervals, by simulation.

    ``reps`` test sets of ``n`` residuals are drawn with :func:`sample_residuals`
    (predictions 0, targets = residuals); for each method, the share of
    intervals containing the true MSE is returned (its binomial standard
    error is ``sqrt(c (1 - c) / reps)``), together with the mean width.

    Returns
    -------
    dict
        ``{method: MethodCoverage(coverage, se, width)}``.

    Examples
    --------
    >>> cov = mse_coverage(50, kind="laplace", methods=("clt", "chi2"), reps=400, seed=1)
    >>> round(cov["clt"].coverage, 2), round(cov["chi2"].coverage, 2)
    (0.85, 0.8)
    """
    n = as_count(n, "n", minimum=2, scalar=True)
    reps = as_count(reps, "reps", minimum=1, scalar=True)
    check_work(float(n) * reps, 100_000_000, "n times reps")
    if isinstance(methods, str):
        methods = (methods,)
    if not isinstance(methods, list | tuple) or not methods:
        raise ValueError(f"methods must be a tuple of method names, got {show(methods)}")
    for method in methods:
        as_choice(method, "methods", METHODS)
    rng = _rng(seed)
    r, true = sample_residuals(kind, (reps, n), bias=bias, scale=scale, df=df, seed=rng)
    zeros = np.zeros_like(r)
    res = {}
    for method in methods:
        _, lo, hi = mse_interval(
            r, zeros, alpha=alpha, method=method, draws=draws, seed=rng.integers(2**32)
        )
        c = float(np.mean((lo <= true) & (true <= hi)))
        res[method] = MethodCoverage(
            coverage=c, se=float(np.sqrt(c * (1 - c) / reps)), width=float(np.mean(hi - lo))
        )
    return res
