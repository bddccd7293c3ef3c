"""Type I error and power of the cross-validation tests, by simulation.

The stated problem (:class:`TwoViews`) is close to Dietterich's setting
(:cite:`dietterich1998`): a small data set (300 rows by default), two
cheap scikit-learn learners, and the question "does learner A have a lower
expected error than learner B, for training sets of this size?".  To study
type I error the null hypothesis must hold *exactly*, and at every training
size the designs use (``n/2`` for 5x2cv, ``9n/10`` for 10-fold
cross-validation...).  Symmetry gives that: each row has two *views*, two
blocks of features drawn the same way; learner A sees view A, learner B sees
view B.  When the two views carry the same signal, the two learners' errors
have the same distribution whatever the training size, so their expected
errors are equal; weakening view B gives alternatives of known direction.

:func:`simulate_tests` draws ``reps`` data sets and, on each, runs every
test of :mod:`heldout.resampling.cv` on its own resampling design (:data:`TESTS`);
it returns the p-values, the rejection rates with their Monte Carlo standard
errors and, with ``track_truth=True``, the true gap between the learners'
errors (every fitted model scored on fresh rows), so that each test's effect
size is known.  A k-nearest-neighbour learner takes the fast path of :func:`heldout.resampling.cv_scores.predict_splits`;
any other scikit-learn classifier works, more slowly.

scikit-learn is imported inside the functions (through :mod:`heldout.resampling.cv_scores`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from heldout._checks import (
    as_count,
    as_flag,
    as_positive,
    as_probability,
    check_work,
    in_choices,
    show,
)
from heldout._result import Result, extra
from heldout.config import rng as make_rng
from heldout.resampling import cv
from heldout.resampling.cv_scores import number, predict_splits, single_thread, splits, whole

__all__ = ["TESTS", "TestSimulation", "TwoViews", "simulate_tests"]

#: The tests of :func:`simulate_tests`: key -> (label, design).
TESTS = {
    "naive_kfold": ("naive t, 10-fold CV", "kfold"),
    "corrected_kfold": ("corrected t, 10-fold CV", "kfold"),
    "naive_resampled": ("naive t, resampled", "resampled"),
    "corrected_resampled": ("corrected t, resampled", "resampled"),
    "5x2cv": ("5x2cv t", "5x2"),
    "5x2cv-f": ("5x2cv F", "5x2"),
    "mcnemar": ("McNemar, one split", "split"),
}


@dataclass(frozen=True)
class TwoViews:
    r"""Two-class Gaussian data with two views of the same label.

    The label ``y`` is 0 or 1 with probability 1/2.  Each view is a block of
    ``features`` coordinates, ``x = (2y - 1) \mu + z`` with ``z`` standard
    normal and ``\mu`` spread evenly over the block, ``|2 \mu|`` equal to the
    view's ``separation`` (the Mahalanobis distance between the class means).
    The best possible error from one view is ``\Phi(-separation/2)``.  Given
    ``y``, coordinate ``j`` of view A and coordinate ``j`` of view B have
    correlation ``shared`` (their noise is ``\sqrt{shared}\, u_j`` plus an
    independent part): with ``shared = 0`` the views are independent given
    ``y`` and two learners looking at them make unrelated mistakes; as it nears
    1 they see nearly the same data.  The columns of view A come first.

    Swapping the two views leaves the distribution unchanged when the
    separations are equal, so a learner on view A and the same learner on view B
    then have exactly the same expected error at every training size: the null
    hypothesis of the tests holds exactly.

    Examples
    --------
    >>> p = TwoViews(features=2, separation_a=2.0, separation_b=1.0)
    >>> X, y = p.sample(4, seed=0)
    >>> X.shape, round(p.bayes_error("a"), 4), round(p.bayes_error("b"), 4)
    ((4, 4), 0.1587, 0.3085)
    """

    features: int = 5
    separation_a: float = 1.5
    separation_b: float = 1.5
    shared: float = 0.0

    def __post_init__(self):
        whole(self.features, "features", minimum=1)
        for name in ("separation_a", "separation_b"):
            as_positive(number(getattr(self, name), name), name, allow_zero=True)
        as_probability(number(self.shared, "shared"), "shared", closed=True)

    @property
    def columns_a(self) -> np.ndarray:
        """Column indices of view A."""
        return np.arange(self.features)

    @property
    def columns_b(self) -> np.ndarray:
        """Column indices of view B."""
        return np.arange(self.features, 2 * self.features)

    def _mu(self, view: str) -> np.ndarray:
        if not in_choices(view, ("a", "b")):
            raise ValueError(f"view must be 'a' or 'b', got {show(view)}")
        sep = self.separation_a if view == "a" else self.separation_b
        return np.full(self.features, sep / 2.0 / np.sqrt(self.features))

    def sample(self, n: int, seed=None) -> tuple[np.ndarray, np.ndarray]:
        """``n`` rows ``(X, y)``; ``X`` holds view A's columns, then view B's."""
        n = whole(n, "n", minimum=1)
        gen = make_rng(seed)
        y = gen.integers(0, 2, size=n)
        sign = (2.0 * y - 1.0)[:, None]
        mu = np.concatenate([self._mu("a"), self._mu("b")])
        z = gen.standard_normal((n, 2 * self.features))
        if self.shared > 0:  # the same noise in both views, coordinate by coordinate
            u = np.tile(gen.standard_normal((n, self.features)), 2)
            z = np.sqrt(self.shared) * u + np.sqrt(1.0 - self.shared) * z
        return sign * mu + z, y

    def bayes_error(self, view: str) -> float:
        """The smallest error any classifier using only that view can reach."""
        return float(stats.norm.cdf(-np.linalg.norm(self._mu(view))))


@dataclass(frozen=True)
class TestSimulation(Result):
    """Rejection rates of the cross-validation tests over simulated data sets.

    Unpacks as ``rejection, se``: dicts from the keys of :data:`TESTS` to the
    share of data sets on which the test rejected at level ``alpha`` and its
    Monte Carlo standard error ``sqrt(r (1 - r) / reps)``.  ``p_values`` holds
    every p-value; ``five_by_two`` the ``(reps, 5, 2)`` score differences of the
    5x2 design (A minus B, fold order); ``true_gap`` the mean over data sets of B's true error minus
    A's for the models each design fits (positive: A better), and
    ``true_gap_se`` its standard error.
    """

    __test__ = False  # not a pytest test class

    rejection: dict
    se: dict
    p_values: dict = extra(None)
    true_gap: dict = extra(None)
    true_gap_se: dict = extra(None)
    alpha: float = extra(0.05)
    reps: int = extra(0)
    n: int = extra(0)
    five_by_two: np.ndarray = extra(None)

    @property
    def level_se(self) -> float:
        """Monte Carlo standard error of a rejection rate at the level: ``sqrt(a (1 - a) / reps)``."""
        return float(np.sqrt(self.alpha * (1 - self.alpha) / max(self.reps, 1)))

    def summary(self) -> list[tuple[str, float, float]]:
        """``(test label, rejection rate, its Monte Carlo standard error)`` for every test."""
        return [(TESTS[key][0], self.rejection[key], self.se[key]) for key in self.rejection]


def _p_value(test, *args, **kwargs) -> float:
    """The p-value of a test; the limit 0 or 1 when its variance estimate is zero."""
    try:
        return test(*args, **kwargs).p_value
    except ValueError as exc:
        if "zero variance" not in str(exc):
            raise
        d = np.asarray(args[0], dtype=float) - np.asarray(args[1], dtype=float)
        return 1.0 if np.all(d == 0) else 0.0


def _split_scores(learners, X, y, parts, X_new, y_new):
    """Scores of both learners on each split, their per-item results, the true gaps.

    ``learners`` is ``((learner_a, columns_a), (learner_b, columns_b))``; the gap of a split is
    B's error minus A's on the fresh rows ``X_new`` (0 when there are none).
    """
    (pa, na), (pb, nb) = (
        predict_splits(learner, X[:, cols], y, parts, None if X_new is None else X_new[:, cols])
        for learner, cols in learners
    )
    right = [(a == y[te], b == y[te]) for a, b, (_, te) in zip(pa, pb, parts, strict=True)]
    sa = np.array([ra.mean() for ra, _ in right])
    sb = np.array([rb.mean() for _, rb in right])
    gap = np.zeros(len(parts))
    if X_new is not None:
        gap = np.array(
            [np.mean(b != y_new) - np.mean(a != y_new) for a, b in zip(na, nb, strict=True)]
        )
    return sa, sb, right, gap


def _test_p_values(by, sa, sb, right, kfold_fraction, resampled_fraction):
    """Each test's p-value on one data set (``by``: the designs' rows of ``sa`` and ``sb``)."""
    i, j, five = by["kfold"], by["resampled"], by["5x2"]
    return {
        "naive_kfold": _p_value(cv.naive_t, sa[i], sb[i]),
        "corrected_kfold": _p_value(cv.corrected_t, sa[i], sb[i], kfold_fraction),
        "naive_resampled": _p_value(cv.naive_t, sa[j], sb[j]),
        "corrected_resampled": _p_value(cv.corrected_t, sa[j], sb[j], resampled_fraction),
        # McNemar's test on the items of the first random split
        "mcnemar": cv.mcnemar_split(*right[j[0]]).p_value,
        "5x2cv": _p_value(cv.five_by_two_t, sa[five], sb[five]),
        "5x2cv-f": _p_value(cv.five_by_two_f, sa[five], sb[five]),
    }


def _true_gaps(gaps, reps):
    """Each test's mean true gap over the data sets (that of its design) and its standard error."""
    gap_design = {key: TESTS[key][1] for key in TESTS}
    true_gap = {key: float(np.mean(gaps[d])) for key, d in gap_design.items()}
    true_gap_se = {
        key: float(np.std(gaps[d], ddof=1) / np.sqrt(len(gaps[d]))) if reps > 1 else 0.0
        for key, d in gap_design.items()
    }
    return true_gap, true_gap_se


def _simulation_sizes(n, reps, k, resamples, resample_fraction, alpha):
    """The checked ``(n, reps, k, resamples, alpha)`` of :func:`simulate_tests`."""
    n = whole(n, "n", minimum=10)
    reps = whole(reps, "reps", minimum=1)
    check_work(n, 10**7, "n (rows per data set)")
    check_work(reps, 10**6, "reps (simulated data sets)")
    k = whole(k, "k", minimum=2)
    resamples = whole(resamples, "resamples", minimum=2)
    check_work(reps * resamples * n, 10**10, "reps times resamples times n")
    as_probability(number(resample_fraction, "resample_fraction"), "resample_fraction")
    return n, reps, k, resamples, float(as_probability(number(alpha, "alpha"), "alpha"))


def simulate_tests(
    problem: TwoViews,
    learner_a,
    learner_b,
    *,
    n: int = 300,
    reps: int = 1900,
    k: int = 10,
    resamples: int = 15,
    resample_fraction: float = 1 / 3,
    alpha: float = 0.05,
    track_truth: bool = False,
    eval_rows: int = 2000,
    seed=None,
) -> TestSimulation:
    """Type I error (or power) of every test of :data:`TESTS` on ``reps`` data sets.

    On each data set of ``n`` rows drawn from ``problem``: ``k``-fold
    cross-validation (naive and corrected *t*, test fraction ``1/k``);
    ``resamples`` random splits with test fraction ``resample_fraction``
    (naive and corrected *t*); 5x2 cross-validation (5x2cv *t* and *F*); one
    random split with test fraction ``mcnemar_fraction`` (McNemar's exact
    test).  Learner A sees ``problem.columns_a``, learner B
    ``problem.columns_b``; both are fitted on the same training parts.  All
    tests are two-sided at level ``alpha``.

    Under the null (equal separations) every rejection is a type I error; the
    Monte Carlo standard error of a rate ``r`` is ``sqrt(r (1 - r) / reps)`` (``se``,
    printed beside each rate by :meth:`TestSimulation.summary`).  The default of 1,900
    data sets makes the standard error at the level, ``sqrt(alpha (1 - alpha) / reps)``,
    0.005 at ``alpha = 0.05``, so that a verdict with a tolerance of two standard errors
    (the book's rule, stated on its notation page) does not flip from one run to the next;
    fewer data sets are for exploring, with the wider standard error printed.

    With ``track_truth=True`` every fitted model is also scored on ``eval_rows``
    fresh rows drawn for each data set, and ``true_gap`` reports, per test, the
    mean over data sets of B's true error minus A's at that design's training size.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> sim = simulate_tests(TwoViews(), LogisticRegression(), LogisticRegression(),
    ...                      n=60, reps=2, seed=1)
    >>> sorted(sim.rejection) == sorted(TESTS)
    True
    """
    track_truth = as_flag(track_truth, "track_truth")
    eval_rows = int(as_count(eval_rows, "eval_rows", minimum=1, maximum=10**7, scalar=True))
    if not isinstance(problem, TwoViews):
        raise ValueError(f"problem must be a TwoViews instance, got {type(problem).__name__}")
    n, reps, k, resamples, alpha = _simulation_sizes(
        n, reps, k, resamples, resample_fraction, alpha
    )
    gen = make_rng(seed)
    ca, cb = problem.columns_a, problem.columns_b
    p = {key: np.empty(reps) for key in TESTS}
    five_d = np.empty((reps, 5, 2))
    gaps: dict[str, list[float]] = {d: [] for d in ("kfold", "resampled", "5x2", "split")}
    # one number per data set and design: the mean over its splits of B's true error minus A's
    learners = (learner_a, ca), (learner_b, cb)
    with single_thread():
        for r in range(reps):
            X, y = problem.sample(n, seed=gen)
            X_new, y_new = problem.sample(eval_rows, seed=gen) if track_truth else (None, None)
            kfold = splits(n, "kfold", k=k, seed=gen)
            resampled = splits(
                n, "resampled", repeats=resamples, test_fraction=resample_fraction, seed=gen
            )
            five = splits(n, "5x2", seed=gen)
            # one call per learner for every split of the three designs (fast paths share work)
            sa, sb, right, gap = _split_scores(
                learners, X, y, kfold + resampled + five, X_new, y_new
            )
            cut = np.cumsum([len(kfold), len(resampled)])
            by = dict(
                zip(("kfold", "resampled", "5x2"), np.split(np.arange(len(sa)), cut), strict=True)
            )
            for design, idx in by.items():
                gaps[design].append(gap[idx].mean())
            f = len(resampled[0][1]) / n
            for key, value in _test_p_values(by, sa, sb, right, 1.0 / k, f).items():
                p[key][r] = value
            gaps["split"].append(gap[by["resampled"][0]])
            i = by["5x2"]
            five_d[r] = (sa[i] - sb[i]).reshape(5, 2)
    rejection = {key: float(np.mean(v <= alpha)) for key, v in p.items()}
    se = {key: float(np.sqrt(r * (1 - r) / reps)) for key, r in rejection.items()}
    true_gap, true_gap_se = _true_gaps(gaps, reps) if track_truth else (None, None)
    return TestSimulation(
        rejection,
        se,
        p_values=p,
        true_gap=true_gap,
        true_gap_se=true_gap_se,
        alpha=alpha,
        reps=reps,
        n=n,
        five_by_two=five_d,
    )
