"""Input checks shared by every module.

Every public function validates its arguments with these helpers, so that bad
input raises one kind of error (``ValueError``) with a message that names the
argument, says what was wrong and what is expected.  The command line turns
these messages into one line on stderr and exit code 2.
"""

from __future__ import annotations

import numpy as np


def _arr(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} must not be NaN")
    return arr


def as_count(value, name: str, *, minimum: int = 0) -> np.ndarray:
    """Return ``value`` as an int64 array after checking it holds whole numbers >= ``minimum``.

    Floats with whole values (``38.0``) are accepted; ``38.5``, negatives, NaN and
    infinities raise ``ValueError`` naming ``name``.
    """
    arr = _arr(value, name)
    if np.any(~np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must be a whole number (a count), got {value!r}")
    if np.any(arr < minimum):
        raise ValueError(f"{name} must be at least {minimum}, got {value!r}")
    return arr.astype(np.int64)


def broadcast(**named) -> tuple[np.ndarray, ...]:
    """Broadcast the named arrays together.

    ``ValueError`` names the arguments and their shapes when they do not broadcast, e.g.
    ``"y and p have shapes (3,) and (2,), which do not broadcast"``.
    """
    try:
        return tuple(np.broadcast_arrays(*named.values()))
    except ValueError:
        names = list(named)
        shapes = [str(np.shape(v)) for v in named.values()]
        what = ", ".join(names[:-1]) + " and " + names[-1]
        have = ", ".join(shapes[:-1]) + " and " + shapes[-1]
        raise ValueError(f"{what} have shapes {have}, which do not broadcast") from None


def as_counts(k, m, k_name: str = "k", m_name: str = "m") -> tuple[np.ndarray, np.ndarray]:
    """Check a count ``k`` out of a total ``m`` (``0 <= k <= m``, ``m >= 1``) and broadcast them."""
    k_arr = as_count(k, k_name)
    m_arr = as_count(m, m_name, minimum=1)
    k_arr, m_arr = broadcast(**{k_name: k_arr, m_name: m_arr})
    if np.any(k_arr > m_arr):
        raise ValueError(
            f"{k_name} must not exceed {m_name} (a count cannot be larger than its total), "
            f"got {k_name}={k!r} and {m_name}={m!r}"
        )
    return k_arr, m_arr


def as_probability(value, name: str, *, closed: bool = False) -> np.ndarray:
    """Return ``value`` as a float array after checking it lies in (0, 1), or [0, 1] if ``closed``."""
    arr = _arr(value, name)
    if closed:
        bad = (arr < 0) | (arr > 1)
        what = "between 0 and 1 inclusive"
    else:
        bad = (arr <= 0) | (arr >= 1)
        what = "strictly between 0 and 1"
    if np.any(bad):
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return arr


def as_positive(value, name: str, *, allow_zero: bool = False) -> np.ndarray:
    """Return ``value`` as a float array after checking it is finite and > 0 (>= 0 if ``allow_zero``)."""
    arr = _arr(value, name)
    if np.any(~np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if np.any(arr < 0) or (not allow_zero and np.any(arr == 0)):
        sign = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{name} must be {sign}, got {value!r}")
    return arr


def scalar_or_array(arr):
    """Return a Python float for a 0-d array and the array itself otherwise."""
    arr = np.asarray(arr)
    return float(arr) if arr.ndim == 0 else arr
