"""Chapter plumbing: publishing numbers into the prose, number formats, tables, figures.

Every chapter of the book uses these helpers instead of defining its own, so
that a number reads the same way everywhere and a table renders its math:

* :func:`publish` formats a value and pastes it into the prose with MyST-NB's
  ``glue`` (the prose pastes it with the ``glue:text`` role); it returns the text.
* :func:`num`, :func:`sig`, :func:`count`, :func:`pct` and :func:`sci` format
  numbers the way the book prints them.
* :func:`table` turns rows (or a pandas ``DataFrame``) into a Markdown table
  that the book renders as MyST, so dollar-delimited math in headers and cells
  is typeset, and that refuses ``NaN`` (a missing value is written as an explicit text).
* :func:`coverage_verdict` and :func:`level_verdict` are the book's one rule for
  judging a simulated coverage or rejection rate (stated on the notation page).
* :func:`style` applies the house figure style (labelled axes, readable at
  page width); :func:`verdict` picks a word from a comparison so that the
  prose follows the numbers.
* Importing the module makes a warning print as its class and message
  (``SmallSampleWarning: ...``), without the file path and line of the code that
  raised it: a page shows no path of the machine that built it.

Nothing here computes a result of the book; it only presents them.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from heldout._checks import as_count, as_flag, as_floats, as_probability, show
from heldout._result import Result

__all__ = [
    "COVERAGE_VERDICTS",
    "LEVEL_VERDICTS",
    "MIN_REPS",
    "Verdict",
    "count",
    "coverage_tolerance",
    "few_reps_banner",
    "few_reps_note",
    "coverage_verdict",
    "level_verdict",
    "num",
    "pct",
    "publish",
    "rows_of",
    "sci",
    "sig",
    "style",
    "table",
    "verdict",
]


def _short_warning(message, category, filename, lineno, line=None) -> str:
    """A warning as a chapter prints it: ``Category: message``, no path of the build machine."""
    return f"{category.__name__}: {message}\n"


# every chapter imports this module first (its imports cell), so its warnings print short
warnings.formatwarning = _short_warning

#: Thin space before a per cent sign, as the book prints "95 %".
_PCT_SPACE = " "


def _finite(value: Any, name: str = "value") -> float:
    if isinstance(value, bool) or isinstance(value, complex):
        raise ValueError(f"{name} must be a real number, got {show(value)}")
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a number, got {show(value)}") from None
    if math.isnan(x):
        raise ValueError(f"{name} is NaN; a page must not show NaN")
    return x


def _digits(digits: Any, *, minimum: int = 0) -> int:
    if isinstance(digits, bool) or not isinstance(digits, int | np.integer):
        raise ValueError(f"digits must be a whole number, got {show(digits)}")
    if not minimum <= digits <= 20:
        raise ValueError(f"digits must be from {minimum} to 20, got {digits}")
    return int(digits)


def num(value: float, digits: int = 4) -> str:
    """Fixed-point text with ``digits`` decimals: ``num(0.466753) == '0.4668'``.

    Minus signs are Unicode minus signs, so they do not break across lines.

    Examples
    --------
    >>> num(0.466753), num(0.466753, 2)
    ('0.4668', '0.47')
    """
    digits = _digits(digits, minimum=0)
    x = _finite(value)
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    text = f"{x:,.{digits}f}" if abs(x) >= 10_000 else f"{x:.{digits}f}"
    return text.replace("-", "−")


def sig(value: float, digits: int = 3) -> str:
    """Text with ``digits`` significant digits, without scientific notation for
    ordinary sizes: ``sig(0.0012345) == '0.00123'``, ``sig(36152.4) == '36,200'``.

    Examples
    --------
    >>> sig(0.000123456), sig(12345.678)
    ('0.000123', '12,300')
    """
    digits = _digits(digits, minimum=1)
    x = _finite(value)
    if x == 0:
        return "0"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    rounded = float(f"{x:.{digits - 1}e}")
    exponent = math.floor(math.log10(abs(rounded)))
    if exponent < -5 or exponent > 15:
        return sci(x, digits - 1)
    decimals = max(digits - 1 - exponent, 0)
    text = f"{rounded:,.{decimals}f}" if decimals else f"{int(rounded):,}"
    return text.replace("-", "−")


def sci(value: float, digits: int = 2) -> str:
    """Scientific notation as typeset-free text: ``sci(1.06e-6) == '1.06 × 10⁻⁶'``.

    Examples
    --------
    >>> sci(1.06e-6)
    '1.06 × 10⁻⁶'
    """
    digits = _digits(digits, minimum=0)
    x = _finite(value)
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.{digits}e}".split("e")
    superscript = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return f"{mantissa.replace('-', '−')} × 10{str(int(exponent)).translate(superscript)}"


def count(value: float) -> str:
    """A whole number with thousands separators: ``count(36152) == '36,152'``.

    Examples
    --------
    >>> count(36152)
    '36,152'
    """
    x = _finite(value)
    if not math.isfinite(x) or x != round(x):
        raise ValueError(
            f"value must be a whole number (count() formats counts), got {show(value)}"
        )
    return f"{int(round(x)):,}".replace("-", "−")


def pct(value: float, digits: int = 1) -> str:
    """A proportion as per cent: ``pct(0.1634) == '16.3 %'``.

    Examples
    --------
    >>> pct(0.1634), pct(0.1634, 0)
    ('16.3 %', '16 %')
    """
    digits = _digits(digits, minimum=0)
    x = _finite(value) * 100
    return f"{num(x, digits)}{_PCT_SPACE}%"


_FORMATS: dict[str, Callable[..., str]] = {
    "num": num,
    "sig": sig,
    "sci": sci,
    "count": count,
    "pct": pct,
}


def _format(value: Any, fmt: str | Callable[[Any], str] | None) -> str:
    if callable(fmt):
        return fmt(value)
    if isinstance(value, str) and fmt is None:
        return value
    if isinstance(value, bool | np.bool_) and fmt is None:
        return "yes" if value else "no"
    if fmt is None:
        if isinstance(value, int | np.integer):
            return count(value)
        return num(value)
    if not isinstance(fmt, str):
        raise ValueError(
            f"fmt must be a format name, a format string or a function, got {show(fmt)}"
        )
    name, _, arg = fmt.partition(":")
    if name in _FORMATS:
        if arg and not arg.isdigit():
            raise ValueError(f"fmt {show(fmt)}: the digits after ':' must be a whole number")
        return _FORMATS[name](value, int(arg)) if arg else _FORMATS[name](value)
    # a Python format specification such as ".3f" or ",d"
    _finite(value)
    return format(value, fmt).replace("-", "−")


def publish(name: str, value: Any, fmt: str | Callable[[Any], str] | None = None) -> str:
    """Format ``value`` and glue it under ``name``, for the ``glue:text`` role in the prose.

    Parameters
    ----------
    name
        The glue key.
    value
        A number, a string (a verdict word) or a bool (``yes``/``no``).
    fmt
        ``None`` (whole numbers with separators, other numbers with four
        decimals), one of ``"num"``, ``"sig"``, ``"sci"``, ``"count"``,
        ``"pct"`` optionally followed by ``:digits`` (``"pct:2"``), a Python
        format specification (``".3f"``) or a callable returning text.

    Returns
    -------
    str
        The text pasted into the page (handy for asserting in a hidden cell).

    Raises
    ------
    ValueError
        If ``value`` is NaN: a page must never print NaN.

    Examples
    --------
    >>> publish('n_hoeffding', 36152)  # outside a book build the text is returned only
    '36,152'
    >>> publish('share', 0.1634, 'pct:0')
    '16 %'
    """
    text = str(_format(value, fmt))  # str(): a Verdict prints with its note
    try:
        from myst_nb import glue
    except ImportError:  # outside a book build: formatting still works
        return text
    glue(name, text, display=False)
    return text


def verdict(condition: bool, if_true: str, if_false: str, *, reps=None) -> str:
    """Pick the word the prose needs from a computed comparison.

    ``verdict(exact < hoeffding, "below", "above")`` keeps a sentence such as
    "the exact bound is *below* Hoeffding's" true whatever the inputs.

    When the comparison is a verdict of the book's rule (``coverage_verdict(...) !=
    "undercovers"``), pass what it rests on as ``reps``: a number of repetitions, a
    :class:`Verdict` or a sequence of them (the smallest count is kept).  The word is
    then a :class:`Verdict` and prints with its note when that is below :data:`MIN_REPS`.

    Examples
    --------
    >>> from heldout.accuracy.bounds import exact_upper, hoeffding_upper
    >>> exact, hoeffding = exact_upper(38, 100), hoeffding_upper(38, 100)
    >>> verdict(exact < hoeffding, 'below', 'above')
    'below'
    >>> word = coverage_verdict(0.951, 500)
    >>> str(verdict(word != "undercovers", "holds its level", "falls short", reps=word))
    'holds its level (500 repetitions: too few for a verdict)'
    """
    if as_floats(condition, "condition", allow_bool=True).ndim != 0:
        raise ValueError(f"condition must be one truth value, got {show(condition)}")
    word = if_true if bool(condition) else if_false
    if reps is None:
        return word
    return Verdict(word, _fewest(reps))


def _fewest(reps) -> int:
    """The smallest repetition count in ``reps`` (a count, a Verdict or a flat sequence of them)."""
    if isinstance(reps, Verdict):
        return reps.reps
    if isinstance(reps, str):
        raise ValueError(f"reps must be a count or verdicts, got the text {show(reps)}")
    if isinstance(reps, Iterable) and not isinstance(reps, np.ndarray | bytes):
        reps = [r.reps if isinstance(r, Verdict) else r for r in reps]
    elif isinstance(reps, np.ndarray) and reps.dtype == object:
        reps = [r.reps if isinstance(r, Verdict) else r for r in reps.ravel()]
    counts = as_count(reps, "reps", minimum=1)
    if np.size(counts) == 0:
        raise ValueError("reps must hold at least one count or verdict, got none")
    return int(np.min(counts))


#: The three words of :func:`coverage_verdict`.
COVERAGE_VERDICTS = ("holds", "undercovers", "conservative")
#: The three words of :func:`level_verdict`.
LEVEL_VERDICTS = ("holds its level", "exceeds its level", "conservative")

_EPS = 1e-12  # rounding slack at the boundaries (they count as "holds")

#: Fewer simulated data sets than this give no printed verdict (the notation page): at
#: 95 % the rule's two standard errors, ``2 sqrt(0.05 * 0.95 / R)``, are at most 0.01 from
#: ``R = 1,900`` on.
MIN_REPS = 1900


class Verdict(str):
    """A verdict word that knows how many simulated data sets it rests on.

    It is the word itself for every comparison (``v == "holds"``, dictionary keys,
    ``v in COVERAGE_VERDICTS``) and for ``repr``.  Printed -- ``str(v)``, an f-string,
    :func:`publish`, :func:`table` -- a verdict from fewer than :data:`MIN_REPS`
    repetitions carries its note: in the quick profile ``"holds (quick build: 300
    repetitions, not a verdict)"``, in the full profile ``"holds (300 repetitions: too few
    for a verdict)"``, so that no reader takes it for the book's verdict, and a full build
    that prints one shows it.  :func:`verdict` passes the note on to a word chosen from it.

    Examples
    --------
    >>> v = Verdict("holds", 2000)
    >>> v == "holds", str(v), v.reps, v.enough
    (True, 'holds', 2000, True)
    >>> import os; os.environ["HELDOUT_QUICK"] = "1"
    >>> few = Verdict("undercovers", 300)
    >>> few == "undercovers", f"it {few}", few.enough
    (True, 'it undercovers (quick build: 300 repetitions, not a verdict)', False)
    >>> del os.environ["HELDOUT_QUICK"]
    >>> str(few)
    'undercovers (300 repetitions: too few for a verdict)'
    """

    reps: int

    def __new__(cls, word: str, reps: int):
        if not isinstance(word, str) or not word:
            raise ValueError(f"word must be a non-empty text, got {show(word)}")
        self = super().__new__(cls, word)
        self.reps = int(as_count(reps, "reps", minimum=1, scalar=True))
        return self

    @property
    def word(self) -> str:
        """The word alone, without the note."""
        return str.__str__(self)

    @property
    def enough(self) -> bool:
        """At least :data:`MIN_REPS` repetitions: a verdict the book may print."""
        return self.reps >= MIN_REPS

    @property
    def note(self) -> str:
        """What is printed after the word: empty from :data:`MIN_REPS` repetitions on."""
        return few_reps_note(self.reps)

    def __str__(self) -> str:
        return self.word + self.note

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __reduce__(self):  # pickles (and copies) as a Verdict
        return (Verdict, (self.word, self.reps))


def few_reps_note(reps) -> str:
    """The note printed after a verdict from ``reps`` repetitions (empty from :data:`MIN_REPS` on).

    ``reps`` is a count, a :class:`Verdict` or a sequence of them (the smallest count is used).

    Examples
    --------
    >>> few_reps_note(2000), few_reps_note(1000)
    ('', ' (1,000 repetitions: too few for a verdict)')
    """
    from heldout.config import quick

    r = _fewest(reps)
    if r >= MIN_REPS:
        return ""
    if quick():
        return f" (quick build: {r:,} repetition{'s' * (r != 1)}, not a verdict)"
    return f" ({r:,} repetition{'s' * (r != 1)}: too few for a verdict)"


def coverage_tolerance(reps, alpha: float = 0.05) -> tuple[np.ndarray | float, ...]:
    """Monte Carlo standard error and the two tolerances of the book's verdict rule.

    With ``R`` repetitions of a simulation promised ``1 - alpha``:
    ``se = sqrt(alpha (1 - alpha) / R)``, ``t_lo = max(2 se, 0.005)`` (on the side where
    the promise is broken) and ``t_hi = max(2 se, 0.01)`` (on the safe side).  The
    standard error is that of a binomial share at the promised value (:cite:`morris2019`).

    Examples
    --------
    >>> [round(float(v), 4) for v in coverage_tolerance(1900)]
    [0.005, 0.01, 0.01]
    """
    r = as_count(reps, "reps", minimum=1).astype(float)
    a = as_probability(alpha, "alpha", scalar=True)
    se = np.sqrt(a * (1 - a) / r)
    lo, hi = np.maximum(2 * se, 0.005), np.maximum(2 * se, 0.01)
    if se.ndim == 0:
        return float(se), float(lo), float(hi)
    return se, lo, hi


def _words(index: np.ndarray, words: tuple[str, ...], reps: np.ndarray):
    index, reps = np.broadcast_arrays(index, reps)
    out = np.empty(index.shape, dtype=object)
    for place in np.ndindex(index.shape):
        out[place] = Verdict(words[int(index[place])], int(reps[place]))
    return out[()] if out.ndim == 0 else out


def coverage_verdict(coverage, reps, alpha: float = 0.05):
    """The book's one verdict on a simulated coverage: "holds", "undercovers", "conservative".

    An interval promised ``1 - alpha`` covered the truth in a share ``coverage`` of ``R``
    simulated data sets.  With ``se = sqrt(alpha (1 - alpha) / R)``,
    ``t_lo = max(2 se, 0.005)`` and ``t_hi = max(2 se, 0.01)`` it *holds* when
    ``1 - alpha - t_lo <= coverage <= 1 - alpha + t_hi``, *undercovers* below that band and
    is *conservative* above it.  Two standard errors keep a correct method's false alarm
    near 2.5 % on each side; the floors (half a point below, a point above) keep a huge
    simulation from calling a practically exact interval wrong.  Vectorised: ``coverage``
    and ``reps`` broadcast; a scalar input gives a string, an array an array of strings.

    Examples
    --------
    >>> coverage_verdict(0.94, 1900), coverage_verdict(0.939, 1900)
    ('holds', 'undercovers')
    >>> coverage_verdict([0.92, 0.95, 0.996], 2000).tolist()
    ['undercovers', 'holds', 'conservative']
    """
    c = as_probability(coverage, "coverage", closed=True)
    _, lo, hi = coverage_tolerance(reps, alpha)
    c, lo, hi = np.broadcast_arrays(c, lo, hi)
    level = 1 - float(alpha)
    index = np.where(c < level - lo - _EPS, 1, np.where(c > level + hi + _EPS, 2, 0))
    return _words(index, COVERAGE_VERDICTS, np.asarray(reps))


def level_verdict(rate, reps, alpha: float = 0.05):
    """The same rule for a test: "holds its level", "exceeds its level", "conservative".

    A test of level ``alpha`` rejected a true null hypothesis in a share ``rate`` of
    ``R`` simulated data sets.  This is :func:`coverage_verdict` applied to
    ``1 - rate``: it *holds its level* when ``alpha - t_hi <= rate <= alpha + t_lo``
    (the tolerances of :func:`coverage_tolerance`), *exceeds its level* above the band
    and is *conservative* below it.

    Examples
    --------
    >>> level_verdict(0.06, 1900), level_verdict(0.061, 1900), level_verdict(0.039, 1900)
    ('holds its level', 'exceeds its level', 'conservative')
    """
    r = as_probability(rate, "rate", closed=True)
    _, lo, hi = coverage_tolerance(reps, alpha)
    r, lo, hi = np.broadcast_arrays(r, lo, hi)
    a = float(alpha)
    index = np.where(r > a + lo + _EPS, 1, np.where(r < a - hi - _EPS, 2, 0))
    return _words(index, LEVEL_VERDICTS, np.asarray(reps))


def few_reps_banner(reps) -> _MarkdownTable | None:
    """A line to display under a table or figure of verdicts from too few repetitions.

    ``None`` from :data:`MIN_REPS` repetitions on (nothing to say); otherwise Markdown that
    says the verdicts above rest on ``reps`` repetitions and are not the book's, for the
    verdicts a page shows as marks, colours or counts rather than as words.  ``reps`` is
    a count, a :class:`Verdict` or a sequence of them (the smallest count is used).

    Examples
    --------
    >>> few_reps_banner(2000) is None
    True
    >>> print(few_reps_banner([2000, 40]).text)
    *The marks above rest on 40 repetitions, too few for a verdict by the book's rule (at least 1,900).*
    """
    from heldout.config import quick

    r = _fewest(reps)
    if r >= MIN_REPS:
        return None
    where = "Quick build: the" if quick() else "The"
    return _MarkdownTable(
        f"*{where} marks above rest on {r:,} repetitions, too few for a verdict by the book's "
        f"rule (at least {MIN_REPS:,}).*"
    )


class _MarkdownTable:
    """A Markdown table rendered by MyST (so dollar-delimited math is typeset)."""

    def __init__(self, text: str):
        self.text = text

    def _repr_markdown_(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text


def _cell(value: Any, fmt: str | Callable[[Any], str] | None, missing: str) -> str:
    if value is None:
        return missing
    if isinstance(value, float | np.floating) and math.isnan(value):
        return missing
    if isinstance(value, str):
        return str(value).replace("|", "\\|")  # str(): a Verdict prints with its note
    return str(_format(value, fmt)).replace("|", "\\|")


def table(
    rows: Any,
    columns: Sequence[str] | None = None,
    *,
    formats: Mapping[str, str | Callable[[Any], str]] | None = None,
    missing: str = "—",
    align: str | Sequence[str] | None = None,
    index: bool = False,
) -> _MarkdownTable:
    """A Markdown table for display in a chapter.

    Parameters
    ----------
    rows
        A pandas ``DataFrame``, a mapping of column name to values, or an
        iterable of rows (sequences or mappings).
    columns
        Header texts (MyST, so dollar-delimited math is typeset).  Defaults to
        the frame's columns or the mappings' keys.
    formats
        Per-column formats, as for :func:`publish` (``{"bound": "num:4"}``).
    missing
        Text written for ``None`` and ``NaN`` (the table never shows ``NaN``).
    align
        ``"l"``, ``"c"`` or ``"r"`` for every column, or one letter per column
        (default: text left, numbers right).
    index
        Include a ``DataFrame``'s index as the first column.

    Returns
    -------
    An object that Jupyter displays as Markdown (``display(table(...))``).

    Examples
    --------
    >>> t = table([[38, 100, 0.4668]], ['k', 'n', 'bound'], formats={'bound': 'num:3'})
    >>> print(t._repr_markdown_().strip())
    | k | n | bound |
    |--:|--:|--:|
    | 38 | 100 | 0.467 |
    """
    index = as_flag(index, "index")
    if not isinstance(missing, str):
        raise ValueError(f"missing must be the text of an empty cell, got {show(missing)}")
    if formats is not None and not isinstance(formats, Mapping):
        raise ValueError(f"formats must be a mapping of column to format, got {show(formats)}")
    formats = dict(formats or {})
    header, body = _rows(rows, columns, index)
    for r in body:
        if len(r) != len(header):
            raise ValueError(
                f"rows must all have {len(header)} cells (one per column), got {len(r)}"
            )
    texts = [
        [_cell(v, formats.get(h), missing) for h, v in zip(header, r, strict=True)] for r in body
    ]
    if align is None:
        numeric = [
            all(isinstance(r[j], int | float | np.number) for r in body if r[j] is not None)
            for j in range(len(header))
        ]
        letters = ["r" if n and body else "l" for n in numeric]
    elif isinstance(align, str) and len(align) == 1:
        letters = [align] * len(header)
    elif isinstance(align, str) or (
        isinstance(align, Sequence) and all(isinstance(x, str) for x in align)
    ):
        letters = list(align)
    else:
        letters = []  # refused below, by name
    if len(letters) != len(header) or not set(letters) <= {"l", "c", "r"}:
        raise ValueError(
            f"align must be one of 'l', 'c', 'r' or one such letter per column "
            f"({len(header)}), got {show(align)}"
        )
    rule = {"l": ":--", "c": ":-:", "r": "--:"}
    lines = [
        "| " + " | ".join(str(h) for h in header) + " |",
        "|" + "|".join(rule[a] for a in letters) + "|",
    ]
    lines += ["| " + " | ".join(t) + " |" for t in texts]
    return _MarkdownTable("\n".join(lines) + "\n")


def _rows(rows: Any, columns: Sequence[str] | None, index: bool):
    if columns is not None and (
        isinstance(columns, str | bytes)
        or not isinstance(columns, Sequence)
        or not all(isinstance(c, str | int | float) for c in columns)
    ):
        raise ValueError(f"columns must be a list of header texts, got {show(columns)}")
    if hasattr(rows, "to_dict") and hasattr(rows, "columns"):  # a DataFrame
        frame = rows
        header = [str(c) for c in frame.columns]
        body = [list(r) for r in frame.itertuples(index=index, name=None)]
        if index:
            header = [str(frame.index.name or "")] + header
    elif isinstance(rows, Mapping):
        header = [str(k) for k in rows]
        if any(isinstance(v, str | bytes) or not isinstance(v, Iterable) for v in rows.values()):
            raise ValueError("rows: a mapping of rows must map each column name to its values")
        cols = [list(v) for v in rows.values()]
        lengths = {len(c) for c in cols}
        if len(lengths) > 1:
            raise ValueError("rows: every column must have the same length")
        body = [list(r) for r in zip(*cols, strict=True)]
    else:
        if isinstance(rows, str | bytes) or not isinstance(rows, Iterable):
            raise ValueError(f"rows must be a table, a mapping or a list of rows, got {show(rows)}")
        body = []
        header = None
        for r in rows:
            if isinstance(r, Result):  # a result object: its fields by name
                r = r.to_dict()
            if isinstance(r, Mapping):
                header = header or [str(k) for k in r]
                body.append([r.get(h) for h in header])
            elif isinstance(r, str | bytes) or not isinstance(r, Iterable):
                raise ValueError(f"rows: each row must be a sequence of cells, got {show(r)}")
            else:
                body.append(list(r))
        if header is None:
            if columns is None:
                raise ValueError("columns are needed when rows are plain sequences")
            if isinstance(columns, str | bytes) or not isinstance(columns, Sequence):
                raise ValueError(f"columns must be a list of header texts, got {show(columns)}")
            header = list(columns)
    if columns is not None:
        if isinstance(columns, str | bytes) or not isinstance(columns, Sequence):
            raise ValueError(f"columns must be a list of header texts, got {show(columns)}")
        if len(columns) != len(header):
            raise ValueError(f"columns must have {len(header)} names, got {len(columns)}")
        header = list(columns)
    return header, [[_unwrap(v) for v in r] for r in body]


def _unwrap(value):
    if isinstance(value, np.generic):
        return value.item()
    return value


def style() -> None:
    """Apply the book's figure style (sizes readable at page width, light grid).

    Examples
    --------
    >>> style()
    >>> import matplotlib as mpl
    >>> mpl.rcParams['axes.grid']
    True
    """
    import matplotlib as mpl

    mpl.rcParams.update(
        {
            "figure.figsize": (7.5, 4.0),
            "figure.dpi": 100,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.titlesize": 11,
            "axes.labelsize": 10,
            "legend.fontsize": 9,
            "legend.frameon": False,
            "savefig.bbox": "tight",
        }
    )


def rows_of(records: Iterable[Mapping[str, Any] | Result], keys: Sequence[str]) -> list[list[Any]]:
    """Pick ``keys`` from each record (a mapping or a result object), in order.

    A small helper for :func:`table`.

    Examples
    --------
    >>> rows_of([{"k": 1, "n": 10}, {"k": 2, "n": 20}], ["n", "k"])
    [[10, 1], [20, 2]]
    """
    if (
        isinstance(keys, str)
        or not isinstance(keys, Sequence)
        or not all(isinstance(k, str | int) for k in keys)
    ):
        raise ValueError(f"keys must be a list of field names, got {show(keys)}")
    if isinstance(records, str | bytes) or not isinstance(records, Iterable):
        raise ValueError(
            f"records must be a list of mappings or result objects, got {show(records)}"
        )
    out = []
    for r in records:
        if not isinstance(r, Mapping | Result):
            raise ValueError(f"records must hold mappings or result objects, got {show(r)}")
        try:
            out.append([getattr(r, k) if isinstance(r, Result) else r[k] for k in keys])
        except (KeyError, AttributeError, TypeError):
            raise ValueError(f"keys {list(keys)!r}: not every record has them") from None
    return out
