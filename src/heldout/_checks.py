"""Input checks shared by every module.

Every public function validates its arguments with these helpers, so that bad
input raises one kind of error (``ValueError``) with a message that names the
argument, says what was wrong and what is expected.  The command line turns
these messages into one line on stderr and exit code 2.

What every helper refuses, with a ``ValueError`` naming the argument: text,
``None`` and other non-numbers, booleans, complex numbers, Python integers too large
for a float (``10**400``), ragged nested lists, empty
arrays (unless ``allow_empty=True``), NaN, and (where a finite value is needed)
infinities.  ``scalar=True`` also refuses arrays and returns a plain Python
``int`` or ``float``.  Counts are exact integers below ``2**63`` (a float such as
``1e300`` or a Python integer ``2**63`` is refused rather than wrapped around to
``-2**63``).

Helpers (all keyword options are keyword-only):

``as_count(value, name, *, minimum=0, maximum=None, scalar=False, allow_empty=False)``
    Whole numbers (``38`` or ``38.0``) ``>= minimum``, as ``int64`` (or ``int``).
``as_counts(k, m, k_name="k", m_name="m", *, scalar=False)``
    A count ``k`` out of a total ``m``: ``0 <= k <= m``, ``m >= 1``, broadcast together.
``as_probability(value, name, *, closed=False, scalar=False, allow_empty=False)``
    A number in ``(0, 1)`` (``[0, 1]`` if ``closed``).
``as_positive(value, name, *, allow_zero=False, maximum=None, scalar=False, allow_empty=False)``
    A finite number ``> 0`` (``>= 0`` if ``allow_zero``).
``as_real(value, name, *, scalar=False, allow_empty=False)``
    Any finite number.
``as_floats(value, name, *, allow_bool=False, scalar=False)``
    Any real numbers as float64 (NaN, infinities and empty arrays pass), for a module's own
    checks: the refusals above happen here, by name.
``as_choice(value, name, choices)``
    One of a few strings (``method="exact"``...).
``in_choices(value, choices)``
    ``value in choices`` that is False (not an error) for arrays and other unhashables.
``as_flag(value, name)``
    ``True`` or ``False`` (also numpy booleans), as a Python ``bool``.
``as_instance(value, name, types, what, *, optional=False)``
    An object of one of ``types`` (a result object, a pool, matplotlib axes), else a
    ``ValueError`` naming the argument.
``as_size(raw, name="the size", *, minimum=1, hint="ask for a larger tolerance or probability")``
    A computed size (a float from a formula) rounded up *by the caller* and turned into
    ``int64``: refuses sizes that do not fit (``"the size exceeds 2**63 - 1 ..."``)
    instead of wrapping to ``-9223372036854775808``.
``check_work(units, limit, what)``
    Refuses a computation that would take more than ``limit`` units (memory or time).
``broadcast(**named)``
    Broadcast named arrays; the error names them and their shapes.
``show(value)``
    How a value is quoted in a message: plain Python numbers, never ``array(0.6)``.
``scalar_or_array(arr)``
    A Python ``float`` for a 0-d array, the array otherwise.

Examples
--------
>>> as_count(38.0, "k")
array(38)
>>> as_count(1e300, "k")
Traceback (most recent call last):
...
ValueError: k must be less than 2**63 (a count that fits in 64 bits), got 1e+300
>>> as_probability([0.1, 0.2], "alpha", scalar=True)
Traceback (most recent call last):
...
ValueError: alpha must be a single number, got an array of shape (2,): [0.1, 0.2]
"""

from __future__ import annotations

import os

import numpy as np

#: Largest count the package accepts (counts are stored as int64).
MAX_COUNT = 2**63 - 1
#: The one limit on every resample, draw and repetition count of a public function: each
#: is checked by :func:`as_draws` before anything is allocated.
MAX_DRAWS = 10_000_000
#: The most array elements one call allocates at once (about 4 GB of float64): sizes
#: that multiply (rows x queries, features x pool) are checked by :func:`check_elements`.
MAX_ELEMENTS = 500_000_000
_TWO63 = 9.223372036854775808e18  # 2**63 as a float: floats >= this do not fit in int64

__all__ = [
    "MAX_COUNT",
    "MAX_DRAWS",
    "MAX_ELEMENTS",
    "as_choice",
    "as_count",
    "as_counts",
    "as_draws",
    "as_flag",
    "as_instance",
    "in_choices",
    "as_floats",
    "as_positive",
    "as_probability",
    "as_real",
    "as_size",
    "broadcast",
    "check_elements",
    "check_work",
    "scalar_or_array",
    "show",
]


# --------------------------------------------------------------------------- quoting values
def show(value) -> str:
    """Quote ``value`` for an error message: plain numbers, short lists, never numpy reprs.

    >>> show(np.asarray(0.6)), show(np.float64(2.5)), show(np.arange(3)), show(np.zeros(100))
    ('0.6', '2.5', '[0, 1, 2]', 'an array of shape (100,)')
    """
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return show(value.item())
        if value.size <= 6 and value.dtype.kind in "biuf":
            return str(value.tolist())
        return f"an array of shape {value.shape}"
    if isinstance(value, np.generic):
        return show(value.item())
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, str | os.PathLike):  # text and file names: whole, up to a long line
        text = repr(os.fspath(value)) if isinstance(value, os.PathLike) else repr(value)
        return text if len(text) <= 240 else text[:237] + "..."
    if isinstance(value, bool | int | float | complex | bytes) or value is None:
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    if isinstance(value, list | tuple):
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError, OverflowError):
            arr = None
        if arr is not None and arr.dtype.kind in "biuf":
            return show(arr) if arr.size > 6 or arr.ndim != 1 else str(arr.tolist())
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    return f"a {type(value).__name__}"


def _fail(name: str, what: str, value) -> ValueError:
    return ValueError(f"{name} must be {what}, got {show(value)}")


# --------------------------------------------------------------------------- numbers
def _numeric(
    value,
    name: str,
    *,
    scalar: bool,
    allow_empty: bool,
    what: str,
    allow_bool: bool = False,
    allow_nan: bool = False,
    bool_arrays: bool = False,
) -> np.ndarray:
    """``value`` as a numeric (int or float; bool if ``allow_bool``) array; refuses everything else.

    Booleans are refused unless ``allow_bool``: ``True`` passed as a count or a
    probability is almost always a mistake (an argument in the wrong place), and
    reading it as 1 would answer a question nobody asked.  ``bool_arrays`` still
    accepts arrays of booleans (a 0/1 count per item), never a single ``True``.
    """
    if isinstance(value, str | bytes | dict | set) or value is None:
        raise _fail(name, what, value)
    if not allow_bool and isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be {what}, not a boolean (True/False), got {show(value)}")
    if isinstance(value, complex | np.complexfloating):
        raise ValueError(f"{name} must be {what}, not a complex number, got {show(value)}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        raise _fail(name, what, value) from None
    if arr.dtype.kind == "O":
        # Python integers beyond 64 bits (or a mixture with them) arrive as objects
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise _fail(name, what, value) from None
    if arr.dtype.kind == "b" and not allow_bool and (arr.ndim == 0 or not bool_arrays):
        raise ValueError(f"{name} must be {what}, not booleans (True/False), got {show(value)}")
    if arr.dtype.kind not in "biuf":
        raise _fail(name, what, value)
    if scalar and arr.ndim != 0:
        raise ValueError(
            f"{name} must be a single number, got an array of shape {arr.shape}: {show(value)}"
        )
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty, got {show(value)}")
    if not allow_nan and arr.dtype.kind == "f" and np.any(np.isnan(arr)):
        raise ValueError(f"{name} must not be NaN, got {show(value)}")
    return arr


def as_floats(value, name: str, *, allow_bool: bool = False, scalar: bool = False):
    """``value`` as float64 after refusing what is not a real number, by name.

    The common first step of the modules' own checks: text, ``None``, complex
    numbers, ragged lists, Python integers too large for a float (``10**400``) and,
    unless ``allow_bool``, booleans raise ``ValueError`` naming ``name``.  NaN,
    infinities and empty arrays pass (the caller decides); ``scalar=True`` refuses
    arrays and returns a Python ``float``.

    >>> as_floats([1, 2.5], "scores")
    array([1. , 2.5])
    >>> as_floats(10**400, "n")
    Traceback (most recent call last):
    ...
    ValueError: n must be a number or an array of numbers, got an integer of 401 digits
    """
    what = "a number" if scalar else "a number or an array of numbers"
    arr = _numeric(
        value,
        name,
        scalar=scalar,
        allow_empty=True,
        what=what,
        allow_bool=allow_bool,
        allow_nan=True,
    ).astype(float)
    return _out(arr, scalar)


def _arr(value, name: str, *, allow_empty: bool = False) -> np.ndarray:
    """``value`` as a float array, refusing non-numbers, empty arrays and NaN (infinities pass)."""
    what = "a number or an array of numbers"
    arr = _numeric(value, name, scalar=False, allow_empty=allow_empty, what=what, allow_bool=True)
    return arr.astype(float)


def _out(arr: np.ndarray, scalar: bool):
    return arr.item() if scalar else arr


def as_count(
    value,
    name: str,
    *,
    minimum: int = 0,
    maximum: int | None = None,
    scalar: bool = False,
    allow_empty: bool = False,
):
    """Return ``value`` as an int64 array after checking it holds whole numbers >= ``minimum``.

    Floats with whole values (``38.0``) are accepted; ``38.5``, negatives, NaN,
    infinities and anything of ``2**63`` or more raise ``ValueError`` naming
    ``name``.  With ``scalar=True`` the value must be a single number and a
    Python ``int`` is returned.
    """
    what = "a whole number (a count)" if scalar else "a whole number or an array of whole numbers"
    arr = _numeric(value, name, scalar=scalar, allow_empty=allow_empty, what=what, bool_arrays=True)
    kind = arr.dtype.kind
    if kind == "f":
        if np.any(np.isinf(arr)):
            raise ValueError(f"{name} must be finite, got {show(value)}")
        if np.any(arr != np.floor(arr)):
            raise ValueError(f"{name} must be a whole number (a count), got {show(value)}")
        if np.any(arr >= _TWO63):
            raise ValueError(
                f"{name} must be less than 2**63 (a count that fits in 64 bits), got {show(value)}"
            )
        if np.any(arr < minimum):
            raise ValueError(f"{name} must be at least {minimum}, got {show(value)}")
        out = arr.astype(np.int64)
    else:
        if kind == "u" and np.any(arr > MAX_COUNT):
            raise ValueError(
                f"{name} must be less than 2**63 (a count that fits in 64 bits), got {show(value)}"
            )
        out = arr.astype(np.int64)
        if np.any(out < minimum):
            raise ValueError(f"{name} must be at least {minimum}, got {show(value)}")
    if maximum is not None and np.any(out > maximum):
        raise ValueError(f"{name} must be at most {maximum:,}, got {show(value)}")
    return _out(out, scalar)


def as_counts(
    k, m, k_name: str = "k", m_name: str = "m", *, scalar: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Check a count ``k`` out of a total ``m`` (``0 <= k <= m``, ``m >= 1``) and broadcast them."""
    k_arr = as_count(k, k_name, scalar=scalar)
    m_arr = as_count(m, m_name, minimum=1, scalar=scalar)
    if scalar:
        if k_arr > m_arr:
            raise ValueError(
                f"{k_name} must not exceed {m_name} (a count cannot be larger than its total), "
                f"got {k_name}={show(k)} and {m_name}={show(m)}"
            )
        return k_arr, m_arr
    k_arr, m_arr = broadcast(**{k_name: k_arr, m_name: m_arr})
    if np.any(k_arr > m_arr):
        raise ValueError(
            f"{k_name} must not exceed {m_name} (a count cannot be larger than its total), "
            f"got {k_name}={show(k)} and {m_name}={show(m)}"
        )
    return k_arr, m_arr


def as_probability(
    value, name: str, *, closed: bool = False, scalar: bool = False, allow_empty: bool = False
):
    """Return ``value`` as a float array after checking it lies in (0, 1), or [0, 1] if ``closed``."""
    if closed:
        what = "between 0 and 1 inclusive"
    else:
        what = "strictly between 0 and 1"
    arr = _numeric(value, name, scalar=scalar, allow_empty=allow_empty, what=what).astype(float)
    bad = ((arr < 0) | (arr > 1)) if closed else ((arr <= 0) | (arr >= 1))
    if np.any(bad):
        raise _fail(name, what, value)
    return _out(arr, scalar)


def as_positive(
    value,
    name: str,
    *,
    allow_zero: bool = False,
    maximum: float | None = None,
    scalar: bool = False,
    allow_empty: bool = False,
):
    """Return ``value`` as a float array after checking it is finite and > 0 (>= 0 if ``allow_zero``)."""
    sign = "non-negative" if allow_zero else "positive"
    what = f"a finite {sign} number"
    arr = _numeric(value, name, scalar=scalar, allow_empty=allow_empty, what=what).astype(float)
    if np.any(~np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {show(value)}")
    if np.any(arr < 0) or (not allow_zero and np.any(arr == 0)):
        raise _fail(name, sign, value)
    if maximum is not None and np.any(arr > maximum):
        raise ValueError(f"{name} must be at most {maximum:g}, got {show(value)}")
    return _out(arr, scalar)


def as_real(value, name: str, *, scalar: bool = False, allow_empty: bool = False):
    """Return ``value`` as a float array after checking it is a finite number."""
    what = "a finite number"
    arr = _numeric(value, name, scalar=scalar, allow_empty=allow_empty, what=what).astype(float)
    if np.any(~np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {show(value)}")
    return _out(arr, scalar)


def as_choice(value, name: str, choices) -> str:
    """Return ``value`` if it is one of ``choices`` (strings), else raise ``ValueError``.

    >>> as_choice("exact", "method", ("exact", "normal"))
    'exact'
    """
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}, got {show(value)}")
    return value


def as_instance(value, name: str, types, what: str, *, optional: bool = False):
    """Return ``value`` if it is an instance of ``types`` (or None, if ``optional``).

    Anything else raises ``ValueError`` (the package's one error for bad input, which the
    command line prints as one line) naming the argument and what it should be, before a
    method of the object is used (an ``AttributeError`` deep inside names nothing).

    >>> as_instance(2.5, "pool", list, "a list of items")
    Traceback (most recent call last):
    ...
    ValueError: pool must be a list of items, got 2.5
    """
    if (optional and value is None) or isinstance(value, types):
        return value
    raise ValueError(f"{name} must be {what}, got {show(value)}")


def in_choices(value, choices) -> bool:
    """Is ``value`` one of ``choices``?  Arrays, lists and other unhashable values never are.

    (``array in ("a", "b")`` compares element-wise and raises numpy's "truth value of an
    array is ambiguous", which names no argument.)

    >>> in_choices("exact", ("exact", "normal")), in_choices(np.ones(2), ("exact",))
    (True, False)
    """
    try:
        hash(value)
    except TypeError:
        return False
    return value in choices


def as_flag(value, name: str) -> bool:
    """Return ``value`` as a Python ``bool``; anything but True/False raises ``ValueError``."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {show(value)}")


def as_size(
    raw,
    name: str = "the size",
    *,
    minimum: int = 1,
    hint: str = "ask for a larger tolerance or probability",
):
    """Turn a computed size (already rounded up) into int64, refusing sizes that do not fit.

    ``raw`` is a float (array) from a formula; values below ``minimum`` become
    ``minimum``.  A non-finite value or one of ``2**63`` or more raises
    ``ValueError("the size exceeds 2**63 - 1 ...")`` instead of wrapping around; ``hint``
    ends that message with what to change.
    Returns a Python ``int`` for a 0-d input.

    >>> as_size(1e30, "n")
    Traceback (most recent call last):
    ...
    ValueError: the size exceeds 2**63 - 1 (n would be about 1e+30): ask for a larger tolerance or probability
    """
    arr = np.maximum(np.asarray(raw, dtype=float), minimum)
    bad = ~(arr < _TWO63)  # also catches NaN and inf
    if np.any(bad):
        worst = float(np.max(np.where(np.isnan(arr), np.inf, arr)))
        raise ValueError(f"the size exceeds 2**63 - 1 ({name} would be about {worst:.3g}): {hint}")
    out = arr.astype(np.int64)
    return int(out) if out.ndim == 0 else out


def check_work(units: float, limit: float, what: str) -> None:
    """Refuse a computation of more than ``limit`` units (array elements, search steps...).

    ``what`` completes the sentence ``"... would need {units:,} {what}"`` and should
    name the argument that makes the work large.
    """
    if not units <= limit:
        raise ValueError(f"{what} would need {units:,.0f} steps, more than the limit {limit:,.0f}")


def as_draws(value, name: str, *, minimum: int = 1, maximum: int = MAX_DRAWS) -> int:
    """A resample, draw or repetition count: a whole number from ``minimum`` to ``maximum``.

    The one limit policy: every such count is checked here, before any allocation, so
    that ``reps=10**12`` is refused at once instead of hanging or running out of memory.

    >>> as_draws(2000, "n_resamples")
    2000
    >>> as_draws(10**12, "reps")
    Traceback (most recent call last):
    ...
    ValueError: reps must be at most 10,000,000, got 1000000000000
    """
    return int(as_count(value, name, minimum=minimum, maximum=maximum, scalar=True))


def check_elements(elements: float, what: str) -> None:
    """Refuse an allocation of more than ``MAX_ELEMENTS`` array elements.

    ``what`` names the arguments whose product is ``elements``.

    >>> check_elements(2e9, "queries x train_rows")
    Traceback (most recent call last):
    ...
    ValueError: queries x train_rows would hold 2,000,000,000 array elements, more than the limit 500,000,000
    """
    if not float(elements) <= MAX_ELEMENTS:
        raise ValueError(
            f"{what} would hold {float(elements):,.0f} array elements, "
            f"more than the limit {MAX_ELEMENTS:,}"
        )


# --------------------------------------------------------------------------- shapes
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


def scalar_or_array(arr):
    """Return a Python float for a 0-d array and the array itself otherwise."""
    arr = np.asarray(arr)
    return float(arr) if arr.ndim == 0 else arr


# --------------------------------------------------------------------------- arrays of a given layout
_LAYOUT_NOUNS = {1: "an array of numbers", 2: "a matrix of numbers"}


def layout_floats(value, name: str, ndim: int, layout: str, *, allow_empty: bool = True):
    """``value`` as a float64 array of ``ndim`` (1 or 2) dimensions, else ``ValueError``.

    The one reading of a vector of scores or a matrix of items by models: ``layout``
    says in words what the rows and columns hold, and both messages name ``name`` and
    quote it.  NaN and infinities pass (the caller decides); so do 0/1 booleans and
    numeric text, as in ``np.asarray(value, dtype=float)``; ``allow_empty=False``
    refuses an array without elements.

    >>> layout_floats([[1, 0], [0, 1]], "losses", 2, "items by models").shape
    (2, 2)
    >>> layout_floats([1, 2], "losses", 2, "items by models")
    Traceback (most recent call last):
    ...
    ValueError: losses must be 2-d (items by models), got shape (2,)
    """
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        noun = _LAYOUT_NOUNS[ndim]
        raise ValueError(f"{name} must be {noun} ({layout}), got {show(value)}") from None
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-d ({layout}), got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty ({layout})")
    return arr


def same_shape(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    """Refuse two paired arrays (two models on the same items) of different shapes, by name.

    >>> same_shape(np.zeros(3), np.zeros(2), "scores_a", "scores_b")
    Traceback (most recent call last):
    ...
    ValueError: scores_a and scores_b must have the same shape, got (3,) and (2,)
    """
    if a.shape != b.shape:
        raise ValueError(
            f"{name_a} and {name_b} must have the same shape, got {a.shape} and {b.shape}"
        )
