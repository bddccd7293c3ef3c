"""Invalid values that were used as if valid (issue 44): each is now refused by name.

Each row was found by the audit: the call returned a number computed from a value it
should have refused (a zero-width interval from ``df=nan``, negative log losses from
``eps=2.5``, a reversed interval ``[inf, -inf]``...).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from heldout import _dist
from heldout.accuracy.split import measure_criticism
from heldout.comparison.predictions import as_correct
from heldout.dependent.clustered import clustered_difference
from heldout.dependent.repeated import samples_needed
from heldout.metrics.bootstrap import bca_interval
from heldout.metrics.item_losses import log_loss_items

RNG = np.random.default_rng(44)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: bca_interval(0.5, RNG.random(100), RNG.random(20), df=np.nan), "df"),
        (lambda: bca_interval(0.5, RNG.random(100), RNG.random(20), df=-1), "df"),
        (lambda: bca_interval(0.5, [], RNG.random(20)), "boot"),
        (lambda: log_loss_items([0, 1], [0.2, 0.8], eps=-np.inf), "eps"),
        (lambda: log_loss_items([0, 1], [0.2, 0.8], eps=np.nan), "eps"),
        (lambda: log_loss_items([0, 1], [0.2, 0.8], eps=2.5), "eps"),
        (lambda: log_loss_items([0, 1], [0.2, 0.8], eps=1 + 1j), "eps"),
        (lambda: as_correct(np.ones((5, 3), bool), min_models=np.nan), "min_models"),
        (lambda: samples_needed(0.05, 0.01, 0.2, 100, max_samples=2.5), "max_samples"),
        (lambda: measure_criticism([50], [50], 3, batch_rows=np.nan), "batch_rows"),
    ],
)
def test_invalid_values_are_refused_by_name(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_t_quantile_stays_finite_in_the_far_tail():
    """Below about 1e-300 scipy's stdtrit gave an infinite quantile and the clustered
    interval came out as [inf, -inf]; the Beta inversion gives the quantile whose tail,
    recomputed by scipy's betainc, is the tail asked for."""
    for q, df in ((5e-301, 9), (1e-305, 3), (1e-250, 30)):
        t = _dist.t_isf(q, df)
        assert np.isfinite(t) and t > 0
        tail = special.betainc(df / 2, 0.5, df / (df + t * t)) / 2
        assert tail == pytest.approx(q, rel=1e-9)
    assert _dist.t_isf(0.025, 9) == pytest.approx(2.2621571627982, rel=1e-12)
    ids = np.repeat(np.arange(10), 4)
    r = clustered_difference(RNG.random(40), RNG.random(40), ids, alpha=1e-300)
    assert np.isfinite(r.low) and np.isfinite(r.high) and r.low < r.estimate < r.high


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: _mse(draws=2.5), "draws"),  # method "clt": never read before
        (lambda: _mse(seed="x"), "seed"),
        (lambda: _splits(test_fraction=2.0), "test_fraction"),  # k-fold: never read before
        (lambda: _splits(design="5x2", repeats=-1), "repeats"),
    ],
)
def test_arguments_a_method_does_not_use_are_still_checked(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def _mse(**kw):
    from heldout.metrics.regression import mse_interval

    return mse_interval(np.ones(10), np.zeros(10), **kw)


def _splits(**kw):
    from heldout.resampling.cv_scores import splits

    return splits(20, kw.pop("design", "kfold"), k=5, **kw)
