"""Property-based tests (hypothesis): the calculators' public functions and every command.

Issue 19: every call with random valid or invalid input either returns a documented result
(finite, in range, monotone where the mathematics says so) or raises ``ValueError`` whose
message names the argument (or says "the size exceeds ..." for a size that would not fit in
64 bits); never a TypeError, IndexError, OverflowError, MemoryError or a hang.  Stated time
limit: every call finishes within ``CALL_LIMIT = 5`` seconds of CPU time (most take
milliseconds).  Every refusal of a command is exactly one line on stderr with exit status 2,
and a successful ``--json`` run prints one JSON object with finite numbers only.

Strategies draw each argument from its own domain, including extremes (counts up to
``2**63 - 1``, probabilities down to ``1e-300``), without enforcing relations between
arguments (``k <= n`` ...): a violated relation must also be a named ``ValueError``.
Invalid input replaces one argument with a bad value of another kind (text, ``None``, NaN,
infinities, ``2**63``, ``1e300``, empty or ragged lists, complex numbers).  The other
modules' functions are driven by ``test_properties_modules.py``; ``test_public_surface.py``
checks that every public callable and every command is driven by one of them.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import shutil
import tempfile
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_support import (
    CALL_LIMIT,
    A,
    Spec,
    alpha,
    count0,
    count1,
    in01,
    numbers_ok,
    ordered_pair,
    pos,
    pos0,
    positive_int,
    prob,
    prob_c,
    real,
    small1,
    spec_tests,
)
from property_support import (
    examples as scaled,
)

from heldout.accuracy import acceptance as AC
from heldout.accuracy import bounds as B
from heldout.accuracy import deviation as DV
from heldout.accuracy import losses as L
from heldout.accuracy import lost as LO
from heldout.accuracy import posterior as P
from heldout.accuracy import sizing as S
from heldout.accuracy import split as SP
from heldout.cli import main
from heldout.metrics import regression as R

K, N, AL = A(count0, "count"), A(count1, "count"), A(prob, "prob")
METHOD_NAMES = st.sampled_from(list(B.METHODS))
INTERVALS = st.sampled_from(list(B.INTERVAL_METHODS))


def _choice(values):
    return A(st.sampled_from(values), "choice")


def _flag():
    return A(st.booleans(), "flag")


def _losses():
    return A(
        st.lists(st.floats(0, 10), min_size=1, max_size=20), "array", accepts=(-1, -0.5, 2.5, 1e300)
    )


SPECS = {
    # bounds
    "accuracy.bounds.binomial_tail": Spec(B.binomial_tail, {"k": K, "n": N, "p": A(prob_c, "prob")}, in01),
    "accuracy.bounds.exact_upper": Spec(B.exact_upper, {"k": K, "n": N, "alpha": AL}, in01),
    "accuracy.bounds.exact_lower": Spec(B.exact_lower, {"k": K, "n": N, "alpha": AL}, in01),
    "accuracy.bounds.hoeffding_upper": Spec(B.hoeffding_upper, {"k": K, "n": N, "alpha": AL, "clip": _flag()}, keyword=("clip",)),
    "accuracy.bounds.occam_upper": Spec(B.occam_upper, {"k": K, "n": N, "alpha": AL, "clip": _flag()}, keyword=("clip",)),
    "accuracy.bounds.kl_divergence": Spec(B.kl_divergence, {"q": A(prob_c, "prob"), "p": A(prob_c, "prob")}, allow_inf=True),
    "accuracy.bounds.chernoff_tail": Spec(
        B.chernoff_tail, {"k": K, "n": N, "p": A(prob_c, "prob"), "method": _choice(["kl", "hoeffding", "article"])},
        allow_inf=True,
    ),
    "accuracy.bounds.kl_upper": Spec(B.kl_upper, {"k": K, "n": N, "alpha": AL}, in01),
    "accuracy.bounds.kl_lower": Spec(B.kl_lower, {"k": K, "n": N, "alpha": AL}, in01),
    "accuracy.bounds.normal_upper": Spec(B.normal_upper, {"k": K, "n": N, "alpha": AL}),
    "accuracy.bounds.normal_lower": Spec(B.normal_lower, {"k": K, "n": N, "alpha": AL}),
    "accuracy.bounds.two_sigma_upper": Spec(B.two_sigma_upper, {"k": K, "n": N}),
    "accuracy.bounds.score_upper": Spec(B.score_upper, {"k": K, "n": N, "alpha": AL, "continuity": _flag()}, in01, keyword=("continuity",)),
    "accuracy.bounds.clopper_pearson": Spec(B.clopper_pearson, {"k": K, "n": N, "alpha": AL}, ordered_pair, keyword=("alpha",)),
    "accuracy.bounds.interval": Spec(
        B.interval, {"k": K, "n": N, "alpha": AL, "method": A(INTERVALS, "choice")}, ordered_pair,
        keyword=("alpha", "method"),
    ),
    "accuracy.bounds.upper_bound": Spec(B.upper_bound, {"k": K, "n": N, "alpha": AL, "method": A(METHOD_NAMES, "choice")}),
    "accuracy.bounds.coverage": Spec(B.coverage, {"p": A(prob_c, "prob"), "n": A(st.integers(1, 3000), "count"), "alpha": AL}, in01, examples=8),
    "accuracy.bounds.simulate_coverage": Spec(
        B.simulate_coverage, {"p": A(prob_c, "prob"), "n": A(st.integers(1, 3000), "count"), "alpha": AL},
        in01, kwargs={"reps": 200, "seed": 1}, examples=8,
    ),
    "accuracy.bounds.appendix_c_bound": Spec(B.appendix_c_bound, {"k": A(st.integers(0, 60), "count"), "n": A(st.integers(1, 149), "count")}),
    # sizing
    "accuracy.sizing.hoeffding_bound": Spec(S.hoeffding_bound, {"n": N, "range_": A(pos, "pos"), "tolerance": A(pos, "pos")}, in01),
    "accuracy.sizing.hoeffding_size": Spec(S.hoeffding_size, {"range_": A(pos, "pos"), "tolerance": A(pos, "pos"), "alpha": AL}, positive_int),
    "accuracy.sizing.hoeffding_tolerance": Spec(S.hoeffding_tolerance, {"n": N, "range_": A(pos, "pos"), "alpha": AL}),
    "accuracy.sizing.bernstein_size": Spec(
        S.bernstein_size, {"variance": A(pos0, "pos0"), "range_": A(pos, "pos"), "tolerance": A(pos, "pos"), "alpha": AL},
        positive_int,
    ),
    "accuracy.sizing.empirical_bernstein_radius": Spec(
        S.empirical_bernstein_radius, {"n": N, "sample_variance": A(pos0, "pos0"), "range_": A(pos, "pos"), "alpha": AL},
    ),
    "accuracy.sizing.empirical_bernstein_size": Spec(
        S.empirical_bernstein_size,
        {"sample_variance": A(pos0, "pos0"), "range_": A(pos, "pos"), "tolerance": A(pos, "pos"), "alpha": AL},
        positive_int,
    ),
    "accuracy.sizing.normal_size": Spec(S.normal_size, {"variance": A(pos0, "pos0"), "tolerance": A(pos, "pos"), "alpha": AL}, positive_int),
    "accuracy.sizing.binomial_deviation_probability": Spec(
        S.binomial_deviation_probability, {"n": N, "p": A(prob_c, "prob"), "tolerance": A(pos, "pos")}, in01
    ),
    "accuracy.sizing.binomial_size": Spec(
        S.binomial_size,
        {"tolerance": A(st.floats(0.05, 0.9), "prob"), "alpha": A(st.floats(1e-3, 0.5), "prob"),
         "p": A(st.one_of(st.none(), prob_c), "prob", accepts=(None,)), "rule": _choice(["stable", "first"])},
        positive_int, keyword=("rule",), examples=8,
    ),
    "accuracy.deviation.lattice_deviation_probability": Spec(
        DV.lattice_deviation_probability,
        {"losses": _losses(), "size": A(st.integers(1, 500), "count"), "tolerance": A(pos, "pos")},
        ordered_pair, examples=8,
    ),
    "accuracy.deviation.simulate_deviation": Spec(
        DV.simulate_deviation,
        {"losses": _losses(), "size": A(st.integers(1, 200), "count"), "tolerance": A(pos, "pos")},
        kwargs={"reps": 50, "seed": 2}, examples=6,
    ),
    "accuracy.deviation.simulate_empirical_bernstein": Spec(
        DV.simulate_empirical_bernstein,
        {"losses": _losses(), "size": A(st.integers(2, 200), "count"), "range_": A(st.floats(10, 100), "pos"), "alpha": AL},
        lambda r, v: 0 <= r.probability <= 1, kwargs={"reps": 50, "seed": 3}, examples=6,
    ),
    # acceptance
    "accuracy.acceptance.z_value": Spec(AC.z_value, {"alpha": AL}),
    "accuracy.acceptance.accuracy_sd": Spec(AC.accuracy_sd, {"accuracy": A(prob_c, "prob"), "n": N}),
    "accuracy.acceptance.within_sd_probability": Spec(AC.within_sd_probability, {"accuracy": AL, "n": N, "k_sd": A(pos, "pos")}, in01),
    "accuracy.acceptance.safety_margin": Spec(AC.safety_margin, {"required": AL, "n": N, "alpha": AL}),
    "accuracy.acceptance.threshold": Spec(AC.threshold, {"required": AL, "n": N, "alpha": AL}),
    "accuracy.acceptance.p_value_normal": Spec(AC.p_value_normal, {"correct": K, "n": N, "required": AL, "continuity": _flag()}, in01, keyword=("continuity",)),
    "accuracy.acceptance.p_value_exact": Spec(AC.p_value_exact, {"correct": K, "n": N, "required": AL}, in01),
    "accuracy.acceptance.critical_count": Spec(
        AC.critical_count, {"n": N, "required": AL, "alpha": AL, "method": _choice(["exact", "normal"])}, positive_int,
        keyword=("method",),
    ),
    "accuracy.acceptance.accept": Spec(AC.accept, {"correct": K, "n": N, "required": AL, "alpha": AL}),
    "accuracy.acceptance.actual_level": Spec(AC.actual_level, {"n": N, "required": AL, "alpha": AL, "method": _choice(["exact", "normal"])}, in01, keyword=("method",)),
    "accuracy.acceptance.normal_margin_size": Spec(AC.normal_margin_size, {"required": AL, "margin": A(pos, "pos"), "alpha": AL}, positive_int),
    "accuracy.acceptance.exact_margin_size": Spec(
        AC.exact_margin_size, {"required": AL, "margin": A(st.floats(0.01, 0.5), "pos"), "alpha": AL,
                               "rule": _choice(["stable", "first", "both"])},
        positive_int, keyword=("rule",), examples=8,
    ),
    "accuracy.acceptance.size_table": Spec(
        AC.size_table, {"required": A(st.lists(st.floats(0.5, 0.95), min_size=1, max_size=2), "array"),
                        "margins": A(st.lists(st.floats(0.03, 0.2), min_size=1, max_size=2), "array"),
                        "alphas": A(st.lists(st.floats(0.01, 0.2), min_size=1, max_size=2), "array")},
        allow_nan=True, examples=5, aliases=("alpha", "margin"),
    ),
    "accuracy.acceptance.pass_probability": Spec(
        AC.pass_probability, {"true_accuracy": A(prob_c, "prob"), "n": N, "required": AL, "alpha": AL}, in01
    ),
    "accuracy.acceptance.simulate_pass_rate": Spec(
        AC.simulate_pass_rate, {"true_accuracy": A(prob_c, "prob"), "n": N, "required": AL, "alpha": AL},
        in01, kwargs={"reps": 500, "seed": 1}, examples=8,
    ),
    "accuracy.acceptance.power_normal": Spec(AC.power_normal, {"true_accuracy": A(prob_c, "prob"), "n": N, "required": AL, "alpha": AL}, in01),
    "accuracy.acceptance.power_size_normal": Spec(
        AC.power_size_normal, {"required": AL, "true_accuracy": A(prob_c, "prob"), "alpha": AL, "power": AL}, positive_int
    ),
    "accuracy.acceptance.power_size_exact": Spec(
        AC.power_size_exact,
        {"required": A(st.floats(0.05, 0.9), "prob"), "true_accuracy": A(st.floats(0.1, 1.0), "prob"),
         "alpha": A(st.floats(0.001, 0.5), "prob")},
        positive_int, examples=8,
    ),
    "accuracy.acceptance.class_sample_size": Spec(AC.class_sample_size, {"n_class": N, "prevalence": AL, "assurance": AL}, positive_int),
    "accuracy.acceptance.posterior_above": Spec(
        AC.posterior_above, {"correct": K, "n": N, "required": AL,
                             "prior": A(st.sampled_from(["uniform", "jeffreys", (2.0, 3.0)]), "choice")},
        in01, keyword=("prior",),
    ),
    "accuracy.acceptance.bayes_null_probability": Spec(AC.bayes_null_probability, {"correct": K, "n": N, "required": AL, "prior_null": AL}, in01),
    # lost
    "accuracy.lost.corrected_alpha": Spec(
        LO.corrected_alpha, {"a_hat": A(prob_c, "prob"), "data_accuracy": A(prob_c, "prob"), "batches": N,
                             "method": _choice(["printed", "intended"])},
        keyword=("method",),
    ),
    "accuracy.lost.article_expectation": Spec(LO.article_expectation, {"test_accuracy": A(prob_c, "prob"), "data_accuracy": A(prob_c, "prob"), "batches": N}, in01),
    "accuracy.lost.estimator_moments": Spec(LO.estimator_moments, {"data_accuracy": A(prob_c, "prob"), "rows": N, "test_rows": N, "batches": N}),
    "accuracy.lost.log10_subsets": Spec(LO.log10_subsets, {"rows": N, "test_rows": N}),
    "accuracy.lost.prob_test_set_drawn": Spec(LO.prob_test_set_drawn, {"rows": N, "test_rows": N, "batches": N}, in01),
    "accuracy.lost.batches_needed": Spec(LO.batches_needed, {"rows": N, "test_rows": N, "probability": AL}),
    "accuracy.lost.expectation_given_drawn": Spec(
        LO.expectation_given_drawn,
        {"test_accuracy": A(prob_c, "prob"), "data_accuracy": A(prob_c, "prob"), "rows": N, "test_rows": N, "batches": N},
    ),
    "accuracy.lost.data_accuracy": Spec(
        LO.data_accuracy, {"train_accuracy": A(prob_c, "prob"), "test_accuracy": A(prob_c, "prob"), "train_rows": K, "test_rows": N}, in01,
    ),
    "accuracy.lost.test_accuracy": Spec(
        LO.test_accuracy, {"data_accuracy": A(prob_c, "prob"), "train_accuracy": A(prob_c, "prob"), "train_rows": K, "test_rows": N}, in01,
    ),
    "accuracy.lost.test_accuracy_bounds": Spec(LO.test_accuracy_bounds, {"data_accuracy": A(prob_c, "prob"), "train_rows": K, "test_rows": N}, ordered_pair),
    "accuracy.lost.test_accuracy_interval": Spec(
        LO.test_accuracy_interval, {"data_accuracy": A(prob_c, "prob"), "train_rows": K, "test_rows": N, "alpha": AL},
        ordered_pair, keyword=("alpha",),
    ),
    "accuracy.lost.interval_coverage": Spec(
        LO.interval_coverage,
        {"accuracy": A(prob_c, "prob"), "train_rows": A(small1, "count"), "test_rows": A(small1, "count"),
         "train_correct": A(st.integers(0, 60), "count")},
        in01, examples=8,
    ),
    "accuracy.lost.fresh_expected_width": Spec(
        LO.fresh_expected_width, {"fresh_rows": N, "accuracy": A(prob_c, "prob"), "method": A(INTERVALS, "choice")},
        in01, keyword=("method",),
    ),
    "accuracy.lost.fresh_rows_for_width": Spec(
        LO.fresh_rows_for_width, {"width": A(pos, "pos"), "accuracy": A(prob_c, "prob")},
        kwargs={"max_rows": 10**5}, allow_inf=True,
    ),
    "accuracy.lost.batch_accuracy": Spec(
        LO.batch_accuracy,
        {"correct": A(st.lists(st.sampled_from([0, 1]), min_size=1, max_size=30), "array", accepts=()),
         "test_rows": A(st.integers(1, 30), "count"), "batches": A(st.integers(1, 20), "count"),
         "method": _choice(["rows", "counts"]), "seed": A(st.integers(0, 10), "seed")},
        in01, keyword=("method", "seed"),
    ),
    "accuracy.lost.simulate_key_assumption": Spec(
        LO.simulate_key_assumption,
        {"correct": A(st.just([1, 1, 1, 1, 1, 1, 1, 0, 0, 0]), "array"),
         "test_mask": A(st.just(np.arange(10) < 3), "array"),
         "batches": A(st.integers(1, 50), "count"), "reps": A(st.integers(1, 50), "count")},
        kwargs={"seed": 1}, examples=8,
    ),
    # posterior
    "accuracy.posterior.prior_params": Spec(
        P.prior_params, {"prior": A(st.one_of(st.sampled_from(["uniform", "haldane", "jeffreys"]),
                                              st.tuples(st.floats(0, 5), st.floats(0, 5))), "choice")},
    ),
    "accuracy.posterior.beta_params": Spec(P.beta_params, {"successes": K, "failures": K}),
    "accuracy.posterior.beta_mean": Spec(P.beta_mean, {"a": A(pos, "pos"), "b": A(pos, "pos")}, in01),
    "accuracy.posterior.beta_sd": Spec(P.beta_sd, {"a": A(pos, "pos"), "b": A(pos, "pos")}),
    "accuracy.posterior.article_sd": Spec(P.article_sd, {"k": K, "n": N, "method": _choice(["posterior", "raw"])}, keyword=("method",)),
    "accuracy.posterior.equal_tailed": Spec(P.equal_tailed, {"a": A(pos, "pos"), "b": A(pos, "pos"), "alpha": AL}, ordered_pair, keyword=("alpha",)),
    "accuracy.posterior.hpd": Spec(
        P.hpd, {"a": A(st.floats(1.0, 1e6), "pos"), "b": A(st.floats(1.0, 1e6), "pos"), "alpha": AL},
        ordered_pair, keyword=("alpha",), examples=8,
    ),
    "accuracy.posterior.credible_interval": Spec(
        P.credible_interval, {"k": K, "n": N, "alpha": AL, "method": _choice(["equal", "hpd"])},
        ordered_pair, keyword=("alpha", "method"), examples=10,
    ),
    "accuracy.posterior.BetaPosterior": Spec(P.BetaPosterior, {"a": A(pos, "array"), "b": A(pos, "array")}, corrupt=False),
    # losses
    "accuracy.losses.collared_deviance": Spec(
        L.collared_deviance, {"y": A(st.sampled_from([0, 1]), "count", accepts=(True, False)), "p": A(prob_c, "prob"), "mu": A(st.floats(1e-6, 0.49), "prob")}
    ),
    "accuracy.losses.collared_deviance_range": Spec(L.collared_deviance_range, {"mu": A(st.floats(1e-6, 0.49), "prob")}),
    "accuracy.losses.zero_one_loss": Spec(L.zero_one_loss, {"y": A(st.sampled_from([0, 1]), "count", accepts=(True, False)), "p": A(prob_c, "prob")}, in01),
    "accuracy.losses.classifier_pool": Spec(
        L.classifier_pool, {"n_train": A(st.integers(10, 200), "count"), "n_pool": A(st.integers(1, 300), "count")},
        kwargs={"seed": 1}, examples=3,
    ),
    # split
    "accuracy.split.optimal_test_fraction": Spec(SP.optimal_test_fraction, {"c_test": A(pos0, "pos0"), "c_train": A(pos0, "pos0")}, in01),
    "accuracy.split.optimal_split": Spec(
        SP.optimal_split,
        {"c_test": A(pos0, "pos0"), "c_train": A(pos0, "pos0"),
         "rows": A(st.one_of(st.integers(2, 10**6), st.integers(10**15, 2**63 - 1)), "count")},
    ),
    "accuracy.split.expected_criticism": Spec(
        SP.expected_criticism, {"m_train": A(pos, "pos"), "m_test": A(pos, "pos"), "c_train": A(pos0, "pos0"), "c_test": A(pos0, "pos0")}
    ),
    "accuracy.split.lagrange_multiplier": Spec(
        SP.lagrange_multiplier, {"c_test": A(pos0, "pos0"), "c_train": A(pos0, "pos0"), "rows": A(st.floats(2, 1e12), "pos")}
    ),
    "accuracy.split.optimal_split_power": Spec(
        SP.optimal_split_power,
        {"c_test": A(pos, "pos"), "c_train": A(pos, "pos"), "rows": A(st.integers(2, 10**9), "count"),
         "train_exponent": A(st.floats(0.1, 3), "pos")},
    ),
    # regression
    "metrics.regression.mse": Spec(R.mse, {"y": A(st.lists(real, min_size=2, max_size=20), "array")}, prepare=None, kwargs={}),
}  # fmt: skip


def _with_zero_predictions(func, **fixed):
    def call(y, **kw):
        return func(y, np.zeros(len(y)) if isinstance(y, list) else 0.0, **fixed, **kw)

    call.__qualname__ = func.__qualname__
    return call


SPECS["metrics.regression.mse"] = Spec(
    _with_zero_predictions(R.mse), {"y": A(st.lists(real, min_size=2, max_size=20), "array")}
)
SPECS["metrics.regression.mse_se"] = Spec(
    _with_zero_predictions(R.mse_se),
    {
        "y": A(st.lists(real, min_size=2, max_size=20), "array"),
        "method": _choice(["clt", "normal", "article"]),
    },
    keyword=("method",),
)
SPECS["metrics.regression.mse_interval"] = Spec(
    _with_zero_predictions(R.mse_interval, draws=50, seed=1),
    {
        "y": A(st.lists(real, min_size=2, max_size=20), "array"),
        "alpha": AL,
        "method": _choice(list(R.METHODS)),
    },
    keyword=("alpha", "method"),
)
SPECS["metrics.regression.sample_residuals"] = Spec(
    R.sample_residuals,
    {
        "kind": _choice(["normal", "laplace", "t"]),
        "size": A(st.integers(1, 100), "count"),
        "df": A(st.floats(2.5, 30), "pos", accepts=(1e300,)),
    },
    keyword=("df",),
    kwargs={"seed": 1},
)
SPECS["metrics.regression.mse_coverage"] = Spec(
    R.mse_coverage,
    {"n": A(st.integers(2, 50), "count"), "alpha": AL},
    keyword=("alpha",),
    kwargs={"reps": 50, "draws": 20, "seed": 1, "methods": ("clt", "chi2", "bootstrap")},
    examples=5,
)


# every spec above: random valid and bad input, then each bad value of SWEEP in each argument
test_random_valid_and_invalid_input, test_every_argument_refuses_every_kind_of_bad_value = (
    spec_tests(SPECS)
)


# ----------------------------------------------------------------- monotone where the maths says so
@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    k=st.integers(0, 10**6),
    n=st.one_of(st.integers(1, 10**6), st.integers(10**6, 10**18)),
    a=prob,
)
def test_bounds_are_monotone_in_k(k, n, a):
    k = min(k, n - 1)
    for f in (B.exact_upper, B.exact_lower, B.kl_upper, B.kl_lower, B.score_upper):
        assert f(k, n, a) <= f(k + 1, n, a), f.__name__
    assert B.exact_lower(k, n, a) <= k / n <= B.exact_upper(k, n, a)
    assert B.score_upper(k, n, a) <= B.score_upper(k, n, a, continuity=True)
    for method in B.INTERVAL_METHODS:
        low, high = B.interval(k, n, alpha=min(a, 0.999), method=method, clip=True)
        assert low <= high


@settings(max_examples=30, deadline=None, derandomize=True)
@given(t=st.floats(1e-4, 0.5), a=prob, u=st.floats(0.1, 100))
def test_sizes_shrink_as_the_tolerance_grows(t, a, u):
    for size in (
        S.hoeffding_size,
        lambda u, t, a: S.bernstein_size(u * u / 8, u, t, a),
        S.empirical_bernstein_size.__wrapped__
        and (lambda u, t, a: S.empirical_bernstein_size(u * u / 8, u, t, a)),
    ):
        try:
            big, small = size(u, t, a), size(u, 2 * t, a)
        except ValueError as exc:
            assert str(exc).startswith("the size exceeds")
            continue
        assert small <= big


@settings(max_examples=20, deadline=None, derandomize=True)
@given(n=st.integers(1, 10**9), rho=st.floats(1e-3, 0.999), g=st.floats(0.01, 0.999))
def test_class_sample_size_grows_with_the_class_count(n, rho, g):
    try:
        a, b = AC.class_sample_size(n, rho, g), AC.class_sample_size(n + 1, rho, g)
    except ValueError as exc:
        assert str(exc).startswith("the size exceeds")
        return
    assert a <= b


@settings(max_examples=25, deadline=None, derandomize=True)
@given(n=st.integers(1, 10**6), p0=st.floats(0.05, 0.95), a=alpha)
def test_pass_probability_grows_with_the_true_accuracy(n, p0, a):
    pis = np.linspace(0, 1, 11)
    for method in ("exact", "normal"):
        power = np.asarray(AC.pass_probability(pis, n, p0, a, method=method))
        assert np.all(np.diff(power) >= -1e-12), method


# ----------------------------------------------------------------- the commands
def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse refusals
            code = exc.code
    assert time.process_time() - start < CALL_LIMIT, argv
    return code, out.getvalue(), err.getvalue()


def _token(value):
    return value if isinstance(value, str) else repr(value)


number = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-5, 10**6),
    st.sampled_from(
        ["1e9", "1e300", "-0", "nan", "x", "9223372036854775808", "0.05", "1_000", "0.5"]
    ),
)
small_number = st.one_of(
    st.floats(-1, 2), st.integers(-2, 200), st.sampled_from(["0.05", "0.9", "nan", "x", "10"])
)
_files = tempfile.mkdtemp(prefix="heldout-properties-")
atexit.register(shutil.rmtree, _files, ignore_errors=True)


def _write(name: str, text: str) -> str:
    path = os.path.join(_files, name)
    with open(path, "w") as fh:
        fh.write(text)
    return path


def _csv(rows):
    return "\n".join(",".join(str(v) for v in row) for row in rows) + "\n"


# predictions of three models on 40 items (labels and predicted labels), some cluster columns
_gen = np.random.default_rng(0)
_y = _gen.integers(0, 2, 40)
_pred = {
    m: np.where(_gen.random(40) < acc, _y, 1 - _y)
    for m, acc in (("a", 0.9), ("b", 0.8), ("c", 0.7))
}
PREDICTIONS = _write(
    "predictions.csv",
    _csv(
        [["label", "a", "b", "c", "cluster", "stratum", "score"]]
        + [
            [
                _y[i],
                _pred["a"][i],
                _pred["b"][i],
                _pred["c"][i],
                i // 4,
                i % 2,
                round(_gen.random(), 3),
            ]
            for i in range(40)
        ]
    ),
)
ONE_MODEL = _write("one.csv", _csv([["label", "a"], [1, 1], [0, 1]]))
NOT_CSV = _write("broken.csv", "label,a\n1,2,3\n\x00\n")
SCORES = _write(
    "scores.csv", _csv([["a", "b"]] + [[0.8 + 0.01 * i, 0.79 + 0.012 * i] for i in range(10)])
)
MANY_DATASETS = _write(
    "many_datasets.csv",
    _csv(
        [["dataset", "a", "b", "c"]]
        + [[f"d{i}", 0.8 + 0.01 * i, 0.79 + 0.012 * i, 0.8] for i in range(6)]
    ),
)
OUTCOMES = _write("outcomes.csv", _csv([[v] for v in (_gen.random(60) < 0.9).astype(int)]))
files = st.sampled_from([PREDICTIONS, ONE_MODEL, NOT_CSV, "/nonexistent/file.csv", _files])
# graded answers of two models, three samples each, questions in clusters, some gold grades
GRADED = _write(
    "graded.csv",
    _csv(
        [["model", "question", "sample", "judge", "gold", "cluster"]]
        + [
            [
                m,
                f"q{q}",
                s,
                int(_gen.random() < 0.6),
                "" if _gen.random() < 0.8 else int(_gen.random() < 0.6),
                q // 3,
            ]
            for m in ("a", "b")
            for q in range(12)
            for s in range(3)
        ]
    ),
)
ANSWER_TEXTS = [
    '{"1c": 0.0119, "2a": [0.0125, 0.0415], "3a": 124}',
    '{"1": 0.03, "2": "b", "3": [1, 2], "4": {"x": 1}, "5": null}',
    '{"1a": 1e400, "2a": "x", "3a": 10000000000000000000000000000000000000000000}',
    '{"9z": 1}',
    "[1, 2]",
    "{1,",
    '{"1c": NaN, "2b": Infinity}',
]
answer_files = st.sampled_from(
    [_write(f"answers{i}.json", t) for i, t in enumerate(ANSWER_TEXTS)]
    + ["/nonexistent/a.json", _files]
)
score_lists = st.sampled_from(["0.8,0.82,0.79,0.85,0.81", "0.7,0.71", "x,y", "nan,1", "0.9"])


def _options(opts: dict):
    return opts


#: Each command: the words that select it and {option: strategy of its value (None: a flag)}.
COMMANDS = {
    "bound": (
        ["bound"],
        {
            "--errors": number,
            "--n": number,
            "--alpha": number,
            "--delta": number,
            "--method": st.sampled_from(["wilson", "wilson-cc", "exact", "x"]),
        },
    ),
    "accept": (
        ["accept"],
        {"--correct": number, "--n": number, "--required": number, "--alpha": number},
    ),
    "lost": (
        ["lost"],
        {
            "--data-accuracy": number,
            "--train-rows": number,
            "--test-rows": number,
            "--train-accuracy": number,
            "--rows": number,
            "--alpha": number,
            "--level": number,
        },
    ),
    "split": (["split"], {"--c-test": number, "--c-train": number, "--rows": number}),
    "size hoeffding": (
        ["size", "hoeffding"],
        {
            "--range": number,
            "--mu": number,
            "--base": st.sampled_from(["2", "e", "7"]),
            "--tolerance": number,
            "--alpha": number,
            "--epsilon": number,
        },
    ),
    "size bernstein": (
        ["size", "bernstein"],
        {
            "--range": number,
            "--variance": number,
            "--tolerance": number,
            "--alpha": number,
            "--empirical": None,
        },
    ),
    "size binomial": (
        ["size", "binomial"],
        {"--tolerance": number, "--alpha": number, "--p": number, "--first": None},
    ),
    "size normal": (
        ["size", "normal"],
        {"--variance": number, "--tolerance": number, "--alpha": number},
    ),
    "size accuracy": (
        ["size", "accuracy"],
        {"--required": number, "--margin": number, "--alpha": number, "--power": number},
    ),
    "size compare": (
        ["size", "compare"],
        {
            "--accuracy": number,
            "--gap": number,
            "--models": number,
            "--power": number,
            "--paired": None,
            "--accuracy-a": number,
            "--accuracy-b": number,
            "--disagreement": number,
            "--alpha": number,
            "--alternative": st.sampled_from(["two-sided", "greater", "x"]),
        },
    ),
    "size clustered": (
        ["size", "clustered"],
        {
            "--accuracy": small_number,
            "--variance": small_number,
            "--half-width": small_number,
            "--icc": small_number,
            "--cluster-size": small_number,
            "--cost-cluster": small_number,
            "--cost-item": small_number,
            "--max-cluster-size": small_number,
            "--alpha": small_number,
            "--method": st.sampled_from(["t", "normal", "x"]),
        },
    ),
    "size auc": (
        ["size", "auc"],
        {
            "--auc": small_number,
            "--half-width": small_number,
            "--prevalence": small_number,
            "--alpha": small_number,
            "--power": small_number,
            "--null-auc": small_number,
            "--method": st.sampled_from(["hanley-mcneil", "obuchowski", "x"]),
        },
    ),
    "compare": (
        ["compare"],
        {
            "--predictions": files,
            "--label": st.sampled_from(["label", "nope"]),
            "--alpha": small_number,
            "--a": st.sampled_from(["90/100", "9/10", "x", "5/3"]),
            "--b": st.sampled_from(["80/100", "1/10", "-1/4"]),
            "--prior": st.sampled_from(["uniform", "jeffreys", "x"]),
            "--alternative": st.sampled_from(["two-sided", "less", "x"]),
            "--only-a-correct": small_number,
            "--only-b-correct": small_number,
        },
    ),
    "clustered": (
        ["clustered", PREDICTIONS],
        {
            "--cluster": st.sampled_from(["cluster", "nope", "label"]),
            "--label": st.sampled_from(["label", "nope"]),
            "--model": st.sampled_from(["a", "b", "nope"]),
            "--stratum": st.sampled_from(["stratum", "nope"]),
            "--alpha": small_number,
            "--bootstrap": small_number,
            "--seed": small_number,
        },
    ),
    "cv-compare": (
        ["cv-compare"],
        {
            "--scores-a": score_lists,
            "--scores-b": score_lists,
            "--file": st.sampled_from([SCORES, NOT_CSV, "/nonexistent"]),
            "--method": st.sampled_from(["corrected", "naive", "5x2cv-t", "x"]),
            "--test-fraction": small_number,
            "--alternative": st.sampled_from(["two-sided", "greater", "x"]),
            "--rope": small_number,
        },
    ),
    "compare-learners": (
        ["compare-learners", MANY_DATASETS],
        {
            "--control": st.sampled_from(["a", "b", "nope"]),
            "--adjust": st.sampled_from(["holm", "hommel", "by", "x"]),
            "--method": st.sampled_from(["wilcoxon", "sign", "x"]),
            "--rope": small_number,
            "--alpha": small_number,
            "--draws": st.sampled_from(["200", "0", "x"]),
            "--seed": small_number,
            "--lower-is-better": None,
        },
    ),
    "evaluate": (
        ["evaluate", PREDICTIONS],
        {
            "--label": st.sampled_from(["label", "nope"]),
            "--models": st.sampled_from(["a,b", "a", "nope"]),
            "--alpha": small_number,
            "--resamples": st.sampled_from(["100", "50", "0", "x"]),
            "--seed": small_number,
            "--level": small_number,
            "--threshold": small_number,
            "--scores": None,
            "--labels": None,
            "--cluster": st.sampled_from(["cluster", "stratum", "nope"]),
            "--stratum": st.sampled_from(["stratum", "cluster", "nope"]),
            "--shares": st.sampled_from(["0=0.5,1=0.5", "0=0.2", "x", "0=-1,1=2"]),
            "--at-specificity": st.sampled_from(["0.9", "0.5,0.95", "1.5", "x"]),
            "--at-sensitivity": st.sampled_from(["0.8", "-1"]),
            "--partial-auc": st.sampled_from(["0.8:1", "0.9:0.8", "a:b", "0.5"]),
            "--calibration": None,
            "--threshold-tuned": st.sampled_from(["f1", "accuracy", "auc"]),
        },
    ),
    "label": (
        ["label", OUTCOMES],
        {
            "--required": small_number,
            "--alpha": small_number,
            "--beta": small_number,
            "--batch": small_number,
            "--pool": small_number,
            "--method": st.sampled_from(["betting", "mixture", "x"]),
        },
    ),
    "judged": (
        ["judged"],
        {
            "--right-passed": small_number,
            "--right-failed": small_number,
            "--wrong-passed": small_number,
            "--wrong-failed": small_number,
            "--judge-passed": small_number,
            "--judge-items": small_number,
            "--alpha": small_number,
        },
    ),
    "size gold": (
        ["size", "gold"],
        {
            "--half-width": small_number,
            "--rate": small_number,
            "--sensitivity": small_number,
            "--specificity": small_number,
            "--judge-items": small_number,
            "--alpha": small_number,
        },
    ),
    "bench-eval": (
        ["bench-eval", GRADED],
        {
            "--k": st.sampled_from(["1", "1,3", "0", "5", "x"]),
            "--method": st.sampled_from(["auto", "exact", "wilson", "t", "x"]),
            "--alpha": small_number,
            "--power": small_number,
            "--plan-questions": small_number,
            "--plan-difference": small_number,
        },
    ),
    "rerun": (["rerun"], {"--quick": None}),
    "check": (["check"], {}),
    "mnist": (["mnist"], {"--dir": st.sampled_from(["/nonexistent", _files])}),
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_commands_answer_or_refuse_in_one_line(command):
    head, options = COMMANDS[command]
    examples = {"evaluate": 6, "clustered": 10, "compare": 15, "rerun": 5, "mnist": 4}.get(
        command, 25
    )

    @settings(
        max_examples=scaled(examples),
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(data=st.data())
    def inner(data):
        argv = list(head)
        if command == "rerun":  # running a chapter is too slow here: only refusals are exercised
            argv.append(
                data.draw(st.sampled_from(["no_such_chapter", "test_set_bound"]), label="chapter")
            )
            argv.append(
                data.draw(st.sampled_from(["k=", "=3", "k", "k=1 2"]), label="bad assignment")
            )
        if command == "check":  # an assessment and a file of answers, good or bad
            argv.append(data.draw(st.sampled_from(["ps1", "quiz3", "exam", "ps9"]), label="name"))
            argv.append(data.draw(answer_files, label="answers"))
        if command == "mnist":
            argv.append(data.draw(st.sampled_from(["check", "nope"]), label="action"))
        for option, strategy in options.items():
            if data.draw(st.booleans(), label=f"give {option}"):
                argv += (
                    [option]
                    if strategy is None
                    else [option, _token(data.draw(strategy, label=option))]
                )
        argv.append("--json")
        code, out, err = _cli(argv)
        if code == 0:
            assert err == "", (argv, err)
            result = json.loads(out)
            # finite numbers only (the command refuses NaN and infinities; null means "not given")
            assert isinstance(result, dict) and numbers_ok(result), out
        else:
            assert code == 2, (argv, code, err)
            assert out == "" and len(err.splitlines()) == 1, (argv, err)
            assert "Traceback" not in err and "Warning" not in err and "array(" not in err, err

    inner()
