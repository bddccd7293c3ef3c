"""heldout.judged.benchmark: the two-level score, majority of k, paired difference, planning, coverage.

Values are checked against independent computations (statsmodels' cluster-robust OLS,
variance_components' ANOVA, scipy's Clopper-Pearson, brute-force enumeration of votes,
a Monte Carlo power estimate) and the intervals' coverage by seeded simulation judged
with the book's rule (heldout.book.chapter.coverage_verdict).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import special, stats

from heldout.book.chapter import coverage_verdict
from heldout.dependent.repeated import variance_components
from heldout.judged import benchmark as bm


def _bench(q=60, k=4, seed=0, cluster=None):
    gen = np.random.default_rng(seed)
    p = gen.beta(2, 1, size=q)
    y = (gen.random((q, k)) < p[:, None]).astype(float)
    return y


def test_the_two_level_se_is_statsmodels_cluster_robust_on_answers_and_the_anova_components():
    y = _bench()
    q, k = y.shape
    r = bm.benchmark_score(y)
    ids = np.repeat(np.arange(q), k)
    fit = sm.OLS(y.reshape(-1), np.ones(q * k)).fit(
        cov_type="cluster", cov_kwds={"groups": ids}, use_t=True
    )
    assert r.estimate == pytest.approx(fit.params[0], abs=1e-12)
    assert r.se == pytest.approx(fit.bse[0], rel=1e-10)  # balanced: CR1 on answers = CR1 on means
    c = variance_components(y)
    assert (r.between, r.within) == pytest.approx((c.between, c.within), rel=1e-10)
    assert r.se == pytest.approx(c.se, rel=1e-10)
    assert r.se_naive == pytest.approx(c.se_naive, rel=1e-10)
    assert r.se > r.se_naive  # questions differ: answers to one question are alike


def test_long_form_with_clusters_equals_statsmodels_on_question_means():
    gen = np.random.default_rng(3)
    q, m = 40, 4
    y = _bench(q=q, k=3, seed=3)
    passage = np.repeat(np.arange(q // m), m)
    order = gen.permutation(q * 3)  # answers in any order, questions named by strings
    qs = np.repeat([f"q{i}" for i in range(q)], 3)[order]
    cl = np.repeat(passage, 3)[order]
    r = bm.benchmark_score(y.reshape(-1)[order], qs, clusters=cl)
    fit = sm.OLS(y.mean(axis=1), np.ones(q)).fit(cov_type="cluster", cov_kwds={"groups": passage})
    assert r.se == pytest.approx(fit.bse[0], rel=1e-10)
    assert (r.units, r.unit, r.questions) == (q // m, "cluster", q)


def test_unequal_samples_weight_questions_equally():
    y = [1, 1, 1, 1, 0, 0, 1]
    q = ["a", "a", "a", "a", "b", "c", "c"]
    r = bm.benchmark_score(y, q)
    assert r.estimate == pytest.approx((1 + 0 + 0.5) / 3)


def test_exact_interval_is_clopper_pearson_on_the_effective_count():
    y = _bench(q=50, k=2, seed=5)
    r = bm.benchmark_score(y, method="exact")
    g = 50
    t, z = stats.t.isf(0.025, g - 1), stats.norm.isf(0.025)
    n_eff = min(r.estimate * (1 - r.estimate) / r.se**2, y.size) * (z / t) ** 2
    x = r.estimate * n_eff
    assert r.low == pytest.approx(stats.beta.ppf(0.025, x, n_eff - x + 1), rel=1e-9)
    assert r.high == pytest.approx(stats.beta.ppf(0.975, x + 1, n_eff - x), rel=1e-9)


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_at_zero_and_one_hundred_percent_the_interval_keeps_its_width(value):
    y = np.full((40, 5), value)
    # what lm-evaluation-harness reports: the sample standard deviation over sqrt(n), exactly 0
    assert np.std(y.reshape(-1), ddof=1) / math.sqrt(y.size) == 0.0
    for method in ("exact", "wilson"):
        r = bm.benchmark_score(y, method=method)
        assert r.se == 0 and r.effective_n == 40  # the questions, not the 200 answers
        width = r.high - r.low
        assert width > 0.05
    # exact: the Clopper-Pearson bound for 0 of 40 x (z/t)^2 effective answers
    r = bm.benchmark_score(y, method="exact")
    m = 40 * (stats.norm.isf(0.025) / stats.t.isf(0.025, 39)) ** 2
    bound = 1 - 0.025 ** (1 / m)
    assert (r.high if value == 0 else 1 - r.low) == pytest.approx(bound, rel=1e-9)


def test_majority_of_k_is_the_mean_over_all_k_subsets():
    gen = np.random.default_rng(1)
    y = (gen.random((12, 5)) < 0.6).astype(int)
    for k in (1, 2, 3, 4, 5):
        brute = []
        for row in y:
            votes = [sum(s) for s in itertools.combinations(row, k)]
            brute.append(np.mean([1.0 if 2 * v > k else 0.5 if 2 * v == k else 0.0 for v in votes]))
        assert bm.majority_of_k(y, k=k).estimate == pytest.approx(np.mean(brute), abs=1e-12)


def test_paired_difference_pairs_by_question_and_drops_unshared():
    a = _bench(q=30, k=3, seed=7)
    b = _bench(q=30, k=2, seed=8)
    qa = np.repeat(np.arange(30), 3)
    qb = np.repeat(np.arange(2, 32), 2)  # b answered questions 2..31
    r = bm.benchmark_difference(a.reshape(-1), qa, b.reshape(-1), qb)
    d = a[2:].mean(axis=1) - b[:28].mean(axis=1)
    assert r.estimate == pytest.approx(d.mean())
    assert r.se == pytest.approx(d.std(ddof=1) / math.sqrt(28), rel=1e-10)
    assert (r.questions, r.dropped_a, r.dropped_b) == (28, 2, 2)
    t = stats.ttest_1samp(d, 0)
    assert r.p_value == pytest.approx(t.pvalue, rel=1e-8)


def test_planning_formulas_agree_with_each_other_and_with_a_simulated_power():
    plan = bm.questions_for_difference(0.08, 0.3, samples=3, within=0.2)
    mde = bm.minimum_detectable_difference(plan.questions, 0.3, samples=3, within=0.2)
    assert mde.difference <= 0.08 + 1e-12
    assert (
        bm.minimum_detectable_difference(plan.questions - 1, 0.3, samples=3, within=0.2).difference
        > 0.08
    )
    # simulate: p_a = 0.5 + delta/2 +- s (two points), p_b = 1 - p_a, answers independent
    gen = np.random.default_rng(11)
    delta, k, reps = 0.08, 3, 2000
    s = 0.5 * math.sqrt(0.3 - delta**2 - 0.2)
    points = np.array([0.5 + delta / 2 - s, 0.5 + delta / 2 + s])
    w = np.mean(2 * points * (1 - points))  # E[p_a(1-p_a)] + E[p_b(1-p_b)]
    r_true = np.mean(points**2 + (1 - points) ** 2)  # P(one answer of each disagrees)
    q = bm.questions_for_difference(delta, r_true, samples=k, within=w).questions
    pa = gen.choice(points, size=(reps, q))
    d = gen.binomial(k, pa) / k - gen.binomial(k, 1 - pa) / k
    tstat = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(q))
    power = np.mean(np.abs(tstat) > stats.norm.isf(0.025))
    assert abs(power - 0.8) < 4 * math.sqrt(0.16 / reps) + 0.01, power


def test_bad_inputs_are_refused_by_name():
    with pytest.raises(ValueError, match="questions"):
        bm.benchmark_score([1, 0, 1])
    with pytest.raises(ValueError, match="at least 2 distinct questions"):
        bm.benchmark_score([1, 0], ["a", "a"])
    with pytest.raises(ValueError, match="same cluster"):
        bm.benchmark_score([1, 0, 1, 1], ["a", "a", "b", "b"], clusters=[1, 2, 3, 3])
    with pytest.raises(ValueError, match="method"):
        bm.benchmark_score([[1, 0], [1, 1]], method="normal")
    with pytest.raises(ValueError, match="impossible"):
        bm.questions_for_difference(0.5, 0.2)
    with pytest.raises(ValueError, match="reps"):
        bm.simulate_benchmark(0.5, 1.0, 1000, 5, reps=10**7)


GRID = [
    # mean, spread (logit), questions, samples, cluster size, cluster spread
    (0.7, 1.5, 100, 5, 1, 0.0),
    (0.9, 2.0, 100, 10, 1, 0.0),
    (0.03, 1.0, 200, 3, 1, 0.0),
    (0.97, 1.0, 200, 3, 1, 0.0),
    (0.7, 0.5, 200, 4, 5, 1.0),
    (0.1, 0.5, 200, 4, 10, 1.0),
]


@pytest.mark.parametrize("setting", GRID)
def test_coverage_the_recommended_interval_holds_and_the_answer_level_ones_fail(setting):
    mean, spread, q, k, m, sc = setting
    reps = 2000
    c = bm.simulate_benchmark(
        mean, spread, q, k, cluster_size=m, cluster_spread=sc, reps=reps, n_resamples=100, seed=21
    )
    verdict = dict(zip(c.methods, coverage_verdict(c.coverage, reps), strict=True))
    assert verdict["two-level Clopper-Pearson"] in ("holds", "conservative"), c.coverage
    assert verdict["pooled answers"] == "undercovers", c.coverage
    assert verdict["answer bootstrap"] == "undercovers", c.coverage


def test_se_equals_inspect_ai_stderr_with_cluster_on_epoch_means():
    """inspect_ai's own metric on the per-question means (its reduction of epochs), unequal clusters."""
    scorer = pytest.importorskip("inspect_ai.scorer")
    gen = np.random.default_rng(4)
    q = 45
    y = (gen.random((q, 3)) < gen.beta(2, 2, size=q)[:, None]).astype(float)
    passage = gen.integers(0, 9, size=q)
    scores = [
        scorer.SampleScore(
            score=scorer.Score(value=float(v)), sample_id=i, sample_metadata={"passage": int(g)}
        )
        for i, (v, g) in enumerate(zip(y.mean(axis=1), passage, strict=True))
    ]
    theirs = scorer.stderr(cluster="passage")(scores)
    ours = bm.benchmark_score(y, clusters=passage)
    assert ours.se == pytest.approx(theirs, rel=1e-12)
    assert ours.units == np.unique(passage).size


def test_paired_difference_refuses_clusters_that_disagree():
    y = [1, 0, 1, 1, 0, 0, 1, 1]
    q = [1, 1, 2, 2, 3, 3, 4, 4]
    r = bm.benchmark_difference(
        y, q, y[::-1], q, clusters_a=[1, 1, 1, 1, 2, 2, 2, 2], clusters_b=[5, 5, 5, 5, 6, 6, 6, 6]
    )
    assert r.units == 2 and r.estimate == pytest.approx(0.0)
    with pytest.raises(ValueError, match="alike"):
        bm.benchmark_difference(
            y, q, y, q, clusters_a=[1, 1, 1, 1, 2, 2, 2, 2], clusters_b=[1, 1, 2, 2, 2, 2, 2, 2]
        )


def test_paired_difference_interval_covers_with_shared_difficulty():
    """Two models share each question's difficulty; the truth is the population difference."""
    gen = np.random.default_rng(9)
    reps, q, k, shift = 1000, 120, 3, 0.4
    z = gen.standard_normal((reps, q)) * 1.5
    nodes, weights = np.polynomial.hermite.hermgauss(80)

    def mean_expit(offset):
        return np.sum(weights * special.expit(offset + 1.5 * np.sqrt(2) * nodes)) / np.sqrt(np.pi)

    truth = mean_expit(0.5 + shift) - mean_expit(0.5)
    ids = np.repeat(np.arange(q), k)
    covered = 0
    for r in range(reps):
        pa = special.expit(0.5 + shift + z[r])
        pb = special.expit(0.5 + z[r])
        ya = (gen.random((q, k)) < pa[:, None]).reshape(-1)
        yb = (gen.random((q, k)) < pb[:, None]).reshape(-1)
        d = bm.benchmark_difference(ya, ids, yb, ids)
        covered += d.low <= truth <= d.high
    assert coverage_verdict(covered / reps, reps) == "holds", covered / reps


def test_majority_of_k_interval_covers_the_population_value():
    """Beta(2, 1.5) pass rates, 6 answers, votes of 3: truth from the beta-binomial law."""
    a, b, n, k = 2.0, 1.5, 6, 3
    truth = stats.betabinom.sf(1, k, a, b)  # P(at least 2 of 3 right)
    gen = np.random.default_rng(13)
    reps, q = 1000, 150
    covered = 0
    for _ in range(reps):
        y = (gen.random((q, n)) < gen.beta(a, b, size=q)[:, None]).astype(int)
        r = bm.majority_of_k(y, k=k)
        covered += r.low <= truth <= r.high
    assert coverage_verdict(covered / reps, reps) in ("holds", "conservative"), covered / reps
