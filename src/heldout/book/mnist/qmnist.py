r"""Who wrote each MNIST digit: NIST writer and series from the QMNIST extended labels.

MNIST :cite:`lecun_mnist` was cut from NIST Special Database 19 :cite:`grother1995nist`,
forms filled in by two groups of writers: Census Bureau employees (NIST's training
partitions, "SD-3" in MNIST's description) and high-school students (NIST's test
partition, "SD-1").  Yadav and Bottou :cite:`yadav2019cold` traced every MNIST digit
back to its NIST form and published, for each one, the NIST *series* (partition
``hsf_0``-``hsf_3``: Census employees; ``hsf_4``: students) and *writer*.  That makes the
digits a real clustered data set (each writer contributes dozens of digits) with two
strata of different difficulty.

The package ships the three columns it needs for MNIST's 70,000 digits, in MNIST's
order (60,000 training digits, then 10,000 test digits), as
``heldout/book/mnist/datasets/mnist_writers.csv.gz`` (columns ``label``, ``series``, ``writer``),
extracted from the QMNIST label files (BSD licence, ``QMNIST-LICENSE`` beside it) by
:func:`build_writers_file`; :func:`load_writers` checks its SHA-256 before use.  The
``label`` column (QMNIST's digit class) lets a test check, digit by digit, that the rows
line up with MNIST's own labels.

:func:`mnist_indices` finds where given digit images sit among MNIST's 70,000 by
matching their pixels exactly (the 70,000 images are all distinct), which is how rows of
Kaggle's ``train.csv`` or of the book's 42,000-digit stand-in
(:func:`heldout.book.mnist.data.article_rows`) are given their writers (:func:`article_writers`).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from heldout._checks import show

__all__ = [
    "SERIES_NAMES",
    "WRITERS_SHA256",
    "Writers",
    "article_writers",
    "build_writers_file",
    "load_writers",
    "mnist_indices",
    "writers_path",
]

#: SHA-256 of the shipped ``mnist_writers.csv.gz``.
WRITERS_SHA256 = "c391e36c434953f016e49ea8617bbc47b834e160c3cce51ef8a3d033fd3c6a90"

#: NIST series codes found in MNIST and who wrote them.
SERIES_NAMES: dict[int, str] = {
    0: "Census employees",
    4: "high-school students",
}

#: Rows of MNIST: training digits first, then test digits.
MNIST_TRAIN, MNIST_TEST = 60_000, 10_000


def writers_path() -> Path:
    """Where the package keeps ``mnist_writers.csv.gz``.

    Examples
    --------
    >>> writers_path().name
    'mnist_writers.csv.gz'
    """
    return Path(__file__).resolve().parent / "datasets" / "mnist_writers.csv.gz"


@dataclass(frozen=True)
class Writers:
    """Label, NIST series and NIST writer of MNIST digits.

    Attributes
    ----------
    label : ndarray of uint8
        The digit (QMNIST's class; equal to MNIST's label).
    series : ndarray of uint8
        NIST series code: 0 for Census employees, 4 for high-school students.
    writer : ndarray of int32
        NIST writer id (distinct between the two series).
    mnist_index : ndarray of int64
        Row in MNIST's 70,000 (training digits 0-59,999, test digits 60,000-69,999).

    Examples
    --------
    >>> w = Writers(np.array([3, 7]), np.array([0, 4]), np.array([11, 2100]), np.array([5, 65000]))
    >>> len(w), w.in_mnist_test.tolist(), w.take([1]).writer.tolist()
    (2, [False, True], [2100])
    """

    label: np.ndarray
    series: np.ndarray
    writer: np.ndarray
    mnist_index: np.ndarray

    def __len__(self) -> int:
        return int(self.label.shape[0])

    def take(self, rows) -> Writers:
        """The entries at ``rows`` (an index array or a boolean mask)."""
        return Writers(
            self.label[rows], self.series[rows], self.writer[rows], self.mnist_index[rows]
        )

    @property
    def in_mnist_test(self) -> np.ndarray:
        """True for digits of MNIST's official test set."""
        return self.mnist_index >= MNIST_TRAIN


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_writers(path: str | os.PathLike | None = None) -> Writers:
    """Label, series and writer of MNIST's 70,000 digits, in MNIST's order, checksum-verified.

    Parameters
    ----------
    path : path, optional
        Another copy of ``mnist_writers.csv.gz`` (default: the one in the package).

    Returns
    -------
    Writers

    Raises
    ------
    ValueError
        If the file's SHA-256 is not :data:`WRITERS_SHA256` or its content is malformed.

    Examples
    --------
    >>> w = load_writers()
    >>> len(w), sorted(set(w.series.tolist()))
    (70000, [0, 4])
    """
    if path is not None and not isinstance(path, str | os.PathLike):
        raise ValueError(f"path must be a file name, got {show(path)}")
    p = Path(path) if path is not None else writers_path()
    if not p.is_file():
        raise ValueError(f"path {str(p)!r} is not a file")
    digest = _sha256(p)
    if digest != WRITERS_SHA256:
        raise ValueError(
            f"{p}: SHA-256 {digest} differs from the shipped file's {WRITERS_SHA256}; "
            "the copy is damaged or not the package's"
        )
    text = gzip.decompress(p.read_bytes()).decode("ascii")
    header, _, body = text.partition("\n")
    if header.strip() != "label,series,writer":
        raise ValueError(f"{p}: expected the header 'label,series,writer', got {show(header)}")
    table = np.loadtxt(io.StringIO(body), delimiter=",", dtype=np.int64, ndmin=2)
    if table.shape != (MNIST_TRAIN + MNIST_TEST, 3):
        raise ValueError(f"{p}: expected 70,000 rows of 3 values, got shape {table.shape}")
    return Writers(
        label=table[:, 0].astype(np.uint8),
        series=table[:, 1].astype(np.uint8),
        writer=table[:, 2].astype(np.int32),
        mnist_index=np.arange(table.shape[0], dtype=np.int64),
    )


def build_writers_file(
    train_labels: str | os.PathLike, test_labels: str | os.PathLike, out: str | os.PathLike
) -> str:
    """Write ``mnist_writers.csv.gz`` from the two QMNIST label files; return its SHA-256.

    ``train_labels`` is ``qmnist-train-labels.tsv.gz`` (60,000 rows, MNIST's training
    digits in order) and ``test_labels`` ``qmnist-test-labels.tsv.gz``, whose first
    10,000 rows are MNIST's test digits in order :cite:`yadav2019cold`.  Columns 0
    (class), 1 (NIST series) and 2 (NIST writer) are kept.  The gzip stream has no
    time stamp, so the same input always gives the same bytes.

    Examples
    --------
    >>> build_writers_file("qmnist-train-labels.tsv.gz", "qmnist-test-labels.tsv.gz",
    ...                    "mnist_writers.csv.gz") == WRITERS_SHA256  # doctest: +SKIP
    True
    """
    parts = []
    for path, rows in ((train_labels, MNIST_TRAIN), (test_labels, MNIST_TEST)):
        table = np.loadtxt(path, dtype=np.int64, ndmin=2)
        if table.shape[0] < rows or table.shape[1] < 3:
            raise ValueError(f"{path}: expected at least {rows} rows of QMNIST labels")
        parts.append(table[:rows, :3])
    table = np.concatenate(parts)
    lines = ["label,series,writer"] + [f"{a},{b},{c}" for a, b, c in table.tolist()]
    data = ("\n".join(lines) + "\n").encode("ascii")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0, filename="") as gz:
        gz.write(data)
    return _sha256(out)


def mnist_indices(images: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Rows of ``reference`` holding exactly the pixels of each of ``images``.

    Both are ``uint8`` arrays of flattened digits (``(n, 784)``).  The reference rows are
    sorted as raw bytes once and each image is found by binary search, then checked
    pixel for pixel.

    Parameters
    ----------
    images : ndarray of uint8, shape (n, 784)
    reference : ndarray of uint8, shape (N, 784)
        Distinct images (MNIST's 70,000 are).

    Returns
    -------
    ndarray of int64, shape (n,)

    Raises
    ------
    ValueError
        If an image is not in ``reference``, the reference holds duplicates, or the
        shapes or types differ.

    Examples
    --------
    >>> ref = np.array([[0, 1], [2, 3], [4, 5]], dtype=np.uint8)
    >>> mnist_indices(ref[[2, 0]], ref).tolist()
    [2, 0]
    """
    try:
        a = np.ascontiguousarray(images)
        r = np.ascontiguousarray(reference)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(
            "images and reference must be 2-D uint8 arrays (one flattened digit a row)"
        ) from None
    if a.dtype != np.uint8 or r.dtype != np.uint8 or a.ndim != 2 or r.ndim != 2:
        raise ValueError(
            "images and reference must be 2-D uint8 arrays (one flattened digit a row)"
        )
    if a.shape[1] != r.shape[1]:
        raise ValueError(
            f"images and reference must have the same pixels per row, got {a.shape[1]} and {r.shape[1]}"
        )
    width = np.dtype((np.void, r.shape[1]))
    keys = r.view(width).ravel()
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    if np.any(sorted_keys[1:] == sorted_keys[:-1]):
        raise ValueError("reference must hold distinct images")
    queries = a.view(width).ravel()
    pos = np.searchsorted(sorted_keys, queries)
    pos = np.minimum(pos, len(sorted_keys) - 1)
    found = order[pos]
    bad = np.flatnonzero(np.any(r[found] != a, axis=1))
    if bad.size:
        raise ValueError(
            f"images: {bad.size} of {len(a)} images are not in reference (first: row {bad[0]})"
        )
    return found.astype(np.int64)


def article_writers(digits=None, n: int | None = None) -> Writers:
    """Writers of the book's article rows (:func:`heldout.book.mnist.data.article_rows`), found by pixels.

    Parameters
    ----------
    digits : heldout.book.mnist.data.Digits, optional
        The 70,000 verified MNIST digits (default :func:`heldout.book.mnist.data.load_mnist`).
    n : int, optional
        How many article rows (default 42,000).

    Returns
    -------
    Writers
        One entry per article row, in the rows' order; ``mnist_index`` says which MNIST
        digit each row is.

    Examples
    --------
    >>> rows = article_writers()  # doctest: +SKIP
    >>> len(rows), len(set(rows.writer.tolist()))  # doctest: +SKIP
    (42000, 836)
    """
    from heldout.book.mnist.data import KAGGLE_ROWS, article_rows, load_mnist

    digits = load_mnist() if digits is None else digits
    if digits.kind != "mnist" or len(digits) != MNIST_TRAIN + MNIST_TEST:
        raise ValueError(
            "digits must be the 70,000 verified MNIST digits (kind 'mnist'); for Kaggle's "
            "train.csv call mnist_indices(kaggle.images, mnist.images) with both loaded"
        )
    images, labels = article_rows(digits, n=KAGGLE_ROWS if n is None else n)
    idx = mnist_indices(images, digits.images)
    writers = load_writers().take(idx)
    if not np.array_equal(writers.label, labels):
        raise ValueError("the writers' labels do not match the article rows' labels")
    return writers
