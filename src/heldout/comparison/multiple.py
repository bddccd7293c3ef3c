"""Many models on one test set: every pair, with the multiplicity accounted for.

* :func:`adjust` -- adjusted p-values: Holm's step-down (:cite:`holm1979`, controls the
  family-wise error rate under any dependence), Bonferroni, or Benjamini-Hochberg
  (:cite:`benjamini1995`, controls the false discovery rate for independent or positively
  dependent tests), Hommel's closed procedure (:cite:`hommel1988`, family-wise error
  rate, at least as many rejections as Holm, valid when Simes' inequality holds) or
  Benjamini-Yekutieli (:cite:`benjamini2001`, false discovery rate under any dependence).
* :func:`all_pairs` -- McNemar's exact test for every pair of models, adjusted p-values,
  and Tango's interval for every accuracy difference.

What Holm does **not** do: pick the leader after looking at the scores and then test it
against each rival.  The family of tests is then chosen by the data, and the error rate
is no longer controlled (:func:`heldout.comparison.best.false_claims` shows it: about 15 % instead
of 5 % with six equal, correlated models).  Testing *every* pair, as :func:`all_pairs`
does, keeps the family fixed; asking "which models could be the best?" is the job of
:func:`heldout.comparison.best.best_set`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heldout._checks import layout_floats
from heldout._result import Result
from heldout.comparison.paired import diff_interval, mcnemar_exact
from heldout.comparison.predictions import _choice, _probability, as_correct, pattern_counts

__all__ = [
    "Pairs",
    "adjust",
    "all_pairs",
    "benjamini_hochberg",
    "benjamini_yekutieli",
    "bonferroni",
    "holm",
    "hommel",
]

_METHODS = ("holm", "bonferroni", "bh", "hommel", "by", "none")


def _pvalues(pvalues) -> np.ndarray:
    p = layout_floats(pvalues, "pvalues", 1, "one p-value per hypothesis", allow_empty=False)
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("pvalues must lie between 0 and 1 (no NaN)")
    return p


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (controls the family-wise error rate).

    Sort the ``m`` p-values ascending, multiply the ``k``-th smallest by ``m - k + 1``,
    take the running maximum, clip at 1, and return them in the original order.  Reject
    hypothesis ``i`` at level ``alpha`` when the adjusted value is ``<= alpha``
    :cite:`holm1979`.  Valid under any dependence between the tests -- but only for a
    family fixed before looking at the data.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(2).tolist()
    [0.03, 0.06, 0.06]
    """
    p = _pvalues(pvalues)
    m = p.size
    # tied p-values get the same adjusted value whatever their order (the running maximum
    # carries the first one's to the next), so numpy's fastest sort serves
    order = np.argsort(p)
    adj = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def bonferroni(pvalues) -> np.ndarray:
    """Bonferroni-adjusted p-values ``min(1, m p_i)``.

    Examples
    --------
    >>> bonferroni([0.01, 0.04, 0.03]).round(2).tolist()
    [0.03, 0.12, 0.09]
    """
    p = _pvalues(pvalues)
    return np.minimum(1.0, p * p.size)


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (controls the false discovery rate).

    Sort ascending, multiply the ``k``-th smallest by ``m / k``, take the running minimum
    from the largest down, clip at 1 :cite:`benjamini1995`.  Rejecting the hypotheses with
    adjusted value ``<= q`` keeps the expected share of false rejections among all
    rejections at most ``q`` for independent or positively dependent p-values.

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.03]).round(2).tolist()
    [0.03, 0.04, 0.04]
    """
    p = _pvalues(pvalues)
    m = p.size
    order = np.argsort(p)  # ties: the running minimum gives them one value in any order
    scaled = p[order] * m / np.arange(1, m + 1)
    adj = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def benjamini_yekutieli(pvalues) -> np.ndarray:
    """Benjamini-Yekutieli adjusted p-values (false discovery rate under any dependence).

    The Benjamini-Hochberg values multiplied by ``c(m) = 1 + 1/2 + ... + 1/m`` and
    clipped at 1: sort ascending, take ``min(1, min_{j >= k} c(m) m p_(j) / j)`` for the
    ``k``-th smallest :cite:`benjamini2001`.  Rejecting those with adjusted value ``<= q``
    keeps the false discovery rate at most ``q`` whatever the dependence between the
    tests, at the price of the factor ``c(m)`` (about ``ln m + 0.58``).

    Examples
    --------
    >>> benjamini_yekutieli([0.01, 0.04, 0.03]).round(3).tolist()
    [0.055, 0.073, 0.073]
    """
    p = _pvalues(pvalues)
    harmonic = float(np.sum(1.0 / np.arange(1, p.size + 1)))
    return np.minimum(1.0, benjamini_hochberg(p) * harmonic)


def hommel(pvalues) -> np.ndarray:
    """Hommel's adjusted p-values (closed testing with Simes' test; family-wise error rate).

    Hypothesis ``i`` is rejected at level ``alpha`` when every intersection of
    hypotheses that contains it is rejected by Simes' test, which rejects an intersection
    of ``h`` hypotheses when some ``p_(j) <= j alpha / h`` :cite:`hommel1988`.  The
    adjusted p-value is the smallest such ``alpha``.  It is computed by Wright's
    recursion: for each size ``h = m, m-1, ..., 2`` the smallest Simes value
    ``q_h = min_j h p_(m-h+j) / j`` over the ``h`` largest p-values bounds the adjusted
    value of every hypothesis from above, and the adjusted values are the running
    maximum of these bounds.  Hommel rejects everything Holm rejects (often more); its
    guarantee needs Simes' inequality, which holds for independent and for positively
    dependent tests (for McNemar tests of pairs that share a model it is not proved).

    Examples
    --------
    >>> hommel([0.01, 0.04, 0.03]).round(2).tolist()
    [0.03, 0.04, 0.04]
    """
    p = _pvalues(pvalues)
    m = p.size
    order = np.argsort(p, kind="stable")
    s = p[order]
    ranks = np.arange(1, m + 1)
    # size m: the Simes value of the whole family bounds every hypothesis
    simes_all = float(np.min(m * s / ranks))
    adj = np.full(m, simes_all)
    for h in range(m - 1, 1, -1):
        low = m - h + 1  # the first m - h + 1 sorted hypotheses (indices 0 .. m - h)
        simes_top = float(np.min(h * s[low:] / np.arange(2, h + 1)))
        bound = np.empty(m)
        bound[:low] = np.minimum(h * s[:low], simes_top)
        bound[low:] = bound[low - 1]
        adj = np.maximum(adj, bound)
    adj = np.maximum(adj, s)
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def adjust(pvalues, method: str = "holm") -> np.ndarray:
    """Adjusted p-values by ``method``.

    ``"holm"`` (:func:`holm`), ``"bonferroni"`` (:func:`bonferroni`), ``"hommel"``
    (:func:`hommel`) control the family-wise error rate; ``"bh"``
    (:func:`benjamini_hochberg`) and ``"by"`` (:func:`benjamini_yekutieli`) the false
    discovery rate; ``"none"`` returns the p-values unchanged.  The formulas and sources
    are in each function's documentation (:cite:`holm1979`, :cite:`hommel1988`,
    :cite:`benjamini1995`, :cite:`benjamini2001`).

    Examples
    --------
    >>> adjust([0.01, 0.04, 0.03], method="bh").round(2).tolist()
    [0.03, 0.04, 0.04]
    """
    _choice(method, "method", _METHODS)
    if method == "holm":
        return holm(pvalues)
    if method == "bonferroni":
        return bonferroni(pvalues)
    if method == "bh":
        return benjamini_hochberg(pvalues)
    if method == "hommel":
        return hommel(pvalues)
    if method == "by":
        return benjamini_yekutieli(pvalues)
    return _pvalues(pvalues).copy()


@dataclass(frozen=True)
class Pairs(Result):
    """Every pair of models compared on the same items (one entry per pair ``a < b``)."""

    a: np.ndarray  #: index of the first model of each pair
    b: np.ndarray  #: index of the second model
    a_only: np.ndarray  #: items only ``a`` got right
    b_only: np.ndarray  #: items only ``b`` got right
    p_value: np.ndarray  #: McNemar's exact two-sided p-value
    p_adjusted: np.ndarray  #: adjusted for all pairs by ``method``
    diff: np.ndarray  #: accuracy of ``a`` minus accuracy of ``b``
    diff_low: np.ndarray  #: Tango's interval for the difference, lower end
    diff_high: np.ndarray  #: and upper end
    reject: np.ndarray  #: ``p_adjusted <= alpha``


def all_pairs(correct, alpha: float = 0.05, method: str = "holm") -> Pairs:
    """McNemar's exact test and Tango's interval for every pair of models on shared items.

    For each pair ``(a, b)``, ``a < b``: the discordant counts, McNemar's exact two-sided
    p-value (:func:`heldout.comparison.paired.mcnemar_exact`), the p-value adjusted over all
    ``k (k - 1) / 2`` pairs (``method``: ``"holm"`` by default, ``"bh"``,
    ``"bonferroni"``, ``"hommel"``, ``"by"`` or ``"none"``; see :func:`adjust`), and Tango's ``1 - alpha`` interval for the accuracy
    difference (:func:`heldout.comparison.paired.diff_interval`; each interval is for its own pair,
    not simultaneous).  The family of pairs is fixed in advance, so Holm's guarantee
    holds: the chance of declaring any equal pair different is at most ``alpha``.

    Parameters
    ----------
    correct
        Boolean matrix (n_items, n_models), at least two models.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random((500, 1))
    >>> correct = rng.random((500, 3)) * 0.3 + truth * 0.7 < [0.6, 0.7, 0.8]
    >>> res = all_pairs(correct)
    >>> res.a.tolist(), res.b.tolist(), res.reject.tolist()
    ([0, 0, 1], [1, 2, 2], [True, True, True])
    """
    alpha = _probability(alpha, "alpha")
    _choice(method, "method", _METHODS)
    c = as_correct(correct)
    n, k = c.shape
    a, b = np.triu_indices(k, 1)
    pat = pattern_counts(c)  # (at most 2^k rows; never A.T @ A on the raw matrix)
    x = pat.patterns.astype(np.float64)
    both = x.T @ (x * pat.counts[:, None].astype(np.float64))  # items both right, every pair
    right = np.diag(both)
    a_only = (right[a] - both[a, b]).astype(np.int64)
    b_only = (right[b] - both[a, b]).astype(np.int64)
    p = np.atleast_1d(mcnemar_exact(a_only, b_only))
    ci = diff_interval(a_only, b_only, n, alpha=alpha)
    adj = adjust(p, method)
    return Pairs(
        a=a,
        b=b,
        a_only=a_only,
        b_only=b_only,
        p_value=p,
        p_adjusted=adj,
        diff=np.atleast_1d(ci.diff),
        diff_low=np.atleast_1d(ci.low),
        diff_high=np.atleast_1d(ci.high),
        reject=adj <= alpha,
    )
