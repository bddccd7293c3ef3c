r"""A mean score graded by a judge on many items and by people on a few: PPI and PPI++.

A model's score (accuracy, pass rate) is the mean :math:`\theta = E[Y]` of a per-item
grade :math:`Y` that people (gold labels) would give.  A judge (another model, an "LLM
judge") gives a grade :math:`f` to every item cheaply; people grade only :math:`n` items
drawn at random, and the judge grades those :math:`n` and :math:`N` more.  The judge's
mean alone estimates :math:`E[f]`, not :math:`E[Y]`: its bias :math:`E[f - Y]` does not
shrink with more judged items.  **Prediction-powered inference** (PPI)
:cite:`angelopoulos2023prediction` corrects the judge's mean by the mean disagreement on
the gold items; **PPI++** :cite:`angelopoulos2023ppi` weighs the judge by
:math:`\lambda \in [0, 1]`,

.. math:: \hat\theta_\lambda = \lambda\,\bar f_N + \bar Y_n - \lambda\,\bar f_n, \qquad
          \widehat{\mathrm{Var}} = \lambda^2\,\frac{s^2_{f,N}}{N}
                                   + \frac{s^2_{Y - \lambda f,\,n}}{n},

unbiased for every fixed :math:`\lambda` (:math:`\lambda = 1` is PPI,
:math:`\lambda = 0` the gold-only mean), with the interval
:math:`\hat\theta_\lambda \pm z_{1-\alpha/2}\sqrt{\widehat{\mathrm{Var}}}`.  The variance is
smallest at :math:`\lambda^* = \mathrm{Cov}(Y, f) / ((1 + n/N)\mathrm{Var}(f))`
(:func:`power_tuned_weight`, clipped to :math:`[0, 1]` as ``ppi_py`` does), where it is
:math:`\frac{\sigma_Y^2}{n}\bigl(1 - \frac{N}{n+N}\rho^2\bigr)`, :math:`\rho` the correlation
of judge and gold grades: a judge is worth as many extra gold labels as its squared
correlation allows, whatever its bias.  Boyeau et al. :cite:`boyeau2024autoeval` apply
this to the evaluation of models graded by other models.

Sample variances here divide by :math:`n - 1` (``ppi_py`` divides by :math:`n`; its
intervals are narrower by at most the factor :math:`\sqrt{(n-1)/n}`).  The interval is a
normal approximation: with few gold items, or a rate near 0 or 1 where judge and gold
rarely disagree, the estimated variance of the disagreement can be 0 or far too small.
:func:`ppi_mean` then warns (below :data:`MIN_DISAGREEMENTS` disagreements or
:data:`MIN_EACH_KIND` gold items of the rarer kind) and names the gold-only exact
interval (:func:`classical_mean`), which the book's simulation
(``heldout.book.judge_coverage``) found to hold there.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from heldout._checks import as_choice, as_count, as_floats, as_probability, show
from heldout._result import Result, extra

__all__ = [
    "MIN_DISAGREEMENTS",
    "MIN_EACH_KIND",
    "JudgedMean",
    "classical_mean",
    "judge_only_mean",
    "power_tuned_weight",
    "ppi_difference",
    "ppi_from_counts",
    "ppi_mean",
    "stratified_ppi_mean",
]

#: Gold items on which a 0/1 judge and gold must disagree, and gold items of each kind
#: (right and wrong), before the PPI interval is used without a warning.  In the book's
#: simulation grid (``heldout.book.judge_coverage``: four judges, rates 0.02 to 0.98, gold
#: sets of 30 to 1,000, 4,000 repetitions per cell) PPI++ with at least these counts, and
#: the gold-only exact interval below them, undercovered in 2 of 252 cells (94.2 and
#: 94.3 %); PPI++ alone undercovered in most cells with fewer (down to 36 % at 0.6 expected
#: wrong answers among 30 gold items).  Rechecked with 40,000 repetitions, the worst cell of
#: the lesson's grid (a lenient judge, a score of 50 %, 300 gold items) covers 94.45 %: the
#: weight tuned on the same gold items leaves PPI++'s interval about half a point short
#: with a few hundred gold items.
MIN_DISAGREEMENTS = 30
#: Gold items of the rarer kind of grade (right or wrong) the PPI interval needs without a
#: warning (see :data:`MIN_DISAGREEMENTS` for the simulation behind both limits).
MIN_EACH_KIND = 50

#: Largest number of graded items (gold plus judge) one call accepts.
MAX_ITEMS = 10**9


@dataclass(frozen=True)
class JudgedMean(Result):
    """A mean score from judge and gold grades.  Unpacks as ``(estimate, low, high)``.

    Attributes
    ----------
    estimate : float
        The estimate of the gold-graded mean.
    low, high : float
        The two-sided ``1 - alpha`` interval.
    se : float
        Its standard error.
    weight : float
        The judge's weight :math:`\\lambda` (1 for PPI, 0 for gold only; ``nan`` for the
        judge-only mean).
    gold_items, judge_items : int
        Items graded by people (:math:`n`), and graded by the judge only (:math:`N`).
    judge_mean : float
        The judge's mean over every item it graded (what a judge-only report states).
    method : str
        ``"ppi++"``, ``"ppi"``, ``"weighted"``, ``"classical"``, ``"judge-only"`` or
        ``"stratified ppi++"``...
    alpha : float
    disagreements : int
        Gold items on which a 0/1 judge and gold differ (``-1`` when the grades are not 0/1).
    """

    estimate: float
    low: float
    high: float
    se: float = extra()
    weight: float = extra()
    gold_items: int = extra()
    judge_items: int = extra()
    judge_mean: float = extra()
    method: str = extra()
    alpha: float = extra()
    disagreements: int = extra(-1)


def _grades(value, name: str) -> np.ndarray:
    arr = as_floats(value, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a one-dimensional array of grades, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one grade")
    # one summing pass finds a NaN or an infinity (or grades so large that they overflow)
    if not np.isfinite(arr.sum()):
        raise ValueError(f"{name} must hold finite grades (no NaN or infinity)")
    return arr


def _inputs(gold, judge_gold, judge_rest, *, min_gold: int = 2):
    y = _grades(gold, "gold")
    fl = _grades(judge_gold, "judge_gold")
    fu = _grades(judge_rest, "judge_rest")
    if fl.size != y.size:
        raise ValueError(
            f"judge_gold must grade the same items as gold: {fl.size} grades for {y.size} gold items"
        )
    if y.size < min_gold:
        raise ValueError(f"gold must hold at least {min_gold} graded items, got {y.size}")
    if fu.size < 2:
        raise ValueError(f"judge_rest must hold at least 2 grades, got {fu.size}")
    if y.size + fu.size > MAX_ITEMS:
        raise ValueError(f"at most {MAX_ITEMS:,} graded items per call, got {y.size + fu.size:,}")
    return y, fl, fu


def _moments(y, fl, fu):
    """Means, variances (n - 1), covariance of the gold items and the judge-only items."""
    n, big_n = y.size, fu.size
    my, mfl, mfu = y.mean(), fl.mean(), fu.mean()
    dy, dfl = y - my, fl - mfl
    vy = float(dy @ dy) / (n - 1)
    vfl = float(dfl @ dfl) / (n - 1)
    c = float(dy @ dfl) / (n - 1)
    dfu = fu - mfu
    vfu = float(dfu @ dfu) / (big_n - 1)
    return float(my), float(mfl), vy, vfl, c, float(mfu), vfu, n, big_n


def _tuned(mfl, vfl, c, mfu, vfu, n, big_n):
    """PPI++'s weight for a mean (vectorised): ppi_py's rule, clipped to [0, 1]."""
    n = np.asarray(n, float)
    big_n = np.asarray(big_n, float)
    pooled = ((n - 1) * vfl + (big_n - 1) * vfu + n * big_n / (n + big_n) * (mfl - mfu) ** 2) / (
        n + big_n - 1
    )
    num = c * (n - 1) / n  # ppi_py's covariance divides by n
    den = (1 + n / big_n) * pooled
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return np.clip(lam, 0.0, 1.0)


def _lam_of(mom) -> float:
    my, mfl, vy, vfl, c, mfu, vfu, n, big_n = mom
    return float(_tuned(mfl, vfl, c, mfu, vfu, n, big_n))


def _combine(my, mfl, vy, vfl, c, mfu, vfu, n, big_n, lam):
    """Estimate and standard error of PPI with weight ``lam`` (vectorised)."""
    est = lam * mfu + my - lam * mfl
    vr = np.maximum(vy - 2 * lam * c + lam**2 * vfl, 0.0)
    se = np.sqrt(lam**2 * vfu / big_n + vr / n)
    return est, se


def _z(alpha: float) -> float:
    return float(-special.ndtri(alpha / 2))


def _ppi_result(
    mom, w, a: float, judge_mean: float, disagreements: int, fewest: int, kind: str = ""
) -> JudgedMean:
    """PPI's estimate with its normal interval, from the moments and the weight (one copy for
    :func:`ppi_mean`, :func:`ppi_from_counts` and :func:`ppi_difference`).

    Warns (:func:`_warn_if_few`) when the judge has weight and the gold items show fewer
    than :data:`MIN_DISAGREEMENTS` disagreements or ``fewest`` items of the rarer kind;
    ``kind`` (``" difference"``) is appended to the method and named in the warning.
    """
    lam = _lam_of(mom) if w == "tuned" else w
    est, se = _combine(*mom, lam)
    res = _normal_mean(
        float(est),
        float(se),
        a,
        weight=float(lam),
        gold_items=int(mom[7]),
        judge_items=int(mom[8]),
        judge_mean=judge_mean,
        method=_method(w) + kind,
        disagreements=disagreements,
    )
    if res.weight > 0:
        what = "the PPI interval" + (" of the" + kind if kind else "")
        _warn_if_few(disagreements, int(mom[7]), fewest, what, stacklevel=4)
    return res


def _normal_mean(est: float, se: float, a: float, **fields) -> JudgedMean:
    """A :class:`JudgedMean` with the normal interval ``est -/+ z se`` (one copy for PPI,
    the judge alone and the stratified estimate); ``fields`` are its other fields."""
    z = _z(a)
    return JudgedMean(est, est - z * se, est + z * se, se=se, alpha=a, **fields)


def _weight_arg(weight):
    if isinstance(weight, str):
        return as_choice(weight, "weight", ("tuned",))
    return float(as_probability(weight, "weight", closed=True, scalar=True))


def _disagreements(y, fl) -> int:
    if np.all((y == 0) | (y == 1)) and np.all((fl == 0) | (fl == 1)):
        return int(np.count_nonzero(y != fl))
    return -1


def _fewest_kind(y) -> int:
    """Gold items of the rarer kind (right or wrong) for 0/1 grades, else -1."""
    if np.all((y == 0) | (y == 1)):
        right = int(np.count_nonzero(y == 1))
        return min(right, y.size - right)
    return -1


def _method(weight) -> str:
    if isinstance(weight, str):
        return "ppi++"
    return {1.0: "ppi", 0.0: "classical"}.get(weight, "weighted")


def _warn_if_few(
    disagree: int, n: int, fewest: int = -1, what: str = "the PPI interval", stacklevel: int = 3
) -> None:
    if 0 <= disagree < MIN_DISAGREEMENTS or 0 <= fewest < MIN_EACH_KIND:
        warnings.warn(
            f"{what} is a normal approximation; on the {n} gold items judge and gold "
            f"disagree {disagree} times and the rarer kind of answer (right or wrong) "
            f"appears {fewest} times, and it held in the book's simulations only with at "
            f"least {MIN_DISAGREEMENTS} and {MIN_EACH_KIND}: it may cover less than "
            "promised; the gold-only exact interval (classical_mean) holds there",
            UserWarning,
            stacklevel=stacklevel,
        )


def power_tuned_weight(gold: ArrayLike, judge_gold: ArrayLike, judge_rest: ArrayLike) -> float:
    r"""PPI++'s estimated weight of the judge for a mean :cite:`angelopoulos2023ppi`.

    .. math:: \hat\lambda = \mathrm{clip}_{[0,1]}\Bigl(
              \frac{\widehat{\mathrm{Cov}}(Y, f)}{(1 + n/N)\,\widehat{\mathrm{Var}}(f)}\Bigr)

    with the covariance over the :math:`n` gold items (divided by :math:`n`) and the
    variance of the judge's grades over all :math:`n + N` items (divided by
    :math:`n + N - 1`): the rule of ``ppi_py``'s ``ppi_mean_ci``.  A judge that gives every
    item the same grade gets weight 0.

    Parameters
    ----------
    gold : array_like, shape (n,)
        People's grades of the gold items.
    judge_gold : array_like, shape (n,)
        The judge's grades of the same items.
    judge_rest : array_like, shape (N,)
        The judge's grades of the items people did not grade.

    Returns
    -------
    float

    Examples
    --------
    >>> round(power_tuned_weight([1, 1, 0, 1, 0, 1], [1, 1, 0, 1, 1, 1], [1, 0, 1, 1, 1, 0, 1, 1]), 4)
    0.3502
    """
    return _lam_of(_moments(*_inputs(gold, judge_gold, judge_rest)))


def ppi_mean(
    gold: ArrayLike,
    judge_gold: ArrayLike,
    judge_rest: ArrayLike,
    *,
    alpha: float = 0.05,
    weight: str | float = "tuned",
) -> JudgedMean:
    r"""The judge's mean corrected by gold labels: PPI and PPI++ estimate and interval.

    .. math:: \hat\theta_\lambda = \lambda\,\bar f_N + \bar Y_n - \lambda\,\bar f_n,
              \qquad \hat\theta_\lambda \pm z_{1-\alpha/2}
              \sqrt{\lambda^2 s^2_{f,N}/N + s^2_{Y-\lambda f,\,n}/n}

    :cite:`angelopoulos2023prediction,angelopoulos2023ppi,boyeau2024autoeval`.  The gold
    items must be a simple random sample of all items (for gold sampled by stratum, see
    :func:`stratified_ppi_mean`).  Warns when a 0/1 judge and the gold labels disagree on
    fewer than :data:`MIN_DISAGREEMENTS` gold items or the rarer kind of gold grade
    appears fewer than :data:`MIN_EACH_KIND` times (the normal interval then undercovers
    in the book's grid; the exact interval of :func:`classical_mean` holds).

    Parameters
    ----------
    gold : array_like, shape (n,)
        People's grades of the gold items (0/1 for a rate, or any bounded score).
    judge_gold : array_like, shape (n,)
        The judge's grades of the same items, in the same order.
    judge_rest : array_like, shape (N,)
        The judge's grades of the other items.
    alpha : float
        The interval has confidence ``1 - alpha``.
    weight : "tuned" or float
        ``"tuned"`` (PPI++, :func:`power_tuned_weight`), or a fixed :math:`\lambda` in
        [0, 1] (1 is plain PPI, 0 the gold-only normal interval).

    Returns
    -------
    JudgedMean

    Examples
    --------
    A judge that calls 80 % of answers right, on 200 gold items where people call 70 % right:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(5000) < 0.7).astype(int)           # 0/1 grades, not booleans
    >>> f = np.where(y == 1, rng.random(5000) < 0.95, rng.random(5000) < 0.45).astype(int)
    >>> r = ppi_mean(y[:200], f[:200], f[200:])
    >>> [round(v, 3) for v in r], round(r.weight, 2), round(r.judge_mean, 3)
    ([0.652, 0.601, 0.704], 0.76, 0.792)
    """
    y, fl, fu = _inputs(gold, judge_gold, judge_rest)
    a = float(as_probability(alpha, "alpha", scalar=True))
    w = _weight_arg(weight)
    mom = _moments(y, fl, fu)
    judge_mean = (mom[1] * mom[7] + mom[5] * mom[8]) / (mom[7] + mom[8])
    return _ppi_result(mom, w, a, judge_mean, _disagreements(y, fl), _fewest_kind(y))


def _gold_table(table: ArrayLike, most: int = MAX_ITEMS) -> tuple[int, int, int, int]:
    """The gold items' 2 x 2 table checked: its cells ``n11, n10, n01, n00`` (rows: people's
    grade right, wrong; columns: the judge passed, failed), counting 2 to ``most`` items
    (also :func:`heldout.judged.misclassification.rogan_gladen_from_counts`' check)."""
    t = as_count(table, "table")
    if t.shape != (2, 2):
        raise ValueError(
            "table must be 2 x 2: [[right & passed, right & failed], [wrong & passed, "
            f"wrong & failed]], got shape {t.shape}"
        )
    n = int(t.sum())
    if n < 2 or n > most:
        raise ValueError(f"table must count between 2 and {most:,} gold items, got {n}")
    return int(t[0, 0]), int(t[0, 1]), int(t[1, 0]), int(t[1, 1])


# Its keywords repeat ppi_mean's (both public: arrays or a 2 x 2 table of counts); both end
# in _ppi_result.
def ppi_from_counts(
    table: ArrayLike,
    judge_passed: int,
    judge_items: int,
    *,
    alpha: float = 0.05,
    weight: str | float = "tuned",
) -> JudgedMean:
    r""":func:`ppi_mean` for 0/1 grades given as counts.

    For 0/1 grades the means, variances and covariance of :func:`ppi_mean` are functions of
    the gold items' 2 x 2 table and of the judge's passes on the other items, so the result
    is the same as from the arrays (tested), without building them.

    Parameters
    ----------
    table : array_like of int, shape (2, 2)
        Gold items by people's grade (rows: right, wrong) and the judge's (columns: passed,
        failed): ``[[right & passed, right & failed], [wrong & passed, wrong & failed]]``.
    judge_passed : int
        Judge-only items the judge passed.
    judge_items : int
        Judge-only items :math:`N` (at least 2).
    alpha, weight
        As in :func:`ppi_mean`.

    Returns
    -------
    JudgedMean

    Examples
    --------
    >>> r = ppi_from_counts([[160, 5], [25, 10]], 1700, 2000, weight=1.0)
    >>> [round(v, 4) for v in r], r.disagreements
    ([0.75, 0.6957, 0.8043], 30)
    """
    cells = _gold_table(table)
    n = sum(cells)
    big_n = int(as_count(judge_items, "judge_items", minimum=2, maximum=MAX_ITEMS, scalar=True))
    k = int(as_count(judge_passed, "judge_passed", maximum=big_n, scalar=True))
    a = float(as_probability(alpha, "alpha", scalar=True))
    w = _weight_arg(weight)
    c11, c10, c01, c00 = (float(v) for v in cells)
    my, mfl = (c11 + c10) / n, (c11 + c01) / n
    vy, vfl = my * (1 - my) * n / (n - 1), mfl * (1 - mfl) * n / (n - 1)
    cov = (c11 / n - my * mfl) * n / (n - 1)
    mfu = k / big_n
    vfu = mfu * (1 - mfu) * big_n / (big_n - 1)
    mom = (my, mfl, vy, vfl, cov, mfu, vfu, n, big_n)
    fewest = int(min(c11 + c10, c01 + c00))
    return _ppi_result(mom, w, a, (c11 + c01 + k) / (n + big_n), int(c10 + c01), fewest)


def classical_mean(gold: ArrayLike, *, alpha: float = 0.05, method: str = "auto") -> JudgedMean:
    r"""The gold-only mean and its interval (the judge ignored).

    ``"exact"``: the Clopper-Pearson interval for 0/1 grades; ``"wilson"``: Wilson's
    score interval :cite:`wilson1927` (both by :func:`heldout.accuracy.bounds.interval`;
    both stay inside [0, 1] and keep a positive width at 0 % and 100 %; Wilson's coverage
    dips below the promise at some sizes, the exact interval's never does);
    ``"normal"``: :math:`\bar Y \pm z\,s/\sqrt n`; ``"auto"``: exact for 0/1 grades,
    normal otherwise.

    Parameters
    ----------
    gold : array_like, shape (n,)
        People's grades.
    alpha : float
        The interval has confidence ``1 - alpha``.
    method : {"auto", "exact", "wilson", "normal"}

    Returns
    -------
    JudgedMean
        With ``weight`` 0 and ``judge_items`` 0.

    Examples
    --------
    >>> [round(v, 4) for v in classical_mean([1] * 30)]
    [1.0, 0.8843, 1.0]
    """
    from heldout.accuracy.bounds import interval

    y = _grades(gold, "gold")
    if y.size < 2:
        raise ValueError(f"gold must hold at least 2 graded items, got {y.size}")
    a = float(as_probability(alpha, "alpha", scalar=True))
    m = as_choice(method, "method", ("auto", "exact", "wilson", "normal"))
    binary = bool(np.all((y == 0) | (y == 1)))
    if m in ("exact", "wilson") and not binary:
        raise ValueError(f"method={show(m)} needs 0/1 gold grades; use method='normal'")
    est = float(y.mean())
    se = float(y.std(ddof=1) / np.sqrt(y.size))
    if m == "normal" or not binary:
        z = _z(a)
        low, high, used = est - z * se, est + z * se, "normal"
    else:
        used = "wilson" if m == "wilson" else "exact"
        kind = "wilson" if used == "wilson" else "clopper-pearson"
        low, high = interval(int(y.sum()), int(y.size), alpha=a, method=kind)
    return JudgedMean(
        est,
        float(low),
        float(high),
        se=se,
        weight=0.0,
        gold_items=int(y.size),
        judge_items=0,
        judge_mean=float("nan"),
        method=f"classical {used}",
        alpha=a,
    )


def judge_only_mean(judge: ArrayLike, *, alpha: float = 0.05) -> JudgedMean:
    r"""The judge's mean over every item it graded, with the usual normal interval.

    .. math:: \bar f \pm z_{1-\alpha/2}\, s_f/\sqrt{M}

    What a report that trusts its judge states.  It estimates :math:`E[f]`, not the
    gold-graded :math:`E[Y]`: its interval narrows around the judge's bias as items are
    added, and its coverage of :math:`E[Y]` falls to 0 (shown in the book's simulation,
    ``heldout.book.judge_coverage``).  Provided to be shown failing, not to be used.

    Parameters
    ----------
    judge : array_like, shape (M,)
        The judge's grades of all items.
    alpha : float

    Returns
    -------
    JudgedMean

    Examples
    --------
    >>> [round(v, 3) for v in judge_only_mean([1, 1, 0, 1, 1, 1, 0, 1])]
    [0.75, 0.429, 1.071]
    """
    f = _grades(judge, "judge")
    if f.size < 2:
        raise ValueError(f"judge must hold at least 2 grades, got {f.size}")
    a = float(as_probability(alpha, "alpha", scalar=True))
    est = float(f.mean())
    se = float(f.std(ddof=1) / np.sqrt(f.size))
    return _normal_mean(
        est,
        se,
        a,
        weight=float("nan"),
        gold_items=0,
        judge_items=int(f.size),
        judge_mean=est,
        method="judge-only",
    )


# ppi_mean's keywords after the six arrays (both public); both end in _ppi_result
def ppi_difference(
    gold_a: ArrayLike,
    gold_b: ArrayLike,
    judge_gold_a: ArrayLike,
    judge_gold_b: ArrayLike,
    judge_rest_a: ArrayLike,
    judge_rest_b: ArrayLike,
    *,
    alpha: float = 0.05,
    weight: str | float = "tuned",
) -> JudgedMean:
    r"""The difference of two models' scores on the same items, graded by the same judge.

    PPI on the paired differences :cite:`angelopoulos2023ppi,boyeau2024autoeval`: with
    :math:`D = Y_A - Y_B` (gold) and :math:`g = f_A - f_B` (judge) item by item,

    .. math:: \hat\Delta_\lambda = \lambda\,\bar g_N + \bar D_n - \lambda\,\bar g_n,

    and the interval of :func:`ppi_mean` on :math:`(D, g)`.  Pairing keeps what the two
    models share (easy and hard items) out of the variance, and the judge's bias cancels
    where it is the same for both models; where it is not (a judge that prefers one
    model's style), the gold items correct it.  Warns below :data:`MIN_DISAGREEMENTS`
    gold items where :math:`D \ne g`; the limits were measured for single rates, and a
    seeded simulation (``tests/judged/test_ppi.py``) checks the difference's coverage at
    500 gold items only.

    Parameters
    ----------
    gold_a, gold_b : array_like, shape (n,)
        People's grades of model A's and model B's answers to the same gold items.
    judge_gold_a, judge_gold_b : array_like, shape (n,)
        The judge's grades of the same answers.
    judge_rest_a, judge_rest_b : array_like, shape (N,)
        The judge's grades of both models' answers to the other items (same order).
    alpha : float
    weight : "tuned" or float
        As in :func:`ppi_mean`.

    Returns
    -------
    JudgedMean
        Of :math:`\Delta = E[Y_A - Y_B]`; ``disagreements`` counts gold items where
        :math:`D \ne g`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> ya, yb = (rng.random((2, 4000)) < [[0.75], [0.70]]).astype(int)
    >>> fa = np.where(rng.random(4000) < 0.9, ya, 1 - ya)
    >>> fb = np.where(rng.random(4000) < 0.9, yb, 1 - yb)
    >>> r = ppi_difference(ya[:300], yb[:300], fa[:300], fb[:300], fa[300:], fb[300:])
    >>> [round(v, 3) for v in r]
    [0.087, 0.041, 0.133]
    """
    ya, yb = _grades(gold_a, "gold_a"), _grades(gold_b, "gold_b")
    fa, fb = _grades(judge_gold_a, "judge_gold_a"), _grades(judge_gold_b, "judge_gold_b")
    ua, ub = _grades(judge_rest_a, "judge_rest_a"), _grades(judge_rest_b, "judge_rest_b")
    for name, arr in (("gold_b", yb), ("judge_gold_a", fa), ("judge_gold_b", fb)):
        _check_shape(
            arr, ya, f"{name} must grade the {ya.size} gold items of gold_a, got {arr.size}"
        )
    _check_shape(
        ub, ua, f"judge_rest_b must grade the {ua.size} items of judge_rest_a, got {ub.size}"
    )
    d, g, u = ya - yb, fa - fb, ua - ub
    y, fl, fu = _inputs(d, g, u)
    a = float(as_probability(alpha, "alpha", scalar=True))
    w = _weight_arg(weight)
    mom = _moments(y, fl, fu)
    binary = all(np.all((v == 0) | (v == 1)) for v in (ya, yb, fa, fb))
    disagree = int(np.count_nonzero(d != g)) if binary else -1
    judge_mean = float((fl.sum() + fu.sum()) / (fl.size + fu.size))
    return _ppi_result(mom, w, a, judge_mean, disagree, -1, " difference")


def _strata_args(strata_gold, strata_rest, y, fu):
    """The strata of the gold and judge-only items, checked against their counts."""
    from heldout import _inputs as _arrays

    sg = _arrays.array(strata_gold, "strata_gold")  # a ragged list: refused by name
    sr = _arrays.array(strata_rest, "strata_rest")
    _check_shape(
        sg, y, f"strata_gold must give one stratum per gold item ({y.size}), got shape {sg.shape}"
    )
    _check_shape(
        sr,
        fu,
        f"strata_rest must give one stratum per judge-only item ({fu.size}), got shape {sr.shape}",
    )
    return sg, sr


def _check_shape(arr: np.ndarray, like: np.ndarray, message: str) -> None:
    """Refuse ``arr`` with ``message`` unless it has the shape of ``like`` (one entry per item)."""
    if arr.shape != like.shape:
        raise ValueError(message)


def _population_shares(labels, counts, shares):
    """Each stratum's population share: ``shares`` (checked) or its share of all items.

    Not ``heldout.dependent.strata._stratum_weights``, which sums every share given and
    refuses a positive share for a stratum without items: here only the shares of the
    strata that have items must sum to 1, and others are ignored."""
    if shares is None:
        return counts / counts.sum()
    if not isinstance(shares, Mapping):
        raise ValueError("shares must be a mapping {stratum: share}")
    missing = [h for h in labels.tolist() if h not in shares]
    if missing:
        raise ValueError(f"shares has no share for strata {missing[:5]}")
    share = as_probability([shares[h] for h in labels.tolist()], "shares", closed=True)
    if abs(share.sum() - 1) > 1e-6:
        raise ValueError(f"shares must sum to 1, got a sum of {share.sum():.6g}")
    return share


def _per_stratum(y, fl, fu, sg, sr, labels, w):
    """Each stratum's PPI estimate, variance and weight, and the gold items' disagreements
    (-1 where the grades are not all 0/1)."""
    ests, vars_, lams, disagree = [], [], [], 0
    for h in labels.tolist():
        yh, fh, uh = y[sg == h], fl[sg == h], fu[sr == h]
        if yh.size < 2 or uh.size < 2:
            raise ValueError(
                f"stratum {show(h)} needs at least 2 gold and 2 judge-only items, "
                f"got {yh.size} and {uh.size}"
            )
        mom = _moments(yh, fh, uh)
        lam = _lam_of(mom) if w == "tuned" else w
        est, se = _combine(*mom, lam)
        ests.append(est)
        vars_.append(se**2)
        lams.append(lam)
        dh = _disagreements(yh, fh)
        disagree = -1 if dh < 0 or disagree < 0 else disagree + dh
    return ests, vars_, lams, disagree


def stratified_ppi_mean(
    gold: ArrayLike,
    judge_gold: ArrayLike,
    judge_rest: ArrayLike,
    strata_gold: ArrayLike,
    strata_rest: ArrayLike,
    *,
    shares: Mapping | None = None,
    alpha: float = 0.05,
    weight: str | float = "tuned",
) -> JudgedMean:
    r"""PPI with gold items drawn by stratum (more gold where the judge errs more).

    Within stratum :math:`h` the gold items are a random sample of that stratum's items;
    the sampling rates may differ between strata.  Each stratum gets its own PPI estimate
    :math:`\hat\theta_h` and variance :math:`v_h` (its own tuned weight), and

    .. math:: \hat\theta = \sum_h W_h \hat\theta_h, \qquad
              \widehat{\mathrm{Var}} = \sum_h W_h^2 v_h

    :cite:`angelopoulos2023ppi,cochran1977sampling`, :math:`W_h` the stratum's share of all
    items (gold and judge-only; or ``shares``).  The plain :func:`ppi_mean` of such a
    sample would be biased toward the over-sampled strata.

    Parameters
    ----------
    gold, judge_gold, judge_rest : array_like
        As in :func:`ppi_mean`.
    strata_gold : array_like, shape (n,)
        The stratum of each gold item (numbers or strings).
    strata_rest : array_like, shape (N,)
        The stratum of each judge-only item.
    shares : mapping, optional
        ``{stratum: share}`` of the population, summing to 1 (default: each stratum's share
        of the :math:`n + N` items).
    alpha : float
    weight : "tuned" or float
        As in :func:`ppi_mean`, applied within each stratum.

    Returns
    -------
    JudgedMean
        ``weight`` is the share-weighted mean of the strata's weights.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(2)
    >>> s = np.repeat([0, 1], [3000, 1000])          # an easy and a hard stratum
    >>> y = (rng.random(4000) < np.where(s == 0, 0.9, 0.5)).astype(int)
    >>> f = np.where(rng.random(4000) < np.where(s == 0, 0.97, 0.8), y, 1 - y)
    >>> gold = np.r_[0:100, 3000:3200]                 # 100 easy, 200 hard gold items
    >>> rest = np.setdiff1d(np.arange(4000), gold)
    >>> r = stratified_ppi_mean(y[gold], f[gold], f[rest], s[gold], s[rest])
    >>> [round(v, 3) for v in r]
    [0.803, 0.779, 0.828]
    """
    y, fl, fu = _inputs(gold, judge_gold, judge_rest)
    sg, sr = _strata_args(strata_gold, strata_rest, y, fu)
    a = float(as_probability(alpha, "alpha", scalar=True))
    w = _weight_arg(weight)
    labels = np.unique(np.concatenate([sg, sr]))
    if labels.size > 10_000:
        raise ValueError(f"at most 10,000 strata, got {labels.size}")
    counts = np.array([np.count_nonzero(sg == h) + np.count_nonzero(sr == h) for h in labels])
    share = _population_shares(labels, counts, shares)
    ests, vars_, lams, disagree = _per_stratum(y, fl, fu, sg, sr, labels, w)
    est = float(share @ np.array(ests))
    se = float(np.sqrt(share**2 @ np.array(vars_)))
    if max(lams) > 0:
        _warn_if_few(disagree, y.size, _fewest_kind(y))
    return _normal_mean(
        est,
        se,
        a,
        weight=float(share @ np.array(lams)),
        gold_items=int(y.size),
        judge_items=int(fu.size),
        judge_mean=float((fl.sum() + fu.sum()) / (fl.size + fu.size)),
        method="stratified " + _method(w),
        disagreements=disagree,
    )
