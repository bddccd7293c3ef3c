"""heldout.metrics.fscore against scikit-learn, Takahashi et al.'s closed form, finite differences and simulation."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score, f1_score, precision_score, recall_score
from statsmodels.stats.proportion import proportion_confint

from heldout.book import metric_coverage as mc
from heldout.metrics import fscore as F


def _matrix_labels(matrix):
    m = np.asarray(matrix)
    k = m.shape[0]
    y = np.repeat(np.repeat(np.arange(k), k), m.ravel())
    p = np.repeat(np.tile(np.arange(k), k), m.ravel())
    return y, p


def _takahashi_macro_se(matrix):
    """The authors' closed form (their matrix has predicted classes in rows)."""
    mat = np.asarray(matrix, float).T
    n = mat.sum()
    p = mat / n
    pii = np.diag(p)
    r_, c_ = p.sum(1), p.sum(0)
    f = 2 * pii / (r_ + c_)
    k = p.shape[0]
    a = np.sum(f * (r_ + c_ - 2 * pii) / (r_ + c_) ** 2 * ((r_ + c_ - 2 * pii) / (r_ + c_) + f / 2))
    b = sum(
        p[i, j] * f[i] * f[j] / ((r_[i] + c_[i]) * (r_[j] + c_[j]))
        for i in range(k)
        for j in range(k)
        if i != j
    )
    return np.sqrt(2 * (a + b) / (n * k * k))


MATRICES = [
    [[50, 3, 2], [4, 40, 6], [1, 5, 39]],
    [[900, 20, 5, 1], [30, 60, 10, 0], [2, 8, 40, 3], [0, 1, 2, 8]],
    [[5, 1], [2, 7]],
]


@pytest.mark.parametrize("matrix", MATRICES)
def test_macro_f1_matches_sklearn_and_takahashi(matrix):
    y, p = _matrix_labels(matrix)
    e = F.macro_interval(matrix, "f1")
    assert e.value == pytest.approx(f1_score(y, p, average="macro"), abs=1e-12)
    assert e.se == pytest.approx(_takahashi_macro_se(matrix), rel=1e-10)
    assert F.macro_interval(matrix, "recall").value == pytest.approx(
        balanced_accuracy_score(y, p), abs=1e-12
    )
    assert F.macro_interval(matrix, "precision").value == pytest.approx(
        precision_score(y, p, average="macro"), abs=1e-12
    )
    spec = []
    for c in range(len(matrix)):
        neg = y != c
        spec.append(np.mean(p[neg] != c))
    assert F.macro_interval(matrix, "specificity").value == pytest.approx(np.mean(spec))


@pytest.mark.parametrize("average", F.AVERAGES)
def test_macro_gradients_match_finite_differences(average):
    rng = np.random.default_rng(3)
    p = rng.random((5, 5)) + np.eye(5) * 3
    p /= p.sum()
    _, g, _ = F._macro_value_and_gradient(p, average)
    h = 1e-7
    num = np.zeros_like(p)
    for i in range(5):
        for j in range(5):
            q = p.copy()
            q[i, j] += h
            up = F._macro_value_and_gradient(q, average)[0]
            q[i, j] -= 2 * h
            num[i, j] = (up - F._macro_value_and_gradient(q, average)[0]) / (2 * h)
    np.testing.assert_allclose(g, num, atol=1e-7)


def test_binary_f1_value_variance_and_exact_interval():
    rng = np.random.default_rng(4)
    y = rng.random(400) < 0.3
    p = np.where(rng.random(400) < 0.8, y, ~y)
    e = F.f1_score(y, p)
    assert e.value == pytest.approx(f1_score(y, p))
    tp, fp, fn = np.sum(y & p), np.sum(~y & p), np.sum(y & ~p)
    assert e.se == pytest.approx(
        2 * np.sqrt(tp * (fp + fn) * (tp + fp + fn) / (2 * tp + fp + fn) ** 4)
    )
    lo, hi = proportion_confint(tp, tp + fp + fn, method="beta")
    assert (e.low, e.high) == pytest.approx((2 * lo / (1 + lo), 2 * hi / (1 + hi)))


def test_delta_variance_of_f1_matches_simulation():
    rng = np.random.default_rng(5)
    cells = np.array([0.6, 0.08, 0.07, 0.25])  # tn, fp, fn, tp
    counts = rng.multinomial(2000, cells, size=50_000)
    tn, fp, fn, tp = counts.T
    f1 = 2 * tp / (2 * tp + fp + fn)
    e = F.f1_interval(500, 160, 140)  # the expected counts
    assert f1.std() == pytest.approx(e.se, rel=0.02)


def test_micro_f1_is_accuracy_and_class_f1_matches_sklearn():
    y, p = _matrix_labels(MATRICES[1])
    assert F.micro_f1_interval(MATRICES[1]).value == pytest.approx(f1_score(y, p, average="micro"))
    np.testing.assert_allclose(
        [e.value for e in F.class_f1(MATRICES[1])], f1_score(y, p, average=None)
    )


def test_balanced_accuracy_matches_sklearn():
    y, p = _matrix_labels([[90, 10], [10, 40]])
    e = F.balanced_accuracy_interval(40, 10, 10, 90)
    assert e.value == pytest.approx(balanced_accuracy_score(y, p))
    assert e.value == pytest.approx(recall_score(y, p, average="macro"))


@pytest.mark.parametrize(
    "n, prevalence, sens, spec",
    [(30, 0.2, 0.9, 0.9), (100, 0.1, 0.95, 0.98), (400, 0.3, 0.7, 0.9), (2000, 0.05, 0.8, 0.99)],
)
def test_exact_f1_interval_always_holds(n, prevalence, sens, spec):
    c = mc.count_coverage("f1", "exact", n, prevalence, sens, spec, reps=4000, seed=6)
    assert c.coverage >= 0.95 - 3 * c.mcse


def test_delta_f1_and_balanced_accuracy_coverage_hold_at_moderate_counts_and_fail_at_small():
    good = mc.count_coverage("f1", "logit", 1000, 0.3, 0.8, 0.9, reps=4000, seed=7)
    assert good.coverage >= 0.95 - 3 * good.mcse
    ba = mc.count_coverage(
        "balanced_accuracy", "agresti-caffo", 100, 0.1, 0.9, 0.9, reps=4000, seed=7
    )
    assert ba.coverage >= 0.95 - 3 * ba.mcse
    # the plain delta method collapses when the ten-odd positives are all found
    bad = mc.count_coverage("balanced_accuracy", "logit", 100, 0.1, 0.9, 0.9, reps=4000, seed=7)
    assert bad.coverage < 0.85


def test_macro_f1_coverage():
    c = mc.macro_f1_coverage("logit", 2000, 10, 0.9, reps=2000, seed=8)
    assert c.coverage >= 0.95 - 3 * c.mcse


def test_stacks_of_matrices_are_vectorised():
    stack = np.array([MATRICES[0], np.array(MATRICES[0]) * 3])
    e = F.macro_interval(stack)
    assert e.value.shape == (2,)
    assert e.se[1] == pytest.approx(e.se[0] / np.sqrt(3))


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda: F.f1_interval(0, 0, 0), "undefined"),
        (lambda: F.f1_interval(-1, 0, 0), "tp"),
        (lambda: F.f1_interval(1, 2, 3, method="bca"), "method"),
        (lambda: F.f1_interval([1, 2], [1, 2, 3], 0), "broadcast"),
        (lambda: F.balanced_accuracy_interval(0, 3, 0, 5), "both classes"),
        (lambda: F.macro_interval([[1, 2], [3]]), "matrix"),
        (lambda: F.macro_interval([[0, 0], [0, 0]]), "at least one"),
        (lambda: F.macro_interval([[1, 2], [3, 4]], average="micro"), "average"),
        (lambda: F.macro_interval([[1, np.nan], [3, 4]]), "NaN"),
    ],
)
def test_bad_input(call, word):
    with pytest.raises(ValueError, match=word):
        call()
