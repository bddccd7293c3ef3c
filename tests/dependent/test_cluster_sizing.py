"""heldout.dependent.cluster_sizing: closed forms, brute-force searches and a simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from heldout.accuracy.sizing import normal_size
from heldout.dependent import cluster_sizing as cs
from heldout.dependent.clustered import _moments, simulate_clustered


def _brute_t(var, deff, m, h, alpha):
    g = 2
    while stats.t.isf(alpha / 2, g - 1) * math.sqrt(var * deff / (g * m)) > h:
        g += 1
    return g


@pytest.mark.parametrize(
    ("p", "h", "rho", "m", "alpha"),
    [
        (0.9, 0.02, 0.1, 5, 0.05),
        (0.97, 0.005, 0.05, 20, 0.05),
        (0.5, 0.05, 0.3, 3, 0.1),
        (0.8, 0.1, 0.5, 40, 0.01),
        (0.99, 0.01, 0.0, 10, 0.05),
        (0.7, 0.03, 1.0, 8, 0.05),
    ],
)
def test_half_width_sizes_closed_form_and_brute_force(p, h, rho, m, alpha):
    deff = 1 + (m - 1) * rho
    z = stats.norm.isf(alpha / 2)
    s_norm = cs.clusters_for_half_width(h, rho, m, accuracy=p, alpha=alpha, method="normal")
    assert s_norm.clusters == max(2, math.ceil(z**2 * p * (1 - p) * deff / (m * h**2) - 1e-9))
    s_t = cs.clusters_for_half_width(h, rho, m, accuracy=p, alpha=alpha)
    assert s_t.clusters == _brute_t(p * (1 - p), deff, m, h, alpha)
    assert s_t.items == s_t.clusters * m
    assert s_t.items_iid == normal_size(p * (1 - p), h, alpha)
    assert s_t.design_effect == pytest.approx(deff)


def test_issue_example():
    s = cs.clusters_for_half_width(0.02, 0.1, 5, accuracy=0.9)
    assert (s.clusters, s.items, s.items_iid) == (245, 1225, 865)
    assert s.clusters == _brute_t(0.09, 1.4, 5, 0.02, 0.05)


def test_variance_input_equals_accuracy_input():
    a = cs.clusters_for_half_width(0.02, 0.1, 5, accuracy=0.9)
    b = cs.clusters_for_half_width(0.02, 0.1, 5, variance=0.09)
    assert a == b


def _power(n, inflate, p1, p0, za):
    se0 = math.sqrt(p0 * (1 - p0) * inflate / n)
    se1 = math.sqrt(p1 * (1 - p1) * inflate / n)
    return stats.norm.cdf((abs(p1 - p0) - za * se0) / se1)


@pytest.mark.parametrize(
    ("p1", "p0", "rho", "m", "alt"),
    [
        (0.92, 0.9, 0.05, 10, "greater"),
        (0.85, 0.9, 0.1, 4, "less"),
        (0.95, 0.9, 0.02, 20, "two-sided"),
    ],
)
def test_power_size_reaches_the_power(p1, p0, rho, m, alt):
    s = cs.clusters_for_power(p1, p0, rho, m, alternative=alt)
    za = stats.norm.isf(0.025 if alt == "two-sided" else 0.05)
    assert _power(s.items_iid, 1, p1, p0, za) >= 0.8 > _power(s.items_iid - 1, 1, p1, p0, za)
    deff = 1 + (m - 1) * rho
    assert _power(s.clusters * m, deff, p1, p0, za) >= 0.8
    assert _power((s.clusters - 1) * m, deff, p1, p0, za) < 0.8


def test_optimal_cluster_size_minimises_variance_times_cost():
    for rho, c1, c2 in [(0.1, 90, 1), (0.02, 10, 2), (0.4, 5, 1)]:
        res = optimize.minimize_scalar(
            lambda m, rho=rho, c1=c1, c2=c2: (rho + (1 - rho) / m) * (c1 + m * c2),
            bounds=(0.01, 1e4),
            method="bounded",
            options={"xatol": 1e-9},
        )
        assert cs.optimal_cluster_size(rho, c1, c2) == pytest.approx(res.x, rel=1e-5)


def test_cheapest_design_is_the_brute_force_minimum():
    h, rho, c1, c2, p = 0.02, 0.1, 90, 1, 0.9
    d = cs.cheapest_design(h, rho, c1, c2, accuracy=p)
    costs = {}
    for m in range(1, 200):
        g = _brute_t(p * (1 - p), 1 + (m - 1) * rho, m, h, 0.05)
        costs[m] = g * (c1 + m * c2)
    best = min(costs, key=lambda m: (costs[m], m))
    assert (d.cluster_size, d.cost) == (best, costs[best])
    assert abs(d.cluster_size - d.optimum) <= 0.25 * d.optimum
    capped = cs.cheapest_design(h, rho, c1, c2, accuracy=p, max_cluster_size=5)
    assert capped.cluster_size == min(range(1, 6), key=lambda m: (costs[m], m))


def test_simulated_half_width_at_the_planned_size():
    """At the planned size the clustered t interval's mean half-width is about the target."""
    p, rho, m, h = 0.9, 0.1, 5, 0.02
    s = cs.clusters_for_half_width(h, rho, m, accuracy=p)
    sums = simulate_clustered(p, rho, np.full(s.clusters, m), 4000, seed=3)
    sizes = np.full(sums.shape, float(m))
    _, _, var_cr, _ = _moments(sums, sums, sizes)
    half = stats.t.isf(0.025, s.clusters - 1) * np.sqrt(var_cr)
    assert half.mean() == pytest.approx(h, rel=0.03)


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda: cs.clusters_for_half_width(0.0, 0.1, 5, accuracy=0.9), "half_width"),
        (lambda: cs.clusters_for_half_width(0.02, 1.2, 5, accuracy=0.9), "icc"),
        (lambda: cs.clusters_for_half_width(0.02, 0.1, 0, accuracy=0.9), "cluster_size"),
        (lambda: cs.clusters_for_half_width(0.02, 0.1, 2.5, accuracy=0.9), "cluster_size"),
        (lambda: cs.clusters_for_half_width(0.02, 0.1, 5), "accuracy"),
        (lambda: cs.clusters_for_half_width(0.02, 0.1, 5, accuracy=0.9, variance=0.1), "accuracy"),
        (lambda: cs.clusters_for_half_width([0.02, 0.03], 0.1, 5, accuracy=0.9), "half_width"),
        (lambda: cs.clusters_for_half_width(1e-12, 0.1, 5, accuracy=0.9), "half_width"),
        (lambda: cs.clusters_for_half_width(0.02, 0.1, 5, accuracy=0.9, method="x"), "method"),
        (lambda: cs.clusters_for_half_width(0.02, 0.1, 5, variance=0.0), "variance"),
        (lambda: cs.clusters_for_power(0.9, 0.92, 0.1, 5), "alternative"),
        (lambda: cs.clusters_for_power(0.92, 0.9, 0.1, 5, alternative="up"), "alternative"),
        (lambda: cs.optimal_cluster_size(0.0, 1, 1), "icc"),
        (lambda: cs.optimal_cluster_size(0.1, 1, 0), "cost_item"),
        (lambda: cs.cheapest_design(0.02, 0.1, -1, 1, accuracy=0.9), "cost_cluster"),
    ],
)
def test_bad_input(call, word):
    with pytest.raises(ValueError, match=word):
        call()
