"""Normal and Student t tail functions from :mod:`scipy.special` (private).

The calculators' modules use these instead of ``scipy.stats.norm`` and
``scipy.stats.t``: importing :mod:`scipy.stats` costs about a second of start-up,
:mod:`scipy.special` a small fraction of it.  Each function evaluates the same
special function that ``scipy.stats`` calls for it, so the values are the same
to the last bit (``tests/test_core_dist.py`` checks them against ``scipy.stats``).
"""

from __future__ import annotations

import numpy as np
from scipy import special


def norm_isf(q):
    """Upper quantile of the standard normal: ``z`` with ``P(Z > z) = q``."""
    return -special.ndtri(q)


def norm_ppf(p):
    """Lower quantile of the standard normal: ``z`` with ``P(Z <= z) = p``."""
    return special.ndtri(p)


def norm_sf(x):
    """Upper tail ``P(Z > x)`` of the standard normal."""
    return special.ndtr(-np.asarray(x, dtype=float))


def t_isf(q, df):
    """Upper quantile of Student's t with ``df`` degrees of freedom.

    ``stdtrit`` returns an infinite quantile for upper tails below about 1e-300 (scipy's
    ``stats.t.isf`` too); there the two-sided tail ``2q = I_x(df/2, 1/2)`` with
    ``x = df / (df + t^2)`` is inverted by ``betaincinv`` instead, which stays finite.

    >>> round(float(t_isf(0.025, 9)), 4), f"{float(t_isf(5e-301, 9)):.4g}"
    (2.2622, '5.562e+33')
    """
    q = np.asarray(q, dtype=float)
    out = np.asarray(-special.stdtrit(df, q), dtype=float)
    bad = ~np.isfinite(out) & (q > 0) & (q < 0.5)
    if np.any(bad):
        d = np.broadcast_to(np.asarray(df, dtype=float), out.shape)[bad]
        x = special.betaincinv(d / 2, 0.5, 2 * q[bad] if q.ndim else 2 * q)
        with np.errstate(divide="ignore"):
            out = out.copy()
            out[bad] = np.sqrt(d * (1 - x) / x)
    return out if out.ndim else float(out)


def t_sf(x, df):
    """Upper tail ``P(T > x)`` of Student's t with ``df`` degrees of freedom."""
    return special.stdtr(df, -np.asarray(x, dtype=float))


def beta_interval(k, size, alpha):
    """Clopper-Pearson's two ends for ``k`` successes in ``size`` trials, both real-valued.

    ``low = B^{-1}(alpha/2; k, size - k + 1)`` (0 at ``k = 0``) and
    ``high = B^{-1}(1 - alpha/2; k + 1, size - k)`` (1 at ``k = size``): the exact
    binomial interval :cite:`clopper1934`, with Korn and Graubard's real-valued counts
    for an effective size :cite:`korn1998confidence`.  ``scipy.special.betaincinv`` is the
    function ``scipy.stats.beta.ppf`` evaluates.
    """
    with np.errstate(invalid="ignore"):
        low = np.where(
            k > 0, special.betaincinv(np.maximum(k, 1e-300), size - k + 1.0, alpha / 2), 0.0
        )
        high = np.where(
            k < size,
            special.betaincinv(k + 1.0, np.maximum(size - k, 1e-300), 1.0 - alpha / 2),
            1.0,
        )
    return low, high
