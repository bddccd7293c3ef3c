"""Confidence sequences for a mean in [0, 1]: valid at every sample size at once.

A *confidence sequence* at level :math:`1-\\alpha` is a sequence of intervals
:math:`[L_t, U_t]`, one after each outcome, such that

.. math:: P\\big(\\forall t \\ge 1:\\ L_t \\le \\mu \\le U_t\\big) \\ge 1 - \\alpha ,

so the interval may be looked at after every label, and labelling may stop
whenever the interval says so, without losing the guarantee
:cite:`darling1967,robbins1970,howard2021uniform`.  A fixed-size interval
(Clopper-Pearson) only promises :math:`P(L_n \\le \\mu \\le U_n) \\ge 1-\\alpha` for one
:math:`n` chosen in advance.

Methods (``method=``):

``"betting"``
    The hedged-capital betting sequence :cite:`waudbysmith2024betting`
    (:mod:`heldout.sequential.betting`).  Not the narrowest everywhere: measured
    as the mean width over simulated runs at ``alpha = 0.05``
    (``tests/sequential/test_sequential.py``), the mixture is narrower over the first
    few dozen labels (betting 1.3 to 2.1 times as wide at 10 to 30 labels) and, at
    accuracies 0.5 to 0.8, again beyond about 1,000 labels (by up to 12 % at 3,000);
    betting is narrower by a few per cent around 100 to 300 labels and, at accuracy
    0.95, from 300 labels on.  Unlike the mixture it also works for a finite pool and
    for outcomes in [0, 1] that are not 0/1.
``"empirical-bernstein"``
    The predictable-plug-in empirical Bernstein sequence
    :cite:`waudbysmith2024betting` (:mod:`heldout.sequential.closed_form`).
``"mixture"``
    The beta-binomial mixture sequence :cite:`robbins1970,howard2021uniform`
    (:mod:`heldout.sequential.mixture`), exact for 0/1 outcomes, conservative
    for other values in [0, 1].
``"hoeffding"``
    The predictable-plug-in Hoeffding sequence, a baseline that ignores the
    variance of the outcomes.

All assume the outcomes are labelled in random order: independent draws from
the population whose mean :math:`\\mu` is wanted (the items to label are chosen
at random, or the pool is labelled in a random order when ``pool`` is given),
with outcomes in [0, 1].  None assumes a distribution beyond that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heldout._checks import show
from heldout._result import Result, extra
from heldout.sequential import _inputs
from heldout.sequential.betting import _Betting
from heldout.sequential.closed_form import _ClosedForm
from heldout.sequential.mixture import DEFAULT_PRIOR, _Mixture

__all__ = ["ConfidenceMonitor", "ConfidenceSequence", "confidence_sequence", "paired_difference"]


@dataclass(frozen=True)
class ConfidenceSequence(Result):
    """Running bounds of a confidence sequence; unpacks as ``(lower, upper)``.

    ``lower[t-1]`` and ``upper[t-1]`` are the bounds after ``t`` outcomes
    (arrays shaped like the outcomes: one row per sequence for 2-D input).
    """

    lower: np.ndarray
    upper: np.ndarray
    method: str = extra()
    alpha: float = extra()
    alternative: str = extra("two-sided")
    pool: int | None = extra()

    @property
    def width(self) -> np.ndarray:
        """``upper - lower`` after each outcome."""
        return self.upper - self.lower


def side_levels(method: str, alpha: float, alternative: str) -> tuple[float, float]:
    """Error probability spent on the lower and on the upper end.

    Two-sided sequences built from two one-sided ones (betting, empirical
    Bernstein, Hoeffding) give each end :math:`\\alpha/2`; the mixture sequence is
    two-sided by construction and each of its ends alone holds at level
    :math:`\\alpha`.  A one-sided sequence gives its end :math:`\\alpha` (the other
    end is still computed at :math:`\\alpha`, only to guide the computation, and
    reported as 0 or 1).
    """
    if alternative == "two-sided" and method != "mixture":
        return alpha / 2.0, alpha / 2.0
    return alpha, alpha


def make_engine(method: str, runs: int, a_lo: float, a_hi: float, pool, prior):
    """The engine of ``method`` for ``runs`` sequences side by side."""
    if method == "betting":
        return _Betting(runs, a_lo, a_hi, pool)
    if method in ("empirical-bernstein", "hoeffding"):
        return _ClosedForm(runs, a_lo, a_hi, pool, bernstein=method == "empirical-bernstein")
    if pool is not None:
        raise ValueError(
            "pool is not available with method='mixture' (use 'betting', "
            "'empirical-bernstein' or 'hoeffding' for a finite pool)"
        )
    return _Mixture(runs, a_lo, a_hi, None, prior=prior)


def _prior(prior, method):
    if prior is None:
        return DEFAULT_PRIOR
    if method != "mixture":
        raise ValueError(
            f"prior is used by method='mixture' only, got prior={show(prior)} with method={show(method)}"
        )
    try:
        a, b = (float(v) for v in prior)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(
            f"prior must be a pair (a, b) of positive numbers, got {show(prior)}"
        ) from None
    if not (np.isfinite(a) and np.isfinite(b) and a > 0 and b > 0):
        raise ValueError(f"prior must be a pair (a, b) of positive numbers, got {show(prior)}")
    return a, b


class ConfidenceMonitor:
    """A confidence sequence fed outcomes as they arrive (a stream, or blocks of an array).

    Gives the same bounds as :func:`confidence_sequence` on the concatenated
    outcomes, however they are split into updates.

    Parameters
    ----------
    alpha, method, alternative, pool, prior
        As for :func:`confidence_sequence`.
    runs : int
        Number of independent sequences updated side by side (rows of each update).

    Examples
    --------
    >>> monitor = ConfidenceMonitor(alpha=0.05)
    >>> _ = monitor.update([1, 1, 0, 1])
    >>> cs = monitor.update([1] * 96)
    >>> monitor.n, round(monitor.lower, 3) == round(float(cs.lower[-1]), 3)
    (100, True)
    """

    def __init__(
        self,
        alpha: float = 0.05,
        method: str = "betting",
        *,
        alternative: str = "two-sided",
        pool: int | None = None,
        prior: tuple[float, float] | None = None,
        runs: int = 1,
    ):
        self.method = _inputs.method_(method)
        self.alternative = _inputs.alternative_(alternative)
        self.alpha = _inputs.alpha_(alpha)
        self.pool = _inputs.pool(pool)
        self.prior = _prior(prior, self.method)
        runs = _inputs.whole(runs, "runs")
        if runs > _inputs.MAX_RUNS:  # a few arrays of this length are kept per run
            raise ValueError(f"runs must be at most {_inputs.MAX_RUNS:,}, got {runs:,}")
        a_lo, a_hi = side_levels(self.method, self.alpha, self.alternative)
        self._engine = make_engine(self.method, runs, a_lo, a_hi, self.pool, self.prior)
        self._one = True

    @property
    def n(self) -> int:
        """Outcomes seen so far."""
        return self._engine.t

    def _report(self, lower, upper):
        if self.alternative == "greater":
            upper = np.ones_like(upper)
        elif self.alternative == "less":
            lower = np.zeros_like(lower)
        return lower, upper

    @property
    def lower(self):
        """Current lower bound (a float for one sequence)."""
        lo, _ = self._report(self._engine.lower, self._engine.upper)
        return float(lo[0]) if self._one else lo

    @property
    def upper(self):
        """Current upper bound (a float for one sequence)."""
        _, hi = self._report(self._engine.lower, self._engine.upper)
        return float(hi[0]) if self._one else hi

    def update(self, x) -> ConfidenceSequence:
        """Add outcomes (1-D for one sequence, 2-D with one row per run); return their bounds."""
        block, self._one = _inputs.block(x, self._engine.runs, self.n, self.pool)
        lower, upper = self._report(*self._engine.update(block))
        if self._one:
            lower, upper = lower[0], upper[0]
        return ConfidenceSequence(
            lower, upper, self.method, self.alpha, self.alternative, self.pool
        )


def confidence_sequence(
    x,
    alpha: float = 0.05,
    method: str = "betting",
    *,
    alternative: str = "two-sided",
    pool: int | None = None,
    prior: tuple[float, float] | None = None,
) -> ConfidenceSequence:
    """Running confidence bounds for the mean of outcomes in [0, 1], valid at every step at once.

    With probability at least ``1 - alpha`` the true mean lies between
    ``lower[t-1]`` and ``upper[t-1]`` for *every* ``t`` simultaneously, so the
    bounds may be checked after each label and labelling stopped at any time
    chosen by looking at them :cite:`waudbysmith2024betting,howard2021uniform`.
    The method's formula is in its module (see :mod:`heldout.sequential`); the
    running intersection is taken, so ``lower`` never falls and ``upper`` never
    rises.

    Parameters
    ----------
    x : array_like
        Outcomes in the order they were labelled, each in [0, 1] (1 = correct, or
        a bounded loss or score scaled to [0, 1]).  A 2-D array holds one
        sequence per row (simulations); the rows are independent.
    alpha : float
        Allowed probability that the sequence ever misses the mean, in (0, 1).
    method : str
        ``"betting"`` (default), ``"empirical-bernstein"``, ``"mixture"`` or ``"hoeffding"``.
    alternative : str
        ``"two-sided"``; ``"greater"`` for a lower confidence sequence alone
        (``upper`` is 1), ``"less"`` for an upper one (``lower`` is 0).
    pool : int, optional
        Size :math:`N` of a finite pool labelled without replacement in random
        order; the bounds then close on the pool's own mean and meet at
        ``t = N``.  Not available with ``method="mixture"``.
    prior : (float, float), optional
        Beta prior of the mixture (default Beta(1/2, 1/2)); ``method="mixture"`` only.

    Returns
    -------
    ConfidenceSequence
        ``lower``, ``upper`` (arrays shaped like ``x``), ``method``, ``alpha``,
        ``alternative``, ``pool``; unpacks as ``(lower, upper)``.

    Notes
    -----
    Speed: the closed forms are cumulative sums; the mixture solves for its
    roots by vectorised Newton steps; the betting sequence is vectorised over
    candidates, runs and time within blocks that end at powers of two (see
    :mod:`heldout.sequential.betting`), about a third of a second for a
    million outcomes.

    Examples
    --------
    >>> x = [1, 0, 1, 1, 1, 0, 1, 1, 1, 1] * 30        # 80 % correct, 300 labels
    >>> low, high = confidence_sequence(x, alpha=0.05)
    >>> len(low), round(float(low[-1]), 3), round(float(high[-1]), 3)
    (300, 0.724, 0.863)
    """
    arr = _inputs.outcomes(x)
    monitor = ConfidenceMonitor(
        alpha,
        method,
        alternative=alternative,
        pool=_inputs.pool(pool, arr.shape[-1]),
        prior=prior,
        runs=1 if arr.ndim == 1 else arr.shape[0],
    )
    return monitor.update(arr)


def paired_difference(
    a,
    b,
    alpha: float = 0.05,
    method: str = "betting",
    *,
    alternative: str = "two-sided",
    pool: int | None = None,
) -> ConfidenceSequence:
    """Confidence sequence for the difference in mean score of two models on the same items.

    Model A scores ``a[i]`` and model B ``b[i]`` on item ``i`` (1 = correct, or
    scores in [0, 1]).  The paired difference :math:`d_i = a_i - b_i` lies in
    [-1, 1], so :math:`y_i = (1 + d_i)/2` lies in [0, 1] with mean
    :math:`(1 + \\Delta)/2`, :math:`\\Delta = \\mu_A - \\mu_B`; a confidence sequence
    for the mean of :math:`y` maps to one for :math:`\\Delta` by
    :math:`\\Delta = 2\\mu_y - 1`.  Items both models get right or wrong give
    :math:`y = 1/2`, which the variance-adaptive methods (betting, empirical
    Bernstein) turn into a narrower sequence; ``method="mixture"`` is valid
    but not tuned for such values.

    Returns
    -------
    ConfidenceSequence
        Bounds on :math:`\\Delta` (in [-1, 1]) after each item; "B is better"
        may be claimed as soon as ``upper < 0``, "A is better" once ``lower > 0``.

    Examples
    --------
    >>> a = [1, 1, 0, 1] * 100
    >>> b = [1, 0, 0, 1] * 100
    >>> cs = paired_difference(a, b)
    >>> round(float(cs.lower[-1]), 3) > 0
    True
    """
    xa = _inputs.outcomes(a, "a")
    xb = _inputs.outcomes(b, "b")
    if xa.shape != xb.shape:
        raise ValueError(
            f"a and b must be paired outcomes of the same shape, got {xa.shape} and {xb.shape}"
        )
    cs = confidence_sequence(
        (1.0 + xa - xb) / 2.0, alpha, method, alternative=alternative, pool=pool
    )
    return ConfidenceSequence(
        2.0 * cs.lower - 1.0, 2.0 * cs.upper - 1.0, cs.method, cs.alpha, cs.alternative, cs.pool
    )
