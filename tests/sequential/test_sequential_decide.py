"""Sequential acceptance and Wald's SPRT (heldout.sequential.decide, heldout.sequential.sprt):
error rates by simulation, boundaries against the closed form, exact operating
characteristics against simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from heldout.accuracy import acceptance
from heldout.sequential import confidence_sequence
from heldout.sequential.decide import (
    AcceptanceMonitor,
    labels_to_decision,
    sequential_accept,
)
from heldout.sequential.sprt import sprt, sprt_boundaries, sprt_operating, sprt_wald


def ceiling(rate: float, reps: int, k: float = 3.5) -> float:
    return rate + k * math.sqrt(rate * (1 - rate) / reps)


# ---------------------------------------------------------------------------
# sequential acceptance
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["betting", "empirical-bernstein", "mixture"])
def test_error_rates_at_the_requirement(method):
    """At pi = pi0 (the hardest case of both nulls) wrong passes <= alpha, wrong fails <= beta."""
    reps = 1000
    sim = labels_to_decision(
        0.8, 0.8, 0.05, beta=0.1, method=method, reps=reps, horizon=1500, seed=1
    )
    assert sim.rate("pass") <= ceiling(0.05, reps)
    assert sim.rate("fail") <= ceiling(0.1, reps)
    assert len(sim.n) == reps and np.all((sim.n >= 1) & (sim.n <= 1500))
    assert np.all(sim.n[sim.decision == "continue"] == 1500)


def test_error_rates_just_inside_each_null():
    reps = 800
    below = labels_to_decision(0.78, 0.8, 0.05, reps=reps, horizon=1500, seed=2)
    above = labels_to_decision(0.82, 0.8, 0.05, reps=reps, horizon=1500, seed=3)
    assert below.rate("pass") <= ceiling(0.05, reps)
    assert above.rate("fail") <= ceiling(0.05, reps)


def test_decisions_are_first_crossings_of_the_one_sided_sequences():
    rng = np.random.default_rng(4)
    x = (rng.random((50, 800)) < 0.86).astype(float)
    same = sequential_accept(x, 0.8, 0.05)
    low5 = confidence_sequence(x, 0.05, alternative="greater").lower
    high5 = confidence_sequence(x, 0.05, alternative="less").upper
    for r in range(50):
        passes = np.flatnonzero(low5[r] > 0.8)
        fails = np.flatnonzero(high5[r] < 0.8)
        first = min([*passes[:1], *fails[:1]], default=None)
        if first is None:
            assert same.decision[r] == "continue" and same.n[r] == 800
        else:
            assert same.n[r] == first + 1
            assert same.decision[r] == ("pass" if first in passes else "fail")
            assert same.low[r] == pytest.approx(low5[r, first], abs=1e-12)
    assert set(same.decision) == {"pass", "continue"}


def test_monitor_in_pieces_agrees_with_the_whole():
    x = (np.random.default_rng(5).random(2000) < 0.84).astype(float)
    whole = sequential_accept(x, 0.8, 0.01)
    monitor = AcceptanceMonitor(0.8, 0.01)
    for start in range(0, 2000, 37):
        state = monitor.update(x[start : start + 37])
    assert state.decision == whole.decision and state.n == whole.n
    assert state.low == pytest.approx(whole.low, abs=1e-12)


def test_pool_decides_at_the_latest_when_the_pool_is_labelled():
    # a pool of 300 items, 246 correct (82 %): required 0.8 is decided exactly at the end
    sim = labels_to_decision(0.82, 0.8, 0.05, reps=400, pool=300, seed=6)
    assert sim.pool == 300 and sim.accuracy == pytest.approx(246 / 300)
    assert np.all(sim.decision != "continue") and np.all(sim.n <= 300)
    assert sim.rate("fail") <= ceiling(0.05, 400)
    assert np.median(sim.n) > 250  # a 2-point margin needs most of the pool


def test_sequential_beats_the_fixed_design_far_from_the_requirement_only():
    """Measured against the exact fixed-size test of the acceptance chapter (0.8, 1 %)."""
    fixed = acceptance.exact_size(0.8, 0.03, 0.01)
    far = labels_to_decision(0.9, 0.8, 0.01, reps=300, horizon=5 * fixed, seed=7)
    near = labels_to_decision(0.83, 0.8, 0.01, reps=300, horizon=20 * fixed, seed=8)
    assert far.rate("pass") == 1.0 and np.median(far.n) < fixed / 3
    assert np.median(near.n) > fixed  # at the margin itself the sequential test pays


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"required": 1.2}, "required"),
        ({"required": [0.8, 0.9]}, "required"),
        ({"alpha": 0}, "alpha"),
        ({"beta": 1.5}, "beta"),
        ({"method": "nope"}, "method"),
        ({"pool": 1}, "pool"),
    ],
)
def test_sequential_accept_bad_input(kwargs, name):
    args = {"x": [1, 0, 1], "required": 0.8, **kwargs}
    with pytest.raises(ValueError, match=name):
        sequential_accept(**args)


def test_labels_to_decision_bad_input():
    with pytest.raises(ValueError, match="accuracy"):
        labels_to_decision(1.5, 0.8)
    with pytest.raises(ValueError, match="reps"):
        labels_to_decision(0.9, 0.8, reps=0)
    with pytest.raises(ValueError, match="horizon"):
        labels_to_decision(0.9, 0.8, horizon=2.5)


# ---------------------------------------------------------------------------
# Wald's SPRT
# ---------------------------------------------------------------------------
def test_sprt_boundaries_closed_form():
    p0, p1, alpha, beta = 0.8, 0.85, 0.05, 0.2
    n = np.arange(0, 2001)
    b = sprt_boundaries(n, p0, p1, alpha, beta)
    # Wald (1945): accept H1 when n_correct >= (log((1-beta)/alpha) + n log(q0/q1)) / log(p1 q0 / (p0 q1))
    q0, q1 = 1 - p0, 1 - p1
    denom = math.log(p1 / p0) + math.log(q0 / q1)
    assert np.allclose(b.pass_at, (math.log((1 - beta) / alpha) + n * math.log(q0 / q1)) / denom)
    assert np.allclose(b.fail_at, (math.log(beta / (1 - alpha)) + n * math.log(q0 / q1)) / denom)
    assert b.slope == pytest.approx(math.log(q0 / q1) / denom)
    ville = sprt_boundaries(n, p0, p1, alpha, beta, method="ville")
    assert np.allclose(ville.pass_at, (math.log(1 / alpha) + n * math.log(q0 / q1)) / denom)
    assert np.allclose(ville.fail_at, (math.log(beta) + n * math.log(q0 / q1)) / denom)


def test_sprt_run_is_the_first_crossing():
    rng = np.random.default_rng(9)
    x = (rng.random((30, 600)) < 0.82).astype(float)
    r = sprt(x, 0.8, 0.85, 0.05, 0.2)
    b = sprt_boundaries(np.arange(1, 601), 0.8, 0.85, 0.05, 0.2)
    for row, decision, n in zip(x, r.decision, r.n, strict=True):
        s = np.cumsum(row)
        for t in range(600):  # a plain loop, as one would label
            if s[t] >= b.pass_at[t] - 1e-9 or s[t] <= b.fail_at[t] + 1e-9:
                assert n == t + 1
                assert decision == ("pass" if s[t] >= b.pass_at[t] - 1e-9 else "fail")
                break
        else:
            assert decision == "continue" and n == 600


@pytest.mark.parametrize("boundaries", ["wald", "ville"])
def test_sprt_exact_operating_characteristic_against_simulation(boundaries):
    accuracies = np.array([0.78, 0.8, 0.825, 0.85, 0.88])
    op = sprt_operating(accuracies, 0.8, 0.85, 0.05, 0.2, method=boundaries)
    assert np.all(op.undecided < 1e-9)
    assert np.allclose(op.pass_probability + op.fail_probability, 1, atol=1e-9)
    reps = 3000
    rng = np.random.default_rng(10)
    for k, p in enumerate(accuracies):
        x = rng.random((reps, 2500)) < p
        r = sprt(x, 0.8, 0.85, 0.05, 0.2, method=boundaries)
        assert np.all(r.decision != "continue")
        rate = np.mean(r.decision == "pass")
        se = math.sqrt(op.pass_probability[k] * (1 - op.pass_probability[k]) / reps)
        assert abs(rate - op.pass_probability[k]) <= 4 * se
        assert abs(r.n.mean() - op.expected_n[k]) <= 4 * r.n.std() / math.sqrt(reps)


def test_sprt_error_guarantees():
    alpha, beta = 0.05, 0.2
    wald = sprt_operating([0.8, 0.85], 0.8, 0.85, alpha, beta)
    assert wald.pass_probability[0] <= alpha / (1 - beta)
    assert wald.fail_probability[1] <= beta / (1 - alpha)
    assert wald.pass_probability[0] + wald.fail_probability[1] <= alpha + beta
    ville = sprt_operating([0.8, 0.85], 0.8, 0.85, alpha, beta, method="ville")
    assert ville.pass_probability[0] <= alpha and ville.fail_probability[1] <= beta
    assert np.all(ville.expected_n > wald.expected_n)  # the price of exact guarantees
    # what the guarantee does not cover: in the indifference zone either answer is common
    mid = sprt_operating(0.825, 0.8, 0.85, alpha, beta)
    assert 0.2 < mid.pass_probability < 0.8


def test_sprt_halfway_model_passes_about_a_quarter_of_the_time():
    # issue 25: "a model at (pi0 + pi1)/2 passes about as often as it fails" is false.
    # label_until_sure's design: 0.80 against 0.83, alpha 0.01, beta 0.2
    exact = sprt_operating(0.815, 0.8, 0.83, 0.01, 0.2).pass_probability
    assert exact == pytest.approx(0.26, abs=0.005)
    # independent: Wald's approximation where E[z] = 0 is -log B / (log A - log B)
    log_a, log_b = math.log(0.8 / 0.01), math.log(0.2 / 0.99)
    assert exact == pytest.approx(-log_b / (log_a - log_b), abs=0.01)
    # and a simulation of the test itself (10,000 runs of up to 10,000 labels; 4 s.e.)
    rng = np.random.default_rng(4)
    p0, p1 = 0.8, 0.83
    d = math.log(p1 * (1 - p0) / (p0 * (1 - p1)))
    g = math.log((1 - p0) / (1 - p1))
    n = np.arange(1, 10_001)
    passes = decided = 0
    for _ in range(5):
        s_n = np.cumsum(rng.random((2000, n.size)) < 0.815, axis=1, dtype=np.int32)
        llr = s_n * d - n * g
        up, down = llr >= log_a, llr <= log_b
        first_up = np.where(up.any(axis=1), up.argmax(axis=1), n.size)
        first_down = np.where(down.any(axis=1), down.argmax(axis=1), n.size)
        passes += int(np.sum(first_up < first_down))
        decided += int(np.sum(np.minimum(first_up, first_down) < n.size))
    assert decided >= 9990
    rate = passes / 10_000
    assert rate == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 10_000))


def test_wald_approximations_close_to_exact():
    accuracies = np.array([0.75, 0.8, 0.825, 0.85, 0.9])
    exact = sprt_operating(accuracies, 0.8, 0.85, 0.05, 0.2)
    approx = sprt_wald(accuracies, 0.8, 0.85, 0.05, 0.2)
    # classical values: P(pass) = alpha at pi0 and 1 - beta at pi1 exactly
    assert approx.pass_probability[1] == pytest.approx(0.05, abs=1e-9)
    assert approx.pass_probability[3] == pytest.approx(0.8, abs=1e-9)
    assert np.allclose(approx.pass_probability, exact.pass_probability, atol=0.03)
    # the overshoot makes real tests a little longer than Wald's formula
    assert np.all(approx.expected_n < exact.expected_n)
    assert np.all(approx.expected_n > 0.85 * exact.expected_n)


def test_sprt_bad_input():
    with pytest.raises(ValueError, match="target"):
        sprt_boundaries(10, 0.8, 0.8)
    with pytest.raises(ValueError, match="^method"):
        sprt_boundaries(10, 0.8, 0.85, method="pocock")
    with pytest.warns(DeprecationWarning, match="'boundaries' is deprecated"):
        old = sprt_boundaries(10, 0.8, 0.85, boundaries="ville")
    assert old.pass_at.tolist() == sprt_boundaries(10, 0.8, 0.85, method="ville").pass_at.tolist()
    with pytest.raises(ValueError, match="alpha"):
        sprt_boundaries(10, 0.8, 0.85, alpha=0.7, beta=0.5)
    with pytest.raises(ValueError, match="x"):
        sprt([1, 0.5], 0.8, 0.85)
    with pytest.raises(ValueError, match="horizon"):
        sprt_operating(0.8, 0.8, 0.85, horizon=10**9)
