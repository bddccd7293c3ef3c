"""Paired per-fold scores of two scikit-learn learners, ready for :mod:`heldout.resampling.cv`.

The tests of :mod:`heldout.resampling.cv` need the two learners scored on the **same**
splits, in a known order.  This module makes those splits and scores:

* :func:`splits`: the train/test index pairs of a design: ``"kfold"`` (``repeats``
  times ``k``-fold cross-validation), ``"5x2"`` (five replications of 2-fold
  cross-validation, Dietterich's design, :cite:`dietterich1998`) or
  ``"resampled"`` (``repeats`` random splits with a given test fraction,
  :cite:`nadeau2003`);
* :func:`paired_scores`: fits both learners on every training part and returns
  their accuracies on the test parts, in fold order;
* :func:`split_correct`: one random split and the per-item correctness of both
  fitted models on its test part (for :func:`heldout.resampling.cv.mcnemar_split`);
* :func:`from_cross_validate`: the paired scores from two results of scikit-learn's
  ``cross_validate`` run on the same splits.

:func:`paired_scores` also takes a scikit-learn splitter object as ``design``
(``StratifiedKFold``, ``GroupKFold`` with ``groups``, ``TimeSeriesSplit``,
``RepeatedStratifiedKFold``, ...) and estimators that are pipelines or searches
(``GridSearchCV``: the tuning then happens inside every training part).

scikit-learn is imported inside the functions.  Loops of fits run with one
BLAS thread (:func:`single_thread`, threadpoolctl), so that they do not
oversubscribe a shared machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from heldout._checks import (
    as_count,
    as_draws,
    as_floats,
    as_probability,
    check_elements,
    check_work,
    in_choices,
    layout_floats,
    show,
)
from heldout._result import Result, extra
from heldout.config import rng as make_rng

__all__ = [
    "DESIGNS",
    "PairedScores",
    "SplitCorrect",
    "SplitPredictions",
    "fit_predict",
    "fit",
    "from_cross_validate",
    "paired_scores",
    "predict_splits",
    "single_thread",
    "split_correct",
    "splits",
]

#: The resampling designs :func:`splits` knows.
DESIGNS = ("kfold", "5x2", "resampled")


@dataclass(frozen=True)
class PairedScores(Result):
    """Per-split accuracies of two learners on the same splits, in fold order.

    Unpacks as ``scores_a, scores_b``; ``test_fraction`` is what
    :func:`heldout.resampling.cv.corrected_t` needs, ``design`` says how the splits were made.
    """

    scores_a: np.ndarray
    scores_b: np.ndarray
    test_fraction: float = extra(0.0)
    design: str = extra("")


@dataclass(frozen=True)
class SplitCorrect(Result):
    """Per-item correctness of two models fitted on one training part, on its test part."""

    correct_a: np.ndarray
    correct_b: np.ndarray


def whole(value, name: str, minimum: int = 0) -> int:
    """A single whole number >= ``minimum`` (and below 2**63), else ValueError naming ``name``."""
    x = number(value, name)  # a single number (refuses arrays and ragged lists)
    if np.isfinite(x) and abs(x) >= 2.0**63:
        raise ValueError(f"{name} must be below 2**63, got {show(value)}")
    return int(as_count(x, name, minimum=minimum, scalar=True))


def number(value, name: str) -> float:
    """A single number (not an array), else ValueError naming ``name``.

    The shared check: refuses arrays, ragged lists, text, None, booleans, complex
    numbers and ``10**400`` by name.
    """
    return as_floats(value, name, scalar=True)


def _check_x(X, name: str = "X") -> np.ndarray:
    """A finite numeric matrix (rows by features), else ValueError naming ``name``."""
    Xa = layout_floats(X, name, 2, "rows by features")
    if not np.all(np.isfinite(Xa)):
        raise ValueError(f"{name} must hold finite numbers (no NaN or infinity)")
    return Xa


def _check_xy(X, y, x_name: str = "X", y_name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    try:
        Xa = np.asarray(X, dtype=float)
        ya = np.asarray(y)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(
            f"{x_name} must be a numeric matrix and {y_name} a vector of labels"
        ) from None
    if Xa.ndim != 2:
        raise ValueError(f"{x_name} must be a 2-d array (rows by features), got shape {Xa.shape}")
    if ya.ndim != 1 or ya.shape[0] != Xa.shape[0]:
        raise ValueError(
            f"{y_name} must be a vector with one label per row of {x_name}, "
            f"got shapes {Xa.shape} and {ya.shape}"
        )
    if not np.all(np.isfinite(Xa)):
        raise ValueError(f"{x_name} must hold finite numbers (no NaN or infinity)")
    return Xa, ya


def splits(
    n: int,
    design: str = "kfold",
    *,
    k: int = 10,
    repeats: int | None = None,
    test_fraction: float | None = None,
    seed=None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Train/test index pairs of a resampling design, in fold order.

    Parameters
    ----------
    n
        Number of rows.
    design
        ``"kfold"``: ``repeats`` (default 1) shuffles, each cut into ``k`` folds of
        sizes differing by at most one; ``"5x2"``: five shuffles cut in two halves
        (``k`` and ``repeats`` ignored); ``"resampled"``: ``repeats`` (default 10)
        independent random splits with ``round(n * test_fraction)`` test rows.
    k, repeats, test_fraction
        As above.
    seed
        Seed or Generator (:func:`heldout.config.rng`).

    Returns
    -------
    list of (train_indices, test_indices)

    Examples
    --------
    >>> parts = splits(10, "5x2", seed=1)
    >>> len(parts), [len(te) for _, te in parts[:2]]
    (10, [5, 5])
    """
    n = whole(n, "n", minimum=2)
    check_work(n, 10**9, "n (items split)")
    if not in_choices(design, DESIGNS):
        raise ValueError(f"design must be one of {DESIGNS}, got {show(design)}")
    k = whole(k, "k", minimum=2)  # checked even where the design ignores it
    if test_fraction is not None:  # likewise: a bad value is refused, never ignored
        as_probability(test_fraction, "test_fraction", scalar=True)
    if repeats is not None:
        as_draws(repeats, "repeats")
    gen = make_rng(seed)
    out: list[tuple[np.ndarray, np.ndarray]] = []
    if design == "resampled":
        if test_fraction is None:
            raise ValueError("test_fraction is needed by the 'resampled' design")
        f = float(as_probability(test_fraction, "test_fraction", scalar=True))
        n_test = int(round(n * f))
        if not 1 <= n_test <= n - 1:
            raise ValueError(
                f"test_fraction={show(test_fraction)} leaves {n_test} of n={n} rows for testing; "
                "it must leave at least one row in each part"
            )
        reps = 10 if repeats is None else as_draws(repeats, "repeats")
        check_elements(float(reps) * n, "repeats x n (the splits' indices)")
        for _ in range(reps):
            perm = gen.permutation(n)
            out.append((np.sort(perm[n_test:]), np.sort(perm[:n_test])))
        return out
    if design == "5x2":
        k, reps = 2, 5
    else:
        k = whole(k, "k", minimum=2)
        reps = 1 if repeats is None else as_draws(repeats, "repeats")
    check_elements(float(reps) * n, "repeats x n (the splits' indices)")
    if k > n:
        raise ValueError(f"k must not exceed the number of rows n={n}, got k={k}")
    for _ in range(reps):
        perm = gen.permutation(n)
        for fold in np.array_split(perm, k):
            mask = np.zeros(n, dtype=bool)
            mask[fold] = True
            out.append((np.flatnonzero(~mask), np.flatnonzero(mask)))
    return out


def fit_predict(estimator, X_train, y_train, X_test) -> np.ndarray:
    """Fit a fresh clone of ``estimator`` and predict ``X_test``.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X = np.array([[0.0], [0.1], [1.0], [1.1]]); y = np.array([0, 0, 1, 1])
    >>> fit_predict(GaussianNB(), X, y, np.array([[0.05], [1.05]])).tolist()
    [0, 1]
    """
    model = fit(estimator, X_train, y_train)
    X_test = _check_x(X_test, "X_test")
    return model.predict(X_test)


def fit(estimator, X_train, y_train):
    """A fitted clone of ``estimator`` (scikit-learn's finiteness checks skipped: inputs are checked once).

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> model = fit(GaussianNB(), np.array([[0.0], [1.0]]), np.array([0, 1]))
    >>> model.predict(np.array([[0.9]])).tolist()
    [1]
    """
    import sklearn
    from sklearn.base import clone

    _estimator(estimator)
    if not (
        isinstance(X_train, np.ndarray)
        and X_train.dtype.kind == "f"
        and X_train.ndim == 2
        and isinstance(y_train, np.ndarray)
        and y_train.shape == X_train.shape[:1]
    ):
        X_train, y_train = _check_xy(X_train, y_train, "X_train", "y_train")
    with sklearn.config_context(assume_finite=True):
        return clone(estimator).fit(X_train, y_train)


def _estimator(estimator) -> None:
    if not (hasattr(estimator, "fit") and hasattr(estimator, "get_params")):
        raise ValueError(f"estimator must be a scikit-learn estimator, got {show(estimator)}")


def _parts(parts, n: int) -> list:
    """``(train, test)`` index pairs, checked against ``n`` rows."""
    if isinstance(parts, str | bytes | dict) or not hasattr(parts, "__iter__"):
        raise ValueError(f"parts must be a list of (train, test) index arrays, got {show(parts)}")
    out = []
    for pair in parts:
        try:
            tr, te = (np.asarray(p) for p in pair)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(
                f"parts must hold (train, test) index pairs, got {show(pair)}"
            ) from None
        for idx in (tr, te):
            if (
                idx.ndim != 1
                or idx.dtype.kind not in "iu"
                or (idx.size and (idx.min() < 0 or idx.max() >= n))
            ):
                raise ValueError(
                    f"parts must hold index arrays of rows 0..{n - 1}, got {show(pair)}"
                )
        out.append((tr, te))
    return out


_THREAD_LIMIT_DEPTH = 0


@contextmanager
def single_thread():
    """Run the enclosed fits with one BLAS/OpenMP thread.

    Entering threadpoolctl's limit costs milliseconds, so nested uses (a simulation
    calling functions that limit threads themselves) enter it only once.

    Examples
    --------
    >>> with single_thread():
    ...     with single_thread():  # nested: free
    ...         pass
    """
    global _THREAD_LIMIT_DEPTH
    if _THREAD_LIMIT_DEPTH:
        _THREAD_LIMIT_DEPTH += 1
        try:
            yield
        finally:
            _THREAD_LIMIT_DEPTH -= 1
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        _THREAD_LIMIT_DEPTH = 1
        try:
            yield
        finally:
            _THREAD_LIMIT_DEPTH = 0


def _plain_knn(estimator) -> int | None:
    """``n_neighbors`` if ``estimator`` is a k-nearest-neighbour classifier with uniform
    weights and Euclidean distance (the fast path of :func:`predict_splits`), else None."""
    try:
        from sklearn.neighbors import KNeighborsClassifier
    except ImportError:  # pragma: no cover - scikit-learn is needed to fit anything
        return None
    if type(estimator) is not KNeighborsClassifier:
        return None
    params = estimator.get_params()
    euclidean = params["metric"] == "euclidean" or (
        params["metric"] == "minkowski" and params["p"] == 2
    )
    if params["weights"] != "uniform" or not euclidean or params["metric_params"]:
        return None
    return int(params["n_neighbors"])


def _sq_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances between the rows of A and of B.

    ``|a|^2 + |b|^2 - 2 a.b`` as scikit-learn's ``euclidean_distances`` computes
    them; the product uses a transposed *copy* of B (a general matrix product,
    never numpy's ``A @ A.T`` special case, see DEVELOPING.md).
    """
    cross = A @ np.ascontiguousarray(B.T)
    d = (A * A).sum(axis=1)[:, None] + (B * B).sum(axis=1)[None, :] - 2.0 * cross
    return np.maximum(d, 0.0)


def _vote(neighbour_labels: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Majority label per row; ties go to the smallest class, as in scikit-learn."""
    counts = (neighbour_labels[:, :, None] == classes[None, None, :]).sum(axis=1)
    return classes[np.argmax(counts, axis=1)]


@dataclass(frozen=True)
class SplitPredictions(Result):
    """Predictions per split; unpacks as ``(test, new)`` (``new`` is None without ``X_new``)."""

    test: list
    new: list | None


def predict_splits(estimator, X, y, parts, X_new=None) -> SplitPredictions:
    """Predictions of ``estimator`` fitted on each training part.

    For every ``(train, test)`` pair of ``parts`` a fresh clone of ``estimator``
    is fitted on ``X[train], y[train]``; the function returns its predictions
    for ``X[test]`` and, when ``X_new`` is given, for the rows of ``X_new``
    (a fresh sample on which to measure the fitted model's true error).

    A k-nearest-neighbour classifier with uniform weights and Euclidean distance
    takes a fast path: the distances are computed once per call and each fit is
    a column subset of them.  It returns what scikit-learn's
    :class:`~sklearn.neighbors.KNeighborsClassifier` predicts (ties between
    equally distant neighbours aside, which continuous data do not have; the
    tests compare the two).

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> X = np.array([[0.0], [0.2], [1.0], [1.2]]); y = np.array([0, 0, 1, 1])
    >>> parts = [(np.array([0, 2]), np.array([1, 3]))]
    >>> test_pred, _ = predict_splits(KNeighborsClassifier(1), X, y, parts)
    >>> test_pred[0].tolist()
    [0, 1]
    """
    _estimator(estimator)
    X, y = _check_xy(X, y)
    parts = _parts(parts, len(y))
    if X_new is not None:
        new = as_floats(X_new, "X_new")
        if new.ndim != 2 or new.shape[1] != X.shape[1] or not np.all(np.isfinite(new)):
            raise ValueError(
                f"X_new must be finite rows of {X.shape[1]} features like X, got {show(X_new)}"
            )
    k = _plain_knn(estimator)
    out_test: list[np.ndarray] = []
    out_new: list[np.ndarray] | None = None if X_new is None else []
    if k is not None:
        classes = np.unique(y)
        D = _sq_distances(X, X)
        Dn = None if X_new is None else _sq_distances(np.asarray(X_new, dtype=float), X)
        for tr, te in parts:
            if k > len(tr):
                raise ValueError(f"n_neighbors={k} exceeds the {len(tr)} rows of a training part")
            for dist, out in (
                (D[np.ix_(te, tr)], out_test),
                (None if Dn is None else Dn[:, tr], out_new),
            ):
                if dist is None:
                    continue
                if k == 1:
                    near = np.argmin(dist, axis=1)[:, None]
                else:
                    near = np.argpartition(dist, k - 1, axis=1)[:, :k]
                out.append(_vote(y[tr][near], classes))
        return SplitPredictions(out_test, out_new)
    for tr, te in parts:
        model = fit(estimator, X[tr], y[tr])
        out_test.append(model.predict(X[te]) if len(te) else y[:0].copy())
        if out_new is not None:
            out_new.append(model.predict(X_new))
    return SplitPredictions(out_test, out_new)


def _columns(columns, width: int, name: str) -> np.ndarray | slice:
    if columns is None:
        return slice(None)
    cols = np.asarray(columns)
    if cols.ndim != 1 or cols.size == 0:
        raise ValueError(f"{name} must be a non-empty list of column indices")
    if cols.dtype == bool:
        if cols.size != width:
            raise ValueError(f"{name} as a boolean mask must have {width} entries, got {cols.size}")
        return cols
    cols = as_count(cols, name)
    if np.any(cols >= width):
        raise ValueError(f"{name} must index the {width} columns of X, got {show(columns)}")
    return cols


def paired_scores(
    estimator_a,
    estimator_b,
    X,
    y,
    design: str = "kfold",
    *,
    k: int = 10,
    repeats: int | None = None,
    test_fraction: float | None = None,
    columns_a: Sequence[int] | None = None,
    columns_b: Sequence[int] | None = None,
    groups=None,
    seed=None,
) -> PairedScores:
    """Accuracies of two scikit-learn learners on the same splits, in fold order.

    Both learners are fitted on every training part of :func:`splits` and
    scored (share of correct predictions) on its test part, so the scores are
    paired split by split, ready for :func:`heldout.resampling.cv.corrected_t`,
    :func:`heldout.resampling.cv.five_by_two_t` and the others.

    Parameters
    ----------
    estimator_a, estimator_b
        scikit-learn estimators (cloned before each fit; never modified).
    X, y
        The data: a rows-by-features matrix and one label per row.
    design, k, repeats, test_fraction, seed
        As in :func:`splits`; or ``design`` is a scikit-learn splitter (any object with
        ``split(X, y, groups)``), whose splits are used as they come (``k``,
        ``repeats``, ``test_fraction`` and ``seed`` are then ignored; give the splitter
        its own ``random_state``).
    columns_a, columns_b
        Columns of ``X`` each learner sees (default: all).
    groups
        Group labels of the rows, passed to a splitter's ``split`` (``GroupKFold``:
        items of one group, e.g. one writer's digits, never on both sides).

    Returns
    -------
    PairedScores
        ``test_fraction`` is ``1/k`` for ``"kfold"``, ``1/2`` for ``"5x2"``, the
        realised share of test rows for ``"resampled"``, and for a splitter the mean
        over splits of ``n_test / (n_train + n_test)`` (for ``TimeSeriesSplit``, whose
        training parts grow, the corrected test's premise of equal overlaps holds only
        roughly).  ``design`` is the splitter's class name.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from heldout.resampling.cv import corrected_t
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(200, 3)); y = (X[:, 0] + gen.normal(size=200) > 0).astype(int)
    >>> s = paired_scores(LogisticRegression(), GaussianNB(), X, y, "kfold", k=10, seed=1)
    >>> s.scores_a.shape, s.test_fraction
    ((10,), 0.1)
    >>> r = corrected_t(s.scores_a, s.scores_b, s.test_fraction)
    >>> 0 <= r.p_value <= 1
    True
    """
    Xa, ya = _check_xy(X, y)
    ca = _columns(columns_a, Xa.shape[1], "columns_a")
    cb = _columns(columns_b, Xa.shape[1], "columns_b")
    splitter = hasattr(design, "split") and not isinstance(design, str)
    if splitter:
        parts = _splitter_parts(design, Xa, ya, groups)
    else:
        if groups is not None:
            raise ValueError("groups needs a scikit-learn splitter as design (e.g. GroupKFold)")
        parts = splits(
            len(ya), design, k=k, repeats=repeats, test_fraction=test_fraction, seed=seed
        )
    with single_thread():
        pred_a, _ = predict_splits(estimator_a, Xa[:, ca], ya, parts)
        pred_b, _ = predict_splits(estimator_b, Xa[:, cb], ya, parts)
    sa = np.array([np.mean(p == ya[te]) for p, (_, te) in zip(pred_a, parts, strict=True)])
    sb = np.array([np.mean(p == ya[te]) for p, (_, te) in zip(pred_b, parts, strict=True)])
    if splitter:
        f = float(np.mean([len(te) / (len(tr) + len(te)) for tr, te in parts]))
        return PairedScores(sa, sb, test_fraction=f, design=type(design).__name__)
    if design == "kfold":
        f = 1.0 / (k if k is not None else 10)
    elif design == "5x2":
        f = 0.5
    else:
        f = len(parts[0][1]) / len(ya)
    return PairedScores(sa, sb, test_fraction=float(f), design=design)


def _splitter_parts(splitter, X, y, groups) -> list:
    """The (train, test) pairs of a scikit-learn splitter, checked."""
    if groups is not None:
        g = np.asarray(groups)
        if g.ndim != 1 or g.shape[0] != len(y):
            raise ValueError(f"groups must hold one label per row ({len(y)}), got shape {g.shape}")
    try:
        raw = list(splitter.split(X, y, groups))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"design (a splitter) could not split the data: {exc}") from None
    if len(raw) < 2:
        raise ValueError(f"design (a splitter) must give at least 2 splits, got {len(raw)}")
    parts = _parts(raw, len(y))
    if any(len(tr) == 0 or len(te) == 0 for tr, te in parts):
        raise ValueError("design (a splitter) gave an empty training or test part")
    return parts


def from_cross_validate(
    result_a, result_b, *, test_fraction: float | None = None, key: str = "test_score"
) -> PairedScores:
    """Paired per-split scores from two results of scikit-learn's ``cross_validate``.

    ``cross_validate(estimator, X, y, cv=splitter, return_indices=True)`` returns a dict
    with one score per split under ``key`` (``"test_score"``, or ``"test_<name>"`` with
    several scorers) and, with ``return_indices=True``, the splits' indices.  Run it for
    both learners with the **same** splitter (a fixed ``random_state``); this function
    checks that the test indices agree split by split (when both results carry them),
    takes the test fraction as the mean ``n_test / (n_train + n_test)`` over the splits
    (or ``test_fraction`` when the indices are absent), and returns the pair ready for
    :func:`heldout.resampling.cv.corrected_t` (:cite:`nadeau2003`) or
    :func:`heldout.resampling.bayes.correlated_t_rope` (:cite:`corani2015`).

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import StratifiedKFold, cross_validate
    >>> from sklearn.naive_bayes import GaussianNB
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(200, 3)); y = (X[:, 0] + gen.normal(size=200) > 0).astype(int)
    >>> cv = StratifiedKFold(5, shuffle=True, random_state=1)
    >>> ra = cross_validate(LogisticRegression(), X, y, cv=cv, return_indices=True)
    >>> rb = cross_validate(GaussianNB(), X, y, cv=cv, return_indices=True)
    >>> s = from_cross_validate(ra, rb)
    >>> s.scores_a.shape, s.test_fraction
    ((5,), 0.2)
    """
    if not isinstance(key, str):
        raise ValueError(f"key must be the name of a score in the results, got {show(key)}")
    for name, res in (("result_a", result_a), ("result_b", result_b)):
        if not isinstance(res, dict) or key not in res:
            raise ValueError(f"{name} must be a dict from cross_validate holding {show(key)}")
    sa = np.asarray(result_a[key], dtype=float).ravel()
    sb = np.asarray(result_b[key], dtype=float).ravel()
    if sa.size != sb.size or sa.size < 2:
        raise ValueError(
            f"result_a and result_b must hold the same number (>= 2) of splits, got "
            f"{sa.size} and {sb.size}"
        )
    ia, ib = result_a.get("indices"), result_b.get("indices")
    if ia is not None and ib is not None:
        for ta, tb in zip(ia["test"], ib["test"], strict=True):
            if not np.array_equal(np.sort(ta), np.sort(tb)):
                raise ValueError(
                    "result_a and result_b were not run on the same splits (test indices "
                    "differ): give cross_validate the same splitter with a fixed random_state"
                )
        f = float(
            np.mean(
                [
                    len(te) / (len(tr) + len(te))
                    for tr, te in zip(ia["train"], ia["test"], strict=True)
                ]
            )
        )
    elif test_fraction is not None:
        f = float(as_probability(test_fraction, "test_fraction", scalar=True))
    else:
        raise ValueError(
            "test_fraction is needed when the results carry no indices "
            "(or run cross_validate with return_indices=True)"
        )
    return PairedScores(sa, sb, test_fraction=round(f, 12), design="cross_validate")


def split_correct(
    estimator_a,
    estimator_b,
    X,
    y,
    test_fraction: float = 1 / 3,
    *,
    columns_a: Sequence[int] | None = None,
    columns_b: Sequence[int] | None = None,
    seed=None,
) -> SplitCorrect:
    """Per-item correctness of two learners trained once on the same random split.

    For McNemar's test (:func:`heldout.resampling.cv.mcnemar_split`): one random split
    with ``round(n * test_fraction)`` test rows; both learners are fitted on the
    training part and each test item is marked right or wrong for each.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(300, 3)); y = (X[:, 0] + gen.normal(size=300) > 0).astype(int)
    >>> ca, cb = split_correct(LogisticRegression(), GaussianNB(), X, y, seed=1)
    >>> ca.shape
    (100,)
    """
    Xa, ya = _check_xy(X, y)
    ca = _columns(columns_a, Xa.shape[1], "columns_a")
    cb = _columns(columns_b, Xa.shape[1], "columns_b")
    ((tr, te),) = splits(len(ya), "resampled", repeats=1, test_fraction=test_fraction, seed=seed)
    with single_thread():
        (pred_a,), _ = predict_splits(estimator_a, Xa[:, ca], ya, [(tr, te)])
        (pred_b,), _ = predict_splits(estimator_b, Xa[:, cb], ya, [(tr, te)])
    right_a, right_b = pred_a == ya[te], pred_b == ya[te]
    return SplitCorrect(right_a, right_b)
