"""The Model Confidence Set of Hansen, Lunde and Nason, on per-item losses.

* :func:`model_confidence_set` -- the models that a sequence of equal-predictive-ability
  tests cannot eliminate :cite:`hansen2011`, with the items of one test set resampled
  independently (the bootstrap of the per-item losses).  It is the closest relative of
  the book's best set (:func:`heldout.comparison.best.best_set`): both return a set of
  models meant to contain the best one with probability at least ``1 - alpha``.  The
  best set calibrates paired sign flips of right/wrong answers, the MCS a bootstrap of
  the mean losses; ``tests/comparison/test_mcs.py`` compares the two by simulation
  (level, size of the set, power).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heldout._checks import as_draws, check_elements, check_work, layout_floats
from heldout._result import Result
from heldout.comparison.predictions import _choice, _probability, pattern_counts
from heldout.config import rng as make_rng

__all__ = ["MCS_MIN_ITEMS", "MCS_MIN_ITEMS_PER_MODEL", "ModelConfidenceSet", "model_confidence_set"]

#: Below this many items the MCS's level was measured above alpha (see
#: :func:`model_confidence_set`); ``compare --predictions`` notes it.
MCS_MIN_ITEMS = 500
#: ... and below this many items per model.
MCS_MIN_ITEMS_PER_MODEL = 50


_CHUNK = 256  # bootstrap repetitions per block
# A step's p-value is P*(T* >= T): a resampled statistic equal to the observed one (up to
# rounding) counts as at least as extreme.  With 0/1 losses the two are often equal in
# exact arithmetic, and which side the rounding falls on must not decide the p-value; with
# two identical models (T = 0) the p-value is then 1, not 0.
_TIE = 1e-9


@dataclass(frozen=True)
class ModelConfidenceSet(Result):
    """A model confidence set: the models not eliminated at level ``alpha``."""

    models: np.ndarray  #: indices of the models in the set, ascending
    in_set: np.ndarray  #: boolean per model
    p_values: np.ndarray  #: the MCS p-value of each model (the set is ``p_values > alpha``)
    eliminated: np.ndarray  #: models in the order they were eliminated (the last survivor last)
    alpha: float
    method: str  #: ``"R"`` (range statistic) or ``"max"``


def _losses(losses) -> np.ndarray:
    arr = layout_floats(losses, "losses", 2, "n_items, n_models")
    if arr.shape[0] < 2:
        raise ValueError("losses must have at least 2 items (rows)")
    if arr.shape[1] < 2:
        raise ValueError("losses must have at least 2 models (columns)")
    if not np.all(np.isfinite(arr)):
        raise ValueError("losses must be finite numbers (no NaN or infinity)")
    return arr


def _standardise(diff: np.ndarray, boot: np.ndarray, var: np.ndarray):
    """diff / sqrt(var) and boot / sqrt(var); a zero variance gives 0 (equal) or +-inf."""
    sd = np.sqrt(var)
    zero = sd <= 0
    safe = np.where(zero, 1.0, sd)
    signed_inf = np.where(diff > 0, np.inf, np.where(diff < 0, -np.inf, 0.0))
    t = np.where(zero, signed_inf, diff / safe)
    tb = np.where(zero, 0.0, boot / safe)
    return t, tb


def _mcs(means: np.ndarray, boot: np.ndarray, alpha: float, method: str) -> ModelConfidenceSet:
    """The elimination sequence from the mean losses (k) and bootstrap means (reps, k)."""
    k = means.size
    alive = np.ones(k, bool)
    order: list[int] = []
    step_p: list[float] = []
    if method == "R":
        d = means[:, None] - means[None, :]
        db = boot[:, :, None] - boot[:, None, :] - d
        var = np.mean(db**2, axis=0)
        t, tb = _standardise(d, db, var)
        while alive.sum() > 1:
            idx = np.flatnonzero(alive)
            sub = t[np.ix_(idx, idx)]
            stat = sub.max()
            sim = tb[:, idx][:, :, idx].reshape(tb.shape[0], -1).max(axis=1)
            p = float(np.mean(sim >= stat - _TIE))
            worst = idx[np.argwhere(sub == stat)[0, 0]]
            order.append(int(worst))
            step_p.append(p)
            alive[worst] = False
    else:
        centred = boot - means  # bootstrap errors of the mean losses
        while alive.sum() > 1:
            idx = np.flatnonzero(alive)
            e = centred[:, idx] - centred[:, idx].mean(axis=1, keepdims=True)
            var = np.mean(e**2, axis=0)
            dev = means[idx] - means[idx].mean()
            t, tb = _standardise(dev, e, var)
            stat = t.max()
            p = float(np.mean(tb.max(axis=1) >= stat - _TIE))
            for worst in idx[t == stat]:
                order.append(int(worst))
                step_p.append(p)
                alive[worst] = False
    survivors = np.flatnonzero(alive)
    order.extend(int(i) for i in survivors)
    step_p.extend([1.0] * survivors.size)
    running = np.maximum.accumulate(np.asarray(step_p))
    pv = np.empty(k)
    pv[np.asarray(order)] = running
    keep = pv > alpha
    return ModelConfidenceSet(np.flatnonzero(keep), keep, pv, np.asarray(order), alpha, method)


def model_confidence_set(
    losses, alpha: float = 0.05, *, reps: int = 1000, method: str = "R", seed=None
) -> ModelConfidenceSet:
    """The Model Confidence Set: models not eliminated by equal-ability tests on the losses.

    ``losses[i, j]`` is model ``j``'s loss on item ``i`` (``1 - correct`` for accuracy,
    squared error, log loss).  Start with every model.  At each step test "the models
    still in the set have equal expected loss"; if the test rejects at level ``alpha``,
    eliminate the worst model and repeat; the models left when it first accepts form the
    set :cite:`hansen2011`.  ``method`` picks the statistic:

    * ``"R"``: ``T_R = max_{i,j} dbar_ij / se(dbar_ij)`` over the pairs still in the set,
      ``dbar_ij`` the difference of mean losses of ``i`` and ``j``; the model eliminated
      is the ``i`` of the maximising pair.
    * ``"max"``: ``T_max = max_i (Lbar_i - Lbar) / se``, each model's mean loss against the
      average of the set; the maximising model is eliminated.

    Standard errors and the null distributions of the maxima come from one bootstrap
    of the items (``reps`` resamples with replacement, independent items), recentred at
    the observed means.  Each model's MCS p-value is the running maximum of the step
    p-values up to its elimination (1 for the last model); the set is the models with
    p-value above ``alpha``.  Hansen, Lunde and Nason show that the set contains the best
    model(s) with probability at least ``1 - alpha`` as the number of items grows
    (asymptotically; the simulation in ``tests/comparison/test_mcs.py`` measures it on
    test sets of the book's sizes).  With few items per model it is not there yet: ten
    or five equally accurate independent models (accuracy 0.9) on 200 items lost a best
    model in 6.8 % and 7.0 % of 600 simulated test sets at ``alpha = 0.05`` (the book's
    rule: exceeds its level); at 500 and 1,000 items (ten models), and twenty models on
    1,000 items, the level held.  ``heldout compare --predictions`` therefore adds a
    note when there are fewer than :data:`MCS_MIN_ITEMS` items or fewer than
    :data:`MCS_MIN_ITEMS_PER_MODEL` items per model.

    Parameters
    ----------
    losses
        Matrix ``(n_items, n_models)`` of finite per-item losses, at least 2 models.
    alpha
        Allowed probability of eliminating a best model.
    reps
        Bootstrap resamples (at least 99).
    method
        ``"R"`` (default) or ``"max"``.
    seed
        Seed or Generator of the bootstrap (default: the book's seed).

    Returns
    -------
    ModelConfidenceSet
        ``models``, ``in_set``, ``p_values``, ``eliminated``, ``alpha``, ``method``.

    Examples
    --------
    >>> from heldout.comparison.best import simulate_correct
    >>> correct = simulate_correct([0.95, 0.95, 0.93, 0.90], 3000, seed=1)
    >>> model_confidence_set(1 - correct, seed=2).models.tolist()
    [0, 1]
    """
    arr = _losses(losses)
    alpha = _probability(alpha, "alpha")
    reps = as_draws(reps, "reps", minimum=99)
    _choice(method, "method", ("R", "max"))
    check_elements(float(reps) * arr.shape[1], "reps x models")
    g = make_rng(seed)
    n = arr.shape[0]
    unique, counts = _unique_rows(arr)
    check_work(float(reps) * unique.shape[0], 1e10, "reps x distinct rows of losses")
    if 8 * unique.shape[0] > n and not np.all((unique == 0) | (unique == 1)):
        boot = _resampled_means_by_index(arr, reps, g)
    else:
        probs = counts / n
        boot = np.vstack(
            [
                g.multinomial(n, probs, size=min(_CHUNK, reps - s)) @ unique / n
                for s in range(0, reps, _CHUNK)
            ]
        )
    return _mcs(arr.mean(axis=0), boot, alpha, method)


def _resampled_means_by_index(arr: np.ndarray, reps: int, g) -> np.ndarray:
    """Bootstrap means of the columns from ``reps`` resamples of item indices.

    The same distribution as the multinomial counts over the distinct rows, drawn the
    way that is cheaper when most rows are distinct (continuous losses): a multinomial
    over ``n`` categories costs about ``n`` binomial draws a resample, while ``n``
    uniform indices, counted per resample by one ``bincount``, cost a few times less;
    the counts times the losses (one matrix product) are the resampled sums.
    """
    n = arr.shape[0]
    step = max(1, min(reps, (1 << 24) // n))  # counts of at most 16M items a block
    out = []
    for s in range(0, reps, step):
        b = min(step, reps - s)
        idx = g.integers(0, n, size=(b, n))
        idx += np.arange(b)[:, None] * n
        counts = np.bincount(idx.ravel(), minlength=b * n).reshape(b, n)
        out.append(counts @ arr / n)
    return np.vstack(out)


def _unique_rows(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(arr, axis=0, return_counts=True)``, by counting when every loss is 0 or 1.

    Rows of 0/1 losses (``1 - correct``) are counted as bit patterns by
    :func:`heldout.comparison.predictions.pattern_counts`, with the first column as the
    most significant bit, so increasing patterns are the rows in numpy's (lexicographic)
    order, not by sorting rows (about 30 times faster on 10^6 items).  Other losses:
    ``np.unique``.
    """
    if arr.shape[1] > 62 or not np.all((arr == 0) | (arr == 1)):
        return np.unique(arr, axis=0, return_counts=True)
    # pattern_counts gives column j bit j: reversed, the first column is the top bit
    p = pattern_counts(arr[:, ::-1] == 1)
    return p.patterns[:, ::-1].astype(arr.dtype), p.counts


def _mcs_from_indices(losses, indices, alpha: float = 0.05, method: str = "R"):
    """The MCS with given bootstrap resamples (rows of item indices); for tests against arch."""
    arr = _losses(losses)
    boot = np.stack([arr[np.asarray(ix)].mean(axis=0) for ix in indices])
    return _mcs(arr.mean(axis=0), boot, alpha, method)
