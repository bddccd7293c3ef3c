"""Chapters rerun with changed inputs give the right new values.

tests/test_rerun.py executes every chapter with the values declared in
tests/rerun_params.toml and checks that its verdicts change; here the new values of a
few glued numbers and verdicts are compared with independent computations (scipy or
closed forms, not the chapter's code).  A chapter is executed once per session for both
files (tests/chapter_runs.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from chapter_runs import declared, inputs, run_with
from scipy import stats

pytest.importorskip("nbclient")


@pytest.mark.slow
def test_test_set_bound_follows_k_and_n():
    v = inputs("test_set_bound")
    k, n, delta = v["k"], v["n"], v["delta"]
    glued = run_with("test_set_bound", declared("test_set_bound"))
    # independent: exact bound as a beta quantile, normal rule by hand
    exact = stats.beta.ppf(1 - delta, k + 1, n - k)
    p = k / n
    normal = p + stats.norm.isf(delta) * math.sqrt(p * (1 - p) / (n - 1))
    assert glued["normal_vs_exact"] == ("above" if normal > exact else "below")
    assert glued["ex_exact"] == f"{exact:.4f}"


@pytest.mark.slow
def test_hoeffding_sizing_follows_t():
    v = inputs("hoeffding_sizing")
    glued = run_with("hoeffding_sizing", declared("hoeffding_sizing"))
    u = -2 * math.log2(v["mu"])
    size = math.ceil(u**2 * math.log(2 / v["eps"]) / (2 * v["t"] ** 2))
    assert glued["n_hoeff"] == f"{size:,}"
    first = next(n for n in (5_000, 20_000, 100_000, 1_000_000, 10_000_000) if n // 5 >= size)
    assert glued["first_ok_80_20"] == f"{first:,}"


@pytest.mark.slow
def test_acceptance_testing_follows_the_count():
    v = inputs("acceptance_testing")
    glued = run_with("acceptance_testing", declared("acceptance_testing"))
    p_value = stats.binom.sf(v["correct"] - 1, v["n"], v["required"])  # P(X >= correct)
    assert glued["verdict_exact"] == ("passes" if p_value <= v["alpha"] else "fails")


@pytest.mark.slow
def test_lost_test_set_follows_the_data_accuracy():
    v = inputs("article_lost_test_set")
    glued = run_with("article_lost_test_set", declared("article_lost_test_set"))
    n = v["train_rows"] + v["test_rows"]
    low = max(0.0, (v["data_accuracy"] * n - v["train_rows"]) / v["test_rows"])
    assert glued["cli_lo"] == f"{low:.3f}"
    if low == 0:  # nothing can be ruled out
        assert glued["bounds_verdict"].startswith("say nothing")
    assert glued["cli_hi"] == f"{min(1, v['data_accuracy'] * n / v['test_rows']):.3f}"


@pytest.mark.slow
def test_variational_split_follows_the_coefficients():
    v = inputs("variational_split")
    glued = run_with("variational_split", declared("variational_split"))
    c_test, c_train, rows = v["c_test"], v["c_train"], v["rows"]
    share = math.sqrt(c_test) / (math.sqrt(c_test) + math.sqrt(c_train))
    assert glued["f_test"] == f"{share:.4f}"
    tests = [math.floor(rows * share), math.ceil(rows * share)]
    best = min(tests, key=lambda t: c_test / t + c_train / (rows - t))
    assert glued["test_rows"] == f"{best:,}"


@pytest.mark.slow
def test_beta_posterior_follows_the_count():
    glued = run_with("beta_posterior", {"correct": 170, "n": 200})
    # independent: uniform prior, Beta(k + 1, n - k + 1); its 2.5 % quantile from scipy
    assert glued["post_a"] == "171" and glued["post_b"] == "31"
    assert glued["eq_lo"] == f"{stats.beta.ppf(0.025, 171, 31):.4f}"


@pytest.mark.slow
def test_two_models_follows_the_counts():
    glued = run_with("two_models", {"correct_a": 170, "correct_b": 188, "n": 200})
    # independent: scipy's two-sided Fisher test on the 2x2 table; 96/100 vs 98/100
    # gives 0.68 ("not significant")
    p = stats.fisher_exact([[170, 188], [30, 12]]).pvalue
    assert p < 0.05
    assert glued["fisher_two"] == f"{p:.4f}"
    assert glued["fisher_word"] == "significant"


@pytest.mark.slow
def test_regression_metrics_follows_scale_and_bias():
    glued = run_with("regression_metrics", {"bias": 0.0, "scale": 2.0})
    # independent: the true MSE is B^2 + s^2; the CLT interval by hand on the same draws
    from heldout.config import SEED

    r = 2.0 * np.random.default_rng(SEED).standard_normal(200)
    half = stats.norm.isf(0.025) * np.std(r**2, ddof=1) / math.sqrt(r.size)
    assert glued["true_mse"] == f"{2.0**2:.4f}"
    assert glued["mse"] == f"{np.mean(r**2):.4f}"
    assert glued["clt_hi"] == f"{np.mean(r**2) + half:.4f}"


def _quick_mnist_cached(monkeypatch) -> None:
    from heldout.book import ledger

    monkeypatch.setenv("HELDOUT_QUICK", "1")
    try:
        ledger.mnist_results()
    except ledger.MnistUnavailable as exc:  # the quick build fills the cache
        pytest.skip(f"no cached quick-profile MNIST predictions: {exc}")


@pytest.mark.slow
@pytest.mark.mnist
def test_mnist_comparison_follows_the_candidates(monkeypatch):
    _quick_mnist_cached(monkeypatch)
    glued = run_with("mnist_comparison", {"candidates": "svc_rbf svc_poly3 cnn"})
    assert glued["mn_nmodels"] == "3"
    assert glued["mn_npairs"] == f"{math.comb(3, 2)}"  # 55 pairs with the article's 11 models


@pytest.mark.slow
@pytest.mark.mnist
def test_mnist_engineering_follows_retrain_and_plan_cores(monkeypatch):
    _quick_mnist_cached(monkeypatch)
    values = declared("mnist_engineering")  # retrain = False, plan_cores = 4
    glued = run_with("mnist_engineering", values)
    assert glued["eng_same_word"] == "was not run"
    assert glued["eng_plan_cores"] == str(values["plan_cores"])
