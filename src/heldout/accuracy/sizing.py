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

:func:`binomial_deviation_probability` gives the miss probability of a size exactly
for 0-1 loss; the checks of the other sizes (simulation, and the lattice bracket) are in
:mod:`heldout.accuracy.deviation`.

The Hoeffding size is the one of the Win-Vector article "What is a Good Test Set
Size?" (Win-Vector blog, 2021): ``k >= ln(2/alpha) U^2 / (2 t^2)``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from heldout import _beta
from heldout._checks import (
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
from heldout._deprecate import moved, renamed

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
]

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


#: Names that lived here until the checks of the sizes moved to their own module.
_MOVED_TO_DEVIATION = (
    "simulate_deviation",
    "simulate_empirical_bernstein",
    "lattice_deviation_probability",
    "DeviationSimulation",
    "RadiusCheck",
    "DeviationBracket",
)


__getattr__ = moved(__name__, _MOVED_TO_DEVIATION, "heldout.accuracy.deviation")
