"""heldout.metrics.roc_band against scikit-learn's roc_curve, an explicit bootstrap and simulation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_curve

from heldout.metrics.simultaneous_band import roc_band


def _data(seed, n1=100, n0=150, decimals=None):
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n1), np.zeros(n0)]
    s = np.r_[rng.normal(1.2, 1, n1), rng.normal(0, 1, n0)]
    return y, (s if decimals is None else s.round(decimals))


def _sk_height(y, s, f):
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    out = []
    for g in f:
        exact = np.isclose(fpr, g, atol=1e-12)
        if exact.any():
            out.append(tpr[exact].max())
            continue
        j = np.searchsorted(fpr, g) - 1
        out.append(tpr[j] + (tpr[j + 1] - tpr[j]) * (g - fpr[j]) / (fpr[j + 1] - fpr[j]))
    return np.array(out)


@pytest.mark.parametrize("decimals", [None, 1])
def test_the_curve_is_scikit_learns_polygon(decimals):
    y, s = _data(1, decimals=decimals)
    b = roc_band(y, s, n_resamples=100, seed=1)
    assert np.allclose(b.tpr, _sk_height(y, s, b.fpr))


def test_the_half_width_matches_an_explicit_bootstrap():
    y, s = _data(2)
    grid = np.linspace(0.05, 0.95, 19)
    b = roc_band(y, s, fpr=grid, n_resamples=3000, seed=1)
    rng = np.random.default_rng(4)
    yb = y.astype(bool)
    devs = []
    for _ in range(1000):
        i = np.r_[
            rng.choice(np.flatnonzero(yb), yb.sum()), rng.choice(np.flatnonzero(~yb), (~yb).sum())
        ]
        devs.append(np.max(np.abs(_sk_height(y[i], s[i], grid) - b.tpr)))
    assert b.half_width == pytest.approx(np.quantile(devs, 0.95), abs=0.02)


def test_the_band_covers_the_true_curve_in_simulation():
    """300 binormal test sets: the whole true curve on the grid inside the band >= 95 % - 3 s.e."""
    rng = np.random.default_rng(5)
    grid = np.linspace(0.05, 0.95, 19)
    truth = stats.norm.sf(stats.norm.ppf(1 - grid) - 1.2)
    reps, hits = 300, 0
    for _ in range(reps):
        y = np.r_[np.ones(150), np.zeros(150)]
        s = np.r_[rng.normal(1.2, 1, 150), rng.normal(0, 1, 150)]
        b = roc_band(y, s, fpr=grid, n_resamples=300, seed=rng)
        hits += np.all((b.low <= truth) & (truth <= b.high))
    assert hits / reps >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / reps)


@pytest.mark.parametrize(
    "kwargs, word",
    [({"alpha": 0}, "alpha"), ({"fpr": [0.1, 1.5]}, "fpr"), ({"n_resamples": 50}, "n_resamples")],
)
def test_bad_input_is_refused_by_name(kwargs, word):
    y, s = _data(0)
    with pytest.raises(ValueError, match=word):
        roc_band(y, s, **kwargs)
