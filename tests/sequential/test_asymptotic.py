"""heldout.sequential.asymptotic: closed form by hand, time-uniform coverage by simulation."""

from __future__ import annotations

import numpy as np
import pytest

from heldout.sequential.asymptotic import asymptotic_sequence


def test_bounds_by_an_independent_loop():
    rng = np.random.default_rng(1)
    x = rng.exponential(2.0, 300)
    cs = asymptotic_sequence(x, alpha=0.1, planned=200, start=1)
    rho2 = (-2 * np.log(0.1) + np.log(1 - 2 * np.log(0.1))) / 200
    assert cs.rho == pytest.approx(np.sqrt(rho2))
    for t in (2, 17, 150, 300):
        m, s = np.mean(x[:t]), np.std(x[:t])
        r = s * np.sqrt(2 * (t * rho2 + 1) / (t**2 * rho2) * np.log(np.sqrt(t * rho2 + 1) / 0.1))
        assert (cs.lower[t - 1], cs.mean[t - 1], cs.upper[t - 1]) == pytest.approx(
            (m - r, m, m + r)
        )
    assert cs.lower[0] == -np.inf and cs.upper[0] == np.inf


def test_narrowest_relative_to_sqrt_t_near_the_planned_size():
    # radius * sqrt(t) / sigma is smallest at the planned size (the tuning of rho)
    x = np.random.default_rng(2).standard_normal(5000)
    cs = asymptotic_sequence(x, planned=1000)
    t = np.arange(1, 5001)
    scaled = (
        (cs.upper - cs.mean)[1:]
        * np.sqrt(t[1:])
        / np.sqrt(np.cumsum(x**2)[1:] / t[1:] - cs.mean[1:] ** 2)
    )
    assert 700 <= int(np.argmin(scaled)) + 2 <= 1400


def _coverage(draw, mu, reps, start, seed, size=10_000, rule=10):
    rng = np.random.default_rng(seed)
    held = 0
    for _ in range(reps):
        cs = asymptotic_sequence(draw(rng, size), planned=1000, start=rule)
        held += not np.any((cs.lower[start - 1 :] > mu) | (cs.upper[start - 1 :] < mu))
    return held / reps


def test_time_uniform_coverage_of_squared_errors_by_simulation():
    # squared normal errors (mean 1), watched from item 100 to item 10,000 after every
    # item: the mean stays inside throughout in at least 95 % - 3 SEs of the runs (R = 600,
    # SE 0.0089).  Book numbers with R = 1,000: 0.944 from item 100 (holds), 0.970 from 1,000.
    reps = 600
    cover = _coverage(lambda g, n: g.standard_normal(n) ** 2, 1.0, reps, 100, seed=1)
    assert cover >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / reps)


def test_it_undercovers_when_watched_from_the_first_items_with_heavier_tails():
    # the guarantee is asymptotic: without the start rule (start=1), squared t(7) errors
    # watched from item 10 miss far more often than 5 % (measured 0.838 with R = 1,000)
    reps = 400
    cover = _coverage(lambda g, n: g.standard_t(7, n) ** 2, 7 / 5, reps, 10, seed=2, rule=1)
    assert cover < 0.95 - 3 * np.sqrt(0.05 * 0.95 / reps)


def _rare_log_losses(g, n, q=0.02):
    """Log losses of a calibrated model whose rare outcome has probability q."""
    return np.where(g.random(n) < q, -np.log(q), -np.log1p(-q))


def test_rare_event_log_losses_are_kept_with_the_start_rule():
    # 2 % events: before the first one every loss is the same, the running variance is
    # zero and the unguarded sequence has zero width.  Watched from item 10 to 2,000: the
    # default start rule keeps the mean in >= 95 % - 3 SEs of 300 runs (measured 0.95 over
    # 200 runs of 10,000 items); without any guard it was 0.18
    q = 0.02
    mu = -q * np.log(q) - (1 - q) * np.log1p(-q)
    reps = 300
    cover = _coverage(_rare_log_losses, mu, reps, 10, seed=4, size=2000)
    assert cover >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / reps)


def test_the_start_rule_by_an_independent_loop():
    x = np.r_[np.zeros(30), 5.0, np.zeros(20), np.random.default_rng(6).exponential(1.0, 200)]
    for rule in (1, 4, 10):
        cs = asymptotic_sequence(x, planned=100, start=rule)
        for t in range(1, x.size + 1):
            d = (x[:t] - x[:t].mean()) ** 2
            started = d.sum() > 0 and rule * d.max() <= d.sum() * (1 + 1e-12) and t > 1
            assert np.isfinite(cs.upper[t - 1]) == started, (rule, t)
    # while every loss is the same the bounds are infinite, never zero-width
    assert np.all(np.isinf(asymptotic_sequence(np.zeros(30)).upper))


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: asymptotic_sequence([]), "x"),
        (lambda: asymptotic_sequence([[1.0, 2.0]]), "x"),
        (lambda: asymptotic_sequence([1.0, np.nan]), "x"),
        (lambda: asymptotic_sequence([1.0, 2.0], alpha=0), "alpha"),
        (lambda: asymptotic_sequence([1.0, 2.0], planned=0), "planned"),
        (lambda: asymptotic_sequence([1.0, 2.0], start=0), "start"),
    ],
)
def test_bad_input_names_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
