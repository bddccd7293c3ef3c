"""A better, practically equivalent, or B better? Across folds and across data sets.

* :func:`correlated_t_rope` -- the Bayesian correlated t-test :cite:`corani2015`: the
  posterior of the mean per-fold difference is a Student t whose scale carries the same
  correction for overlapping training sets as the corrected resampled t-test
  (:func:`heldout.resampling.cv.corrected_t`, :cite:`nadeau2003`).
* :func:`signed_rank_rope` -- the Bayesian signed-rank test across data sets
  :cite:`benavoli2017`: a Dirichlet process posterior on the distribution of the
  per-data-set differences.

Both return :class:`heldout.comparison.rope.Rope`.  For the correlated t its fields are
the same three posterior probabilities as :func:`heldout.comparison.rope.paired_rope` on one
shared test set; for the signed-rank test they are the shares of draws in which each region
holds the largest mass, not the probabilities of the regions.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from heldout._checks import as_draws, as_positive, as_probability
from heldout.comparison.rope import Rope, _rope_width
from heldout.config import rng as make_rng
from heldout.resampling.cv import _constant, _paired

__all__ = ["correlated_t_rope", "signed_rank_rope"]

_CHUNK = 5000  # Dirichlet draws per block


def correlated_t_rope(scores_a, scores_b, test_fraction: float, rope: float = 0.01) -> Rope:
    r"""Bayesian correlated t-test: P(A better), P(equivalent), P(B better) over folds.

    The ``J`` per-split differences ``d_j = a_j - b_j`` (``J = r k`` for ``r`` repetitions
    of ``k``-fold cross-validation) are modelled as normal with a common mean ``mu`` and
    correlation ``rho`` between any two of them, ``rho`` the test fraction (``1/k``): the
    overlap of their training sets :cite:`corani2015`.  Under the reference prior the
    posterior of ``mu`` is

    .. math::

        \mu \mid d \sim t_{J-1}\!\left(\bar d,\;
        \left(\frac{1}{J} + \frac{\rho}{1-\rho}\right) s^2\right),

    a Student t with ``J - 1`` degrees of freedom, location ``dbar`` and squared scale
    the corrected variance of :func:`heldout.resampling.cv.corrected_t`.  The three
    probabilities are its mass above ``rope``, inside ``[-rope, rope]`` and below
    ``-rope``.  So ``a_better >= 0.95`` with ``rope = 0`` is the corrected t-test's
    one-sided rejection at 5 %, and it inherits that test's level (a heuristic
    correction: conservative for stable learners, not always enough for unstable ones;
    see :func:`heldout.resampling.cv_simulation.simulate_tests`).  When every
    difference is the same the posterior is a point mass there.

    Parameters
    ----------
    scores_a, scores_b
        Per-split scores of learners A and B on the same splits.
    test_fraction
        Share of the rows in each test part, ``1/k`` for ``k``-fold; strictly in (0, 1).
    rope
        Half-width of the region of practical equivalence, in ``[0, 1)``.

    Returns
    -------
    Rope

    Examples
    --------
    >>> a = [0.91, 0.90, 0.93, 0.89, 0.92]
    >>> b = [0.89, 0.90, 0.90, 0.88, 0.90]
    >>> res = correlated_t_rope(a, b, test_fraction=0.2, rope=0.01)
    >>> round(res.a_better, 3), round(res.equivalent, 3), round(res.b_better, 3)
    (0.762, 0.225, 0.014)
    """
    f = float(as_probability(test_fraction, "test_fraction", scalar=True))
    r = _rope_width(rope)
    d = _paired(scores_a, scores_b)
    mean = float(d.mean())
    if _constant(d):
        up, down = float(mean > r), float(mean < -r)
        if r == 0 and mean == 0:
            up = down = 0.5
        return Rope(up, 1.0 - up - down, down, r)
    scale = float(np.sqrt((1.0 / d.size + f / (1.0 - f)) * d.var(ddof=1)))
    # the t tails in standard form, each from its own side (no frozen scipy.stats object)
    up = float(special.stdtr(d.size - 1, (mean - r) / scale))
    down = float(special.stdtr(d.size - 1, (-r - mean) / scale))
    return Rope(up, max(0.0, 1.0 - up - down), down, r)


def _region_masses(d: np.ndarray, r: float, weights: np.ndarray) -> np.ndarray:
    """Masses (below, inside, above) of the ROPE under each row of Dirichlet ``weights``.

    ``weights[:, 0]`` is the pseudo-observation at 0, ``weights[:, 1:]`` the data sets.
    A pair ``(i, j)`` counts as above when ``z_i + z_j > 2 r`` (a half on equality).
    """
    z = np.concatenate(([0.0], d))
    sums = z[:, None] + z[None, :]
    above = (sums > 2 * r) + 0.5 * (sums == 2 * r)
    below = (-sums > 2 * r) + 0.5 * (-sums == 2 * r)
    up = np.einsum("bi,ij,bj->b", weights, above, weights)
    down = np.einsum("bi,ij,bj->b", weights, below, weights)
    return np.column_stack([down, 1.0 - up - down, up])


def _signed_rank_from_weights(d: np.ndarray, r: float, weights: np.ndarray) -> Rope:
    masses = np.vstack(
        [_region_masses(d, r, weights[s : s + _CHUNK]) for s in range(0, len(weights), _CHUNK)]
    )
    if r == 0:  # two regions: B better (below) and A better (above)
        masses[:, 1] = -np.inf
    share = np.bincount(np.argmax(masses, axis=1), minlength=3) / len(weights)
    return Rope(float(share[2]), float(share[1]), float(share[0]), r)


def signed_rank_rope(
    scores_a,
    scores_b,
    rope: float = 0.01,
    *,
    prior: float = 0.5,
    draws: int = 50_000,
    seed=None,
) -> Rope:
    """Bayesian signed-rank test across data sets: which of the three answers is most probable.

    ``scores_a[i], scores_b[i]`` are the two learners' mean scores on data set ``i``;
    ``d_i = a_i - b_i``.  The unknown distribution of the differences gets a Dirichlet
    process prior with a pseudo-observation at 0 of weight ``prior``; its posterior draws
    weights ``w ~ Dirichlet(prior, 1, ..., 1)`` over ``(0, d_1, ..., d_m)``
    :cite:`benavoli2017`.  For each draw, as in Wilcoxon's signed-rank statistic, the
    pairs of differences (Walsh averages) give

    ``theta_above = sum_{i,j} w_i w_j 1[(z_i + z_j) / 2 > rope]``

    and ``theta_below`` likewise (``< -rope``), ``theta_inside = 1 - theta_above -
    theta_below``.  The returned probabilities are the shares of draws in which each
    region has the largest mass (the convention of :cite:`benavoli2017`); with ``rope = 0``
    only "above" and "below" compete.  Monte Carlo: ``draws`` posterior draws, standard
    error at most ``0.5 / sqrt(draws)``.

    Parameters
    ----------
    scores_a, scores_b
        One score per data set for each learner (at least 2 data sets).
    rope
        Half-width of the region of practical equivalence, in ``[0, 1)``.
    prior
        Weight of the pseudo-observation at 0 (positive).
    draws
        Posterior draws (at least 100).
    seed
        Seed or Generator (default: the book's seed).

    Returns
    -------
    Rope

    Examples
    --------
    >>> a = [0.91, 0.85, 0.78, 0.95, 0.88, 0.70, 0.83, 0.90]
    >>> b = [0.89, 0.86, 0.74, 0.93, 0.85, 0.69, 0.80, 0.88]
    >>> res = signed_rank_rope(a, b, rope=0.01, seed=1)
    >>> round(res.a_better, 2), round(res.equivalent, 2), round(res.b_better, 2)
    (0.98, 0.02, 0.0)
    """
    d = _paired(scores_a, scores_b)
    r = _rope_width(rope)
    w0 = float(as_positive(prior, "prior", scalar=True))
    n_draws = as_draws(draws, "draws", minimum=100)
    g = make_rng(seed)
    alpha = np.concatenate(([w0], np.ones(d.size)))
    weights = g.dirichlet(alpha, size=n_draws)
    return _signed_rank_from_weights(d, r, weights)
