"""The beta-binomial mixture confidence sequence (Robbins; Howard et al.).

For outcomes in [0, 1] and a candidate mean :math:`m`, the likelihood ratio of
a Bernoulli(:math:`p`) against a Bernoulli(:math:`m`) model,
:math:`\\prod_i (p/m)^{x_i}((1-p)/(1-m))^{1-x_i}`, is a nonnegative
martingale when the outcomes are 0/1 with mean :math:`m`, and a
supermartingale when they lie anywhere in [0, 1] with mean :math:`m` (the
factor is convex in :math:`x_i`, so its mean is at most its value at the two
ends, which is 1).  Mixing over :math:`p \\sim \\mathrm{Beta}(a, b)` (the
``prior``) keeps this and gives the closed form

.. math:: M_t(m) = \\frac{B(a + S_t,\\ b + t - S_t)}{B(a, b)\\ m^{S_t}(1-m)^{t-S_t}},

:cite:`robbins1970,howard2021uniform`.  By Ville's inequality
:cite:`ville1939` :math:`\\{m : M_t(m) < 1/a\\}` misses the true mean at some
:math:`t` with probability at most :math:`a`: a two-sided confidence sequence
at level :math:`a` (each end alone holds with at least :math:`1-a`; this
sequence does not split :math:`a` between its ends).

Writing :math:`\\hat m = S_t/t`, the condition is
:math:`\\mathrm{KL}(\\hat m\\Vert m) < r_t` with
:math:`r_t = [\\log(1/a) + \\log B(a, b) - \\log B(a + S_t, b + t - S_t)]/t - H(\\hat m)`
(:math:`H` the binary entropy), a convex condition in :math:`m`; its two roots
are found by Newton's method started on the outside of each root (from the
Pinsker bound), so every iterate lies outside the exact set and the bounds are
conservative even before convergence.  Vectorised over time and runs.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from heldout import _beta
from heldout.sequential._engine import _Engine

#: Default prior of the mixture: Beta(1/2, 1/2) (Jeffreys').
DEFAULT_PRIOR = (0.5, 0.5)


class _Mixture(_Engine):
    """The beta-binomial mixture sequence; each end at its own level (``a_lo``, ``a_hi``)."""

    def __init__(self, runs, a_lo, a_hi, pool, *, prior=DEFAULT_PRIOR):
        super().__init__(runs, a_lo, a_hi, pool)
        self.prior = prior

    def _raw(self, x):
        a, b = self.prior
        t = self.t + np.arange(1, x.shape[1] + 1, dtype=float)
        s = self.s[:, None] + np.cumsum(x, axis=1)
        s = np.clip(s, 0.0, t)  # guards rounding in the running sum
        q = s / t
        base = (special.betaln(a, b) - special.betaln(a + s, b + t - s)) / t
        base = base - (special.entr(q) + special.entr(1 - q))
        lower = _beta.kl_lower_root(q, base + np.log(1.0 / self.a_lo) / t)
        upper = 1.0 - _beta.kl_lower_root(1.0 - q, base + np.log(1.0 / self.a_hi) / t)
        return lower, upper
