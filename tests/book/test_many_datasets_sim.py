"""The simulations behind the lesson "Many data sets"."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from heldout.book.chapter import level_verdict
from heldout.book.many_datasets import _tables, rank_dependence_example, simulate_many_datasets
from heldout.config import rng
from heldout.resampling.many_datasets import friedman, nemenyi, pairwise


def test_vectorised_rates_equal_the_public_functions_table_by_table():
    reps, n, k = 40, 8, 4
    res = simulate_many_datasets(n, k, reps, sizes=(20, 200), effect=0.03, seed=5)
    tables = _tables(reps, n, k, 20.0, 200.0, 0.03, None, rng(5))
    fr = [friedman(t) for t in tables]
    ne = [nemenyi(t) for t in tables]
    pw = [pairwise(t) for t in tables]
    sg = [pairwise(t, method="sign") for t in tables]
    assert res.any_rejection["friedman"] == pytest.approx(np.mean([f.p_value <= 0.05 for f in fr]))
    assert res.any_rejection["iman_davenport"] == pytest.approx(
        np.mean([f.f_p_value <= 0.05 for f in fr])
    )
    assert res.any_rejection["nemenyi"] == pytest.approx(
        np.mean([np.any(c.p_values <= 0.05) for c in ne])
    )
    assert res.any_rejection["wilcoxon_holm"] == pytest.approx(
        np.mean([p.reject.any() for p in pw])
    )
    assert res.any_rejection["sign_holm"] == pytest.approx(np.mean([p.reject.any() for p in sg]))
    assert res.first_pair["wilcoxon_holm"] == pytest.approx(np.mean([p.reject[0] for p in pw]))
    assert res.first_pair["nemenyi"] == pytest.approx(
        np.mean([c.p_values[0, 1] <= 0.05 for c in ne])
    )


def test_levels_with_the_books_rule():
    # 1,500 tables of 10 data sets of very different sizes (20 to 20,000 items), 5 learners
    res = simulate_many_datasets(10, 5, 1500, sizes=(20, 20_000), seed=11)
    rates = res.any_rejection
    assert level_verdict(rates["iman_davenport"], 1500) == "holds its level"
    for test in ("friedman", "nemenyi", "wilcoxon_holm", "sign_holm"):
        assert level_verdict(rates[test], 1500) != "exceeds its level", test
    # five data sets: no Wilcoxon p-value is below 1/16, so Holm never rejects
    assert simulate_many_datasets(5, 3, 200, seed=1).any_rejection["wilcoxon_holm"] == 0.0


def test_the_third_learner_changes_nemenyis_verdict_only():
    ex = rank_dependence_example(seed=3)
    a, b = ex.scores_c[:, 0], ex.scores_c[:, 1]
    assert np.array_equal(ex.scores_d[:, :2], ex.scores_c[:, :2])
    wins = int(np.sum(a > b))
    # each data set puts A and B two ranks apart with C, one rank apart with D
    assert ex.gap_c == pytest.approx(2 * abs(2 * wins - 20) / 20)
    assert ex.gap_d == pytest.approx(abs(2 * wins - 20) / 20)
    q = stats.studentized_range.isf(0.05, 3, np.inf) / np.sqrt(2)
    assert ex.cd == pytest.approx(q * np.sqrt(3 * 4 / (6 * 20)))
    assert ex.gap_c >= ex.cd > ex.gap_d
    assert ex.nemenyi_p_c <= 0.05 < ex.nemenyi_p_d
    assert ex.wilcoxon_p == pytest.approx(stats.wilcoxon(a - b).pvalue)
