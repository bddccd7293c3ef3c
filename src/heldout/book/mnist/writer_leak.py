r"""What a random split does when one writer wrote many digits: writer-disjoint splits on MNIST.

The book's 42,000 MNIST digits (:func:`heldout.book.mnist.data.article_rows`) come from 836 NIST
writers, about 50 digits each (:mod:`heldout.book.mnist.qmnist`).  A random 80/10/10 split, the
source article's, puts almost every test digit's writer in the training set too, so a
model that can recognise a writer's hand (a nearest-neighbour classifier finds the
same writer's other digits) is scored on a test set easier than digits from new
writers.  MNIST itself was built with writer-disjoint training and test sets
:cite:`lecun_mnist`.

Two measurements, with cheap models refitted here (``knn_3``: three nearest
neighbours on raw pixels; ``linear_svc_scaled``: the linear SVM on pixels scaled to
[0, 1], both with :mod:`heldout.book.mnist.models`' settings), predictions cached like the MNIST
chapter's:

* a **paired leak design** (:func:`leak_design`): a share of the writers are *test
  writers*; half of each test writer's digits form the test set, the other half go
  into the "leaky" training set, which is otherwise digits of other writers; the
  "disjoint" training set has the same number of digits, all from other writers.  Both
  models are scored on the *same* test digits, so the difference is the effect of
  having seen the writer, measured with a paired, writer-clustered interval;
* a **writer-disjoint split** (:func:`group_split`) of the same proportions as the
  article's, against the article's random split.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from heldout._checks import as_flag, as_probability, in_choices, show
from heldout._result import Result, extra

__all__ = [
    "LEAK_MODELS",
    "LeakDesign",
    "WriterResult",
    "fit_predict",
    "group_split",
    "leak_design",
    "split_experiment",
    "writer_experiment",
]

#: The models refitted here (cheap ones), with :func:`heldout.book.mnist.models.model_params` settings.
LEAK_MODELS = ("knn_3", "linear_svc_scaled")


def _groups(groups) -> np.ndarray:
    try:
        g = np.asarray(groups)
    except (TypeError, ValueError, OverflowError):  # ragged rows
        raise ValueError(
            "groups must be a one-dimensional array with a group id per item"
        ) from None
    if g.ndim != 1 or g.size < 2:
        raise ValueError("groups must be a one-dimensional array with a group id per item")
    if np.unique(g).size < 3:
        raise ValueError("groups must hold at least three distinct groups")
    return g


def group_split(groups: ArrayLike, fractions: ArrayLike = (0.8, 0.1, 0.1), seed=None):
    """Split items into train, validation and test parts with no group in two parts.

    The groups are shuffled and taken in that order: the first ones fill the test part
    until it holds at least ``fractions[2]`` of the items, the next ones the validation
    part up to ``fractions[1]``, the rest is training.  (scikit-learn's
    ``GroupShuffleSplit`` draws a share of the *groups*; this draws a share of the
    *items*, closer to a random split's sizes when groups differ in size.)

    Parameters
    ----------
    groups : array_like, shape (n,)
        Group (writer) of each item.
    fractions : three floats
        Shares of train, validation and test, summing to 1.
    seed : int, Generator or None

    Returns
    -------
    heldout.book.mnist.models.Split
        Index arrays ``train``, ``val``, ``test`` (each sorted).

    Examples
    --------
    >>> s = group_split([1, 1, 2, 2, 3, 3, 4, 4, 5, 5], (0.6, 0.2, 0.2), seed=0)
    >>> sorted(len(p) for p in (s.train, s.val, s.test))
    [2, 2, 6]
    """
    from heldout.book.mnist.models import Split
    from heldout.config import rng

    g = _groups(groups)
    f = as_probability(fractions, "fractions")
    if f.shape != (3,) or abs(f.sum() - 1) > 1e-9:
        raise ValueError(f"fractions must be three shares summing to 1, got {show(fractions)}")
    labels, codes = np.unique(g, return_inverse=True)
    order = rng(seed).permutation(labels.size)
    sizes = np.bincount(codes, minlength=labels.size)[order]
    before = np.cumsum(sizes) - sizes  # items already placed when each group comes
    cut_test = np.round(f[2] * g.size, 9)
    cut_val = np.round((f[2] + f[1]) * g.size, 9)
    part = np.where(before < cut_test, 2, np.where(before < cut_val, 1, 0))
    part_of_label = np.empty(labels.size, dtype=int)
    part_of_label[order] = part
    item_part = part_of_label[codes]
    return Split(
        train=np.flatnonzero(item_part == 0),
        val=np.flatnonzero(item_part == 1),
        test=np.flatnonzero(item_part == 2),
    )


@dataclass(frozen=True)
class LeakDesign(Result):
    """Index arrays of the paired leak design.  Unpacks as ``(test, train_leaky, train_disjoint)``."""

    test: np.ndarray
    train_leaky: np.ndarray
    train_disjoint: np.ndarray
    test_groups: np.ndarray = extra()


def leak_design(groups: ArrayLike, test_groups: float = 0.2, seed=None) -> LeakDesign:
    """The paired design: the same test items, training sets with and without their groups.

    A share ``test_groups`` of the groups (writers) is drawn.  Each drawn group's items
    are shuffled and dealt alternately to the test set and to a "seen" set (so a group
    of :math:`m` items puts :math:`\\lceil m/2\\rceil` in the test set).  The other
    groups' items, shuffled, fill the training sets: ``train_disjoint`` is all of them,
    and ``train_leaky`` replaces as many of them as the seen set holds by the seen set.
    Both training sets have the same size and no item of the test set.

    Parameters
    ----------
    groups : array_like, shape (n,)
        Group (writer) of each item.
    test_groups : float
        Share of the groups whose items are split between test and "seen".
    seed : int, Generator or None

    Returns
    -------
    LeakDesign

    Examples
    --------
    >>> d = leak_design(np.repeat(np.arange(10), 4), test_groups=0.2, seed=1)
    >>> len(d.test), len(d.train_leaky), len(d.train_disjoint)
    (4, 32, 32)
    """
    from heldout.config import rng

    g = _groups(groups)
    share = float(as_probability(test_groups, "test_groups", scalar=True))
    gen = rng(seed)
    labels = np.unique(g)
    k = max(1, int(round(share * labels.size)))
    if k >= labels.size:
        raise ValueError("test_groups leaves no group for training; use a smaller share")
    chosen = gen.choice(labels, size=k, replace=False)
    inside = np.isin(g, chosen)
    idx = np.flatnonzero(inside)
    idx = idx[gen.permutation(idx.size)]
    idx = idx[np.argsort(g[idx], kind="stable")]  # grouped, shuffled within each group
    first = np.r_[True, g[idx][1:] != g[idx][:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(idx.size), 0))
    rank = np.arange(idx.size) - start
    test, seen = np.sort(idx[rank % 2 == 0]), idx[rank % 2 == 1]
    others = np.flatnonzero(~inside)
    others = others[gen.permutation(others.size)]
    if seen.size > others.size:
        raise ValueError(
            "test_groups is too large: the seen items outnumber the other groups' items"
        )
    leaky = np.sort(np.concatenate([others[: others.size - seen.size], seen]))
    return LeakDesign(
        test=test, train_leaky=leaky, train_disjoint=np.sort(others), test_groups=np.sort(chosen)
    )


def fit_predict(
    model: str, X_train: np.ndarray, y_train: ArrayLike, X_test: np.ndarray, *, cache: bool = True
) -> np.ndarray:
    """Fit one of :data:`LEAK_MODELS` and predict ``X_test``, with a cache of the predictions.

    The predictions are kept in :class:`heldout.book.mnist.models.PredictionCache` (under
    ``$HELDOUT_CACHE_DIR``), keyed by the training and test digits, the model and its
    settings, and the library versions, so a rebuild of the chapter does not refit.

    Examples
    --------
    >>> X = np.array([[0] * 784, [255] * 784, [10] * 784, [250] * 784], dtype=np.uint8)
    >>> fit_predict("linear_svc_scaled", X, [0, 1, 0, 1], X[:2], cache=False).tolist()
    [0, 1]
    """
    cache = as_flag(cache, "cache")
    from heldout.book.mnist.models import PredictionCache, array_digest, model_params
    from heldout.config import quick

    if not in_choices(model, LEAK_MODELS):
        raise ValueError(f"model must be one of {', '.join(LEAK_MODELS)}, got {show(model)}")
    from heldout.resampling.cv_scores import _check_x, _check_xy

    X_train, y_train = _check_xy(X_train, y_train, "X_train", "y_train")
    X_test = _check_x(X_test, "X_test")
    params = model_params(model)
    store = PredictionCache() if cache else None
    key = PredictionCache.key(
        array_digest(X_train, y_train, X_test),
        f"writer_leak/{model}",
        params,
        "quick" if quick() else "full",
    )
    if store is not None and (hit := store.get(key)) is not None:
        return np.asarray(hit["test"])
    import time

    t0 = time.perf_counter()
    if model == "knn_3":
        from sklearn.neighbors import KNeighborsClassifier

        fitted = KNeighborsClassifier(n_neighbors=params["n_neighbors"]).fit(X_train, y_train)
        pred = fitted.predict(X_test)
    else:
        import warnings

        from sklearn.exceptions import ConvergenceWarning
        from sklearn.svm import LinearSVC

        kw = {k: params[k] for k in ("C", "dual", "max_iter", "random_state")}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fitted = LinearSVC(**kw).fit(X_train / 255.0, y_train)
        pred = fitted.predict(X_test / 255.0)
    seconds = time.perf_counter() - t0
    if store is not None:
        store.put(
            key,
            {"val": np.zeros(0), "test": pred, "fit_s": seconds, "predict_s": 0.0, "info": {}},
        )
    return np.asarray(pred)


@dataclass(frozen=True)
class WriterResult(Result):
    """Which test digits a model got right under two training conditions.

    Unpacks as ``(correct_a, correct_b)``; for the leak design ``a`` is the leaky
    training set and ``b`` the writer-disjoint one, on the same test digits; for the
    split comparison ``a`` is the random split's test set and ``b`` the writer-disjoint
    split's (different digits, so ``writer_a`` and ``writer_b`` differ).
    """

    correct_a: np.ndarray
    correct_b: np.ndarray
    writer_a: np.ndarray = extra()
    writer_b: np.ndarray = extra()
    series_a: np.ndarray = extra()
    series_b: np.ndarray = extra()
    train_size: int = extra()


def _compare(model, X, y, w, first, second) -> WriterResult:
    """Fit ``model`` on each (train, test) pair of row indices and score it on that test part."""
    parts = []
    for train, test in (first, second):
        pred = fit_predict(model, X[train], y[train], X[test])
        parts.append((pred == y[test], w.writer[test], w.series[test]))
    (ca, wa, sa), (cb, wb, sb) = parts
    return WriterResult(
        correct_a=ca,
        correct_b=cb,
        writer_a=wa,
        writer_b=wb,
        series_a=sa,
        series_b=sb,
        train_size=int(len(first[0])),
    )


def _data(n: int | None, digits):
    from heldout.book.mnist.data import article_rows, load_mnist
    from heldout.book.mnist.models import default_size
    from heldout.book.mnist.qmnist import article_writers

    digits = load_mnist() if digits is None else digits
    n = default_size()[0] if n is None else int(n)
    X, y = article_rows(digits)
    writers = article_writers(digits)
    return X[:n], y[:n].astype(np.int64), writers.take(np.arange(n))


def writer_experiment(
    n: int | None = None,
    models: tuple[str, ...] = LEAK_MODELS,
    *,
    test_groups: float = 0.2,
    seed=None,
    digits=None,
) -> dict[str, WriterResult]:
    """The paired leak design on the first ``n`` article rows, for each model.

    Parameters
    ----------
    n : int, optional
        Article rows used (default: the MNIST chapter's, 42,000 or 4,200 in the quick
        profile).
    models : sequence of str
        Names from :data:`LEAK_MODELS`.
    test_groups : float
        Share of writers whose digits are split between test and training.
    seed : int, Generator or None
        Seed of the design (default :data:`heldout.config.SEED`).
    digits : heldout.book.mnist.data.Digits, optional
        The 70,000 MNIST digits (loaded when not given).

    Returns
    -------
    dict of WriterResult
        ``correct_a``: trained with the test writers' other digits; ``correct_b``:
        trained without any digit of the test writers; same test digits.

    Examples
    --------
    >>> res = writer_experiment()["knn_3"]  # doctest: +SKIP
    >>> res.correct_a.mean() - res.correct_b.mean()  # doctest: +SKIP
    """
    X, y, w = _data(n, digits)
    design = leak_design(w.writer, test_groups=test_groups, seed=seed)
    out = {}
    for model in models:
        out[model] = _compare(
            model, X, y, w, (design.train_leaky, design.test), (design.train_disjoint, design.test)
        )
    return out


def split_experiment(
    n: int | None = None, models: tuple[str, ...] = LEAK_MODELS, *, seed=None, digits=None
) -> dict[str, WriterResult]:
    """Each model on the article's random 80/10/10 split and on a writer-disjoint one.

    ``correct_a`` is the model's result on the random split's test part
    (:func:`heldout.book.mnist.models.article_split`), ``correct_b`` on the test part of
    :func:`group_split` by writer with the same fractions; each trained on its
    split's training part.

    Examples
    --------
    >>> res = split_experiment()["knn_3"]  # doctest: +SKIP
    >>> res.correct_a.mean(), res.correct_b.mean()  # doctest: +SKIP
    """
    from heldout.book.mnist.models import article_split

    X, y, w = _data(n, digits)
    rand = article_split(len(y))
    grp = group_split(w.writer, (0.8, 0.1, 0.1), seed=seed)
    return {m: _compare(m, X, y, w, (rand.train, rand.test), (grp.train, grp.test)) for m in models}
