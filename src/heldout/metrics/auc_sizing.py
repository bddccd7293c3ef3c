"""How many positives and negatives an AUC study needs: the variance under a score model, sizes.

Sizes: :func:`auc_size` (interval half-width) and :func:`auc_power_size` (one-sided
test against a null AUC), with the variance of Hanley and McNeil
:cite:`hanley1982` (exact for the negative-exponential model), of the equal-variance
binormal model (exact for binormal scores) or Obuchowski's binormal formula
:cite:`obuchowski1997,obuchowski2004`.  All three are plug-in sizes under a model of the scores.
:func:`auc_size` with ``interval="auto"`` (the default) sizes for the interval that
:func:`heldout.metrics.auc.auc_interval` reports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from heldout import _inputs
from heldout._checks import as_positive, as_probability, as_size, in_choices, scalar_or_array, show
from heldout._result import Result, extra
from heldout.metrics.auc import _check_method, _interval_arrays

__all__ = ["AUC_VARIANCE_METHODS", "AUCSize", "auc_power_size", "auc_size", "auc_variance"]

#: Variance models of :func:`auc_variance`, :func:`auc_size` and :func:`auc_power_size`.
_SQRT2 = math.sqrt(2.0)
AUC_VARIANCE_METHODS = ("hanley-mcneil", "binormal", "obuchowski")

_MAX_N = 2**40  # size searches stop here with a clear error


# --------------------------------------------------------------------------- variance models
def _binormal_q(a: np.ndarray) -> np.ndarray:
    """Q1 = Q2 = P(both of two positives outrank a negative) in the equal-variance binormal model.

    With positives N(mu, 1), negatives N(0, 1) and A = Phi(mu / sqrt 2), the two
    differences are bivariate normal with correlation 1/2, so
    Q = Phi_2(h, h; 1/2) = Phi(h) - 2 T(h, 1/sqrt 3), h = Phi^{-1}(A) (Owen's T).
    """
    h = special.ndtri(a)
    return special.ndtr(h) - 2.0 * special.owens_t(h, 1.0 / math.sqrt(3.0))


def auc_variance(
    auc: ArrayLike,
    n_positive: ArrayLike,
    n_negative: ArrayLike,
    method: str = "hanley-mcneil",
) -> float | np.ndarray:
    """Variance of the empirical AUC under a model of the scores.

    ``"hanley-mcneil"`` and ``"binormal"``: the exact variance of the U-statistic
    :cite:`hanley1982`,

    .. math:: \\operatorname{Var}(\\hat A) = \\frac{A(1-A) + (n_1 - 1)(Q_1 - A^2)
              + (n_0 - 1)(Q_2 - A^2)}{n_1 n_0},

    with :math:`Q_1` the probability that two random positives both outrank a
    random negative and :math:`Q_2` that a positive outranks two negatives.
    Hanley and McNeil take :math:`Q_1 = A/(2-A)`, :math:`Q_2 = 2A^2/(1+A)`, exact
    for negative-exponential scores; ``"binormal"`` takes the equal-variance
    binormal values :math:`Q_1 = Q_2 = \\Phi_2(h, h; \\tfrac12)`,
    :math:`h = \\Phi^{-1}(A)`.

    ``"obuchowski"``: :math:`V/n_1` with
    :math:`V = 0.0099\\,e^{-a^2/2}\\big[(5a^2 + 8) + (a^2 + 8)/\\kappa\\big]`,
    :math:`a = \\sqrt2\\,\\Phi^{-1}(A)` (the binormal separation; the paper prints
    :math:`\\sqrt2` rounded to 1.414, which moved one size of the book by one: 326
    positives instead of 325 for AUC 0.85, half-width 0.03, prevalence 0.2),
    :math:`\\kappa = n_0/n_1`
    :cite:`obuchowski1997,obuchowski2004` (from the binormal maximum-likelihood estimator; larger
    than the empirical AUC's binormal variance on the positives' side).

    Parameters
    ----------
    auc : float or array_like
        True AUC, strictly between 0 and 1.
    n_positive, n_negative : int or array_like
        Numbers of positives and negatives (at least 1).
    method : {"hanley-mcneil", "binormal", "obuchowski"}

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(auc_variance(0.5, 100, 100), 7)  # (n1 + n0 + 1) / (12 n1 n0) at A = 1/2
    0.001675
    >>> round(auc_variance(0.85, 100, 400, "binormal"), 6)
    0.000441
    """
    if not in_choices(method, AUC_VARIANCE_METHODS):
        raise ValueError(
            f"method must be one of {', '.join(AUC_VARIANCE_METHODS)}, got {show(method)}"
        )
    a = as_probability(auc, "auc")
    n1 = _inputs.count(n_positive, "n_positive", minimum=1).astype(float)
    n0 = _inputs.count(n_negative, "n_negative", minimum=1).astype(float)
    a, n1, n0 = np.broadcast_arrays(a, n1, n0)
    return scalar_or_array(_variance(a, n1, n0, method))


def _variance(a, n1, n0, method):
    if method == "obuchowski":
        big_a = _SQRT2 * special.ndtri(a)  # the paper's 1.414 is sqrt(2) rounded
        v = 0.0099 * np.exp(-(big_a**2) / 2) * ((5 * big_a**2 + 8) + (big_a**2 + 8) * n1 / n0)
        return v / n1
    if method == "hanley-mcneil":
        q1 = a / (2 - a)
        q2 = 2 * a**2 / (1 + a)
    else:
        q1 = q2 = _binormal_q(a)
    return (a * (1 - a) + (n1 - 1) * (q1 - a**2) + (n0 - 1) * (q2 - a**2)) / (n1 * n0)


# --------------------------------------------------------------------------- sizes
@dataclass(frozen=True)
class AUCSize(Result):
    """A test-set size for an AUC study: total, positives, negatives.

    Attributes
    ----------
    n, n_positive, n_negative : int
        Items needed in all, positives and negatives (unpacked in this order);
        ``n_negative = ceil(n_positive (1 - prevalence) / prevalence)``.
    se : float
        Standard error of the AUC at that size (under the chosen model).
    method : str
        The variance model.
    interval : str
        The interval whose half-width was sized (:func:`~heldout.metrics.auc.auc_interval`'s method).
    """

    n: int | np.ndarray
    n_positive: int | np.ndarray
    n_negative: int | np.ndarray
    se: float | np.ndarray = extra(math.nan)
    method: str = extra("")
    interval: str = extra("")


def _negatives(n1, kappa):
    # ceil with a guard against kappa * n1 landing a hair above a whole number
    raw = kappa * n1
    return np.maximum(np.ceil(raw - 1e-9 * np.maximum(raw, 1.0)), 1.0)


def _smallest_positives(criterion, shape) -> np.ndarray:
    """Smallest n1 >= 1 (elementwise) with criterion(n1) True; criterion is monotone in n1."""
    lo = np.zeros(shape)  # largest n1 known to fail (0: none tried)
    hi = np.ones(shape)  # smallest n1 known to pass, once the doubling stops
    bad = ~criterion(hi)
    while bad.any():
        if np.any(hi[bad] >= _MAX_N):
            raise ValueError(
                f"the required number of positives exceeds {_MAX_N:.3g}; "
                "ask for a wider interval or a larger difference"
            )
        lo = np.where(bad, hi, lo)
        hi = np.where(bad, 2 * hi, hi)
        bad = ~criterion(hi)
    while np.any(hi - lo > 1):
        mid = np.floor((lo + hi) / 2)
        ok = criterion(mid)
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return hi


def _size_result(n1, kappa, auc_for_se, method, interval=""):
    n0 = _negatives(n1, kappa)
    se = np.sqrt(_variance(auc_for_se, n1, n0, method))
    # a rare class makes n0 = n1 (1 - prevalence)/prevalence enormous: refuse a size that
    # does not fit in 64 bits rather than print it wrapped around to a negative number
    hint = "the prevalence is too small for a test set of this design"
    ints = [as_size(v, what, hint=hint) for v, what in ((n1 + n0, "n"), (n1, "n1"), (n0, "n0"))]
    return AUCSize(*ints, se=scalar_or_array(se), method=method, interval=interval)


def auc_size(
    auc: ArrayLike,
    half_width: ArrayLike,
    prevalence: ArrayLike,
    alpha: ArrayLike = 0.05,
    method: str = "hanley-mcneil",
    interval: str = "auto",
) -> AUCSize:
    """Test-set size for an AUC interval of a given half-width.

    The smallest number of positives :math:`n_1` (with
    :math:`n_0 = \\lceil n_1 (1-\\pi)/\\pi \\rceil` negatives, :math:`\\pi` the
    prevalence) such that the interval ``interval`` of :func:`~heldout.metrics.auc.auc_interval`,
    computed as if the test set gave :math:`\\hat A = A` and DeLong's variance
    equalled the model variance :math:`V(A; n_1, n_0)` of :func:`auc_variance`
    :cite:`hanley1982,obuchowski2004`, has half-width (half its length)

    .. math:: \\tfrac12\\,(\\text{high} - \\text{low}) \\le h;

    for ``interval="wald"`` this is :math:`z_{1-\\alpha/2}\\sqrt{V} \\le h`.  The
    default ``"auto"`` sizes for the interval the book recommends, which is
    wider than :math:`z\\sqrt V` when few misranked pairs are expected.
    This is a plug-in size: it assumes the true AUC and a model of the score
    distributions, and it sizes the *expected* numbers of positives and negatives;
    a random test set of :math:`n` items holds a binomial number of positives
    (:func:`heldout.accuracy.acceptance.class_sample_size` sizes for a guaranteed count).

    Parameters
    ----------
    auc : float or array_like
        Anticipated AUC in (0, 1).
    half_width : float or array_like
        Target half-width :math:`h` of the interval, > 0.
    prevalence : float or array_like
        Share of positives among the items, in (0, 1).
    alpha : float or array_like, default 0.05
        Error probability of the interval.
    method : {"hanley-mcneil", "binormal", "obuchowski"}
        The variance model.
    interval : str, default "auto"
        One of :data:`~heldout.metrics.auc.AUC_INTERVAL_METHODS`.

    Returns
    -------
    AUCSize
        ``n``, ``n_positive``, ``n_negative`` (and ``se`` at that size).

    Examples
    --------
    >>> s = auc_size(0.85, 0.03, 0.2)
    >>> s.n, s.n_positive, s.n_negative, s.interval
    (1420, 284, 1136, 'auto')
    >>> auc_size(0.85, 0.03, 0.2, interval="wald").n  # z * sqrt(V) <= h
    1340
    """
    if not in_choices(method, AUC_VARIANCE_METHODS):
        raise ValueError(
            f"method must be one of {', '.join(AUC_VARIANCE_METHODS)}, got {show(method)}"
        )
    _check_method(interval, "interval")
    a = as_probability(auc, "auc")
    h = as_positive(half_width, "half_width")
    if np.any(h >= 1):
        raise ValueError(
            f"half_width must be below 1 (an AUC lies in [0, 1]), got {show(half_width)}"
        )
    pi = as_probability(prevalence, "prevalence")
    al = as_probability(alpha, "alpha")
    a, h, pi, al = np.broadcast_arrays(a, h, pi, al)
    z = -special.ndtri(al / 2)
    kappa = (1 - pi) / pi

    def ok(n1):
        n0 = _negatives(n1, kappa)
        var = _variance(a, n1, n0, method)
        if interval == "wald":
            return z * np.sqrt(var) <= h
        low, high, _ = _interval_arrays(a, var, n1, n0, al, interval)
        return (high - low) / 2 <= h

    n1 = _smallest_positives(ok, a.shape)
    return _size_result(n1, kappa, a, method, interval)


def auc_power_size(
    auc: ArrayLike,
    prevalence: ArrayLike,
    null_auc: ArrayLike = 0.5,
    alpha: ArrayLike = 0.05,
    power: ArrayLike = 0.8,
    method: str = "hanley-mcneil",
) -> AUCSize:
    """Test-set size to show that the AUC exceeds ``null_auc`` with a given power.

    The smallest :math:`n_1` (negatives :math:`n_0 = \\lceil n_1(1-\\pi)/\\pi\\rceil`)
    with

    .. math:: z_{1-\\alpha}\\sqrt{V(A_0)} + z_{\\text{power}}\\sqrt{V(A_1)} \\le A_1 - A_0,

    :math:`V(A)` the variance of :func:`auc_variance` at :math:`n_1, n_0`: the
    one-sided z-test of :math:`H_0: A \\le A_0` at level :math:`\\alpha` then rejects
    with probability ``power`` when the AUC is :math:`A_1`
    :cite:`hanley1982,obuchowski2004`.  A plug-in size, like :func:`auc_size`.

    Examples
    --------
    >>> auc_power_size(0.75, 0.3, null_auc=0.65, power=0.9).n_positive
    92
    """
    if not in_choices(method, AUC_VARIANCE_METHODS):
        raise ValueError(
            f"method must be one of {', '.join(AUC_VARIANCE_METHODS)}, got {show(method)}"
        )
    a1 = as_probability(auc, "auc")
    a0 = as_probability(null_auc, "null_auc")
    pi = as_probability(prevalence, "prevalence")
    al = as_probability(alpha, "alpha")
    pw = as_probability(power, "power")
    a1, a0, pi, al, pw = np.broadcast_arrays(a1, a0, pi, al, pw)
    if np.any(a1 <= a0):
        raise ValueError(
            f"auc must exceed null_auc, got auc={show(auc)} and null_auc={show(null_auc)}"
        )
    za, zb = -special.ndtri(al), special.ndtri(pw)
    kappa = (1 - pi) / pi

    def ok(n1):
        n0 = _negatives(n1, kappa)
        lhs = za * np.sqrt(_variance(a0, n1, n0, method)) + zb * np.sqrt(
            _variance(a1, n1, n0, method)
        )
        return lhs <= a1 - a0

    n1 = _smallest_positives(ok, a1.shape)
    return _size_result(n1, kappa, a1, method)
