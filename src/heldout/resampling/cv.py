"""Comparing two learners by cross-validation: tests on per-fold scores.

When there is too little data for a fresh test set, two learners are compared
on the *same* resampling splits of one data set, and the paired per-fold
scores (accuracies, error rates, any score) are fed to a test.  The folds are
not independent: their training sets overlap, and so the naive paired
*t*-test over folds is too liberal (:cite:`dietterich1998`,
:cite:`nadeau2003`).  This module has the tests, each taking the per-fold
(or per-replication) scores of the two learners, in the same order:

* :func:`naive_t`: the paired *t*-test over folds, kept as the baseline that
  misleads;
* :func:`corrected_t`: the corrected resampled *t*-test of Nadeau and Bengio
  (:cite:`nadeau2003`), which inflates the variance by the test/train ratio;
  applied to ``r`` repetitions of ``k``-fold cross-validation it is the
  corrected repeated cross-validation test of :cite:`bouckaert2004`;
* :func:`five_by_two_t`: Dietterich's 5x2cv paired *t*-test
  (:cite:`dietterich1998`);
* :func:`five_by_two_f`: Alpaydin's combined 5x2cv *F*-test
  (:cite:`alpaydin1999`);
* :func:`mcnemar_split`: McNemar's test on the items of one held-out split
  (:cite:`mcnemar1947`), through :func:`heldout.comparison.paired.mcnemar_exact`;
* :func:`compare`: one entry point choosing among them with ``method=``
  (what ``heldout cv-compare`` calls).

Every test returns a :class:`CVTest` (statistic, p-value, and the pieces of
the formula).  Score differences are always ``scores_a - scores_b``; for the
one-sided alternatives ``"greater"`` means that A's scores are larger (better
if the score is an accuracy, worse if it is an error rate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from heldout._checks import as_probability, in_choices, show
from heldout._result import Result, extra

__all__ = [
    "METHODS",
    "CVTest",
    "compare",
    "corrected_t",
    "five_by_two_f",
    "five_by_two_t",
    "mcnemar_split",
    "naive_t",
]

#: The choices of :func:`compare` (and of ``heldout cv-compare --method``).
METHODS = ("corrected", "naive", "5x2cv", "5x2cv-f")

_ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class CVTest(Result):
    """The result of a test comparing two learners.

    Unpacks as ``statistic, p_value``; the other attributes say which test it
    was and hold the pieces of its formula.

    Attributes
    ----------
    statistic : float
        The test statistic (*t*, *F*, or for McNemar's exact test the number of
        items only A got right).
    p_value : float
        Its p-value for ``alternative``.
    method : str
        Which test: ``"naive"``, ``"corrected"``, ``"5x2cv"``, ``"5x2cv-f"``,
        ``"mcnemar-exact"`` or ``"mcnemar-chi2"``.
    df : float or None
        Degrees of freedom (the numerator's for the *F*-test; None for the exact test).
    df_denominator : float or None
        Denominator degrees of freedom of the *F*-test.
    mean_difference : float
        Mean of ``scores_a - scores_b`` (for McNemar: the difference of accuracies on the split).
    se : float or None
        The standard error the *t* statistic divides by.
    scores : int
        Number of paired scores used (items of the split for McNemar).
    alternative : str
        ``"two-sided"``, ``"greater"`` (A's scores larger) or ``"less"``.
    """

    statistic: float
    p_value: float
    method: str = extra("")
    df: float | None = extra()
    df_denominator: float | None = extra()
    mean_difference: float = extra(0.0)
    se: float | None = extra()
    scores: int = extra(0)
    alternative: str = extra("two-sided")


def _check_alternative(alternative: str) -> str:
    if not in_choices(alternative, _ALTERNATIVES):
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}, got {show(alternative)}")
    return alternative


def _scores(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be an array of numbers, got {show(value)}") from None
    if arr.ndim == 0:
        raise ValueError(
            f"{name} must be an array of per-fold scores, got the single value {show(value)}"
        )
    arr = arr.ravel()
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must hold finite numbers (no NaN or infinity)")
    return arr


def _paired(scores_a, scores_b, *, exactly: int | None = None) -> np.ndarray:
    """The differences ``scores_a - scores_b`` after checking both arrays."""
    a = _scores(scores_a, "scores_a")
    b = _scores(scores_b, "scores_b")
    if a.size != b.size:
        raise ValueError(
            f"scores_a and scores_b must hold the same number of paired scores, "
            f"got {a.size} and {b.size}"
        )
    if exactly is not None and a.size != exactly:
        raise ValueError(
            f"scores_a and scores_b must hold exactly {exactly} scores each (5 replications of "
            f"2-fold cross-validation, in fold order), got {a.size}"
        )
    if a.size < 2:
        raise ValueError(f"scores_a and scores_b need at least 2 folds each, got {a.size}")
    return a - b


def _constant(d: np.ndarray) -> bool:
    """True when the differences are equal up to floating-point rounding."""
    return bool(np.ptp(d) <= 1e-12 * max(1.0, float(np.max(np.abs(d)))))


def _t_p_value(t, df, alternative: str):
    """p-value of a Student t statistic (arrays allowed); infinite t gives 0 or 1."""
    if alternative == "greater":
        return stats.t.sf(t, df)
    if alternative == "less":
        return stats.t.cdf(t, df)
    return np.minimum(1.0, 2.0 * stats.t.sf(np.abs(t), df))


def _zero_variance(name: str) -> ValueError:
    return ValueError(
        f"the differences scores_a - scores_b {name} have zero variance, so the test statistic "
        "is undefined (the two learners scored the same way in every fold); compare per-item "
        "results with mcnemar_split instead"
    )


def _t_test(d: np.ndarray, factor: float, alternative: str, method: str) -> CVTest:
    """t = mean(d) / sqrt(factor * s^2) with J - 1 degrees of freedom."""
    k = d.size
    mean = float(d.mean())
    if _constant(d):
        raise _zero_variance("across folds")
    var = float(d.var(ddof=1))
    se = float(np.sqrt(factor * var))
    t = mean / se
    return CVTest(
        statistic=t,
        p_value=float(_t_p_value(t, k - 1, alternative)),
        method=method,
        df=float(k - 1),
        mean_difference=mean,
        se=se,
        scores=k,
        alternative=alternative,
    )


def naive_t(scores_a, scores_b, alternative: str = "two-sided") -> CVTest:
    r"""The naive paired *t*-test over folds (the baseline that misleads).

    With ``d_j = a_j - b_j`` for the ``J`` folds,

    .. math::

        t = \frac{\bar d}{\sqrt{s^2 / J}}, \qquad
        s^2 = \frac{1}{J-1}\sum_{j=1}^{J} (d_j - \bar d)^2,

    referred to Student's *t* with ``J - 1`` degrees of freedom.  It treats the
    folds as independent; they are not (their training sets overlap), so its
    type I error exceeds its level, badly for random resampling splits
    (:cite:`dietterich1998`, :cite:`nadeau2003`).

    Parameters
    ----------
    scores_a, scores_b
        The per-fold scores of learners A and B on the same folds, same order.
    alternative
        ``"two-sided"`` (default), ``"greater"`` (A's scores larger) or ``"less"``.

    Returns
    -------
    CVTest

    Examples
    --------
    >>> r = naive_t([0.91, 0.90, 0.93, 0.89, 0.92], [0.89, 0.90, 0.90, 0.88, 0.90])
    >>> round(r.statistic, 3), round(r.p_value, 4), r.df
    (3.138, 0.0349, 4.0)
    """
    _check_alternative(alternative)
    d = _paired(scores_a, scores_b)
    return _t_test(d, 1.0 / d.size, alternative, "naive")


def corrected_t(scores_a, scores_b, test_fraction: float, alternative: str = "two-sided") -> CVTest:
    r"""The corrected resampled *t*-test of Nadeau and Bengio.

    The ``J`` scores come from ``J`` splits (random train/test splits, or the
    folds of ``r`` repetitions of ``k``-fold cross-validation, ``J = r k``),
    each with ``n_2`` test rows and ``n_1`` training rows.  The variance of the
    mean difference is inflated for the overlap of the training sets
    (:cite:`nadeau2003`, their "corrected resampled t"; :cite:`bouckaert2004`
    for repeated cross-validation):

    .. math::

        t = \frac{\bar d}{\sqrt{\left(\frac{1}{J} + \frac{n_2}{n_1}\right) s^2}},
        \qquad \frac{n_2}{n_1} = \frac{f}{1 - f},

    with ``f`` the test fraction (``1/K`` for ``K``-fold cross-validation) and
    ``J - 1`` degrees of freedom.  The correction is a heuristic: it assumes the
    correlation between two splits' differences is ``n_2 / n``, which makes the
    test conservative for stable learners and not always enough for unstable ones.

    Parameters
    ----------
    scores_a, scores_b
        The per-split scores of learners A and B on the same splits.
    test_fraction
        ``n_2 / n``, the share of the rows in each test part, strictly between 0 and 1.
    alternative
        As in :func:`naive_t`.

    Returns
    -------
    CVTest

    Examples
    --------
    >>> a = [0.91, 0.90, 0.93, 0.89, 0.92]
    >>> b = [0.89, 0.90, 0.90, 0.88, 0.90]
    >>> r = corrected_t(a, b, test_fraction=0.2)
    >>> round(r.statistic, 3), round(r.p_value, 4)
    (2.092, 0.1046)
    """
    _check_alternative(alternative)
    f = float(as_probability(test_fraction, "test_fraction", scalar=True))
    d = _paired(scores_a, scores_b)
    return _t_test(d, 1.0 / d.size + f / (1.0 - f), alternative, "corrected")


def _five_by_two(scores_a, scores_b) -> tuple[np.ndarray, float]:
    """Differences as a (5, 2) array and the sum of the five replication variances."""
    d = _paired(scores_a, scores_b, exactly=10).reshape(5, 2)
    if all(_constant(row) for row in d):
        raise _zero_variance("within every replication")
    s2 = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    total = float(s2.sum())
    return d, total


def five_by_two_t(scores_a, scores_b, alternative: str = "two-sided") -> CVTest:
    r"""Dietterich's 5x2cv paired *t*-test.

    Five replications of 2-fold cross-validation; the ten scores of each
    learner are given **in fold order**: replication 1 fold 1, replication 1
    fold 2, replication 2 fold 1, ... (a ``(5, 2)`` array is read row by row).
    With ``p_i^{(j)} = a - b`` on fold ``j`` of replication ``i``,
    ``\bar p_i`` the mean of the two and
    ``s_i^2 = (p_i^{(1)} - \bar p_i)^2 + (p_i^{(2)} - \bar p_i)^2``
    (:cite:`dietterich1998`),

    .. math::

        \tilde t = \frac{p_1^{(1)}}{\sqrt{\tfrac15 \sum_{i=1}^5 s_i^2}},

    referred to Student's *t* with 5 degrees of freedom.  Only the first fold's
    difference is in the numerator; the order of the scores therefore matters.

    Parameters
    ----------
    scores_a, scores_b
        Ten scores each, in fold order.
    alternative
        ``"two-sided"``, ``"greater"`` or ``"less"``, as in :func:`naive_t`.

    Returns
    -------
    CVTest

    Examples
    --------
    >>> a = [0.90, 0.88, 0.91, 0.89, 0.90, 0.90, 0.87, 0.89, 0.92, 0.90]
    >>> b = [0.86, 0.87, 0.88, 0.88, 0.88, 0.86, 0.86, 0.87, 0.88, 0.89]
    >>> r = five_by_two_t(a, b)
    >>> round(r.statistic, 3), round(r.p_value, 4)
    (2.434, 0.0591)
    """
    _check_alternative(alternative)
    d, total = _five_by_two(scores_a, scores_b)
    se = float(np.sqrt(total / 5.0))
    t = float(d[0, 0]) / se
    return CVTest(
        statistic=t,
        p_value=float(_t_p_value(t, 5, alternative)),
        method="5x2cv",
        df=5.0,
        mean_difference=float(d.mean()),
        se=se,
        scores=10,
        alternative=alternative,
    )


def five_by_two_f(scores_a, scores_b) -> CVTest:
    r"""Alpaydin's combined 5x2cv *F*-test.

    Same ten differences as :func:`five_by_two_t` (same fold order), but all of
    them enter the numerator (:cite:`alpaydin1999`):

    .. math::

        f = \frac{\sum_{i=1}^5 \sum_{j=1}^2 \left(p_i^{(j)}\right)^2}{2 \sum_{i=1}^5 s_i^2},

    referred to the *F* distribution with 10 and 5 degrees of freedom (large
    values reject).  It is two-sided by construction and does not depend on
    which fold comes first.

    Takes the ten scores of each learner as :func:`five_by_two_t` does and returns a
    :class:`CVTest`.

    Examples
    --------
    >>> a = [0.90, 0.88, 0.91, 0.89, 0.90, 0.90, 0.87, 0.89, 0.92, 0.90]
    >>> b = [0.86, 0.87, 0.88, 0.88, 0.88, 0.86, 0.86, 0.87, 0.88, 0.89]
    >>> f = five_by_two_f(a, b)
    >>> round(f.statistic, 3), round(f.p_value, 4), (f.df, f.df_denominator)
    (2.556, 0.156, (10.0, 5.0))
    """
    d, total = _five_by_two(scores_a, scores_b)
    f = float((d**2).sum() / (2.0 * total))
    return CVTest(
        statistic=f,
        p_value=float(stats.f.sf(f, 10, 5)),
        method="5x2cv-f",
        df=10.0,
        df_denominator=5.0,
        mean_difference=float(d.mean()),
        scores=10,
        alternative="two-sided",
    )


def mcnemar_split(
    correct_a, correct_b, alternative: str = "two-sided", method: str = "exact"
) -> CVTest:
    r"""McNemar's test on the items of one held-out split.

    Both learners are trained once on the same training part and scored item
    by item on the same test part.  Only the items on which they disagree
    count: ``b`` items only A got right, ``c`` only B.  With ``method="exact"``
    the p-value is :func:`heldout.comparison.paired.mcnemar_exact` (``b`` is
    Binomial(``b + c``, 1/2) under the null); with ``method="chi2"`` it is the
    continuity-corrected statistic Dietterich used (:cite:`dietterich1998`),

    .. math::

        \chi^2 = \frac{(|b - c| - 1)^2}{b + c}

    on one degree of freedom (two-sided only).  The test is conditional on the
    one training set: it asks whether these two *fitted models* differ, not
    whether the two learning algorithms differ on average over training sets
    (:cite:`mcnemar1947`).

    Parameters
    ----------
    correct_a, correct_b
        Per-item correctness (booleans or 0/1) of the two fitted models on the test part.
    alternative
        ``"two-sided"`` (default), ``"greater"`` (A more accurate) or ``"less"``.
    method
        ``"exact"`` (default) or ``"chi2"``.

    Returns
    -------
    CVTest
        For ``"exact"`` the statistic is ``b``.

    Examples
    --------
    >>> a = [1] * 80 + [0] * 20
    >>> b = [1] * 70 + [0] * 10 + [1] * 5 + [0] * 15
    >>> r = mcnemar_split(a, b)
    >>> r.statistic, round(r.p_value, 4)
    (10.0, 0.3018)
    """
    from heldout.comparison.compare import disagreements, mcnemar_exact

    _check_alternative(alternative)
    if not in_choices(method, ("exact", "chi2")):
        raise ValueError(f"method must be 'exact' or 'chi2', got {show(method)}")
    b, c = disagreements(correct_a, correct_b)
    n = int(np.size(correct_a))
    if n == 0:
        raise ValueError("correct_a and correct_b must not be empty")
    diff = (b - c) / n
    if method == "exact":
        return CVTest(
            statistic=float(b),
            p_value=float(mcnemar_exact(b, c, alternative=alternative)),
            method="mcnemar-exact",
            mean_difference=diff,
            scores=n,
            alternative=alternative,
        )
    if alternative != "two-sided":
        raise ValueError("method='chi2' is two-sided only; use method='exact' for one side")
    if b + c == 0:
        chi2, p = 0.0, 1.0
    else:
        chi2 = (abs(b - c) - 1.0) ** 2 / (b + c) if abs(b - c) >= 1 else 0.0
        p = float(stats.chi2.sf(chi2, 1))
    return CVTest(
        statistic=float(chi2),
        p_value=p,
        method="mcnemar-chi2",
        df=1.0,
        mean_difference=diff,
        scores=n,
        alternative=alternative,
    )


def compare(
    scores_a,
    scores_b,
    method: str = "corrected",
    *,
    test_fraction: float | None = None,
    alternative: str = "two-sided",
) -> CVTest:
    """Compare two learners from their per-fold scores with the test named by ``method``.

    ``"corrected"`` (default, needs ``test_fraction``): :func:`corrected_t`;
    ``"naive"``: :func:`naive_t`; ``"5x2cv"``: :func:`five_by_two_t`;
    ``"5x2cv-f"``: :func:`five_by_two_f` (two-sided only).  The last two need the
    ten scores of 5x2 cross-validation in fold order (replication 1 fold 1,
    replication 1 fold 2, replication 2 fold 1, ...).

    Examples
    --------
    >>> r = compare([0.91, 0.90, 0.93, 0.89, 0.92], [0.89, 0.90, 0.90, 0.88, 0.90],
    ...             test_fraction=0.2)
    >>> r.method, round(r.statistic, 3)
    ('corrected', 2.092)
    """
    if not in_choices(method, METHODS):
        raise ValueError(f"method must be one of {METHODS}, got {show(method)}")
    if test_fraction is not None:  # checked even where the method does not use it
        as_probability(test_fraction, "test_fraction", scalar=True)
    if method == "corrected":
        if test_fraction is None:
            raise ValueError(
                "test_fraction is needed by the corrected test: the share of rows in each "
                "test part (1/K for K-fold cross-validation)"
            )
        return corrected_t(scores_a, scores_b, test_fraction, alternative)
    if method == "naive":
        return naive_t(scores_a, scores_b, alternative)
    if method == "5x2cv":
        return five_by_two_t(scores_a, scores_b, alternative)
    if alternative != "two-sided":
        raise ValueError("the 5x2cv F-test is two-sided only; use method='5x2cv' for one side")
    return five_by_two_f(scores_a, scores_b)
