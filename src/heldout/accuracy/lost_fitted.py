"""The lost test set with real models: every estimator of :mod:`heldout.accuracy.lost` on fitted models.

:func:`simulate_fitted` splits a small data set (:func:`example_data`) many times, fits a
model (:func:`make_model`) on each training part, and records what each estimator of the
lost-test-set setting reports against the real test accuracy; :func:`summarise_fitted`
turns that into bias, spread and coverage per estimator.  The closed forms these
simulations check are in :mod:`heldout.accuracy.lost`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from heldout._checks import (
    as_count,
    as_instance,
    show,
)
from heldout._deprecate import renamed
from heldout._result import Result
from heldout.accuracy.lost import _generator, batch_accuracy, corrected_alpha, estimator_moments

__all__ = [
    "MODELS",
    "example_data",
    "make_model",
    "simulate_fitted",
    "summarise_fitted",
]


def example_data(
    name: str = "breast_cancer", *, seed: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A small classification data set that ships with scikit-learn.

    ``"breast_cancer"``: the Wisconsin diagnostic data (569 rows, 30 features).
    ``"noisy"``: ``make_classification`` with 600 rows, 10 features and
    ``flip_y=0.15``: 15 % of the labels are reassigned at random, so about 7.5 %
    change (memorising models then generalise visibly worse).
    ``"digits"``: the 8x8 digits (1797 rows, 10 classes).

    Returns
    -------
    (X, y) : tuple of ndarray

    Examples
    --------
    >>> X, y = example_data('breast_cancer')
    >>> X.shape, y.shape
    ((569, 30), (569,))
    """
    as_instance(name, "name", str, "the name of a data set")
    from sklearn import datasets

    from heldout.config import SEED, rng

    rng(seed)  # checks the seed (used by "noisy" only)
    if name == "breast_cancer":
        data = datasets.load_breast_cancer()
        return data.data, data.target
    if name == "digits":
        data = datasets.load_digits()
        return data.data, data.target
    if name == "noisy":
        return datasets.make_classification(
            n_samples=600,
            n_features=10,
            n_informative=5,
            flip_y=0.15,
            random_state=SEED if seed is None else seed,
        )
    raise ValueError(f"name must be 'breast_cancer', 'noisy' or 'digits', got {show(name)}")


MODELS = ("1nn", "tree", "logistic")


def make_model(name: str) -> object:
    """A fresh scikit-learn classifier by name.

    ``"1nn"``: standardise, then 1-nearest-neighbour (memorises its training set).
    ``"tree"``: an unpruned decision tree (memorises too).
    ``"logistic"``: standardise, then L2-regularised logistic regression
    (``C = 1``, liblinear solver), which does not memorise.

    Examples
    --------
    >>> make_model('tree')
    DecisionTreeClassifier(random_state=0)
    """
    as_instance(name, "name", str, "the name of a model")
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    if name == "1nn":
        return make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=1))
    if name == "tree":
        return DecisionTreeClassifier(random_state=0)
    if name == "logistic":
        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, solver="liblinear"))
    raise ValueError(f"model must be one of {', '.join(MODELS)} or a callable, got {show(name)}")


@dataclass(frozen=True)
class FittedSimulation(Result):
    """Repetitions of the article's procedure on a fitted model (:func:`simulate_fitted`)."""

    test_accuracy: np.ndarray
    train_accuracy: np.ndarray
    data_accuracy: np.ndarray
    a_hat: np.ndarray
    alpha_printed: np.ndarray
    alpha_intended: np.ndarray
    batches: np.ndarray
    rows: int
    train_rows: int
    test_rows: int


@renamed(repetitions="reps")
def simulate_fitted(
    X: ArrayLike,
    y: ArrayLike,
    model: str | Callable = "1nn",
    *,
    test_rows: int | None = None,
    batches: Sequence[int] = (1, 10, 100),
    reps: int = 200,
    seed=None,
) -> FittedSimulation:
    """The article's procedure on a real fitted model, repeated over random splits.

    Each repetition splits the ``N`` rows at random into ``N1`` training and
    ``N2`` test rows, fits ``model`` on the training rows, records the true
    test accuracy ``a``, the training accuracy ``t`` and the whole-data
    accuracy ``p`` (so ``N p = N1 t + N2 a`` can be checked), then "loses"
    the split and computes the article's ``a_hat`` (one draw of ``k`` random
    batches for each ``k`` in ``batches``) and both forms of ``alpha``.

    Parameters
    ----------
    X, y : array_like
        Features and labels.
    model : {"1nn", "tree", "logistic"} or callable
        A name for :func:`make_model`, or a function returning a fresh
        scikit-learn estimator.
    test_rows : int, optional
        ``N2``; default ``round(0.2 N)``.
    batches : sequence of int, default (1, 10, 100)
    reps : int, default 200
    seed : int, Generator or None
        Seeds the splits and the batches (through :func:`heldout.config.rng`).

    Returns
    -------
    FittedSimulation
        ``test_accuracy``, ``train_accuracy``, ``data_accuracy`` (reps,);
        ``a_hat``, ``alpha_printed``, ``alpha_intended`` (reps, len(batches));
        ``batches``, ``rows``, ``train_rows``, ``test_rows``.

    Examples
    --------
    >>> X, y = example_data('breast_cancer')
    >>> sim = simulate_fitted(X, y, '1nn', batches=(1, 10), reps=2, seed=1)
    >>> sim.a_hat.shape, bool(np.all(sim.train_accuracy == 1.0))
    ((2, 2), True)
    """
    as_instance(model, "model", str, "the name of a model")
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(
            f"X must be 2-D and y 1-D with as many rows, got shapes {X.shape} and {y.shape}"
        )
    n = y.size
    n2 = (
        int(round(0.2 * n))
        if test_rows is None
        else int(as_count(test_rows, "test_rows", minimum=1, scalar=True))
    )
    if n2 >= n:
        raise ValueError(
            f"test_rows must be smaller than the number of rows ({n}), got {show(test_rows)}"
        )
    n1 = n - n2
    ks = np.atleast_1d(as_count(batches, "batches", minimum=1))
    # every repetition fits a model: more than a million cannot finish
    reps = as_count(reps, "reps", minimum=1, maximum=1_000_000, scalar=True)
    factory = model if callable(model) else (lambda: make_model(model))
    if not callable(model):
        make_model(model)  # fail early on a bad name
    gen = _generator(seed)
    out = FittedSimulation(
        test_accuracy=np.empty(reps),
        train_accuracy=np.empty(reps),
        data_accuracy=np.empty(reps),
        a_hat=np.empty((reps, ks.size)),
        alpha_printed=np.empty((reps, ks.size)),
        alpha_intended=np.empty((reps, ks.size)),
        batches=ks,
        rows=n,
        train_rows=n1,
        test_rows=n2,
    )
    for r in range(reps):  # one model fit per repetition; the batch draws are vectorised
        order = gen.permutation(n)
        train, test = order[:n1], order[n1:]
        est = factory().fit(X[train], y[train])
        correct = est.predict(X) == y
        p = correct.mean()
        out.test_accuracy[r] = correct[test].mean()
        out.train_accuracy[r] = correct[train].mean()
        out.data_accuracy[r] = p
        for i, k in enumerate(ks):
            a_hat = batch_accuracy(correct, n2, int(k), seed=gen)
            out.a_hat[r, i] = a_hat
            out.alpha_printed[r, i] = corrected_alpha(a_hat, p, k, method="printed")
            out.alpha_intended[r, i] = corrected_alpha(a_hat, p, k, method="intended")
    return out


@dataclass(frozen=True)
class EstimatorSummary(Result):
    """One row of :func:`summarise_fitted`."""

    estimator: str
    batches: int
    mean: float
    theory_mean: float
    bias: float
    sd: float
    rmse: float


def summarise_fitted(sim: FittedSimulation) -> list[EstimatorSummary]:
    """Bias, spread and root-mean-square error of each estimator against the true test accuracy.

    For every ``k`` and each estimator (``a_hat``, ``alpha_printed``,
    ``alpha_intended``) of a :func:`simulate_fitted` result, and for the
    whole-data accuracy ``p`` and the identity with training accuracy assumed
    to be 1 (``(N p - N1)/N2``, clipped to [0, 1]), returns one
    :class:`EstimatorSummary` with
    ``estimator``, ``batches`` (0 for estimators that use no batches),
    ``mean`` (of the estimator), ``bias`` (mean of estimator minus ``a``),
    ``sd`` and ``rmse``, plus ``theory_mean``: the expectation from
    :func:`~heldout.accuracy.lost.estimator_moments` averaged over the repetitions.

    Examples
    --------
    >>> X, y = example_data('breast_cancer')
    >>> sim = simulate_fitted(X, y, 'tree', batches=(10,), reps=2, seed=1)
    >>> [row.estimator for row in summarise_fitted(sim)]
    ['a_hat', 'alpha_printed', 'alpha_intended', 'p', 'identity_t=1']
    """
    if not isinstance(sim, FittedSimulation):
        raise ValueError(f"sim must be the result of simulate_fitted, got {show(sim)}")
    a = np.asarray(sim.test_accuracy)
    p = np.asarray(sim.data_accuracy)
    n, n1, n2 = sim.rows, sim.train_rows, sim.test_rows
    records = []

    def record(name, k, values, theory):
        err = values - a
        records.append(
            EstimatorSummary(
                estimator=name,
                batches=int(k),
                mean=float(values.mean()),
                theory_mean=float(np.mean(theory)),
                bias=float(err.mean()),
                sd=float(values.std(ddof=1)) if values.size > 1 else 0.0,
                rmse=float(np.sqrt(np.mean(err**2))),
            )
        )

    for i, k in enumerate(sim.batches):
        mom = estimator_moments(p, n, n2, int(k))
        record("a_hat", k, sim.a_hat[:, i], mom.a_hat_mean)
        record("alpha_printed", k, sim.alpha_printed[:, i], mom.alpha_printed_mean)
        record("alpha_intended", k, sim.alpha_intended[:, i], mom.alpha_intended_mean)
    record("p", 0, p, p)
    memoriser = np.clip((n * p - n1) / n2, 0.0, 1.0)
    record("identity_t=1", 0, memoriser, memoriser)
    return records
