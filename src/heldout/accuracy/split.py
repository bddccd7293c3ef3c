r"""The variational train/test split: how to share ``m`` rows between fitting and testing.

The Win-Vector article (Win-Vector LLC, 2021, "What is a Good Test Set Size?", second half)
models the expected squared *criticism* of the whole fit-then-test procedure as

.. math::

    \mathbb{E}[\text{criticism}^2] \approx \frac{c_\text{test}}{m_\text{test}}
        + \frac{c_\text{train}}{m_\text{train}} + c_0 ,

and minimises it subject to :math:`m_\text{train} + m_\text{test} = m`.  The
minimiser puts the share

.. math::

    f_\text{test} = \frac{\sqrt{c_\text{test}}}{\sqrt{c_\text{test}} + \sqrt{c_\text{train}}}

of the rows into the test set, whatever ``m`` is.

What is here:

* :func:`optimal_test_fraction`, :func:`optimal_split`: the closed-form share and the best
  whole-row split of ``rows`` rows.
* :func:`expected_criticism`, :func:`lagrange_multiplier`: the model itself, and the
  multiplier of the article's Lagrangian at the optimum.
* :func:`optimal_split_power`: the best split when the training term falls as
  ``m_train**-beta`` rather than ``1/m_train``.
* :func:`fit_criticism_model`, :func:`fit_power_criticism_model`: (weighted) least-squares
  estimates of the coefficients, with standard errors, confidence intervals and the
  uncertainty they leave in the optimal share.
* :func:`logistic_population`, :func:`fit_logistic_batch`, :func:`measure_criticism`,
  :func:`measure_splits`: the measurement behind the chapter: a stated synthetic population,
  many logistic-regression fits at a grid of training sizes, test sets of a grid of sizes,
  and the realised criticism of whole splits on fresh resamples.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import special

from heldout._checks import (
    _arr,
    as_count,
    as_draws,
    as_flag,
    as_floats,
    as_instance,
    as_positive,
    as_probability,
    as_real,
    broadcast,
    check_elements,
    check_work,
    scalar_or_array,
    show,
)
from heldout._result import Result, extra
from heldout.config import SEED
from heldout.config import rng as _rng

# Most rows (resamples x rows per resample, summed over cells) one measurement may draw.
_MEASURE_LIMIT = 2_000_000_000

__all__ = [
    "optimal_test_fraction",
    "optimal_split",
    "expected_criticism",
    "lagrange_multiplier",
    "optimal_split_power",
    "CriticismFit",
    "fit_criticism_model",
    "PowerCriticismFit",
    "fit_power_criticism_model",
    "LogisticPopulation",
    "logistic_population",
    "fit_logistic_batch",
    "CriticismMeasurement",
    "measure_criticism",
    "measure_splits",
]


# ---------------------------------------------------------------------------
# The model and its minimiser
# ---------------------------------------------------------------------------


def _check_coefficients(c_test, c_train) -> tuple[np.ndarray, np.ndarray]:
    c_test = as_positive(c_test, "c_test", allow_zero=True)
    c_train = as_positive(c_train, "c_train", allow_zero=True)
    c_test, c_train = broadcast(c_test=c_test, c_train=c_train)
    if np.any((c_test == 0) & (c_train == 0)):
        raise ValueError("c_test and c_train must not both be 0 (then every split is equally good)")
    return c_test, c_train


def _finite(values, what: str):
    """``values`` unchanged if finite; else a ``ValueError`` (the floating-point range is exceeded)."""
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{what} is beyond the floating-point range")
    return values


def _whole_rows(t, rows):
    """Float test sizes (already in ``[1, rows - 1]``) as int64, exact up to ``rows < 2**63``."""
    t = np.clip(np.asarray(t, dtype=float), 1.0, 9.2e18).astype(np.int64)
    return np.clip(t, 1, np.asarray(rows, dtype=np.int64) - 1)


def optimal_test_fraction(c_test, c_train):
    r"""Share of the rows to put in the test set under the variational model.

    .. math::

        f_\text{test} = \frac{\sqrt{c_\text{test}}}{\sqrt{c_\text{test}} + \sqrt{c_\text{train}}}

    It minimises :math:`c_\text{test}/m_\text{test} + c_\text{train}/m_\text{train} + c_0`
    over real :math:`m_\text{test} + m_\text{train} = m` (Win-Vector LLC, 2021, "What is a Good Test
    Set Size?", the variational answer).  The share does not depend on ``m`` or ``c_0``.

    Parameters
    ----------
    c_test, c_train : float or array_like
        Non-negative coefficients of the test and training terms (not both 0).
        Arrays broadcast.

    Returns
    -------
    float or numpy.ndarray
        The test share in [0, 1]; the training share is one minus it.

    Examples
    --------
    >>> round(optimal_test_fraction(1.6, 79), 4)
    0.1246
    """
    c_test, c_train = _check_coefficients(c_test, c_train)
    root_test, root_train = np.sqrt(c_test), np.sqrt(c_train)
    return scalar_or_array(root_test / (root_test + root_train))


def expected_criticism(m_train, m_test, c_train, c_test, c0=0.0):
    r"""The article's model of the expected squared criticism.

    .. math::

        \mathbb{E}[\text{criticism}^2] \approx \frac{c_\text{test}}{m_\text{test}}
            + \frac{c_\text{train}}{m_\text{train}} + c_0

    (Win-Vector LLC, 2021, "What is a Good Test Set Size?").

    Parameters
    ----------
    m_train, m_test : float or array_like
        Positive training and test sizes (real values are allowed: the relaxation the
        derivation uses).
    c_train, c_test : float or array_like
        Non-negative coefficients.
    c0 : float or array_like, default 0
        The constant term (any real number; it does not move the optimum).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(expected_criticism(8752, 1248, 79, 1.6), 6)
    0.010309
    """
    m_train = as_positive(m_train, "m_train")
    m_test = as_positive(m_test, "m_test")
    c_train = as_positive(c_train, "c_train", allow_zero=True)
    c_test = as_positive(c_test, "c_test", allow_zero=True)
    c0 = as_real(c0, "c0")
    m_train, m_test, c_train, c_test, c0 = broadcast(
        m_train=m_train, m_test=m_test, c_train=c_train, c_test=c_test, c0=c0
    )
    with np.errstate(all="ignore"):
        out = c_test / m_test + c_train / m_train + c0
    return scalar_or_array(_finite(out, "the criticism of these m_train, m_test, c_train, c_test"))


@dataclass(frozen=True)
class SplitRows(Result):
    """A whole-row split: ``test_rows`` and ``train_rows`` (which unpack) and the shares."""

    test_rows: int | np.ndarray
    train_rows: int | np.ndarray
    test_fraction: float | np.ndarray = extra(None)
    train_fraction: float | np.ndarray = extra(None)


def optimal_split(c_test, c_train, rows) -> SplitRows:
    r"""Best whole-row split of ``rows`` rows under the variational model.

    The criticism :math:`g(t) = c_\text{test}/t + c_\text{train}/(m - t)` is convex in
    the test size :math:`t` on :math:`1 \le t \le m-1`, so the best whole number is the
    floor or the ceiling of the real minimiser :math:`t^* = m f_\text{test}` (clamped to
    that range); the one with the smaller :math:`g` is returned (the smaller test size on a
    tie).  Both parts keep at least one row.

    Parameters
    ----------
    c_test, c_train : float or array_like
        Non-negative coefficients (not both 0).
    rows : int or array_like of int
        Total number of rows ``m``, at least 2.

    Returns
    -------
    SplitRows
        ``test_rows`` and ``train_rows`` (int or int arrays, summing to ``rows``),
        ``test_fraction`` and ``train_fraction`` (the closed-form real shares).

    Examples
    --------
    >>> best = optimal_split(1.6, 79, 10_000)
    >>> best.test_rows, best.train_rows, round(best.test_fraction, 4)
    (1246, 8754, 0.1246)
    """
    c_test, c_train = _check_coefficients(c_test, c_train)
    rows = as_count(rows, "rows", minimum=2)
    fraction = np.asarray(optimal_test_fraction(c_test, c_train))
    c_test, c_train, rows, fraction = broadcast(
        c_test=c_test, c_train=c_train, rows=rows, fraction=fraction
    )
    real = rows * fraction
    low = np.clip(np.floor(real), 1, rows - 1)
    high = np.clip(np.ceil(real), 1, rows - 1)

    def crit(t):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(c_test > 0, c_test / t, 0.0) + np.where(
                c_train > 0, c_train / (rows - t), 0.0
            )

    test_rows = _whole_rows(np.where(crit(high) < crit(low), high, low), rows)
    return _split_rows(test_rows, rows, fraction)


def _split_rows(test_rows, rows, fraction) -> SplitRows:
    """Both optimisers' result: ``test_rows`` (int64) for testing, the rest of ``rows`` for
    training (Python ints when scalar), and ``fraction`` as the test share."""
    train_rows = rows - test_rows
    if test_rows.ndim == 0:
        test_rows, train_rows = int(test_rows), int(train_rows)
    return SplitRows(
        test_rows=test_rows,
        train_rows=train_rows,
        test_fraction=scalar_or_array(fraction),
        train_fraction=scalar_or_array(1.0 - fraction),
    )


def lagrange_multiplier(c_test, c_train, rows, c0=0.0):
    r"""The Lagrange multiplier :math:`\lambda` at the optimum of the article's Lagrangian.

    The article minimises :math:`\sqrt{F}` with
    :math:`F = c_\text{test}/m_\text{test} + c_\text{train}/m_\text{train} + c_0` under
    :math:`m_\text{train} + m_\text{test} = m`, using
    :math:`\mathcal{L} = \sqrt{F} + \lambda(m_\text{train} + m_\text{test} - m)`.
    Setting :math:`\partial\mathcal{L}/\partial m_\text{test} = 0` gives

    .. math::

        \lambda = \frac{1}{2\sqrt{F}}\,\frac{c_\text{test}}{m_\text{test}^2}
                = \frac{1}{2\sqrt{F}}\,\frac{c_\text{train}}{m_\text{train}^2},
        \qquad F^* = \frac{(\sqrt{c_\text{test}} + \sqrt{c_\text{train}})^2}{m} + c_0 ,

    evaluated at the real optimum.  By the envelope theorem :math:`\lambda` is minus the
    rate at which the optimal root criticism falls per extra row.

    Parameters
    ----------
    c_test, c_train : float or array_like
        Non-negative coefficients, not both 0.
    rows : float or array_like
        Total rows ``m`` (real, at least 2).
    c0 : float or array_like
        Constant term; the optimal :math:`F^*` must be positive.

    Examples
    --------
    >>> round(lagrange_multiplier(1.6, 79, 10_000) * 1e6, 3)
    5.077
    """
    c_test, c_train = _check_coefficients(c_test, c_train)
    rows = as_positive(rows, "rows")
    if np.any(rows < 2):
        raise ValueError(f"rows must be at least 2, got {show(rows)}")
    c0 = as_real(c0, "c0")
    c_test, c_train, rows, c0 = broadcast(c_test=c_test, c_train=c_train, rows=rows, c0=c0)
    with np.errstate(all="ignore"):
        root_sum = np.sqrt(c_test) + np.sqrt(c_train)
        best = root_sum**2 / rows + c0
        if np.any(best <= 0):
            raise ValueError(
                "c0 makes the optimal criticism F* non-positive (or c_test, c_train and rows put "
                "it below the floating-point range); its square root is undefined"
            )
        out = root_sum**2 / rows / (2.0 * np.sqrt(best) * rows)
    return scalar_or_array(_finite(out, "the multiplier of these c_test, c_train, rows, c0"))


def optimal_split_power(c_test, c_train, rows, train_exponent=1.0) -> SplitRows:
    r"""Best whole-row split when the training term falls as a power of ``m_train``.

    Minimises :math:`g(t) = c_\text{test}/t + c_\text{train}/(m - t)^{\beta}` over whole
    test sizes :math:`1 \le t \le m - 1`.  For :math:`\beta > 0` the function is convex,
    so the real minimiser is found by bisection on :math:`g'(t) = 0` (vectorised) and the
    better of its floor and ceiling is returned.  With :math:`\beta = 1` this is
    :func:`optimal_split`; with :math:`\beta \ne 1` the best *share* changes with ``m``,
    which is the point: the article's constant share relies on :math:`\beta = 1`.

    Parameters
    ----------
    c_test, c_train : float or array_like
        Positive coefficients.
    rows : int or array_like of int
        Total rows ``m`` (at least 2).
    train_exponent : float or array_like, default 1
        :math:`\beta > 0`.

    Returns
    -------
    SplitRows
        ``test_rows``, ``train_rows``, ``test_fraction`` (= ``test_rows / rows``) and
        ``train_fraction``.

    Examples
    --------
    >>> optimal_split_power(1.6, 79, 10_000, train_exponent=0.5).test_rows
    198
    """
    c_test = as_positive(c_test, "c_test")
    c_train = as_positive(c_train, "c_train")
    rows = as_count(rows, "rows", minimum=2)
    beta = as_positive(train_exponent, "train_exponent")
    c_test, c_train, rows_int, beta = broadcast(
        c_test=c_test, c_train=c_train, rows=rows, train_exponent=beta
    )
    rows = rows_int.astype(float)

    def rising(t):
        # g'(t) > 0  <=>  beta c_train / (m - t)^(beta + 1) > c_test / t^2, compared in logs
        # so that no power overflows
        right = np.log(beta) + np.log(c_train) - (beta + 1.0) * np.log(rows - t)
        return right > np.log(c_test) - 2.0 * np.log(t)

    lo = np.full(rows.shape, 1.0)
    hi = rows - 1.0
    with np.errstate(all="ignore"):
        for _ in range(80):  # bisection: each pass halves every bracket at once
            mid = 0.5 * (lo + hi)
            up = rising(mid)
            hi = np.where(up, mid, hi)
            lo = np.where(up, lo, mid)
        real = 0.5 * (lo + hi)
        low = np.clip(np.floor(real), 1, rows - 1)
        high = np.clip(np.ceil(real), 1, rows - 1)

        def crit(t):
            return c_test / t + c_train / (rows - t) ** beta

        better = crit(high) < crit(low)
    test_rows = _whole_rows(np.where(better, high, low), rows_int)
    return _split_rows(test_rows, rows_int, test_rows / rows)


# ---------------------------------------------------------------------------
# Estimating the coefficients
# ---------------------------------------------------------------------------


def _fraction_gradient(c_test: float, c_train: float) -> np.ndarray:
    """Gradient of the test share with respect to (c_test, c_train, c0)."""
    a, b = np.sqrt(max(c_test, 0.0)), np.sqrt(max(c_train, 0.0))
    s2 = (a + b) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        d_test = b / (2 * a * s2) if a > 0 else np.inf
        d_train = -a / (2 * b * s2) if b > 0 else -np.inf
    return np.array([d_test, d_train, 0.0])


@dataclass(frozen=True)
class CriticismFit(Result):
    """Least-squares estimate of ``(c_test, c_train, c0)``; see :func:`fit_criticism_model`.

    ``params`` and ``cov`` are in the order ``(c_test, c_train, c0)``.
    """

    params: np.ndarray
    cov: np.ndarray
    dof: int
    chi2: float
    weighted: bool
    absolute_sigma: bool
    names: tuple[str, str, str] = ("c_test", "c_train", "c0")

    @property
    def c_test(self) -> float:
        return float(self.params[0])

    @property
    def c_train(self) -> float:
        return float(self.params[1])

    @property
    def c0(self) -> float:
        return float(self.params[2])

    @property
    def se(self) -> np.ndarray:
        """Standard errors of ``(c_test, c_train, c0)``."""
        return np.sqrt(np.diag(self.cov))

    def _quantile(self, level: float) -> float:
        level = float(as_probability(level, "level", scalar=True))
        # Known weights: normal reference; weights or scale estimated: Student t on dof.
        if self.weighted and self.absolute_sigma:
            return float(special.ndtri(0.5 + level / 2))
        return float(special.stdtrit(self.dof, 0.5 + level / 2))

    def confint(self, level: float = 0.95) -> np.ndarray:
        """Two-sided confidence intervals, one row per coefficient: ``[[lo, hi], ...]``."""
        q = self._quantile(level)
        return np.column_stack([self.params - q * self.se, self.params + q * self.se])

    @property
    def test_fraction(self) -> float:
        """Optimal test share from the point estimates (negative estimates clipped to 0)."""
        return float(optimal_test_fraction(max(self.c_test, 0.0), max(self.c_train, 0.0)))

    @property
    def test_fraction_se(self) -> float:
        r"""Delta-method standard error of the optimal test share,
        :math:`\sqrt{\nabla f^\top \Sigma \nabla f}`."""
        grad = _fraction_gradient(self.c_test, self.c_train)
        if not np.all(np.isfinite(grad)):
            return float("nan")
        return float(np.sqrt(grad @ self.cov @ grad))

    def test_fraction_interval(
        self,
        level: float = 0.95,
        *,
        method: str = "delta",
        draws: int = 20_000,
        seed: int | None = None,
    ) -> tuple[float, float]:
        """Confidence interval of the optimal test share.

        ``method="delta"``: share plus or minus a normal (or t) quantile times
        :attr:`test_fraction_se`, clipped to [0, 1].  ``method="bootstrap"``: a parametric
        bootstrap, drawing the coefficients from the normal distribution with the fitted mean
        and covariance (negative draws clipped to 0) and taking percentiles of the share.
        """
        if method == "delta":
            q = self._quantile(level)
            f, se = self.test_fraction, self.test_fraction_se
            return (max(0.0, f - q * se), min(1.0, f + q * se))
        if method == "bootstrap":
            level = float(as_probability(level, "level", scalar=True))
            draws = int(as_count(draws, "draws", minimum=100, scalar=True))
            gen = _rng(seed)
            sample = gen.multivariate_normal(self.params, self.cov, size=draws, method="svd")
            a = np.sqrt(np.clip(sample[:, 0], 0, None))
            b = np.sqrt(np.clip(sample[:, 1], 0, None))
            with np.errstate(invalid="ignore"):
                shares = np.where(a + b > 0, a / (a + b), 0.5)
            lo, hi = np.quantile(shares, [0.5 - level / 2, 0.5 + level / 2])
            return (float(lo), float(hi))
        raise ValueError(f"method must be 'delta' or 'bootstrap', got {show(method)}")


def _design(m_train, m_test) -> np.ndarray:
    return np.column_stack([1.0 / m_test, 1.0 / m_train, np.ones_like(m_test)])


def _check_data(m_train, m_test, sq_criticism, sigma):
    m_train = np.ravel(as_positive(m_train, "m_train"))
    m_test = np.ravel(as_positive(m_test, "m_test"))
    y = np.ravel(_arr(sq_criticism, "sq_criticism"))
    if np.any(~np.isfinite(y)):
        raise ValueError("sq_criticism must hold finite numbers")
    if not (m_train.size == m_test.size == y.size):
        raise ValueError(
            f"m_train, m_test and sq_criticism must have the same length, "
            f"got {m_train.size}, {m_test.size} and {y.size}"
        )
    if sigma is not None:
        sigma = np.ravel(as_positive(sigma, "sigma"))
        if sigma.size != y.size:
            raise ValueError(
                f"sigma must have one entry per observation ({y.size}), got {sigma.size}"
            )
    return m_train, m_test, y, sigma


def fit_criticism_model(
    m_train, m_test, sq_criticism, *, sigma=None, absolute_sigma: bool = True
) -> CriticismFit:
    r"""Estimate :math:`c_\text{test}, c_\text{train}, c_0` by (weighted) least squares.

    The model :math:`y_i = c_\text{test}/m_{\text{test},i} + c_\text{train}/m_{\text{train},i}
    + c_0 + e_i` is linear in the coefficients, so the estimate is
    :math:`\hat\theta = (X^\top W X)^{-1} X^\top W y` with design columns
    :math:`(1/m_\text{test}, 1/m_\text{train}, 1)` and :math:`W = \operatorname{diag}(\sigma_i^{-2})`.

    * ``sigma=None``: ordinary least squares; covariance :math:`s^2 (X^\top X)^{-1}` with
      :math:`s^2` the residual mean square on ``n - 3`` degrees of freedom.
    * ``sigma`` given and ``absolute_sigma=True``: the :math:`\sigma_i` are the standard
      errors of the observations (for example of cell means over repeated resamples), and
      the covariance is :math:`(X^\top W X)^{-1}`; intervals use the normal quantile.
    * ``absolute_sigma=False``: ``sigma`` are relative weights; the covariance is scaled by
      the reduced :math:`\chi^2`, intervals use Student's t.

    The coefficients are not constrained to be non-negative: a negative estimate is a
    finding (the model does not fit), not something to hide.

    Parameters
    ----------
    m_train, m_test : array_like
        Training and test sizes of each observation.
    sq_criticism : array_like
        Observed squared criticism (single resamples or cell means).
    sigma : array_like, optional
        Standard errors (or relative uncertainties) of ``sq_criticism``.
    absolute_sigma : bool, default True

    Returns
    -------
    CriticismFit

    Examples
    --------
    >>> m_train = np.array([500, 1000, 2000, 500, 1000, 2000])
    >>> m_test = np.array([100, 100, 100, 400, 400, 400])
    >>> sq = 1.6 / m_test + 79 / m_train + 0.001
    >>> fit = fit_criticism_model(m_train, m_test, sq, sigma=np.full(6, 1e-4))
    >>> [round(float(v), 3) for v in fit.params]
    [1.6, 79.0, 0.001]
    """
    absolute_sigma = as_flag(absolute_sigma, "absolute_sigma")
    m_train, m_test, y, sigma = _check_data(m_train, m_test, sq_criticism, sigma)
    n = y.size
    if n < 4:
        raise ValueError(
            f"sq_criticism needs at least 4 observations to fit 3 coefficients, got {n}"
        )
    X = _design(m_train, m_test)
    if np.linalg.matrix_rank(X) < 3:
        raise ValueError(
            "m_train and m_test must each take at least two values (and not move together), "
            "or the coefficients cannot be told apart"
        )
    w = np.ones(n) if sigma is None else 1.0 / sigma**2
    sw = np.sqrt(w)
    Xw, yw = X * sw[:, None], y * sw
    params, *_ = np.linalg.lstsq(Xw, yw, rcond=None)
    resid = yw - Xw @ params
    chi2 = float(resid @ resid)
    dof = n - 3
    xtwx_inv = np.linalg.inv(Xw.T @ Xw)
    if sigma is not None and absolute_sigma:
        cov = xtwx_inv
    else:
        cov = xtwx_inv * (chi2 / dof if dof > 0 else np.nan)
    return CriticismFit(
        params=params,
        cov=cov,
        dof=dof,
        chi2=chi2,
        weighted=sigma is not None,
        absolute_sigma=bool(absolute_sigma),
    )


@dataclass(frozen=True)
class PowerCriticismFit(Result):
    """Non-linear fit of ``c_test/m_test + c_train/m_train**beta + c0``.

    ``params`` and ``cov`` are in the order ``(c_test, c_train, c0, beta)``.
    """

    params: np.ndarray
    cov: np.ndarray
    dof: int
    chi2: float

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(np.diag(self.cov))

    @property
    def beta(self) -> float:
        return float(self.params[3])

    @property
    def beta_se(self) -> float:
        return float(self.se[3])


def fit_power_criticism_model(m_train, m_test, sq_criticism, *, sigma=None) -> PowerCriticismFit:
    r"""Fit :math:`c_\text{test}/m_\text{test} + c_\text{train}/m_\text{train}^{\beta} + c_0`
    with the exponent :math:`\beta` free (weighted non-linear least squares, ``scipy.optimize.curve_fit``
    with ``absolute_sigma=True`` when ``sigma`` is given).

    It tests the article's assumption :math:`\beta = 1`: a fitted :math:`\beta` many standard
    errors away from 1 says the training term does not fall like a sample variance.

    Examples
    --------
    >>> m_train = np.array([500, 1000, 2000, 4000, 500, 1000, 2000, 4000])
    >>> m_test = np.array([100, 100, 100, 100, 400, 400, 400, 400])
    >>> sq = 1.6 / m_test + 79 / m_train**0.8 + 0.001
    >>> fit = fit_power_criticism_model(m_train, m_test, sq, sigma=np.full(8, 1e-5))
    >>> round(float(fit.params[3]), 3)
    0.8
    """
    m_train, m_test, y, sigma = _check_data(m_train, m_test, sq_criticism, sigma)
    if y.size < 5:
        raise ValueError(
            f"sq_criticism needs at least 5 observations to fit 4 coefficients, got {y.size}"
        )
    start = fit_criticism_model(m_train, m_test, y, sigma=sigma).params

    def model(_, c_test, c_train, c0, beta):
        return c_test / m_test + c_train / m_train**beta + c0

    p0 = [start[0], max(start[1], 1e-6 * np.max(y) * np.max(m_train)), start[2], 1.0]
    from scipy import optimize

    params, cov = optimize.curve_fit(
        model,
        np.arange(y.size),
        y,
        p0=p0,
        sigma=sigma,
        absolute_sigma=sigma is not None,
        maxfev=20_000,
    )
    w = np.ones_like(y) if sigma is None else 1.0 / sigma**2
    resid = y - model(None, *params)
    return PowerCriticismFit(
        params=params, cov=cov, dof=y.size - 4, chi2=float(np.sum(w * resid**2))
    )


# ---------------------------------------------------------------------------
# The measurement: a stated population, a fast model family, many resamples
# ---------------------------------------------------------------------------


def _collared_pair(q: np.ndarray, mu: float) -> tuple[np.ndarray, np.ndarray]:
    """Collared deviance (:func:`heldout.accuracy.losses.collared_deviance`, bits) if the truth is 1 and if it is 0."""
    from heldout.accuracy.losses import collared_deviance

    return collared_deviance(1, q, mu), collared_deviance(0, q, mu)


@dataclass(frozen=True)
class LogisticPopulation:
    r"""A synthetic population whose every model can be scored exactly.

    The population is a fixed pool of feature vectors ``X`` (rows drawn once from a
    standard normal) with the true probability ``p = expit(intercept + X @ coef)`` of
    the label 1.  Drawing a row means picking a pool row uniformly at random and drawing
    its label from Bernoulli(``p``).  A model that predicts ``q`` has the *true* loss
    :math:`\frac1N\sum_i [p_i \ell(q_i, 1) + (1 - p_i) \ell(q_i, 0)]`, an exact
    expectation, no sampling.  The family (logistic regression) contains the truth, so the
    best model in the family predicts ``p`` itself and its loss is ``ideal_loss``.
    The loss is the article's collared deviance in bits with floor ``mu``.

    Examples
    --------
    >>> pop = logistic_population(n_features=3, pool_size=500, seed=1)
    >>> X, y = pop.draw(np.random.default_rng(0), (4,))
    >>> best = pop.true_loss(pop.coef[None, :], pop.intercept)[0]  # the truth's own loss
    >>> X.shape, y.shape, bool(abs(best - pop.ideal_loss) < 1e-12)
    ((4, 3), (4,), True)
    """

    X: np.ndarray
    p: np.ndarray
    coef: np.ndarray
    intercept: float
    mu: float
    seed: int
    ideal_loss: float = field(init=False)
    loss_sd: float = field(init=False)

    def __post_init__(self):
        l1, l0 = _collared_pair(self.p, self.mu)
        mean = np.mean(self.p * l1 + (1 - self.p) * l0)
        second = np.mean(self.p * l1**2 + (1 - self.p) * l0**2)
        object.__setattr__(self, "ideal_loss", float(mean))
        object.__setattr__(self, "loss_sd", float(np.sqrt(second - mean**2)))

    @property
    def pool_size(self) -> int:
        return int(self.p.size)

    @property
    def n_features(self) -> int:
        return int(self.coef.size)

    def true_loss(self, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
        r"""Exact population loss of logistic models, ``coef`` of shape ``(r, d)``.

        Works on the linear predictor: :math:`-\log q = \operatorname{softplus}(\eta) - \eta`
        and :math:`-\log(1-q) = \operatorname{softplus}(\eta)`, each capped at
        :math:`-\log\mu` (the collar), so one transcendental function per pool row.
        """
        eta = self.X @ np.atleast_2d(coef).T + np.atleast_1d(intercept)
        soft = np.logaddexp(0.0, eta)
        cap = -np.log(self.mu)
        l1 = np.minimum(cap, soft - eta)
        l0 = np.minimum(cap, soft)
        p = self.p[:, None]
        return (2.0 / np.log(2.0)) * np.mean(l0 + p * (l1 - l0), axis=0)

    def draw(
        self, gen: np.random.Generator, shape: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Draw rows of the given shape: features ``shape + (d,)`` and 0/1 labels ``shape``."""
        idx = gen.integers(0, self.pool_size, size=shape)
        y = (gen.random(shape) < self.p[idx]).astype(float)
        return self.X[idx], y


def logistic_population(
    n_features: int = 10,
    signal: float = 1.5,
    intercept: float = -0.5,
    pool_size: int = 10_000,
    mu: float = 0.01,
    seed: int | None = None,
) -> LogisticPopulation:
    r"""The chapter's stated population.

    ``n_features`` standard-normal features; the true coefficients alternate in sign and
    share the length ``signal`` equally, :math:`w_j = (-1)^{j}\,\text{signal}/\sqrt{d}`;
    true probability :math:`p = \operatorname{expit}(\text{intercept} + x^\top w)`; a pool
    of ``pool_size`` rows drawn with ``seed`` (default :data:`heldout.config.SEED`) is the
    population.  ``mu`` is the floor of the collared deviance.

    Examples
    --------
    >>> pop = logistic_population(pool_size=1000, seed=1)
    >>> pop.pool_size, pop.n_features, round(pop.ideal_loss, 3)
    (1000, 10, 1.486)
    """
    d = int(as_count(n_features, "n_features", minimum=1, scalar=True))
    signal = float(as_positive(signal, "signal", allow_zero=True, scalar=True))
    intercept = as_real(intercept, "intercept", scalar=True)
    n = int(as_count(pool_size, "pool_size", minimum=100, maximum=50_000_000, scalar=True))
    check_elements(float(n) * d, "pool_size x n_features")
    mu = float(as_probability(mu, "mu", scalar=True))
    if mu >= 0.5:
        raise ValueError(f"mu must be below 1/2, got {show(mu)}")
    seed = SEED if seed is None else as_count(seed, "seed", scalar=True)
    gen = _rng(seed)
    X = gen.standard_normal((n, d))
    coef = signal / np.sqrt(d) * (-1.0) ** np.arange(d)
    p = special.expit(intercept + X @ coef)
    return LogisticPopulation(X=X, p=p, coef=coef, intercept=intercept, mu=mu, seed=seed)


@dataclass(frozen=True)
class LogisticFit(Result):
    """Coefficients of many logistic regressions; unpacks as ``(coef, intercept)``."""

    coef: np.ndarray
    intercept: np.ndarray


def _softplus(eta: np.ndarray) -> np.ndarray:
    """``log(1 + e^eta)``: ``log1p(exp(eta))`` (eight times faster than ``logaddexp``) while
    ``exp`` cannot overflow, ``logaddexp(0, eta)`` beyond."""
    if eta.size and eta.max() < 700:
        return np.log1p(np.exp(eta))
    return np.logaddexp(0.0, eta)


def fit_logistic_batch(
    X, y, C: float = 1.0, *, max_iter: int = 100, tol: float = 1e-10
) -> LogisticFit:
    r"""Fit many L2-penalised logistic regressions at once by Newton's method.

    Each slice ``X[r], y[r]`` is one data set.  The objective is scikit-learn's
    ``LogisticRegression(C=C)`` (``lbfgs``; the intercept is not penalised):

    .. math::

        \tfrac12\lVert w\rVert^2 + C \sum_i \bigl[\log(1 + e^{\eta_i}) - y_i \eta_i\bigr],
        \qquad \eta_i = b + x_i^\top w .

    All data sets take their Newton steps together (gradients and Hessians by
    batched matrix products), with step halving wherever a full step would raise the
    objective; a data set stops when its own step is below ``tol``.  The Hessian is
    formed in single precision: it only sets the step's direction, while the gradient
    and the objective stay in double precision, so the fixed point (gradient zero) and
    the stopping rule are those of exact Newton steps (the coefficients agree with the
    all-double iteration to about 1e-15 in ``tests/accuracy/test_split.py``).

    Parameters
    ----------
    X : array_like, shape (r, n, d)
    y : array_like of 0/1, shape (r, n)
    C : float
        Inverse penalty strength, as in scikit-learn.

    Returns
    -------
    LogisticFit
        ``coef`` of shape (r, d) and ``intercept`` of shape (r,).

    Examples
    --------
    >>> gen = np.random.default_rng(0)
    >>> X = gen.standard_normal((2, 200, 3))
    >>> y = (gen.random((2, 200)) < 0.5).astype(float)
    >>> fit = fit_logistic_batch(X, y)
    >>> fit.coef.shape, fit.intercept.shape
    ((2, 3), (2,))
    """
    X = as_real(X, "X")
    y = as_real(y, "y")
    max_iter = as_count(max_iter, "max_iter", minimum=1, maximum=10_000, scalar=True)
    tol = as_positive(tol, "tol", scalar=True)
    if X.ndim != 3:
        raise ValueError(f"X must have shape (data sets, rows, features), got shape {X.shape}")
    if y.shape != X.shape[:2]:
        raise ValueError(f"y must have shape {X.shape[:2]} to match X, got {y.shape}")
    if np.any((y != 0) & (y != 1)):
        raise ValueError("y must hold only 0 and 1")
    C = float(as_positive(C, "C", scalar=True))
    r, n, d = X.shape
    Z = np.concatenate([X, np.ones((r, n, 1))], axis=2)
    Z32 = Z.astype(np.float32)
    pen = np.r_[np.full(d, 1.0 / C), 0.0]
    zy = (Z.transpose(0, 2, 1) @ y[..., None])[..., 0]  # sum_i y_i z_i, once
    beta = np.zeros((r, d + 1))

    def objective(b, rows):
        """The objective of the data sets ``rows`` at ``b``, and their linear predictors."""
        eta = (Z[rows] @ b[..., None])[..., 0]
        loss = np.sum(_softplus(eta), axis=1) - np.sum(b * zy[rows], axis=1)
        return loss + 0.5 * np.sum(pen * b**2, axis=1), eta

    everyone = slice(None)
    current, eta = objective(beta, everyone)
    active = np.arange(r)
    for _ in range(max_iter):
        rows = everyone if active.size == r else active
        za, z32 = Z[rows], Z32[rows]
        prob = special.expit(eta[rows])
        grad = (za.transpose(0, 2, 1) @ (prob - y[rows])[..., None])[..., 0] + pen * beta[rows]
        w = (prob * (1 - prob)).astype(np.float32)
        hess = (z32.transpose(0, 2, 1) @ (z32 * w[..., None])).astype(np.float64) + np.diag(pen)
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        t = np.ones(active.size)
        start = beta[rows]
        trial = start - step
        value, trial_eta = objective(trial, rows)
        before = current[rows]
        for _ in range(30):  # halve only the steps that raised the objective
            worse = value > before + 1e-12 * np.abs(before)
            if not worse.any():
                break
            t = np.where(worse, t / 2, t)
            trial = start - t[:, None] * step
            again, again_eta = objective(trial, rows)
            value = np.where(worse, again, value)
            trial_eta = np.where(worse[:, None], again_eta, trial_eta)
        beta[rows], current[rows], eta[rows] = trial, value, trial_eta
        active = active[np.max(np.abs(t[:, None] * step), axis=1) >= tol]
        if active.size == 0:
            break
    return LogisticFit(beta[:, :d], beta[:, d])


@dataclass(frozen=True)
class CriticismMeasurement(Result):
    r"""Repeated resamples at each cell ``(m_train[c], m_test[c])``.

    ``test_estimate[c, r]`` is the mean collared deviance on the test set of resample
    ``r`` (:math:`\hat L`); ``true_loss[c, r]`` is the exact population loss of the model
    fitted in that resample (:math:`L(\hat f)`); ``ideal_loss`` is the loss of the best
    model in the family (:math:`L^*`).  The training shortfall is
    :math:`\Delta = L(\hat f) - L^*\ge 0` and the test noise is :math:`\hat L - L(\hat f)`.
    """

    m_train: np.ndarray
    m_test: np.ndarray
    test_estimate: np.ndarray
    true_loss: np.ndarray
    ideal_loss: float

    @property
    def repeats(self) -> int:
        return int(self.test_estimate.shape[1])

    def _reference(self, reference) -> float:
        if isinstance(reference, str):
            if reference == "zero":
                return 0.0
            if reference == "ideal":
                return self.ideal_loss
            raise ValueError(
                f"reference must be 'zero', 'ideal' or a number, got {show(reference)}"
            )
        return as_real(reference, "reference", scalar=True)

    def sq_criticism(self, reference="zero", *, estimator: str = "decomposed") -> np.ndarray:
        r"""Squared criticism of every resample, shape (cells, repeats).

        The criticism is :math:`\hat L - R`.  ``reference="zero"`` (:math:`R = 0`, the loss
        of a perfect predictor) is the article's overall criticism, whose three path pieces
        add up to :math:`\hat L` itself; ``reference="ideal"`` (:math:`R = L^*`) measures
        the reported score against the best score the family can reach; a number sets
        :math:`R` directly.

        ``estimator="raw"`` returns :math:`(\hat L - R)^2`.  ``estimator="decomposed"``
        returns :math:`(\hat L - L(\hat f))^2 + (L(\hat f) - R)^2`: the same expectation,
        because the test noise :math:`\hat L - L(\hat f)` has mean zero given the fitted
        model (the test rows are fresh), so the cross term
        :math:`2(\hat L - L(\hat f))(L(\hat f) - R)` averages to zero; dropping it removes
        most of the resampling noise.  It needs the exact :math:`L(\hat f)`, which the
        synthetic population provides.
        """
        ref = self._reference(reference)
        if estimator == "raw":
            return (self.test_estimate - ref) ** 2
        if estimator == "decomposed":
            return (self.test_estimate - self.true_loss) ** 2 + (self.true_loss - ref) ** 2
        raise ValueError(f"estimator must be 'raw' or 'decomposed', got {show(estimator)}")

    def cell_means(
        self, reference="zero", *, estimator: str = "decomposed"
    ) -> tuple[np.ndarray, np.ndarray]:
        """Mean squared criticism per cell and its standard error (over the resamples)."""
        sq = self.sq_criticism(reference, estimator=estimator)
        return sq.mean(axis=1), sq.std(axis=1, ddof=1) / np.sqrt(sq.shape[1])

    def shortfall(self) -> np.ndarray:
        """Training shortfall :math:`L(\\hat f) - L^*` of every resample."""
        return self.true_loss - self.ideal_loss


def _chunks(total: int, size: int):
    for start in range(0, total, size):
        yield slice(start, min(total, start + size))


def _fit_and_test(pop, X_train, y_train, X_test, y_test, C):
    """Fit every resample's training rows (:func:`fit_logistic_batch`): its test mean loss
    on the test rows and its exact population loss (for :func:`measure_criticism` and
    :func:`measure_splits`)."""
    coef, b = fit_logistic_batch(X_train, y_train, C)
    q = special.expit((X_test @ coef[..., None])[..., 0] + b[:, None])
    l1, l0 = _collared_pair(q, pop.mu)
    return np.mean(np.where(y_test == 1, l1, l0), axis=1), pop.true_loss(coef, b)


def _sizes(values, name: str) -> np.ndarray:
    if as_floats(values, name).ndim > 1:
        raise ValueError(f"{name} must be a count or a 1-D list of counts, got {show(values)}")
    return np.atleast_1d(as_count(values, name, minimum=1))


def measure_criticism(
    train_sizes,
    test_sizes,
    repeats: int,
    *,
    population: LogisticPopulation | None = None,
    C: float = 1.0,
    seed: int | None = None,
    batch_rows: int = 400_000,
) -> CriticismMeasurement:
    r"""Measure the criticism on every cell of a grid of training and test sizes.

    For each cell ``(m_train, m_test)`` and each of ``repeats`` independent resamples:
    draw ``m_train`` training rows from the population, fit a logistic regression
    (:func:`fit_logistic_batch`, scikit-learn's ``LogisticRegression(C=C)``), draw
    ``m_test`` fresh test rows and record the test mean loss :math:`\hat L` and the exact
    population loss of the fitted model.  Cells are independent (no fit is shared), so
    cell means can be fitted by weighted least squares with independent errors.

    Parameters
    ----------
    train_sizes, test_sizes : array_like of int
        Grid values; every pair is a cell (``m_train >= 20`` keeps both labels present).
    repeats : int
        Resamples per cell (at least 2).
    population : LogisticPopulation, optional
        Default :func:`logistic_population` ().
    C : float
        Inverse penalty strength.
    seed : int, optional
        Default :data:`heldout.config.SEED`.
    batch_rows : int
        Rows per batch of simultaneous fits (memory control).

    Examples
    --------
    >>> pop = logistic_population(pool_size=1000, seed=1)
    >>> m = measure_criticism([200], [100], repeats=20, population=pop, seed=2)
    >>> m.test_estimate.shape, bool(np.all(m.true_loss >= pop.ideal_loss))
    ((1, 20), True)
    """
    as_instance(population, "population", LogisticPopulation, "a LogisticPopulation", optional=True)
    train = _sizes(train_sizes, "train_sizes")
    test = _sizes(test_sizes, "test_sizes")
    if np.any(train < 20):
        raise ValueError(f"train_sizes must be at least 20 rows, got {show(train_sizes)}")
    repeats = as_draws(repeats, "repeats", minimum=2)
    batch_rows = as_count(batch_rows, "batch_rows", minimum=1, maximum=50_000_000, scalar=True)
    m_train, m_test = (a.ravel() for a in np.meshgrid(train, test, indexing="ij"))
    rows_drawn = float(repeats) * float(np.sum(m_train.astype(float) + m_test))
    check_work(rows_drawn, _MEASURE_LIMIT, "repeats times the rows of every cell")
    pop = logistic_population() if population is None else population
    gen = _rng(seed)
    est = np.empty((m_train.size, repeats))
    true = np.empty((m_train.size, repeats))
    for c, (n_tr, n_te) in enumerate(zip(m_train, m_test, strict=True)):
        for part in _chunks(repeats, max(1, batch_rows // int(n_tr + n_te))):
            r = part.stop - part.start
            Xtr, ytr = pop.draw(gen, (r, int(n_tr)))
            Xte, yte = pop.draw(gen, (r, int(n_te)))  # the fit draws nothing: same stream
            est[c, part], true[c, part] = _fit_and_test(pop, Xtr, ytr, Xte, yte, C)
    return CriticismMeasurement(m_train, m_test, est, true, pop.ideal_loss)


# Its signature repeats measure_criticism's (both public: a grid of independent cells, or
# splits of shared rows); the loss, the fit and the chunking are the helpers both call.
def measure_splits(
    rows: int,
    test_rows,
    repeats: int,
    *,
    population: LogisticPopulation | None = None,
    C: float = 1.0,
    seed: int | None = None,
    batch_rows: int = 400_000,
) -> CriticismMeasurement:
    r"""Realised criticism of several splits of the same ``rows`` rows (a paired design).

    Each resample draws ``rows`` rows once; every candidate split ``t`` in ``test_rows``
    fits on the first ``rows - t`` rows and tests on the last ``t``.  Sharing the rows
    across candidates makes the *differences* between splits much less noisy than
    independent draws would.  Cell ``c`` of the result is candidate ``test_rows[c]``.

    Examples
    --------
    >>> pop = logistic_population(pool_size=1000, seed=1)
    >>> m = measure_splits(400, [100, 200], repeats=10, population=pop, seed=2)
    >>> m.m_train.tolist(), m.m_test.tolist()
    ([300, 200], [100, 200])
    """
    as_instance(population, "population", LogisticPopulation, "a LogisticPopulation", optional=True)
    rows = as_count(rows, "rows", minimum=2, scalar=True)
    test = _sizes(test_rows, "test_rows")
    if np.any(test > rows - 20):
        raise ValueError(
            f"test_rows must leave at least 20 training rows out of {rows}, got {show(test_rows)}"
        )
    repeats = as_count(repeats, "repeats", minimum=2, scalar=True)
    batch_rows = as_count(batch_rows, "batch_rows", minimum=1, maximum=50_000_000, scalar=True)
    check_work(float(repeats) * rows * test.size, _MEASURE_LIMIT, "repeats times rows times splits")
    pop = logistic_population() if population is None else population
    gen = _rng(seed)
    est = np.empty((test.size, repeats))
    true = np.empty((test.size, repeats))
    for part in _chunks(repeats, max(1, batch_rows // rows)):
        r = part.stop - part.start
        X, y = pop.draw(gen, (r, rows))
        for c, t in enumerate(test):
            n_tr = rows - int(t)
            parts = X[:, :n_tr], y[:, :n_tr], X[:, n_tr:], y[:, n_tr:]
            est[c, part], true[c, part] = _fit_and_test(pop, *parts, C)
    return CriticismMeasurement(rows - test, test, est, true, pop.ideal_loss)
