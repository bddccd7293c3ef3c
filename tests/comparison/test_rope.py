"""heldout.comparison.rope against Dirichlet Monte Carlo, the paired P(better) and simulation."""

from __future__ import annotations

import numpy as np
import pytest

from heldout.comparison.compare import paired_prob_better
from heldout.comparison.rope import _dirichlet_draws, paired_rope


@pytest.mark.parametrize(
    "b,c,n,r",
    [
        (25, 21, 3000, 0.01),
        (60, 30, 1000, 0.01),
        (5, 2, 50, 0.05),
        (0, 0, 10, 0.1),
        (300, 200, 2000, 0.02),
    ],
)
def test_matches_monte_carlo_of_the_dirichlet_posterior(b, c, n, r):
    # 400,000 Dirichlet draws: within 5 Monte Carlo SEs (and 1e-4) of the quadrature
    res = paired_rope(b, c, n, rope=r)
    mc = _dirichlet_draws(b, c, n, r, draws=400_000, seed=1)
    ours = np.array([res.a_better, res.equivalent, res.b_better])
    se = np.sqrt(ours * (1 - ours) / 400_000)
    assert np.all(np.abs(ours - mc) <= 5 * se + 1e-4)
    assert ours.sum() == pytest.approx(1.0, abs=1e-9)


def test_no_rope_is_the_paired_probability_of_being_better():
    for b, c in [(40, 10), (3, 5), (0, 0), (120, 118)]:
        res = paired_rope(b, c, 2000, rope=0.0)
        assert res.a_better == pytest.approx(paired_prob_better(b, c), abs=1e-9)
        assert res.equivalent == 0.0


def test_symmetry():
    x, y = paired_rope(30, 12, 800, rope=0.01), paired_rope(12, 30, 800, rope=0.01)
    assert (x.a_better, x.equivalent, x.b_better) == pytest.approx(
        (y.b_better, y.equivalent, y.a_better)
    )


def test_error_rates_at_the_boundary_by_simulation():
    # the book's use: act when a probability reaches 0.95.  True difference exactly at the
    # ROPE's edge (delta = r = 0.01, disagreement 6 %, n = 10,000 items): declaring
    # "equivalent" or "A better" is then an error; each rate within alpha + 3 SEs
    # (R = 600, SE 0.0089).  Book numbers with R = 2,000: 0.050 and 0.054 (hold).
    reps = 600
    rng = np.random.default_rng(2)
    counts = rng.multinomial(10_000, [0.035, 0.025, 0.94], size=reps)
    eq = ab = 0
    for b, c, _ in counts:
        res = paired_rope(b, c, 10_000, rope=0.01)
        eq += res.equivalent >= 0.95
        ab += res.a_better >= 0.95
    tol = 3 * np.sqrt(0.05 * 0.95 / reps)
    assert eq / reps <= 0.05 + tol and ab / reps <= 0.05 + tol
    assert ab / reps >= 0.05 - tol  # not far below: the boundary is where alpha is spent


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: paired_rope(-1, 2, 10), "only_a_correct"),
        (lambda: paired_rope(1, 2.5, 10), "only_b_correct"),
        (lambda: paired_rope(1, 2, 0), "n"),
        (lambda: paired_rope(8, 8, 10), "exceed n"),
        (lambda: paired_rope(1, 2, 10, rope=1.0), "rope"),
        (lambda: paired_rope(1, 2, 10, prior=0), "prior"),
    ],
)
def test_bad_input_names_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(("b", "c"), [(30, 0), (3, 30), (30, 2)])
def test_nearly_all_disagreement_mass_below_the_rope_raises_no_integration_warning(b, c):
    """A million items, a few dozen disagreements, rope 1e-4: almost all of s lies below the
    rope (scipy's quad warned of bad integrand behaviour).  Against a Monte Carlo of the
    Dirichlet posterior (200,000 draws)."""

    n, r = 1_000_000, 1e-4
    res = paired_rope(b, c, n, rope=r)
    g = np.random.default_rng(1)
    w = g.dirichlet([b + 1, c + 1, n - b - c + 2], size=200_000)
    delta = w[:, 0] - w[:, 1]
    for got, share in ((res.a_better, np.mean(delta > r)), (res.b_better, np.mean(delta < -r))):
        assert got == pytest.approx(
            share, abs=4 * np.sqrt(max(share * (1 - share), 1e-6) / 400_000) + 1e-6
        )
