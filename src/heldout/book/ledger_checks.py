"""The checks of the reproduction ledger: one function per claim of the five articles.

Each check is registered by name with ``@_check`` and returns an :class:`Evidence`: the
book's value of the claim (a number or a truth value), its uncertainty and extra numbers
for the row's template.  :mod:`heldout.book.ledger` reads the claims' data file, runs a
claim's check and renders the rows; every name defined here is also reachable from it
(``heldout.book.ledger.Evidence``, ``heldout.book.ledger._lost_alpha_mean``...).

Examples
--------
>>> from heldout.book.ledger_checks import check_names, needs_mnist
>>> "mnist_ceiling" in check_names()
True
>>> needs_mnist("bound-exact")
False
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from heldout.book.claims import claim

__all__ = ["Evidence", "MnistUnavailable", "check_names", "mnist_results", "needs_mnist"]


# =========================================================================== checks
@dataclass(frozen=True)
class Evidence:
    """What a check returns: the book's value (a number or a truth value), the value's
    uncertainty (MNIST runs) and extra numbers for the row's ``show`` template."""

    value: float | int | bool | None
    uncertainty: float | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Check:
    func: Callable[..., Evidence]
    mnist: bool


_CHECKS: dict[str, _Check] = {}


def _check(name: str, *, mnist: bool = False):
    def register(func):
        _CHECKS[name] = _Check(func, mnist)
        return func

    return register


def check_names() -> list[str]:
    """Names of the registered check functions."""
    return sorted(_CHECKS)


def needs_mnist(key: str) -> bool:
    """True when the row's check reads the MNIST experiment."""
    return _CHECKS[claim(key).check].mnist


def _ev(value, uncertainty=None, **extra) -> Evidence:
    if isinstance(value, np.generic):
        value = value.item()
    return Evidence(value, uncertainty, extra)


def _grid(lo: float = 0.0005, hi: float = 0.9995, n: int = 1999) -> np.ndarray:
    return np.linspace(lo, hi, n)


# --- 000: the lost test set ------------------------------------------------------------------
def _lost():
    from heldout.accuracy import lost

    return lost


def _lost_example(train_rows, test_rows, train_accuracy, test_accuracy):
    """The whole-data accuracy ``p`` of the example (training and test rows)."""
    return _lost().data_accuracy(train_accuracy, test_accuracy, train_rows, test_rows)


@_check("lost_estimator_target")
def _lost_estimator_target(train_rows, test_rows, train_accuracy, test_accuracy, batches):
    """Does the batch mean estimate the test accuracy ``a``?  Its expectation, whatever ``k``."""
    p = _lost_example(train_rows, test_rows, train_accuracy, test_accuracy)
    mom = _lost().estimator_moments(p, train_rows + test_rows, test_rows, batches)
    mean = mom.a_hat_mean
    return _ev(abs(mean - test_accuracy) < 1e-9, mean=mean, a=test_accuracy, p=p)


@_check("lost_assumption")
def _lost_assumption(rows, test_rows, batches):
    """Is the real test set among ``k`` random batches with high probability?"""
    prob = _lost().prob_test_set_drawn(rows, test_rows, batches)
    return _ev(prob >= 0.5, prob=prob, k=batches)


@_check("lost_split_identity")
def _lost_split_identity(rows, test_rows, batches, seed):
    """``a_hat = a/k + Delta a`` when batch 1 is the test set: computed on random batches."""
    gen = np.random.default_rng(seed)
    correct = gen.random(rows) < 0.8
    test = gen.permutation(rows)[:test_rows]
    others = [gen.permutation(rows)[:test_rows] for _ in range(batches - 1)]
    a = correct[test].mean()
    a_hat = (correct[test].sum() + sum(correct[b].sum() for b in others)) / (batches * test_rows)
    delta = sum(correct[b].sum() for b in others) / (batches * test_rows)
    return _ev(abs(a_hat - (a / batches + delta)) < 1e-12, gap=abs(a_hat - a / batches - delta))


@_check("lost_upper")
def _lost_upper(test_accuracy, data_accuracy, batches):
    """Is ``E[a_hat] >= a`` under the article's assumption, for every a, p and k >= 2?"""
    lost = _lost()
    a = np.linspace(0.0, 1.0, 41)[:, None, None]
    p = np.linspace(0.0, 1.0, 41)[None, :, None]
    k = np.arange(2, 21)[None, None, :]
    holds = bool(np.all(np.asarray(lost.article_expectation(a, p, k)) >= a - 1e-12))
    example = lost.article_expectation(test_accuracy, data_accuracy, batches)
    return _ev(holds, a=test_accuracy, p=data_accuracy, k=batches, e=example)


@_check("lost_identity")
def _lost_identity(train_rows, test_rows, seed):
    """``p = N1/N (1 - eps1) + N2/N (1 - eps2)`` against a count on a random correctness vector."""
    gen = np.random.default_rng(seed)
    correct = gen.random(train_rows + test_rows) < 0.85
    p_direct = correct.mean()
    p = _lost().data_accuracy(
        correct[:train_rows].mean(), correct[train_rows:].mean(), train_rows, test_rows
    )
    return _ev(abs(p - p_direct) < 1e-12, p=p)


@_check("lost_conditional_mean")
def _lost_conditional_mean(test_accuracy, data_accuracy, rows, test_rows, batches, tolerance):
    """The article's ``E[a_hat] = a/k + p(1 - 1/k)`` against the exact mean given the event."""
    lost = _lost()
    k = np.asarray(batches)
    exact = lost.expectation_given_drawn(test_accuracy, data_accuracy, rows, test_rows, k)
    printed = lost.article_expectation(test_accuracy, data_accuracy, k)
    gap = float(np.max(np.abs(np.asarray(exact) - np.asarray(printed))))
    return _ev(gap <= tolerance, gap=gap)


@_check("lost_alpha_mean")
def _lost_alpha_mean(test_accuracy, data_accuracy, batches):
    """``E[alpha] / a`` under the article's own expectation (it claims 1)."""
    lost = _lost()
    e_hat = lost.article_expectation(test_accuracy, data_accuracy, batches)
    ratio = lost.corrected_alpha(e_hat, data_accuracy, batches) / test_accuracy
    return _ev(abs(ratio - 1) < 1e-9, ratio=ratio, k=batches)


@_check("lost_alpha_unbiased")
def _lost_alpha_unbiased(train_rows, test_rows, train_accuracy, test_accuracy, batches):
    """Is either form of alpha unbiased for ``a`` without the assumption?"""
    p = _lost_example(train_rows, test_rows, train_accuracy, test_accuracy)
    mom = _lost().estimator_moments(p, train_rows + test_rows, test_rows, batches)
    printed, intended = mom.alpha_printed_mean, mom.alpha_intended_mean
    ok = min(abs(printed - test_accuracy), abs(intended - test_accuracy)) < 1e-9
    return _ev(ok, printed=printed, intended=intended, a=test_accuracy, p=p)


@_check("lost_one_batch")
def _lost_one_batch(rows, test_rows):
    """With one batch, the real test set is drawn with probability ``1/C(N, N2)``."""
    prob = _lost().prob_test_set_drawn(rows, test_rows, 1)
    return _ev(prob < 0.5, prob=prob)


# --- 001: the test set bound -----------------------------------------------------------------
def _bounds():
    from heldout.accuracy import bounds

    return bounds


@_check("bernoulli_sum")
def _bernoulli_sum(m, p):
    """The count of errors of ``m`` independent Bernoulli(p) items, by repeated convolution,
    against the binomial distribution."""
    from scipy import stats

    pmf = np.array([1.0])
    for _ in range(m):
        pmf = np.convolve(pmf, [1 - p, p])
    gap = float(np.max(np.abs(pmf - stats.binom.pmf(np.arange(m + 1), m, p))))
    return _ev(gap < 1e-12, gap=gap)


@_check("tail_decreasing")
def _tail_decreasing(m):
    """Does ``Bin(m, k, p)`` fall strictly as ``p`` grows, for every ``k < m``?"""
    from scipy import stats

    k = np.arange(m)[:, None]
    p = np.linspace(0.001, 0.999, 999)[None, :]
    # falling P(X <= k), or (where it rounds to 1) rising P(X > k)
    down = np.diff(stats.binom.cdf(k, m, p), axis=1) < 0
    up = np.diff(stats.binom.sf(k, m, p), axis=1) > 0
    return _ev(bool(np.all(down | up)), m=m)


@_check("tail_sum_from_one")
def _tail_sum_from_one(k, m, p):
    """The printed tail sums from ``i = 1``: compare with ``P(X <= k)``."""
    from scipy import stats

    printed = float(np.sum(stats.binom.pmf(np.arange(1, k + 1), m, p)))
    tail = float(_bounds().binomial_tail(k, m, p))
    return _ev(abs(printed - tail) < 1e-12, printed=printed, tail=tail, missing=tail - printed)


@_check("theorem_as_printed")
def _theorem_as_printed(m, delta):
    """``P(c_D > bound) >= 1 - delta`` as printed: its largest value over the true rates."""
    fail = 1 - _bounds().coverage(_grid(), m, delta, "exact")
    worst = float(np.max(fail))
    return _ev(worst >= 1 - delta, worst=worst)


@_check("proof_event")
def _proof_event(m, p, delta):
    """Is the failure event inside ``{m_hat < l}``, as the proof says?"""
    from scipy import stats

    counts = np.arange(m + 1)
    cdf = stats.binom.cdf(counts, m, p)
    l_ = int(np.max(np.nonzero(cdf < delta)))
    fails = np.asarray(_bounds().exact_upper(counts, m, delta)) < p
    inside = bool(np.all(counts[fails] < l_))
    fail_prob = float(stats.binom.pmf(counts[fails], m, p).sum())
    return _ev(inside, l=l_, fail=fail_prob, below=float(cdf[l_ - 1]), upto=float(cdf[l_]))


@_check("tail_complement")
def _tail_complement(k, m, p):
    """Is ``{m_hat <= l}`` the complement of ``{m_hat >= l}``?  Their probabilities' sum."""
    from scipy import stats

    total = float(stats.binom.sf(k - 1, m, p) + stats.binom.cdf(k, m, p))
    return _ev(abs(total - 1) < 1e-12, total=total, overlap=float(stats.binom.pmf(k, m, p)))


@_check("bisection_cost")
def _bisection_cost(k, m, delta, eps):
    """Tail terms the Appendix C bisection evaluates, counted, against ``k log2(1/eps)``."""
    from scipy import stats

    left, right, steps, terms = 0.0, 1.0, 0, 0
    while abs(right - left) > eps:
        mid = (left + right) / 2
        terms += k  # the printed tail sums k terms
        if stats.binom.cdf(k - 1, m, mid) >= delta:
            left = mid
        else:
            right = mid
        steps += 1
    predicted = k * math.log2(1 / eps)
    return _ev(terms <= 1.1 * predicted + k, terms=terms, steps=steps)


@_check("coverage_min")
def _coverage_min(method, m, delta):
    """Smallest exact coverage of a bound over a fine grid of true rates and test sizes."""
    worst = min(
        float(np.min(_bounds().coverage(_grid(), int(mm), delta, method)))
        for mm in np.atleast_1d(m)
    )
    return _ev(worst >= 1 - delta - 1e-12, worst=worst)


@_check("tail_below")
def _tail_below(form, k, m):
    """Is ``Bin(m, k, p)`` at most the relaxation ``form`` for every ``p > k/m``?"""
    b = _bounds()
    p = np.linspace(k / m + 1e-3, 0.999, 999)
    ok = np.all(np.asarray(b.chernoff_tail(k, m, p, form)) >= np.asarray(b.binomial_tail(k, m, p)))
    return _ev(bool(ok))


@_check("counting_inequality")
def _counting_inequality(which, n_max):
    """The tutorial's inequalities (2) and (3) on every ``0 < j < n <= n_max``."""
    from scipy.special import gammaln

    n, j = np.meshgrid(np.arange(2, n_max + 1), np.arange(1, n_max))
    ok = j < n
    n, j = n[ok].astype(float), j[ok].astype(float)
    log_comb = gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j + 1)
    if which == 2:
        rhs = j * np.log(n / j) + (n - j) * np.log(n / (n - j))
        return _ev(bool(np.all(log_comb <= rhs + 1e-9)), n_max=n_max)
    holds = True
    for i in range(0, 4):
        keep = j >= i
        nn, jj = n[keep], j[keep]
        lhs = gammaln(nn + 1) - gammaln(jj - i + 1) - gammaln(nn - jj + i + 1)
        base = gammaln(nn + 1) - gammaln(jj + 1) - gammaln(nn - jj + 1)
        holds &= bool(np.all(lhs <= i * np.log(jj / (nn - jj)) + base + 1e-9))
    return _ev(holds, n_max=n_max)


@_check("binomial_theorem_as_printed")
def _binomial_theorem_as_printed(n, m):
    """``(m + (n - m))^n`` against the printed expansion ``sum C(n,k) m^k (n-m)^k``."""
    k = np.arange(n + 1)
    printed = float(sum(math.comb(n, int(i)) * m**i * (n - m) ** i for i in k))
    return _ev(printed == float(n**n), printed=printed, truth=float(n**n))


@_check("reversed_sum_as_printed")
def _reversed_sum_as_printed(k, m, p):
    """The printed reversed sum (exponents ``m - i`` and ``n - m + i``, with ``n = m``)."""
    i = np.arange(k + 1)
    comb = np.array([math.comb(m, int(k - j)) for j in i], dtype=float)
    printed = float(np.sum(comb * p ** (m - i) * (1 - p) ** i))
    tail = float(_bounds().binomial_tail(k, m, p))
    return _ev(abs(printed - tail) < 1e-12 * max(tail, 1e-300), printed=printed, tail=tail)


@_check("exp_f_as_printed")
def _exp_f_as_printed(k, m, p):
    """``Bin = exp(f(c_hat) - f(c_D)) / (1 - r)`` as printed, at one rate ``p``."""
    q = k / m

    def f(x):
        return q * math.log(x) + (1 - q) * math.log(1 - x)

    r = q * (1 - p) / (p * (1 - q))
    printed = math.exp(f(q) - f(p)) / (1 - r)
    tail = float(_bounds().binomial_tail(k, m, p))
    return _ev(abs(printed - tail) < 1e-9, printed=printed, tail=tail)


@_check("quarter")
def _quarter():
    """Is ``x(1 - x) >= 1/4`` on [0, 1]?"""
    x = np.linspace(0.0, 1.0, 10_001)
    y = x * (1 - x)
    return _ev(bool(np.all(y >= 0.25)), at_tenth=0.1 * 0.9, top=float(y.max()))


@_check("one_over_one_minus_r")
def _one_over_one_minus_r(k, m, p):
    """Is ``1/(1 - r) <= m``?  Evaluated near ``p = k/m``, where it matters."""
    q = k / m
    factor = 1 / (1 - q * (1 - p) / (p * (1 - q)))
    return _ev(factor <= m, factor=factor)


@_check("two_sigma_literal")
def _two_sigma_literal(k, m):
    """The printed rule ``mu_hat + 2 sigma_hat`` with the per-item standard deviation."""
    q = k / m
    literal = q + 2 * math.sqrt(m / (m - 1) * q * (1 - q))
    return _ev(literal <= 1, literal=literal, intended=float(_bounds().two_sigma_upper(k, m)))


@_check("two_sigma_untrustworthy")
def _two_sigma_untrustworthy(m, delta):
    """Does mean + 2 standard errors cover less than 95% for some true rate?"""
    worst = float(np.min(_bounds().coverage(_grid(0.001, 0.999, 999), m, delta, "two_sigma")))
    return _ev(worst < 1 - delta, worst=worst, m=m)


@_check("two_sigma_outside")
def _two_sigma_outside(m):
    """Can mean +- 2 standard errors leave [0, 1]?"""
    b = _bounds()
    k = np.arange(m + 1)
    upper = np.asarray(b.two_sigma_upper(k, m))
    lower = 2 * k / m - upper
    return _ev(
        bool(np.any(upper > 1) and np.any(lower < 0)),
        top=float(upper.max()),
        low=float(lower.min()),
    )


@_check("exact_in_unit")
def _exact_in_unit(m):
    """Is the exact bound always in [0, 1]?"""
    inside = True
    for mm in np.atleast_1d(m):
        u = np.asarray(_bounds().exact_upper(np.arange(int(mm) + 1), int(mm), 0.05))
        inside &= bool(np.all((u >= 0) & (u <= 1)))
    return _ev(inside)


@_check("empirical_error")
def _empirical_error(k, m):
    return _ev(k / m)


@_check("upper_bound")
def _upper_bound(method, k, m, delta, minus_rate=False):
    """An upper bound of :mod:`heldout.accuracy.bounds` (minus ``k/m`` for the deviation terms)."""
    value = float(_bounds().upper_bound(k, m, delta, method))
    return _ev(value - k / m if minus_rate else value)


@_check("appendix_c")
def _appendix_c(k, m, delta):
    """The tutorial's Appendix C program, re-implemented faithfully."""
    return _ev(
        _bounds().appendix_c_bound(k, m, delta),
        exact_k_minus_1=float(_bounds().exact_upper(k - 1, m, delta)),
    )


@_check("appendix_c_runs")
def _appendix_c_runs(k, m, delta):
    """Does the Appendix C program run its own example?"""
    b = _bounds()
    fixed = b.appendix_c_bound(k, m, delta, fixed=True)
    # the printed program with a factorial table long enough for m: its sum still stops
    # at k - 1, so it returns the exact bound for k - 1 errors
    long_table = b.appendix_c_bound(k, m, delta, table_size=m + 1)
    try:
        b.appendix_c_bound(k, m, delta)
    except IndexError:
        return _ev(False, fixed=fixed, long_table=long_table)
    return _ev(True, fixed=fixed, long_table=long_table)


# --- 002: Hoeffding sizing and the variational split -----------------------------------------
def _sizing():
    from heldout.accuracy import sizing

    return sizing


@_check("collared_range")
def _collared_range(mu, rounded, tolerance, epsilon):
    """The collared deviance's range, and the extra rows the rounded range costs."""
    from heldout.accuracy.losses import collared_deviance_range

    top = float(collared_deviance_range(mu))
    s = _sizing()
    extra = (
        s.hoeffding_size(rounded, tolerance, epsilon) / s.hoeffding_size(top, tolerance, epsilon)
        - 1
    )
    return _ev(top, extra=float(extra))


@_check("collared_in_range")
def _collared_in_range(mu):
    """Is the collared deviance in ``[0, -2 log2 mu]`` for every prediction and label?"""
    from heldout.accuracy.losses import collared_deviance, collared_deviance_range

    p = np.linspace(0.0, 1.0, 2001)
    top = collared_deviance_range(mu)
    values = np.concatenate([collared_deviance(1, p, mu), collared_deviance(0, p, mu)])
    inside = bool(np.all((values >= 0) & (values <= top + 1e-12)))
    return _ev(inside and bool(np.isclose(values.max(), top)), top=float(top))


@_check("hoeffding_strict")
def _hoeffding_strict(sizes):
    """The strict form ``P(|mean - E| > t) < 2 exp(-2kt^2/U^2)`` on the worst two-point law."""
    from scipy import stats

    worst = -math.inf
    t = np.linspace(0.005, 0.495, 99)
    for k in sizes:
        b = np.arange(k + 1)
        pmf = stats.binom.pmf(b, k, 0.5)
        dev = np.abs(b / k - 0.5)[None, :] > t[:, None]
        prob = (dev * pmf[None, :]).sum(axis=1)
        worst = max(worst, float(np.max(prob - 2 * np.exp(-2 * k * t**2))))
    return _ev(worst < 0, worst=worst)


@_check("hoeffding_condition_as_printed")
def _hoeffding_condition_as_printed(range_, tolerance, epsilon):
    """Can ``2 exp(+2 k t^2 / U^2) <= epsilon`` hold for some ``k >= 1``?"""
    smallest = 2 * math.exp(2 * tolerance**2 / range_**2)
    return _ev(smallest <= epsilon, smallest=smallest)


@_check("hoeffding_size_formula")
def _hoeffding_size_formula(range_, tolerance, epsilon):
    """Is ``ceil(ln(2/eps) U^2 / (2 t^2))`` the smallest size at which Hoeffding's bound is <= eps?"""
    s = _sizing()
    k = int(s.hoeffding_size(range_, tolerance, epsilon))
    at, before = (
        s.hoeffding_bound(k, range_, tolerance),
        s.hoeffding_bound(k - 1, range_, tolerance),
    )
    return _ev(bool(at <= epsilon < before), k=k)


@_check("hoeffding_size")
def _hoeffding_size(range_, tolerance, epsilon):
    return _ev(int(_sizing().hoeffding_size(range_, tolerance, epsilon)))


@_check("hoeffding_guarantee")
def _hoeffding_guarantee(rows, range_, tolerance, epsilon):
    """Hoeffding's bound on the miss probability at the article's size."""
    bound = float(_sizing().hoeffding_bound(rows, range_, tolerance))
    return _ev(bound <= epsilon, bound=bound)


@_check("hoeffding_deviation_mu")
def _hoeffding_deviation_mu(rows, range_, mu, epsilon):
    """Hoeffding's bound on missing by more than ``mu`` (not ``t``) at the article's size."""
    bound = float(_sizing().hoeffding_bound(rows, range_, mu))
    return _ev(bound <= epsilon, bound=min(bound, 1.0))


@_check("count_not_fraction")
def _count_not_fraction(range_, tolerance, epsilon, data_sizes):
    """The guarantee's size is a count: the share of the data it needs moves with the data size."""
    k = int(_sizing().hoeffding_size(range_, tolerance, epsilon))
    shares = k / np.asarray(data_sizes, dtype=float)
    return _ev(
        bool(shares.max() / shares.min() > 10), k=k, hi=float(shares.max()), lo=float(shares.min())
    )


@_check("distribution_tighter")
def _distribution_tighter(tolerance, epsilon, error_rate):
    """Exact binomial size for 0-1 loss against Hoeffding's with ``U = 1``."""
    s = _sizing()
    exact = int(s.binomial_size(tolerance, epsilon, error_rate))
    hoeff = int(s.hoeffding_size(1, tolerance, epsilon))
    return _ev(exact < hoeff, exact=exact, hoeff=hoeff, factor=hoeff / exact)


def _split():
    from heldout.accuracy import split

    return split


@_check("split_fraction")
def _split_fraction(c_test, c_train, which="test", scale=1.0):
    share = _split().optimal_test_fraction(c_test, c_train)
    return _ev(share if which == "test" else 1.0 - share)


@_check("split_optimum")
def _split_optimum(c_test, c_train, rows):
    """The closed-form split against a search over every whole split of ``rows`` rows."""
    sp = _split()
    t = np.arange(1, rows)
    brute = int(t[np.argmin(sp.expected_criticism(rows - t, t, c_train, c_test))])
    share = sp.optimal_test_fraction(c_test, c_train)
    return _ev(abs(brute - rows * share) <= 1, brute=brute, formula=rows * share)


@_check("split_constant_share")
def _split_constant_share(c_test, c_train, rows):
    """Is the best whole split the same share of the data for every size?"""
    sp = _split()
    shares = np.array([sp.optimal_split(c_test, c_train, int(r)).test_rows / r for r in rows])
    target = sp.optimal_test_fraction(c_test, c_train)
    return _ev(bool(np.all(np.abs(shares - target) <= 1 / np.asarray(rows))), target=target)


def _lagrange_point(c_test, c_train, rows, c0):
    sp = _split()
    share = sp.optimal_test_fraction(c_test, c_train)
    m_test = rows * share
    m_train = rows - m_test
    crit = float(sp.expected_criticism(m_train, m_test, c_train, c_test, c0))
    lam = float(sp.lagrange_multiplier(c_test, c_train, rows, c0))
    return m_train, m_test, crit, lam


@_check("lagrange_derivative_as_printed")
def _lagrange_derivative_as_printed(c_test, c_train, rows, c0):
    """The printed ``dL/dm_train`` against a finite difference of ``sqrt(F)``."""
    sp = _split()
    m_train, m_test, crit, _ = _lagrange_point(c_test, c_train, rows, c0)
    h = 1e-4

    def root(mt):
        return math.sqrt(float(sp.expected_criticism(mt, m_test, c_train, c_test, c0)))

    fd = (root(m_train + h) - root(m_train - h)) / (2 * h)
    printed = 0.5 * math.sqrt(crit) ** -0.5 * (-0.5 * c_train / m_train**2)
    ratio = printed / fd
    return _ev(abs(ratio - 1) < 1e-4, ratio=ratio)


@_check("lagrange_z_as_printed")
def _lagrange_z_as_printed(c_test, c_train, rows, c0):
    """``m_test = Z sqrt(c_test)`` with the printed ``Z = 1/(2 L^(1/4) lambda^(1/2))``."""
    m_train, m_test, crit, lam = _lagrange_point(c_test, c_train, rows, c0)
    z_printed = 1 / (2 * math.sqrt(crit) ** 0.25 * lam**0.5)
    printed = z_printed * math.sqrt(c_test)
    return _ev(abs(printed / m_test - 1) < 1e-6, printed=printed, m_test=m_test)


@_check("variance_of_mean")
def _variance_of_mean(values, probs, m):
    """``E[(mean of m iid - mu)^2]``: the article's factored step (every pair, ``i = j``
    included, factored by independence) against the exact ``Var / m``."""
    x, w = np.asarray(values, float), np.asarray(probs, float)
    mu = float(w @ x)
    var = float(w @ (x - mu) ** 2)
    factored = float(m * m * (w @ (x - mu)) ** 2) / m**2  # all pairs factored: 0
    exact = var / m
    return _ev(abs(factored - exact) < 1e-12, factored=factored, exact=exact)


@_check("test_term")
def _test_term(values, probs, m):
    """``E[(mean of m iid - mu)^2] = E[(X - mu)^2] / m``, by exact enumeration of the sum."""
    x, w = np.asarray(values, float), np.asarray(probs, float)
    mu = float(w @ x)
    # the distribution of the sum of m draws, by convolution over a lattice of the values
    support = {0.0: 1.0}
    for _ in range(m):
        nxt: dict[float, float] = {}
        for s, ps in support.items():
            for xi, wi in zip(x, w, strict=True):
                key = round(s + xi, 12)
                nxt[key] = nxt.get(key, 0.0) + ps * wi
        support = nxt
    exact = sum(ps * (s / m - mu) ** 2 for s, ps in support.items())
    claimed = float(w @ (x - mu) ** 2) / m
    return _ev(abs(exact - claimed) < 1e-12, exact=exact)


@functools.cache
def _criticism_measurement(seed: int):
    """A small measurement of the criticism on the chapter's population (about a second)."""
    sp = _split()
    pop = sp.logistic_population()
    meas = sp.measure_criticism(
        [100, 200, 400, 800, 1600], [25, 400], 40, population=pop, seed=seed
    )
    return pop, meas


@_check("criticism_exponent")
def _criticism_exponent(seed, tolerance):
    """Free exponent of the training term, ``c_test/m_test + c_train/m_train^beta + c0``."""
    sp = _split()
    _, meas = _criticism_measurement(seed)
    mean, se = meas.cell_means("zero")
    fit = sp.fit_power_criticism_model(meas.m_train, meas.m_test, mean, sigma=se)
    return _ev(abs(fit.beta - 1) <= tolerance, beta=fit.beta, se=fit.beta_se)


@_check("shortfall_squared_order")
def _shortfall_squared_order(seed, tolerance):
    """Slope of ``log E[(training shortfall)^2]`` against ``log m_train`` (the article: -1)."""
    _, meas = _criticism_measurement(seed)
    sq = (meas.shortfall() ** 2).mean(axis=1)
    slope = float(np.polyfit(np.log(meas.m_train), np.log(sq), 1)[0])
    return _ev(abs(slope + 1) <= tolerance, slope=slope)


@_check("share_depends_on_reference")
def _share_depends_on_reference(seed, fraction):
    """The fitted optimal share with the criticism measured from 0 and from ``fraction * L*``."""
    sp = _split()
    pop, meas = _criticism_measurement(seed)
    shares = []
    for frac in (0.0, fraction):
        mean, se = meas.cell_means(frac * pop.ideal_loss)
        shares.append(
            sp.fit_criticism_model(meas.m_train, meas.m_test, mean, sigma=se).test_fraction
        )
    return _ev(
        abs(shares[1] / shares[0] - 1) < 0.1, zero=shares[0], shifted=shares[1], fraction=fraction
    )


# --- 003: the Beta posterior, comparisons, sizes ---------------------------------------------
def _compare():
    from heldout.comparison import compare

    return compare


def _posterior():
    from heldout.accuracy import posterior

    return posterior


@_check("score_unbiased")
def _score_unbiased(n, p):
    """``E[k/N] = p``: the mean of the binomial score, summed exactly."""
    from scipy import stats

    k = np.arange(n + 1)
    mean = float(np.sum(k / n * stats.binom.pmf(k, n, p)))
    return _ev(abs(mean - p) < 1e-12, mean=mean)


@_check("heterogeneous_items")
def _heterogeneous_items(n, difficulties, weights, reps, seed):
    """Items of unequal difficulty, drawn at random: is the count still binomial?"""
    gen = np.random.default_rng(seed)
    d, w = np.asarray(difficulties, float), np.asarray(weights, float)
    p = float(w @ d)
    kinds = gen.choice(d.size, size=(reps, n), p=w)
    counts = (gen.random((reps, n)) < d[kinds]).sum(axis=1)
    var_ratio = float(counts.var(ddof=1) / (n * p * (1 - p)))
    se = math.sqrt(2 / (reps - 1))  # standard error of a sample variance ratio (near normal)
    binomial = abs(var_ratio - 1) < 4 * se and abs(counts.mean() / (n * p) - 1) < 0.01
    # the claim: the binomial model needs equally hard items; it is binomial without that
    return _ev(not binomial, ratio=var_ratio, p=p)


@_check("beta_density_constant")
def _beta_density_constant(a, b):
    """``C = Gamma(a+b)/(Gamma(a)Gamma(b))`` normalises ``x^(a-1)(1-x)^(b-1)``."""
    from scipy import integrate, special

    const = math.exp(special.gammaln(a + b) - special.gammaln(a) - special.gammaln(b))
    total, _ = integrate.quad(lambda x: const * x ** (a - 1) * (1 - x) ** (b - 1), 0, 1, limit=200)
    return _ev(abs(total - 1) < 1e-8, total=total)


@_check("beta_update")
def _beta_update(successes, failures):
    """Posterior parameters under the uniform prior against the direct product of densities."""
    from scipy import integrate, stats

    a, b = (float(v) for v in _posterior().beta_params(successes, failures))
    x = np.linspace(0.5, 0.999, 50)
    like = x**successes * (1 - x) ** failures
    z, _ = integrate.quad(lambda t: t**successes * (1 - t) ** failures, 0, 1, limit=200)
    gap = float(np.max(np.abs(like / z - stats.beta.pdf(x, a, b))))
    return _ev(gap < 1e-6 * float(np.max(like / z)), a=a, b=b)


@_check("haldane_perfect")
def _haldane_perfect(n):
    """What the Haldane prior gives after a perfect score: a distribution, or none?"""
    try:
        _posterior().BetaPosterior.from_counts(n, n, "haldane")
    except ValueError:
        return _ev(False)
    return _ev(True)


@_check("uniform_conservative")
def _uniform_conservative(n):
    """Posterior mean after a perfect score: uniform prior against the raw score 1."""
    post = _posterior().BetaPosterior.from_counts(n, n)
    return _ev(post.mean < 1, mean=post.mean)


@_check("conjugate")
def _conjugate(successes, failures):
    """Beta prior times binomial likelihood is proportional to a Beta density, for several
    Beta priors: their ratio is constant in ``x``."""
    from scipy import stats

    x = np.linspace(0.6, 0.999, 40)
    spread = 0.0
    for a0, b0 in ((1, 1), (0.5, 0.5), (2, 3)):
        log_post = stats.beta.logpdf(x, a0, b0) + successes * np.log(x) + failures * np.log1p(-x)
        log_ratio = log_post - stats.beta.logpdf(x, a0 + successes, b0 + failures)
        spread = max(spread, float(np.ptp(log_ratio)))
    return _ev(spread < 1e-9, spread=spread)


@_check("posterior_moment")
def _posterior_moment(successes, failures, which, scale=1.0):
    post = _posterior()
    a, b = post.beta_params(successes, failures)
    value = post.beta_mean(a, b) if which == "mean" else post.beta_sd(a, b)
    return _ev(float(value))


@_check("posterior_interval_end")
def _posterior_interval_end(successes, failures, level, end):
    post = _posterior()
    a, b = post.beta_params(successes, failures)
    lo_hi = post.equal_tailed(a, b, alpha=1 - level)
    mass = float(
        _posterior().BetaPosterior.from_counts(successes, successes + failures).dist.cdf(0.98)
    )
    mass -= float(
        _posterior().BetaPosterior.from_counts(successes, successes + failures).dist.cdf(0.92)
    )
    return _ev(float(lo_hi[end]), mass=mass)


@_check("sd_formula")
def _sd_formula(n_max):
    """``sqrt(p_hat (1 - p_hat) / (N + 3))`` with ``p_hat = (k+1)/(N+2)`` against the exact
    Beta(k+1, N-k+1) standard deviation, for every count up to ``n_max`` items."""
    post = _posterior()
    worst = 0.0
    for n in range(1, n_max + 1):
        k = np.arange(n + 1)
        exact = post.beta_sd(k + 1, n - k + 1)
        formula = np.sqrt((k + 1) / (n + 2) * (1 - (k + 1) / (n + 2)) / (n + 3))
        worst = max(worst, float(np.max(np.abs(formula / exact - 1))))
    return _ev(worst < 1e-12, worst=worst)


@_check("sd_labels_as_printed")
def _sd_labels_as_printed(successes, failures):
    """The formula read with the printed labels: ``N = alpha + beta``, ``p_hat = (alpha+1)/(alpha+beta+2)``."""
    post = _posterior()
    a, b = (float(v) for v in post.beta_params(successes, failures))
    n = a + b
    p_hat = (a + 1) / (a + b + 2)
    printed = math.sqrt(p_hat * (1 - p_hat) / (n + 3))
    exact = float(post.beta_sd(a, b))
    return _ev(abs(printed / exact - 1) < 1e-6, printed=printed, exact=exact)


@_check("sd_shrinks")
def _sd_shrinks(accuracies, n):
    """The error bar falls like ``1/sqrt(N)`` and as the accuracy nears 1."""
    from heldout.book.mnist.models import article_se

    acc = np.asarray(accuracies, float)
    se = article_se(acc, n)
    ratio = float(article_se(acc[0], 4 * n + 9) / article_se(acc[0], n))
    return _ev(bool(np.all(np.diff(se) < 0) and abs(ratio - 0.5) < 1e-12), ratio=ratio)


@_check("certain")
def _certain(correct_a, n_a, correct_b, n_b):
    """Is the comparison certain?  The posterior probability that A is better."""
    prob = float(_compare().prob_better(correct_a, n_a, correct_b, n_b))
    return _ev(min(prob, 1 - prob) < 1e-9, prob=prob)


@_check("prob_better")
def _prob_better(correct_a, n_a, correct_b, n_b, prior="uniform"):
    """Posterior probability that A's accuracy exceeds B's, exactly."""
    return _ev(float(_compare().prob_better(correct_a, n_a, correct_b, n_b, prior=prior)))


@_check("own_prior")
def _own_prior(correct_a, n_a, correct_b, n_b):
    """Does the comparison use the article's own Beta(k+1, N-k+1) posteriors?  It uses Beta(k, N-k)."""
    c = _compare()
    haldane = c.prob_better(correct_a, n_a, correct_b, n_b, prior="haldane")
    uniform = c.prob_better(correct_a, n_a, correct_b, n_b, prior="uniform")
    return _ev(abs(haldane - uniform) < 1e-3, haldane=haldane, uniform=uniform)


@_check("posterior_is_rejection")
def _posterior_is_rejection(correct_a, n_a, correct_b, n_b, alpha):
    """Posterior P(A better) against the probability that a one-sided test rejects "B no better"
    (the test's power at accuracies equal to the observed scores)."""
    from scipy import stats

    c = _compare()
    post = 1 - c.prob_better(correct_a, n_a, correct_b, n_b)  # P(B better)
    # power of Fisher's one-sided test at the observed accuracies, summed exactly
    ka, kb = np.arange(n_a + 1), np.arange(n_b + 1)
    pa = stats.binom.pmf(ka, n_a, correct_a / n_a)
    pb = stats.binom.pmf(kb, n_b, correct_b / n_b)
    keep_a, keep_b = pa > 1e-12, pb > 1e-12
    grid_a, grid_b = np.meshgrid(ka[keep_a], kb[keep_b], indexing="ij")
    pv = c.fisher_test(grid_a.ravel(), n_a, grid_b.ravel(), n_b, alternative="less")
    power = float(np.sum(np.outer(pa[keep_a], pb[keep_b]).ravel() * (np.asarray(pv) <= alpha)))
    return _ev(abs(power - post) < 0.02, post=post, power=power)


@_check("mc_draws")
def _mc_draws(correct_a, n_a, correct_b, n_b, precision):
    """Draws a sampling estimate needs for +-precision (two standard errors)."""
    c = _compare()
    q = c.prob_better(correct_a, n_a, correct_b, n_b, prior="haldane")
    draws = int(c.mc_draws_needed(q, precision / 2))
    return _ev(draws > 100_000, draws=draws)


@_check("fisher_vs_chi2")
def _fisher_vs_chi2(accuracy, lead, sizes):
    """Uncorrected chi-squared against Fisher's p-value, on a small and a large sample whose
    lead shrinks like ``1/sqrt(N)`` (``lead`` items at 100), so the p-values stay comparable."""
    c = _compare()
    gaps = []
    for n in sizes:
        ka = round(accuracy * n)
        kb = ka + round(lead * math.sqrt(n / 100))
        f = c.fisher_test(ka, n, kb, n, alternative="less")
        ch = c.chi2_test(ka, n, kb, n, alternative="less", correction=False)
        gaps.append(abs(ch - f) / f)
    return _ev(gaps[0] > 2 * gaps[-1], small=gaps[0], large=gaps[-1])


@_check("not_significant")
def _not_significant(correct_a, n_a, correct_b, n_b, alpha):
    """B ahead in posterior expectation, and neither Fisher's nor the chi-squared test rejects."""
    c = _compare()
    fisher = c.fisher_test(correct_a, n_a, correct_b, n_b, alternative="less")
    chi2 = c.chi2_test(correct_a, n_a, correct_b, n_b, alternative="less")
    b_better = 1 - c.prob_better(correct_a, n_a, correct_b, n_b)
    return _ev(
        bool(fisher > alpha and chi2 > alpha and b_better > 0.5),
        fisher=fisher,
        chi2=chi2,
        post=b_better,
    )


@_check("chi2_halving")
def _chi2_halving(correct_a, n_a, correct_b, n_b):
    """Half the two-sided chi-squared p-value against the one-sided one, in both directions."""
    from scipy import stats

    c = _compare()
    table = [[correct_a, correct_b], [n_a - correct_a, n_b - correct_b]]
    half = stats.chi2_contingency(table)[1] / 2
    right = c.chi2_test(correct_a, n_a, correct_b, n_b, alternative="less")
    swapped = c.chi2_test(correct_b, n_b, correct_a, n_a, alternative="less")
    return _ev(abs(half - right) < 1e-9 and abs(half - swapped) < 1e-9, half=half, swapped=swapped)


@_check("lucky_models")
def _lucky_models(models, n, accuracy, score):
    """Expected number of equally good models that reach ``score`` by chance."""
    errors = int(round(n * (1 - score)))
    expected = models * float(_bounds().binomial_tail(errors, n, 1 - accuracy))
    return _ev(expected >= 2, expected=expected)


def _shared_sizes(accuracy, gap, rivals, shared, reps, seed):
    """Sizes of one shared validation set on which the best model tops it with 95 %
    (simulated with :func:`heldout.comparison.best.pick_best_size_paired`), per number of
    rivals."""
    from heldout.comparison.best import pick_best_size_paired

    return [
        pick_best_size_paired(accuracy, gap, int(r), shared=shared, reps=reps, seed=seed).n
        for r in rivals
    ]


@_check("larger_test_set_fixes")
def _larger_test_set_fixes(accuracy, gap, rivals, shared=0.8, reps=2000, seed=41):
    """Growth of the size needed to pick the best of ``rivals`` models (95%), against one
    rival: with a separate test set per model (exact) and on one shared validation set, as in
    the article (simulated; ``shared`` is the share of item difficulty the models have in
    common)."""
    c = _compare()
    one = c.required_size_exact(accuracy, gap, 1, power=0.95)
    many = c.required_size_exact(accuracy, gap, int(rivals), power=0.95)
    s_one, s_many = _shared_sizes(accuracy, gap, (1, rivals), shared, reps, seed)
    return _ev(
        many / one > rivals or s_many / s_one > rivals,
        one=one,
        many=many,
        ratio=many / one,
        rivals=rivals,
        shared_ratio=s_many / s_one,
    )


@_check("best_event_union")
def _best_event_union(correct, n):
    """P(best) against the union of the pairwise events ``p_1 > p_j`` (as printed)."""
    c = _compare()
    exact = float(c.prob_best(np.asarray(correct), n)[0])
    pair = np.asarray(c.pairwise_prob_better(np.asarray(correct), n))
    lower_union = float(np.max(pair[0, 1:]))  # the union is at least the largest pairwise term
    return _ev(abs(lower_union - exact) < 1e-6, exact=exact, union_at_least=lower_union)


@_check("best_exact_integral")
def _best_exact_integral(correct, n, draws, seed):
    """One integral gives P(best) exactly: against a simulation of the posteriors."""
    c = _compare()
    exact = np.asarray(c.prob_best(np.asarray(correct), n))
    mc, se = c.prob_best_mc(np.asarray(correct), n, draws=draws, seed=seed)
    z = float(np.max(np.abs(np.asarray(mc) - exact) / np.maximum(np.asarray(se), 1e-12)))
    # the claim is that exact computation is very difficult; it is one integral
    return _ev(not z < 4.5, p=float(exact[0]), z=z)


@_check("best_sum_bound")
def _best_sum_bound(correct, n):
    """Is the sum of the pairwise probabilities a useful upper bound on P(model 1 best)?"""
    c = _compare()
    bb = c.best_bounds(np.asarray(correct), n)
    exact = float(c.prob_best(np.asarray(correct), n)[0])
    total = float(bb.article_sum[0])
    return _ev(bool(exact <= total < 1), total=total, exact=exact, smallest=float(bb.upper[0]))


@_check("pvalue_as_probability")
def _pvalue_as_probability(correct_a, n_a, correct_b, n_b):
    """Fisher's one-sided p-value against the posterior probability it is said to be."""
    c = _compare()
    pv = c.fisher_test(correct_a, n_a, correct_b, n_b, alternative="less")
    post = c.prob_better(correct_a, n_a, correct_b, n_b)
    return _ev(abs(pv - post) < 1e-3, p=pv, post=post)


@_check("tuning_by_chance")
def _tuning_by_chance(accuracy, n, tweaks, alpha):
    """Chance that one of ``tweaks`` equally good variants looks significantly better (one-sided
    test at ``alpha``, normal approximation of the difference), summed exactly."""
    from scipy import stats

    k = np.arange(n + 1)
    pmf = stats.binom.pmf(k, n, accuracy)
    se = math.sqrt(2 * accuracy * (1 - accuracy) / n)
    need = int(math.ceil(stats.norm.isf(alpha) * se * n))  # extra correct answers needed
    beat = np.clip(k + need, 0, n)
    upper = np.cumsum(pmf[::-1])[::-1]  # P(S >= s), summed from the upper side (no 1 - cdf)
    p_one_beats = np.clip(upper[beat], 0.0, 1.0)  # P(S_j >= s0 + need)
    with np.errstate(divide="ignore"):
        prob = float(np.sum(pmf * -np.expm1(tweaks * np.log1p(-p_one_beats))))
    return _ev(prob > alpha, prob=prob, tweaks=tweaks)


@_check("required_size")
def _required_size(accuracy, gap, models=1, scale=1.0):
    return _ev(float(_compare().required_size(accuracy, gap, models)) / scale)


@_check("pq")
def _pq(p):
    return _ev(p * (1 - p))


@_check("size_rule_pick")
def _size_rule_pick(accuracy, gap, power):
    """What the rule's N buys: the chance the better of two models tops the test."""
    c = _compare()
    n = int(c.required_size(accuracy, gap))
    pick = float(c.pick_best_probability(accuracy, gap, n))
    need = int(c.required_size_exact(accuracy, gap, power=power))
    return _ev(pick >= power, pick=pick, n=n, need=need, factor=need / n)


@_check("size_models_factor")
def _size_models_factor(accuracy, gap, power, doublings, shared=0.8, reps=2000, seed=41):
    """Growth of the exact required size per doubling of the number of rivals (a separate
    test set per model), and the same growth on one shared validation set for 1, 2 and 4
    rivals (simulated, as :func:`_larger_test_set_fixes`)."""
    c = _compare()
    rivals = 2 ** np.arange(int(doublings) + 1)
    sizes = np.array([c.required_size_exact(accuracy, gap, int(r), power=power) for r in rivals])
    shared_sizes = np.array(_shared_sizes(accuracy, gap, (1, 2, 4), shared, reps, seed))
    return _ev(
        float(np.mean(sizes[1:] / sizes[:-1])),
        shared_factor=float(np.mean(shared_sizes[1:] / shared_sizes[:-1])),
    )


# --- 003: MNIST, the article's own arithmetic -------------------------------------------------
def _count(accuracy: float, n: int) -> int:
    """The count behind an accuracy the article prints (rounded to a whole item)."""
    return int(round(accuracy * n))


@_check("article_se")
def _article_se(accuracy, n):
    from heldout.book.mnist.models import article_se

    return _ev(float(article_se(_count(accuracy, n) / n, n)))


@_check("fisher_less")
def _fisher_less(accuracy_a, accuracy_b, n, printed=None):
    """One-sided Fisher p-value from printed accuracies; with ``printed``, also how much
    more accurate model B would have to be for the p-value to be the printed one."""
    c = _compare()
    ka, kb = _count(accuracy_a, n), _count(accuracy_b, n)
    p = float(c.fisher_test(ka, n, kb, n, alternative="less"))
    if printed is None:
        return _ev(p)
    grid = np.arange(ka, n + 1)
    pv = np.asarray(c.fisher_test(ka, n, grid, n, alternative="less"))
    match = int(grid[np.argmin(np.abs(np.log(pv / printed)))])
    return _ev(p, points=100 * (match - kb) / n, match=match)


@_check("prob_better_article")
def _prob_better_article(accuracy_a, accuracy_b, n):
    """Posterior probability (uniform priors) that A beats B, from the printed accuracies."""
    return _ev(float(_compare().prob_better(_count(accuracy_a, n), n, _count(accuracy_b, n), n)))


@_check("pvalue_meaning")
def _pvalue_meaning(accuracy_a, accuracy_b, n):
    """A one-sided Fisher p-value against the posterior probability it is read as."""
    ka, kb = _count(accuracy_a, n), _count(accuracy_b, n)
    return _pvalue_as_probability(ka, n, kb, n)


@_check("difference_significant")
def _difference_significant(accuracy_a, accuracy_b, n, alpha):
    """Is the difference significant (one-sided Fisher, and the posterior), from printed accuracies?"""
    c = _compare()
    ka, kb = _count(accuracy_a, n), _count(accuracy_b, n)
    pv = c.fisher_test(ka, n, kb, n, alternative="less")
    post = c.prob_better(ka, n, kb, n)  # P(A better)
    return _ev(bool(pv < alpha), p=pv, post=post)


@_check("could_be_chance")
def _could_be_chance(accuracy_a, accuracy_b, n, alpha):
    """Could B's lead over A be chance?  Not significant by Fisher's one-sided test."""
    ev = _difference_significant(accuracy_a, accuracy_b, n, alpha)
    return _ev(not ev.value, **ev.extra)


@_check("odds_ratio")
def _odds_ratio(accuracy_a, accuracy_b, n):
    """The odds ratio of the 2x2 table, B's odds of a right answer over A's
    (:func:`heldout.book.mnist.models.odds_ratio`, the case study's function)."""
    from heldout.book.mnist.models import odds_ratio

    ka, kb = _count(accuracy_a, n), _count(accuracy_b, n)
    return _ev(
        odds_ratio(kb, ka, n),
        inverse_p=1 / _fisher_less(accuracy_a, accuracy_b, n).value,
    )


def _gap_in_sd(accuracy_a, accuracy_b, n):
    from heldout.book.mnist.models import article_se

    ka, kb = _count(accuracy_a, n), _count(accuracy_b, n)
    sa, sb = article_se(ka / n, n), article_se(kb / n, n)
    diff = (kb - ka) / n
    return diff, float(sa), float(sb)


def _difference_z(accuracy_a, accuracy_b, n):
    """B minus A in standard errors of the difference (:func:`heldout.book.mnist.models.score_gap`)."""
    from heldout.book.mnist.models import score_gap

    diff, sa, sb = _gap_in_sd(accuracy_a, accuracy_b, n)
    return score_gap(diff, sb, 0.0, sa)


@_check("gap_in_sd")
def _gap_in_sd_check(accuracy_a, accuracy_b, n):
    """Test-minus-validation gap in standard errors of the difference of two independent scores."""
    diff, sa, _ = _gap_in_sd(accuracy_a, accuracy_b, n)
    return _ev(_difference_z(accuracy_a, accuracy_b, n), one_score=diff / sa)


@_check("gap_in_own_sd")
def _gap_in_own_sd(accuracy_a, accuracy_b, n):
    """Test-minus-validation gap in the article's own error bar (one score's), and in the
    standard error of the difference of two independent scores."""
    diff, sa, _ = _gap_in_sd(accuracy_a, accuracy_b, n)
    return _ev(diff / sa, diff_sd=_difference_z(accuracy_a, accuracy_b, n))


@_check("gap_significant")
def _gap_significant(accuracy_a, accuracy_b, n, alpha):
    """Two-sided p-value of the gap between two independent scores (normal approximation)."""
    from scipy import stats

    z = _difference_z(accuracy_a, accuracy_b, n)
    p = float(2 * stats.norm.sf(abs(z)))
    return _ev(p < alpha, p=p, z=z)


@_check("winner_bias")
def _winner_bias(accuracies, n):
    """Upward bias of the winner's validation score when the winner is chosen on that set
    (true accuracies = the printed ones, independent binomial scores, ties to the first),
    summed exactly: ``sum_j E[(S_j/n - p_j) 1{j wins}]``."""
    from scipy import stats

    acc = np.asarray(accuracies, float)
    s = np.arange(n + 1)
    pmf = stats.binom.pmf(s[None, :], n, acc[:, None])
    below = stats.binom.cdf(s[None, :] - 1, n, acc[:, None])  # P(S_i < s)
    upto = stats.binom.cdf(s[None, :], n, acc[:, None])  # P(S_i <= s)
    bias = 0.0
    for j in range(acc.size):
        wins = np.prod(below[:j], axis=0) * np.prod(upto[j + 1 :], axis=0)
        bias += float(np.sum((s / n - acc[j]) * pmf[j] * wins))
    return _ev(abs(bias) < 1e-9, bias=bias)


@_check("best_identified")
def _best_identified(accuracies, n, level):
    """Posterior probability (independent Beta posteriors) that the leader is the most accurate."""
    counts = np.array([_count(a, n) for a in accuracies])
    p = np.asarray(_compare().prob_best(counts, n))
    return _ev(bool(p.max() >= level), p=float(p.max()))


@_check("small_improvement")
def _small_improvement(accuracy, n, gap, level):
    """Chance that a model better by ``gap`` tops the baseline on ``n`` items (normal)."""
    from scipy import stats

    from heldout.book.mnist.models import article_se

    sd = math.sqrt(2) * float(article_se(accuracy, n))
    pick = float(stats.norm.cdf(gap / sd))
    return _ev(pick < level, pick=pick, z=gap / sd, sd_points=100 * sd)


@_check("double_size")
def _double_size(accuracy, n):
    """Error bar ratio when the evaluation set doubles."""
    from heldout.book.mnist.models import article_se

    ratio = float(article_se(accuracy, 2 * n) / article_se(accuracy, n))
    return _ev(abs(ratio * math.sqrt(2) - 1) < 1e-3, ratio=ratio)


# --- 003: regression -------------------------------------------------------------------------
@_check("mse_clt")
def _mse_clt(n, reps, seed):
    """Coverage of the CLT interval MSE +- z s/sqrt(N) for Gaussian residuals."""
    from heldout.metrics import regression

    res = regression.mse_coverage(
        n, reps=reps, draws=50, methods=("clt",), seed=seed, kind="normal", bias=0.0
    )
    cov, se = float(res["clt"].coverage), float(res["clt"].se)
    return _ev(abs(cov - 0.95) < 0.02 + 4 * se, coverage=cov, se=se, n=n)


@_check("gaussian_residuals")
def _gaussian_residuals(bias, sd, n, seed):
    """``mean(r^2) = B^2 + s^2`` with ``B`` the mean residual and ``s^2`` their variance."""
    r = np.random.default_rng(seed).normal(bias, sd, n)
    mse = float(np.mean(r**2))
    return _ev(abs(mse - (r.mean() ** 2 + r.var())) < 1e-12, mse=mse)


@_check("sum_of_normals")
def _sum_of_normals(n):
    """Mean and variance of the sum of ``n`` standard normals against those of chi-squared(n)."""
    from scipy import stats

    chi2 = stats.chi2(n)
    return _ev(
        bool(chi2.mean() == 0 and chi2.var() == n), mean=float(chi2.mean()), var=float(chi2.var())
    )


@_check("chi_scaling")
def _chi_scaling(bias, sd, n):
    """Mean of ``sum r^2 / sqrt(MSE - B^2)`` against that of a non-central chi-squared(N)."""
    from scipy import stats

    lam = n * bias**2 / sd**2
    printed_mean = n * (sd**2 + bias**2) / sd  # E[sum r^2] / s
    target = float(stats.ncx2(n, lam).mean())
    return _ev(abs(printed_mean - target) < 1e-9 * target, printed=printed_mean, target=target)


@_check("chi_moments")
def _chi_moments(bias, sd, n):
    """The printed mean ``N MSE`` and variance ``2N(1 + 2 MSE)`` against non-central chi-squared."""
    from scipy import stats

    lam = n * bias**2 / sd**2
    dist = stats.ncx2(n, lam)
    mse = sd**2 + bias**2
    ok = abs(dist.mean() - n * mse) < 1e-9 and abs(dist.var() - 2 * n * (1 + 2 * mse)) < 1e-9
    return _ev(
        bool(ok),
        mean=float(dist.mean()),
        var=float(dist.var()),
        pmean=n * mse,
        pvar=2 * n * (1 + 2 * mse),
    )


@_check("mse_variance_as_printed")
def _mse_variance_as_printed(bias, sd, n, scale):
    """Printed ``Var(MSE) = 2(MSE - B^2)(1 + 2 MSE)/N`` against the normal-theory
    ``2 s^2 (s^2 + 2 B^2)/N``, in two units (metres and centimetres)."""

    def ratio(c):
        b, s = c * bias, c * sd
        mse = s**2 + b**2
        return (2 * s**2 * (1 + 2 * mse) / n) / (2 * s**2 * (s**2 + 2 * b**2) / n)

    r1, r2 = ratio(1.0), ratio(scale)
    return _ev(abs(r1 - 1) < 1e-9, ratio=r1, ratio_scaled=r2)


@_check("normal_theory_laplace")
def _normal_theory_laplace(scale):
    """Variance of a squared Laplace residual: exact against the Gaussian-theory value."""
    b = scale
    exact = 24 * b**4 - (2 * b**2) ** 2  # E r^4 - (E r^2)^2 for Laplace(0, b)
    gaussian = 2 * (2 * b**2) ** 2  # 2 s^4 with s^2 = 2 b^2
    return _ev(abs(gaussian / exact - 1) < 0.1, ratio=exact / gaussian)


# --- 002 and 003: reusing a test set (the chapter test_set_reuse) ----------------------------
def _reuse():
    from heldout.resampling import reuse

    return reuse


@_check("fixed_models_supported")
def _fixed_models_supported(n, models, epsilon, delta):
    """Models fixed in advance: how many one holdout scores to within ``epsilon`` at once
    (Hoeffding and a union bound, ``reuse.queries_supported(..., "non-adaptive")``)."""
    supported = _reuse().queries_supported(n, epsilon, delta, method="non-adaptive")
    return _ev(supported >= models, supported=float(supported), models=models, n=n)


@_check("adaptive_attack_significant")
def _adaptive_attack_significant(n, queries, alpha):
    """Models chosen after seeing the scores: the boosting attack's expected reported accuracy
    on pure-noise labels, and the exact one-sided binomial p-value of that score under 1/2.
    The claim that significance protects the comparison holds if the p-value stays above
    ``alpha``."""
    from scipy import stats

    acc = float(_reuse().attack_expected_accuracy(n, queries))
    correct = round(acc * n)
    p = float(stats.binom.sf(correct - 1, n, 0.5))
    return _ev(p >= alpha, accuracy=acc, p=max(p, 1e-300), queries=queries)


@_check("holdout_learned")
def _holdout_learned(n, queries, z):
    """Can choosing after looking make a model "learn" a holdout?  The attack's expected
    reported accuracy on pure-noise labels, against 1/2 plus ``z`` standard errors."""
    acc = float(_reuse().attack_expected_accuracy(n, queries))
    se = 0.5 / math.sqrt(n)
    return _ev(acc > 0.5 + z * se, accuracy=acc, errors=(acc - 0.5) / se, queries=queries)


@_check("winner_bias_equal")
def _winner_bias_equal(n, models, accuracy):
    """Upward bias of the best of ``models`` equally good scores on ``n`` items, exactly
    (``reuse.winner_bias``), in points and in standard errors of one score."""
    bias = float(_reuse().winner_bias(n, models, accuracy))
    se = math.sqrt(accuracy * (1 - accuracy) / n)
    return _ev(bias > 0, bias=bias, errors=bias / se, models=models, n=n)


# --- rows added by the third referee read (issue 25) ----------------------------------------
@_check("printed_variance_more_accurate")
def _printed_variance_more_accurate(bias, sd, n, scale):
    """Is the printed ``2(MSE - B^2)(1 + 2 MSE)/N`` a more accurate variance of the MSE than
    the sample-variance (CLT) route?  For Gaussian residuals the true variance is
    ``2 s^2 (s^2 + 2 B^2)/N``, which the CLT route estimates without bias; the printed one
    is off by a factor that changes with the unit (metres, and ``scale`` times smaller)."""
    ev = _mse_variance_as_printed(bias, sd, n, scale)
    r1, r2 = ev.extra["ratio"], ev.extra["ratio_scaled"]
    return _ev(abs(r1 - 1) < 1e-9 and abs(r2 - 1) < 1e-9, ratio=r1, ratio_scaled=r2)


@_check("seen_data_optimistic")
def _seen_data_optimistic(train_rows, test_rows, train_accuracy, test_accuracy):
    """Scoring on data the model has seen: the accuracy on the whole data set (training rows
    included) against the accuracy on the test rows alone, in the article's example."""
    p = _lost_example(train_rows, test_rows, train_accuracy, test_accuracy)
    return _ev(p > test_accuracy, p=p, a=test_accuracy, gap=p - test_accuracy)


@_check("succession_rule")
def _succession_rule(successes, failures):
    """Laplace's rule of succession, ``(s + 1)/(n + 2)``, against the mean of the posterior
    Beta(s + 1, f + 1) that the article names after it (and the update itself)."""
    from scipy import stats

    mean = float(stats.beta(successes + 1, failures + 1).mean())
    laplace = (successes + 1) / (successes + failures + 2)
    return _ev(abs(mean - laplace) < 1e-12, mean=mean, laplace=laplace)


@_check("collar_is_clipping")
def _collar_is_clipping(mu):
    """Is the collared deviance the deviance of predictions clipped to ``[mu, 1 - mu]``?  The
    largest gap between the two over a fine grid of predictions, for either label (bits)."""
    from heldout.accuracy.losses import collared_deviance

    p = np.linspace(0.0, 1.0, 100_001)
    clipped = np.clip(p, mu, 1 - mu)
    gap = 0.0
    for y in (0, 1):
        a = collared_deviance(np.full(p.size, y), p, mu)
        b = -2 * np.log2(np.where(y == 1, clipped, 1 - clipped))
        gap = max(gap, float(np.max(np.abs(a - b))))
    top = float(-2 * np.log2(mu))
    return _ev(gap <= 0.01 * top, gap=gap, top=top)


@_check("split_same_rate")
def _split_same_rate(c_test, c_train, m):
    """At the variational optimum, does one more row improve the test term and the training
    term at the same rate?  ``c/m^2`` for each part, at the article's optimum."""
    from heldout.accuracy.split import optimal_test_fraction

    f = float(optimal_test_fraction(c_test, c_train))
    m_test, m_train = f * m, (1 - f) * m
    rate_test, rate_train = c_test / m_test**2, c_train / m_train**2
    return _ev(abs(rate_test / rate_train - 1) < 1e-9, ratio=rate_test / rate_train, fraction=f)


@_check("paired_items_fisher")
def _paired_items_fisher(correct_a, correct_b, n, a_only, alpha):
    """Two models scored on the same ``n`` items: Fisher's test on their right/wrong table
    treats them as ``2n`` independent items; McNemar's exact test uses the items where
    they disagree (``a_only`` right only for A, the rest of the gap right only for B).
    The claim holds if the two tests agree on significance."""
    from scipy import stats

    fisher = float(
        stats.fisher_exact(
            [[correct_a, correct_b], [n - correct_a, n - correct_b]], alternative="less"
        ).pvalue
    )
    b_only = correct_b - correct_a + a_only
    mcnemar = float(stats.binomtest(a_only, a_only + b_only, 0.5).pvalue)
    return _ev(
        (fisher < alpha) == (mcnemar < alpha),
        fisher=fisher,
        mcnemar=mcnemar,
        a_only=a_only,
        b_only=b_only,
    )


@_check("beta_sd_root_n")
def _beta_sd_root_n(accuracy, sizes):
    """Posterior sd of Beta(k + 1, N - k + 1) at a fixed observed accuracy: quadrupling
    ``N`` halves it (ratio of successive sds, for sizes growing by 4)."""
    from scipy import stats

    sd = []
    for n in sizes:
        k = round(accuracy * n)
        sd.append(float(stats.beta(k + 1, n - k + 1).std()))
    ratios = [a / b for a, b in zip(sd[:-1], sd[1:], strict=True)]
    return _ev(all(abs(r - 2) < 0.15 for r in ratios), first=ratios[0], last=ratios[-1])


@_check("beta_uniform")
def _beta_uniform():
    """Is Beta(1, 1) the uniform distribution on [0, 1]?  Its density and cdf on a grid."""
    from scipy import stats

    x = np.linspace(0.0, 1.0, 1001)
    gap = max(
        float(np.max(np.abs(stats.beta(1, 1).pdf(x[1:-1]) - 1))),
        float(np.max(np.abs(stats.beta(1, 1).cdf(x) - x))),
    )
    return _ev(gap < 1e-12, gap=gap)


@_check("least_squares_normal")
def _least_squares_normal(n, reps, seed):
    """Does least squares need normal residuals?  The slope of an ordinary least-squares fit
    with Laplace errors, over ``reps`` simulated data sets: its mean against the truth (1),
    in Monte Carlo standard errors.  The claim (normality is central) holds if it is biased."""
    gen = np.random.default_rng(seed)
    x = np.linspace(-1, 1, n)
    e = gen.laplace(0, 1, size=(reps, n))
    y = 1.0 * x + e
    xc = x - x.mean()
    slope = (y - y.mean(axis=1, keepdims=True)) @ xc / (xc @ xc)
    z = (slope.mean() - 1.0) / (slope.std(ddof=1) / math.sqrt(reps))
    return _ev(abs(z) > 4, z=float(z), mean=float(slope.mean()))


# --- 004: acceptance testing -----------------------------------------------------------------
def _acc():
    from heldout.accuracy import acceptance

    return acceptance


@_check("margin_depends")
def _margin_depends(required, sizes, alpha):
    """The safety margin changes with the required accuracy and with the test size."""
    a = _acc()
    by_req = np.asarray(a.safety_margin(np.asarray(required, float), sizes[0], alpha))
    by_n = np.asarray(a.safety_margin(required[0], np.asarray(sizes), alpha))
    return _ev(
        bool(np.ptp(by_req) > 0 and np.ptp(by_n) > 0), lo=float(by_n.min()), hi=float(by_n.max())
    )


@_check("difference")
def _difference(a, b):
    return _ev(a - b)


@_check("accuracy_sd_exact")
def _accuracy_sd_exact(accuracy, n):
    """``sqrt(pi(1-pi)/n)`` against the standard deviation of Binomial(n, pi)/n, summed exactly."""
    from scipy import stats

    k = np.arange(n + 1)
    pmf = stats.binom.pmf(k, n, accuracy)
    mean = float(np.sum(k / n * pmf))
    sd = math.sqrt(float(np.sum((k / n - mean) ** 2 * pmf)))
    formula = float(_acc().accuracy_sd(accuracy, n))
    return _ev(abs(sd - formula) < 1e-12, sd_exact=sd)


@_check("within_one_sd")
def _within_one_sd(accuracy, n):
    """Normal probability of lying within one sd (the article's rule), with the exact binomial one."""
    from scipy import stats

    exact = float(_acc().within_sd_probability(accuracy, n, 1.0))
    return _ev(float(1 - 2 * stats.norm.sf(1.0)), exact=exact)


@_check("pvalue_probability_h0")
def _pvalue_probability_h0(correct, n, required, prior_null):
    """The p-value against a posterior probability of H0 (half the prior mass on pi = pi0)."""
    a = _acc()
    pv = float(a.p_value_exact(correct, n, required))
    post = float(a.bayes_null_probability(correct, n, required, prior_null=prior_null))
    flat = float(1 - a.posterior_above(correct, n, required))
    return _ev(abs(pv - post) < 1e-3, p=pv, post=post, flat=flat)


@_check("below_half")
def _below_half(correct, n, required):
    """Posterior probability (flat prior) that the accuracy exceeds the requirement, at a test
    accuracy equal to it."""
    prob = float(_acc().posterior_above(correct, n, required))
    return _ev(prob < 0.5, prob=prob)


@_check("boundary_protects")
def _boundary_protects(n, required, alpha):
    """Largest pass probability of the exact test over every accuracy at or below the requirement."""
    pis = np.linspace(required - 0.1, required, 201)
    worst = float(np.max(_acc().pass_probability(pis, n, required, alpha)))
    return _ev(worst <= alpha, worst=worst)


@_check("z_value")
def _z_value(alpha):
    return _ev(float(_acc().z_value(alpha)))


@_check("safety_margin")
def _safety_margin(required, n, alpha):
    return _ev(float(_acc().safety_margin(required, n, alpha)))


@_check("threshold")
def _threshold(required, n, alpha):
    return _ev(
        float(_acc().threshold(required, n, alpha)),
        margin=float(_acc().safety_margin(required, n, alpha)),
    )


@_check("tail_below_alpha")
def _tail_below_alpha(correct, n, required, alpha):
    """``P(X/n >= observed)`` under the requirement, normal and exact."""
    a = _acc()
    normal = float(a.p_value_normal(correct, n, required))
    exact = float(a.p_value_exact(correct, n, required))
    return _ev(normal < alpha and exact < alpha, normal=normal, exact=exact)


@_check("opposite_of_h1")
def _opposite_of_h1(required):
    """Is "pi differs from pi0" the opposite of H1 = "pi differs from pi0"?  (On a grid of pi.)"""
    pis = np.round(np.linspace(0.5, 1.0, 501), 12)
    h1 = pis != required
    return _ev(bool(np.array_equal(~h1, h1)))


@_check("one_sided_after_look")
def _one_sided_after_look(correct, n, required, alpha):
    """Would the verdict survive a two-sided test at the same level (chosen before the data)?"""
    a = _acc()
    two_sided = required + float(a.z_value(alpha / 2)) * float(a.accuracy_sd(required, n))
    return _ev(correct / n > two_sided, threshold=two_sided)


@_check("accepted")
def _accepted(correct, n, required, alpha):
    """Does the model pass the normal rule and the exact test?"""
    a = _acc()
    r = a.accept(correct, n, required, alpha)
    return _ev(
        bool(r.passes and r.passes_exact),
        p=float(r.p_value_exact),
        by=correct - n * float(r.threshold),
        retest=float(a.pass_probability(correct / n, n, required, alpha)),
    )


@_check("rejected")
def _rejected(correct, n, required, alpha):
    """Does the model fail both the normal rule and the exact test?"""
    r = _acc().accept(correct, n, required, alpha)
    return _ev(bool(not r.passes and not r.passes_exact), p=float(r.p_value_exact))


@_check("sd_largest_at_half")
def _sd_largest_at_half(n):
    """Is the standard deviation largest at 1/2 and smaller toward 0 and 1?"""
    pis = np.linspace(0.01, 0.99, 99)
    sd = np.asarray(_acc().accuracy_sd(pis, n))
    top = float(pis[np.argmax(sd)])
    mono = bool(np.all(np.diff(sd[pis <= 0.5]) > 0) and np.all(np.diff(sd[pis >= 0.5]) < 0))
    return _ev(mono and abs(top - 0.5) < 1e-9, top=top)


@_check("normal_table")
def _normal_table(required, margins, alphas):
    """Normal-approximation sizes against the exact ones, and the normal rule's true level."""
    table = _acc().size_table(required, margins, alphas)
    ok = table.normal > 0
    level = table.normal_level / np.asarray(alphas)[:, None, None]
    exceed = int(np.sum(level[ok] > 1.0))
    rel = np.abs(table.normal - table.exact)[ok] / table.exact[ok]
    return _ev(
        exceed == 0 and float(rel.max()) < 0.1,
        exceed=exceed,
        cells=int(ok.sum()),
        worst=float(rel.max()),
    )


@_check("class_test_level")
def _class_test_level(n_class, required, alpha):
    """The test on the items of one class keeps its level (exact pass probability at pi0)."""
    level = float(_acc().pass_probability(required, n_class, required, alpha))
    return _ev(level <= alpha, level=level)


# --- claims that had no row (issue 41) ------------------------------------------------------
@_check("memorize_labels")
def _memorize_labels(points, dims, seed):
    """Zhang et al.'s construction: a one-hidden-layer ReLU network with ``points`` hidden
    units (``2 points + dims`` weights) that fits any labelling of ``points`` inputs.

    Project the inputs on a random direction ``w`` (distinct projections ``z_i`` almost
    surely), put a ReLU unit's threshold ``b_j`` just below each sorted ``z_(j)``; the
    matrix ``max(0, z_(i) - b_j)`` is lower triangular with a positive diagonal, so output
    weights that reproduce any labels exist and are found by one triangular solve.
    """
    from scipy.linalg import solve_triangular

    gen = np.random.default_rng(seed)
    x = gen.normal(size=(points, dims))
    labels = gen.choice([-1.0, 1.0], size=points)  # an arbitrary (random) labelling
    z = x @ gen.normal(size=dims)
    order = np.argsort(z)
    zs = z[order]
    gaps = np.diff(zs)
    b = np.concatenate([[zs[0] - 1.0], zs[:-1] + gaps / 2])  # b_1 < z_(1) < b_2 < z_(2) < ...
    hidden = np.maximum(0.0, zs[:, None] - b[None, :])
    v = solve_triangular(hidden, labels[order], lower=True)
    out = np.maximum(0.0, z[:, None] - b[None, :]) @ v  # the network on the inputs as given
    fitted = float(np.mean(np.sign(out) == labels))
    return _ev(fitted == 1.0, fitted=fitted, points=points, weights=2 * points + dims)


@_check("usual_split")
def _usual_split(c_test, c_train, rows, test_share, tolerance):
    """The 80/20 split under the article's own variational model: its expected squared
    criticism against the best split's, and the training term against all the data's."""
    sp = _split()
    m_test = rows * test_share
    usual = float(sp.expected_criticism(rows - m_test, m_test, c_train, c_test, 0.0))
    share = float(sp.optimal_test_fraction(c_test, c_train))
    best = float(sp.expected_criticism(rows * (1 - share), rows * share, c_train, c_test, 0.0))
    return _ev(
        usual / best - 1 <= tolerance,
        ratio=usual / best,
        train_ratio=1 / (1 - test_share),
        share=share,
    )


@_check("mean_metric_recipe")
def _mean_metric_recipe(n, prevalence, auc, reps, seed, alpha=0.05):
    """The per-item recipe (a t-interval from the per-item standard deviation) for a metric
    that is a mean (the Brier score) and for the AUC treated as a mean over the ``n`` items,
    on the same simulated test sets' model, judged by the book's coverage rule."""
    from heldout.book import chapter
    from heldout.book import metric_coverage as mc

    mean = mc.score_coverage("brier", "t", n, prevalence, auc, reps=reps, alpha=alpha, seed=seed)
    auc_cov = mc.auc_coverage(
        "binomial-total", n, prevalence, auc, reps=reps, alpha=alpha, seed=seed
    )
    mean_word = chapter.coverage_verdict(mean.coverage, mean.reps, alpha)
    auc_word = chapter.coverage_verdict(auc_cov.coverage, auc_cov.reps, alpha)
    return _ev(
        mean_word == "holds" and auc_word == "undercovers",
        mean=mean.coverage,
        mean_word=mean_word,
        auc=auc_cov.coverage,
        auc_word=auc_word,
    )


def _pick_unequal(accuracies, n):
    """Exact chance that model 0 tops ``n`` items of its own when every model has its own
    independent test set of ``n`` items, ties at the top broken at random."""
    from scipy import stats

    k = np.arange(n + 1)
    top = stats.binom.pmf(k, n, accuracies[0])
    # polynomial in t: coefficient j = P(j rivals tie at k and the others are below k)
    poly = np.ones((n + 1, 1))
    for acc in accuracies[1:]:
        below = stats.binom.cdf(k - 1, n, acc)
        tie = stats.binom.pmf(k, n, acc)
        nxt = np.zeros((n + 1, poly.shape[1] + 1))
        nxt[:, :-1] += poly * below[:, None]
        nxt[:, 1:] += poly * tie[:, None]
        poly = nxt
    return float(top @ (poly @ (1.0 / np.arange(1, poly.shape[1] + 1))))


@_check("strict_threshold")
def _strict_threshold(n, required, alpha, epsilon):
    """Critical counts of the exact one-sided test for "accuracy above ``required``" and
    for "accuracy at least ``required + epsilon``": the smallest count ``c`` whose tail
    ``P(X >= c)`` at the boundary is at most ``alpha`` (the level is attained at the
    boundary in both cases)."""
    from scipy import stats

    strict = int(stats.binom.isf(alpha, n, required)) + 1
    minimum = int(stats.binom.isf(alpha, n, required + epsilon)) + 1
    return _ev(strict == minimum, strict=strict, minimum=minimum)


@_check("nm_one_spacing")
def _nm_one_spacing(accuracy, gap, power, tolerance):
    """Size at which the best model tops the test with probability ``power``: with a third
    model as far below the second as the second is below the best, against two models."""
    from heldout.comparison.paired import first_at_least

    two = first_at_least(lambda n: _pick_unequal([accuracy, accuracy - gap], n), power)
    spaced = [accuracy, accuracy - gap, accuracy - 2 * gap]
    three = first_at_least(lambda n: _pick_unequal(spaced, n), power)
    close = [accuracy, accuracy - gap, accuracy - gap]
    crowded = first_at_least(lambda n: _pick_unequal(close, n), power)
    return _ev(
        three / two - 1 <= tolerance,
        two=two,
        three=three,
        ratio=three / two,
        crowded=crowded / two,
    )


@_check("failure_growth")
def _failure_growth(best, rival, n, rivals):
    """The probability that model 1 is *not* the best (exact, independent posteriors), with
    ``rivals`` rivals of equal score against one: does it grow in proportion?"""
    c = _compare()

    def miss(m):
        return 1.0 - float(c.prob_best(np.array([best] + [rival] * m), n)[0])

    one, many = miss(1), miss(int(rivals))
    ratio = many / one
    return _ev(ratio >= rivals / 2, one=one, many=many, ratio=ratio, rivals=rivals)


# --- 003: MNIST, our runs --------------------------------------------------------------------
class MnistUnavailable(RuntimeError):
    """The MNIST experiment has not been run here (no digits, or no cached predictions)."""


_MNIST: dict[str, object] = {}


def _mnist_experiment(*, train: bool = False):
    """The MNIST experiment of the current profile, read from the prediction cache.

    Unless ``train`` is true, a missing cached prediction raises
    :class:`MnistUnavailable` before any model is fitted.  The result is kept in
    memory per profile.
    """
    from heldout.book.mnist import models
    from heldout.config import quick

    profile = "quick" if quick() else "full"
    cached = _MNIST.get(profile)
    if isinstance(cached, MnistUnavailable):
        raise cached
    if cached is not None:
        return cached
    missing = MnistUnavailable("no cached MNIST predictions: build the MNIST chapter first")
    if not train and not any(models.PredictionCache().root.glob("*.npz")):
        _MNIST[profile] = missing
        raise missing

    class _CacheOnly(models.PredictionCache):
        def get(self, key):
            hit = super().get(key)
            if hit is None and not train:
                raise missing
            return hit

    try:
        exp = models.experiment(cache=_CacheOnly(), progress=False)
    except MnistUnavailable as exc:
        _MNIST[profile] = exc
        raise
    except (ImportError, OSError, ValueError) as exc:
        _MNIST[profile] = MnistUnavailable(f"MNIST experiment unavailable: {exc}")
        raise _MNIST[profile] from exc
    _MNIST[profile] = exp
    return exp


def mnist_results(*, train: bool = False):
    """The MNIST results table (:func:`heldout.book.mnist.models.results_table`) of the current profile.

    Read from the MNIST chapter's prediction cache; the ledger never trains a
    model by itself unless ``train`` is true.

    Raises
    ------
    MnistUnavailable
        If the digits or a cached prediction are missing (and ``train`` is false).
    """
    from heldout.book.mnist import models

    return models.results_table(_mnist_experiment(train=train))


def _mnist_score(model: str, part: str) -> tuple[int, int]:
    exp = _mnist_experiment()
    ok = exp.correct(model, part)
    return int(ok.sum()), int(ok.size)


@_check("dense_parameters")
def _dense_parameters(inputs, hidden, classes, rows, train_share):
    """Weights and biases of the article's dense network against its training rows."""
    params = (inputs + 1) * hidden + (hidden + 1) * classes
    train = int(rows * train_share)
    return _ev(params <= train, params=params, train=train)


@_check("mnist_accuracy", mnist=True)
def _mnist_accuracy(model, part, article=None, article_sd=None):
    """Our accuracy for one of the article's models, with the article's error bar formula
    (:func:`heldout.book.mnist.models.article_se`), and, given the article's printed
    accuracy and error bar, the gap ours minus the article's in standard errors of the
    difference (:func:`heldout.book.mnist.models.score_gap`, as the case study's table)."""
    from heldout.book.mnist.models import article_se, score_gap

    k, n = _mnist_score(model, part)
    se = float(article_se(k / n, n))
    if article is None or article_sd is None:
        return _ev(k / n, se)
    return _ev(k / n, se, gap=score_gap(k / n, se, article, article_sd))


@_check("mnist_not_run", mnist=True)
def _mnist_not_run(what):
    raise MnistUnavailable(f"not run: {what}")


@_check("mnist_better", mnist=True)
def _mnist_better(better, worse, alpha):
    """Is every model of ``better`` ahead of every model of ``worse`` on our validation set,
    significantly by McNemar's paired test (Holm-corrected over the pairs)?"""
    c = _compare()
    exp = _mnist_experiment()
    pvals, gaps = [], []
    for a in better:
        for b in worse:
            ca, cb = exp.correct(a, "val"), exp.correct(b, "val")
            only_a, only_b = c.disagreements(ca, cb)
            pvals.append(c.mcnemar_exact(only_a, only_b, alternative="greater"))
            gaps.append(ca.mean() - cb.mean())
    adjusted = np.asarray(c.holm(np.asarray(pvals)))
    ok = bool(np.all(np.asarray(gaps) > 0) and np.all(adjusted < alpha))
    return _ev(ok, gap=float(min(gaps)), p=float(adjusted.max()))


@_check("mnist_ahead", mnist=True)
def _mnist_ahead(better, worse):
    """Is every model of ``better`` ahead of every model of ``worse`` on our validation set?"""
    exp = _mnist_experiment()
    gaps = [
        exp.correct(a, "val").mean() - exp.correct(b, "val").mean() for a in better for b in worse
    ]
    return _ev(bool(min(gaps) > 0), gap=float(min(gaps)))


@_check("mnist_ceiling", mnist=True)
def _mnist_ceiling(models, ceiling):
    """Best validation accuracy of our dense networks (raw and scaled pixels) against a ceiling."""
    exp = _mnist_experiment()
    accs = {m: float(exp.correct(m, "val").mean()) for m in models}
    best = max(accs, key=accs.get)
    return _ev(accs[best] <= ceiling, best=accs[best], raw=accs[models[0]])
