"""Reading a predictions file: a label column and one column per model.

The format of ``heldout evaluate``: a CSV file with a header row (or Parquet when
``pyarrow`` is installed), one row per test item, a column of true labels (named
``label`` unless told otherwise) and one numeric column per model, holding either
predicted labels or, for two classes, scores in [0, 1].  ``-`` reads CSV from
standard input.

The CSV body is parsed in blocks, straight into preallocated float64 columns, so
memory stays at about 8 bytes per value plus one block: a 10^7-row file with a
label and two models needs about 240 MB for the columns.  The parser is
pyarrow's streaming CSV reader (blocks of 1 MB; the columns sized from a guess of
the rows, grown if it falls short) when pyarrow is installed (two to three times
faster) and numpy's C parser (``numpy.loadtxt``, blocks of 16 MB, the columns sized
by a first pass that counts the rows) otherwise; numpy's is also the
reference: any block pyarrow does not read cleanly (a missing value, a stray
field, text in a number column) sends the whole file through numpy's parser,
whose messages name the line, so both readers accept the same files and give
the same numbers (``tests/metrics/test_prediction_files.py`` compares them).
Parquet files are read row group by row group into the same preallocated columns
(pyarrow's memory handed back after each), so no Arrow table of the whole file is
kept alongside them.
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
from heldout._checks import as_floats, in_choices, show
from heldout._inputs import all_whole as _all_whole  # metrics.evaluate imports this name
from heldout.metrics.column_kinds import (  # the rule of a column's kind, and its thresholds
    kind_of_summary,
    label_warning_of_summary,
)

__all__ = ["Predictions", "column_kind", "label_warning", "read_predictions"]

_BLOCK = 1 << 24  # bytes of CSV parsed at a time
#: Bytes per block of pyarrow's streaming reader: small blocks keep the reader's own
#: buffers (and the memory its allocator holds on to) small beside the columns.
_ARROW_BLOCK = 1 << 20
#: Parquet row groups of at most this many rows are read whole.
_PARQUET_GROUP = 1 << 21
#: CSV files smaller than this (bytes) go to numpy's parser: importing pyarrow costs
#: more than parsing them (a 1,000-row file would take twice as long to start).
ARROW_MIN_BYTES = 1 << 22
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
        if not in_choices(g, names):
            raise ValueError(
                f"{source}: no column named {show(g)} (named as a cluster or stratum column); columns are {', '.join(names)}"
            )
        if g == label:
            raise ValueError(f"{source}: column {show(g)} cannot be both the labels and the groups")
    if not in_choices(label, names):
        raise ValueError(
            f"{source}: no column named {show(label)} (the labels; choose another with --label); "
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
        raise ValueError(
            f"{source}: there is no model column besides the label column {show(label)}"
        )
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


def _rows_guess(path: Path) -> int:
    """About 5 % more rows than the file holds, from the length of its first lines.

    The pyarrow reader grows its columns if the guess falls short; guessing instead of
    counting saves a pass over the file.
    """
    with open(path, "rb") as fh:
        fh.readline()
        head = fh.read(_ARROW_BLOCK)
    per_row = max(len(head), 1) / max(head.count(b"\n"), 1)
    return int(path.stat().st_size / per_row * 1.05) + 1024


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
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises its own error types for bad files
        raise ValueError(f"{source}: not a readable Parquet file ({exc})") from None
    names = list(pf.schema_arrow.names)
    usecols, model_names = _columns_wanted(names, label, models, source, groups)
    numeric = [names[i] for i in usecols]
    rows = pf.metadata.num_rows
    out = np.empty((len(numeric), rows))  # batch by batch: no whole-file Arrow table
    texts: dict = {g: [] for g in groups}
    filled = 0
    wanted = numeric + [g for g in groups if g not in numeric]
    for batch in _parquet_batches(pf, wanted):
        m = batch.num_rows
        for j, name in enumerate(numeric):
            col = batch.column(name)
            if col.null_count:
                raise ValueError(f"{source}: column {show(name)} has missing values")
            try:
                out[j, filled : filled + m] = np.asarray(_arrow_numbers(col), dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(f"{source}: column {show(name)} is not numeric") from None
        for g in groups:
            col = batch.column(g)
            if col.null_count:
                raise ValueError(f"{source}: column {show(g)} has missing values")
            texts[g].extend(str(v) for v in col.to_pylist())
        filled += m
    _release_arrow_memory()
    found = {g: np.asarray(texts[g]) for g in groups}
    return out[:, :filled], model_names, found


def _parquet_batches(pf, columns):
    """The record batches of a Parquet file, one row group at a time.

    A row group of up to ``_PARQUET_GROUP`` rows is read whole (fastest); a larger one in
    batches of ``2**16`` rows.  pyarrow's memory is handed back after each group, so
    the reader holds about one row group beside the columns (``iter_batches`` over the
    whole file keeps several).
    """
    for g in range(pf.metadata.num_row_groups):
        if pf.metadata.row_group(g).num_rows <= _PARQUET_GROUP:
            yield from pf.read_row_group(g, columns=columns).to_batches()
        else:
            yield from pf.iter_batches(batch_size=1 << 16, row_groups=[g], columns=columns)
        _release_arrow_memory()


def _release_arrow_memory() -> None:
    """Hand the memory pyarrow's allocator keeps after reading back to the system."""
    import pyarrow as pa

    pool = pa.default_memory_pool()
    if hasattr(pool, "release_unused"):
        pool.release_unused()


def _arrow_numbers(col) -> np.ndarray:
    """A numeric Arrow array without nulls as a numpy view (no pandas import)."""
    import pyarrow as pa

    t = col.type
    if pa.types.is_floating(t) or pa.types.is_integer(t):
        code = {"double": "float64", "float": "float32", "halffloat": "float16"}.get(str(t), str(t))
        count = col.offset + len(col)
        return np.frombuffer(col.buffers()[1], dtype=code, count=count)[col.offset :]
    return col.to_numpy(zero_copy_only=False)


def _read_csv_arrow(path: Path, source, label, models, expected_rows, groups=()):
    """pyarrow's streaming reader into preallocated columns; None to fall back to numpy.

    Reads exactly what :func:`_read_csv` reads or returns None: quotes are not
    special (as for ``numpy.loadtxt``), and a null (an empty cell or a NaN), a
    conversion error, a row with the wrong number of fields or an empty group
    cell hands the file to the numpy reader, which names the line at fault.
    """
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv

        if groups:  # (importing pyarrow.compute costs a third of a second: only if needed)
            import pyarrow.compute as pc
    except ImportError:
        return None
    with open(path, "rb") as fh:
        names = _header(fh.readline(), source)
    usecols, model_names = _columns_wanted(names, label, models, source, groups)
    numeric = [names[i] for i in usecols]
    types = {c: pa.float64() for c in numeric}
    types.update({g: pa.string() for g in groups})
    out = np.empty((len(numeric), expected_rows))
    texts: dict = {g: [] for g in groups}
    filled = 0
    try:
        reader = pacsv.open_csv(
            path,
            read_options=pacsv.ReadOptions(  # one thread: its readahead costs CPU
                skip_rows=1, column_names=names, block_size=_ARROW_BLOCK, use_threads=False
            ),
            parse_options=pacsv.ParseOptions(quote_char=False),
            convert_options=pacsv.ConvertOptions(
                column_types=types, include_columns=numeric + list(groups)
            ),
        )
        for batch in reader:
            m = batch.num_rows
            if filled + m > out.shape[1]:  # the guess fell short: twice the room
                wider = np.empty((out.shape[0], 2 * (filled + m)))
                wider[:, :filled] = out[:, :filled]
                out = wider
            for j, name in enumerate(numeric):
                col = batch.column(name)
                if col.null_count:
                    return None
                out[j, filled : filled + m] = _arrow_numbers(col)
            for g in groups:
                cell = pc.utf8_trim(pc.utf8_trim_whitespace(batch.column(g)), "\"'")
                if pc.any(pc.equal(cell, "")).as_py():
                    return None
                texts[g].extend(cell.to_pylist())
            filled += m
    except (pa.ArrowException, OSError):
        return None
    finally:
        _release_arrow_memory()
    found = {g: np.asarray(texts[g], dtype=str) for g in groups}
    return out[:, :filled], model_names, found


def read_predictions(
    source: str | os.PathLike,
    label: str = "label",
    models: list[str] | None = None,
    groups: list[str] | tuple[str, ...] = (),
    reader: str = "auto",
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
    reader : {"auto", "numpy", "arrow"}, default "auto"
        CSV parser: pyarrow's for files of ``ARROW_MIN_BYTES`` or more when
        pyarrow is installed (``"auto"``), always pyarrow's when installed
        (``"arrow"``), or numpy's, the reference (``"numpy"``); all give the same
        columns.

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
    if not isinstance(label, str):
        raise ValueError(f"label must be the name of the label column, got {show(label)}")
    if isinstance(groups, str) or not isinstance(groups, list | tuple):
        raise ValueError(f"groups must be a list of column names, got {show(groups)}")
    groups = tuple(groups)
    if len(set(groups)) != len(groups):
        raise ValueError(f"{name}: a group column is named twice")
    for what, names in (("models", models), ("groups", groups)):
        if names is not None and (
            isinstance(names, str)
            or not isinstance(names, list | tuple)
            or not all(isinstance(v, str) for v in names)
        ):
            raise ValueError(f"{what} must be a list of column names, got {show(names)}")
    if not in_choices(reader, ("auto", "numpy", "arrow")):
        raise ValueError(f"reader must be 'auto', 'numpy' or 'arrow', got {show(reader)}")
    if not isinstance(source, str | os.PathLike):
        raise ValueError(f"source must be a file name or '-', got {show(source)}")
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
                got = None
                if reader == "arrow" or (
                    reader == "auto" and path.stat().st_size >= ARROW_MIN_BYTES
                ):
                    got = _read_csv_arrow(path, name, label, models, _rows_guess(path), groups)
                if got is None:
                    rows = _count_rows(path)
                    with open(path, "rb") as fh:
                        got = _read_csv(fh, name, label, models, rows, groups)
                columns, model_names, found = got
            except OSError as exc:
                raise ValueError(f"{name}: cannot be read ({exc.strerror})") from None
    if columns.shape[1] == 0:
        raise ValueError(f"{name}: no data rows after the header")
    for i, column in enumerate(columns):
        bad = ~np.isfinite(column)
        if bad.any():
            which = label if i == 0 else model_names[i - 1]
            raise ValueError(
                f"{name}: column {show(which)} holds a missing value, NaN or infinity "
                f"(data row {int(np.argmax(bad)) + 1})"
            )
    return Predictions(
        columns[0], {m: columns[i + 1] for i, m in enumerate(model_names)}, label, name, found
    )


def column_kind(values: np.ndarray) -> str:
    """What a model column holds: ``"labels"``, ``"probabilities"`` or ``"scores"``.

    Whole numbers are read as predicted labels; other values in [0, 1] as predicted
    probabilities of class 1; anything else (any real numbers, such as a margin or a
    log-odds) as scores, whose order alone is meaningful: they serve the rank metrics
    (the AUC) but not the proper scores (Brier score, log loss), which need
    probabilities.  A column of grades 1-5 is whole numbers and so is read as labels:
    :func:`label_warning` flags such columns.

    Examples
    --------
    >>> column_kind(np.array([0.0, 1.0, 1.0])), column_kind(np.array([0.2, 0.9]))
    ('labels', 'probabilities')
    >>> column_kind(np.array([-1.5, 0.3, 2.0]))
    'scores'
    """
    from heldout import _inputs

    v = _inputs.scores(values, "values")
    whole = _all_whole(v)
    if whole and v.size == 0:
        return "labels"
    return kind_of_summary(whole, v.min(), v.max())


def label_warning(values: np.ndarray, classes: np.ndarray) -> str | None:
    """A warning when a whole-number column read as labels looks like something else.

    Two signs: the column holds many distinct values (more than ``MANY_CLASSES``, or more
    than ``MANY_CLASSES_SHARE`` of its rows and at least three), or values that are not
    classes of the label column (grades 1-5 against labels 0 and 1).  Returns None when
    neither is seen.

    Examples
    --------
    >>> label_warning(np.array([1.0, 2, 5, 4, 3]), np.array([0, 1]))[:40]
    'read as labels, but holds 4 values that '
    >>> label_warning(np.array([0.0, 1, 1, 0]), np.array([0, 1])) is None
    True
    """
    v = as_floats(values, "values")
    if v.size == 0:
        raise ValueError("values must hold at least one value of the column, got none")
    return label_warning_of_summary(np.unique(v), v.size, as_floats(classes, "classes"))
