r"""A 0/1 judge's rate corrected for its errors: the Rogan-Gladen estimate.

A judge that calls a right answer right with probability :math:`S_e` (sensitivity) and a
wrong answer wrong with probability :math:`S_p` (specificity) reports the apparent rate
:math:`\pi = \theta S_e + (1 - \theta)(1 - S_p)` instead of the true rate :math:`\theta`.
Solving for :math:`\theta` gives the estimate of Rogan and Gladen :cite:`rogan1978estimating`,

.. math:: \hat\theta = \frac{\hat\pi + \hat S_p - 1}{\hat S_e + \hat S_p - 1},

with :math:`\hat S_e, \hat S_p` measured on gold items (people's grades) and
:math:`\hat\pi` the judge's rate on the items it alone graded.  Its interval here is the
delta method's :cite:`greenland1988variance`, with the three estimates independent
(:math:`\hat\pi` from the judge-only items, :math:`\hat S_e` from the gold items people
called right, :math:`\hat S_p` from those they called wrong):

.. math:: \widehat{\mathrm{Var}}(\hat\theta) = \frac{1}{J^2}\Bigl(
          \frac{\hat\pi(1-\hat\pi)}{N} + \hat\theta^2\frac{\hat S_e(1-\hat S_e)}{n_1}
          + (1-\hat\theta)^2\frac{\hat S_p(1-\hat S_p)}{n_0}\Bigr),
          \qquad J = \hat S_e + \hat S_p - 1,

and :math:`\hat\theta \pm z\sqrt{\widehat{\mathrm{Var}}}`, estimate and interval clipped to
[0, 1].  The correction needs a judge better than a coin (:math:`J > 0`) and both kinds of
gold items; as :math:`J` falls toward 0 the estimate becomes a ratio of noisy terms and
the delta method undercovers.  With a sensitivity or specificity estimated at exactly 1,
its variance term is 0 and the interval too narrow: the book's simulation
(``heldout.book.judge_coverage``) measures where; :func:`rogan_gladen` warns there.

With random gold items, Rogan-Gladen and PPI (:mod:`heldout.judged.ppi`) estimate the
same rate; PPI needs no 0/1 grades and no :math:`J > 0`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from heldout._checks import as_count, as_floats, as_probability
from heldout._result import EstimateResult, extra
from heldout.judged.ppi import _gold_table

__all__ = ["MIN_YOUDEN", "RoganGladen", "rogan_gladen", "rogan_gladen_from_counts"]

#: Youden's index J below which the correction is refused (the judge is close to a coin).
MIN_YOUDEN = 0.05


@dataclass(frozen=True)
class RoganGladen(EstimateResult):
    """The Rogan-Gladen corrected rate.  Unpacks as ``(estimate, low, high)``.

    Attributes
    ----------
    estimate : float
        The corrected rate, clipped to [0, 1].
    low, high : float
        The delta-method interval, clipped to [0, 1].
    se : float
        The delta-method standard error.
    sensitivity, specificity : float
        The judge's :math:`\\hat S_e, \\hat S_p` on the gold items.
    apparent : float
        The judge's rate :math:`\\hat\\pi` on the judge-only items.
    youden : float
        :math:`J = \\hat S_e + \\hat S_p - 1`.
    gold_right, gold_wrong : int
        Gold items people called right (:math:`n_1`) and wrong (:math:`n_0`).
    judge_items : int
        :math:`N`.
    raw : float
        The estimate before clipping.
    alpha : float
    """

    sensitivity: float = extra()
    specificity: float = extra()
    apparent: float = extra()
    youden: float = extra()
    gold_right: int = extra()
    gold_wrong: int = extra()
    judge_items: int = extra()
    raw: float = extra()
    alpha: float = extra()


def _zero_one(value, name: str) -> tuple[np.ndarray, int]:
    """The grades as floats and the number of 1s (every nonzero grade must be a 1)."""
    arr = as_floats(value, name)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty one-dimensional array of 0/1 grades")
    # grades in [0, 1] whose sum is the number of 1s are all 0 or 1 (NaN fails the range)
    total, ones = float(arr.sum()), int(np.count_nonzero(arr == 1))
    if not (arr.min() >= 0 and arr.max() <= 1 and total == ones):
        raise ValueError(f"{name} must hold 0/1 grades (1 = the answer is right)")
    return arr, ones


def _rg_parts(pi, se_, sp, n_rest, n1, n0):
    """Estimate and delta-method standard error (vectorised)."""
    j = se_ + sp - 1
    raw = (pi + sp - 1) / j
    var = (
        pi * (1 - pi) / n_rest + raw**2 * se_ * (1 - se_) / n1 + (1 - raw) ** 2 * sp * (1 - sp) / n0
    ) / j**2
    return raw, np.sqrt(var)


def rogan_gladen(
    gold: ArrayLike,
    judge_gold: ArrayLike,
    judge_rest: ArrayLike,
    *,
    alpha: float = 0.05,
) -> RoganGladen:
    r"""A 0/1 judge's rate corrected by its sensitivity and specificity on gold items.

    .. math:: \hat\theta = \frac{\hat\pi + \hat S_p - 1}{\hat S_e + \hat S_p - 1}

    :cite:`rogan1978estimating`, with the delta-method interval of the module docstring
    :cite:`greenland1988variance`, which counts the uncertainty of :math:`\hat S_e` and
    :math:`\hat S_p` as well as of :math:`\hat\pi`.  Refuses a judge with
    :math:`J = \hat S_e + \hat S_p - 1 <` :data:`MIN_YOUDEN`; warns when :math:`\hat S_e` or
    :math:`\hat S_p` is 0 or 1 (the delta variance then omits that term's uncertainty).

    Parameters
    ----------
    gold : array_like, shape (n,)
        People's 0/1 grades of the gold items (1 = the model's answer is right).
    judge_gold : array_like, shape (n,)
        The judge's 0/1 grades of the same items.
    judge_rest : array_like, shape (N,)
        The judge's 0/1 grades of the other items.
    alpha : float
        The interval has confidence ``1 - alpha``.

    Returns
    -------
    RoganGladen

    Examples
    --------
    A lenient judge (it passes 40 % of wrong answers): 300 gold items, 3,000 judged.

    >>> import numpy as np
    >>> rng = np.random.default_rng(3)
    >>> y = (rng.random(3300) < 0.6).astype(int)
    >>> f = np.where(y == 1, rng.random(3300) < 0.95, rng.random(3300) < 0.4).astype(int)
    >>> r = rogan_gladen(y[:300], f[:300], f[300:])
    >>> [round(v, 3) for v in r], round(r.apparent, 3)
    ([0.591, 0.511, 0.67], 0.742)
    """
    y, n1 = _zero_one(gold, "gold")
    fl, agree_right = _zero_one(judge_gold, "judge_gold")
    fu, passed = _zero_one(judge_rest, "judge_rest")
    if fl.size != y.size:
        raise ValueError(
            f"judge_gold must grade the same items as gold: {fl.size} grades for {y.size} gold items"
        )
    n11 = int(np.count_nonzero((y == 1) & (fl == 1)))
    n00 = int(np.count_nonzero((y == 0) & (fl == 0)))
    return _from_counts(n11, n1 - n11, y.size - n1 - n00, n00, passed, fu.size, alpha, "gold")


def rogan_gladen_from_counts(
    table: ArrayLike, judge_passed: int, judge_items: int, *, alpha: float = 0.05
) -> RoganGladen:
    r""":func:`rogan_gladen` from counts: the gold items' 2 x 2 table and the judge's passes.

    Parameters
    ----------
    table, judge_passed, judge_items
        As in :func:`heldout.judged.ppi.ppi_from_counts` (the same check reads them).
    alpha : float

    Returns
    -------
    RoganGladen

    Examples
    --------
    >>> r = rogan_gladen_from_counts([[160, 5], [25, 10]], 1700, 2000)
    >>> [round(v, 3) for v in r], round(r.sensitivity, 3), round(r.specificity, 3)
    ([0.531, 0.245, 0.818], 0.97, 0.286)
    """
    n11, n10, n01, n00 = _gold_table(table, most=10**15)
    big_n = int(as_count(judge_items, "judge_items", minimum=2, scalar=True))
    passed = int(as_count(judge_passed, "judge_passed", maximum=big_n, scalar=True))
    return _from_counts(n11, n10, n01, n00, passed, big_n, alpha, "table")


def _from_counts(n11, n10, n01, n00, passed, big_n, alpha, gold_name) -> RoganGladen:
    if big_n < 2:
        raise ValueError(f"judge_rest must hold at least 2 grades, got {big_n}")
    a = float(as_probability(alpha, "alpha", scalar=True))
    n1, n0 = n11 + n10, n01 + n00
    if n1 == 0 or n0 == 0:
        kind = "right" if n1 == 0 else "wrong"
        raise ValueError(
            f"{gold_name} holds no answer people called {kind}, so the judge's "
            f"{'sensitivity' if n1 == 0 else 'specificity'} cannot be estimated; "
            "label more gold items or use ppi_mean"
        )
    se_ = n11 / n1
    sp = n00 / n0
    j = se_ + sp - 1
    if j < MIN_YOUDEN:
        raise ValueError(
            f"the judge is barely better than a coin on the gold items of {gold_name} (sensitivity "
            f"{se_:.3g} + specificity {sp:.3g} - 1 = {j:.3g} < {MIN_YOUDEN}): the correction "
            "divides by that difference; use ppi_mean"
        )
    if se_ in (0.0, 1.0) or sp in (0.0, 1.0):
        warnings.warn(
            f"the judge's sensitivity ({se_:.3g}) or specificity ({sp:.3g}) is 0 or 1 on the "
            "gold items: the delta-method interval omits that estimate's uncertainty and may "
            "cover less than promised; ppi_mean or the gold-only interval (classical_mean) holds",
            UserWarning,
            stacklevel=3,
        )
    pi = passed / big_n
    raw, se = _rg_parts(pi, se_, sp, big_n, n1, n0)
    z = float(-special.ndtri(a / 2))
    est = float(np.clip(raw, 0, 1))
    return RoganGladen(
        est,
        float(np.clip(raw - z * se, 0, 1)),
        float(np.clip(raw + z * se, 0, 1)),
        se=float(se),
        sensitivity=se_,
        specificity=sp,
        apparent=pi,
        youden=j,
        gold_right=n1,
        gold_wrong=n0,
        judge_items=int(big_n),
        raw=float(raw),
        alpha=a,
    )
