"""Result objects of the metric intervals: an estimate and its interval, a paired difference.

Every interval of :mod:`heldout.metrics.auc`, :mod:`heldout.metrics.rates`, :mod:`heldout.metrics.fscore`,
:mod:`heldout.metrics.scores` and :mod:`heldout.metrics.bootstrap` is returned as an
:class:`Estimate`; every comparison of two models scored on the same items as a
:class:`Difference`.  Both are frozen :class:`heldout._result.Result` objects: they
unpack as ``value, low, high`` and convert to a plain ``dict`` with ``to_dict()``
(what ``heldout evaluate --json`` prints, under the same keys).

Examples
--------
>>> e = Estimate(0.8, 0.7, 0.9, method="clopper-pearson", n=100)
>>> value, low, high = e
>>> (value, low, high), e.method
((0.8, 0.7, 0.9), 'clopper-pearson')
>>> e.contains(0.75), round(e.width, 6)
(True, 0.2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from heldout._result import Result, extra

__all__ = ["Difference", "Estimate"]


@dataclass(frozen=True)
class Estimate(Result):
    """A metric's value with a two-sided interval ``[low, high]`` at confidence ``1 - alpha``.

    Attributes
    ----------
    value, low, high : float
        The estimate and the ends of its interval (unpacked in this order).
    method : str
        How the interval was computed (``"clopper-pearson"``, ``"delong-logit"``, ...).
    se : float
        Standard error used by the interval (NaN for exact and bootstrap intervals).
    n : int
        Number of items the interval is based on: the metric's own denominator for
        a rate (actual positives for recall, predicted positives for precision).
    alpha : float
        Error probability of the interval.
    """

    value: float
    low: float
    high: float
    method: str = extra("")
    se: float = extra(math.nan)
    n: int = extra(0)
    alpha: float = extra(0.05)

    @classmethod
    def from_arrays(cls, value, low, high, *, method, se, n, alpha) -> Estimate:
        """An Estimate whose fields are Python floats for 0-d input and arrays otherwise."""
        from heldout._checks import scalar_or_array

        n_out = scalar_or_array(np.asarray(n))
        return cls(
            scalar_or_array(value),
            scalar_or_array(low),
            scalar_or_array(high),
            method=method,
            se=scalar_or_array(se),
            n=int(n_out) if isinstance(n_out, float) else n_out,
            alpha=alpha,
        )

    @property
    def width(self) -> float:
        """``high - low``."""
        return float(self.high) - float(self.low)

    def contains(self, truth: float) -> bool:
        """Whether ``low <= truth <= high``."""
        return bool(self.low <= truth <= self.high)


@dataclass(frozen=True)
class Difference(Result):
    """Paired difference ``value = metric(A) - metric(B)`` on the same items, with a test.

    Attributes
    ----------
    value, low, high : float
        The difference A - B, then its interval's ends: a Difference unpacks as these three.
    p_value : float
        Two-sided p-value of the test of "no difference".
    method : str
        The interval and test (``"delong"``, ``"mcnemar-exact"``, ``"bootstrap-bca"``...).
    se : float
        Standard error of the difference (NaN for exact and bootstrap methods).
    statistic : float
        The test statistic (a z value, or NaN when the test has none).
    n : int
        Number of items.
    alpha : float
        Error probability of the interval.
    """

    value: float
    low: float
    high: float
    p_value: float = extra(math.nan)
    method: str = extra("")
    se: float = extra(math.nan)
    statistic: float = extra(math.nan)
    n: int = extra(0)
    alpha: float = extra(0.05)

    def contains(self, truth: float) -> bool:
        """Whether ``low <= truth <= high``."""
        return bool(self.low <= truth <= self.high)
