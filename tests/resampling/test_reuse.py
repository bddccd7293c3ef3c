"""Tests of heldout.resampling.reuse: the Ladder on constructed sequences, Thresholdout, the attack, the bounds."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from heldout.resampling import reuse
from heldout.resampling.reuse import BudgetExhausted, Ladder, Thresholdout


def test_fixed_ladder_releases_on_a_constructed_sequence():
    # worked by hand with step 0.01: release when the loss beats the board by more than 0.01,
    # rounded to the nearest hundredth
    losses = [0.40, 0.395, 0.384, 0.39, 0.30, 0.295, 0.2849, 0.31, 0.12]
    expected = [0.40, 0.40, 0.38, 0.38, 0.30, 0.30, 0.28, 0.28, 0.12]
    board = Ladder(step=0.01)
    assert [board.submit(v) for v in losses] == pytest.approx(expected, abs=1e-12)
    r = reuse.ladder(losses, step=0.01)
    assert r.released.tolist() == pytest.approx(expected, abs=1e-12)
    assert r.improved.tolist() == [True, False, True, False, True, False, True, False, True]


def test_parameter_free_ladder_on_constructed_losses():
    # n = 4.  Second: mean 0.25, differences (0,-1,0,0): s = 0.5, margin 0.25, and 0.25 < 0.5 - 0.25
    # fails.  Third: mean 0, differences (-1,-1,0,0): s = sqrt(1/3), margin 0.289 < 0.5: released.
    seq = [[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]
    board = Ladder("parameter-free")
    assert [board.submit(v) for v in seq] == [0.5, 0.5, 0.0, 0.0]
    r = reuse.ladder(np.array(seq, float), method="parameter-free")
    assert r.improved.tolist() == [True, False, True, False]


def test_parameter_free_margin_is_the_paired_standard_error():
    rng = np.random.default_rng(3)
    first = (rng.random(400) < 0.30).astype(float)
    second = first.copy()
    flips = rng.choice(400, 30, replace=False)
    second[flips] = 1 - second[flips]
    board = Ladder("parameter-free")
    board.submit(first)
    margin = np.std(second - first, ddof=1) / math.sqrt(400)
    released = board.submit(second)
    assert (released < first.mean()) == (second.mean() < first.mean() - margin)


def test_thresholdout_answers():
    t = Thresholdout(threshold=0.04, sigma=1e-9, budget=2, seed=1)
    assert t.query(0.80, 0.79) == 0.80  # agree within the threshold: training value
    assert t.query(0.90, 0.50) == pytest.approx(0.50, abs=1e-6)  # disagree: holdout value
    assert t.budget_left == 1
    t.query(0.2, 0.9)
    assert t.exhausted
    with pytest.raises(BudgetExhausted):
        t.query(0.5, 0.5)


def test_thresholdout_noise_is_laplace():
    t = Thresholdout(threshold=0.04, sigma=0.01, budget=3000, seed=2)
    noise = np.array([t.query(1.0, 0.0) for _ in range(2000)])  # always far over the threshold
    assert stats.kstest(noise, stats.laplace(scale=0.01).cdf).pvalue > 1e-3


def test_thresholdout_at_the_threshold_is_a_coin_flip():
    # |holdout - train| = T exactly: holdout answer iff Lap(2 sigma) + Lap(4 sigma) < 0, prob. 1/2
    hits = sum(Thresholdout(0.1, 0.01, 1, seed=s).query(0.5, 0.6) != 0.5 for s in range(2000))
    assert abs(hits / 2000 - 0.5) < 4 * math.sqrt(0.25 / 2000)


def test_batch_thresholdout_stops_at_the_budget():
    r = reuse.thresholdout([0.9] * 10, [0.1] * 10, sigma=1e-9, budget=3, seed=0)
    assert (
        r.answered == 3 and r.from_holdout.all() and r.answers == pytest.approx([0.1] * 3, abs=1e-6)
    )


def _brute_force_attack(n, k):
    """Average holdout accuracy of the attack's majority vote over every labelling and every
    set of k random classifiers (all equally likely)."""
    total, count = 0.0, 0
    vectors = list(itertools.product((0, 1), repeat=n))
    for y in vectors:
        y = np.array(y)
        for rows in itertools.product(vectors, repeat=k):
            U = np.array(rows)
            kept = U[(U == y).sum(axis=1) > n / 2]
            votes = kept.sum(axis=0)
            final = (2 * votes >= len(kept)).astype(int)
            total += np.mean(final == y)
            count += 1
    return total / count


@pytest.mark.parametrize("n, k", [(3, 2), (3, 3), (4, 2), (2, 3)])
def test_attack_expected_accuracy_against_enumeration(n, k):
    assert reuse.attack_expected_accuracy(n, k) == pytest.approx(
        _brute_force_attack(n, k), abs=1e-12
    )


def test_attack_climbs_on_a_plain_holdout_and_not_on_the_ladders():
    runs = [
        reuse.boosting_attack(1500, 1500, checkpoints=[150, 1500], sigma=0.004, seed=s)
        for s in range(6)
    ]
    naive = np.array([r.reported["naive"][-1] for r in runs])
    expected = reuse.attack_expected_accuracy(1500, 1500)
    # one run's holdout accuracy has sd below 1/sqrt(4 n); six runs average
    assert abs(naive.mean() - expected) < 4 * 0.5 / math.sqrt(1500) / math.sqrt(6)
    assert expected > 0.7
    for mech in ("ladder", "parameter-free", "thresholdout"):
        shown = np.array([r.reported[mech][-1] for r in runs])
        assert shown.mean() < 0.56, mech
    assert all(r.selected["ladder"][-1] < 20 for r in runs)  # the Ladder moved only a few times


def test_attack_against_a_budgeted_thresholdout_freezes():
    r = reuse.boosting_attack(
        800,
        800,
        checkpoints=[100, 400, 800],
        mechanisms=("thresholdout",),
        sigma=0.01,
        budget=5,
        seed=3,
    )
    assert r.reported["thresholdout"][-1] == r.reported["thresholdout"][-2]


def test_naive_bound_by_hand():
    n, k, d = 4000, 25, 0.05
    assert reuse.naive_error_bound(n, k, d) == pytest.approx(
        math.sqrt(((k - 1) * math.log(n + 1) + math.log(2 * k / d)) / (2 * n))
    )
    assert reuse.naive_error_bound(n, 1, d) == pytest.approx(math.sqrt(math.log(2 / d) / (2 * n)))


def _brute_force_transcripts(k, step, grid):
    seen = set()
    for seq in itertools.product(grid, repeat=k):
        board = Ladder(step=step)
        seen.add(tuple(round(board.submit(v), 9) for v in seq))
    return len(seen)


@pytest.mark.parametrize("k, step, spacing", [(3, 0.25, 0.05), (4, 0.5, 0.125), (3, 0.2, 0.05)])
def test_ladder_transcripts_bound_the_answer_sequences(k, step, spacing):
    """T counts every strictly decreasing sequence of grid values; the Ladder realises all of
    them except those that would need a negative loss (0 right after the value step)."""
    grid = np.round(np.arange(0, 1.0001, spacing), 6)
    count = _brute_force_transcripts(k, step, grid)
    G = round(1 / step) + 1
    impossible = sum(  # sequences that release `step` and then 0 (would need a loss below 0)
        math.comb(k - 1, j - 1) * math.comb(G - 2, j - 2) for j in range(2, min(G, k) + 1)
    )
    T = math.exp(reuse.ladder_transcripts(k, step))
    assert count <= T
    assert count == pytest.approx(T - impossible, rel=1e-9)


def test_ladder_bound_by_hand():
    n, k, step, d = 50_000, 1000, 0.05, 0.05
    G = 21
    T = sum(math.comb(k - 1, j - 1) * math.comb(G, j) for j in range(1, G + 1))
    alpha = math.sqrt((math.log(T) + math.log(2 * k / d)) / (2 * n))
    assert reuse.ladder_error_bound(n, k, step, d) == pytest.approx(alpha + step)


def test_queries_supported_is_the_last_k_within_epsilon():
    n, eps = 20_000, 0.05
    k = reuse.queries_supported(n, eps)
    assert reuse.naive_error_bound(n, k) <= eps < reuse.naive_error_bound(n, k + 1)
    assert reuse.queries_supported(4000, eps, method="non-adaptive") == math.floor(
        0.025 * math.exp(2 * 4000 * eps**2)
    )
    assert reuse.queries_supported(n, eps, method="non-adaptive") == reuse.QUERY_CAP  # "at least"
    big = reuse.queries_supported(10**6, eps, method="ladder")
    assert big > 10**12 and reuse.queries_supported(10**6, eps) < 1000
    assert reuse.queries_supported(100, 0.01) == 0


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: Ladder(step=0), "step"),
        (lambda: Ladder(), "step"),
        (lambda: Ladder("parameter-free", step=0.1), "step"),
        (lambda: Ladder("best"), "method"),
        (lambda: Ladder(step=[0.1, 0.2]), "step"),
        (lambda: Ladder(step=0.1).submit(1.5), "losses"),
        (lambda: Ladder(step=0.1).submit(float("nan")), "losses"),
        (lambda: Ladder(step=0.1).submit([]), "losses"),
        (lambda: Ladder("parameter-free").submit(0.3), "per-item"),
        (lambda: reuse.ladder([], step=0.1), "losses"),
        (lambda: Thresholdout(threshold=1.5), "threshold"),
        (lambda: Thresholdout(sigma=0), "sigma"),
        (lambda: Thresholdout(budget=0), "budget"),
        (lambda: Thresholdout(budget=2**63), "budget"),
        (lambda: Thresholdout().query(1.2, 0.5), "train_value"),
        (lambda: Thresholdout().query(0.2, [0.5, 0.6]), "holdout_value"),
        (lambda: reuse.thresholdout([0.1, 0.2], [0.1]), "train_values"),
        (lambda: reuse.boosting_attack(10**5, 10**4), "exceeds"),
        (lambda: reuse.boosting_attack(100, 100, checkpoints=[50, 20]), "checkpoints"),
        (lambda: reuse.boosting_attack(100, 100, checkpoints=[500]), "checkpoints"),
        (lambda: reuse.boosting_attack(100, 100, mechanisms=("kaggle",)), "mechanisms"),
        (lambda: reuse.naive_error_bound(100, 2**62), "queries"),
        (lambda: reuse.naive_error_bound(100, 10, alpha=0), "alpha"),
        (lambda: reuse.ladder_transcripts(10, 1.0), "step"),
        (lambda: reuse.queries_supported(100, 0.1, method="exact"), "method"),
        (lambda: reuse.queries_supported(100, 2.0), "tolerance"),
        (lambda: reuse.attack_expected_accuracy(100, 10**8), "queries"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_ladder_rejects_a_change_of_holdout_size():
    board = Ladder("parameter-free")
    board.submit([0, 1, 0])
    with pytest.raises(ValueError, match="one entry per holdout item"):
        board.submit([0, 1])


def test_winner_bias_against_simulation():
    rng = np.random.default_rng(8)
    best = rng.binomial(500, 0.7, size=(20_000, 30)).max(axis=1) / 500
    se = best.std() / math.sqrt(best.size)
    assert reuse.winner_bias(500, 30, 0.7) == pytest.approx(best.mean() - 0.7, abs=4 * se)
    assert reuse.winner_bias(500, 1, 0.7) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="models"):
        reuse.winner_bias(500, 0)


def test_queries_supported_reaches_its_cap():
    assert reuse.queries_supported(10**6, 0.1, method="ladder") == reuse.QUERY_CAP == 2**60


def test_old_keywords_of_the_bounds_still_work():
    with pytest.warns(DeprecationWarning, match="'delta' is deprecated"):
        assert reuse.naive_error_bound(4000, 10, delta=0.01) == reuse.naive_error_bound(
            4000, 10, alpha=0.01
        )
    with pytest.warns(DeprecationWarning, match="'epsilon' is deprecated"):
        assert reuse.queries_supported(4000, epsilon=0.05) == reuse.queries_supported(
            4000, tolerance=0.05
        )


def test_naive_guarantee_is_of_order_2n_eps2_over_log_n():
    # issue 25: the guarantee covers about 2 n eps^2 / ln(n + 1) adaptive queries, not
    # n eps^2.  Independent: the largest k with the bound <= eps, by a direct scan
    n, eps, delta = 100_000, 0.05, 0.05

    def bound(k):
        return math.sqrt(((k - 1) * math.log(n + 1) + math.log(2 * k / delta)) / (2 * n))

    k = 1
    while bound(k + 1) <= eps:
        k += 1
    assert reuse.queries_supported(n, eps, delta) == k == 43
    assert k == pytest.approx(2 * n * eps**2 / math.log(n + 1), rel=0.05)
    assert k < n * eps**2 / 5  # far fewer than n eps^2 = 250
