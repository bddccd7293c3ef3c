"""The area under the ROC curve: its value, DeLong's variance, intervals, paired tests, sizes.

The AUC is *not* a mean over test items, so the "mean plus or minus a standard
error of the mean" recipe of :cite:`validation_size` does not apply to it.  It is a
two-sample U-statistic: with :math:`X_1..X_{n_1}` the scores of the positives and
:math:`Y_1..Y_{n_0}` those of the negatives,

.. math:: \\hat A = \\frac{1}{n_1 n_0}\\sum_{i=1}^{n_1}\\sum_{j=1}^{n_0} \\psi(X_i, Y_j),
          \\qquad \\psi(x, y) = [x > y] + \\tfrac12 [x = y],

the Mann-Whitney form of the area under the empirical ROC curve (ties count one
half, exactly as scikit-learn's ``roc_auc_score``) :cite:`hanley1982`.

DeLong's variance :cite:`delong1988` uses the *placement values*
:math:`V_{10}(X_i) = \\frac{1}{n_0}\\sum_j \\psi(X_i, Y_j)` (the share of negatives a
positive outranks) and :math:`V_{01}(Y_j) = \\frac{1}{n_1}\\sum_i \\psi(X_i, Y_j)`:

.. math:: \\widehat{\\operatorname{Var}}(\\hat A) = \\frac{S_{10}}{n_1} + \\frac{S_{01}}{n_0},

with :math:`S_{10}`, :math:`S_{01}` the sample variances (denominators
:math:`n_1 - 1`, :math:`n_0 - 1`) of the placement values; for several models scored
on the same items the same formula with sample covariances gives their covariance
matrix.  The placement values come from one sort of the pooled scores
(:cite:`sun2014`'s fast algorithm computes them from midranks; here one stable sort
and cumulative counts within tie groups do the same), so the cost is
:math:`O(n \\log n)` instead of the :math:`O(n_1 n_0)` of the definition.  When the
scores are written with a few decimals (probabilities printed with six, say), DeLong's
estimates need no sort at all: the scores are whole numbers of steps on that grid, and
counting each class's items per step gives every placement value (:func:`delong`).

Intervals (:func:`auc_interval`).  What decides whether an interval built on
DeLong's variance holds is the *shortfall* :math:`\\min(n_1, n_0)\\min(\\hat A, 1-\\hat A)`
(:func:`shortfall`), the number of the smaller class's items' worth of misranked
pairs.  With a few of them the variance is estimated from a handful of misranked
items, it is small exactly when :math:`\\hat A` is too high, and DeLong's interval on
the logit scale (or the raw one) undercovers, down to a point at
:math:`\\hat A = 1`.  The default ``"auto"`` combines three remedies, each right in
its regime: Clopper-Pearson on DeLong's *effective size*
:math:`\\hat A(1-\\hat A)/\\hat V` (:func:`effective_size`), which keeps the skewness
of a proportion; below :data:`SHORTFALL_MIN` misranked items' worth, the hull of
that and Newcombe's score interval :cite:`newcombe2006mannwhitney`, whose variance is
a function of the AUC rather than an estimate; and with fewer than
:data:`CLASS_MIN` items in the smaller class, Clopper-Pearson on that class,
van Dantzig's largest possible variance :cite:`vandantzig1951consistency`.  The
thresholds were chosen on five score models (see :data:`SHORTFALL_MIN`); the book
checks the result on real digits and the tests on three settings not used to choose them.  For two models on the
same items, :func:`auc_difference` combines the two ``"auto"`` intervals by MOVER
:cite:`zou2008construction` with DeLong's correlation.

Sizes (how many positives and negatives to plan for) are in :mod:`heldout.metrics.auc_sizing`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from heldout import _dist, _inputs
from heldout._checks import as_positive, as_probability, in_choices, scalar_or_array, show
from heldout._deprecate import moved
from heldout._result import Result, extra
from heldout.metrics.estimate import Difference, Estimate

__all__ = [
    "AUC_DIFFERENCE_METHODS",
    "AUC_INTERVAL_METHODS",
    "DeLong",
    "Placements",
    "auc",
    "auc_difference",
    "auc_interval",
    "CLASS_MIN",
    "delong",
    "effective_size",
    "placement_values",
    "shortfall",
    "SHORTFALL_MIN",
]

#: Methods of :func:`auc_interval`.
AUC_INTERVAL_METHODS = (
    "auto",
    "effective",
    "newcombe",
    "hull",
    "wilson-effective",
    "max-variance",
    "logit",
    "wald",
)


# --------------------------------------------------------------------------- placements
def _class_placements(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Placement values of sorted positives ``x`` and sorted negatives ``y`` (ties one half).

    A positive's value is the share of negatives below it plus half the share tied
    with it; a negative's is the share of positives above it plus half the share
    tied.  Two binary searches per item in the other class's sorted scores.
    """
    n1, n0 = x.size, y.size
    below = np.searchsorted(y, x, side="left")
    tied = _ties(y, x, below)
    v10 = (below + 0.5 * tied) / n0
    below = np.searchsorted(x, y, side="left")
    tied = _ties(x, y, below)
    v01 = ((n1 - below - tied) + 0.5 * tied) / n1
    return v10, v01


def _ties(sorted_other: np.ndarray, values: np.ndarray, left: np.ndarray) -> np.ndarray:
    """How many entries of ``sorted_other`` equal each value (``left`` = its insertion point).

    A second binary search is needed only for values present in the other array.
    """
    tied = np.zeros(values.size, dtype=np.int64)
    if sorted_other.size == 0:
        return tied
    hit = sorted_other[np.minimum(left, sorted_other.size - 1)] == values
    if hit.any():
        where = np.flatnonzero(hit)
        tied[where] = np.searchsorted(sorted_other, values[where], side="right") - left[where]
    return tied


def _model_placements(
    pos: np.ndarray, s: np.ndarray, aligned: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Placement values of one model; in the items' order when ``aligned`` (else sorted)."""
    x, y = s[pos], s[~pos]
    if not aligned:  # a variance needs no order: sorting values is faster than argsort
        return _class_placements(np.sort(x), np.sort(y))
    ox, oy = np.argsort(x), np.argsort(y)
    v10_sorted, v01_sorted = _class_placements(x[ox], y[oy])
    v10 = np.empty_like(v10_sorted)
    v01 = np.empty_like(v01_sorted)
    v10[ox] = v10_sorted
    v01[oy] = v01_sorted
    return v10, v01


def _labels_and_scores(y, scores) -> tuple[np.ndarray, np.ndarray, bool]:
    pos = _inputs.binary_labels(y, "y")
    s = _inputs.scores(scores, "scores", pos.size, ndim=(1, 2))
    _inputs.both_classes(pos, "y")
    return pos, (s if s.ndim == 2 else s[None, :]), s.ndim == 2


def _placements(pos: np.ndarray, s2: np.ndarray, aligned: bool) -> tuple[np.ndarray, np.ndarray]:
    n1 = int(np.count_nonzero(pos))
    n0 = pos.size - n1
    v10 = np.empty((len(s2), n1))
    v01 = np.empty((len(s2), n0))
    for k in range(len(s2)):
        v10[k], v01[k] = _model_placements(pos, s2[k], aligned)
    return v10, v01


@dataclass(frozen=True)
class Placements(Result):
    """Placement values of the positives (``v10``) and of the negatives (``v01``)."""

    v10: np.ndarray
    v01: np.ndarray


def placement_values(y: ArrayLike, scores: ArrayLike) -> Placements:
    """DeLong's placement values of the positives and of the negatives.

    .. math:: V_{10}(X_i) = \\frac{1}{n_0}\\sum_{j} \\psi(X_i, Y_j), \\qquad
              V_{01}(Y_j) = \\frac{1}{n_1}\\sum_{i} \\psi(X_i, Y_j)

    :cite:`delong1988`, computed in :math:`O(n \\log n)` from one sort (the role of
    the midranks in :cite:`sun2014`).  The AUC is the mean of either array.

    Parameters
    ----------
    y : array_like of 0/1, shape (n,)
        Labels (1 = positive).
    scores : array_like, shape (n,) or (m, n)
        Scores of one model, or of ``m`` models on the same items (higher = more
        likely positive).

    Returns
    -------
    v10 : ndarray, shape (n_1,) or (m, n_1)
        Placement values of the positives, in the items' order.
    v01 : ndarray, shape (n_0,) or (m, n_0)
        Placement values of the negatives.

    Examples
    --------
    >>> v10, v01 = placement_values([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> v10.tolist(), v01.tolist()
    ([0.5, 1.0], [1.0, 0.5])
    """
    pos, s2, two_d = _labels_and_scores(y, scores)
    v10, v01 = _placements(pos, s2, aligned=True)
    return Placements(v10, v01) if two_d else Placements(v10[0], v01[0])


def auc(y: ArrayLike, scores: ArrayLike) -> float | np.ndarray:
    """Area under the ROC curve (Mann-Whitney form, ties count one half).

    .. math:: \\hat A = \\frac{1}{n_1 n_0}\\sum_i\\sum_j \\big([X_i > Y_j] + \\tfrac12[X_i = Y_j]\\big)

    :cite:`hanley1982`; equal to scikit-learn's ``roc_auc_score`` (the trapezoidal
    area under the empirical ROC curve), ties included.

    Parameters
    ----------
    y : array_like of 0/1, shape (n,)
        Labels; both classes must be present.
    scores : array_like, shape (n,) or (m, n)
        Scores of one or ``m`` models.

    Returns
    -------
    float or ndarray of shape (m,)

    Examples
    --------
    >>> auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    v10, _ = placement_values(y, scores)
    return scalar_or_array(v10.mean(axis=-1))


@dataclass(frozen=True)
class DeLong(Result):
    """AUCs of one or several models on the same items with DeLong's covariance.

    Attributes
    ----------
    auc : float or ndarray of shape (m,)
        The AUCs.
    cov : float or ndarray of shape (m, m)
        DeLong's variance (one model) or covariance matrix (several models).
    n_positive, n_negative : int
        Numbers of positives and negatives.
    """

    auc: float | np.ndarray
    cov: float | np.ndarray
    n_positive: int = extra(0)
    n_negative: int = extra(0)

    @property
    def se(self) -> float | np.ndarray:
        """Standard errors of the AUCs."""
        c = np.asarray(self.cov)
        return scalar_or_array(np.sqrt(np.diag(c)) if c.ndim == 2 else np.sqrt(c))


def _cov(v: np.ndarray) -> np.ndarray:
    """Sample covariance (denominator count - 1) of the rows of ``v``; 0 for one item."""
    if v.shape[1] < 2:
        return np.zeros((v.shape[0], v.shape[0]))
    centred = v - v.mean(axis=1, keepdims=True)
    return centred @ centred.T / (v.shape[1] - 1)


_CHUNK = 1 << 20  # items per block of the covariance pass
_MAX_DECIMALS = 9  # the grid of codes: multiples of 10**-d, d = 0..9


def _grid_candidates(
    s: np.ndarray, low_high: tuple[float, float] | None = None, *, unlimited: bool = False
):
    """The decimal grids ``(scale, low)`` worth checking on every item, smallest first.

    ``scale = 10**d`` for ``d = 0, ..., 9`` whose round trip ``rint(s * scale) / scale
    == s`` holds on the first 4,096 items, as long as at most ``max(n, 2**16)`` codes
    (``2**24`` at most) span the scores' range and ``|s| scale <= 2**40``; the first
    ``d`` breaking those limits ends the list (a finer grid would break them too).
    ``low_high``: the scores' minimum and maximum, when known; ``unlimited``: no limit on
    the number of codes (only ``|s| scale <= 2**40``), for keys that need no table.
    """
    lo, hi = (float(v) for v in low_high) if low_high is not None else (s.min(), s.max())
    lo, hi = float(lo), float(hi)
    limit = min(max(s.size, 1 << 16), 1 << 24)
    head = s[:4096]
    for d in range(_MAX_DECIMALS + 1):
        scale = 10.0**d
        too_many = (hi - lo) * scale + 1 > limit and not unlimited
        if too_many or max(abs(lo), abs(hi)) * scale > 2**40:
            return
        if np.array_equal(np.rint(head * scale) / scale, head):
            yield scale, float(np.rint(lo * scale)), float(np.rint(hi * scale))


def _on_grid(s: np.ndarray, scale: float) -> bool:
    """``rint(s * scale) / scale == s`` on every item (in blocks, stopping at a failure)."""
    return all(
        np.array_equal(np.rint(s[i : i + _CHUNK] * scale) / scale, s[i : i + _CHUNK])
        for i in range(0, s.size, _CHUNK)
    )


def _decimal_grid(s: np.ndarray) -> tuple[float, float] | None:
    """``(scale, low)`` when every score is ``code / scale`` exactly, with few codes.

    ``scale = 10**d`` for the smallest ``d`` whose round trip
    ``rint(s * scale) / scale == s`` holds on every item (scores written with ``d``
    decimals pass it), and at most ``max(n, 2**16)`` codes span the scores' range
    (:func:`_grid_candidates`).  The code ``rint(s * scale)`` is then a one-to-one,
    increasing function of the score: equal scores share a code and a higher score has
    a higher code, so counting codes orders and ties the items exactly as sorting the
    scores does.  (:func:`_grid_counts` finds the same grid while counting.)
    """
    for scale, low, _ in _grid_candidates(s):
        if _on_grid(s, scale):
            return scale, low
    return None


def _keys(s: np.ndarray, scale: float, low: float, positive: np.ndarray) -> np.ndarray:
    """Row ``2 c + y`` of each item's (code, class) in :func:`_code_tables`.

    ``c = rint(s scale) - low`` is the score's step on its decimal grid
    (:func:`_decimal_grid`) and ``y`` its class (``positive`` as 0.0/1.0).  On the grid
    ``s scale`` is at most ``2**40`` and lies within ``2**-12`` of a whole number, so
    ``2 s scale + y + 1/2 - 2 low`` lies within ``2**-9`` of ``2 c + y + 1/2`` and
    truncating it gives ``2 c + y``.
    """
    block = s * (2.0 * scale)
    block += positive
    key = np.empty(block.size, dtype=np.intp)
    np.add(block, 0.5 - 2.0 * low, out=key, casting="unsafe")  # (truncated, as astype)
    return key


_BLOCK = 1 << 16  # items per block of the counting and covariance passes (in cache)


def _grid_counts(s: np.ndarray, pos: np.ndarray, low_high=None):
    """The decimal grid of :func:`_decimal_grid` and the items per (code, class), or None.

    One pass per candidate grid (:func:`_grid_candidates`, usually one), in blocks:
    each block's codes ``t = rint(s scale)`` are checked (``t / scale == s`` on every
    item, else the next candidate) and their rows ``2 (t - low) + y`` (``y``: ``pos``
    as 0/1; whole numbers below ``2**42``, so exact) counted.  Returns
    ``((scale, low), counts)`` with ``counts[2 c + y]``; the keys of :func:`_keys`.
    """
    n = s.size
    for scale, low, high in _grid_candidates(s, low_high):
        rows = 2 * (int(high - low) + 1)
        counts = np.zeros(rows, dtype=np.int64)
        size = min(n, max(_CHUNK, rows, _BLOCK))  # keys counted at a time: few bincounts
        keys = np.empty(size, dtype=np.intp)
        code, back = np.empty(_BLOCK), np.empty(_BLOCK)
        filled = 0
        for i in range(0, n, _BLOCK):
            part = s[i : i + _BLOCK]
            m = part.size
            t, u = code[:m], back[:m]
            np.multiply(part, scale, out=t)
            np.rint(t, out=t)
            np.divide(t, scale, out=u)
            if not np.array_equal(u, part):
                break
            t -= low
            t += t
            np.add(t, pos[i : i + m], out=t)
            if filled + m > size:
                counts += np.bincount(keys[:filled], minlength=rows)
                filled = 0
            keys[filled : filled + m] = t  # (whole numbers: the cast is exact)
            filled += m
        else:
            counts += np.bincount(keys[:filled], minlength=rows)
            return (scale, low), counts
    return None


def _code_tables(counts: np.ndarray, n1: int, n0: int, dtype) -> tuple[np.ndarray, float]:
    """Twice the placement count of each (code, class), from the items' count of each.

    Row ``2 c + 1`` is a positive scoring code ``c``: the negatives below it plus half
    those tied, doubled (``2 N_below + N_tied``); row ``2 c`` a negative: the positives
    above it plus half those tied, doubled.  Divided by ``2 n0`` (``2 n1``) they are the
    placement values, the same arithmetic as :func:`_class_placements` and
    :func:`_twice_placements`; whole numbers in ``dtype``, so the table is half the size
    of one of floats.  Returns the table and the AUC.
    """
    neg, hits = counts[0::2], counts[1::2]
    neg_below = np.cumsum(neg) - neg
    pos_below = np.cumsum(hits) - hits
    table = np.empty(counts.size, dtype=dtype)
    table[1::2] = 2 * neg_below + neg
    table[0::2] = 2 * (n1 - pos_below) - hits
    # the AUC from whole counts: twice the sum of psi over all pairs, over 2 n1 n0
    if n1 * n0 < 2**61:  # whole numbers, exact; else floats
        twice = int(np.dot(hits, 2 * neg_below + neg))
    else:
        twice = float(np.einsum("i,i->", hits.astype(float), 2.0 * neg_below + neg))
    return table, twice / (2 * n1 * n0)


_STEP = 1 << 17  # items per block of the passes over the items
#: Items per chunk of the pass over the sorted keys (about: a run of equal leading bits
#: stays whole).
_SORT_CHUNK = 1 << 17
_SIGN = np.uint64(1 << 63)


def _key_bits(n: int) -> int:
    """Bits of the item index in a sort key of :func:`_sort_keys` (at least one)."""
    return max(1, (n - 1).bit_length())


def _sortable(u: np.ndarray, out: np.ndarray, signed: bool) -> None:
    """Unsigned integers in the order of the float64 values whose bits are ``u``.

    A value with its sign bit clear gets that bit set; one with it set (a negative number)
    gets every bit flipped, so more negative numbers get smaller integers.  ``signed=False``
    when no value is below zero: setting the sign bit is then the whole map, and it gives
    ``-0.0`` the integer of ``0.0``.  With ``signed=True`` the caller adds ``0.0`` to the
    values first (``-0.0 + 0.0`` is ``0.0``), so that equal values get equal integers.
    """
    if not signed:
        np.bitwise_or(u, _SIGN, out=out)
        return
    np.right_shift(u, np.uint64(63), out=out)
    np.negative(out, out=out)  # 0 or every bit set (unsigned wrap-around)
    out |= _SIGN
    out ^= u


def _sortable_of(value: float, signed: bool) -> int:
    """:func:`_sortable` of one value (``-0.0`` as ``0.0``), as a Python int."""
    u = np.array([value + 0.0]).view(np.uint64)
    out = np.empty(1, dtype=np.uint64)
    _sortable(u, out, signed)
    return int(out[0])


def _sort_keys(s, pos, bits: int, key: np.ndarray, low_high: tuple, signed: bool) -> None:
    """Fill ``key`` with one sortable 64-bit key per item, in blocks (no full-size temporary).

    From the high bits down: the score's rank among the float64 values from the lowest
    score up (its :func:`_sortable` integer minus the lowest score's), cut to its leading
    ``63 - bits`` bits (the low bits dropped only when the scores span more than
    ``2**(63 - bits)`` float64 values); the item's class (1 = positive); its index, in
    ``bits`` bits.  Sorting the keys sorts the items by score, except among items whose
    scores share the leading bits (:func:`_sorted_chunk` puts those in order).
    ``low_high``: the scores' minimum and maximum.
    """
    start = _sortable_of(low_high[0], signed)
    span = _sortable_of(low_high[1], signed) - start
    drop = np.uint64(max(0, span.bit_length() - (63 - bits)))
    up = np.uint64(bits + 1)
    u = s.view(np.uint64)
    step = _SORT_CHUNK
    low = np.empty(min(step, s.size), dtype=np.uint64)
    base = np.arange(low.size, dtype=np.uint64)
    plain = np.empty(low.size) if signed else None
    for i in range(0, s.size, step):
        k = key[i : i + step]
        m = k.size
        if signed:  # -0.0 made 0.0, so that the two get one key
            np.add(s[i : i + step], 0.0, out=plain[:m])
            _sortable(plain[:m].view(np.uint64), k, signed)
        else:
            _sortable(u[i : i + step], k, signed)
        k -= np.uint64(start)
        if drop:
            k >>= drop
        k <<= up
        lo = low[:m]
        np.copyto(lo, pos[i : i + step], casting="unsafe")  # the class bit
        lo <<= np.uint64(bits)
        lo |= base[:m]
        lo += np.uint64(i)  # (the index's bits were clear: adding is or-ing)
        k |= lo


def _cut_points(key: np.ndarray, shift: int) -> list:
    """Starts of the chunks of the sorted keys, about :data:`_SORT_CHUNK` apart, each at a
    change of the leading bits (``key >> shift``), so that no run of equal ones is cut."""
    n = key.size
    cuts, c, s = [0], _SORT_CHUNK, np.uint64(shift)
    while c < n:
        width = 64
        while True:  # the first change of the leading bits at or after c
            ahead = key[c : c + width] >> s
            moved = np.flatnonzero(ahead != (key[c - 1] >> s))
            if moved.size:
                c += int(moved[0])
                break
            if c + width >= n:
                c = n
                break
            width *= 8
        if c < n:
            cuts.append(c)
        c += _SORT_CHUNK
    cuts.append(n)
    return cuts


def _sorted_chunk(kk: np.ndarray, s: np.ndarray, bits: int):
    """A chunk of sorted keys put in the order of the full scores: indices, classes, tie starts.

    Keys whose leading bits are equal (a run) were sorted by class and index; where
    the full scores ``s`` of a run are out of order, the runs' items are put in order of
    score (an ``argsort`` of those items only).  Returns the items' indices, their
    classes (bool), and the first item of each tie group (bool; None when no two scores
    are equal).
    """
    m = kk.size
    idx = kk & np.uint64((1 << bits) - 1)
    flag = (kk >> np.uint64(bits)) & np.uint64(1)
    lead = kk >> np.uint64(bits + 1)
    same = lead[1:] == lead[:-1]
    if not same.any():
        return idx.view(np.int64), flag.astype(bool), None
    member = np.zeros(m, dtype=bool)
    member[:-1] = same
    member[1:] |= same
    sub = np.flatnonzero(member)  # the items of runs of two or more
    vals = np.take(s, idx[sub].view(np.int64))
    cont = (np.diff(sub) == 1) & same[sub[:-1]]  # item j of sub in the run of item j - 1
    if np.any(vals[1:] < vals[:-1]):
        # scores of different runs are already in order (every score of a run with lower
        # leading bits is lower), so sorting the runs' items by score sorts each run
        order = np.argsort(vals, kind="stable")
        idx[sub] = idx[sub][order]
        flag[sub] = flag[sub][order]
        vals = vals[order]
    tied = cont & (vals[1:] == vals[:-1])
    first = None
    if tied.any():
        first = np.ones(m, dtype=bool)
        first[sub[1:][tied]] = False
    return idx.view(np.int64), flag.astype(bool), first


def _twice_placements(
    first, flag: np.ndarray, neg_before: int, pos_before: int, n1: int, dtype
) -> np.ndarray:
    """Twice each item's placement count, for items sorted by score (``flag``: positive).

    ``first`` marks the first item of each group of tied scores (None: no ties).  With
    ``N(p)``, ``P(p)`` the negatives and positives sorted before position ``p`` (those of
    earlier chunks included) and ``[a, b)`` the positions of an item's tie group, a
    positive outranks ``N(a)`` negatives and ties ``N(b) - N(a)``, so twice its count of
    DeLong's :math:`\\psi` is ``N(a) + N(b)``; a negative is outranked by ``n1 - P(b)``
    positives and tied with ``P(b) - P(a)``: ``2 n1 - P(a) - P(b)``.  The same arithmetic
    as :func:`_class_placements`, in whole numbers (``dtype`` holds every count).  Without
    ties ``b = a + 1``, and the count is ``2 N(p)`` or ``2 (n1 - P(p))``.
    """
    m = flag.size
    neg = np.empty(m + 1, dtype=dtype)
    neg[0] = 0
    np.cumsum(~flag, out=neg[1:])  # this chunk's negatives before p; P(p) - P(0) = p - that
    if first is not None:  # ties: their groups' ends
        posc = np.arange(pos_before, pos_before + m + 1, dtype=dtype)
        posc -= neg
        neg += neg_before
        starts = np.flatnonzero(first)
        group = np.cumsum(first) - 1
        ends = np.append(starts[1:], m)
        a, b = starts[group], ends[group]
        return np.where(flag, neg[a] + neg[b], 2 * n1 - posc[a] - posc[b])
    # N(p) = neg_before + neg[p]; n1 - P(p) = (n1 - pos_before - p) + neg[p]
    out = np.where(
        flag, neg_before, np.arange(n1 - pos_before, n1 - pos_before - m, -1, dtype=dtype)
    )
    out += neg[:-1]
    out += out
    return out


def _model_twice(s: np.ndarray, pos: np.ndarray, n1: int, key: np.ndarray, low_high: tuple, dtype):
    """Twice each item's placement count (:func:`_twice_placements`), in the items' order.

    Two sorts of 64-bit keys (numpy's vectorised sort), no ``argsort`` of the column:
    the items' keys of :func:`_sort_keys` (``low_high``: the scores' minimum and
    maximum) sorted once put them in score order; one pass over the sorted keys, chunk
    by chunk (:func:`_cut_points`, :func:`_sorted_chunk`), counts the
    classes before each item and writes over each key the item's index (high bits) and
    its doubled count (low bits); sorting those puts the counts back in the items' order.
    The result is ``key`` itself, masked to the counts and viewed as int64 (``key``: a
    buffer of ``s.size`` uint64, overwritten); ``dtype`` holds every count (the chunks'
    arithmetic).  Scores go through float comparisons only where their leading bits are
    equal, so equal scores are grouped exactly as the definition groups them (``-0.0``
    with ``0.0``).
    """
    n = s.size
    if low_high[0] == low_high[1]:  # one score: all tied, a doubled count is the other class
        twice = key.view(np.int64)
        np.copyto(twice, np.where(pos, n - n1, n1))
        return twice
    bits = _key_bits(n)
    count_bits = (2 * n).bit_length()  # every doubled count is at most 2 n
    _sort_keys(s, pos, bits, key, low_high, signed=low_high[0] < 0)
    key.sort()
    cuts = _cut_points(key, bits + 1)
    scatter = bits + count_bits > 64  # (over 2**31 items) the counts put back one by one
    out = np.empty(n, dtype=np.int64) if scatter else None
    neg_before = pos_before = 0
    for c0, c1 in zip(cuts[:-1], cuts[1:], strict=True):
        kk = key[c0:c1]
        idx, flag, first = _sorted_chunk(kk, s, bits)
        twice = _twice_placements(first, flag, neg_before, pos_before, n1, dtype)
        hits = int(np.count_nonzero(flag))
        pos_before += hits
        neg_before += flag.size - hits
        if scatter:
            out[idx] = twice
        else:
            np.left_shift(idx.view(np.uint64), np.uint64(count_bits), out=kk)
            kk |= twice.astype(np.uint64)
    if scatter:
        key.view(np.int64)[:] = out
        return key.view(np.int64)
    key.sort()
    key &= np.uint64((1 << count_bits) - 1)
    return key.view(np.int64)


def _add_block_products(sums, centred, weight, other, first: int) -> None:
    """Add one block's sums of centred products to ``sums[cls, r, q]`` for ``q >= r + first``.

    ``weight`` is 1.0 for the block's positives, ``other`` 1.0 for its negatives; row 1 of
    ``sums`` collects the positives, row 0 the negatives.  ``first = 1`` skips the diagonal
    (when the variances come from elsewhere).
    """
    k = len(centred)
    for r in range(k):
        for q in range(r + first, k):
            prod = centred[r] * centred[q]
            # einsum's own loop: BLAS threads cost more than they save on a block
            sums[1, r, q] += float(np.einsum("i,i->", prod, weight))
            sums[0, r, q] += float(np.einsum("i,i->", prod, other))


def _cov_from_sums(sums: np.ndarray, n1: int, n0: int) -> np.ndarray:
    """DeLong's covariance ``S10 / n1 + S01 / n0`` from upper-triangular sums of products.

    ``sums[1]`` holds the positives' sums of centred products, ``sums[0]`` the
    negatives'; the lower triangles are filled from the upper ones (in place), and each
    class's sample covariance takes the denominator ``n - 1``.
    """
    k = sums.shape[1]
    for cls in (0, 1):
        sums[cls] += np.triu(sums[cls], 1).T
    cov = np.zeros((k, k))
    if n1 > 1:
        cov += sums[1] / (n1 - 1) / n1
    if n0 > 1:
        cov += sums[0] / (n0 - 1) / n0
    return cov


def _delong_sorted(
    pos: np.ndarray, s2, n1: int, n0: int, ranges=None
) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's AUCs and covariance of scores off any decimal grid.

    Each model's placement values, kept as whole numbers (twice the count of
    :math:`\\psi`, :func:`_model_twice`), come from two sorts of 64-bit keys; the AUC is
    their exact sum over the positives, and the covariance sums come from one pass over
    the items in blocks, each block's placement values divided out and centred, as in the
    counting path.  Memory: one 8-byte key per item, reused model after model, and 4
    bytes an item for every model but the last (whose counts stay in the keys).
    ``ranges``: each row's minimum and maximum (or None), when known.
    """
    k = len(s2)
    dtype = np.int32 if 2 * (n1 + n0) < 2**31 else np.int64  # every count and sum
    key = np.empty(pos.size, dtype=np.uint64)
    twice = []
    for r in range(k):
        s = s2[r]
        known = ranges is not None and ranges[r] is not None
        low, high = (float(v) for v in (ranges[r] if known else (s.min(), s.max())))
        got = _model_twice(s, pos, n1, key, (low, high), dtype)
        twice.append(got if r == k - 1 else got.astype(dtype))
    step = min(_CHUNK, _STEP)
    aucs = np.empty(k)
    for r in range(k):
        total = 0  # whole numbers: exact
        for i in range(0, pos.size, step):
            total += int(np.sum(twice[r][i : i + step], where=pos[i : i + step], dtype=np.int64))
        aucs[r] = total / (2 * n1 * n0)
    sums = np.zeros((2, k, k))  # [negatives, positives] sums of centred products
    _add_centred_products(sums, pos, aucs, n1, n0, step, lambda r, i, w: twice[r][i : i + step])
    return aucs, _cov_from_sums(sums, n1, n0)


def _add_centred_products(sums, pos, aucs, n1: int, n0: int, step: int, doubled, first=0):
    """One pass over the items in blocks of ``step``: the centred placement products.

    ``doubled(r, i, w)`` gives model ``r``'s doubled placement counts for the block of
    items starting at ``i`` (``w``: the block's classes as 0.0/1.0); divided by
    ``2 n0`` (positives) or ``2 n1`` (negatives) they are the placement values, which
    are centred at the AUCs and their products summed by :func:`_add_block_products`
    (``first = 1``: the diagonal left out).  Shared by the sorted and the counting path.
    """
    for i in range(0, pos.size, step):
        flag = pos[i : i + step]
        weight = flag.astype(np.float64)
        other = 1.0 - weight
        scale = np.where(flag, 2.0 * n0, 2.0 * n1)
        centred = []
        for r in range(len(aucs)):
            v = doubled(r, i, weight) / scale
            v -= aucs[r]
            centred.append(v)
        _add_block_products(sums, centred, weight, other, first)


def _delong_codes(
    pos: np.ndarray, s2: np.ndarray, ranges=None
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """DeLong's AUCs and covariance of the rows of ``s2``, by counting when possible.

    When every model's scores sit on a decimal grid (:func:`_decimal_grid`; scores
    written with up to nine decimals, such as probabilities printed with six), each
    model's scores become integer codes, checked and counted per class in one pass
    (:func:`_grid_counts`), and the counts give every placement value, as a doubled
    whole count, in a table (:func:`_code_tables`).  The variances come from the
    tables; the covariances of two models from one pass over the items in blocks, each
    item's codes recomputed (:func:`_keys`) and its placement values looked up in the
    two tables, divided out and centred.  Memory: the counts while a table is built (16
    bytes per code), the tables (8 bytes per code with 4-byte counts) and one block; no
    sort.  Otherwise the placement values come from two sorts of 64-bit keys per model
    (:func:`_delong_sorted`): 8 bytes an item, and 4 more for every model but the last.
    ``ranges``: each row's minimum and maximum (or None), when known.
    """
    n1 = int(np.count_nonzero(pos))
    n0 = pos.size - n1
    k = len(s2)  # an (m, n) array or a list of m columns
    dtype = np.int32 if 2 * (n1 + n0) < 2**31 else np.int64  # every doubled count
    grids, tables, aucs = [], [], np.empty(k)
    sums = np.zeros((2, k, k))  # [negatives, positives] sums of centred products
    for r in range(k):
        got = _grid_counts(s2[r], pos, None if ranges is None else ranges[r])
        if got is None:  # scores off any decimal grid: placements from sorts
            return (*_delong_sorted(pos, s2, n1, n0, ranges), n1, n0)
        grid, counts = got
        table, aucs[r] = _code_tables(counts, n1, n0, dtype)
        for cls, other in ((0, n1), (1, n0)):  # the variances from the counts
            centred = table[cls::2] / (2.0 * other)
            centred -= aucs[r]
            centred *= centred
            sums[cls, r, r] = np.einsum("i,i->", counts[cls::2].astype(np.float64), centred)
        grids.append(grid)
        tables.append(table)
    if k > 1:

        def doubled(r, i, w):
            key = _keys(s2[r][i : i + _BLOCK], *grids[r], w)
            # every key is a row of the table (the grid was checked on every item), so
            # take's cheapest mode: "wrap" only tests the bounds, never needs to wrap
            return np.take(tables[r], key, mode="wrap")

        _add_centred_products(sums, pos, aucs, n1, n0, _BLOCK, doubled, first=1)
    return aucs, _cov_from_sums(sums, n1, n0), n1, n0


def delong(y: ArrayLike, scores: ArrayLike) -> DeLong:
    """DeLong's estimate of the AUCs and of their covariance matrix.

    .. math:: \\widehat{\\operatorname{Cov}}(\\hat A^{(r)}, \\hat A^{(s)})
              = \\frac{S_{10}^{(rs)}}{n_1} + \\frac{S_{01}^{(rs)}}{n_0}

    where :math:`S_{10}^{(rs)}` is the sample covariance of the positives' placement
    values under models :math:`r` and :math:`s` (denominator :math:`n_1 - 1`) and
    :math:`S_{01}^{(rs)}` that of the negatives' :cite:`delong1988`; the placement
    values come from sorting each model's scores :cite:`sun2014`, so 10^7 items take seconds,
    or, for scores on a decimal grid (up to nine decimals), from counts of the items
    per grid step and class, without a sort (several times faster on 10^7 items).

    Parameters
    ----------
    y : array_like of 0/1, shape (n,)
        Labels; both classes must be present.
    scores : array_like, shape (n,) or (m, n)
        Scores of one or ``m`` models on the same items.

    Returns
    -------
    DeLong
        ``auc`` and ``cov`` (a float for one model, arrays for several).

    Examples
    --------
    >>> d = delong([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    >>> round(d.auc, 4), round(d.cov, 5)
    (0.8889, 0.02469)
    """
    pos, s2, two_d = _labels_and_scores(y, scores)
    a, cov, n1, n0 = _delong_codes(pos, s2)
    if not two_d:
        return DeLong(float(a[0]), float(cov[0, 0]), n1, n0)
    return DeLong(a, cov, n1, n0)


# --------------------------------------------------------------------------- intervals
#: Below this many positives' (or negatives') worth of misranking, ``method="auto"``
#: adds Newcombe's interval to the effective-size one (see :func:`auc_interval`).
#: Chosen, with :data:`CLASS_MIN`, on the coverage grid of the book's chapter on metrics
#: (``notebooks/beyond_accuracy``): the five score models of
#: :data:`heldout.book.metric_coverage.SCORE_MODELS` (binormal, binormal-wide, exponential,
#: hard-positives, lost-positives), 100 to 3,200 items, prevalence 0.05 and 0.3, AUC 0.8 to
#: 0.998.  Checked on settings not used to choose them -- hard negatives, scores tied on a
#: coarse grid, AUC 0.995 and 0.999 -- by ``test_auto_on_settings_it_was_not_tuned_on`` in
#: ``tests/metrics/test_auc.py`` (1,000 test sets each, a test's tolerance) and by the
#: lesson ``notebooks/auc`` (2,000 each, the book's coverage rule, through
#: ``heldout.book.metric_coverage.untuned_auc_coverage``), which prints the coverages.
SHORTFALL_MIN = 10.0
#: With fewer items than this in the smaller class, ``method="auto"`` is ``"max-variance"``
#: (tuned and checked with :data:`SHORTFALL_MIN`).
CLASS_MIN = 10
#: Items' worth of misranking given to van Dantzig's maximum variance when ``"hull"`` (and
#: so ``"auto"`` below :data:`SHORTFALL_MIN`) averages it with DeLong's, and the largest
#: share it may take (see :func:`auc_interval`): chosen on the book's coverage grid, on hard
#: and lost positives at expected shortfalls 0.25 to 9 and on the untuned settings of
#: ``heldout.book.metric_coverage`` (issue 37's follow-up; ``tests/metrics/test_auc.py``).
_MAX_VARIANCE_WEIGHT = 0.1
_MAX_VARIANCE_SHARE = 0.25
_BISECTIONS = 64  # bisection steps of the score intervals (2**-64 of [0, 1])


def shortfall(value: ArrayLike, n_positive: ArrayLike, n_negative: ArrayLike) -> np.ndarray:
    """The smaller class's count of misranking, :math:`\\min(n_1, n_0)\\,\\min(\\hat A, 1-\\hat A)`.

    The number of positives' (or negatives') worth of misranked pairs in the
    test set: a positive that falls below every negative counts 1, one that
    falls below a tenth of them 0.1.  It plays the role of the number of events
    for a proportion: when it is small the AUC's variance is estimated from a
    handful of misranked items, and intervals built on that estimate undercover.

    Examples
    --------
    >>> round(float(shortfall(0.99, 400, 3800)), 6)
    4.0
    """
    a = as_probability(value, "value", closed=True)
    n1 = _inputs.count(n_positive, "n_positive", minimum=1)
    n0 = _inputs.count(n_negative, "n_negative", minimum=1)
    return np.minimum(n1, n0) * np.minimum(a, 1.0 - a)


def effective_size(
    value: ArrayLike, variance: ArrayLike, n_positive: ArrayLike, n_negative: ArrayLike
) -> np.ndarray:
    """DeLong's effective number of comparisons, :math:`\\hat A(1-\\hat A)/\\widehat{\\operatorname{Var}}`.

    The number of independent 0/1 outcomes whose proportion would have the AUC's
    estimated variance.  It is kept within the bounds every AUC's variance obeys,

    .. math:: \\frac{A(1-A)}{n_1 n_0} \\le \\operatorname{Var}(\\hat A) \\le
              \\frac{A(1-A)}{\\min(n_1, n_0)},

    the lower one because the Hanley-McNeil terms :math:`Q_1 - A^2` and
    :math:`Q_2 - A^2` are variances (:cite:`hanley1982`), the upper one van
    Dantzig's maximum variance of the Mann-Whitney statistic
    :cite:`vandantzig1951consistency,birnbaum1957bounds`; where the estimate is 0 (every pair ranked the
    same way, :math:`\\hat A \\in \\{0, 1\\}`) the worst case
    :math:`\\min(n_1, n_0)` is used.

    Examples
    --------
    >>> round(float(effective_size(0.9, 0.0009, 50, 200)), 6)  # 0.09 / 0.0009
    100.0
    >>> float(effective_size(1.0, 0.0, 50, 200))
    50.0
    """
    a = as_probability(value, "value", closed=True)
    v = as_positive(variance, "variance", allow_zero=True)
    n1 = _inputs.count(n_positive, "n_positive", minimum=1).astype(float)
    n0 = _inputs.count(n_negative, "n_negative", minimum=1).astype(float)
    low, high = np.minimum(n1, n0), n1 * n0
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = a * (1.0 - a) / v
    raw = np.where((v > 0) & (a > 0) & (a < 1), raw, low)
    return np.clip(raw, low, high)


def _beta_interval(p, size, alpha):
    """Clopper-Pearson interval for a proportion ``p`` of ``size`` trials (real-valued counts)."""
    return _dist.beta_interval(p * size, size, alpha)


def _corrected_size(a, var, n1, n0):
    """The effective size with DeLong's variance averaged with the maximum one.

    :math:`1/n' = (1-w)/n^\\ast + w/\\min(n_1, n_0)`, :math:`w = \\min(s, c/(k + c))` with
    ``k`` the :func:`shortfall`, ``c`` ``_MAX_VARIANCE_WEIGHT`` and ``s``
    ``_MAX_VARIANCE_SHARE``: the maximum variance counts as ``c`` items' worth of
    misranking beside the ``k`` observed, and for at most a share ``s``.  It never exceeds
    :math:`n^\\ast` (nor :math:`\\min(n_1, n_0)/s`); at :math:`\\hat A = 1` it is
    :math:`\\min(n_1, n_0)`, as :func:`effective_size` is.
    """
    k = shortfall(a, n1, n0)
    w = np.minimum(_MAX_VARIANCE_SHARE, _MAX_VARIANCE_WEIGHT / (k + _MAX_VARIANCE_WEIGHT))
    inverse = (1.0 - w) / effective_size(a, var, n1, n0) + w / np.minimum(n1, n0)
    return 1.0 / inverse


def _newcombe_sd(t, n1, n0):
    """Newcombe's standard deviation of the AUC as a function of the AUC (his method 5)."""
    half = (n1 + n0) / 2.0 - 1.0
    v = t * (1 - t) / (n1 * n0) * (1.0 + half * ((1 - t) / (2 - t) + t / (1 + t)))
    return np.sqrt(np.maximum(v, 0.0))


def _newcombe(a, n1, n0, z):
    """The score interval {t : |a - t| <= z sd(t)} by bisection on each side of ``a``."""
    lo_out, hi_in = np.zeros_like(a), a.copy()  # lower end: lo_out outside, hi_in inside
    lo_in, hi_out = a.copy(), np.ones_like(a)  # upper end
    for _ in range(_BISECTIONS):
        mid = (lo_out + hi_in) / 2
        inside = a - mid <= z * _newcombe_sd(mid, n1, n0)
        hi_in = np.where(inside, mid, hi_in)
        lo_out = np.where(inside, lo_out, mid)
        mid = (lo_in + hi_out) / 2
        inside = mid - a <= z * _newcombe_sd(mid, n1, n0)
        lo_in = np.where(inside, mid, lo_in)
        hi_out = np.where(inside, hi_out, mid)
    return np.where(a <= 0, 0.0, hi_in), np.where(a >= 1, 1.0, lo_in)


def _interval_arrays(a, var, n1, n0, alpha: float, method: str):
    """Ends of the AUC interval ``method`` (vectorised); ``var`` is DeLong's variance.

    Returns ``(low, high, branch)``; for ``"auto"``, ``branch`` is 0 where it used
    ``"effective"``, 1 for ``"hull"`` and 2 for ``"max-variance"`` (0 otherwise).
    """
    a, var, n1, n0 = (np.asarray(x, dtype=float) for x in np.broadcast_arrays(a, var, n1, n0))
    z = np.asarray(_dist.norm_isf(np.asarray(alpha) / 2), dtype=float)
    se = np.sqrt(np.maximum(var, 0.0))
    branch = np.zeros(a.shape, dtype=np.int8)
    if method == "wald":  # clipped to [0, 1], as pROC's ci.auc does
        return np.clip(a - z * se, 0.0, 1.0), np.clip(a + z * se, 0.0, 1.0), branch
    if method == "logit":
        inner = (a > 0) & (a < 1) & (se > 0)
        v = np.where(inner, a, 0.5)
        half = z * se / (v * (1 - v))
        centre = special.logit(v)
        low = np.where(inner, special.expit(centre - half), a)
        return low, np.where(inner, special.expit(centre + half), a), branch
    if method == "max-variance":
        low, high = _beta_interval(a, np.minimum(n1, n0), alpha)
        return low, high, branch
    if method == "newcombe":
        low, high = _newcombe(a, n1, n0, z)
        return low, high, branch
    size = effective_size(a, var, n1, n0)
    if method == "wilson-effective":
        centre = a + z * z / (2 * size)
        half = z * np.sqrt(a * (1 - a) / size + z * z / (4 * size**2))
        scale = 1 + z * z / size
        return (centre - half) / scale, (centre + half) / scale, branch
    low, high = _beta_interval(a, size, alpha)
    if method == "effective":
        return low, high, branch
    hull = np.ones(a.shape, dtype=bool)
    if method == "auto":
        hull = shortfall(a, n1, n0) < SHORTFALL_MIN
    if hull.any():
        n_low, n_high = _newcombe(a, n1, n0, z)
        c_low, c_high = _beta_interval(a, _corrected_size(a, var, n1, n0), alpha)
        low = np.where(hull, np.minimum(c_low, n_low), low)
        high = np.where(hull, np.maximum(c_high, n_high), high)
    if method == "hull":
        return low, high, branch
    small = np.minimum(n1, n0) < CLASS_MIN
    if small.any():
        m_low, m_high = _beta_interval(a, np.minimum(n1, n0), alpha)
        low, high = np.where(small, m_low, low), np.where(small, m_high, high)
    return low, high, np.where(small, 2, hull.astype(np.int8)).astype(np.int8)


def _method_name(method: str, branch: int) -> str:
    if method == "auto":
        used = ("effective", "hull of newcombe and effective", "max-variance")[int(branch)]
        return f"auto ({used})"
    return {"logit": "delong-logit", "wald": "delong-wald"}.get(method, method)


def _check_method(method: str, name: str = "method") -> str:
    if not in_choices(method, AUC_INTERVAL_METHODS):
        raise ValueError(
            f"{name} must be one of {', '.join(AUC_INTERVAL_METHODS)}, got {show(method)}"
        )
    return method


def auc_interval(
    y: ArrayLike, scores: ArrayLike, alpha: float = 0.05, method: str = "auto"
) -> Estimate:
    """Two-sided interval for the AUC of one model.

    Every method but ``"max-variance"`` starts from DeLong's variance
    :math:`\\hat V` (:func:`delong`, :cite:`delong1988`); :math:`n_1, n_0` are the
    numbers of positives and negatives and :math:`z = \\Phi^{-1}(1 - \\alpha/2)`.

    ``"auto"`` (default)
        ``"max-variance"`` when the smaller class has fewer than
        :data:`CLASS_MIN` items; otherwise ``"effective"`` when the test set holds
        at least :data:`SHORTFALL_MIN` items' worth of misranking
        (:func:`shortfall`), and ``"hull"`` below that.  The book's coverage grid
        (five score models, 100 to 3,200 items, prevalences 0.05 and 0.3, AUCs 0.8 to
        0.998) and its real-digit experiment check it: over two sets of seeds, 2,000
        test sets per point, no point with at least :data:`CLASS_MIN` items in the
        smaller class undercovers by the book's rule (lowest 94.2 %).
    ``"effective"``
        Clopper-Pearson's interval :cite:`clopper1934` on the effective size
        :math:`n^\\ast = \\hat A(1-\\hat A)/\\hat V` (:func:`effective_size`) with the
        real-valued count :math:`n^\\ast\\hat A`: beta quantiles
        :math:`B^{-1}(\\alpha/2;\\, n^\\ast\\hat A,\\, n^\\ast(1-\\hat A)+1)` and
        :math:`B^{-1}(1-\\alpha/2;\\, n^\\ast\\hat A+1,\\, n^\\ast(1-\\hat A))`, the device
        of Korn and Graubard for proportions from complex samples
        :cite:`korn1998confidence`.  It keeps the skewness of a proportion near 1,
        and where a few positives carry all the misranking it is nearly a
        binomial interval on them, with a size estimated from those few items
        (it undercovers when they are one or two: see ``"hull"``).
    ``"newcombe"``
        Newcombe's score interval (his method 5) :cite:`newcombe2006mannwhitney`: the set of
        :math:`\\theta` with :math:`|\\hat A - \\theta| \\le z\\sqrt{V(\\theta)}`,
        :math:`V(\\theta) = \\frac{\\theta(1-\\theta)}{n_1 n_0}\\big[1 + N^\\ast
        \\big(\\frac{1-\\theta}{2-\\theta} + \\frac{\\theta}{1+\\theta}\\big)\\big]`,
        :math:`N^\\ast = (n_1+n_0)/2 - 1`: Hanley and McNeil's variance
        :cite:`hanley1982` as a function of the AUC, which does not need the
        misranked pairs of the test set to estimate it.  It assumes the shape of
        the exponential model and undercovers when a few positives fall far
        below the negatives.
    ``"hull"``
        The smallest interval containing ``"newcombe"`` and Clopper-Pearson on a
        corrected effective size :math:`n'` (so it contains ``"effective"`` too):
        :math:`1/n' = (1-w)/n^\\ast + w/\\min(n_1, n_0)` with
        :math:`w = \\min(1/4,\\, 0.1/(k + 0.1))`, :math:`k` the :func:`shortfall`.
        DeLong's variance is averaged with van Dantzig's maximum, the maximum weighing
        as a tenth of an item's worth of misranking beside the :math:`k` observed, and
        never more than a quarter.  When one or two positives carry the misranking,
        :math:`n^\\ast` is estimated from them alone: one that sits just below the top
        negatives makes :math:`n^\\ast` huge and the plain interval short.  With hard
        positives at 3,200 items, prevalence 0.05 and AUC 0.99 (160 positives, an
        expected shortfall of 1.6) the hull without the correction covered 93.4 to
        94.3 % of 4,000 test sets under four seeds (Newcombe's 79 to 80 %, the plain
        effective size's 92 to 93 %); with it 96.6 to 96.8 % (Monte Carlo error
        0.3 %), with intervals 3 % wider on average.  Over the book's coverage grid
        (see ``"auto"``) it is 1.01 times as wide on average, at most 1.10 times.
    ``"wilson-effective"``
        Wilson's score interval on :math:`n^\\ast` (the idea of Halperin, Gilbert,
        Lachin and of Mee's interval :cite:`mee1990confidence`).
    ``"max-variance"``
        Clopper-Pearson on :math:`\\min(n_1, n_0)`: van Dantzig's largest possible
        variance :math:`A(1-A)/\\min(n_1, n_0)` :cite:`vandantzig1951consistency,birnbaum1957bounds` in place
        of an estimate, which assumes nothing about the scores; wide, for when the
        test set is too small for anything else.
    ``"logit"``
        :math:`\\operatorname{expit}\\big(\\operatorname{logit}\\hat A \\pm
        z\\sqrt{\\hat V}/(\\hat A(1-\\hat A))\\big)` :cite:`qin2008`.
    ``"wald"``
        :math:`\\hat A \\pm z\\sqrt{\\hat V}`, clipped to :math:`[0, 1]` (as pROC does,
        :cite:`robin2011`): near :math:`\\hat A = 1` the unclipped upper end passes 1.

    The last two undercover when the misranking is carried by a few items (the
    estimated variance is then small exactly when :math:`\\hat A` is too high),
    and collapse to a point at :math:`\\hat A = 1`.  No method holds its level
    with a handful of items in the smaller class.

    Parameters
    ----------
    y : array_like of 0/1
        Labels; both classes must be present.
    scores : array_like
        Scores of one model.
    alpha : float, default 0.05
        Error probability (confidence ``1 - alpha``).
    method : str, default "auto"
        One of :data:`AUC_INTERVAL_METHODS`.

    Returns
    -------
    Estimate
        ``value``, ``low``, ``high``, ``se`` (DeLong), ``n`` (items), ``method``.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> y = rng.random(400) < 0.3
    >>> s = rng.normal(size=400) + 1.5 * y
    >>> e = auc_interval(y, s)
    >>> round(e.value, 3), round(e.low, 3), round(e.high, 3), e.method
    (0.869, 0.829, 0.903, 'auto (effective)')
    >>> y = np.r_[np.ones(40), np.zeros(400)]  # 40 positives above 400 negatives
    >>> e = auc_interval(y, np.r_[np.arange(40) + 400.0, np.arange(400)])
    >>> e.value, round(e.low, 3), e.method
    (1.0, 0.912, 'auto (hull of newcombe and effective)')
    >>> auc_interval(y, np.r_[np.arange(40) + 400.0, np.arange(400)], method="logit").low
    1.0
    """
    _check_method(method)
    a_ = _inputs.alpha_value(alpha)
    if _inputs.array(scores, "scores").ndim != 1:
        raise ValueError(f"scores must be 1-d (one model), got shape {np.shape(scores)}")
    d = delong(y, scores)
    return _interval(d.auc, d.cov, d.n_positive, d.n_negative, a_, method)


def _interval(value, var, n1: int, n0: int, alpha: float, method: str) -> Estimate:
    """The :func:`auc_interval` of an AUC with DeLong variance ``var`` (one model)."""
    low, high, branch = _interval_arrays(value, var, n1, n0, alpha, method)
    return Estimate(
        float(value),
        float(low),
        float(high),
        method=_method_name(method, int(branch)),
        se=math.sqrt(max(float(var), 0.0)),
        n=int(n1 + n0),
        alpha=alpha,
    )


#: Methods of :func:`auc_difference`.
AUC_DIFFERENCE_METHODS = ("mover", "delong")


def auc_difference(
    y: ArrayLike,
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    alpha: float = 0.05,
    method: str = "mover",
) -> Difference:
    """Paired interval and test for ``AUC(A) - AUC(B)`` on the same items.

    ``"mover"`` (default): the method of variance estimates recovery of Zou and
    Donner :cite:`zou2008construction` (Newcombe's square-and-add with a correlation)
    applied to the ``"auto"`` intervals :math:`[l_k, u_k]` of the two AUCs
    (:func:`auc_interval`),

    .. math:: L = \\hat d - \\sqrt{(\\hat A_A - l_A)^2 + (u_B - \\hat A_B)^2
              - 2r(\\hat A_A - l_A)(u_B - \\hat A_B)},

    .. math:: U = \\hat d + \\sqrt{(u_A - \\hat A_A)^2 + (\\hat A_B - l_B)^2
              - 2r(u_A - \\hat A_A)(\\hat A_B - l_B)},

    :math:`\\hat d = \\hat A_A - \\hat A_B` and :math:`r` DeLong's correlation of the two
    AUCs (0 where a variance is 0).  It inherits the asymmetry and the
    small-shortfall protection of the single intervals; the two-sided p-value is
    the largest :math:`\\alpha` at which the interval still contains 0.

    ``"delong"``: DeLong's z-test and Wald interval :cite:`delong1988`,

    .. math:: z = \\frac{\\hat d}{\\sqrt{\\hat V_A + \\hat V_B - 2 \\hat C_{AB}}}, \\qquad
              \\hat d \\pm z_{1-\\alpha/2}\\sqrt{\\hat V_A + \\hat V_B - 2\\hat C_{AB}},

    p-value :math:`2\\Phi(-|z|)`.  It undercovers when either AUC is near 1 with
    few misranked items (the book's coverage figures).  In both the covariance
    term is what pairing buys: two models that rank the same items alike have a
    strongly positive :math:`\\hat C_{AB}`.

    Parameters
    ----------
    y : array_like of 0/1
        Labels, both classes present.
    scores_a, scores_b : array_like
        Scores of models A and B on the same items.
    alpha : float, default 0.05
    method : {"mover", "delong"}

    Returns
    -------
    Difference
        ``value`` (A minus B), ``low``, ``high``, ``p_value``, ``statistic``
        (DeLong's z), ``se``.

    Examples
    --------
    >>> rng = np.random.default_rng(2)
    >>> y = rng.random(500) < 0.4
    >>> a = rng.normal(size=500) + 1.5 * y
    >>> b = a + rng.normal(size=500)
    >>> d = auc_difference(y, a, b)
    >>> round(d.value, 3), round(d.low, 3), round(d.high, 3), d.p_value < 0.001
    (0.072, 0.039, 0.105, True)
    """
    if not in_choices(method, AUC_DIFFERENCE_METHODS):
        raise ValueError(
            f"method must be one of {', '.join(AUC_DIFFERENCE_METHODS)}, got {show(method)}"
        )
    a_ = _inputs.alpha_value(alpha)
    pos = _inputs.binary_labels(y, "y")
    sa = _inputs.scores(scores_a, "scores_a", pos.size)
    sb = _inputs.scores(scores_b, "scores_b", pos.size)
    d = delong(pos, np.vstack([sa, sb]))
    return _difference(d, 0, 1, a_, method)


def _mover_ends(aa, ab, va, vb, r, n1, n0, alpha):
    """MOVER ends for A - B from the two AUCs, their DeLong variances and correlation."""
    la, ua, _ = _interval_arrays(aa, va, n1, n0, alpha, "auto")
    lb, ub, _ = _interval_arrays(ab, vb, n1, n0, alpha, "auto")
    d = aa - ab
    down = (aa - la) ** 2 + (ub - ab) ** 2 - 2 * r * (aa - la) * (ub - ab)
    up = (ua - aa) ** 2 + (ab - lb) ** 2 - 2 * r * (ua - aa) * (ab - lb)
    return d - np.sqrt(np.maximum(down, 0.0)), d + np.sqrt(np.maximum(up, 0.0))


def _correlation(va, vb, cab):
    va, vb, cab = (np.asarray(x, dtype=float) for x in (va, vb, cab))
    ok = (va > 0) & (vb > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(ok, cab / np.sqrt(np.where(ok, va * vb, 1.0)), 0.0)
    return np.clip(r, -1.0, 1.0)


def _mover_p_value(aa, ab, va, vb, r, n1, n0) -> float:
    """Largest alpha whose MOVER interval still contains 0.

    The intervals shrink as alpha grows, so the set of alphas whose interval holds
    0 is (0, p]; it is found on a grid of log alpha, refined three times (the
    interval code is vectorised, so each pass costs one call).
    """
    if aa == ab:
        return 1.0
    lo, hi = math.log(1e-300), 0.0  # 0 is inside at exp(lo) (checked), outside at alpha = 1
    for _ in range(4):
        grid = np.linspace(lo, hi, 129)
        low, high = _mover_ends(aa, ab, va, vb, r, n1, n0, np.exp(grid))
        inside = (low <= 0.0) & (0.0 <= high)
        if not inside[0]:
            return 0.0
        last = int(np.flatnonzero(inside)[-1])
        if last == grid.size - 1:
            return 1.0
        lo, hi = grid[last], grid[last + 1]
    return float(math.exp(lo))


def _difference(d: DeLong, i: int, j: int, alpha: float, method: str = "mover") -> Difference:
    """The :func:`auc_difference` of AUC[i] - AUC[j] from a several-model :class:`DeLong`."""
    diff = float(d.auc[i] - d.auc[j])
    va, vb, cab = float(d.cov[i, i]), float(d.cov[j, j]), float(d.cov[i, j])
    se = math.sqrt(max(va + vb - 2 * cab, 0.0))
    if se > 0:
        z = diff / se
        p = float(2 * _dist.norm_sf(abs(z)))
    else:
        z = 0.0 if diff == 0 else math.copysign(math.inf, diff)
        p = 1.0 if diff == 0 else 0.0
    n1, n0 = int(d.n_positive), int(d.n_negative)
    if method == "delong":
        half = float(_dist.norm_isf(alpha / 2)) * se
        # a difference of two AUCs lies in [-1, 1]: the Wald interval is clipped there
        low, high, name = max(diff - half, -1.0), min(diff + half, 1.0), "delong"
    elif se == 0 and diff == 0:  # the two models rank every pair alike: no difference at all
        low = high = 0.0
        name = "mover (auto intervals), p by inversion"
    else:
        r = float(_correlation(va, vb, cab))
        args = (float(d.auc[i]), float(d.auc[j]), va, vb, r, n1, n0)
        low, high = (float(x) for x in _mover_ends(*args, alpha))
        p = _mover_p_value(*args)
        name = "mover (auto intervals), p by inversion"
    return Difference(
        diff,
        low,
        high,
        p_value=p,
        method=name,
        se=se,
        statistic=z,
        n=n1 + n0,
        alpha=alpha,
    )


#: Names that lived here until the AUC's sizes moved to their own module.
_MOVED_TO_SIZING = ("AUC_VARIANCE_METHODS", "AUCSize", "auc_power_size", "auc_size", "auc_variance")


__getattr__ = moved(__name__, _MOVED_TO_SIZING, "heldout.metrics.auc_sizing")
