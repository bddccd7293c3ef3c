"""heldout.judged.misclassification: the closed form, a numerical delta method, refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from heldout.judged.misclassification import rogan_gladen


def _data(seed=0, n=300, big_n=3000, p=0.6, sens=0.95, spec=0.6):
    gen = np.random.default_rng(seed)
    y = (gen.random(n + big_n) < p).astype(float)
    f = np.where(y == 1, gen.random(n + big_n) < sens, gen.random(n + big_n) < 1 - spec)
    return y[:n], f[:n].astype(float), f[n:].astype(float)


def test_estimate_is_the_closed_form_and_se_a_numerical_delta_method():
    y, fl, fu = _data()
    r = rogan_gladen(y, fl, fu, alpha=0.1)
    n1, n0 = int(y.sum()), int((1 - y).sum())
    se_ = np.sum((y == 1) & (fl == 1)) / n1
    sp = np.sum((y == 0) & (fl == 0)) / n0
    pi = fu.mean()

    def theta(v):
        return (v[0] + v[2] - 1) / (v[1] + v[2] - 1)

    v = np.array([pi, se_, sp])
    assert r.raw == pytest.approx(theta(v), abs=1e-14)
    # the gradient by central differences, the three estimates independent binomial shares
    eps = 1e-6
    grad = np.array([(theta(v + eps * e) - theta(v - eps * e)) / (2 * eps) for e in np.eye(3)])
    var = grad**2 @ np.array([pi * (1 - pi) / fu.size, se_ * (1 - se_) / n1, sp * (1 - sp) / n0])
    assert r.se == pytest.approx(math.sqrt(var), rel=1e-6)
    z = stats.norm.ppf(0.95)
    assert (r.low, r.high) == pytest.approx((r.raw - z * r.se, r.raw + z * r.se), rel=1e-12)
    assert (r.sensitivity, r.specificity, r.apparent) == pytest.approx((se_, sp, pi))


def test_it_removes_a_lenient_judges_bias_on_average():
    # 400 data sets: the judge's rate 0.6 * 0.95 + 0.4 * 0.4 = 0.73 is biased by +0.13
    est, apparent = [], []
    for seed in range(400):
        r = rogan_gladen(*_data(seed, n=200, big_n=2000))
        est.append(r.raw)
        apparent.append(r.apparent)
    mc = np.std(est) / 20
    assert abs(np.mean(est) - 0.6) < 4 * mc + 0.005  # RG is consistent, with an O(1/n) bias
    assert np.mean(apparent) == pytest.approx(0.73, abs=0.005)


def test_clipping_and_a_perfect_judge_warns():
    y = np.r_[np.ones(20), np.zeros(20)]
    with pytest.warns(UserWarning, match="omits"):
        r = rogan_gladen(y, y, np.ones(50))
    assert r.estimate == 1.0 and r.high == 1.0


@pytest.mark.parametrize(
    "args,match",
    [
        (([1, 1, 1], [1, 0, 1], [1, 0]), "no answer people called wrong"),
        (([0, 0, 0], [1, 0, 1], [1, 0]), "no answer people called right"),
        (([1, 0, 1, 0], [0, 1, 0, 1], [1, 0]), "barely better than a coin"),
        (([1, 0, 2], [1, 0, 1], [1, 0]), "0/1 grades"),
        (([1, 0], [1, 0, 1], [1, 0]), "judge_gold must grade"),
    ],
)
def test_refusals(args, match):
    with pytest.raises(ValueError, match=match):
        rogan_gladen(*args)


def test_counts_give_the_same_result_as_the_arrays():
    from heldout.judged.misclassification import rogan_gladen_from_counts

    y, fl, fu = _data(3)
    a = rogan_gladen(y, fl, fu)
    table = [[np.sum((y == 1) & (fl == 1)), np.sum((y == 1) & (fl == 0))],
             [np.sum((y == 0) & (fl == 1)), np.sum((y == 0) & (fl == 0))]]  # fmt: skip
    b = rogan_gladen_from_counts(table, int(fu.sum()), fu.size)
    assert b.to_dict() == pytest.approx(a.to_dict(), abs=1e-14)
    with pytest.raises(ValueError, match="table must be 2 x 2"):
        rogan_gladen_from_counts([1, 2, 3], 5, 10)
    with pytest.raises(ValueError, match="judge_passed"):
        rogan_gladen_from_counts([[5, 1], [1, 5]], 11, 10)
