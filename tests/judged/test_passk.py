"""heldout.judged.passk: the unbiased pass@k against comb and brute-force enumeration."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from heldout.judged.passk import pass_at_k, pass_at_k_per_question


def test_per_question_estimate_is_the_closed_form_with_comb():
    for n in range(1, 25):
        for c in range(n + 1):
            for k in range(1, n + 1):
                exact = 1 - comb(n - c, k) / comb(n, k)
                assert pass_at_k_per_question(n, c, k) == pytest.approx(exact, abs=1e-12)


def test_per_question_estimate_is_the_share_of_k_subsets_with_a_pass():
    row = [1, 0, 0, 1, 0, 0, 0]
    for k in range(1, 8):
        subsets = list(itertools.combinations(row, k))
        brute = np.mean([max(s) for s in subsets])
        assert pass_at_k_per_question(7, 2, k) == pytest.approx(brute, abs=1e-12)


def test_vectorised_over_questions_and_large_counts():
    n = np.array([200, 200, 1000, 1000])
    c = np.array([0, 3, 1, 999])
    got = pass_at_k_per_question(n, c, 10)
    want = [1 - comb(int(a - b), 10) / comb(int(a), 10) for a, b in zip(n, c, strict=True)]
    assert got == pytest.approx(want, rel=1e-10, abs=1e-15)


def test_unbiased_where_the_plug_in_is_not():
    gen = np.random.default_rng(0)
    p, n, k = 0.1, 20, 10
    c = gen.binomial(n, p, size=200_000)
    truth = 1 - (1 - p) ** k
    unbiased = pass_at_k_per_question(n, c, k).mean()
    plug_in = (1 - (1 - c / n) ** k).mean()
    se = pass_at_k_per_question(n, c, k).std() / np.sqrt(c.size)
    assert abs(unbiased - truth) < 4 * se
    assert truth - plug_in > 20 * se  # biased low


def test_benchmark_pass_at_k_and_its_interval_over_questions():
    gen = np.random.default_rng(2)
    y = (gen.random((80, 10)) < gen.beta(0.5, 2, size=80)[:, None]).astype(int)
    r = pass_at_k(y, k=5)
    per_q = [1 - comb(10 - int(s), 5) / comb(10, 5) for s in y.sum(axis=1)]
    assert r.estimate == pytest.approx(np.mean(per_q), abs=1e-12)
    assert r.se == pytest.approx(np.std(per_q, ddof=1) / np.sqrt(80), rel=1e-10)
    assert r.low < r.estimate < r.high and (r.k, r.questions) == (5, 80)
    assert pass_at_k(y, k=1).estimate == pytest.approx(y.mean())
    none = pass_at_k(np.zeros((30, 4)), k=2)
    assert none.estimate == 0 and none.high > 0.05  # honest at 0 %


def test_refusals():
    with pytest.raises(ValueError, match="k must not exceed"):
        pass_at_k_per_question(3, 1, 4)
    with pytest.raises(ValueError, match="correct must not exceed"):
        pass_at_k_per_question(3, 4, 1)
    with pytest.raises(ValueError, match="0 or 1"):
        pass_at_k([[0.5, 1], [1, 1]], k=1)
    with pytest.raises(ValueError, match="k=3 needs at least 3"):
        pass_at_k([[0, 1], [1, 1]], k=3)


@pytest.mark.parametrize("a, b, k", [(0.5, 2.0, 5), (2.0, 0.3, 3), (0.2, 4.0, 10)])
def test_interval_over_questions_covers_the_population_pass_at_k(a, b, k):
    """Questions with Beta(a, b) pass rates; the truth E[1 - (1-p)^k] = 1 - B(a, b+k)/B(a, b)."""
    from scipy import special

    from heldout.book.chapter import coverage_verdict

    truth = 1 - np.exp(special.betaln(a, b + k) - special.betaln(a, b))
    gen = np.random.default_rng(7)
    reps, q, n = 1000, 150, 10
    covered = 0
    for _ in range(reps):
        y = (gen.random((q, n)) < gen.beta(a, b, size=q)[:, None]).astype(int)
        r = pass_at_k(y, k=k)
        covered += r.low <= truth <= r.high
    verdict = coverage_verdict(covered / reps, reps)
    assert verdict in ("holds", "conservative"), (truth, covered / reps)
