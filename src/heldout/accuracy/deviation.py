"""Checks of the test-set sizes: how often a test set of a given size misses by more than the tolerance.

:func:`simulate_deviation` draws many test sets from a population of per-row losses and
counts the misses; :func:`simulate_empirical_bernstein` does the same for the empirical
Bernstein radius, whose variance is estimated on each test set;
:func:`lattice_deviation_probability` computes the miss probability without simulation
(exactly for losses on a lattice, and as a guaranteed bracket otherwise).  The sizes
they check are in :mod:`heldout.accuracy.sizing`; this module holds their checks, which
the book's sizing lesson runs against every size rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from heldout._checks import (
    _arr,
    as_count,
    as_positive,
    as_probability,
    check_work,
    show,
)
from heldout._deprecate import renamed
from heldout._result import Interval, Result, extra
from heldout.accuracy.sizing import _SNAP, empirical_bernstein_radius

__all__ = [
    "simulate_deviation",
    "simulate_empirical_bernstein",
    "lattice_deviation_probability",
]

# Rows of losses drawn at once by simulate_deviation (32 MB of indices), and in total.
_ROW_BLOCK = 4_000_000
_DRAW_LIMIT = 2_000_000_000


@dataclass(frozen=True)
class _MissCount(Result):
    """Misses of simulated test sets: their share with its exact 95 % interval."""

    probability: float
    ci: Interval
    misses: int = extra(0)
    reps: int = extra(0)
    size: int = extra(0)
    true_mean: float = extra(0.0)

    @classmethod
    def _counted(cls, misses: int, reps: int, size: int, true_mean: float, **more):
        from heldout.accuracy.bounds import clopper_pearson

        ci = clopper_pearson(misses, reps, alpha=0.05)
        return cls(misses / reps, ci, misses, reps, size, true_mean, **more)


@dataclass(frozen=True)
class DeviationSimulation(_MissCount):
    """What :func:`simulate_deviation` found; unpacks as ``(probability, ci)``."""

    deviations: np.ndarray = extra(None)
    sd: float = extra(0.0)
    achieved_tolerance: float | None = extra(None)


def _check_losses(losses) -> np.ndarray:
    x = _arr(losses, "losses").ravel()
    if np.any(~np.isfinite(x)):
        raise ValueError(f"losses must be finite, got {show(losses)}")
    return x


def _test_set_means(losses: np.ndarray, size: int, reps: int, gen, each=None) -> np.ndarray:
    """Means of ``reps`` test sets of ``size`` rows drawn with replacement from ``losses``.

    Vectorised over blocks of test sets that hold at most :data:`_ROW_BLOCK` rows (32 MB of
    indices); ``each(block_of_rows)`` is called on every block (for statistics beyond the
    mean) when given, and then test sets larger than a block are refused.
    """
    means = np.empty(reps)
    if size <= _ROW_BLOCK:
        block = _ROW_BLOCK // size
        for start in range(0, reps, block):  # loop over memory-sized blocks, vectorised inside
            stop = min(reps, start + block)
            rows = losses[gen.integers(0, losses.size, size=(stop - start, size))]
            means[start:stop] = rows.mean(axis=1)
            if each is not None:
                each(start, stop, rows)
        return means
    if each is not None:
        check_work(size, _ROW_BLOCK, "size (rows of one test set held in memory)")
    for r in range(reps):  # one huge test set at a time, drawn in memory-sized pieces
        total = 0.0
        for start in range(0, size, _ROW_BLOCK):
            rows = min(_ROW_BLOCK, size - start)
            total += float(losses[gen.integers(0, losses.size, size=rows)].sum())
        means[r] = total / size
    return means


@renamed(n_rep="reps", epsilon="alpha")
def simulate_deviation(
    losses: ArrayLike,
    size: int,
    tolerance: float,
    reps: int = 2_000,
    *,
    alpha: float | None = None,
    seed=None,
) -> DeviationSimulation:
    r"""Draw many test sets from a population of per-row losses; count the misses.

    Each replicate draws ``size`` rows *with replacement* from ``losses``
    (so the rows are independent and the population mean is exactly the true
    expected loss), takes the mean, and records its deviation from the
    population mean.  The observed frequency of
    :math:`|\bar X - \mu| > t` (a deviation within a relative ``1e-9`` of
    ``t`` counts as equal to it, so that exact ties of discrete losses are not
    turned into misses by rounding) estimates the probability that every sizing
    rule here promises to keep below ``alpha``.

    Parameters
    ----------
    losses : array_like
        Per-row losses of the whole population (1-d, at least one value).
    size : int
        Rows per simulated test set.
    tolerance : float
        The deviation ``t`` counted as a miss.
    reps : int, default 2000
        Number of simulated test sets.
    alpha : float, optional
        If given, also report ``achieved_tolerance``: the ``1 - alpha``
        quantile of the observed ``|deviation|``, the tolerance this size
        actually achieves at that confidence.
    seed : int, Generator or None
        Seed for :func:`heldout.config.rng` (default :data:`heldout.config.SEED`).

    Returns
    -------
    DeviationSimulation
        ``probability`` (observed miss frequency) and ``ci`` (95 % Clopper-Pearson
        interval for the miss probability), which unpack; also ``misses``, ``reps``,
        ``size``, ``true_mean``, ``deviations`` (the ``reps`` values
        :math:`\bar X - \mu`), ``sd`` (their standard deviation) and, with ``alpha``,
        ``achieved_tolerance``.

    Examples
    --------
    >>> sim = simulate_deviation([0, 0, 0, 1], size=100, tolerance=0.1, reps=2000, seed=1)
    >>> round(sim.probability, 3), sim.ci.high < 0.05
    (0.013, True)
    """
    from heldout.config import rng

    losses = _check_losses(losses)
    size = as_count(size, "size", minimum=1, scalar=True)
    reps = as_count(reps, "reps", minimum=1, scalar=True)
    check_work(size * reps, _DRAW_LIMIT, "size times reps (rows drawn)")
    tolerance = as_positive(tolerance, "tolerance", scalar=True)
    if alpha is not None:
        alpha = as_probability(alpha, "alpha", scalar=True)
    gen = rng(seed)
    true_mean = float(losses.mean())
    deviations = _test_set_means(losses, size, reps, gen) - true_mean
    # A mean of discrete losses can land exactly on t (K/m - p = t); floating point must not
    # turn that tie into a miss, so deviations within a relative 1e-9 of t count as ties.
    slack = 1e-9 * max(tolerance, abs(true_mean), 1e-300)
    misses = int(np.count_nonzero(np.abs(deviations) > tolerance + slack))
    return DeviationSimulation._counted(
        misses,
        reps,
        size,
        true_mean,
        deviations=deviations,
        sd=float(deviations.std(ddof=1)) if reps > 1 else 0.0,
        achieved_tolerance=None
        if alpha is None
        else float(np.quantile(np.abs(deviations), 1.0 - alpha)),
    )


@dataclass(frozen=True)
class RadiusCheck(_MissCount):
    """What :func:`simulate_empirical_bernstein` found; unpacks as ``(probability, ci)``."""

    radii: np.ndarray = extra(None)
    over_tolerance: float | None = extra(None)


def _half_square(x: float) -> float:
    """``x**2 / 2`` as a float, ``inf`` (no OverflowError) when it does not fit."""
    return float(np.float64(x) / 2 * np.float64(x)) if x < 1e150 else math.inf


def simulate_empirical_bernstein(
    losses: ArrayLike,
    size: int,
    range_: float,
    alpha: float = 0.05,
    *,
    tolerance: float | None = None,
    reps: int = 2_000,
    seed=None,
) -> RadiusCheck:
    r"""Does each test set's mean fall within its *own* empirical-Bernstein radius?

    The empirical-Bernstein statement (:func:`~heldout.accuracy.sizing.empirical_bernstein_radius`, Maurer & Pontil
    2009) is about a radius computed *from the test set itself*: with probability at least
    ``1 - alpha``, :math:`|\bar X - \mu| \le r(V_n)` where :math:`V_n` is that set's
    unbiased sample variance.  This draws ``reps`` test sets of ``size`` rows with
    replacement from the population ``losses``, computes each set's mean, sample variance
    and radius, and counts the sets whose mean misses the population mean by more than
    their own radius (the promise: a miss rate of at most ``alpha``).  With ``tolerance``
    it also reports how often the radius came out larger than the ``tolerance`` the size
    was planned for (:func:`~heldout.accuracy.sizing.empirical_bernstein_size` plans with an expected variance; a
    set with a larger variance gets a wider radius).

    Parameters
    ----------
    losses : array_like
        Per-row losses of the population (finite, 1-d); their spread (max - min) must be at
        most ``range_``.
    size : int
        Rows per test set, at least 2.
    range_ : float
        Width ``U`` of the loss's range (the radius uses it).
    alpha : float, default 0.05
        Failure probability of the radius.
    tolerance : float, optional
        Planned tolerance; adds ``over_tolerance`` (the share of radii above it).
    reps : int, default 2000
        Number of simulated test sets.
    seed : int, Generator or None
        Seed for :func:`heldout.config.rng`.

    Returns
    -------
    RadiusCheck
        ``probability`` (share of sets outside their own radius) and ``ci`` (its 95 %
        Clopper-Pearson interval), which unpack; also ``misses``, ``reps``, ``size``,
        ``true_mean``, ``radii`` (every set's radius) and ``over_tolerance``.

    Examples
    --------
    >>> check = simulate_empirical_bernstein([0, 0, 0, 1], 200, 1.0, 0.05, reps=500, seed=1)
    >>> check.misses, round(float(check.radii.mean()), 3)
    (0, 0.142)
    """
    from heldout.config import rng

    losses = _check_losses(losses)
    size = as_count(size, "size", minimum=2, scalar=True)
    range_ = as_positive(range_, "range_", scalar=True)
    alpha = as_probability(alpha, "alpha", scalar=True)
    reps = as_count(reps, "reps", minimum=1, scalar=True)
    if tolerance is not None:
        tolerance = as_positive(tolerance, "tolerance", scalar=True)
    spread = float(np.ptp(losses))
    if spread > range_ * (1 + 1e-12):
        raise ValueError(
            f"range_ must be at least the spread of the losses (max - min = {spread:.6g}), "
            f"got {show(range_)}"
        )
    check_work(size * reps, _DRAW_LIMIT, "size times reps (rows drawn)")
    gen = rng(seed)
    true_mean = float(losses.mean())
    variances = np.empty(reps)

    def keep_variance(start, stop, rows):
        variances[start:stop] = rows.var(axis=1, ddof=1)

    means = _test_set_means(losses, size, reps, gen, keep_variance)
    radii = np.asarray(
        empirical_bernstein_radius(
            size, np.minimum(variances, _half_square(range_)), range_, alpha
        ),
        dtype=float,
    )
    misses = int(np.count_nonzero(np.abs(means - true_mean) > radii))
    return RadiusCheck._counted(
        misses,
        reps,
        size,
        true_mean,
        radii=radii,
        over_tolerance=None if tolerance is None else float(np.mean(radii > tolerance)),
    )


# --------------------------------------------------------------------------- exact coverage


@dataclass(frozen=True)
class DeviationBracket(Result):
    """What :func:`lattice_deviation_probability` computed; unpacks as ``(low, high)``."""

    low: float
    high: float
    exact: bool = extra(False)
    resolution: float = extra(1.0)
    points: int = extra(0)
    true_mean: float = extra(0.0)


def lattice_deviation_probability(
    losses: ArrayLike,
    size: int,
    tolerance: float,
    *,
    resolution: float | None = None,
    max_points: int = 1 << 21,
) -> DeviationBracket:
    r"""Miss probability :math:`P(|\bar X - \mu| > t)` computed, not simulated.

    ``size`` rows are drawn independently from the population ``losses`` (as in
    :func:`simulate_deviation`), :math:`\bar X` is their mean and :math:`\mu`
    the population mean.  Each loss is written :math:`x = h j + d` with ``j``
    an integer and :math:`0 \le d < h` (``h`` is ``resolution``).  The sum of the
    ``j`` over the test set has a distribution that the fast Fourier transform
    gives exactly: it is the ``size``-fold convolution of the one-row
    distribution of ``j``, i.e. the inverse transform of its characteristic
    function raised to the power ``size``.  Since
    :math:`\bar X_\text{lattice} \le \bar X < \bar X_\text{lattice} + h`,

    .. math::

        P(\bar X_\ell > \mu + t) + P(\bar X_\ell < \mu - t - h)
        \;\le\; P(|\bar X - \mu| > t) \;\le\;
        P(\bar X_\ell > \mu + t - h) + P(\bar X_\ell < \mu - t),

    a bracket whose width shrinks with ``h``; when every loss is a multiple of
    ``h`` (0-1 loss with ``h = 1``, for example) both ends coincide.  When the
    full support of the sum needs more than ``max_points`` points, only a window
    around its mean is resolved (the transform then folds the rest onto it);
    the mass outside the window is bounded with Bernstein's inequality by
    ``1e-15`` and added to the bracket.  The transform's round-off is estimated
    from the size of its (spurious) negative entries, multiplied by the number of
    points summed, and also added; probabilities below that level (typically
    ``1e-12`` to ``1e-9``) are reported as an upper bound only.

    Parameters
    ----------
    losses : array_like
        Per-row losses of the population (finite, 1-d).
    size : int
        Rows per test set.
    tolerance : float
        The deviation ``t``.
    resolution : float, optional
        Lattice step ``h``.  Default: 1 if every loss is a whole number, else
        the finest step for which the transform fits in ``max_points`` points
        (and at most 1/1000 of the range of the losses).
    max_points : int, default 2**21
        Largest transform length.

    Returns
    -------
    DeviationBracket
        ``low`` and ``high`` (the bracket, which unpack), ``exact`` (True when the losses lie
        on the lattice, so ``low`` and ``high`` agree up to the noise),
        ``resolution``, ``points`` (transform length) and ``true_mean``.

    Examples
    --------
    >>> bracket = lattice_deviation_probability([0, 0, 0, 1], size=100, tolerance=0.1)
    >>> bracket.exact, round(bracket.high, 4)
    (True, 0.0148)
    """
    x = _check_losses(losses)
    size = as_count(size, "size", minimum=1, scalar=True)
    tolerance = as_positive(tolerance, "tolerance", scalar=True)
    max_points = as_count(max_points, "max_points", minimum=64, maximum=1 << 26, scalar=True)
    shift = x.min()
    x = x - shift  # the deviation from the mean does not depend on a shift
    true_mean = float(x.mean())
    spread = float(x.max())
    sd = float(x.std())
    c = np.log(2.0 / 1e-15)  # the window leaves out mass <= 1e-15 (Bernstein)
    automatic = resolution is None
    if automatic:
        h = _automatic_step(x, size, spread, sd, c, max_points)
    else:
        h = as_positive(resolution, "resolution", scalar=True)
    h, on_lattice, pmf_one, n_j, lo_s, points, outside = _fit_lattice(
        x, size, h, automatic, spread, c, max_points
    )
    low, high, n_fft = _lattice_bracket(
        pmf_one, size, h, n_j, lo_s, points, tolerance, true_mean, on_lattice, outside
    )
    return DeviationBracket(
        low=low,
        high=high,
        exact=on_lattice,
        resolution=float(h),
        points=n_fft,
        true_mean=true_mean + float(shift),
    )


def _automatic_step(x, size, spread, sd, c, max_points):
    """The default lattice step of :func:`lattice_deviation_probability`."""
    if np.all(x == np.round(x)) or spread == 0:
        return 1.0
    # finest step for which the full support, or else the Bernstein window
    # (about 2 A / h points, see below), fits in max_points
    a_w = spread * c / 3.0
    a_w += np.sqrt(a_w * a_w + 2.0 * size * (sd * sd + spread * spread / 1e6) * c)
    return min(size * spread / (max_points - 2), 2.2 * a_w / (max_points - 8))


def _fit_lattice(x, size, h, automatic, spread, c, max_points):
    """Coarsen an automatic step until the transform fits; the one-row pmf and the window.

    Returns ``(h, on_lattice, pmf_one, n_j, lo_s, points, outside)``: the step, whether
    every loss lies on the lattice, the one-row distribution of ``j`` over ``n_j`` values,
    the first sum and number of sums resolved, and the mass left outside that window.
    """
    for _ in range(200):  # coarsen an automatic step until the transform fits
        if spread / h + 1 > max_points:  # the one-row distribution alone would not fit
            if not automatic:
                raise ValueError(
                    f"resolution={show(h)} splits the range of the losses ({spread:.6g}) into more "
                    f"than max_points={max_points} steps; use a coarser resolution"
                )
            h *= 1.25
            continue
        j = np.floor(x / h + _SNAP).astype(np.int64)
        on_lattice = bool(np.all(np.abs(x - j * h) <= _SNAP * max(1.0, spread)))
        n_j = int(j.max()) + 1
        pmf_one = np.bincount(j, minlength=n_j) / x.size
        mean_j = float(np.dot(np.arange(n_j), pmf_one))
        var_j = float(np.dot((np.arange(n_j) - mean_j) ** 2, pmf_one))
        full = size * (n_j - 1) + 1
        if full <= max_points:
            lo_s, points, outside = 0, full, 0.0
            break
        # Bernstein: P(|S - E S| >= w) <= 2 exp(-w^2 / (2 size var_j + 2 (n_j - 1) w / 3)) <= 1e-15
        b_w = (n_j - 1) * c / 3.0
        w = int(np.ceil(b_w + np.sqrt(b_w * b_w + 2.0 * size * var_j * c))) + 1
        points = 2 * w + 1
        lo_s, outside = int(np.floor(size * mean_j)) - w, 1e-15
        if points <= max_points and n_j <= max_points:
            break
        if not automatic:
            raise ValueError(
                f"resolution={show(h)} needs {max(points, n_j)} transform points, more than "
                f"max_points={max_points}; use a coarser resolution"
            )
        h *= 1.25
    else:
        raise ValueError(f"size={size} is too large for a transform of at most {max_points} points")
    return h, on_lattice, pmf_one, n_j, lo_s, points, outside


def _lattice_bracket(
    pmf_one, size, h, n_j, lo_s, points, tolerance, true_mean, on_lattice, outside
):
    """``(low, high, n_fft)``: the miss probability's bracket from the transform of the sum."""
    n_fft = int(2 ** np.ceil(np.log2(max(points, n_j))))
    phi = np.fft.rfft(pmf_one, n_fft)
    pmf = np.fft.irfft(phi**size, n_fft)
    s_values = lo_s + np.arange(points)
    pmf_window = pmf[s_values % n_fft]  # not clipped: negative noise cancels positive noise
    mean_lattice = s_values * (h / size)  # the lattice mean of the test set

    def prob(mask):
        return float(pmf_window[mask].sum())

    # ties: a lattice mean exactly t away is not a miss; tau absorbs rounding in s * h / size
    tau = 1e-9 * max(tolerance, true_mean, h)
    dev = mean_lattice - true_mean
    slack = 0.0 if on_lattice else h  # the true mean lies in [lattice mean, lattice mean + h)
    upper_hi = (
        prob(dev > tolerance - slack + tau) if on_lattice else prob(dev > tolerance - slack - tau)
    )
    lower_hi = prob(-dev > tolerance + tau) if on_lattice else prob(-dev > tolerance - tau)
    upper_lo = prob(dev > tolerance + tau)
    lower_lo = prob(-dev > tolerance + slack + tau)
    # round-off of the transform: the size of its negative entries (pure noise) or of a few
    # units in the last place of the largest one, whichever is larger, per summed point
    noise = 2.0 * points * max(-float(pmf.min()), 1e-16 * float(pmf.max()), 0.0)
    low = max(0.0, upper_lo + lower_lo - outside - noise)
    return low, min(1.0, upper_hi + lower_hi + outside + noise), n_fft
