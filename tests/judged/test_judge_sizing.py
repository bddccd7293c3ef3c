"""heldout.judged.judge_sizing: closed forms, the smallest size by brute force, a simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from heldout.judged import judge_sizing as js
from heldout.judged.ppi import ppi_mean


def _moments(p, se, sp):
    q = p * se + (1 - p) * (1 - sp)
    return q, p * (1 - p), q * (1 - q), p * (se - q)


@pytest.mark.parametrize("p,se,sp", [(0.8, 0.9, 0.9), (0.5, 0.97, 0.6), (0.3, 0.8, 0.95)])
def test_half_width_closed_forms(p, se, sp):
    q, vy, vf, cov = _moments(p, se, sp)
    rho2 = cov**2 / (vy * vf)
    z = stats.norm.ppf(0.975)
    for n, big_n in [(100, 1000), (300, 300), (50, 10**6)]:
        lam = cov / ((1 + n / big_n) * vf)
        assert 0 < lam <= 1
        expect = z * math.sqrt(vy / n * (1 - big_n / (n + big_n) * rho2))
        got = js.half_width_for_gold(n, p, se, sp, judge_items=big_n)
        assert got == pytest.approx(expect, rel=1e-12)
    assert js.half_width_for_gold(200, p, se, sp, weight=0.0) == pytest.approx(
        z * math.sqrt(vy / 200), rel=1e-12
    )
    assert js.half_width_for_gold(200, p, se, sp, judge_items=800, weight=1.0) == pytest.approx(
        z * math.sqrt(vf / 800 + (vy - 2 * cov + vf) / 200), rel=1e-12
    )


def test_more_judged_items_buy_at_most_one_minus_rho_squared():
    h = js.half_width_for_gold(200, 0.8, 0.9, judge_items=np.array([100, 1000, 10**4, 10**7]))
    assert np.all(np.diff(h) < 0)
    q, vy, vf, cov = _moments(0.8, 0.9, 0.9)
    floor = stats.norm.ppf(0.975) * math.sqrt(vy * (1 - cov**2 / (vy * vf)) / 200)
    assert h[-1] == pytest.approx(floor, rel=1e-4)


@pytest.mark.parametrize("judge_items,weight", [(None, "tuned"), (5000, "tuned"), (20000, 1.0)])
def test_gold_size_is_the_smallest_that_reaches_the_half_width(judge_items, weight):
    plan = js.gold_for_half_width(0.02, 0.8, 0.9, judge_items=judge_items, weight=weight)
    n = plan.gold_items
    f = lambda m: js.half_width_for_gold(m, 0.8, 0.9, judge_items=judge_items, weight=weight)  # noqa: E731
    assert f(n) <= 0.02 < f(n - 1)
    z = stats.norm.ppf(0.975)
    assert plan.classical_items == math.ceil(z**2 * 0.16 / 0.02**2)
    q, vy, vf, cov = _moments(0.8, 0.9, 0.9)
    assert plan.limit_items == math.ceil(z**2 * vy * (1 - cov**2 / (vy * vf)) / 0.02**2) or (
        weight != "tuned"
    )


def test_the_planned_half_width_is_what_a_simulation_gives():
    # 300 simulated data sets at n=400, N=4000: mean half-width of ppi_mean within 3 %
    gen = np.random.default_rng(9)
    widths = []
    for _ in range(300):
        y = (gen.random(4400) < 0.7).astype(float)
        f = np.where(y == 1, gen.random(4400) < 0.9, gen.random(4400) < 0.2).astype(float)
        r = ppi_mean(y[:400], f[:400], f[400:])
        widths.append((r.high - r.low) / 2)
    plan = js.half_width_for_gold(400, 0.7, 0.9, 0.8, judge_items=4000)
    assert np.mean(widths) == pytest.approx(plan, rel=0.03)


def test_refusals():
    with pytest.raises(ValueError, match="no number of gold items"):
        js.gold_for_half_width(0.01, 0.8, 0.9, judge_items=300, weight=1.0)
    with pytest.raises(ValueError, match="half_width"):
        js.gold_for_half_width(1.5, 0.8, 0.9)
    with pytest.raises(ValueError, match="gold_items"):
        js.half_width_for_gold(1, 0.8, 0.9)
    with pytest.raises(ValueError, match="rate"):
        js.half_width_for_gold(100, 1.0, 0.9)
