r"""How many clusters, and how many items per cluster, a clustered test set needs.

With clusters of :math:`m` items and intra-cluster correlation :math:`\rho`, the mean of
:math:`n = Gm` items has variance

.. math:: \mathrm{Var}(\bar y) = \frac{\sigma^2}{n}\,\{1 + (m-1)\rho\}
          = \frac{\sigma^2}{G}\Big(\rho + \frac{1-\rho}{m}\Big),

Kish's design effect :math:`1 + (m-1)\rho` times the independent-item variance
:cite:`kish1965survey`.  Every size the rest of the book computes for independent
items is therefore too small by that factor, and items beyond a few per cluster buy
little: the variance never falls below :math:`\sigma^2\rho/G` however many items each
cluster holds.  This module turns a target into a design:

* :func:`clusters_for_half_width`: clusters (and items) for an interval of half-width
  :math:`h` at level :math:`1-\alpha`;
* :func:`clusters_for_power`: clusters for a one-sample test of an accuracy against a
  required value;
* :func:`optimal_cluster_size` and :func:`cheapest_design`: the number of items per
  cluster that minimises the cost of a target precision when a cluster costs
  :math:`c_1` and an item :math:`c_2`, the classic
  :math:`m^\ast = \sqrt{(c_1/c_2)(1-\rho)/\rho}` :cite:`cochran1977sampling`.

These are plug-in sizes: they assume the ICC and the accuracy you give, and the
normal (or Student) approximation of the interval; a wrong guess of :math:`\rho`
changes the answer in proportion to the design effect.  They are not guarantees.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from heldout._checks import as_count, as_positive, as_probability, check_elements, in_choices, show
from heldout._result import Result, extra

__all__ = [
    "ClusterSize",
    "Design",
    "cheapest_design",
    "clusters_for_half_width",
    "clusters_for_power",
    "optimal_cluster_size",
]

#: Largest number of clusters a search returns (beyond it the target is unreachable in practice).
MAX_CLUSTERS = 10**15
METHODS = ("t", "normal")


def _scalar(value, name: str, check, **kwargs) -> float:
    arr = check(value, name, **kwargs)
    if np.ndim(arr):
        raise ValueError(f"{name} must be a single number, got an array of shape {np.shape(arr)}")
    return float(arr)


def _variance(accuracy, variance) -> float:
    if (accuracy is None) == (variance is None):
        raise ValueError("give exactly one of accuracy (for 0/1 scores) and variance (any score)")
    if accuracy is not None:
        p = _scalar(accuracy, "accuracy", as_probability)
        return p * (1 - p)
    return _scalar(variance, "variance", as_positive)


def _method(method: str) -> str:
    if not in_choices(method, METHODS):
        raise ValueError(f"method must be 't' or 'normal', got {show(method)}")
    return method


def _clusters_needed(per_cluster_var, half_width, alpha, method):
    r"""Smallest :math:`G \ge 2` with :math:`q_G^2\, v / G \le h^2`, vectorised over ``per_cluster_var``.

    ``per_cluster_var`` is :math:`v = \sigma^2\,\mathrm{deff}/m`, the variance of one
    cluster's contribution; :math:`q_G` is :math:`z_{1-\alpha/2}` (``"normal"``) or
    :math:`t_{G-1,1-\alpha/2}` (``"t"``).  :math:`G - q_G^2 v/h^2` increases with
    :math:`G`, so a bisection between the normal size and a doubled upper end finds it.
    """
    v = np.asarray(per_cluster_var, dtype=float)
    z = stats.norm.isf(alpha / 2)
    with np.errstate(over="ignore"):  # a huge half-width needs the minimum of 2 clusters
        raw = z**2 * v / np.square(np.float64(half_width))
    if np.any(raw > MAX_CLUSTERS):
        raise ValueError(
            f"half_width {show(half_width)} is too small: it needs more than {MAX_CLUSTERS:.0e} clusters"
        )
    lo = np.maximum(np.ceil(raw * (1 - 1e-12)), 2.0)
    if method == "normal":
        return lo.astype(np.int64)

    h2 = np.square(np.float64(half_width)) if half_width < 1e150 else np.inf  # no OverflowError

    def ok(g):
        return stats.t.isf(alpha / 2, g - 1) ** 2 * v <= g * h2

    done = ok(lo)
    hi = lo.copy()
    for _ in range(64):
        bad = ~ok(hi)
        if not bad.any():
            break
        hi = np.where(bad, hi * 2, hi)
    lo = np.where(done, lo, lo)  # ok(lo) false where not done
    for _ in range(64):
        active = ~done & (hi - lo > 1)
        if not active.any():
            break
        mid = np.floor((lo + hi) / 2)
        good = ok(mid)
        hi = np.where(active & good, mid, hi)
        lo = np.where(active & ~good, mid, lo)
    return np.where(done, lo, hi).astype(np.int64)


@dataclass(frozen=True)
class ClusterSize(Result):
    """A clustered test-set size.  Unpacks as ``(clusters, items)``.

    Attributes
    ----------
    clusters : int
        Clusters :math:`G`.
    items : int
        Items :math:`G m`.
    items_iid : int
        Items needed if they were independent (design effect 1), normal approximation.
    cluster_size : int
        Items per cluster :math:`m`.
    design_effect : float
        :math:`1 + (m-1)\\rho`.
    method : str
    """

    clusters: int
    items: int
    items_iid: int = extra()
    cluster_size: int = extra()
    design_effect: float = extra()
    method: str = extra()


def clusters_for_half_width(
    half_width: float,
    icc: float,
    cluster_size: int,
    *,
    accuracy: float | None = None,
    variance: float | None = None,
    alpha: float = 0.05,
    method: str = "t",
) -> ClusterSize:
    r"""Clusters needed for a clustered interval of half-width ``half_width``.

    The smallest :math:`G \ge 2` with

    .. math:: q\,\sqrt{\frac{\sigma^2\,\{1 + (m-1)\rho\}}{G\,m}} \le h,

    where :math:`\sigma^2 = p(1-p)` for an accuracy :math:`p` (or the per-item
    ``variance`` of any score) and :math:`q` is :math:`t_{G-1,1-\alpha/2}`
    (``method="t"``, matching :func:`heldout.dependent.clustered.clustered_mean`) or
    :math:`z_{1-\alpha/2}` (``method="normal"``, the closed form
    :math:`G = \lceil z^2\sigma^2\,\mathrm{deff}/(m h^2)\rceil`).  ``items_iid`` is
    the independent-item size :math:`\lceil z^2\sigma^2/h^2\rceil`
    (:func:`heldout.accuracy.sizing.normal_size`).

    Parameters
    ----------
    half_width : float
        Target half-width :math:`h` of the interval.
    icc : float
        Intra-cluster correlation :math:`\rho` in [0, 1].
    cluster_size : int
        Items per cluster :math:`m`.
    accuracy, variance : float
        Exactly one: the expected accuracy, or the per-item variance of the score.
    alpha : float
        One minus the confidence level.
    method : {"t", "normal"}

    Returns
    -------
    ClusterSize

    Examples
    --------
    >>> s = clusters_for_half_width(0.02, 0.1, 5, accuracy=0.9)
    >>> s.clusters, s.items, s.items_iid, round(s.design_effect, 2)
    (245, 1225, 865, 1.4)
    >>> clusters_for_half_width(0.02, 0.1, 5, accuracy=0.9, method="normal").clusters
    243
    """
    from heldout.accuracy.sizing import normal_size

    h = _scalar(half_width, "half_width", as_positive)
    rho = _scalar(icc, "icc", as_probability, closed=True)
    m = int(_scalar(cluster_size, "cluster_size", as_count, minimum=1))
    a = _scalar(alpha, "alpha", as_probability)
    method = _method(method)
    var = _variance(accuracy, variance)
    if var == 0:
        raise ValueError(
            "the score's variance is 0 (accuracy 0 or 1): any test set gives it exactly"
        )
    deff = 1 + (m - 1) * rho
    g = int(_clusters_needed(var * deff / m, h, a, method))
    return ClusterSize(
        clusters=g,
        items=g * m,
        items_iid=int(normal_size(var, h, a)),
        cluster_size=m,
        design_effect=deff,
        method=method,
    )


def clusters_for_power(
    accuracy: float,
    null: float,
    icc: float,
    cluster_size: int,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: str = "greater",
) -> ClusterSize:
    r"""Clusters needed to show an accuracy differs from ``null`` with the given power.

    The normal-approximation size of the one-sample test of :math:`H_0: p = p_0`
    against :math:`p = p_1` :cite:`fleiss2003statistical`, inflated by the design
    effect,

    .. math:: n_{\mathrm{iid}} = \Big(\frac{z_{1-\alpha'}\sqrt{p_0(1-p_0)} +
              z_{\mathrm{power}}\sqrt{p_1(1-p_1)}}{p_1 - p_0}\Big)^2, \qquad
              G = \Big\lceil \frac{n_{\mathrm{iid}}\,\{1 + (m-1)\rho\}}{m} \Big\rceil,

    with :math:`\alpha' = \alpha` for a one-sided test and :math:`\alpha/2` for a
    two-sided one (a plug-in size, not a guarantee).

    Parameters
    ----------
    accuracy : float
        The accuracy :math:`p_1` the test should detect.
    null : float
        The accuracy :math:`p_0` under the null hypothesis.
    icc : float
    cluster_size : int
    alpha, power : float
    alternative : {"greater", "less", "two-sided"}
        ``"greater"``: show :math:`p > p_0` (needs ``accuracy > null``), and so on.

    Returns
    -------
    ClusterSize
        ``method`` is ``"normal"``.

    Examples
    --------
    >>> s = clusters_for_power(0.92, 0.9, 0.05, 10)
    >>> s.clusters, s.items_iid
    (189, 1303)
    """
    p1 = _scalar(accuracy, "accuracy", as_probability)
    p0 = _scalar(null, "null", as_probability)
    rho = _scalar(icc, "icc", as_probability, closed=True)
    m = int(_scalar(cluster_size, "cluster_size", as_count, minimum=1))
    a = _scalar(alpha, "alpha", as_probability)
    pw = _scalar(power, "power", as_probability)
    if not in_choices(alternative, ("greater", "less", "two-sided")):
        raise ValueError(
            f"alternative must be 'greater', 'less' or 'two-sided', got {show(alternative)}"
        )
    if p1 == p0 or (alternative == "greater" and p1 < p0) or (alternative == "less" and p1 > p0):
        raise ValueError(
            f"accuracy must differ from null in the direction of alternative={show(alternative)}, "
            f"got accuracy={show(accuracy)} and null={show(null)}"
        )
    za = stats.norm.isf(a / 2 if alternative == "two-sided" else a)
    zb = stats.norm.ppf(pw)
    raw = ((za * np.sqrt(p0 * (1 - p0)) + zb * np.sqrt(p1 * (1 - p1))) / (p1 - p0)) ** 2
    deff = 1 + (m - 1) * rho
    n_iid = int(np.ceil(raw * (1 - 1e-12)))
    g = max(2, int(np.ceil(raw * deff / m * (1 - 1e-12))))
    return ClusterSize(
        clusters=g,
        items=g * m,
        items_iid=n_iid,
        cluster_size=m,
        design_effect=deff,
        method="normal",
    )


def optimal_cluster_size(icc, cost_cluster, cost_item) -> float | np.ndarray:
    r"""Items per cluster that minimise the cost of a given precision.

    .. math:: m^\ast = \sqrt{\frac{c_1}{c_2}\,\frac{1-\rho}{\rho}}

    minimises :math:`\mathrm{Var}(\bar y) \times \mathrm{cost}
    \propto \{\rho + (1-\rho)/m\}(c_1 + m c_2)` over :math:`m`, with :math:`c_1` the
    cost of recruiting one more cluster and :math:`c_2` that of one more item in it
    :cite:`cochran1977sampling`.  It does not depend on the target precision.

    Parameters
    ----------
    icc : float or array_like
        :math:`\rho` in (0, 1).
    cost_cluster, cost_item : float or array_like
        :math:`c_1 \ge 0` and :math:`c_2 > 0`.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(optimal_cluster_size(0.1, 90, 1), 2)
    28.46
    >>> optimal_cluster_size(0.5, 4, 1)
    2.0
    """
    from heldout._checks import broadcast, scalar_or_array

    rho = as_probability(icc, "icc")
    c1 = as_positive(cost_cluster, "cost_cluster", allow_zero=True)
    c2 = as_positive(cost_item, "cost_item")
    rho, c1, c2 = broadcast(icc=rho, cost_cluster=c1, cost_item=c2)
    return scalar_or_array(np.sqrt(c1 / c2 * (1 - rho) / rho))


@dataclass(frozen=True)
class Design(Result):
    """The cheapest clustered design for a target precision.  Unpacks as ``(clusters, cluster_size)``.

    Attributes
    ----------
    clusters, cluster_size, items : int
    cost : float
        :math:`G(c_1 + m c_2)`.
    design_effect : float
    optimum : float
        The continuous optimum :func:`optimal_cluster_size`.
    """

    clusters: int
    cluster_size: int
    items: int = extra()
    cost: float = extra()
    design_effect: float = extra()
    optimum: float = extra()


# Its result's fields and first arguments repeat clusters_for_half_width's (both public);
# the checks' helpers (_scalar, _variance, _method) and _clusters_needed are shared.
def cheapest_design(
    half_width: float,
    icc: float,
    cost_cluster: float,
    cost_item: float,
    *,
    accuracy: float | None = None,
    variance: float | None = None,
    alpha: float = 0.05,
    max_cluster_size: int | None = None,
    method: str = "t",
) -> Design:
    r"""The whole-number design (clusters, items per cluster) of least cost for a half-width.

    For every cluster size :math:`m = 1, \dots, M` it takes the clusters
    :func:`clusters_for_half_width` needs and the cost :math:`G(c_1 + m c_2)`, and
    returns the cheapest (the smallest :math:`m` among ties).  :math:`M` is
    ``max_cluster_size`` (how many items a cluster can hold), or by default
    :math:`\max(10, \lceil 4 m^\ast\rceil)` capped at :math:`10^5`, with :math:`m^\ast`
    the continuous optimum :func:`optimal_cluster_size`, around which the whole-number
    optimum lies (the cost is flat near :math:`m^\ast`).

    Parameters
    ----------
    half_width, icc, accuracy, variance, alpha, method
        As in :func:`clusters_for_half_width`; ``icc`` in (0, 1).
    cost_cluster, cost_item : float
        Cost :math:`c_1` of one more cluster and :math:`c_2` of one more item.
    max_cluster_size : int, optional
        The largest cluster possible.

    Returns
    -------
    Design

    Examples
    --------
    >>> d = cheapest_design(0.02, 0.1, 90, 1, accuracy=0.9)
    >>> d.cluster_size, d.clusters, round(d.optimum, 1)
    (31, 114, 28.5)
    """
    h = _scalar(half_width, "half_width", as_positive)
    rho = _scalar(icc, "icc", as_probability)
    c1 = _scalar(cost_cluster, "cost_cluster", as_positive, allow_zero=True)
    c2 = _scalar(cost_item, "cost_item", as_positive)
    a = _scalar(alpha, "alpha", as_probability)
    method = _method(method)
    var = _variance(accuracy, variance)
    if var == 0:
        raise ValueError(
            "the score's variance is 0 (accuracy 0 or 1): any test set gives it exactly"
        )
    best = float(optimal_cluster_size(rho, c1, c2))
    if max_cluster_size is not None:
        top = int(_scalar(max_cluster_size, "max_cluster_size", as_count, minimum=1))
        check_elements(top, "max_cluster_size (every size up to it is costed)")
    else:
        top = int(min(100_000, max(10, np.ceil(4 * best))))
    m = np.arange(1, top + 1, dtype=float)
    deff = 1 + (m - 1) * rho
    g = _clusters_needed(var * deff / m, h, a, method)
    cost = g * (c1 + m * c2)
    i = int(np.argmin(cost))
    return Design(
        clusters=int(g[i]),
        cluster_size=int(m[i]),
        items=int(g[i] * m[i]),
        cost=float(cost[i]),
        design_effect=float(deff[i]),
        optimum=best,
    )
