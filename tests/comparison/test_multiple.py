"""heldout.comparison.multiple against statsmodels, per-pair computations and simulation."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from heldout.comparison import best as B
from heldout.comparison import multiple as M
from heldout.comparison import paired as P


def test_adjustments_match_statsmodels():
    rng = np.random.default_rng(4)
    for size in (1, 2, 5, 12, 40):
        p = rng.random(size) ** 3
        p[: size // 3] = p[0]  # ties
        assert M.holm(p) == pytest.approx(multipletests(p, method="holm")[1], abs=1e-12)
        assert M.bonferroni(p) == pytest.approx(multipletests(p, method="bonferroni")[1], abs=1e-12)
        assert M.benjamini_hochberg(p) == pytest.approx(
            multipletests(p, method="fdr_bh")[1], abs=1e-12
        )
        assert M.hommel(p) == pytest.approx(multipletests(p, method="hommel")[1], abs=1e-12)
        assert M.benjamini_yekutieli(p) == pytest.approx(
            multipletests(p, method="fdr_by")[1], abs=1e-12
        )
        assert M.adjust(p, "bh") == pytest.approx(M.benjamini_hochberg(p))
        assert M.adjust(p, "hommel") == pytest.approx(M.hommel(p))
        assert M.adjust(p, "by") == pytest.approx(M.benjamini_yekutieli(p))
        assert M.adjust(p, "none") == pytest.approx(p)


def test_all_pairs_against_pairwise_computation():
    correct = B.simulate_correct([0.95, 0.93, 0.9, 0.94], 2000, shared=0.7, seed=5)
    res = M.all_pairs(correct, method="holm")
    assert len(res.a) == 6
    for i, (a, b) in enumerate(zip(res.a, res.b, strict=True)):
        only_a = int(np.sum(correct[:, a] & ~correct[:, b]))
        only_b = int(np.sum(~correct[:, a] & correct[:, b]))
        assert (res.a_only[i], res.b_only[i]) == (only_a, only_b)
        ref = mcnemar([[0, only_a], [only_b, 0]], exact=True).pvalue
        assert res.p_value[i] == pytest.approx(ref, rel=1e-9)
        ci = P.diff_interval(only_a, only_b, 2000)
        assert res.diff[i] == pytest.approx(correct[:, a].mean() - correct[:, b].mean())
        assert (res.diff_low[i], res.diff_high[i]) == pytest.approx((ci.low, ci.high))
    assert res.p_adjusted == pytest.approx(multipletests(res.p_value, method="holm")[1])
    assert np.array_equal(res.reject, res.p_adjusted <= 0.05)
    bh = M.all_pairs(correct, method="bh")
    assert bh.p_adjusted == pytest.approx(multipletests(res.p_value, method="fdr_bh")[1])


def test_all_pairs_family_wise_error_by_simulation():
    # five equally accurate, correlated models: Holm over the ten fixed pairs keeps the
    # chance of any false "different" at most alpha (tolerance: 3 Monte Carlo SEs)
    reps, hits = 1000, 0
    pp = B.shared_patterns([0.93] * 5, 0.8)
    rng = np.random.default_rng(11)
    for counts in rng.multinomial(600, pp.probs, size=reps):
        correct = np.repeat(pp.patterns, counts, axis=0)
        hits += bool(np.any(M.all_pairs(correct).reject))
    rate = hits / reps
    assert rate <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)


def test_hommel_and_by_levels_by_simulation():
    # the book's use: every pair of five models on 600 shared items, two of them 3 points
    # better than three equal ones.  Hommel: chance of any false "different" among the
    # three equal pairs at most alpha; BY: false discovery rate at most alpha; both
    # checked against 0.05 + 3 Monte Carlo SEs (R = 600), and Hommel rejects at least
    # what Holm rejects in every repetition.
    reps = 600
    pp = B.shared_patterns([0.93, 0.93, 0.93, 0.96, 0.96], 0.8)
    rng = np.random.default_rng(12)
    null = np.zeros(10, bool)
    a, b = np.triu_indices(5, 1)
    null[(a < 3) & (b < 3)] = True
    null[(a >= 3) & (b >= 3)] = True
    fwer = fdr = 0.0
    for counts in rng.multinomial(600, pp.probs, size=reps):
        correct = np.repeat(pp.patterns, counts, axis=0)
        hom = M.all_pairs(correct, method="hommel")
        holm_ = M.all_pairs(correct, method="holm")
        assert np.all(hom.reject >= holm_.reject)
        fwer += bool(np.any(hom.reject & null))
        by = M.all_pairs(correct, method="by").reject
        fdr += np.sum(by & null) / max(np.sum(by), 1)
    tol = 3 * np.sqrt(0.05 * 0.95 / reps)
    assert fwer / reps <= 0.05 + tol
    assert fdr / reps <= 0.05 + tol


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: M.holm([]), "pvalues"),
        (lambda: M.holm([[0.1]]), "pvalues"),
        (lambda: M.benjamini_hochberg([0.1, -0.1]), "pvalues"),
        (lambda: M.adjust([0.1], method="sidak"), "method"),
        (lambda: M.all_pairs([[1], [0]]), "at least 2 models"),
        (lambda: M.all_pairs(np.zeros((0, 3))), "no items"),
        (lambda: M.all_pairs([[1, 2], [0, 1]]), "0/1"),
        (lambda: M.all_pairs([[1, 0], [0, 1]], alpha=0), "alpha"),
        (lambda: M.all_pairs([1, 0, 1]), "2-d"),
    ],
)
def test_bad_input_names_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
