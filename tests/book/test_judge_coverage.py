"""heldout.book.judge_coverage: the counts-based intervals equal the public functions'; a
small seeded grid where judge-only and naive pooling fail and the recommended rule holds."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from heldout.book import judge_coverage as jc
from heldout.book.chapter import coverage_verdict
from heldout.book.mnist.digit_pool import Pool
from heldout.judged import classical_mean, ppi_mean, rogan_gladen


def _arrays(c11, c10, c01, c00, k, big_n):
    y = np.r_[np.ones(c11 + c10), np.zeros(c01 + c00)]
    f = np.r_[np.ones(c11), np.zeros(c10), np.ones(c01), np.zeros(c00)]
    rest = np.r_[np.ones(k), np.zeros(big_n - k)]
    return y, f, rest


@pytest.mark.parametrize("cells", [(120, 15, 40, 25, 1400, 2000), (30, 4, 9, 7, 300, 500)])
def test_counts_give_the_public_functions_intervals(cells):
    *c, k, big_n = cells
    out = jc._intervals(*(np.array([v], float) for v in c), np.array([k], float), big_n, 0.1)
    y, f, rest = _arrays(*c, k, big_n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = ppi_mean(y, f, rest, alpha=0.1)
        plain = ppi_mean(y, f, rest, alpha=0.1, weight=1.0)
        rg = rogan_gladen(y, f, rest, alpha=0.1)
    exact = classical_mean(y, alpha=0.1)
    for name, ref in (("ppi++", tuned), ("ppi", plain), ("classical", exact), ("rogan-gladen", rg)):
        low, high = out[name]
        assert (low[0], high[0]) == pytest.approx((ref.low, ref.high), abs=1e-12), name
    few = c[1] + c[2] < 30 or min(c[0] + c[1], c[2] + c[3]) < 50
    low, high = out["recommended"]
    assert (low[0], high[0]) == pytest.approx(
        (exact.low, exact.high) if few else (tuned.low, tuned.high), abs=1e-12
    )


def test_small_grid_baselines_fail_and_the_recommended_rule_holds():
    # 2 judges x 2 rates x 2 gold sizes, 1,500 repetitions each (about 1 s)
    judges = {"lenient": (0.97, 0.6), "harsh": (0.8, 0.95)}
    rows = jc.coverage_grid([0.1, 0.9], judges, [40, 400], 5000, reps=1500, seed=38)
    for row in rows:
        cov = row["coverage"]
        assert coverage_verdict(cov["recommended"], row["reps"]) != "undercovers", row
        assert coverage_verdict(cov["classical"], row["reps"]) != "undercovers", row
        # a biased judge: its interval narrows around the wrong value
        assert cov["judge-only"] < 0.2 and cov["naive pooled"] < 0.2, row
    small = [r for r in rows if r["gold"] == 40]
    # PPI++'s normal interval where right or wrong answers are rare among 40 gold items
    assert all(coverage_verdict(r["coverage"]["ppi++"], r["reps"]) == "undercovers" for r in small)
    big = [r for r in rows if r["gold"] == 400]
    assert all(r["width"]["recommended"] < r["width"]["classical"] for r in big)


def test_ppi_holds_at_a_moderate_rate_and_the_simulation_agrees_with_its_monte_carlo_error():
    r = jc.judge_coverage(0.5, 0.9, 0.8, 500, 5000, reps=3000, seed=2)
    for m in ("ppi++", "ppi", "rogan-gladen"):
        assert coverage_verdict(r.coverage[m], r.reps) == "holds", (m, r.coverage[m])


def test_pool_coverage_on_a_synthetic_pool_and_the_pool_grades():
    gen = np.random.default_rng(4)
    labels = gen.integers(0, 10, 3000)
    onehot = np.eye(10, dtype=np.float32)
    model = np.where(gen.random(3000) < 0.9, labels, (labels + 1) % 10)
    judge = np.where(gen.random(3000) < 0.85, labels, (labels + 2) % 10)
    pool = Pool(labels, {"m": onehot[model], "j": onehot[judge]}, 0, "toy", {})
    truth, verdict = jc.pool_judge_grades(pool, "m", "j")
    assert np.array_equal(truth, (model == labels).astype(int))
    assert np.array_equal(verdict, (judge == model).astype(int))
    r = jc.pool_judge_coverage(truth, verdict, 600, 3000, reps=800, seed=5)
    assert r.truth == pytest.approx(truth.mean())
    assert coverage_verdict(r.coverage["recommended"], r.reps) != "undercovers"
    assert r.coverage["judge-only"] < 0.2
    with pytest.raises(ValueError, match="another model"):
        jc.pool_judge_grades(pool, "m", "m")


def test_work_is_refused_before_it_starts():
    with pytest.raises(ValueError, match="reps"):
        jc.judge_coverage(0.5, 0.9, 0.9, 100, 100, reps=10**8)
    with pytest.raises(ValueError, match="reps x"):
        jc.pool_judge_coverage([0, 1], [0, 1], 10**6, 10**6, reps=10**3)
