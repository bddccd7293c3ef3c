"""F1, balanced accuracy and their multi-class averages, with intervals.

**Binary F1.** :math:`F_1 = 2TP/(2TP + FP + FN)` ignores the true negatives.  Its
delta-method variance under multinomial sampling of the confusion matrix
:cite:`takahashi2022` reduces to

.. math:: \\widehat{\\operatorname{Var}}(F_1) = \\frac{4\\,TP\\,E\\,(TP + E)}{(2TP + E)^4},
          \\qquad E = FP + FN,

(the test-set size cancels).  F1 is also a monotone function of the Jaccard index
:math:`J = TP/(TP + E)`, :math:`F_1 = 2J/(1+J)`, and given the :math:`m = TP + E`
items that are actual or predicted positives, :math:`TP \\sim \\mathrm{Binomial}(m, J)`.
So the exact Clopper-Pearson interval for :math:`J` :cite:`clopper1934`, mapped
through :math:`2J/(1+J)`, is an interval for F1 with coverage at least
:math:`1-\\alpha` for every true value (``method="exact"``, the default).

**Balanced accuracy** :math:`(\\text{sensitivity} + \\text{specificity})/2`:
delta-method variance
:math:`\\tfrac14\\big(\\hat s(1-\\hat s)/n_1 + \\hat t(1-\\hat t)/n_0\\big)`, by
default after Agresti and Caffo's adjustment (one success and one failure added
to each proportion), which keeps its level with a small class.

**Several classes** (matrix :math:`C`, rows true class, columns predicted class,
cell shares :math:`p_{ij}`): the micro-averaged F1 of single-label
classification equals the accuracy :math:`\\sum_i p_{ii}`, a binomial proportion
(exact interval); the macro average :math:`\\frac1K\\sum_c F_{1,c}` with
:math:`F_{1,c} = 2p_{cc}/(p_{c\\cdot} + p_{\\cdot c})` gets the delta-method variance
:math:`(\\sum_{ij} g_{ij}^2 p_{ij} - (\\sum_{ij} g_{ij}p_{ij})^2)/n` with the
gradient :math:`g_{ij} = \\partial\\,\\text{macro-}F_1/\\partial p_{ij}` of
:cite:`takahashi2022`; macro precision and macro recall (the multi-class balanced
accuracy) likewise.

Delta-method intervals come on two scales: ``"wald"`` (estimate :math:`\\pm z`
se, as :cite:`takahashi2022`, clipped to [0, 1]) and ``"logit"`` (on the logit
scale, then mapped back).  Both are large-sample approximations and collapse to a
point when the estimate is 0 or 1; the book's coverage figures show where they
undercover.  Every function takes arrays of counts (or stacks of matrices) so
that simulations run vectorised.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from heldout import _dist, _inputs
from heldout._checks import in_choices, show
from heldout.metrics.estimate import Estimate

__all__ = [
    "AVERAGES",
    "BALANCED_METHODS",
    "DELTA_METHODS",
    "F1_METHODS",
    "balanced_accuracy_interval",
    "class_f1",
    "f1_interval",
    "f1_score",
    "macro_interval",
    "micro_f1_interval",
]

#: Scales of the delta-method intervals.
DELTA_METHODS = ("logit", "wald")
#: Methods of :func:`f1_interval`.
F1_METHODS = ("exact", "logit", "wald")
#: Methods of :func:`balanced_accuracy_interval`.
BALANCED_METHODS = ("agresti-caffo", "logit", "wald")
#: Averages of :func:`macro_interval`.
AVERAGES = ("f1", "precision", "recall", "specificity")


def _delta_interval(value, se, alpha, method):
    """Wald or logit interval from an estimate and its delta-method standard error."""
    z = _dist.norm_isf(alpha / 2)
    value = np.asarray(value, dtype=float)
    se = np.asarray(se, dtype=float)
    if method == "wald":
        return np.clip(value - z * se, 0, 1), np.clip(value + z * se, 0, 1)
    inner = (value > 0) & (value < 1) & (se > 0)
    v = np.where(inner, value, 0.5)
    centre = special.logit(v)
    half = z * se / (v * (1 - v))
    low = np.where(inner, special.expit(centre - half), value)
    high = np.where(inner, special.expit(centre + half), value)
    return low, high


def _estimate(value, low, high, se, method, n, alpha):
    return Estimate.from_arrays(value, low, high, method=method, se=se, n=n, alpha=alpha)


def _check_method(method, allowed):
    if not in_choices(method, allowed):
        raise ValueError(f"method must be one of {', '.join(allowed)}, got {show(method)}")


# --------------------------------------------------------------------------- binary F1
def f1_interval(
    tp: ArrayLike, fp: ArrayLike, fn: ArrayLike, alpha: float = 0.05, method: str = "exact"
) -> Estimate:
    """Interval for the F1 score from the counts of a binary confusion matrix.

    ``"exact"`` (default)
        Clopper-Pearson on the Jaccard index :math:`J = TP/(TP+FP+FN)` (binomial given
        :math:`m = TP+FP+FN`), mapped through :math:`F_1 = 2J/(1+J)`
        :cite:`clopper1934`: coverage at least :math:`1-\\alpha` whatever the truth.
    ``"logit"``, ``"wald"``
        Delta method :cite:`takahashi2022`,
        :math:`\\widehat{\\operatorname{Var}} = 4\\,TP\\,E(TP+E)/(2TP+E)^4`, :math:`E = FP+FN`,
        on the logit scale or the raw scale.

    Parameters
    ----------
    tp, fp, fn : int or array_like
        True positives, false positives, false negatives (broadcast together);
        ``tp + fp + fn`` must be at least 1 (else F1 is undefined).
    alpha : float, default 0.05
    method : {"exact", "logit", "wald"}

    Returns
    -------
    Estimate
        ``n`` is ``tp + fp + fn``, the items F1 depends on.

    Examples
    --------
    >>> e = f1_interval(80, 20, 30)
    >>> round(e.value, 4), round(e.low, 4), round(e.high, 4)
    (0.7619, 0.6894, 0.8231)
    >>> round(f1_interval(80, 20, 30, method="wald").high, 4)
    0.826
    """
    _check_method(method, F1_METHODS)
    a = _inputs.alpha_value(alpha)
    t = _inputs.count(tp, "tp").astype(float)
    e = _inputs.count(fp, "fp").astype(float) + _inputs.count(fn, "fn").astype(float)
    try:
        t, e = np.broadcast_arrays(t, e)
    except ValueError:
        raise ValueError("tp, fp and fn must have shapes that broadcast together") from None
    m = t + e
    if np.any(m == 0):
        raise ValueError("tp + fp + fn is 0: F1 is undefined (no positives, none predicted)")
    value = 2 * t / (2 * t + e)
    se = np.sqrt(4 * t * e * m / (2 * t + e) ** 4)
    if method == "exact":
        from heldout.accuracy.bounds import exact_lower, exact_upper

        j_low = np.asarray(exact_lower(t, m, a / 2), dtype=float)
        j_high = np.asarray(exact_upper(t, m, a / 2), dtype=float)
        low, high = 2 * j_low / (1 + j_low), 2 * j_high / (1 + j_high)
    else:
        low, high = _delta_interval(value, se, a, method)
    return _estimate(value, low, high, se, f"f1-{method}", m.astype(np.int64), a)


def f1_score(y: ArrayLike, pred: ArrayLike, alpha: float = 0.05, method: str = "exact") -> Estimate:
    """F1 score of binary predicted labels with the interval of :func:`f1_interval`.

    Examples
    --------
    >>> round(f1_score([1, 1, 0, 0, 1, 1], [1, 0, 0, 1, 1, 1]).value, 4)
    0.75
    """
    from heldout.metrics.rates import confusion

    c = confusion(y, pred)
    return f1_interval(c.tp, c.fp, c.fn, alpha, method)


# --------------------------------------------------------------------------- balanced accuracy
def balanced_accuracy_interval(
    tp: ArrayLike,
    fp: ArrayLike,
    fn: ArrayLike,
    tn: ArrayLike,
    alpha: float = 0.05,
    method: str = "agresti-caffo",
) -> Estimate:
    """Interval for the balanced accuracy ``(sensitivity + specificity) / 2``.

    Sensitivity :math:`\\hat s = TP/n_1` and specificity :math:`\\hat t = TN/n_0` are
    independent binomial proportions given the class counts, so

    .. math:: \\widehat{\\operatorname{Var}} = \\tfrac14\\Big(\\frac{\\hat s(1-\\hat s)}{n_1}
              + \\frac{\\hat t(1-\\hat t)}{n_0}\\Big).

    ``"agresti-caffo"`` (default): the same Wald interval after adding one
    success and one failure to each proportion,
    :math:`\\tilde s = (TP+1)/(n_1+2)`, :math:`\\tilde t = (TN+1)/(n_0+2)`, centred at
    :math:`(\\tilde s + \\tilde t)/2` :cite:`agresti2000`; it keeps close to its level
    when one class is small or a rate is near 1, where the plain delta-method
    intervals (``"logit"``, ``"wald"``) collapse (an observed sensitivity of 1
    has zero estimated variance).  The reported value is the plain balanced
    accuracy.

    Examples
    --------
    >>> e = balanced_accuracy_interval(40, 10, 10, 90)
    >>> round(e.value, 3), round(e.low, 3), round(e.high, 3)
    (0.85, 0.777, 0.903)
    """
    _check_method(method, BALANCED_METHODS)
    a = _inputs.alpha_value(alpha)
    t, f_p, f_n, t_n = (
        _inputs.count(v, name).astype(float)
        for v, name in ((tp, "tp"), (fp, "fp"), (fn, "fn"), (tn, "tn"))
    )
    try:
        t, f_p, f_n, t_n = np.broadcast_arrays(t, f_p, f_n, t_n)
    except ValueError:
        raise ValueError("tp, fp, fn and tn must have shapes that broadcast together") from None
    n1, n0 = t + f_n, t_n + f_p
    if np.any(n1 == 0) or np.any(n0 == 0):
        raise ValueError("balanced accuracy needs both classes: tp + fn and tn + fp must be >= 1")
    value = (t / n1 + t_n / n0) / 2
    low, high, se = _balanced_interval(t, n1, t_n, n0, a, method)
    return _estimate(value, low, high, se, f"balanced-accuracy-{method}", n1 + n0, a)


def _balanced_interval(tp, n1, tn, n0, alpha, method):
    """Vectorised balanced-accuracy interval; returns low, high, se."""
    if method == "agresti-caffo":
        s, t = (tp + 1) / (n1 + 2), (tn + 1) / (n0 + 2)
        se = 0.5 * np.sqrt(s * (1 - s) / (n1 + 2) + t * (1 - t) / (n0 + 2))
        z = _dist.norm_isf(alpha / 2)
        centre = (s + t) / 2
        return np.clip(centre - z * se, 0, 1), np.clip(centre + z * se, 0, 1), se
    s, t = tp / n1, tn / n0
    se = 0.5 * np.sqrt(s * (1 - s) / n1 + t * (1 - t) / n0)
    low, high = _delta_interval((s + t) / 2, se, alpha, method)
    return low, high, se


# --------------------------------------------------------------------------- several classes
def _stack(matrix) -> np.ndarray:
    arr = _inputs.array(matrix, "matrix")
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2] or arr.shape[-1] < 2:
        raise ValueError(
            f"matrix must be a K x K confusion matrix (or a stack of them) with K >= 2, "
            f"got shape {arr.shape}"
        )
    c = _inputs.count(arr, "matrix").astype(float)
    if np.any(c.sum(axis=(-2, -1)) == 0):
        raise ValueError("matrix must hold at least one item")
    return c


def _macro_value_and_gradient(p: np.ndarray, average: str):
    """Macro average and its gradient with respect to the cell shares p (..., K, K)."""
    k = p.shape[-1]
    diag = np.diagonal(p, axis1=-2, axis2=-1)
    rows, cols = p.sum(axis=-1), p.sum(axis=-2)
    eye = np.eye(k, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        if average == "f1":
            d = rows + cols
            per = np.where(d > 0, 2 * diag / np.where(d > 0, d, 1), 0.0)
            r = np.where(d > 0, per / np.where(d > 0, d, 1), 0.0)  # F_c / D_c
            # d/dp_ij: diagonal (2/D)(1 - F); off-diagonal -(F_i/D_i + F_j/D_j)
            grad = -(r[..., :, None] + r[..., None, :])
            on = np.where(d > 0, 2 * (1 - per) / np.where(d > 0, d, 1), 0.0)
        elif average == "specificity":
            # spec_c = N_c / D_c, D_c = items not of class c, N_c = those not predicted c:
            # d spec_c / d p_ij = [i != c] ([j != c] - spec_c) / D_c
            n_all = p.sum(axis=(-2, -1))[..., None]
            d = n_all - rows
            safe = np.where(d > 0, d, 1)
            per = np.where(d > 0, (n_all - rows - cols + diag) / safe, 0.0)
            u = np.where(d > 0, 1 / safe, 0.0)
            v = per * u
            big_u = u.sum(axis=-1)[..., None, None]
            big_v = v.sum(axis=-1)[..., None, None]
            grad = big_u - u[..., :, None] - u[..., None, :] - big_v + v[..., :, None]
            grad = grad + np.where(eye, u[..., :, None], 0.0)
            return per.mean(axis=-1), grad / k, per
        else:
            d = rows if average == "recall" else cols
            safe = np.where(d > 0, d, 1)
            per = np.where(d > 0, diag / safe, 0.0)
            r = np.where(d > 0, per / safe, 0.0)  # rate_c / denominator_c
            if average == "recall":  # d/dp_ij = -r_i for j != i (row i)
                grad = -np.broadcast_to(r[..., :, None], p.shape).copy()
            else:  # precision: d/dp_ij = -r_j for i != j (column j)
                grad = -np.broadcast_to(r[..., None, :], p.shape).copy()
            on = np.where(d > 0, (1 - per) / safe, 0.0)
    grad = np.where(eye, on[..., :, None] * eye, grad)
    return per.mean(axis=-1), grad / k, per


def macro_interval(
    matrix: ArrayLike, average: str = "f1", alpha: float = 0.05, method: str = "logit"
) -> Estimate:
    """Delta-method interval for a macro average over the classes of a confusion matrix.

    ``average="f1"``: :math:`\\frac1K\\sum_c 2C_{cc}/(C_{c\\cdot}+C_{\\cdot c})`;
    ``"specificity"``: the mean over classes of the share of items not of class
    :math:`c` that are not predicted :math:`c`;
    ``"recall"``: :math:`\\frac1K\\sum_c C_{cc}/C_{c\\cdot}` (the multi-class balanced
    accuracy); ``"precision"``: :math:`\\frac1K\\sum_c C_{cc}/C_{\\cdot c}` (a class never
    predicted counts 0, as scikit-learn's default).  The variance is the delta
    method under multinomial sampling of the cells,
    :math:`(\\sum g_{ij}^2\\hat p_{ij} - (\\sum g_{ij}\\hat p_{ij})^2)/n`
    :cite:`takahashi2022`, with :math:`g` the exact gradient of the average.

    Parameters
    ----------
    matrix : array_like, shape (K, K) or (..., K, K)
        Confusion counts, rows true class, columns predicted class.
    average : {"f1", "precision", "recall"}
    alpha : float, default 0.05
    method : {"logit", "wald"}

    Examples
    --------
    >>> m = [[50, 3, 2], [4, 40, 6], [1, 5, 39]]
    >>> e = macro_interval(m)
    >>> round(e.value, 4), round(e.se, 4)
    (0.8577, 0.0286)
    """
    _check_method(method, DELTA_METHODS)
    if not in_choices(average, AVERAGES):
        raise ValueError(f"average must be one of {', '.join(AVERAGES)}, got {show(average)}")
    a = _inputs.alpha_value(alpha)
    c = _stack(matrix)
    n = c.sum(axis=(-2, -1))
    p = c / n[..., None, None]
    value, g, _ = _macro_value_and_gradient(p, average)
    first = (g * p).sum(axis=(-2, -1))
    var = ((g**2 * p).sum(axis=(-2, -1)) - first**2) / n
    se = np.sqrt(np.maximum(var, 0.0))
    low, high = _delta_interval(value, se, a, method)
    return _estimate(value, low, high, se, f"macro-{average}-{method}", n.astype(np.int64), a)


def micro_f1_interval(matrix: ArrayLike, alpha: float = 0.05) -> Estimate:
    """Micro-averaged F1 of single-label classification, which equals the accuracy.

    Pooling every class's true positives, false positives and false negatives
    gives micro precision = micro recall = :math:`\\sum_i C_{ii}/n`, the accuracy
    :cite:`takahashi2022`: a binomial proportion, so the exact Clopper-Pearson
    interval applies.

    Examples
    --------
    >>> e = micro_f1_interval([[50, 3, 2], [4, 40, 6], [1, 5, 39]])
    >>> round(e.value, 4), round(e.low, 4)
    (0.86, 0.794)
    """
    from heldout.metrics.rates import rate_interval

    c = _stack(matrix)
    if c.ndim != 2:
        raise ValueError("micro_f1_interval takes one K x K matrix")
    k = int(np.trace(c))
    e = rate_interval(k, int(c.sum()), alpha)
    return Estimate(e.value, e.low, e.high, method="micro-f1-exact", n=e.n, alpha=e.alpha)


def class_f1(matrix: ArrayLike, alpha: float = 0.05, method: str = "exact") -> list:
    """F1 of every class (one-vs-rest) of a confusion matrix, with :func:`f1_interval`.

    Returns a list of :class:`~heldout.metrics.estimate.Estimate` (``None`` for a class that
    is neither present nor predicted).

    Examples
    --------
    >>> [round(e.value, 3) for e in class_f1([[50, 3, 2], [4, 40, 6], [1, 5, 39]])]
    [0.909, 0.816, 0.848]
    """
    c = _stack(matrix)
    if c.ndim != 2:
        raise ValueError("class_f1 takes one K x K matrix")
    diag = np.diag(c)
    out = []
    for i in range(c.shape[0]):
        fp = c[:, i].sum() - diag[i]
        fn = c[i, :].sum() - diag[i]
        out.append(f1_interval(diag[i], fp, fn, alpha, method) if diag[i] + fp + fn > 0 else None)
    return out
