"""A better, practically equivalent, or B better? Two models on one shared test set.

* :func:`paired_rope` -- the posterior probabilities that ``p_A - p_B`` lies above a
  region of practical equivalence (ROPE) ``[-rope, rope]``, inside it, or below it
  :cite:`benavoli2017`, from the paired posterior of the four cells (both right, only A
  right, only B right, both wrong).  The frequentist counterpart is the two one-sided
  tests of :func:`heldout.comparison.paired.equivalence_test`.

The same three probabilities across folds and across data sets are in
:mod:`heldout.resampling.bayes`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import integrate, special, stats

from heldout._checks import show
from heldout._result import Result
from heldout.comparison.predictions import _count, _scalar

__all__ = ["Rope", "paired_rope"]


@dataclass(frozen=True)
class Rope(Result):
    """Posterior weights of the three answers about a difference and a ROPE.

    For :func:`paired_rope` and :func:`heldout.resampling.bayes.correlated_t_rope`
    each field is a posterior probability of the difference ``delta`` lying in a region.
    For :func:`heldout.resampling.bayes.signed_rank_rope` it is not: each field is the share
    of posterior draws in which that region holds the *largest mass* of the differences'
    distribution (the convention of :cite:`benavoli2017`), a probability about which region
    dominates, not ``P(delta in region)``.
    """

    #: ``P(delta > rope)``; for the signed-rank test, the share of draws in which the
    #: region above the ROPE has the largest mass
    a_better: float
    #: ``P(|delta| <= rope)``; for the signed-rank test, the share of draws in which the
    #: ROPE has the largest mass
    equivalent: float
    #: ``P(delta < -rope)``; for the signed-rank test, the share of draws in which the
    #: region below the ROPE has the largest mass
    b_better: float
    rope: float  #: half-width of the region of practical equivalence


def _rope_width(rope) -> float:
    r = _scalar(rope, "rope")
    if not 0.0 <= r < 1.0:
        raise ValueError(f"rope must lie in [0, 1), got {show(rope)}")
    return r


def _tail(r: float, s_a: float, s_b: float, u_a: float, u_b: float, upper: bool) -> float:
    """P(s (2u - 1) > r) (upper) or P(s (2u - 1) < -r), s ~ Beta(s_a, s_b), u ~ Beta(u_a, u_b).

    Integrated over the upper-tail probabilities ``t = P(S > s)`` of ``s``
    (``s = F^-1(1 - t)``, from ``betainccinv``), so the integrand is a bounded function of
    ``t`` on ``(0, P(S > r))`` whatever the concentration of ``s``, and the range is
    computed from its own side (``betaincc``): when nearly all of ``s`` lies below ``r``
    the quantiles near 1 would lose their precision and scipy's quadrature would warn.
    """

    def inner(t: float) -> float:
        s = float(special.betainccinv(s_a, s_b, t))
        if s <= r:
            return 0.0
        cut = 0.5 * (1.0 + r / s)
        if upper:
            return float(special.betainc(u_b, u_a, 1.0 - cut))  # P(u > cut)
        return float(special.betainc(u_a, u_b, 1.0 - cut))  # P(u < 1 - cut)

    tail = float(special.betaincc(s_a, s_b, r)) if r > 0 else 1.0
    if tail <= 0.0:
        return 0.0
    value, _ = integrate.quad(inner, 0.0, tail, limit=200, epsabs=1e-12, epsrel=1e-8)
    return float(min(max(value, 0.0), 1.0))


def paired_rope(only_a_correct, only_b_correct, n, rope: float = 0.01, prior: float = 1.0) -> Rope:
    """``P(A better)``, ``P(practically equivalent)``, ``P(B better)`` on one shared test set.

    Model: the ``n`` items fall into four cells -- only A right (``b`` items), only B
    right (``c``), both right or both wrong (``n - b - c``) -- with probabilities from a
    Dirichlet posterior, each cell's count plus ``prior`` (``prior = 1``: uniform over
    the four cell probabilities).  The accuracy difference is
    ``delta = p_A - p_B = p_10 - p_01``.  Writing ``s = p_10 + p_01`` (the disagreement
    rate) and ``u = p_10 / s``, the Dirichlet gives independent
    ``s ~ Beta(b + c + 2 prior, n - b - c + 2 prior)`` and ``u ~ Beta(b + prior, c + prior)``,
    and ``delta = s (2 u - 1)``, so

    ``P(delta > r) = int P(u > (1 + r / s) / 2) f(s) ds``

    (and the mirror image for ``delta < -r``), one integral computed by adaptive
    quadrature.  The ROPE ``[-r, r]`` is the region of differences too small to matter,
    chosen before looking :cite:`benavoli2017`, :cite:`kruschke2018`.  With ``rope = 0``
    and ``prior = 1``, ``a_better`` is
    :func:`heldout.comparison.compare.paired_prob_better` with its uniform prior.

    Decision used in the book: act on an answer when its probability is at least 0.95.
    Read as a test ("equivalent" when ``P(|delta| <= r) >= 0.95``) it has about the
    error rate of the two one-sided tests at 5 % (``tests/comparison/test_rope.py``
    measures it at the boundary ``|delta| = r``).

    Parameters
    ----------
    only_a_correct, only_b_correct
        Items only A, only B got right.
    n
        Test items.
    rope
        Half-width ``r`` of the region of practical equivalence, in ``[0, 1)``.
    prior
        Dirichlet prior count per cell, positive.

    Returns
    -------
    Rope
        ``a_better``, ``equivalent``, ``b_better`` (summing to 1) and ``rope``.

    Examples
    --------
    >>> res = paired_rope(60, 30, 1000, rope=0.01)
    >>> round(res.a_better, 3), round(res.equivalent, 3), round(res.b_better, 3)
    (0.983, 0.017, 0.0)
    """
    b = _count(only_a_correct, "only_a_correct")
    c = _count(only_b_correct, "only_b_correct")
    m = _count(n, "n", minimum=1)
    if b + c > m:
        raise ValueError(f"only_a_correct + only_b_correct must not exceed n, got {b} + {c} > {m}")
    r = _rope_width(rope)
    a0 = _scalar(prior, "prior")
    if a0 <= 0:
        raise ValueError(f"prior must be positive, got {show(prior)}")
    s_a, s_b = b + c + 2 * a0, m - b - c + 2 * a0
    u_a, u_b = b + a0, c + a0
    up = _tail(r, s_a, s_b, u_a, u_b, upper=True)
    down = _tail(r, s_a, s_b, u_a, u_b, upper=False)
    if r == 0:  # no region: the two tails are complementary
        up = float(stats.beta.sf(0.5, u_a, u_b))
        down = 1.0 - up
    return Rope(up, float(max(0.0, 1.0 - up - down)), down, r)


def _dirichlet_draws(b, c, n, rope, prior=1.0, draws=400_000, seed=0) -> np.ndarray:
    """Monte Carlo of the same three probabilities (for tests)."""
    g = np.random.default_rng(seed)
    p = g.dirichlet([b + prior, c + prior, n - b - c + 2 * prior], size=draws)
    d = p[:, 0] - p[:, 1]
    return np.array([np.mean(d > rope), np.mean(np.abs(d) <= rope), np.mean(d < -rope)])
