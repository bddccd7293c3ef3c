"""heldout.book.metric_coverage: the simulators against direct computation, and the coverage grid.

The grid test is the book's promise in one place: every interval that the chapter
recommends keeps its level (coverage >= 1 - alpha - 3 Monte Carlo standard errors)
where the chapter says it does, and the ones it warns against are shown failing.
"""

from __future__ import annotations

import numpy as np
import pytest

from heldout.book import metric_coverage as mc
from heldout.metrics import auc as A


def _batch_delong_is_the_package(y, s, s2):
    """Every row of the 2-D DeLong against heldout.metrics.auc.delong on that row alone."""
    aucs, cov, n1, n0 = mc._batch_delong(y, s, s2)
    for i in range(y.shape[0]):
        d = A.delong(y[i], np.vstack([s[i], s2[i]]))
        np.testing.assert_allclose([aucs[0][i], aucs[1][i]], d.auc, atol=1e-12)
        np.testing.assert_allclose(
            [cov[0, 0][i], cov[0, 1][i], cov[1, 1][i]],
            [d.cov[0, 0], d.cov[0, 1], d.cov[1, 1]],
            atol=1e-14,
        )
        assert (n1[i], n0[i]) == (y[i].sum(), (~y[i]).sum())


def test_batch_delong_matches_the_package():
    y, s, s2 = mc.binormal_scores(80, 0.3, 0.8, 6, seed=1, correlation=0.5, auc_b=0.7)
    assert y.shape[0] == 6
    _batch_delong_is_the_package(y, s, s2)


def test_binormal_scores_have_the_stated_auc_and_correlation():
    y, s, s2 = mc.binormal_scores(200_000, 0.4, 0.8, 1, seed=2, correlation=0.6, auc_b=0.7)
    assert A.auc(y[0], s[0]) == pytest.approx(0.8, abs=0.003)
    assert A.auc(y[0], s2[0]) == pytest.approx(0.7, abs=0.003)
    neg = ~y[0]
    assert np.corrcoef(s[0][neg], s2[0][neg])[0, 1] == pytest.approx(0.6, abs=0.01)


@pytest.mark.parametrize("model", mc.SCORE_MODELS)
def test_score_models_have_the_stated_auc(model):
    for auc in (0.7, 0.95):
        y, s = mc.scored_test_sets(model, 400_000, 0.5, auc, 1, seed=3)
        assert A.auc(y[0], s[0]) == pytest.approx(auc, abs=0.003)


def test_count_truth_and_paired_cells():
    assert mc.count_truth("f1", 0.2, 0.8, 0.9) == pytest.approx(2 * 0.16 / (2 * 0.16 + 0.08 + 0.04))
    cells = mc._paired_cells(0.3, 0.8, 0.9, 0.7, 0.85, 0.5)
    assert cells.sum() == pytest.approx(1)
    t = cells.reshape(2, 2, 2)
    assert t[1, 1, :].sum() / t[1].sum() == pytest.approx(0.8)  # sensitivity of A
    assert t[1, :, 1].sum() / t[1].sum() == pytest.approx(0.7)  # sensitivity of B
    assert t[0, 0, :].sum() / t[0].sum() == pytest.approx(0.9)  # specificity of A


# (function, kwargs, "holds" or "fails")
GRID = [
    (mc.auc_coverage, {"method": "logit", "n": 500, "prevalence": 0.3, "auc": 0.8}, "holds"),
    (mc.auc_coverage, {"method": "logit", "n": 2000, "prevalence": 0.1, "auc": 0.95}, "holds"),
    (mc.auc_coverage, {"method": "wald", "n": 200, "prevalence": 0.1, "auc": 0.95}, "fails"),
    (mc.auc_coverage, {"method": "logit", "n": 100, "prevalence": 0.1, "auc": 0.98}, "fails"),
    (mc.auc_coverage, {"method": "auto", "n": 100, "prevalence": 0.1, "auc": 0.98}, "holds"),
    (mc.auc_coverage, {"method": "logit", "n": 2000, "prevalence": 0.05, "auc": 0.99}, "fails"),
    (mc.auc_coverage, {"method": "auto", "n": 2000, "prevalence": 0.05, "auc": 0.99}, "holds"),
    (
        mc.auc_coverage,
        {
            "method": "newcombe",
            "n": 1000,
            "prevalence": 0.1,
            "auc": 0.98,
            "model": "hard-positives",
        },
        "fails",
    ),
    (
        mc.auc_coverage,
        {"method": "auto", "n": 1000, "prevalence": 0.1, "auc": 0.98, "model": "hard-positives"},
        "holds",
    ),
    (
        mc.auc_coverage,
        {
            "method": "max-variance",
            "n": 100,
            "prevalence": 0.05,
            "auc": 0.6,
            "model": "binormal-wide",
        },
        "holds",
    ),
    (
        mc.auc_difference_coverage,
        {
            "n": 1000,
            "prevalence": 0.1,
            "auc_a": 0.99,
            "auc_b": 0.98,
            "correlation": 0.9,
            "method": "delong",
            "model": "shared-hard",
        },
        "fails",
    ),
    (
        mc.auc_difference_coverage,
        {
            "n": 1000,
            "prevalence": 0.1,
            "auc_a": 0.99,
            "auc_b": 0.98,
            "correlation": 0.9,
            "model": "shared-hard",
        },
        "holds",
    ),
    (
        mc.auc_difference_coverage,
        {"n": 1000, "prevalence": 0.05, "auc_a": 0.99, "auc_b": 0.97, "correlation": 0.6},
        "holds",
    ),
    (
        mc.auc_coverage,
        {"method": "binomial-total", "n": 1000, "prevalence": 0.1, "auc": 0.85},
        "fails",
    ),
    (
        mc.auc_difference_coverage,
        {"n": 500, "prevalence": 0.3, "auc_a": 0.8, "auc_b": 0.75, "correlation": 0.7},
        "holds",
    ),
    (
        mc.count_coverage,
        {
            "metric": "precision",
            "method": "clopper-pearson",
            "n": 50,
            "prevalence": 0.1,
            "sensitivity": 0.9,
            "specificity": 0.9,
        },
        "holds",
    ),
    (
        mc.count_coverage,
        {
            "metric": "precision",
            "method": "wald-total",
            "n": 500,
            "prevalence": 0.1,
            "sensitivity": 0.9,
            "specificity": 0.9,
        },
        "fails",
    ),
    (
        mc.count_coverage,
        {
            "metric": "sensitivity",
            "method": "wald",
            "n": 300,
            "prevalence": 0.05,
            "sensitivity": 0.95,
            "specificity": 0.9,
        },
        "fails",
    ),
    (
        mc.count_coverage,
        {
            "metric": "f1",
            "method": "exact",
            "n": 40,
            "prevalence": 0.2,
            "sensitivity": 0.95,
            "specificity": 0.95,
        },
        "holds",
    ),
    (
        mc.count_coverage,
        {
            "metric": "f1",
            "method": "wald",
            "n": 60,
            "prevalence": 0.2,
            "sensitivity": 0.95,
            "specificity": 0.95,
        },
        "fails",
    ),
    (
        mc.count_coverage,
        {
            "metric": "balanced_accuracy",
            "method": "agresti-caffo",
            "n": 200,
            "prevalence": 0.05,
            "sensitivity": 0.95,
            "specificity": 0.98,
        },
        "holds",
    ),
    (
        mc.score_coverage,
        {"score": "brier", "method": "t", "n": 2000, "prevalence": 0.2, "auc": 0.85},
        "holds",
    ),
    (
        mc.score_coverage,
        {"score": "log_loss", "method": "t", "n": 1000, "prevalence": 0.03, "auc": 0.95},
        "fails",
    ),
    (
        mc.score_coverage,
        {"score": "log_loss", "method": "gamma", "n": 1000, "prevalence": 0.03, "auc": 0.95},
        "holds",
    ),
    (
        mc.score_coverage,
        {"score": "brier", "method": "gamma", "n": 200, "prevalence": 0.05, "auc": 0.95},
        "holds",
    ),
    (
        mc.score_difference_coverage,
        {"score": "log_loss", "n": 1000, "prevalence": 0.02, "auc": 0.95},
        "fails",
    ),
    (
        mc.score_difference_coverage,
        {"score": "log_loss", "n": 5000, "prevalence": 0.05, "auc": 0.95},
        "holds",
    ),
    (
        mc.score_difference_coverage,
        {"score": "brier", "n": 300, "prevalence": 0.1, "auc": 0.95},
        "holds",
    ),
    (mc.macro_f1_coverage, {"method": "logit", "n": 1000, "classes": 5, "accuracy": 0.9}, "holds"),
    (
        mc.simultaneous_coverage,
        {"method": "goodman", "probabilities": [0.5, 0.3, 0.15, 0.05], "n": 400},
        "holds",
    ),
    (
        mc.accuracy_difference_coverage,
        {"n": 100, "accuracy_a": 0.9, "accuracy_b": 0.85, "agreement": 0.3},
        "holds",
    ),
]


@pytest.mark.parametrize("func, kwargs, expected", GRID, ids=lambda v: getattr(v, "__name__", None))
def test_coverage_grid(func, kwargs, expected):
    c = func(**kwargs, reps=3000, seed=11)
    if expected == "holds":
        assert c.holds, c
        assert c.coverage >= 0.95 - 3 * c.mcse
    else:
        assert c.coverage < 0.95 - 3 * c.mcse, c


def test_bootstrap_coverage_of_a_paired_f1_difference():
    c, minority, _ = mc.bootstrap_coverage(
        "f1", 500, 0.3, 0.85, 0.9, reps=300, seed=12, paired_with=(0.8, 0.9, 0.5)
    )
    assert c.coverage >= 0.95 - 3 * c.mcse
    assert minority.min() >= 10


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda: mc.count_coverage("mcc", "wald", 10, 0.5, 0.9, 0.9), "metric"),
        (lambda: mc.count_coverage("f1", "exact", 0, 0.5, 0.9, 0.9), "n"),
        (lambda: mc.auc_coverage("exact", 10, 0.5, 0.9), "method"),
        (lambda: mc.scored_test_sets("gamma", 10, 0.5, 0.9, 1), "model"),
        (lambda: mc.auc_difference_coverage(10, 0.5, 0.9, 0.8, 0.5, method="x"), "method"),
        (lambda: mc.auc_difference_coverage(10, 0.5, 0.9, 0.8, 0.5, model="x"), "model"),
        (lambda: mc.score_difference_coverage("auc", 10, 0.5, 0.9), "score"),
        (lambda: mc.score_truth("auc", 0.5, 0.9), "score"),
        (lambda: mc.simultaneous_coverage("wilson", [0.5, 0.5], 10), "method"),
        (lambda: mc.count_coverage("f1", "exact", 10, 1.5, 0.9, 0.9), "prevalence"),
    ],
)
def test_bad_input(call, word):
    with pytest.raises(ValueError, match=word):
        call()


def test_several_auc_methods_share_the_test_sets():
    both = mc.auc_coverage(("logit", "wald"), 300, 0.3, 0.8, reps=500, seed=13)
    assert both["logit"] == mc.auc_coverage("logit", 300, 0.3, 0.8, reps=500, seed=13)
    assert both["wald"] == mc.auc_coverage("wald", 300, 0.3, 0.8, reps=500, seed=13)


def test_batch_delong_counts_ties_as_halves_like_the_package():
    """issue 37: the 2-D DeLong of the lessons' simulations (ties as halves, one sort a row)."""
    rng = np.random.default_rng(37)
    y = rng.random((40, 50)) < 0.3
    s = np.round(rng.normal(size=(40, 50)) + y)  # a coarse grid: many cross-class ties
    s2 = np.round(2 * rng.normal(size=(40, 50)) + y, 1).astype(
        np.int64
    )  # whole numbers: radix sort
    _batch_delong_is_the_package(y, s, s2)


def test_untuned_settings_have_the_stated_truth():
    """The truths of untuned_test_sets against the mean Mann-Whitney AUC of 1,000 test sets (scipy)."""
    from scipy import stats

    for setting in mc.UNTUNED_SETTINGS:
        y, s, truth = mc.untuned_test_sets(setting, 1000, seed=5)
        n1 = int(y[0].sum())
        assert np.all(y[:, :n1]) and not np.any(y[:, n1:])  # positives first, in every row
        u = stats.mannwhitneyu(s[:, :n1], s[:, n1:], axis=1).statistic  # ties count a half
        pooled = float(np.mean(u / (n1 * (s.shape[1] - n1))))
        # the mean AUC of 1,000 test sets: its s.e. is at most 0.0008 here (0.0016 over 200
        # sets with ties, measured), so 0.003 is about four of them
        assert pooled == pytest.approx(truth, abs=0.003), (setting, pooled, truth)
