"""The hierarchical model's Gibbs sampler against an independent sampler of the same density.

baycomp's ``HierarchicalTest`` needs PyStan (a C++ toolchain), which is not installed here,
so the check is against the joint log density written directly from baycomp's Stan file
(``hierarchical-t-test.stan``: the full correlation matrix and its inverse, the Student t of
each delta_i, the Gamma prior of nu - 1 and the uniform priors), sampled by many
independent random-walk Metropolis chains.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from heldout.resampling.hierarchical import _prepared, hierarchical_rope


def _stan_log_density(th, x, rho, lo, hi, s0hi, shi):
    m, n = x.shape
    # the walk moves log(sigma_0), log(sigma_i) and log(nu - 1): their Jacobians are added
    d0, s0, lnu1, a, b = th[:, 0], np.exp(th[:, 1]), th[:, 2], th[:, 3], th[:, 4]
    delta, sig = th[:, 5 : 5 + m], np.exp(th[:, 5 + m :])
    jacobian = th[:, 1] + np.sum(th[:, 5 + m :], axis=1)
    ok = (d0 > lo) & (d0 < hi) & (s0 > 0) & (s0 < s0hi) & (a > 1) & (a < 2)
    ok &= (b > 0.01) & (b < 0.1) & np.all((sig > 0) & (sig < shi), axis=1)
    s0 = np.where(ok, s0, 1.0)
    s = np.where(ok[:, None], sig, 1.0)
    b = np.where(ok, b, 0.05)
    nu1 = np.exp(lnu1)
    nu = nu1[:, None] + 1
    corr = (1 - rho) * np.eye(n) + rho * np.ones((n, n))
    inv, logdet = np.linalg.inv(corr), np.linalg.slogdet(corr)[1]
    diff = x[None] - delta[:, :, None]
    quad = np.einsum("cij,jk,cik->ci", diff, inv, diff)
    loglik = np.sum(-0.5 * (2 * n * np.log(s) + logdet) - 0.5 * quad / s**2, axis=1)
    z = (delta - d0[:, None]) / s0[:, None]
    logt = special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * np.log(nu * np.pi)
    logt = np.sum(logt - np.log(s0)[:, None] - (nu + 1) / 2 * np.log1p(z**2 / nu), axis=1)
    # Gamma(a, b) density of nu - 1, plus the Jacobian of the walk on log(nu - 1)
    loggamma = a * np.log(b) - special.gammaln(a) + a * lnu1 - b * nu1
    return np.where(ok, loglik + logt + loggamma + jacobian, -np.inf)


CHAINS, STEPS = 1000, 3000


@pytest.mark.slow
def test_gibbs_sampler_matches_random_walk_metropolis_on_stans_density():
    g = np.random.default_rng(3)
    m, n = 4, 3
    b = g.uniform(0.7, 0.9, (m, 1)) + g.normal(0, 0.02, (m, n))
    a = b + g.normal(0.01, 0.02, (m, 1)) + g.normal(0, 0.02, (m, n))
    res = hierarchical_rope(a, b, rope=0.01, draws=20_000, burn=2_000, seed=2)
    x, scale, r = _prepared(a, b, 0.01, np.random.default_rng(0))
    xbar, sw = x.mean(axis=1), float(np.mean(np.std(x, axis=1)))
    sa = float(np.std(xbar))
    lo, hi = -np.abs(x).max(), np.abs(x).max()
    chains, steps = CHAINS, STEPS
    th = np.empty((chains, 5 + 2 * m))
    th[:, 0] = xbar.mean() + 0.1 * g.standard_normal(chains)
    th[:, 1] = np.log(sa) + 0.3 * g.standard_normal(chains)
    th[:, 2] = np.log(20) + g.standard_normal(chains)
    th[:, 3], th[:, 4] = g.uniform(1, 2, chains), g.uniform(0.01, 0.1, chains)
    th[:, 5 : 5 + m] = xbar + 0.1 * g.standard_normal((chains, m))
    th[:, 5 + m :] = np.log(np.std(x, axis=1)) + 0.2 * g.standard_normal((chains, m))
    step = np.r_[0.15, 0.4, 0.5, 0.15, 0.015, np.full(m, 0.15), np.full(m, 0.25)]
    args = (x, 1 / n, lo, hi, 1000 * sa, 1000 * sw)
    lp = _stan_log_density(th, *args)
    for _ in range(steps):
        prop = th + step * g.standard_normal(th.shape)
        lq = _stan_log_density(prop, *args)
        ok = np.log(g.random(chains)) < lq - lp
        th[ok], lp[ok] = prop[ok], lq[ok]
    d0, s0, nu = th[:, 0], np.exp(th[:, 1]), 1 + np.exp(th[:, 2])
    above = special.stdtr(nu, (d0 - r) / s0)
    below = special.stdtr(nu, (-r - d0) / s0)
    masses = np.column_stack([above, 1 - above - below, below])
    shares = np.bincount(masses.argmax(axis=1), minlength=3) / chains
    # Monte Carlo: 1,000 chains give standard errors of about 0.014 for a share and
    # 0.01 for a mean probability (a run with 4,000 chains of 8,000 steps agreed to 0.008)
    assert (res.a_better, res.equivalent, res.b_better) == pytest.approx(shares, abs=0.045)
    assert res.mean_probs == pytest.approx(masses.mean(axis=0), abs=0.03)
    assert res.delta0 == pytest.approx(d0.mean() * scale, abs=0.1 * d0.std() * scale + 1e-3)


def test_shrinkage_and_a_clear_winner():
    g = np.random.default_rng(4)
    b = g.uniform(0.7, 0.9, (10, 1)) + g.normal(0, 0.01, (10, 5))
    a = b + 0.03 + g.normal(0, 0.01, (10, 5))
    res = hierarchical_rope(a, b, rope=0.01, draws=3000, burn=1000, seed=1)
    assert res.a_better > 0.95 and res.b_better < 0.01
    means = (a - b).mean(axis=1)
    # each delta_i lies between its own mean and the pooled mean (shrinkage)
    pooled = res.delta0
    assert np.all(np.abs(res.delta - pooled) <= np.abs(means - pooled) + 2e-3)
    swapped = hierarchical_rope(b, a, rope=0.01, draws=3000, burn=1000, seed=1)
    assert swapped.b_better > 0.95


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"scores_a": np.ones((3, 4)), "scores_b": np.ones((3, 4))}, "constant within every"),
        ({"scores_a": np.ones((1, 4)), "scores_b": np.zeros((1, 4))}, "at least 2 data sets"),
        ({"scores_a": np.ones((3, 1)), "scores_b": np.zeros((3, 1))}, "at least 2 folds"),
        ({"scores_a": np.ones((3, 4)), "scores_b": np.zeros((3, 3))}, "same shape"),
        ({"scores_a": np.ones(4), "scores_b": np.zeros(4)}, "2-d table"),
    ],
)
def test_bad_input_is_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        hierarchical_rope(**kwargs, draws=100, burn=0)
