"""Coverage of the metric intervals by simulation, where the truth is known.

Every interval of :mod:`heldout.metrics.auc`, :mod:`heldout.metrics.rates`, :mod:`heldout.metrics.fscore`,
:mod:`heldout.metrics.multinomial`, :mod:`heldout.metrics.scores` and :mod:`heldout.metrics.bootstrap`
promises to cover the true value with probability :math:`1-\\alpha`.  The
functions here draw many test sets from populations whose metric values are known
exactly and count how often each interval covers:

* labels of a binary classifier: the confusion counts are multinomial with cell
  shares :math:`\\pi s`, :math:`\\pi(1-s)`, :math:`(1-\\pi)(1-t)`, :math:`(1-\\pi)t`
  (prevalence :math:`\\pi`, sensitivity :math:`s`, specificity :math:`t`), so every
  count-based metric's truth is a formula in these;
* scores: the equal-variance binormal model, negatives :math:`N(0,1)`, positives
  :math:`N(\\mu,1)` with :math:`\\mu = \\sqrt2\\,\\Phi^{-1}(A)`, whose AUC is exactly
  :math:`A`; its calibrated probability is
  :math:`\\operatorname{expit}(\\operatorname{logit}\\pi + \\mu s - \\mu^2/2)`, and the
  true Brier score and log loss are integrals computed by quadrature (a
  ``sharpness`` above 1 multiplies the logit, an over-confident model);
* several classes: multinomial rows and confusion matrices with given cell shares.

Each function returns a :class:`Coverage` (the share of test sets whose interval
covered, its Monte Carlo standard error and the mean width).  Its verdict is the book's
one rule, :func:`heldout.book.chapter.coverage_verdict`: "holds" within
``[1 - alpha - t_lo, 1 - alpha + t_hi]`` (``t_lo = max(2 se, 0.005)``,
``t_hi = max(2 se, 0.01)``, ``se = sqrt(alpha (1 - alpha) / R)``), "undercovers" below,
"conservative" above.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import integrate, special, stats

from heldout import _inputs
from heldout._checks import (
    as_count,
    as_draws,
    as_instance,
    as_positive,
    as_probability,
    check_work,
    in_choices,
    show,
)
from heldout._result import Result, extra
from heldout.config import rng as make_rng
from heldout.metrics.auc import AUC_INTERVAL_METHODS

__all__ = [
    "PAIRED_SCORE_MODELS",
    "SCORE_MODELS",
    "ConditionalCoverage",
    "Coverage",
    "auc_coverage",
    "auc_difference_coverage",
    "accuracy_difference_coverage",
    "binormal_scores",
    "bootstrap_coverage",
    "count_truth",
    "count_coverage",
    "macro_f1_coverage",
    "precision_conditional_coverage",
    "score_coverage",
    "score_difference_coverage",
    "score_truth",
    "scored_test_sets",
    "simultaneous_coverage",
    "UNTUNED_SETTINGS",
    "untuned_auc_coverage",
    "untuned_test_sets",
]


@dataclass(frozen=True)
class Coverage(Result):
    """Estimated coverage of an interval method at one point of a simulation grid.

    Attributes
    ----------
    coverage : float
        Share of simulated test sets whose interval contained the truth (among
        those where the interval was defined).
    mcse : float
        Monte Carlo standard error, :math:`\\sqrt{c(1-c)/R}` (at least that of
        :math:`c = 1 - \\alpha` so that a perfect run is not over-trusted).
    reps : int
        Test sets where the interval was defined.
    width : float
        Mean width of the interval.
    truth : float
        The true value of the metric.
    undefined : float
        Share of test sets where the metric or interval was undefined (a zero
        denominator): they are excluded from ``coverage``.
    level : float
        The promised coverage ``1 - alpha``.
    """

    coverage: float
    mcse: float
    reps: int
    width: float = extra(math.nan)
    truth: float = extra(math.nan)
    undefined: float = extra(0.0)
    level: float = extra(0.95)

    @property
    def verdict(self) -> str:
        """The book's rule: "holds", "undercovers" or "conservative" (``coverage_verdict``)."""
        from heldout.book.chapter import coverage_verdict

        if self.reps == 0 or math.isnan(self.coverage):
            return "undefined"
        return coverage_verdict(self.coverage, self.reps, 1 - self.level)

    @property
    def holds(self) -> bool:
        """The promise is kept: the verdict is "holds" or "conservative" (not "undercovers")."""
        return self.verdict in ("holds", "conservative")


def _coverage(hit: np.ndarray, width: np.ndarray, truth: float, defined: np.ndarray, alpha: float):
    hit = np.asarray(hit, dtype=bool)
    defined = np.asarray(defined, dtype=bool)
    reps = int(defined.sum())
    level = 1 - alpha
    if reps == 0:
        return Coverage(math.nan, math.nan, 0, math.nan, truth, 1.0, level)
    c = float(hit[defined].mean())
    se_base = max(c * (1 - c), level * (1 - level))
    return Coverage(
        c,
        math.sqrt(se_base / reps),
        reps,
        float(np.mean(np.asarray(width)[defined])),
        float(truth),
        float(1 - defined.mean()),
        level,
    )


def _covers(low, high, truth, alpha: float, defined=None) -> Coverage:
    """Coverage of ``truth`` by the intervals ``[low, high]`` of the simulated test sets
    (one copy of the hit rule for every simulation here); ``defined`` marks the test sets
    that count (all of them when None)."""
    hit = (low <= truth) & (truth <= high)
    if defined is None:
        defined = np.ones(np.shape(hit)[0], bool)
    return _coverage(hit, high - low, truth, defined, alpha)


def _methods(method) -> tuple:
    """``method`` as a tuple of names (one name, or a list or tuple of names)."""
    if isinstance(method, str):
        return (method,)
    if isinstance(method, list | tuple) and method and all(isinstance(m, str) for m in method):
        return tuple(method)
    raise ValueError(f"method must be a method name or a tuple of names, got {show(method)}")


#: Largest number of simulated test sets, of items simulated in all (``n`` times ``reps``)
#: and of bootstrap draws (``n * reps * n_resamples``): beyond these a simulation cannot
#: finish in reasonable time or memory, and is refused by name before anything is allocated.
MAX_REPS = 10**6
MAX_ITEMS = 10**8
MAX_DRAWS = 10**10


def _reps(reps) -> int:
    return int(as_count(reps, "reps", minimum=1, maximum=MAX_REPS, scalar=True))


def _items(n: int, reps: int) -> None:
    check_work(float(n) * reps, MAX_ITEMS, "n times reps (items simulated)")


# --------------------------------------------------------------------------- binary labels
def _cells(prevalence, sensitivity, specificity) -> np.ndarray:
    """Cell shares [tn, fp, fn, tp] of a binary confusion matrix."""
    pi = float(as_probability(prevalence, "prevalence", scalar=True))
    s = float(as_probability(sensitivity, "sensitivity", closed=True, scalar=True))
    t = float(as_probability(specificity, "specificity", closed=True, scalar=True))
    return np.array([(1 - pi) * t, (1 - pi) * (1 - t), pi * (1 - s), pi * s])


_COUNT_METRICS = (
    "accuracy",
    "sensitivity",
    "specificity",
    "precision",
    "npv",
    "f1",
    "balanced_accuracy",
)


def count_truth(metric: str, prevalence: float, sensitivity: float, specificity: float) -> float:
    """True value of a count-based metric for a given prevalence, sensitivity and specificity.

    Examples
    --------
    >>> round(count_truth("precision", 0.1, 0.9, 0.9), 4)  # 0.09 / (0.09 + 0.09)
    0.5
    """
    if not in_choices(metric, _COUNT_METRICS):
        raise ValueError(f"metric must be one of {', '.join(_COUNT_METRICS)}, got {show(metric)}")
    tn, fp, fn, tp = _cells(prevalence, sensitivity, specificity)
    return float(_count_metric(metric, tn, fp, fn, tp))


def _count_metric(metric, tn, fp, fn, tp):
    if not in_choices(metric, _COUNT_METRICS):
        raise ValueError(f"metric must be one of {', '.join(_COUNT_METRICS)}, got {show(metric)}")
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "accuracy": lambda: (tp + tn) / (tp + tn + fp + fn),
            "sensitivity": lambda: tp / (tp + fn),
            "specificity": lambda: tn / (tn + fp),
            "precision": lambda: tp / (tp + fp),
            "npv": lambda: tn / (tn + fn),
            "f1": lambda: 2 * tp / (2 * tp + fp + fn),
            "balanced_accuracy": lambda: (tp / (tp + fn) + tn / (tn + fp)) / 2,
        }[metric]()


def _count_interval(metric, method, tn, fp, fn, tp, alpha):
    """Vectorised intervals of a count metric; returns low, high, defined."""
    from heldout.metrics.fscore import _delta_interval

    num, den = {
        "accuracy": (tp + tn, tp + tn + fp + fn),
        "sensitivity": (tp, tp + fn),
        "specificity": (tn, tn + fp),
        "precision": (tp, tp + fp),
        "npv": (tn, tn + fn),
        "f1": (tp, tp + fp + fn),  # the Jaccard index for the exact method
        "balanced_accuracy": (None, np.minimum(tp + fn, tn + fp)),
    }[metric]
    defined = den > 0
    safe = np.where(defined, den, 1)
    if metric == "f1":
        e = fp + fn
        value = np.where(defined, 2 * tp / np.maximum(2 * tp + e, 1), 0.0)
        if method == "exact":
            lo_j, hi_j = _cp(tp, safe, alpha)
            return 2 * lo_j / (1 + lo_j), 2 * hi_j / (1 + hi_j), defined
        se = np.sqrt(4 * tp * e * (tp + e) / np.maximum(2 * tp + e, 1) ** 4)
        low, high = _delta_interval(value, se, alpha, method)
        return low, high, defined
    if metric == "balanced_accuracy":
        from heldout.metrics.fscore import _balanced_interval

        n1, n0 = np.maximum(tp + fn, 1), np.maximum(tn + fp, 1)
        low, high, _ = _balanced_interval(tp, n1, tn, n0, alpha, method)
        return low, high, defined
    if method == "clopper-pearson":
        low, high = _cp(num, safe, alpha)
    elif method == "wald":
        p = num / safe
        z = stats.norm.isf(alpha / 2)
        se = np.sqrt(p * (1 - p) / safe)
        low, high = np.clip(p - z * se, 0, 1), np.clip(p + z * se, 0, 1)
    elif method == "wald-total":  # the mistake of dividing a rate's variance by all n items
        n = tp + tn + fp + fn
        p = num / safe
        z = stats.norm.isf(alpha / 2)
        se = np.sqrt(p * (1 - p) / n)
        low, high = np.clip(p - z * se, 0, 1), np.clip(p + z * se, 0, 1)
    else:
        raise ValueError(f"method {show(method)} does not apply to {metric}")
    return low, high, defined


def _cp(k, m, alpha):
    from heldout.accuracy.bounds import exact_lower, exact_upper

    return (
        np.asarray(exact_lower(k, m, alpha / 2), dtype=float),
        np.asarray(exact_upper(k, m, alpha / 2), dtype=float),
    )


def count_coverage(
    metric: str,
    method: str,
    n: int,
    prevalence: float,
    sensitivity: float,
    specificity: float,
    reps: int = 2000,
    alpha: float = 0.05,
    seed=None,
) -> Coverage:
    """Coverage of an interval for a count-based metric of a binary classifier.

    Test sets of ``n`` items are drawn as multinomial confusion counts; the truth
    is :func:`count_truth`.  Methods: ``"clopper-pearson"``, ``"wald"`` and
    ``"wald-total"`` (a rate's variance over all ``n`` items instead of its own
    denominator) for the five rates; ``"exact"``, ``"logit"``, ``"wald"`` for
    ``"f1"``; ``"agresti-caffo"``, ``"logit"``, ``"wald"`` for ``"balanced_accuracy"``.  Test sets
    where the metric is undefined are excluded and counted in ``undefined``.

    Examples
    --------
    >>> c = count_coverage("precision", "clopper-pearson", 200, 0.1, 0.9, 0.9, reps=2000, seed=1)
    >>> c.holds, round(c.truth, 3)
    (True, 0.5)
    """
    as_instance(method, "method", str, "a method name")
    if not in_choices(metric, _COUNT_METRICS):
        raise ValueError(f"metric must be one of {', '.join(_COUNT_METRICS)}, got {show(metric)}")
    n = int(_inputs.count(n, "n", minimum=1, scalar=True))
    alpha = float(as_probability(alpha, "alpha", scalar=True))
    cells = _cells(prevalence, sensitivity, specificity)
    truth = float(_count_metric(metric, *cells))
    counts = make_rng(seed).multinomial(n, cells, size=_reps(reps)).astype(float)
    tn, fp, fn, tp = counts.T
    low, high, defined = _count_interval(metric, method, tn, fp, fn, tp, alpha)
    return _covers(low, high, truth, alpha, defined)


@dataclass(frozen=True)
class ConditionalCoverage(Result):
    """Coverage given each value of a random denominator, and how often it occurred."""

    denominators: np.ndarray
    coverage: np.ndarray
    share: np.ndarray


# Its signature repeats count_coverage's (both public); the draws and intervals are the
# helpers both call (_cells, _count_interval); only the summary by denominator differs.
def precision_conditional_coverage(
    method: str,
    n: int,
    prevalence: float,
    sensitivity: float,
    specificity: float,
    reps: int = 20000,
    alpha: float = 0.05,
    seed=None,
) -> ConditionalCoverage:
    """Coverage of a precision interval *given* each value of its random denominator.

    Returns a :class:`ConditionalCoverage` ``(denominators, coverage, share)``: for each number of predicted
    positives that occurred, the share of test sets with that denominator whose
    interval covered, and how often that denominator occurred.  Clopper-Pearson
    holds its level for every denominator (the numerator is binomial given it);
    the Wald interval does not for small ones.

    Examples
    --------
    >>> m, cov, share = precision_conditional_coverage("clopper-pearson", 200, 0.1, 0.9, 0.9, seed=1)
    >>> bool(np.all(cov[share > 0.01] >= 0.93))
    True
    """
    as_instance(method, "method", str, "a method name")
    # one entry per possible denominator: n is limited to what fits in memory
    n = int(as_count(n, "n", minimum=1, maximum=10**7, scalar=True))
    alpha = float(as_probability(alpha, "alpha", scalar=True))
    cells = _cells(prevalence, sensitivity, specificity)
    truth = float(_count_metric("precision", *cells))
    counts = make_rng(seed).multinomial(n, cells, size=_reps(reps)).astype(float)
    tn, fp, fn, tp = counts.T
    low, high, defined = _count_interval("precision", method, tn, fp, fn, tp, alpha)
    hit = (low <= truth) & (truth <= high)
    den = (tp + fp)[defined].astype(int)
    hit = hit[defined]
    values = np.unique(den)
    total = np.bincount(den)[values]
    covered = np.bincount(den, weights=hit)[values]
    return ConditionalCoverage(values, covered / total, total / counts.shape[0])


# --------------------------------------------------------------------------- scores
def binormal_scores(
    n: int, prevalence: float, auc: float, reps: int, seed=None, *, correlation=None, auc_b=None
):
    """Draw ``reps`` test sets of ``n`` scored items from the equal-variance binormal model.

    Returns ``y`` (reps, n) of bool and ``s`` (reps, n) (and ``s_b`` for a second
    model with AUC ``auc_b`` whose scores correlate ``correlation`` with the first
    within each class).

    Examples
    --------
    >>> y, s = binormal_scores(20_000, 0.3, 0.8, 1, seed=1)
    >>> from heldout.metrics.auc import auc
    >>> y.shape, round(float(auc(y[0], s[0])), 2)
    ((1, 20000), 0.8)
    """
    rng = make_rng(seed)
    n = int(_inputs.count(n, "n", minimum=2, scalar=True))
    pi = float(as_probability(prevalence, "prevalence", scalar=True))
    mu = math.sqrt(2) * special.ndtri(float(as_probability(auc, "auc", scalar=True)))
    r = _reps(reps)
    _items(n, r)
    y = rng.random((r, n)) < pi
    noise = rng.standard_normal((r, n))
    s = noise + mu * y
    if auc_b is None:
        return y, s
    rho = float(as_probability(correlation, "correlation", closed=True, scalar=True))
    mu_b = math.sqrt(2) * special.ndtri(float(as_probability(auc_b, "auc_b", scalar=True)))
    s_b = rho * noise + math.sqrt(1 - rho**2) * rng.standard_normal((r, n)) + mu_b * y
    return y, s, s_b


#: Score models of :func:`scored_test_sets` (each has AUC exactly ``auc``).
SCORE_MODELS = ("binormal", "binormal-wide", "exponential", "hard-positives", "lost-positives")
_FAR = 12.0  # twelve standard deviations: "above (or below) every other score"


def scored_test_sets(
    model: str, n: int, prevalence: float, auc: float, reps: int, seed=None
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``reps`` test sets of ``n`` scored items from a score model with AUC ``auc``.

    Negatives score :math:`N(0, 1)` (or :math:`\\mathrm{Exp}(1)`); the positives:

    ``"binormal"``
        :math:`N(\\mu, 1)`, :math:`\\mu = \\sqrt2\\,\\Phi^{-1}(A)`: the misranking
        comes from the tails of both classes;
    ``"binormal-wide"``
        :math:`N(\\mu, 4)`, :math:`\\mu = \\sqrt5\\,\\Phi^{-1}(A)`;
    ``"exponential"``
        :math:`\\mathrm{Exp}(1)/\\lambda` with :math:`\\lambda = (1-A)/A`, the model
        under which Hanley and McNeil's variance is exact;
    ``"hard-positives"``
        a share :math:`2(1-A)` of the positives scored like negatives (label noise,
        or cases the model cannot see), the rest far above every negative;
    ``"lost-positives"``
        a share :math:`1-A` of the positives far *below* every negative, the rest
        far above: each misranked positive is misranked against all negatives, the
        most variable way of losing :math:`1-A`.

    Returns ``y`` (reps, n) of bool and the scores (reps, n).

    Examples
    --------
    >>> y, s = scored_test_sets("hard-positives", 200_000, 0.5, 0.9, 1, seed=1)
    >>> from heldout.metrics.auc import auc
    >>> round(float(auc(y[0], s[0])), 2)
    0.9
    """
    if not in_choices(model, SCORE_MODELS):
        raise ValueError(f"model must be one of {', '.join(SCORE_MODELS)}, got {show(model)}")
    if model == "binormal":
        return binormal_scores(n, prevalence, auc, reps, seed)
    rng = make_rng(seed)
    n = int(_inputs.count(n, "n", minimum=2, scalar=True))
    pi = float(as_probability(prevalence, "prevalence", scalar=True))
    a = float(as_probability(auc, "auc", scalar=True))
    r = _reps(reps)
    _items(n, r)
    y = rng.random((r, n)) < pi
    z = rng.standard_normal((r, n))
    if model == "binormal-wide":
        s = np.where(y, math.sqrt(5) * special.ndtri(a) + 2 * z, z)
    elif model == "exponential":
        e = rng.standard_exponential((r, n))
        s = np.where(y, e * a / (1 - a), e)
    elif model == "hard-positives":
        if a < 0.5:
            raise ValueError(f"auc must be at least 0.5 for model {show(model)}, got {show(auc)}")
        hard = rng.random((r, n)) < 2 * (1 - a)
        s = z + np.where(y & ~hard, _FAR, 0.0)
    else:
        lost = rng.random((r, n)) < 1 - a
        s = z + np.where(y, np.where(lost, -_FAR, _FAR), 0.0)
    return y, s


def _batch_placements(y: np.ndarray, s: np.ndarray):
    """Per-item placement values of many test sets at once (rows), ties counted as halves.

    One sort per row: a positive's value is (negatives below it + half the negatives tied
    with it) / n0, a negative's (positives above it + half the positives tied with it) / n1
    :cite:`delong1988` (the midrank form of :cite:`sun2014`, on a 2-D array).  Scores that are
    small whole numbers (such as codes of a pool's distinct scores) sort by radix.
    """
    order = np.argsort(s, axis=1, kind="stable" if s.dtype.kind in "iub" else None)
    ss = np.take_along_axis(s, order, axis=1)
    yy = np.take_along_axis(y, order, axis=1)
    r, n = yy.shape
    pos_upto = np.cumsum(yy, axis=1, dtype=np.int32)  # positives at or before each place
    n1 = pos_upto[:, -1:].astype(float)
    n0 = n - n1
    place = np.arange(1, n + 1, dtype=np.int32)  # items at or before each place
    if n > 1 and np.any(ss[:, 1:] == ss[:, :-1]):  # ties: first and last place of each run
        new = np.ones((r, n), bool)
        new[:, 1:] = ss[:, 1:] != ss[:, :-1]
        last = np.ones((r, n), bool)
        last[:, :-1] = new[:, 1:]
        first = np.maximum.accumulate(np.where(new, place - 1, 0), axis=1)
        end = np.minimum.accumulate(np.where(last, place - 1, n - 1)[:, ::-1], axis=1)[:, ::-1]
        pos_before = np.take_along_axis(pos_upto - yy, first, axis=1)
        pos_through = np.take_along_axis(pos_upto, end, axis=1)
        neg_before = first - pos_before
        twice_neg = 2 * neg_before + (end + 1 - first) - (pos_through - pos_before)
        twice_pos = 2 * (n1 - pos_through) + (pos_through - pos_before)
    else:
        twice_neg = 2 * (place - pos_upto)  # a positive: the negatives below it
        twice_pos = 2 * (n1 - pos_upto)  # a negative: the positives above it
    with np.errstate(invalid="ignore", divide="ignore"):
        sorted_values = np.where(yy, twice_neg / (2 * n0), twice_pos / (2 * n1))
    values = np.empty_like(sorted_values)
    np.put_along_axis(values, order, sorted_values, axis=1)
    return values, n1[:, 0].astype(np.int64), n0[:, 0].astype(np.int64)


def _batch_delong(y: np.ndarray, *scores: np.ndarray):
    """AUCs and DeLong covariance terms for many test sets (rows), several models.

    Returns ``(aucs, cov, n1, n0)``: one array of AUCs per model, ``cov[i, j]`` (``i <= j``)
    DeLong's covariance of models ``i`` and ``j`` per row, and the class counts per row.
    """
    vals = [_batch_placements(y, s)[0] for s in scores]
    yf = y.astype(float)
    n1 = y.sum(axis=1)
    n0 = y.shape[1] - n1
    with np.errstate(invalid="ignore", divide="ignore"):
        sums = [(np.einsum("ij,ij->i", v, yf), v.sum(axis=1)) for v in vals]
        aucs = [sp / n1 for sp, _ in sums]
        mean_pos = [sp / n1 for sp, _ in sums]
        mean_neg = [(st - sp) / n0 for sp, st in sums]
        cov = {}
        for i in range(len(vals)):
            for j in range(i, len(vals)):
                prod = vals[i] * vals[j]
                pos_sum = np.einsum("ij,ij->i", prod, yf)
                neg_sum = prod.sum(axis=1) - pos_sum
                s10 = (pos_sum - n1 * mean_pos[i] * mean_pos[j]) / (n1 - 1)
                s01 = (neg_sum - n0 * mean_neg[i] * mean_neg[j]) / (n0 - 1)
                cov[i, j] = s10 / n1 + s01 / n0
    return aucs, cov, n1, n0


_AUC_METHODS = (*AUC_INTERVAL_METHODS, "binomial-total", "bca")


def auc_coverage(
    method: str | tuple,
    n: int,
    prevalence: float,
    auc: float,
    reps: int = 2000,
    alpha: float = 0.05,
    seed=None,
    n_resamples: int = 999,
    model: str = "binormal",
) -> Coverage | dict:
    """Coverage of an AUC interval on test sets drawn from a score model (truth: ``auc``).

    Methods: those of :func:`heldout.metrics.auc.auc_interval` (computed by the same
    code, vectorised over the test sets), ``"bca"``
    (:func:`heldout.metrics.bootstrap.bootstrap_interval`) and ``"binomial-total"``,
    :math:`\\hat A \\pm z\\sqrt{\\hat A(1-\\hat A)/n}`, what one gets by treating the
    AUC as a mean over the :math:`n` items.  ``model`` is one of
    :data:`SCORE_MODELS` (:func:`scored_test_sets`).  Test sets with fewer than
    two items of a class are excluded (counted in ``undefined``).  ``method`` may
    be a sequence of methods: they are then computed on the same test sets and
    returned as a ``dict``.

    Examples
    --------
    >>> c = auc_coverage("auto", 400, 0.3, 0.8, reps=1000, seed=2)
    >>> c.holds
    True
    """
    from heldout.metrics.auc import _interval_arrays

    methods = _methods(method)
    for m in methods:
        if not in_choices(m, _AUC_METHODS):
            raise ValueError(f"method must be one of {', '.join(_AUC_METHODS)}, got {show(m)}")
    alpha = float(as_probability(alpha, "alpha", scalar=True))
    n_resamples = as_draws(n_resamples, "n_resamples", minimum=100)
    y, s = scored_test_sets(model, n, prevalence, auc, reps, seed)
    z = stats.norm.isf(alpha / 2)
    out = {}
    if "bca" in methods:
        out["bca"] = _bootstrap_rows("auc", y, s, None, auc, alpha, n_resamples, seed)
    if any(m != "bca" for m in methods):
        aucs, cov, n1, n0 = _batch_delong(y, s)
        defined = (n1 >= 2) & (n0 >= 2)
        a = np.where(defined, aucs[0], 0.5)
        var = np.where(defined, cov[0, 0], 0.0)
        n1d, n0d = np.maximum(n1, 1), np.maximum(n0, 1)
        for m in methods:
            if m == "bca":
                continue
            if m == "binomial-total":
                half = z * np.sqrt(a * (1 - a) / y.shape[1])
                low, high = a - half, a + half
            else:
                low, high, _ = _interval_arrays(a, var, n1d, n0d, alpha, m)
            out[m] = _covers(low, high, auc, alpha, defined)
    return out[methods[0]] if isinstance(method, str) else {m: out[m] for m in methods}


#: Settings of :func:`untuned_test_sets`: where the thresholds of ``auc_interval``'s
#: ``"auto"`` (``SHORTFALL_MIN``, ``CLASS_MIN``) were not chosen.
UNTUNED_SETTINGS = ("hard-negatives", "ties", "near-one", "near-one-rare")


def untuned_test_sets(setting: str, reps: int, seed=None):
    """Test sets of a setting the AUC thresholds were not tuned on, and the true AUC.

    ``"hard-negatives"``: 80 positives :math:`N(2.33, 1)`, 320 negatives :math:`N(0, 1)` of
    which 3 % score 12 higher (above every positive); ``"ties"``: 90 positives
    :math:`N(1.47, 1)` and 210 negatives :math:`N(0, 1)` rounded to a grid of 0.5 (the
    truth counts tied pairs as halves); ``"near-one"``: binormal, AUC 0.995, 100 positives
    and 900 negatives; ``"near-one-rare"``: AUC 0.999, 30 positives and 970 negatives.
    Returns ``y`` (``reps``, n) of bool (positives first), the scores (``reps``, n) and the
    true AUC.

    Examples
    --------
    >>> y, s, truth = untuned_test_sets("near-one", 3, seed=1)
    >>> y.shape, int(y[0].sum()), truth
    ((3, 1000), 100, 0.995)
    """
    if not in_choices(setting, UNTUNED_SETTINGS):
        raise ValueError(
            f"setting must be one of {', '.join(UNTUNED_SETTINGS)}, got {show(setting)}"
        )
    rng = make_rng(seed)
    r = _reps(reps)
    if setting == "hard-negatives":  # 3 % of the negatives score far above every positive
        n1, n0, mu, h = 80, 320, 2.33, 0.03
        _items(n1 + n0, r)
        pos = rng.normal(mu, 1, (r, n1))
        neg = rng.normal(0, 1, (r, n0)) + _FAR * (rng.random((r, n0)) < h)
        truth = (1 - h) * special.ndtr(mu / math.sqrt(2)) + h * special.ndtr(
            (mu - _FAR) / math.sqrt(2)
        )
    elif setting == "ties":  # binormal scores rounded to a grid of 0.5: many ties
        n1, n0, mu = 90, 210, 1.47
        _items(n1 + n0, r)
        pos = np.round(2 * rng.normal(mu, 1, (r, n1))) / 2
        neg = np.round(2 * rng.normal(0, 1, (r, n0))) / 2
        grid = np.arange(-8, 12.5, 0.5)  # cell probabilities of the rounded scores

        def cell(m):
            return special.ndtr(grid + 0.25 - m) - special.ndtr(grid - 0.25 - m)

        p1, p0 = cell(mu), cell(0.0)
        truth = float(np.sum(p1 * (np.cumsum(p0) - p0)) + 0.5 * np.sum(p1 * p0))
    else:  # AUC near 1
        n1, n0 = (100, 900) if setting == "near-one" else (30, 970)
        _items(n1 + n0, r)
        a = 0.995 if setting == "near-one" else 0.999
        mu = math.sqrt(2) * special.ndtri(a)
        pos = rng.normal(mu, 1, (r, n1))
        neg = rng.normal(0, 1, (r, n0))
        truth = a
    y = np.broadcast_to(np.r_[np.ones(n1, bool), np.zeros(n0, bool)], (r, n1 + n0))
    return np.ascontiguousarray(y), np.hstack([pos, neg]), float(truth)


def untuned_auc_coverage(
    setting: str, method: str = "auto", reps: int = 2000, alpha: float = 0.05, seed=None
) -> Coverage:
    """Coverage of an AUC interval on the test sets of :func:`untuned_test_sets`.

    The interval is :func:`heldout.metrics.auc.auc_interval`'s ``method``, computed by the
    same code for all test sets at once (DeLong's variance from tie-aware placement values).

    Examples
    --------
    >>> untuned_auc_coverage("ties", reps=500, seed=3).holds
    True
    """
    from heldout.metrics.auc import _check_method, _interval_arrays

    _check_method(method)
    alpha = float(as_probability(alpha, "alpha"))
    y, s, truth = untuned_test_sets(setting, reps, seed)
    aucs, cov, n1, n0 = _batch_delong(y, s)
    low, high, _ = _interval_arrays(aucs[0], cov[0, 0], n1, n0, alpha, method)
    return _covers(low, high, truth, alpha)


#: Score models of :func:`auc_difference_coverage`.
PAIRED_SCORE_MODELS = ("binormal", "shared-hard")


def auc_difference_coverage(
    n: int,
    prevalence: float,
    auc_a: float,
    auc_b: float,
    correlation: float,
    reps: int = 2000,
    alpha: float = 0.05,
    seed=None,
    method: str | tuple = "mover",
    model: str = "binormal",
) -> Coverage | dict:
    """Coverage of a paired interval for ``AUC(A) - AUC(B)`` (:func:`heldout.metrics.auc.auc_difference`).

    ``model="binormal"``: correlated binormal scores (correlation ``correlation``
    within each class).  ``"shared-hard"``: a share :math:`2(1-A)` of the positives
    is hard for model A and :math:`2(1-B)` for model B, the hard positives of A
    being hard for B too (one uniform draw decides both), the others far above
    the negatives; the noise correlates ``correlation``.  Methods ``"mover"``
    and ``"delong"``; a sequence gives a ``dict``.

    Examples
    --------
    >>> auc_difference_coverage(300, 0.3, 0.8, 0.75, 0.6, reps=1000, seed=3).holds
    True
    """
    from heldout.metrics.auc import _correlation, _mover_ends

    methods = _methods(method)
    for m in methods:
        if not in_choices(m, ("mover", "delong")):
            raise ValueError(f"method must be 'mover' or 'delong', got {show(m)}")
    if not in_choices(model, PAIRED_SCORE_MODELS):
        raise ValueError(
            f"model must be one of {', '.join(PAIRED_SCORE_MODELS)}, got {show(model)}"
        )
    alpha = float(as_probability(alpha, "alpha", scalar=True))
    as_probability(auc_a, "auc_a", scalar=True)
    as_probability(auc_b, "auc_b", scalar=True)
    if model == "binormal":
        y, sa, sb = binormal_scores(
            n, prevalence, auc_a, reps, seed, correlation=correlation, auc_b=auc_b
        )
    else:
        rng = make_rng(seed)
        n = int(_inputs.count(n, "n", minimum=2, scalar=True))
        pi = float(as_probability(prevalence, "prevalence", scalar=True))
        qa = 2 * (1 - float(as_probability(auc_a, "auc_a", scalar=True)))
        qb = 2 * (1 - float(as_probability(auc_b, "auc_b", scalar=True)))
        rho = float(as_probability(correlation, "correlation", closed=True, scalar=True))
        r = _reps(reps)
        _items(n, r)
        y = rng.random((r, n)) < pi
        u = rng.random((r, n))
        za = rng.standard_normal((r, n))
        zb = rho * za + math.sqrt(1 - rho**2) * rng.standard_normal((r, n))
        sa = za + np.where(y & (u >= qa), _FAR, 0.0)
        sb = zb + np.where(y & (u >= qb), _FAR, 0.0)
    aucs, cov, n1, n0 = _batch_delong(y, sa, sb)
    defined = (n1 >= 2) & (n0 >= 2)
    d = aucs[0] - aucs[1]
    truth = auc_a - auc_b
    out = {}
    for m in methods:
        if m == "delong":
            var = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
            half = stats.norm.isf(alpha / 2) * np.sqrt(np.maximum(np.where(defined, var, 0), 0))
            low, high = d - half, d + half
        else:
            va = np.where(defined, cov[0, 0], 0.0)
            vb = np.where(defined, cov[1, 1], 0.0)
            r_ab = _correlation(va, vb, np.where(defined, cov[0, 1], 0.0))
            low, high = _mover_ends(
                np.where(defined, aucs[0], 0.5),
                np.where(defined, aucs[1], 0.5),
                va,
                vb,
                r_ab,
                np.maximum(n1, 1),
                np.maximum(n0, 1),
                alpha,
            )
        out[m] = _covers(low, high, truth, alpha, defined)
    return out[methods[0]] if isinstance(method, str) else out


def score_truth(score: str, prevalence: float, auc: float, sharpness: float = 1.0) -> float:
    """True mean Brier score or log loss of the binormal model's probability.

    The model predicts :math:`q = \\operatorname{expit}(k\\,\\ell(s))` with
    :math:`\\ell(s) = \\operatorname{logit}\\pi + \\mu s - \\mu^2/2` the true log-odds
    (:math:`k` = ``sharpness``; 1 is calibrated); the expectation over the score
    mixture is computed by adaptive quadrature.

    Examples
    --------
    >>> round(score_truth("brier", 0.5, 0.5), 6)  # q = 1/2 always
    0.25
    """
    pi = float(as_probability(prevalence, "prevalence", scalar=True))
    mu = math.sqrt(2) * special.ndtri(float(as_probability(auc, "auc", scalar=True)))
    k = float(as_positive(sharpness, "sharpness", scalar=True))

    def integrand(s):
        logit = math.log(pi / (1 - pi)) + mu * s - mu * mu / 2
        p_true = special.expit(logit)
        q = float(np.clip(special.expit(k * logit), 1e-15, 1 - 1e-15))
        dens = pi * stats.norm.pdf(s - mu) + (1 - pi) * stats.norm.pdf(s)
        if score == "brier":
            loss = p_true * (1 - q) ** 2 + (1 - p_true) * q**2
        else:
            loss = -(p_true * math.log(q) + (1 - p_true) * math.log1p(-q))
        return loss * dens

    if not in_choices(score, ("brier", "log_loss")):
        raise ValueError(f"score must be 'brier' or 'log_loss', got {show(score)}")
    lo, hi = min(-10.0, mu - 10), max(10.0, mu + 10)
    value, _ = integrate.quad(integrand, lo, hi, limit=200, epsabs=1e-12, epsrel=1e-10)
    return float(value)


def score_coverage(
    score: str,
    method: str | tuple,
    n: int,
    prevalence: float,
    auc: float,
    sharpness: float = 1.0,
    reps: int = 2000,
    alpha: float = 0.05,
    seed=None,
    n_resamples: int = 999,
) -> Coverage | dict:
    """Coverage of an interval for a proper score: ``"gamma"``, ``"t"`` or ``"bca"``.

    The methods of :func:`heldout.metrics.scores.score_interval`, on test sets of the
    binormal model whose probabilities have ``sharpness`` times the true log-odds
    (the truth is :func:`score_truth`).  A sequence of methods is computed on the
    same test sets and returned as a ``dict``.

    Examples
    --------
    >>> score_coverage("brier", "gamma", 500, 0.3, 0.8, reps=1000, seed=4).holds
    True
    """
    from heldout.metrics.scores import _gamma_interval, _t_interval

    alpha = float(as_probability(alpha, "alpha", scalar=True))
    truth = score_truth(score, prevalence, auc, sharpness)
    y, s = binormal_scores(n, prevalence, auc, reps, seed)
    mu = math.sqrt(2) * special.ndtri(auc)
    logit = math.log(prevalence / (1 - prevalence)) + mu * s - mu * mu / 2
    q = special.expit(sharpness * logit)
    methods = _methods(method)
    for m in methods:
        if not in_choices(m, ("t", "gamma", "bca")):
            raise ValueError(f"method must be 'gamma', 't' or 'bca', got {show(m)}")
    n_resamples = as_draws(n_resamples, "n_resamples", minimum=100)
    qc = np.clip(q, 1e-15, 1 - 1e-15)
    if score == "brier":
        loss = (q - y) ** 2
    else:
        loss = -np.where(y, np.log(qc), np.log1p(-qc))
    out = {}
    for m in methods:
        if m == "bca":
            out[m] = _bootstrap_rows(score, y, q, None, truth, alpha, n_resamples, seed)
            continue
        compute = _gamma_interval if m == "gamma" else _t_interval
        _, low, high, _ = compute(loss, alpha, axis=1)
        out[m] = _covers(low, high, truth, alpha)
    return out[methods[0]] if isinstance(method, str) else out


# --------------------------------------------------------------------------- bootstrap
def _bootstrap_rows(metric, y, a, b, truth, alpha, n_resamples, seed, per_row=False):
    from heldout.metrics.bootstrap import bootstrap_interval

    rng = make_rng(seed)
    hits, widths, defined = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(y.shape[0]):
            try:
                e = bootstrap_interval(
                    metric,
                    y[i],
                    a[i],
                    None if b is None else b[i],
                    alpha=alpha,
                    n_resamples=n_resamples,
                    seed=rng,
                    warn=False,
                )
            except ValueError:
                hits.append(False)
                widths.append(math.nan)
                defined.append(False)
                continue
            ok = math.isfinite(e.low) and math.isfinite(e.high)
            hits.append(ok and e.low <= truth <= e.high)
            widths.append(e.high - e.low if ok else math.nan)
            defined.append(ok)
    cov = _coverage(np.array(hits), np.array(widths), truth, np.array(defined), alpha)
    return (cov, np.array(hits)) if per_row else cov


def _label_rows(cells: np.ndarray, n: int, reps: int, rng) -> tuple[np.ndarray, ...]:
    """Item-level labels (y, a[, b]) of ``reps`` test sets from joint cell shares."""
    k = cells.size
    codes = rng.choice(k, size=(reps, n), p=cells)
    bits = int(round(math.log2(k)))
    return tuple(((codes >> (bits - 1 - j)) & 1).astype(bool) for j in range(bits))


def bootstrap_coverage(
    metric: str,
    n: int,
    prevalence: float,
    sensitivity: float,
    specificity: float,
    reps: int = 500,
    alpha: float = 0.05,
    seed=None,
    n_resamples: int = 999,
    *,
    paired_with: tuple[float, float, float] | None = None,
) -> tuple[Coverage, np.ndarray, np.ndarray]:
    """Coverage of the BCa bootstrap for a count metric (or a paired difference of two).

    ``paired_with = (sensitivity_b, specificity_b, agreement)`` adds a model B whose
    correctness on each item agrees with A's beyond chance by ``agreement`` (a
    correlation of the two correctness indicators within each class); the
    interval is then for ``metric(A) - metric(B)``.

    Returns the :class:`Coverage` and, per test set, the smallest count the metric
    depends on (the quantity of the :data:`heldout.metrics.bootstrap.MIN_COUNT` rule) and
    whether its interval covered, so that coverage can be read as a function of
    that count.

    Examples
    --------
    >>> c, minority, hits = bootstrap_coverage("f1", 400, 0.3, 0.85, 0.9, reps=200, seed=5)
    >>> c.holds
    True
    """
    from heldout.metrics.bootstrap import _binary_minority

    alpha = float(as_probability(alpha, "alpha", scalar=True))
    n_resamples = as_count(n_resamples, "n_resamples", minimum=1, scalar=True)
    rng = make_rng(seed)
    n = int(_inputs.count(n, "n", minimum=2, scalar=True))
    r = _reps(reps)
    _items(n, r)
    check_work(float(n) * r * n_resamples, MAX_DRAWS, "n times reps times n_resamples")
    base = _cells(prevalence, sensitivity, specificity)
    truth = float(_count_metric(metric, *base))
    if paired_with is None:
        cells = base  # order tn, fp, fn, tp = codes 0..3 = (y, a) bits
        y, a = _label_rows(cells, n, r, rng)
        b = None
    else:
        sb, tb, agree = paired_with
        cells = _paired_cells(prevalence, sensitivity, specificity, sb, tb, agree)
        y, a, b = _label_rows(cells, n, r, rng)
        cells_b = _cells(prevalence, sb, tb)
        truth -= float(_count_metric(metric, *cells_b))
    cov, hits = _bootstrap_rows(metric, y, a, b, truth, alpha, n_resamples, rng, per_row=True)
    minority = np.array(
        [
            _binary_minority(np.bincount(2 * yi + ai, minlength=4).reshape(2, 2), metric)
            for yi, ai in zip(y.astype(int), a.astype(int), strict=True)
        ]
    )
    return cov, minority, hits


def _paired_cells(pi, sa, ta, sb, tb, agree) -> np.ndarray:
    """Cell shares over (y, a, b) bits with correlated correctness of A and B within each class."""
    out = np.zeros(8)
    for y, prior, (ca, cb) in ((1, pi, (sa, sb)), (0, 1 - pi, (ta, tb))):
        both = ca * cb + agree * math.sqrt(ca * (1 - ca) * cb * (1 - cb))
        only_a, only_b = ca - both, cb - both
        neither = 1 - both - only_a - only_b
        if min(both, only_a, only_b, neither) < -1e-12:
            raise ValueError("agreement is too strong for these sensitivities and specificities")
        right = y  # the correct prediction for class y
        for pa, pb, share in (
            (right, right, both),
            (right, 1 - right, only_a),
            (1 - right, right, only_b),
            (1 - right, 1 - right, neither),
        ):
            out[4 * y + 2 * pa + pb] += prior * max(share, 0.0)
    return out / out.sum()


def accuracy_difference_coverage(
    n: int,
    accuracy_a: float,
    accuracy_b: float,
    agreement: float,
    reps: int = 2000,
    alpha: float = 0.05,
    seed=None,
) -> Coverage:
    """Coverage of the Agresti-Min interval for a paired accuracy difference.

    Examples
    --------
    >>> accuracy_difference_coverage(200, 0.9, 0.87, 0.5, reps=2000, seed=6).holds
    True
    """
    from heldout.metrics.rates import _agresti_min

    alpha = float(as_probability(alpha, "alpha", scalar=True))
    ca = float(as_probability(accuracy_a, "accuracy_a", scalar=True))
    cb = float(as_probability(accuracy_b, "accuracy_b", scalar=True))
    agreement = float(as_probability(agreement, "agreement", closed=True, scalar=True))
    both = ca * cb + agreement * math.sqrt(ca * (1 - ca) * cb * (1 - cb))
    cells = np.array([both, ca - both, cb - both, 1 - ca - cb + both])
    if np.any(cells < -1e-12):
        raise ValueError("agreement is too strong for these accuracies")
    n = int(_inputs.count(n, "n", minimum=1, scalar=True))
    counts = make_rng(seed).multinomial(
        n, np.maximum(cells, 0) / np.maximum(cells, 0).sum(), size=_reps(reps)
    )
    low, high = _agresti_min(counts[:, 1], counts[:, 2], np.full(counts.shape[0], n), alpha)
    truth = ca - cb
    return _covers(low, high, truth, alpha)


# --------------------------------------------------------------------------- several classes
def simultaneous_coverage(
    method: str, probabilities, n: int, reps: int = 2000, alpha: float = 0.05, seed=None
) -> Coverage:
    """Share of multinomial rows whose intervals cover *every* true proportion at once.

    Methods: ``"bonferroni-exact"``, ``"goodman"``, ``"sison-glaz"`` (simultaneous)
    and ``"clopper-pearson"`` (one exact interval per cell, not simultaneous).

    Examples
    --------
    >>> simultaneous_coverage("goodman", [0.7, 0.2, 0.1], 200, reps=1000, seed=7).holds
    True
    """
    as_instance(method, "method", str, "a method name")
    from heldout.metrics.multinomial import sison_glaz

    alpha = float(as_probability(alpha, "alpha", scalar=True))
    p = as_probability(probabilities, "probabilities", closed=True)
    if p.ndim != 1 or p.size < 2 or not np.isclose(p.sum(), 1.0):
        raise ValueError(
            f"probabilities must be at least two cell probabilities summing to 1, got {show(probabilities)}"
        )
    n = int(_inputs.count(n, "n", minimum=1, scalar=True))
    counts = make_rng(seed).multinomial(n, p, size=_reps(reps))
    if method == "goodman":
        low, high = goodman_rows(counts, alpha)
    elif method == "clopper-pearson":
        low, high = _cp(counts, np.full(counts.shape, int(n)), alpha)
    elif method == "bonferroni-exact":
        low, high = _cp(counts, np.full(counts.shape, int(n)), alpha / counts.shape[1])
    elif method == "sison-glaz":
        rows = [sison_glaz(c, alpha) for c in counts]
        low = np.array([r[0] for r in rows])
        high = np.array([r[1] for r in rows])
    else:
        raise ValueError(
            "method must be bonferroni-exact, goodman, sison-glaz or clopper-pearson, "
            f"got {show(method)}"
        )
    hit = np.all((low <= p + 1e-12) & (p - 1e-12 <= high), axis=1)
    return _coverage(
        hit, (high - low).mean(axis=1), math.nan, np.ones(counts.shape[0], bool), alpha
    )


def goodman_rows(counts: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Goodman's intervals for many rows of counts at once (rows, K)."""
    c = np.asarray(counts, dtype=float)
    n = c.sum(axis=1, keepdims=True)
    a = stats.chi2.isf(alpha / c.shape[1], 1)
    root = np.sqrt(a * (a + 4 * c * (n - c) / n))
    return (a + 2 * c - root) / (2 * (n + a)), (a + 2 * c + root) / (2 * (n + a))


def macro_f1_coverage(
    method: str,
    n: int,
    classes: int,
    accuracy: float,
    reps: int = 2000,
    alpha: float = 0.05,
    seed=None,
    imbalance: float = 1.0,
) -> Coverage:
    """Coverage of the delta-method interval of the macro F1 (``"logit"`` or ``"wald"``).

    Class shares are proportional to ``imbalance**i`` (1: balanced); each class is
    predicted correctly with probability ``accuracy``, errors spread evenly over
    the other classes.

    Examples
    --------
    >>> macro_f1_coverage("logit", 1000, 5, 0.9, reps=2000, seed=8).verdict
    'holds'
    """
    from heldout.metrics.fscore import _macro_value_and_gradient, macro_interval

    alpha = float(as_probability(alpha, "alpha", scalar=True))
    k = int(as_count(classes, "classes", minimum=2, maximum=1000, scalar=True))
    shares = float(as_positive(imbalance, "imbalance", scalar=True)) ** np.arange(k)
    if not np.all(np.isfinite(shares)) or shares[-1] == 0:
        raise ValueError(
            f"imbalance**(classes - 1) must be a finite positive share, got {show(imbalance)}"
        )
    shares /= shares.sum()
    acc = float(as_probability(accuracy, "accuracy", closed=True, scalar=True))
    p = np.full((k, k), (1 - acc) / (k - 1))
    np.fill_diagonal(p, acc)
    p *= shares[:, None]
    truth = float(_macro_value_and_gradient(p, "f1")[0])
    n = int(_inputs.count(n, "n", minimum=1, scalar=True))
    counts = make_rng(seed).multinomial(n, p.ravel(), size=_reps(reps)).reshape(-1, k, k)
    e = macro_interval(counts, "f1", alpha, method)
    low, high = np.asarray(e.low), np.asarray(e.high)
    return _covers(low, high, truth, alpha)


def score_difference_coverage(
    score: str,
    n: int,
    prevalence: float,
    auc: float,
    sharpness_a: float = 1.0,
    sharpness_b: float = 2.0,
    reps: int = 2000,
    alpha: float = 0.05,
    seed=None,
) -> Coverage:
    """Coverage of the paired t-interval of :func:`heldout.metrics.scores.score_difference`.

    Two models score the same binormal test sets with ``sharpness_a`` and
    ``sharpness_b`` times the true log-odds (:func:`score_coverage`); the truth
    is the difference of their :func:`score_truth`.

    Examples
    --------
    >>> score_difference_coverage("brier", 2000, 0.3, 0.85, reps=1000, seed=4).holds
    True
    """
    from heldout.metrics.scores import _t_interval

    if not in_choices(score, ("brier", "log_loss")):
        raise ValueError(f"score must be 'brier' or 'log_loss', got {show(score)}")
    alpha = float(as_probability(alpha, "alpha", scalar=True))
    sharpness_a = float(as_positive(sharpness_a, "sharpness_a", scalar=True))
    sharpness_b = float(as_positive(sharpness_b, "sharpness_b", scalar=True))
    truth = score_truth(score, prevalence, auc, sharpness_a) - score_truth(
        score, prevalence, auc, sharpness_b
    )
    y, s = binormal_scores(n, prevalence, auc, reps, seed)
    mu = math.sqrt(2) * special.ndtri(auc)
    logit = math.log(prevalence / (1 - prevalence)) + mu * s - mu * mu / 2

    def losses(k):
        q = special.expit(k * logit)
        if score == "brier":
            return (q - y) ** 2
        qc = np.clip(q, 1e-15, 1 - 1e-15)
        return -np.where(y, np.log(qc), np.log1p(-qc))

    _, low, high, _ = _t_interval(losses(sharpness_a) - losses(sharpness_b), alpha, axis=1)
    return _covers(low, high, truth, alpha)
