"""heldout.dependent.clustered: checked against statsmodels, closed forms and simulation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import stats

from heldout.dependent import clustered as cl


def _data(seed=0, g=40, p=0.8, rho=0.15, sizes=None):
    gen = np.random.default_rng(seed)
    sizes = gen.integers(1, 25, size=g) if sizes is None else np.asarray(sizes)
    sums = cl.simulate_clustered(p, rho, sizes, 1, gen)[0]
    # expand cluster sums into items (order inside a cluster does not matter)
    y = np.concatenate(
        [np.r_[np.ones(int(s)), np.zeros(int(m - s))] for s, m in zip(sums, sizes, strict=True)]
    )
    ids = np.repeat([f"c{i:03d}" for i in range(g)], sizes)
    perm = gen.permutation(y.size)
    return y[perm], ids[perm]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_se_matches_statsmodels_cluster_robust(seed):
    y, ids = _data(seed)
    codes = pd.factorize(ids)[0]
    ones = np.ones_like(y)
    cr1 = sm.OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": codes}, use_t=True)
    cr0 = sm.OLS(y, ones).fit(
        cov_type="cluster", cov_kwds={"groups": codes, "use_correction": False}
    )
    iid = sm.OLS(y, ones).fit()
    r = cl.clustered_mean(y, ids, method="t")
    assert r.estimate == pytest.approx(cr1.params[0], rel=1e-12)
    assert r.se_cluster == pytest.approx(cr1.bse[0], rel=1e-10)
    assert r.se_iid == pytest.approx(iid.bse[0], rel=1e-10)
    low, high = cr1.conf_int(alpha=0.05)[0]
    assert (r.low, r.high) == pytest.approx((low, high), rel=1e-10)
    assert r.df == cr1.df_resid_inference
    r0 = cl.clustered_mean(y, ids, correction="CR0", method="normal")
    assert r0.se_cluster == pytest.approx(cr0.bse[0], rel=1e-10)
    assert (r0.low, r0.high) == pytest.approx(tuple(cr0.conf_int(alpha=0.05)[0]), rel=1e-10)
    assert r.design_effect == pytest.approx((cr1.bse[0] / iid.bse[0]) ** 2, rel=1e-10)


def test_equal_sizes_is_t_interval_on_cluster_means():
    gen = np.random.default_rng(5)
    y = gen.normal(size=(12, 7)) + gen.normal(size=(12, 1))  # 12 clusters of 7, any score
    ids = np.repeat(np.arange(12), 7)
    r = cl.clustered_mean(y.ravel(), ids, alpha=0.1)
    means = y.mean(axis=1)
    ref = stats.ttest_1samp(means, 0).confidence_interval(0.9)
    assert r.method == "t"
    assert (r.low, r.high) == pytest.approx((ref.low, ref.high), rel=1e-10)


def test_icc_matches_anova_of_statsmodels():
    y, ids = _data(3, g=30)
    frame = pd.DataFrame({"y": y, "g": ids})
    table = sm.stats.anova_lm(smf.ols("y ~ C(g)", frame).fit())
    msb, msw = table["mean_sq"].iloc[0], table["mean_sq"].iloc[1]
    n, sizes = y.size, frame.groupby("g").size().to_numpy()
    m0 = (n - (sizes**2).sum() / n) / (sizes.size - 1)
    ref = (msb - msw) / (msb + (m0 - 1) * msw)
    assert cl.icc(y, ids) == pytest.approx(ref, rel=1e-10)
    assert cl.clustered_mean(y, ids).icc == pytest.approx(ref, rel=1e-10)


def test_icc_recovers_population_value():
    # 400 clusters of 10 from the beta-binomial population with rho = 0.2
    y, ids = _data(4, g=400, p=0.7, rho=0.2, sizes=np.full(400, 10))
    assert cl.icc(y, ids) == pytest.approx(0.2, abs=0.04)


def test_design_effect_closed_form_and_unequal_sizes_against_covariance_matrix():
    assert cl.design_effect(0.1, 5) == pytest.approx(1.4)
    assert np.allclose(cl.design_effect([0, 0.05, 0.2], 11), [1, 1.5, 3])
    sizes = np.array([1, 3, 4, 10, 2])
    rho = 0.3
    n = sizes.sum()
    # Var(mean)/ (sigma^2/n) from the exchangeable covariance matrix, sigma^2 = 1
    block = np.zeros((n, n))
    start = 0
    for m in sizes:
        block[start : start + m, start : start + m] = 1
        start += m
    cov = (1 - rho) * np.eye(n) + rho * block
    ref = cov.sum() / n**2 / (1 / n)
    assert cl.design_effect(rho, sizes=sizes) == pytest.approx(ref, rel=1e-12)
    assert cl.size_weighted_cluster_size(sizes) == pytest.approx(
        sizes.mean() * (1 + sizes.var() / sizes.mean() ** 2)
    )
    assert cl.effective_size(1000, 2.5) == pytest.approx(400)


def test_simulated_variance_matches_design_effect():
    sizes = np.array([2, 5, 9, 14, 20] * 8)
    p, rho, reps = 0.85, 0.1, 20_000
    sums = cl.simulate_clustered(p, rho, sizes, reps, seed=11)
    means = sums.sum(axis=1) / sizes.sum()
    ratio = means.var(ddof=1) / (p * (1 - p) / sizes.sum())
    # the sample variance of 20,000 draws has relative standard error about sqrt(2/reps) = 1%
    assert ratio == pytest.approx(cl.design_effect(rho, sizes=sizes), rel=0.05)


def test_bootstrap_se_close_to_cr0_and_paired_is_bootstrap_of_differences():
    y, ids = _data(6, g=200, sizes=np.full(200, 8))
    boot = cl.cluster_bootstrap(y, ids, n_resamples=4000, seed=1)
    cr0 = cl.clustered_mean(y, ids, correction="CR0")
    # equal sizes: the bootstrap variance of the mean is the CR0 variance; the MC error
    # of a standard deviation from 4000 resamples is about 1/sqrt(8000) = 1.1 %
    assert boot.se == pytest.approx(cr0.se_cluster, rel=0.05)
    assert boot.low < cr0.estimate < boot.high
    z = np.random.default_rng(2).integers(0, 2, y.size).astype(float)
    paired = cl.paired_cluster_bootstrap(y, z, ids, n_resamples=500, seed=3)
    direct = cl.cluster_bootstrap(y - z, ids, n_resamples=500, seed=3)
    assert (paired.low, paired.high) == (direct.low, direct.high)


def test_bootstrap_matches_a_plain_loop_in_distribution():
    y, ids = _data(7, g=25)
    labels = np.unique(ids)
    gen = np.random.default_rng(8)
    loop = []
    for _ in range(3000):
        drawn = gen.choice(labels, size=labels.size, replace=True)
        loop.append(np.concatenate([y[ids == c] for c in drawn]).mean())
    fast = cl.cluster_bootstrap(y, ids, n_resamples=3000, seed=9)
    assert fast.se == pytest.approx(np.std(loop, ddof=1), rel=0.08)
    assert fast.low == pytest.approx(np.quantile(loop, 0.025), abs=0.3 * fast.se)


def test_difference_equals_clustered_mean_of_differences():
    y, ids = _data(8)
    z = np.random.default_rng(1).integers(0, 2, y.size)
    d = cl.clustered_difference(y, z, ids)
    ref = sm.OLS(y - z, np.ones_like(y)).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(ids)[0]}, use_t=True
    )
    assert d.estimate == pytest.approx(y.mean() - z.mean())
    assert d.se_cluster == pytest.approx(ref.bse[0], rel=1e-10)
    assert d.method == "t"


def test_wilson_method_and_auto_choice():
    y, ids = _data(9)
    r = cl.clustered_mean(y, ids)
    assert r.method == "wilson"
    assert 0 <= r.low < r.estimate < r.high <= 1
    # Wilson's score interval on n_eff = n / deff with the t quantile, by hand
    n_eff = y.size / r.design_effect
    q = stats.t.isf(0.025, r.clusters - 1)
    p = r.estimate
    centre = (p + q**2 / (2 * n_eff)) / (1 + q**2 / n_eff)
    half = q * np.sqrt(p * (1 - p) / n_eff + q**2 / (4 * n_eff**2)) / (1 + q**2 / n_eff)
    assert (r.low, r.high) == pytest.approx((centre - half, centre + half), rel=1e-10)
    assert cl.clustered_mean(y * 0.5, ids).method == "t"


# --------------------------------------------------------------------------- coverage
def test_naive_undercovers_clustered_intervals_hold():
    """p = 0.8, rho = 0.1, 50 clusters of 10 (deff 1.9), 3000 simulated test sets.

    Tolerance: each clustered interval covers at least 0.95 - 4 MC standard errors
    (0.95 - 0.016); the naive interval covers at most 0.90.
    """
    c = cl.simulate_coverage(0.8, 0.1, 10, 50, reps=3000, n_resamples=250, seed=12)
    floor = 0.95 - 4 * c.mc_se
    assert c.clustered_t >= floor
    assert c.clustered_wilson >= floor
    assert c.bootstrap >= floor
    assert c.naive <= 0.90
    assert c.mean_design_effect == pytest.approx(1.9, rel=0.1)


def test_no_clustering_all_hold():
    c = cl.simulate_coverage(0.7, 0.0, 5, 100, reps=3000, n_resamples=None, seed=13)
    for value in (c.naive, c.clustered_t, c.clustered_wilson):
        assert abs(value - 0.95) <= 4 * c.mc_se


def test_few_clusters_bootstrap_undercovers_and_high_accuracy_t_undercovers():
    few = cl.simulate_coverage(0.8, 0.1, 10, 5, reps=3000, n_resamples=250, seed=14)
    assert few.bootstrap < 0.90  # percentile bootstrap with 5 clusters
    assert few.clustered_wilson >= 0.95 - 4 * few.mc_se
    high = cl.simulate_coverage(0.99, 0.05, 5, 100, reps=3000, n_resamples=None, seed=15)
    assert high.clustered_t < 0.90  # symmetric interval near accuracy 1
    assert high.clustered_wilson >= 0.95 - 4 * high.mc_se


def test_simulation_uses_the_same_intervals_as_clustered_mean():
    sizes = np.array([3, 7, 4, 10, 6, 2, 8, 5])
    sums = cl.simulate_clustered(0.75, 0.2, sizes, 30, seed=4)
    for row in sums:
        y = np.concatenate(
            [np.r_[np.ones(int(s)), np.zeros(int(m - s))] for s, m in zip(row, sizes, strict=True)]
        )
        ids = np.repeat(np.arange(sizes.size), sizes)
        r = cl.clustered_mean(y, ids, method="t")
        mean, vi, vc, _ = cl._moments(row[None], row[None], sizes[None].astype(float))
        assert r.se_cluster == pytest.approx(float(np.sqrt(vc[0])), rel=1e-12)
        assert r.se_iid == pytest.approx(float(np.sqrt(vi[0])), rel=1e-12)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"scores": [1, 0, 1], "clusters": [1, 2]}, "clusters"),
        ({"scores": [1, 0, 1], "clusters": [1, 1, 1]}, "clusters"),
        ({"scores": [1, np.nan, 1], "clusters": [1, 2, 2]}, "scores"),
        ({"scores": [], "clusters": []}, "scores"),
        ({"scores": [[1, 0], [1, 1]], "clusters": [1, 2]}, "scores"),
        ({"scores": [1, 0, 1], "clusters": [1.0, np.nan, 2.0]}, "clusters"),
        ({"scores": [1, 0, 1], "clusters": ["a", None, "b"]}, "clusters"),
        ({"scores": [1, 0, 1], "clusters": [1, 2, 2], "alpha": 1.5}, "alpha"),
        ({"scores": [1, 0, 1], "clusters": [1, 2, 2], "alpha": [0.1, 0.2]}, "alpha"),
        ({"scores": [1, 0, 1], "clusters": [1, 2, 2], "method": "exact"}, "method"),
        ({"scores": [1, 0, 1], "clusters": [1, 2, 2], "correction": "CR3"}, "correction"),
        ({"scores": [2, 0, 1], "clusters": [1, 2, 2], "method": "wilson"}, "scores"),
    ],
)
def test_bad_input_names_the_argument(kwargs, word):
    with pytest.raises(ValueError, match=word):
        cl.clustered_mean(**kwargs)


def test_other_bad_input():
    with pytest.raises(ValueError, match="clusters"):
        cl.icc([1, 0, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="equal"):
        cl.icc([1, 1, 1, 1], [1, 1, 2, 2])
    with pytest.raises(ValueError, match="exactly one"):
        cl.design_effect(0.1)
    with pytest.raises(ValueError, match="cluster_size"):
        cl.design_effect(0.1, 0.5)
    with pytest.raises(ValueError, match="icc"):
        cl.design_effect(1.5, 3)
    with pytest.raises(ValueError, match="sizes"):
        cl.design_effect(0.1, sizes=[0, 3])
    with pytest.raises(ValueError, match="scores_a and scores_b"):
        cl.clustered_difference([1, 0], [1, 0, 1], [1, 2])
    with pytest.raises(ValueError, match="n_resamples"):
        cl.cluster_bootstrap([1, 0, 1, 1], [1, 1, 2, 2], n_resamples=10)
    with pytest.raises(ValueError, match="n_resamples"):
        cl.cluster_bootstrap([1, 0, 1, 1], [1, 1, 2, 2], n_resamples=2**63)
    with pytest.raises(ValueError, match="clusters"):
        cl.simulate_coverage(0.9, 0.1, 5)
    with pytest.raises(ValueError, match="icc"):
        cl.simulate_coverage(0.9, 1.0, 5, 10)
    with pytest.raises(ValueError, match="reps"):
        cl.simulate_coverage(0.9, 0.1, 5, 10**6, reps=10**4)
    with pytest.raises(ValueError, match="seed"):
        cl.cluster_bootstrap([1, 0, 1, 1], [1, 1, 2, 2], seed="x")
