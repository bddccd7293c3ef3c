"""The private tail functions of heldout._dist against scipy.stats (the independent reference)."""

import numpy as np
import pytest
from scipy import stats

from heldout import _dist

Q = np.array([1e-12, 1e-6, 0.001, 0.01, 0.025, 0.05, 0.1, 0.3, 0.5, 0.7, 0.975])
X = np.array([-40.0, -5.0, -1.96, -0.3, 0.0, 0.3, 1.0, 1.96, 5.0, 12.0, 40.0])


def test_normal_tails_match_scipy_stats():
    np.testing.assert_allclose(_dist.norm_isf(Q), stats.norm.isf(Q), rtol=1e-14)
    np.testing.assert_allclose(_dist.norm_ppf(Q), stats.norm.ppf(Q), rtol=1e-14)
    np.testing.assert_allclose(_dist.norm_sf(X), stats.norm.sf(X), rtol=1e-14, atol=0)


@pytest.mark.parametrize("df", [1, 2, 4.5, 9, 30, 1000, 1e6])
def test_student_tails_match_scipy_stats(df):
    np.testing.assert_allclose(_dist.t_isf(Q, df), stats.t.isf(Q, df), rtol=1e-12)
    np.testing.assert_allclose(_dist.t_sf(X, df), stats.t.sf(X, df), rtol=1e-12, atol=1e-300)


def test_beta_interval_is_clopper_pearson_with_real_counts():
    """Beta quantiles of scipy.stats at integer and real-valued counts; 0 and 1 at the ends."""
    k = np.array([0.0, 1.0, 7.5, 38.0, 99.25, 100.0])
    size = np.array([100.0, 100.0, 20.0, 100.0, 100.0, 100.0])
    low, high = _dist.beta_interval(k, size, 0.05)
    inner = k > 0
    np.testing.assert_allclose(
        low[inner], stats.beta.ppf(0.025, k[inner], size[inner] - k[inner] + 1), rtol=1e-12
    )
    assert low[~inner].tolist() == [0.0]
    upper = k < size
    np.testing.assert_allclose(
        high[upper], stats.beta.ppf(0.975, k[upper] + 1, size[upper] - k[upper]), rtol=1e-12
    )
    assert high[~upper].tolist() == [1.0]
    # k = 38 of 100: scipy's exact binomial interval
    exact = stats.binomtest(38, 100).proportion_ci(0.95, method="exact")
    assert (low[3], high[3]) == pytest.approx((exact.low, exact.high), rel=1e-12)
