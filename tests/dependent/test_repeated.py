"""heldout.dependent.repeated: ANOVA components against statsmodels, sizes against brute force."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import optimize, stats

from heldout.dependent import repeated as rp
from heldout.dependent.clustered import clustered_mean


def _answers(q=60, k=5, seed=0, a=2.0, b=1.0):
    gen = np.random.default_rng(seed)
    p = gen.beta(a, b, size=q)
    return (gen.random((q, k)) < p[:, None]).astype(float), p


def test_components_match_statsmodels_anova_and_clustered_se():
    y, _ = _answers()
    q, k = y.shape
    frame = pd.DataFrame({"y": y.ravel(), "q": np.repeat(np.arange(q), k)})
    table = sm.stats.anova_lm(smf.ols("y ~ C(q)", frame).fit())
    msb, msw = table["mean_sq"].iloc[0], table["mean_sq"].iloc[1]
    c = rp.variance_components(y)
    assert c.within == pytest.approx(msw, rel=1e-10)
    assert c.between == pytest.approx(max(0.0, (msb - msw) / k), rel=1e-10)
    assert c.se == pytest.approx(
        clustered_mean(y.ravel(), frame["q"], method="t").se_cluster, rel=1e-10
    )
    assert c.se_naive == pytest.approx(y.std(ddof=1) / math.sqrt(y.size), rel=1e-10)
    assert c.icc == pytest.approx(c.between / (c.between + c.within))


def test_components_unbiased_by_simulation():
    # p_q ~ Beta(2, 1): Var(p) = 2/36, E[p(1-p)] = (2/3)(1/3) - 2/36 = 1/6
    gen = np.random.default_rng(1)
    reps, q, k = 2000, 30, 4
    p = gen.beta(2, 1, size=(reps, q))
    y = (gen.random((reps, q, k)) < p[..., None]).astype(float)
    est = np.array([[c.between, c.within] for c in map(rp.variance_components, y)])
    mean, se = est.mean(axis=0), est.std(axis=0, ddof=1) / math.sqrt(reps)
    # truncation at 0 biases the between estimate up a little; stay within 4 MC se + 1 %
    assert abs(mean[0] - 2 / 36) <= 4 * se[0] + 0.01 * 2 / 36
    assert abs(mean[1] - 1 / 6) <= 4 * se[1]


def test_components_from_probabilities_add_up():
    p = np.random.default_rng(2).beta(3, 1, size=500)
    b, w = rp.components_from_probabilities(p)
    assert b + w == pytest.approx(p.mean() * (1 - p.mean()))


def test_se_of_mean_by_simulation():
    gen = np.random.default_rng(3)
    q, k = 40, 6
    means = []
    for _ in range(4000):
        p = gen.beta(2, 1, size=q)
        means.append((gen.random((q, k)) < p[:, None]).mean())
    ref = rp.se_of_mean(2 / 36, 1 / 6, q, k)
    assert np.std(means, ddof=1) == pytest.approx(ref, rel=0.05)


def test_questions_needed_closed_form_and_samples_needed_brute_force():
    b, w, h = 0.04, 0.05, 0.02
    z = stats.norm.isf(0.025)
    for k in (1, 2, 5, 50):
        s = rp.questions_needed(h, b, w, k, method="normal")
        assert s.clusters == math.ceil(z**2 * (b + w / k) / h**2)
    q = 600
    t = stats.t.isf(0.025, q - 1)
    k = rp.samples_needed(h, b, w, q)
    assert t * math.sqrt((b + w / k) / q) <= h < t * math.sqrt((b + w / (k - 1)) / q)
    with pytest.raises(ValueError, match="add questions"):
        rp.samples_needed(h, b, w, 300)


def test_best_samples_per_question_minimises_cost():
    b, w, cq, cs = 0.02, 0.15, 20, 1
    res = optimize.minimize_scalar(
        lambda k: (b + w / k) * (cq + k * cs),
        bounds=(0.01, 1e4),
        method="bounded",
        options={"xatol": 1e-9},
    )
    assert rp.best_samples_per_question(b, w, cq, cs) == pytest.approx(res.x, rel=1e-5)


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda: rp.variance_components([1, 0, 1]), "scores"),
        (lambda: rp.variance_components([[1, 0, 1]]), "scores"),
        (lambda: rp.variance_components([[1, np.nan], [0, 1]]), "scores"),
        (lambda: rp.components_from_probabilities([0.5, 1.2]), "p"),
        (lambda: rp.se_of_mean(-0.1, 0.1, 10, 2), "between"),
        (lambda: rp.questions_needed(0.02, 0.0, 0.0, 2), "between"),
        (lambda: rp.samples_needed(0.02, 0.04, 0.05, 1), "questions"),
        (lambda: rp.best_samples_per_question(0.0, 0.1, 1, 1), "between"),
    ],
)
def test_bad_input(call, word):
    with pytest.raises(ValueError, match=word):
        call()
