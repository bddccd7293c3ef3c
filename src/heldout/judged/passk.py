r"""pass@k: the chance that at least one of :math:`k` sampled answers is right.

A code benchmark asks a model for :math:`n` answers to each problem and counts a
problem solved at :math:`k` when any of :math:`k` answers passes the tests.  Drawing
exactly :math:`k` answers per problem gives a noisy count; Chen et al.
:cite:`chen2021evaluating` draw :math:`n \ge k`, count the :math:`c` that pass, and use the
unbiased estimate of :math:`1 - (1-p_q)^k`

.. math:: \widehat{\mathrm{pass@}k}_q = 1 - \binom{n - c}{k}\Big/\binom{n}{k},

the probability that :math:`k` answers drawn without replacement from the :math:`n`
include a right one.  The plug-in :math:`1 - (1 - c/n)^k` is biased low (Jensen's
inequality on a concave function of :math:`c/n`).  The benchmark's pass@k is the
mean over problems; its interval here is over problems (or over clusters of
problems), with the effective-count interval of
:func:`heldout.judged.benchmark.benchmark_score`, which keeps a positive width when every
problem is solved or none is.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from heldout._checks import as_count, broadcast, scalar_or_array
from heldout.judged.benchmark import OverQuestions, _graded, _k_of, _over_questions

__all__ = ["pass_at_k", "pass_at_k_per_question"]


def pass_at_k_per_question(samples: ArrayLike, correct: ArrayLike, k: ArrayLike):
    r"""Unbiased pass@k of each question from ``samples`` answers of which ``correct`` pass.

    .. math:: 1 - \binom{n-c}{k}\Big/\binom{n}{k}
              = 1 - \exp\big(\ln\Gamma(n-c+1) - \ln\Gamma(n-c-k+1)
                - \ln\Gamma(n+1) + \ln\Gamma(n-k+1)\big),

    exactly 1 when :math:`n - c < k` and 0 when :math:`c = 0`, computed with log-gamma
    functions (vectorised; no loop over questions) :cite:`chen2021evaluating`.

    Parameters
    ----------
    samples, correct, k : array_like of int
        :math:`n \ge k \ge 1` and :math:`0 \le c \le n`; broadcast together.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(pass_at_k_per_question(10, 3, 1), 4), round(pass_at_k_per_question(10, 3, 5), 4)
    (0.3, 0.9167)
    >>> pass_at_k_per_question([5, 5], [0, 5], 2).tolist()
    [0.0, 1.0]
    """
    n = as_count(samples, "samples", minimum=1)
    c = as_count(correct, "correct")
    kk = as_count(k, "k", minimum=1)
    n, c, kk = broadcast(samples=n, correct=c, k=kk)
    if np.any(c > n):
        raise ValueError("correct must not exceed samples")
    if np.any(kk > n):
        raise ValueError("k must not exceed samples (pass@k needs at least k answers)")
    n, c, kk = (np.asarray(v, dtype=float) for v in (n, c, kk))
    return scalar_or_array(_unbiased(n, c, kk))


def _unbiased(n, c, k) -> np.ndarray:
    """The unbiased pass@k of :func:`pass_at_k_per_question` on checked float arrays."""
    fail = n - c
    full = fail < k
    safe = np.where(full, k, fail)
    log_ratio = (
        special.gammaln(safe + 1)
        - special.gammaln(safe - k + 1)
        - special.gammaln(n + 1)
        + special.gammaln(n - k + 1)
    )
    return np.where(full, 1.0, np.where(c == 0, 0.0, -np.expm1(log_ratio)))


def pass_at_k(
    scores: ArrayLike,
    questions: ArrayLike | None = None,
    k: int = 1,
    *,
    clusters: ArrayLike | None = None,
    alpha: float = 0.05,
    method: str = "auto",
) -> OverQuestions:
    r"""pass@k of a benchmark with an interval over questions.

    The mean over questions of :func:`pass_at_k_per_question`, with the CR1 standard error
    over questions (or ``clusters``) and the interval of
    :func:`heldout.judged.benchmark.benchmark_score` (``method``: ``"exact"`` by default,
    ``"wilson"`` or ``"t"``).  The questions' estimates are independent when the
    questions are, so the spread of the estimates carries both the variation between
    questions and the noise of sampling :math:`n` answers.

    Parameters
    ----------
    scores : array_like
        0/1 grades (1 = the answer passes), one per answer with ``questions``, or a 2-D
        array questions x samples.
    questions : array_like, optional
    k : int
        At most the fewest answers any question has.
    clusters, alpha, method
        As in :func:`heldout.judged.benchmark.benchmark_score`.

    Returns
    -------
    heldout.judged.benchmark.OverQuestions

    Examples
    --------
    >>> scores = [[1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 0, 1], [0, 1, 0, 0]]
    >>> round(pass_at_k(scores, k=1).estimate, 4), round(pass_at_k(scores, k=2).estimate, 4)
    (0.3125, 0.5)
    """
    d = _graded(scores, questions, clusters)
    if not d.binary:
        raise ValueError("scores must be 0 or 1 (fail or pass) for pass@k")
    kk = _k_of(k, d.counts)
    values = pass_at_k_per_question(d.counts.astype(np.int64), d.sums.round().astype(np.int64), kk)
    return _over_questions(np.atleast_1d(values), d, kk, alpha, method)
