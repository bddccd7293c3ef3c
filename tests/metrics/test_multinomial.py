"""heldout.metrics.multinomial against statsmodels and simulation."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.proportion import multinomial_proportions_confint

from heldout.book import metric_coverage as mc
from heldout.metrics import multinomial as M

ROWS = [
    [91, 5, 3, 1],
    [56, 72, 73, 59, 62, 87, 68, 99, 98],
    [10, 0, 0, 1, 2],
    [3, 1],
    [400, 30, 20, 10, 5, 0, 0, 0, 1, 2],
    [1, 0, 0],
]


@pytest.mark.parametrize("counts", ROWS)
@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_match_statsmodels(counts, alpha):
    for method, ours in (("goodman", M.goodman), ("sison-glaz", M.sison_glaz)):
        ref = multinomial_proportions_confint(counts, alpha=alpha, method=method)
        low, high = ours(counts, alpha)
        np.testing.assert_allclose(low, ref[:, 0], atol=1e-9)
        np.testing.assert_allclose(high, ref[:, 1], atol=1e-9)


def test_bonferroni_exact_is_clopper_pearson_at_alpha_over_k():
    from statsmodels.stats.proportion import proportion_confint

    low, high = M.bonferroni_exact([91, 5, 3, 1], alpha=0.1)
    lo, hi = proportion_confint(np.array([91, 5, 3, 1]), 100, alpha=0.1 / 4, method="beta")
    np.testing.assert_allclose(low, lo, atol=1e-10)
    np.testing.assert_allclose(high, hi, atol=1e-10)


@pytest.mark.parametrize("n", [20, 50, 200])
@pytest.mark.parametrize("probs", [[0.9, 0.04, 0.03, 0.02, 0.01], [0.1] * 10])
def test_bonferroni_exact_holds_where_goodman_and_sison_glaz_may_not(n, probs):
    c = mc.simultaneous_coverage("bonferroni-exact", probs, n, reps=3000, seed=3)
    assert c.coverage >= 0.95 - 3 * c.mcse


def test_simultaneous_interval_objects():
    es = M.simultaneous_interval([91, 5, 3, 1], method="sison-glaz")
    assert [e.method for e in es] == ["sison-glaz"] * 4
    assert es[0].value == pytest.approx(0.91) and es[0].n == 100


def test_goodman_covers_simultaneously_and_per_cell_intervals_do_not():
    p = np.full(10, 0.1)
    g = mc.simultaneous_coverage("goodman", p, 1000, reps=3000, seed=1)
    assert g.coverage >= 0.95 - 3 * g.mcse
    cp = mc.simultaneous_coverage("clopper-pearson", p, 1000, reps=3000, seed=1)
    assert cp.coverage < 0.8  # ten 95 % intervals cover together far less often


def test_sison_glaz_undercovers_with_one_large_cell():
    c = mc.simultaneous_coverage(
        "sison-glaz", [0.9, 0.04, 0.03, 0.02, 0.01], 100, reps=1500, seed=2
    )
    assert c.coverage < 0.95 - 3 * c.mcse


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda: M.goodman([5]), "at least 2"),
        (lambda: M.goodman([0, 0]), "at least one"),
        (lambda: M.goodman([1, -1]), "at least 0"),
        (lambda: M.sison_glaz([1.5, 2]), "whole"),
        (lambda: M.goodman([1, 2], alpha=0), "alpha"),
        (lambda: M.simultaneous_interval([1, 2], method="wilson"), "method"),
        (lambda: M.bonferroni_exact([[1, 2]]), "1-d"),
    ],
)
def test_bad_input(call, word):
    with pytest.raises(ValueError, match=word):
        call()
