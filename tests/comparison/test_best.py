"""heldout.comparison.best: the best set's guarantee and the failure of "leader + Holm", by simulation.

Tolerance of every simulated error rate: at most alpha plus 3 Monte Carlo standard
errors of a binomial proportion at alpha (``3 sqrt(alpha (1 - alpha) / reps)``).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from heldout.comparison import best as B
from heldout.comparison import compare as C
from heldout.comparison.predictions import pattern_counts

ALPHA = 0.05


def _tolerance(reps):
    return ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / reps)


def _best_set_error(acc, n, shared, reps, draws=400, seed=0):
    """Share of simulated test sets whose best set leaves out a truly best model."""
    acc = np.asarray(acc)
    pp = B.shared_patterns(acc, shared)
    rng = np.random.default_rng(seed)
    best = acc == acc.max()
    miss, sizes = 0, []
    for lo in range(0, reps, 100):
        counts = rng.multinomial(n, pp.probs, size=min(100, reps - lo))
        pv, _ = B._best_set_batch(pp.patterns, counts, ALPHA, draws, rng, "signflip")
        miss += int(np.sum(np.any((pv <= ALPHA) & best, axis=1)))
        sizes.append((pv > ALPHA).sum(axis=1))
    return miss / reps, np.concatenate(sizes).mean()


@pytest.mark.parametrize(
    "acc,n,shared",
    [
        ([0.95] * 6, 3000, 0.8),  # the beta_posterior chapter's setting, all models equal
        ([0.95, 0.942, 0.946, 0.938, 0.95, 0.92], 3000, 0.8),  # its unequal models (two tied best)
        ([0.9] * 4, 100, 0.5),  # a small test set
        ([0.99] * 4, 1000, 0.8),  # few disagreements
        ([0.8] * 3, 500, 0.0),  # independent errors
    ],
)
def test_best_set_keeps_the_best_with_probability_1_minus_alpha(acc, n, shared):
    reps = 1000
    rate, _ = _best_set_error(acc, n, shared, reps)
    assert rate <= _tolerance(reps)


def test_best_set_excludes_clearly_worse_models():
    rate, size = _best_set_error([0.97, 0.95, 0.93, 0.90], 3000, 0.8, reps=300)
    assert rate <= _tolerance(300)
    assert size < 1.5  # power: usually only the best model remains


def test_best_set_two_models_is_mcnemar():
    # with two models the sign-flip distribution is McNemar's exact null distribution, and
    # with both models possibly "best" the lagging model's p-value is the two-sided one
    correct = B.simulate_correct([0.93, 0.91], 1500, shared=0.8, seed=2)
    b, c = C.disagreements(correct[:, 0], correct[:, 1])
    res = B.best_set(correct, draws=40_000, seed=1)
    exact = C.mcnemar_exact(b, c)
    lagging = 1 if b > c else 0
    assert res.p_values[lagging] == pytest.approx(exact, abs=4 * np.sqrt(exact / 40_000) + 1e-4)
    assert res.in_set[1 - lagging]


def test_gaussian_multipliers_agree_with_sign_flips_when_disagreements_are_many():
    correct = B.simulate_correct([0.80, 0.79, 0.78, 0.76], 4000, shared=0.5, seed=9)
    flip = B.best_set(correct, draws=20_000, seed=1)
    gauss = B.best_set(correct, draws=20_000, method="gaussian", seed=1)
    assert gauss.p_values == pytest.approx(flip.p_values, abs=0.02)
    # many models, more than 4,096 distinct patterns: the Gaussian version is used
    many = B.simulate_correct(np.full(14, 0.6), 20_000, shared=0.1, seed=2)
    assert pattern_counts(many).counts.size > 4096
    res = B.best_set(many, draws=500, seed=3)
    assert res.in_set.sum() >= 10  # equal models: almost all kept


def test_prob_best_paired_with_a_dirichlet_prior():
    correct = B.simulate_correct([0.93, 0.92, 0.90], 500, shared=0.8, seed=10)
    flat = B.prob_best_paired(correct, prior=0, draws=50_000, seed=1)
    prior = B.prob_best_paired(correct, prior=0.5, draws=50_000, seed=1)
    assert prior.prob.sum() == pytest.approx(1.0)
    # a little prior mass on all 8 patterns pulls towards a tie, but only a little
    assert np.all(np.abs(prior.prob - flat.prob) < 0.1)
    assert prior.prob.max() <= flat.prob.max() + 4 * flat.se.max()


def test_false_claims_reproduce_the_issue():
    # issue 13: six equal, correlated models, 3,000 items: "leader + one-sided McNemar +
    # Holm" claims a non-existent difference in about 16 % of test sets (two-sided: about
    # 8 %); the best set errs at most alpha
    reps = 1000
    fc = B.false_claims([0.95] * 6, 3000, reps=reps, draws=300, seed=3)
    se = np.sqrt(0.155 * 0.845 / reps)
    assert fc.leader_holm == pytest.approx(0.155, abs=4 * se)
    assert fc.leader_holm_two_sided == pytest.approx(0.08, abs=4 * np.sqrt(0.08 * 0.92 / reps))
    assert fc.leader_holm > 2.5 * ALPHA
    assert fc.best_set <= _tolerance(reps)


def test_prob_best_paired_two_models_is_exact():
    # Bayesian bootstrap, two models: acc_A - acc_B = w10 - w01 with (w10, w01, rest)
    # Dirichlet(b, c, n - b - c), so P(A best) = P(Beta(b, c) > 1/2) = 1 - I_1/2(b, c)
    correct = B.simulate_correct([0.93, 0.92], 2000, shared=0.8, seed=4)
    b, c = C.disagreements(correct[:, 0], correct[:, 1])
    res = B.prob_best_paired(correct, prior=0, draws=200_000, seed=5)
    exact = special.betainc(c, b, 0.5)
    assert res.prob[0] == pytest.approx(exact, abs=4 * res.se[0] + 1e-6)
    assert res.prob.sum() == pytest.approx(1.0)
    # the default (uniform) prior, 1 per pattern with two models: the disagreements' split
    # has posterior Beta(b + 1, c + 1), the two-model paths' default
    res = B.prob_best_paired(correct, draws=200_000, seed=5)
    exact = special.betainc(c + 1, b + 1, 0.5)
    assert res.prob[0] == pytest.approx(exact, abs=4 * res.se[0] + 1e-6)
    assert res.prob[0] == pytest.approx(C.paired_prob_better(b, c), abs=4 * res.se[0] + 1e-6)
    # Jeffreys: 1/2 per pattern, Beta(b + 1/2, c + 1/2)
    res = B.prob_best_paired(correct, prior="jeffreys", draws=200_000, seed=5)
    exact = special.betainc(c + 0.5, b + 0.5, 0.5)
    assert res.prob[0] == pytest.approx(exact, abs=4 * res.se[0] + 1e-6)


def test_prob_best_paired_one_disagreement_is_not_certainty():
    # issue 25: 1,000 items, A errs once, B never.  The Bayesian bootstrap says
    # P(B best) = 1 exactly; the default prior gives P(A best) = P(Beta(1, 2) > 1/2)
    correct = np.ones((1000, 2), dtype=bool)
    correct[0, 0] = False
    assert B.prob_best_paired(correct, prior=0, draws=2000).prob.tolist() == [0.0, 1.0]
    assert B.prob_best_paired(correct, prior="haldane", draws=2000).prob.tolist() == [0.0, 1.0]
    res = B.prob_best_paired(correct, draws=200_000, seed=2)
    exact = stats.beta(1, 2).sf(0.5)  # 0.25
    assert res.prob[0] == pytest.approx(exact, abs=4 * res.se[0])
    assert 0.1 < res.prob[0] < 0.3
    # three models, the third equal to B: the prior keeps every entry strictly inside (0, 1)
    three = np.column_stack([correct, correct[:, 1]])
    res3 = B.prob_best_paired(three, draws=100_000, seed=3)
    assert np.all((res3.prob > 0.05) & (res3.prob < 0.95))
    # by symmetry the two identical perfect models share the rest equally
    assert res3.prob[1] == pytest.approx(res3.prob[2], abs=4 * res3.se[1] * np.sqrt(2))


def test_prob_best_paired_is_more_decisive_than_independent_posteriors():
    correct = B.simulate_correct([0.95, 0.94, 0.94], 3000, shared=0.9, seed=6)
    paired = B.prob_best_paired(correct, seed=0).prob
    independent = C.prob_best(correct.sum(axis=0), correct.shape[0])
    leader = int(np.argmax(correct.sum(axis=0)))
    assert paired[leader] > independent[leader]
    # a model identical to another shares the wins
    twin = np.column_stack([correct[:, 0], correct[:, 0]])
    assert B.prob_best_paired(twin, prior=0, draws=1000).prob.tolist() == [0.5, 0.5]
    res = B.prob_best_paired(twin, draws=100_000, seed=1)
    assert res.prob[0] == pytest.approx(0.5, abs=4 * res.se[0])


def test_shared_patterns_match_the_chapter_generator():
    acc = [0.95, 0.942, 0.93]
    pp = B.shared_patterns(acc, 0.8)
    correct = B.simulate_correct(acc, 400_000, shared=0.8, seed=8)
    code = correct.astype(int) @ (1 << np.arange(3))
    freq = np.bincount(code, minlength=8) / correct.shape[0]
    want = pp.probs[pp.patterns.astype(int) @ (1 << np.arange(3))]
    assert np.all(np.abs(freq - want) <= 4 * np.sqrt(want * (1 - want) / 400_000) + 1e-6)
    assert (pp.patterns * pp.probs[:, None]).sum(axis=0) == pytest.approx(acc)


def test_pick_best_paired_against_direct_simulation_and_independence():
    acc, n = [0.96, 0.95, 0.95, 0.95], 1500
    fast = B.pick_best_paired(acc, n, shared=0.8, reps=20_000, seed=1)
    hits = 0.0
    rng = np.random.default_rng(2)
    for _ in range(2000):
        s = B.simulate_correct(acc, n, shared=0.8, seed=rng).sum(axis=0)
        hits += (s[0] == s.max()) / np.sum(s == s.max())
    slow = hits / 2000
    assert abs(fast.prob - slow) < 4 * np.sqrt(fast.se**2 + slow * (1 - slow) / 2000)
    # shared = 0 is the independent case, which has an exact formula
    ind = B.pick_best_paired(acc, n, shared=0.0, reps=20_000, seed=3)
    exact = C.pick_best_probability(0.96, 0.01, n, 3)
    assert abs(ind.prob - exact) < 4 * ind.se


def test_pick_best_size_paired_scales_by_the_variance_ratio_and_still_grows_like_log():
    pp = B.shared_patterns([0.96, 0.95], 0.8)
    d = pp.probs[pp.patterns[:, 0] != pp.patterns[:, 1]].sum()
    ratio = (d - 0.01**2) / (0.96 * 0.04 + 0.95 * 0.05)
    sizes = [
        B.pick_best_size_paired(0.96, 0.01, m, shared=0.8, reps=6000, seed=0) for m in (1, 4, 16)
    ]
    for s in sizes:
        assert s.prob >= 0.95 - 3 * s.se
        assert s.n / s.n_independent == pytest.approx(ratio, rel=0.1)
    steps = np.diff([s.n for s in sizes])  # two doublings of the rivals per step
    assert np.all(steps > 0)
    assert steps[1] / steps[0] == pytest.approx(1.0, abs=0.3)


def test_best_set_with_non_exchangeable_correlation():
    # equal accuracies, but models 0 and 1 share almost all their difficulty and model 2
    # none: the per-item differences are not exchangeable; the error stays at alpha
    reps = 1000
    rate, _ = _best_set_error([0.9, 0.9, 0.9], 800, [0.95, 0.95, 0.0], reps)
    assert rate <= _tolerance(reps)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: B.best_set([[1, 0], [0, 1]], alpha=1.5), "alpha"),
        (lambda: B.best_set([[1, 0], [0, 1]], alpha=[0.05]), "alpha"),
        (lambda: B.best_set([[1], [0]]), "at least 2 models"),
        (lambda: B.best_set(np.zeros((0, 2))), "no items"),
        (lambda: B.best_set([[0.5, 1], [0, 1]]), "0/1"),
        (lambda: B.best_set([[1, 0], [0, 1]], draws=10), "draws"),
        (lambda: B.best_set([[1, 0], [0, 1]], method="bootstrap"), "method"),
        (lambda: B.prob_best_paired([[1, 0], [0, 1]], prior=-1), "prior"),
        (lambda: B.prob_best_paired([["a", "b"]]), "correct"),
        (lambda: B.shared_patterns([0.9, 1.2]), "accuracies"),
        (lambda: B.simulate_correct([0.9], 10, shared=2), "shared"),
        (lambda: B.false_claims([0.9], 100), "accuracies"),
        (lambda: B.pick_best_paired([0.9, 0.95], 100), "largest"),
        (lambda: B.pick_best_size_paired(0.9, 0.95), "gap"),
        (lambda: B.pick_best_size_paired(0.9, 0.01, models=2**63), "models"),
    ],
)
def test_bad_input_names_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_prob_best_paired_random_prior_patterns_match_the_exact_prior():
    """Above 16 models the prior's mass sits on 1,024 random patterns; at 8 models (where
    the exact 256 patterns are cheap) the two agree within Monte Carlo error."""
    correct = B.simulate_correct([0.9] * 8, 300, shared=0.3, seed=3)
    exact = B._prob_best_paired(correct, "uniform", 20_000, 1, atoms=False)
    approx = B._prob_best_paired(correct, "uniform", 20_000, 2, atoms=True)
    assert np.abs(exact.prob - approx.prob).max() <= 4 * np.sqrt(2) * exact.se.max() + 0.01


def test_prob_best_paired_handles_many_models():
    correct = B.simulate_correct([0.9] * 19 + [0.93], 2000, shared=0.5, seed=4)
    res = B.prob_best_paired(correct, draws=4000, seed=1)
    assert res.prob.sum() == pytest.approx(1.0) and int(np.argmax(res.prob)) == 19


def test_prob_best_paired_is_calibrated_for_the_leader():
    """150 test sets of 1,000 items, five models with accuracies 0.9 + N(0, 0.01^2): the
    leader's mean P(best) and the share of sets where it is truly best agree within 3 MC
    s.e. of the share (measured 0.65 vs 0.63 over 300 sets)."""
    g = np.random.default_rng(5)
    pred, hit = [], []
    for _ in range(150):
        acc = np.clip(0.9 + g.normal(0, 0.01, 5), 0, 1)
        c = B.simulate_correct(acc, 1000, shared=0.5, seed=g)
        lead = int(np.argmax(c.sum(axis=0)))
        pred.append(B.prob_best_paired(c, draws=1000, seed=g).prob[lead])
        hit.append(lead == int(np.argmax(acc)))
    share = np.mean(hit)
    assert abs(np.mean(pred) - share) <= 3 * np.sqrt(share * (1 - share) / 150)


def test_prob_best_paired_refuses_an_unknown_prior_by_name():
    with pytest.raises(ValueError, match="prior must be one of uniform, jeffreys, haldane"):
        B.prob_best_paired([[1, 0], [0, 1]], prior="flat")
