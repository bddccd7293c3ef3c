"""Per-item correctness of several models scored on the same test items.

Every comparison of models on one test set starts from a boolean matrix ``correct`` of
shape ``(n_items, n_models)``: ``correct[i, j]`` says whether model ``j`` got item ``i``
right.  This module builds it (from true and predicted labels, or from a CSV file of
predictions), checks it, and reduces it to the counts of its right/wrong *patterns*,
the sufficient statistic of every paired method in :mod:`heldout.comparison.paired`,
:mod:`heldout.comparison.multiple` and :mod:`heldout.comparison.best`: ``k`` models have at most ``2^k``
patterns, so a million items of ten models reduce to at most 1,024 counts.
"""

from __future__ import annotations

import csv
import io
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from heldout import _files
from heldout._checks import in_choices, show
from heldout._result import Result, extra

__all__ = [
    "Patterns",
    "Predictions",
    "as_correct",
    "correctness",
    "pattern_counts",
    "read_predictions",
]

_MAX_COUNT = 2**63  # counts at or above this do not fit in an int64


# ---------------------------------------------------------------------------
# Validation shared by the comparison modules
# ---------------------------------------------------------------------------


def _not_boolean(value, name: str) -> None:
    """Refuse booleans and complex numbers given as counts or probabilities (by name)."""
    kind = getattr(value, "dtype", None)
    kind = kind.kind if kind is not None else None
    if isinstance(value, bool | np.bool_) or kind == "b":
        raise ValueError(f"{name} must be a number, not a boolean (True/False), got {show(value)}")
    if isinstance(value, complex | np.complexfloating) or kind == "c":
        raise ValueError(f"{name} must be a real number, got the complex {show(value)}")
    if isinstance(value, list | tuple) and any(
        isinstance(v, bool | np.bool_ | complex) for v in value
    ):
        raise ValueError(f"{name} must hold real numbers, not booleans or complex numbers")


def _real_floats(value, name: str, what: str) -> np.ndarray:
    """``value`` as floats (booleans and complex numbers refused), else ValueError naming ``name``."""
    _not_boolean(value, name)
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be {what}, got {show(value)}") from None


def _scalar(value, name: str) -> float:
    """A single finite real number (not an array, not NaN), else ValueError naming ``name``."""
    arr = _real_floats(value, name, "a single number")
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a single number, got an array of shape {arr.shape}")
    x = float(arr)
    if not np.isfinite(x):
        raise ValueError(f"{name} must be a finite number, got {show(value)}")
    return x


def _probability(value, name: str, *, closed: bool = False) -> float:
    """A single number in (0, 1), or in [0, 1] when ``closed``."""
    x = _scalar(value, name)
    if closed and not 0.0 <= x <= 1.0:
        raise ValueError(f"{name} must be between 0 and 1 inclusive, got {show(x)}")
    if not closed and not 0.0 < x < 1.0:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {show(x)}")
    return x


def _count(value, name: str, *, minimum: int = 0) -> int:
    """A single whole number ``>= minimum`` and below 2**63."""
    x = _scalar(value, name)
    if x != np.floor(x):
        raise ValueError(f"{name} must be a whole number, got {show(value)}")
    if x < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {show(value)}")
    if x >= _MAX_COUNT:
        raise ValueError(f"{name} must be below 2**63, got {show(value)}")
    return int(x)


def _counts(value, name: str, *, minimum: int = 0) -> np.ndarray:
    """An array of whole numbers ``>= minimum`` and below 2**63 (int64)."""
    arr = _real_floats(value, name, "a whole number or an array of them")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    if np.any(arr != np.floor(arr)):
        raise ValueError(f"{name} must hold whole numbers (counts)")
    if np.any(arr < minimum):
        raise ValueError(f"{name} must be at least {minimum}")
    if np.any(arr >= _MAX_COUNT):
        raise ValueError(f"{name} must be below 2**63")
    return arr.astype(np.int64)


def _probabilities(value, name: str, *, closed: bool = False) -> np.ndarray:
    """An array of numbers strictly between 0 and 1, or in [0, 1] if ``closed`` (not empty, no NaN)."""
    arr = _real_floats(value, name, "a number or an array of numbers")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if closed:
        if np.any(np.isnan(arr)) or np.any((arr < 0) | (arr > 1)):
            raise ValueError(f"{name} must lie between 0 and 1 inclusive")
    elif np.any(np.isnan(arr)) or np.any((arr <= 0) | (arr >= 1)):
        raise ValueError(f"{name} must lie strictly between 0 and 1")
    return arr


def _choice(value, name: str, options: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in options:
        raise ValueError(
            f"{name} must be one of {', '.join(map(repr, options))}; got {show(value)}"
        )
    return value


def as_correct(correct, name: str = "correct", *, min_models: int = 2) -> np.ndarray:
    """Check a correctness matrix and return it as booleans of shape ``(n_items, n_models)``.

    Accepts booleans or the numbers 0 and 1.  Raises ``ValueError`` naming ``name`` for
    anything else: a matrix that is not two-dimensional, values other than 0/1 (or NaN),
    no items, or fewer than ``min_models`` models (columns).

    Examples
    --------
    >>> as_correct([[1, 0], [1, 1], [0, 1]]).shape
    (3, 2)
    >>> as_correct([[1, 2], [0, 1]])
    Traceback (most recent call last):
    ...
    ValueError: correct must hold only booleans or 0/1 values
    """
    try:
        arr = np.asarray(correct) if not isinstance(correct, np.ndarray) else correct
    except (TypeError, ValueError, OverflowError):  # ragged rows
        raise ValueError(f"{name} must be a matrix of booleans (or 0/1)") from None
    if arr.dtype == object:
        try:
            arr = np.asarray(arr, dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{name} must be a matrix of booleans (or 0/1)") from None
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-d matrix (n_items, n_models), got {arr.ndim} dimension(s)"
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} has no items (rows)")
    if (
        isinstance(min_models, bool)
        or not isinstance(min_models, int | np.integer)
        or min_models < 1
    ):
        raise ValueError(f"min_models must be a whole number of at least 1, got {show(min_models)}")
    if arr.shape[1] < min_models:
        raise ValueError(
            f"{name} must have at least {min_models} models (columns), got {arr.shape[1]}"
        )
    if arr.dtype == bool:
        return arr
    if not (np.issubdtype(arr.dtype, np.number)):
        raise ValueError(f"{name} must be a matrix of booleans (or 0/1), got dtype {arr.dtype}")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must hold only booleans or 0/1 values")
    return arr.astype(bool)


# ---------------------------------------------------------------------------
# Building the matrix
# ---------------------------------------------------------------------------


def correctness(y_true, predictions) -> np.ndarray:
    """Boolean matrix ``correct[i, j] = (predictions of model j on item i == y_true[i])``.

    Parameters
    ----------
    y_true
        True labels, one per item (numbers or strings).
    predictions
        Either a 2-d array of shape ``(n_items, n_models)``, or a sequence or mapping of
        1-d arrays, one per model (columns in that order).

    Returns
    -------
    ndarray of bool, shape (n_items, n_models)

    Examples
    --------
    >>> correctness([0, 1, 2, 1], {"a": [0, 1, 1, 1], "b": [0, 2, 2, 1]}).astype(int)
    array([[1, 1],
           [1, 0],
           [0, 1],
           [1, 1]])
    """
    try:
        y = np.asarray(y_true)
    except (TypeError, ValueError, OverflowError):
        raise ValueError("y_true must be a one-dimensional array of labels") from None
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"y_true must be a non-empty 1-d array of labels, got shape {y.shape}")
    if isinstance(predictions, Mapping):
        predictions = list(predictions.values())
    if isinstance(predictions, list | tuple):
        cols = [np.asarray(p) for p in predictions]
        if not cols:
            raise ValueError("predictions must hold at least one model")
        for j, c in enumerate(cols):
            if c.shape != y.shape:
                raise ValueError(
                    f"predictions of model {j} have shape {c.shape}, but y_true has {y.shape}"
                )
        return np.stack([c == y for c in cols], axis=1)
    pred = np.asarray(predictions)
    if pred.ndim == 1:
        pred = pred[:, None]
    if pred.ndim != 2 or pred.shape[0] != y.size:
        raise ValueError(
            f"predictions must have shape (n_items, n_models) with n_items = {y.size}, "
            f"got {pred.shape}"
        )
    return pred == y[:, None]


@dataclass(frozen=True)
class Predictions(Result):
    """Models' correctness read from a CSV of predictions."""

    names: list  #: model names (the CSV's columns other than the label)
    correct: np.ndarray  #: boolean matrix (n_items, n_models)
    #: what each model column holds, by the one column-kind rule
    #: (:func:`heldout.metrics.column_kinds.kind_of_summary`): ``"labels"`` (compared with
    #: the label) or ``"probabilities"`` (of class 1, predicting 1 at ``threshold``)
    kinds: tuple = extra(())
    threshold: float = extra(0.5)  #: the cut applied to columns of probabilities


def _read_text(source) -> str:
    if isinstance(source, str | os.PathLike) and str(source) == "-":
        data = _files.read_bounded(sys.stdin.buffer, "predictions file")
    elif isinstance(source, str | os.PathLike):
        if os.path.exists(source) and not os.path.isdir(source) and not os.path.isfile(source):
            # a device or a pipe by name (/dev/zero): use '-' to read a stream
            raise ValueError(f"predictions file {str(source)!r} is not a regular file")
        try:
            with open(source, "rb") as fh:
                data = _files.read_bounded(fh, "predictions file")
        except FileNotFoundError:
            raise ValueError(f"predictions file {str(source)!r} does not exist") from None
        except IsADirectoryError:
            raise ValueError(f"predictions file {str(source)!r} is a directory") from None
        except OSError as exc:
            raise ValueError(f"cannot read predictions file {str(source)!r}: {exc}") from None
    elif hasattr(source, "read"):
        data = _files.read_bounded(source, "predictions file")
    else:
        raise ValueError(
            f"source must be a path, '-' (standard input) or a file, got {show(source)}"
        )
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValueError("predictions file is not UTF-8 text") from None
    return data.lstrip("\ufeff")


def read_predictions(source, label: str = "label", threshold: float = 0.5) -> Predictions:
    """Read a CSV of predictions: a column of true labels and one column per model.

    The first row names the columns.  ``label`` names the column of true labels; every
    other column is a model.  What a model column holds follows the one rule of
    :func:`heldout.metrics.column_kinds.kind_of_summary` (the rule of ``heldout
    evaluate``): whole numbers are predicted labels, and a cell is right when it equals
    the label, as numbers when both columns are numeric (so ``3`` and ``3.0`` agree),
    otherwise as text with surrounding spaces removed; fractions in [0, 1] are
    probabilities of class 1, which need labels 0 and 1, and a cell is right when
    ``(p >= threshold) == (label == 1)``; other fractions (scores, whose order alone
    means something) are refused, since they predict no label.  Parsed by numpy's C
    reader (no pandas), or pyarrow's for large files when it is installed (the same
    cells; a file pyarrow cannot read as numbers goes to numpy's reader).

    Parameters
    ----------
    source
        A path, ``"-"`` for standard input, or an open file (text or binary).
    label
        Name of the column of true labels.
    threshold
        A column of probabilities predicts class 1 at ``p >= threshold`` (default 0.5,
        as ``heldout evaluate``).

    Raises
    ------
    ValueError
        For an empty file, a file without items, a missing label column, fewer than two
        model columns, duplicated column names, rows with a different number of cells
        than the header, empty cells, a column of probabilities beside labels other
        than 0 and 1, or a column of scores outside [0, 1].

    Examples
    --------
    >>> import io
    >>> p = read_predictions(io.StringIO("label,a,b\\n1,1,2\\n2,2,2\\n3,1,3\\n"))
    >>> p.names, p.correct.sum(axis=0).tolist()
    (['a', 'b'], [2, 2])
    >>> q = read_predictions(io.StringIO("label,a,b\\n1,0.9,1\\n0,0.7,0\\n1,0.2,1\\n"))
    >>> q.kinds, q.correct.sum(axis=0).tolist()
    (('probabilities', 'labels'), [1, 3])
    """
    th = _probability(threshold, "threshold")
    if not isinstance(label, str) or not label:
        raise ValueError(f"label must be a non-empty column name, got {show(label)}")
    text = _read_text(source)
    if not text.strip():
        raise ValueError("predictions file is empty")
    head, _, body = text.partition("\n")
    if len(head) > _files.MAX_LINE:
        raise ValueError(
            f"predictions file: the header row is longer than {_files.MAX_LINE:,} characters"
        )
    if head.count(",") >= _files.MAX_COLUMNS:  # before the csv module splits it
        _files.check_header(head.split(","), "predictions file")
    try:
        header = [h.strip() for h in next(csv.reader([head.rstrip("\r")]))]
    except csv.Error as exc:
        raise ValueError(f"predictions file: the header row cannot be read as CSV: {exc}") from None
    _files.check_header(header, "predictions file")
    if not in_choices(label, header):
        raise ValueError(
            f"predictions file has no label column {show(label)} (columns: {', '.join(header)}); "
            "name it with --label"
        )
    if len(set(header)) != len(header):
        dup = sorted({h for h in header if header.count(h) > 1})
        raise ValueError(f"predictions file repeats column names: {', '.join(dup)}")
    names = [h for h in header if h != label]
    if len(names) < 2:
        raise ValueError(
            f"predictions file must have at least two model columns besides {show(label)}, "
            f"got {len(names)}"
        )
    if not body.strip():
        raise ValueError("predictions file has a header but no items (rows)")
    cells = _parse_body(body, len(header))
    if cells.dtype.kind == "f":  # 2**63 or 1e300 is no class label (evaluate refuses it too)
        from heldout._inputs import label_range

        for i, name in enumerate(header):
            label_range(cells[:, i], f"predictions file column {name!r}")
    j = header.index(label)
    truth = cells[:, j]
    models = np.delete(cells, j, axis=1)
    correct, kinds = _correct_by_kind(truth, models, names, th)
    return Predictions(names=names, correct=correct, kinds=tuple(kinds), threshold=th)


def _numeric(column: np.ndarray) -> np.ndarray | None:
    """A column as floats, or None when a cell is not a number (a text column)."""
    if column.dtype.kind == "f":
        return column
    try:
        values = column.astype(float)
    except ValueError:
        return None
    return values if np.all(np.isfinite(values)) else None


def _correct_by_kind(truth, models, names, threshold):
    """Correctness of each model column, read by the one column-kind rule."""
    from heldout._inputs import all_whole, detected_kind

    y = _numeric(truth)
    correct = np.empty(models.shape, dtype=bool)
    kinds = []
    for j, name in enumerate(names):
        x = _numeric(models[:, j])
        if x is None or y is None:  # text: compared as text
            correct[:, j] = models[:, j] == truth
            kinds.append("labels")
            continue
        kind = detected_kind(all_whole(x), x.min(), x.max())
        kinds.append(kind)
        if kind == "labels":
            correct[:, j] = x == y
        elif kind == "scores":
            raise ValueError(
                f"predictions file column {show(name)} holds scores outside [0, 1] (for example "
                f"{x[int(np.argmax(np.abs(x) > 1))]:g}), which predict no label; give predicted "
                "labels or probabilities of class 1 (heldout evaluate reads scores for the AUC)"
            )
        elif not np.all((y == 0) | (y == 1)):
            raise ValueError(
                f"predictions file column {show(name)} holds probabilities, which need labels 0 "
                "and 1; the label column holds other values"
            )
        else:
            correct[:, j] = (x >= threshold) == (y == 1)
    return correct, kinds


#: Bodies of at least this many characters go to pyarrow's CSV reader when it is installed
#: (importing it costs more than numpy's parse of a small file).
_ARROW_MIN_CHARS = 1 << 22


def _arrow_floats(lines: str, ncol: int) -> np.ndarray | None:
    """Every cell as a float by pyarrow's CSV reader, or None for numpy's reader to decide.

    None when pyarrow is missing, or a cell is not a number, is empty, or a row has the
    wrong number of cells: numpy's reader then parses the file (as text if need be) and
    names the fault, so the result and the messages are those of numpy's path.
    """
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:
        return None
    names = [f"c{i}" for i in range(ncol)]
    try:
        table = pacsv.read_csv(
            io.BytesIO(lines.encode()),
            read_options=pacsv.ReadOptions(column_names=names),
            parse_options=pacsv.ParseOptions(quote_char='"'),
            convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(names, pa.float64())),
        )
    except (pa.ArrowException, UnicodeError):
        return None
    if table.num_rows == 0 or any(table.column(c).null_count for c in names):
        return None
    out = np.empty((table.num_rows, ncol))
    for j, c in enumerate(names):  # from the chunks' buffers: to_numpy would import pandas
        start = 0
        for chunk in table.column(c).chunks:
            m = len(chunk)
            values = np.frombuffer(chunk.buffers()[1], dtype=np.float64, count=chunk.offset + m)
            out[start : start + m, j] = values[chunk.offset :]
            start += m
    return out


def _parse_body(body: str, ncol: int) -> np.ndarray:
    """Cells as floats (when all are numeric) or stripped strings; checks the shape."""
    lines = body.rstrip("\r\n")
    kwargs = dict(delimiter=",", ndmin=2, comments=None, quotechar='"')
    fast = _arrow_floats(lines, ncol) if len(lines) >= _ARROW_MIN_CHARS else None
    if fast is not None:
        if np.any(np.isnan(fast)):
            raise ValueError("predictions file has missing (NaN) cells")
        return fast
    try:
        cells = np.loadtxt(io.StringIO(lines), dtype=float, **kwargs)
        if cells.shape[1] != ncol:
            raise ValueError(f"the rows have {cells.shape[1]} cells but the header has {ncol}")
        if np.any(np.isnan(cells)):
            raise ValueError("predictions file has missing (NaN) cells")
        return cells
    except ValueError as exc:
        if "NaN" in str(exc) or "header has" in str(exc):
            raise
    try:
        cells = np.loadtxt(io.StringIO(lines), dtype=str, **kwargs)
    except ValueError as exc:
        raise ValueError(f"predictions file is not a rectangular CSV: {_short(exc)}") from None
    if cells.shape[1] != ncol:
        raise ValueError(f"the rows have {cells.shape[1]} cells but the header has {ncol}")
    cells = np.char.strip(cells)
    empty = np.argwhere(cells == "")
    if empty.size:
        row, col = empty[0]
        raise ValueError(f"predictions file has an empty cell (row {row + 2}, column {col + 1})")
    return cells


def _short(exc: Exception) -> str:
    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    # numpy's message names the row counting from the first data line
    return msg.replace("; use `usecols` to select a subset and avoid this error", "")


# ---------------------------------------------------------------------------
# Patterns
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Patterns(Result):
    """Distinct right/wrong patterns of a correctness matrix and how often each occurs."""

    patterns: np.ndarray  #: boolean matrix (n_patterns, n_models), one row per observed pattern
    counts: np.ndarray  #: items showing each pattern (int64, sums to n_items)


def pattern_counts(correct) -> Patterns:
    """Reduce ``correct`` (n_items, n_models) to its distinct rows and their counts.

    Rows are packed into integers (one bit per model) and counted with ``bincount``
    (up to 20 models) or ``unique`` (more), so a million items take a few milliseconds.

    Examples
    --------
    >>> p = pattern_counts([[1, 1], [1, 0], [1, 1], [0, 1]])
    >>> p.patterns.astype(int).tolist(), p.counts.tolist()
    ([[1, 0], [0, 1], [1, 1]], [1, 1, 2])
    """
    c = as_correct(correct, min_models=1)
    k = c.shape[1]
    if k <= 62:
        code = c.astype(np.int64) @ (np.int64(1) << np.arange(k, dtype=np.int64))
        if k <= 20:
            counts = np.bincount(code, minlength=1 << k)
            keys = np.flatnonzero(counts)
            counts = counts[keys]
        else:
            keys, counts = np.unique(code, return_counts=True)
        patterns = ((keys[:, None] >> np.arange(k)) & 1).astype(bool)
        return Patterns(patterns=patterns, counts=counts.astype(np.int64))
    patterns, counts = np.unique(c, axis=0, return_counts=True)
    return Patterns(patterns=patterns, counts=counts.astype(np.int64))
