"""heldout.metrics.bootstrap: the fast engines against scipy.stats.bootstrap and brute force; the rule."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import brier_score_loss, f1_score, precision_score, roc_auc_score

from heldout.book import metric_coverage as mc
from heldout.metrics import bootstrap as B


def _data(seed=1, n=300):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    a = np.where(rng.random(n) < 0.85, y, ~y)
    b = np.where(rng.random(n) < 0.8, y, ~y)
    s = np.round(rng.normal(size=n) + 1.2 * y, 1)
    s2 = s + np.round(rng.normal(size=n), 1)
    return y, a, b, s, s2


def _scipy(metric, y, a, b=None, n=20_000):
    data = (y, a) if b is None else (y, a, b)

    def stat(*cols):
        v = metric(cols[0], cols[1])
        return v if b is None else v - metric(cols[0], cols[2])

    res = stats.bootstrap(
        data, stat, paired=True, vectorized=False, n_resamples=n, method="BCa", random_state=3
    )
    return res.confidence_interval.low, res.confidence_interval.high


def _f1(y, p):
    y, p = np.asarray(y, bool), np.asarray(p, bool)
    tp = np.sum(y & p)
    return 2 * tp / (2 * tp + np.sum(~y & p) + np.sum(y & ~p))


def _precision(y, p):
    y, p = np.asarray(y, bool), np.asarray(p, bool)
    return np.sum(y & p) / np.sum(p)


def _auc(y, s):
    y = np.asarray(y, bool)
    n1 = y.sum()
    return (stats.rankdata(s)[y].sum() - n1 * (n1 + 1) / 2) / (n1 * (y.size - n1))


def _brier(y, p):
    return np.mean((p - y) ** 2)


def test_reference_metrics_are_the_usual_ones():
    y, a, _, s, _ = _data()
    p = 1 / (1 + np.exp(-s))
    assert _f1(y, a) == pytest.approx(f1_score(y, a))
    assert _precision(y, a) == pytest.approx(precision_score(y, a))
    assert _auc(y, s) == pytest.approx(roc_auc_score(y, s))
    assert _brier(y, p) == pytest.approx(brier_score_loss(y, p))


@pytest.mark.parametrize(
    "name, func, kind",
    [
        ("f1", _f1, "labels"),
        ("precision", _precision, "labels"),
        ("auc", _auc, "scores"),
        ("brier", _brier, "probabilities"),
    ],
)
def test_fast_engines_agree_with_scipy_bootstrap(name, func, kind):
    y, a, b, s, s2 = _data()
    if kind == "labels":
        x, x2 = a, b
    elif kind == "scores":
        x, x2 = s, s2
    else:
        x, x2 = 1 / (1 + np.exp(-s)), 1 / (1 + np.exp(-s2))
    for second in (None, x2):
        e = B.bootstrap_interval(name, y, x, second, n_resamples=20_000, seed=1)
        lo, hi = _scipy(func, y, x, second, n=10_000)
        width = hi - lo
        assert abs(e.low - lo) < 0.06 * width and abs(e.high - hi) < 0.06 * width


def test_count_jackknife_equals_brute_force_leave_one_out():
    y, a, b, _, _ = _data(2, 60)
    for second in (None, b):
        eng = B._Counts("f1", y, a, second)
        values, weights = eng.jackknife()
        brute = []
        for i in range(y.size):
            keep = np.arange(y.size) != i
            v = f1_score(y[keep], a[keep])
            if second is not None:
                v -= f1_score(y[keep], second[keep])
            brute.append(v)
        expanded = np.repeat(values, weights.astype(int))
        np.testing.assert_allclose(np.sort(expanded), np.sort(brute), atol=1e-12)
        assert B._acceleration(values, weights) == pytest.approx(B._acceleration(brute, None))


def test_auc_jackknife_equals_brute_force_leave_one_out():
    y, _, _, s, s2 = _data(3, 50)
    eng = B._AUC(y, s, s2)
    values, _ = eng.jackknife()
    brute = []
    for i in range(y.size):
        keep = np.arange(y.size) != i
        brute.append(roc_auc_score(y[keep], s[keep]) - roc_auc_score(y[keep], s2[keep]))
    np.testing.assert_allclose(np.sort(values), np.sort(brute), atol=1e-12)


def test_weighted_auc_of_a_resample_equals_sklearn_on_the_resampled_items():
    y, _, _, s, _ = _data(4, 80)
    eng = B._AUC(y, s, None)
    idx = np.random.default_rng(4).integers(0, 80, size=(5, 80))
    values = eng._auc_from_codes(eng.codes[0][idx], eng.group_counts[0])
    for row, v in zip(idx, values, strict=True):
        assert v == pytest.approx(roc_auc_score(y[row], s[row]), abs=1e-12)


def test_bca_matches_scipy_on_a_mean():
    rng = np.random.default_rng(5)
    x = rng.exponential(size=100)
    low, high, _, acc = B.bca_interval(
        x.mean(), rng.choice(x, (40_000, 100)).mean(axis=1), (x.sum() - x) / 99
    )
    ref = stats.bootstrap((x,), np.mean, n_resamples=40_000, method="BCa", random_state=1)
    width = ref.confidence_interval.high - ref.confidence_interval.low
    assert abs(low - ref.confidence_interval.low) < 0.03 * width
    assert abs(high - ref.confidence_interval.high) < 0.03 * width
    d = x.mean() - (x.sum() - x) / 99
    assert acc == pytest.approx(np.sum(d**3) / (6 * np.sum(d**2) ** 1.5))


def test_p_value_agrees_with_the_interval():
    y, a, b, _, _ = _data(6, 400)
    for level in (0.9, 0.95, 0.99):
        d = B.bootstrap_interval("f1", y, a, b, alpha=1 - level, seed=2, n_resamples=4000)
        assert (d.p_value < 1 - level) == (d.low > 0 or d.high < 0)


def test_callable_metric_uses_scipy_and_repeats_with_a_seed():
    y, a, b, _, _ = _data(7, 200)
    e1 = B.bootstrap_interval(_f1, y, a, seed=3, n_resamples=500)
    e2 = B.bootstrap_interval(_f1, y, a, seed=3, n_resamples=500)
    assert (e1.low, e1.high) == (e2.low, e2.high)
    assert e1.value == pytest.approx(f1_score(y, a))
    d = B.bootstrap_interval(_f1, y, a, b, seed=3, n_resamples=500)
    assert 0 <= d.p_value <= 1


def test_multiclass_macro_f1_bootstrap_is_paired():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 4, 500)
    a = np.where(rng.random(500) < 0.8, y, rng.integers(0, 4, 500))
    e = B.bootstrap_interval("macro_f1", y, a, a, seed=1)
    assert (e.value, e.low, e.high) == (0.0, 0.0, 0.0)
    e = B.bootstrap_interval("macro_f1", y, a, seed=1)
    assert e.value == pytest.approx(f1_score(y, a, average="macro"))


def test_small_sample_warning_rule():
    y = np.r_[np.ones(6, bool), np.zeros(200, bool)]
    a = y.copy()
    a[:2] = False
    with pytest.warns(B.SmallSampleWarning, match="below 10"):
        B.bootstrap_interval("sensitivity", y, a, seed=1, n_resamples=500)
    y, a, _, _, _ = _data(9, 2000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        B.bootstrap_interval("f1", y, a, seed=1, n_resamples=500)


def test_rule_checked_by_simulation():
    """Above MIN_COUNT the BCa interval keeps its level; with counts below 3 it fails."""
    hits_big, hits_small = [], []
    for n, pi, se, sp in [(60, 0.2, 0.9, 0.9), (150, 0.1, 0.85, 0.95), (400, 0.3, 0.8, 0.9)]:
        truth = mc.count_truth("f1", pi, se, sp)
        rng = np.random.default_rng(n)
        y, a = mc._label_rows(mc._cells(pi, se, sp), n, 300, rng)
        for yi, ai in zip(y, a, strict=True):
            t = np.bincount(2 * yi.astype(int) + ai.astype(int), minlength=4).reshape(2, 2)
            m = B._binary_minority(t, "f1")
            if t[1, 1] + t[0, 1] + t[1, 0] == 0:
                continue
            e = B.bootstrap_interval("f1", yi, ai, seed=rng, n_resamples=999, warn=False)
            (hits_big if m >= B.MIN_COUNT else hits_small).append(e.low <= truth <= e.high)
    big = np.mean(hits_big)
    assert big >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / len(hits_big))
    y = np.zeros((400, 40), bool)
    y[:, :2] = True
    rng = np.random.default_rng(10)
    a = y & (rng.random(y.shape) < 0.5)  # two positives, each found half the time
    truth = 2 * 0.5 / (2 * 0.5 + 0.5)
    hits = []
    for yi, ai in zip(y, a, strict=True):
        if not ai.any() and not yi.any():
            continue
        e = B.bootstrap_interval("f1", yi, ai, seed=rng, n_resamples=500, warn=False)
        hits.append(e.low <= truth <= e.high)
    assert np.mean(hits) < 0.8


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda: B.bootstrap_interval("mcc", [0, 1], [0, 1]), "metric"),
        (lambda: B.bootstrap_interval("f1", [0, 1], [0, 1], method="basic"), "method"),
        (lambda: B.bootstrap_interval("f1", [0, 1], [0, 1], n_resamples=5), "n_resamples"),
        (lambda: B.bootstrap_interval("f1", [0, 1], [0, 1, 1]), "a has 3"),
        (lambda: B.bootstrap_interval("auc", [1, 1], [0.1, 0.2]), "negative"),
        (lambda: B.bootstrap_interval("brier", [0, 1], [0.1, 2.0]), "between 0 and 1"),
        (lambda: B.bootstrap_interval("precision", [0, 1], [0, 0]), "undefined"),
        (lambda: B.bootstrap_interval("f1", [0, 1], [0, 1], alpha=2), "alpha"),
        (lambda: B.bootstrap_interval(f1_score, np.zeros(30_000), np.zeros(30_000)), "callable"),
    ],
)
def test_bad_input(call, word):
    with pytest.raises(ValueError, match=word):
        call()


# --------------------------------------------------------------------------- clusters
def _clustered(seed, g=40, m=8, prevalence=0.3):
    rng = np.random.default_rng(seed)
    clusters = np.repeat(np.arange(g), m)
    y = rng.random(g * m) < prevalence
    s = np.round(rng.normal(size=g * m) + y * (1.2 + rng.normal(size=g)[clusters]), 1)
    return y, s, clusters


def test_cluster_resamples_and_jackknife_match_brute_force():
    from sklearn.metrics import roc_auc_score

    from heldout.dependent.clustered import cluster_codes
    from heldout.metrics.bootstrap import _ClusterAUC, _ClusterTables

    y, s, clusters = _clustered(1)
    codes, g = cluster_codes(clusters, y.size)
    eng = _ClusterAUC(y, codes, g, [s])
    jack = eng.jackknife()
    brute = [roc_auc_score(y[codes != k], s[codes != k]) for k in range(g)]
    np.testing.assert_allclose(jack, brute, atol=1e-12)
    counts = np.random.default_rng(2).multinomial(g, np.full(g, 1 / g), size=5)
    weights = counts[:, codes]
    np.testing.assert_allclose(
        eng.resample(counts),
        [roc_auc_score(y, s, sample_weight=w) for w in weights],
        atol=1e-12,
    )
    pred = s > 0.8
    tab = _ClusterTables("f1", y, codes, g, [pred])
    f1 = [
        2 * np.sum(w * (y & pred)) / (2 * np.sum(w * (y & pred)) + np.sum(w * (y ^ pred)))
        for w in weights
    ]
    np.testing.assert_allclose(tab.resample(counts), f1, atol=1e-12)


def test_singleton_clusters_give_the_item_bootstrap():
    y, s, _ = _clustered(3, g=60, m=10)
    items = np.arange(y.size)
    for metric, a in (("auc", s), ("f1", s > 0.8), ("precision", s > 0.8)):
        c = B.cluster_bootstrap_interval(metric, y, a, clusters=items, n_resamples=4000, seed=1)
        i = B.bootstrap_interval(metric, y, a, n_resamples=4000, seed=1, warn=False)
        assert c.value == pytest.approx(i.value)
        assert c.low == pytest.approx(i.low, abs=0.01) and c.high == pytest.approx(i.high, abs=0.01)


def test_cluster_bootstrap_auc_coverage_by_simulation():
    """Small and fast: 300 clustered test sets, coverage >= 0.95 - 3 Monte Carlo s.e.

    Each of 30 clusters (writers, patients) shifts the scores of its positives by a
    N(0, 1) amount: items of a cluster are correlated and the independent-item
    interval undercovers; the population AUC is Phi(mu / sqrt(2 + 1)).
    """
    from scipy import stats

    from heldout.metrics.auc import auc_interval

    rng = np.random.default_rng(4)
    g, m, mu, reps = 30, 20, 2.0, 300
    truth = stats.norm.cdf(mu / np.sqrt(3))
    hits, iid = [], []
    clusters = np.repeat(np.arange(g), m)
    for _ in range(reps):
        y = rng.random(g * m) < 0.3
        s = rng.normal(size=g * m) + y * (mu + rng.normal(size=g)[clusters])
        e = B.cluster_bootstrap_interval("auc", y, s, clusters=clusters, n_resamples=500, seed=rng)
        hits.append(e.low <= truth <= e.high)
        f = auc_interval(y, s)
        iid.append(f.low <= truth <= f.high)
    mcse = np.sqrt(0.95 * 0.05 / reps)
    assert np.mean(hits) >= 0.95 - 3 * mcse
    assert np.mean(iid) < 0.95 - 3 * mcse  # what the clusters do to the ordinary interval


def test_cluster_bootstrap_difference_and_bad_input():
    y, s, clusters = _clustered(5)
    d = B.cluster_bootstrap_interval("auc", y, s, s + 0.5, clusters=clusters, seed=1)
    assert (d.value, d.low, d.high) == (0.0, 0.0, 0.0)  # a monotone shift ranks alike
    with pytest.raises(ValueError, match="metric"):
        B.cluster_bootstrap_interval("brier", y, s, clusters=clusters)
    with pytest.raises(ValueError, match="clusters"):
        B.cluster_bootstrap_interval("auc", y, s, clusters=clusters[:-1])
    with pytest.raises(ValueError, match="two distinct clusters"):
        B.cluster_bootstrap_interval("auc", y, s, clusters=np.zeros(y.size))
    with pytest.raises(ValueError, match="n_resamples"):
        B.cluster_bootstrap_interval("auc", y, s, clusters=clusters, n_resamples=5)
