"""What can be said about a model's test accuracy when the test set is lost.

The setting of :cite:`lost2017`: a data set of ``N`` rows was split into ``N1``
training rows and ``N2`` test rows, a model was trained on the first part, and
the record of which rows were which has been lost.  The model and all ``N``
labelled rows are still there, so the *whole-data accuracy* ``p`` (the share
of the ``N`` rows the model classifies correctly) can be computed.

The article's proposal, reproduced here
    :func:`batch_accuracy` draws ``k`` random batches of ``N2`` rows and returns
    their mean accuracy ``a_hat``; :func:`corrected_alpha` applies the article's
    correction ``alpha = (a_hat - p (1 - 1/k)) / k`` (and, with
    ``method="intended"``, the correction the article's algebra needed,
    ``k a_hat - (k - 1) p``).  :func:`article_expectation` is the article's claimed
    ``E[a_hat] = a/k + p (1 - 1/k)``, valid only if the real test set is one of
    the batches; :func:`prob_test_set_drawn` is the probability of that event and
    :func:`expectation_given_drawn` the exact expectation given it.
    :func:`estimator_moments` gives the estimators' true expectations and
    standard deviations: ``E[a_hat] = p`` for every ``k``, so ``E[alpha] = p/k^2``
    (printed form) or ``p`` (intended form), never the test accuracy ``a``.

What can be said correctly
    The identity ``N p = N1 (1 - eps1) + N2 (1 - eps2)`` (:func:`data_accuracy`),
    its solution for the test accuracy when the training accuracy is known or
    assumed (:func:`test_accuracy`), the range that holds whatever the training
    accuracy was (:func:`test_accuracy_bounds`), a confidence interval for the
    model's accuracy on new data that adds the sampling uncertainty of the
    ``N2`` test rows (:func:`test_accuracy_interval`), and the comparison with
    labelling fresh data (:func:`fresh_expected_width`,
    :func:`fresh_rows_for_width`).  :func:`interval_coverage` checks the
    interval's coverage exactly.

Simulation on fitted scikit-learn models
    in :mod:`heldout.accuracy.lost_fitted` (scikit-learn is imported inside its
    functions); here :func:`simulate_key_assumption` checks the key assumption on a
    tiny data set where it is not negligible.

Notation: ``rows = N``, ``train_rows = N1``, ``test_rows = N2``, ``batches = k``,
``data_accuracy = p``, ``train_accuracy = 1 - eps1``, ``test_accuracy = a =
1 - eps2`` (the score the lost test set would have given).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from heldout import _beta
from heldout._checks import (
    as_choice,
    as_count,
    as_counts,
    as_flag,
    as_positive,
    as_probability,
    broadcast,
    check_work,
    scalar_or_array,
    show,
)
from heldout._deprecate import level_to_alpha, moved, renamed
from heldout._result import Interval, Result

__all__ = [
    "article_expectation",
    "batch_accuracy",
    "batches_needed",
    "corrected_alpha",
    "data_accuracy",
    "estimator_moments",
    "expectation_given_drawn",
    "fresh_expected_width",
    "fresh_rows_for_width",
    "interval_coverage",
    "log10_subsets",
    "prob_test_set_drawn",
    "simulate_key_assumption",
    "test_accuracy",
    "test_accuracy_bounds",
    "test_accuracy_interval",
]

#: Return type of the vectorised functions: a Python float for scalar input, else an array.
Value = float | np.ndarray

#: Slack allowed for floating-point rounding when an accuracy computed from the
#: identity lands a hair outside [0, 1].
_TOL = 1e-9

#: Largest number of random keys drawn at once (memory guard for the batch draws).
_BUDGET = 2_000_000


# --------------------------------------------------------------------------- helpers
def _rows_and_test_rows(rows, test_rows):
    """Check ``N >= 1`` and ``1 <= N2 <= N``; return ``(N, N2)`` broadcast together."""
    as_count(test_rows, "test_rows", minimum=1)
    n2, n = as_counts(test_rows, rows, "test_rows", "rows")
    return n, n2


def _estimate_args(accuracy, name: str, data_accuracy, batches):
    """An accuracy called ``name`` and ``data_accuracy`` (both in ``[0, 1]``), and the
    number of batches ``k >= 1`` as floats: the arguments of the article's estimators."""
    a = as_probability(accuracy, name, closed=True)
    p = as_probability(data_accuracy, "data_accuracy", closed=True)
    return a, p, as_count(batches, "batches", minimum=1).astype(float)


def _sizes(train_rows, test_rows, rows=None):
    """Check ``N1 >= 0``, ``N2 >= 1`` and, if given, ``rows == N1 + N2``; return ``(N1, N2, N)``."""
    n1 = as_count(train_rows, "train_rows")
    n2 = as_count(test_rows, "test_rows", minimum=1)
    n1, n2 = broadcast(train_rows=n1, test_rows=n2)
    if np.any(n1 > np.iinfo(np.int64).max - n2):
        raise ValueError(
            f"train_rows + test_rows must be below 2**63, got train_rows={show(train_rows)} "
            f"and test_rows={show(test_rows)}"
        )
    n = n1 + n2
    if rows is not None:
        given = as_count(rows, "rows", minimum=1)
        if np.any(given != n):
            raise ValueError(
                f"rows must equal train_rows + test_rows (the split covers the whole data set), "
                f"got rows={show(rows)}, train_rows={show(train_rows)}, test_rows={show(test_rows)}"
            )
    return n1, n2, n


def _generator(seed=None) -> np.random.Generator:
    from heldout.config import rng as make_rng

    return make_rng(seed)


def _correct_vector(correct) -> np.ndarray:
    arr = as_count(correct, "correct")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"correct must be a non-empty 1-D array of 0/1 values, got shape {arr.shape}"
        )
    if np.any(arr > 1):
        raise ValueError("correct must hold only 0 (wrong) and 1 (right) values")
    return arr.astype(bool)


def _batch_masks(gen: np.random.Generator, rows: int, test_rows: int, shape: tuple) -> np.ndarray:
    """Boolean masks of shape ``shape + (rows,)``, each with ``test_rows`` True entries.

    Each mask is a uniformly random subset of size ``test_rows`` (sampling
    without replacement within a batch; batches independent): the rows whose
    uniform random keys are among the ``test_rows`` smallest.
    """
    keys = gen.random(shape + (rows,))
    if test_rows == rows:
        return np.ones(keys.shape, dtype=bool)
    cut = np.partition(keys, test_rows - 1, axis=-1)[..., test_rows - 1 : test_rows]
    return keys <= cut


def _blocks(total: int, per_item: int):
    """Split ``total`` repetitions into blocks of at most ``_BUDGET / per_item`` items."""
    size = max(1, _BUDGET // max(per_item, 1))
    start = 0
    while start < total:
        stop = min(total, start + size)
        yield start, stop
        start = stop


def _log_subsets(rows, test_rows) -> np.ndarray:
    """``ln C(N, N2)`` without differences of huge ``gammaln`` values (exact to ~1e-15 up to 2**63)."""
    n = np.asarray(rows, dtype=np.int64)
    n2 = np.asarray(test_rows, dtype=np.int64)
    # C(N, N2) = C(N, N - N2): use the smaller side, and form N - N2 in integers
    small = np.minimum(n2, n - n2).astype(float)
    return _beta.log_choose(n.astype(float), small)


# Largest number of random keys (or counts) one call may draw, and of terms one sum may hold.
_DRAW_LIMIT = 200_000_000
_SUM_LIMIT = 20_000_000
# Most counts fresh_expected_width sums per size.
_WIDTH_POINTS = 4096


# --------------------------------------------------------------------------- the article's estimator
_SEEDING = {"repetitions": "reps", "rng": "seed"}


@renamed(**_SEEDING)
def batch_accuracy(
    correct: ArrayLike,
    test_rows: int,
    batches: int,
    *,
    reps: int | None = None,
    method: str = "rows",
    seed=None,
) -> Value:
    """The article's estimator: mean accuracy over ``k`` random batches of ``N2`` rows.

    .. math:: \\hat a = \\frac{1}{k N_2} \\sum_{i=1}^{k} \\sum_{j=1}^{N_2} I\\big(y(x_{ij}) = f(x_{ij})\\big)

    (equation 1 of :cite:`lost2017`).  Each batch is a uniformly random set of
    ``N2`` distinct rows out of the ``N`` rows; the ``k`` batches are drawn
    independently of each other.

    Parameters
    ----------
    correct : array_like of 0/1, shape (N,)
        Whether the model classifies each of the ``N`` rows correctly.
    test_rows : int
        Batch size ``N2`` (the size of the lost test set), ``1 <= N2 <= N``.
    batches : int
        Number of batches ``k >= 1``.
    reps : int, optional
        Draw this many independent values of ``a_hat`` (returned as an array);
        by default one value (returned as a float).
    method : {"rows", "counts"}, default "rows"
        ``"rows"`` draws the batches row by row; ``"counts"`` draws only the
        number of correct rows in each batch, which is hypergeometric with
        parameters ``(N, N p, N2)``: the same distribution of ``a_hat``, much
        faster for large ``k``.
    seed : int, Generator or None
        Randomness, through :func:`heldout.config.rng` (default :data:`heldout.config.SEED`).

    Returns
    -------
    float or ndarray
        ``a_hat`` (one value, or ``reps`` values).

    Examples
    --------
    >>> correct = np.r_[np.ones(90), np.zeros(10)]
    >>> batch_accuracy(correct, test_rows=20, batches=5, seed=1)
    0.89
    >>> batch_accuracy(correct, 20, 5, reps=3, method='counts', seed=1)
    array([0.94, 0.91, 0.88])
    """
    c = _correct_vector(correct)
    n = c.size
    n2 = as_count(test_rows, "test_rows", minimum=1, scalar=True)
    if n2 > n:
        raise ValueError(f"test_rows must not exceed the number of rows ({n}), got {n2}")
    k = as_count(batches, "batches", minimum=1, scalar=True)
    single = reps is None
    reps = 1 if single else as_count(reps, "reps", minimum=1, scalar=True)
    as_choice(method, "method", ("rows", "counts"))
    per_draw = 1 if method == "counts" else n
    check_work(reps * k * per_draw, _DRAW_LIMIT, "reps times batches (times rows)")
    gen = _generator(seed)
    if method == "counts":
        n_good = int(c.sum())
        hits = gen.hypergeometric(n_good, n - n_good, n2, size=(reps, k))
        out = hits.sum(axis=1) / (k * n2)
    else:
        out = np.empty(reps)
        for lo, hi in _blocks(reps, k * n):
            masks = _batch_masks(gen, n, n2, (hi - lo, k))
            out[lo:hi] = (masks & c).sum(axis=(1, 2)) / (k * n2)
    return float(out[0]) if single else out


@renamed(form="method")
def corrected_alpha(
    a_hat: ArrayLike, data_accuracy: ArrayLike, batches: ArrayLike, *, method: str = "printed"
) -> Value:
    """The article's "corrected" estimator ``alpha``.

    ``method="printed"`` is equation 7 of :cite:`lost2017` as printed:

    .. math:: \\alpha = \\frac{1}{k}\\left(\\hat a - p\\left(1 - \\frac{1}{k}\\right)\\right)

    whose expectation under the article's own assumption is ``a / k^2``, not
    ``a`` (the article divides by ``k`` where it should multiply).
    ``method="intended"`` is the correction that would make the article's
    algebra right, :math:`k \\hat a - (k - 1) p`.  In reality (no assumption)
    :math:`E[\\hat a] = p`, so the two forms have expectations ``p / k^2`` and
    ``p``: see :func:`estimator_moments`.

    Parameters
    ----------
    a_hat : float or array_like
        Mean batch accuracy from :func:`batch_accuracy`, in ``[0, 1]``.
    data_accuracy : float or array_like
        Whole-data accuracy ``p`` in ``[0, 1]``.
    batches : int or array_like
        Number of batches ``k >= 1``.
    method : {"printed", "intended"}, default "printed"

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(corrected_alpha(0.9, 0.9, 10), 4), round(corrected_alpha(0.9, 0.9, 10, method='intended'), 4)
    (0.009, 0.9)
    """
    a, p, k = _estimate_args(a_hat, "a_hat", data_accuracy, batches)
    as_choice(method, "method", ("printed", "intended"))
    if method == "printed":
        out = (a - p * (1.0 - 1.0 / k)) / k
    else:
        out = k * a - (k - 1.0) * p
    return scalar_or_array(out)


def article_expectation(
    test_accuracy: ArrayLike, data_accuracy: ArrayLike, batches: ArrayLike
) -> Value:
    """The article's claimed expectation ``E[a_hat] = a/k + p (1 - 1/k)``.

    Equation 6 of :cite:`lost2017`.  It assumes that the first of the ``k``
    batches *is* the real test set and the other ``k - 1`` are random batches;
    that event has probability :func:`prob_test_set_drawn`, essentially zero.
    Unconditionally ``E[a_hat] = p``; given the event exactly, see
    :func:`expectation_given_drawn`.

    Examples
    --------
    >>> round(article_expectation(0.8, 0.9, 10), 4)
    0.89
    """
    a, p, k = _estimate_args(test_accuracy, "test_accuracy", data_accuracy, batches)
    return scalar_or_array(a / k + p * (1.0 - 1.0 / k))


@dataclass(frozen=True)
class Moments(Result):
    """Expectations and standard deviations of the article's estimators (:func:`estimator_moments`)."""

    a_hat_mean: Value
    a_hat_sd: Value
    alpha_printed_mean: Value
    alpha_printed_sd: Value
    alpha_intended_mean: Value
    alpha_intended_sd: Value


def estimator_moments(
    data_accuracy: ArrayLike, rows: ArrayLike, test_rows: ArrayLike, batches: ArrayLike
) -> Moments:
    """Exact expectation and standard deviation of ``a_hat`` and of both forms of ``alpha``.

    Given the model and the ``N`` rows (so the share ``p`` of correct rows is
    fixed), each batch's number of correct rows is hypergeometric, so a batch's
    accuracy has mean ``p`` and variance
    ``p (1 - p) / N2 * (N - N2) / (N - 1)`` (sampling without replacement, the
    finite-population correction).  The ``k`` batches are independent, hence

    .. math::
        E[\\hat a] = p, \\qquad
        \\operatorname{sd}(\\hat a) = \\sqrt{\\frac{p(1-p)}{k N_2}\\,\\frac{N - N_2}{N - 1}},

        E[\\alpha_{\\text{printed}}] = p / k^2, \\quad \\operatorname{sd} = \\operatorname{sd}(\\hat a)/k,

        E[\\alpha_{\\text{intended}}] = p, \\quad \\operatorname{sd} = k \\operatorname{sd}(\\hat a).

    None of these involves the test accuracy ``a``: the batches are drawn
    without knowing the split, so they cannot carry information about it
    (this corrects :cite:`lost2017`, which claims ``E[alpha] = a``).

    Parameters
    ----------
    data_accuracy : float or array_like
        ``p`` in ``[0, 1]``.
    rows, test_rows, batches : int or array_like
        ``N >= 1``, ``1 <= N2 <= N``, ``k >= 1``.

    Returns
    -------
    Moments
        ``a_hat_mean``, ``a_hat_sd``, ``alpha_printed_mean``,
        ``alpha_printed_sd``, ``alpha_intended_mean``, ``alpha_intended_sd``.

    Examples
    --------
    >>> mom = estimator_moments(0.9, 1000, 200, 100)
    >>> round(mom.a_hat_sd, 5), round(mom.alpha_printed_mean, 5)
    (0.0019, 9e-05)
    """
    p = as_probability(data_accuracy, "data_accuracy", closed=True)
    n, n2 = _rows_and_test_rows(rows, test_rows)
    k = as_count(batches, "batches", minimum=1).astype(float)
    fpc = np.where(n > 1, (n - n2) / np.maximum(n - 1, 1), 0.0)
    sd = np.sqrt(p * (1.0 - p) / (k * n2) * fpc)
    return Moments(
        a_hat_mean=scalar_or_array(p + 0.0 * sd),
        a_hat_sd=scalar_or_array(sd),
        alpha_printed_mean=scalar_or_array(p / k**2 + 0.0 * sd),
        alpha_printed_sd=scalar_or_array(sd / k),
        alpha_intended_mean=scalar_or_array(p + 0.0 * sd),
        alpha_intended_sd=scalar_or_array(k * sd),
    )


# --------------------------------------------------------------------------- the key assumption
def log10_subsets(rows: ArrayLike, test_rows: ArrayLike) -> Value:
    """``log10 C(N, N2)``: the number of possible test sets, in decimal digits.

    ``ln C(N, N2) = -ln(N + 1) - ln B(N - N2 + 1, N2 + 1)`` with SciPy's ``betaln``,
    which uses asymptotic expansions for large arguments instead of a difference of
    huge ``gammaln`` values: relative accuracy about ``1e-15`` for every ``N`` below
    ``2**63`` (the ``gammaln`` difference lost every digit at ``N = 1e18``).

    Examples
    --------
    >>> round(log10_subsets(10**18, 1), 12)  # C(1e18, 1) = 1e18
    18.0
    >>> round(log10_subsets(50, 10), 4)
    10.0117
    """
    n, n2 = _rows_and_test_rows(rows, test_rows)
    return scalar_or_array(_log_subsets(n, n2) / np.log(10.0))


def prob_test_set_drawn(rows: ArrayLike, test_rows: ArrayLike, batches: ArrayLike) -> Value:
    """Probability that the real test set is one of ``k`` random batches.

    Each batch is one of the ``C(N, N2)`` subsets of size ``N2``, uniformly,
    independently of the others, so

    .. math:: P(\\text{drawn}) = 1 - \\left(1 - 1/\\binom{N}{N_2}\\right)^k \\le k / \\binom{N}{N_2}.

    This is the assumption under which :cite:`lost2017` derives its formulas.
    Computed as ``-expm1(k log1p(-1/C))``; it underflows to 0 when
    ``C(N, N2)`` exceeds about ``1e308`` (use :func:`log10_subsets` then:
    the probability is at most ``k / C``).

    Parameters
    ----------
    rows, test_rows, batches : int or array_like
        ``N >= 1``, ``1 <= N2 <= N``, ``k >= 1``.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(prob_test_set_drawn(10, 3, 120), 4)  # 120 batches, 120 possible test sets
    0.6337
    """
    n, n2 = _rows_and_test_rows(rows, test_rows)
    k = as_count(batches, "batches", minimum=1).astype(float)
    n, n2, k = broadcast(rows=n, test_rows=n2, batches=k)
    x = np.exp(-_log_subsets(n, n2))
    x = np.where(n2 == n, 1.0, x)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x >= 1.0, 1.0, -np.expm1(k * np.log1p(-np.minimum(x, 0.5))))
    return scalar_or_array(np.clip(out, 0.0, 1.0))


def batches_needed(
    rows: ArrayLike, test_rows: ArrayLike, probability: ArrayLike = 0.5, *, log10: bool = False
) -> Value:
    """Smallest ``k`` with :func:`prob_test_set_drawn` at least ``probability``.

    .. math:: k = \\left\\lceil \\frac{\\ln(1 - q)}{\\ln(1 - 1/\\binom{N}{N_2})} \\right\\rceil
              \\approx \\binom{N}{N_2} \\ln\\frac{1}{1 - q}

    With ``log10=True`` returns ``log10 k`` (without the ceiling), which stays
    finite when ``k`` is far beyond the floating-point range.

    Parameters
    ----------
    rows, test_rows : int or array_like
    probability : float, default 0.5
        Target probability ``q`` in ``(0, 1)``.
    log10 : bool, default False

    Returns
    -------
    float or ndarray
        ``k`` (a whole number; exact where it is below ``2**53``, else to 16 digits), or
        ``log10 k``.

    Raises
    ------
    ValueError
        If ``k`` is ``2**63`` or more and ``log10`` is False (ask for ``log10=True``).

    Examples
    --------
    >>> batches_needed(10, 3)
    83.0
    >>> f"{batches_needed(10**18, 1):.12e}"  # ln 2 / -ln(1 - 1e-18)
    '6.931471805599e+17'
    """
    n, n2 = _rows_and_test_rows(rows, test_rows)
    q = as_probability(probability, "probability")
    log10 = as_flag(log10, "log10")
    n, n2, q = broadcast(rows=n, test_rows=n2, probability=q)
    log_c = _log_subsets(n, n2)
    x = np.exp(-log_c)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # ln k = ln(-ln(1-q)) - ln(-ln(1-x)), with -ln(1-x) = -log1p(-x) accurate for every
        # x; where x underflows (C > 1e308), -ln(1-x) = x to within a relative 1e-308.
        inner = np.where(x > 0.0, np.log(-np.log1p(-np.minimum(x, 1.0))), -log_c)
        log_k = np.log(-np.log1p(-q)) - inner
        log_k = np.where(n2 == n, 0.0, np.maximum(log_k, 0.0))
        if log10:
            return scalar_or_array(log_k / np.log(10.0))
        k = np.exp(log_k)
        k = np.maximum(np.ceil(k * (1 - 1e-15)), 1.0)
    if np.any(~(k < 2.0**63)):
        raise ValueError(
            f"the number of batches exceeds 2**63 - 1 for rows={show(rows)} and "
            f"test_rows={show(test_rows)} (it would be about "
            f"10^{float(np.max(log_k)) / np.log(10.0):.4g}); pass log10=True for log10 k"
        )
    return scalar_or_array(k)


def expectation_given_drawn(
    test_accuracy: ArrayLike,
    data_accuracy: ArrayLike,
    rows: ArrayLike,
    test_rows: ArrayLike,
    batches: ArrayLike,
) -> Value:
    """Exact ``E[a_hat | the real test set is among the k batches]``.

    Let ``J ~ Binomial(k, 1/C)`` count the batches equal to the test set
    (``C = C(N, N2)``).  A batch that is not the test set is uniform over the
    other ``C - 1`` subsets, whose mean accuracy is ``q = (C p - a)/(C - 1)``
    (all ``C`` subsets average to ``p``).  Hence

    .. math:: E[\\hat a \\mid J \\ge 1] = \\frac{m a + (k - m) q}{k},\\qquad
              m = E[J \\mid J \\ge 1] = \\frac{k/C}{1 - (1 - 1/C)^k}.

    The article's :func:`article_expectation` is this with ``m = 1`` and
    ``q = p``; the two agree when ``C`` is large and ``k`` much smaller than
    ``C``, and differ on small data sets.

    Parameters
    ----------
    test_accuracy, data_accuracy : float or array_like
        ``a`` and ``p``, in ``[0, 1]``.
    rows, test_rows, batches : int or array_like
        ``N``, ``N2``, ``k``.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(expectation_given_drawn(0.8, 0.9, 10, 3, 120), 4)
    0.8995
    """
    a, p, k = _estimate_args(test_accuracy, "test_accuracy", data_accuracy, batches)
    n, n2 = _rows_and_test_rows(rows, test_rows)
    x = np.where(n2 == n, 1.0, np.exp(-_log_subsets(n, n2)))
    with np.errstate(divide="ignore", invalid="ignore"):
        prob = -np.expm1(k * np.log1p(-np.minimum(x, 0.5)))
        m = np.where(x > 0, k * x / np.where(prob > 0, prob, 1.0), 1.0)
        q = p + (p - a) * x / np.where(x < 1, 1.0 - x, 1.0)
        out = (m * a + (k - m) * q) / k
    out = np.where(x >= 1.0, a, out)
    return scalar_or_array(out)


@dataclass(frozen=True)
class KeyAssumption(Result):
    """Runs of the article's procedure and the exact references (:func:`simulate_key_assumption`)."""

    a_hat: np.ndarray
    drawn: np.ndarray
    copies: np.ndarray
    prob_drawn: float
    test_accuracy: float
    data_accuracy: float
    expectation_given_drawn: float
    article_expectation: float


@renamed(**_SEEDING)
def simulate_key_assumption(
    correct: ArrayLike,
    test_mask: ArrayLike,
    batches: int,
    reps: int,
    *,
    seed=None,
) -> KeyAssumption:
    """Simulate the article's procedure and record whether the real test set was drawn.

    Draws ``reps`` independent runs of ``k`` random batches of ``N2``
    rows (``N2`` = number of True entries of ``test_mask``) and returns, for
    each run, ``a_hat`` and whether some batch equals the real test set.  Use
    it on a tiny data set (say ``N = 10``, ``N2 = 3``: ``C = 120`` possible
    test sets) where the event is not negligible.

    Parameters
    ----------
    correct : array_like of 0/1, shape (N,)
        Correctness of the model on each row.
    test_mask : array_like of bool, shape (N,)
        Which rows form the real test set.
    batches, reps : int
    seed : int, Generator or None
        Randomness, through :func:`heldout.config.rng`.

    Returns
    -------
    KeyAssumption
        ``a_hat`` (reps,), ``drawn`` (reps,) bool, ``copies``
        (number of batches equal to the test set), and the exact references
        ``prob_drawn``, ``test_accuracy`` ``a``, ``data_accuracy`` ``p``,
        ``expectation_given_drawn``, ``article_expectation``.

    Examples
    --------
    >>> correct = np.array([1, 1, 1, 1, 1, 1, 1, 0, 0, 0])
    >>> res = simulate_key_assumption(correct, np.arange(10) < 3, batches=120, reps=200, seed=1)
    >>> round(res.prob_drawn, 4), round(float(res.drawn.mean()), 2)
    (0.6337, 0.69)
    """
    c = _correct_vector(correct)
    try:
        t = np.asarray(test_mask)
    except (TypeError, ValueError, OverflowError):
        t = np.asarray(None)
    if t.shape != c.shape or t.dtype != bool:
        raise ValueError(
            f"test_mask must be a boolean array of the same shape as correct {c.shape}"
        )
    n, n2 = c.size, int(t.sum())
    if n2 == 0:
        raise ValueError("test_mask must mark at least one row")
    k = as_count(batches, "batches", minimum=1, scalar=True)
    reps = as_count(reps, "reps", minimum=1, scalar=True)
    check_work(reps * k * n, _DRAW_LIMIT, "reps times batches times rows")
    gen = _generator(seed)
    a_hat = np.empty(reps)
    copies = np.empty(reps, dtype=np.int64)
    for lo, hi in _blocks(reps, k * n):
        masks = _batch_masks(gen, n, n2, (hi - lo, k))
        a_hat[lo:hi] = (masks & c).sum(axis=(1, 2)) / (k * n2)
        copies[lo:hi] = np.all(masks == t, axis=-1).sum(axis=1)
    a, p = float(c[t].mean()), float(c.mean())
    return KeyAssumption(
        a_hat=a_hat,
        drawn=copies > 0,
        copies=copies,
        prob_drawn=prob_test_set_drawn(n, n2, k),
        test_accuracy=a,
        data_accuracy=p,
        expectation_given_drawn=expectation_given_drawn(a, p, n, n2, k),
        article_expectation=article_expectation(a, p, k),
    )


# --------------------------------------------------------------------------- what can be said
def data_accuracy(
    train_accuracy: ArrayLike, test_accuracy: ArrayLike, train_rows: ArrayLike, test_rows: ArrayLike
) -> Value:
    """The identity linking the three accuracies.

    .. math:: N p = N_1 (1 - \\varepsilon_1) + N_2 (1 - \\varepsilon_2)

    (equation 4 of :cite:`lost2017`, multiplied by ``N = N1 + N2``): the
    whole-data accuracy is the size-weighted mean of the training accuracy
    ``1 - eps1`` and the test accuracy ``1 - eps2``.  It is an identity about
    counts, not an expectation: it holds exactly for every model and split.

    Returns
    -------
    float or ndarray
        ``p = (N1 t + N2 a) / N``.

    Examples
    --------
    >>> round(data_accuracy(1.0, 0.75, 800, 200), 4)
    0.95
    """
    t = as_probability(train_accuracy, "train_accuracy", closed=True)
    a = as_probability(test_accuracy, "test_accuracy", closed=True)
    n1, n2, n = _sizes(train_rows, test_rows)
    return scalar_or_array((n1 * t + n2 * a) / n)


def test_accuracy(
    data_accuracy: ArrayLike,
    train_accuracy: ArrayLike,
    train_rows: ArrayLike,
    test_rows: ArrayLike,
    *,
    rows: ArrayLike | None = None,
) -> Value:
    """Test accuracy from the whole-data accuracy and a known or assumed training accuracy.

    Solving the identity (:func:`data_accuracy`) for the test accuracy:

    .. math:: a = 1 - \\varepsilon_2 = \\frac{N p - N_1 (1 - \\varepsilon_1)}{N_2}.

    With a model that memorises its training set (1-nearest-neighbour, an
    unpruned tree on data without duplicated inputs) ``1 - eps1 = 1`` and the
    lost test score is recovered exactly: ``a = (N p - N1) / N2``.  An error of
    ``d`` in the assumed training accuracy moves ``a`` by ``d N1 / N2``.

    Parameters
    ----------
    data_accuracy : float or array_like
        ``p``, the accuracy on all ``N`` rows, in ``[0, 1]``.
    train_accuracy : float or array_like
        ``1 - eps1``, in ``[0, 1]``.
    train_rows, test_rows : int or array_like
        ``N1 >= 0`` and ``N2 >= 1``.
    rows : int, optional
        ``N``; if given it must equal ``N1 + N2``.

    Returns
    -------
    float or ndarray
        The test accuracy ``a``.

    Raises
    ------
    ValueError
        If the result falls outside ``[0, 1]``: then ``train_accuracy`` cannot
        be the training accuracy of a model with this ``data_accuracy``.

    Examples
    --------
    >>> round(test_accuracy(0.95, 1.0, 800, 200), 4)
    0.75
    >>> round(test_accuracy(0.95, 0.99, 800, 200), 4)  # 0.01 too low a guess: 0.04 too high
    0.79
    """
    p = as_probability(data_accuracy, "data_accuracy", closed=True)
    t = as_probability(train_accuracy, "train_accuracy", closed=True)
    n1, n2, n = _sizes(train_rows, test_rows, rows)
    a = (n * p - n1 * t) / n2
    bad = (a < -_TOL) | (a > 1 + _TOL)
    if np.any(bad):
        i = np.flatnonzero(np.ravel(bad))[0]
        where = "" if np.ndim(a) == 0 else f" (first at flat index {i})"
        p_i, t_i, a_i = (float(np.ravel(np.broadcast_to(v, np.shape(a)))[i]) for v in (p, t, a))
        raise ValueError(
            f"train_accuracy={show(t_i)} is inconsistent with data_accuracy={show(p_i)} for "
            f"train_rows={show(train_rows)} and test_rows={show(test_rows)}{where}: it makes the test "
            f"accuracy {a_i:.6g}, outside [0, 1]"
        )
    return scalar_or_array(np.clip(a, 0.0, 1.0))


def test_accuracy_bounds(
    data_accuracy: ArrayLike,
    train_rows: ArrayLike,
    test_rows: ArrayLike,
    *,
    rows: ArrayLike | None = None,
    train_accuracy_low: ArrayLike = 0.0,
    train_accuracy_high: ArrayLike = 1.0,
    train_at_least_test: bool = False,
) -> Interval:
    """Range of the lost test accuracy over every admissible training accuracy.

    The test accuracy ``a = (N p - N1 t) / N2`` decreases in the training
    accuracy ``t``.  Letting ``t`` range over ``[t_low, t_high]`` (by default
    ``[0, 1]``: nothing assumed) and keeping ``a`` in ``[0, 1]``:

    .. math:: \\max\\Big(0, \\frac{N p - N_1 t_{\\text{high}}}{N_2}\\Big) \\le a \\le
              \\min\\Big(1, \\frac{N p - N_1 t_{\\text{low}}}{N_2}\\Big).

    With nothing assumed this is ``[max(0, (N p - N1)/N2), min(1, N p / N2)]``;
    both ends are attained (put the wrong rows in the test set, or in the
    training set).  ``train_at_least_test=True`` adds the usual but unchecked
    assumption ``t >= a`` (the model does no worse on its training rows),
    which is equivalent to ``a <= p`` and caps the upper end at ``p``.

    Parameters
    ----------
    data_accuracy : float or array_like
        ``p`` in ``[0, 1]``.
    train_rows, test_rows : int or array_like
        ``N1 >= 0``, ``N2 >= 1``.
    rows : int, optional
        ``N``; must equal ``N1 + N2`` if given.
    train_accuracy_low, train_accuracy_high : float, default 0 and 1
        Assumed range of the training accuracy.
    train_at_least_test : bool, default False

    Returns
    -------
    (low, high) : tuple of float or ndarray

    Raises
    ------
    ValueError
        For accuracies outside ``[0, 1]``, sizes that do not add up, or
        assumptions that leave no admissible test accuracy.

    Examples
    --------
    >>> test_accuracy_bounds(0.95, 800, 200)
    Interval(low=0.75, high=1.0)
    """
    train_at_least_test = as_flag(train_at_least_test, "train_at_least_test")
    p = as_probability(data_accuracy, "data_accuracy", closed=True)
    t_lo = as_probability(train_accuracy_low, "train_accuracy_low", closed=True)
    t_hi = as_probability(train_accuracy_high, "train_accuracy_high", closed=True)
    if np.any(t_lo > t_hi):
        raise ValueError(
            f"train_accuracy_low must not exceed train_accuracy_high, got {show(train_accuracy_low)} "
            f"and {show(train_accuracy_high)}"
        )
    n1, n2, n = _sizes(train_rows, test_rows, rows)
    low = np.maximum(0.0, (n * p - n1 * t_hi) / n2)
    high = np.minimum(1.0, (n * p - n1 * t_lo) / n2)
    if train_at_least_test:
        high = np.minimum(high, p)
    if np.any(low > high + _TOL):
        raise ValueError(
            f"train_accuracy_low/train_accuracy_high ({show(train_accuracy_low)}, {show(train_accuracy_high)}) "
            f"are inconsistent with data_accuracy={show(data_accuracy)}, train_rows={show(train_rows)}, "
            f"test_rows={show(test_rows)}: no test accuracy in [0, 1] fits"
        )
    high = np.maximum(high, low)
    return Interval(scalar_or_array(low), scalar_or_array(high))


_LEVEL = {"level": ("alpha", level_to_alpha)}


# test_accuracy_bounds' arguments and the interval's (both public)
@renamed(**_LEVEL)
def test_accuracy_interval(
    data_accuracy: ArrayLike,
    train_rows: ArrayLike,
    test_rows: ArrayLike,
    *,
    train_accuracy: ArrayLike | None = None,
    alpha: ArrayLike = 0.05,
    method: str = "clopper-pearson",
    rows: ArrayLike | None = None,
    train_accuracy_low: ArrayLike = 0.0,
    train_accuracy_high: ArrayLike = 1.0,
    train_at_least_test: bool = False,
) -> Interval:
    """Confidence interval for the model's accuracy on new data, from a lost test set.

    What is random: the model is fixed (it was trained on the ``N1`` training
    rows); the ``N2`` test rows were an independent sample from the same
    population, so the number ``K2`` of them the model gets right is
    ``Binomial(N2, pi)``, ``pi`` being the model's accuracy on new data.  If
    ``K2`` were known, the Clopper-Pearson interval :cite:`clopper1934` for
    ``K2`` out of ``N2`` would cover ``pi`` with probability at least
    ``1 - alpha``.  With the split lost, ``K2`` is only known to lie in
    ``[N2 a_low, N2 a_high]`` (:func:`test_accuracy_bounds`, or one value if
    ``train_accuracy`` is given).  Both ends of the Clopper-Pearson interval
    increase with the count, so

    .. math:: \\big[\\,L(\\lfloor N_2 a_{\\text{low}} \\rfloor),\\; U(\\lceil N_2 a_{\\text{high}} \\rceil)\\,\\big]

    contains the interval of the true ``K2`` and so covers ``pi`` with
    probability at least ``1 - alpha``, whatever the training rows were.  (The
    floor and ceiling only matter when ``p`` was rounded.)  The training rows
    tell nothing about ``pi``: the model was fitted to them.

    Parameters
    ----------
    data_accuracy, train_rows, test_rows, rows, train_accuracy_low, train_accuracy_high, train_at_least_test
        As in :func:`test_accuracy_bounds`.
    train_accuracy : float, optional
        Known training accuracy; then the test count is known (up to rounding).
    alpha : float, default 0.05
        One minus the confidence level, in ``(0, 1)``.
    method : str, default "clopper-pearson"
        Any method of :func:`heldout.accuracy.bounds.interval` (only Clopper-Pearson
        guarantees the coverage).

    Returns
    -------
    Interval
        ``(low, high)``, floats or arrays.

    Examples
    --------
    >>> [round(v, 4) for v in test_accuracy_interval(0.95, 800, 200)]
    [0.684, 1.0]
    >>> [round(v, 4) for v in test_accuracy_interval(0.95, 800, 200, train_accuracy=1.0)]
    [0.684, 0.8084]
    """
    train_at_least_test = as_flag(train_at_least_test, "train_at_least_test")
    from heldout.accuracy.bounds import interval

    if train_accuracy is None:
        a_lo, a_hi = test_accuracy_bounds(
            data_accuracy,
            train_rows,
            test_rows,
            rows=rows,
            train_accuracy_low=train_accuracy_low,
            train_accuracy_high=train_accuracy_high,
            train_at_least_test=train_at_least_test,
        )
    else:
        a_lo = a_hi = test_accuracy(data_accuracy, train_accuracy, train_rows, test_rows, rows=rows)
    n2 = as_count(test_rows, "test_rows", minimum=1)
    # counts from accuracies, converted below 2**63 before the (exact) cap at n2
    n2f = n2.astype(float)
    k_lo = np.clip(np.floor(n2f * np.asarray(a_lo) + 1e-7), 0.0, 9.2e18).astype(np.int64)
    k_hi = np.clip(np.ceil(n2f * np.asarray(a_hi) - 1e-7), 0.0, 9.2e18).astype(np.int64)
    k_lo, k_hi = np.minimum(k_lo, n2), np.minimum(k_hi, n2)
    low = np.asarray(interval(k_lo, n2, alpha=alpha, method=method).low, dtype=float)
    high = np.asarray(interval(k_hi, n2, alpha=alpha, method=method).high, dtype=float)
    return Interval(
        scalar_or_array(np.clip(low, 0.0, 1.0)), scalar_or_array(np.clip(high, 0.0, 1.0))
    )


@renamed(**_LEVEL)
def interval_coverage(
    accuracy: ArrayLike,
    train_rows: int,
    test_rows: int,
    train_correct: int,
    *,
    alpha: float = 0.05,
    train_known: bool = False,
    method: str = "clopper-pearson",
) -> Value:
    """Exact coverage of :func:`test_accuracy_interval` for a model of accuracy ``pi`` on new data.

    The test count is ``K2 ~ Binomial(N2, pi)``; the training count ``K1`` is
    whatever the model did on its own training rows (``train_correct``, not
    random).  The data accuracy is ``p = (K1 + K2) / N`` and the coverage is

    .. math:: \\sum_{j=0}^{N_2} \\binom{N_2}{j} \\pi^j (1-\\pi)^{N_2-j}\\,
              \\mathbf 1\\big[\\pi \\in \\mathrm{CI}\\big((K_1 + j)/N\\big)\\big],

    summed exactly.  With ``train_known=True`` the interval is given the true
    training accuracy ``K1/N1`` (then it is the plain Clopper-Pearson interval
    of ``K2``).

    Parameters
    ----------
    accuracy : float or array_like
        True accuracy ``pi`` on new data, in ``[0, 1]``.
    train_rows, test_rows : int
        ``N1 >= 1`` and ``N2 >= 1``.
    train_correct : int
        ``K1``, correct training rows, ``0 <= K1 <= N1``.
    alpha, method
        As in :func:`test_accuracy_interval`.
    train_known : bool, default False

    Returns
    -------
    float or ndarray
        Coverage for each ``pi``.

    Examples
    --------
    >>> round(interval_coverage(0.8, 100, 40, 100), 4)
    0.9921
    """
    train_known = as_flag(train_known, "train_known")
    pi = as_probability(accuracy, "accuracy", closed=True)
    n1 = as_count(train_rows, "train_rows", minimum=1, scalar=True)
    n2 = as_count(test_rows, "test_rows", minimum=1, scalar=True)
    k1 = as_count(train_correct, "train_correct", scalar=True)
    check_work((n2 + 1) * pi.size, _SUM_LIMIT, "test_rows (one term per possible test count)")
    if k1 > n1:
        raise ValueError(
            f"train_correct must not exceed train_rows, got {show(train_correct)} > {show(train_rows)}"
        )
    j = np.arange(n2 + 1)
    p = (k1 + j) / (n1 + n2)
    low, high = test_accuracy_interval(
        p, n1, n2, train_accuracy=k1 / n1 if train_known else None, alpha=alpha, method=method
    )
    inside = (np.asarray(low)[None, :] <= pi[..., None]) & (
        pi[..., None] <= np.asarray(high)[None, :]
    )
    pmf = _beta.binom_pmf(j, n2, pi[..., None])
    out = np.clip(np.sum(pmf * inside, axis=-1), 0.0, 1.0)
    return scalar_or_array(out.reshape(pi.shape))  # a float for a single accuracy


@renamed(positional=("level", "method"), **_LEVEL)
def fresh_expected_width(
    fresh_rows: ArrayLike, accuracy: float, *, alpha: float = 0.05, method: str = "clopper-pearson"
) -> Value:
    """Expected width of the interval from ``m`` freshly labelled rows (the article's option 1).

    With ``K ~ Binomial(m, pi)`` correct answers on ``m`` new rows,

    .. math:: E[U(K) - L(K)] = \\sum_{j=0}^{m} \\binom{m}{j} \\pi^j (1 - \\pi)^{m-j} \\big(U(j) - L(j)\\big),

    summed exactly (no simulation) with the intervals of
    :func:`heldout.accuracy.bounds.interval`, over the counts ``j`` that carry all but
    ``2e-16`` of the binomial mass.

    Parameters
    ----------
    fresh_rows : int or array_like
        ``m >= 1`` (a 1-D array of sizes is evaluated at once).
    accuracy : float
        Assumed accuracy ``pi`` of the model on new data, in ``[0, 1]``.
    alpha : float, default 0.05
        One minus the confidence level of the intervals.
    method : str, default "clopper-pearson"
        Any method of :func:`heldout.accuracy.bounds.interval`.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(fresh_expected_width(200, 0.75), 4)
    0.124
    """
    from heldout.accuracy.bounds import INTERVAL_METHODS, interval

    m = as_count(fresh_rows, "fresh_rows", minimum=1)
    pi = as_probability(accuracy, "accuracy", closed=True, scalar=True)
    as_probability(alpha, "alpha", scalar=True)
    as_choice(method, "method", INTERVAL_METHODS)
    flat = np.atleast_1d(m).ravel()
    check_work(flat.size * _WIDTH_POINTS, _SUM_LIMIT, "the number of sizes in fresh_rows")
    mf = flat.astype(float)
    # Bernstein: P(|K - m pi| >= a) <= 2 exp(-a^2 / (2 m pi (1 - pi) + 2a/3)) <= 1e-18 for
    # a = L/3 + sqrt(L^2/9 + 2 V L), L = ln(2e18), V = m pi (1 - pi): the counts outside
    # [m pi - a, m pi + a] carry less than 1e-18 of the binomial mass.
    ell = np.log(2e18)
    var = mf * pi * (1.0 - pi)
    a = ell / 3.0 + np.sqrt(ell * ell / 9.0 + 2.0 * var * ell)
    j_lo = np.clip(np.floor(mf * pi - a), 0.0, mf)
    j_hi = np.clip(np.ceil(mf * pi + a), 0.0, mf)
    # Every count while the window holds at most _WIDTH_POINTS of them; beyond, every s-th
    # count weighted by s (s <= the window / _WIDTH_POINTS, below a 200th of a standard
    # deviation): the summand is smooth in the count, so the error is far below 1e-12.
    stride = np.maximum(np.floor((j_hi - j_lo + 1.0) / _WIDTH_POINTS), 1.0)
    steps = np.floor((j_hi - j_lo) / stride) + 1.0
    cols = np.arange(int(steps.max()))[None, :]
    inside = cols < steps[:, None]
    jj = np.minimum(j_lo[:, None] + stride[:, None] * cols, mf[:, None])
    jj = np.where(inside, jj, j_lo[:, None])
    mm = np.broadcast_to(flat[:, None], jj.shape)
    lo, hi = interval(jj.astype(np.int64), mm, alpha=alpha, method=method)
    weight = np.where(inside, _beta.binom_pmf(jj, mf[:, None], pi), 0.0)
    total = weight.sum(axis=1)
    out = np.sum(weight * (np.asarray(hi) - np.asarray(lo)), axis=1) / total
    return scalar_or_array(np.clip(out, 0.0, 1.0).reshape(np.shape(m)))


@renamed(positional=("level", "method"), **_LEVEL)
def fresh_rows_for_width(
    width: float,
    accuracy: float,
    *,
    alpha: float = 0.05,
    method: str = "clopper-pearson",
    max_rows: int = 10**6,
) -> float:
    """Fewest fresh rows whose expected interval width is at most ``width``.

    Bisection on ``m`` over :func:`fresh_expected_width` (which decreases with
    ``m``, up to tiny wiggles from the discreteness of the binomial).  Used to
    price the lost-test-set answer in labels: how many new labels buy an
    interval as narrow as the one :func:`test_accuracy_interval` gives.

    Parameters
    ----------
    width : float
        Target expected width, in ``(0, 1]``.
    accuracy : float
        Assumed accuracy on new data.
    alpha, method
        As in :func:`fresh_expected_width`.
    max_rows : int, default 1e6
        Give up (return ``inf``) beyond this many rows.

    Returns
    -------
    float
        The number of rows (a whole number), or ``inf``.

    Examples
    --------
    >>> fresh_rows_for_width(0.1, 0.75)
    305.0
    """
    w = as_positive(width, "width", scalar=True)
    as_probability(accuracy, "accuracy", closed=True, scalar=True)
    cap = as_count(max_rows, "max_rows", minimum=1, scalar=True)
    lo, hi = 0, 1
    while fresh_expected_width(hi, accuracy, alpha=alpha, method=method) > w:
        if hi >= cap:
            return float("inf")
        lo, hi = hi, min(2 * hi, cap)
    # invariant: width(lo) > w (or lo == 0), width(hi) <= w
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fresh_expected_width(mid, accuracy, alpha=alpha, method=method) > w:
            lo = mid
        else:
            hi = mid
    return float(hi)


#: Names that lived here until the simulations with fitted models moved to their own module.
_MOVED_TO_FITTED = (
    "MODELS",
    "EstimatorSummary",
    "FittedSimulation",
    "example_data",
    "make_model",
    "simulate_fitted",
    "summarise_fitted",
)

__getattr__ = moved(__name__, _MOVED_TO_FITTED, "heldout.accuracy.lost_fitted")
