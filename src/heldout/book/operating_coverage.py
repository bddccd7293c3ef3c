"""Simulations behind the lesson on operating points and calibration.

Every interval of :mod:`heldout.metrics.operating`, :mod:`heldout.metrics.partial_area`,
:mod:`heldout.metrics.simultaneous_band` and :mod:`heldout.metrics.calibration` is checked the
same way: draw test sets from the equal-variance binormal model (positives
:math:`N(\\mu, 1)`, negatives :math:`N(0, 1)`, :math:`\\mu = \\sqrt2\\,\\Phi^{-1}(\\mathrm{AUC})`
:cite:`pepe2003`), where every true value has a closed form or a one-dimensional
integral, compute the interval on each and count how often it holds the truth.
:func:`threshold_simulation` measures the optimism of a threshold tuned on the test
set and the coverage of the remedies.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import integrate, special, stats

from heldout._checks import as_choice, as_count, as_draws, as_positive, as_probability
from heldout._result import Result
from heldout.config import rng as make_rng

__all__ = [
    "COVERAGE_CHECKS",
    "Coverage",
    "ThresholdSimulation",
    "operating_coverage",
    "threshold_simulation",
]

#: What :func:`operating_coverage` can check.
COVERAGE_CHECKS = (
    "sensitivity-bootstrap",
    "sensitivity-bootstrap-only",
    "sensitivity-order-statistic",
    "sensitivity-fixed-threshold",
    "threshold",
    "partial-auc-logit",
    "partial-auc-delong",
    "partial-auc-bootstrap",
    "roc-band",
    "ece",
    "slope",
    "intercept",
    "spiegelhalter",
)


# Not heldout.book.metric_coverage.Coverage and its _coverage summary: that one drops the
# sets where a metric is undefined (here every interval is defined), takes the larger Monte
# Carlo error of the observed coverage and the promised level (here always the level's,
# for a rejection rate too), and its fields (mcse, undefined, level) differ from the ones the operating-points lesson
# and its tests read (mc_se).  The verdict on either comes from
# heldout.book.chapter.coverage_verdict (level_verdict for the rejection rate).
@dataclass(frozen=True)
class Coverage(Result):
    """Share of simulated test sets whose interval held the truth (or whose test rejected).

    Attributes
    ----------
    coverage : float
        Coverage (for ``"spiegelhalter"``: the rejection rate under calibration).
    reps : int
    mc_se : float
        Monte Carlo standard error :math:`\\sqrt{\\alpha(1-\\alpha)/R}` at the promised level.
    width : float
        Mean width of the interval (NaN for the test).
    truth : float
        The true value the intervals aimed at.
    """

    coverage: float
    reps: int
    mc_se: float
    width: float
    truth: float


#: Stated limits of the simulations (beyond them a run cannot finish or fit on one machine).
_MAX_N = 10_000_000
_MAX_REPS = 1_000_000
_MAX_WORK = 10_000_000_000


def _mu(auc: float) -> float:
    return math.sqrt(2) * float(special.ndtri(auc))


def _draw(gen, n, pi, mu):
    while True:
        y = gen.random(n) < pi
        if 0 < y.sum() < n:
            return y, gen.standard_normal(n) + mu * y


def _true_logit(s, pi, mu):
    return mu * s - mu * mu / 2 + math.log(pi / (1 - pi))


def _true_pauc(mu: float, lo: float, hi: float) -> float:
    """Standardised partial AUC of the binormal curve over specificities [lo, hi]."""
    raw = integrate.quad(lambda sp: stats.norm.sf(stats.norm.ppf(sp) - mu), lo, hi)[0]
    f1, f2 = 1 - hi, 1 - lo
    m, big = (f2 * f2 - f1 * f1) / 2, f2 - f1
    return 0.5 * (1 + (raw - m) / (big - m))


@lru_cache(maxsize=16)
def _population_ce(pi, mu, gamma, n_bins) -> tuple[float, float]:
    """Binned l2 calibration error and calibration-in-the-large of the model, from 2e6 items."""
    y, s = _draw(make_rng(12345), 2_000_000, pi, mu)
    true = special.expit(_true_logit(s, pi, mu))
    p = special.expit(gamma * _true_logit(s, pi, mu))
    edges = np.quantile(p, np.linspace(0, 1, n_bins + 1)[1:-1])
    b = np.searchsorted(edges, p, side="right")
    cnt = np.bincount(b, minlength=n_bins)
    gap = (np.bincount(b, true, n_bins) - np.bincount(b, p, n_bins)) / cnt
    ce = float(np.sqrt(np.sum(cnt / cnt.sum() * gap**2)))
    lp = special.logit(p)
    a = 0.0
    for _ in range(30):  # calibration in the large: solve E[expit(a + lp)] = E[true]
        mu_a = special.expit(a + lp)
        a += (true.mean() - mu_a.mean()) / np.mean(mu_a * (1 - mu_a))
    return ce, float(a)


def operating_coverage(
    check: str,
    n: int,
    prevalence: float,
    auc: float,
    reps: int,
    alpha: float = 0.05,
    seed=None,
    *,
    at: float = 0.9,
    band: tuple = (0.8, 1.0),
    gamma: float = 1.0,
    n_bins: int = 10,
    n_resamples: int = 500,
) -> Coverage:
    """Coverage of one interval of the lesson over ``reps`` simulated binormal test sets.

    The truth: :math:`Se(s) = 1 - \\Phi(\\Phi^{-1}(s) - \\mu)` for the sensitivity at
    specificity ``at`` (``"sensitivity-bootstrap"`` is the function's default, which takes
    the order-statistic route where few negatives lie above the threshold;
    ``"sensitivity-bootstrap-only"`` bootstraps at every point); :math:`\\Phi^{-1}(s)` for
    the threshold's quantile interval (``"threshold"``); :math:`\\int Se(s)\\,ds` standardised for the partial AUC
    :cite:`mcclish1989`; the whole curve on the band's grid (``"roc-band"``); for
    calibration the model's probabilities are :math:`\\operatorname{expit}(\\gamma L)` with
    :math:`L` the true log-odds, so the slope is :math:`1/\\gamma` :cite:`cox1958`, the
    binned error and the intercept come from two million items, and
    ``"spiegelhalter"`` reports the rejection rate at :math:`\\gamma = 1`
    :cite:`spiegelhalter1986`.

    Parameters
    ----------
    check : str
        One of :data:`COVERAGE_CHECKS`.
    n : int
        Items per test set.
    prevalence, auc : float
    reps : int
        Simulated test sets.
    alpha : float
    seed : int, Generator or None
    at, band, gamma, n_bins, n_resamples
        The fixed specificity, the partial-AUC band, the model's miscalibration, the bins
        of the calibration error and the bootstrap resamples of each interval.

    Returns
    -------
    Coverage

    Examples
    --------
    >>> r = operating_coverage("partial-auc-delong", 300, 0.5, 0.85, 50, seed=1)
    >>> r.reps, bool(0.8 <= r.coverage <= 1)
    (50, True)
    """
    check = as_choice(check, "check", COVERAGE_CHECKS)
    n, pi, mu, r, a = _checked_design(n, prevalence, auc, reps, alpha)
    gamma = float(as_positive(gamma, "gamma", scalar=True))
    at = float(as_probability(at, "at", scalar=True))
    n_bins = int(as_count(n_bins, "n_bins", minimum=2, maximum=1000, scalar=True))
    n_resamples = as_draws(n_resamples, "n_resamples", minimum=100)
    gen = make_rng(seed)
    hits = np.zeros(r, dtype=bool)
    widths = np.full(r, np.nan)
    grid = np.linspace(0.05, 0.95, 19)
    target = _target(check, pi, mu, at, band, gamma, int(n_bins), grid)
    settings = dict(pi=pi, mu=mu, alpha=a, at=at, band=band, gamma=gamma, n_bins=n_bins,
                    n_resamples=max(n_resamples, 100), grid=grid)  # fmt: skip
    for i in range(r):
        y, s = _draw(gen, n, pi, mu)
        hits[i], widths[i] = _one_set(check, y, s, target, gen, **settings)
    truth = float("nan") if check == "roc-band" else float(target)
    return Coverage(
        float(hits.mean()), r, math.sqrt(a * (1 - a) / r),
        float(np.nanmean(widths)) if np.isfinite(widths).any() else float("nan"), truth,
    )  # fmt: skip


def _checked_design(n, prevalence, auc, reps, alpha):
    """The simulations' shared inputs, checked: items, prevalence, binormal mu, reps, alpha."""
    n = int(as_count(n, "n", minimum=20, scalar=True))
    if n > _MAX_N:
        raise ValueError(f"n must be at most {_MAX_N:,} items per simulated test set, got {n:,}")
    pi = float(as_probability(prevalence, "prevalence", scalar=True))
    mu = _mu(float(as_probability(auc, "auc", scalar=True)))
    r = int(as_count(reps, "reps", minimum=1, scalar=True))
    if r > _MAX_REPS or n * r > _MAX_WORK:
        raise ValueError(
            f"reps must be at most {_MAX_REPS:,} and n * reps at most {_MAX_WORK:,} "
            f"(a simulation that cannot finish here), got reps={r:,} with n={n:,}"
        )
    a = float(as_probability(alpha, "alpha", scalar=True))
    return n, pi, mu, r, a


def _target(check, pi, mu, at, band, gamma, n_bins, grid):
    """What ``check``'s intervals aim at: a number, or the true curve on ``grid`` (roc-band)."""
    if check.startswith("sensitivity"):
        return float(stats.norm.sf(stats.norm.ppf(at) - mu))
    if check == "threshold":
        return float(stats.norm.ppf(at))  # the negatives' quantile
    if check.startswith("partial"):
        return _true_pauc(mu, *band)
    if check == "roc-band":
        return stats.norm.sf(stats.norm.ppf(1 - grid) - mu)
    if check == "slope":
        return 1 / gamma
    if check in ("ece", "intercept"):
        ce, icpt = _population_ce(pi, mu, gamma, n_bins)
        return ce if check == "ece" else icpt
    return 0.0


def _one_set(
    check, y, s, target, gen, *, pi, mu, alpha, at, band, gamma, n_bins, n_resamples, grid
):
    """Whether one simulated set's interval held ``target`` (``"spiegelhalter"``: whether
    the test rejected), and the interval's width (NaN for the test)."""
    from heldout.metrics import _roc
    from heldout.metrics import operating as _operating
    from heldout.metrics.calibration import calibration_error, calibration_slope, spiegelhalter_z
    from heldout.metrics.operating import sensitivity_at_specificity
    from heldout.metrics.partial_area import partial_auc
    from heldout.metrics.simultaneous_band import roc_band

    a, b = alpha, n_resamples
    if check == "sensitivity-bootstrap-only":  # the bootstrap at every point, no switch
        parts, _ = _operating._at(
            *_roc.labels_scores(y, s), at, a, "bootstrap", b, gen, min_above=0
        )
        lo, hi = parts[1], parts[2]
    elif check.startswith("sensitivity") or check == "threshold":
        method = {"sensitivity-bootstrap": "bootstrap", "threshold": "bootstrap",
                  "sensitivity-order-statistic": "order-statistic"}.get(check, "fixed-threshold")  # fmt: skip
        with warnings.catch_warnings():  # the limit is what these checks measure
            warnings.simplefilter("ignore", _operating.OperatingPointWarning)
            e = sensitivity_at_specificity(y, s, at, a, method, b, gen)
        lo, hi = (e.threshold_low, e.threshold_high) if check == "threshold" else (e.low, e.high)
    elif check.startswith("partial"):
        e = partial_auc(y, s, band, a, check.removeprefix("partial-auc-"), b, gen)
        lo, hi = e.low, e.high
    elif check == "roc-band":
        band_ = roc_band(y, s, a, grid, b, gen)
        return bool(np.all((band_.low <= target) & (target <= band_.high))), 2 * band_.half_width
    else:
        p = special.expit(gamma * _true_logit(s, pi, mu))
        if check == "spiegelhalter":
            return bool(spiegelhalter_z(y, p).p_value < a), float("nan")
        if check == "ece":
            e = calibration_error(y, p, n_bins, a, b, gen)
            lo, hi = e.low, e.high
        else:
            c = calibration_slope(y, p, a)
            lo, hi = (
                (c.slope_low, c.slope_high)
                if check == "slope"
                else (c.intercept_low, c.intercept_high)
            )
    return bool(lo <= target <= hi), hi - lo


@dataclass(frozen=True)
class ThresholdSimulation(Result):
    """Optimism of a threshold tuned on the test set, and coverage of the honest reports.

    Attributes
    ----------
    optimism : float
        Mean of (in-sample maximum - true metric of the chosen threshold).
    naive_coverage : float
        How often the metric's interval computed at the tuned threshold, on the same
        items, held the chosen threshold's true metric.
    split_coverage, crossfit_coverage : float
        The same for :func:`~heldout.metrics.threshold_optimism.split_threshold` and
        :func:`~heldout.metrics.threshold_optimism.crossfit_threshold` (truth: the true
        metric of the threshold each chose; the mean over folds for cross-fitting).
    naive_width, split_width, crossfit_width : float
        Mean widths.
    reps : int
    """

    optimism: float
    naive_coverage: float
    split_coverage: float
    crossfit_coverage: float
    naive_width: float
    split_width: float
    crossfit_width: float
    reps: int


def _true_metric(metric, t, pi, mu):
    se = stats.norm.sf(t - mu)
    sp = stats.norm.cdf(t)
    if metric == "accuracy":
        return pi * se + (1 - pi) * sp
    if metric == "balanced_accuracy":
        return (se + sp) / 2
    return 2 * pi * se / (pi * se + pi + (1 - pi) * (1 - sp))


# Its first arguments repeat operating_coverage's (both public: the book's two experiments
# on binormal test sets); both check them in _checked_design.
def threshold_simulation(
    metric: str,
    n: int,
    prevalence: float,
    auc: float,
    reps: int,
    alpha: float = 0.05,
    seed=None,
    folds: int = 5,
) -> ThresholdSimulation:
    """Optimism of a test-set-tuned threshold and coverage of split and cross-fit reports.

    For each simulated binormal test set the threshold maximising ``metric`` is found
    on the whole set; its in-sample value minus its true value (closed form under the
    binormal model :cite:`pepe2003`) is the optimism.  The metric's interval at that
    threshold on the same items is the naive report; :func:`~heldout.metrics.threshold_optimism.split_threshold` and
    :func:`~heldout.metrics.threshold_optimism.crossfit_threshold` are the honest ones.

    Parameters
    ----------
    metric : {"accuracy", "balanced_accuracy", "f1"}
    n : int
    prevalence, auc : float
    reps : int
    alpha : float
    seed : int, Generator or None
    folds : int

    Returns
    -------
    ThresholdSimulation

    Examples
    --------
    >>> r = threshold_simulation("accuracy", 200, 0.5, 0.8, 40, seed=1)
    >>> bool(r.optimism > 0)
    True
    """
    from heldout.metrics import threshold_optimism as th

    metric = as_choice(metric, "metric", th.TUNED_METRICS)
    n, pi, mu, r, a = _checked_design(n, prevalence, auc, reps, alpha)
    folds = int(as_count(folds, "folds", minimum=2, scalar=True))
    if folds > n // 2:  # each class needs at least `folds` items: never drawn otherwise
        raise ValueError(f"folds must be at most n / 2 = {n // 2:,}, got {folds:,}")
    gen = make_rng(seed)
    opt = np.empty(r)
    cover = np.zeros((3, r), dtype=bool)
    width = np.empty((3, r))
    for i in range(r):
        y, s = _draw(gen, n, pi, mu)
        while min(y.sum(), n - y.sum()) < max(folds, 4):
            y, s = _draw(gen, n, pi, mu)
        tuned = th.tuned_threshold(y, s, metric)
        true_t = _true_metric(metric, tuned.threshold, pi, mu)
        opt[i] = tuned.value - true_t
        naive = th._interval(metric, y, s >= tuned.threshold, a)
        sp = th.split_threshold(y, s, metric, a, 0.5, gen)
        cf = th.crossfit_threshold(y, s, metric, a, folds, gen)
        truths = (
            true_t,
            _true_metric(metric, sp.threshold, pi, mu),
            float(np.mean(_true_metric(metric, cf.threshold, pi, mu))),
        )
        for j, (e, t) in enumerate(zip((naive, sp, cf), truths, strict=True)):
            cover[j, i] = e.low <= t <= e.high
            width[j, i] = e.high - e.low
    c, w = cover.mean(axis=1), width.mean(axis=1)
    return ThresholdSimulation(
        float(opt.mean()), float(c[0]), float(c[1]), float(c[2]),
        float(w[0]), float(w[1]), float(w[2]), r,
    )  # fmt: skip
