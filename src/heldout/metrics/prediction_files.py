"""Reading a predictions file: a label column and one column per model.

The format of ``heldout evaluate``: a CSV file with a header row (or Parquet when
``pyarrow`` is installed), one row per test item, a column of true labels (named
``label`` unless told otherwise) and one numeric column per model, holding either
predicted labels or, for two classes, scores in [0, 1].  ``-`` reads CSV from
standard input.

The CSV body is parsed in blocks of about 16 MB with numpy's C parser
(``numpy.loadtxt``), straight into preallocated float64 columns when the file
can be read twice (one pass counts the rows), so memory stays at about
8 bytes per value plus one block: a 10^7-row file with a label and two models
needs about 240 MB for the columns.  No pandas.
"""

from __future__ import annotations

import io
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from heldout import _files

__all__ = ["Predictions", "read_predictions"]

_BLOCK = 1 << 24  # bytes of CSV parsed at a time
_ROW_COL = re.compile(r"at row (\d+), column (\d+)")


@dataclass(frozen=True)
class Predictions:
    """The columns of a predictions file.

    Attributes
    ----------
    y : ndarray of float64
        The label column.
    models : dict
        ``models[name]`` is the model's column (float64), in file order.
    groups : dict
        ``groups[name]`` is a column of group labels (clusters, strata) read as
        text, for the columns named in ``read_predictions(..., groups=...)``.
    label : str
        Name of the label column.
    source : str
        Where the data came from.

    Examples
    --------
    >>> p = Predictions(np.array([1.0, 0.0]), {"a": np.array([1.0, 1.0])}, "label", "toy")
    >>> p.n, list(p.models)
    (2, ['a'])
    """

    y: np.ndarray
    models: dict
    label: str
    source: str
    groups: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Number of items (rows)."""
        return int(self.y.size)


def _header(line: bytes, source: str) -> list[str]:
    try:
        text = line.decode("utf-8-sig").strip()
    except UnicodeDecodeError:
        raise ValueError(f"{source}: the header row is not UTF-8 text") from None
    if not text:
        raise ValueError(f"{source}: the file is empty (no header row)")
    names = [c.strip().strip('"').strip("'") for c in text.split(",")]
    _files.check_header(names, source)  # columns and name lengths, before any parsing
    if any(not c for c in names):
        raise ValueError(f"{source}: the header row has an empty column name")
    if len(set(names)) != len(names):
        raise ValueError(f"{source}: the header row repeats a column name")
    return names


def _columns_wanted(names, label, models, source, groups=()):
    for g in groups:
        if g not in names:
            raise ValueError(
                f"{source}: no column named {g!r} (named as a cluster or stratum column); columns are {', '.join(names)}"
            )
        if g == label:
            raise ValueError(f"{source}: column {g!r} cannot be both the labels and the groups")
    if label not in names:
        raise ValueError(
            f"{source}: no column named {label!r} (the labels; choose another with --label); "
            f"columns are {', '.join(names)}"
        )
    if models is None:
        models = [c for c in names if c != label and c not in groups]
    else:
        missing = [m for m in models if m not in names]
        if missing:
            raise ValueError(f"{source}: no column named {', '.join(map(repr, missing))}")
        both = [m for m in models if m in groups]
        if both:
            raise ValueError(f"{source}: column {both[0]!r} cannot be both a model and a group")
    if not models:
        raise ValueError(f"{source}: there is no model column besides the label column {label!r}")
    return [names.index(label)] + [names.index(m) for m in models], list(models)


def _parse_block(block: bytes, usecols, ncols, first_line, source) -> np.ndarray:
    try:
        arr = np.loadtxt(
            io.BytesIO(block),
            delimiter=",",
            dtype=np.float64,
            ndmin=2,
            usecols=usecols,
            encoding="utf-8",
        )
    except ValueError as exc:
        msg = str(exc)
        found = _ROW_COL.search(msg)
        where = ""
        if found:
            where = f" (line {first_line + int(found.group(1))})"  # numpy counts rows from 0
        raise ValueError(f"{source}: a data row could not be read{where}: {msg}") from None
    # loadtxt with usecols does not notice rows with extra fields; count them
    if block.count(b",") != (ncols - 1) * block.count(b"\n"):
        lines = block.split(b"\n")
        for i, line in enumerate(lines):
            if line.strip() and line.count(b",") != ncols - 1:
                raise ValueError(
                    f"{source}: line {first_line + i} has {line.count(b',') + 1} fields, "
                    f"the header has {ncols}"
                )
    return arr


def _parse_text(block: bytes, cols, names, first_line, source) -> np.ndarray:
    """The text of columns ``cols`` of a block of CSV lines, stripped of spaces and quotes."""
    try:
        arr = np.loadtxt(
            io.BytesIO(block), delimiter=",", dtype=str, ndmin=2, usecols=cols, encoding="utf-8"
        )
    except ValueError as exc:
        raise ValueError(f"{source}: a data row could not be read: {exc}") from None
    arr = np.char.strip(np.char.strip(arr), "\"'")
    empty = arr == ""
    if empty.any():
        row, col = np.argwhere(empty)[0]
        raise ValueError(
            f"{source}: column {names[cols[col]]!r} has an empty cell (line {first_line + row})"
        )
    return arr


def _count_rows(path: Path) -> int:
    rows = 0
    last = b"\n"
    with open(path, "rb") as fh:
        fh.readline()
        while chunk := fh.read(_BLOCK):
            rows += chunk.count(b"\n")
            last = chunk[-1:]
    return rows + (last != b"\n")


def _blocks(fh):
    """Yield (block of whole lines, line number of its first line), skipping blank lines."""
    rest = b""
    line = 2
    while True:
        chunk = fh.read(_BLOCK)
        if not chunk:
            break
        buf = rest + chunk
        cut = buf.rfind(b"\n") + 1
        if cut == 0:
            rest = buf
            continue
        block, rest = buf[:cut], buf[cut:]
        yield block, line
        line += block.count(b"\n")
    if rest.strip():
        yield rest + b"\n", line


def _read_csv(fh, source, label, models, expected_rows=None, groups=()):
    names = _header(_files.header_line(fh, source), source)  # bounded: no endless line
    usecols, model_names = _columns_wanted(names, label, models, source, groups)
    group_cols = [names.index(g) for g in groups]
    ncols = len(names)
    k = len(usecols)
    texts = []
    if expected_rows is not None:
        out = np.empty((k, expected_rows))  # one contiguous row per column
        filled = 0
        for block, first in _blocks(fh):
            arr = _parse_block(block, usecols, ncols, first, source)
            if filled + arr.shape[0] > expected_rows:
                raise ValueError(f"{source}: the file changed while it was read")
            out[:, filled : filled + arr.shape[0]] = arr.T
            filled += arr.shape[0]
            if group_cols:
                texts.append(_parse_text(block, group_cols, names, first, source))
        columns = out[:, :filled]
    else:
        parts = []
        for block, first in _blocks(fh):
            parts.append(_parse_block(block, usecols, ncols, first, source).T)
            if group_cols:
                texts.append(_parse_text(block, group_cols, names, first, source))
        columns = np.concatenate(parts, axis=1) if parts else np.empty((k, 0))
    text = np.concatenate(texts, axis=0) if texts else np.empty((0, len(groups)), dtype=str)
    return columns, model_names, {g: text[:, i] for i, g in enumerate(groups)}


def _read_parquet(path, source, label, models, groups=()):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ValueError(
            f"{source}: reading Parquet needs pyarrow (pip install pyarrow); or give a CSV file"
        ) from None
    try:
        schema = pq.read_schema(path)
    except Exception as exc:  # pyarrow raises its own error types for bad files
        raise ValueError(f"{source}: not a readable Parquet file ({exc})") from None
    names = list(schema.names)
    usecols, model_names = _columns_wanted(names, label, models, source, groups)
    table = pq.read_table(path, columns=[names[i] for i in usecols])
    group_table = pq.read_table(path, columns=list(groups)) if groups else None
    columns = []
    for name in table.column_names:
        try:
            col = table.column(name).to_numpy()
        except Exception:  # nulls make pyarrow refuse a zero-copy numeric view
            raise ValueError(f"{source}: column {name!r} has missing values") from None
        try:
            columns.append(np.asarray(col, dtype=np.float64))
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{source}: column {name!r} is not numeric") from None
    found = {}
    for g in groups:
        col = group_table.column(g)
        if col.null_count:
            raise ValueError(f"{source}: column {g!r} has missing values")
        found[g] = np.asarray([str(v) for v in col.to_pylist()])
    return np.vstack(columns), model_names, found


def read_predictions(
    source: str | os.PathLike,
    label: str = "label",
    models: list[str] | None = None,
    groups: list[str] | tuple[str, ...] = (),
) -> Predictions:
    """Read a predictions file (CSV, Parquet, or ``"-"`` for CSV on standard input).

    Parameters
    ----------
    source : path or "-"
        The file.  Parquet is recognised by the suffix ``.parquet`` or ``.pq``.
    label : str, default "label"
        Name of the label column.
    models : list of str, optional
        Model columns to read (default: every other column but the groups).
    groups : list of str, optional
        Columns of group labels (cluster ids, strata) to read as text; any
        values but empty cells.

    Returns
    -------
    Predictions

    Raises
    ------
    ValueError
        For a missing file or column, a row that cannot be read (the message names
        the line), a missing value, NaN or an infinity, or no data rows.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
    ...     _ = f.write("label,a,b\\n1,0.9,1\\n0,0.2,0\\n1,0.4,1\\n")
    >>> p = read_predictions(f.name)
    >>> p.n, list(p.models), p.models["a"].tolist()
    (3, ['a', 'b'], [0.9, 0.2, 0.4])
    >>> os.unlink(f.name)
    """
    name = "standard input" if str(source) == "-" else str(source)
    groups = tuple(groups)
    if len(set(groups)) != len(groups):
        raise ValueError(f"{name}: a group column is named twice")
    for what, names in (("models", models), ("groups", groups)):
        if names is not None and (
            isinstance(names, str)
            or not isinstance(names, list | tuple)
            or not all(isinstance(v, str) for v in names)
        ):
            raise ValueError(f"{what} must be a list of column names, got {names!r}")
    if not isinstance(source, str | os.PathLike):
        raise ValueError(f"source must be a file name or '-', got {source!r}")
    if str(source) == "-":
        columns, model_names, found = _read_csv(
            sys.stdin.buffer, name, label, models, groups=groups
        )
    else:
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"{name}: no such file")
        if path.suffix.lower() in (".parquet", ".pq"):
            columns, model_names, found = _read_parquet(path, name, label, models, groups)
        else:
            try:
                rows = _count_rows(path)
                with open(path, "rb") as fh:
                    columns, model_names, found = _read_csv(fh, name, label, models, rows, groups)
            except OSError as exc:
                raise ValueError(f"{name}: cannot be read ({exc.strerror})") from None
    if columns.shape[1] == 0:
        raise ValueError(f"{name}: no data rows after the header")
    for i, column in enumerate(columns):
        bad = ~np.isfinite(column)
        if bad.any():
            which = label if i == 0 else model_names[i - 1]
            raise ValueError(
                f"{name}: column {which!r} holds a missing value, NaN or infinity "
                f"(data row {int(np.argmax(bad)) + 1})"
            )
    return Predictions(
        columns[0], {m: columns[i + 1] for i, m in enumerate(model_names)}, label, name, found
    )
