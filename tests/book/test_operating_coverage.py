"""heldout.book.operating_coverage: its truths against large samples and scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats
from sklearn.metrics import f1_score, roc_auc_score

from heldout.book import operating_coverage as oc


def _sample(n, pi, auc, seed):
    rng = np.random.default_rng(seed)
    mu = math.sqrt(2) * stats.norm.ppf(auc)
    y = rng.random(n) < pi
    return y, rng.standard_normal(n) + mu * y, mu


def test_true_partial_auc_matches_a_large_sample():
    y, s, mu = _sample(400_000, 0.5, 0.8, 1)
    assert oc._true_pauc(mu, 0.8, 1.0) == pytest.approx(roc_auc_score(y, s, max_fpr=0.2), abs=3e-3)
    assert oc._true_pauc(mu, 0.0, 1.0) == pytest.approx(0.8, abs=1e-9)


@pytest.mark.parametrize("metric", ["accuracy", "balanced_accuracy", "f1"])
def test_true_metric_of_a_threshold_matches_a_large_sample(metric):
    y, s, mu = _sample(400_000, 0.3, 0.85, 2)
    called = s >= 0.7
    got = {
        "accuracy": np.mean(called == y),
        "balanced_accuracy": (np.mean(called[y]) + np.mean(~called[~y])) / 2,
        "f1": f1_score(y, called),
    }[metric]
    assert oc._true_metric(metric, 0.7, 0.3, mu) == pytest.approx(got, abs=3e-3)


def test_population_calibration_error_is_zero_for_a_calibrated_model():
    mu = math.sqrt(2) * stats.norm.ppf(0.85)
    ce, icpt = oc._population_ce(0.3, mu, 1.0, 10)
    assert ce < 2e-3 and abs(icpt) < 1e-2
    ce, _ = oc._population_ce(0.3, mu, 1.5, 10)
    assert ce > 0.02


def test_true_logit_is_bayes_rule():
    """The log-odds used for calibration equal the binormal posterior log-odds."""
    mu, pi, s = 1.3, 0.3, np.linspace(-2, 3, 7)
    post = (
        pi * stats.norm.pdf(s - mu) / (pi * stats.norm.pdf(s - mu) + (1 - pi) * stats.norm.pdf(s))
    )
    assert np.allclose(special.expit(oc._true_logit(s, pi, mu)), post)


def test_spiegelhalter_rate_is_a_rejection_rate_and_fields_are_consistent():
    r = oc.operating_coverage("spiegelhalter", 300, 0.3, 0.8, 40, seed=1)
    assert r.reps == 40 and 0 <= r.coverage <= 0.3 and math.isnan(r.width)
    assert r.mc_se == pytest.approx(math.sqrt(0.05 * 0.95 / 40))


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"check": "nope"}, "check"),
        ({"n": 5}, "n"),
        ({"reps": 0}, "reps"),
        ({"gamma": -1.0}, "gamma"),
    ],
)
def test_bad_input_is_refused_by_name(kwargs, word):
    args = {"check": "slope", "n": 100, "prevalence": 0.3, "auc": 0.8, "reps": 2, **kwargs}
    with pytest.raises(ValueError, match=word):
        oc.operating_coverage(**args)


def test_the_extreme_specificity_checks():
    """n = 100, prevalence 0.5, specificity 0.99 (about 0.5 negatives expected above the
    threshold), 200 test sets: the bootstrap alone undercovers (0.71 in 2,000), the
    threshold's unbounded quantile interval and the default (order statistics) hold."""
    import numpy as np

    from heldout.book.operating_coverage import operating_coverage

    tol = 3 * np.sqrt(0.05 * 0.95 / 200)
    kw = dict(n=100, prevalence=0.5, auc=0.85, reps=200, seed=4, at=0.99, n_resamples=200)
    assert operating_coverage("sensitivity-bootstrap-only", **kw).coverage < 0.95 - tol
    assert operating_coverage("sensitivity-bootstrap", **kw).coverage >= 0.95 - tol
    assert operating_coverage("threshold", **kw).coverage >= 0.95 - tol
