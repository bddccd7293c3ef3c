"""The running state shared by every confidence sequence (internal).

An *engine* holds what one method needs to extend its confidence sequence when
new outcomes arrive: the number of outcomes ``t`` seen so far, their sum, the
running bounds and whatever the method adds.  :meth:`_Engine.update` takes a
block of outcomes of shape ``(runs, L)`` (several independent sequences side
by side, one per row) and returns the lower and upper bound after each of the
``L`` new outcomes.  The same engine serves a whole array at once
(:func:`heldout.sequential.confidence_sequence`) and a stream read line by line
(the ``heldout label`` command), and gives the same numbers either way.

Each step applies, after the method's own raw bounds:

* for a finite pool of ``N`` items labelled without replacement, the *logical*
  bounds: after ``t`` labels summing to ``S_t`` the pool mean lies in
  ``[S_t / N, (S_t + N - t) / N]`` whatever the unlabelled items are;
* the running intersection (the lower bound never falls, the upper bound never
  rises), which keeps the guarantee because "the true mean is inside at every
  step" is the same event for the raw and the intersected sequence
  :cite:`waudbysmith2024betting`.
"""

from __future__ import annotations

import numpy as np


class _Engine:
    """Base class: counting, logical bounds for a pool, running intersection."""

    def __init__(self, runs: int, a_lo: float, a_hi: float, pool: int | None):
        self.runs = runs
        self.a_lo = a_lo  # error probability spent on the lower side
        self.a_hi = a_hi  # ... and on the upper side
        self.pool = pool
        self.t = 0
        self.s = np.zeros(runs)  # sum of the outcomes so far
        self.lower = np.zeros(runs)
        self.upper = np.ones(runs)

    # -- to be provided by a method ------------------------------------------------
    def _raw(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Raw bounds after each outcome of the block ``x`` (state: before the block)."""
        raise NotImplementedError

    def _chunks(self, length: int):
        """Split a block of ``length`` outcomes into the pieces :meth:`_raw` handles."""
        yield 0, length

    def _after_chunk(self) -> None:
        """Hook run after each piece (the betting engine adapts its grid here)."""

    # -- shared --------------------------------------------------------------------
    def update(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Feed outcomes of shape ``(runs, L)``; return the bounds after each of them."""
        length = x.shape[1]
        lower = np.empty((self.runs, length))
        upper = np.empty((self.runs, length))
        for start, stop in self._chunks(length):
            xs = x[:, start:stop]
            raw_lo, raw_hi = self._raw(xs)
            s_incl = self.s[:, None] + np.cumsum(xs, axis=1)
            if self.pool is not None:
                t_incl = self.t + np.arange(1, stop - start + 1)
                raw_lo = np.maximum(raw_lo, s_incl / self.pool)
                raw_hi = np.minimum(raw_hi, (s_incl + self.pool - t_incl) / self.pool)
            lo = np.maximum.accumulate(np.maximum(raw_lo, self.lower[:, None]), axis=1)
            hi = np.minimum.accumulate(np.minimum(raw_hi, self.upper[:, None]), axis=1)
            lower[:, start:stop] = np.clip(lo, 0.0, 1.0)
            upper[:, start:stop] = np.clip(hi, 0.0, 1.0)
            self.lower = lower[:, stop - 1].copy()
            self.upper = upper[:, stop - 1].copy()
            self.s = s_incl[:, -1]
            self.t += stop - start
            self._after_chunk()
        return lower, upper

    def take(self, rows: np.ndarray) -> None:
        """Keep only the runs ``rows`` (a simulation drops runs that have decided)."""
        for name, value in vars(self).items():
            if isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == self.runs:
                setattr(self, name, value[rows])
        self.runs = len(np.arange(self.runs)[rows])


def plug_in(x: np.ndarray, t: int, s: np.ndarray, ssq: np.ndarray):
    """Predictable plug-in mean and variance before each outcome of the block ``x``.

    With :math:`\\hat\\mu_t = (1/2 + \\sum_{i \\le t} x_i)/(t + 1)` and
    :math:`\\hat\\sigma^2_t = (1/4 + \\sum_{i \\le t} (x_i - \\hat\\mu_i)^2)/(t + 1)`
    (:cite:`waudbysmith2024betting`, the prior guesses 1/2 and 1/4 counting as one
    outcome), returns the step numbers ``i``, :math:`S_{i-1}`,
    :math:`\\hat\\mu_{i-1}`, :math:`\\hat\\sigma^2_{i-1}` and the updated sum of squares.
    """
    length = x.shape[1]
    i = t + np.arange(1, length + 1, dtype=float)
    s_incl = s[:, None] + np.cumsum(x, axis=1)
    s_prev = s_incl - x
    mu_prev = (0.5 + s_prev) / i
    sq = (x - (0.5 + s_incl) / (i + 1.0)) ** 2
    ssq_incl = ssq[:, None] + np.cumsum(sq, axis=1)
    sigma2_prev = (0.25 + ssq_incl - sq) / i
    return i, s_prev, mu_prev, sigma2_prev, ssq_incl[:, -1]
