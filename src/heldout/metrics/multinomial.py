"""Simultaneous intervals for the class proportions of a confusion-matrix row.

A row of a confusion matrix (the items of one true class, spread over the
predicted classes) is multinomial.  Per-cell binomial intervals each cover with
probability :math:`1-\\alpha`, but *all* of them cover together less often.
Simultaneous intervals cover every proportion at once with probability
:math:`1-\\alpha`:

* **Goodman** :cite:`goodman1965`: a score interval for each of the :math:`K`
  cells at level :math:`1-\\alpha/K` (Bonferroni), with
  :math:`A = \\chi^2_{1;\\,1-\\alpha/K}`:

  .. math:: \\frac{A + 2n_i \\pm \\sqrt{A\\,\\big(A + 4n_i(n-n_i)/n\\big)}}{2(n + A)}.

  Conservative by construction for large :math:`n` (Bonferroni); approximate for
  small :math:`n`, because each cell's score interval is.

* **Sison and Glaz** :cite:`sison1995`: intervals
  :math:`[\\hat p_i - c/n,\\; \\hat p_i + (c + 2\\gamma)/n]` of a common width, with
  :math:`c` the integer at which the approximate probability
  :math:`\\nu(c) = P(n_i - c \\le X_i \\le n_i + c\\ \\forall i)` (multinomial
  :math:`X` with the observed shares) crosses :math:`1-\\alpha`, and :math:`\\gamma`
  interpolating between :math:`c` and :math:`c+1`.  :math:`\\nu(c)` is Levin's
  representation of a multinomial box probability through independent Poisson
  variables truncated to the box, with an Edgeworth expansion for the
  conditioning on their sum.  Shorter than Goodman's when the cells are many and
  similar; the book's simulation shows where it undercovers (a few large cells
  and many empty ones).

* **Exact Bonferroni**: a Clopper-Pearson interval :cite:`clopper1934` for each
  cell at level :math:`1-\\alpha/K`.  Each covers with probability at least
  :math:`1-\\alpha/K` whatever the truth, so by the union bound all :math:`K`
  cover together with probability at least :math:`1-\\alpha`: the only one of the
  three with a guarantee at every sample size, at the price of width.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from heldout import _inputs
from heldout._checks import in_choices, show
from heldout._result import Interval
from heldout.metrics.estimate import Estimate

__all__ = [
    "SIMULTANEOUS_METHODS",
    "bonferroni_exact",
    "goodman",
    "simultaneous_interval",
    "sison_glaz",
]

#: Methods of :func:`simultaneous_interval`.
SIMULTANEOUS_METHODS = ("bonferroni-exact", "goodman", "sison-glaz")


def _counts(counts) -> np.ndarray:
    arr = _inputs.array(counts, "counts")
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"counts must be a 1-d array of at least 2 cells, got shape {arr.shape}")
    c = _inputs.count(arr, "counts")
    if c.sum() == 0:
        raise ValueError("counts must hold at least one item")
    return c


def bonferroni_exact(counts: ArrayLike, alpha: float = 0.05) -> Interval:
    """Clopper-Pearson intervals at level ``1 - alpha/K`` for each of the K cells.

    By the union bound the K intervals cover all K proportions at once with
    probability at least ``1 - alpha``, for every sample size and every truth
    :cite:`clopper1934`.

    Examples
    --------
    >>> low, high = bonferroni_exact([91, 5, 3, 1])
    >>> np.round(low, 3).tolist(), np.round(high, 3).tolist()
    ([0.814, 0.012, 0.004, 0.0], [0.967, 0.132, 0.103, 0.07])
    """
    from heldout.accuracy.bounds import exact_lower, exact_upper

    c = _counts(counts)
    a_ = _inputs.alpha_value(alpha)
    n = np.full(c.shape, c.sum())
    half = a_ / (2 * c.size)
    return Interval(
        np.asarray(exact_lower(c, n, half), dtype=float),
        np.asarray(exact_upper(c, n, half), dtype=float),
    )


def goodman(counts: ArrayLike, alpha: float = 0.05) -> Interval:
    """Goodman's simultaneous intervals for multinomial proportions.

    .. math:: \\frac{A + 2n_i \\pm \\sqrt{A(A + 4n_i(n-n_i)/n)}}{2(n + A)},
              \\qquad A = \\chi^2_{1;\\,1-\\alpha/K}

    :cite:`goodman1965`.

    Parameters
    ----------
    counts : array_like of int, shape (K,)
        Items in each of the K cells.
    alpha : float, default 0.05
        All K intervals cover together with probability about ``1 - alpha``.

    Returns
    -------
    low, high : ndarray, shape (K,)

    Examples
    --------
    >>> low, high = goodman([91, 5, 3, 1])
    >>> np.round(low, 3).tolist(), np.round(high, 3).tolist()
    ([0.813, 0.017, 0.008, 0.001], [0.959, 0.135, 0.107, 0.076])
    """
    c = _counts(counts).astype(float)
    a_ = _inputs.alpha_value(alpha)
    n, k = c.sum(), c.size
    big_a = stats.chi2.isf(a_ / k, 1)
    root = np.sqrt(big_a * (big_a + 4 * c * (n - c) / n))
    return Interval(
        (big_a + 2 * c - root) / (2 * (n + big_a)), (big_a + 2 * c + root) / (2 * (n + big_a))
    )


def _poisson_box(lam: np.ndarray, b: np.ndarray, a: np.ndarray) -> np.ndarray:
    """P(b <= Y <= a) for Y ~ Poisson(lam), elementwise (b may be negative)."""
    upper = stats.poisson.cdf(a, lam)
    lower = np.where(b >= 1, stats.poisson.cdf(b - 1, lam), 0.0)
    # above the mean both cdfs are near 1 and their difference cancels: use the upper tails
    right = stats.poisson.sf(b - 1, lam) - stats.poisson.sf(a, lam)
    return np.where(b - 1 > lam, right, upper - lower)


def _nu(counts: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """Sison-Glaz approximation of P(n_i - c <= X_i <= n_i + c for all i), for each c in cs."""
    n = counts.sum()
    lam = counts[None, :].astype(float)
    b = np.maximum(counts[None, :] - cs[:, None], 0)
    a = np.minimum(counts[None, :] + cs[:, None], n)
    box = _poisson_box(lam, b, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        # factorial moments of Y truncated to [b, a]: lam^r P(b-r <= Y <= a-r) / P(b <= Y <= a)
        f = [lam**r * _poisson_box(lam, b - r, a - r) / box for r in range(1, 5)]
        m1 = f[0]
        m2 = f[1] + f[0]
        m3 = f[2] + 3 * f[1] + f[0]
        m4 = f[3] + 6 * f[2] + 7 * f[1] + f[0]
        mu2 = m2 - m1**2
        mu3 = m3 - 3 * m1 * m2 + 2 * m1**3
        mu4 = m4 - 4 * m1 * m3 + 6 * m1**2 * m2 - 3 * m1**4
        s2 = mu2.sum(axis=1)
        g1 = mu3.sum(axis=1) / s2**1.5
        g2 = (mu4.sum(axis=1) - 3 * (mu2**2).sum(axis=1)) / s2**2
        x = (n - m1.sum(axis=1)) / np.sqrt(s2)
        h3 = x**3 - 3 * x
        h4 = x**4 - 6 * x**2 + 3
        h6 = x**6 - 15 * x**4 + 45 * x**2 - 15
        edgeworth = (
            np.exp(-(x**2) / 2)
            / math.sqrt(2 * math.pi)
            * (1 + g1 * h3 / 6 + g2 * h4 / 24 + g1**2 * h6 / 72)
            / np.sqrt(s2)
        )
        log_nu = np.log(box).sum(axis=1) + np.log(edgeworth) - stats.poisson.logpmf(n, n)
    out = np.exp(log_nu)
    return np.where(np.isfinite(out), out, 0.0)


def sison_glaz(counts: ArrayLike, alpha: float = 0.05) -> Interval:
    """Sison and Glaz's simultaneous intervals for multinomial proportions.

    :math:`[\\hat p_i - c/n,\\ \\hat p_i + (c + 2\\gamma)/n]` clipped to [0, 1], where
    :math:`\\nu(c) \\le 1-\\alpha < \\nu(c+1)` and
    :math:`\\gamma = (1-\\alpha-\\nu(c))/(\\nu(c+1)-\\nu(c))` :cite:`sison1995`
    (:math:`\\nu(0) = 0`, and :math:`\\nu(c) = 1` once :math:`c \\ge n`, as in the
    reference implementations).

    Parameters
    ----------
    counts : array_like of int, shape (K,)
    alpha : float, default 0.05

    Returns
    -------
    low, high : ndarray, shape (K,)

    Examples
    --------
    >>> low, high = sison_glaz([91, 5, 3, 1])
    >>> np.round(low, 3).tolist(), np.round(high, 3).tolist()
    ([0.87, 0.01, 0.0, 0.0], [0.967, 0.107, 0.087, 0.067])
    """
    c = _counts(counts)
    a_ = _inputs.alpha_value(alpha)
    n = int(c.sum())
    target = 1 - a_
    start = 0
    block = 64
    while True:
        cs = np.arange(start, start + block + 1)
        nu = np.where(cs >= n, 1.0, _nu(c, np.maximum(cs, 1)))
        nu = np.where(cs == 0, 0.0, nu)
        crossing = np.flatnonzero((nu[:-1] <= target) & (target < nu[1:]))
        if crossing.size:
            i = int(crossing[0])
            break
        if start > n:
            raise ValueError(
                "sison_glaz could not find c with nu(c) <= 1 - alpha < nu(c + 1); "
                "use method='goodman'"
            )
        start += block
        block *= 2
    cc, nu_c, nu_c1 = cs[i], nu[i], nu[i + 1]
    gamma = (target - nu_c) / (nu_c1 - nu_c)
    p = c / n
    return Interval(np.maximum(p - cc / n, 0.0), np.minimum(p + (cc + 2 * gamma) / n, 1.0))


def simultaneous_interval(
    counts: ArrayLike, alpha: float = 0.05, method: str = "bonferroni-exact"
) -> list[Estimate]:
    """Simultaneous intervals for every proportion of a multinomial row, as Estimates.

    ``method="bonferroni-exact"`` (:func:`bonferroni_exact`, guaranteed),
    ``"goodman"`` (:func:`goodman`) or ``"sison-glaz"`` (:func:`sison_glaz`), both
    approximate.  The K intervals are meant to cover all K true proportions at once
    with probability ``1 - alpha``.

    Examples
    --------
    >>> [round(e.high, 3) for e in simultaneous_interval([91, 5, 3, 1], method="goodman")]
    [0.959, 0.135, 0.107, 0.076]
    """
    if not in_choices(method, SIMULTANEOUS_METHODS):
        raise ValueError(
            f"method must be one of {', '.join(SIMULTANEOUS_METHODS)}, got {show(method)}"
        )
    c = _counts(counts)
    low, high = {
        "bonferroni-exact": bonferroni_exact,
        "goodman": goodman,
        "sison-glaz": sison_glaz,
    }[method](c, alpha)
    n = int(c.sum())
    a_ = _inputs.alpha_value(alpha)
    return [
        Estimate(float(k / n), float(lo), float(hi), method=method, n=n, alpha=a_)
        for k, lo, hi in zip(c, low, high, strict=True)
    ]
