"""The partial AUC over a range of specificities, McClish's standardisation, intervals, differences.

Over specificities :math:`[s_1, s_2]` (false-positive rates :math:`[f_1, f_2] =
[1-s_2, 1-s_1]`) the partial area is

.. math:: \\mathrm{pAUC} = \\int_{f_1}^{f_2} \\mathrm{ROC}(f)\\,df
          = \\int_{s_1}^{s_2} Se(s)\\,ds,

read off the empirical ROC polygon (pROC's ``auc(..., partial.auc = c(s2, s1))``
:cite:`robin2011proc`).  Its range depends on the width of the band, so McClish
:cite:`mcclish1989` maps it to the AUC's scale,

.. math:: \\mathrm{pAUC}_{\\mathrm{st}} = \\frac12\\Bigl(1 + \\frac{\\mathrm{pAUC} - m}{M - m}\\Bigr),
          \\qquad m = \\frac{f_2^2 - f_1^2}{2},\\quad M = f_2 - f_1,

where :math:`m` is the area under the chance diagonal and :math:`M` the largest possible
area: 0.5 means chance and 1 perfect within the band (scikit-learn's
``roc_auc_score(max_fpr=...)`` is the case :math:`f_1 = 0`).

Variance (``method="delong"``).  With :math:`F_0` the negatives' distribution function,
:math:`S_1` the positives' survival function and :math:`q_s = F_0^{-1}(s)`, the partial area
:math:`\\int_{s_1}^{s_2} S_1(q_s)\\,ds` has influence functions

.. math:: \\varphi_1(x) = \\min(\\max(F_0(x), s_1), s_2), \\qquad
          \\varphi_0(y) = S_1(\\max(y, q_{s_1})) - S_1(q_{s_2})\\ \\text{ if } y < q_{s_2},
          \\text{ else } 0,

(up to sign and constants) for a positive and a negative item.  The first is DeLong's
placement value :cite:`delong1988` clipped to the band; the second carries the
sampling of the negatives through the estimated cut-offs :math:`q_{s_1}, q_{s_2}`,
which a plug-in that treats them as fixed would miss (Dodd and Pepe
:cite:`dodd2003partial` treat the partial AUC's nonparametric estimation).  The variance is

.. math:: \\widehat{\\operatorname{Var}} = \\frac{\\widehat{\\operatorname{Var}}(\\varphi_1)}{n_1}
          + \\frac{\\widehat{\\operatorname{Var}}(\\varphi_0)}{n_0};

over the whole range and without scores shared by a positive and a negative, the
influence values are DeLong's placements and the variance is DeLong's.  With such
cross-class ties it is not: the influence values here then do not reduce to DeLong's
tie-split placements, and the standard error differs (12 % larger than DeLong's on 250
binormal scores rounded to whole numbers).  ``method="logit"`` (default) builds the Wald interval for
:math:`\\operatorname{logit}(\\mathrm{pAUC}/M)` (delta method) and maps its ends back,
which keeps them inside the possible range and lets them be lopsided.  That does not make
it hold near a perfect model: at AUC 0.98 with 200 items (binormal, 2,000 test sets) it
held over specificities 0.8 to 1 at prevalence 0.5 (94.7 %) but undercovered at
prevalence 0.1 (92.4 %) and over 0.9 to 1 at prevalence 0.5 (93.2 %); ``"delong"`` is Wald's on the standardised scale, clipped to [0, 1], shown in the
book for contrast (it undercovers at 200 items in the book's grid).  For two models on the
same items the covariance of the influence values gives the paired difference (Wald).
``method="bootstrap"``: percentile interval of the stratified bootstrap (pROC's
``ci.auc`` for a partial AUC).  The book checks the coverage of all three.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from heldout import _inputs
from heldout._checks import as_choice, as_draws, as_probability
from heldout._result import Result, extra
from heldout.config import rng as _rng
from heldout.metrics import _roc
from heldout.metrics.estimate import Difference

__all__ = [
    "PARTIAL_AUC_DIFFERENCE_METHODS",
    "PARTIAL_AUC_METHODS",
    "PartialAUC",
    "partial_auc",
    "partial_auc_difference",
]

#: Methods of :func:`partial_auc`.
PARTIAL_AUC_METHODS = ("logit", "delong", "bootstrap")
#: Methods of :func:`partial_auc_difference`.
PARTIAL_AUC_DIFFERENCE_METHODS = ("delong", "bootstrap")


@dataclass(frozen=True)
class PartialAUC(Result):
    """A partial AUC (McClish-standardised) with its interval.

    Attributes
    ----------
    value, low, high : float
        The standardised partial AUC and its interval (unpacked in this order).
    raw, raw_low, raw_high : float
        The partial area itself (between 0 and :math:`s_2 - s_1`) and its interval.
    se : float
        Standard error of the standardised value (the bootstrap's standard deviation
        for ``"bootstrap"``).
    specificity : tuple of float
        The band :math:`(s_1, s_2)`.
    method : str
    """

    value: float
    low: float
    high: float
    raw: float = extra()
    raw_low: float = extra()
    raw_high: float = extra()
    se: float = extra()
    specificity: tuple = extra()
    method: str = extra("delong")


def _band(specificity) -> tuple[float, float]:
    arr = np.asarray(as_probability(specificity, "specificity", closed=True), dtype=float)
    if arr.shape != (2,) or not arr[0] < arr[1]:
        raise ValueError(
            f"specificity must be two numbers lo < hi in [0, 1], got {np.ravel(arr).tolist()}"
        )
    return float(arr[0]), float(arr[1])


def _scale(lo: float, hi: float) -> tuple[float, float]:
    f1, f2 = 1.0 - hi, 1.0 - lo
    return (f2 * f2 - f1 * f1) / 2.0, f2 - f1  # m, M


def _standardise(raw, lo, hi):
    m, big = _scale(lo, hi)
    return 0.5 * (1.0 + (raw - m) / (big - m))


def _raw(pos: np.ndarray, s: np.ndarray, lo: float, hi: float) -> float:
    fp, tp, _ = _roc.curve(pos, s)
    n1, n0 = tp[-1], fp[-1]
    g = _roc.snap(np.array([(1 - hi) * n0, (1 - lo) * n0]))
    a = _roc.area_to(fp, tp, g)
    return float((a[1] - a[0]) / (n1 * n0))


def _survival(sorted_x: np.ndarray, v) -> np.ndarray:
    """Share of ``sorted_x`` above ``v``."""
    return (sorted_x.size - np.searchsorted(sorted_x, v, side="right")) / sorted_x.size


def _influence(pos: np.ndarray, s2: np.ndarray, lo: float, hi: float):
    """Influence values (positives, negatives) of the raw partial area, one row per model.

    Items stay in their order (a paired difference subtracts them item by item); two
    sorts per model and binary searches, no argsort.
    """
    phi1, phi0 = [], []
    for row in s2:
        xs, ys = row[pos], row[~pos]
        x, yneg = np.sort(xs), np.sort(ys)
        n0 = yneg.size
        below = np.searchsorted(yneg, xs, side="left")
        tied = np.searchsorted(yneg, xs, side="right") - below
        phi1.append(np.clip((below + 0.5 * tied) / n0, lo, hi))  # DeLong's placement, clipped
        q1 = yneg[min(max(int(np.ceil(lo * n0 - 1e-9)) - 1, 0), n0 - 1)]
        q2 = yneg[min(max(int(np.ceil(hi * n0 - 1e-9)) - 1, 0), n0 - 1)]
        phi0.append(np.where(ys < q2, _survival(x, np.maximum(ys, q1)) - _survival(x, q2), 0.0))
    return np.array(phi1), np.array(phi0)


def _wald(value, se, a):
    z = stats.norm.ppf(1 - a / 2)
    return np.clip(value - z * se, 0.0, 1.0), np.clip(value + z * se, 0.0, 1.0)


def _boot_raw(pos, s, lo, hi, reps, gen):
    n1 = np.count_nonzero(pos)
    n0 = pos.size - n1
    g = _roc.snap(np.array([(1 - hi) * n0, (1 - lo) * n0]))
    out = []
    for fp, tp in _roc.resampled_counts(pos, s, reps, gen, chunk=max(1, 2_000_000 // s.size)):
        a = _roc.rows_area_to(fp, tp, g)
        out.append((a[:, 1] - a[:, 0]) / (n1 * n0))
    return np.concatenate(out)


def _common(y, alpha, method, n_resamples, specificity, seed, methods=PARTIAL_AUC_METHODS):
    """Checked arguments; ``n_resamples`` and ``seed`` are checked with every method (a bad
    value is refused even where only ``method="bootstrap"`` reads them)."""
    pos = _inputs.binary_labels(y, "y")
    n1, n0 = _inputs.both_classes(pos, "y")
    if min(n1, n0) < 2:
        raise ValueError(
            f"y must hold at least two positives and two negatives for an interval "
            f"(got {n1} and {n0})"
        )
    a = float(as_probability(alpha, "alpha", scalar=True))
    method = as_choice(method, "method", methods)
    reps = as_draws(n_resamples, "n_resamples", minimum=0)
    if method == "bootstrap" and reps < 100:
        raise ValueError(f"n_resamples must be at least 100 for a bootstrap interval, got {reps}")
    gen = _rng(seed)
    lo, hi = _band(specificity)
    return pos, a, method, reps, lo, hi, gen


def partial_auc(
    y: ArrayLike,
    scores: ArrayLike,
    specificity: ArrayLike = (0.8, 1.0),
    alpha: float = 0.05,
    method: str = "logit",
    n_resamples: int = 2000,
    seed=None,
) -> PartialAUC:
    """Partial AUC over a band of specificities, standardised by McClish, with an interval.

    .. math:: \\mathrm{pAUC} = \\int_{s_1}^{s_2} \\widehat{Se}(s)\\,ds, \\qquad
              \\mathrm{pAUC}_{\\mathrm{st}} = \\tfrac12\\bigl(1 + \\tfrac{\\mathrm{pAUC}-m}{M-m}\\bigr)

    :cite:`mcclish1989`, the area read off the empirical ROC polygon as pROC does
    :cite:`robin2011proc`.  ``"logit"`` (default): Wald interval for the logit of
    :math:`\\mathrm{pAUC}/M` with the influence-function variance of the module's notes
    (DeLong's placements clipped to the band plus the estimated cut-offs' term
    :cite:`delong1988,dodd2003partial`), mapped back; ``"delong"``: the same variance on
    the raw scale; ``"bootstrap"``: stratified bootstrap percentile interval.

    Parameters
    ----------
    y : array_like of 0/1, shape (n,)
    scores : array_like, shape (n,)
    specificity : pair of float
        The band :math:`(s_1, s_2)`, :math:`0 \\le s_1 < s_2 \\le 1`.
    alpha : float
    method : {"logit", "delong", "bootstrap"}
    n_resamples : int
        Resamples for ``"bootstrap"`` (at least 100).
    seed : int, Generator or None

    Returns
    -------
    PartialAUC

    Examples
    --------
    >>> import numpy as np
    >>> rng, y = np.random.default_rng(0), np.r_[np.ones(200), np.zeros(300)]
    >>> s = np.r_[rng.normal(1.5, 1, 200), rng.normal(0, 1, 300)]
    >>> r = partial_auc(y, s, specificity=(0.8, 1.0))
    >>> round(r.value, 3), round(r.raw, 4)
    (0.752, 0.1106)
    """
    pos, a, method, reps, lo, hi, gen = _common(y, alpha, method, n_resamples, specificity, seed)
    s = _inputs.scores(scores, "scores", pos.size).astype(float)
    raw = _raw(pos, s, lo, hi)
    m, big = _scale(lo, hi)
    factor = 0.5 / (big - m)
    value = float(_standardise(raw, lo, hi))
    if method in ("delong", "logit"):
        phi1, phi0 = _influence(pos, s[None, :], lo, hi)
        var = phi1[0].var(ddof=1) / phi1.shape[1] + phi0[0].var(ddof=1) / phi0.shape[1]
        se = float(np.sqrt(var)) * factor
        low, high = _wald(value, se, a)
        share = raw / big  # the raw area as a share of its largest value, in [0, 1]
        if method == "logit" and 0 < share < 1:
            z = stats.norm.ppf(1 - a / 2)
            half = z * float(np.sqrt(var)) / (big * share * (1 - share))
            ends = special.expit(special.logit(share) + np.array([-half, half])) * big
            low, high = (float(_standardise(e, lo, hi)) for e in ends)
    else:
        boot = _standardise(_boot_raw(pos, s, lo, hi, reps, gen), lo, hi)
        low, high = np.quantile(boot, [a / 2, 1 - a / 2])
        low, high = min(low, value), max(high, value)
        se = float(boot.std(ddof=1))
    raw_low, raw_high = (m + (2 * v - 1) * (big - m) for v in (low, high))
    return PartialAUC(
        value, float(low), float(high), raw=raw, raw_low=float(raw_low),
        raw_high=float(raw_high), se=se, specificity=(lo, hi), method=method,
    )  # fmt: skip


# Its signature repeats partial_auc's with a second model's scores (both public); their
# checks are one helper, _common, and the standardisation _standardise.
def partial_auc_difference(
    y: ArrayLike,
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    specificity: ArrayLike = (0.8, 1.0),
    alpha: float = 0.05,
    method: str = "delong",
    n_resamples: int = 2000,
    seed=None,
) -> Difference:
    """Paired difference of two models' standardised partial AUCs on the same items.

    .. math:: \\hat d = \\mathrm{pAUC}_{\\mathrm{st}}(a) - \\mathrm{pAUC}_{\\mathrm{st}}(b), \\qquad
              \\widehat{\\operatorname{Var}}(\\hat d) = \\sum_{c \\in \\{0, 1\\}}
              \\frac{\\widehat{\\operatorname{Var}}(\\varphi_c^{a} - \\varphi_c^{b})}{n_c}
              \\Bigl(\\frac{1}{2(M-m)}\\Bigr)^2

    with the influence values :math:`\\varphi` of :func:`partial_auc` (DeLong's paired
    construction :cite:`delong1988` applied to them); Wald interval and two-sided
    p-value.  ``"bootstrap"`` resamples the items of both models together (stratified)
    and reports the percentile interval and the share of resamples on the other side
    of zero, doubled, as its p-value.

    Parameters
    ----------
    y : array_like of 0/1, shape (n,)
    scores_a, scores_b : array_like, shape (n,)
    specificity : pair of float
    alpha : float
    method : {"delong", "bootstrap"}
    n_resamples : int
    seed : int, Generator or None

    Returns
    -------
    Difference

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(300), np.zeros(300)]
    >>> a = np.r_[rng.normal(1.5, 1, 300), rng.normal(0, 1, 300)]
    >>> b = a + rng.normal(0, 1, 600)
    >>> d = partial_auc_difference(y, a, b)
    >>> bool(d.low > 0), round(d.value, 3)
    (True, 0.074)
    """
    pos, a, method, reps, lo, hi, gen = _common(
        y, alpha, method, n_resamples, specificity, seed, PARTIAL_AUC_DIFFERENCE_METHODS
    )
    sa = _inputs.scores(scores_a, "scores_a", pos.size).astype(float)
    sb = _inputs.scores(scores_b, "scores_b", pos.size).astype(float)
    va = _standardise(_raw(pos, sa, lo, hi), lo, hi)
    vb = _standardise(_raw(pos, sb, lo, hi), lo, hi)
    d = float(va - vb)
    m, big = _scale(lo, hi)
    if method == "delong":
        phi1, phi0 = _influence(pos, np.vstack([sa, sb]), lo, hi)
        var = np.var(phi1[0] - phi1[1], ddof=1) / phi1.shape[1]
        var += np.var(phi0[0] - phi0[1], ddof=1) / phi0.shape[1]
        se = float(np.sqrt(var)) * 0.5 / (big - m)
        z = stats.norm.ppf(1 - a / 2)
        low, high = d - z * se, d + z * se
        p = float(2 * stats.norm.sf(abs(d) / se)) if se > 0 else (1.0 if d == 0 else 0.0)
    else:
        idx1, idx0 = np.flatnonzero(pos), np.flatnonzero(~pos)
        diffs = np.empty(reps)
        for r in range(reps):  # one resample of items serves both models (paired)
            take = np.r_[gen.choice(idx1, idx1.size), gen.choice(idx0, idx0.size)]
            yy = pos[take]
            diffs[r] = _standardise(_raw(yy, sa[take], lo, hi), lo, hi) - _standardise(
                _raw(yy, sb[take], lo, hi), lo, hi
            )
        low, high = np.quantile(diffs, [a / 2, 1 - a / 2])
        p = float(min(1.0, 2 * min(np.mean(diffs <= 0), np.mean(diffs >= 0))))
        se = float(diffs.std(ddof=1))
    low, high = max(float(low), -1.0), min(float(high), 1.0)
    return Difference(
        d, low, high, p, method=f"partial AUC {method}", se=se, n=int(pos.size), alpha=a
    )
