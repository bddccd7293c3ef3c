"""heldout.metrics.operating against brute force, scikit-learn's roc_curve, pROC and simulation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_curve

from heldout.metrics.operating import sensitivity_at_specificity, specificity_at_sensitivity


def _data(seed, n1=60, n0=90, shift=1.0, decimals=None):
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n1), np.zeros(n0)]
    s = np.r_[rng.normal(shift, 1, n1), rng.normal(0, 1, n0)]
    return y, (s if decimals is None else s.round(decimals))


def _brute_se_at_sp(y, s, spec):
    """max Se(t) over every threshold t (score >= t positive) with Sp(t) >= spec."""
    y = np.asarray(y, bool)
    best = 0.0
    for t in np.r_[np.unique(s), np.inf]:
        called = s >= t
        if np.mean(~called[~y]) >= spec - 1e-12:
            best = max(best, np.mean(called[y]))
    return best


def _sklearn_se_at_sp(y, s, spec):
    """Sensitivity on scikit-learn's ROC polygon at FPR 1 - spec (highest point at a jump)."""
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    return _height(fpr, tpr, spec)


def _height(fpr, tpr, spec):
    f = 1 - spec
    exact = np.isclose(fpr, f, atol=1e-12)
    if exact.any():
        return tpr[exact].max()
    j = np.searchsorted(fpr, f) - 1
    return tpr[j] + (tpr[j + 1] - tpr[j]) * (f - fpr[j]) / (fpr[j + 1] - fpr[j])


@pytest.mark.parametrize("seed", range(5))
def test_without_ties_the_point_is_the_brute_force_maximum(seed):
    y, s = _data(seed)
    spec = np.array([0.0, 0.1, 0.5, 0.9, 0.95, 0.333, 1.0])
    r = sensitivity_at_specificity(y, s, spec, method="fixed-threshold")
    assert np.allclose(r.value, [_brute_se_at_sp(y, s, v) for v in spec])


@pytest.mark.parametrize("seed", range(5))
def test_with_ties_the_point_lies_on_scikit_learns_roc_polygon(seed):
    y, s = _data(seed, decimals=1)
    spec = np.array([0.2, 0.5, 0.8, 0.9, 0.37, 0.95])
    r = sensitivity_at_specificity(y, s, spec, method="fixed-threshold")
    assert np.allclose(r.value, [_sklearn_se_at_sp(y, s, v) for v in spec])


@pytest.mark.parametrize("seed", range(3))
def test_specificity_at_sensitivity_is_the_brute_force_maximum(seed):
    y, s = _data(seed)
    yb = np.asarray(y, bool)
    for sens in (0.5, 0.8, 0.9, 0.95):
        best = max(
            np.mean(s[~yb] < t) for t in np.r_[np.unique(s), np.inf] if np.mean(s[yb] >= t) >= sens
        )
        r = specificity_at_sensitivity(y, s, sens, method="fixed-threshold")
        assert r.value == pytest.approx(best)
        assert np.mean(s[yb] > r.threshold - 1e-12) >= sens  # the threshold achieves it


def test_the_threshold_achieves_the_specificity():
    y, s = _data(1)
    r = sensitivity_at_specificity(y, s, 0.9, seed=1)
    yb = np.asarray(y, bool)
    assert np.mean(s[~yb] < r.threshold) >= 0.9 - 1e-12
    assert np.mean(s[yb] >= r.threshold) == pytest.approx(r.value)
    assert r.threshold_low <= r.threshold <= r.threshold_high


def _explicit_bootstrap(y, s, spec, reps, seed):
    rng = np.random.default_rng(seed)
    yb = np.asarray(y, bool)
    x, z = s[yb], s[~yb]
    out = np.empty(reps)
    for i in range(reps):
        xs, zs = rng.choice(x, x.size), rng.choice(z, z.size)
        out[i] = _brute_se_at_sp(np.r_[np.ones(x.size), np.zeros(z.size)], np.r_[xs, zs], spec)
    return out


def test_the_fast_bootstrap_matches_resampling_items():
    """The order-statistic sampler and explicit resampling give the same distribution."""
    y, s = _data(4, n1=40, n0=80)  # 8 negatives expected above: the bootstrap's route
    fast = sensitivity_at_specificity(y, s, 0.9, n_resamples=20000, seed=2)
    assert fast.exact is False
    boot = _explicit_bootstrap(y, s, 0.9, 1500, 3)
    lo, hi = np.quantile(boot, [0.025, 0.975])
    # percentiles of 1,500 explicit resamples: a few steps of 1/40 at most apart
    assert abs(fast.low - lo) <= 0.05 and abs(fast.high - hi) <= 0.05
    # and a two-sample KS test on the draws themselves does not tell them apart
    from heldout.metrics import operating as op

    xs, zs = np.sort(s[y == 1]), np.sort(s[y == 0])
    k = np.array([int(np.ceil(0.9 * zs.size))])
    draws = op._bootstrap_fast(xs, zs, k, 4000, np.random.default_rng(5))[:, 0]
    assert stats.ks_2samp(draws, boot).pvalue > 0.001


def test_ties_across_classes_agree_with_resampling_items():
    y, s = _data(2, decimals=1)
    r = sensitivity_at_specificity(y, s, [0.5, 0.9], n_resamples=3000, seed=1)
    boot = np.array([_sklearn_se_at_sp(*_resample(y, s, i), 0.9) for i in range(800)])
    lo, hi = np.quantile(boot, [0.025, 0.975])
    assert abs(r.low[1] - lo) <= 0.05 and abs(r.high[1] - hi) <= 0.05


def _compositions(total, parts):
    """Every vector of ``parts`` non-negative counts summing to ``total``."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def test_with_ties_the_order_statistic_draws_have_the_item_bootstraps_distribution():
    """Against the exact bootstrap distribution, enumerated over every stratified resample.

    4 positives and 5 negatives sharing the scores 1, 2 and 3: a resample is fixed by
    its counts at each distinct score (multinomial), and its sensitivity is read from
    scikit-learn's ROC polygon of the resampled items; 200,000 draws of the sampler must
    put on every value the enumerated probability within 5 Monte Carlo s.e. (and nothing
    off the support).
    """
    from heldout.metrics import operating as op

    x, z = np.array([1.0, 2.0, 2.0, 3.0]), np.array([0.0, 1.0, 1.0, 2.0, 3.0])
    spec = np.array([0.8, 0.6, 0.5, 0.3, 0.2])  # g = 1, 2, 2.5, 3.5, 4 false positives
    vx, cx = np.unique(x, return_counts=True)
    vz, cz = np.unique(z, return_counts=True)
    pmf = [dict() for _ in spec]
    for kx in _compositions(x.size, vx.size):
        px = stats.multinomial.pmf(kx, x.size, cx / x.size)
        for kz in _compositions(z.size, vz.size):
            pz = stats.multinomial.pmf(kz, z.size, cz / z.size)
            yy = np.r_[np.ones(x.size), np.zeros(z.size)]
            fpr, tpr, _ = roc_curve(yy, np.r_[np.repeat(vx, kx), np.repeat(vz, kz)])
            for i, v in enumerate(spec):
                key = round(float(_height(fpr, tpr, v)), 9)
                pmf[i][key] = pmf[i].get(key, 0.0) + px * pz
    g = op._roc.snap((1 - spec) * z.size)
    k = (z.size - np.floor(g)).astype(np.int64)
    reps = 200_000
    draws = op._bootstrap_fast(x, z, k, reps, np.random.default_rng(7), g)
    for i in range(spec.size):
        values, counts = np.unique(np.round(draws[:, i], 9), return_counts=True)
        assert set(values) <= set(pmf[i]), spec[i]
        for value, p in pmf[i].items():
            got = counts[values == value].sum() / reps
            assert abs(got - p) <= 5 * np.sqrt(p * (1 - p) / reps) + 1e-12, (spec[i], value)


def _resample(y, s, seed):
    rng = np.random.default_rng(100 + seed)
    yb = np.asarray(y, bool)
    i1 = rng.choice(np.flatnonzero(yb), yb.sum())
    i0 = rng.choice(np.flatnonzero(~yb), (~yb).sum())
    take = np.r_[i1, i0]
    return yb[take].astype(int), s[take]


def test_the_threshold_interval_covers_the_true_quantile():
    rng = np.random.default_rng(8)
    q = stats.norm.ppf(0.9)
    hits = 0
    reps = 400
    for _ in range(reps):
        y = np.r_[np.ones(30), np.zeros(150)]
        s = np.r_[rng.normal(1, 1, 30), rng.normal(0, 1, 150)]
        r = sensitivity_at_specificity(y, s, 0.9, method="fixed-threshold")
        hits += r.threshold_low <= q <= r.threshold_high
    # distribution-free order-statistic interval: at least 95 % up to 3 Monte Carlo s.e.
    assert hits / reps >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / reps)


def test_bootstrap_covers_and_the_fixed_threshold_interval_does_not():
    """300 binormal test sets: the bootstrap holds 95 % (3 s.e.); the naive one falls short."""
    rng = np.random.default_rng(11)
    truth = stats.norm.sf(stats.norm.ppf(0.9) - 1.2)
    boot = fixed = 0
    reps = 300
    for _ in range(reps):
        y = np.r_[np.ones(150), np.zeros(150)]
        s = np.r_[rng.normal(1.2, 1, 150), rng.normal(0, 1, 150)]
        b = sensitivity_at_specificity(y, s, 0.9, n_resamples=500, seed=rng)
        f = sensitivity_at_specificity(y, s, 0.9, method="fixed-threshold")
        boot += b.low <= truth <= b.high
        fixed += f.low <= truth <= f.high
    se = np.sqrt(0.05 * 0.95 / reps)
    assert boot / reps >= 0.95 - 3 * se
    assert fixed / reps < 0.95 - 2 * se


@pytest.mark.parametrize("decimals", [None, 1])
def test_agrees_with_proc(proc, decimals, monkeypatch):
    from heldout.metrics import operating as op

    # pROC bootstraps at every point; so does this comparison (6 negatives expected above
    # the threshold at 0.95 would otherwise take the order-statistic route)
    monkeypatch.setattr(op, "MIN_NEGATIVES_ABOVE", 0)
    y, s = _data(3, n1=80, n0=120, decimals=decimals)
    spec = [0.5, 0.8, 0.9, 0.95]
    out = proc(
        y, s,
        'cat(coords(r, c(0.5, 0.8, 0.9, 0.95), input = "specificity", ret = "sensitivity", '
        'transpose = FALSE)$sensitivity, coords(r, c(0.5, 0.8, 0.9, 0.95), input = "sensitivity", '
        'ret = "specificity", transpose = FALSE)$specificity); set.seed(1); '
        'ci <- ci.se(r, specificities = c(0.5, 0.8, 0.9, 0.95), boot.n = 4000, progress = "none"); '
        "cat('', ci[, 1], ci[, 3])",
    )  # fmt: skip
    se = sensitivity_at_specificity(y, s, spec, n_resamples=4000, seed=1)
    sp = specificity_at_sensitivity(y, s, spec, method="fixed-threshold")
    assert np.allclose(se.value, out[0:4]) and np.allclose(sp.value, out[4:8])
    # two bootstrap runs of 4,000 resamples: percentiles within two steps of 1/80
    assert np.allclose(se.low, out[8:12], atol=0.026)
    assert np.allclose(se.high, out[12:16], atol=0.026)


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"at": 1.5}, "at"),
        ({"at": float("nan")}, "at"),
        ({"alpha": 0.0}, "alpha"),
        ({"method": "exact"}, "method"),
        ({"n_resamples": 10}, "n_resamples"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_input_is_refused_by_name(kwargs, word):
    y, s = _data(0)
    with pytest.raises(ValueError, match=word):
        sensitivity_at_specificity(y, s, **kwargs)


def test_bad_data_is_refused_by_name():
    with pytest.raises(ValueError, match="y"):
        sensitivity_at_specificity([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="scores"):
        specificity_at_sensitivity([0, 1, 1], [0.1, float("nan"), 0.3])
    with pytest.raises(ValueError, match="scores"):
        sensitivity_at_specificity([0, 1, 1], [0.1, 0.3])


def test_the_threshold_interval_is_unbounded_when_too_few_negatives_bound_it():
    """n0 = 50 at specificity 0.99: P(Bin(50, 0.99) = 50) = 0.605 > 0.025, so no order
    statistic bounds the quantile from above (it was clipped to the largest negative)."""
    import warnings

    from heldout.metrics.operating import OperatingPointWarning

    y, s = _data(8, n1=50, n0=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OperatingPointWarning)
        r = sensitivity_at_specificity(y, s, 0.99, n_resamples=200, seed=1)
    assert stats.binom.pmf(50, 50, 0.99) > 0.025
    assert r.threshold_high == np.inf
    # the lower end: the alpha/2 quantile of Bin(50, 0.99) is 48, so y_(48)
    assert r.threshold_low == np.sort(s[y == 0])[int(stats.binom.ppf(0.025, 50, 0.99)) - 1]


def test_the_order_statistic_interval_against_its_construction():
    """Clopper-Pearson (scipy's binomtest) on the positives beyond the order statistics
    y_(l), y_(u) of the threshold at level alpha/2, each end at alpha/4."""
    y, s = _data(9, n1=80, n0=300)
    r = sensitivity_at_specificity(y, s, 0.95, method="order-statistic")
    x, z = np.sort(s[y == 1]), np.sort(s[y == 0])
    lo_i = int(stats.binom.ppf(0.0125, 300, 0.95))
    hi_i = int(stats.binom.ppf(1 - 0.0125, 300, 0.95)) + 1
    k_low = int(np.sum(x > z[hi_i - 1]))
    k_high = int(np.sum(x >= z[lo_i - 1]))
    # Clopper-Pearson at one-sided alpha/4 = two-sided 1 - alpha/2
    low = stats.binomtest(k_low, 80).proportion_ci(1 - 0.025, "exact").low
    high = stats.binomtest(k_high, 80).proportion_ci(1 - 0.025, "exact").high
    assert r.exact is True
    assert r.low == pytest.approx(low, rel=1e-9)
    assert r.high == pytest.approx(high, rel=1e-9)
    assert r.low <= r.value <= r.high


@pytest.mark.parametrize(("n", "prevalence", "spec"), [(100, 0.3, 0.99), (1000, 0.3, 0.999)])
def test_the_default_interval_holds_where_the_bootstrap_cannot(n, prevalence, spec):
    """Binormal AUC 0.85, 200 test sets, about 0.7 negatives expected above the threshold:
    the bootstrap alone covered 86 % and 76 % (300 sets each); the default, which takes the
    order-statistic route there, covers >= 95 % - 3 MC s.e.  It warns that its lower end
    is 0 (fewer negatives than negatives_needed)."""
    from heldout.book.operating_coverage import operating_coverage
    from heldout.metrics.operating import OperatingPointWarning, negatives_needed

    assert negatives_needed(spec) > n
    c = operating_coverage(
        "sensitivity-bootstrap", n, prevalence, 0.85, 200, seed=3, at=spec, n_resamples=200
    )
    y, s = _data(5, n1=round(n * prevalence), n0=n - round(n * prevalence))
    with pytest.warns(OperatingPointWarning, match=f"needs at least {negatives_needed(spec)}"):
        r = sensitivity_at_specificity(y, s, spec, n_resamples=200, seed=1)
    assert r.exact is True and r.low == 0.0
    assert c.coverage >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / 200)
