r"""Repeated samples of a stochastic model: more questions, or more answers per question?

A model that samples its answers (a language model at a temperature above 0, a network
with test-time dropout) can be asked each of :math:`Q` questions :math:`k` times.  Its
score :math:`y_{qj}` on question :math:`q`, sample :math:`j` follows the one-way
random-effects model

.. math:: y_{qj} = \mu + a_q + e_{qj}, \qquad \mathrm{Var}(a_q) = \sigma_b^2,\quad
          \mathrm{Var}(e_{qj}) = \sigma_w^2,

where :math:`\sigma_b^2` (between questions) is how much questions differ in
difficulty for this model and :math:`\sigma_w^2` (within) how much its answers to one
question vary.  For 0/1 scores with per-question success probability :math:`p_q`,
:math:`\sigma_b^2 = \mathrm{Var}(p_q)` and :math:`\sigma_w^2 = \mathrm{E}[p_q(1-p_q)]`.
The mean over all :math:`Qk` answers has

.. math:: \mathrm{Var}(\bar y) = \frac{\sigma_b^2}{Q} + \frac{\sigma_w^2}{Q k},

so more samples per question shrink only the second term: however large :math:`k`,
the standard error stays above :math:`\sigma_b/\sqrt Q`.  Questions are clusters of
:math:`k` items with intra-cluster correlation
:math:`\rho = \sigma_b^2/(\sigma_b^2 + \sigma_w^2)`, so everything here is the clustered
case of :mod:`heldout.dependent.clustered` and :mod:`heldout.dependent.cluster_sizing` with equal cluster
sizes; Miller :cite:`miller2024errorbars` makes the same decomposition for language-model
evaluations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from heldout._checks import as_count, as_positive, as_probability, layout_floats
from heldout._result import Result, extra

__all__ = [
    "Components",
    "Variances",
    "best_samples_per_question",
    "components_from_probabilities",
    "questions_needed",
    "samples_needed",
    "se_of_mean",
    "variance_components",
]


@dataclass(frozen=True)
class Components(Result):
    """Variance components of repeated answers.  Unpacks as ``(estimate, between, within)``.

    Attributes
    ----------
    estimate : float
        The mean score over all answers.
    between, within : float
        :math:`\\hat\\sigma_b^2` and :math:`\\hat\\sigma_w^2`.
    icc : float
        :math:`\\hat\\sigma_b^2/(\\hat\\sigma_b^2 + \\hat\\sigma_w^2)`.
    se : float
        Standard error of the mean, :math:`\\sqrt{\\mathrm{MSB}/(Qk)}`: the standard
        deviation of the question means over :math:`\\sqrt Q`.
    se_naive : float
        The standard error if all :math:`Qk` answers were independent.
    questions, samples : int
        :math:`Q` and :math:`k`.
    """

    estimate: float
    between: float
    within: float
    icc: float = extra()
    se: float = extra()
    se_naive: float = extra()
    questions: int = extra()
    samples: int = extra()


def variance_components(scores: ArrayLike) -> Components:
    r"""Between- and within-question variance of repeated answers (one-way ANOVA).

    With :math:`Q` questions answered :math:`k` times each,

    .. math::
        \mathrm{MSB} = \frac{k}{Q-1}\sum_q (\bar y_q - \bar y)^2, \quad
        \mathrm{MSW} = \frac{1}{Q(k-1)}\sum_{q,j}(y_{qj} - \bar y_q)^2, \quad
        \hat\sigma_w^2 = \mathrm{MSW}, \quad
        \hat\sigma_b^2 = \max\Big(0, \frac{\mathrm{MSB} - \mathrm{MSW}}{k}\Big),

    the unbiased ANOVA estimators (before truncation at 0) :cite:`searle1992variance`.
    The standard error of the mean, :math:`\sqrt{\mathrm{MSB}/(Qk)}`, is the
    cluster-robust (CR1) standard error with questions as clusters
    (:func:`heldout.dependent.clustered.clustered_mean`).

    Parameters
    ----------
    scores : array_like, shape (Q, k)
        ``scores[q, j]``: the score of answer ``j`` to question ``q``; at least two
        questions and two answers each.

    Returns
    -------
    Components

    Examples
    --------
    >>> c = variance_components([[1, 1, 1], [0, 0, 1], [1, 0, 1], [0, 0, 0]])
    >>> round(c.estimate, 3), round(c.between, 3), round(c.within, 3)
    (0.5, 0.13, 0.167)
    """
    y = layout_floats(scores, "scores", 2, "questions x samples")
    q, k = y.shape
    if q < 2 or k < 2:
        raise ValueError(
            f"scores must hold at least 2 questions and 2 samples per question, got shape {y.shape}"
        )
    if not np.all(np.isfinite(y)):
        raise ValueError("scores must be finite numbers (no NaN or infinity)")
    means = y.mean(axis=1)
    grand = means.mean()
    msb = k * np.sum((means - grand) ** 2) / (q - 1)
    msw = np.sum((y - means[:, None]) ** 2) / (q * (k - 1))
    between = max(0.0, (msb - msw) / k)
    total = between + msw
    n = q * k
    return Components(
        estimate=float(grand),
        between=float(between),
        within=float(msw),
        icc=float(between / total) if total > 0 else 0.0,
        se=float(np.sqrt(msb / n)),
        se_naive=float(np.sqrt(np.sum((y - grand) ** 2) / (n - 1) / n)),
        questions=q,
        samples=k,
    )


@dataclass(frozen=True)
class Variances(Result):
    """Between-question and within-question variances; unpacks as ``(between, within)``."""

    between: float
    within: float


def components_from_probabilities(p: ArrayLike) -> Variances:
    r"""Between and within variances of 0/1 answers from per-question success probabilities.

    .. math:: \sigma_b^2 = \mathrm{Var}(p_q), \qquad \sigma_w^2 = \mathrm{E}[p_q(1-p_q)],

    averages over the questions given (population variance); they add up to
    :math:`\bar p(1-\bar p)`.

    Parameters
    ----------
    p : array_like
        The model's probability of answering each question correctly.

    Returns
    -------
    Variances
        ``(between, within)``.

    Examples
    --------
    >>> components_from_probabilities([0.5, 1.0])
    Variances(between=0.0625, within=0.125)
    """
    arr = as_probability(p, "p", closed=True)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("p must be a non-empty one-dimensional array of probabilities")
    return Variances(float(arr.var()), float(np.mean(arr * (1 - arr))))


def _components(between, within):
    b = float(as_positive(between, "between", allow_zero=True, scalar=True))
    w = float(as_positive(within, "within", allow_zero=True, scalar=True))
    if np.ndim(between) or np.ndim(within):
        raise ValueError("between and within must be single numbers")
    if b + w == 0:
        raise ValueError("between and within must not both be 0 (the score would not vary)")
    return b, w


def se_of_mean(between, within, questions, samples) -> float | np.ndarray:
    r"""Standard error of the mean score: :math:`\sqrt{\sigma_b^2/Q + \sigma_w^2/(Qk)}`.

    Examples
    --------
    >>> round(se_of_mean(0.04, 0.05, 500, 1), 5), round(se_of_mean(0.04, 0.05, 500, 10), 5)
    (0.01342, 0.00949)
    """
    from heldout._checks import broadcast, scalar_or_array

    b = as_positive(between, "between", allow_zero=True)
    w = as_positive(within, "within", allow_zero=True)
    q = as_count(questions, "questions", minimum=1).astype(float)
    k = as_count(samples, "samples", minimum=1).astype(float)
    b, w, q, k = broadcast(between=b, within=w, questions=q, samples=k)
    return scalar_or_array(np.sqrt(b / q + w / (q * k)))


def questions_needed(
    half_width: float,
    between: float,
    within: float,
    samples: int,
    *,
    alpha: float = 0.05,
    method: str = "t",
):
    r"""Questions :math:`Q` for a half-width ``half_width`` with ``samples`` answers per question.

    The smallest :math:`Q \ge 2` with
    :math:`q\sqrt{(\sigma_b^2 + \sigma_w^2/k)/Q} \le h`, i.e.
    :func:`heldout.dependent.cluster_sizing.clusters_for_half_width` with questions as clusters of
    :math:`k` answers, variance :math:`\sigma_b^2 + \sigma_w^2` and
    :math:`\rho = \sigma_b^2/(\sigma_b^2 + \sigma_w^2)`.

    Returns
    -------
    heldout.dependent.cluster_sizing.ClusterSize
        ``clusters`` are the questions, ``items`` the answers to collect.

    Examples
    --------
    >>> questions_needed(0.02, 0.04, 0.05, 1).clusters, questions_needed(0.02, 0.04, 0.05, 10).clusters
    (867, 435)
    """
    from heldout.dependent.cluster_sizing import clusters_for_half_width

    b, w = _components(between, within)
    k = int(as_count(samples, "samples", minimum=1, scalar=True))
    return clusters_for_half_width(
        half_width, b / (b + w), k, variance=b + w, alpha=alpha, method=method
    )


def samples_needed(
    half_width: float,
    between: float,
    within: float,
    questions: int,
    *,
    alpha: float = 0.05,
    max_samples: int = 1_000_000,
) -> int:
    r"""Answers per question :math:`k` for a half-width, with a fixed set of ``questions``.

    The smallest :math:`k \ge 1` with
    :math:`t_{Q-1}\sqrt{(\sigma_b^2 + \sigma_w^2/k)/Q} \le h`:

    .. math:: k = \Big\lceil \frac{\sigma_w^2}{Q h^2/t^2 - \sigma_b^2} \Big\rceil .

    Raises
    ------
    ValueError
        If :math:`t\,\sigma_b/\sqrt Q \ge h`: the differences between questions alone
        make the interval wider than ``half_width``, and no number of samples per
        question can fix it (only more questions can); or if more than
        ``max_samples`` would be needed.

    Examples
    --------
    >>> samples_needed(0.02, 0.04, 0.05, 600)
    3
    """
    b, w = _components(between, within)
    h = float(as_positive(half_width, "half_width", scalar=True))
    q = int(as_count(questions, "questions", minimum=2, scalar=True))
    a = float(as_probability(alpha, "alpha", scalar=True))
    max_samples = int(as_count(max_samples, "max_samples", minimum=1, scalar=True))
    t = stats.t.isf(a / 2, q - 1)
    with np.errstate(over="ignore"):  # a huge half-width: room is inf, one sample does
        room = float(q * np.float64(h) ** 2 / t**2 - b)
    if room <= 0:
        floor = t * np.sqrt(b / q)
        raise ValueError(
            f"half_width {h:g} cannot be reached with {q} questions: the between-question "
            f"variance alone gives a half-width of {floor:.4g} however many samples per "
            "question; add questions"
        )
    raw = w / room * (1 - 1e-12)  # may be inf for a huge within-question variance
    if not raw <= max_samples:
        raise ValueError(f"half_width {h:g} needs more than max_samples={max_samples} samples")
    k = max(1, int(np.ceil(raw)))
    return k


def best_samples_per_question(between, within, cost_question, cost_sample) -> float:
    r"""Samples per question that minimise the cost of a given precision.

    .. math:: k^\ast = \sqrt{\frac{c_q}{c_s}\,\frac{\sigma_w^2}{\sigma_b^2}},

    the optimal cluster size :func:`heldout.dependent.cluster_sizing.optimal_cluster_size` with
    questions as clusters (:math:`(1-\rho)/\rho = \sigma_w^2/\sigma_b^2`): :math:`c_q`
    is the cost of one more question (writing and checking it, and its share of fixed
    costs) and :math:`c_s` the cost of one more sampled answer.  When questions are
    free to add (:math:`c_q \approx 0`), one sample per question is best.

    Examples
    --------
    >>> round(best_samples_per_question(0.04, 0.05, 10, 1), 2)
    3.54
    """
    from heldout._checks import as_positive
    from heldout.dependent.cluster_sizing import optimal_cluster_size

    b, w = _components(between, within)
    as_positive(cost_question, "cost_question", scalar=True)
    as_positive(cost_sample, "cost_sample", scalar=True)
    if b == 0:
        raise ValueError(
            "between must be positive: with no difference between questions any k works"
        )
    if w == 0:
        return 1.0
    return float(optimal_cluster_size(b / (b + w), cost_question, cost_sample))
