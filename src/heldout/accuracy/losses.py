"""Per-row losses for scoring classifiers on a test set.

The sizing chapter needs a loss with a *known, finite range*: Hoeffding's
inequality only applies to bounded measurements.  The plain deviance
(``-2 log`` of the probability given to the true class) is unbounded, so
The Win-Vector article (Win-Vector LLC, 2021, "What is a Good Test Set Size?")
collars it: predictions are clipped to the interval ``[mu, 1 - mu]`` before
the logarithm is taken.

The module provides :func:`collared_deviance` (the article's collared, or
Winsorized, deviance per row), :func:`collared_deviance_range` (its upper end
``-2 log_b(mu)``), :func:`zero_one_loss` (the misclassification loss per row)
and :func:`classifier_pool` (a fitted scikit-learn classifier and its per-row
losses on a large pool, the population of the chapter's simulations).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from heldout._checks import (
    _arr,
    as_count,
    as_probability,
    broadcast,
    check_work,
    scalar_or_array,
    show,
)
from heldout._result import Result
from heldout.config import _random_state

__all__ = ["collared_deviance", "collared_deviance_range", "zero_one_loss", "classifier_pool"]

_BASES = {2: np.log2, "2": np.log2, "e": np.log, np.e: np.log, 10: np.log10, "10": np.log10}


def _log_function(base):
    try:
        return _BASES[base]
    except (KeyError, TypeError):
        raise ValueError(f"base must be 2, 'e' or 10, got {show(base)}") from None


def _check_mu(mu) -> np.ndarray:
    mu = as_probability(mu, "mu")
    if np.any(mu > 0.5):
        raise ValueError(
            f"mu must be at most 1/2 (predictions are clipped to [mu, 1 - mu]), got {show(mu)}"
        )
    return mu


def _check_labels(y) -> np.ndarray:
    y = _arr(y, "y")
    if np.any((y != 0) & (y != 1)):
        raise ValueError("y must hold only the labels 0 and 1 (or False/True)")
    return y


def collared_deviance(
    y: ArrayLike, p: ArrayLike, mu: ArrayLike = 0.01, *, base: int | str = 2
) -> float | np.ndarray:
    r"""Collared (Winsorized) deviance of each prediction, as in Win-Vector LLC (2021).

    .. math::

        \ell(p, y) = -2\,\bigl[\,y \log_b \max(\mu, p) + (1 - y) \log_b \max(\mu, 1 - p)\bigr]

    The probability given to the true class is clipped from below at ``mu``
    before the logarithm is taken, so every value lies in
    ``[0, -2 log_b(mu)]``: the loss is 0 for a certain and correct prediction
    and reaches its maximum ``-2 log_b(mu)`` whenever the true class got a
    probability of ``mu`` or less.  With the article's ``mu = 1/100`` and
    base 2 the range is ``[0, 13.2877...]`` (the article rounds this up to 14).

    Parameters
    ----------
    y : array_like of {0, 1}
        True labels (booleans accepted).
    p : array_like of float in [0, 1]
        Predicted probabilities of the label 1.  Broadcast against ``y``.
    mu : float, default 0.01
        The collar, ``0 < mu <= 1/2``.  Values of ``p`` outside
        ``[mu, 1 - mu]`` are treated as ``mu`` or ``1 - mu``.
    base : {2, 'e', 10}, default 2
        Base of the logarithm.  The article uses base 2 (so one unit is two
        bits); the statistical deviance uses the natural log (``'e'``).  The
        range, and a tolerance ``t`` stated in these units, scale together:
        a base change multiplies both by the same constant.

    Returns
    -------
    float or ndarray
        The per-row loss (a float for scalar input).

    Raises
    ------
    ValueError
        If ``y`` is not 0/1, ``p`` is outside [0, 1], ``mu`` is outside
        (0, 1/2], ``base`` is unknown or the shapes do not broadcast.

    Examples
    --------
    >>> collared_deviance([1, 1, 0], [0.9, 0.001, 0.2]).round(4).tolist()  # the collar caps the second
    [0.304, 13.2877, 0.6439]
    """
    log = _log_function(base)
    y = _check_labels(y)
    p = as_probability(p, "p", closed=True)
    mu = _check_mu(mu)
    y, p = broadcast(y=y, p=p)
    y, p, mu = broadcast(y=y, p=p, mu=mu)
    p_true = np.where(y == 1, p, 1.0 - p)
    return scalar_or_array(-2.0 * log(np.maximum(mu, p_true)))


def collared_deviance_range(mu: ArrayLike = 0.01, *, base: int | str = 2) -> float | np.ndarray:
    r"""Upper end ``U = -2 log_b(mu)`` of the collared deviance's range ``[0, U]``.

    Parameters
    ----------
    mu : float or array_like, default 0.01
        The collar, ``0 < mu <= 1/2``.
    base : {2, 'e', 10}, default 2
        Base of the logarithm, as in :func:`collared_deviance`.

    Returns
    -------
    float or ndarray
        ``-2 log_b(mu)``; for ``mu = 0.01`` and base 2 this is ``13.2877...``.

    Examples
    --------
    >>> round(collared_deviance_range(0.01), 4)  # -2 log2(0.01)
    13.2877
    """
    log = _log_function(base)
    mu = _check_mu(mu)
    return scalar_or_array(-2.0 * log(mu))


def zero_one_loss(y: ArrayLike, p: ArrayLike, *, threshold: float = 0.5) -> float | np.ndarray:
    r"""0-1 loss of each prediction: 1 if the thresholded score disagrees with ``y``.

    .. math:: \ell(p, y) = \mathbf{1}\{[p > \text{threshold}] \ne y\}

    Parameters
    ----------
    y : array_like of {0, 1}
        True labels.
    p : array_like of float in [0, 1]
        Predicted probabilities of the label 1.
    threshold : float, default 0.5
        Scores strictly above it are read as the label 1.

    Returns
    -------
    float or ndarray
        0.0 or 1.0 per row.

    Examples
    --------
    >>> zero_one_loss([1, 1, 0], [0.9, 0.3, 0.6]).tolist()
    [0.0, 1.0, 1.0]
    """
    y = _check_labels(y)
    p = as_probability(p, "p", closed=True)
    threshold = as_probability(threshold, "threshold", closed=True)
    y, p = broadcast(y=y, p=p)
    return scalar_or_array(((p > threshold).astype(float) != y).astype(float))


@dataclass(frozen=True)
class ClassifierPool(Result):
    """A fitted classifier and its per-row losses on a pool (:func:`classifier_pool`)."""

    y: np.ndarray
    p: np.ndarray
    deviance: np.ndarray
    zero_one: np.ndarray
    range: float
    train_accuracy: float
    model: object


def classifier_pool(
    n_train: int = 5_000,
    n_pool: int = 100_000,
    *,
    mu: float = 0.01,
    base: int | str = 2,
    seed=None,
) -> ClassifierPool:
    """Fit a logistic regression on synthetic data and score a large pool with it.

    The data come from :func:`sklearn.datasets.make_classification` with
    20 features (5 informative, 5 redundant), 5 % of labels reassigned at random (``flip_y=0.05``, so about 2.5 % change)
    (so that some rows hit the collar), ``class_sep=2`` and ``random_state=seed``.  The first
    ``n_train`` rows train a :class:`sklearn.linear_model.LogisticRegression`;
    the remaining ``n_pool`` rows are the *population*: the chapter draws test
    sets from them with replacement, so their mean loss is the exact true
    expected loss of the simulation.

    Parameters
    ----------
    n_train, n_pool : int
        Rows used for training and rows in the population pool.
    mu, base
        Collar and log base of :func:`collared_deviance`.
    seed : int, Generator or None
        Seed of the data generator (default :data:`heldout.config.SEED`; an int is passed
        to scikit-learn as it is).

    Returns
    -------
    ClassifierPool
        ``y`` and ``p`` (labels and predicted probabilities on the pool),
        ``deviance`` (collared deviance per pool row), ``zero_one`` (0-1 loss
        per pool row), ``range`` (``-2 log_b(mu)``), ``train_accuracy``,
        ``model`` (the fitted estimator).

    Examples
    --------
    >>> pool = classifier_pool(n_train=500, n_pool=2000, seed=1)
    >>> pool.deviance.shape, bool(pool.deviance.max() <= pool.range), round(pool.train_accuracy, 3)
    ((2000,), True, 0.89)
    """
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    n_train = int(as_count(n_train, "n_train", minimum=10, scalar=True))
    n_pool = int(as_count(n_pool, "n_pool", minimum=1, scalar=True))
    # 20 float64 features a row: refuse before scikit-learn allocates them
    check_work(n_train + n_pool, 5_000_000, "n_train plus n_pool (rows of 20 features)")
    seed = _random_state(seed)
    x, y = make_classification(
        n_samples=n_train + n_pool,
        n_features=20,
        n_informative=5,
        n_redundant=5,
        flip_y=0.05,
        class_sep=2.0,
        random_state=seed,
    )
    model = LogisticRegression(max_iter=1_000).fit(x[:n_train], y[:n_train])
    y_pool = y[n_train:]
    p_pool = model.predict_proba(x[n_train:])[:, 1]
    return ClassifierPool(
        y=y_pool,
        p=p_pool,
        deviance=collared_deviance(y_pool, p_pool, mu, base=base),
        zero_one=zero_one_loss(y_pool, p_pool),
        range=collared_deviance_range(mu, base=base),
        train_accuracy=float(model.score(x[:n_train], y[:n_train])),
        model=model,
    )
