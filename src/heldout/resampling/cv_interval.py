r"""An interval for prediction error from cross-validation: naive and nested.

Cross-validation gives a point estimate of prediction error.  What it
estimates, and how sure it is, is less obvious (:cite:`bates2023`):

* ``Err_XY``, the error of the model fitted on *this* data set (the model one
  ships), is what a practitioner wants;
* ``Err = E[Err_XY]``, the average of that error over training sets of the same
  size drawn from the same population, is what cross-validation estimates
  best: its estimate is nearly uncorrelated with ``Err_XY``.

:func:`naive_cv_interval` is the interval most software suggests: the mean of
the ``n`` per-row cross-validated losses plus or minus a normal quantile times
their standard deviation over ``sqrt(n)``.  It treats the ``n`` losses as
independent; they are not (each row is used to train the models that score the
others), and the interval covers neither ``Err_XY`` nor ``Err`` at its nominal
rate.

:func:`nested_cv_interval` is the nested cross-validation interval of
Bates, Hastie and Tibshirani (:cite:`bates2023`): an inner cross-validation
inside each outer training part estimates the mean squared error of the
cross-validation estimate *as an estimate of* ``Err_XY``, and the interval is
widened to match; a bias correction moves its centre from training size
``n (K - 2)/K`` towards ``n``.

:func:`simulate_coverage` checks both by simulation on
:class:`heldout.resampling.cv_simulation.TwoViews` (view A), where every fitted model's
true error is measured on a large fresh sample.

The learner is a scikit-learn estimator (imported inside the functions).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from heldout._checks import as_probability, check_work, in_choices, show
from heldout._result import Result, extra
from heldout.config import rng as make_rng
from heldout.resampling.cv_scores import (
    _check_xy,
    number,
    predict_splits,
    single_thread,
    splits,
    whole,
)

__all__ = [
    "CVInterval",
    "CoverageSimulation",
    "naive_cv_interval",
    "nested_cv_interval",
    "simulate_coverage",
]

_LOSSES = ("zero_one", "squared")


@dataclass(frozen=True)
class CVInterval(Result):
    """An interval for prediction error from cross-validation.

    Unpacks as ``low, high``.

    Attributes
    ----------
    low, high : float
        The interval's ends (for 0-1 loss, error rates; not clipped to [0, 1]).
    estimate : float
        Its centre: the cross-validation estimate (naive), or the bias-corrected
        nested estimate ``Err_NCV - bias`` (nested).
    se : float
        The standard error the half-width is a normal quantile times.
    method : str
        ``"naive"`` or ``"nested"``.
    alpha : float
        The interval has confidence ``1 - alpha``.
    err_cv : float
        The plain cross-validation estimate (mean of the per-row losses).
    err_ncv, bias, mse : float or None
        Nested only: the inner (nested) estimate, the bias correction and the
        raw estimate of the mean squared error of the cross-validation estimate.
    fold_scores : numpy.ndarray
        Naive only: the mean loss on each of the ``k`` folds (what tutorials
        print as "mean ± std").
    """

    low: float
    high: float
    estimate: float = extra(0.0)
    se: float = extra(0.0)
    method: str = extra("")
    alpha: float = extra(0.05)
    err_cv: float = extra(0.0)
    err_ncv: float | None = extra()
    bias: float | None = extra()
    mse: float | None = extra()
    fold_scores: np.ndarray | None = extra()


def _loss_function(loss) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    if callable(loss):
        return loss
    if loss == "zero_one":
        return lambda pred, truth: (pred != truth).astype(float)
    if loss == "squared":
        return lambda pred, truth: (np.asarray(pred, float) - np.asarray(truth, float)) ** 2
    raise ValueError(
        f"loss must be one of {_LOSSES} or a function (pred, truth) -> losses, got {show(loss)}"
    )


def _common(X, y, k, alpha, n_min_per_fold=2):
    Xa, ya = _check_xy(X, y)
    k = whole(k, "k", minimum=2)
    alpha = float(as_probability(number(alpha, "alpha"), "alpha"))
    if len(ya) < n_min_per_fold * k:
        raise ValueError(f"k={k} folds need at least {n_min_per_fold * k} rows, got {len(ya)}")
    return Xa, ya, k, alpha


def _normal_interval(estimate: float, se: float, alpha: float, **fields) -> CVInterval:
    """``estimate -/+ z_{1 - alpha/2} se`` as a :class:`CVInterval`."""
    z = float(stats.norm.isf(alpha / 2))
    return CVInterval(
        estimate - z * se, estimate + z * se, estimate=estimate, se=se, alpha=alpha, **fields
    )


def naive_cv_interval(
    estimator, X, y, *, k: int = 10, alpha: float = 0.05, loss="zero_one", seed=None
) -> CVInterval:
    r"""The naive cross-validation interval for prediction error.

    One ``k``-fold cross-validation gives a loss ``e_i`` for every row (from
    the model not trained on it).  With ``\bar e`` their mean and ``s`` their
    standard deviation,

    .. math::

        \bar e \pm z_{1 - \alpha/2} \, s / \sqrt{n}.

    The formula would be right for ``n`` independent test rows scored by one
    fixed model.  Cross-validated losses are neither, and the interval covers
    neither the error of the fitted model nor the average error at its
    nominal rate (:cite:`bates2023`; :func:`simulate_coverage` measures it).

    Parameters
    ----------
    estimator
        A scikit-learn estimator (cloned for every fit).
    X, y
        The data.
    k
        Number of folds.
    alpha
        The interval has confidence ``1 - alpha``.
    loss
        ``"zero_one"`` (classification error, default), ``"squared"``, or a
        function ``(predictions, truth) -> per-row losses``.
    seed
        Seed or Generator for the folds.

    Returns
    -------
    CVInterval
        ``fold_scores`` holds the ``k`` per-fold mean losses.

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from heldout.resampling.cv_simulation import TwoViews
    >>> X, y = TwoViews().sample(200, seed=1)
    >>> ci = naive_cv_interval(KNeighborsClassifier(1), X[:, :5], y, k=10, seed=2)
    >>> round(ci.estimate, 3), round(ci.high - ci.low, 3)
    (0.34, 0.132)
    """
    Xa, ya, k, alpha = _common(X, y, k, alpha)
    lossf = _loss_function(loss)
    parts = splits(len(ya), "kfold", k=k, seed=make_rng(seed))
    with single_thread():
        preds, _ = predict_splits(estimator, Xa, ya, parts)
    per_fold = [
        np.asarray(lossf(p, ya[te]), dtype=float) for p, (_, te) in zip(preds, parts, strict=True)
    ]
    e = np.concatenate(per_fold)
    n = e.size
    est = float(e.mean())
    se = float(e.std(ddof=1) / np.sqrt(n))
    return _normal_interval(
        est,
        se,
        alpha,
        method="naive",
        err_cv=est,
        fold_scores=np.array([f.mean() for f in per_fold]),
    )


def _nested_parts(n, k, reps, gen):
    """Each repetition's random folds, the outer folds' pairs, and every (fit, score) index
    pair of nested cross-validation: per repetition, the fits without two folds (scored on
    both), then the fits without one (scored on it)."""
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    folds_by_rep, parts = [], []
    for _ in range(reps):
        folds = [te for _, te in splits(n, "kfold", k=k, seed=gen)]
        folds_by_rep.append(folds)
        for i, j in pairs:
            keep = np.ones(n, dtype=bool)
            keep[folds[i]] = keep[folds[j]] = False
            parts.append((np.flatnonzero(keep), np.concatenate([folds[i], folds[j]])))
        for i in range(k):
            keep = np.ones(n, dtype=bool)
            keep[folds[i]] = False
            parts.append((np.flatnonzero(keep), folds[i]))
    return folds_by_rep, pairs, parts


def _nested_losses(preds, folds_by_rep, pairs, ya, lossf):
    """Per outer fold, Bates et al.'s ``a_j`` and ``b_j``, and all inner and outer losses."""
    k = len(folds_by_rep[0])
    per_rep = len(pairs) + k
    a_list, b_list, e_in_all, e_out_all = [], [], [], []
    for r, folds in enumerate(folds_by_rep):
        block = preds[r * per_rep : (r + 1) * per_rep]
        # inner[(i, j)]: losses on fold j of the model fitted without folds i and j
        inner: dict[tuple[int, int], np.ndarray] = {}
        for (i, j), pred in zip(pairs, block, strict=False):
            losses = np.asarray(lossf(pred, ya[np.concatenate([folds[i], folds[j]])]), dtype=float)
            inner[(j, i)] = losses[: len(folds[i])]  # scored on fold i, outer fold j
            inner[(i, j)] = losses[len(folds[i]) :]  # scored on fold j, outer fold i
        for i in range(k):
            e_out = np.asarray(lossf(block[len(pairs) + i], ya[folds[i]]), dtype=float)
            e_in = np.concatenate([inner[(i, j)] for j in range(k) if j != i])
            a_list.append((e_in.mean() - e_out.mean()) ** 2)
            b_list.append(e_out.var(ddof=1) / e_out.size)
            e_in_all.append(e_in)
            e_out_all.append(e_out)
    return a_list, b_list, np.concatenate(e_in_all), np.concatenate(e_out_all)


def nested_cv_interval(
    estimator,
    X,
    y,
    *,
    k: int = 10,
    reps: int = 20,
    alpha: float = 0.05,
    loss="zero_one",
    seed=None,
) -> CVInterval:
    r"""The nested cross-validation interval of Bates, Hastie and Tibshirani.

    Repeated ``reps`` times with a fresh random partition into ``k`` folds
    ``I_1, ..., I_k`` (:cite:`bates2023`, their Algorithm 1 and Section 4):

    * for each outer fold ``I_j``: ``e_out`` are the losses on ``I_j`` of the
      model fitted on the other ``k - 1`` folds; ``e_in`` are the losses of an
      inner cross-validation on those ``k - 1`` folds (each inner fold scored by
      the model fitted on the remaining ``k - 2``); record
      ``a_j = (\bar e_{in} - \bar e_{out})^2`` and
      ``b_j = \widehat{\mathrm{var}}(e_{out}) / |I_j|``;
    * ``\widehat{\mathrm{MSE}} = \bar a - \bar b`` estimates the mean squared
      error of the cross-validation estimate about the error of the model in
      hand; ``\widehat{\mathrm{Err}}_{NCV}`` is the mean of all ``e_in``, and
      ``\widehat{\mathrm{Err}}_{CV}`` the mean of all ``e_out`` (an ordinary
      repeated ``k``-fold cross-validation).

    The interval is

    .. math::

        \widehat{\mathrm{Err}}_{NCV} - \widehat{\mathrm{bias}}
        \pm z_{1-\alpha/2} \sqrt{\tfrac{k-1}{k}\,\widehat{\mathrm{MSE}}},
        \qquad
        \widehat{\mathrm{bias}} = \left(1 + \tfrac{k-2}{k}\right)
        \left(\widehat{\mathrm{Err}}_{NCV} - \widehat{\mathrm{Err}}_{CV}\right),

    with the standard error kept between the naive one, ``s/\sqrt n``, and
    ``\sqrt k`` times it, as the authors recommend.  Each repetition costs
    ``k (k - 1)/2 + k`` fits (a model fitted without folds ``i`` and ``j``
    serves both as inner model for outer fold ``i`` and for outer fold ``j``).

    Parameters
    ----------
    estimator, X, y
        As in :func:`naive_cv_interval`: a scikit-learn estimator (cloned for every fit)
        and the data.
    k
        Number of folds (at least 3).
    reps
        Repetitions with fresh random folds (the authors use dozens to hundreds;
        the estimate of the mean squared error is noisy with few).
    alpha
        The interval has confidence ``1 - alpha``.
    loss
        ``"zero_one"`` (default), ``"squared"``, or a function ``(predictions, truth) -> losses``.
    seed
        Seed or Generator for the folds.

    Returns
    -------
    CVInterval

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from heldout.resampling.cv_simulation import TwoViews
    >>> X, y = TwoViews().sample(200, seed=1)
    >>> ci = nested_cv_interval(KNeighborsClassifier(1), X[:, :5], y, k=5, reps=10, seed=2)
    >>> ci.method, ci.low < ci.estimate < ci.high
    ('nested', True)
    """
    Xa, ya, k, alpha = _common(X, y, k, alpha)
    if k < 3:
        raise ValueError(f"k must be at least 3 for nested cross-validation, got {k}")
    reps = whole(reps, "reps", minimum=1)
    check_work(reps, 100_000, "reps (repeated cross-validations)")
    lossf = _loss_function(loss)
    gen = make_rng(seed)
    n = len(ya)
    folds_by_rep, pairs, parts = _nested_parts(n, k, reps, gen)
    with single_thread():
        preds, _ = predict_splits(estimator, Xa, ya, parts)  # one call: fast paths share work
    a_list, b_list, e_in, e_out = _nested_losses(preds, folds_by_rep, pairs, ya, lossf)
    err_ncv = float(e_in.mean())
    err_cv = float(e_out.mean())
    mse = float(np.mean(a_list) - np.mean(b_list))
    se_naive = float(e_out.std(ddof=1) / np.sqrt(n))
    se = float(np.sqrt(max(mse, 0.0) * (k - 1) / k))
    se = min(max(se, se_naive), np.sqrt(k) * se_naive)
    bias = (1.0 + (k - 2) / k) * (err_ncv - err_cv)
    return _normal_interval(
        err_ncv - bias,
        se,
        alpha,
        method="nested",
        err_cv=err_cv,
        err_ncv=err_ncv,
        bias=bias,
        mse=mse,
    )


@dataclass(frozen=True)
class CoverageSimulation(Result):
    """Coverage of the naive and nested intervals over simulated data sets.

    Unpacks as ``coverage, se``: dicts keyed ``(method, target)`` with
    ``method`` in ``("naive", "nested")`` and ``target`` in ``("Err_XY", "Err")``
    giving the share of data sets whose interval contained the target, and its
    Monte Carlo standard error.  Per data set: ``err_xy`` (true error of the
    model fitted on all ``n`` rows), the intervals (``naive``, ``nested``: arrays
    of shape ``(reps, 2)``), the naive cross-validation estimate ``err_cv`` and
    the per-fold scores ``fold_scores`` (``(reps, k)``).  ``err`` is the average
    of ``err_xy`` over the data sets, the stand-in for ``Err``.
    """

    coverage: dict
    se: dict
    err_xy: np.ndarray = extra(None)
    err: float = extra(0.0)
    err_cv: np.ndarray = extra(None)
    naive: np.ndarray = extra(None)
    nested: np.ndarray = extra(None)
    fold_scores: np.ndarray = extra(None)
    alpha: float = extra(0.1)
    reps: int = extra(0)


def simulate_coverage(
    problem,
    estimator,
    *,
    n: int = 300,
    reps: int = 200,
    k: int = 10,
    nested_k: int = 5,
    nested_reps: int = 10,
    alpha: float = 0.1,
    eval_rows: int = 10_000,
    view: str = "a",
    seed=None,
) -> CoverageSimulation:
    """Coverage of :func:`naive_cv_interval` and :func:`nested_cv_interval` by simulation.

    For each of ``reps`` data sets of ``n`` rows from ``problem`` (a
    :class:`heldout.resampling.cv_simulation.TwoViews`, learner on one ``view``): the
    naive interval from ``k``-fold cross-validation, the nested interval with
    ``nested_k`` folds and ``nested_reps`` repetitions, and ``Err_XY``, the
    error of the model fitted on all ``n`` rows measured on ``eval_rows`` fresh
    rows.  ``Err`` is estimated by the mean of ``Err_XY`` over the data sets
    (its Monte Carlo error, ``sd(Err_XY)/sqrt(reps)``, is small against the
    intervals' widths).

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from heldout.resampling.cv_simulation import TwoViews
    >>> sim = simulate_coverage(TwoViews(), KNeighborsClassifier(1), n=60, reps=3,
    ...                         nested_reps=2, eval_rows=500, seed=1)
    >>> sorted(sim.coverage)[:2]
    [('naive', 'Err'), ('naive', 'Err_XY')]
    """
    from heldout.resampling.cv_simulation import TwoViews

    if not isinstance(problem, TwoViews):
        raise ValueError(f"problem must be a TwoViews instance, got {type(problem).__name__}")
    if not in_choices(view, ("a", "b")):
        raise ValueError(f"view must be 'a' or 'b', got {show(view)}")
    n = whole(n, "n", minimum=10)
    reps = whole(reps, "reps", minimum=2)
    eval_rows = whole(eval_rows, "eval_rows", minimum=1)
    if whole(k, "k", minimum=2) > n:
        raise ValueError(f"k must be at most n ({n:,} rows), got {show(k)}")
    if whole(nested_k, "nested_k", minimum=2) > n:
        raise ValueError(f"nested_k must be at most n ({n:,} rows), got {show(nested_k)}")
    nested_reps = whole(nested_reps, "nested_reps", minimum=1)
    check_work(n, 10**7, "n (rows per data set)")
    check_work(eval_rows, 10**7, "eval_rows (fresh rows per data set)")
    check_work(reps * max(n, eval_rows), 10**9, "reps times rows")
    check_work(reps * nested_reps * n, 10**9, "reps times nested_reps times n")
    alpha = float(as_probability(number(alpha, "alpha"), "alpha"))
    gen = make_rng(seed)
    cols = problem.columns_a if view == "a" else problem.columns_b
    err_xy = np.empty(reps)
    err_cv = np.empty(reps)
    naive = np.empty((reps, 2))
    nested = np.empty((reps, 2))
    folds = np.empty((reps, k))
    with single_thread():  # entered once: the functions called below nest inside it
        for r in range(reps):
            X, y = problem.sample(n, seed=gen)
            X_new, y_new = problem.sample(eval_rows, seed=gen)
            X, X_new = X[:, cols], X_new[:, cols]
            _, (pred,) = predict_splits(estimator, X, y, [(np.arange(n), np.arange(0))], X_new)
            err_xy[r] = np.mean(pred != y_new)
            ci = naive_cv_interval(estimator, X, y, k=k, alpha=alpha, seed=gen)
            naive[r] = ci.low, ci.high
            err_cv[r] = ci.estimate
            folds[r] = ci.fold_scores
            ci = nested_cv_interval(
                estimator, X, y, k=nested_k, reps=nested_reps, alpha=alpha, seed=gen
            )
            nested[r] = ci.low, ci.high
    err = float(err_xy.mean())
    coverage, se = {}, {}
    for name, iv in (("naive", naive), ("nested", nested)):
        for target, value in (("Err_XY", err_xy), ("Err", err)):
            c = float(np.mean((iv[:, 0] <= value) & (value <= iv[:, 1])))
            coverage[(name, target)] = c
            se[(name, target)] = float(np.sqrt(c * (1 - c) / reps))
    return CoverageSimulation(
        coverage,
        se,
        err_xy=err_xy,
        err=err,
        err_cv=err_cv,
        naive=naive,
        nested=nested,
        fold_scores=folds,
        alpha=alpha,
        reps=reps,
    )
