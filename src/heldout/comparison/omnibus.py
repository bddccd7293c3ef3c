"""One test for "are these models equally accurate?" before any pair is looked at.

* :func:`cochran_q` -- Cochran's Q test :cite:`cochran1950`: ``k`` models scored right or
  wrong on the same items; under "all ``k`` have the same accuracy" (more precisely: on
  every item the right answers are spread over the models at random) ``Q`` is about
  chi-square with ``k - 1`` degrees of freedom.  With two models it is McNemar's
  chi-square test without continuity correction.

An omnibus test answers one question for the whole family: a small p-value says that
*some* accuracies differ, not which.  The pairs are for
:func:`heldout.comparison.multiple.all_pairs`, the possible winners for
:func:`heldout.comparison.best.best_set`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special  # (not scipy.stats: the command line starts faster)

from heldout._result import Result
from heldout.comparison.predictions import as_correct, pattern_counts

__all__ = ["CochranQ", "cochran_q"]


@dataclass(frozen=True)
class CochranQ(Result):
    """Cochran's Q test of equal accuracy for models scored on the same items."""

    statistic: float  #: Cochran's Q
    df: int  #: degrees of freedom, ``k - 1``
    p_value: float  #: upper tail of chi-square(``df``) at ``statistic``
    informative: int  #: items on which the models do not all agree


def cochran_q(correct) -> CochranQ:
    """Cochran's Q test that ``k`` models have equal accuracy on the same items.

    With ``C_j`` the number of items model ``j`` got right, ``R_i`` the number of models
    that got item ``i`` right and ``N = sum_j C_j``,

    ``Q = (k - 1) (k sum_j C_j^2 - N^2) / (k N - sum_i R_i^2)``,

    referred to the chi-square distribution with ``k - 1`` degrees of freedom
    :cite:`cochran1950`.  Items that every model got right, or every model got wrong, add
    nothing to either sum; only the ``informative`` items count, and the chi-square
    approximation wants a few dozen of them.  With ``k = 2`` this is
    ``(b - c)^2 / (b + c)``, McNemar's test without continuity correction.  When no item
    separates the models the statistic is ``0/0``; it is reported as ``0`` with
    p-value 1 (no evidence of a difference).

    Parameters
    ----------
    correct
        Boolean (or 0/1) matrix ``(n_items, n_models)``, at least two models.

    Returns
    -------
    CochranQ
        ``statistic``, ``df``, ``p_value``, ``informative``.

    Examples
    --------
    >>> correct = [[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0], [1, 0, 0]]
    >>> res = cochran_q(correct)
    >>> round(res.statistic, 3), res.df, round(res.p_value, 3)
    (5.2, 2, 0.074)
    """
    c = as_correct(correct)
    k = c.shape[1]
    pat = pattern_counts(c)
    x = pat.patterns.astype(np.float64)
    w = pat.counts.astype(np.float64)
    col = w @ x  # C_j
    row = x.sum(axis=1)  # R_i per pattern
    total = float(col.sum())
    numerator = (k - 1) * (k * float(np.sum(col**2)) - total**2)
    denominator = k * total - float(np.sum(w * row**2))
    informative = int(np.sum(pat.counts[(row > 0) & (row < k)]))
    if denominator <= 0:
        return CochranQ(0.0, k - 1, 1.0, informative)
    q = max(numerator / denominator, 0.0)
    p_value = float(special.chdtrc(k - 1, q))  # chi-square's upper tail
    return CochranQ(q, k - 1, p_value, informative)
