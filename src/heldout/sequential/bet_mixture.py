"""A betting confidence sequence that mixes over bet sizes (right/wrong labels).

The default betting sequence (:mod:`heldout.sequential.betting`) picks one bet per
label from the running variance; its bets start cautious, and its bounds are wide in
the first tens of labels.  :func:`mixture_of_bets` instead runs one gambler per bet
size ``f`` from a fixed grid, each betting the same fraction on every label, and
averages their capital (an average of nonnegative martingales is one, so Ville's
inequality :cite:`ville1939` still applies): the *diversified* bets of
:cite:`waudbysmith2024betting`.  Large bets win quickly when the accuracy is far
from a candidate, small ones keep the sequence narrow later.  For 0/1 outcomes
every gambler's capital depends on the labels only through their count and sum,
so the whole sequence is a closed form solved by bisection.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heldout._checks import as_probability, show
from heldout._result import Result

__all__ = ["BET_SIZES", "BetMixture", "mixture_of_bets"]

#: Bet fractions of the gamblers: 0.9 times 2^(-j/2), j = 0..19 (0.9 down to 0.0009).
BET_SIZES = 0.9 * 2.0 ** (-np.arange(20) / 2.0)

_BISECTIONS = 40


@dataclass(frozen=True)
class BetMixture(Result):
    """Running bounds of the mixture-of-bets sequence; unpacks as ``(lower, upper)``."""

    lower: np.ndarray
    upper: np.ndarray

    @property
    def width(self) -> np.ndarray:
        """``upper - lower`` after each label."""
        return self.upper - self.lower


def _log_capital(wins, losses, m, sizes):
    """log of the mixture capital of gamblers betting that the mean exceeds ``m``.

    Gambler ``f`` stakes ``f / m`` of its capital on each label: a right answer
    multiplies it by ``1 + f (1 - m) / m``, a wrong one by ``1 - f``.
    """
    f = sizes[:, None]
    logs = wins * np.log1p(f * (1.0 - m) / m) + losses * np.log1p(-f)
    top = logs.max(axis=0)
    return top + np.log(np.mean(np.exp(logs - top), axis=0))


def _lower(s, t, threshold, sizes):
    """Smallest m whose capital stays below ``threshold`` (capital decreases in m)."""
    lo, hi = np.zeros_like(s), np.ones_like(s)
    rejected_all = _log_capital(s, t - s, np.full_like(s, 1.0 - 1e-12), sizes) >= threshold
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        reject = _log_capital(s, t - s, np.maximum(mid, 1e-300), sizes) >= threshold
        lo = np.where(reject, mid, lo)
        hi = np.where(reject, hi, mid)
    return np.where(rejected_all, 1.0, lo)  # lo: the last rejected point (safe side)


def mixture_of_bets(x, alpha: float = 0.05, *, sizes=None) -> BetMixture:
    r"""Confidence sequence for an accuracy from a mixture of gamblers with fixed bet sizes.

    For a candidate accuracy ``m`` and bet fraction ``f``, the gambler betting that the
    accuracy exceeds ``m`` has after ``t`` labels with ``S`` right answers the capital

    .. math:: K^+_f(m) = \Big(1 + f\,\frac{1-m}{m}\Big)^{S} (1 - f)^{t - S},

    a nonnegative martingale with mean 1 when ``m`` is the true accuracy; the gambler on
    the other side has :math:`K^-_f(m) = (1 + f m/(1-m))^{t-S} (1-f)^{S}`.  With
    :math:`K^\pm = \operatorname{mean}_f K^\pm_f` (``sizes``: 20 fractions from 0.9 down
    to 0.0009), the sequence keeps the ``m`` with :math:`K^+(m) < 2/\alpha` and
    :math:`K^-(m) < 2/\alpha` (the hedged capital of :cite:`waudbysmith2024betting` with
    :math:`\theta = 1/2`); by Ville's inequality :cite:`ville1939` the true accuracy
    leaves it at some time with probability at most ``alpha``.  ``K^+`` falls and
    ``K^-`` rises with ``m``, so each bound is found by bisection (rounded to the safe
    side); the running intersection is taken.

    Parameters
    ----------
    x
        0/1 outcomes (1 = right) in labelling order; a 2-D array holds one sequence per row.
    alpha
        Allowed probability that the sequence ever misses the accuracy.
    sizes
        Bet fractions in (0, 1) to mix (default :data:`BET_SIZES`).

    Returns
    -------
    BetMixture
        ``lower``, ``upper`` shaped like ``x``; ``width``.

    Examples
    --------
    >>> x = (np.random.default_rng(0).random(100) < 0.9).astype(int)
    >>> cs = mixture_of_bets(x)
    >>> round(float(cs.lower[-1]), 3), round(float(cs.upper[-1]), 3)
    (0.762, 0.935)
    """
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"x must be an array of 0/1 outcomes, got {show(x)}") from None
    if arr.ndim not in (1, 2) or arr.size == 0:
        raise ValueError(f"x must be a non-empty 1-d or 2-d array of 0/1 outcomes, got {arr.shape}")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError("x must hold only 0/1 outcomes (right or wrong)")
    a = float(as_probability(alpha, "alpha", scalar=True))
    if sizes is None:
        f = BET_SIZES
    else:
        f = np.asarray(sizes, dtype=float).ravel()
        if f.size == 0 or not np.all((f > 0) & (f < 1)):
            raise ValueError("sizes must be bet fractions strictly between 0 and 1")
    two_d = arr.ndim == 2
    rows = arr if two_d else arr[None, :]
    s = np.cumsum(rows, axis=1).ravel()
    t = np.broadcast_to(np.arange(1, rows.shape[1] + 1, dtype=float), rows.shape).ravel()
    # the bounds depend on (S, t) only: solve once per distinct pair (many runs share them)
    key = s.astype(np.int64) * (rows.shape[1] + 1) + t.astype(np.int64)
    pairs, back = np.unique(key, return_inverse=True)
    s_u = (pairs // (rows.shape[1] + 1)).astype(float)
    t_u = (pairs % (rows.shape[1] + 1)).astype(float)
    threshold = np.log(2.0 / a)
    lower = _lower(s_u, t_u, threshold, f)[back].reshape(rows.shape)
    upper = 1.0 - _lower(t_u - s_u, t_u, threshold, f)[back].reshape(rows.shape)  # mirror
    lower = np.maximum.accumulate(lower, axis=1)
    upper = np.minimum.accumulate(upper, axis=1)
    if not two_d:
        lower, upper = lower[0], upper[0]
    return BetMixture(lower, upper)
