r"""How many gold labels a judge saves: sizes for the PPI interval of a 0/1 score.

For a 0/1 grade with rate :math:`p = P(Y = 1)` and a 0/1 judge with sensitivity
:math:`S_e = P(f = 1 \mid Y = 1)` and specificity :math:`S_p = P(f = 0 \mid Y = 0)`, the
judge's rate is :math:`q = pS_e + (1-p)(1-S_p)` and

.. math:: \sigma_Y^2 = p(1-p), \quad \sigma_f^2 = q(1-q), \quad
          \mathrm{Cov}(Y, f) = p\,(S_e - q), \quad \rho = \mathrm{Cov}/(\sigma_Y\sigma_f).

With :math:`n` gold items and :math:`N` judge-only items, PPI with weight :math:`\lambda`
has variance :math:`\lambda^2\sigma_f^2/N + (\sigma_Y^2 - 2\lambda\mathrm{Cov} +
\lambda^2\sigma_f^2)/n` :cite:`angelopoulos2023prediction,angelopoulos2023ppi`; at the
tuned weight :math:`\lambda^* = \mathrm{Cov}/((1+n/N)\sigma_f^2)` (clipped to [0, 1]) it
is :math:`\frac{\sigma_Y^2}{n}(1 - \frac{N}{n+N}\rho^2)` when :math:`\lambda^* \le 1`.
So more judged items buy at most the factor :math:`1 - \rho^2` on the variance: past a
few times :math:`n`, they add almost nothing, and the gold labels needed for a
half-width :math:`h` approach :math:`z^2\sigma_Y^2(1-\rho^2)/h^2` (the gold-only count
times :math:`1 - \rho^2`).  The half-width is that of the normal interval; where the
rate is near 0 or 1 the disagreement count, not this size, is what decides
(:data:`heldout.judged.ppi.MIN_DISAGREEMENTS`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

from heldout._checks import as_choice, as_positive, as_probability, as_size, broadcast
from heldout._result import Result, extra

__all__ = ["GoldPlan", "gold_for_half_width", "half_width_for_gold"]


@dataclass(frozen=True)
class GoldPlan(Result):
    """Gold labels to collect.  Unpacks as ``(gold_items, classical_items)``.

    Attributes
    ----------
    gold_items : int
        Gold items for the half-width with the judge (PPI or PPI++).
    classical_items : int
        Gold items for the same half-width without the judge (normal interval).
    half_width : float
    correlation : float
        :math:`\\rho`, the correlation of judge and gold grades.
    judge_rate : float
        :math:`q`, the judge's rate.
    judge_items : float
        :math:`N` (``inf`` for as many as wanted).
    limit_items : int
        Gold items with unlimited judge-only items (the floor ``gold_items`` approaches).
    weight : str or float
    alpha : float
    """

    gold_items: int
    classical_items: int
    half_width: float = extra()
    correlation: float = extra()
    judge_rate: float = extra()
    judge_items: float = extra()
    limit_items: int = extra()
    weight: object = extra()
    alpha: float = extra()


def _moments(rate, sens, spec):
    q = rate * sens + (1 - rate) * (1 - spec)
    vy, vf = rate * (1 - rate), q * (1 - q)
    cov = rate * (sens - q)
    return q, vy, vf, cov


def _variance(n, big_n, vy, vf, cov, weight):
    """PPI variance of the mean at n gold and N judge-only items (vectorised)."""
    inv_n = np.where(np.isinf(big_n), 0.0, 1.0 / np.where(np.isinf(big_n), 1.0, big_n))
    if isinstance(weight, str):
        with np.errstate(divide="ignore", invalid="ignore"):
            lam = np.where(vf > 0, cov / ((1 + n * inv_n) * np.where(vf > 0, vf, 1.0)), 0.0)
        lam = np.clip(lam, 0.0, 1.0)
    else:
        lam = weight
    return lam**2 * vf * inv_n + (vy - 2 * lam * cov + lam**2 * vf) / n


def _parameters(rate, sensitivity, specificity, alpha, weight):
    p = as_probability(rate, "rate")
    se = as_probability(sensitivity, "sensitivity", closed=True)
    sp = se if specificity is None else as_probability(specificity, "specificity", closed=True)
    a = float(as_probability(alpha, "alpha", scalar=True))
    if isinstance(weight, str):
        w = as_choice(weight, "weight", ("tuned",))
    else:
        w = float(as_probability(weight, "weight", closed=True, scalar=True))
    return p, se, sp, a, w


def _judge_items(judge_items):
    if judge_items is None:
        return np.inf
    return as_positive(judge_items, "judge_items")


def half_width_for_gold(
    gold_items: ArrayLike,
    rate: ArrayLike,
    sensitivity: ArrayLike,
    specificity: ArrayLike | None = None,
    *,
    judge_items: ArrayLike | None = None,
    alpha: float = 0.05,
    weight: str | float = "tuned",
):
    r"""The expected half-width of the PPI interval of a 0/1 score.

    .. math:: h = z_{1-\alpha/2}\sqrt{\lambda^2\sigma_f^2/N
              + (\sigma_Y^2 - 2\lambda\mathrm{Cov} + \lambda^2\sigma_f^2)/n}

    with the moments of the module docstring :cite:`angelopoulos2023ppi`: what
    ``gold_items`` gold labels and ``judge_items`` judged items give.  Vectorised (arrays
    broadcast), so a range of ``judge_items`` shows what labelling more items with the
    judge buys.

    Parameters
    ----------
    gold_items : array_like
        Gold items :math:`n` (at least 2).
    rate : array_like
        The expected score :math:`p`, in (0, 1).
    sensitivity : array_like
        :math:`S_e`, the share of right answers the judge calls right.
    specificity : array_like, optional
        :math:`S_p`, the share of wrong answers it calls wrong (default: ``sensitivity``,
        a judge that agrees with people on that share of both kinds).
    judge_items : array_like, optional
        Judge-only items :math:`N` (default: unlimited).
    alpha : float
    weight : "tuned" or float
        ``"tuned"`` (PPI++) or a fixed :math:`\lambda` (1 is PPI, 0 gold only).

    Returns
    -------
    float or ndarray

    Examples
    --------
    A judge that agrees with people on 90 % of answers, 200 gold items, 80 % accuracy:

    >>> [round(half_width_for_gold(200, 0.8, 0.9, judge_items=m), 4) for m in (200, 2000, 10**6)]
    [0.0475, 0.0398, 0.0379]
    >>> round(half_width_for_gold(200, 0.8, 0.9, weight=0.0), 4)   # gold only
    0.0554
    """
    p, se, sp, a, w = _parameters(rate, sensitivity, specificity, alpha, weight)
    n = as_positive(gold_items, "gold_items")
    if np.any(n < 2):
        raise ValueError("gold_items must be at least 2")
    big_n = _judge_items(judge_items)
    n, big_n, p, se, sp = broadcast(
        gold_items=n, judge_items=big_n, rate=p, sensitivity=se, specificity=sp
    )
    q, vy, vf, cov = _moments(p, se, sp)
    z = float(-special.ndtri(a / 2))
    h = z * np.sqrt(np.maximum(_variance(n, big_n, vy, vf, cov, w), 0.0))
    return float(h) if h.ndim == 0 else h


def gold_for_half_width(
    half_width: float,
    rate: float,
    sensitivity: float,
    specificity: float | None = None,
    *,
    judge_items: float | None = None,
    alpha: float = 0.05,
    weight: str | float = "tuned",
) -> GoldPlan:
    r"""Gold labels needed for a PPI interval of half-width ``half_width`` on a 0/1 score.

    The smallest :math:`n` with :func:`half_width_for_gold` :math:`\le h`, found by
    bisection on :math:`n` (the variance falls as :math:`n` grows), beside the gold-only
    count :math:`\lceil z^2 p(1-p)/h^2\rceil` :cite:`angelopoulos2023ppi`.  With unlimited
    judge-only items and a tuned weight, :math:`n = \lceil z^2 p(1-p)(1-\rho^2)/h^2\rceil`.

    Parameters
    ----------
    half_width : float
        The wanted half-width :math:`h` (in the score's units, e.g. 0.02).
    rate, sensitivity, specificity, judge_items, alpha, weight
        As in :func:`half_width_for_gold`.

    Returns
    -------
    GoldPlan

    Raises
    ------
    ValueError
        When ``judge_items`` is too small for the half-width at any :math:`n` (a fixed
        weight whose judge term alone exceeds it).

    Examples
    --------
    >>> plan = gold_for_half_width(0.02, 0.8, 0.9)
    >>> plan.gold_items, plan.classical_items, round(plan.correlation, 3)
    (719, 1537, 0.73)
    >>> gold_for_half_width(0.02, 0.8, 0.9, judge_items=5000).gold_items
    836
    """
    h = float(as_positive(half_width, "half_width", scalar=True))
    if h >= 1:
        raise ValueError(f"half_width must be below 1 (a score's units), got {h}")
    p, se, sp, a, w = _parameters(rate, sensitivity, specificity, alpha, weight)
    if p.ndim or se.ndim or sp.ndim:
        raise ValueError("rate, sensitivity and specificity must be single numbers")
    p, se, sp = float(p), float(se), float(sp)
    big_n = _judge_items(judge_items)
    if np.ndim(big_n):
        raise ValueError("judge_items must be a single number")
    big_n = float(big_n)
    q, vy, vf, cov = _moments(p, se, sp)
    z = float(-special.ndtri(a / 2))
    target = (h / z) ** 2
    classical = int(as_size(np.ceil(z**2 * vy / h**2 - 1e-9), "classical_items", minimum=2))

    def needed(m: float) -> int:
        def excess(log_n: float) -> float:
            return float(_variance(np.exp(log_n), m, vy, vf, cov, w)) - target

        hi = np.log(max(classical, 2) * 4.0 + 10)
        for _ in range(60):
            if excess(hi) <= 0:
                break
            hi += np.log(4.0)
        else:
            raise ValueError(
                f"no number of gold items reaches half_width {h} with judge_items {m:g} and "
                f"weight {w}: label more items with the judge or use weight='tuned'"
            )
        if excess(np.log(2.0)) <= 0:
            return 2
        root = optimize.brentq(excess, np.log(2.0), hi, xtol=1e-12)
        k = int(np.ceil(np.exp(root) - 1e-6))
        while k > 2 and excess(np.log(k - 1)) <= 0:
            k -= 1
        while excess(np.log(k)) > 0:
            k += 1
        return int(as_size(k, "gold_items", minimum=2))

    rho = cov / np.sqrt(vy * vf) if vf > 0 else 0.0
    return GoldPlan(
        needed(big_n),
        classical,
        half_width=h,
        correlation=float(rho),
        judge_rate=float(q),
        judge_items=big_n,
        limit_items=needed(np.inf),
        weight=w,
        alpha=a,
    )
