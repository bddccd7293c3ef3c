r"""Simulations behind the lesson on scores graded by a model (``judged_scores``).

Every interval of :mod:`heldout.judged` for a 0/1 score is checked the same way: a model
answers items right with probability :math:`p`; a judge calls a right answer right with
probability :math:`S_e` and a wrong one wrong with probability :math:`S_p` (a judge whose
errors fall mostly on the model's wrong answers, :math:`S_p \ll S_e`, is biased, and its
errors are correlated with the model's correctness); people grade :math:`n` random items,
the judge those and :math:`N` more.  For 0/1 grades the four counts of (gold, judge) on
the gold items are multinomial and the judge's count on the others binomial, so each
repetition costs a few numbers, and every interval is computed from those counts with the
same formulas as :mod:`heldout.judged.ppi` and :mod:`heldout.judged.misclassification` (a test
checks that they agree with the public functions on the same data).  For 0/1 grades of
items drawn at random, every joint behaviour of judge and people is one triple
:math:`(p, S_e, S_p)`, so a grid over these triples includes every judge whose errors depend
on the model's correctness, however they arise (hard items, shared blind spots).

:func:`judge_coverage` counts how often each interval holds :math:`p`;
:func:`coverage_grid` runs it over a grid; :func:`pool_judge_coverage` does the same on a
finite population whose every truth is known (MNIST: a cheap model judges another model's
answers), drawing gold and judged items from it again and again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from heldout._checks import as_count, as_floats, as_instance, as_probability, check_work, in_choices
from heldout._result import Result
from heldout.config import rng as make_rng
from heldout.judged.misclassification import MIN_YOUDEN, _rg_parts
from heldout.judged.ppi import MIN_DISAGREEMENTS, MIN_EACH_KIND, _combine, _tuned

__all__ = [
    "MAX_DRAWS",
    "METHODS",
    "JudgeCoverage",
    "coverage_grid",
    "judge_coverage",
    "pool_judge_coverage",
    "pool_judge_grades",
]

#: The intervals each simulation checks, in the order of the lesson's table.
METHODS = (
    "ppi++",
    "ppi",
    "recommended",
    "classical",
    "rogan-gladen",
    "judge-only",
    "naive pooled",
)

#: Largest reps x items one simulation may draw (pool draws) or reps per cell.
MAX_DRAWS = 5 * 10**8


@dataclass(frozen=True)
class JudgeCoverage(Result):
    """Coverage of each interval.  Unpacks as ``(coverage, width)``.

    Attributes
    ----------
    coverage : dict
        ``{method: share of repetitions whose interval held the truth}`` (for
        ``"rogan-gladen"``, among the repetitions it answered).
    width : dict
        ``{method: mean width}``.
    answered : dict
        ``{method: share of repetitions with an interval}`` (Rogan-Gladen refuses a judge
        no better than a coin or a gold set without both kinds of answer).
    reps : int
    truth : float
    alpha : float
    """

    coverage: dict
    width: dict
    answered: dict
    reps: int
    truth: float
    alpha: float


def _cells(rate, sens, spec):
    """Probabilities of (Y=1,f=1), (Y=1,f=0), (Y=0,f=1), (Y=0,f=0)."""
    return np.array([rate * sens, rate * (1 - sens), (1 - rate) * (1 - spec), (1 - rate) * spec])


def _exact(k, n, alpha):
    """Clopper-Pearson limits (vectorised)."""
    with np.errstate(invalid="ignore"):
        low = np.where(k > 0, stats.beta.ppf(alpha / 2, k, n - k + 1), 0.0)
        high = np.where(k < n, stats.beta.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    return low, high


def _intervals(c11, c10, c01, c00, k, big_n, alpha):
    """Every method's (low, high) from the gold counts and the judge's count ``k`` of N."""
    z = float(-special.ndtri(alpha / 2))
    n = (c11 + c10 + c01 + c00).astype(float)
    my, mfl = (c11 + c10) / n, (c11 + c01) / n
    vy = my * (1 - my) * n / (n - 1)
    vfl = mfl * (1 - mfl) * n / (n - 1)
    cov = (c11 / n - my * mfl) * n / (n - 1)
    mfu = k / big_n
    vfu = mfu * (1 - mfu) * big_n / (big_n - 1)
    out = {}
    lam = _tuned(mfl, vfl, cov, mfu, vfu, n, big_n)
    for name, w in (("ppi++", lam), ("ppi", np.ones_like(lam))):
        est, se = _combine(my, mfl, vy, vfl, cov, mfu, vfu, n, big_n, w)
        out[name] = (est - z * se, est + z * se)
    out["classical"] = _exact(c11 + c10, n, alpha)
    few = ((c10 + c01) < MIN_DISAGREEMENTS) | (np.minimum(c11 + c10, c01 + c00) < MIN_EACH_KIND)
    out["recommended"] = tuple(
        np.where(few, c, p) for c, p in zip(out["classical"], out["ppi++"], strict=True)
    )
    n1, n0 = c11 + c10, c01 + c00
    with np.errstate(all="ignore"):
        sens, spec = c11 / n1, c00 / n0
        ok = (n1 > 0) & (n0 > 0) & (sens + spec - 1 >= MIN_YOUDEN)
        raw, se = _rg_parts(mfu, sens, spec, big_n, n1, n0)
        low = np.where(ok, np.clip(raw - z * se, 0, 1), np.nan)
        high = np.where(ok, np.clip(raw + z * se, 0, 1), np.nan)
    out["rogan-gladen"] = (low, high)
    m = n + big_n
    fj = (c11 + c01 + k) / m
    sj = np.sqrt(fj * (1 - fj) / (m - 1))
    out["judge-only"] = (fj - z * sj, fj + z * sj)
    pooled = (c11 + c10 + k) / m
    sp_ = np.sqrt(pooled * (1 - pooled) / (m - 1))
    out["naive pooled"] = (pooled - z * sp_, pooled + z * sp_)
    return out


def _summary(out, truth, reps, alpha) -> JudgeCoverage:
    cov, wid, ans = {}, {}, {}
    for name in METHODS:
        low, high = out[name]
        fine = ~np.isnan(low)
        ans[name] = float(fine.mean())
        if fine.any():
            cov[name] = float(np.mean((low[fine] <= truth) & (truth <= high[fine])))
            wid[name] = float(np.mean(high[fine] - low[fine]))
        else:
            cov[name] = wid[name] = float("nan")
    return JudgeCoverage(cov, wid, ans, int(reps), float(truth), float(alpha))


def judge_coverage(
    rate: float,
    sensitivity: float,
    specificity: float,
    gold_items: int,
    judge_items: int,
    *,
    reps: int = 2000,
    alpha: float = 0.05,
    seed=None,
) -> JudgeCoverage:
    r"""Coverage of the judged-score intervals when the judge's errors are known.

    Draws, ``reps`` times, the four counts of (gold, judge) grades on ``gold_items``
    random items (multinomial with the cell probabilities :math:`pS_e`,
    :math:`p(1-S_e)`, :math:`(1-p)(1-S_p)`, :math:`(1-p)S_p`) and the judge's count of
    right calls on ``judge_items`` more (binomial with :math:`q = pS_e + (1-p)(1-S_p)`),
    and computes every interval of :data:`METHODS`: PPI++ and PPI
    :cite:`angelopoulos2023prediction,angelopoulos2023ppi`, ``"recommended"`` (PPI++,
    or the gold-only exact interval when judge and gold disagree on fewer than
    :data:`heldout.judged.ppi.MIN_DISAGREEMENTS` gold items or the rarer kind of gold
    grade appears fewer than :data:`heldout.judged.ppi.MIN_EACH_KIND` times), the
    gold-only exact (Clopper-Pearson) interval (``"classical"``), Rogan-Gladen :cite:`rogan1978estimating`, the judge-only interval and the
    naive pooled one (gold grades where there are some, the judge's elsewhere, as if all
    were gold).

    Parameters
    ----------
    rate : float
        The model's true score :math:`p`.
    sensitivity, specificity : float
        The judge's :math:`S_e` and :math:`S_p`.
    gold_items : int
        :math:`n` (at least 2).
    judge_items : int
        :math:`N` (at least 2).
    reps : int
        Repetitions (at most 10**7).
    alpha : float
    seed : int, Generator or None

    Returns
    -------
    JudgeCoverage

    Examples
    --------
    >>> r = judge_coverage(0.8, 0.97, 0.6, 100, 5000, reps=2000, seed=1)
    >>> {m: round(r.coverage[m], 3) for m in ("ppi++", "recommended", "judge-only")}
    {'ppi++': 0.927, 'recommended': 0.972, 'judge-only': 0.0}
    """
    p = float(as_probability(rate, "rate", scalar=True))
    se_ = float(as_probability(sensitivity, "sensitivity", closed=True, scalar=True))
    sp = float(as_probability(specificity, "specificity", closed=True, scalar=True))
    n = int(as_count(gold_items, "gold_items", minimum=2, scalar=True))
    big_n = int(as_count(judge_items, "judge_items", minimum=2, scalar=True))
    r = int(as_count(reps, "reps", minimum=1, scalar=True))
    check_work(r, 10**7, "reps")
    a = float(as_probability(alpha, "alpha", scalar=True))
    gen = make_rng(seed)
    cells = _cells(p, se_, sp)
    counts = gen.multinomial(n, cells / cells.sum(), size=r)
    k = gen.binomial(big_n, p * se_ + (1 - p) * (1 - sp), size=r)
    out = _intervals(*counts.T.astype(float), k.astype(float), float(big_n), a)
    return _summary(out, p, r, a)


def coverage_grid(
    rates: ArrayLike,
    judges: dict,
    gold_sizes: ArrayLike,
    judge_items: int,
    *,
    reps: int = 2000,
    alpha: float = 0.05,
    seed=None,
) -> list[dict]:
    """:func:`judge_coverage` over every (judge, rate, gold size): one row per cell.

    Parameters
    ----------
    rates : array_like
        True scores :math:`p`.
    judges : dict
        ``{name: (sensitivity, specificity)}``.
    gold_sizes : array_like
        Gold set sizes :math:`n`.
    judge_items : int
        :math:`N` for every cell.
    reps, alpha, seed
        As in :func:`judge_coverage` (one Generator for the whole grid).

    Returns
    -------
    list of dict
        Keys ``judge``, ``rate``, ``gold``, ``coverage`` and ``width`` (dicts by method),
        ``answered``, ``reps``.

    Examples
    --------
    >>> rows = coverage_grid([0.5], {"fair": (0.9, 0.9)}, [100], 2000, reps=500, seed=2)
    >>> len(rows), rows[0]["judge"], round(rows[0]["coverage"]["classical"], 2)
    (1, 'fair', 0.97)
    """
    ps = as_probability(rates, "rates")
    sizes = as_count(gold_sizes, "gold_sizes", minimum=2)
    if not isinstance(judges, dict) or not judges:
        raise ValueError("judges must be a non-empty dict {name: (sensitivity, specificity)}")
    reps = int(as_count(reps, "reps", minimum=1, scalar=True))
    check_work(float(ps.size) * sizes.size * len(judges) * float(reps), 10**8, "cells x reps")
    gen = make_rng(seed)
    rows = []
    for name, (sens, spec) in judges.items():
        for p in np.atleast_1d(ps).tolist():
            for n in np.atleast_1d(sizes).tolist():
                res = judge_coverage(
                    p, sens, spec, n, judge_items, reps=reps, alpha=alpha, seed=gen
                )
                rows.append(
                    {
                        "judge": str(name),
                        "rate": float(p),
                        "gold": int(n),
                        "coverage": res.coverage,
                        "width": res.width,
                        "answered": res.answered,
                        "reps": res.reps,
                    }
                )
    return rows


def pool_judge_coverage(
    truth: ArrayLike,
    judge: ArrayLike,
    gold_items: int,
    judge_items: int,
    *,
    reps: int = 1000,
    alpha: float = 0.05,
    seed=None,
) -> JudgeCoverage:
    r"""Coverage on a finite population whose every grade is known (e.g. MNIST digits).

    Each repetition draws ``gold_items`` items with replacement from the population (their
    grades in ``truth`` play the people's grades, and ``judge`` the judge's) and
    ``judge_items`` more (only the judge's grades used), then computes every interval of
    :func:`judge_coverage` and checks it against the population's mean of ``truth``.
    Drawing with replacement makes the items independent draws from the population, as
    every interval assumes.

    Parameters
    ----------
    truth : array_like of 0/1, shape (M,)
        Whether the model under test is right on each item of the population.
    judge : array_like of 0/1, shape (M,)
        Whether the judge calls the model's answer right.
    gold_items, judge_items : int
    reps : int
        Repetitions; ``reps * (gold_items + judge_items)`` is at most :data:`MAX_DRAWS`.
    alpha, seed
        As in :func:`judge_coverage`.

    Returns
    -------
    JudgeCoverage

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> y = (g.random(3000) < 0.9).astype(int)
    >>> f = np.where(g.random(3000) < 0.85, y, 1 - y)
    >>> r = pool_judge_coverage(y, f, 200, 2000, reps=500, seed=1)
    >>> round(r.coverage["ppi++"], 2), round(r.coverage["judge-only"], 2)
    (0.96, 0.0)
    """
    y = as_floats(truth, "truth")
    f = as_floats(judge, "judge")
    for name, arr in (("truth", y), ("judge", f)):
        if arr.ndim != 1 or arr.size < 2 or not np.all((arr == 0) | (arr == 1)):
            raise ValueError(f"{name} must be a one-dimensional array of at least two 0/1 grades")
    if f.size != y.size:
        raise ValueError(f"judge must grade the {y.size} items of truth, got {f.size}")
    n = int(as_count(gold_items, "gold_items", minimum=2, scalar=True))
    big_n = int(as_count(judge_items, "judge_items", minimum=2, scalar=True))
    r = int(as_count(reps, "reps", minimum=1, scalar=True))
    check_work(float(r) * (n + big_n), MAX_DRAWS, "reps x (gold_items + judge_items)")
    a = float(as_probability(alpha, "alpha", scalar=True))
    gen = make_rng(seed)
    code = (2 * (1 - y) + (1 - f)).astype(np.int8)  # 0: (1,1), 1: (1,0), 2: (0,1), 3: (0,0)
    counts = np.zeros((r, 4))
    k = np.zeros(r)
    block = max(1, 2 * 10**7 // (n + big_n))
    for start in range(0, r, block):  # blocks bound the memory of the index arrays
        m = min(block, r - start)
        g = code[gen.integers(0, y.size, size=(m, n))]
        counts[start : start + m] = np.stack([(g == c).sum(axis=1) for c in range(4)], axis=1)
        k[start : start + m] = f[gen.integers(0, y.size, size=(m, big_n))].sum(axis=1)
    out = _intervals(*counts.T, k, float(big_n), a)
    return _summary(out, float(y.mean()), r, a)


def pool_judge_grades(pool, model: str = "random_forest", judge: str = "logistic"):
    """Truth and a cheap judge's verdicts on the digits of a pool.

    The model under test answers each digit with its 10-class prediction; the truth is
    whether that answer is the digit's label; the judge (another, cheaper model) calls the
    answer right when its own prediction is the same digit, as a grader model compares an
    answer with what it would have said.  The judge errs on digits where it is wrong and the
    model right (a harsh call) and where both are wrong the same way (a lenient one).

    Parameters
    ----------
    pool : heldout.book.mnist.digit_pool.Pool
        Labels and the two models' probabilities (:func:`~heldout.book.mnist.digit_pool.pool_predictions`
        or the stand-in :func:`~heldout.book.mnist.standin.standin_pool`).
    model, judge : str
        Names of the model under test and of the judge in ``pool.proba``.

    Returns
    -------
    truth, verdict : ndarray of int
        0/1 per digit.

    Examples
    --------
    >>> import numpy as np
    >>> from heldout.book.mnist.digit_pool import Pool
    >>> labels = np.array([0, 1, 2, 3])
    >>> sure = lambda d: np.eye(10, dtype=np.float32)[d] * 0.5 + 0.05
    >>> pool = Pool(labels, {"a": sure([0, 1, 2, 4]), "b": sure([0, 7, 2, 4])}, 0, "toy", {})
    >>> [v.tolist() for v in pool_judge_grades(pool, "a", "b")]
    [[1, 1, 1, 0], [1, 0, 1, 1]]
    """
    from heldout.book.mnist.digit_pool import Pool

    as_instance(pool, "pool", Pool, "a digit pool (digit_pool.Pool)")
    if not (in_choices(model, pool.proba) and in_choices(judge, pool.proba)):
        raise ValueError(f"model and judge must be among the pool's models {sorted(pool.proba)}")
    if model == judge:
        raise ValueError("the judge must be another model than the one it grades")
    answer = pool.predicted(model)
    truth = (answer == pool.labels).astype(int)
    verdict = (pool.predicted(judge) == answer).astype(int)
    return truth, verdict
