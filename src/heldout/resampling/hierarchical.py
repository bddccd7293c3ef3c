r"""Two learners over many data sets with every data set's folds: the hierarchical model.

:func:`hierarchical_rope` fits the Bayesian hierarchical model of Corani et al.
:cite:`corani2017` (the model of ``baycomp``'s ``HierarchicalTest``, the same priors and
the same scaling of the data) with a Gibbs sampler written here in numpy, so that it
needs no Stan compiler.  For data set ``i`` with ``n`` fold differences
``x_i = (x_i1, ..., x_in)`` (A's score minus B's):

.. math::

    x_i \mid \delta_i, \sigma_i &\sim \mathcal N\bigl(\delta_i 1,\;
        \sigma_i^2 [(1-\rho) I + \rho 1 1^\top]\bigr), \\
    \delta_i \mid \delta_0, \sigma_0, \nu &\sim t_\nu(\delta_0, \sigma_0), \\
    \delta_0 \sim U(-\max|x|, \max|x|), \quad
    \sigma_0 &\sim U(0, 1000\, s_{among}), \quad \sigma_i \sim U(0, 1000\, s_{within}), \\
    \nu - 1 \sim \mathrm{Gamma}(a, b), \quad a &\sim U(1, 2), \quad b \sim U(0.01, 0.1),

with ``rho`` the correlation between folds (the test fraction ``1/K``, as in the
correlated t-test :cite:`corani2015`).  The data are first divided by the mean
within-data-set standard deviation (and ``rope`` with them), and a data set whose
differences are all equal gets symmetric values in ``(-rope, rope)`` as in ``baycomp``.

The sampler writes the Student t of ``delta_i`` as a normal with a Gamma-distributed
precision ``lambda_i`` :cite:`gelman2013`: then ``delta_i``, ``delta_0`` (normal),
``sigma_0^2`` and ``sigma_i^2`` (inverse gamma, truncated by the uniform priors' upper
ends, by rejection) have closed-form conditionals; ``nu`` is drawn by a random-walk
Metropolis step on ``log(nu - 1)`` with ``lambda`` integrated out and ``lambda`` drawn
after it; ``a`` and ``b`` by independence Metropolis steps from their uniform priors.
The data enter ``delta_i`` and ``sigma_i`` through each data set's mean ``xbar_i`` and
within sum of squares ``W_i``, because

.. math::

    (x_i - \delta_i 1)^\top M^{-1} (x_i - \delta_i 1)
    = \frac{W_i}{1-\rho} + \frac{n (\bar x_i - \delta_i)^2}{1 + (n-1)\rho}.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from heldout._checks import as_count, as_floats, as_probability, check_work, same_shape
from heldout._result import Result, extra
from heldout.comparison.rope import _rope_width
from heldout.config import rng as make_rng

__all__ = ["HierarchicalRope", "hierarchical_rope"]

MAX_WORK = 2_000_000_000  #: largest (draws + burn) x data sets
_ALPHA = (1.0, 2.0)  # bounds of the uniform prior of the Gamma shape of nu - 1
_BETA = (0.01, 0.1)  # bounds of the uniform prior of its rate
_UPPER_SIGMA = 1000.0  # the uniform priors' upper ends, in standard deviations of the data


@dataclass(frozen=True)
class HierarchicalRope(Result):
    """Posterior answers of the hierarchical model about the next data set's difference."""

    a_better: float  #: share of draws in which "A better by more than rope" is most probable
    equivalent: float  #: ... "practically equivalent"
    b_better: float  #: ... "B better by more than rope"
    rope: float
    mean_probs: np.ndarray = extra()  #: posterior means of P(A better), P(equiv.), P(B better)
    delta0: float = extra(0.0)  #: posterior mean of the mean difference delta_0 (score units)
    delta: np.ndarray = extra()  #: posterior means of each data set's delta_i (shrunk)
    draws: int = extra(0)
    acceptance: float = extra(0.0)  #: acceptance rate of the Metropolis steps for nu


def _fold_table(value, name: str) -> np.ndarray:
    arr = as_floats(value, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-d table (data sets x folds), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must hold finite numbers (no NaN or infinity)")
    return arr


def _prepared(a, b, rope: float, g) -> tuple[np.ndarray, float, float]:
    """Differences scaled as baycomp scales them, constant rows replaced; scale, rope."""
    ta, tb = _fold_table(a, "scores_a"), _fold_table(b, "scores_b")
    same_shape(ta, tb, "scores_a", "scores_b")
    x = ta - tb
    m, n = x.shape
    if m < 2:
        raise ValueError(f"scores_a and scores_b need at least 2 data sets (rows), got {m}")
    if n < 2:
        raise ValueError(f"scores_a and scores_b need at least 2 folds (columns), got {n}")
    scale = float(np.mean(np.std(x, axis=1)))
    if not scale > 0:
        raise ValueError(
            "the differences scores_a - scores_b are constant within every data set, so the "
            "model's scale is undefined; use the signed-rank test on the data sets' means"
        )
    x = x / scale
    r = rope / scale
    half = n // 2
    width = r if r > 0 else 1e-3
    for i in np.flatnonzero(np.var(x, axis=1) == 0):
        x[i, :half] = g.uniform(-width, width, half)
        x[i, half : 2 * half] = -x[i, :half]
        if n % 2:
            x[i, -1] = 0.0
    return x, scale, r


def _inverse_gamma_sigma(shape, rate, upper, g) -> np.ndarray:
    """sigma with sigma^2 ~ InvGamma(shape, rate) truncated to sigma < upper (rejection)."""
    rate = np.maximum(rate, 1e-300)
    out = np.sqrt(rate / g.standard_gamma(shape))
    bad = out >= upper
    tries = 0
    while np.any(bad) and tries < 1000:
        out[bad] = np.sqrt(rate[bad] / g.standard_gamma(shape[bad]))
        bad = out >= upper
        tries += 1
    return np.minimum(out, upper * (1 - 1e-12))


def _log_t(z2, nu):
    """Sum over data sets of log t_nu density at standardised squares ``z2`` (no scale term)."""
    c = special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * np.log(nu * np.pi)
    return z2.size * c - (nu + 1) / 2 * np.sum(np.log1p(z2 / nu))


def _sample(x, rho, n_draws, n_burn, g):
    """The Gibbs sampler of :mod:`heldout.resampling.hierarchical` on the standardised
    differences ``x`` (data sets by folds): the kept ``(delta_0, sigma_0, nu)`` draws, the
    sum of the kept per-data-set means, and the number of accepted ``nu`` moves."""
    m, n = x.shape
    xbar = x.mean(axis=1)
    within = np.sum((x - xbar[:, None]) ** 2, axis=1)
    c = (1.0 + (n - 1) * rho) / n  # Var(xbar_i) / sigma_i^2
    std_within = float(np.mean(np.std(x, axis=1)))
    std_among = float(np.std(xbar)) or std_within
    lo, hi = -float(np.max(np.abs(x))), float(np.max(np.abs(x)))
    sig_hi, sig0_hi = _UPPER_SIGMA * std_within, _UPPER_SIGMA * std_among
    # state
    delta = xbar.copy()
    delta0 = float(np.clip(xbar.mean(), lo, hi))
    sigma0 = max(std_among, 1e-6 * std_within)
    sigma = np.maximum(np.std(x, axis=1), 1e-6 * std_within)
    a_sh, b_rt = 1.5, 0.055
    u = np.log(a_sh / b_rt)  # log(nu - 1)
    step, accepted = 1.0, 0
    shape_0 = np.array([(m - 1) / 2.0])
    shape_i = np.full(m, (n - 1) / 2.0)
    total = n_burn + n_draws
    keep = np.empty((n_draws, 3))
    delta_sum = np.zeros(m)
    for it in range(total):
        # nu (lambda integrated out), then lambda given nu
        z2 = ((delta - delta0) / sigma0) ** 2
        nu = 1.0 + np.exp(u)

        u_new = u + step * g.standard_normal()
        nu_new = 1.0 + np.exp(u_new)
        log_ratio = a_sh * (u_new - u) - b_rt * (nu_new - nu) + _log_t(z2, nu_new) - _log_t(z2, nu)
        if np.log(g.random()) < log_ratio:
            u, nu = u_new, nu_new
            if it >= n_burn:
                accepted += 1
            elif it > 0:
                step *= 1.02
        elif it < n_burn:
            step /= 1.02 ** (0.44 / 0.56)  # aims at about 44 % acceptance
        lam = g.standard_gamma((nu + 1) / 2, size=m) / ((nu + z2) / 2)
        # delta_i
        prec = lam / sigma0**2 + 1.0 / (sigma**2 * c)
        mean = (lam * delta0 / sigma0**2 + xbar / (sigma**2 * c)) / prec
        delta = mean + g.standard_normal(m) / np.sqrt(prec)
        # delta_0, truncated to (lo, hi)
        sl = float(lam.sum())
        mu0, sd0 = float(lam @ delta) / sl, sigma0 / np.sqrt(sl)
        delta0 = _truncated_normal(g, mu0, sd0, lo, hi)
        # sigma_0 and sigma_i
        s = np.array([float(lam @ (delta - delta0) ** 2) / 2.0])
        sigma0 = float(_inverse_gamma_sigma(shape_0, s, sig0_hi, g)[0])
        q = within / (1.0 - rho) + (xbar - delta) ** 2 / c
        sigma = _inverse_gamma_sigma(shape_i, q / 2.0, sig_hi, g)
        # the Gamma prior's shape and rate (independence Metropolis from their priors)
        lnu1 = np.log(nu - 1.0)
        a_new = g.uniform(*_ALPHA)
        log_ratio = (a_new - a_sh) * (np.log(b_rt) + lnu1) - (
            special.gammaln(a_new) - special.gammaln(a_sh)
        )
        if np.log(g.random()) < log_ratio:
            a_sh = a_new
        b_new = g.uniform(*_BETA)
        if np.log(g.random()) < a_sh * np.log(b_new / b_rt) - (b_new - b_rt) * (nu - 1.0):
            b_rt = b_new
        if it >= n_burn:
            keep[it - n_burn] = delta0, sigma0, nu
            delta_sum += delta
    return keep, delta_sum, accepted


def _truncated_normal(g, mu0, sd0, lo, hi):
    """One draw of N(mu0, sd0) truncated to (lo, hi): rejection, then the inverse cdf."""
    for _ in range(100):
        delta0 = mu0 + sd0 * g.standard_normal()
        if lo < delta0 < hi:
            return delta0
    pa, pb = special.ndtr((lo - mu0) / sd0), special.ndtr((hi - mu0) / sd0)
    return float(np.clip(mu0 + sd0 * special.ndtri(g.uniform(pa, pb)), lo, hi))


def hierarchical_rope(
    scores_a,
    scores_b,
    rope: float = 0.01,
    *,
    test_fraction: float | None = None,
    draws: int = 10_000,
    burn: int = 2_000,
    seed=None,
) -> HierarchicalRope:
    r"""Corani et al.'s hierarchical test :cite:`corani2017`: A better, equivalent, B better?

    ``scores_a[i, j]`` and ``scores_b[i, j]`` are the two learners' scores on fold ``j``
    of data set ``i`` (the same folds for both).  The model and the sampler are described
    in :mod:`heldout.resampling.hierarchical`.  For each of ``draws`` posterior draws
    (after ``burn`` discarded ones) of ``(delta_0, sigma_0, nu)``, the difference on a
    new data set, :math:`\delta \sim t_\nu(\delta_0, \sigma_0)`, has masses above
    ``rope`` (A better), inside ``[-rope, rope]`` and below ``-rope``; the returned
    probabilities are the shares of draws in which each mass is the largest (the
    convention of ``baycomp``), and ``mean_probs`` their posterior means.  ``delta``
    holds each data set's shrunk mean difference.  ``test_fraction`` is the correlation
    ``rho`` between folds (default ``1/n`` for ``n`` folds of one run of
    cross-validation).  Monte Carlo: consecutive draws are correlated, so the standard
    error of a share is larger than ``0.5/sqrt(draws)``.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> b = g.uniform(0.7, 0.9, size=(8, 1)) + g.normal(0, 0.01, size=(8, 5))
    >>> a = b + 0.02 + g.normal(0, 0.01, size=(8, 5))
    >>> res = hierarchical_rope(a, b, rope=0.01, draws=4000, seed=1)
    >>> round(res.a_better, 1), round(res.delta0, 3)
    (1.0, 0.022)
    """
    g = make_rng(seed)
    r0 = _rope_width(rope)
    n_draws = int(as_count(draws, "draws", scalar=True, minimum=100))
    n_burn = int(as_count(burn, "burn", scalar=True))
    x, scale, r = _prepared(scores_a, scores_b, r0, g)
    m, n = x.shape
    check_work(float(n_draws + n_burn) * m, MAX_WORK, "draws + burn")
    rho = (
        1.0 / n
        if test_fraction is None
        else float(as_probability(test_fraction, "test_fraction", scalar=True))
    )
    keep, delta_sum, accepted = _sample(x, rho, n_draws, n_burn, g)
    d0, s0, nus = keep.T
    above = special.stdtr(nus, (d0 - r) / s0)
    below = special.stdtr(nus, (-r - d0) / s0)
    masses = np.column_stack([above, np.clip(1.0 - above - below, 0.0, 1.0), below])
    if r == 0:
        masses[:, 1] = -np.inf
    share = np.bincount(np.argmax(masses, axis=1), minlength=3) / n_draws
    means = np.column_stack([above, np.clip(1.0 - above - below, 0.0, 1.0), below]).mean(axis=0)
    return HierarchicalRope(
        float(share[0]),
        float(share[1]),
        float(share[2]),
        r0,
        means,
        float(d0.mean() * scale),
        delta_sum / n_draws * scale,
        n_draws,
        accepted / n_draws,
    )
