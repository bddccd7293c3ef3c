"""The betting (hedged capital) confidence sequence of Waudby-Smith and Ramdas.

For each candidate mean :math:`m` a gambler starts with capital 1 and bets on
each new outcome: on the lower side she gains when outcomes exceed :math:`m`,

.. math::  K^+_t(m) = \\prod_{i \\le t} \\big(1 + \\lambda^+_i\\,(x_i - \\mu_i(m))\\big),

on the upper side :math:`K^-_t(m) = \\prod_i (1 - \\lambda^-_i (x_i - \\mu_i(m)))`,
with :math:`\\mu_i(m) = m`, or :math:`(N m - S_{i-1})/(N - i + 1)` when labelling a
pool of :math:`N` items without replacement.  When :math:`m` is the true mean
both are nonnegative martingales (the bets are chosen before :math:`x_i` is
seen), so by Ville's inequality :cite:`ville1939` each exceeds :math:`1/a` at
any time with probability at most :math:`a`.  The confidence sequence keeps the
means whose capital has not reached :math:`1/a` on either side: the
*hedged-capital* sequence, :math:`\\max(\\theta K^+, (1-\\theta)K^-) < 1/\\alpha` with
:math:`\\theta = 1/2`, is the case :math:`a = \\alpha/2` on each side
:cite:`waudbysmith2024betting`.

Bets
----
Predictable plug-in bets, :math:`\\lambda_i = \\sqrt{2\\log(1/a)/(\\hat\\sigma^2_{i-1}\\,i\\log(1+i))}`
with the regularised running variance :math:`\\hat\\sigma^2` of the outcomes
(:cite:`waudbysmith2024betting`, section 4), truncated so that the capital
stays positive: :math:`\\lambda^+_i = \\min(\\lambda_i, c/\\bar\\mu_i)` and
:math:`\\lambda^-_i = \\min(\\lambda_i, c/(1 - \\underline\\mu_i))`, :math:`c = 1/2`.
The paper truncates at :math:`c/m` for every candidate :math:`m`; here
:math:`\\bar\\mu_i` is :math:`\\mu_i` at the *upper end of the sequence at the
last power of two before* :math:`i` (and :math:`\\underline\\mu_i` at the lower
end), the largest candidate still inside.  That is a predictable choice that
never bets more than the paper (so the sequence keeps the paper's guarantee,
by the same argument: before the true mean first leaves the sequence the bets
at the true mean are admissible), bets the same once :math:`\\lambda_i < c`
(after the first few hundred outcomes unless the accuracy is extreme), and
makes every bet the same for all candidates.  Then :math:`\\log K^+_t(m)` is
*concave and decreasing* in :math:`m` (and :math:`\\log K^-_t` concave and
increasing), which is what makes the computation below exact.

Computation
-----------
The capital is tracked on a grid of candidates :math:`m = k/64`; each bound
is the root of the chord between the two grid points around it.  Because
:math:`\\log K` is concave, the chord lies below it, so the chord's root is
always on the safe side of the exact bound: the grid costs no validity, and
widens each bound by about :math:`2 \\times 10^{-5}` at most (measured against
root-finding on the exact capital; the tests check it).  Only grid points
between the current bounds are kept (the sequence only shrinks), so the work
per outcome falls from 65 candidates to a handful.  The arithmetic is vectorised with numpy over candidates, runs and time
within a block; blocks end at each power of two (where the truncation above
is refreshed from the bounds, a sequential dependence that cannot be
vectorised away) and are cut further to bound memory, so a Python loop runs
over :math:`O(\\log n)` blocks.
"""

from __future__ import annotations

import numpy as np

from heldout.sequential._engine import _Engine, plug_in

#: Grid cells on [0, 1] for the capital (bounds are chord roots between grid points).
GRID = 64
#: Truncation of the bets (the paper's c).
TRUNCATION = 0.5
#: Largest number of (run, step, candidate) cells computed in one block.
BUDGET = 1 << 20

_STEP = 1.0 / GRID


class _Betting(_Engine):
    """Hedged-capital betting sequence on a shrinking window of the grid."""

    def __init__(self, runs, a_lo, a_hi, pool):
        super().__init__(runs, a_lo, a_hi, pool)
        self.ssq = np.zeros(runs)
        self.cap_lo = np.zeros(runs)  # lower end at the last power of two
        self.cap_hi = np.ones(runs)  # upper end at the last power of two
        self.offset = np.zeros(runs, dtype=np.int64)  # first grid index of each run's window
        self.width = GRID + 1  # grid points in the window (the same for all runs)
        self.log_kp = np.zeros((runs, self.width))  # log K+ on the window
        self.log_km = np.zeros((runs, self.width))  # log K- on the window

    def _chunks(self, length):
        start, first = 0, self.t  # runs lazily: self.t and self.width move between pieces
        while start < length:
            t0 = first + start
            next_power = 1 << t0.bit_length()  # the bets' truncation is refreshed there
            size = min(length - start, next_power - t0, max(1, BUDGET // (self.runs * self.width)))
            yield start, start + size
            start += size

    def _raw(self, x):
        i, s_prev, _, sigma2_prev, self.ssq = plug_in(x, self.t, self.s, self.ssq)
        m = (self.offset[:, None] + np.arange(self.width)) * _STEP  # (runs, width)
        # arrays are laid out (runs, width, steps): the running sums go along the last axis
        if self.pool is None:
            mu_hi, mu_lo = self.cap_hi[:, None], self.cap_lo[:, None]
        else:
            left = self.pool - i + 1.0
            mu = (self.pool * m[:, :, None] - s_prev[:, None, :]) / left
            mu_hi = np.clip((self.pool * self.cap_hi[:, None] - s_prev) / left, 0.0, 1.0)
            mu_lo = np.clip((self.pool * self.cap_lo[:, None] - s_prev) / left, 0.0, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            lam = 2.0 / (sigma2_prev * i * np.log1p(i))
            lam_p = np.minimum(np.sqrt(lam * np.log(1.0 / self.a_lo)), TRUNCATION / mu_hi)
            lam_m = np.minimum(np.sqrt(lam * np.log(1.0 / self.a_hi)), TRUNCATION / (1.0 - mu_lo))
            if self.pool is None:
                d_up = d_down = x[:, None, :] - m[:, :, None]
            else:
                # max(0, mu) and min(1, mu) only change candidates the pool already rules
                # out, and keep each log factor concave in m
                d_up = x[:, None, :] - np.maximum(mu, 0.0)
                d_down = x[:, None, :] - np.minimum(mu, 1.0)
            # a factor <= 0 (a candidate far outside the bounds) gives -inf: never
            # rejected, so never used for a bound
            up = np.log1p(np.maximum(lam_p[:, None, :] * d_up, -1.0))
            down = np.log1p(np.maximum(-lam_m[:, None, :] * d_down, -1.0))
            kp = np.cumsum(up, axis=2, out=up)
            kp += self.log_kp[:, :, None]
            km = np.cumsum(down, axis=2, out=down)
            km += self.log_km[:, :, None]
        self.log_kp, self.log_km = kp[:, :, -1].copy(), km[:, :, -1].copy()
        return (
            _lower_root(kp, np.log(1.0 / self.a_lo), m),
            _upper_root(km, np.log(1.0 / self.a_hi), m),
        )

    def _after_chunk(self):
        if (self.t & (self.t - 1)) == 0:  # a power of two: refresh the truncation
            self.cap_lo, self.cap_hi = self.lower.copy(), self.upper.copy()
        self._shrink()

    def _shrink(self):
        """Drop grid points outside the current bounds (keeping one on each side)."""
        lo = np.floor(self.lower * GRID).astype(np.int64)
        hi = np.ceil(self.upper * GRID).astype(np.int64)
        lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)  # a crossed (empty) sequence
        width = int(max(2, (hi - lo + 1).max()))
        if width >= self.width:
            return
        # the new window lies inside the old one and holds [lo, hi]
        offset = np.maximum(self.offset, np.minimum(lo, self.offset + self.width - width))
        cols = (offset - self.offset)[:, None] + np.arange(width)
        self.log_kp = np.take_along_axis(self.log_kp, cols, axis=1)
        self.log_km = np.take_along_axis(self.log_km, cols, axis=1)
        self.offset, self.width = offset, width


def _lower_root(log_k: np.ndarray, threshold: float, m: np.ndarray) -> np.ndarray:
    """Chord root of the decreasing, concave ``log_k`` (runs, window, steps) at ``threshold``."""
    width = log_k.shape[1]
    rejected = (log_k >= threshold).sum(axis=1)  # a prefix of the window, (runs, steps)
    j = np.clip(rejected - 1, 0, width - 2)[:, None, :]
    f0 = np.take_along_axis(log_k, j, axis=1)[:, 0, :]
    f1 = np.take_along_axis(log_k, j + 1, axis=1)[:, 0, :]
    m0 = np.take_along_axis(m, j[:, 0, :], axis=1)
    with np.errstate(invalid="ignore"):
        frac = np.where(np.isfinite(f1), (f0 - threshold) / (f0 - f1), 0.0)
    root = m0 + _STEP * np.clip(frac, 0.0, 1.0)
    root = np.where(rejected == width, m[:, -1, None], root)  # every point rejected
    return np.where(rejected == 0, -np.inf, root)


def _upper_root(log_k: np.ndarray, threshold: float, m: np.ndarray) -> np.ndarray:
    """Chord root of the increasing, concave ``log_k`` at ``threshold``: the upper bound."""
    width = log_k.shape[1]
    rejected = (log_k >= threshold).sum(axis=1)  # a suffix of the window
    k = np.clip(width - rejected, 1, width - 1)[:, None, :]
    f1 = np.take_along_axis(log_k, k, axis=1)[:, 0, :]
    f0 = np.take_along_axis(log_k, k - 1, axis=1)[:, 0, :]
    m1 = np.take_along_axis(m, k[:, 0, :], axis=1)
    with np.errstate(invalid="ignore"):
        frac = np.where(np.isfinite(f0), (f1 - threshold) / (f1 - f0), 0.0)
    root = m1 - _STEP * np.clip(frac, 0.0, 1.0)
    root = np.where(rejected == width, m[:, 0, None], root)
    return np.where(rejected == 0, np.inf, root)
