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
    """Upper quantile of Student's t with ``df`` degrees of freedom."""
    return -special.stdtrit(df, q)


def t_sf(x, df):
    """Upper tail ``P(T > x)`` of Student's t with ``df`` degrees of freedom."""
    return special.stdtr(df, -np.asarray(x, dtype=float))
