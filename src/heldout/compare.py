"""Comparing models scored on one test set.

Two views of "is model A better than model B?":

* **Independent (unpaired) view**, the one of the source article
  (:cite:`validation_size`): each accuracy gets its own Beta posterior and we
  compute ``P(p_A > p_B)`` (:func:`prob_better`), or we run Fisher's exact
  test or the chi-squared test on the 2x2 table of correct / wrong counts
  (:func:`fisher_test`, :func:`chi2_test`).
* **Paired view**: when both models answered the *same* items, only the items
  on which they disagree carry information about which is better.  McNemar's
  exact test (:cite:`mcnemar1947`, :func:`mcnemar_exact`) and a Beta posterior
  on the share of disagreements won by A (:func:`paired_prob_better`).

For many models: :func:`prob_best` (exact, by integration), :func:`prob_best_mc`
(simulation), :func:`best_bounds` (the article's union-bound argument, corrected),
:func:`holm` and :func:`bonferroni` (multiple-comparison corrections).

Sizes: :func:`required_size` (the article's ``N ~ n_m^2 p (1 - p) / sigma^2``)
and :func:`required_size_exact` (smallest ``N`` at which the best model is
picked with a stated probability).

Simulations for the chapter: :func:`simulate_power` (paired vs unpaired tests)
and :func:`simulate_pick_best` (chance of picking the truly best model).
"""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np
from scipy import integrate, special, stats

from heldout._checks import (
    as_count,
    as_counts,
    as_positive,
    as_probability,
    broadcast,
    scalar_or_array,
)
from heldout.config import SEED
from heldout.posterior import PriorLike, beta_params

_ALTERNATIVES = ("less", "greater", "two-sided")


def _check_alternative(alternative: str) -> str:
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}")
    return alternative


# ---------------------------------------------------------------------------
# P(p_A > p_B) for independent Beta posteriors
# ---------------------------------------------------------------------------


def _is_int(x: float) -> bool:
    return float(x).is_integer() and x >= 1


def _g_sum(a1: float, b1: float, a2: float, b2: float) -> float:
    """P(X2 > X1) for X1 ~ Beta(a1, b1), X2 ~ Beta(a2, b2), integer a2.

    Closed form (sum of a2 terms, in log space):
    ``sum_{i=0}^{a2-1} B(a1+i, b1+b2) / ((b2+i) B(1+i, b2) B(a1, b1))``.
    """
    i = np.arange(int(a2), dtype=float)
    log_terms = (
        special.betaln(a1 + i, b1 + b2)
        - np.log(b2 + i)
        - special.betaln(1.0 + i, b2)
        - special.betaln(a1, b1)
    )
    return float(np.exp(special.logsumexp(log_terms)))


def _prob_greater_quad(a1: float, b1: float, a2: float, b2: float) -> float:
    """P(X1 > X2) = int f1(x) F2(x) dx by adaptive quadrature over the bulk of X1.

    The smaller of P(X1 > X2) and P(X2 > X1) is integrated (the other is its
    complement), so a probability near 1 is not limited by quadrature error.
    """
    if a1 / (a1 + b1) > a2 / (a2 + b2):
        return 1.0 - _prob_greater_quad(a2, b2, a1, b1)
    eps = 1e-17
    lo = max(float(special.betaincinv(a1, b1, eps)), float(special.betaincinv(a2, b2, eps)))
    hi = float(special.betainccinv(a1, b1, eps))
    if not lo < hi:
        # the bulk of X1 lies below the bulk of X2
        return 0.0
    log_norm = -float(special.betaln(a1, b1))

    def integrand(x: float) -> float:
        # f1(x) F2(x) with scalar math for speed
        return math.exp((a1 - 1.0) * math.log(x) + (b1 - 1.0) * math.log1p(-x) + log_norm) * float(
            special.betainc(a2, b2, x)
        )

    pts = [m for m in (a1 / (a1 + b1), a2 / (a2 + b2)) if lo < m < hi]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        val, _ = integrate.quad(
            integrand, lo, hi, points=pts or None, limit=500, epsabs=1e-15, epsrel=1e-12
        )
    return float(min(max(val, 0.0), 1.0))


_MAX_TERMS = 2_000_000


def prob_greater_beta(a1: float, b1: float, a2: float, b2: float) -> float:
    """``P(X1 > X2)`` for independent ``X1 ~ Beta(a1, b1)``, ``X2 ~ Beta(a2, b2)``.

    Exact: when a parameter is a whole number the closed-form finite sum of
    ``_g_sum`` is used (choosing among the four symmetric forms the one with
    fewest terms, preferring a direct sum over a complement); otherwise the
    integral ``int_0^1 f_1(x) F_2(x) dx`` is computed by adaptive quadrature to
    an absolute accuracy of about 1e-13.
    """
    a1, b1, a2, b2 = (
        float(as_positive(v, name)) for v, name in ((a1, "a1"), (b1, "b1"), (a2, "a2"), (b2, "b2"))
    )
    direct = []
    if _is_int(a1):  # P(X1 > X2) = g(a2, b2, a1, b1)
        direct.append((a1, lambda: _g_sum(a2, b2, a1, b1)))
    if _is_int(b2):  # P(X1 > X2) = P(1-X2 > 1-X1) = g(b1, a1, b2, a2)
        direct.append((b2, lambda: _g_sum(b1, a1, b2, a2)))
    complement = []
    if _is_int(a2):  # 1 - P(X2 > X1)
        complement.append((a2, lambda: 1.0 - _g_sum(a1, b1, a2, b2)))
    if _is_int(b1):
        complement.append((b1, lambda: 1.0 - _g_sum(b2, a2, b1, a1)))
    direct = [c for c in direct if c[0] <= _MAX_TERMS]
    complement = [c for c in complement if c[0] <= _MAX_TERMS]
    if direct:
        terms, fn = min(direct, key=lambda c: c[0])
        if not complement or terms <= 100 * min(c[0] for c in complement):
            return float(min(max(fn(), 0.0), 1.0))
    if complement:
        _, fn = min(complement, key=lambda c: c[0])
        return float(min(max(fn(), 0.0), 1.0))
    return _prob_greater_quad(a1, b1, a2, b2)


def prob_better(correct_a, n_a, correct_b, n_b, prior: PriorLike = "uniform"):
    """Posterior probability ``P(p_A > p_B)`` that model A's accuracy exceeds B's.

    Each accuracy gets an independent Beta posterior,
    ``p_A ~ Beta(c_A + a0, n_A - c_A + b0)`` and likewise for B, and

    ``P(p_A > p_B) = int_0^1 f_A(x) F_B(x) dx``

    computed exactly (closed-form sum when a parameter is whole, adaptive
    quadrature otherwise; accurate to better than 1e-10).  The article
    (:cite:`validation_size`) estimates this by sampling.

    Parameters
    ----------
    correct_a, n_a, correct_b, n_b
        Correct answers and test items of each model (arrays broadcast).
    prior
        ``"uniform"`` (default), ``"haldane"``, ``"jeffreys"`` or ``(a0, b0)``.

    Returns
    -------
    float or ndarray
    """
    ka, na = as_counts(correct_a, n_a, "correct_a", "n_a")
    kb, nb = as_counts(correct_b, n_b, "correct_b", "n_b")
    aa, ba = beta_params(ka, na - ka, prior)
    ab, bb = beta_params(kb, nb - kb, prior)
    aa, ba, ab, bb = np.broadcast_arrays(aa, ba, ab, bb)
    out = np.vectorize(prob_greater_beta, otypes=[float])(aa, ba, ab, bb)
    return scalar_or_array(out)


def prob_better_mc(
    correct_a, n_a, correct_b, n_b, prior: PriorLike = "uniform", *, draws: int = 100_000, seed=None
):
    """Monte Carlo estimate of ``P(p_A > p_B)`` and its standard error.

    Draws ``draws`` pairs from the two Beta posteriors and returns
    ``(q, sqrt(q (1 - q) / draws))`` where ``q`` is the share of pairs with
    ``p_A > p_B`` -- the article's sampling estimate (:cite:`validation_size`).
    The standard error shows that ``draws ~ q (1 - q) / se^2`` samples are
    needed for a precision ``se``.

    Returns
    -------
    (estimate, standard_error)
    """
    ka, na = as_counts(correct_a, n_a, "correct_a", "n_a")
    kb, nb = as_counts(correct_b, n_b, "correct_b", "n_b")
    if ka.ndim or kb.ndim:
        raise ValueError("correct_a and correct_b must be single counts for prob_better_mc")
    draws = int(as_count(draws, "draws", minimum=1))
    aa, ba = beta_params(ka, na - ka, prior)
    ab, bb = beta_params(kb, nb - kb, prior)
    rng = np.random.default_rng(SEED if seed is None else seed)
    x = rng.beta(float(aa), float(ba), size=draws)
    y = rng.beta(float(ab), float(bb), size=draws)
    q = float(np.mean(x > y))
    return q, float(np.sqrt(q * (1.0 - q) / draws))


def mc_draws_needed(prob, se):
    """Draws a Monte Carlo estimate of a probability ``prob`` needs for standard error ``se``.

    ``ceil(prob (1 - prob) / se^2)`` (binomial variance of the share of hits).
    """
    p = as_probability(prob, "prob", closed=True)
    se = as_positive(se, "se")
    out = np.ceil(p * (1.0 - p) / se**2 * (1.0 - 1e-12)).astype(np.int64)
    return int(out) if out.ndim == 0 else out


# ---------------------------------------------------------------------------
# Unpaired frequentist tests on the 2x2 table
# ---------------------------------------------------------------------------


def fisher_test(correct_a, n_a, correct_b, n_b, alternative: str = "less"):
    """p-value of Fisher's exact test on the table ``[[c_A, c_B], [n_A - c_A, n_B - c_B]]``.

    Conditioning on the margins, the correct count of A is hypergeometric:
    ``X ~ Hypergeom(total = n_A + n_B, successes = c_A + c_B, draws = n_A)``.
    ``alternative`` is about A's accuracy relative to B's:

    * ``"less"`` (A worse; the article's choice with A the lower score,
      ``scipy.stats.fisher_exact(..., alternative="less")``): ``P(X <= c_A)``;
    * ``"greater"`` (A better): ``P(X >= c_A)``;
    * ``"two-sided"``: the total probability of tables no more likely than the
      observed one (as in scipy).

    Returns
    -------
    float or ndarray
        The p-value: the probability, if both models had the same accuracy,
        of a table at least as extreme.  It is **not** the probability that
        one model is better.
    """
    _check_alternative(alternative)
    ka, na = as_counts(correct_a, n_a, "correct_a", "n_a")
    kb, nb = as_counts(correct_b, n_b, "correct_b", "n_b")
    ka, na, kb, nb = np.broadcast_arrays(ka, na, kb, nb)
    total, succ = na + nb, ka + kb
    if alternative == "less":
        p = stats.hypergeom.cdf(ka, total, succ, na)
    elif alternative == "greater":
        p = stats.hypergeom.sf(ka - 1, total, succ, na)
    else:

        def two(k, m, s, d):
            support = np.arange(max(0, d + s - m), min(s, d) + 1)
            pmf = stats.hypergeom.pmf(support, m, s, d)
            obs = stats.hypergeom.pmf(k, m, s, d)
            return float(pmf[pmf <= obs * (1 + 1e-7)].sum())

        p = np.vectorize(two, otypes=[float])(ka, total, succ, na)
    return scalar_or_array(np.clip(p, 0.0, 1.0))


def chi2_test(
    correct_a, n_a, correct_b, n_b, alternative: str = "less", *, correction: bool = True
):
    """p-value of Pearson's chi-squared test on the 2x2 table, with a one-sided version.

    Statistic: ``chi2 = sum (|O - E| - c)^2 / E`` over the four cells, with
    Yates' continuity correction ``c = 1/2`` (clipped so ``|O - E| - c >= 0``)
    when ``correction`` is true, as ``scipy.stats.chi2_contingency`` does by
    default.  ``"two-sided"`` returns ``P(chi2_1 >= chi2)``.

    One-sided version: with the signed statistic
    ``z = sign(p_hat_A - p_hat_B) sqrt(chi2)``, ``"less"`` (A worse) returns
    ``Phi(z)`` and ``"greater"`` ``1 - Phi(z)``.  When the observed difference
    points the way of the alternative this is the article's "two-sided p-value
    divided by 2" (:cite:`validation_size`); when it points the other way,
    halving would be wrong and the correct value is ``1 - p/2``.
    """
    _check_alternative(alternative)
    ka, na = as_counts(correct_a, n_a, "correct_a", "n_a")
    kb, nb = as_counts(correct_b, n_b, "correct_b", "n_b")
    ka, na, kb, nb = (x.astype(float) for x in np.broadcast_arrays(ka, na, kb, nb))
    total = na + nb
    succ = ka + kb
    fail = total - succ
    e11 = na * succ / total  # expected correct of A
    dev = np.abs(ka - e11)
    if correction:
        dev = np.maximum(dev - 0.5, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / (na * succ) + 1.0 / (nb * succ) + 1.0 / (na * fail) + 1.0 / (nb * fail)
        chi2 = np.where((succ > 0) & (fail > 0), dev**2 * total * inv, 0.0)
    if alternative == "two-sided":
        p = stats.chi2.sf(chi2, 1)
    else:
        z = np.sign(ka / na - kb / nb) * np.sqrt(chi2)
        p = stats.norm.cdf(z) if alternative == "less" else stats.norm.sf(z)
    return scalar_or_array(p)


# ---------------------------------------------------------------------------
# Paired view: disagreements, McNemar, paired posterior
# ---------------------------------------------------------------------------


def _as_bool_array(value, name: str) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype == bool:
        return arr
    try:
        num = np.asarray(arr, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of booleans (or 0/1), got {value!r}") from None
    if num.size and not np.all((num == 0) | (num == 1)):
        raise ValueError(f"{name} must hold only booleans or 0/1 values")
    return num.astype(bool)


def disagreements(correct_a, correct_b) -> tuple[int, int]:
    """Count the items only A got right and the items only B got right.

    Parameters
    ----------
    correct_a, correct_b
        Per-item correctness (booleans or 0/1) of the two models on the same
        items, same shape.

    Returns
    -------
    (only_a_correct, only_b_correct)
        The discordant counts ``b`` and ``c`` of McNemar's table.
    """
    a = _as_bool_array(correct_a, "correct_a")
    b = _as_bool_array(correct_b, "correct_b")
    if a.shape != b.shape:
        raise ValueError(
            f"correct_a and correct_b must have the same shape, got {a.shape} and {b.shape}"
        )
    return int(np.count_nonzero(a & ~b)), int(np.count_nonzero(~a & b))


def mcnemar_exact(only_a_correct, only_b_correct, alternative: str = "two-sided"):
    """McNemar's exact test (:cite:`mcnemar1947`): a binomial test on the disagreements.

    Under the null hypothesis that both models have the same accuracy, each of
    the ``d = b + c`` items on which they disagree is won by A with probability
    1/2, so ``b ~ Binomial(d, 1/2)``.  p-values:

    * ``"greater"`` (A better): ``P(B >= b)``;
    * ``"less"`` (A worse): ``P(B <= b)``;
    * ``"two-sided"``: ``min(1, 2 min(P(B <= b), P(B >= b)))``, as
      ``statsmodels.stats.contingency_tables.mcnemar(exact=True)``.

    With no disagreements (``d = 0``) every p-value is 1.
    """
    _check_alternative(alternative)
    b = as_count(only_a_correct, "only_a_correct")
    c = as_count(only_b_correct, "only_b_correct")
    b, c = np.broadcast_arrays(b, c)
    d = b + c
    lower = stats.binom.cdf(b, d, 0.5)
    upper = stats.binom.sf(b - 1, d, 0.5)
    if alternative == "less":
        p = lower
    elif alternative == "greater":
        p = upper
    else:
        p = np.minimum(1.0, 2.0 * np.minimum(lower, upper))
    return scalar_or_array(np.where(d == 0, 1.0, p))


def paired_prob_better(only_a_correct, only_b_correct, prior: PriorLike = "uniform"):
    """Posterior probability that A is better, in the paired view.

    Model: among items where the two models disagree, A wins each with the
    same probability ``theta`` independently.  Since
    ``p_A - p_B = P(disagree) (2 theta - 1)``, "A is better" is the event
    ``theta > 1/2``.  With a Beta(a0, b0) prior,
    ``theta | data ~ Beta(b + a0, c + b0)`` and the answer is
    ``P(theta > 1/2) = 1 - I_{1/2}(b + a0, c + b0)`` (regularised incomplete
    Beta function).  Under the uniform prior this equals
    ``P(Binomial(b + c + 1, 1/2) <= b)``.
    """
    b = as_count(only_a_correct, "only_a_correct")
    c = as_count(only_b_correct, "only_b_correct")
    a_post, b_post = beta_params(b, c, prior)
    return scalar_or_array(special.betainc(b_post, a_post, 0.5))


# ---------------------------------------------------------------------------
# Many models
# ---------------------------------------------------------------------------


def _many(correct, n, prior):
    k = as_count(correct, "correct")
    n_arr = as_count(n, "n", minimum=1)
    k, n_arr = broadcast(correct=k, n=n_arr)
    if k.ndim != 1 or k.size < 2:
        raise ValueError(f"correct must list at least two models (a 1-d array), got {correct!r}")
    if np.any(k > n_arr):
        raise ValueError(f"correct must not exceed n, got correct={correct!r}, n={n!r}")
    return beta_params(k, n_arr - k, prior)


def prob_best(correct, n, prior: PriorLike = "uniform"):
    """``P(model i has the highest accuracy)`` for independent Beta posteriors.

    ``P_i = int_0^1 f_i(x) prod_{j != i} F_j(x) dx``, computed for all models at
    once by vector-valued adaptive quadrature (``scipy.integrate.quad_vec``)
    over the range holding all posteriors' mass.  The entries sum to 1.

    Parameters
    ----------
    correct
        Correct answers of each model (1-d, at least two models).
    n
        Test items (a number, or one per model).
    prior
        See :func:`heldout.posterior.prior_params`.
    """
    a, b = _many(correct, n, prior)
    eps = 1e-16
    lo = float(np.min(stats.beta.ppf(eps, a, b)))
    hi = float(np.max(stats.beta.isf(eps, a, b)))
    means = a / (a + b)

    def integrand(x):
        pdf = stats.beta.pdf(x, a, b)
        cdf = stats.beta.cdf(x, a, b)
        prefix = np.concatenate(([1.0], np.cumprod(cdf)[:-1]))
        suffix = np.concatenate((np.cumprod(cdf[::-1])[:-1][::-1], [1.0]))
        return pdf * prefix * suffix

    pts = sorted({float(m) for m in means if lo < m < hi})
    edges = [lo, *pts, hi]
    total = np.zeros(a.size)
    for left, right in zip(edges[:-1], edges[1:], strict=True):
        if right > left:
            val, _ = integrate.quad_vec(
                integrand, left, right, epsabs=1e-13, epsrel=1e-11, limit=2000
            )
            total += val
    return np.clip(total, 0.0, 1.0)


def prob_best_mc(correct, n, prior: PriorLike = "uniform", *, draws: int = 100_000, seed=None):
    """Simulation estimate of :func:`prob_best` with standard errors.

    Draws ``draws`` accuracy vectors from the independent posteriors and
    counts how often each model is the largest.

    Returns
    -------
    (estimate, standard_error)
        Two arrays, one entry per model.
    """
    a, b = _many(correct, n, prior)
    draws = int(as_count(draws, "draws", minimum=1))
    rng = np.random.default_rng(SEED if seed is None else seed)
    x = rng.beta(a, b, size=(draws, a.size))
    q = np.bincount(np.argmax(x, axis=1), minlength=a.size) / draws
    return q, np.sqrt(q * (1.0 - q) / draws)


class BestBounds(NamedTuple):
    """Bounds on ``P(model i is best)`` from pairwise probabilities."""

    article_sum: (
        np.ndarray
    )  #: the article's sum_{j != i} P(p_i > p_j) (true but useless upper bound)
    upper: np.ndarray  #: min_{j != i} P(p_i > p_j), the best pairwise upper bound
    lower: np.ndarray  #: 1 - sum_{j != i} P(p_j > p_i), the union (Bonferroni) lower bound


def pairwise_prob_better(correct, n, prior: PriorLike = "uniform") -> np.ndarray:
    """Matrix ``P[i, j] = P(p_i > p_j)`` of exact pairwise posterior probabilities (diagonal 0)."""
    a, b = _many(correct, n, prior)
    m = a.size
    i, j = np.triu_indices(m, 1)
    upper = np.vectorize(prob_greater_beta, otypes=[float])(a[i], b[i], a[j], b[j])
    out = np.zeros((m, m))
    out[i, j] = upper
    out[j, i] = 1.0 - upper
    return out


def best_bounds(correct, n, prior: PriorLike = "uniform") -> BestBounds:
    """The article's bound on ``P(model i is best)`` beside correct ones.

    "Model i is best" is the *intersection* of the events ``p_i > p_j``
    (the article writes a union).  Hence, without any independence
    assumption,

    ``1 - sum_{j != i} P(p_j > p_i) <= P(i best) <= min_{j != i} P(p_i > p_j)``

    (the left side is the union bound applied to the complement).  The
    article's ``sum_{j != i} P(p_i > p_j)`` (:cite:`validation_size`) is also
    an upper bound but a weak one, often larger than 1.
    """
    pmat = pairwise_prob_better(correct, n, prior)
    m = pmat.shape[0]
    off = ~np.eye(m, dtype=bool)
    article = pmat.sum(axis=1)
    upper = np.where(off, pmat, np.inf).min(axis=1)
    lower = np.clip(1.0 - pmat.T.sum(axis=1), 0.0, 1.0)
    return BestBounds(article, upper, lower)


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (controls the family-wise error rate).

    Sort the ``m`` p-values ascending, multiply the ``k``-th smallest by
    ``m - k + 1``, take the running maximum, clip at 1, and return them in the
    original order.  Reject hypothesis ``i`` at level ``alpha`` when the
    adjusted value is ``<= alpha`` :cite:`holm1979`.
    """
    p = as_probability(pvalues, "pvalues", closed=True)
    if p.ndim != 1:
        raise ValueError(f"pvalues must be a 1-d array, got shape {p.shape}")
    m = p.size
    order = np.argsort(p, kind="stable")
    adj = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def bonferroni(pvalues) -> np.ndarray:
    """Bonferroni-adjusted p-values ``min(1, m p_i)``."""
    p = as_probability(pvalues, "pvalues", closed=True)
    if p.ndim != 1:
        raise ValueError(f"pvalues must be a 1-d array, got shape {p.shape}")
    return np.minimum(1.0, p * p.size)


# ---------------------------------------------------------------------------
# Sizes
# ---------------------------------------------------------------------------


def required_size(accuracy, gap, models=1):
    """The article's evaluation size ``N ~ n_m^2 p (1 - p) / sigma^2``.

    ``p`` is the accuracy of the best model, ``sigma`` the gap to the second
    best and ``n_m`` the number of similar models compared (the article
    takes ``n_m = 1`` for two models) (:cite:`validation_size`).  Rounded up.
    It makes ``sigma`` equal to ``n_m`` standard errors of *one* accuracy,
    i.e. ``n_m / sqrt(2)`` standard errors of the *difference* of two
    independent accuracies -- a modest level of confidence; see
    :func:`required_size_exact`.
    """
    p = as_probability(accuracy, "accuracy")
    g = as_positive(gap, "gap")
    m = as_positive(models, "models")
    if np.any(g >= p):
        raise ValueError(
            f"gap must be smaller than accuracy, got gap={gap!r}, accuracy={accuracy!r}"
        )
    out = np.ceil(m**2 * p * (1.0 - p) / g**2 - 1e-9).astype(np.int64)
    return int(out) if out.ndim == 0 else out


def pick_best_probability(accuracy, gap, n, models=1):
    """Exact chance that the best of ``models + 1`` classifiers has the highest test score.

    The best model has accuracy ``p``, each of its ``models`` rivals
    ``p - gap``; each is scored on its own ``n`` independent items, so the
    correct counts are ``X ~ Bin(n, p)`` and ``Y_j ~ Bin(n, p - gap)``, and a
    tie at the top is broken at random.  With ``F = P(Y < k)`` and
    ``g = P(Y = k)``:

    ``P = sum_k P(X = k) ((F + g)^(m+1) - F^(m+1)) / ((m + 1) g)``

    (the average of ``1/(j+1)`` over the number ``j`` of rivals tied at ``k``).
    """
    p = float(as_probability(accuracy, "accuracy"))
    g = float(as_positive(gap, "gap"))
    n = int(as_count(n, "n", minimum=1))
    m = int(as_count(models, "models", minimum=1))
    if g >= p:
        raise ValueError(
            f"gap must be smaller than accuracy, got gap={gap!r}, accuracy={accuracy!r}"
        )
    # only scores within 12 standard deviations of the best model's mean matter (tail < 1e-30)
    half = 12.0 * np.sqrt(n * p * (1.0 - p)) + 10.0
    k = np.arange(max(0, int(n * p - half)), min(n, int(np.ceil(n * p + half))) + 1)
    px = stats.binom.pmf(k, n, p)
    below = stats.binom.cdf(k - 1, n, p - g)
    at = stats.binom.pmf(k, n, p - g)
    big = m + 1
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # ((F + g)^(m+1) - F^(m+1)) / ((m+1) g), written without cancellation:
        # F^(m+1) expm1((m+1) log1p(g/F)) / ((m+1) g) when F > 0, and g^m / (m+1) when F = 0
        stable = below**big * np.expm1(big * np.log1p(at / below)) / (big * at)
        share = np.where(at > 0, np.where(below > 0, stable, at**m / big), below**m)
    return float(np.sum(px * share))


def required_size_exact(
    accuracy, gap, models=1, *, power: float = 0.95, n_max: int = 100_000_000
) -> int:
    """Smallest ``N`` at which the truly best model tops the test with probability ``power``.

    Uses :func:`pick_best_probability` (independent test sets of size ``N``,
    ``models`` rivals all ``gap`` below the best, random tie breaking).  The
    probability rises with ``N`` up to small lattice wiggles; ``N`` is found by
    doubling and bisection, then checked.

    Raises
    ------
    ValueError
        If ``power`` is not in (1/(models+1), 1) or ``N`` exceeds ``n_max``.
    """
    m = int(as_count(models, "models", minimum=1))
    power = float(as_probability(power, "power"))
    if power <= 1.0 / (m + 1):
        raise ValueError(
            f"power must exceed 1/(models+1) = {1 / (m + 1):.3g} (a random pick), got {power!r}"
        )
    lo, hi = 0, 1
    while pick_best_probability(accuracy, gap, hi, m) < power:
        lo, hi = hi, hi * 2
        if hi > n_max:
            raise ValueError(
                f"n_max={n_max} is too small for accuracy={accuracy}, gap={gap}, power={power}"
            )
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pick_best_probability(accuracy, gap, mid, m) >= power:
            hi = mid
        else:
            lo = mid
    return hi


# ---------------------------------------------------------------------------
# Simulations for the chapter
# ---------------------------------------------------------------------------


def paired_cell_probs(acc_a, acc_b, disagreement) -> np.ndarray:
    """Cell probabilities ``(both right, only A, only B, both wrong)`` of a paired design.

    ``P(only A) - P(only B) = acc_a - acc_b`` and ``P(only A) + P(only B) = disagreement``.
    """
    pa = float(as_probability(acc_a, "acc_a"))
    pb = float(as_probability(acc_b, "acc_b"))
    d = float(as_probability(disagreement, "disagreement", closed=True))
    p10 = (d + pa - pb) / 2.0
    p01 = (d - pa + pb) / 2.0
    p11 = pa - p10
    p00 = 1.0 - p11 - p10 - p01
    probs = np.array([p11, p10, p01, p00])
    if np.any(probs < -1e-12):
        raise ValueError(
            f"disagreement={disagreement!r} is impossible with acc_a={acc_a!r}, acc_b={acc_b!r} "
            f"(need |acc_a - acc_b| <= disagreement <= min(acc_a + acc_b, 2 - acc_a - acc_b))"
        )
    return np.clip(probs, 0.0, 1.0) / np.clip(probs, 0.0, 1.0).sum()


def simulate_power(
    acc_a, acc_b, disagreement, n, *, alpha: float = 0.05, reps: int = 10_000, seed=None
) -> dict:
    """Power of paired (McNemar) and unpaired (Fisher, chi-squared) tests, by simulation.

    Both models are scored on the same ``n`` items; the per-item outcomes are
    multinomial with :func:`paired_cell_probs`.  Each test is one-sided,
    alternative "A better" (so give ``acc_a > acc_b`` to measure power and
    ``acc_a == acc_b`` to measure the false-positive rate).

    Returns
    -------
    dict
        ``mcnemar``, ``fisher``, ``chi2``: the share of the ``reps`` runs whose
        p-value is ``<= alpha``; ``se``: the largest binomial standard error.
    """
    probs = paired_cell_probs(acc_a, acc_b, disagreement)
    n = int(as_count(n, "n", minimum=1))
    alpha = float(as_probability(alpha, "alpha"))
    reps = int(as_count(reps, "reps", minimum=1))
    rng = np.random.default_rng(SEED if seed is None else seed)
    cells = rng.multinomial(n, probs, size=reps)
    ka = cells[:, 0] + cells[:, 1]
    kb = cells[:, 0] + cells[:, 2]
    res = {
        "mcnemar": float(np.mean(mcnemar_exact(cells[:, 1], cells[:, 2], "greater") <= alpha)),
        "fisher": float(np.mean(fisher_test(ka, n, kb, n, "greater") <= alpha)),
        "chi2": float(np.mean(chi2_test(ka, n, kb, n, "greater") <= alpha)),
    }
    worst = max(res.values(), key=lambda v: v * (1 - v))
    res["se"] = float(np.sqrt(worst * (1 - worst) / reps))
    return res


def simulate_pick_best(accuracies, n, *, reps: int = 10_000, seed=None) -> float:
    """Chance that the model with the highest true accuracy gets the highest test score.

    Each model is scored on ``n`` items (independent binomial counts); ties
    at the top are broken at random.  Model 0 must be the truly best one
    (the first entry of ``accuracies`` is the largest).
    """
    acc = as_probability(accuracies, "accuracies")
    if acc.ndim != 1 or acc.size < 2:
        raise ValueError(f"accuracies must list at least two models, got {accuracies!r}")
    if np.any(acc[1:] >= acc[0]):
        raise ValueError("accuracies[0] must be strictly the largest (the truly best model)")
    n = int(as_count(n, "n", minimum=1))
    reps = int(as_count(reps, "reps", minimum=1))
    rng = np.random.default_rng(SEED if seed is None else seed)
    scores = rng.binomial(n, acc, size=(reps, acc.size)) + rng.random((reps, acc.size))
    return float(np.mean(np.argmax(scores, axis=1) == 0))


def required_size_paired(gap, disagreement, *, power: float = 0.95):
    """Items needed on a *shared* test set for the better model to score higher with probability ``power``.

    Per item, ``D = [A right] - [B right]`` takes the values 1, -1, 0 with
    probabilities ``p10``, ``p01`` and the rest, so ``E D = gap = p10 - p01``
    and ``Var D = disagreement - gap^2`` with ``disagreement = p10 + p01``.
    By the central limit theorem the mean difference is positive with
    probability ``power`` once

    ``N >= z_power^2 (disagreement - gap^2) / gap^2``  (normal approximation).

    For independent test sets the variance would instead be
    ``p_A (1 - p_A) + p_B (1 - p_B)``; models that agree on most items need
    far fewer test items.
    """
    g = as_positive(gap, "gap")
    d = as_probability(disagreement, "disagreement", closed=True)
    power = float(as_probability(power, "power"))
    if power <= 0.5:
        raise ValueError(f"power must exceed 0.5, got {power!r}")
    if np.any(d < g):
        raise ValueError(
            f"disagreement must be at least gap (p10 + p01 >= p10 - p01), got {disagreement!r} < {gap!r}"
        )
    z = stats.norm.ppf(power)
    out = np.ceil(z**2 * (d - g**2) / g**2 - 1e-9).astype(np.int64)
    return int(out) if out.ndim == 0 else out
