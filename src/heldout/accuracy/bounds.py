"""Bounds and intervals for a true error rate (or accuracy) from a test set.

A classifier with true error rate ``p`` that is scored on ``n`` independent test
items makes ``k ~ Binomial(n, p)`` errors.  This module turns the observed count
``k`` into statements about ``p``:

* the binomial tail :func:`binomial_tail` and its inversion, the *test set bound*
  :func:`exact_upper` (and :func:`exact_lower`) of Langford :cite:`langford2005`,
  retold by Wong :cite:`wong_testsetbound`;
* its relaxations: :func:`kl_upper` (relative-entropy Chernoff bound),
  :func:`hoeffding_upper` (``k/n + sqrt(ln(1/alpha)/(2n))``, Hoeffding 1963) and
  :func:`occam_upper` (``k/n + sqrt(ln(n/alpha)/(2n))``, the form Wong derives);
* the "mean plus z standard deviations" rule :func:`normal_upper` /
  :func:`two_sigma_upper` that Langford criticises;
* two-sided intervals :func:`interval` (Clopper-Pearson, Wilson, Jeffreys,
  normal), usable for error rates and accuracies alike;
* the exact and simulated *coverage* of every one-sided upper bound
  (:func:`coverage`, :func:`simulate_coverage`);
* a faithful reproduction of the article's Appendix C program
  (:func:`appendix_c_bound`), kept as a baseline for checks and benchmarks.

Every public function accepts scalars or arrays (broadcast together), returns a
Python ``float`` for scalar input and raises ``ValueError`` naming the argument
for bad input.  Counts ``k`` are numbers of *errors* for the one-sided upper
bounds; for :func:`interval` they may count anything (errors or correct answers).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from heldout import _beta
from heldout._checks import (
    as_choice,
    as_count,
    as_counts,
    as_flag,
    as_positive,
    as_probability,
    broadcast,
    check_work,
    scalar_or_array,
)
from heldout._deprecate import level_to_alpha, renamed
from heldout._result import Interval

#: Return type of the public functions: a Python float for scalar input, else an array.
FloatOrArray = float | np.ndarray

__all__ = [
    "METHODS",
    "INTERVAL_METHODS",
    "appendix_c_bound",
    "binomial_tail",
    "chernoff_tail",
    "clopper_pearson",
    "coverage",
    "exact_lower",
    "exact_upper",
    "hoeffding_upper",
    "interval",
    "kl_divergence",
    "kl_lower",
    "kl_upper",
    "normal_lower",
    "normal_upper",
    "occam_upper",
    "score_upper",
    "simulate_coverage",
    "two_sigma_upper",
    "upper_bound",
]

_KL_ITERATIONS = 64  # bisection steps on a bracket of the root's own size: 2**-64 of it
# Largest (bounds evaluated) x (rates p) product coverage() accepts: about 1 GB of floats.
_COVERAGE_LIMIT = 50_000_000


# --------------------------------------------------------------------------- helpers
def _counts_alpha(k, n, alpha, alpha_name: str = "alpha"):
    k_arr, m_arr = as_counts(k, n, "k", "n")
    d_arr = as_probability(alpha, alpha_name)
    return broadcast(k=k_arr, n=m_arr, **{alpha_name: d_arr})


#: Old keywords of the bounds (``m`` the test-set size, ``delta`` the error probability).
_OLD = {"m": "n", "delta": "alpha"}


# --------------------------------------------------------------------------- binomial tail
@renamed(m="n")
def binomial_tail(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> FloatOrArray:
    """Binomial tail ``Bin(n, k, p) = P(X <= k)`` for ``X ~ Binomial(n, p)``.

    .. math:: \\mathrm{Bin}(n, k, p) = \\sum_{i=0}^{k} \\binom{n}{i} p^i (1-p)^{n-i}
              = I_{1-p}(n-k, k+1)

    (the regularised incomplete beta function; 1 when ``k == n``).  This is the
    article's Definition 3 :cite:`wong_testsetbound` with the sum starting at
    ``i = 0`` (the article prints ``i = 1``, a typo).  Computed without cancellation
    as ``betaincc(k + 1, n - k, p)``, and as a sum of binomial terms for ``k < 100`` with
    ``n - k >= 1e4`` (where SciPy's incomplete beta function loses up to 8 digits).

    Parameters
    ----------
    k : int or array_like
        Number of errors, ``0 <= k <= n``.
    n : int or array_like
        Test set size, ``n >= 1``.
    p : float or array_like
        True error rate in ``[0, 1]``.

    Returns
    -------
    float or ndarray
        ``P(X <= k)``, broadcast over the inputs.

    Examples
    --------
    >>> round(binomial_tail(38, 100, 0.45), 4)
    0.0951
    """
    k_arr, m_arr = as_counts(k, n, "k", "n")
    p_arr = as_probability(p, "p", closed=True)
    k_arr, m_arr, p_arr = broadcast(k=k_arr, n=m_arr, p=p_arr)
    return scalar_or_array(np.clip(_beta.binom_cdf(k_arr, m_arr, p_arr), 0.0, 1.0))


# --------------------------------------------------------------------------- exact bounds
def _exact_bound(k, n, alpha, *, upper: bool):
    """The exact bound on one side: beta quantiles, with two closed forms on each side.

    Upper: ``I^{-1}(k+1, n-k; 1-alpha)``, ``1 - alpha^(1/n)`` at ``k = 0``,
    ``(1 - alpha)^(1/n)`` at ``k = n - 1`` and 1 at ``k = n``.  Lower: the mirror image,
    ``I^{-1}(k, n-k+1; alpha)``, ``1 - (1 - alpha)^(1/n)`` at ``k = 1``, ``alpha^(1/n)``
    at ``k = n`` and 0 at ``k = 0``.  The upper side solves each distinct ``(k, n)`` once
    when many repeat (:func:`_repeated_pairs`).
    """
    k_arr, m_arr, d_arr = _counts_alpha(k, n, alpha)
    out = np.full(k_arr.shape, 1.0 if upper else 0.0)  # the bound at k = n (upper), 0 (lower)
    kf, mf = k_arr.astype(float), m_arr.astype(float)
    with np.errstate(all="ignore"):
        log_alpha, log_keep = np.log(d_arr), np.log1p(-d_arr)
        if upper:  # 1 - alpha^(1/n) at k = 0, then (1 - alpha)^(1/n) at k = n - 1
            first, second = k_arr == 0, k_arr == m_arr - 1
            log_first, log_second = log_alpha, log_keep
        else:  # 1 - (1 - alpha)^(1/n) at k = 1, then alpha^(1/n) at k = n
            first, second = k_arr == 1, k_arr == m_arr
            log_first, log_second = log_keep, log_alpha
        out[first] = -np.expm1(log_first[first] / mf[first])
        second &= ~first
        out[second] = np.exp(log_second[second] / mf[second])
    inner = (k_arr > 0) & (k_arr < m_arr - 1) if upper else (k_arr > 1) & (k_arr < m_arr)
    if np.any(inner):
        ki, mi, di = k_arr[inner], m_arr[inner], d_arr[inner]
        # Beta(k + 1, n - k) for the upper bound, Beta(k, n - k + 1) for the lower
        a, b = (ki + 1.0, (mi - ki).astype(float)) if upper else (kf[inner], (mi - ki) + 1.0)
        once = _repeated_pairs(ki, mi, di) if upper else None
        if once is None:
            out[inner] = _beta.quantile(a, b, di, upper=upper)
        else:  # many repeated (k, n): each distinct pair is solved once
            first_of, back = once
            out[inner] = _beta.quantile(a[first_of], b[first_of], di[first_of], upper=True)[back]
    low, high = (kf / mf, 1.0) if upper else (0.0, kf / mf)
    return scalar_or_array(np.clip(out, low, high))


def _repeated_pairs(k: np.ndarray, m: np.ndarray, alpha: np.ndarray):
    """``(first, back)`` with ``k[first][back] == k`` (likewise ``m``) when many pairs repeat.

    Only for one ``alpha`` and sizes small enough that the distinct pairs (about
    ``max(m)^2 / 2``) are fewer than four times the items; else None.
    """
    if k.size < 1000 or alpha.min() != alpha.max():
        return None
    top = int(m.max())
    if top * top > 8 * k.size:
        return None
    _, first, back = np.unique(k * (top + 1) + m, return_index=True, return_inverse=True)
    return first, back.ravel()


@renamed(**_OLD)
def exact_upper(k: ArrayLike, n: ArrayLike, alpha: ArrayLike = 0.05) -> FloatOrArray:
    """The test set bound: the largest ``p`` with ``Bin(n, k, p) >= alpha``.

    .. math:: \\overline{\\mathrm{Bin}}(n, k, \\alpha) = \\max\\{p : \\mathrm{Bin}(n, k, p) \\ge \\alpha\\}

    Langford's Theorem 3.3 :cite:`langford2005`: with probability at least
    ``1 - alpha`` over the draw of the test set, the true error rate is at most
    this value.  Because ``Bin(n, k, p) = 1 - I_p(k+1, n-k)``, the bound is the
    beta quantile ``p = I^{-1}(k+1, n-k; 1-alpha)``.  It equals the upper end of a
    one-sided Clopper-Pearson interval :cite:`clopper1934`.

    SciPy's inverse (``betainccinv``) is wrong by up to 98 % near ``k = 1000`` with
    ``n >= 1e8``, so the quantile is computed by :func:`heldout._beta.quantile`: Halley
    steps on the tail from a normal-approximation start, and a check of the tail at
    the result (relative accuracy ``1e-12`` in ``p``; a bracketed solve where the check
    fails).  ``k = 0`` and ``k = n - 1`` use the closed forms ``1 - alpha^(1/n)`` and
    ``(1 - alpha)^(1/n)``.

    Parameters
    ----------
    k : int or array_like
        Number of test errors, ``0 <= k <= n``.
    n : int or array_like
        Test set size, ``1 <= n < 2**63`` (checked against 40-digit references up to
        ``n = 1e18``).
    alpha : float or array_like, default 0.05
        Allowed failure probability, in ``(0, 1)``.

    Returns
    -------
    float or ndarray
        The bound, in ``[k/n, 1]``; exactly ``1.0`` when ``k == n``.

    Examples
    --------
    >>> round(exact_upper(38, 100), 4)
    0.4668
    >>> round(exact_upper(1000, 10**9) * 1e9, 2)  # SciPy's inverse gives 1053.60 for k = 999 too
    1053.6
    """
    return _exact_bound(k, n, alpha, upper=True)


@renamed(**_OLD)
def exact_lower(k: ArrayLike, n: ArrayLike, alpha: ArrayLike = 0.05) -> FloatOrArray:
    """Exact lower bound: the smallest ``p`` with ``P(X >= k) >= alpha``.

    .. math:: \\underline{p} = \\min\\{p : P_p(X \\ge k) \\ge \\alpha\\} = I^{-1}(k, n-k+1; \\alpha)

    The mirror image of :func:`exact_upper` (apply it to the ``n - k`` successes
    and take ``1 -`` the result); ``0.0`` when ``k == 0``.  With probability at
    least ``1 - alpha`` the true rate is at least this value :cite:`clopper1934`.
    Computed and checked like :func:`exact_upper`; closed forms
    ``1 - (1 - alpha)^(1/n)`` for ``k = 1`` and ``alpha^(1/n)`` for ``k = n`` (both sides
    are :func:`_exact_bound`).  Arguments as in :func:`exact_upper`; the bound lies in
    ``[0, k/n]``.

    Examples
    --------
    >>> round(exact_lower(38, 100), 4)
    0.2987
    """
    return _exact_bound(k, n, alpha, upper=False)


# --------------------------------------------------------------------------- relaxations
@renamed(**_OLD)
def hoeffding_upper(
    k: ArrayLike, n: ArrayLike, alpha: ArrayLike = 0.05, *, clip: bool = False
) -> FloatOrArray:
    """Chernoff-Hoeffding relaxation ``k/n + sqrt(ln(1/alpha) / (2n))``.

    From ``Bin(n, k, p) <= exp(-2n (p - k/n)^2)`` for ``p >= k/n``
    :cite:`hoeffding1963,langford2005`.  The value can exceed 1; pass
    ``clip=True`` to cap it at 1 (which keeps it a valid bound).

    Parameters
    ----------
    k, n, alpha
        As in :func:`exact_upper`.
    clip : bool, default False
        Cap the result at 1.

    Returns
    -------
    float or ndarray
        The bound, in ``[k/n, 1 + sqrt(ln(1/alpha) / (2n))]`` (in ``[k/n, 1]`` with ``clip``).

    Examples
    --------
    >>> round(hoeffding_upper(38, 100), 4)
    0.5024
    """
    return _additive_relaxation(k, n, alpha, clip, pay_log_n=False)


def _additive_relaxation(k, n, alpha, clip, *, pay_log_n: bool):
    """``k/n + sqrt((ln(1/alpha) [+ ln n]) / (2n))``, capped at 1 when ``clip``."""
    clip = as_flag(clip, "clip")
    k_arr, m_arr, d_arr = _counts_alpha(k, n, alpha)
    mf = m_arr.astype(float)
    budget = (np.log(mf) - np.log(d_arr)) if pay_log_n else -np.log(d_arr)
    out = k_arr / mf + np.sqrt(budget / (2.0 * mf))
    if clip:
        out = np.minimum(out, 1.0)
    return scalar_or_array(out)


@renamed(**_OLD)
def occam_upper(
    k: ArrayLike, n: ArrayLike, alpha: ArrayLike = 0.05, *, clip: bool = False
) -> FloatOrArray:
    """The article's relaxation ``k/n + sqrt(ln(n/alpha) / (2n))``.

    Wong :cite:`wong_testsetbound` (Section 4) bounds the factor ``1/(1-r)`` of
    the tail by ``n`` and so pays ``ln n`` more than :func:`hoeffding_upper`.
    The resulting bound is valid but always looser than Hoeffding's for
    ``n >= 2`` (equal at ``n = 1``).  The value can exceed 1 (``clip=True`` caps
    it).  Arguments and result as in :func:`hoeffding_upper`.

    Examples
    --------
    >>> round(occam_upper(38, 100), 4)
    0.5749
    """
    return _additive_relaxation(k, n, alpha, clip, pay_log_n=True)


def kl_divergence(q: ArrayLike, p: ArrayLike) -> FloatOrArray:
    """Binary relative entropy ``KL(q || p) = q ln(q/p) + (1-q) ln((1-q)/(1-p))``.

    With the conventions ``0 ln 0 = 0`` and ``+inf`` when ``p`` is 0 or 1 where
    ``q`` is not.  Both arguments lie in ``[0, 1]``.  Computed without cancellation
    (:func:`heldout._beta.kl`), so it stays accurate when ``p`` is within ``1e-9`` of ``q``.

    Examples
    --------
    >>> round(kl_divergence(0.38, 0.5), 5)
    0.02908
    """
    q_arr = as_probability(q, "q", closed=True)
    p_arr = as_probability(p, "p", closed=True)
    q_arr, p_arr = broadcast(q=q_arr, p=p_arr)
    return scalar_or_array(_beta.kl(q_arr, p_arr))


def _kl_invert(phat: np.ndarray, budget: np.ndarray, upper: bool) -> np.ndarray:
    """Root of ``KL(phat || p) = budget`` on one side of ``phat``, on its safe side.

    Vectorised bisection on a bracket of the root's own size: for ``p > q``,
    ``KL(q || p) >= (p - q)^2 / (2p)``, so the upper root is at most
    ``q + B + sqrt(B^2 + 2 q B)``; for ``p < q``, ``KL(q || p) >= (q - p)^2 / (2q)``, so the
    lower root is at least ``q - sqrt(2 q B)``.  After :data:`_KL_ITERATIONS` halvings the
    end *outside* the region ``KL <= B`` is returned: at least the upper root, at most the
    lower root (a point counts as outside only when its KL exceeds ``B`` by more than the
    relative error ``1e-14`` of :func:`heldout._beta.kl`).
    """
    with np.errstate(all="ignore"):
        if upper:
            lo = phat.copy()
            hi = np.minimum(1.0, phat + budget + np.sqrt(budget * budget + 2.0 * phat * budget))
            hi = np.minimum(1.0, hi * (1.0 + 1e-9) + 1e-300)
        else:
            lo = np.maximum(0.0, phat - np.sqrt(2.0 * phat * budget))
            lo = np.maximum(0.0, lo * (1.0 - 1e-9))
            hi = phat.copy()
        for _ in range(_KL_ITERATIONS):
            mid = 0.5 * (lo + hi)
            # mid counts as outside only when its KL exceeds the budget by more than the
            # relative error of _beta.kl (a few ulps): the returned end is then truly outside
            inside = _beta.kl(phat, mid) <= budget * (1.0 + 1e-14)
            if upper:
                lo = np.where(inside, mid, lo)
                hi = np.where(inside, hi, mid)
            else:
                hi = np.where(inside, mid, hi)
                lo = np.where(inside, lo, mid)
    return hi if upper else lo


@renamed(m="n", form="method")
def chernoff_tail(k: ArrayLike, n: ArrayLike, p: ArrayLike, method: str = "kl") -> FloatOrArray:
    """Upper bounds on the tail ``Bin(n, k, p)`` for ``p >= k/n`` (1 where ``p < k/n``).

    ``method="kl"``
        Chernoff: ``exp(-n KL(k/n || p))`` :cite:`langford2005`.
    ``method="hoeffding"``
        ``exp(-2n (p - k/n)^2)`` :cite:`hoeffding1963`.
    ``method="article"``
        Wong's intermediate bound ``exp(-n KL(k/n || p)) / (1 - r)`` with
        ``r = (k/n)(1 - p) / (p (1 - k/n))`` :cite:`wong_testsetbound`.

    Inverting ``chernoff_tail(k, n, p) = alpha`` in ``p`` gives :func:`kl_upper`
    and :func:`hoeffding_upper` respectively.

    Returns
    -------
    float or ndarray
        The bound (may exceed 1 for ``"article"``, and is ``inf`` where ``r >= 1``).

    Examples
    --------
    >>> round(chernoff_tail(38, 100, 0.5), 4)
    0.0546
    """
    as_choice(method, "method", ("kl", "hoeffding", "article"))
    k_arr, m_arr = as_counts(k, n, "k", "n")
    p_arr = as_probability(p, "p", closed=True)
    k_arr, m_arr, p_arr = broadcast(k=k_arr, n=m_arr, p=p_arr)
    mf = m_arr.astype(float)
    phat = k_arr / mf
    above = p_arr >= phat
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if method == "hoeffding":
            val = np.exp(-2.0 * mf * (p_arr - phat) ** 2)
        else:
            val = np.exp(-mf * _beta.kl(phat, p_arr))
            if method == "article":
                r = phat * (1.0 - p_arr) / (p_arr * (1.0 - phat))
                r = np.where(phat == 0, 0.0, r)
                val = np.where(r < 1, val / (1.0 - r), np.inf)
    out = np.where(above, val, 1.0)
    return scalar_or_array(out)


@renamed(**_OLD)
def kl_upper(k: ArrayLike, n: ArrayLike, alpha: ArrayLike = 0.05) -> FloatOrArray:
    """Relative-entropy (Chernoff) relaxation of the test set bound.

    .. math:: \\max\\{p \\ge k/n : \\mathrm{KL}(k/n \\,\\|\\, p) \\le \\ln(1/\\alpha)/n\\}

    From the Chernoff bound ``Bin(n, k, p) <= exp(-n KL(k/n || p))`` for
    ``p >= k/n`` :cite:`langford2005` (Corollary 3.7).  Tighter than
    :func:`hoeffding_upper` (by Pinsker's inequality ``KL >= 2 (p - q)^2``) and
    always in ``[k/n, 1]``.  Closed form ``1 - alpha^(1/n)`` when ``k = 0``;
    ``1`` when ``k = n``; otherwise solved by vectorised bisection and returned on
    the safe side (never below the root by more than a few ulps).  Arguments as in
    :func:`exact_upper`; one side of :func:`_kl_bound`, like :func:`kl_lower`.

    Examples
    --------
    >>> round(kl_upper(38, 100), 4)
    0.5018
    """
    return _kl_bound(k, n, alpha, upper=True)


def _kl_bound(k, n, alpha, *, upper: bool):
    """The relative-entropy bound on one side, with the closed forms at ``k = 0`` and ``k = n``."""
    k_arr, m_arr, d_arr = _counts_alpha(k, n, alpha)
    mf = m_arr.astype(float)
    phat = k_arr / mf
    budget = -np.log(d_arr) / mf
    out = _kl_invert(phat, budget, upper=upper)
    if upper:
        out = np.where(k_arr == 0, -np.expm1(np.log(d_arr) / mf), out)
        out = np.where(k_arr == m_arr, 1.0, out)
    else:
        out = np.where(k_arr == m_arr, np.exp(np.log(d_arr) / mf), out)
        out = np.where(k_arr == 0, 0.0, out)
    return scalar_or_array(out)


@renamed(**_OLD)
def kl_lower(k: ArrayLike, n: ArrayLike, alpha: ArrayLike = 0.05) -> FloatOrArray:
    """Relative-entropy lower bound: ``min{p <= k/n : KL(k/n || p) <= ln(1/alpha)/n}``.

    The mirror image of :func:`kl_upper`; ``alpha^(1/n)`` when ``k = n`` and 0
    when ``k = 0``.  Returned on the safe side: never above the root by more than a
    few ulps (relative ``1e-12`` is tested up to ``n = 1e18``).  Arguments and result as
    in :func:`kl_upper`.

    Examples
    --------
    >>> round(kl_lower(38, 100), 4)
    0.2676
    """
    return _kl_bound(k, n, alpha, upper=False)


# --------------------------------------------------------------------------- normal rule
def _normal_parts(k, n, alpha, z, ddof):
    ddof = as_count(ddof, "ddof", maximum=1, scalar=True)
    if z is None:
        if alpha is None:
            raise ValueError("alpha must be given when z is None (or pass z directly)")
        k_arr, m_arr, d_arr = _counts_alpha(k, n, alpha)
        z_arr = _beta.norm_isf(d_arr)
    else:
        k_arr, m_arr = as_counts(k, n, "k", "n")
        z_arr = as_positive(z, "z")
        k_arr, m_arr, z_arr = broadcast(k=k_arr, n=m_arr, z=z_arr)
    mf = m_arr.astype(float)
    phat = k_arr / mf
    denom = np.maximum(mf - ddof, 1.0)  # n = 1 with ddof = 1: the numerator is 0 anyway
    sd_mean = np.sqrt(phat * (1.0 - phat) / denom)
    return phat, z_arr, sd_mean


@renamed(**_OLD)
def normal_upper(
    k: ArrayLike,
    n: ArrayLike,
    alpha: ArrayLike | None = 0.05,
    *,
    z: ArrayLike | None = None,
    ddof: int = 1,
) -> FloatOrArray:
    """The normal-approximation rule: empirical mean plus ``z`` standard errors.

    .. math:: \\hat p + z \\, \\hat\\sigma / \\sqrt{n},\\quad
              \\hat\\sigma^2 = \\frac{1}{n - \\mathrm{ddof}} \\sum_i (x_i - \\hat p)^2
              = \\frac{n}{n-\\mathrm{ddof}} \\hat p (1 - \\hat p)

    so the standard error is ``sqrt(phat (1 - phat) / (n - ddof))``.  By default
    ``z = Phi^{-1}(1 - alpha)`` (1.645 for ``alpha = 0.05``, a one-sided
    ``1 - alpha`` bound *if* the normal approximation held).  Pass ``z=2.0`` (and
    ``alpha=None``) for the article's literal "mean + 2 sd" rule
    :cite:`wong_testsetbound,langford2005`, or use :func:`two_sigma_upper`.
    ``ddof=1`` is the article's ``1/(n-1)`` variance; ``ddof=0`` gives the Wald
    bound.  Not a bound in general: its coverage fails for small ``n`` and
    for error rates near 0, and its value can leave ``[0, 1]``.

    Parameters
    ----------
    k, n
        As in :func:`exact_upper`.
    alpha : float or array_like or None, default 0.05
        Used to choose ``z`` when ``z`` is None.
    z : float or array_like, optional
        Number of standard errors to add; overrides ``alpha``.
    ddof : {0, 1}, default 1
        Delta degrees of freedom of the variance estimate.

    Returns
    -------
    float or ndarray
        The rule's value, ``phat + z * sd``: it can leave ``[0, 1]``.

    Examples
    --------
    >>> round(normal_upper(38, 100), 4)
    0.4602
    """
    phat, z_arr, sd = _normal_parts(k, n, alpha, z, ddof)
    return scalar_or_array(phat + z_arr * sd)


# normal_upper's twin (both public); the two share _normal_parts
@renamed(**_OLD)
def normal_lower(
    k: ArrayLike,
    n: ArrayLike,
    alpha: ArrayLike | None = 0.05,
    *,
    z: ArrayLike | None = None,
    ddof: int = 1,
) -> FloatOrArray:
    """Mirror image of :func:`normal_upper`: ``phat - z * sqrt(phat (1 - phat) / (n - ddof))``.

    Examples
    --------
    >>> round(normal_lower(38, 100), 4)
    0.2998
    """
    phat, z_arr, sd = _normal_parts(k, n, alpha, z, ddof)
    return scalar_or_array(phat - z_arr * sd)


@renamed(m="n")
def two_sigma_upper(k: ArrayLike, n: ArrayLike) -> FloatOrArray:
    """The article's "mean + 2 sd" rule: ``phat + 2 sqrt(phat (1 - phat) / (n - 1))``.

    The standard deviation is that of the *mean* of the ``n`` losses, computed
    from the ``1/(n-1)`` sample variance.  Read literally, Wong's text adds two
    standard deviations of a *single* loss, which is a typo: see the chapter.
    Equivalent to ``normal_upper(k, n, alpha=None, z=2.0)``.

    Examples
    --------
    >>> round(two_sigma_upper(38, 100), 4)
    0.4776
    """
    return normal_upper(k, n, alpha=None, z=2.0, ddof=1)


# --------------------------------------------------------------------------- score bounds
def _score_root(x, nf, z, upper: bool):
    """Root of ``(x - n p)^2 = z^2 n p (1 - p)`` on one side, without cancellation.

    The quadratic ``(n + z^2) p^2 - (2x + z^2) p + x^2/n = 0`` (divided by ``n`` so that
    nothing overflows up to ``n = 2**63``): the larger root is ``(B + sqrt(D)) / (2A)`` and
    the smaller ``2C / (B + sqrt(D))``, both sums of non-negative terms.
    """
    with np.errstate(all="ignore"):
        a = nf + z * z
        b = 2.0 * x + z * z
        c = x * (x / nf)
        disc = np.sqrt(np.maximum(z * z * (z * z + 4.0 * x * (1.0 - x / nf)), 0.0))
        if upper:
            return (b + disc) / (2.0 * a)
        return np.where(b + disc > 0, 2.0 * c / (b + disc), 0.0)


@renamed(**_OLD)
def score_upper(
    k: ArrayLike, n: ArrayLike, alpha: ArrayLike = 0.05, *, continuity: bool = False
) -> FloatOrArray:
    """One-sided score (Wilson) upper bound, optionally with the continuity correction.

    The larger root ``p`` of the normal approximation to the binomial tail evaluated with the
    variance at the candidate ``p`` (the score form :cite:`wilson1927`),

    .. math:: \\Phi\\!\\left(\\frac{x - n p}{\\sqrt{n p (1 - p)}}\\right) = \\alpha,
              \\quad x = k + \\tfrac12 \\text{ (continuity) or } x = k,

    that is of ``(n^2 + z^2 n) p^2 - (2 n x + z^2 n) p + x^2 = 0`` with
    ``z = Phi^{-1}(1 - alpha)``.  The continuity correction (Yates's ``1/2``) makes the
    normal curve approximate ``P(X <= k)`` of a count that takes whole values; with it the
    bound is close to the exact :func:`exact_upper` (within a few thousandths at
    ``k = 38, n = 100``), without it the bound is the upper end of a two-sided Wilson
    interval at level ``1 - 2 alpha``.  An approximation, not a guarantee (its coverage
    dips below ``1 - alpha`` for some ``p``).  ``1`` when ``k = n``.

    Parameters
    ----------
    k, n, alpha
        As in :func:`exact_upper`.
    continuity : bool, default False
        Evaluate the tail at ``k + 1/2`` (the continuity-corrected score bound).

    Returns
    -------
    float or ndarray
        The bound, in ``[k/n, 1]``.

    Examples
    --------
    >>> round(score_upper(38, 100, 0.05), 4), round(score_upper(38, 100, 0.05, continuity=True), 4)
    (0.462, 0.4671)
    """
    continuity = as_flag(continuity, "continuity")
    k_arr, m_arr, a_arr = _counts_alpha(k, n, alpha)
    kf, mf = k_arr.astype(float), m_arr.astype(float)
    x = kf + (0.5 if continuity else 0.0)
    z = _beta.norm_isf(a_arr)
    out = _score_root(x, mf, z, upper=True)
    out = np.where(k_arr == m_arr, 1.0, out)
    return scalar_or_array(np.clip(out, kf / mf, 1.0))


# --------------------------------------------------------------------------- intervals
#: Methods accepted by :func:`interval`.
INTERVAL_METHODS = ("clopper-pearson", "wilson", "wilson-cc", "jeffreys", "normal")


@renamed(m="n", positional=("level",), level=("alpha", level_to_alpha))
def clopper_pearson(k: ArrayLike, n: ArrayLike, *, alpha: ArrayLike = 0.05) -> Interval:
    """Two-sided Clopper-Pearson interval for a proportion :cite:`clopper1934`.

    ``(exact_lower(k, n, alpha/2), exact_upper(k, n, alpha/2))``: beta quantiles
    ``B(alpha/2; k, n-k+1)`` and ``B(1-alpha/2; k+1, n-k)``.  Guaranteed
    coverage at least ``1 - alpha`` for every true proportion.  Same as
    ``interval(k, n, alpha=alpha)``, and returns the same :class:`~heldout._result.Interval`.

    Examples
    --------
    >>> ci = clopper_pearson(38, 100)
    >>> round(ci.low, 4), round(ci.high, 4)
    (0.2848, 0.4825)
    """
    return interval(k, n, alpha=alpha, method="clopper-pearson")


@renamed(m="n", positional=("level", "method"), level=("alpha", level_to_alpha))
def interval(
    k: ArrayLike,
    n: ArrayLike,
    *,
    alpha: ArrayLike = 0.05,
    method: str = "clopper-pearson",
    clip: bool = False,
) -> Interval:
    """Two-sided ``1 - alpha`` confidence interval for a proportion ``k/n``.

    ``k`` counts anything (errors, or correct answers for an accuracy).

    Methods (``z = Phi^{-1}(1 - alpha/2)``, ``phat = k/n``):

    ``"clopper-pearson"``
        Exact: :func:`exact_lower` and :func:`exact_upper` at ``alpha/2`` :cite:`clopper1934`.
    ``"wilson"``
        Score interval ``(phat + z^2/(2n) +- z sqrt(phat(1-phat)/n + z^2/(4n^2))) / (1 + z^2/n)``
        :cite:`wilson1927` (in floating point throughout: correct up to ``n = 2**63``).
    ``"wilson-cc"``
        Score interval with the continuity correction (Newcombe's method 4
        :cite:`newcombe1998`): the roots of the score equation at ``k - 1/2`` (lower end)
        and ``k + 1/2`` (upper end); wider than Wilson's, close to Clopper-Pearson's.  The
        upper end equals :func:`score_upper` with ``continuity=True`` at ``alpha/2``.
    ``"jeffreys"``
        Equal-tailed Beta(k + 1/2, n - k + 1/2) quantiles (checked like the exact
        bounds), with the lower end 0 when ``k = 0`` and the upper end 1 when ``k = n``
        :cite:`jeffreys1946,brown2001`.
    ``"normal"``
        Wald: ``phat +- z sqrt(phat(1-phat)/n)``; can leave ``[0, 1]`` unless ``clip``.

    Parameters
    ----------
    k, n : int or array_like
        Count and total, ``0 <= k <= n``, ``n >= 1``.
    alpha : float or array_like, default 0.05
        One minus the confidence level, in ``(0, 1)`` (``level=0.95`` is the deprecated
        spelling of ``alpha=0.05``).
    method : str, default "clopper-pearson"
        One of :data:`INTERVAL_METHODS`.
    clip : bool, default False
        Clip the normal interval to ``[0, 1]`` (the others never leave it).

    Returns
    -------
    Interval
        ``low, high`` (floats or arrays); unpacks as a pair.

    Examples
    --------
    >>> [round(v, 4) for v in interval(38, 100, method="wilson")]
    [0.291, 0.4779]
    >>> [round(v, 4) for v in interval(38, 100, method="wilson-cc")]
    [0.2864, 0.4829]
    """
    as_choice(method, "method", INTERVAL_METHODS)
    clip = as_flag(clip, "clip")
    k_arr, m_arr, a_arr = _counts_alpha(k, n, alpha)
    a_arr = a_arr / 2.0
    if method == "clopper-pearson":
        return Interval(exact_lower(k_arr, m_arr, a_arr), exact_upper(k_arr, m_arr, a_arr))
    mf = m_arr.astype(float)
    kf = k_arr.astype(float)
    phat = kf / mf
    z = _beta.norm_isf(a_arr)
    if method in ("wilson", "wilson-cc"):
        shift = 0.5 if method == "wilson-cc" else 0.0
        low = _score_root(np.maximum(kf - shift, 0.0), mf, z, upper=False)
        high = _score_root(np.minimum(kf + shift, mf), mf, z, upper=True)
        low = np.where(k_arr == 0, 0.0, np.clip(low, 0.0, phat))
        high = np.where(k_arr == m_arr, 1.0, np.clip(high, phat, 1.0))
    elif method == "jeffreys":
        a, b = kf + 0.5, (m_arr - k_arr).astype(float) + 0.5
        low = np.zeros(k_arr.shape)
        high = np.ones(k_arr.shape)
        some = k_arr > 0
        if np.any(some):
            low[some] = _beta.quantile(a[some], b[some], a_arr[some], upper=False)
        short = k_arr < m_arr
        if np.any(short):
            high[short] = _beta.quantile(a[short], b[short], a_arr[short], upper=True)
        low, high = np.minimum(low, high), np.maximum(low, high)  # one point when alpha ~ 1
    else:  # normal (Wald)
        sd = np.sqrt(phat * (1 - phat) / mf)
        low, high = phat - z * sd, phat + z * sd
        if clip:
            low, high = np.maximum(low, 0.0), np.minimum(high, 1.0)
    return Interval(scalar_or_array(low), scalar_or_array(high))


# --------------------------------------------------------------------------- by name
def _two_sigma_by_name(k, n, alpha):
    as_probability(alpha, "alpha")  # checked although the rule does not use it
    return two_sigma_upper(k, n)


METHODS: dict[str, Callable] = {
    "exact": exact_upper,
    "kl": kl_upper,
    "hoeffding": hoeffding_upper,
    "occam": occam_upper,
    "normal": normal_upper,
    "two_sigma": lambda k, n, alpha=0.05: _two_sigma_by_name(k, n, alpha),
}
"""One-sided upper bounds by name, each called as ``f(k, n, alpha)``.

``"two_sigma"`` ignores ``alpha`` (it always adds two standard errors)."""


@renamed(**_OLD)
def upper_bound(
    k: ArrayLike, n: ArrayLike, alpha: ArrayLike = 0.05, method: str = "exact"
) -> FloatOrArray:
    """Upper bound on the true error rate by method name (see :data:`METHODS`).

    Examples
    --------
    >>> round(upper_bound(38, 100, method="kl"), 4)
    0.5018
    """
    as_choice(method, "method", tuple(METHODS))
    return METHODS[method](k, n, alpha)


# --------------------------------------------------------------------------- coverage
def _coverage_args(p, n, alpha, method):
    """The checked rates, size and alpha of :func:`coverage` and :func:`simulate_coverage`."""
    as_choice(method, "method", tuple(METHODS))
    p_arr = as_probability(p, "p", closed=True)
    m_int = as_count(n, "n", minimum=1, scalar=True)
    return p_arr, m_int, as_probability(alpha, "alpha", scalar=True)


@renamed(**_OLD)
def coverage(p: ArrayLike, n: int, alpha: float = 0.05, method: str = "exact") -> FloatOrArray:
    """Exact coverage ``P_p(p <= U(X))`` of an upper bound, ``X ~ Binomial(n, p)``.

    .. math:: \\mathrm{cov}(p) = \\sum_{k=0}^{n} \\binom{n}{k} p^k (1-p)^{n-k}\\,
              \\mathbf{1}[p \\le U(k, n, \\alpha)]

    The bound ``U`` is evaluated once for every ``k = 0..n`` and the binomial
    probabilities are summed; no simulation.  A valid ``1 - alpha`` bound has
    coverage at least ``1 - alpha`` at every ``p``.

    Parameters
    ----------
    p : float or array_like
        True error rates in ``[0, 1]``.
    n : int
        Test set size (a single value; loop over sizes outside); ``(n + 1)`` times the
        number of rates must be at most 50 million.
    alpha : float, default 0.05
    method : str, default "exact"
        A key of :data:`METHODS`.

    Returns
    -------
    float or ndarray
        Coverage for each ``p``.

    Examples
    --------
    >>> round(coverage(0.1, 50), 4)
    0.9662
    """
    p_arr, m_int, alpha = _coverage_args(p, n, alpha, method)
    check_work((m_int + 1) * max(p_arr.size, 1), _COVERAGE_LIMIT, "n times the number of rates p")
    ks = np.arange(m_int + 1)
    bounds = np.asarray(upper_bound(ks, m_int, alpha, method), dtype=float)
    pmf = _beta.binom_pmf(ks, m_int, p_arr[..., None])
    out = np.sum(pmf * (p_arr[..., None] <= bounds), axis=-1)
    return scalar_or_array(np.clip(out, 0.0, 1.0))


@renamed(n_rep="reps", **_OLD)
def simulate_coverage(
    p: ArrayLike,
    n: int,
    alpha: float = 0.05,
    method: str = "exact",
    *,
    reps: int = 10_000,
    seed: int | None = None,
) -> FloatOrArray:
    """Share of ``reps`` simulated test sets on which the upper bound holds.

    Draws ``k ~ Binomial(n, p)`` ``reps`` times for each ``p`` (seeded with
    ``seed``, default :data:`heldout.config.SEED`) and returns the fraction of
    draws with ``p <= U(k, n, alpha)``.  Its standard error is about
    ``sqrt(c (1 - c) / reps)`` around the exact :func:`coverage` ``c``.
    ``reps`` times the number of rates must be at most 50 million.

    Returns
    -------
    float or ndarray
        The share of the ``reps`` draws covered, for each ``p``.

    Examples
    --------
    >>> round(simulate_coverage(0.1, 50, reps=20_000, seed=1), 2)
    0.97
    """
    from heldout.config import rng as make_rng

    p_arr, m_int, alpha = _coverage_args(p, n, alpha, method)
    reps = as_count(reps, "reps", minimum=1, scalar=True)
    check_work(reps * max(p_arr.size, 1), _COVERAGE_LIMIT, "reps times the number of rates p")
    gen = make_rng(seed)
    ks = gen.binomial(m_int, p_arr[..., None], size=p_arr.shape + (reps,))
    bounds = np.asarray(upper_bound(ks, m_int, alpha, method), dtype=float)
    out = np.mean(p_arr[..., None] <= bounds, axis=-1)
    return scalar_or_array(out)


# --------------------------------------------------------------------------- the article's program
class ArticleTableError(IndexError, ValueError):
    """The article's factorial table is too short for ``n`` (what its program raises).

    Both an ``IndexError`` (the error the article's Appendix C program raises) and a
    ``ValueError`` (the package's one kind of error for bad input).
    """


@renamed(**_OLD)
def appendix_c_bound(
    k: int, n: int, alpha: float = 0.05, *, fixed: bool = False, table_size: int = 150
) -> float:
    """A faithful re-implementation of the article's Appendix C bisection (a baseline).

    Wong :cite:`wong_testsetbound` tabulates factorials ``0!..149!`` as Python
    integers, evaluates the tail as ``sum_{i in range(k)} C(n, i) p^i (1-p)^(n-i)``
    (which stops at ``i = k - 1``, i.e. it is ``P(X <= k - 1)``) and bisects on
    ``[0, 1]`` until the bracket is narrower than ``1e-15``, returning the left
    end.  Consequences reproduced here on purpose:

    * the result is the exact bound for ``k - 1`` errors, not ``k`` (with
      ``k = 0`` the tail is the empty sum 0 and the result is 0);
    * ``n >= table_size`` raises :class:`ArticleTableError`, which is an
      ``IndexError`` like the article's program raises (the table stops at
      ``149!``, so the article's own call with ``n = 1000`` cannot run) and a
      ``ValueError``.

    ``fixed=True`` sums through ``i = k`` and grows the factorial table to
    ``n`` as needed, giving the correct bound (slowly: ``O(k)`` terms per step,
    about 50 steps; ``n`` at most 5,000).  Scalar only; this is a loop-based
    baseline, not an API for data.  Use :func:`exact_upper` instead.

    Examples
    --------
    >>> round(appendix_c_bound(38, 100, 0.05, fixed=True), 4)
    0.4668
    """
    k = as_count(k, "k", scalar=True)
    n = as_count(n, "n", minimum=1, scalar=True)
    alpha = as_probability(alpha, "alpha", scalar=True)
    fixed = as_flag(fixed, "fixed")
    table_size = as_count(table_size, "table_size", minimum=1, maximum=10_000, scalar=True)
    if k > n:
        raise ValueError(f"k must not exceed n, got k={k} and n={n}")
    if n >= table_size and not fixed and k > 0:  # with k = 0 its loop never reads the table
        raise ArticleTableError(
            f"list index out of range (n={n}: the article's factorial table stops at "
            f"{table_size - 1}!)"
        )
    if fixed and n > 5_000:
        raise ValueError(f"n must be at most 5,000 for the loop-based baseline, got {n}")
    size = max(table_size, n + 1) if fixed else table_size
    fac = [1]
    s = 1
    for i in range(1, size):
        s = s * i
        fac.append(s)

    def tail(n: int, kk: int, p: float) -> float:
        total = 0.0
        for i in range(kk + 1 if fixed else kk):
            total += fac[n] / (fac[i] * fac[n - i]) * (p**i) * ((1 - p) ** (n - i))
        return total

    left, right = 0.0, 1.0
    try:
        while abs(right - left) > 1e-15:
            mid = (left + right) / 2
            if tail(n, k, mid) >= alpha:
                left = mid
            else:
                right = mid
    except OverflowError:
        raise ValueError(
            f"n={n} and k={k}: a binomial coefficient of the article's program exceeds the "
            "floating-point range"
        ) from None
    return left
