r"""Clustered test items: standard errors, intervals, intra-cluster correlation, design effects.

When test items come in groups (several images of one patient, several digits of one
writer, several questions about one passage), items of a group tend to be scored alike
and the mean score varies more than the independent-item formula says.  With scores
:math:`y_i` (1 for a correct answer and 0 otherwise, or any per-item loss), items
:math:`i = 1..n` in clusters :math:`g = 1..G` of sizes :math:`m_g`, and the mean
:math:`\bar y`, this module computes:

* the **cluster-robust standard error** of :math:`\bar y` (Liang and Zeger's sandwich
  for an intercept-only regression :cite:`liang1986longitudinal`, as reviewed by Cameron
  and Miller :cite:`cameron2015practitioner`),

  .. math:: \widehat{\mathrm{Var}}_{\mathrm{CR1}}(\bar y) = \frac{G}{G-1}\,
            \frac{1}{n^2} \sum_{g=1}^{G} \Big(\sum_{i \in g} (y_i - \bar y)\Big)^2 ,

  with the small-sample factor :math:`G/(G-1)` ("CR1", statsmodels' default for
  ``cov_type="cluster"`` with one regressor; ``correction="CR0"`` drops it, which is
  the formula of Miller's *Adding error bars to evals* :cite:`miller2024errorbars`);
  the interval is :math:`\bar y \pm t_{G-1,\,1-\alpha/2}\, \mathrm{SE}`, Student's
  quantile with :math:`G-1` degrees of freedom as Cameron and Miller recommend.  With
  equal cluster sizes it *is* the one-sample t interval on the cluster means.  For
  0/1 scores (accuracy) near 0 or 1 this symmetric interval undercovers; the Wilson
  interval on the effective sample size :math:`n/\mathrm{deff}` with the same Student
  quantile (``method="wilson"``, the default for 0/1 scores) holds much better
  :cite:`korn1998confidence,franco2019comparative`;
* the **intra-cluster correlation** (ICC) :math:`\rho` by the one-way analysis of
  variance, and the **design effect** of Kish :cite:`kish1965survey`, the factor by
  which clustering multiplies the variance of the mean,
  :math:`\mathrm{deff} = 1 + (m - 1)\rho` for clusters of equal size :math:`m`, and
  :math:`1 + (m^\ast - 1)\rho` with :math:`m^\ast = \sum_g m_g^2 / \sum_g m_g` for
  unequal sizes (:func:`design_effect`); the **effective sample size**
  :math:`n / \mathrm{deff}`;
* the **cluster bootstrap**, resampling whole clusters with replacement
  :cite:`field2007bootstrapping`, and its paired version for two models scored on
  the same clustered items;
* the **coverage** of the independent-item, cluster-robust and cluster-bootstrap
  intervals on simulated clustered test sets (:func:`simulate_coverage`).

What each method assumes.  Clusters are independent of one another and drawn from a
population of clusters; items inside a cluster may be correlated in any way.  The
cluster-robust standard error is consistent as the number of *clusters* grows; with few
clusters (fewer than about 20-50, fewer still when sizes are very unequal or the
accuracy is near 0 or 1) both it and the cluster bootstrap undercover, the percentile
bootstrap more so (its spread is too small by about :math:`\sqrt{(G-1)/G}` and it uses
normal rather than Student quantiles) :cite:`cameron2015practitioner`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from heldout import _dist, _inputs
from heldout._checks import (
    as_count,
    as_floats,
    as_positive,
    as_probability,
    in_choices,
    layout_floats,
    same_shape,
    show,
)
from heldout._result import EstimateResult, Result, extra

__all__ = [
    "BootstrapInterval",
    "ClusterCodes",
    "ClusteredMean",
    "Coverage",
    "cluster_bootstrap",
    "cluster_codes",
    "clustered_difference",
    "clustered_mean",
    "design_effect",
    "effective_size",
    "icc",
    "paired_cluster_bootstrap",
    "simulate_clustered",
    "simulate_coverage",
    "size_weighted_cluster_size",
]

#: Small-sample corrections of the cluster-robust variance.
CORRECTIONS = ("CR1", "CR0")
#: Intervals of :func:`clustered_mean` (``"auto"`` picks ``"wilson"`` for 0/1 scores, else ``"t"``).
INTERVAL_METHODS = ("auto", "wilson", "t", "normal")


# --------------------------------------------------------------------------- input checks
def _scores(scores, name: str = "scores") -> np.ndarray:
    arr = layout_floats(scores, name, 1, "one score per item", allow_empty=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite numbers (no NaN or infinity)")
    return arr


@dataclass(frozen=True)
class ClusterCodes(Result):
    """Cluster codes ``0..G-1`` per item and ``G``; unpacks as ``(codes, n_clusters)``."""

    codes: np.ndarray
    n_clusters: int


def cluster_codes(clusters: ArrayLike, n: int, name: str = "clusters") -> ClusterCodes:
    """Turn cluster labels (numbers or strings, one per item) into codes ``0..G-1``.

    Parameters
    ----------
    clusters : array_like, shape (n,)
        A cluster label per item: integers, strings or any values ``numpy.unique``
        can sort.  Items with equal labels form a cluster.
    n : int
        The number of items the labels must match.
    name : str
        The argument's name in error messages.

    Returns
    -------
    ClusterCodes
        ``codes`` (int64, shape (n,): the cluster of each item, numbered in the sorted
        order of the labels) and ``n_clusters`` (the number :math:`G` of distinct clusters,
        at least 2).

    Raises
    ------
    ValueError
        If the labels are not one per item, contain NaN or a missing value, or form
        fewer than two clusters (one cluster carries no information on the
        between-cluster variance).

    Examples
    --------
    >>> codes, g = cluster_codes(["b", "a", "b", "c"], 4)
    >>> codes.tolist(), g
    ([1, 0, 1, 2], 3)
    """
    arr = _inputs.array(clusters, "clusters")  # ragged lists refused by name
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be one-dimensional (one label per item), got shape {arr.shape}"
        )
    if arr.shape[0] != n:
        raise ValueError(
            f"{name} must have one label per item: got {arr.shape[0]} labels for {n} items"
        )
    if arr.dtype.kind == "f" and np.any(~np.isfinite(arr)):
        raise ValueError(f"{name} must not contain NaN or infinity")
    if arr.dtype.kind == "O" and any(v is None or v != v for v in arr.tolist()):
        raise ValueError(f"{name} must not contain missing values (None or NaN)")
    try:
        _, codes = np.unique(arr, return_inverse=True)
    except TypeError:
        raise ValueError(
            f"{name} must hold labels of one sortable kind (numbers or strings)"
        ) from None
    codes = codes.reshape(-1).astype(np.int64)
    g = int(codes.max()) + 1 if codes.size else 0
    if g < 2:
        raise _too_few_clusters(g, name)
    return ClusterCodes(codes, g)


def _too_few_clusters(g: int, name: str = "clusters") -> ValueError:
    """The error for fewer than two clusters (here, and for per-cluster sums elsewhere)."""
    return ValueError(
        f"{name} must contain at least two distinct clusters, got {g}: with one cluster "
        "the variance between clusters cannot be estimated"
    )


def _count(value, name: str, minimum: int, maximum: int) -> int:
    """A whole number in [minimum, maximum], checked before any cast (2**63 must not wrap)."""
    try:
        big = float(np.asarray(value, dtype=float))
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a whole number, got {show(value)}") from None
    if np.isfinite(big) and big > maximum:
        raise ValueError(f"{name} must be at most {maximum:,}, got {show(value)}")
    return int(as_count(value, name, minimum=minimum, scalar=True))


def _alpha(alpha) -> float:
    a = as_probability(alpha, "alpha")
    if a.ndim:
        raise ValueError(f"alpha must be a single number, got an array of shape {a.shape}")
    return float(a)


def _choice(value: str, allowed: tuple[str, ...], name: str) -> str:
    if not in_choices(value, allowed):
        raise ValueError(
            f"{name} must be one of {', '.join(map(repr, allowed))}, got {show(value)}"
        )
    return value


# --------------------------------------------------------------------------- the core (vectorised)
def _moments(sums, sumsq, sizes, correction: str = "CR1"):
    """Everything from per-cluster sums: arrays of shape (..., G), the last axis the clusters.

    Returns the mean, the independent-item and cluster-robust variances of the mean,
    and the ANOVA intra-cluster correlation (NaN where it is not defined).  Shared by
    :func:`clustered_mean` and :func:`simulate_coverage`, so that the simulation tests
    the very code a user runs.
    """
    n = sizes.sum(axis=-1)
    g = sizes.shape[-1]
    mean = sums.sum(axis=-1) / n
    total_ss = sumsq.sum(axis=-1) - n * mean**2
    total_ss = np.maximum(total_ss, 0.0)
    var_iid = total_ss / (n - 1) / n  # s^2 / n with s^2 on n - 1 degrees of freedom
    resid = sums - sizes * mean[..., None]
    var_cr = (resid**2).sum(axis=-1) / n**2
    if correction == "CR1":
        var_cr = var_cr * g / (g - 1)
    # one-way ANOVA: between and within mean squares, and the ICC estimator
    with np.errstate(invalid="ignore", divide="ignore"):
        ssb = (resid**2 / sizes).sum(axis=-1)
        ssw = np.maximum(total_ss - ssb, 0.0)
        msb = ssb / (g - 1)
        msw = ssw / (n - g)
        m0 = (n - (sizes**2).sum(axis=-1) / n) / (g - 1)
        rho = (msb - msw) / (msb + (m0 - 1) * msw)
    return mean, var_iid, var_cr, rho


def _interval(mean, var_iid, var_cr, n, g, alpha, method):
    """The interval of ``method`` ("t", "normal" or "wilson"), vectorised over leading axes."""
    q = _dist.norm_isf(alpha / 2) if method == "normal" else _dist.t_isf(alpha / 2, g - 1)
    mean, var_iid, var_cr = (np.asarray(v, dtype=float) for v in (mean, var_iid, var_cr))
    if method != "wilson":
        se = np.sqrt(var_cr)
        return mean - q * se, mean + q * se
    # Wilson's score interval on the effective sample size n / deff (at most n)
    with np.errstate(invalid="ignore", divide="ignore"):
        deff = np.where(var_iid > 0, var_cr / np.where(var_iid > 0, var_iid, 1.0), 1.0)
        n_eff = np.where(deff > 1, n / deff, n)
    return _wilson(mean, n_eff, q)


def _wilson(p, n_eff, q):
    """Wilson's score interval for a proportion ``p`` on ``n_eff`` items with quantile ``q``."""
    centre = p + q**2 / (2 * n_eff)
    half = q * np.sqrt(p * (1 - p) / n_eff + q**2 / (4 * n_eff**2))
    scale = 1 + q**2 / n_eff
    return np.clip((centre - half) / scale, 0, 1), np.clip((centre + half) / scale, 0, 1)


# --------------------------------------------------------------------------- the clustered mean
@dataclass(frozen=True)
class ClusteredMean(Result):
    """A mean score with its independent-item and cluster-robust standard errors.

    Unpacks as ``(estimate, low, high)``.

    Attributes
    ----------
    estimate : float
        The mean score :math:`\\bar y` (the accuracy for 0/1 scores).
    low, high : float
        The cluster-robust interval (``method``).
    se_iid : float
        The standard error if items were independent, :math:`s/\\sqrt n`.
    se_cluster : float
        The cluster-robust standard error.
    design_effect : float or None
        :math:`(\\mathrm{SE}_{\\mathrm{cluster}}/\\mathrm{SE}_{\\mathrm{iid}})^2`, the
        estimated design effect (None when every score is equal).
    icc : float or None
        The ANOVA estimate of the intra-cluster correlation (None when every cluster
        has one item or every score is equal).
    effective_n : float or None
        :math:`n / \\mathrm{deff}`.
    n, clusters : int
        Items and clusters.
    df : int
        Degrees of freedom of the Student quantile, :math:`G-1`.
    alpha : float
        The interval has confidence :math:`1-\\alpha`.
    method, correction : str
        ``"wilson"``, ``"t"`` or ``"normal"`` (the one used); ``"CR1"`` or ``"CR0"``.
    """

    estimate: float
    low: float
    high: float
    se_iid: float = extra()
    se_cluster: float = extra()
    design_effect: float | None = extra()
    icc: float | None = extra()
    effective_n: float | None = extra()
    n: int = extra()
    clusters: int = extra()
    df: int = extra()
    alpha: float = extra()
    method: str = extra()
    correction: str = extra()


def _per_cluster(y: np.ndarray, codes: np.ndarray, g: int):
    sizes = np.bincount(codes, minlength=g).astype(float)
    sums = np.bincount(codes, weights=y, minlength=g)
    sumsq = np.bincount(codes, weights=y * y, minlength=g)
    return sums, sumsq, sizes


def _or_none(x) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


def clustered_mean(
    scores: ArrayLike,
    clusters: ArrayLike,
    *,
    alpha: float = 0.05,
    method: str = "auto",
    correction: str = "CR1",
) -> ClusteredMean:
    r"""Mean score with a cluster-robust standard error and interval.

    .. math::
        \mathrm{SE}_{\mathrm{cluster}}^2 = c\,\frac{1}{n^2}\sum_{g=1}^{G}
        \Big(\sum_{i\in g}(y_i-\bar y)\Big)^2, \qquad
        c = \tfrac{G}{G-1} \ (\text{CR1}) \text{ or } 1 \ (\text{CR0}),

    the sandwich variance of the intercept of a regression of :math:`y` on a constant
    :cite:`liang1986longitudinal,cameron2015practitioner`.  The independent-item
    error is :math:`s/\sqrt n` (:math:`s` with :math:`n-1` degrees of freedom), the
    estimated design effect is the ratio of the two variances, and the ICC is the
    one-way ANOVA estimator :func:`icc`.  Intervals:

    * ``method="t"``: :math:`\bar y \pm t_{G-1,1-\alpha/2}\,\mathrm{SE}_{\mathrm{cluster}}`;
      with CR1 this is what statsmodels' ``OLS(y, ones).fit(cov_type="cluster",
      cov_kwds={"groups": clusters}, use_t=True)`` reports;
    * ``method="normal"``: the same with the normal quantile (statsmodels without
      ``use_t``);
    * ``method="wilson"``: Wilson's score interval with the effective sample size
      :math:`n_{\mathrm{eff}} = n/\widehat{\mathrm{deff}}` (at most :math:`n`) in place of
      :math:`n` and the Student quantile :math:`t_{G-1,1-\alpha/2}` in place of
      :math:`z` :cite:`korn1998confidence,franco2019comparative`; for scores in [0, 1]
      only.  It stays inside [0, 1] and holds its level near accuracies of 0 or 1,
      where the symmetric ``"t"`` interval undercovers;
    * ``method="auto"`` (default): ``"wilson"`` when every score is 0 or 1, else ``"t"``.

    Parameters
    ----------
    scores : array_like, shape (n,)
        One score per item: 1/0 (or True/False) for correct/wrong, or any loss.
    clusters : array_like, shape (n,)
        The cluster of each item (numbers or strings); at least two clusters.
    alpha : float
        One minus the confidence level.
    method : {"auto", "wilson", "t", "normal"}
        The interval (see above).
    correction : {"CR1", "CR0"}
        Small-sample factor :math:`G/(G-1)` (CR1) or none (CR0).

    Returns
    -------
    ClusteredMean

    Raises
    ------
    ValueError
        If ``scores`` is empty, not one-dimensional or not finite; ``clusters`` does
        not hold one label per item or forms fewer than two clusters; ``alpha``,
        ``method`` or ``correction`` is invalid.

    Examples
    --------
    >>> r = clustered_mean([1, 1, 1, 0, 0, 0, 1, 1], ["a", "a", "a", "b", "b", "b", "c", "c"])
    >>> round(r.estimate, 3), round(r.se_iid, 3), round(r.se_cluster, 3)
    (0.625, 0.183, 0.354)
    >>> round(r.design_effect, 2), r.clusters, r.method
    (3.74, 3, 'wilson')
    """
    y = _scores(scores)
    codes, g = cluster_codes(clusters, y.size)
    a = _alpha(alpha)
    method = _choice(method, INTERVAL_METHODS, "method")
    correction = _choice(correction, CORRECTIONS, "correction")
    binary = bool(np.all((y == 0) | (y == 1)))
    if method == "auto":
        method = "wilson" if binary else "t"
    if method == "wilson" and np.any((y < 0) | (y > 1)):
        raise ValueError('scores must lie in [0, 1] for method="wilson"; use method="t"')
    sums, sumsq, sizes = _per_cluster(y, codes, g)
    mean, var_iid, var_cr, rho = (float(v) for v in _moments(sums, sumsq, sizes, correction))
    se_iid, se_cr = float(np.sqrt(var_iid)), float(np.sqrt(var_cr))
    low, high = _interval(mean, var_iid, var_cr, y.size, g, a, method)
    deff = var_cr / var_iid if var_iid > 0 else float("nan")
    return ClusteredMean(
        estimate=mean,
        low=float(low),
        high=float(high),
        se_iid=se_iid,
        se_cluster=se_cr,
        design_effect=_or_none(deff),
        icc=_or_none(rho),
        effective_n=_or_none(y.size / deff) if np.isfinite(deff) and deff > 0 else None,
        n=int(y.size),
        clusters=g,
        df=g - 1,
        alpha=a,
        method=method,
        correction=correction,
    )


def _differences(scores_a, scores_b) -> np.ndarray:
    """Per-item differences of two models' scores on the same items (checked)."""
    a = _scores(scores_a, "scores_a")
    b = _scores(scores_b, "scores_b")
    same_shape(a, b, "scores_a", "scores_b")  # one score per item each: the same items
    return a - b


# Its signature repeats clustered_mean's (both public): it is clustered_mean of the checked
# paired differences (_differences), with the t interval by default.
def clustered_difference(
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    clusters: ArrayLike,
    *,
    alpha: float = 0.05,
    method: str = "t",
    correction: str = "CR1",
) -> ClusteredMean:
    r"""Difference of two models' mean scores on the same clustered items.

    The paired difference :math:`d_i = a_i - b_i` has mean :math:`\bar a - \bar b`;
    its cluster-robust standard error (:func:`clustered_mean` of :math:`d`) accounts
    both for the pairing (items shared by the models) and for the clustering.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (n,)
        The two models' scores on the same items, in the same order.
    clusters : array_like, shape (n,)
        The cluster of each item.
    alpha, correction
        As in :func:`clustered_mean`.
    method : {"t", "normal"}
        Student's :math:`t_{G-1}` (default) or normal quantile (Wilson's interval is for
        proportions, not for differences).

    Returns
    -------
    ClusteredMean
        Of the differences; ``estimate`` is :math:`\bar a - \bar b`.

    Examples
    --------
    >>> a = [1, 1, 1, 0, 1, 1, 1, 1]
    >>> b = [1, 0, 1, 0, 0, 1, 1, 0]
    >>> r = clustered_difference(a, b, [1, 1, 2, 2, 3, 3, 4, 4])
    >>> round(r.estimate, 3), round(r.se_cluster, 3)
    (0.375, 0.125)
    """
    method = _choice(method, ("t", "normal"), "method")
    return clustered_mean(
        _differences(scores_a, scores_b),
        clusters,
        alpha=alpha,
        method=method,
        correction=correction,
    )


# --------------------------------------------------------------------------- ICC and design effect
def icc(scores: ArrayLike, clusters: ArrayLike) -> float:
    r"""The one-way ANOVA estimate of the intra-cluster correlation.

    .. math::
        \hat\rho = \frac{\mathrm{MSB} - \mathrm{MSW}}{\mathrm{MSB} + (m_0 - 1)\,\mathrm{MSW}},
        \qquad m_0 = \frac{1}{G-1}\Big(n - \frac{\sum_g m_g^2}{n}\Big),

    with :math:`\mathrm{MSB} = \sum_g m_g(\bar y_g - \bar y)^2/(G-1)` and
    :math:`\mathrm{MSW} = \sum_g\sum_{i\in g}(y_i-\bar y_g)^2/(n-G)`; :math:`m_0` is
    the common size for equal clusters (Donner's unbalanced form
    :cite:`donner1986review`).  It can be slightly negative by chance.

    Parameters
    ----------
    scores, clusters : array_like, shape (n,)
        As in :func:`clustered_mean`; at least one cluster must hold two items.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If every cluster has a single item (no within-cluster variation to compare
        with) or every score is the same (the ratio is 0/0), besides the checks of
        :func:`clustered_mean`.

    Examples
    --------
    >>> round(icc([1, 1, 0, 0, 1, 1], [0, 0, 1, 1, 2, 2]), 3)
    1.0
    >>> round(icc([1, 0, 1, 0, 1, 0], [0, 0, 1, 1, 2, 2]), 3)
    -1.0
    """
    y = _scores(scores)
    codes, g = cluster_codes(clusters, y.size)
    if g == y.size:
        raise ValueError(
            "clusters must put at least two items in one cluster: with one item per cluster "
            "the intra-cluster correlation is not defined"
        )
    sums, sumsq, sizes = _per_cluster(y, codes, g)
    rho = float(_moments(sums, sumsq, sizes)[3])
    if not np.isfinite(rho):
        raise ValueError("scores are all equal, so their intra-cluster correlation is not defined")
    return rho


def size_weighted_cluster_size(sizes: ArrayLike) -> float:
    r"""The cluster size that makes Kish's design effect exact for unequal clusters.

    .. math:: m^\ast = \frac{\sum_g m_g^2}{\sum_g m_g} = \bar m\,(1 + \mathrm{CV}^2),

    with :math:`\mathrm{CV}` the coefficient of variation of the sizes (population
    standard deviation over mean).  Under an exchangeable correlation :math:`\rho`
    within clusters, :math:`\mathrm{Var}(\bar y) = \frac{\sigma^2}{n}\{1 + (m^\ast-1)\rho\}`
    :cite:`kish1965survey,eldridge2006sample`.

    Parameters
    ----------
    sizes : array_like of int
        The number of items in each cluster (each at least 1).

    Returns
    -------
    float

    Examples
    --------
    >>> size_weighted_cluster_size([5, 5, 5])
    5.0
    >>> size_weighted_cluster_size([1, 9])
    8.2
    """
    m = as_count(sizes, "sizes", minimum=1).astype(float)
    if m.ndim != 1 or m.size == 0:
        raise ValueError("sizes must be a non-empty one-dimensional array of cluster sizes")
    return float((m**2).sum() / m.sum())


def design_effect(
    icc: ArrayLike,
    cluster_size: ArrayLike | None = None,
    *,
    sizes: ArrayLike | None = None,
) -> float | np.ndarray:
    r"""Kish's design effect: how much clustering multiplies the variance of a mean.

    .. math:: \mathrm{deff} = 1 + (m - 1)\,\rho

    for clusters of equal size :math:`m` and intra-cluster correlation :math:`\rho`
    :cite:`kish1965survey`; for unequal sizes pass ``sizes`` and :math:`m` is replaced
    by :func:`size_weighted_cluster_size` :math:`m^\ast = \sum m_g^2/\sum m_g`.

    Parameters
    ----------
    icc : float or array_like
        Intra-cluster correlation :math:`\rho` in [0, 1].
    cluster_size : float or array_like, optional
        The common cluster size :math:`m \ge 1` (broadcast with ``icc``).
    sizes : array_like of int, optional
        The size of every cluster (instead of ``cluster_size``).

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> design_effect(0.1, 5)
    1.4
    >>> round(design_effect(0.1, sizes=[1, 9]), 2)
    1.72
    """
    from heldout._checks import broadcast, scalar_or_array

    rho = as_probability(icc, "icc", closed=True)
    if (cluster_size is None) == (sizes is None):
        raise ValueError(
            "give exactly one of cluster_size (equal sizes) and sizes (each cluster's)"
        )
    if sizes is not None:
        m = np.asarray(size_weighted_cluster_size(sizes))
    else:
        m = as_positive(cluster_size, "cluster_size")
        if np.any(m < 1):
            raise ValueError(f"cluster_size must be at least 1, got {show(cluster_size)}")
    rho, m = broadcast(icc=rho, cluster_size=m)
    return scalar_or_array(1.0 + (m - 1.0) * rho)


def effective_size(n: ArrayLike, design_effect: ArrayLike) -> float | np.ndarray:
    r"""Effective sample size :math:`n_{\mathrm{eff}} = n / \mathrm{deff}` :cite:`kish1965survey`.

    The number of independent items that would give the mean the same variance.

    Examples
    --------
    >>> effective_size(1000, 2.5)
    400.0
    """
    from heldout._checks import broadcast, scalar_or_array

    n_arr = as_positive(n, "n")
    d = as_positive(design_effect, "design_effect")
    n_arr, d = broadcast(n=n_arr, design_effect=d)
    return scalar_or_array(n_arr / d)


# --------------------------------------------------------------------------- cluster bootstrap
@dataclass(frozen=True)
class BootstrapInterval(EstimateResult):
    """A cluster-bootstrap percentile interval.  Unpacks as ``(estimate, low, high)``.

    Attributes
    ----------
    estimate : float
        The statistic on the data (a mean, or a difference of means).
    low, high : float
        The :math:`\\alpha/2` and :math:`1-\\alpha/2` quantiles of the resampled statistic.
    se : float
        The standard deviation of the resampled statistic.
    n_resamples, clusters : int
    alpha : float
    """

    n_resamples: int = extra()
    clusters: int = extra()
    alpha: float = extra()


#: Resampled statistics computed per chunk, to bound memory (chunk * G counts).
_CHUNK_CELLS = 4_000_000


def _resampled_means(sums, sizes, n_resamples: int, gen) -> np.ndarray:
    """Means of ``n_resamples`` cluster resamples, from per-cluster sums and sizes.

    Each resample draws ``G`` cluster indices uniformly with replacement (so the counts
    of each cluster are Multinomial(G, 1/G)); the resampled mean is the drawn clusters'
    total score over their total size, gathered from ``sums`` and ``sizes``.  ``sums``
    and ``sizes`` have shape (..., G); the result has shape (..., n_resamples).
    """
    g = sizes.shape[-1]
    lead = sizes.shape[:-1]
    rows = int(np.prod(lead, dtype=np.int64))
    s = np.asarray(sums, dtype=float).reshape(-1)
    m = np.asarray(sizes, dtype=float).reshape(-1)
    offsets = (np.arange(rows, dtype=np.int64) * g)[:, None, None]
    out = np.empty((rows, n_resamples))
    chunk = max(1, _CHUNK_CELLS // (g * rows))
    small = rows * g < 2**31
    for start in range(0, n_resamples, chunk):
        b = min(chunk, n_resamples - start)
        idx = gen.integers(0, g, size=(rows, b, g), dtype=np.int32 if small else np.int64)
        if rows > 1:
            idx = idx + offsets.astype(idx.dtype)
        out[:, start : start + b] = s[idx].sum(axis=-1) / m[idx].sum(axis=-1)
    return out.reshape(lead + (n_resamples,))


def cluster_bootstrap(
    scores: ArrayLike,
    clusters: ArrayLike,
    *,
    alpha: float = 0.05,
    n_resamples: int = 2000,
    seed=None,
) -> BootstrapInterval:
    r"""Percentile interval for a mean score by resampling whole clusters.

    Each resample draws :math:`G` clusters with replacement (counts
    :math:`c \sim \mathrm{Multinomial}(G, 1/G)`) and computes the mean over the items
    of the drawn clusters, :math:`\sum_g c_g S_g / \sum_g c_g m_g` with :math:`S_g` the
    cluster's sum of scores :cite:`field2007bootstrapping,davison1997bootstrap`.  The
    interval is the :math:`\alpha/2` and :math:`1-\alpha/2` quantiles of the
    resampled means.  Resampling clusters keeps the correlation inside each cluster;
    resampling items would break it and give the too-narrow independent-item answer.
    With few clusters it undercovers (see the module notes).

    Parameters
    ----------
    scores, clusters : array_like, shape (n,)
        As in :func:`clustered_mean`.
    alpha : float
        One minus the confidence level.
    n_resamples : int
        Number of resamples (at least 100).
    seed : int, Generator or None
        Seed for :func:`heldout.config.rng`.

    Returns
    -------
    BootstrapInterval

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 1]
    >>> r = cluster_bootstrap(y, [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4], seed=1)
    >>> round(r.estimate, 3), r.low <= r.estimate <= r.high
    (0.667, True)
    """
    from heldout.config import rng

    y = _scores(scores)
    codes, g = cluster_codes(clusters, y.size)
    a = _alpha(alpha)
    b = _count(n_resamples, "n_resamples", 100, 10_000_000)
    sums, _, sizes = _per_cluster(y, codes, g)
    means = _resampled_means(sums, sizes, b, rng(seed))
    low, high = np.quantile(means, [a / 2, 1 - a / 2])
    return BootstrapInterval(
        estimate=float(y.mean()),
        low=float(low),
        high=float(high),
        se=float(means.std(ddof=1)),
        n_resamples=b,
        clusters=g,
        alpha=a,
    )


def paired_cluster_bootstrap(
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    clusters: ArrayLike,
    *,
    alpha: float = 0.05,
    n_resamples: int = 2000,
    seed=None,
) -> BootstrapInterval:
    r"""Cluster-bootstrap interval for the difference of two models on the same items.

    Both models are scored on the *same* resampled clusters, so the interval keeps the
    pairing as well as the clustering: each resample's difference is
    :math:`\sum_g c_g (S^a_g - S^b_g) / \sum_g c_g m_g`, the resampled mean of the
    per-item differences :math:`a_i - b_i` :cite:`field2007bootstrapping`.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (n,)
        The two models' scores on the same items.
    clusters : array_like, shape (n,)
    alpha, n_resamples, seed
        As in :func:`cluster_bootstrap`.

    Returns
    -------
    BootstrapInterval
        ``estimate`` is :math:`\bar a - \bar b`.

    Examples
    --------
    >>> a = [1, 1, 1, 0, 1, 1, 1, 1]
    >>> b = [1, 0, 1, 0, 0, 1, 1, 0]
    >>> r = paired_cluster_bootstrap(a, b, [1, 1, 2, 2, 3, 3, 4, 4], seed=2)
    >>> r.estimate, r.low >= 0
    (0.375, True)
    """
    return cluster_bootstrap(
        _differences(scores_a, scores_b), clusters, alpha=alpha, n_resamples=n_resamples, seed=seed
    )


# --------------------------------------------------------------------------- coverage by simulation
@dataclass(frozen=True)
class Coverage(Result):
    """Coverage of four intervals on simulated clustered test sets.

    Unpacks as ``(naive, clustered_t, clustered_wilson, bootstrap)``: the share of
    simulated test sets whose interval contains the true accuracy.

    Attributes
    ----------
    naive : float
        The independent-item interval :math:`\\bar y \\pm z\\, s/\\sqrt n`.
    clustered_t : float
        The cluster-robust interval, CR1 with Student's :math:`t_{G-1}` (``method="t"``).
    clustered_wilson : float
        Wilson's interval on the effective sample size (``method="wilson"``).
    bootstrap : float or None
        The cluster-bootstrap percentile interval (None if not simulated).
    mc_se : float
        Monte Carlo standard error of a coverage at the nominal level,
        :math:`\\sqrt{(1-\\alpha)\\alpha/R}`.
    mean_design_effect : float
        Mean over the repetitions of the estimated design effect.
    design_effect : float
        The population's design effect :math:`1 + (m^\\ast-1)\\rho`.
    reps : int
    """

    naive: float
    clustered_t: float
    clustered_wilson: float
    bootstrap: float | None
    mc_se: float = extra()
    mean_design_effect: float = extra()
    design_effect: float = extra()
    reps: int = extra()


def simulate_clustered(
    accuracy: float,
    icc: float,
    sizes: ArrayLike,
    reps: int,
    seed=None,
) -> np.ndarray:
    r"""Correct answers per cluster on ``reps`` simulated clustered test sets.

    The population: each cluster :math:`g` has its own accuracy
    :math:`p_g \sim \mathrm{Beta}(a, b)` with mean ``accuracy`` and
    :math:`a + b = (1-\rho)/\rho`, and its :math:`m_g` items are independent
    Bernoulli(:math:`p_g`) given :math:`p_g`; two items of a cluster are then correlated
    with correlation exactly :math:`\rho` (the beta-binomial model).  ``icc_ = 0`` gives
    independent items.  (Inputs are not checked here; :func:`simulate_coverage` checks them.)

    Returns
    -------
    ndarray of float, shape (reps, G)
        The number of correct answers in each cluster.

    Examples
    --------
    >>> simulate_clustered(0.9, 0.1, [3, 5], reps=4, seed=1).shape
    (4, 2)
    """
    from heldout.config import rng

    gen = rng(seed)
    accuracy = float(as_probability(accuracy, "accuracy", closed=True, scalar=True))
    icc = float(as_probability(icc, "icc", closed=True, scalar=True))
    if as_floats(sizes, "sizes").ndim > 1:
        raise ValueError(f"sizes must be a 1-D list of cluster sizes, got {show(sizes)}")
    m = np.atleast_1d(as_count(sizes, "sizes", minimum=1)).astype(np.int64)
    reps = int(as_count(reps, "reps", minimum=1, scalar=True))
    if reps * m.size > 10**8:
        raise ValueError(f"reps * len(sizes) must be at most 1e8, got {reps * m.size:.3g}")
    if icc == 0:
        return gen.binomial(m, accuracy, size=(reps, m.size)).astype(float)
    total = (1.0 - icc) / icc
    if icc == 1:  # every item of a cluster agrees: the cluster is right or wrong as one
        p_g = (gen.random((reps, m.size)) < accuracy).astype(float)
    elif 0 < accuracy < 1:
        p_g = gen.beta(accuracy * total, (1 - accuracy) * total, size=(reps, m.size))
    else:  # every cluster has the same accuracy 0 or 1
        p_g = np.full((reps, m.size), float(accuracy))
    return gen.binomial(m, p_g).astype(float)


def simulate_coverage(
    accuracy: float,
    icc: float,
    cluster_size: int | ArrayLike,
    clusters: int | None = None,
    *,
    alpha: float = 0.05,
    reps: int = 2000,
    n_resamples: int | None = 500,
    seed=None,
) -> Coverage:
    r"""Coverage of the naive, two cluster-robust and the cluster-bootstrap intervals, by simulation.

    Draws ``reps`` test sets from the beta-binomial population of
    :func:`simulate_clustered` (true accuracy ``accuracy``, intra-cluster correlation
    ``icc``) and reports how often each interval at level :math:`1-\alpha` contains
    the true accuracy.  Each interval is computed by the same vectorised code as
    :func:`clustered_mean` and :func:`cluster_bootstrap`.

    Parameters
    ----------
    accuracy : float
        True accuracy, in (0, 1).
    icc : float
        Intra-cluster correlation of the population, in [0, 1).
    cluster_size : int or array_like of int
        The common size of the clusters, or the size of each cluster (then
        ``clusters`` is ignored).
    clusters : int
        Number of clusters :math:`G` (at least 2) when ``cluster_size`` is an int.
    alpha : float
        One minus the confidence level.
    reps : int
        Simulated test sets.
    n_resamples : int or None
        Bootstrap resamples per test set; None skips the bootstrap.
    seed : int, Generator or None

    Returns
    -------
    Coverage

    Examples
    --------
    >>> c = simulate_coverage(0.8, 0.2, 10, 30, reps=400, n_resamples=None, seed=3)
    >>> c.naive < c.clustered_wilson
    True
    """
    from heldout.config import rng

    p = float(as_probability(accuracy, "accuracy", scalar=True))
    rho = float(as_probability(icc, "icc", closed=True, scalar=True))
    if rho >= 1:
        raise ValueError(f"icc must be below 1 for a simulation, got {show(icc)}")
    a = _alpha(alpha)
    size_arr = _inputs.array(cluster_size, "cluster_size")
    if size_arr.ndim == 0:
        if clusters is None:
            raise ValueError("clusters must be given when cluster_size is a single number")
        g = _count(clusters, "clusters", 2, 10**8)
        m = np.full(g, _count(cluster_size, "cluster_size", 1, 10**9))
    else:
        m = as_count(size_arr, "cluster_size", minimum=1)
        if m.ndim != 1 or m.size < 2:
            raise ValueError("cluster_size must list at least two cluster sizes")
        g = m.size
    r = _count(reps, "reps", 10, 10**9)
    if r * g > 200_000_000:
        raise ValueError(f"reps * clusters must be at most 2e8 (memory), got {r * g}")
    gen = rng(seed)
    sums = simulate_clustered(p, rho, m, r, gen)
    sizes = np.broadcast_to(m.astype(float), sums.shape)
    # binary scores: y^2 = y, so the per-cluster sum of squares is the sum
    mean, var_iid, var_cr, _ = _moments(sums, sums, sizes, "CR1")
    n = m.sum()

    def covered(method, var):
        lo, hi = _interval(mean, var_iid, var, n, g, a, method)
        return float(np.mean((lo <= p) & (p <= hi)))

    boot = None
    if n_resamples is not None:
        b = _count(n_resamples, "n_resamples", 100, 10**6)
        means = _resampled_means(sums, sizes, b, gen)
        qlo, qhi = np.quantile(means, [a / 2, 1 - a / 2], axis=-1)
        boot = float(np.mean((qlo <= p) & (p <= qhi)))
    with np.errstate(invalid="ignore", divide="ignore"):
        deff_hat = np.where(var_iid > 0, var_cr / var_iid, np.nan)
    return Coverage(
        naive=covered("normal", var_iid),
        clustered_t=covered("t", var_cr),
        clustered_wilson=covered("wilson", var_cr),
        bootstrap=boot,
        mc_se=float(np.sqrt(a * (1 - a) / r)),
        mean_design_effect=float(np.nanmean(deff_hat)) if np.any(np.isfinite(deff_hat)) else 1.0,
        design_effect=float(1 + (size_weighted_cluster_size(m) - 1) * rho),
        reps=r,
    )
