"""Acceptance testing of a classifier against a required accuracy.

A model must have a true accuracy :math:`\\pi` above a required accuracy
:math:`\\pi_0`.  It is scored on :math:`n` test items, :math:`X` of which it gets
right, so :math:`X \\sim \\mathrm{Binomial}(n, \\pi)`.  The one-sided test of

.. math::  H_0: \\pi = \\pi_0 \\quad\\text{against}\\quad H_1: \\pi > \\pi_0

at level :math:`\\alpha` passes the model when the test accuracy :math:`X/n` is
large enough.  The source article :cite:`required_accuracy` uses the normal
approximation of :math:`X/n` (de Moivre-Laplace): under :math:`H_0`,
:math:`X/n \\approx N(\\pi_0, \\pi_0(1-\\pi_0)/n)`, so the model passes when

.. math::  X/n > \\pi_0 + z_{1-\\alpha}\\sqrt{\\pi_0(1-\\pi_0)/n},

the second term being the *safety margin*.  This module computes that test, the
exact one-sided binomial test next to it, their p-values, the test sizes a
required accuracy and margin call for (normal and exact), the probability of
passing (power) and the sizes needed for a stated power, and the same test on
the positives or negatives only (sensitivity, specificity).

Conventions
-----------
* The *normal rule* passes when ``X/n > threshold`` (strictly, as in the
  article), which is the same as ``p_value_normal(X, n, pi0) < alpha``.
* The *exact test* passes when ``P(Bin(n, pi0) >= X) <= alpha``.
* Every function takes numpy arrays and broadcasts; a 0-d result is returned
  as a Python ``float`` (or ``int``/``bool`` where stated).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from heldout import _beta
from heldout._checks import (
    as_choice,
    as_count,
    as_counts,
    as_flag,
    as_positive,
    as_probability,
    as_size,
    broadcast,
    check_work,
    scalar_or_array,
    show,
)
from heldout._deprecate import alias, renamed
from heldout._result import Result

__all__ = [
    "AcceptanceResult",
    "accept",
    "accuracy_sd",
    "actual_level",
    "bayes_null_probability",
    "class_sample_size",
    "critical_count",
    "exact_margin_size",
    "MarginSizes",
    "normal_margin_size",
    "p_value_exact",
    "p_value_normal",
    "pass_probability",
    "posterior_above",
    "power_normal",
    "power_size_exact",
    "power_size_normal",
    "safety_margin",
    "simulate_pass_rate",
    "within_sd_probability",
    "size_table",
    "SizeTable",
    "threshold",
    "z_value",
]

# Relative tolerance used when a product such as n * (pi0 + margin) should be a
# whole number but floating point puts it a hair above (1000 * 0.83 = 830.0000000000001).
_REL = 1e-12
# Largest number of (cell, n) pairs evaluated in one vectorised block.
_BLOCK = 1_000_000
# Largest total search (sum of horizons) the exact size functions accept.
_MAX_SEARCH = 20_000_000


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------
def _alpha(alpha) -> np.ndarray:
    a = as_probability(alpha, "alpha")
    return a


def _ceil(x: np.ndarray) -> np.ndarray:
    """Ceiling that forgives floating-point noise just above a whole number."""
    x = np.asarray(x, dtype=float)
    return np.ceil(x - _REL * np.maximum(1.0, np.abs(x)))


def _floor(x: np.ndarray) -> np.ndarray:
    """Floor that forgives floating-point noise just below a whole number."""
    x = np.asarray(x, dtype=float)
    return np.floor(x + _REL * np.maximum(1.0, np.abs(x)))


def _upper_tail(k, n, p) -> np.ndarray:
    """``P(X >= k)`` for ``X ~ Binomial(n, p)``, for any integer ``k`` (arrays broadcast).

    Uses the identity ``P(X >= k) = I_p(k, n - k + 1)`` (regularised incomplete
    beta function, or a binomial series where SciPy's loses digits: see
    :func:`heldout._beta.binom_sf`); it is 1 for ``k <= 0`` and 0 for ``k > n``.
    """
    return _beta.binom_sf(np.asarray(k, dtype=float) - 1.0, n, p)


def _check_margin(required: np.ndarray, margin) -> np.ndarray:
    d = as_positive(margin, "margin")
    if np.any(
        np.broadcast_to(required + d, np.broadcast_shapes(required.shape, d.shape)) > 1 + 1e-12
    ):
        raise ValueError(
            f"margin must satisfy required + margin <= 1 (an accuracy above 1 is impossible), "
            f"got margin={show(margin)}"
        )
    return d


# ---------------------------------------------------------------------------
# the normal approximation and the test
# ---------------------------------------------------------------------------
def z_value(alpha) -> float | np.ndarray:
    """One-sided standard normal quantile :math:`z_{1-\\alpha}`.

    :math:`P(Z \\le z_{1-\\alpha}) = 1-\\alpha` for :math:`Z \\sim N(0,1)`; the
    article :cite:`required_accuracy` reads 2.33 for :math:`\\alpha = 1\\%` off a
    table (the exact value is 2.3263...).

    Parameters
    ----------
    alpha : float or array
        Significance level, strictly between 0 and 1.

    Examples
    --------
    >>> round(z_value(0.01), 4)  # the article reads 2.33 off a table
    2.3263
    """
    return scalar_or_array(_beta.norm_isf(_alpha(alpha)))


def accuracy_sd(accuracy, n) -> float | np.ndarray:
    """Standard deviation of a test accuracy, :math:`\\sigma = \\sqrt{\\pi(1-\\pi)/n}`.

    The standard deviation of :math:`X/n` for :math:`X \\sim \\mathrm{Binomial}(n, \\pi)`
    (exact, not an approximation); the article's equation (1) :cite:`required_accuracy`.

    Parameters
    ----------
    accuracy : float or array
        True accuracy :math:`\\pi` in [0, 1].
    n : int or array
        Number of test items (at least 1).

    Examples
    --------
    >>> round(accuracy_sd(0.9, 400), 4)
    0.015
    """
    p = as_probability(accuracy, "accuracy", closed=True)
    m = as_count(n, "n", minimum=1)
    return scalar_or_array(np.sqrt(p * (1.0 - p) / m))


def within_sd_probability(accuracy, n, k_sd=1.0) -> float | np.ndarray:
    """Exact probability that the test accuracy lies within ``k_sd`` standard deviations of :math:`\\pi`.

    :math:`P(|X/n - \\pi| \\le k\\sigma)` for :math:`X \\sim \\mathrm{Binomial}(n,\\pi)`,
    :math:`\\sigma=\\sqrt{\\pi(1-\\pi)/n}`.  The normal approximation gives
    :math:`2\\Phi(k)-1` (68.3% for :math:`k=1`, the article's "about 68%"
    :cite:`required_accuracy`); the binomial is discrete, so the exact value
    oscillates around it with :math:`n`.

    Examples
    --------
    >>> round(within_sd_probability(0.9, 400), 4)  # the normal curve says 0.6827
    0.7218
    """
    p = as_probability(accuracy, "accuracy")
    m = as_count(n, "n", minimum=1)
    k = as_positive(k_sd, "k_sd")
    p, m, k = broadcast(accuracy=p, n=m, k_sd=k)
    with np.errstate(all="ignore"):  # a huge k_sd puts both ends at infinity: probability 1
        half = k * np.sqrt(m * p * (1 - p))
        lo = _ceil(m * p - half)
        hi = _floor(m * p + half)
        out = _upper_tail(lo, m, p) - _upper_tail(hi + 1, m, p)
    return scalar_or_array(np.clip(out, 0.0, 1.0))


def safety_margin(required, n, alpha=0.05) -> float | np.ndarray:
    """Safety margin :math:`z_{1-\\alpha}\\sqrt{\\pi_0(1-\\pi_0)/n}` of the normal rule.

    The amount by which a test accuracy must exceed the required accuracy
    :math:`\\pi_0` for the one-sided normal-approximation test at level
    :math:`\\alpha` to reject :math:`H_0: \\pi = \\pi_0` :cite:`required_accuracy`.

    Parameters
    ----------
    required : float or array
        Required accuracy :math:`\\pi_0`, strictly between 0 and 1.
    n : int or array
        Number of test items.
    alpha : float or array
        Significance level.

    Examples
    --------
    >>> round(safety_margin(0.8, 500, 0.01), 4)
    0.0416
    """
    p0 = as_probability(required, "required")
    m = as_count(n, "n", minimum=1)
    z = _beta.norm_isf(_alpha(alpha))
    p0, m, z = broadcast(required=p0, n=m, alpha=z)
    return scalar_or_array(z * np.sqrt(p0 * (1.0 - p0) / m))


def threshold(required, n, alpha=0.05) -> float | np.ndarray:
    """Threshold :math:`\\pi_0 + z_{1-\\alpha}\\sqrt{\\pi_0(1-\\pi_0)/n}` the test accuracy must exceed.

    The number the article prints for :math:`\\pi_0=0.8`, :math:`n=500`,
    :math:`\\alpha=1\\%` is this threshold (not a margin) :cite:`required_accuracy`.

    Examples
    --------
    >>> round(threshold(0.8, 500, 0.01), 4)
    0.8416
    >>> from heldout.book.ledger import article_value
    >>> round(threshold(0.8, 500, 0.01), 3) == article_value("accept-500")  # the article's
    True
    """
    p0 = as_probability(required, "required")
    return scalar_or_array(p0 + np.asarray(safety_margin(required, n, alpha)))


def p_value_normal(correct, n, required, *, continuity: bool = False) -> float | np.ndarray:
    """One-sided p-value of :math:`H_0:\\pi=\\pi_0` by the normal approximation.

    Without continuity correction (the article's test):

    .. math:: p = 1 - \\Phi\\!\\left(\\frac{X - n\\pi_0}{\\sqrt{n\\pi_0(1-\\pi_0)}}\\right),

    so ``p < alpha`` exactly when ``X/n`` exceeds :func:`threshold`.  With
    ``continuity=True`` the count is moved half a unit towards the null,
    :math:`X - 1/2`, which treats the discrete :math:`P(X' \\ge X)` as the normal
    area above :math:`X - 1/2` (Yates-style correction).

    Parameters
    ----------
    correct : int or array
        Number of correctly classified test items :math:`X`.
    n : int or array
        Number of test items.
    required : float or array
        Required accuracy :math:`\\pi_0`.
    continuity : bool
        Apply the continuity correction.

    Examples
    --------
    >>> round(p_value_normal(420, 500, 0.8), 4), round(p_value_normal(420, 500, 0.8, continuity=True), 4)
    (0.0127, 0.0146)
    """
    continuity = as_flag(continuity, "continuity")
    x, m = as_counts(correct, n, "correct", "n")
    p0 = as_probability(required, "required")
    x, m, p0 = broadcast(correct=x, n=m, required=p0)
    shift = 0.5 if continuity else 0.0
    mf = m.astype(float)
    z = (x - shift - mf * p0) / np.sqrt(mf * p0 * (1.0 - p0))
    return scalar_or_array(_beta.norm_sf(z))


def p_value_exact(correct, n, required) -> float | np.ndarray:
    """Exact one-sided binomial p-value :math:`P(\\mathrm{Bin}(n,\\pi_0) \\ge X)`.

    The p-value of the exact binomial test of :math:`H_0:\\pi=\\pi_0` against
    :math:`\\pi>\\pi_0` (as ``scipy.stats.binomtest(..., alternative="greater")``),
    computed as the regularised incomplete beta function :math:`I_{\\pi_0}(X, n-X+1)`.
    Because the binomial family has a monotone likelihood ratio, the same test
    has level :math:`\\alpha` for the composite null :math:`\\pi \\le \\pi_0`.

    Examples
    --------
    >>> round(p_value_exact(420, 500, 0.8), 4)
    0.013
    """
    x, m = as_counts(correct, n, "correct", "n")
    p0 = as_probability(required, "required")
    x, m, p0 = broadcast(correct=x, n=m, required=p0)
    return scalar_or_array(np.clip(_upper_tail(x, m, p0), 0.0, 1.0))


@renamed(test="method")
def critical_count(n, required, alpha=0.05, *, method: str = "exact") -> int | np.ndarray:
    """Smallest number of correct items with which the test passes.

    * ``method="exact"``: the smallest :math:`c` with
      :math:`P(\\mathrm{Bin}(n,\\pi_0) \\ge c) \\le \\alpha`; it is :math:`n+1`
      when even a perfect score does not pass (:math:`\\pi_0^n > \\alpha`).
    * ``method="normal"``: the smallest :math:`c` with :math:`c/n >` :func:`threshold`,
      i.e. :math:`\\lfloor n\\,\\mathrm{threshold}\\rfloor + 1` (may exceed ``n``).

    Returned as integers (a Python ``int`` for scalar input).

    Examples
    --------
    >>> critical_count(500, 0.8, 0.01), critical_count(500, 0.8, 0.01, method='normal')
    (421, 421)
    """
    as_choice(method, "method", ("exact", "normal"))
    m = as_count(n, "n", minimum=1)
    p0 = as_probability(required, "required")
    a = _alpha(alpha)
    m, p0, a = broadcast(n=m, required=p0, alpha=a)
    mf = m.astype(float)
    if method == "normal":
        t = p0 + _beta.norm_isf(a) * np.sqrt(p0 * (1.0 - p0) / mf)
        c = np.minimum(_floor(mf * t) + 1, mf + 1)
    else:
        c = _exact_critical(mf.ravel(), p0.ravel(), a.ravel()).reshape(m.shape)
    c = np.asarray(c).astype(np.int64)
    return int(c) if c.ndim == 0 else c


def _exact_critical(m: np.ndarray, p0: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Smallest ``c`` with ``P(Bin(m, p0) >= c) <= a`` (flat float arrays).

    Starts from the normal guess and walks a few steps (the tail falls as ``c`` grows, so
    each element moves one way only); elements still moving after 16 steps (strong
    skewness at huge ``m``) finish by bisection on ``[0, m + 1]``: at most 64 halvings.
    """
    z = _beta.norm_isf(a)
    c = np.clip(np.ceil(m * p0 + z * np.sqrt(m * p0 * (1 - p0))), 1, m + 1)
    idx = np.arange(c.size)
    for _ in range(16):
        if not idx.size:
            return c
        ci, mi, pi, ai = c[idx], m[idx], p0[idx], a[idx]
        up = _upper_tail(ci, mi, pi) > ai  # c does not pass: go up
        down = ~up & (ci > 1) & (_upper_tail(ci - 1, mi, pi) <= ai)  # c - 1 passes: go down
        c[idx] = ci + up - down
        idx = idx[up | down]
    if idx.size:  # P(X >= lo) > a (lo = 0 always qualifies) and P(X >= hi) <= a
        lo, hi = np.zeros(idx.size), m[idx] + 1.0
        mi, pi, ai = m[idx], p0[idx], a[idx]
        for _ in range(70):
            if not np.any(hi - lo > 1):
                break
            mid = np.floor(lo + (hi - lo) / 2.0)
            passes = _upper_tail(mid, mi, pi) <= ai
            hi = np.where(passes, mid, hi)
            lo = np.where(passes, lo, mid)
        c[idx] = hi
    return c


@dataclass(frozen=True)
class AcceptanceResult(Result):
    """Outcome of :func:`accept` (all fields plain Python values); ``to_dict()`` for JSON."""

    correct: int
    n: int
    required: float
    alpha: float
    accuracy: float
    z: float
    sd: float
    margin: float
    threshold: float
    passes: bool
    p_value_normal: float
    p_value_normal_cc: float
    p_value_exact: float
    passes_exact: bool
    critical_count_exact: int


def accept(correct: int, n: int, required: float, alpha: float = 0.05) -> AcceptanceResult:
    """Acceptance test of a model with ``correct`` of ``n`` test items right against ``required``.

    Runs the article's normal rule (``passes``: test accuracy strictly above
    :math:`\\pi_0 + z_{1-\\alpha}\\sqrt{\\pi_0(1-\\pi_0)/n}`) and the exact one-sided
    binomial test (``passes_exact``: :math:`P(\\mathrm{Bin}(n,\\pi_0)\\ge X)\\le\\alpha`)
    :cite:`required_accuracy`.  For sensitivity (specificity) pass the true
    positives (negatives) and the number of actual positives (negatives).

    Parameters
    ----------
    correct : int
        Correctly classified test items.
    n : int
        Test items (at least 1, at least ``correct``).
    required : float
        Required accuracy, strictly between 0 and 1.
    alpha : float
        Significance level.

    Examples
    --------
    >>> res = accept(425, 500, 0.8, 0.01)
    >>> res.passes, res.passes_exact, round(res.threshold, 4)
    (True, True, 0.8416)
    """
    x, m = as_counts(correct, n, "correct", "n", scalar=True)
    p0 = as_probability(required, "required", scalar=True)
    a = as_probability(alpha, "alpha", scalar=True)
    z = float(_beta.norm_isf(a))
    sd = float(np.sqrt(p0 * (1 - p0) / m))
    margin = z * sd
    pn = float(p_value_normal(x, m, p0))
    pe = float(p_value_exact(x, m, p0))
    return AcceptanceResult(
        correct=x,
        n=m,
        required=p0,
        alpha=a,
        accuracy=x / m,
        z=z,
        sd=sd,
        margin=margin,
        threshold=p0 + margin,
        passes=bool(pn < a),
        p_value_normal=pn,
        p_value_normal_cc=float(p_value_normal(x, m, p0, continuity=True)),
        p_value_exact=pe,
        passes_exact=bool(pe <= a),
        critical_count_exact=critical_count(m, p0, a),
    )


@renamed(test="method")
def actual_level(n, required, alpha=0.05, *, method: str = "normal") -> float | np.ndarray:
    """True probability of passing a model whose accuracy is exactly ``required``.

    :math:`P(\\mathrm{Bin}(n, \\pi_0) \\ge c)` with :math:`c` the
    :func:`critical_count` of ``method``.  For the exact test it is at most
    :math:`\\alpha` by construction; for the normal rule it can exceed
    :math:`\\alpha` (the approximation is then anti-conservative).

    Examples
    --------
    >>> round(actual_level(500, 0.8, 0.01), 4)
    0.0095
    >>> round(actual_level(322, 0.95, 0.05), 4)  # the normal rule can exceed its level
    0.0376
    """
    c = critical_count(n, required, alpha, method=method)
    return scalar_or_array(
        np.clip(
            _upper_tail(c, as_count(n, "n", minimum=1), as_probability(required, "required")),
            0.0,
            1.0,
        )
    )


# ---------------------------------------------------------------------------
# sizes for a required accuracy and margin
# ---------------------------------------------------------------------------
def normal_margin_size(required, margin, alpha=0.05) -> int | np.ndarray:
    """Test size by the normal approximation: :math:`\\lceil z_{1-\\alpha}^2\\,\\pi_0(1-\\pi_0)/d^2\\rceil`.

    The smallest :math:`n` whose safety margin :math:`z_{1-\\alpha}\\sqrt{\\pi_0(1-\\pi_0)/n}`
    is at most :math:`d`, i.e. the size with which a test accuracy of
    :math:`\\pi_0 + d` reaches the threshold; the article's table :cite:`required_accuracy`.

    Parameters
    ----------
    required : float or array
        Required accuracy :math:`\\pi_0` in (0, 1).
    margin : float or array
        Safety margin :math:`d > 0` with :math:`\\pi_0 + d \\le 1`.
    alpha : float or array
        Significance level.

    Examples
    --------
    >>> normal_margin_size(0.95, 0.02, 0.05)
    322
    """
    p0 = as_probability(required, "required")
    d = _check_margin(p0, margin)
    z = _beta.norm_isf(_alpha(alpha))
    p0, d, z = broadcast(required=p0, margin=d, alpha=z)
    with np.errstate(all="ignore"):  # a size that overflows is refused by as_size
        return as_size(_ceil(z**2 * p0 * (1 - p0) / d / d), "n")


def _layout(horizon: np.ndarray, start: int, stop: int):
    """Flat (cell, n) layout for cells ``start:stop``: ``n = 1..horizon[i]`` for each cell."""
    h = horizon[start:stop]
    cell = np.repeat(np.arange(start, stop), h)
    offsets = np.concatenate(([0], np.cumsum(h)[:-1]))
    n = np.arange(cell.size, dtype=np.int64) - np.repeat(offsets, h) + 1
    return cell, n, offsets


def _blocks(horizon: np.ndarray):
    """Split the cells into consecutive blocks of at most ``_BLOCK`` (cell, n) pairs."""
    start = 0
    while start < horizon.size:
        csum = np.cumsum(horizon[start:])
        stop = start + max(1, int(np.searchsorted(csum, _BLOCK, side="right")))
        yield start, stop
        start = stop


def _check_search(horizon: np.ndarray, name: str, limit: int = _MAX_SEARCH) -> np.ndarray:
    """Refuse exact searches so long that a calculator would seem to hang; return int64 horizons.

    ``horizon`` is a float array (it may hold ``inf`` when a margin is too small for its
    relative entropy to be resolved): it is checked before any conversion to integers.
    """
    horizon = np.asarray(horizon, dtype=float)
    total = float(np.sum(horizon))
    if not total <= limit:
        raise ValueError(
            f"{name} is so close to the requirement that the exact search would check "
            f"{total:,.0f} test sizes (limit {limit:,}); use the normal-approximation size instead"
        )
    return horizon.astype(np.int64)


def _first_stable(ok: np.ndarray, n: np.ndarray, offsets: np.ndarray):
    """Per segment: smallest ``n`` with ``ok`` and one past the largest ``n`` without."""
    big = np.iinfo(np.int64).max
    first = np.minimum.reduceat(np.where(ok, n, big), offsets)
    stable = np.maximum.reduceat(np.where(ok, 0, n), offsets) + 1
    return first, stable


def _scan(horizon: np.ndarray, criterion) -> tuple[np.ndarray, np.ndarray]:
    """For each cell ``i`` evaluate ``criterion(n, i)`` on ``n = 1..horizon[i]``, vectorised.

    Returns ``(first, stable)``: the smallest ``n`` where the criterion holds,
    and the smallest ``n`` such that it holds for ``n`` and every larger ``n``
    up to the horizon (``horizon[i]`` must be a size at which, and beyond which,
    the criterion is known to hold).  All (cell, n) pairs of a block are laid
    out in one flat array; blocks only bound memory.
    """
    horizon = np.asarray(horizon, dtype=np.int64).ravel()
    first = np.empty(horizon.size, dtype=np.int64)
    stable = np.empty(horizon.size, dtype=np.int64)
    for start, stop in _blocks(horizon):
        cell, n, offsets = _layout(horizon, start, stop)
        first[start:stop], stable[start:stop] = _first_stable(criterion(n, cell), n, offsets)
    return first, stable


def _margin_tails(p0: np.ndarray, q: np.ndarray, horizon: np.ndarray, start: int, stop: int):
    """``P(Bin(n, p0) >= ceil(n q))`` for every ``n = 1..horizon`` of cells ``start:stop``.

    Vectorised recurrence over ``n`` (a segmented cumulative sum), with
    ``k_n = ceil(n q)`` and ``T_n = P(Bin(n, p) >= k_n)``:

    ``T_1 = p``;  ``T_{n+1} = T_n + p f(n, k_n - 1) - [k_{n+1} = k_n + 1] f(n+1, k_n)``,

    from ``P(Bin(n+1,p) >= k) = P(Bin(n,p) >= k) + p P(Bin(n,p) = k-1)``, where
    ``f`` is the binomial pmf computed from a table of ``log Gamma``.  The
    rounding error of the running sum is below 1e-10 (measured against the
    incomplete beta function: 2e-11 on a cell of 4e5 sizes); callers re-check
    values within 1e-9 (absolute) or 1e-7 (relative) of the level.
    """
    cell, n, offsets = _layout(horizon, start, stop)
    p = p0[cell]
    qq = q[cell]
    k = _ceil(n * qq)
    k_next = _ceil((n + 1) * qq)
    lg = special.gammaln(np.arange(int(horizon[start:stop].max()) + 2, dtype=float) + 1.0)
    lp, lq = np.log(p), np.log1p(-p)
    ki = k.astype(np.int64)

    def logpmf(nn, jj):
        return lg[nn] - lg[jj] - lg[nn - jj] + jj * lp + (nn - jj) * lq

    inc = p * np.exp(logpmf(n, ki - 1))
    inc -= np.where(k_next > k, np.exp(logpmf(n + 1, ki)), 0.0)
    # T_n = p + sum_{m<n} inc_m within the segment: shift by one, and start each segment
    # with minus the previous segment's total so the running sum returns to ~0 at every
    # segment start (rounding errors then do not pile up from cell to cell).
    steps = np.empty_like(inc)
    steps[1:] = inc[:-1]
    steps[offsets] = 0.0
    totals = np.add.reduceat(steps, offsets)
    steps[offsets[1:]] = -totals[:-1]
    csum = np.cumsum(steps)
    tails = p + csum - np.repeat(csum[offsets], np.diff(np.append(offsets, n.size)))
    return cell, n, offsets, k, np.clip(tails, 0.0, 1.0)


def _exact_size_both(p0, d, a) -> tuple[np.ndarray, np.ndarray]:
    """(first, stable) exact sizes for flat arrays of required, margin, alpha."""
    q = np.minimum(p0 + d, 1.0)
    with np.errstate(divide="ignore", over="ignore"):
        horizon = np.maximum(_ceil(-np.log(a) / _beta.kl(q, p0)), 1)
    horizon = _check_search(horizon, "margin")
    first = np.empty(horizon.size, dtype=np.int64)
    stable = np.empty(horizon.size, dtype=np.int64)
    for start, stop in _blocks(horizon):
        cell, n, offsets, k, tails = _margin_tails(p0, q, horizon, start, stop)
        # settle near-ties with the incomplete beta function (accurate to ~1e-15)
        near = np.abs(tails - a[cell]) <= 1e-7 * a[cell] + 1e-9
        if near.any():
            tails[near] = _upper_tail(k[near], n[near], p0[cell][near])
        ok = tails <= a[cell]
        first[start:stop], stable[start:stop] = _first_stable(ok, n, offsets)
    return first, stable


@dataclass(frozen=True)
class MarginSizes(Result):
    """Both sizes of :func:`exact_margin_size` (``rule="both"``); unpacks as ``(first, stable)``."""

    first: int | np.ndarray
    stable: int | np.ndarray


def exact_margin_size(
    required, margin, alpha=0.05, *, rule: str = "stable"
) -> int | np.ndarray | MarginSizes:
    """Test size by the exact one-sided binomial test.

    Criterion for a size :math:`n`: every test accuracy of at least
    :math:`\\pi_0 + d` passes the exact test at level :math:`\\alpha`, i.e.

    .. math:: P\\big(\\mathrm{Bin}(n, \\pi_0) \\ge \\lceil n(\\pi_0+d) \\rceil\\big) \\le \\alpha .

    This is the exact counterpart of :func:`normal_margin_size`.  Because of the
    ceiling, the criterion is not monotone in :math:`n` (a saw-tooth: it can hold
    at some :math:`n` and fail at :math:`n+1`).  Two sizes are therefore defined:

    * ``rule="first"``: the smallest :math:`n` for which the criterion holds;
    * ``rule="stable"`` (default): the smallest :math:`n` for which it holds at
      :math:`n` *and every larger size*.  This is a true guarantee, not a
      search artefact: by the Chernoff bound
      :math:`P(\\mathrm{Bin}(n,\\pi_0) \\ge n q) \\le e^{-n\\,\\mathrm{KL}(q\\Vert\\pi_0)}`
      with :math:`q=\\pi_0+d` :cite:`hoeffding1963`, the criterion holds for all
      :math:`n \\ge \\ln(1/\\alpha)/\\mathrm{KL}(q\\Vert\\pi_0)`, so checking every
      :math:`n` up to that horizon settles it.

    The tails for all :math:`n` up to the horizon are computed at once by a
    vectorised recurrence in :math:`n` (a cumulative sum of binomial
    probabilities); values within 1e-9 (or a relative 1e-7) of :math:`\\alpha` are
    recomputed with the regularised incomplete beta function.

    Parameters
    ----------
    required, margin, alpha : float or array
        As in :func:`normal_margin_size` (arrays broadcast).
    rule : {"stable", "first", "both"}
        Which size to return; ``"both"`` returns :class:`MarginSizes` ``(first, stable)``
        from one search.

    Examples
    --------
    >>> exact_margin_size(0.95, 0.02, 0.05), exact_margin_size(0.95, 0.02, 0.05, rule='first')
    (336, 260)
    >>> exact_margin_size(0.95, 0.02, 0.05, rule='both')
    MarginSizes(first=260, stable=336)
    """
    as_choice(rule, "rule", ("stable", "first", "both"))
    p0 = as_probability(required, "required")
    d = _check_margin(p0, margin)
    a = _alpha(alpha)
    p0, d, a = np.broadcast_arrays(p0, d, a)
    shape = p0.shape
    first, stable = _exact_size_both(p0.ravel(), d.ravel(), a.ravel())
    if rule == "both":
        first, stable = first.reshape(shape), stable.reshape(shape)
        if first.ndim == 0:
            return MarginSizes(int(first), int(stable))
        return MarginSizes(first, stable)
    out = (first if rule == "first" else stable).reshape(shape)
    return int(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class SizeTable(Result):
    """The table of :func:`size_table`: grids and sizes of shape ``(alphas, required, margins)``."""

    required: np.ndarray
    margin: np.ndarray
    alpha: np.ndarray
    normal: np.ndarray
    exact: np.ndarray
    exact_first: np.ndarray
    normal_level: np.ndarray


def size_table(required, margins, alphas=(0.05, 0.01)) -> SizeTable:
    """The article's table of test sizes, by the normal approximation and exactly.

    For every combination of required accuracy, margin and level this returns
    :func:`normal_margin_size`, :func:`exact_margin_size` (``"stable"`` and ``"first"``) and
    the true level of the normal rule at its own size (:func:`actual_level`).
    Cells with :math:`\\pi_0 + d > 1` are impossible and hold ``-1`` (sizes) or
    NaN (level): a marker, not a size; a margin of 1 or more (impossible for every
    required accuracy) raises ``ValueError``.

    Returns
    -------
    SizeTable
        ``required``, ``margin``, ``alpha`` (1-d grids) and arrays of shape
        ``(len(alphas), len(required), len(margins))``: ``normal``,
        ``exact`` (stable rule), ``exact_first`` and ``normal_level``.

    Examples
    --------
    >>> table = size_table([0.9, 0.95], [0.02, 0.05], alphas=[0.05])
    >>> table.normal.tolist(), table.exact.tolist()
    ([[[609, 98], [322, 52]]], [[[627, 103], [336, 59]]])
    """
    p0 = np.atleast_1d(as_probability(required, "required"))
    d = np.atleast_1d(as_positive(margins, "margins"))
    if np.any(d >= 1):  # no accuracy plus such a margin is at most 1: no cell has a size
        raise ValueError(f"margins must be below 1 (an accuracy is at most 1), got {show(margins)}")
    a = np.atleast_1d(_alpha(alphas))
    A, P, D = np.meshgrid(a, p0, d, indexing="ij")
    ok = P + D <= 1 + 1e-12
    normal = np.full(A.shape, -1, dtype=np.int64)
    exact = np.full(A.shape, -1, dtype=np.int64)
    first = np.full(A.shape, -1, dtype=np.int64)
    level = np.full(A.shape, np.nan)
    if ok.any():
        normal[ok] = normal_margin_size(P[ok], D[ok], A[ok])
        first[ok], exact[ok] = _exact_size_both(P[ok], D[ok], A[ok])
        level[ok] = actual_level(normal[ok], P[ok], A[ok], method="normal")
    return SizeTable(
        required=p0,
        margin=d,
        alpha=a,
        normal=normal,
        exact=exact,
        exact_first=first,
        normal_level=level,
    )


# ---------------------------------------------------------------------------
# power
# ---------------------------------------------------------------------------
@renamed(test="method")
def pass_probability(
    true_accuracy, n, required, alpha=0.05, *, method: str = "exact"
) -> float | np.ndarray:
    """Exact probability that a model with true accuracy :math:`\\pi` passes (the power).

    :math:`P(\\mathrm{Bin}(n, \\pi) \\ge c)` where :math:`c` is the
    :func:`critical_count` of ``method`` (``"exact"`` binomial test or the
    article's ``"normal"`` rule).  At :math:`\\pi = \\pi_0` this is the true level.

    Examples
    --------
    >>> round(pass_probability(0.85, 500, 0.8, 0.01), 4)
    0.7168
    """
    p = as_probability(true_accuracy, "true_accuracy", closed=True)
    m = as_count(n, "n", minimum=1)
    c = critical_count(m, required, alpha, method=method)
    p, m, c = broadcast(true_accuracy=p, n=m, critical=c)
    return scalar_or_array(np.clip(_upper_tail(c, m, p), 0.0, 1.0))


@renamed(test="method")
def simulate_pass_rate(
    true_accuracy: float,
    n: int,
    required: float,
    alpha: float = 0.05,
    *,
    method: str = "exact",
    reps: int = 100_000,
    seed: int | None = None,
) -> float:
    """Share of simulated test sets on which a model of accuracy ``true_accuracy`` passes.

    Draws ``reps`` test scores :math:`X \\sim \\mathrm{Binomial}(n, \\pi)` (seeded,
    default :data:`heldout.config.SEED`) and applies the test *from its
    definition* (exact p-value at most ``alpha``, or accuracy above the normal
    threshold), so it checks :func:`pass_probability` independently.

    Examples
    --------
    >>> round(simulate_pass_rate(0.85, 500, 0.8, 0.01, reps=20_000, seed=1), 2)
    0.72
    """
    from heldout.config import rng as make_rng

    as_choice(method, "method", ("exact", "normal"))
    p = as_probability(true_accuracy, "true_accuracy", closed=True, scalar=True)
    m = as_count(n, "n", minimum=1, scalar=True)
    p0 = as_probability(required, "required", scalar=True)
    a = as_probability(alpha, "alpha", scalar=True)
    r = as_count(reps, "reps", minimum=1, scalar=True)
    check_work(r, 50_000_000, "reps (simulated test sets)")
    x = make_rng(seed).binomial(m, p, size=r)
    if method == "exact":
        passed = _upper_tail(x, m, p0) <= a
    else:
        passed = x / m > p0 + _beta.norm_isf(a) * np.sqrt(p0 * (1 - p0) / m)
    return float(passed.mean())


def power_normal(true_accuracy, n, required, alpha=0.05) -> float | np.ndarray:
    """Probability of passing the normal rule, by the normal approximation.

    .. math:: P(\\text{pass}) \\approx \\Phi\\!\\left(\\frac{\\pi - \\pi_0 - z_{1-\\alpha}\\sqrt{\\pi_0(1-\\pi_0)/n}}{\\sqrt{\\pi(1-\\pi)/n}}\\right)

    At :math:`\\pi = \\pi_0 + \\text{margin}` it is exactly 1/2: a model whose
    true accuracy equals the threshold passes half the time.

    Examples
    --------
    >>> round(power_normal(0.85, 500, 0.8, 0.01), 4)
    0.7002
    """
    p = as_probability(true_accuracy, "true_accuracy", closed=True)
    t = np.asarray(threshold(required, n, alpha))
    m = as_count(n, "n", minimum=1)
    sd = np.sqrt(p * (1 - p) / m)
    with np.errstate(divide="ignore", invalid="ignore"):
        zz = (p - t) / sd
    zz = np.where(sd == 0, np.where(p > t, np.inf, -np.inf), zz)
    return scalar_or_array(_beta.norm_cdf(zz))


def power_size_normal(required, true_accuracy, alpha=0.05, power=0.8) -> int | np.ndarray:
    """Size for a stated power by the normal approximation.

    .. math:: n = \\left\\lceil\\left(\\frac{z_{1-\\alpha}\\sqrt{\\pi_0(1-\\pi_0)} + z_{\\beta}\\sqrt{\\pi_1(1-\\pi_1)}}{\\pi_1-\\pi_0}\\right)^2\\right\\rceil,
       \\quad z_\\beta = \\Phi^{-1}(\\text{power}),

    the classic one-sample proportion sample-size formula: the smallest
    :math:`n` with :func:`power_normal` at least ``power`` for a model of true
    accuracy :math:`\\pi_1 > \\pi_0`.

    Examples
    --------
    >>> power_size_normal(0.8, 0.85, 0.01, 0.9)
    771
    """
    p0 = as_probability(required, "required")
    p1 = as_probability(true_accuracy, "true_accuracy", closed=True)
    if np.any(p1 <= p0):
        raise ValueError(
            f"true_accuracy must exceed required (the power is at most alpha otherwise), got {show(true_accuracy)}"
        )
    za = _beta.norm_isf(_alpha(alpha))
    zb = special.ndtri(as_probability(power, "power"))
    p0, p1, za, zb = broadcast(required=p0, true_accuracy=p1, alpha=za, power=zb)
    with np.errstate(all="ignore"):  # a size that overflows is refused by as_size
        n = (za * np.sqrt(p0 * (1 - p0)) + zb * np.sqrt(p1 * (1 - p1))) / (p1 - p0)
        return as_size(_ceil(np.where(n > 0, n, 0) ** 2), "n")


def _power_horizon(p0, p1, a, pw) -> np.ndarray:
    """A size beyond which the exact test's power at ``p1`` is surely >= ``pw`` (Chernoff)."""
    # For any t in (p0, p1): if n >= ln(1/a)/KL(t||p0) the exact critical count is at most
    # ceil(n t), and if also n >= ln(1/(1-pw))/KL(t||p1) then P(Bin(n,p1) < n t) <= 1 - pw.
    frac = np.linspace(0.0, 1.0, 402)[1:-1]
    t = p0[:, None] + frac[None, :] * (p1 - p0)[:, None]
    need = np.maximum(
        np.log(1 / a)[:, None] / _beta.kl(t, p0[:, None]),
        np.log(1 / (1 - pw))[:, None] / _beta.kl(t, p1[:, None]),
    )
    return np.ceil(need.min(axis=1)) + 1


def power_size_exact(
    required, true_accuracy, alpha=0.05, power=0.8, *, rule: str = "stable"
) -> int | np.ndarray:
    """Size for a stated power with the exact one-sided binomial test.

    Criterion for a size :math:`n`: :math:`P(\\mathrm{Bin}(n,\\pi_1) \\ge c_n) \\ge`
    ``power``, with :math:`c_n` the exact :func:`critical_count`.  The power is
    a saw-tooth in :math:`n`, so as in :func:`exact_margin_size` ``rule="first"`` gives
    the smallest :math:`n` meeting it and ``rule="stable"`` the smallest from
    which on it always holds.  The search horizon is a Chernoff size at which the
    criterion provably holds for all larger :math:`n` (for any :math:`t` between
    :math:`\\pi_0` and :math:`\\pi_1`, :math:`n \\ge \\max(\\ln(1/\\alpha)/\\mathrm{KL}(t\\Vert\\pi_0),
    \\ln(1/(1-\\text{power}))/\\mathrm{KL}(t\\Vert\\pi_1))` suffices).

    Examples
    --------
    >>> power_size_exact(0.8, 0.85, 0.01, 0.9)
    792
    """
    as_choice(rule, "rule", ("stable", "first"))
    p0 = as_probability(required, "required")
    p1 = as_probability(true_accuracy, "true_accuracy", closed=True)
    if np.any(p1 <= p0):
        raise ValueError(f"true_accuracy must exceed required, got {show(true_accuracy)}")
    a = _alpha(alpha)
    pw = as_probability(power, "power")
    p0, p1, a, pw = (x.ravel() for x in np.broadcast_arrays(p0, p1, a, pw))
    shape = np.broadcast_shapes(
        np.shape(required), np.shape(true_accuracy), np.shape(alpha), np.shape(power)
    )
    p1c = np.minimum(p1, 1 - 1e-15)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        horizon = _power_horizon(p0, p1c, a, pw)
    horizon = _check_search(horizon, "true_accuracy", limit=_MAX_SEARCH // 4)

    def criterion(n, cell):
        c = critical_count(n, p0[cell], a[cell])
        return _upper_tail(c, n, p1[cell]) >= pw[cell]

    first, stable = _scan(horizon, criterion)
    out = (first if rule == "first" else stable).reshape(shape)
    return int(out) if out.ndim == 0 else out


# ---------------------------------------------------------------------------
# sensitivity and specificity: counting one class
# ---------------------------------------------------------------------------
def class_sample_size(n_class, prevalence, assurance=0.95) -> int | np.ndarray:
    """Total test size that holds at least ``n_class`` items of a class with given probability.

    A test of sensitivity (specificity) counts only the actual positives
    (negatives).  If a share ``prevalence`` of the items are of that class, a
    random test set of :math:`N` items holds :math:`\\mathrm{Bin}(N, \\rho)` of them;
    this returns the smallest :math:`N` with
    :math:`P(\\mathrm{Bin}(N,\\rho) \\ge n_{\\text{class}}) \\ge` ``assurance``.
    The probability increases with :math:`N`, so a vectorised bisection finds it.
    The naive answer :math:`n_{\\text{class}}/\\rho` is met only about half the time.
    A probability computed within a relative ``1e-12`` of ``assurance`` counts as meeting
    it: the tail is computed in floating point, and a target met exactly (for example
    :math:`P(\\mathrm{Bin}(1999, 1/2) \\ge 1000) = 1/2` by symmetry) must not be missed by
    its last bits.

    Examples
    --------
    >>> class_sample_size(100, 0.1, 0.95)  # not 100 / 0.1 = 1000
    1161
    >>> class_sample_size(1000, 0.5, 0.5)  # P(Bin(1999, 1/2) >= 1000) = 1/2 exactly
    1999
    """
    m = as_count(n_class, "n_class", minimum=1)
    rho = as_probability(prevalence, "prevalence")
    g = as_probability(assurance, "assurance")
    m, rho, g = broadcast(n_class=m, prevalence=rho, assurance=g)
    g_met = g * (1.0 - 1e-12)  # the tail's rounding: an exact tie meets the target
    mf = m.astype(float)
    # normal start: N rho - z_g sqrt(N rho (1 - rho)) = n_class, a quadratic in sqrt(N)
    zg, c = special.ndtri(g), np.sqrt(rho * (1.0 - rho))
    root = (zg * c + np.sqrt(zg * zg * c * c + 4.0 * rho * mf)) / (2.0 * rho)
    with np.errstate(over="ignore"):
        guess = np.maximum(root * root, mf) * 1.001 + 16.0
    hint = "n_class is too large for this prevalence"
    hi = np.asarray(as_size(np.ceil(guess), "the total test size", hint=hint), dtype=np.int64)
    for _ in range(64):  # doubling until the guess holds (it nearly always does at once)
        bad = _upper_tail(mf, hi.astype(float), rho) < g_met
        if not bad.any():
            break
        if np.any(hi[bad] >= 2**62):
            raise ValueError(
                f"the size exceeds 2**63 - 1 (the total test size would be above 2**62): {hint}"
            )
        hi = np.where(bad, 2 * hi, hi)
    lo = m - 1  # P(Bin(N, rho) >= n_class) = 0 for N < n_class
    for _ in range(70):  # integer bisection: the bracket is below 2**63
        if not np.any(hi - lo > 1):
            break
        mid = lo + (hi - lo) // 2
        good = _upper_tail(mf, mid.astype(float), rho) >= g_met
        hi = np.where(good, mid, hi)
        lo = np.where(good, lo, mid)
    return int(hi) if hi.ndim == 0 else hi


# ---------------------------------------------------------------------------
# what a p-value is not: probabilities of the hypotheses
# ---------------------------------------------------------------------------
@renamed(positional=("prior_a", "prior_b"))
def posterior_above(correct, n, required, *, prior="uniform", prior_a=None, prior_b=None):
    """Posterior probability that the true accuracy exceeds ``required``.

    With a Beta(a, b) prior on :math:`\\pi` (``prior``: a name or a pair, as in
    :func:`heldout.accuracy.posterior.prior_params`; uniform by default) and :math:`X` correct of
    :math:`n`, the posterior is Beta(:math:`a+X`, :math:`b+n-X`) and this returns
    :math:`P(\\pi > \\pi_0 \\mid X)`.  It is a statement about :math:`\\pi`, which a
    p-value is not.  (``prior_a`` and ``prior_b`` are the deprecated spelling of
    ``prior=(a, b)``.)

    Examples
    --------
    >>> round(posterior_above(90, 100, 0.85), 4)
    0.9072
    >>> round(posterior_above(90, 100, 0.85, prior="jeffreys"), 4)
    0.9251
    """
    from heldout.accuracy.posterior import prior_params

    if prior_a is not None or prior_b is not None:
        import warnings

        warnings.warn(
            "posterior_above(): prior_a and prior_b are deprecated; use prior=(a, b)",
            DeprecationWarning,
            stacklevel=3,  # the caller of the renamed() wrapper
        )
        prior = (1.0 if prior_a is None else prior_a, 1.0 if prior_b is None else prior_b)
    a0, b0 = prior_params(prior)
    if a0 == 0 or b0 == 0:
        raise ValueError(f"prior must have both parameters positive here, got {show(prior)}")
    x, m = as_counts(correct, n, "correct", "n")
    p0 = as_probability(required, "required")
    a, b = np.float64(a0), np.float64(b0)
    x, m, p0 = broadcast(correct=x, n=m, required=p0)
    return scalar_or_array(special.betaincc(a + x, b + (m - x), p0))


def bayes_null_probability(correct, n, required, prior_null=0.5):
    """Posterior probability of :math:`H_0: \\pi = \\pi_0` against a uniform alternative.

    Prior: mass ``prior_null`` = :math:`w` on :math:`\\pi = \\pi_0` exactly and the
    rest spread uniformly over :math:`(\\pi_0, 1)`.  Then

    .. math:: P(H_0 \\mid X) = \\frac{w f_0}{w f_0 + (1-w) m_1},\\quad
       f_0 = \\binom{n}{X}\\pi_0^X(1-\\pi_0)^{n-X},\\quad
       m_1 = \\frac{P(\\mathrm{Beta}(X+1, n-X+1) > \\pi_0)}{(1-\\pi_0)(n+1)} ,

    the second from :math:`\\int_{\\pi_0}^1 \\binom{n}{X}\\pi^X(1-\\pi)^{n-X}d\\pi`.
    The gap between this and the p-value is the point of Berger and Sellke's
    paper on point nulls :cite:`berger_sellke1987`.

    Examples
    --------
    >>> round(bayes_null_probability(420, 500, 0.8), 4)  # while the p-value is 0.013
    0.2602
    """
    x, m = as_counts(correct, n, "correct", "n")
    p0 = as_probability(required, "required")
    w = as_probability(prior_null, "prior_null")
    x, m, p0, w = broadcast(correct=x, n=m, required=p0, prior_null=w)
    log_f0 = _beta.binom_logpmf(x, m, p0)
    with np.errstate(divide="ignore"):
        tail = special.betaincc(x + 1.0, (m - x) + 1.0, p0)
        log_m1 = np.log(tail) - np.log1p(-p0) - np.log1p(m.astype(float))
    # w f0 / (w f0 + (1 - w) m1) = 1 / (1 + exp(log((1-w) m1) - log(w f0)))
    return scalar_or_array(special.expit(np.log(w) + log_f0 - np.log1p(-w) - log_m1))


#: Deprecated names (``normal_size`` also names the sizing module's normal size, which is
#: a different quantity: a mean within a tolerance).
normal_size = alias(normal_margin_size, "normal_size")
exact_size = alias(exact_margin_size, "exact_size")
