"""heldout.judged.ppi: against ppi_py (the authors' package), hand formulas and exact intervals."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from heldout.accuracy.bounds import interval
from heldout.judged import ppi


def _peer():
    """ppi_py (pip install ppi-python, in the test extra); its tests skip without it."""
    return pytest.importorskip("ppi_py")


# small gold sets on purpose in some agreement tests: the warning is tested on its own
pytestmark = pytest.mark.filterwarnings("ignore:the PPI interval is a normal approximation")


def _data(seed=0, n=400, big_n=6000, p=0.7, sens=0.95, spec=0.55):
    gen = np.random.default_rng(seed)
    y = (gen.random(n + big_n) < p).astype(float)
    f = np.where(y == 1, gen.random(n + big_n) < sens, gen.random(n + big_n) < spec).astype(float)
    return y[:n], f[:n], f[n:]


def _ratio_band(n, big_n):
    """ppi_py divides variances by n (and N), heldout by n - 1 (and N - 1)."""
    return 1.0 - 1e-12, math.sqrt(max(n / (n - 1), big_n / (big_n - 1))) + 1e-12


@pytest.mark.parametrize("seed,n,big_n", [(0, 400, 6000), (1, 60, 300), (2, 1000, 1000)])
def test_tuned_weight_and_estimate_equal_ppi_py(seed, n, big_n):
    ppi_py = _peer()
    from ppi_py.ppi import _calc_lam_glm

    y, fl, fu = _data(seed, n, big_n)
    r = ppi.ppi_mean(y, fl, fu, alpha=0.1)
    centre = ppi_py.ppi_mean_pointestimate(y, fl, fu, lam=1)
    lam = _calc_lam_glm(
        (y - centre)[:, None], (fl - centre)[:, None], (fu - centre)[:, None], np.eye(1), clip=True
    )
    assert r.weight == pytest.approx(float(lam), abs=1e-12)
    assert ppi.power_tuned_weight(y, fl, fu) == pytest.approx(float(lam), abs=1e-12)
    est = float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, fl, fu)))
    assert r.estimate == pytest.approx(est, abs=1e-12)
    low, high = (float(np.squeeze(v)) for v in ppi_py.ppi_mean_ci(y, fl, fu, alpha=0.1))
    assert (r.low + r.high) / 2 == pytest.approx((low + high) / 2, abs=1e-12)
    lo, hi = _ratio_band(n, big_n)
    assert lo <= (r.high - r.low) / (high - low) <= hi


@pytest.mark.parametrize("weight", [0.0, 0.4, 1.0])
def test_fixed_weights_equal_ppi_py(weight):
    ppi_py = _peer()
    y, fl, fu = _data(3, 250, 4000)
    r = ppi.ppi_mean(y, fl, fu, weight=weight)
    est = float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, fl, fu, lam=weight)))
    low, high = (
        float(np.squeeze(v)) for v in ppi_py.ppi_mean_ci(y, fl, fu, alpha=0.05, lam=weight)
    )
    assert r.estimate == pytest.approx(est, abs=1e-12)
    lo, hi = _ratio_band(250, 4000)
    assert lo <= (r.high - r.low) / (high - low) <= hi
    assert r.method == {0.0: "classical", 1.0: "ppi"}.get(weight, "weighted")


def test_hand_formulas_with_unbiased_variances():
    y, fl, fu = _data(4, 120, 900)
    lam = 0.6
    r = ppi.ppi_mean(y, fl, fu, weight=lam, alpha=0.2)
    est = lam * fu.mean() + (y - lam * fl).mean()
    se = math.sqrt(lam**2 * fu.var(ddof=1) / fu.size + (y - lam * fl).var(ddof=1) / y.size)
    z = stats.norm.ppf(0.9)
    assert r.estimate == pytest.approx(est, abs=1e-14)
    assert r.se == pytest.approx(se, rel=1e-12)
    assert (r.low, r.high) == pytest.approx((est - z * se, est + z * se), rel=1e-12)
    assert r.judge_mean == pytest.approx(np.r_[fl, fu].mean(), abs=1e-14)
    assert r.disagreements == int(np.sum(y != fl))


def test_difference_is_ppi_on_paired_differences_and_agrees_with_ppi_py():
    ppi_py = _peer()
    gen = np.random.default_rng(5)
    m = 5000
    ya, yb = (gen.random((2, m)) < [[0.75], [0.7]]).astype(float)
    fa = np.where(gen.random(m) < 0.9, ya, 1 - ya)
    fb = np.where(gen.random(m) < 0.85, yb, 1 - yb)
    n = 500
    r = ppi.ppi_difference(ya[:n], yb[:n], fa[:n], fb[:n], fa[n:], fb[n:])
    d, g, u = ya[:n] - yb[:n], fa[:n] - fb[:n], fa[n:] - fb[n:]
    direct = ppi.ppi_mean(d, g, u)
    assert (r.estimate, r.low, r.high) == pytest.approx(tuple(direct), abs=1e-14)
    assert r.estimate == pytest.approx(
        float(np.squeeze(ppi_py.ppi_mean_pointestimate(d, g, u))), abs=1e-12
    )
    assert r.disagreements == int(np.sum(d != g))


def test_stratified_equals_share_weighted_per_stratum_ppi():
    gen = np.random.default_rng(6)
    s = np.repeat([0, 1], [4000, 1000])
    y = (gen.random(5000) < np.where(s == 0, 0.9, 0.5)).astype(float)
    f = np.where(gen.random(5000) < np.where(s == 0, 0.95, 0.75), y, 1 - y)
    gold = np.r_[0:150, 4000:4200]
    rest = np.setdiff1d(np.arange(5000), gold)
    r = ppi.stratified_ppi_mean(y[gold], f[gold], f[rest], s[gold], s[rest], alpha=0.1)
    parts = [
        ppi.ppi_mean(y[gold][s[gold] == h], f[gold][s[gold] == h], f[rest][s[rest] == h])
        for h in (0, 1)
    ]
    w = np.array([0.8, 0.2])
    assert r.estimate == pytest.approx(w @ [p.estimate for p in parts], abs=1e-14)
    assert r.se == pytest.approx(math.sqrt(w**2 @ [p.se**2 for p in parts]), rel=1e-12)
    # one stratum: the plain PPI++ result
    one = ppi.stratified_ppi_mean(
        y[gold], f[gold], f[rest], np.zeros(gold.size), np.zeros(rest.size)
    )
    plain = ppi.ppi_mean(y[gold], f[gold], f[rest])
    assert tuple(one) == pytest.approx(tuple(plain), abs=1e-14)
    # shares given by the caller
    given = ppi.stratified_ppi_mean(
        y[gold], f[gold], f[rest], s[gold], s[rest], shares={0: 0.5, 1: 0.5}
    )
    assert given.estimate == pytest.approx(0.5 * parts[0].estimate + 0.5 * parts[1].estimate)


def test_classical_intervals_are_the_exact_and_wilson_ones():
    y = np.r_[np.ones(47), np.zeros(3)]
    exact = ppi.classical_mean(y)
    assert (exact.low, exact.high) == pytest.approx(
        tuple(stats.binomtest(47, 50).proportion_ci(method="exact")), rel=1e-9
    )
    wil = ppi.classical_mean(y, method="wilson")
    assert (wil.low, wil.high) == pytest.approx(
        tuple(stats.binomtest(47, 50).proportion_ci(method="wilson")), rel=1e-9
    )
    assert (wil.low, wil.high) == pytest.approx(
        tuple(interval(47, 50, alpha=0.05, method="wilson")), rel=1e-12
    )
    normal = ppi.classical_mean(np.r_[0.2, 0.5, 0.9, 0.4])
    assert normal.method == "classical normal"


def test_judge_only_is_the_judges_mean():
    f = np.array([1.0, 1, 0, 1, 1])
    r = ppi.judge_only_mean(f)
    se = f.std(ddof=1) / math.sqrt(5)
    assert (r.estimate, r.se) == pytest.approx((0.8, se))


@pytest.mark.filterwarnings("default")
def test_warns_where_the_grid_found_undercoverage_and_not_elsewhere():
    y, fl, fu = _data(7, 40, 2000, p=0.95, sens=0.98, spec=0.5)
    with pytest.warns(UserWarning, match="exact interval"):
        ppi.ppi_mean(y, fl, fu)
    y, fl, fu = _data(8, 1000, 5000, p=0.6, sens=0.9, spec=0.8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ppi.ppi_mean(y, fl, fu)
        ppi.ppi_mean(y, fl, fu, weight=0.0)  # gold only: no judge, no warning


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: ppi.ppi_mean([True, False], [1, 0], [1, 0, 1]), "gold must be"),
        (lambda: ppi.ppi_mean([1, 0, 1], [1, 0], [1, 0, 1]), "judge_gold must grade"),
        (lambda: ppi.ppi_mean([1, 0, 1], [1, 0, 1], [1]), "judge_rest must hold"),
        (lambda: ppi.ppi_mean([1, 0, 1], [1, 0, 1], [1, 0], weight=2), "weight"),
        (lambda: ppi.ppi_mean([1, 0, 1], [1, 0, 1], [1, 0], weight="best"), "weight"),
        (lambda: ppi.ppi_mean([1, np.nan], [1, 0], [1, 0]), "gold"),
        (lambda: ppi.classical_mean([0.5, 0.2], method="exact"), "needs 0/1"),
        (
            lambda: ppi.stratified_ppi_mean([1, 0, 1], [1, 0, 1], [1, 0], [0, 0, 1], [0, 0]),
            "stratum 1",
        ),
        (
            lambda: ppi.ppi_difference([1, 0], [1, 1], [1, 0], [1], [1, 0], [1, 0]),
            "judge_gold_b",
        ),
    ],
)
def test_bad_input_is_refused_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_a_constant_judge_gets_no_weight():
    y = np.r_[np.ones(60), np.zeros(60)]
    r = ppi.ppi_mean(y, np.ones(120), np.ones(500))
    assert r.weight == 0.0
    assert r.estimate == pytest.approx(0.5)


@pytest.mark.parametrize(
    "table,passed,big_n", [([[160, 5], [25, 10]], 1700, 2000), ([[40, 9], [3, 48]], 30, 77)]
)
@pytest.mark.parametrize("weight", ["tuned", 1.0, 0.3])
def test_counts_give_the_same_result_as_the_arrays(table, passed, big_n, weight):
    (c11, c10), (c01, c00) = table
    y = np.r_[np.ones(c11 + c10), np.zeros(c01 + c00)]
    f = np.r_[np.ones(c11), np.zeros(c10), np.ones(c01), np.zeros(c00)]
    rest = np.r_[np.ones(passed), np.zeros(big_n - passed)]
    a = ppi.ppi_mean(y, f, rest, weight=weight, alpha=0.1)
    b = ppi.ppi_from_counts(table, passed, big_n, weight=weight, alpha=0.1)
    for field in ("estimate", "low", "high", "se", "weight", "judge_mean"):
        assert getattr(b, field) == pytest.approx(getattr(a, field), abs=1e-12), field
    assert (b.disagreements, b.gold_items, b.judge_items) == (
        a.disagreements,
        a.gold_items,
        a.judge_items,
    )


def test_difference_and_stratified_intervals_cover_in_a_seeded_simulation():
    # 600 simulated evaluations each (about 1 s); the book's verdict rule on the coverage
    from heldout.book.chapter import coverage_verdict

    gen = np.random.default_rng(38)
    reps, m, n = 600, 3000, 500
    hit_d = hit_s = 0
    s = np.repeat([0, 1], [2000, 1000])
    truth_s = 2 / 3 * 0.85 + 1 / 3 * 0.55
    gold_s = np.r_[0:150, 2000:2350]  # the hard stratum sampled at a higher rate
    rest_s = np.setdiff1d(np.arange(m), gold_s)
    for _ in range(reps):
        ya, yb = (gen.random((2, m)) < [[0.75], [0.7]]).astype(float)
        fa = np.where(ya == 1, gen.random(m) < 0.95, gen.random(m) < 0.5).astype(
            float
        )  # lenient on A
        fb = np.where(yb == 1, gen.random(m) < 0.85, gen.random(m) < 0.2).astype(float)
        r = ppi.ppi_difference(ya[:n], yb[:n], fa[:n], fb[:n], fa[n:], fb[n:])
        hit_d += r.low <= 0.05 <= r.high
        y = (gen.random(m) < np.where(s == 0, 0.85, 0.55)).astype(float)
        f = np.where(gen.random(m) < np.where(s == 0, 0.95, 0.8), y, 1 - y)
        r = ppi.stratified_ppi_mean(y[gold_s], f[gold_s], f[rest_s], s[gold_s], s[rest_s])
        hit_s += r.low <= truth_s <= r.high
    assert coverage_verdict(hit_d / reps, reps) != "undercovers", hit_d / reps
    assert coverage_verdict(hit_s / reps, reps) != "undercovers", hit_s / reps
