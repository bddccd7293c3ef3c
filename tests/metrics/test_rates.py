"""heldout.metrics.rates against scikit-learn, statsmodels and simulation."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix as sk_confusion
from sklearn.metrics import precision_score, recall_score
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from heldout.book import metric_coverage as mc
from heldout.metrics import rates as R


def _labels(seed, n=300, classes=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    pred = np.where(rng.random(n) < 0.75, y, rng.integers(0, classes, n))
    return y, pred


def test_confusion_matches_sklearn():
    y, p = _labels(1)
    c = R.confusion(y, p)
    tn, fp, fn, tp = sk_confusion(y, p).ravel()
    assert (c.tp, c.fp, c.fn, c.tn) == (tp, fp, fn, tn)
    assert c.n == y.size


@pytest.mark.parametrize("classes", [None, [3, 0, 1, 2]])
def test_confusion_matrix_matches_sklearn(classes):
    y, p = _labels(2, classes=4)
    ref = sk_confusion(y, p, labels=classes)
    np.testing.assert_array_equal(R.confusion_matrix(y, p, classes), ref)
    np.testing.assert_array_equal(R.confusion_matrix(y + 10, p + 10), sk_confusion(y + 10, p + 10))


def test_rate_interval_is_clopper_pearson():
    for k, m in [(0, 10), (3, 10), (10, 10), (45, 50), (1234, 5000)]:
        e = R.rate_interval(k, m, alpha=0.1)
        lo, hi = proportion_confint(k, m, alpha=0.1, method="beta")
        assert e.low == pytest.approx(lo, abs=1e-10) and e.high == pytest.approx(hi, abs=1e-10)
        w = R.rate_interval(k, m, alpha=0.1, method="wald")
        lo, hi = proportion_confint(k, m, alpha=0.1, method="normal")
        assert w.low == pytest.approx(max(lo, 0), abs=1e-12)
        assert w.high == pytest.approx(min(hi, 1), abs=1e-12)


def test_rates_use_their_own_denominators():
    y, p = _labels(3)
    r = R.rates(y, p)
    tn, fp, fn, tp = sk_confusion(y, p).ravel()
    assert r.sensitivity.value == pytest.approx(recall_score(y, p))
    assert r.precision.value == pytest.approx(precision_score(y, p))
    assert (r.sensitivity.n, r.specificity.n, r.precision.n, r.npv.n, r.accuracy.n) == (
        tp + fn,
        tn + fp,
        tp + fp,
        tn + fn,
        y.size,
    )
    lo, hi = proportion_confint(tn, tn + fn, method="beta")
    assert (r.npv.low, r.npv.high) == pytest.approx((lo, hi), abs=1e-10)


def test_precision_is_none_when_nothing_is_predicted_positive():
    r = R.rates([1, 0, 1, 0], [0, 0, 0, 0])
    assert r.precision is None and r.sensitivity.value == 0


def test_class_rates_match_sklearn_per_class():
    y, p = _labels(4, classes=3)
    r = R.class_rates(R.confusion_matrix(y, p))
    np.testing.assert_allclose([e.value for e in r.recall], recall_score(y, p, average=None))
    np.testing.assert_allclose([e.value for e in r.precision], precision_score(y, p, average=None))


def test_accuracy_difference_against_statsmodels_and_hand():
    y, a = _labels(5, n=200)
    _, b = _labels(6, n=200)
    d = R.accuracy_difference(y, a, b, alpha=0.05)
    ra, rb = a == y, b == y
    n12, n21 = np.sum(ra & ~rb), np.sum(~ra & rb)
    table = [[np.sum(ra & rb), n12], [n21, np.sum(~ra & ~rb)]]
    assert d.p_value == pytest.approx(mcnemar(table, exact=True).pvalue)
    assert d.value == pytest.approx((n12 - n21) / 200)
    bs, cs, ns = n12 + 0.5, n21 + 0.5, 202
    centre = (bs - cs) / ns
    se = np.sqrt(bs + cs - (bs - cs) ** 2 / ns) / ns
    assert d.low == pytest.approx(centre - 1.959963984540054 * se)


def test_clopper_pearson_holds_conditionally_on_the_random_denominator():
    # precision's denominator (predicted positives) is random; given it, CP holds
    reps = 40_000
    m, cov, share = mc.precision_conditional_coverage(
        "clopper-pearson", 60, 0.15, 0.8, 0.9, reps=reps, seed=1
    )
    enough = share * reps >= 400
    mcse = np.sqrt(0.95 * 0.05 / (share[enough] * reps))
    assert np.all(cov[enough] >= 0.95 - 3 * mcse)
    # Wald does not: with 15 or fewer predicted positives it covers about 90 %
    m_w, cov_w, share_w = mc.precision_conditional_coverage(
        "wald", 60, 0.15, 0.8, 0.9, reps=reps, seed=1
    )
    small = (m_w <= 15) & (share_w * reps >= 400)
    assert np.average(cov_w[small], weights=share_w[small]) < 0.92


@pytest.mark.parametrize(
    "metric, n, prevalence",
    [
        ("precision", 60, 0.1),
        ("sensitivity", 100, 0.05),
        ("npv", 80, 0.5),
        ("specificity", 40, 0.3),
    ],
)
def test_clopper_pearson_coverage_holds_and_total_n_variance_fails(metric, n, prevalence):
    c = mc.count_coverage(metric, "clopper-pearson", n, prevalence, 0.85, 0.9, reps=4000, seed=2)
    assert c.coverage >= 0.95 - 3 * c.mcse
    if metric in ("precision", "sensitivity"):
        bad = mc.count_coverage(metric, "wald-total", n, prevalence, 0.85, 0.9, reps=4000, seed=2)
        assert bad.coverage < 0.9


def test_agresti_min_coverage():
    for n, a, b in [(50, 0.9, 0.85), (200, 0.95, 0.93), (1000, 0.8, 0.8)]:
        c = mc.accuracy_difference_coverage(n, a, b, 0.4, reps=4000, seed=3)
        assert c.coverage >= 0.95 - 3 * c.mcse


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda: R.rate_interval(5, 0), "undefined"),
        (lambda: R.rate_interval(6, 5), "must not exceed"),
        (lambda: R.rate_interval(-1, 5), "at least 0"),
        (lambda: R.rate_interval(1.5, 5), "whole number"),
        (lambda: R.rate_interval(2**63, 2**64), "2\\*\\*63"),
        (lambda: R.rate_interval(1, 5, method="wilson"), "method"),
        (lambda: R.confusion([0, 1], [0, 1, 1]), "pred has 3"),
        (lambda: R.confusion([0, 2], [0, 1]), "binary"),
        (lambda: R.rates([1, 1], [1, 0]), "both classes"),
        (lambda: R.confusion_matrix([0, 1], [0, 2], classes=[0, 1]), "not in classes"),
        (lambda: R.confusion_matrix([0, 1.5], [0, 1]), "whole-number"),
        (lambda: R.class_rates([[1, 2, 3]]), "square"),
        (lambda: R.accuracy_difference([0, 1], [0, 1], [0]), "pred_b"),
    ],
)
def test_bad_input(call, word):
    with pytest.raises(ValueError, match=word):
        call()
