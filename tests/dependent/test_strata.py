"""heldout.dependent.strata: formulas computed independently with pandas, allocation by brute force, coverage."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from heldout.dependent import strata as st
from heldout.dependent.clustered import clustered_mean


def _sample(seed=0, sizes=(300, 100, 50), p=(0.98, 0.9, 0.7)):
    gen = np.random.default_rng(seed)
    y = np.concatenate([gen.random(n) < q for n, q in zip(sizes, p, strict=True)]).astype(float)
    s = np.repeat(["a", "b", "c"], sizes)
    return y, s


def test_stratified_mean_against_pandas():
    y, s = _sample()
    shares = {"a": 0.5, "b": 0.3, "c": 0.2}
    r = st.stratified_mean(y, s, shares, method="t")
    g = pd.DataFrame({"y": y, "s": s}).groupby("s")["y"]
    w = pd.Series(shares)
    est = (w * g.mean()).sum()
    terms = w**2 * g.var(ddof=1) / g.size()
    df = terms.sum() ** 2 / (terms**2 / (g.size() - 1)).sum()
    assert r.estimate == pytest.approx(est, rel=1e-12)
    assert r.se == pytest.approx(math.sqrt(terms.sum()), rel=1e-12)
    assert r.df == pytest.approx(df, rel=1e-10)
    q = stats.t.isf(0.025, df)
    assert (r.low, r.high) == pytest.approx((est - q * r.se, est + q * r.se), rel=1e-12)
    assert r.unweighted == pytest.approx(y.mean())


def test_own_mix_gives_the_plain_mean():
    y, s = _sample(1)
    r = st.stratified_mean(y, s)
    assert r.estimate == pytest.approx(y.mean(), rel=1e-12)
    assert r.shares == pytest.approx([300 / 450, 100 / 450, 50 / 450])


def test_clusters_within_strata_use_cluster_robust_variances():
    y, s = _sample(2)
    ids = np.arange(y.size) // 5  # clusters of 5 consecutive items, nested in strata
    shares = {"a": 0.4, "b": 0.4, "c": 0.2}
    r = st.stratified_mean(y, s, shares, clusters=ids, method="t")
    var = sum(
        shares[h] ** 2 * clustered_mean(y[s == h], ids[s == h], method="t").se_cluster ** 2
        for h in shares
    )
    assert r.se == pytest.approx(math.sqrt(var), rel=1e-12)


def test_coverage_of_stratified_interval_and_bias_of_the_plain_mean():
    """Population 50/50 of strata with accuracy 0.99 and 0.93; test sets drawn 80/20.

    The stratified interval covers the population accuracy 0.96 at least 0.95 minus
    4 MC standard errors; the plain mean's interval, centred on 0.978, almost never does.
    """
    gen = np.random.default_rng(4)
    reps, sizes, p, shares = 2000, (1600, 400), (0.99, 0.93), {"x": 0.5, "y": 0.5}
    truth = 0.5 * 0.99 + 0.5 * 0.93
    labels = np.repeat(["x", "y"], sizes)
    hit_st = hit_plain = 0
    for _ in range(reps):
        y = np.concatenate([gen.random(n) < q for n, q in zip(sizes, p, strict=True)]).astype(float)
        r = st.stratified_mean(y, labels, shares)
        hit_st += r.low <= truth <= r.high
        half = 1.96 * r.se_unweighted
        hit_plain += abs(r.unweighted - truth) <= half
    mc = math.sqrt(0.05 * 0.95 / reps)
    assert hit_st / reps >= 0.95 - 4 * mc
    assert hit_plain / reps < 0.05
    bias = st.mix_bias(p, [0.8, 0.2], [0.5, 0.5])
    assert bias.bias == pytest.approx(0.8 * 0.99 + 0.2 * 0.93 - truth)


def test_neyman_allocation_closed_form_and_integer_optimum():
    w, s = np.array([0.5, 0.3, 0.2]), np.array([0.1, 0.3, 0.45])
    a = st.neyman_allocation(40, w, s)
    assert a.exact == pytest.approx(40 * w * s / np.sum(w * s))
    assert a.sizes.sum() == 40 and np.all(np.abs(a.sizes - a.exact) < 1)
    # brute force over every whole-number allocation with at least one item per stratum
    best = min(
        st.stratified_variance(w, s, n)
        for n in itertools.product(range(1, 39), repeat=3)
        if sum(n) == 40
    )
    assert a.variance <= best * 1.01
    # the continuous optimum's variance is (sum W S)^2 / n
    cont = np.sum(w**2 * s**2 / a.exact)
    assert cont == pytest.approx(np.sum(w * s) ** 2 / 40)


def test_minimum_and_proportional_allocation():
    a = st.neyman_allocation(10, [0.9, 0.1], [0.3, 0.0], minimum=2)
    assert a.sizes.tolist() == [8, 2]
    assert st.proportional_allocation(7, [0.5, 0.25, 0.25]).sizes.sum() == 7


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (
            lambda: st.stratified_mean([1, 0, 1, 1], ["a", "a", "b", "b"], {"a": 0.5, "b": 0.6}),
            "sum to 1",
        ),
        (
            lambda: st.stratified_mean([1, 0, 1, 1], ["a", "a", "b", "b"], {"a": 1.0}),
            "every stratum",
        ),
        (
            lambda: st.stratified_mean(
                [1, 0, 1, 1], ["a", "a", "b", "b"], {"a": 0.5, "b": 0.3, "c": 0.2}
            ),
            "no test items",
        ),
        (lambda: st.stratified_mean([1, 0, 1], ["a", "a", "b"], {"a": 0.5, "b": 0.5}), "strata"),
        (lambda: st.stratified_mean([1, 0, 1], ["a", "a"], None), "strata"),
        (lambda: st.stratified_mean([1, 0, 1, 1], ["a", "a", "b", "b"], [0.5, 0.5]), "mapping"),
        (
            lambda: st.stratified_mean([1, 0, 1, 1], ["a", "a", "b", "b"], {"a": -0.5, "b": 1.5}),
            "shares",
        ),
        (
            lambda: st.stratified_mean([1, 0, 1, 1], ["a", "a", "b", "b"], clusters=[1, 1, 1, 2]),
            "clusters",
        ),
        (lambda: st.neyman_allocation(10, [0.5, 0.5], [0.1]), "sds"),
        (lambda: st.neyman_allocation(10, [0.5, 0.4], [0.1, 0.2]), "shares"),
        (lambda: st.neyman_allocation(3, [0.5, 0.5], [0.1, 0.2], minimum=2), "total"),
        (lambda: st.neyman_allocation(10, [0.5, 0.5], [0.0, 0.0]), "sds"),
        (lambda: st.mix_bias([0.9, 0.8], [1.0], [0.5, 0.5]), "test_shares"),
    ],
)
def test_bad_input(call, word):
    with pytest.raises(ValueError, match=word):
        call()
