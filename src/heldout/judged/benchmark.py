r"""Benchmarks of language models: questions, several samples per question, clusters of questions.

A harness asks each of :math:`Q` questions :math:`k_q` times (its "epochs") and grades
every answer :math:`y_{qj}` (1 correct, 0 wrong, or a partial score in [0, 1]).  The
score reported is the mean over questions of the per-question means
:math:`\bar y_q`,

.. math:: \hat\mu = \frac1Q \sum_{q=1}^{Q} \bar y_q ,

the estimate of the mean score over the population of questions the benchmark samples.
Its variance has two levels: questions differ in difficulty (between-question variance
:math:`\sigma_b^2`), and answers to one question differ (within-question variance
:math:`\sigma_w^2`),

.. math:: \mathrm{Var}(\hat\mu) = \frac{\sigma_b^2}{Q} + \frac{\sigma_w^2}{Q k},

so that more samples per question shrink only the second term
(:mod:`heldout.dependent.repeated`; Miller :cite:`miller2024errorbars`).  When
questions come in clusters (several questions about one passage, one document, one
code base), the clusters are the independent units and the variance is estimated from
the spread of cluster sums, as in :mod:`heldout.dependent.clustered`.

What this module computes:

* :func:`benchmark_score`: the mean with the cluster-robust (CR1) standard error over
  questions (or over clusters of questions), which estimates both levels at once, and an
  interval that stays inside [0, 1] and keeps a positive width at 0 % and 100 %:
  the Clopper-Pearson interval (or Wilson's) on the effective number of
  answers :math:`n^\ast = \hat\mu(1-\hat\mu)/\widehat{\mathrm{Var}}(\hat\mu)` with
  Student's quantile on :math:`G - 1` degrees of freedom (Korn and Graubard
  :cite:`korn1998confidence`).  When every answer is right (or every answer wrong) the
  variance estimate is 0 and :math:`n^\ast` is taken to be the number :math:`G` of
  independent units (questions, or clusters): the answers to one question may agree
  because the question is easy, not because the model is always right.
* :func:`majority_of_k`: the share of questions a majority vote of :math:`k` graded
  answers gets right, estimated without bias from :math:`n \ge k` answers per question,
  with an interval over questions.
* :func:`benchmark_difference`: two models on their shared questions, paired by
  question, with the clustered interval of the difference.
* :func:`minimum_detectable_difference` and :func:`questions_for_difference`: the
  planned paired comparison of two models with :math:`k` samples per question, from the
  rate at which single answers of the two models disagree.
* :func:`simulate_benchmark`: the coverage of these intervals and of two that ignore the
  question level (the pooled standard error of all answers, and the bootstrap of
  answers) on simulated benchmarks.

What it assumes: questions (or clusters) are independent draws from a population of
questions; answers to one question are independent given the question.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from heldout import _dist
from heldout._checks import as_count, as_floats, as_probability, check_work, in_choices, show
from heldout._result import Result, extra
from heldout.config import rng

__all__ = [
    "BenchmarkCoverage",
    "BenchmarkDifference",
    "BenchmarkScore",
    "OverQuestions",
    "PairedPlan",
    "benchmark_difference",
    "benchmark_score",
    "majority_of_k",
    "minimum_detectable_difference",
    "questions_for_difference",
    "simulate_benchmark",
]

#: Intervals of :func:`benchmark_score` ("auto": "exact" for scores in [0, 1], else "t").
METHODS = ("auto", "wilson", "exact", "t")
#: Largest number of simulated values (reps x questions x resamples) of :func:`simulate_benchmark`.
MAX_WORK = 200_000_000


# --------------------------------------------------------------------------- input
@dataclass(frozen=True)
class _Graded:
    """Answers grouped by question: per-question sums and counts, and the unit of each question."""

    sums: np.ndarray  # (Q,)
    sumsq: np.ndarray  # (Q,)
    counts: np.ndarray  # (Q,)
    units: np.ndarray  # (Q,) code of each question's independent unit (cluster or itself)
    n_units: int
    labels: np.ndarray  # (Q,) question labels
    clustered: bool
    binary: bool
    in_unit_interval: bool


def _codes(labels, n: int, name: str) -> tuple[np.ndarray, np.ndarray]:
    try:
        arr = np.asarray(labels)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a list of labels, one per answer") from None
    if arr.dtype == object:
        try:
            arr = arr.astype(str)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a list of labels, one per answer") from None
    if arr.ndim != 1 or arr.size != n:
        raise ValueError(f"{name} must hold one label per answer ({n}), got shape {arr.shape}")
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} must hold labels (numbers or text), not complex numbers")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must not hold NaN or infinity")
    uniq, codes = np.unique(arr, return_inverse=True)
    return uniq, codes.reshape(-1)


def _finite_scores(y, name):
    if y.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{name} must be finite numbers (no NaN or infinity)")


def _graded(scores, questions, clusters, suffix: str = "") -> _Graded:
    s_name, q_name, c_name = (f"{n}{suffix}" for n in ("scores", "questions", "clusters"))
    y = as_floats(scores, s_name, allow_bool=True)  # True/False grades are 1/0
    if questions is None:  # questions x samples: no grouping needed
        if y.ndim != 2:
            raise ValueError(
                f"{s_name} must be 2-D (questions x samples) when {q_name} is not given, "
                f"got shape {y.shape}"
            )
        _finite_scores(y, s_name)
        q, k = y.shape
        sums, sumsq = y.sum(axis=1), np.einsum("ij,ij->i", y, y)
        counts, labels = np.full(q, float(k)), np.arange(q)
        per_question = None
        if clusters is not None:
            try:
                size = np.size(clusters) if not isinstance(clusters, dict) else -1
            except (TypeError, ValueError):
                size = -1
            n_labels = q * k if size == q * k else q
            _, cc = _codes(clusters, n_labels, c_name)
            if n_labels == q * k:
                cc = cc.reshape(q, k)
                if np.any(cc != cc[:, :1]):
                    raise ValueError(
                        f"{c_name} must give every answer of a question the same cluster"
                    )
                cc = cc[:, 0]
            per_question = cc
    else:
        if y.ndim != 1:
            raise ValueError(
                f"{s_name} must be one-dimensional (one per answer), got shape {y.shape}"
            )
        _finite_scores(y, s_name)
        labels, qc = _codes(questions, y.size, q_name)
        q = labels.size
        counts = np.bincount(qc, minlength=q).astype(float)
        sums = np.bincount(qc, weights=y, minlength=q)
        sumsq = np.bincount(qc, weights=y * y, minlength=q)
        per_question = None
        if clusters is not None:
            _, cc = _codes(clusters, y.size, c_name)
            per_question = np.zeros(q, dtype=np.int64)
            per_question[qc] = cc
            if np.any(per_question[qc] != cc):
                raise ValueError(f"{c_name} must give every answer of a question the same cluster")
    if q < 2:
        raise ValueError(f"{q_name} must name at least 2 distinct questions, got {q}")
    if per_question is None:
        units, g = np.arange(q), q
    else:
        _, units = np.unique(per_question, return_inverse=True)
        g = int(units.max()) + 1
        if g < 2:
            raise ValueError(
                f"{c_name} must contain at least two distinct clusters, got 1: with one "
                "cluster the variance between clusters cannot be estimated"
            )
    return _Graded(
        sums,
        sumsq,
        counts,
        units.reshape(-1),
        g,
        labels,
        per_question is not None,
        bool(np.all((y == 0) | (y == 1))),
        bool(np.all((y >= 0) & (y <= 1))),
    )


def _alpha(alpha) -> float:
    return float(as_probability(alpha, "alpha", scalar=True))


def _method(method, in_unit_interval: bool) -> str:
    if not in_choices(method, METHODS):
        raise ValueError(
            f"method must be one of {', '.join(map(repr, METHODS))}, got {show(method)}"
        )
    if method == "auto":
        return "exact" if in_unit_interval else "t"
    if method in ("wilson", "exact") and not in_unit_interval:
        raise ValueError(f'scores must lie in [0, 1] for method="{method}"; use method="t"')
    return method


# --------------------------------------------------------------------------- the core (vectorised)
def _cr1(values, units, g):
    """Mean of per-question ``values`` (..., Q) and its CR1 variance with units ``units``."""
    q = values.shape[-1]
    mean = values.mean(axis=-1)
    resid = values - mean[..., None]
    rows = int(np.prod(values.shape[:-1], dtype=np.int64))
    index = (np.arange(rows)[:, None] * g + units[None, :]).reshape(-1)
    per_unit = np.bincount(index, weights=resid.reshape(-1), minlength=rows * g)
    per_unit = per_unit.reshape(values.shape[:-1] + (g,))
    var = (per_unit**2).sum(axis=-1) / q**2 * g / (g - 1)
    return mean, var


def _interval(p, var, g, n_cap, alpha, method):
    """The interval of ``method`` for a mean ``p`` with variance ``var`` over ``g`` units.

    Vectorised over ``p`` and ``var``.  ``"wilson"`` and ``"exact"`` use the effective
    number of answers ``p (1 - p) / var`` (at most ``n_cap``; ``g`` when ``p`` is 0 or 1).
    """
    p, var = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(var, dtype=float))
    t = _dist.t_isf(alpha / 2, g - 1)
    if method == "t":
        se = np.sqrt(var)
        return p - t * se, p + t * se
    edge = (p <= 0) | (p >= 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(edge, float(g), np.minimum(p * (1 - p) / var, n_cap))
    n_eff = np.where(np.isnan(n_eff), n_cap, n_eff)
    if method == "wilson":
        centre = p + t**2 / (2 * n_eff)
        half = t * np.sqrt(p * (1 - p) / n_eff + t**2 / (4 * n_eff**2))
        scale = 1 + t**2 / n_eff
        return np.clip((centre - half) / scale, 0, 1), np.clip((centre + half) / scale, 0, 1)
    # Clopper-Pearson on the effective counts, n* shrunk by (z / t)^2 for the degrees of freedom
    n_eff = n_eff * (_dist.norm_isf(alpha / 2) / t) ** 2
    return _dist.beta_interval(np.clip(p, 0, 1) * n_eff, n_eff, alpha)


# --------------------------------------------------------------------------- the score
@dataclass(frozen=True)
class BenchmarkScore(Result):
    """A benchmark score with its two-level standard error.  Unpacks as ``(estimate, low, high)``.

    Attributes
    ----------
    estimate : float
        The mean over questions of the per-question mean score.
    low, high : float
        The interval (``method``) with confidence :math:`1-\\alpha`.
    se : float
        The cluster-robust (CR1) standard error with questions (or ``clusters``) as units.
    se_naive : float
        The standard error if all answers were independent, :math:`s/\\sqrt N`.
    between, within : float or None
        Estimated between-question and within-question variances (``within`` is None when
        no question has two answers).
    icc : float or None
        :math:`\\hat\\sigma_b^2 / (\\hat\\sigma_b^2 + \\hat\\sigma_w^2)`.
    effective_n : float
        The effective number of answers :math:`\\hat\\mu(1-\\hat\\mu)/\\mathrm{SE}^2`
        (``units`` at 0 % and 100 %).
    questions, answers, units : int
        :math:`Q`, :math:`N` and the number :math:`G` of independent units.
    samples : float
        Answers per question (their mean when it varies).
    alpha : float
    method : str
        ``"wilson"``, ``"exact"`` or ``"t"``.
    unit : str
        ``"question"`` or ``"cluster"``.
    """

    estimate: float
    low: float
    high: float
    se: float = extra()
    se_naive: float = extra()
    between: float | None = extra()
    within: float | None = extra()
    icc: float | None = extra()
    effective_n: float = extra()
    questions: int = extra()
    answers: int = extra()
    units: int = extra()
    samples: float = extra()
    alpha: float = extra()
    method: str = extra()
    unit: str = extra()


def _components(d: _Graded) -> tuple[float | None, float | None]:
    means = d.sums / d.counts
    dof = float(np.sum(d.counts - 1))
    if dof <= 0:
        return None, None
    within = float(np.sum(d.sumsq - d.sums * means) / dof)
    within = max(within, 0.0)
    between = float(np.var(means, ddof=1) - within * np.mean(1 / d.counts))
    return max(between, 0.0), within


def benchmark_score(
    scores: ArrayLike,
    questions: ArrayLike | None = None,
    *,
    clusters: ArrayLike | None = None,
    alpha: float = 0.05,
    method: str = "auto",
) -> BenchmarkScore:
    r"""Mean score over questions with the two-level (question, answer) standard error.

    With per-question means :math:`\bar y_q` and units :math:`g` (each question its own
    unit, or the clusters of ``clusters``),

    .. math::
        \hat\mu = \frac1Q\sum_q \bar y_q, \qquad
        \widehat{\mathrm{Var}}(\hat\mu) = \frac{G}{G-1}\,\frac{1}{Q^2}
        \sum_{g=1}^{G}\Big(\sum_{q\in g} (\bar y_q - \hat\mu)\Big)^2,

    the cluster-robust (CR1) variance of :mod:`heldout.dependent.clustered` applied to the
    question means :cite:`liang1986longitudinal,cameron2015practitioner`.  With :math:`k`
    answers per question and no clusters it is :math:`s_{\bar y}^2/Q`, whose expectation
    is :math:`\sigma_b^2/Q + \sigma_w^2/(Qk)`: it carries both levels.  With equal numbers of
    answers it equals inspect_ai's ``stderr(cluster=...)`` computed on the epoch means.
    Intervals:

    * ``"exact"`` (default for scores in [0, 1]): Clopper-Pearson on
      :math:`\hat\mu m` successes out of :math:`m = n^\ast (z/t_{G-1})^2`, where
      :math:`n^\ast = \hat\mu(1-\hat\mu)/\widehat{\mathrm{Var}}` is the effective number
      of answers (at most :math:`N`; :math:`G` when :math:`\hat\mu` is 0 or 1), Korn and
      Graubard's interval :cite:`korn1998confidence`; in the simulation grid of the
      book's lesson it never undercovers, and is at most about a point conservative;
    * ``"wilson"``: Wilson's score interval on :math:`n^\ast` with Student's
      :math:`t_{G-1}` in place of :math:`z`, narrower, and undercovering near 0 and 1
      with few questions or clusters;
    * ``"t"``: :math:`\hat\mu \pm t_{G-1}\,\mathrm{SE}`, for scores that are not in [0, 1];
      it has width 0 when every score is equal.

    Parameters
    ----------
    scores : array_like
        One score per answer (with ``questions``), or a 2-D array questions x samples.
    questions : array_like, optional
        The question of each answer (numbers or strings).
    clusters : array_like, optional
        The cluster of each answer (the same for all answers to a question), or with a
        2-D ``scores`` one cluster per question.
    alpha : float
        One minus the confidence level.
    method : {"auto", "wilson", "exact", "t"}

    Returns
    -------
    BenchmarkScore

    Examples
    --------
    >>> r = benchmark_score([[1, 1, 1], [0, 0, 1], [1, 0, 1], [0, 0, 0]])
    >>> round(r.estimate, 3), round(r.se, 3), round(r.se_naive, 3)
    (0.5, 0.215, 0.151)
    >>> r = benchmark_score([[1, 1], [1, 1], [1, 1]])
    >>> r.estimate, round(r.low, 4), r.high, r.effective_n
    (1.0, 0.0027, 1.0, 3.0)
    """
    d = _graded(scores, questions, clusters)
    a = _alpha(alpha)
    method = _method(method, d.in_unit_interval)
    means = d.sums / d.counts
    mean, var = _cr1(means, d.units, d.n_units)
    mean, var = float(mean), float(var)
    n = float(d.counts.sum())
    low, high = _interval(mean, var, d.n_units, n, a, method)
    between, within = _components(d)
    total = (between or 0.0) + (within or 0.0)
    grand = d.sums.sum() / n
    ss = max(float(d.sumsq.sum() - n * grand**2), 0.0)
    se_naive = float(np.sqrt(ss / (n - 1) / n)) if n > 1 else float("nan")
    edge = mean <= 0 or mean >= 1
    n_eff = float(d.n_units) if edge else (min(mean * (1 - mean) / var, n) if var > 0 else n)
    return BenchmarkScore(
        estimate=mean,
        low=float(low),
        high=float(high),
        se=float(np.sqrt(var)),
        se_naive=se_naive,
        between=between,
        within=within,
        icc=(between / total) if (within is not None and total > 0) else None,
        effective_n=float(n_eff),
        questions=int(d.counts.size),
        answers=int(n),
        units=d.n_units,
        samples=float(n / d.counts.size),
        alpha=a,
        method=method,
        unit="cluster" if d.clustered else "question",
    )


# --------------------------------------------------------------------------- over questions
@dataclass(frozen=True)
class OverQuestions(Result):
    """A mean over questions of a per-question estimate (pass@k, majority of k).

    Unpacks as ``(estimate, low, high)``; ``se`` is the CR1 standard error over
    ``units`` (questions or clusters), ``k`` the number of answers the estimate is about.
    """

    estimate: float
    low: float
    high: float
    se: float = extra()
    k: int = extra()
    questions: int = extra()
    units: int = extra()
    alpha: float = extra()
    method: str = extra()


def _over_questions(values, d: _Graded, k: int, alpha, method) -> OverQuestions:
    a = _alpha(alpha)
    method = _method(method, True)
    mean, var = _cr1(np.asarray(values, dtype=float), d.units, d.n_units)
    low, high = _interval(float(mean), float(var), d.n_units, float(d.counts.sum()), a, method)
    return OverQuestions(
        estimate=float(mean),
        low=float(low),
        high=float(high),
        se=float(np.sqrt(var)),
        k=int(k),
        questions=int(d.counts.size),
        units=d.n_units,
        alpha=a,
        method=method,
    )


def _k_of(k, counts, name: str = "k") -> int:
    kk = int(as_count(k, name, minimum=1, scalar=True))
    if np.any(counts < kk):
        raise ValueError(
            f"{name}={kk} needs at least {kk} answers per question; the fewest is {int(counts.min())}"
        )
    return kk


def majority_of_k(
    scores: ArrayLike,
    questions: ArrayLike | None = None,
    k: int | None = None,
    *,
    clusters: ArrayLike | None = None,
    alpha: float = 0.05,
    method: str = "auto",
) -> OverQuestions:
    r"""Share of questions that a majority of ``k`` graded answers gets right.

    A question is counted right when more than half of :math:`k` answers are right, and
    half right at a tie (even :math:`k`).  From :math:`n_q \ge k` answers of which
    :math:`c_q` are right, the unbiased estimate of that probability for :math:`k` answers
    drawn at random is the hypergeometric tail

    .. math:: \widehat{m}_q = P(X > k/2) + \tfrac12 P(X = k/2), \quad
              X \sim \mathrm{Hypergeometric}(n_q, c_q, k),

    the analogue of the unbiased pass@k of Chen et al. :cite:`chen2021evaluating`;
    with :math:`k = n_q` it is the plain majority vote.  This is the majority of graded
    answers (right or wrong); a vote among the answers' contents (self-consistency) can
    differ when wrong answers disagree with one another.  The interval is
    :func:`benchmark_score`'s over the questions' :math:`\widehat m_q`.

    Parameters
    ----------
    scores : array_like
        0/1 grades, one per answer (with ``questions``) or questions x samples.
    questions : array_like, optional
    k : int, optional
        Answers per vote (default: the fewest answers any question has).
    clusters, alpha, method
        As in :func:`benchmark_score`.

    Returns
    -------
    OverQuestions

    Examples
    --------
    >>> r = majority_of_k([[1, 1, 0], [0, 0, 1], [1, 1, 1], [0, 1, 0]])
    >>> r.estimate, r.k
    (0.5, 3)
    >>> round(majority_of_k([[1, 1, 0], [0, 0, 1], [1, 1, 1], [0, 1, 0]], k=1).estimate, 3)
    0.583
    """
    d = _graded(scores, questions, clusters)
    if not d.binary:
        raise ValueError("scores must be 0 or 1 (right or wrong) for a majority vote")
    kk = _k_of(int(d.counts.min()) if k is None else k, d.counts)
    n = d.counts
    c = d.sums
    j = np.arange(kk + 1)[:, None]
    pmf = stats.hypergeom.pmf(j, n[None, :], c[None, :], kk)
    weight = np.where(2 * j > kk, 1.0, np.where(2 * j == kk, 0.5, 0.0))
    values = (pmf * weight).sum(axis=0)
    return _over_questions(values, d, kk, alpha, method)


# --------------------------------------------------------------------------- two models
@dataclass(frozen=True)
class BenchmarkDifference(Result):
    """Difference of two models' benchmark scores on shared questions.

    Unpacks as ``(estimate, low, high)``.

    Attributes
    ----------
    estimate : float
        Mean over shared questions of :math:`\\bar a_q - \\bar b_q`.
    low, high : float
        The t interval on :math:`G-1` degrees of freedom.
    se : float
        Its CR1 standard error (paired by question, clustered by ``clusters``).
    se_unpaired : float
        :math:`\\sqrt{\\mathrm{SE}_a^2 + \\mathrm{SE}_b^2}`, what comparing two separate
        error bars assumes (no pairing).
    p_value : float
        Two-sided, of no difference.
    disagreement : float
        Estimated probability that one answer of each model to a shared question get
        different grades (answers independent given the question).
    within : float or None
        Sum of the two models' within-question variances (None with one answer each).
    questions, units : int
        Shared questions, independent units.
    samples : float
        Answers per question and model (mean).
    dropped_a, dropped_b : int
        Questions answered by one model only (left out).
    """

    estimate: float
    low: float
    high: float
    se: float = extra()
    se_unpaired: float = extra()
    p_value: float = extra()
    disagreement: float = extra()
    within: float | None = extra()
    questions: int = extra()
    units: int = extra()
    samples: float = extra()
    dropped_a: int = extra()
    dropped_b: int = extra()
    alpha: float = extra()


def benchmark_difference(
    scores_a: ArrayLike,
    questions_a: ArrayLike,
    scores_b: ArrayLike,
    questions_b: ArrayLike,
    *,
    clusters_a: ArrayLike | None = None,
    clusters_b: ArrayLike | None = None,
    alpha: float = 0.05,
) -> BenchmarkDifference:
    r"""Paired difference of two models on the questions both answered.

    For each shared question, :math:`d_q = \bar a_q - \bar b_q` (each model's mean over
    its own answers); the estimate is :math:`\bar d` and its standard error the CR1 over
    questions (or over ``clusters_a``'s clusters), with the interval
    :math:`\bar d \pm t_{G-1}\,\mathrm{SE}`.  Pairing removes the variance of question
    difficulty that both models share, which is why two overlapping error bars say little
    :cite:`miller2024errorbars`.

    Parameters
    ----------
    scores_a, questions_a : array_like
        Model A's graded answers and the question of each.
    scores_b, questions_b : array_like
        Model B's.
    clusters_a, clusters_b : array_like, optional
        The cluster of each answer (only ``clusters_a`` is used for the shared questions;
        ``clusters_b`` must agree with it where given).
    alpha : float

    Returns
    -------
    BenchmarkDifference

    Examples
    --------
    >>> a = [1, 1, 0, 1, 1, 1, 0, 1]
    >>> b = [1, 0, 0, 0, 1, 1, 0, 0]
    >>> q = [1, 1, 2, 2, 3, 3, 4, 4]
    >>> r = benchmark_difference(a, q, b, q)
    >>> r.estimate, round(r.se, 3), r.questions
    (0.375, 0.125, 4)
    """
    da = _graded(scores_a, questions_a, clusters_a, "_a")
    db = _graded(scores_b, questions_b, clusters_b, "_b")
    a_ = _alpha(alpha)
    shared, ia, ib = np.intersect1d(da.labels, db.labels, return_indices=True)
    if shared.size < 2:
        raise ValueError(
            f"questions_a and questions_b must share at least 2 questions, got {shared.size}"
        )
    if clusters_b is not None and clusters_a is not None:
        # alike: the pairs (cluster in a, cluster in b) match the clusters one to one
        pairs = np.unique(np.stack([da.units[ia], db.units[ib]]), axis=1).shape[1]
        if pairs != np.unique(da.units[ia]).size or pairs != np.unique(db.units[ib]).size:
            raise ValueError("clusters_a and clusters_b must group the shared questions alike")
    _, units = np.unique(da.units[ia], return_inverse=True)
    g = int(units.max()) + 1
    if g < 2:
        raise ValueError("clusters_a must put the shared questions in at least 2 clusters")
    ma = da.sums[ia] / da.counts[ia]
    mb = db.sums[ib] / db.counts[ib]
    diff, var = _cr1(ma - mb, units, g)
    _, var_a = _cr1(ma, units, g)
    _, var_b = _cr1(mb, units, g)
    se = float(np.sqrt(var))
    t = _dist.t_isf(a_ / 2, g - 1)
    if se > 0:
        p_value = float(min(1.0, 2 * _dist.t_sf(abs(float(diff)) / se, g - 1)))
    else:
        p_value = 1.0 if diff == 0 else 0.0
    wa = _within(da, ia)
    wb = _within(db, ib)
    within = None if (wa is None or wb is None) else wa + wb
    return BenchmarkDifference(
        estimate=float(diff),
        low=float(diff - t * se),
        high=float(diff + t * se),
        se=se,
        se_unpaired=float(np.sqrt(var_a + var_b)),
        p_value=p_value,
        disagreement=float(np.mean(ma * (1 - mb) + mb * (1 - ma))),
        within=within,
        questions=int(shared.size),
        units=g,
        samples=float((da.counts[ia].sum() + db.counts[ib].sum()) / (2 * shared.size)),
        dropped_a=int(da.labels.size - shared.size),
        dropped_b=int(db.labels.size - shared.size),
        alpha=a_,
    )


def _within(d: _Graded, idx) -> float | None:
    counts, sums, sumsq = d.counts[idx], d.sums[idx], d.sumsq[idx]
    dof = float(np.sum(counts - 1))
    if dof <= 0:
        return None
    return max(float(np.sum(sumsq - sums**2 / counts) / dof), 0.0)


# --------------------------------------------------------------------------- planning
@dataclass(frozen=True)
class PairedPlan(Result):
    """A planned paired comparison.  Unpacks as ``(questions, difference)``.

    ``variance`` is the variance of one question's difference of means with ``samples``
    answers per model, ``answers`` the graded answers to collect (both models).
    """

    questions: int
    difference: float
    variance: float = extra()
    samples: int = extra()
    answers: int = extra()
    alpha: float = extra()
    power: float = extra()


def _plan_inputs(disagreement, samples, within, alpha, power):
    r = float(as_probability(disagreement, "disagreement", scalar=True))
    if r <= 0:
        raise ValueError("disagreement must be positive: models that never disagree never differ")
    k = int(as_count(samples, "samples", minimum=1, scalar=True))
    w = float(as_floats(within, "within", scalar=True))
    if not (np.isfinite(w) and 0 <= w <= r):
        raise ValueError(f"within must lie in [0, disagreement={r:g}], got {show(within)}")
    a = _alpha(alpha)
    pw = float(as_probability(power, "power", scalar=True))
    z = _dist.norm_isf(a / 2) + _dist.norm_isf(1 - pw)
    if z <= 0:
        raise ValueError("power must exceed alpha / 2")
    return r, k, w, a, pw, z


def _paired_plan(q, delta, variance, k, a, pw) -> PairedPlan:
    return PairedPlan(
        questions=q,
        difference=float(delta),
        variance=float(variance),
        samples=k,
        answers=2 * q * k,
        alpha=a,
        power=pw,
    )


# minimum_detectable_difference and questions_for_difference solve the same power equation
# for its two unknowns and share _plan_inputs and _paired_plan; their signatures differ only
# in the first argument (the questions given, or the difference) and stay two functions.
def minimum_detectable_difference(
    questions: int,
    disagreement: float,
    *,
    samples: int = 1,
    within: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
) -> PairedPlan:
    r"""Smallest true difference a paired comparison on ``questions`` questions detects.

    With :math:`r` the probability that one answer of each model to a question get
    different grades, :math:`w = \mathrm E[p_a(1-p_a)] + \mathrm E[p_b(1-p_b)]` the two
    models' within-question variances and :math:`k` answers per question and model, one
    question's difference of means has variance

    .. math:: v_k = r - \delta^2 - w\,(1 - 1/k),

    (at :math:`k = 1` the paired 0/1 variance :math:`r - \delta^2`; more samples remove
    only the within part).  The two-sided test of level :math:`\alpha` has power
    :math:`\pi` at :math:`\delta = z\sqrt{v_k/Q}`, :math:`z = z_{1-\alpha/2} + z_{\pi}`
    (normal approximation), which solves in closed form:

    .. math:: \delta = z\,\sqrt{\frac{r - w(1-1/k)}{Q + z^2}}.

    ``within=0`` (the default) assumes answers to a question do not vary, so extra
    samples buy nothing: give the value :func:`benchmark_difference` estimates.

    Examples
    --------
    >>> round(minimum_detectable_difference(500, 0.2).difference, 4)
    0.0556
    >>> round(minimum_detectable_difference(500, 0.2, samples=5, within=0.1).difference, 4)
    0.0431
    """
    q = int(as_count(questions, "questions", minimum=2, scalar=True))
    r, k, w, a, pw, z = _plan_inputs(disagreement, samples, within, alpha, power)
    room = r - w * (1 - 1 / k)
    delta = z * np.sqrt(room / (q + z**2))
    return _paired_plan(q, delta, room - delta**2, k, a, pw)


def questions_for_difference(
    difference: float,
    disagreement: float,
    *,
    samples: int = 1,
    within: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
) -> PairedPlan:
    r"""Questions for a paired comparison to detect ``difference`` with ``power``.

    The smallest :math:`Q \ge 2` with :math:`Q \ge z^2 v_k/\delta^2`, where
    :math:`v_k = r - \delta^2 - w(1 - 1/k)` (see :func:`minimum_detectable_difference`).

    Raises
    ------
    ValueError
        If :math:`\delta^2 + w(1-1/k) > r`: the difference cannot coexist with that
        disagreement rate.

    Examples
    --------
    >>> questions_for_difference(0.05, 0.2).questions
    621
    >>> questions_for_difference(0.05, 0.2, samples=5, within=0.1).questions
    369
    """
    r, k, w, a, pw, z = _plan_inputs(disagreement, samples, within, alpha, power)
    delta = float(as_floats(difference, "difference", scalar=True))
    if not (np.isfinite(delta) and 0 < abs(delta) <= 1):
        raise ValueError(f"difference must be a number in (0, 1] in size, got {show(difference)}")
    v = r - delta**2 - w * (1 - 1 / k)
    if v < 0:
        raise ValueError(
            f"difference {delta:g} with within={w:g} is impossible at disagreement {r:g} "
            "(the disagreement rate must be at least difference**2 + within)"
        )
    q = max(2, int(np.ceil(z**2 * v / delta**2 * (1 - 1e-12))))
    return _paired_plan(q, abs(delta), v, k, a, pw)


# --------------------------------------------------------------------------- simulation
@dataclass(frozen=True)
class BenchmarkCoverage(Result):
    """Coverage of benchmark intervals on simulated benchmarks.

    Unpacks as ``(methods, coverage)``; ``width`` the mean widths, ``truth`` the
    population mean score, ``reps`` the simulated benchmarks.
    """

    methods: tuple
    coverage: np.ndarray
    width: np.ndarray = extra()
    truth: float = extra()
    reps: int = extra()


#: Methods of :func:`simulate_benchmark`, in the order of its result.
SIMULATED = (
    "two-level Wilson",
    "two-level Clopper-Pearson",
    "two-level t",
    "pooled answers",
    "answer bootstrap",
)


def _expit_mean(a, sd, nodes, weights):
    return float(np.sum(weights * special.expit(a + sd * np.sqrt(2) * nodes)) / np.sqrt(np.pi))


def simulate_benchmark(
    mean: float,
    spread: float,
    questions: int,
    samples: int,
    *,
    cluster_size: int = 1,
    cluster_spread: float = 0.0,
    reps: int = 1000,
    n_resamples: int = 200,
    alpha: float = 0.05,
    seed=None,
) -> BenchmarkCoverage:
    r"""Coverage of the benchmark intervals on simulated benchmarks with known truth.

    Question :math:`q` in cluster :math:`c` is answered right with probability
    :math:`p_q = \mathrm{expit}(a + s_c z_c + s_q z_q)`, :math:`z` standard normal,
    ``spread`` :math:`= s_q` and ``cluster_spread`` :math:`= s_c` on the logit scale, and
    :math:`a` set so that the population mean score :math:`\mathrm E[p_q]` is ``mean``
    (Gauss-Hermite quadrature).  Each of ``questions`` questions (in clusters of
    ``cluster_size``) is answered ``samples`` times.  Methods, in ``SIMULATED``'s
    order: :func:`benchmark_score`'s ``"wilson"``, ``"exact"`` and ``"t"`` intervals
    (the very code a user runs, vectorised over the simulated benchmarks), the pooled
    interval that treats all answers as independent
    (:math:`\hat\mu \pm z\sqrt{\hat\mu(1-\hat\mu)/N}`), and the percentile bootstrap that
    resamples answers and ignores the question level.

    Examples
    --------
    >>> c = simulate_benchmark(0.7, 1.5, 100, 5, reps=200, n_resamples=100, seed=1)
    >>> c.methods[0], float(c.coverage[0]) > 0.9, float(c.coverage[3]) < 0.9
    ('two-level Wilson', True, True)
    """
    mu = float(as_probability(mean, "mean", scalar=True))
    sq = float(as_floats(spread, "spread", scalar=True))
    sc = float(as_floats(cluster_spread, "cluster_spread", scalar=True))
    if not (np.isfinite(sq) and np.isfinite(sc) and sq >= 0 and sc >= 0 and sq <= 20 and sc <= 20):
        raise ValueError("spread and cluster_spread must be numbers in [0, 20] (logit scale)")
    m = int(as_count(cluster_size, "cluster_size", minimum=1, scalar=True))
    nq = int(as_count(questions, "questions", minimum=2, scalar=True))
    k = int(as_count(samples, "samples", minimum=1, scalar=True))
    r = int(as_count(reps, "reps", minimum=1, scalar=True))
    b = int(as_count(n_resamples, "n_resamples", minimum=10, scalar=True))
    a = _alpha(alpha)
    if nq % m:
        raise ValueError(f"questions ({nq}) must be a multiple of cluster_size ({m})")
    g = nq // m
    if g < 2:
        raise ValueError("questions / cluster_size must be at least 2 clusters")
    check_work(float(r) * (nq + b), MAX_WORK, "reps x (questions + n_resamples)")
    gen = rng(seed)
    nodes, weights = np.polynomial.hermite.hermgauss(80)
    total_sd = float(np.hypot(sq, sc))
    lo, hi = -60.0, 60.0
    for _ in range(200):  # bisection: E[expit(a + sd Z)] is increasing in a
        mid = (lo + hi) / 2
        if _expit_mean(mid, total_sd, nodes, weights) < mu:
            lo = mid
        else:
            hi = mid
    intercept = (lo + hi) / 2
    zc = np.repeat(gen.standard_normal((r, g)), m, axis=1)
    p = special.expit(intercept + sc * zc + sq * gen.standard_normal((r, nq)))
    correct = gen.binomial(k, p)
    means = correct / k
    units = np.repeat(np.arange(g), m)
    est, var = _cr1(means, units, g)
    n = nq * k
    bounds = [_interval(est, var, g, n, a, meth) for meth in ("wilson", "exact", "t")]
    zq = _dist.norm_isf(a / 2)
    se_pool = np.sqrt(est * (1 - est) / n)
    bounds.append((est - zq * se_pool, est + zq * se_pool))
    draws = gen.binomial(n, np.clip(est, 0, 1)[:, None], size=(r, b)) / n
    bounds.append(tuple(np.quantile(draws, [a / 2, 1 - a / 2], axis=1)))
    low = np.array([lo_ for lo_, _ in bounds])
    high = np.array([hi_ for _, hi_ in bounds])
    covered = (low <= mu) & (mu <= high)
    return BenchmarkCoverage(
        methods=SIMULATED,
        coverage=covered.mean(axis=1),
        width=(high - low).mean(axis=1),
        truth=mu,
        reps=r,
    )
