"""heldout.comparison.omnibus (Cochran's Q) against statsmodels, mlxtend and simulation."""

from __future__ import annotations

import numpy as np
import pytest
from mlxtend.evaluate import cochrans_q as mlxtend_q
from scipy import stats
from statsmodels.stats.contingency_tables import cochrans_q as statsmodels_q

from heldout.comparison import best as B
from heldout.comparison.omnibus import cochran_q


@pytest.mark.parametrize("k,n,seed", [(2, 50, 0), (3, 200, 1), (5, 1000, 2), (8, 300, 3)])
def test_cochran_q_matches_statsmodels_and_mlxtend(k, n, seed):
    accs = np.linspace(0.9, 0.8, k)
    correct = B.simulate_correct(accs, n, shared=0.6, seed=seed)
    res = cochran_q(correct)
    ref = statsmodels_q(correct.astype(int))
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.df == ref.df == k - 1
    # mlxtend takes the true labels and each model's predictions
    y = np.zeros(n, int)
    q, p = mlxtend_q(y, *[np.where(correct[:, j], 0, 1) for j in range(k)])
    assert (res.statistic, res.p_value) == pytest.approx((q, p), rel=1e-10)
    informative = np.sum((correct.sum(1) > 0) & (correct.sum(1) < k))
    assert res.informative == informative


def test_two_models_is_mcnemar_without_correction():
    correct = B.simulate_correct([0.9, 0.85], 400, shared=0.5, seed=4)
    b = np.sum(correct[:, 0] & ~correct[:, 1])
    c = np.sum(~correct[:, 0] & correct[:, 1])
    res = cochran_q(correct)
    assert res.statistic == pytest.approx((b - c) ** 2 / (b + c))
    assert res.p_value == pytest.approx(stats.chi2.sf((b - c) ** 2 / (b + c), 1))


def test_no_informative_item_gives_no_evidence():
    res = cochran_q(np.ones((10, 3), bool))
    assert (res.statistic, res.p_value, res.informative) == (0.0, 1.0, 0)


def test_level_by_simulation_in_the_books_use():
    # five equally accurate, correlated models on 500 shared items (the many_models
    # generator): the rejection rate at 5 % lies within 3 Monte Carlo SEs of alpha
    # (R = 2,000: SE 0.0049), i.e. the chi-square approximation holds its level here
    reps = 2000
    pp = B.shared_patterns([0.9] * 5, 0.8)
    rng = np.random.default_rng(7)
    counts = rng.multinomial(500, pp.probs, size=reps)
    rejected = [cochran_q(np.repeat(pp.patterns, row, axis=0)).p_value <= 0.05 for row in counts]
    rate = np.mean(rejected)
    se = np.sqrt(0.05 * 0.95 / reps)
    assert abs(rate - 0.05) <= 3 * se


def test_bad_input_names_argument():
    with pytest.raises(ValueError, match="correct"):
        cochran_q([[1, 2], [0, 1]])
    with pytest.raises(ValueError, match="at least 2 models"):
        cochran_q([[1], [0]])
