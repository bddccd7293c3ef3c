"""heldout.accuracy.losses against direct, element-by-element computation (math, mpmath)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heldout.accuracy.losses import (
    classifier_pool,
    collared_deviance,
    collared_deviance_range,
    zero_one_loss,
)


def _direct(y, p, mu, log):
    """The article's formula, one row at a time, with the math module."""
    return -2.0 * (y * log(max(mu, p)) + (1 - y) * log(max(mu, 1 - p)))


@pytest.mark.parametrize(("base", "log"), [(2, math.log2), ("e", math.log), (10, math.log10)])
def test_collared_deviance_matches_direct_formula(base, log):
    gen = np.random.default_rng(7)
    y = gen.integers(0, 2, 500)
    p = np.concatenate(
        [gen.uniform(0, 1, 490), [0.0, 1.0, 0.005, 0.995, 0.01, 0.99, 0.5, 1e-9, 1 - 1e-9, 0.2]]
    )
    got = collared_deviance(y, p, 0.01, base=base)
    want = [_direct(int(a), float(b), 0.01, log) for a, b in zip(y, p, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_range_is_minus_two_log2_mu_to_high_precision():
    mpmath.mp.dps = 30
    want = -2 * mpmath.log(mpmath.mpf("0.01"), 2)
    assert collared_deviance_range(0.01) == pytest.approx(float(want), rel=1e-15)
    assert collared_deviance_range(0.01) < 14  # the article's 14 is a rounding up
    assert collared_deviance_range(0.01, base="e") == pytest.approx(
        float(-2 * mpmath.log(mpmath.mpf("0.01")))
    )


def test_extremes_of_the_range_are_attained():
    mu = 0.01
    # a confident, correct prediction costs 0; a wrong one beyond the collar costs the maximum
    assert collared_deviance(1, 1.0, mu) == 0.0
    assert collared_deviance(0, 0.0, mu) == 0.0
    assert collared_deviance(1, 0.0, mu) == pytest.approx(collared_deviance_range(mu))
    assert collared_deviance(1, 0.003, mu) == pytest.approx(collared_deviance_range(mu))
    assert collared_deviance(0, 0.999, mu) == pytest.approx(collared_deviance_range(mu))
    # at p = 1/2 the deviance is exactly 2 bits
    assert collared_deviance(1, 0.5, mu) == pytest.approx(2.0)


@settings(max_examples=60, deadline=None)
@given(
    y=st.lists(st.integers(0, 1), min_size=1, max_size=30),
    p=st.floats(0, 1),
    mu=st.floats(1e-6, 0.5),
)
def test_values_lie_in_the_stated_range(y, p, mu):
    loss = np.atleast_1d(collared_deviance(y, p, mu))
    assert np.all(loss >= 0)
    assert np.all(loss <= collared_deviance_range(mu) * (1 + 1e-12))


def test_broadcasting_and_scalar_output():
    assert isinstance(collared_deviance(1, 0.5), float)
    out = collared_deviance([0, 1], [[0.2], [0.7]], 0.01)
    assert out.shape == (2, 2)


def test_zero_one_loss_matches_direct():
    gen = np.random.default_rng(3)
    y = gen.integers(0, 2, 200)
    p = gen.uniform(0, 1, 200)
    want = [float((1 if b > 0.5 else 0) != a) for a, b in zip(y, p, strict=True)]
    np.testing.assert_array_equal(zero_one_loss(y, p), want)
    assert zero_one_loss(1, 0.5) == 1.0  # 0.5 is not above the threshold


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"y": [0, 2], "p": 0.5}, "y"),
        ({"y": 1, "p": 1.5}, "p"),
        ({"y": 1, "p": float("nan")}, "p"),
        ({"y": 1, "p": 0.5, "mu": 0.0}, "mu"),
        ({"y": 1, "p": 0.5, "mu": 0.7}, "mu"),
        ({"y": 1, "p": 0.5, "base": 3}, "base"),
        ({"y": [0, 1, 1], "p": [0.1, 0.2]}, "y and p"),
    ],
)
def test_bad_input_names_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        collared_deviance(**kwargs)


def test_bad_range_input():
    with pytest.raises(ValueError, match="mu"):
        collared_deviance_range(-0.1)
    with pytest.raises(ValueError, match="threshold"):
        zero_one_loss(1, 0.5, threshold=2)


def test_classifier_pool_losses_agree_with_the_model():
    pool = classifier_pool(n_train=400, n_pool=600, seed=11)
    assert pool.y.shape == pool.p.shape == (600,)
    np.testing.assert_allclose(pool.deviance, collared_deviance(pool.y, pool.p, 0.01))
    predicted = pool.model.predict_proba(np.zeros((1, 20)))  # the model really is fitted
    assert predicted.shape == (1, 2)
    # the 0-1 loss is the model's own misclassification (sklearn's threshold is also 0.5)
    assert pool.zero_one.mean() == pytest.approx(np.mean((pool.p > 0.5) != pool.y))
    assert 0.5 < pool.train_accuracy <= 1.0
    assert pool.range == pytest.approx(-2 * math.log2(0.01))
    with pytest.raises(ValueError, match="n_pool"):
        classifier_pool(n_train=100, n_pool=0)
