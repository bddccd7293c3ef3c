"""Closed-form confidence sequences: predictable-mixture Hoeffding and empirical Bernstein.

Both come from a nonnegative supermartingale of the form

.. math::  M_t(m) = \\prod_{i \\le t} \\exp\\big(\\lambda_i (x_i - \\mu_i(m)) - v_i \\psi(\\lambda_i)\\big)

with *predictable* bets :math:`\\lambda_i` (chosen from :math:`x_1, \\dots, x_{i-1}`)
and :math:`\\mu_i(m)` the conditional mean of :math:`x_i` when the mean is
:math:`m`: :math:`\\mu_i = m` with replacement, and
:math:`\\mu_i = (N m - S_{i-1})/(N - i + 1)` when labelling a pool of :math:`N`
items without replacement.  Ville's inequality :cite:`ville1939` gives
:math:`P(\\exists t: M_t(\\mu) \\ge 1/a) \\le a` at the true mean, and solving
:math:`M_t(m) < 1/a` for :math:`m` gives the lower bound

.. math::  L_t = \\frac{\\sum_i \\lambda_i (x_i + Z_i) - \\log(1/a) - \\sum_i v_i\\psi(\\lambda_i)}
                 {\\sum_i \\lambda_i (1 + W_i)},
   \\qquad Z_i = \\frac{S_{i-1}}{N - i + 1},\\ W_i = \\frac{i - 1}{N - i + 1}

(:math:`Z_i = W_i = 0` with replacement); the upper bound is the same formula
applied to :math:`1 - x`.  :cite:`waudbysmith2024betting`, Theorems 2 and 4.

* **Hoeffding**: :math:`v_i \\psi(\\lambda_i) = \\lambda_i^2/8` (Hoeffding's lemma for
  outcomes in [0, 1] :cite:`hoeffding1963`), bets
  :math:`\\lambda_i = \\min(\\sqrt{8\\log(1/a)/(i\\log(1+i))}, 1)`.
* **Empirical Bernstein**: :math:`v_i\\psi(\\lambda_i) = (x_i - \\hat\\mu_{i-1})^2
  (-\\log(1-\\lambda_i) - \\lambda_i)`, bets
  :math:`\\lambda_i = \\min(\\sqrt{2\\log(1/a)/(\\hat\\sigma^2_{i-1}\\, i\\log(1+i))}, 1/2)`,
  which adapt to the variance of the outcomes (small when the accuracy is near 0 or 1).

Everything is a cumulative sum, so both are vectorised over time and runs.
"""

from __future__ import annotations

import numpy as np

from heldout.sequential._engine import _Engine, plug_in

#: Largest bet of the empirical Bernstein sequence (the paper's truncation c = 1/2).
EB_TRUNCATION = 0.5


class _ClosedForm(_Engine):
    """Hoeffding (``bernstein=False``) or empirical Bernstein (``True``) sequence."""

    def __init__(self, runs, a_lo, a_hi, pool, *, bernstein: bool):
        super().__init__(runs, a_lo, a_hi, pool)
        self.bernstein = bernstein
        self.ssq = np.zeros(runs)
        # per side: sum of lambda (y + Z), of lambda (1 + W), of v psi(lambda)
        self.sums = np.zeros((runs, 2, 3))

    def _raw(self, x):
        i, s_prev, mu_prev, sigma2_prev, self.ssq = plug_in(x, self.t, self.s, self.ssq)
        out = []
        for side, (a, y, sy_prev) in enumerate(
            [(self.a_lo, x, s_prev), (self.a_hi, 1.0 - x, (i - 1.0) - s_prev)]
        ):
            log_a = np.log(1.0 / a)
            if self.bernstein:
                lam = np.minimum(
                    np.sqrt(2.0 * log_a / (sigma2_prev * i * np.log1p(i))), EB_TRUNCATION
                )
                vpsi = (x - mu_prev) ** 2 * (-np.log1p(-lam) - lam)
            else:
                lam = np.minimum(np.sqrt(8.0 * log_a / (i * np.log1p(i))), 1.0)
                lam = np.broadcast_to(lam, x.shape)
                vpsi = lam**2 / 8.0
            if self.pool is None:
                z, w = 0.0, 0.0
            else:
                left = self.pool - i + 1.0
                z, w = sy_prev / left, (i - 1.0) / left
            parts = [lam * (y + z), lam * (1.0 + w), vpsi]
            cum = [self.sums[:, side, k, None] + np.cumsum(p, axis=1) for k, p in enumerate(parts)]
            for k, c in enumerate(cum):
                self.sums[:, side, k] = c[:, -1]
            bound = (cum[0] - log_a - cum[2]) / cum[1]
            out.append(bound if side == 0 else 1.0 - bound)
        return out[0], out[1]
