r"""Strata: a test set that mixes groups of different difficulty in known proportions.

When the population a model will meet is made of strata :math:`h = 1..H` (two
scanners, several hospitals, two series of handwriting) in known shares
:math:`W_h` (:math:`\sum_h W_h = 1`), and the test set holds :math:`n_h` items of
stratum :math:`h` with mean score :math:`\bar y_h`, the population score is estimated
by the **stratified mean** :cite:`neyman1934two,cochran1977sampling`

.. math:: \bar y_{\mathrm{st}} = \sum_h W_h \bar y_h, \qquad
          \widehat{\mathrm{Var}}(\bar y_{\mathrm{st}}) = \sum_h W_h^2 \frac{s_h^2}{n_h},

whatever the test set's own mix :math:`n_h/n`.  The plain test-set mean instead
estimates :math:`\sum_h (n_h/n)\,\mu_h`, the score of a population mixed like the test
set: when the mixes differ it is biased by :math:`\sum_h (n_h/n - W_h)\mu_h`, a bias
that no number of test items removes (:func:`mix_bias`).

For a fixed number of items :math:`n`, the variance is smallest with **Neyman's
allocation** :math:`n_h \propto W_h S_h` (:func:`neyman_allocation`), :math:`S_h` the
standard deviation of the score in stratum :math:`h` (for accuracy
:math:`\sqrt{p_h(1-p_h)}`): label more items where the score varies more
:cite:`neyman1934two`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from heldout import _dist, _inputs
from heldout._checks import as_count, as_positive, as_probability
from heldout._result import EstimateResult, Result, extra

__all__ = [
    "Allocation",
    "MixBias",
    "Stratified",
    "mix_bias",
    "neyman_allocation",
    "proportional_allocation",
    "stratified_mean",
    "stratified_variance",
]

#: How far from 1 the shares may sum (rounding of shares typed by hand, e.g. thirds).
SHARE_TOLERANCE = 1e-6


def _shares_array(shares, name: str = "shares") -> np.ndarray:
    w = as_probability(shares, name, closed=True)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"{name} must be a non-empty one-dimensional array of shares")
    if abs(w.sum() - 1) > SHARE_TOLERANCE:
        raise ValueError(f"{name} must sum to 1, got a sum of {w.sum():.6g}")
    return w


@dataclass(frozen=True)
class Stratified(EstimateResult):
    """A stratified mean score.  Unpacks as ``(estimate, low, high)``.

    Attributes
    ----------
    estimate : float
        :math:`\\sum_h W_h \\bar y_h`.
    low, high : float
        The interval (``method``).
    se : float
        Its standard error.
    df : float
        Satterthwaite's degrees of freedom of the Student quantile.
    unweighted : float
        The plain test-set mean (the mix of the test set).
    se_unweighted : float
        The plain mean's independent-item standard error.
    strata : list
        Stratum labels, sorted.
    sizes : list of int
        Items per stratum.
    means : list of float
        Mean score per stratum.
    shares : list of float
        The population shares used.
    method : str
    alpha : float
    """

    df: float = extra()
    unweighted: float = extra()
    se_unweighted: float = extra()
    strata: list = extra()
    sizes: list = extra()
    means: list = extra()
    shares: list = extra()
    method: str = extra()
    alpha: float = extra()


def stratified_mean(
    scores: ArrayLike,
    strata: ArrayLike,
    shares: Mapping | None = None,
    *,
    clusters: ArrayLike | None = None,
    alpha: float = 0.05,
    method: str = "auto",
) -> Stratified:
    r"""Stratified mean score and interval for a population with known stratum shares.

    .. math:: \bar y_{\mathrm{st}} = \sum_h W_h \bar y_h, \qquad
              v = \sum_h W_h^2\, v_h, \qquad v_h = s_h^2 / n_h

    :cite:`neyman1934two,cochran1977sampling`; with ``clusters``, :math:`v_h` is the
    cluster-robust (CR1) variance of the stratum mean instead
    (:func:`heldout.dependent.clustered.clustered_mean`; clusters nested in strata).  The
    Student quantile uses Satterthwaite's degrees of freedom
    :math:`(\sum_h W_h^2 v_h)^2 / \sum_h (W_h^2 v_h)^2/d_h` with :math:`d_h = n_h - 1`
    (or clusters minus one) :cite:`satterthwaite1946approximate`.  Intervals:
    ``"t"``, :math:`\bar y_{\mathrm{st}} \pm t\sqrt v`; ``"wilson"``, Wilson's interval
    with the effective size :math:`\bar y_{\mathrm{st}}(1-\bar y_{\mathrm{st}})/v` (at most
    :math:`n`) and the same quantile, for 0/1 scores; ``"auto"``, Wilson for 0/1
    scores and ``"t"`` otherwise.

    Parameters
    ----------
    scores : array_like, shape (n,)
        One score per item.
    strata : array_like, shape (n,)
        The stratum of each item (numbers or strings).
    shares : mapping, optional
        Population share of each stratum, ``{label: share}``, summing to 1.  Every
        stratum in the data needs a share; a stratum with a positive share needs items.
        Default: the test set's own mix (then the estimate is the plain mean).
    clusters : array_like, shape (n,), optional
        Cluster of each item, for clustered items within strata.
    alpha : float
    method : {"auto", "wilson", "t", "normal"}

    Returns
    -------
    Stratified

    Raises
    ------
    ValueError
        Shares not summing to 1, a stratum without a share or a shared stratum without
        items, a stratum with fewer than two items (or clusters), mismatched lengths.

    Examples
    --------
    >>> y = [1, 1, 1, 1, 0, 1, 0, 1, 0, 0]
    >>> s = ["a", "a", "a", "a", "a", "a", "b", "b", "b", "b"]
    >>> r = stratified_mean(y, s, {"a": 0.5, "b": 0.5})
    >>> round(r.estimate, 4), round(r.unweighted, 4)
    (0.5417, 0.6)
    """
    from heldout.dependent.clustered import _alpha, _choice, _scores, cluster_codes

    y = _scores(scores)
    labels, codes = _strata_codes(strata, y.size)
    a = _alpha(alpha)
    method = _choice(method, ("auto", "wilson", "t", "normal"), "method")
    binary = bool(np.all((y == 0) | (y == 1)))
    if method == "auto":
        method = "wilson" if binary else "t"
    if method == "wilson" and np.any((y < 0) | (y > 1)):
        raise ValueError('scores must lie in [0, 1] for method="wilson"; use method="t"')
    sizes = np.bincount(codes, minlength=labels.size)
    keys = labels.tolist()
    w = _stratum_weights(keys, sizes, shares)
    cl = None
    if clusters is not None:
        cl = _inputs.array(clusters, "clusters")
        cluster_codes(cl, y.size)  # checks length and labels
    means = np.bincount(codes, weights=y, minlength=labels.size) / sizes
    var_h, dof_h = _stratum_variances(y, codes, keys, cl)
    return _stratified_from_parts(
        keys,
        sizes,
        means,
        var_h,
        dof_h,
        w,
        method=method,
        alpha=a,
        unweighted=float(y.mean()),
        se_unweighted=float(y.std(ddof=1) / np.sqrt(y.size)),
    )


def _strata_codes(strata, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """The sorted stratum labels and each item's index into them (checked: one per item)."""
    arr = _inputs.array(strata, "strata")  # a ragged list: a ValueError naming strata
    if arr.ndim != 1 or arr.shape[0] != n_items:
        raise ValueError(
            f"strata must have one label per item: got shape {arr.shape} for {n_items} items"
        )
    try:
        labels, codes = np.unique(arr, return_inverse=True)
    except TypeError:
        raise ValueError(
            "strata must hold labels of one sortable kind (numbers or strings)"
        ) from None
    return labels, codes.reshape(-1)


def _stratum_variances(y, codes, keys, cl) -> tuple[np.ndarray, np.ndarray]:
    """Each stratum's variance of its mean and its degrees of freedom.

    ``s_h^2 / n_h`` and ``n_h - 1``; with cluster labels ``cl``, the cluster-robust variance of
    :func:`heldout.dependent.clustered.clustered_mean` within the stratum and ``G_h - 1``.
    """
    from heldout.dependent.clustered import clustered_mean

    var_h = np.empty(len(keys))
    dof_h = np.empty(len(keys))
    for h in range(len(keys)):
        part = y[codes == h]
        if cl is None:
            if part.size < 2:
                raise _too_few_items(keys[h], part.size)
            var_h[h] = part.var(ddof=1) / part.size
            dof_h[h] = part.size - 1
        else:
            try:
                r = clustered_mean(part, cl[codes == h], method="t")
            except ValueError as exc:
                raise ValueError(f"clusters within stratum {keys[h]!r}: {exc}") from None
            var_h[h] = r.se_cluster**2
            dof_h[h] = r.clusters - 1
    return var_h, dof_h


def _too_few_items(label, size: int) -> ValueError:
    """The error for a stratum of fewer than two items (here and in the out-of-core engine)."""
    return ValueError(
        f"strata: stratum {label!r} has {int(size)} item; at least 2 are needed "
        "to estimate its variance"
    )


def _stratum_weights(keys: list, sizes: ArrayLike, shares: Mapping | None = None) -> np.ndarray:
    """The population share of each stratum in ``keys`` (sorted labels with test items).

    Default (``shares`` None): the test set's own mix ``n_h / n``.  Otherwise every
    stratum needs a share, the shares must sum to 1, and no stratum without test items
    may have a positive share (:func:`stratified_mean` raises the same errors).

    Examples
    --------
    >>> _stratum_weights(["a", "b"], [30, 10]).tolist()
    [0.75, 0.25]
    >>> _stratum_weights(["a", "b"], [30, 10], {"a": 0.5, "b": 0.5}).tolist()
    [0.5, 0.5]
    """
    sizes = np.asarray(sizes, dtype=float)
    if shares is None:
        return sizes / sizes.sum()
    if not isinstance(shares, Mapping):
        raise ValueError("shares must be a mapping {stratum: share}")
    missing = [k for k in keys if k not in shares]
    if missing:
        raise ValueError(f"shares must give a share for every stratum; missing: {missing}")
    w_all = _shares_array(list(shares.values()))
    absent = [k for k, v in zip(shares, w_all, strict=True) if v > 0 and k not in keys]
    if absent:
        raise ValueError(f"shares gives a positive share to strata with no test items: {absent}")
    return np.array([float(shares[k]) for k in keys])


def _stratified_from_parts(
    keys: list,
    sizes: ArrayLike,
    means: ArrayLike,
    var_h: ArrayLike,
    dof_h: ArrayLike,
    w: ArrayLike,
    *,
    method: str,
    alpha: float,
    unweighted: float,
    se_unweighted: float,
) -> Stratified:
    r"""The stratified mean and its interval from each stratum's summary.

    :math:`\bar y_{\mathrm{st}} = \sum_h W_h \bar y_h`, :math:`v = \sum_h W_h^2 v_h`
    with ``var_h`` the variance of each stratum's mean (:math:`s_h^2/n_h`, or its
    cluster-robust variance) on ``dof_h`` degrees of freedom, and Satterthwaite's
    degrees of freedom for the Student quantile: the arithmetic of
    :func:`stratified_mean` (which calls it), for callers that hold per-stratum sums
    rather than the items (the out-of-core engine).  ``method``: ``"wilson"``, ``"t"``
    or ``"normal"`` as in :func:`stratified_mean`.

    Examples
    --------
    >>> r = _stratified_from_parts(["a", "b"], [6, 4], [4 / 6, 0.5], [0.2667 / 6, 1 / 3 / 4],
    ...                           [5, 3], [0.5, 0.5], method="t", alpha=0.05,
    ...                           unweighted=0.6, se_unweighted=0.163)
    >>> round(r.estimate, 4)
    0.5833
    """
    sizes = np.asarray(sizes)
    means = np.asarray(means, dtype=float)
    var_h = np.asarray(var_h, dtype=float)
    dof_h = np.asarray(dof_h, dtype=float)
    w = np.asarray(w, dtype=float)
    n = float(sizes.sum())
    est = float(np.sum(w * means))
    terms = w**2 * var_h
    var = float(terms.sum())
    df = float(var**2 / np.sum(terms**2 / dof_h)) if var > 0 else float(np.sum(dof_h))
    q = _dist.norm_isf(alpha / 2) if method == "normal" else _dist.t_isf(alpha / 2, df)
    if method == "wilson":
        from heldout.dependent.clustered import _wilson

        n_eff = min(n, est * (1 - est) / var) if var > 0 else n
        low, high = _wilson(est, max(n_eff, 1.0), q)
    else:
        low, high = est - q * np.sqrt(var), est + q * np.sqrt(var)
    return Stratified(
        estimate=est,
        low=float(low),
        high=float(high),
        se=float(np.sqrt(var)),
        df=df,
        unweighted=float(unweighted),
        se_unweighted=float(se_unweighted),
        strata=list(keys),
        sizes=[int(v) for v in sizes],
        means=means.tolist(),
        shares=w.tolist(),
        method=method,
        alpha=alpha,
    )


def stratified_variance(shares: ArrayLike, sds: ArrayLike, sizes: ArrayLike) -> float:
    r"""Variance of the stratified mean for a design: :math:`\sum_h W_h^2 S_h^2 / n_h`.

    Examples
    --------
    >>> round(stratified_variance([0.5, 0.5], [0.1, 0.3], [100, 300]), 8)
    0.0001
    """
    w = _shares_array(shares)
    s = as_positive(sds, "sds", allow_zero=True)
    n = as_count(sizes, "sizes", minimum=1).astype(float)
    if not (w.shape == s.shape == n.shape):
        raise ValueError(
            f"shares, sds and sizes must have one entry per stratum, got shapes "
            f"{w.shape}, {s.shape} and {n.shape}"
        )
    return float(np.sum(w**2 * s**2 / n))


@dataclass(frozen=True)
class Allocation(Result):
    """Items per stratum.  Unpacks as ``(sizes,)``.

    Attributes
    ----------
    sizes : ndarray of int
        Whole-number allocation, summing to the total.
    exact : ndarray of float
        The unrounded allocation.
    variance : float
        :func:`stratified_variance` of the whole-number allocation (None when ``sds``
        were not given).
    """

    sizes: np.ndarray
    exact: np.ndarray = extra()
    variance: float | None = extra()


def _round_to_total(exact: np.ndarray, total: int, minimum: int) -> np.ndarray:
    """Largest-remainder rounding with a floor of ``minimum`` items per stratum."""
    h = exact.size
    if minimum * h > total:
        raise ValueError(f"total must be at least minimum x strata = {minimum * h}, got {total}")
    base = np.maximum(np.floor(exact), minimum).astype(np.int64)
    # strata lifted to the floor take items from the others: reallocate the rest
    while base.sum() > total:
        spare = np.where(base > minimum, exact - base, np.inf)
        base[np.argmin(spare)] -= 1
    left = total - int(base.sum())
    if left:
        order = np.argsort(-(exact - base), kind="stable")
        base[order[:left]] += 1
    return base


def neyman_allocation(
    total: int, shares: ArrayLike, sds: ArrayLike, *, minimum: int = 0
) -> Allocation:
    r"""Neyman's allocation of ``total`` test items to strata: :math:`n_h \propto W_h S_h`.

    .. math:: n_h = n\,\frac{W_h S_h}{\sum_j W_j S_j}

    minimises :math:`\sum_h W_h^2 S_h^2/n_h` subject to :math:`\sum_h n_h = n`
    :cite:`neyman1934two`, with minimum
    :math:`(\sum_h W_h S_h)^2 / n`.  The whole-number sizes round it by largest
    remainders, with at least ``minimum`` items per stratum (2 lets every stratum's
    variance be estimated).

    Parameters
    ----------
    total : int
        Items to label :math:`n`.
    shares : array_like
        Population shares :math:`W_h`, summing to 1.
    sds : array_like
        Standard deviation :math:`S_h` of the score in each stratum (for accuracy
        :math:`\sqrt{p_h(1-p_h)}` from a guess of :math:`p_h`); not all 0.
    minimum : int
        Fewest items per stratum.

    Returns
    -------
    Allocation

    Examples
    --------
    >>> neyman_allocation(1000, [0.5, 0.5], [0.1, 0.3]).sizes.tolist()
    [250, 750]
    """
    n = int(as_count(total, "total", minimum=1, scalar=True))
    w = _shares_array(shares)
    # sds up to 1e150, so that the variance (sd squared) fits in a float
    s = as_positive(sds, "sds", allow_zero=True, maximum=1e150)
    if s.shape != w.shape:
        raise ValueError(f"sds must have one entry per share: got {s.size} for {w.size} shares")
    if np.sum(w * s) == 0:
        raise ValueError("sds must not all be 0 where the shares are positive")
    minimum = int(as_count(minimum, "minimum", scalar=True))
    share = (w * s) / np.sum(w * s)  # in [0, 1]: n * share never overflows
    exact = n * share
    sizes = _round_to_total(exact, n, minimum)
    var = float(np.sum(np.where(sizes > 0, w**2 * s**2 / np.maximum(sizes, 1), 0.0)))
    if np.any((sizes == 0) & (w * s > 0)):
        var = float("inf")
    return Allocation(sizes=sizes, exact=exact, variance=var)


def proportional_allocation(total: int, shares: ArrayLike, *, minimum: int = 0) -> Allocation:
    r"""Proportional allocation :math:`n_h = n W_h`: the test set mixed like the population.

    Examples
    --------
    >>> proportional_allocation(10, [0.55, 0.45]).sizes.tolist()
    [6, 4]
    """
    n = int(as_count(total, "total", minimum=1, scalar=True))
    w = _shares_array(shares)
    minimum = int(as_count(minimum, "minimum", scalar=True))
    exact = n * w
    return Allocation(sizes=_round_to_total(exact, n, minimum), exact=exact, variance=None)


@dataclass(frozen=True)
class MixBias(Result):
    """What the plain mean of a test set estimates when its mix differs from the population's.

    Unpacks as ``(test_mix, population, bias)``.
    """

    test_mix: float
    population: float
    bias: float


def mix_bias(means: ArrayLike, test_shares: ArrayLike, population_shares: ArrayLike) -> MixBias:
    r"""The bias of the plain test-set mean when the test mix is not the population's.

    .. math:: \mathrm{E}[\bar y] - \mu = \sum_h (w_h - W_h)\,\mu_h,

    with :math:`w_h` the test set's shares, :math:`W_h` the population's and
    :math:`\mu_h` the stratum means.  The plain mean's interval shrinks around the wrong
    value as the test set grows, so its coverage of :math:`\mu` tends to 0.

    Examples
    --------
    >>> r = mix_bias([0.99, 0.95], [0.8, 0.2], [0.5, 0.5])
    >>> round(r.test_mix, 4), round(r.population, 4), round(r.bias, 4)
    (0.982, 0.97, 0.012)
    """
    mu = _finite(means)
    wt = _shares_array(test_shares, "test_shares")
    wp = _shares_array(population_shares, "population_shares")
    if not (mu.shape == wt.shape == wp.shape):
        raise ValueError(
            "means, test_shares and population_shares must have one entry per stratum, got "
            f"shapes {mu.shape}, {wt.shape} and {wp.shape}"
        )
    t, p = float(np.sum(wt * mu)), float(np.sum(wp * mu))
    return MixBias(test_mix=t, population=p, bias=t - p)


def _finite(values) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError("means must be numbers, one per stratum") from None
    if arr.ndim != 1 or not np.all(np.isfinite(arr)):
        raise ValueError("means must be a one-dimensional array of finite numbers")
    return arr
