"""Issue 31: the last bad inputs, one test per class of case (the API side).

Classes: wrong answers with no error (label overflow, negative sizes); errors swallowed
into a result; exception types (Python ints of 10**400, booleans and complex numbers
given as counts or probabilities: one ValueError naming the argument); work sizes
refused by name before anything is allocated.  The command line's side is in
``tests/cli/test_cli_bad_input.py`` and ``tests/cli/test_cli_fuzz.py``; tails that
cancelled are in ``tests/comparison/test_tails.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from heldout import _checks, _inputs
from heldout.accuracy import acceptance, bounds
from heldout.book import metric_coverage
from heldout.comparison import compare, paired
from heldout.dependent import strata
from heldout.metrics import auc_sizing as AZ
from heldout.metrics.evaluate import evaluate
from heldout.resampling import cv_scores
from heldout.sequential import sprt


# ----------------------------------------------------------------------- wrong answers, exit 0
@pytest.mark.parametrize("big", [2**63, 1e300, -(2**63), float(2**62)])
def test_labels_too_large_for_int64_are_refused_not_wrapped(big):
    y = np.array([0.0, 1.0, 0.0, 1.0, float(big)])
    with pytest.raises(ValueError, match="too large for a class label"):
        evaluate(y, {"m": np.array([0, 1, 0, 1, 1])}, n_resamples=100, seed=1)
    with pytest.raises(ValueError, match="too large for a class label"):
        evaluate(np.array([0, 1, 0, 1, 1]), {"m": y}, n_resamples=100, seed=1)
    with pytest.raises(ValueError, match="too large"):
        _inputs.class_labels(np.array([0, 1, 2**63], dtype=np.uint64))


def test_auc_size_with_a_vanishing_prevalence_is_refused_not_negative():
    with pytest.raises(ValueError, match="the size exceeds 2\\*\\*63 - 1"):
        AZ.auc_power_size(0.85, 1e-300, null_auc=0.5, power=0.8)
    # a small but possible prevalence: n0 = ceil(n1 (1 - pi)/pi), a positive size
    s = AZ.auc_power_size(0.85, 1e-6, null_auc=0.5, power=0.8)
    assert s.n_negative == pytest.approx(s.n_positive * (1 - 1e-6) / 1e-6, abs=1)
    assert s.n > 0 and s.n_negative > 0


def test_neyman_allocation_with_huge_standard_deviations():
    # proportional to W_h S_h: scaling every sd by the same factor changes nothing
    small = strata.neyman_allocation(1000, [0.5, 0.3, 0.2], [1.0, 3.0, 2.0])
    large = strata.neyman_allocation(1000, [0.5, 0.3, 0.2], [1e140, 3e140, 2e140])
    assert large.sizes.tolist() == small.sizes.tolist()
    assert np.all(large.sizes >= 0) and large.sizes.sum() == 1000
    with pytest.raises(ValueError, match="sds must be at most"):
        strata.neyman_allocation(100, [0.5, 0.5], [1e308, 1.0])


@pytest.mark.parametrize("margin", [1.0, 1.5, 10.0])
def test_size_table_refuses_margins_of_one_or_more(margin):
    with pytest.raises(ValueError, match="margins must be below 1"):
        acceptance.size_table(0.9, [0.05, margin])
    table = acceptance.size_table(0.9, [0.05], alphas=[0.05])
    assert table.normal.min() > 0 and table.exact.min() > 0


# ----------------------------------------------------------------------- errors swallowed
@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n_resamples": 0}, "n_resamples"),
        ({"n_resamples": 2.5}, "n_resamples"),
        ({"n_resamples": True}, "n_resamples"),
        ({"seed": "x"}, "seed"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
    ],
)
def test_evaluate_raises_for_a_bad_resampling_setting(kwargs, name):
    y = np.array([0, 1] * 30)
    with pytest.raises(ValueError, match=name):
        evaluate(y, {"m": y.copy()}, **kwargs)


def test_bootstrap_coverage_refuses_a_bad_alpha_instead_of_nan():
    for alpha in (1.5, 0.0, float("nan")):
        with pytest.raises(ValueError, match="alpha"):
            metric_coverage.bootstrap_coverage("f1", 200, 0.3, 0.85, 0.9, reps=5, alpha=alpha)


# ----------------------------------------------------------------------- exception types
BAD_NUMBERS = [10**400, -(10**400), True, False, complex(3, 0), complex(1, 1)]


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_count_helpers_refuse_huge_ints_booleans_and_complex_by_name(bad):
    for helper in (
        lambda v: _checks.as_count(v, "n"),
        lambda v: _checks.as_probability(v, "n"),
        lambda v: _checks.as_positive(v, "n"),
        lambda v: _checks.as_real(v, "n"),
        lambda v: _inputs.count(v, "n"),
        lambda v: cv_scores.whole(v, "n"),
        lambda v: cv_scores.number(v, "n"),
    ):
        with pytest.raises(ValueError, match=r"^n "):
            helper(bad)


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_public_functions_refuse_them_with_one_value_error(bad):
    calls = [
        lambda v: bounds.exact_upper(v, 100),
        lambda v: bounds.exact_upper(3, v),
        lambda v: bounds.exact_upper(3, 100, v),
        lambda v: paired.mcnemar_exact(v, 3),
        lambda v: compare.prob_better(v, 100, 40, 100),
        lambda v: compare.required_size(0.9, 0.02, v),
        lambda v: cv_scores.splits(v, k=5),
        lambda v: AZ.auc_power_size(0.8, v),
    ]
    for call in calls:
        with pytest.raises(ValueError):
            call(bad)


def test_boolean_arrays_remain_counts_but_a_single_true_does_not():
    # a 0/1 vector of booleans is a count per item; True alone is an argument out of place
    assert _checks.as_count(np.array([True, False, True]), "k").tolist() == [1, 0, 1]
    with pytest.raises(ValueError, match="boolean"):
        _checks.as_count(True, "k")
    with pytest.raises(ValueError, match="boolean"):
        _checks.as_probability(np.array([True, False]), "p")


# ----------------------------------------------------------------------- work sizes
@pytest.mark.parametrize("tolerance", [0.0, -1.0, float("nan")])
def test_sprt_operating_refuses_a_tolerance_it_can_never_meet(tolerance):
    with pytest.raises(ValueError, match="tolerance"):
        sprt.sprt_operating(0.85, 0.8, 0.9, tolerance=tolerance)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: metric_coverage.auc_coverage("auto", 10**12, 0.3, 0.8), "n times reps"),
        (lambda: metric_coverage.binormal_scores(100, 0.3, 0.8, 10**12), "reps"),
        (
            lambda: metric_coverage.precision_conditional_coverage("wald", 10**12, 0.1, 0.9, 0.9),
            "n",
        ),
        (lambda: metric_coverage.macro_f1_coverage("logit", 100, 10**12, 0.9), "classes"),
        (lambda: cv_scores.splits(10**12, k=5), "n"),
    ],
)
def test_simulations_refuse_work_beyond_their_stated_maximum(call, name):
    with pytest.raises(ValueError, match=name):
        call()
