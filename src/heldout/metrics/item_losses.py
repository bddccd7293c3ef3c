"""Per-item losses of probability predictions: the log loss and the Brier loss.

The items whose means are the proper scores of :mod:`heldout.metrics.scores`; the
bootstrap (:mod:`heldout.metrics.bootstrap`) resamples them too, so they live apart
from both.

Examples
--------
>>> brier_items([1, 0], [0.8, 0.8]).round(4).tolist()
[0.04, 0.64]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from heldout import _inputs
from heldout._checks import as_floats, show

__all__ = ["EPS", "brier_items", "log_loss_items"]

#: Clipping of probabilities in the log loss.
EPS = 1e-15


def log_loss_items(y: ArrayLike, p: ArrayLike, eps: float = EPS) -> np.ndarray:
    """Per-item log loss ``-(y ln p + (1 - y) ln(1 - p))`` (nats), ``p`` clipped to ``[eps, 1 - eps]``.

    ``p`` is the predicted probability of the positive class (label 1).

    Examples
    --------
    >>> np.round(log_loss_items([1, 0], [0.8, 0.8]), 4).tolist()
    [0.2231, 1.6094]
    """
    pos = _inputs.binary_labels(y, "y")
    q = _inputs.probabilities(p, "p", pos.size)
    e = as_floats(eps, "eps", scalar=True)
    if not 0 < e < 0.5:
        raise ValueError(
            f"eps must lie strictly between 0 and 0.5 (a clipping of p), got {show(eps)}"
        )
    q = np.clip(q, e, 1 - e)
    return -np.where(pos, np.log(q), np.log1p(-q))


def brier_items(y: ArrayLike, p: ArrayLike) -> np.ndarray:
    """Per-item Brier loss ``(p - y)^2`` for binary labels.

    Examples
    --------
    >>> brier_items([1, 0], [0.8, 0.8]).round(4).tolist()
    [0.04, 0.64]
    """
    pos = _inputs.binary_labels(y, "y")
    q = _inputs.probabilities(p, "p", pos.size)
    return (q - pos) ** 2
