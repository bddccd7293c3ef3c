"""Comparing models scored on one test set.

Two views of "is model A better than model B?":

* **Independent (unpaired) view**, the one of the source article
  (:cite:`validation_size`): each accuracy gets its own Beta posterior and we
  compute ``P(p_A > p_B)`` (:func:`prob_better`), or we run Fisher's exact
  test or the chi-squared test on the 2x2 table of correct / wrong counts
  (:func:`fisher_test`, :func:`chi2_test`).  These treat the two scores as if
  each model had its own, independent test set.
* **Paired view**: when both models answered the *same* items, only the items
  on which they disagree carry information about which is better.  McNemar's
  exact test (:func:`heldout.comparison.paired.mcnemar_exact`, re-exported here) and a
  Beta posterior on the share of disagreements won by A (:func:`paired_prob_better`).

For many models: :func:`prob_best` (independent posteriors, by integration),
:func:`prob_best_mc` (simulation), :func:`best_bounds` (the article's union-bound
argument, corrected).  **On one shared test set** use instead
:func:`heldout.comparison.best.best_set` (models that cannot be ruled out as best),
:func:`heldout.comparison.best.prob_best_paired` (paired posterior) and
:func:`heldout.comparison.multiple.all_pairs` (McNemar for every pair with Holm).

Sizes: :func:`required_size` (the article's ``N ~ n_m^2 p (1 - p) / sigma^2``)
and :func:`required_size_exact` (smallest ``N`` at which the best model is
picked with a stated probability, each model on its own test set).  For a shared
test set see :func:`heldout.comparison.paired.paired_size`, :func:`heldout.comparison.paired.pick_size`
and :func:`heldout.comparison.best.pick_best_size_paired`.

Simulations for the chapter: :func:`simulate_power` (paired vs unpaired tests)
and :func:`simulate_pick_best` (chance of picking the truly best model).

The names moved to :mod:`heldout.comparison.paired`, :mod:`heldout.comparison.multiple`,
:mod:`heldout.comparison.best` and :mod:`heldout.comparison.predictions` stay importable from here.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import special

from heldout._checks import as_count, as_flag, as_positive, broadcast, show
from heldout._result import Result
from heldout._saddle import binom_cdf, binom_logpmf
from heldout.comparison._beta_compare import prob_greater as _prob_greater
from heldout.comparison.predictions import (
    _choice,
    _count,
    _counts,
    _probabilities,
    _probability,
    _scalar,
)
from heldout.config import rng as _make_rng

# (the names re-exported at the end, from the modules they moved to, are documented there)
__all__ = [
    "BestBounds",
    "MonteCarlo",
    "SimulatedPower",
    "best_bounds",
    "chi2_test",
    "fisher_test",
    "mc_draws_needed",
    "paired_cell_probs",
    "paired_prob_better",
    "pairwise_prob_better",
    "pick_best_probability",
    "prob_best",
    "prob_best_mc",
    "prob_better",
    "prob_better_mc",
    "prob_greater_beta",
    "required_size",
    "required_size_exact",
    "required_size_paired",
    "simulate_pick_best",
    "simulate_power",
]

_ALTERNATIVES = ("less", "greater", "two-sided")
_FISHER_MAX = 10**10  # largest n_a + n_b for Fisher's test (hypergeometric accuracy)


def _check_alternative(alternative: str) -> str:
    return _choice(alternative, "alternative", _ALTERNATIVES)


def _beta_params(successes, failures, prior):
    from heldout.accuracy.posterior import beta_params  # (imports scipy.stats: only when needed)

    return beta_params(successes, failures, prior)


def _count_pair(k, m, k_name: str, m_name: str) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``k`` out of totals ``m``: whole, ``0 <= k <= m``, ``m >= 1``, below 2**63, broadcast."""
    k_arr = _counts(k, k_name)
    m_arr = _counts(m, m_name, minimum=1)
    k_arr, m_arr = broadcast(**{k_name: k_arr, m_name: m_arr})
    if np.any(k_arr > m_arr):
        raise ValueError(f"{k_name} must not exceed {m_name} (a count cannot exceed its total)")
    return k_arr, m_arr


def _two_samples(correct_a, n_a, correct_b, n_b, alternative: str) -> tuple[np.ndarray, ...]:
    """The checked counts of two independent samples, broadcast together (Fisher, chi-squared)."""
    _check_alternative(alternative)
    ka, na = _count_pair(correct_a, n_a, "correct_a", "n_a")
    kb, nb = _count_pair(correct_b, n_b, "correct_b", "n_b")
    try:
        return np.broadcast_arrays(ka, na, kb, nb)
    except ValueError:
        raise ValueError("correct_a, n_a, correct_b and n_b do not broadcast") from None


def _positive(value, name: str) -> np.ndarray:
    # the shared check: also refuses booleans, complex numbers and 10**400 by name
    return as_positive(value, name)


def _out(arr):
    arr = np.asarray(arr)
    return float(arr) if arr.ndim == 0 else arr


# ---------------------------------------------------------------------------
# P(p_A > p_B) for independent Beta posteriors
# ---------------------------------------------------------------------------


#: Beta parameters accepted by :func:`prob_greater_beta` (see its accuracy note).
PARAMETER_RANGE = (0.2, 1e15)


def prob_greater_beta(a1, b1, a2, b2):
    """``P(X1 > X2)`` for independent ``X1 ~ Beta(a1, b1)``, ``X2 ~ Beta(a2, b2)``.

    Vectorised (arrays broadcast; no Python loop per pair).  When a parameter is a whole
    number up to 1,000 the answer is a finite sum (:cite:`cook2005`),
    ``P(X2 > X1) = sum_{i < a2} B(a1 + i, b1 + b2) / ((b2 + i) B(1 + i, b2) B(a1, b1))``
    (and its three mirror images), summed in log space with a Stirling-form first term.
    Otherwise ``int h_N(s) F_W(s) ds`` is integrated on the logit scale against the
    narrower of the two densities, with saddle-point densities (:cite:`loader2000`) and
    Clenshaw-Curtis panels (details in ``heldout.comparison._beta_compare``).  scipy's incomplete Beta
    function is not used there: at parameters of 1e8 it can be wrong in the tenth digit.

    Accuracy: absolute error below 1e-12 for all parameters from 0.2 to 1e9, checked
    against 40-digit mpmath on random grids (``tests/test_compare.py``).  Parameters outside
    ``[PARAMETER_RANGE[0], PARAMETER_RANGE[1]]`` = ``[0.2, 1e15]`` raise ``ValueError``:
    below 0.2 (mass piled at both ends) the quadrature errs by up to 1e-2 (Beta(0.01, 0.01)
    against itself gave 0.4966 instead of 0.5), and above 1e15 it returns NaN.  Posteriors
    from counts with the uniform, Jeffreys or Haldane prior never fall below 0.2.

    Examples
    --------
    >>> round(prob_greater_beta(97, 5, 99, 3), 10)
    0.2224192978
    >>> prob_greater_beta([10, 20], 10, 10, 10).round(4).tolist()
    [0.5, 0.8837]
    """
    args = [_positive(v, name) for v, name in ((a1, "a1"), (b1, "b1"), (a2, "a2"), (b2, "b2"))]
    lo, hi = PARAMETER_RANGE
    for arr, name in zip(args, ("a1", "b1", "a2", "b2"), strict=True):
        if np.any(arr < lo) or np.any(arr > hi):
            raise ValueError(
                f"{name} must lie between {lo:g} and {hi:g} (outside that range the "
                "quadrature is not accurate)"
            )
    try:
        args = np.broadcast_arrays(*args)
    except ValueError:
        raise ValueError("a1, b1, a2 and b2 do not broadcast to one shape") from None
    return _out(_prob_greater(*args))


def prob_better(correct_a, n_a, correct_b, n_b, prior="uniform"):
    """Posterior probability ``P(p_A > p_B)`` that model A's accuracy exceeds B's.

    Each accuracy gets an independent Beta posterior,
    ``p_A ~ Beta(c_A + a0, n_A - c_A + b0)`` and likewise for B, and

    ``P(p_A > p_B) = int_0^1 f_A(x) F_B(x) dx``

    computed by :func:`prob_greater_beta` (absolute error below 1e-12).  The article
    (:cite:`validation_size`) estimates this by sampling.

    **Assumes independent test sets.**  When both models were scored on the *same*
    items their accuracies are correlated; use :func:`paired_prob_better` (two models)
    or :func:`heldout.comparison.best.prob_best_paired` instead.

    Parameters
    ----------
    correct_a, n_a, correct_b, n_b
        Correct answers and test items of each model (arrays broadcast).
    prior
        ``"uniform"`` (default), ``"haldane"``, ``"jeffreys"`` or ``(a0, b0)``.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(prob_better(96, 100, 98, 100), 4)
    0.2224
    """
    ka, na = _count_pair(correct_a, n_a, "correct_a", "n_a")
    kb, nb = _count_pair(correct_b, n_b, "correct_b", "n_b")
    aa, ba = _beta_params(ka, na - ka, prior)
    ab, bb = _beta_params(kb, nb - kb, prior)
    return prob_greater_beta(aa, ba, ab, bb)


@dataclass(frozen=True)
class MonteCarlo(Result):
    """A Monte Carlo estimate and its standard error; unpacks as ``(estimate, se)``."""

    estimate: float | np.ndarray
    se: float | np.ndarray


def prob_better_mc(
    correct_a, n_a, correct_b, n_b, prior="uniform", *, draws: int = 100_000, seed=None
) -> MonteCarlo:
    """Monte Carlo estimate of ``P(p_A > p_B)`` and its standard error.

    Draws ``draws`` pairs from the two Beta posteriors and returns
    ``(q, sqrt(q (1 - q) / draws))`` where ``q`` is the share of pairs with
    ``p_A > p_B`` -- the article's sampling estimate (:cite:`validation_size`).
    The standard error shows that ``draws ~ q (1 - q) / se^2`` samples are
    needed for a precision ``se``.

    Returns
    -------
    MonteCarlo
        ``(estimate, se)``.

    Examples
    --------
    >>> est, se = prob_better_mc(96, 100, 98, 100, draws=10_000, seed=1)
    >>> abs(est - prob_better(96, 100, 98, 100)) < 4 * se
    True
    """
    ka = _count(correct_a, "correct_a")
    na = _count(n_a, "n_a", minimum=1)
    kb = _count(correct_b, "correct_b")
    nb = _count(n_b, "n_b", minimum=1)
    if ka > na or kb > nb:
        raise ValueError("correct_a must not exceed n_a, nor correct_b n_b")
    draws = _count(draws, "draws", minimum=1)
    if draws > 10**9:
        raise ValueError(f"draws must be at most 10**9, got {draws}")
    aa, ba = _beta_params(ka, na - ka, prior)
    ab, bb = _beta_params(kb, nb - kb, prior)
    rng = _make_rng(seed)
    x = rng.beta(float(aa), float(ba), size=draws)
    y = rng.beta(float(ab), float(bb), size=draws)
    q = float(np.mean(x > y))
    return MonteCarlo(q, float(np.sqrt(q * (1.0 - q) / draws)))


def mc_draws_needed(prob, se):
    """Draws a Monte Carlo estimate of a probability ``prob`` needs for standard error ``se``.

    ``ceil(prob (1 - prob) / se^2)`` (binomial variance of the share of hits).

    Examples
    --------
    >>> mc_draws_needed(0.2, 0.001)
    160000
    """
    p = _probabilities(prob, "prob", closed=True)
    se = _positive(se, "se")
    out = np.ceil(p * (1.0 - p) / se**2 * (1.0 - 1e-12))
    if np.any(out >= 2**63):
        raise ValueError("se is so small that the number of draws overflows")
    out = out.astype(np.int64)
    return int(out) if out.ndim == 0 else out


# ---------------------------------------------------------------------------
# Unpaired frequentist tests on the 2x2 table
# ---------------------------------------------------------------------------


#: Largest hypergeometric support summed term by term (no scipy.stats: a fast start-up).
_SMALL_SUPPORT = 100_000


def _hypergeom_small(ka: int, total: int, succ: int, na: int, alternative: str) -> float:
    """Fisher's p-value of one table by summing the hypergeometric probabilities.

    The probabilities over the support ``[lo, hi]`` are built from the ratio of
    neighbours, ``f(x + 1) / f(x) = (s - x)(n_a - x) / ((x + 1)(N - s - n_a + x + 1))``,
    as logarithms cumulated from ``lo`` and scaled by their maximum, so every term is
    computed relative to the mode (no ``log C(N, n_a)`` to cancel); the p-value is the
    sum over the tail (or, two-sided, over the tables no more likely than the observed
    one, within scipy's relative tolerance ``1e-7``) over the sum over the support.
    Used for one table whose support has at most ``_SMALL_SUPPORT`` values, where it
    agrees with ``scipy.stats.hypergeom`` to about 1e-12 (tested).
    """
    lo, hi = max(0, na + succ - total), min(succ, na)
    x = np.arange(lo, hi, dtype=float)
    steps = np.log((succ - x) * (na - x)) - np.log((x + 1) * (total - succ - na + x + 1))
    logf = np.concatenate(([0.0], np.cumsum(steps)))
    f = np.exp(logf - logf.max())
    i = ka - lo
    if alternative == "less":
        num = f[: i + 1].sum()
    elif alternative == "greater":
        num = f[i:].sum()
    else:
        num = f[f <= f[i] * (1 + 1e-7)].sum()
    return float(min(1.0, num / f.sum()))


def _fisher_two_sided(ka, total, succ, na):
    """Two-sided Fisher p-value: mass of tables no more likely than the observed one.

    The hypergeometric probability rises up to the mode and falls after it, so the tables
    at most as likely as the observed one (within scipy's relative tolerance 1e-7) are
    ``[lo, L]`` and ``[R, hi]``; ``L`` and ``R`` are found by bisection (no loop over
    the support: a table of 1e9 items costs the same as one of 100).
    """
    from scipy import stats

    def lp(x):
        return stats.hypergeom.logpmf(x, total, succ, na)

    lo = np.maximum(0, na + succ - total).astype(float)
    hi = np.minimum(succ, na).astype(float)
    mode = np.clip(np.floor((na + 1.0) * (succ + 1.0) / (total + 2.0)), lo, hi)
    thr = lp(ka) + np.log1p(1e-7)

    def bisect(true_end, false_end):
        a, b = true_end.copy(), false_end.copy()
        for _ in range(70):
            if np.all(np.abs(b - a) <= 1):
                break
            mid = np.floor((a + b) / 2.0)
            ok = lp(mid) <= thr
            a, b = np.where(ok, mid, a), np.where(ok, b, mid)
        return a

    # left tail: lp(x) <= thr for lo <= x <= L (lp rises on [lo, mode])
    left_any = lp(lo) <= thr
    left_all = lp(mode) <= thr
    big_l = np.where(left_all, mode, bisect(lo, mode))
    big_l = np.where(left_any, big_l, lo - 1)
    # right tail: lp(x) <= thr for R <= x <= hi (lp falls on [mode, hi])
    right_any = lp(hi) <= thr
    big_r = np.where(left_all, mode, bisect(hi, mode))
    big_r = np.where(right_any, big_r, hi + 1)
    p = np.where(big_l >= lo, stats.hypergeom.cdf(big_l, total, succ, na), 0.0) + np.where(
        big_r <= hi, stats.hypergeom.sf(big_r - 1, total, succ, na), 0.0
    )
    return np.where(big_l >= big_r - 1, 1.0, p)


def fisher_test(correct_a, n_a, correct_b, n_b, alternative: str = "less"):
    """p-value of Fisher's exact test on the table ``[[c_A, c_B], [n_A - c_A, n_B - c_B]]``.

    Conditioning on the margins, the correct count of A is hypergeometric:
    ``X ~ Hypergeom(total = n_A + n_B, successes = c_A + c_B, draws = n_A)``.
    ``alternative`` is about A's accuracy relative to B's:

    * ``"less"`` (A worse; the article's choice with A the lower score,
      ``scipy.stats.fisher_exact(..., alternative="less")``): ``P(X <= c_A)``;
    * ``"greater"`` (A better): ``P(X >= c_A)``;
    * ``"two-sided"``: the total probability of tables no more likely than the
      observed one (as in scipy), found by bisection on the unimodal
      probabilities, so a table of 1e9 items costs no more than one of 100.
      Tables with ``n_a + n_b > 1e10`` are refused (scipy's hypergeometric loses
      accuracy there; relative errors reach 1e-4 at 1e11).

    **Assumes independent test sets** (two independent binomial samples); on one
    shared test set McNemar's test (:func:`heldout.comparison.paired.mcnemar_exact`) uses the
    pairing and is more powerful.

    Returns
    -------
    float or ndarray
        The p-value: the probability, if both models had the same accuracy,
        of a table at least as extreme.  It is **not** the probability that
        one model is better.

    Examples
    --------
    >>> round(fisher_test(96, 100, 98, 100), 4)
    0.3414
    """
    ka, na, kb, nb = _two_samples(correct_a, n_a, correct_b, n_b, alternative)
    if np.any(na.astype(float) + nb > _FISHER_MAX):
        raise ValueError(
            "fisher_test needs n_a + n_b <= 1e10: beyond that scipy's hypergeometric "
            "probabilities lose accuracy (and chi2_test, a normal approximation, is exact "
            "to many digits there)"
        )
    total, succ = na + nb, ka + kb
    if total.ndim == 0 and min(int(succ), int(na)) - max(0, int(na + succ - total)) < (
        _SMALL_SUPPORT
    ):
        return _hypergeom_small(int(ka), int(total), int(succ), int(na), alternative)
    from scipy import stats

    with np.errstate(all="ignore"):
        if alternative == "less":
            p = stats.hypergeom.cdf(ka, total, succ, na)
        elif alternative == "greater":
            p = stats.hypergeom.sf(ka - 1, total, succ, na)
        else:
            p = _fisher_two_sided(ka, total, succ, na)
    return _out(np.clip(p, 0.0, 1.0))


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
    halving would be wrong and the correct value is ``1 - p/2``.  Assumes
    independent test sets.

    Examples
    --------
    >>> round(chi2_test(96, 100, 98, 100), 4)
    0.3392
    """
    ka, na, kb, nb = (
        x.astype(float) for x in _two_samples(correct_a, n_a, correct_b, n_b, alternative)
    )
    total = na + nb
    succ = ka + kb
    fail = total - succ
    e11 = na * succ / total  # expected correct of A
    dev = np.abs(ka - e11)
    if as_flag(correction, "correction"):
        dev = np.maximum(dev - 0.5, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / (na * succ) + 1.0 / (nb * succ) + 1.0 / (na * fail) + 1.0 / (nb * fail)
        chi2 = np.where((succ > 0) & (fail > 0), dev**2 * total * inv, 0.0)
    if alternative == "two-sided":
        p = special.chdtrc(1, chi2)
    else:
        z = np.sign(ka / na - kb / nb) * np.sqrt(chi2)
        p = special.ndtr(z) if alternative == "less" else special.ndtr(-z)
    return _out(p)


# ---------------------------------------------------------------------------
# Paired view (McNemar lives in heldout.comparison.paired)
# ---------------------------------------------------------------------------


def paired_prob_better(only_a_correct, only_b_correct, prior="uniform"):
    """Posterior probability that A is better, in the paired view.

    Model: among items where the two models disagree, A wins each with the
    same probability ``theta`` independently.  Since
    ``p_A - p_B = P(disagree) (2 theta - 1)``, "A is better" is the event
    ``theta > 1/2``.  With a Beta(a0, b0) prior,
    ``theta | data ~ Beta(b + a0, c + b0)`` and the answer is
    ``P(theta > 1/2) = 1 - I_{1/2}(b + a0, c + b0)`` (regularised incomplete
    Beta function).  Under the uniform prior this equals
    ``P(Binomial(b + c + 1, 1/2) <= b)``.

    Examples
    --------
    >>> round(paired_prob_better(30, 15), 4)
    0.9871
    """
    b = _counts(only_a_correct, "only_a_correct")
    c = _counts(only_b_correct, "only_b_correct")
    a_post, b_post = _beta_params(b, c, prior)
    return _out(special.betainc(b_post, a_post, 0.5))


# ---------------------------------------------------------------------------
# Many models, independent posteriors
# ---------------------------------------------------------------------------


def _many(correct, n, prior):
    k = _counts(correct, "correct")
    n_arr = _counts(n, "n", minimum=1)
    try:
        k, n_arr = np.broadcast_arrays(k, n_arr)
    except ValueError:
        raise ValueError("correct and n do not broadcast") from None
    if k.ndim != 1 or k.size < 2:
        raise ValueError(
            f"correct must list at least two models (a 1-d array), got {show(correct)}"
        )
    if np.any(k > n_arr):
        raise ValueError(f"correct must not exceed n, got correct={show(correct)}, n={show(n)}")
    return _beta_params(k, n_arr - k, prior)


def prob_best(correct, n, prior="uniform"):
    """``P(model i has the highest accuracy)`` for independent Beta posteriors.

    ``P_i = int_0^1 f_i(x) prod_{j != i} F_j(x) dx``, computed for all models at
    once by vector-valued adaptive quadrature (``scipy.integrate.quad_vec``)
    over the range holding all posteriors' mass.  The entries sum to 1.

    **Assumes each model has its own, independent test set.**  Models scored on the
    same items have correlated accuracies, and this value then understates how sure
    the data are about the leader; use :func:`heldout.comparison.best.prob_best_paired` there.

    Parameters
    ----------
    correct
        Correct answers of each model (1-d, at least two models).
    n
        Test items (a number, or one per model).
    prior
        See :func:`heldout.accuracy.posterior.prior_params`.

    Examples
    --------
    >>> prob_best([962, 958, 955], 1000).round(3).tolist()
    [0.588, 0.271, 0.14]
    """
    from scipy import integrate, stats

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


def prob_best_mc(correct, n, prior="uniform", *, draws: int = 100_000, seed=None) -> MonteCarlo:
    """Simulation estimate of :func:`prob_best` with standard errors (independent posteriors).

    Draws ``draws`` accuracy vectors from the independent posteriors and
    counts how often each model is the largest.

    Returns
    -------
    MonteCarlo
        ``(estimate, se)``: two arrays, one entry per model.

    Examples
    --------
    >>> est, se = prob_best_mc([962, 958, 955], 1000, draws=20_000, seed=0)
    >>> est.round(2).tolist()
    [0.59, 0.27, 0.14]
    """
    a, b = _many(correct, n, prior)
    draws = _count(draws, "draws", minimum=1)
    if draws * a.size > 10**9:
        raise ValueError("draws times the number of models must be at most 10**9")
    rng = _make_rng(seed)
    x = rng.beta(a, b, size=(draws, a.size))
    q = np.bincount(np.argmax(x, axis=1), minlength=a.size) / draws
    return MonteCarlo(q, np.sqrt(q * (1.0 - q) / draws))


@dataclass(frozen=True)
class BestBounds(Result):
    """Bounds on ``P(model i is best)`` from pairwise probabilities."""

    article_sum: np.ndarray  #: the article's sum_{j != i} P(p_i > p_j) (true but weak upper bound)
    upper: np.ndarray  #: min_{j != i} P(p_i > p_j), the best pairwise upper bound
    lower: np.ndarray  #: 1 - sum_{j != i} P(p_j > p_i), the union (Bonferroni) lower bound


def pairwise_prob_better(correct, n, prior="uniform") -> np.ndarray:
    """Matrix ``P[i, j] = P(p_i > p_j)`` of pairwise posterior probabilities (diagonal 0).

    Independent Beta posteriors (see :func:`prob_better`); all pairs in one vectorised call.

    Examples
    --------
    >>> pairwise_prob_better([96, 98], 100).round(4).tolist()
    [[0.0, 0.2224], [0.7776, 0.0]]
    """
    a, b = _many(correct, n, prior)
    m = a.size
    i, j = np.triu_indices(m, 1)
    upper = np.atleast_1d(prob_greater_beta(a[i], b[i], a[j], b[j]))
    out = np.zeros((m, m))
    out[i, j] = upper
    out[j, i] = 1.0 - upper
    return out


def best_bounds(correct, n, prior="uniform") -> BestBounds:
    """The article's bound on ``P(model i is best)`` beside correct ones.

    "Model i is best" is the *intersection* of the events ``p_i > p_j``
    (the article writes a union).  Hence, without any independence
    assumption,

    ``1 - sum_{j != i} P(p_j > p_i) <= P(i best) <= min_{j != i} P(p_i > p_j)``

    (the left side is the union bound applied to the complement).  The
    article's ``sum_{j != i} P(p_i > p_j)`` (:cite:`validation_size`) is also
    an upper bound but a weak one, often larger than 1.

    Examples
    --------
    >>> bb = best_bounds([962, 958, 955], 1000)
    >>> bb.article_sum.round(3).tolist()
    [1.457, 0.953, 0.59]
    """
    pmat = pairwise_prob_better(correct, n, prior)
    m = pmat.shape[0]
    off = ~np.eye(m, dtype=bool)
    article = pmat.sum(axis=1)
    upper = np.where(off, pmat, np.inf).min(axis=1)
    lower = np.clip(1.0 - pmat.T.sum(axis=1), 0.0, 1.0)
    return BestBounds(article, upper, lower)


# ---------------------------------------------------------------------------
# Sizes (independent test sets)
# ---------------------------------------------------------------------------


def required_size(accuracy, gap, models=1):
    """The article's evaluation size ``N ~ n_m^2 p (1 - p) / sigma^2``.

    ``p`` is the accuracy of the best model, ``sigma`` the gap to the second
    best and ``n_m`` the number of similar models compared (the article
    takes ``n_m = 1`` for two models) (:cite:`validation_size`).  Rounded up.
    It makes ``sigma`` equal to ``n_m`` standard errors of *one* accuracy,
    i.e. ``n_m / sqrt(2)`` standard errors of the *difference* of two
    independent accuracies -- a modest level of confidence; see
    :func:`required_size_exact`.  A plug-in rule of thumb, not a guarantee.

    Examples
    --------
    >>> required_size(0.5, 0.01)
    2500
    """
    p = _probabilities(accuracy, "accuracy")
    g = _positive(gap, "gap")
    m = as_count(models, "models", minimum=1).astype(float)  # a number of models: whole
    if np.any(g >= p):
        raise ValueError(
            f"gap must be smaller than accuracy, got gap={show(gap)}, accuracy={show(accuracy)}"
        )
    with np.errstate(over="ignore", divide="ignore"):
        raw = m**2 * p * (1.0 - p) / g**2
        # ceil with a relative guard: 0.96 * (1 - 0.96) is a hair above 0.0384 in floating
        # point, which made 64^2 0.96 0.04 / 0.01^2 = 1,572,864 come out as 1,572,865
        out = np.ceil(raw * (1.0 - 1e-12) - 1e-9)
    if np.any(out >= 2**63):
        raise ValueError("the size overflows: gap is too small")
    out = out.astype(np.int64)
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

    **Assumes independent test sets**, one per model.  On a shared test set the scores
    are correlated: see :func:`heldout.comparison.paired.pick_probability` (two models) and
    :func:`heldout.comparison.best.pick_best_paired`.

    Examples
    --------
    >>> round(pick_best_probability(0.96, 0.01, 4000), 3)
    0.985
    """
    p = _probability(accuracy, "accuracy")
    g = _scalar(gap, "gap")
    if g <= 0:
        raise ValueError(f"gap must be positive, got {show(gap)}")
    n = _count(n, "n", minimum=1)
    if n > 2**53:
        raise ValueError(f"n must be at most 2**53 (exact in double precision), got {n}")
    m = _count(models, "models", minimum=1)
    if g >= p:
        raise ValueError(
            f"gap must be smaller than accuracy, got gap={show(gap)}, accuracy={show(accuracy)}"
        )
    q = p - g
    # only scores within 12 standard deviations of the best model's mean matter (tail < 1e-30)
    half = 12.0 * np.sqrt(n * p * (1.0 - p)) + 10.0
    lo, hi = max(0, int(n * p - half)), min(n, int(np.ceil(n * p + half)))
    # beyond 40,001 lattice points the summand is smooth on the scale of the standard
    # deviation, so every step-th point, weighted by step, gives the sum (Euler-Maclaurin)
    step = max(1, -(-(hi - lo) // 40_000))
    k = np.arange(lo, hi + 1, step, dtype=float)
    px = np.exp(binom_logpmf(k, n, p)) * step
    below = binom_cdf(k - 1, n, q)
    at = np.exp(binom_logpmf(k, n, q))
    big = m + 1
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        # ((F + g)^(m+1) - F^(m+1)) / ((m+1) g), written without cancellation:
        # F^(m+1) expm1((m+1) log1p(g/F)) / ((m+1) g) when F > 0, and g^m / (m+1) when F = 0
        stable = below**big * np.expm1(big * np.log1p(at / below)) / (big * at)
        share = np.where(at > 0, np.where(below > 0, stable, at**m / big), below**m)
    return float(np.clip(np.sum(px * np.nan_to_num(share)), 0.0, 1.0))


def required_size_exact(
    accuracy, gap, models=1, *, power: float = 0.95, n_max: int = 100_000_000
) -> int:
    """Smallest ``N`` at which the truly best model tops the test with probability ``power``.

    Uses :func:`pick_best_probability` (**independent test sets** of size ``N``,
    ``models`` rivals all ``gap`` below the best, random tie breaking).  The
    probability rises with ``N`` up to small lattice wiggles; ``N`` is found by
    doubling and bisection.  With independent test sets ``N`` grows like
    ``log(models)``; on one shared test set it depends on how correlated the models
    are (:func:`heldout.comparison.best.pick_best_size_paired`).

    Raises
    ------
    ValueError
        If ``power`` is not in (1/(models+1), 1) or ``N`` exceeds ``n_max``.

    Examples
    --------
    >>> required_size_exact(0.96, 0.01, 1)
    2321
    """
    p = _probability(accuracy, "accuracy")
    g = _scalar(gap, "gap")
    m = _count(models, "models", minimum=1)
    power = _probability(power, "power")
    n_max = _count(n_max, "n_max", minimum=1)
    if power <= 1.0 / (m + 1):
        raise ValueError(
            f"power must exceed 1/(models+1) = {1 / (m + 1):.3g} (a random pick), got {show(power)}"
        )
    from heldout.comparison.paired import first_at_least

    return first_at_least(lambda n: pick_best_probability(p, g, n, m), power, n_max=n_max)


# ---------------------------------------------------------------------------
# Simulations for the chapter
# ---------------------------------------------------------------------------


def paired_cell_probs(acc_a, acc_b, disagreement) -> np.ndarray:
    """Cell probabilities ``(both right, only A, only B, both wrong)`` of a paired design.

    ``P(only A) - P(only B) = acc_a - acc_b`` and ``P(only A) + P(only B) = disagreement``.

    Examples
    --------
    >>> paired_cell_probs(0.92, 0.90, 0.06).round(3).tolist()
    [0.88, 0.04, 0.02, 0.06]
    """
    pa = _probability(acc_a, "acc_a")
    pb = _probability(acc_b, "acc_b")
    d = _probability(disagreement, "disagreement", closed=True)
    p10 = (d + pa - pb) / 2.0
    p01 = (d - pa + pb) / 2.0
    p11 = pa - p10
    p00 = 1.0 - p11 - p10 - p01
    probs = np.array([p11, p10, p01, p00])
    if np.any(probs < -1e-12):
        raise ValueError(
            f"disagreement={show(disagreement)} is impossible with acc_a={show(acc_a)}, acc_b={show(acc_b)} "
            f"(need |acc_a - acc_b| <= disagreement <= min(acc_a + acc_b, 2 - acc_a - acc_b))"
        )
    return np.clip(probs, 0.0, 1.0) / np.clip(probs, 0.0, 1.0).sum()


@dataclass(frozen=True)
class SimulatedPower(Result):
    """Rejection rates of paired and unpaired tests in simulated paired test sets."""

    mcnemar: float  #: share of runs where McNemar's exact test rejects
    fisher: float  #: share where Fisher's exact test rejects
    chi2: float  #: share where the chi-squared test rejects
    se: float  #: largest binomial standard error of the three

    def __getitem__(self, key):
        if isinstance(key, str):  # the old dict interface, kept for existing chapters
            warnings.warn(
                "simulate_power(...)[name] is deprecated; use the attribute (.mcnemar, ...)",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(self, key)
        return super().__getitem__(key)


def simulate_power(
    acc_a, acc_b, disagreement, n, *, alpha: float = 0.05, reps: int = 10_000, seed=None
) -> SimulatedPower:
    """Power of paired (McNemar) and unpaired (Fisher, chi-squared) tests, by simulation.

    Both models are scored on the same ``n`` items; the per-item outcomes are
    multinomial with :func:`paired_cell_probs`.  Each test is one-sided,
    alternative "A better" (so give ``acc_a > acc_b`` to measure power and
    ``acc_a == acc_b`` to measure the false-positive rate).

    Returns
    -------
    SimulatedPower
        ``mcnemar``, ``fisher``, ``chi2``: the share of the ``reps`` runs whose
        p-value is ``<= alpha``; ``se``: the largest binomial standard error.

    Examples
    --------
    >>> r = simulate_power(0.92, 0.90, 0.04, 1000, reps=2000, seed=0)
    >>> r.mcnemar > r.fisher
    True
    """

    probs = paired_cell_probs(acc_a, acc_b, disagreement)
    n = _count(n, "n", minimum=1)
    alpha = _probability(alpha, "alpha")
    reps = _count(reps, "reps", minimum=1)
    if reps > 10**7:
        raise ValueError(f"reps must be at most 10**7, got {reps}")
    rng = _make_rng(seed)
    cells = rng.multinomial(n, probs, size=reps)
    ka = cells[:, 0] + cells[:, 1]
    kb = cells[:, 0] + cells[:, 2]
    res = {
        "mcnemar": float(np.mean(mcnemar_exact(cells[:, 1], cells[:, 2], "greater") <= alpha)),
        "fisher": float(np.mean(fisher_test(ka, n, kb, n, "greater") <= alpha)),
        "chi2": float(np.mean(chi2_test(ka, n, kb, n, "greater") <= alpha)),
    }
    worst = max(res.values(), key=lambda v: v * (1 - v))
    return SimulatedPower(**res, se=float(np.sqrt(worst * (1 - worst) / reps)))


def simulate_pick_best(accuracies, n, *, reps: int = 10_000, seed=None) -> float:
    """Chance that the model with the highest true accuracy gets the highest test score.

    Each model is scored on ``n`` items of **its own** (independent binomial counts);
    ties at the top are broken at random.  Model 0 must be the truly best one
    (the first entry of ``accuracies`` is the largest).  For a shared test set see
    :func:`heldout.comparison.best.pick_best_paired`.

    Examples
    --------
    >>> round(simulate_pick_best([0.96, 0.95], 4000, reps=4000, seed=0), 2)
    0.99
    """
    acc = _probabilities(accuracies, "accuracies")
    if acc.ndim != 1 or acc.size < 2:
        raise ValueError(f"accuracies must list at least two models, got {show(accuracies)}")
    if np.any(acc[1:] >= acc[0]):
        raise ValueError("accuracies[0] must be strictly the largest (the truly best model)")
    n = _count(n, "n", minimum=1)
    reps = _count(reps, "reps", minimum=1)
    if reps * acc.size > 10**9:
        raise ValueError("reps times the number of models must be at most 10**9")
    rng = _make_rng(seed)
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
    far fewer test items.  The exact version is :func:`heldout.comparison.paired.pick_size`;
    no significance test is involved (for a test, :func:`heldout.comparison.paired.paired_size`).

    Examples
    --------
    >>> required_size_paired(0.01, 0.1)
    2703
    """
    g = _positive(gap, "gap")
    d = _probabilities(disagreement, "disagreement", closed=True)
    power = _probability(power, "power")
    if power <= 0.5:
        raise ValueError(f"power must exceed 0.5, got {show(power)}")
    if np.any(d < g):
        raise ValueError(
            f"disagreement must be at least gap (p10 + p01 >= p10 - p01), got {show(disagreement)} < {show(gap)}"
        )
    z = float(special.ndtri(power))
    with np.errstate(over="ignore", divide="ignore"):
        out = np.ceil(z**2 * (d - g**2) / g**2 - 1e-9)
    if np.any(out >= 2**63):
        raise ValueError("the size overflows: gap is too small")
    out = out.astype(np.int64)
    return int(out) if out.ndim == 0 else out


# ---------------------------------------------------------------------------
# Names that moved to the paired and many-model modules (the best-model names live in
# heldout.comparison.best, which imports this module: import them from there)
# ---------------------------------------------------------------------------

from heldout.comparison.multiple import (  # noqa: E402, F401
    Pairs,
    adjust,
    all_pairs,
    benjamini_hochberg,
    bonferroni,
    holm,
)
from heldout.comparison.paired import (  # noqa: E402, F401
    DiffInterval,
    Disagreements,
    PairedSize,
    PickSize,
    diff_coverage,
    diff_interval,
    disagreements,
    equivalence_test,
    mcnemar_exact,
    mcnemar_power,
    noninferiority_test,
    paired_size,
    pick_probability,
    pick_size,
    unpaired_size,
)
from heldout.comparison.predictions import as_correct, correctness, pattern_counts, read_predictions  # noqa: E402, F401
