"""Input checks for metrics computed from predictions (labels, scores, probabilities).

Private to the metric modules (:mod:`heldout.metrics.auc`, :mod:`heldout.metrics.rates`,
:mod:`heldout.metrics.fscore`, :mod:`heldout.metrics.scores`, :mod:`heldout.metrics.bootstrap`,
:mod:`heldout.metrics.evaluate`).  Like :mod:`heldout._checks`, every failure is a
``ValueError`` that names the argument, says what was wrong and what is
expected; the checks are vectorised, so they cost little on 10^7 items.
"""

from __future__ import annotations

import numpy as np

from heldout._checks import as_count, as_probability, show


def array(value, name: str) -> np.ndarray:
    """``np.asarray(value)`` with a ragged or unreadable input reported as a ``ValueError`` naming it."""
    try:
        return np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a rectangular array of numbers") from None


def _numeric(
    value, name: str, *, ndim: int | tuple[int, ...] = 1, low_high: list | None = None
) -> np.ndarray:
    """``value`` as a numeric array of ``ndim`` dimensions, not empty, finite and real.

    ``low_high``: a list that receives the smallest and largest value of a float array
    (the finiteness check computes them).
    """
    arr = array(value, name)
    if arr.dtype == object or arr.dtype.kind in "USV":
        raise ValueError(f"{name} must hold numbers, got values of type {arr.dtype}")
    ndims = (ndim,) if isinstance(ndim, int) else ndim
    if arr.ndim not in ndims:
        want = " or ".join(f"{d}-d" for d in ndims)
        raise ValueError(f"{name} must be a {want} array, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.ndim == 0 and arr.dtype == bool:  # a single True is an argument in the wrong place
        raise ValueError(f"{name} must be a number, not a boolean, got {arr.item()!r}")
    if arr.dtype.kind == "f":
        lo, hi = arr.min(), arr.max()  # finite only if every value is (NaN propagates)
        if not (np.isfinite(lo) and np.isfinite(hi)):
            bad = ~np.isfinite(arr)
            what = "NaN" if np.isnan(arr[bad]).any() else "infinite values"
            raise ValueError(f"{name} must not contain {what}")
        if low_high is not None:
            low_high[:] = [float(lo), float(hi)]
    elif arr.dtype.kind == "c":
        raise ValueError(f"{name} must hold real numbers, got complex values")
    return arr


def binary_labels(y, name: str = "y") -> np.ndarray:
    """``y`` as a boolean array (True = positive), from 0/1, True/False or 0.0/1.0 values."""
    arr = _numeric(y, name)
    if arr.dtype == bool:
        return arr
    is_one = arr == 1
    if not np.all(is_one | (arr == 0)):
        bad = arr[~(is_one | (arr == 0))][:3]
        raise ValueError(
            f"{name} must hold binary labels 0 and 1, got values such as {bad.tolist()}"
        )
    return is_one


def class_labels(y, name: str = "y") -> np.ndarray:
    """``y`` as an int64 array of class labels (whole numbers, e.g. 0..K-1)."""
    arr = _numeric(y, name)
    if arr.dtype == bool:
        return arr.astype(np.int64)
    if arr.dtype.kind == "f" and np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must hold whole-number class labels, got fractions")
    label_range(arr, name)  # also uint64 values of 2**63 or more, which would wrap around
    return arr.astype(np.int64)


#: Largest magnitude of a class label (labels are class indices or codes, stored as int64).
MAX_LABEL = 2**62


def label_range(values: np.ndarray, name: str) -> None:
    """Refuse class labels of magnitude ``2**62`` or more (``2**63`` or ``1e300`` in a file).

    Such a value cannot be an int64 class code: converted, it would wrap around to
    ``-2**63`` and silently become a class of its own.
    """
    arr = np.asarray(values)
    if arr.dtype.kind in "iuf" and arr.size and np.any(np.abs(arr.astype(float)) >= MAX_LABEL):
        big = arr[np.abs(arr.astype(float)) >= MAX_LABEL][0]
        raise ValueError(
            f"{name} holds the label {float(big):.6g}, too large for a class label "
            f"(labels must be below 2**62 in magnitude)"
        )


def detected_kind(whole: bool, low: float, high: float) -> str:
    """What a model column holds, from (every value whole, its minimum, its maximum).

    ``"labels"`` when every value is a whole number, else ``"probabilities"`` when the
    values lie in [0, 1], else ``"scores"``: the detection of
    :func:`heldout.metrics.column_kinds.kind_of_summary`, kept here (in the core) so that
    every wing that reads a predictions file applies the same rule.

    >>> detected_kind(True, 0, 1), detected_kind(False, 0.1, 0.9), detected_kind(False, -1, 2)
    ('labels', 'probabilities', 'scores')
    """
    if whole:
        return "labels"
    return "probabilities" if low >= 0 and high <= 1 else "scores"


def all_whole(values: np.ndarray) -> bool:
    """Every value is a whole number (checked in blocks: a column of fractions stops early).

    The test of :func:`detected_kind`'s ``whole`` for every reader of a predictions file.

    Examples
    --------
    >>> import numpy as np
    >>> all_whole(np.array([0.0, 3.0, -2.0])), all_whole(np.array([1.0, 0.5]))
    (True, False)
    """
    if values.dtype.kind != "f":  # integers and booleans
        return True
    step = 1 << 16  # a block and its rounding stay in the core's cache
    rounded = np.empty(min(step, values.size), dtype=values.dtype)
    for i in range(0, values.size, step):
        part = values[i : i + step]
        np.rint(part, out=rounded[: part.size])
        if not np.array_equal(rounded[: part.size], part):
            return False
    return True


def scores(
    s, name: str = "score", n: int | None = None, *, ndim=1, low_high: list | None = None
) -> np.ndarray:
    """Finite real scores as float64, 1-d (or ``ndim``), of length ``n`` when given.

    ``low_high``: a list that receives their minimum and maximum.
    """
    found: list = []
    arr = _numeric(s, name, ndim=ndim, low_high=found).astype(np.float64, copy=False)
    if low_high is not None:
        low_high[:] = found or [float(arr.min()), float(arr.max())]
    if n is not None and arr.shape[-1] != n:
        raise ValueError(f"{name} has {arr.shape[-1]} items but the labels have {n}")
    return arr


def probabilities(p, name: str = "p", n: int | None = None) -> np.ndarray:
    """Probabilities in [0, 1] as float64 (a 1-d array of length ``n`` when given)."""
    arr = scores(p, name, n)
    if np.any((arr < 0) | (arr > 1)):
        lo, hi = float(arr.min()), float(arr.max())
        raise ValueError(
            f"{name} must hold probabilities between 0 and 1, got values from {lo:g} to {hi:g}"
        )
    return arr


def same_length(n: int, **named) -> None:
    """Raise ``ValueError`` naming the arrays whose length differs from ``n``."""
    for key, value in named.items():
        if np.shape(value)[-1] != n:
            raise ValueError(f"{key} has {np.shape(value)[-1]} items but the labels have {n}")


def alpha_value(alpha, name: str = "alpha") -> float:
    """A scalar error probability in (0, 1)."""
    return float(as_probability(alpha, name, scalar=True))


def both_classes(y: np.ndarray, name: str = "y") -> tuple[int, int]:
    """Numbers of positives and negatives; ``ValueError`` if either class is absent."""
    n1 = int(np.count_nonzero(y))
    n0 = int(y.size - n1)
    if n1 == 0 or n0 == 0:
        which = "positive (1)" if n1 == 0 else "negative (0)"
        raise ValueError(
            f"{name} holds no {which} items; the AUC needs both classes present "
            f"(got {n1} positives and {n0} negatives)"
        )
    return n1, n0


def count(value, name: str, *, minimum: int = 0, scalar: bool = False) -> np.ndarray:
    """:func:`heldout._checks.as_count`, and also refuse counts of 2**63 or more.

    (Such values do not fit an int64; the shared helper would wrap them around.)
    """
    try:
        big = np.any(np.abs(np.asarray(value, dtype=float)) >= 2.0**63)
    except (TypeError, ValueError, OverflowError):
        big = False
    if big:
        raise ValueError(f"{name} must be below 2**63, got {show(value)}")
    return as_count(value, name, minimum=minimum, scalar=scalar)
