r"""How many test rows: sizes from concentration inequalities and exact binomial sums.

Every function here answers the same question in a different way: *how many
independent test rows* ``n`` are needed so that the mean loss on the test set
is within ``tolerance`` (written ``t``) of the true expected loss, except with
probability at most ``alpha``?

* :func:`hoeffding_size` uses only the loss's range ``[0, U]``; rigorous
  (Hoeffding 1963).
* :func:`bernstein_size` uses the range and the true variance; rigorous
  (Bernstein's inequality).
* :func:`empirical_bernstein_size` uses the range and the sample variance you
  expect to observe; rigorous with the observed variance (Maurer & Pontil 2009).
* :func:`binomial_size` is for 0-1 loss (a Bernoulli variable); exact.
* :func:`normal_size` uses the central limit theorem with known variance;
  approximate, not a guarantee.

:func:`simulate_deviation` checks any of them by drawing many test sets from a
population of per-row losses; :func:`lattice_deviation_probability` computes the
same miss probability without simulation (exactly for losses on a lattice, and
as a guaranteed bracket otherwise), and :func:`binomial_deviation_probability`
gives it exactly for 0-1 loss.

The Hoeffding size is the one of the Win-Vector article "What is a Good Test Set
Size?" (Win-Vector blog, 2021): ``k >= ln(2/alpha) U^2 / (2 t^2)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from heldout import _beta
from heldout._checks import (
    _arr,
    as_choice,
    as_count,
    as_flag,
    as_positive,
    as_probability,
    as_size,
    broadcast,
    check_work,
    scalar_or_array,
    show,
)
from heldout._deprecate import renamed
from heldout._result import Interval, Result, extra

__all__ = [
    "hoeffding_bound",
    "hoeffding_size",
    "hoeffding_tolerance",
    "bernstein_size",
    "empirical_bernstein_radius",
    "empirical_bernstein_size",
    "normal_size",
    "binomial_deviation_probability",
    "binomial_size",
    "simulate_deviation",
    "simulate_empirical_bernstein",
    "lattice_deviation_probability",
]

# Rows of losses drawn at once by simulate_deviation (32 MB of indices), and in total.
_ROW_BLOCK = 4_000_000
_DRAW_LIMIT = 2_000_000_000

# Relative slack used when a real number that should be an integer (a size, m (p + t))
# is computed in floating point: 1e-14 is above the rounding error of the few double
# operations involved (~1e-16 each) and below one unit for any count up to 1e13.
_SNAP = 1e-14


def _as_int(arr):
    arr = np.asarray(arr, dtype=np.int64)
    return int(arr) if arr.ndim == 0 else arr


def _ceil_size(raw):
    """Smallest integer >= ``raw`` (and >= 1), forgiving floating-point noise above an integer.

    A size of ``2**63`` or more raises ``ValueError`` ("the size exceeds ...") rather than
    wrapping around to a negative number.
    """
    raw = np.asarray(raw, dtype=float)
    with np.errstate(invalid="ignore"):
        k = np.ceil(raw)
        k = np.where((k - 1 >= raw * (1 - _SNAP)) & (k > 1), k - 1, k)
    return as_size(k, "n")


def _broadcast(names_values: dict) -> list[np.ndarray]:
    return list(broadcast(**names_values))


def _check_common(range_, tolerance, alpha):
    range_ = as_positive(range_, "range_")
    tolerance = as_positive(tolerance, "tolerance")
    alpha = as_probability(alpha, "alpha")
    return _broadcast({"range_": range_, "tolerance": tolerance, "alpha": alpha})


def _variance_args(variance, range_, tolerance, alpha, name="variance"):
    """The variance, range, tolerance and alpha of the Bernstein sizes, checked and broadcast.

    The variance must not exceed Popoviciu's limit ``range_**2 / 4`` for a loss in
    ``[0, range_]``.
    """
    range_, tolerance, alpha = _check_common(range_, tolerance, alpha)
    variance = as_positive(variance, name, allow_zero=True)
    # Popoviciu: a variable in [0, U] has variance at most U^2 / 4.
    with np.errstate(over="ignore"):
        largest = np.asarray(range_) ** 2 / 4 * (1 + 1e-12)
    if np.any(variance > largest):
        raise ValueError(
            f"{name} must be at most range_**2 / 4 (the largest variance of a loss in [0, range_]), "
            f"got {name}={show(variance)} with range_={show(range_)}"
        )
    return _broadcast({name: variance, "range_": range_, "tolerance": tolerance, "alpha": alpha})


# --------------------------------------------------------------------------- Hoeffding


def hoeffding_bound(n: ArrayLike, range_: ArrayLike, tolerance: ArrayLike) -> float | np.ndarray:
    r"""Hoeffding's two-sided bound on the chance that a test mean is off by more than ``t``.

    For ``n`` independent losses in ``[0, U]`` with mean :math:`\bar X` and
    expectation :math:`\mu` (Hoeffding 1963, Theorem 2),

    .. math:: P(|\bar X - \mu| \ge t) \le 2 \exp(-2 n t^2 / U^2).

    Parameters
    ----------
    n : int or array_like
        Test-set size(s), at least 1.
    range_ : float or array_like
        Width ``U`` of the loss's range ``[0, U]``.
    tolerance : float or array_like
        The deviation ``t > 0``.

    Returns
    -------
    float or ndarray
        ``min(1, 2 exp(-2 n t^2 / U^2))``.

    Examples
    --------
    >>> round(hoeffding_bound(36152, 14, 0.1), 4)  # the article's size keeps its promise
    0.05
    """
    n = as_count(n, "n", minimum=1)
    range_ = as_positive(range_, "range_")
    tolerance = as_positive(tolerance, "tolerance")
    n, range_, tolerance = _broadcast({"n": n, "range_": range_, "tolerance": tolerance})
    with np.errstate(all="ignore"):  # overflow to inf and underflow to 0 are both right here
        ratio = (tolerance / range_) ** 2
        return scalar_or_array(np.minimum(1.0, 2.0 * np.exp(-2.0 * n * ratio)))


@renamed(epsilon="alpha")
def hoeffding_size(range_: ArrayLike, tolerance: ArrayLike, alpha: ArrayLike) -> int | np.ndarray:
    r"""Smallest test-set size that Hoeffding's inequality certifies.

    The smallest integer ``k >= 1`` with :math:`2 e^{-2 k t^2 / U^2} \le \alpha`,
    that is

    .. math:: k = \left\lceil \frac{\ln(2/\alpha)\, U^2}{2 t^2} \right\rceil ,

    the formula of Win-Vector LLC (2021), from Hoeffding (1963).  A quotient that
    floating point puts within a relative ``1e-14`` above an integer is taken
    to be that integer.

    Parameters
    ----------
    range_ : float or array_like
        Width ``U`` of the loss's range ``[0, U]`` (``U = 1`` for 0-1 loss,
        ``-2 log2(mu)`` for the collared deviance).
    tolerance : float or array_like
        Largest acceptable deviation ``t`` of the test mean from the true mean,
        in the loss's units.
    alpha : float or array_like
        Largest acceptable probability of a larger deviation, ``0 < alpha < 1``.

    Returns
    -------
    int or ndarray of int
        The size ``k``; arrays broadcast.

    Examples
    --------
    >>> hoeffding_size(14, 0.1, 0.05)   # the article's worked example
    36152
    """
    range_, tolerance, alpha = _check_common(range_, tolerance, alpha)
    with np.errstate(all="ignore"):  # a size that overflows is refused by _ceil_size
        return _ceil_size(np.log(2.0 / alpha) * (range_ / tolerance) ** 2 / 2.0)


@renamed(epsilon="alpha")
def hoeffding_tolerance(n: ArrayLike, range_: ArrayLike, alpha: ArrayLike) -> float | np.ndarray:
    r"""The tolerance Hoeffding guarantees for a test set of ``n`` rows.

    Inverts :func:`hoeffding_size`: :math:`t = U \sqrt{\ln(2/\alpha) / (2n)}`.

    Parameters
    ----------
    n : int or array_like
        Test-set size(s), at least 1.
    range_ : float or array_like
        Width ``U`` of the loss's range.
    alpha : float or array_like
        Failure probability, ``0 < alpha < 1``.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(hoeffding_tolerance(36152, 14, 0.05), 4)
    0.1
    """
    n = as_count(n, "n", minimum=1)
    range_ = as_positive(range_, "range_")
    alpha = as_probability(alpha, "alpha")
    n, range_, alpha = _broadcast({"n": n, "range_": range_, "alpha": alpha})
    return scalar_or_array(range_ * np.sqrt(np.log(2.0 / alpha) / (2.0 * n)))


# --------------------------------------------------------------------------- Bernstein


@renamed(epsilon="alpha")
def bernstein_size(
    variance: ArrayLike, range_: ArrayLike, tolerance: ArrayLike, alpha: ArrayLike
) -> int | np.ndarray:
    r"""Test-set size from Bernstein's inequality, which uses the loss's variance.

    For ``n`` independent losses with variance :math:`\sigma^2` and
    :math:`|X_i - \mu| \le U` (true for any loss in ``[0, U]``), Bernstein's
    inequality (Boucheron, Lugosi & Massart 2013, Theorem 2.10) gives

    .. math:: P(|\bar X - \mu| \ge t) \le 2 \exp\!\left(-\frac{n t^2}{2\sigma^2 + 2 U t / 3}\right),

    so the smallest sufficient size is

    .. math:: n = \left\lceil \ln(2/\alpha)\,\frac{2\sigma^2 + 2Ut/3}{t^2} \right\rceil .

    When :math:`\sigma^2 \ll U^2` this is far smaller than Hoeffding's size; at
    the largest possible variance :math:`U^2/4` it is slightly larger.  The
    variance must be *known* (or bounded from above); if it is estimated from
    the same test set use :func:`empirical_bernstein_size`.

    Parameters
    ----------
    variance : float or array_like
        Variance :math:`\sigma^2` of one row's loss (``0 <= variance <= U^2/4``).
    range_, tolerance, alpha : float or array_like
        As in :func:`hoeffding_size`.

    Returns
    -------
    int or ndarray of int
        The smallest ``n`` that Bernstein's inequality finds sufficient.

    Examples
    --------
    >>> bernstein_size(0.05 * 0.95, 1, 0.01, 0.05)  # a 5 % error rate, within 1 point
    3751
    """
    variance, range_, tolerance, alpha = _variance_args(variance, range_, tolerance, alpha)
    with np.errstate(all="ignore"):  # a size that overflows is refused by _ceil_size
        raw = np.log(2.0 / alpha) * (2.0 * variance / tolerance + 2.0 * range_ / 3.0) / tolerance
        return _ceil_size(raw)


@renamed(epsilon="alpha")
def empirical_bernstein_radius(
    n: ArrayLike, sample_variance: ArrayLike, range_: ArrayLike, alpha: ArrayLike
) -> float | np.ndarray:
    r"""Two-sided empirical-Bernstein confidence radius (Maurer & Pontil 2009, Theorem 4).

    For ``n >= 2`` independent losses in ``[0, U]`` with *unbiased* sample
    variance :math:`V_n`, Maurer & Pontil's Theorem 4 (scaled from ``[0, 1]``
    to ``[0, U]``) bounds each one-sided deviation with probability at least
    :math:`1 - \delta`; a union bound over both sides with
    :math:`\delta = \alpha/2` gives, with probability at least
    :math:`1 - \alpha`,

    .. math:: |\bar X - \mu| \le \sqrt{\frac{2 V_n \ln(4/\alpha)}{n}} + \frac{7 U \ln(4/\alpha)}{3 (n - 1)} .

    Unlike Bernstein's inequality, this holds with the variance *measured on
    the test set itself*.

    Parameters
    ----------
    n : int or array_like
        Test-set size, at least 2.
    sample_variance : float or array_like
        The unbiased sample variance of the test losses (``ddof=1``).
    range_ : float or array_like
        Width ``U`` of the loss's range.
    alpha : float or array_like
        Failure probability.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(empirical_bernstein_radius(1000, 0.05, 1, 0.05), 4)
    0.0312
    """
    n = as_count(n, "n", minimum=2)
    range_ = as_positive(range_, "range_")
    alpha = as_probability(alpha, "alpha")
    # the unbiased sample variance of values in [0, U] can reach U^2/4 * n/(n-1) <= U^2/2
    sample_variance = as_positive(sample_variance, "sample_variance", allow_zero=True)
    with np.errstate(over="ignore"):
        largest = range_**2 / 2
    if np.any(sample_variance > largest):
        raise ValueError(
            f"sample_variance must be at most range_**2 / 2, got {show(sample_variance)}"
        )
    n, sample_variance, range_, alpha = _broadcast(
        {"n": n, "sample_variance": sample_variance, "range_": range_, "alpha": alpha}
    )
    log_term = np.log(4.0 / alpha)
    nf = n.astype(float)
    radius = np.sqrt(2.0 * sample_variance * log_term / nf) + 7.0 * range_ * (
        log_term / (3.0 * (nf - 1.0))
    )
    return scalar_or_array(radius)


@renamed(epsilon="alpha")
def empirical_bernstein_size(
    sample_variance: ArrayLike, range_: ArrayLike, tolerance: ArrayLike, alpha: ArrayLike
) -> int | np.ndarray:
    r"""Smallest ``n`` whose empirical-Bernstein radius is at most ``tolerance``.

    The smallest integer :math:`n \ge 2` with
    :math:`\sqrt{2 V \ln(4/\alpha)/n} + 7U\ln(4/\alpha)/(3(n-1)) \le t`
    (see :func:`empirical_bernstein_radius`; Maurer & Pontil 2009, Theorem 4).
    ``sample_variance`` is the variance you *expect to observe* (a planning
    value, for example from a pilot set or an earlier model): if the test set
    then shows a larger sample variance, its radius will be larger than
    ``tolerance``.  The radius decreases in ``n``, so the size is found by a
    vectorised integer bisection.

    Parameters
    ----------
    sample_variance : float or array_like
        Planned (expected) unbiased sample variance of a row's loss.
    range_, tolerance, alpha : float or array_like
        As in :func:`hoeffding_size`.

    Returns
    -------
    int or ndarray of int
        At least 2.

    Examples
    --------
    >>> empirical_bernstein_size(0.05 * 0.95, 1, 0.01, 0.05)
    6035
    """
    var, u, t, eps = _variance_args(sample_variance, range_, tolerance, alpha, "sample_variance")
    log_term = np.log(4.0 / eps)

    def radius(n):
        return np.sqrt(2.0 * var * log_term / n) + 7.0 * u * log_term / (3.0 * (n - 1))

    # Upper bracket: each term <= t/2 once n >= 8 V L / t^2 and n - 1 >= 14 U L / (3 t).
    with np.errstate(all="ignore"):
        raw = np.maximum(8.0 * (var / t) * (log_term / t), 14.0 * u * log_term / (3.0 * t) + 1.0)
    hi = np.asarray(as_size(np.ceil(raw) + 1.0, "n", minimum=2), dtype=np.int64)
    lo = np.ones_like(hi)  # radius(lo) > t by convention (n = 1 is not allowed)
    for _ in range(64):  # integer bisection: the bracket is below 2**63, so 63 halvings end it
        if not np.any(hi - lo > 1):
            break
        mid = lo + (hi - lo) // 2
        good = (radius(np.maximum(mid, 2).astype(float)) <= t) & (mid >= 2)
        hi = np.where(good, mid, hi)
        lo = np.where(good, lo, mid)
    return _as_int(hi)


# --------------------------------------------------------------------------- normal


@renamed(epsilon="alpha")
def normal_size(variance: ArrayLike, tolerance: ArrayLike, alpha: ArrayLike) -> int | np.ndarray:
    r"""Normal-approximation size: :math:`n = \lceil z_{1-\alpha/2}^2 \sigma^2 / t^2 \rceil`.

    The central limit theorem treats :math:`\bar X` as normal with standard
    deviation :math:`\sigma/\sqrt n`; this is the size at which
    :math:`P(|\bar X - \mu| > t)` would be ``alpha`` under that
    approximation.  It is *not* a guarantee (for rare events, heavy tails or
    small ``n`` it can be too small), but it shows what the rigorous sizes pay
    for their guarantees.

    Parameters
    ----------
    variance : float or array_like
        Variance of one row's loss (for 0-1 loss, ``p (1 - p)``).
    tolerance, alpha : float or array_like
        As in :func:`hoeffding_size`.

    Returns
    -------
    int or ndarray of int

    Examples
    --------
    >>> normal_size(0.05 * 0.95, 0.01, 0.05)  # no guarantee
    1825
    """
    variance = as_positive(variance, "variance", allow_zero=True)
    tolerance = as_positive(tolerance, "tolerance")
    alpha = as_probability(alpha, "alpha")
    variance, tolerance, alpha = _broadcast(
        {"variance": variance, "tolerance": tolerance, "alpha": alpha}
    )
    z = _beta.norm_isf(alpha / 2.0)
    with np.errstate(all="ignore"):  # a size that overflows is refused by _ceil_size
        return _ceil_size(z**2 * (variance / tolerance) / tolerance)


# --------------------------------------------------------------------------- binomial


def _snap(x):
    r = np.round(x)
    return np.where(np.abs(x - r) <= _SNAP * np.maximum(1.0, np.abs(x)), r, x)


def _deviation(m, p, tolerance):
    """Exact ``P(|K/m - p| > t)`` for float arrays (validated and broadcast by the caller)."""
    with np.errstate(invalid="ignore"):
        upper_edge = np.floor(_snap(m * (p + tolerance)))  # K > m (p + t) <=> K >= edge + 1
        lower_edge = np.ceil(_snap(m * (p - tolerance)))  # K < m (p - t) <=> K <= edge - 1
        prob = _beta.binom_sf(upper_edge, m, p) + _beta.binom_cdf(lower_edge - 1, m, p)
    return np.clip(prob, 0.0, 1.0)


@renamed(m="n")
def binomial_deviation_probability(
    n: ArrayLike, p: ArrayLike, tolerance: ArrayLike
) -> float | np.ndarray:
    r"""Exact :math:`P(|K/n - p| > t)` for :math:`K \sim \mathrm{Binomial}(n, p)`.

    This is the chance that the error rate measured on ``n`` independent test
    rows misses the true error rate ``p`` by more than ``t``: the quantity the
    Hoeffding bound ``2 exp(-2 n t^2)`` bounds for 0-1 loss.  It is the sum of
    two binomial tails,

    .. math:: P(K > n(p + t)) + P(K < n(p - t)),

    computed with the regularised incomplete beta function (and binomial series where
    SciPy's loses digits).  A product ``n (p +- t)`` within a relative ``1e-14`` of an
    integer is taken to be that integer, so that decimal inputs such as
    ``p = 0.5, t = 0.1, n = 10`` count the boundary value ``K = 6`` as *not* more than
    ``t`` away, as exact arithmetic would.

    Parameters
    ----------
    n : int or array_like
        Test-set size(s), at least 1.
    p : float or array_like
        True error rate(s), in [0, 1].
    tolerance : float or array_like
        The deviation ``t > 0``.

    Returns
    -------
    float or ndarray
        The probability; arrays broadcast.

    Examples
    --------
    >>> round(binomial_deviation_probability(100, 0.1, 0.05), 4)
    0.0636
    """
    n = as_count(n, "n", minimum=1)
    p = as_probability(p, "p", closed=True)
    tolerance = as_positive(tolerance, "tolerance")
    n, p, tolerance = _broadcast({"n": n, "p": p, "tolerance": tolerance})
    with np.errstate(all="ignore"):
        return scalar_or_array(_deviation(n.astype(float), p, tolerance))


def _chernoff_two_sided(m, p, tolerance):
    """Chernoff (KL) bound on P(K >= m(p+t)) + P(K <= m(p-t)): sum of exp(-m KL(p+-t || p)).

    Rigorous for every m and p (Hoeffding 1963, Theorem 1); used only to skip the
    exact computation where the bound already shows the target is met.
    """

    def tail(q):
        inside = (q >= 0) & (q <= 1)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            kl = _beta.kl(np.clip(q, 0.0, 1.0), p)
            return np.where(inside, np.exp(-m * kl), 0.0)

    return tail(p + tolerance) + tail(p - tolerance)


# Largest number of binomial tails one binomial_size search may evaluate (about a second).
_SEARCH_BUDGET = 1_000_000


class _Budget:
    """Counts the binomial tails a search evaluates and refuses to go past the limit."""

    def __init__(self, limit: int, what: str):
        self.used, self.limit, self.what = 0, limit, what

    def spend(self, n: int) -> None:
        self.used += int(n)
        if self.used > self.limit:
            raise ValueError(
                f"{self.what}: the exact search would evaluate more than {self.limit:,} "
                "binomial tails; give a larger tolerance or a stated p, or use hoeffding_size"
            )


def _ge(u, m, p):
    """``P(K >= u)`` for ``K ~ Binomial(m, p)``, any whole ``u`` (fast: one ``betainc``).

    Where both beta parameters exceed a million SciPy's function degrades and the
    saddle-point form of :func:`heldout._beta._saddlepoint_tails` is used instead.
    """
    inner = (u >= 1.0) & (u <= m)
    a, b = np.where(inner, u, 1.0), np.where(inner, m - u + 1.0, 1.0)
    out = np.array(special.betainc(a, b, p), dtype=float)
    huge = _beta._huge_region(a, b)
    if huge.any():
        out[huge] = _beta._saddlepoint_tails(a[huge], b[huge], p[huge])[0]
    return np.where(u <= 0.0, 1.0, np.where(u > m, 0.0, out))


def _le(lo, m, p):
    """``P(K <= lo)`` as ``I_{1-p}(m - lo, lo + 1)`` (one ``betainc``; ``1 - p`` is exact enough here)."""
    inner = (lo >= 0.0) & (lo < m)
    a, b = np.where(inner, lo + 1.0, 1.0), np.where(inner, m - lo, 1.0)
    out = np.array(special.betainc(b, a, 1.0 - p), dtype=float)
    huge = _beta._huge_region(a, b)
    if huge.any():
        out[huge] = _beta._saddlepoint_tails(a[huge], b[huge], p[huge])[1]
    return np.where(lo < 0.0, 0.0, np.where(lo >= m, 1.0, out))


def _bound_ge(u, m, p):
    """A cheap upper bound on ``P(K >= u)``: the smaller of Chernoff's and a geometric series.

    Chernoff: ``exp(-m KL(u/m || p))`` for ``u > m p``.  Geometric: the ratios
    ``P(K = i + 1) / P(K = i) = p (m - i) / ((i + 1)(1 - p))`` fall with ``i``, so
    ``P(K >= u) <= P(K = u) / (1 - r)`` with ``r`` the first ratio, when ``r < 1``.
    """
    q = np.clip(u / m, 0.0, 1.0)
    above = (u > m * p) & (u <= m)
    chern = np.where(above, np.exp(-m * _beta.kl(q, p)), 1.0)
    r = p * (m - u) / ((u + 1.0) * (1.0 - p))
    geom = np.where(above & (r < 1.0), np.exp(_beta.binom_logpmf(u, m, p)) / (1.0 - r), 1.0)
    return np.where(u > m, 0.0, np.where(u <= 0.0, 1.0, np.minimum(chern, geom)))


def _bound_le(lo, m, p):
    """The mirror of :func:`_bound_ge` for ``P(K <= lo)``."""
    q = np.clip(lo / m, 0.0, 1.0)
    below = (lo < m * p) & (lo >= 0.0)
    chern = np.where(below, np.exp(-m * _beta.kl(q, p)), 1.0)
    r = lo * (1.0 - p) / ((m - lo + 1.0) * p)
    geom = np.where(below & (r < 1.0), np.exp(_beta.binom_logpmf(lo, m, p)) / (1.0 - r), 1.0)
    return np.where(lo < 0.0, 0.0, np.where(lo >= m, 1.0, np.minimum(chern, geom)))


def _tails(u, lo, m, pu, pl, eps, budget):
    """``P_{pu}(K_{m_u} >= u) + P_{pl}(K_{m_l} <= lo)`` with ``m = (m_u, m_l)``, to compare with ``eps``.

    Where the cheap bounds (:func:`_bound_ge`, :func:`_bound_le`) already sum to at most
    ``eps`` that sum is returned (an upper bound, enough to decide against ``eps``);
    elsewhere the exact sum (counted against ``budget``).  The searches only ask "above
    ``eps``?" or use the value as an upper bound.
    """
    m_u, m_l = m
    u, lo, m_u, m_l, pu, pl = np.broadcast_arrays(u, lo, m_u, m_l, pu, pl)
    bound = _bound_ge(u, m_u, pu) + _bound_le(lo, m_l, pl)
    out = np.array(bound, dtype=float)
    need = np.flatnonzero(bound > eps)
    if need.size:
        budget.spend(2 * need.size)
        out[need] = _ge(u[need], m_u[need], pu[need]) + _le(lo[need], m_l[need], pl[need])
    return out


def _dev_eps(m, p, t, eps, budget):
    """The exact deviation probability where it may exceed ``eps`` (else an upper bound <= eps)."""
    u = np.floor(_snap(m * (p + t))) + 1.0
    lo = np.ceil(_snap(m * (p - t))) - 1.0
    return _tails(u, lo, (m, m), p, p, eps, budget)


def _box_upper(m1, m2, p1, p2, t, eps, budget):
    """Upper bound on P(|K/m - p| > t) over sizes ``m1..m2`` and rates ``[p1, p2]`` (arrays).

    The thresholds only move one way, ``u(m, p) = floor(m (p + t)) + 1 >= u(m1, p1)`` and
    ``l(m, p) = ceil(m (p - t)) - 1 <= l(m2, p2)``, and ``P_p(K_m >= u)`` grows with ``m``
    and ``p`` while ``P_p(K_m <= l)`` shrinks with both.  Hence
    ``P_{p2}(K_{m2} >= u(m1, p1)) + P_{p1}(K_{m1} <= l(m2, p2))`` bounds every point.
    """
    u_min = np.floor(_snap(m1 * (p1 + t))) + 1.0
    l_max = np.ceil(_snap(np.maximum(m2 * (p2 - t), m1 * (p2 - t)))) - 1.0
    return _tails(u_min, l_max, (m2, m1), p2, p1, eps, budget)


def _box_lower(m1, m2, p, t, eps, budget):
    """Lower bound on P(|K/m - p| > t) over sizes ``m1..m2`` at one rate ``p`` (the mirror).

    Where it is below ``eps`` the value returned may be any number at most ``eps``.
    """
    u_max = np.floor(_snap(m2 * (p + t))) + 1.0
    l_min = np.ceil(_snap(np.minimum(m1 * (p - t), m2 * (p - t)))) - 1.0
    return _tails(u_max, l_min, (m1, m2), p, p, eps, budget)


# Largest number of candidate rates evaluated in one vectorised step.
_CANDIDATES = 1_000_000


def _box_sup(m, p1, p2, t, eps, budget):
    """Exact supremum of P(|K/m - p| > t) over ``p`` in ``[p1, p2]``, one box per element.

    On every stretch of ``p`` where both thresholds are fixed the probability is an
    increasing tail plus a decreasing one whose slopes are ``m b(u-1)`` and ``-m b(l)``
    (pmfs of ``Binomial(m - 1, p)``); their ratio grows with ``p``, so the function falls
    then rises and its supremum sits at the ends of the stretches: the box ends, the
    left limits at ``p = j/m - t`` in ``(p1, p2]`` (``P(K >= j) + P(K <= ceil(j - 2mt) - 1)``)
    and the right limits at ``p = i/m + t`` in ``[p1, p2)``
    (``P(K >= floor(i + 2mt) + 1) + P(K <= i)``).  Values at most ``eps`` are only bounds.
    """
    out = np.maximum(_dev_eps(m, p1, t, eps, budget), _dev_eps(m, p2, t, eps, budget))
    j_lo = np.floor(_snap(m * (p1 + t))) + 1.0
    j_hi = np.floor(_snap(m * (p2 + t)))
    i_lo = np.maximum(np.ceil(_snap(m * (p1 - t))), 0.0)
    i_hi = np.ceil(_snap(m * (p2 - t))) - 1.0
    n_j = np.maximum(j_hi - j_lo + 1.0, 0.0).astype(np.int64)
    n_i = np.maximum(i_hi - i_lo + 1.0, 0.0).astype(np.int64)
    count = n_j + n_i
    start = 0
    while start < count.size:  # chunks of boxes holding at most _CANDIDATES candidates
        csum = np.cumsum(count[start:])
        stop = start + max(1, int(np.searchsorted(csum, _CANDIDATES, side="right")))
        sl = slice(start, stop)
        total = int(count[sl].sum())
        if total:
            box = np.repeat(np.arange(start, stop), count[sl])
            offset = np.arange(total) - np.repeat(np.cumsum(count[sl]) - count[sl], count[sl])
            upper = offset < n_j[box]  # the first n_j candidates of a box are left limits
            mm = m[box]
            k = np.where(upper, j_lo[box] + offset, i_lo[box] + offset - n_j[box])
            pc = np.where(upper, k / mm - t, k / mm + t)
            u = np.where(upper, k, np.floor(_snap(k + 2.0 * mm * t)) + 1.0)
            lo = np.where(upper, np.ceil(_snap(k - 2.0 * mm * t)) - 1.0, k)
            value = _tails(u, lo, (mm, mm), pc, pc, eps, budget)
            best = np.full(stop - start, -np.inf)
            np.maximum.at(best, box - start, value)
            out[sl] = np.maximum(out[sl], best)
        start = stop
    return out


def _witness(m, p1, p2, t, eps, budget):
    """An exact value of P(|K/m - p| > t) at some ``p`` in ``[p1, p2]`` (a lower bound on the sup)."""
    j = np.floor(_snap(m * (p2 + t)))
    pj = j / m - t
    inside = (pj > p1) & (pj <= p2)
    pj = np.where(inside, pj, p2)
    val = _tails(j, np.ceil(_snap(j - 2.0 * m * t)) - 1.0, (m, m), pj, pj, eps, budget)
    return np.where(inside, val, _dev_eps(m, p2, t, eps, budget))


def _initial_boxes(m_max: int, worst: bool, p: float | None):
    """Blocks of sizes ``1..m_max - 1`` growing by 1/16 each (times 16 boxes of rate if worst)."""
    edges = np.unique(np.round(np.geomspace(1.0, float(m_max), 2 + int(16 * np.log(m_max)))))
    m1, m2 = edges[:-1], edges[1:] - 1.0
    keep = m2 >= m1
    m1, m2 = m1[keep], m2[keep]
    if not worst:
        return m1, m2, np.full(m1.shape, p), np.full(m1.shape, p)
    pe = np.linspace(0.0, 0.5, 17)
    return (
        np.repeat(m1, 16),
        np.repeat(m2, 16),
        np.tile(pe[:-1], m1.size),
        np.tile(pe[1:], m1.size),
    )


def _split(m1, m2, p1, p2, t, worst: bool):
    """Halve every box along the side that loosens its bound most (sizes or rates).

    Narrow blocks of sizes (at most 8) are split by size first: single sizes are
    decided exactly over their whole box of rates.
    """
    width = m2 - m1
    if worst:
        by_m = (width > 0) & ((width <= 8) | (width * (p2 + t) >= m2 * (p2 - p1)))
    else:
        by_m = np.ones(m1.shape, dtype=bool)
    mid_m = np.floor((m1 + m2) / 2.0)
    mid_p = 0.5 * (p1 + p2)
    lo = (m1, np.where(by_m, mid_m, m2), p1, np.where(by_m, p2, mid_p))
    hi = (np.where(by_m, mid_m + 1.0, m1), m2, np.where(by_m, p1, mid_p), p2)
    return tuple(np.concatenate([a, b]) for a, b in zip(lo, hi, strict=True))


def _stable_search(m_max: int, t: float, eps: float, p, budget) -> int:
    """One past the largest failing size below ``m_max`` (1 if none fails): branch and bound.

    Boxes of (sizes x rates) whose :func:`_box_upper` is at most ``eps`` pass as a whole;
    an exact value at a box's largest size (:func:`_witness`) that exceeds ``eps`` proves
    that size fails, and every box below the largest such size is dropped; the others are
    halved, all at once, until they pass or hold a single size, which is decided exactly
    (:func:`_box_sup` over the box's rates, or the exact probability at a stated ``p``).
    """
    worst = p is None
    m1, m2, p1, p2 = _initial_boxes(m_max, worst, p)
    failing = 0.0  # the largest size known to fail
    while m1.size:
        keep = m2 > failing
        m1, m2, p1, p2 = (np.maximum(m1[keep], failing + 1.0), m2[keep], p1[keep], p2[keep])
        open_ = _box_upper(m1, m2, p1, p2, t, eps, budget) > eps
        m1, m2, p1, p2 = m1[open_], m2[open_], p1[open_], p2[open_]
        if not m1.size:
            break
        leaf = m1 == m2
        value = np.empty(m1.shape)
        if worst:
            value[leaf] = _box_sup(m2[leaf], p1[leaf], p2[leaf], t, eps, budget)
            value[~leaf] = _witness(m2[~leaf], p1[~leaf], p2[~leaf], t, eps, budget)
        else:
            value = _dev_eps(m2, p1, t, eps, budget)
        fails = value > eps
        if fails.any():
            failing = max(failing, float(np.max(m2[fails])))
        rest = ~leaf & (m2 > failing)
        if not rest.any():
            break
        m1, m2, p1, p2 = _split(m1[rest], m2[rest], p1[rest], p2[rest], t, worst)
    return int(failing) + 1


def _first_search(m_max: int, t: float, eps: float, p, budget) -> int:
    """The smallest size in ``1..m_max`` that meets ``eps`` (``m_max`` always does).

    Blocks of sizes that :func:`_box_lower` shows to fail throughout (at the stated ``p``,
    or at ``p = 1/2`` for the worst case) are dropped; an exact check at a block's smallest
    size that passes bounds the answer from above, and blocks above it are dropped; the
    rest are halved until single sizes are decided exactly.
    """
    worst = p is None
    q = 0.5 if worst else p
    m1, m2, _, _ = _initial_boxes(m_max, False, q)
    passing = float(m_max)  # the smallest size known to pass
    while m1.size:
        keep = m1 < passing
        m1, m2 = m1[keep], np.minimum(m2[keep], passing - 1.0)
        open_ = ~(_box_lower(m1, m2, q, t, eps, budget) > eps)
        m1, m2 = m1[open_], m2[open_]
        if not m1.size:
            break
        if worst:
            half = np.full(m1.shape, 0.5)
            ok = ~(_box_sup(m1, np.zeros(m1.shape), half, t, eps, budget) > eps)
        else:
            ok = _dev_eps(m1, q, t, eps, budget) <= eps
        if ok.any():
            passing = min(passing, float(np.min(m1[ok])))
        rest = (m2 > m1) & (m1 < passing)
        if not rest.any():
            break
        a, b = m1[rest] + 1.0, m2[rest]  # m1 itself has just been decided
        mid = np.floor((a + b) / 2.0)
        m1 = np.concatenate([a, mid + 1.0])
        m2 = np.concatenate([mid, b])
        keep = m2 >= m1
        m1, m2 = m1[keep], m2[keep]
    return int(passing)


def _binomial_size_one(tolerance: float, alpha: float, p, stable: bool) -> int:
    """Binomial size for one (tolerance, alpha[, p]) triple.

    Hoeffding (U = 1) certifies every m >= m_max, so only 1 <= m < m_max is searched.
    """
    m_max = int(hoeffding_size(1.0, tolerance, alpha))
    what = f"tolerance={tolerance:g}, alpha={alpha:g}" + (
        " (worst case over p)" if p is None else f", p={p:g}"
    )
    budget = _Budget(_SEARCH_BUDGET, what)
    if m_max <= 1:
        return 1
    with np.errstate(all="ignore"):
        if stable:
            return _stable_search(m_max, tolerance, alpha, p, budget)
        return _first_search(m_max, tolerance, alpha, p, budget)


def _stable_to_rule(stable) -> str:
    return "stable" if as_flag(stable, "stable") else "first"


@renamed(epsilon="alpha", stable=("rule", _stable_to_rule))
def binomial_size(
    tolerance: ArrayLike,
    alpha: ArrayLike,
    p: ArrayLike | None = None,
    *,
    rule: str = "stable",
    grid: int | None = None,
) -> int | np.ndarray:
    r"""Exact size for 0-1 loss: smallest ``m`` with :math:`P(|K/m - p| > t) \le \alpha`.

    For 0-1 loss the number of test errors is exactly
    :math:`K \sim \mathrm{Binomial}(m, p)`, so no inequality is needed: the
    deviation probability is computed exactly with
    :func:`binomial_deviation_probability` for candidate sizes up to the
    Hoeffding size (with ``U = 1``), beyond which Hoeffding already certifies
    it.  Because ``K`` is discrete, that probability is not monotone in ``m``
    (it saw-tooths), so two sizes can be asked for:

    * ``rule="stable"`` (default): the smallest ``m`` such that *every* size
      ``m' >= m`` meets the target (safe to round up);
    * ``rule="first"``: the first ``m`` that meets it (a larger ``m`` may not).

    (``rule`` means the same in :func:`heldout.accuracy.acceptance.exact_margin_size`; the old
    ``stable=True/False`` still works, with a ``DeprecationWarning``.)

    The search is rigorous and fast: blocks of sizes (and, for the worst case, boxes
    of rates) are settled at once by bounds that use only the monotonicity of the
    binomial tails in ``m`` and ``p``; only sizes near the answer are computed one by
    one.  A search that would evaluate more than four million binomial tails (the worst
    case for a tolerance below about 0.003) raises ``ValueError``.

    Parameters
    ----------
    tolerance : float or array_like
        The deviation ``t``, ``0 < t < 1``.
    alpha : float or array_like
        The failure probability, ``0 < alpha < 1``.
    p : float, optional
        The true error rate the size is computed for.  ``None`` (default) takes the
        worst case: the supremum over every ``p`` in ``[0, 1]``, found exactly (on each
        stretch of ``p`` between the points where ``m (p +- t)`` is a whole number the
        probability falls then rises, so the supremum is one of the limits at those
        points).
    rule : {"stable", "first"}, default "stable"
        See above.
    grid : None
        Deprecated and ignored: the worst case used to be a maximum over a grid of
        rates (which could miss the supremum and give a size one row short).

    Returns
    -------
    int or ndarray of int
        One size per broadcast (tolerance, alpha, p) combination.

    Examples
    --------
    >>> binomial_size(0.05, 0.05, 0.1)
    147
    >>> binomial_size(0.05, 0.05)  # worst case over p
    400
    """
    if grid is not None:
        import warnings

        as_count(grid, "grid", minimum=2, scalar=True)  # ignored, but never a wrong kind
        warnings.warn(
            "binomial_size(grid=...) is ignored: the worst case over p is now exact",
            DeprecationWarning,
            stacklevel=2,
        )
    tolerance = as_probability(tolerance, "tolerance")
    alpha = as_probability(alpha, "alpha")
    stable = as_choice(rule, "rule", ("stable", "first")) == "stable"
    if p is None:
        t_arr, e_arr = _broadcast({"tolerance": tolerance, "alpha": alpha})
        p_arr = np.full(t_arr.shape, np.nan)
    else:
        p = as_probability(p, "p", closed=True)
        t_arr, e_arr, p_arr = _broadcast({"tolerance": tolerance, "alpha": alpha, "p": p})
    check_work(t_arr.size, 1_000, "the number of (tolerance, alpha, p) combinations")
    # A loop over the (few) parameter combinations; each search is vectorised inside.
    sizes = [
        _binomial_size_one(float(t), float(e), None if np.isnan(q) else float(q), stable)
        for t, e, q in zip(t_arr.ravel(), e_arr.ravel(), p_arr.ravel(), strict=True)
    ]
    return _as_int(np.asarray(sizes, dtype=np.int64).reshape(t_arr.shape))


# --------------------------------------------------------------------------- simulation
@dataclass(frozen=True)
class _MissCount(Result):
    """Misses of simulated test sets: their share with its exact 95 % interval."""

    probability: float
    ci: Interval
    misses: int = extra(0)
    reps: int = extra(0)
    size: int = extra(0)
    true_mean: float = extra(0.0)

    @classmethod
    def _counted(cls, misses: int, reps: int, size: int, true_mean: float, **more):
        from heldout.accuracy.bounds import clopper_pearson

        ci = clopper_pearson(misses, reps, alpha=0.05)
        return cls(misses / reps, ci, misses, reps, size, true_mean, **more)


@dataclass(frozen=True)
class DeviationSimulation(_MissCount):
    """What :func:`simulate_deviation` found; unpacks as ``(probability, ci)``."""

    deviations: np.ndarray = extra(None)
    sd: float = extra(0.0)
    achieved_tolerance: float | None = extra(None)


def _check_losses(losses) -> np.ndarray:
    x = _arr(losses, "losses").ravel()
    if np.any(~np.isfinite(x)):
        raise ValueError(f"losses must be finite, got {show(losses)}")
    return x


def _test_set_means(losses: np.ndarray, size: int, reps: int, gen, each=None) -> np.ndarray:
    """Means of ``reps`` test sets of ``size`` rows drawn with replacement from ``losses``.

    Vectorised over blocks of test sets that hold at most :data:`_ROW_BLOCK` rows (32 MB of
    indices); ``each(block_of_rows)`` is called on every block (for statistics beyond the
    mean) when given, and then test sets larger than a block are refused.
    """
    means = np.empty(reps)
    if size <= _ROW_BLOCK:
        block = _ROW_BLOCK // size
        for start in range(0, reps, block):  # loop over memory-sized blocks, vectorised inside
            stop = min(reps, start + block)
            rows = losses[gen.integers(0, losses.size, size=(stop - start, size))]
            means[start:stop] = rows.mean(axis=1)
            if each is not None:
                each(start, stop, rows)
        return means
    if each is not None:
        check_work(size, _ROW_BLOCK, "size (rows of one test set held in memory)")
    for r in range(reps):  # one huge test set at a time, drawn in memory-sized pieces
        total = 0.0
        for start in range(0, size, _ROW_BLOCK):
            rows = min(_ROW_BLOCK, size - start)
            total += float(losses[gen.integers(0, losses.size, size=rows)].sum())
        means[r] = total / size
    return means


@renamed(n_rep="reps", epsilon="alpha")
def simulate_deviation(
    losses: ArrayLike,
    size: int,
    tolerance: float,
    reps: int = 2_000,
    *,
    alpha: float | None = None,
    seed=None,
) -> DeviationSimulation:
    r"""Draw many test sets from a population of per-row losses; count the misses.

    Each replicate draws ``size`` rows *with replacement* from ``losses``
    (so the rows are independent and the population mean is exactly the true
    expected loss), takes the mean, and records its deviation from the
    population mean.  The observed frequency of
    :math:`|\bar X - \mu| > t` (a deviation within a relative ``1e-9`` of
    ``t`` counts as equal to it, so that exact ties of discrete losses are not
    turned into misses by rounding) estimates the probability that every sizing
    rule here promises to keep below ``alpha``.

    Parameters
    ----------
    losses : array_like
        Per-row losses of the whole population (1-d, at least one value).
    size : int
        Rows per simulated test set.
    tolerance : float
        The deviation ``t`` counted as a miss.
    reps : int, default 2000
        Number of simulated test sets.
    alpha : float, optional
        If given, also report ``achieved_tolerance``: the ``1 - alpha``
        quantile of the observed ``|deviation|``, the tolerance this size
        actually achieves at that confidence.
    seed : int, Generator or None
        Seed for :func:`heldout.config.rng` (default :data:`heldout.config.SEED`).

    Returns
    -------
    DeviationSimulation
        ``probability`` (observed miss frequency) and ``ci`` (95 % Clopper-Pearson
        interval for the miss probability), which unpack; also ``misses``, ``reps``,
        ``size``, ``true_mean``, ``deviations`` (the ``reps`` values
        :math:`\bar X - \mu`), ``sd`` (their standard deviation) and, with ``alpha``,
        ``achieved_tolerance``.

    Examples
    --------
    >>> sim = simulate_deviation([0, 0, 0, 1], size=100, tolerance=0.1, reps=2000, seed=1)
    >>> round(sim.probability, 3), sim.ci.high < 0.05
    (0.013, True)
    """
    from heldout.config import rng

    losses = _check_losses(losses)
    size = as_count(size, "size", minimum=1, scalar=True)
    reps = as_count(reps, "reps", minimum=1, scalar=True)
    check_work(size * reps, _DRAW_LIMIT, "size times reps (rows drawn)")
    tolerance = as_positive(tolerance, "tolerance", scalar=True)
    if alpha is not None:
        alpha = as_probability(alpha, "alpha", scalar=True)
    gen = rng(seed)
    true_mean = float(losses.mean())
    deviations = _test_set_means(losses, size, reps, gen) - true_mean
    # A mean of discrete losses can land exactly on t (K/m - p = t); floating point must not
    # turn that tie into a miss, so deviations within a relative 1e-9 of t count as ties.
    slack = 1e-9 * max(tolerance, abs(true_mean), 1e-300)
    misses = int(np.count_nonzero(np.abs(deviations) > tolerance + slack))
    return DeviationSimulation._counted(
        misses,
        reps,
        size,
        true_mean,
        deviations=deviations,
        sd=float(deviations.std(ddof=1)) if reps > 1 else 0.0,
        achieved_tolerance=None
        if alpha is None
        else float(np.quantile(np.abs(deviations), 1.0 - alpha)),
    )


@dataclass(frozen=True)
class RadiusCheck(_MissCount):
    """What :func:`simulate_empirical_bernstein` found; unpacks as ``(probability, ci)``."""

    radii: np.ndarray = extra(None)
    over_tolerance: float | None = extra(None)


def _half_square(x: float) -> float:
    """``x**2 / 2`` as a float, ``inf`` (no OverflowError) when it does not fit."""
    return float(np.float64(x) / 2 * np.float64(x)) if x < 1e150 else math.inf


def simulate_empirical_bernstein(
    losses: ArrayLike,
    size: int,
    range_: float,
    alpha: float = 0.05,
    *,
    tolerance: float | None = None,
    reps: int = 2_000,
    seed=None,
) -> RadiusCheck:
    r"""Does each test set's mean fall within its *own* empirical-Bernstein radius?

    The empirical-Bernstein statement (:func:`empirical_bernstein_radius`, Maurer & Pontil
    2009) is about a radius computed *from the test set itself*: with probability at least
    ``1 - alpha``, :math:`|\bar X - \mu| \le r(V_n)` where :math:`V_n` is that set's
    unbiased sample variance.  This draws ``reps`` test sets of ``size`` rows with
    replacement from the population ``losses``, computes each set's mean, sample variance
    and radius, and counts the sets whose mean misses the population mean by more than
    their own radius (the promise: a miss rate of at most ``alpha``).  With ``tolerance``
    it also reports how often the radius came out larger than the ``tolerance`` the size
    was planned for (:func:`empirical_bernstein_size` plans with an expected variance; a
    set with a larger variance gets a wider radius).

    Parameters
    ----------
    losses : array_like
        Per-row losses of the population (finite, 1-d); their spread (max - min) must be at
        most ``range_``.
    size : int
        Rows per test set, at least 2.
    range_ : float
        Width ``U`` of the loss's range (the radius uses it).
    alpha : float, default 0.05
        Failure probability of the radius.
    tolerance : float, optional
        Planned tolerance; adds ``over_tolerance`` (the share of radii above it).
    reps : int, default 2000
        Number of simulated test sets.
    seed : int, Generator or None
        Seed for :func:`heldout.config.rng`.

    Returns
    -------
    RadiusCheck
        ``probability`` (share of sets outside their own radius) and ``ci`` (its 95 %
        Clopper-Pearson interval), which unpack; also ``misses``, ``reps``, ``size``,
        ``true_mean``, ``radii`` (every set's radius) and ``over_tolerance``.

    Examples
    --------
    >>> check = simulate_empirical_bernstein([0, 0, 0, 1], 200, 1.0, 0.05, reps=500, seed=1)
    >>> check.misses, round(float(check.radii.mean()), 3)
    (0, 0.142)
    """
    from heldout.config import rng

    losses = _check_losses(losses)
    size = as_count(size, "size", minimum=2, scalar=True)
    range_ = as_positive(range_, "range_", scalar=True)
    alpha = as_probability(alpha, "alpha", scalar=True)
    reps = as_count(reps, "reps", minimum=1, scalar=True)
    if tolerance is not None:
        tolerance = as_positive(tolerance, "tolerance", scalar=True)
    spread = float(np.ptp(losses))
    if spread > range_ * (1 + 1e-12):
        raise ValueError(
            f"range_ must be at least the spread of the losses (max - min = {spread:.6g}), "
            f"got {show(range_)}"
        )
    check_work(size * reps, _DRAW_LIMIT, "size times reps (rows drawn)")
    gen = rng(seed)
    true_mean = float(losses.mean())
    variances = np.empty(reps)

    def keep_variance(start, stop, rows):
        variances[start:stop] = rows.var(axis=1, ddof=1)

    means = _test_set_means(losses, size, reps, gen, keep_variance)
    radii = np.asarray(
        empirical_bernstein_radius(
            size, np.minimum(variances, _half_square(range_)), range_, alpha
        ),
        dtype=float,
    )
    misses = int(np.count_nonzero(np.abs(means - true_mean) > radii))
    return RadiusCheck._counted(
        misses,
        reps,
        size,
        true_mean,
        radii=radii,
        over_tolerance=None if tolerance is None else float(np.mean(radii > tolerance)),
    )


# --------------------------------------------------------------------------- exact coverage


@dataclass(frozen=True)
class DeviationBracket(Result):
    """What :func:`lattice_deviation_probability` computed; unpacks as ``(low, high)``."""

    low: float
    high: float
    exact: bool = extra(False)
    resolution: float = extra(1.0)
    points: int = extra(0)
    true_mean: float = extra(0.0)


def lattice_deviation_probability(
    losses: ArrayLike,
    size: int,
    tolerance: float,
    *,
    resolution: float | None = None,
    max_points: int = 1 << 21,
) -> DeviationBracket:
    r"""Miss probability :math:`P(|\bar X - \mu| > t)` computed, not simulated.

    ``size`` rows are drawn independently from the population ``losses`` (as in
    :func:`simulate_deviation`), :math:`\bar X` is their mean and :math:`\mu`
    the population mean.  Each loss is written :math:`x = h j + d` with ``j``
    an integer and :math:`0 \le d < h` (``h`` is ``resolution``).  The sum of the
    ``j`` over the test set has a distribution that the fast Fourier transform
    gives exactly: it is the ``size``-fold convolution of the one-row
    distribution of ``j``, i.e. the inverse transform of its characteristic
    function raised to the power ``size``.  Since
    :math:`\bar X_\text{lattice} \le \bar X < \bar X_\text{lattice} + h`,

    .. math::

        P(\bar X_\ell > \mu + t) + P(\bar X_\ell < \mu - t - h)
        \;\le\; P(|\bar X - \mu| > t) \;\le\;
        P(\bar X_\ell > \mu + t - h) + P(\bar X_\ell < \mu - t),

    a bracket whose width shrinks with ``h``; when every loss is a multiple of
    ``h`` (0-1 loss with ``h = 1``, for example) both ends coincide.  When the
    full support of the sum needs more than ``max_points`` points, only a window
    around its mean is resolved (the transform then folds the rest onto it);
    the mass outside the window is bounded with Bernstein's inequality by
    ``1e-15`` and added to the bracket.  The transform's round-off is estimated
    from the size of its (spurious) negative entries, multiplied by the number of
    points summed, and also added; probabilities below that level (typically
    ``1e-12`` to ``1e-9``) are reported as an upper bound only.

    Parameters
    ----------
    losses : array_like
        Per-row losses of the population (finite, 1-d).
    size : int
        Rows per test set.
    tolerance : float
        The deviation ``t``.
    resolution : float, optional
        Lattice step ``h``.  Default: 1 if every loss is a whole number, else
        the finest step for which the transform fits in ``max_points`` points
        (and at most 1/1000 of the range of the losses).
    max_points : int, default 2**21
        Largest transform length.

    Returns
    -------
    DeviationBracket
        ``low`` and ``high`` (the bracket, which unpack), ``exact`` (True when the losses lie
        on the lattice, so ``low`` and ``high`` agree up to the noise),
        ``resolution``, ``points`` (transform length) and ``true_mean``.

    Examples
    --------
    >>> bracket = lattice_deviation_probability([0, 0, 0, 1], size=100, tolerance=0.1)
    >>> bracket.exact, round(bracket.high, 4)
    (True, 0.0148)
    """
    x = _check_losses(losses)
    size = as_count(size, "size", minimum=1, scalar=True)
    tolerance = as_positive(tolerance, "tolerance", scalar=True)
    max_points = as_count(max_points, "max_points", minimum=64, maximum=1 << 26, scalar=True)
    shift = x.min()
    x = x - shift  # the deviation from the mean does not depend on a shift
    true_mean = float(x.mean())
    spread = float(x.max())
    sd = float(x.std())
    c = np.log(2.0 / 1e-15)  # the window leaves out mass <= 1e-15 (Bernstein)
    automatic = resolution is None
    if automatic:
        h = _automatic_step(x, size, spread, sd, c, max_points)
    else:
        h = as_positive(resolution, "resolution", scalar=True)
    h, on_lattice, pmf_one, n_j, lo_s, points, outside = _fit_lattice(
        x, size, h, automatic, spread, c, max_points
    )
    low, high, n_fft = _lattice_bracket(
        pmf_one, size, h, n_j, lo_s, points, tolerance, true_mean, on_lattice, outside
    )
    return DeviationBracket(
        low=low,
        high=high,
        exact=on_lattice,
        resolution=float(h),
        points=n_fft,
        true_mean=true_mean + float(shift),
    )


def _automatic_step(x, size, spread, sd, c, max_points):
    """The default lattice step of :func:`lattice_deviation_probability`."""
    if np.all(x == np.round(x)) or spread == 0:
        return 1.0
    # finest step for which the full support, or else the Bernstein window
    # (about 2 A / h points, see below), fits in max_points
    a_w = spread * c / 3.0
    a_w += np.sqrt(a_w * a_w + 2.0 * size * (sd * sd + spread * spread / 1e6) * c)
    return min(size * spread / (max_points - 2), 2.2 * a_w / (max_points - 8))


def _fit_lattice(x, size, h, automatic, spread, c, max_points):
    """Coarsen an automatic step until the transform fits; the one-row pmf and the window.

    Returns ``(h, on_lattice, pmf_one, n_j, lo_s, points, outside)``: the step, whether
    every loss lies on the lattice, the one-row distribution of ``j`` over ``n_j`` values,
    the first sum and number of sums resolved, and the mass left outside that window.
    """
    for _ in range(200):  # coarsen an automatic step until the transform fits
        if spread / h + 1 > max_points:  # the one-row distribution alone would not fit
            if not automatic:
                raise ValueError(
                    f"resolution={show(h)} splits the range of the losses ({spread:.6g}) into more "
                    f"than max_points={max_points} steps; use a coarser resolution"
                )
            h *= 1.25
            continue
        j = np.floor(x / h + _SNAP).astype(np.int64)
        on_lattice = bool(np.all(np.abs(x - j * h) <= _SNAP * max(1.0, spread)))
        n_j = int(j.max()) + 1
        pmf_one = np.bincount(j, minlength=n_j) / x.size
        mean_j = float(np.dot(np.arange(n_j), pmf_one))
        var_j = float(np.dot((np.arange(n_j) - mean_j) ** 2, pmf_one))
        full = size * (n_j - 1) + 1
        if full <= max_points:
            lo_s, points, outside = 0, full, 0.0
            break
        # Bernstein: P(|S - E S| >= w) <= 2 exp(-w^2 / (2 size var_j + 2 (n_j - 1) w / 3)) <= 1e-15
        b_w = (n_j - 1) * c / 3.0
        w = int(np.ceil(b_w + np.sqrt(b_w * b_w + 2.0 * size * var_j * c))) + 1
        points = 2 * w + 1
        lo_s, outside = int(np.floor(size * mean_j)) - w, 1e-15
        if points <= max_points and n_j <= max_points:
            break
        if not automatic:
            raise ValueError(
                f"resolution={show(h)} needs {max(points, n_j)} transform points, more than "
                f"max_points={max_points}; use a coarser resolution"
            )
        h *= 1.25
    else:
        raise ValueError(f"size={size} is too large for a transform of at most {max_points} points")
    return h, on_lattice, pmf_one, n_j, lo_s, points, outside


def _lattice_bracket(
    pmf_one, size, h, n_j, lo_s, points, tolerance, true_mean, on_lattice, outside
):
    """``(low, high, n_fft)``: the miss probability's bracket from the transform of the sum."""
    n_fft = int(2 ** np.ceil(np.log2(max(points, n_j))))
    phi = np.fft.rfft(pmf_one, n_fft)
    pmf = np.fft.irfft(phi**size, n_fft)
    s_values = lo_s + np.arange(points)
    pmf_window = pmf[s_values % n_fft]  # not clipped: negative noise cancels positive noise
    mean_lattice = s_values * (h / size)  # the lattice mean of the test set

    def prob(mask):
        return float(pmf_window[mask].sum())

    # ties: a lattice mean exactly t away is not a miss; tau absorbs rounding in s * h / size
    tau = 1e-9 * max(tolerance, true_mean, h)
    dev = mean_lattice - true_mean
    slack = 0.0 if on_lattice else h  # the true mean lies in [lattice mean, lattice mean + h)
    upper_hi = (
        prob(dev > tolerance - slack + tau) if on_lattice else prob(dev > tolerance - slack - tau)
    )
    lower_hi = prob(-dev > tolerance + tau) if on_lattice else prob(-dev > tolerance - tau)
    upper_lo = prob(dev > tolerance + tau)
    lower_lo = prob(-dev > tolerance + slack + tau)
    # round-off of the transform: the size of its negative entries (pure noise) or of a few
    # units in the last place of the largest one, whichever is larger, per summed point
    noise = 2.0 * points * max(-float(pmf.min()), 1e-16 * float(pmf.max()), 0.0)
    low = max(0.0, upper_lo + lower_lo - outside - noise)
    return low, min(1.0, upper_hi + lower_hi + outside + noise), n_fft
