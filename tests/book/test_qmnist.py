"""heldout.book.mnist.qmnist: the shipped writer file, its checksum, and the mapping of the article rows."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from heldout.book.mnist import qmnist
from heldout.config import SEED


def test_shipped_file_checksum_and_licence():
    path = qmnist.writers_path()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == qmnist.WRITERS_SHA256
    licence = (path.parent / "QMNIST-LICENSE").read_text()
    assert "BSD License" in licence and "Redistribution and use" in licence


def test_writers_content():
    w = qmnist.load_writers()
    assert len(w) == 70_000
    assert set(np.unique(w.series).tolist()) == {0, 4}
    census, students = set(w.writer[w.series == 0].tolist()), set(w.writer[w.series == 4].tolist())
    assert not census & students  # writer ids do not repeat across series
    # MNIST's description: training and test writers are disjoint
    train, test = set(w.writer[:60_000].tolist()), set(w.writer[60_000:].tolist())
    assert not train & test
    # QMNIST's labels: MNIST's first 5,000 test digits are high-school students' (series 4)
    assert np.all(w.series[60_000:65_000] == 4)
    assert np.mean(w.series[65_000:] == 0) > 0.999


def test_damaged_copy_is_refused(tmp_path):
    data = bytearray(qmnist.writers_path().read_bytes())
    data[100] ^= 0xFF
    bad = tmp_path / "mnist_writers.csv.gz"
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="SHA-256"):
        qmnist.load_writers(bad)
    with pytest.raises(ValueError, match="path"):
        qmnist.load_writers(tmp_path / "missing.csv.gz")


@pytest.mark.skipif(
    not os.environ.get("HELDOUT_QMNIST_DIR"),
    reason="set HELDOUT_QMNIST_DIR to the folder of the QMNIST label files to rebuild the file",
)
def test_rebuild_from_qmnist_sources(tmp_path):
    src = Path(os.environ["HELDOUT_QMNIST_DIR"])
    digest = qmnist.build_writers_file(
        src / "qmnist-train-labels.tsv.gz", src / "qmnist-test-labels.tsv.gz", tmp_path / "w.csv.gz"
    )
    assert digest == qmnist.WRITERS_SHA256


def test_mnist_indices_by_pixels():
    gen = np.random.default_rng(0)
    ref = gen.integers(0, 256, size=(500, 16), dtype=np.uint8)
    order = gen.permutation(500)[:300]
    assert np.array_equal(qmnist.mnist_indices(ref[order], ref), order)
    other = ref[:3].copy()
    other[1, 0] ^= 1
    with pytest.raises(ValueError, match="not in reference"):
        qmnist.mnist_indices(other, ref)
    with pytest.raises(ValueError, match="distinct"):
        qmnist.mnist_indices(ref[:2], np.vstack([ref, ref[:1]]))
    with pytest.raises(ValueError, match="uint8"):
        qmnist.mnist_indices(ref.astype(float), ref)


@pytest.mark.mnist
def test_labels_line_up_with_mnist_and_article_rows_mapping():
    from heldout.book.mnist.data import load_mnist

    try:
        digits = load_mnist()
    except ValueError as exc:  # no MNIST copy installed
        pytest.skip(str(exc))
    w = qmnist.load_writers()
    assert np.array_equal(w.label, digits.labels)  # every one of the 70,000
    rows = qmnist.article_writers(digits)
    # the article rows are the first 42,000 of a seeded permutation of MNIST's 70,000;
    # matching pixels recovers exactly that permutation
    assert np.array_equal(
        rows.mnist_index, np.random.default_rng(SEED).permutation(70_000)[:42_000]
    )
    assert len(np.unique(rows.writer)) == 836
