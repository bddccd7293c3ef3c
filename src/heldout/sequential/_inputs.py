"""Input checks shared by the modules of :mod:`heldout.sequential`.

Every public function of the subpackage validates its arguments here, so that
bad input raises ``ValueError`` naming the argument, what was wrong and what is
expected (the command line turns the message into one line on stderr).
"""

from __future__ import annotations

import numpy as np

from heldout._checks import as_count, as_probability, in_choices, show

#: Methods of :func:`heldout.sequential.confidence_sequence`.
METHODS = ("betting", "empirical-bernstein", "mixture", "hoeffding")
#: Values of ``alternative``.
ALTERNATIVES = ("two-sided", "greater", "less")
#: Largest pool accepted (beyond it a pool is, for every practical purpose, infinite).
MAX_POOL = 2**53
#: Most sequences a monitor follows side by side (each keeps a few floats).
MAX_RUNS = 10**7


def scalar(value, name: str) -> None:
    """Refuse arrays where a single number is expected."""
    try:
        ndim = np.ndim(value)
    except (TypeError, ValueError, OverflowError):  # ragged nested lists
        raise ValueError(f"{name} must be a single number, got {show(value)}") from None
    if ndim != 0:
        raise ValueError(f"{name} must be a single number, got an array of shape {np.shape(value)}")


def alpha_(alpha, name: str = "alpha", *, below: float = 1.0) -> float:
    """A single error probability strictly between 0 and ``below``."""
    scalar(alpha, name)
    a = float(as_probability(alpha, name, scalar=True))
    if a >= below:
        raise ValueError(f"{name} must be below {below:g}, got {show(alpha)}")
    return a


def outcomes(x, name: str = "x") -> np.ndarray:
    """Outcomes in [0, 1] as a float array of shape ``(n,)`` or ``(runs, n)``.

    Refuses text, NaN, infinities, values outside [0, 1], empty input and
    arrays of more than two dimensions.
    """
    if isinstance(x, str | bytes):
        raise ValueError(f"{name} must be numbers in [0, 1], got the text {show(x)}")
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be an array of numbers in [0, 1], got {show(x)}") from None
    if arr.ndim not in (1, 2):
        raise ValueError(
            f"{name} must be one sequence of outcomes (1-D) or one per row (2-D), "
            f"got an array of shape {arr.shape}"
        )
    if arr.shape[-1] == 0 or arr.size == 0:
        raise ValueError(f"{name} must hold at least one outcome, got an empty array")
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN (outcome {_first(np.isnan(arr))})")
    bad = (arr < 0) | (arr > 1)
    if bad.any():
        raise ValueError(
            f"{name} must lie in [0, 1] (scale a bounded loss to [0, 1] first), "
            f"got {arr[bad].flat[0]!r} at outcome {_first(bad)}"
        )
    return arr


def block(x, runs: int, seen: int, pool: int | None) -> tuple[np.ndarray, bool]:
    """The outcomes of one update as a ``(runs, L)`` block, and whether ``x`` was 1-D.

    ``seen`` outcomes were fed before; with a finite ``pool`` the total may not exceed it.
    """
    arr = outcomes(x)
    one = arr.ndim == 1
    rows = arr.reshape(1, -1) if one else arr
    if rows.shape[0] != runs:
        raise ValueError(f"x must have {runs} rows (one per run), got {rows.shape[0]}")
    if pool is not None and seen + rows.shape[1] > pool:
        raise ValueError(
            f"pool must be at least the number of outcomes: {seen + rows.shape[1]:,} "
            f"outcomes from a pool of {pool:,} items"
        )
    return rows, one


def _first(mask: np.ndarray) -> int:
    """1-based position (along the last axis) of the first True entry."""
    return int(np.argwhere(mask)[0][-1]) + 1


def whole(value, name: str) -> int:
    """A whole number of at least 1 (repetitions, runs, looks): ``None`` is refused."""
    if value is None:
        raise ValueError(f"{name} must be a whole number of at least 1, got None")
    return int(pool(value, name=name))


def pool(value, n: int | None = None, name: str = "pool") -> int | None:
    """A finite pool size (``None`` for sampling with replacement), at least ``n``."""
    if value is None:
        return None
    scalar(value, name)
    try:
        big = float(value) > MAX_POOL
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a whole number of items, got {show(value)}") from None
    if big:
        raise ValueError(
            f"{name} must be at most 2**53 (use pool=None for a pool without end), got {show(value)}"
        )
    size = int(as_count(value, name, minimum=1, scalar=True))
    if n is not None and size < n:
        raise ValueError(
            f"{name} must be at least the number of outcomes ({n:,}): a pool of {size:,} items "
            f"cannot yield {n:,} labels without replacement"
        )
    return size


def method_(method: str) -> str:
    if not in_choices(method, METHODS):
        raise ValueError(
            f"method must be one of {', '.join(map(repr, METHODS))}, got {show(method)}"
        )
    return method


def alternative_(alternative: str) -> str:
    if not in_choices(alternative, ALTERNATIVES):
        raise ValueError(
            f"alternative must be one of {', '.join(map(repr, ALTERNATIVES))}, got {show(alternative)}"
        )
    return alternative
