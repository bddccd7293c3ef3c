"""Limits on the files and streams the package reads, checked before any work is done.

A predictions file is a header row and one row per item; every reader (``heldout
evaluate``, ``compare --predictions``, ``clustered``, ``label``) checks these limits
first, so that a crafted file (a single row of 100,000 columns, a 20 MB column name, an
endless stream without a newline such as ``/dev/zero``) is refused in one line, with a
``ValueError`` that says which limit, instead of running out of memory or time.

``MAX_COLUMNS``
    Columns of a predictions file (a label, models, clusters...): 10,000.
``MAX_NAME``
    Characters of one column name: 1,000.
``MAX_LINE``
    Characters of one line (the header row, or one outcome of ``heldout label``): 1,000,000.
``MAX_BYTES``
    Bytes of a file read whole into memory (``compare --predictions``): 2,000,000,000.

Examples
--------
>>> import io
>>> header_line(io.BytesIO(b"label,a,b\\n1,1,0\\n"), "toy.csv")
b'label,a,b\\n'
>>> check_header(["label"] + [f"m{i}" for i in range(20_000)], "toy.csv")
Traceback (most recent call last):
...
ValueError: toy.csv: the header row has 20,001 columns, more than the limit of 10,000
"""

from __future__ import annotations

MAX_COLUMNS = 10_000
MAX_NAME = 1_000
MAX_LINE = 1_000_000
MAX_BYTES = 2_000_000_000

__all__ = [
    "MAX_BYTES",
    "MAX_COLUMNS",
    "MAX_LINE",
    "MAX_NAME",
    "check_header",
    "header_line",
    "line_of",
    "read_bounded",
]


def read_bounded(fh, source: str):
    """All of a stream, refused (before it fills memory) beyond ``MAX_BYTES``."""
    data = fh.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"{source} is larger than the limit of {MAX_BYTES:,} bytes")
    return data


def _too_long(source: str, what: str) -> ValueError:
    return ValueError(f"{source}: {what} is longer than the limit of {MAX_LINE:,} characters")


def header_line(fh, source: str):
    """The first line of a binary or text stream, refused when it exceeds ``MAX_LINE``."""
    line = fh.readline(MAX_LINE + 1)
    if len(line) > MAX_LINE:
        raise _too_long(source, "the header row")
    return line


def line_of(stream, source: str, number: int):
    """The next line of a text stream (``""`` at its end), at most ``MAX_LINE`` characters."""
    line = stream.readline(MAX_LINE + 1)
    if len(line) > MAX_LINE:
        raise _too_long(source, f"line {number}")
    return line


def check_header(names: list[str], source: str) -> None:
    """Refuse a header with more than ``MAX_COLUMNS`` columns or a name over ``MAX_NAME``."""
    if len(names) > MAX_COLUMNS:
        raise ValueError(
            f"{source}: the header row has {len(names):,} columns, "
            f"more than the limit of {MAX_COLUMNS:,}"
        )
    long = next((n for n in names if len(n) > MAX_NAME), None)
    if long is not None:
        raise ValueError(
            f"{source}: a column name has {len(long):,} characters, "
            f"more than the limit of {MAX_NAME:,}"
        )
