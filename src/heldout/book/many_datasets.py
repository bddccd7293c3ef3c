"""Simulations behind the lesson "Many data sets".

* :func:`simulate_many_datasets` -- the level (all learners equal) and the power (one
  learner better) of Friedman's test, its Iman-Davenport form, Nemenyi's post-hoc test
  and pairwise Wilcoxon and sign tests with Holm's adjustment, on simulated tables of
  accuracies: each data set has its own size (drawn log-uniformly between two bounds),
  so its accuracies are binomial shares with their own spread and, on small data sets,
  ties.
* :func:`rank_dependence_example` -- one pair of learners, A and B, whose Nemenyi verdict
  changes when a third learner is added, while the Wilcoxon test of A against B does not
  :cite:`benavoli2016`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from heldout._checks import as_count, as_floats, as_positive, as_probability, check_work, show
from heldout._result import Result
from heldout.config import rng as make_rng
from heldout.resampling.many_datasets import nemenyi, pairwise, wilcoxon_pvalues

__all__ = [
    "MAX_SIM_WORK",
    "ManyDatasetsSimulation",
    "RankDependence",
    "SIM_TESTS",
    "rank_dependence_example",
    "simulate_many_datasets",
]

#: The tests :func:`simulate_many_datasets` runs, in the order of its results.
SIM_TESTS = ("friedman", "iman_davenport", "nemenyi", "wilcoxon_holm", "sign_holm")
MAX_SIM_WORK = 200_000_000  #: largest reps x data sets x learners^2 of one simulation


@dataclass(frozen=True)
class ManyDatasetsSimulation(Result):
    """Rejection rates of each test in :data:`SIM_TESTS` over ``reps`` simulated tables."""

    any_rejection: dict  #: test -> share of tables with a rejection (omnibus, or any pair)
    first_pair: dict  #: post-hoc test -> share of tables where learner 1 vs 2 is rejected
    reps: int
    n_datasets: int
    n_learners: int
    effect: float


def _holm_rows(p: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values of each row (the same rule as comparison.multiple.holm)."""
    m = p.shape[1]
    order = np.argsort(p, axis=1, kind="stable")
    s = np.take_along_axis(p, order, axis=1) * (m - np.arange(m))
    adj = np.minimum(np.maximum.accumulate(s, axis=1), 1.0)
    out = np.empty_like(adj)
    np.put_along_axis(out, order, adj, axis=1)
    return out


def _tables(r, n, k, lo, hi, e, step, g) -> np.ndarray:
    """``r`` simulated tables (data sets x learners) of accuracies, as documented below."""
    size = np.round(np.exp(g.uniform(np.log(lo), np.log(hi), (r, n, 1)))).astype(np.int64)
    base = g.uniform(0.6, 0.9, (r, n, 1))
    shift = np.zeros(k)
    shift[0] = e
    x = g.binomial(size, base + shift) / size
    if step is not None:
        x = np.round(x / step) * step
    return x


def simulate_many_datasets(
    n_datasets: int,
    n_learners: int,
    reps: int,
    *,
    sizes=(100, 1000),
    effect: float = 0.0,
    round_to: float | None = None,
    alpha: float = 0.05,
    seed=None,
) -> ManyDatasetsSimulation:
    """Rejection rates of the many-data-set tests on simulated tables of accuracies.

    Data set ``i`` has ``n_i`` test items, ``log n_i`` uniform between the logs of
    ``sizes``, and a base accuracy ``p_i`` uniform on (0.6, 0.9); learner ``j`` scores
    ``Binomial(n_i, p_i + e_j) / n_i`` with ``e_1 = effect`` and ``e_j = 0`` otherwise.
    With ``effect = 0`` every hypothesis is true and the rates are the tests' levels
    (family-wise for the post-hoc tests); with ``effect > 0`` ``first_pair`` is the
    power to separate learner 1 from learner 2.  ``round_to`` rounds the scores (as
    tables printed with two decimals do), which adds ties.  Wilcoxon's test is
    ``scipy.stats.wilcoxon``; the sign test drops ties.

    Examples
    --------
    >>> res = simulate_many_datasets(10, 4, 200, seed=1)
    >>> sorted(res.any_rejection) == sorted(SIM_TESTS)
    True
    """
    n = int(as_count(n_datasets, "n_datasets", scalar=True, minimum=2))
    k = int(as_count(n_learners, "n_learners", scalar=True, minimum=2))
    r = int(as_count(reps, "reps", scalar=True, minimum=1))
    check_work(float(r) * n * k * k, MAX_SIM_WORK, "reps x data sets x learners^2")
    bounds = as_floats(sizes, "sizes")
    if bounds.shape != (2,) or not np.all(np.isfinite(bounds)):
        raise ValueError(f"sizes must be two finite numbers (smallest, largest), got {show(sizes)}")
    lo, hi = float(bounds[0]), float(bounds[1])
    if not 1 <= lo <= hi <= 1e9:
        raise ValueError(
            f"sizes must be (smallest, largest) with 1 <= smallest <= largest <= 1e9, got {show(sizes)}"
        )
    e = float(as_floats(effect, "effect", scalar=True))
    if not 0 <= e < 0.1:
        raise ValueError(f"effect must lie in [0, 0.1), got {show(effect)}")
    a = float(as_probability(alpha, "alpha", scalar=True))
    step = None if round_to is None else float(as_positive(round_to, "round_to", scalar=True))
    x = _tables(r, n, k, lo, hi, e, step, make_rng(seed))
    ranks = stats.rankdata(-x, axis=2)
    # Friedman with ties, per table
    sums = ranks.sum(axis=1)
    denom = np.sum(ranks**2, axis=(1, 2)) - n * k * (k + 1) ** 2 / 4.0
    num = (k - 1) * np.sum((sums - n * (k + 1) / 2.0) ** 2, axis=1)
    chi2 = np.divide(num, denom, out=np.zeros(r), where=denom > 0)
    p_chi2 = stats.chi2.sf(chi2, k - 1)
    gap = n * (k - 1) - chi2
    f = np.divide((n - 1) * chi2, gap, out=np.full(r, np.inf), where=gap > 1e-12)
    p_f = np.where(np.isfinite(f), stats.f.sf(np.minimum(f, 1e300), k - 1, (k - 1) * (n - 1)), 0.0)
    # Nemenyi: the critical difference of mean ranks
    mean = sums / n
    res = nemenyi(x[0], a)  # the critical difference depends only on n, k and alpha
    spread = mean.max(axis=1) - mean.min(axis=1)
    first_gap = np.abs(mean[:, 0] - mean[:, 1])
    # pairwise Wilcoxon and sign tests with Holm
    i, j = np.triu_indices(k, 1)
    d = x[:, :, i] - x[:, :, j]  # reps x n x pairs
    flat = np.moveaxis(d, 1, 0).reshape(n, -1)
    p_w = wilcoxon_pvalues(flat).reshape(r, -1)
    wins, losses = np.sum(d > 0, axis=1), np.sum(d < 0, axis=1)
    m = wins + losses
    p_s = np.where(
        m > 0,
        np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(wins, losses), np.maximum(m, 1), 0.5)),
        1,
    )
    hw, hs = _holm_rows(p_w), _holm_rows(p_s)
    anyrej = {
        "friedman": float(np.mean(p_chi2 <= a)),
        "iman_davenport": float(np.mean(p_f <= a)),
        "nemenyi": float(np.mean(spread >= res.cd)),
        "wilcoxon_holm": float(np.mean(np.any(hw <= a, axis=1))),
        "sign_holm": float(np.mean(np.any(hs <= a, axis=1))),
    }
    first = {
        "nemenyi": float(np.mean(first_gap >= res.cd)),
        "wilcoxon_holm": float(np.mean(hw[:, 0] <= a)),
        "sign_holm": float(np.mean(hs[:, 0] <= a)),
    }
    return ManyDatasetsSimulation(anyrej, first, r, n, k, e)


@dataclass(frozen=True)
class RankDependence(Result):
    """Nemenyi's and Wilcoxon's verdicts on A vs B with a third learner C or D."""

    scores_c: np.ndarray  #: data sets x (A, B, C): C between A and B on every data set
    scores_d: np.ndarray  #: data sets x (A, B, D): D above both on every data set
    gap_c: float  #: the absolute gap of A's and B's mean ranks with C
    gap_d: float  #: ... with D
    cd: float  #: Nemenyi's critical difference (the same: 3 learners, same data sets)
    nemenyi_p_c: float  #: Nemenyi's p-value for A vs B with C
    nemenyi_p_d: float  #: ... with D
    wilcoxon_p: float  #: Wilcoxon's p-value for A vs B (the same in both tables)


def rank_dependence_example(
    n_datasets: int = 20, wins: int = 14, alpha: float = 0.05, seed=None
) -> RankDependence:
    """A and B compared with a third learner that is C in one table and D in the other.

    A beats B on ``wins`` of ``n_datasets`` data sets (by 1 to 3 points) and loses on the
    rest (by 1 to 3 points).  C scores midway between A and B on every data set; D scores
    5 points above the better of the two.  On each data set A and B are one rank apart
    with D and two ranks apart with C, so the gap of their mean ranks is twice as large
    with C, while the critical difference is the same (three learners, the same data
    sets): Nemenyi's test can separate A and B in one table and not in the other.  The
    Wilcoxon test of A against B reads only A's and B's scores :cite:`benavoli2016`.

    Examples
    --------
    >>> ex = rank_dependence_example(seed=1)
    >>> round(ex.gap_c, 2), round(ex.gap_d, 2), round(ex.cd, 3)
    (0.8, 0.4, 0.741)
    >>> ex.nemenyi_p_c < 0.05 < ex.nemenyi_p_d
    True
    """
    n = int(as_count(n_datasets, "n_datasets", scalar=True, minimum=2, maximum=100_000))
    w = int(as_count(wins, "wins", scalar=True, maximum=n))
    a = float(as_probability(alpha, "alpha", scalar=True))
    g = make_rng(seed)
    b = np.round(g.uniform(0.65, 0.85, n), 2)
    step = np.round(g.uniform(0.01, 0.03, n), 2)
    sign = np.where(np.arange(n) < w, 1.0, -1.0)
    a_scores = np.round(b + sign * step, 2)
    c = (a_scores + b) / 2
    d = np.maximum(a_scores, b) + 0.05
    tc, td = np.column_stack([a_scores, b, c]), np.column_stack([a_scores, b, d])
    rc, rd = nemenyi(tc, a), nemenyi(td, a)
    wp = float(pairwise(tc, control=0, adjust="none").p_value[0])
    return RankDependence(
        tc,
        td,
        float(abs(rc.mean_ranks[0] - rc.mean_ranks[1])),
        float(abs(rd.mean_ranks[0] - rd.mean_ranks[1])),
        rc.cd,
        float(rc.p_values[0, 1]),
        float(rd.p_values[0, 1]),
        wp,
    )
