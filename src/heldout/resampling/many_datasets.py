r"""Several learners compared over many data sets: ranks, Friedman, post-hoc tests.

The table of scores has one row per data set and one column per learner (the mean
cross-validated score of each learner on each data set); a third axis of folds is
averaged first.  Higher scores are better unless ``higher_is_better=False``.

* :func:`friedman` -- Friedman's test of equal mean ranks, with the Iman-Davenport F
  form that Demšar recommends :cite:`demsar2006`.
* :func:`nemenyi` -- Nemenyi's critical difference of mean ranks and its pairwise
  p-values, the groups of learners it does not separate (the bars of
  :func:`cd_diagram`) :cite:`demsar2006`.
* :func:`pairwise` -- Wilcoxon signed-rank or sign tests of every pair, or of every
  learner against a control, with Holm's (or another) adjustment
  :cite:`garcia2008,benavoli2016`.
* :func:`signed_rank_pairs` -- the Bayesian signed-rank test with a ROPE
  (:func:`heldout.resampling.bayes.signed_rank_rope`, :cite:`benavoli2017`) for the same
  pairs.
* :func:`read_scores`, :func:`scores_from_frame`, :func:`scores_from_cross_validate` --
  the table from a CSV file, a pandas frame, or scikit-learn's ``cross_validate``
  results over several data sets.

Mean-rank post-hoc tests (Nemenyi, and the Holm procedures on mean ranks) compare A and B
through ranks that depend on every other learner in the table: adding or removing an
unrelated learner C can change their verdict on A against B :cite:`benavoli2016`.  The
pairwise Wilcoxon and sign tests look only at A's and B's scores.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from heldout._checks import (
    as_choice,
    as_count,
    as_flag,
    as_floats,
    as_probability,
    check_work,
    in_choices,
    show,
)
from heldout._files import check_header, header_line, line_of
from heldout._result import Result, extra
from heldout.comparison.multiple import adjust as adjust_pvalues
from heldout.config import rng as make_rng
from heldout.resampling.bayes import signed_rank_rope

__all__ = [
    "CriticalDifference",
    "Friedman",
    "PairwiseBayes",
    "PairwiseTests",
    "ScoreTable",
    "cd_diagram",
    "friedman",
    "mean_ranks",
    "nemenyi",
    "pairwise",
    "rank_table",
    "read_scores",
    "scores_from_cross_validate",
    "scores_from_frame",
    "signed_rank_pairs",
    "wilcoxon_pvalues",
]

MAX_CELLS = 10_000_000  #: largest table (data sets x learners x folds) accepted
MAX_PAIR_WORK = 2_000_000_000  #: largest (pairs x draws x data sets^2) of the Bayesian pairs
_TESTS = ("wilcoxon", "sign")
_ADJUST = ("holm", "bonferroni", "hommel", "bh", "by", "none")


# --------------------------------------------------------------------------- input
@dataclass(frozen=True)
class ScoreTable(Result):
    """Scores of learners over data sets (and folds), with their names."""

    scores: np.ndarray  #: data sets x learners, or data sets x folds x learners
    learners: tuple  #: learner names, one per last-axis column
    datasets: tuple  #: data set names, one per row

    @property
    def means(self) -> np.ndarray:
        """Data sets x learners: the fold means when the table has folds."""
        return self.scores if self.scores.ndim == 2 else self.scores.mean(axis=1)


def _names(names, count: int, prefix: str, what: str) -> tuple:
    if names is None:
        return tuple(f"{prefix}{i + 1}" for i in range(count))
    if isinstance(names, str) or not isinstance(names, list | tuple | np.ndarray):
        raise ValueError(f"{what} must be a list of {count} names, got {show(names)}")
    out = tuple(str(n) for n in np.asarray(names, dtype=object).ravel())
    if len(out) != count:
        raise ValueError(f"{what} must hold {count} names, got {len(out)}")
    if len(set(out)) != len(out):
        raise ValueError(f"{what} must be distinct, got {list(out)!r}")
    return out


def _table(scores, name: str = "scores", *, folds: bool = False) -> np.ndarray:
    """A finite float table with at least 2 data sets and 2 learners (and 2 folds)."""
    if isinstance(scores, ScoreTable):
        scores = scores.scores if folds else scores.means
    elif hasattr(scores, "to_numpy") and hasattr(scores, "columns"):
        scores = scores.to_numpy()
    arr = as_floats(scores, name)
    want = 3 if folds else 2
    if arr.ndim != want:
        shape = "data sets x folds x learners" if folds else "data sets x learners"
        raise ValueError(f"{name} must be a {want}-d table ({shape}), got shape {arr.shape}")
    check_work(arr.size, MAX_CELLS, f"{name} of shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must hold finite numbers (no NaN or infinity)")
    if arr.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 data sets (rows), got {arr.shape[0]}")
    if arr.shape[-1] < 2:
        raise ValueError(f"{name} needs at least 2 learners (columns), got {arr.shape[-1]}")
    if folds and arr.shape[1] < 2:
        raise ValueError(f"{name} needs at least 2 folds per data set, got {arr.shape[1]}")
    return arr


def _learner_names(scores, k: int, learners) -> tuple:
    if learners is not None:
        return _names(learners, k, "", "learners")
    if isinstance(scores, ScoreTable):
        return scores.learners
    if hasattr(scores, "columns"):
        return _names(list(scores.columns), k, "", "the frame's columns")
    return _names(None, k, "L", "learners")


def scores_from_frame(frame) -> ScoreTable:
    """A :class:`ScoreTable` from a pandas frame: rows data sets, columns learners.

    A frame whose index has two levels (data set, fold) gives a table with folds.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"tree": [0.8, 0.7], "knn": [0.9, 0.6]}, index=["iris", "wine"])
    >>> t = scores_from_frame(df)
    >>> t.learners, t.datasets, t.scores.shape
    (('tree', 'knn'), ('iris', 'wine'), (2, 2))
    """
    if not (hasattr(frame, "to_numpy") and hasattr(frame, "columns") and hasattr(frame, "index")):
        raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    learners = _names(list(frame.columns), frame.shape[1], "", "the frame's columns")
    values = as_floats(frame.to_numpy(), "frame")
    if getattr(frame.index, "nlevels", 1) == 2:
        sets = list(dict.fromkeys(frame.index.get_level_values(0)))
        blocks = [values[np.asarray(frame.index.get_level_values(0) == s)] for s in sets]
        sizes = {len(b) for b in blocks}
        if len(sizes) != 1:
            raise ValueError(
                f"frame must hold the same number of folds for every data set, got {sorted(sizes)}"
            )
        arr = np.stack(blocks)
        _table(arr, "frame", folds=True)
        return ScoreTable(arr, learners, tuple(str(s) for s in sets))
    _table(values, "frame")
    return ScoreTable(values, learners, _names(list(frame.index), frame.shape[0], "", "the index"))


def scores_from_cross_validate(results, key: str = "test_score") -> ScoreTable:
    """A :class:`ScoreTable` with folds from ``cross_validate`` outputs over data sets.

    ``results[dataset][learner]`` is the dict returned by
    :func:`sklearn.model_selection.cross_validate` (``key`` names its array of per-fold
    scores, ``"test_score"`` by default; ``"test_<metric>"`` with several metrics).  Every
    learner must have the same number of folds on one data set; all data sets must have
    the same number of folds.

    Examples
    --------
    >>> res = {"iris": {"a": {"test_score": [0.9, 1.0]}, "b": {"test_score": [0.8, 0.9]}},
    ...        "wine": {"a": {"test_score": [0.7, 0.8]}, "b": {"test_score": [0.9, 0.9]}}}
    >>> t = scores_from_cross_validate(res)
    >>> t.scores.shape, t.learners, t.means.round(2).tolist()
    ((2, 2, 2), ('a', 'b'), [[0.95, 0.85], [0.75, 0.9]])
    """
    if not isinstance(key, str):
        raise ValueError(f"key must be the name of cross_validate's scores, got {show(key)}")
    if not isinstance(results, dict) or not results:
        raise ValueError("results must be a non-empty dict: data set -> learner -> cv result")
    datasets = tuple(str(d) for d in results)
    first = next(iter(results.values()))
    if not isinstance(first, dict) or not first:
        raise ValueError("results[dataset] must be a non-empty dict: learner -> cv result")
    learners = tuple(str(name) for name in first)
    blocks = []
    for d, per in results.items():
        if not isinstance(per, dict) or tuple(str(n) for n in per) != learners:
            raise ValueError(
                f"results[{show(d)}] must hold the learners {list(learners)!r} in order"
            )
        cols = []
        for name, out in per.items():
            if not isinstance(out, dict) or key not in out:
                raise ValueError(
                    f"results[{show(d)}][{show(name)}] must be a dict with the key {show(key)}"
                )
            col = as_floats(out[key], f"results[{d!r}][{name!r}][{key!r}]")
            if col.ndim != 1:
                raise ValueError(
                    f"results[{show(d)}][{show(name)}][{show(key)}] must be 1-d per-fold scores"
                )
            cols.append(col)
        if len({c.size for c in cols}) != 1:
            raise ValueError(f"results[{show(d)}]: every learner needs the same number of folds")
        blocks.append(np.column_stack(cols))
    if len({b.shape[0] for b in blocks}) != 1:
        raise ValueError("every data set needs the same number of folds")
    arr = _table(np.stack(blocks), "results", folds=True)
    return ScoreTable(arr, learners, datasets)


def read_scores(path_or_stream, source: str | None = None) -> ScoreTable:
    """Read a CSV table of scores: ``dataset,L1,L2,...`` or ``dataset,fold,L1,L2,...``.

    The first column names the data set; when the second column is headed ``fold`` each
    data set has several rows (one per fold, the same number for every data set) and the
    table has folds.  Lines starting with ``#`` and blank lines are skipped.  The limits
    of ``heldout._files`` (columns, name and line lengths) are checked first; a cell
    that is not a finite number is refused with its line number.

    Examples
    --------
    >>> import io
    >>> t = read_scores(io.StringIO("dataset,a,b\\niris,0.9,0.8\\nwine,0.7,0.9\\n"))
    >>> t.learners, t.datasets, t.scores.tolist()
    (('a', 'b'), ('iris', 'wine'), [[0.9, 0.8], [0.7, 0.9]])
    """
    if source is not None and not isinstance(source, str):
        raise ValueError(f"source must be a name (text) or None, got {show(source)}")
    if not (
        isinstance(path_or_stream, str | bytes)
        or hasattr(path_or_stream, "__fspath__")
        or hasattr(path_or_stream, "readline")
    ):
        raise ValueError(
            f"path_or_stream must be a file name or a text stream, got {show(path_or_stream)}"
        )
    if isinstance(path_or_stream, str | bytes) or hasattr(path_or_stream, "__fspath__"):
        src = source or str(path_or_stream)
        try:
            with open(path_or_stream, encoding="utf-8", newline="") as fh:
                return _read_scores(fh, src)
        except OSError as exc:
            raise ValueError(f"{src} cannot be read: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise ValueError(f"{src} is not a UTF-8 text file") from None
    return _read_scores(path_or_stream, source or "the scores")


def _read_scores(fh, source: str) -> ScoreTable:
    line = header_line(fh, source)
    while line and (not line.strip() or line.lstrip().startswith("#")):
        line = header_line(fh, source)
    if not line.strip():
        raise ValueError(f"{source} holds no header row")
    head = [c.strip() for c in next(csv.reader(io.StringIO(line)))]
    check_header(head, source)
    has_fold = len(head) >= 2 and head[1].lower() == "fold"
    first = 2 if has_fold else 1
    learners = head[first:]
    if len(learners) < 2:
        raise ValueError(
            f"{source}: the header needs a data set column and at least 2 learners, got {show(head)}"
        )
    _names(learners, len(learners), "", f"{source}: the learner names")
    rows: list[list[float]] = []
    sets: list[str] = []
    number = 1
    while True:
        number += 1
        text = line_of(fh, source, number)
        if not text:
            break
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        cells = [c.strip() for c in next(csv.reader(io.StringIO(text)))]
        if len(cells) != len(head):
            raise ValueError(
                f"{source}: line {number} has {len(cells)} cells, the header has {len(head)}"
            )
        try:
            values = [float(c) for c in cells[first:]]
        except ValueError:
            raise ValueError(
                f"{source}: line {number} holds a score that is not a number"
            ) from None
        if not all(np.isfinite(values)):
            raise ValueError(f"{source}: line {number} holds a score that is not finite")
        check_work((len(rows) + 1) * len(learners), MAX_CELLS, f"{source}: the table")
        rows.append(values)
        sets.append(cells[0])
    if not rows:
        raise ValueError(f"{source} holds no rows of scores")
    arr = np.asarray(rows)
    names = list(dict.fromkeys(sets))
    if not has_fold:
        if len(names) != len(sets):
            raise ValueError(f"{source}: a data set appears twice (add a 'fold' column for folds)")
        return ScoreTable(_table(arr, source), tuple(learners), tuple(names))
    where = np.asarray(sets)
    blocks = [arr[where == s] for s in names]
    if len({b.shape[0] for b in blocks}) != 1:
        raise ValueError(f"{source}: every data set needs the same number of folds")
    return ScoreTable(_table(np.stack(blocks), source, folds=True), tuple(learners), tuple(names))


# --------------------------------------------------------------------------- ranks
def rank_table(scores, higher_is_better: bool = True) -> np.ndarray:
    """Ranks of the learners within each data set (1 = best; ties share the average rank).

    Examples
    --------
    >>> rank_table([[0.9, 0.8, 0.8], [0.7, 0.9, 0.6]]).tolist()
    [[1.0, 2.5, 2.5], [2.0, 1.0, 3.0]]
    """
    x = _table(scores)
    better = as_flag(higher_is_better, "higher_is_better")
    return stats.rankdata(-x if better else x, axis=1, method="average")


def mean_ranks(scores, higher_is_better: bool = True) -> np.ndarray:
    """Each learner's rank averaged over the data sets, ``R_j = (1/N) sum_i r_ij``.

    Examples
    --------
    >>> mean_ranks([[0.9, 0.8, 0.8], [0.7, 0.9, 0.6]]).tolist()
    [1.5, 1.75, 2.75]
    """
    return rank_table(scores, higher_is_better).mean(axis=0)


@dataclass(frozen=True)
class Friedman(Result):
    """Friedman's test of equal mean ranks and its Iman-Davenport F form."""

    statistic: float  #: Friedman's chi-square, corrected for ties
    p_value: float  #: from the chi-square with ``k - 1`` degrees of freedom
    f: float  #: Iman-Davenport statistic
    f_p_value: float  #: from F with ``k - 1`` and ``(k - 1)(N - 1)`` degrees of freedom
    mean_ranks: np.ndarray = extra()  #: one per learner (1 = best)
    learners: tuple = extra()
    n_datasets: int = extra(0)
    df: int = extra(0)  #: ``k - 1``
    df_denominator: int = extra(0)  #: ``(k - 1)(N - 1)``


def friedman(scores, higher_is_better: bool = True, *, learners=None) -> Friedman:
    r"""Friedman's test that ``k`` learners have equal mean ranks over ``N`` data sets.

    With ``r_ij`` the rank of learner ``j`` on data set ``i`` (average ranks for ties)
    and ``R_j`` its rank sum,

    .. math::

        \chi^2_F = \frac{(k-1)\sum_j \bigl(R_j - N(k+1)/2\bigr)^2}
                        {\sum_{ij} r_{ij}^2 - N k (k+1)^2 / 4},

    which without ties is Demšar's :math:`\frac{12N}{k(k+1)}\bigl[\sum_j \bar R_j^2 -
    k(k+1)^2/4\bigr]` and with ties divides it by the usual tie correction.  Its p-value
    uses :math:`\chi^2_{k-1}`.  Iman and Davenport's form

    .. math::

        F_F = \frac{(N-1)\chi^2_F}{N(k-1) - \chi^2_F}

    is referred to :math:`F_{k-1,(k-1)(N-1)}`; it is less conservative than the
    chi-square for few data sets :cite:`demsar2006,garcia2008`.  When every data set ranks
    the learners the same way, ``F`` is infinite and its p-value 0.

    Examples
    --------
    >>> s = [[0.8, 0.7, 0.6], [0.9, 0.8, 0.85], [0.75, 0.7, 0.72], [0.6, 0.62, 0.5]]
    >>> res = friedman(s)
    >>> round(res.statistic, 3), round(res.p_value, 3), round(res.f, 3), round(res.f_p_value, 3)
    (3.5, 0.174, 2.333, 0.178)
    """
    x = _table(scores)
    names = _learner_names(scores, x.shape[1], learners)
    ranks = rank_table(x, higher_is_better)
    n, k = ranks.shape
    sums = ranks.sum(axis=0)
    denom = float(np.sum(ranks**2) - n * k * (k + 1) ** 2 / 4.0)
    if denom <= 0:  # every learner tied on every data set
        chi2, p = 0.0, 1.0
    else:
        chi2 = float((k - 1) * np.sum((sums - n * (k + 1) / 2.0) ** 2) / denom)
        p = float(stats.chi2.sf(chi2, k - 1))
    df1, df2 = k - 1, (k - 1) * (n - 1)
    gap = n * (k - 1) - chi2
    if gap <= 1e-12 * n * (k - 1):
        f, fp = float("inf"), 0.0
    else:
        f = (n - 1) * chi2 / gap
        fp = float(stats.f.sf(f, df1, df2))
    return Friedman(chi2, p, float(f), fp, sums / n, names, n, df1, df2)


# --------------------------------------------------------------------------- Nemenyi
@dataclass(frozen=True)
class CriticalDifference(Result):
    """Nemenyi's critical difference of mean ranks and what it separates."""

    cd: float  #: two learners whose mean ranks differ by at least this are declared different
    mean_ranks: np.ndarray  #: one per learner (1 = best)
    p_values: np.ndarray  #: k x k matrix of Nemenyi p-values (1 on the diagonal)
    groups: list = extra()  #: runs of learners (indices, best first) not shown different
    q: float = extra(0.0)  #: the studentised range quantile divided by sqrt(2)
    alpha: float = extra(0.05)
    learners: tuple = extra()
    n_datasets: int = extra(0)

    @property
    def order(self) -> np.ndarray:
        """Learner indices from the best mean rank to the worst."""
        return np.argsort(self.mean_ranks, kind="stable")


def _groups(ranks: np.ndarray, cd: float) -> list[list[int]]:
    """Maximal runs of learners (in mean-rank order) whose extreme ranks differ by < cd."""
    order = np.argsort(ranks, kind="stable")
    r = ranks[order]
    ends = np.searchsorted(r, r + cd, side="left") - 1  # last index with r_j - r_i < cd
    out: list[list[int]] = []
    last = -1
    for i, j in enumerate(ends):
        if j > i and j > last:
            out.append([int(v) for v in order[i : j + 1]])
            last = int(j)
    return out


def nemenyi(
    scores, alpha: float = 0.05, higher_is_better: bool = True, *, learners=None
) -> CriticalDifference:
    r"""Nemenyi's post-hoc test: the critical difference of mean ranks, pairwise p-values.

    Two of ``k`` learners are declared different at level ``alpha`` (family-wise, for
    all pairs) when their mean ranks over ``N`` data sets differ by at least

    .. math::

        CD = q_\alpha \sqrt{\frac{k(k+1)}{6N}}, \qquad
        q_\alpha = \frac{Q_{1-\alpha}(k, \infty)}{\sqrt 2},

    with :math:`Q_{1-\alpha}(k, \infty)` the quantile of the studentised range of ``k``
    normal variables (``scipy.stats.studentized_range``; Demšar's table of
    :math:`q_\alpha` lists these values) :cite:`demsar2006`.  The p-value of a pair is
    :math:`P\{Q(k,\infty) > \sqrt 2\,|\bar R_a - \bar R_b| / \sqrt{k(k+1)/(6N)}\}`.
    ``groups`` lists the maximal runs of learners, in mean-rank order, that the test does
    not separate (the bars of the CD diagram).  The test compares mean ranks, which depend
    on the other learners in the table :cite:`benavoli2016`.

    Examples
    --------
    >>> s = [[0.8, 0.7, 0.6], [0.9, 0.8, 0.85], [0.75, 0.7, 0.72], [0.6, 0.62, 0.5],
    ...      [0.7, 0.6, 0.5], [0.8, 0.7, 0.75]]
    >>> res = nemenyi(s)
    >>> round(res.cd, 3), res.mean_ranks.round(2).tolist(), res.groups
    (1.353, [1.17, 2.33, 2.5], [[0, 1, 2]])
    """
    x = _table(scores)
    a = float(as_probability(alpha, "alpha", scalar=True))
    names = _learner_names(scores, x.shape[1], learners)
    ranks = mean_ranks(x, higher_is_better)
    n, k = x.shape
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    q = float(stats.studentized_range.isf(a, k, np.inf)) / np.sqrt(2.0)
    cd = q * se
    z = np.abs(ranks[:, None] - ranks[None, :]) / se
    i, j = np.triu_indices(k, 1)
    values, where = np.unique(z[i, j], return_inverse=True)  # each distinct gap once
    upper = np.where(values == 0, 1.0, stats.studentized_range.sf(np.sqrt(2.0) * values, k, np.inf))
    p = np.ones((k, k))
    p[i, j] = p[j, i] = np.clip(upper[where.ravel()], 0.0, 1.0)
    return CriticalDifference(float(cd), ranks, p, _groups(ranks, cd), q, a, names, n)


# --------------------------------------------------------------------------- pairs
@dataclass(frozen=True)
class PairwiseTests(Result):
    """Paired tests of pairs of learners over data sets, with adjusted p-values."""

    first: np.ndarray  #: index of learner A of each pair
    second: np.ndarray  #: index of learner B of each pair
    p_value: np.ndarray  #: unadjusted two-sided p-values
    p_adjusted: np.ndarray  #: adjusted by ``adjust``
    reject: np.ndarray  #: ``p_adjusted <= alpha``
    statistic: np.ndarray = extra()  #: Wilcoxon's smaller rank sum, or A's wins (sign test)
    wins: np.ndarray = extra()  #: data sets where A scores better than B
    losses: np.ndarray = extra()  #: data sets where B scores better than A
    method: str = extra("wilcoxon")
    adjust: str = extra("holm")
    alpha: float = extra(0.05)
    learners: tuple = extra()

    def names(self) -> list[tuple[str, str]]:
        """The pairs as (A, B) learner names."""
        return [
            (self.learners[i], self.learners[j])
            for i, j in zip(self.first, self.second, strict=True)
        ]


def _pairs(k: int, control) -> tuple[np.ndarray, np.ndarray]:
    if control is None:
        return np.triu_indices(k, 1)
    others = np.array([j for j in range(k) if j != control])
    return np.full(others.size, control), others


def _control(control, names: tuple) -> int | None:
    if control is None:
        return None
    if isinstance(control, str):
        if not in_choices(control, names):
            raise ValueError(
                f"control must be one of the learners {list(names)!r}, got {show(control)}"
            )
        return names.index(control)
    c = as_count(control, "control", scalar=True)
    if c >= len(names):
        raise ValueError(f"control must be below the number of learners {len(names)}, got {c}")
    return c


def _sign_p(wins: np.ndarray, losses: np.ndarray) -> np.ndarray:
    """Two-sided exact sign test on the untied data sets (ties dropped)."""
    m = wins + losses
    low = np.minimum(wins, losses)
    p = np.where(m > 0, 2.0 * stats.binom.cdf(low, np.maximum(m, 1), 0.5), 1.0)
    return np.minimum(p, 1.0)


_ENUMERATE_UP_TO = 13  # scipy's limit for its (then exact) permutation p-value with ties


def wilcoxon_pvalues(d) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank p-values of each column of ``d`` (data sets x pairs).

    The same p-values as ``scipy.stats.wilcoxon`` applied to each column with its
    defaults (zero differences dropped, no continuity correction), computed for all
    columns at once: with ties or zeros and at most 13 rows, the exact conditional
    p-value over all ``2^N`` sign patterns of the ranks (scipy's permutation test, which
    then enumerates them all); with ties or zeros and more rows, the normal
    approximation with the tie-corrected variance; without them, the exact null
    distribution up to 50 rows and the normal approximation beyond.  A column of zeros
    has p-value 1.

    Examples
    --------
    >>> d = [[0.1, 0.0], [0.2, 0.1], [0.3, 0.1], [0.4, -0.2], [0.5, 0.3], [0.6, 0.3]]
    >>> wilcoxon_pvalues(d).round(4).tolist()
    [0.0312, 0.3125]
    """
    x = as_floats(d, "d")
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError(f"d must be a 2-d table (data sets x pairs), got shape {x.shape}")
    n, cols = x.shape
    p = np.ones(cols)
    zeros = np.sum(x == 0, axis=0)
    ranks = stats.rankdata(np.abs(x), axis=0) - zeros
    ranks[x == 0] = 0.0
    live = zeros < n
    ordered = np.sort(ranks, axis=0)
    ties = np.any((np.diff(ordered, axis=0) == 0) & (ordered[1:] > 0), axis=0)
    odd = live & (ties | (zeros > 0))
    plain = live & ~odd
    if np.any(plain):
        how = "exact" if n <= 50 else "asymptotic"
        p[plain] = stats.wilcoxon(x[:, plain], axis=0, method=how).pvalue
    if np.any(odd) and n > _ENUMERATE_UP_TO:
        with np.errstate(all="ignore"):
            p[odd] = stats.wilcoxon(x[:, odd], axis=0, method="asymptotic").pvalue
    elif np.any(odd):
        signs = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(float)
        where = np.flatnonzero(odd)
        for start in range(0, where.size, 256):
            block = where[start : start + 256]
            r = ranks[:, block]
            t = np.sum(r * (x[:, block] > 0), axis=0)
            null = signs @ r
            tol = 1e-12 * np.maximum(1.0, t)
            low = np.mean(null <= t + tol, axis=0)
            high = np.mean(null >= t - tol, axis=0)
            p[block] = np.minimum(1.0, 2.0 * np.minimum(low, high))
    return np.clip(np.nan_to_num(p, nan=1.0), 0.0, 1.0)


def pairwise(
    scores,
    method: str = "wilcoxon",
    adjust: str = "holm",
    *,
    control=None,
    alpha: float = 0.05,
    higher_is_better: bool = True,
    learners=None,
) -> PairwiseTests:
    r"""Wilcoxon signed-rank or sign tests of pairs of learners, with adjusted p-values.

    For a pair (A, B) the ``N`` per-data-set differences ``d_i = a_i - b_i`` are tested
    for a median of 0.  ``method="wilcoxon"``: Wilcoxon's signed-rank test
    (``scipy.stats.wilcoxon``, zero differences dropped, exact null distribution for
    small ``N`` without ties, normal approximation otherwise); ``method="sign"``: the
    exact binomial sign test on the wins and losses, ties dropped.  Every pair is tested
    (``k(k-1)/2`` tests), or with ``control`` every learner against the control
    (``k - 1`` tests); the p-values are then adjusted by ``adjust`` (Holm by default;
    see :func:`heldout.comparison.multiple.adjust`).  Each test uses only A's and B's
    scores, so unlike mean-rank post-hoc tests its verdict does not change when other
    learners are added :cite:`benavoli2016,garcia2008,demsar2006`.

    Examples
    --------
    >>> s = [[0.8, 0.7, 0.6], [0.9, 0.8, 0.85], [0.75, 0.7, 0.72], [0.6, 0.62, 0.5],
    ...      [0.7, 0.6, 0.5], [0.8, 0.7, 0.75]]
    >>> res = pairwise(s)
    >>> res.p_value.round(3).tolist(), res.p_adjusted.round(3).tolist()
    ([0.062, 0.031, 0.406], [0.125, 0.094, 0.406])
    """
    x = _table(scores)
    names = _learner_names(scores, x.shape[1], learners)
    test = as_choice(method, "method", _TESTS)
    how = as_choice(adjust, "adjust", _ADJUST)
    a = float(as_probability(alpha, "alpha", scalar=True))
    better = as_flag(higher_is_better, "higher_is_better")
    c = _control(control, names)
    first, second = _pairs(x.shape[1], c)
    d = x[:, first] - x[:, second]
    if not better:
        d = -d
    wins = np.sum(d > 0, axis=0)
    losses = np.sum(d < 0, axis=0)
    if test == "sign":
        stat = wins.astype(float)
        p = _sign_p(wins, losses)
    else:
        ranks = stats.rankdata(np.abs(d), axis=0) - np.sum(d == 0, axis=0)
        ranks[d == 0] = 0.0
        plus, minus = np.sum(ranks * (d > 0), axis=0), np.sum(ranks * (d < 0), axis=0)
        stat = np.minimum(plus, minus)
        p = wilcoxon_pvalues(d)
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    adj = adjust_pvalues(p, how)
    return PairwiseTests(first, second, p, adj, adj <= a, stat, wins, losses, test, how, a, names)


# --------------------------------------------------------------------------- Bayesian pairs
@dataclass(frozen=True)
class PairwiseBayes(Result):
    """The Bayesian signed-rank test with a ROPE for pairs of learners over data sets."""

    first: np.ndarray  #: index of learner A of each pair
    second: np.ndarray  #: index of learner B of each pair
    a_better: np.ndarray  #: share of posterior draws in which "A better" is most probable
    equivalent: np.ndarray  #: ... "practically equivalent"
    b_better: np.ndarray  #: ... "B better"
    rope: float = extra(0.0)
    draws: int = extra(0)
    learners: tuple = extra()


def signed_rank_pairs(
    scores,
    rope: float = 0.01,
    *,
    control=None,
    prior: float = 0.5,
    draws: int = 20_000,
    higher_is_better: bool = True,
    learners=None,
    seed=None,
) -> PairwiseBayes:
    """The Bayesian signed-rank test :cite:`benavoli2017` for every pair, or against a control.

    Each pair (A, B) is :func:`heldout.resampling.bayes.signed_rank_rope` applied to the
    two columns of per-data-set scores (the Dirichlet-process posterior of the
    differences ``a_i - b_i`` with a pseudo-observation at 0 of weight ``prior``): the
    shares of ``draws`` posterior draws in which A better (by more than ``rope``),
    practically equivalent, or B better has the largest mass.  The answers are not
    adjusted for multiplicity: they are posterior probabilities of each pair's question.
    Work ``pairs x draws x (N+1)^2`` is capped at ``MAX_PAIR_WORK``.

    Examples
    --------
    >>> s = [[0.8, 0.7, 0.6], [0.9, 0.8, 0.85], [0.75, 0.7, 0.72], [0.6, 0.62, 0.5],
    ...      [0.7, 0.6, 0.5], [0.8, 0.7, 0.75]]
    >>> res = signed_rank_pairs(s, rope=0.01, control=0, draws=2000, seed=1)
    >>> res.a_better.round(2).tolist()
    [1.0, 1.0]
    """
    x = _table(scores)
    names = _learner_names(scores, x.shape[1], learners)
    better = as_flag(higher_is_better, "higher_is_better")
    n_draws = int(as_count(draws, "draws", scalar=True, minimum=100))
    c = _control(control, names)
    first, second = _pairs(x.shape[1], c)
    check_work(float(first.size) * n_draws * (x.shape[0] + 1) ** 2, MAX_PAIR_WORK, "pairs x draws")
    g = make_rng(seed)
    if not better:
        x = -x
    out = np.empty((first.size, 3))
    r = 0.0
    for t, (i, j) in enumerate(zip(first, second, strict=True)):
        res = signed_rank_rope(x[:, i], x[:, j], rope, prior=prior, draws=n_draws, seed=g)
        out[t] = res.a_better, res.equivalent, res.b_better
        r = res.rope
    return PairwiseBayes(first, second, out[:, 0], out[:, 1], out[:, 2], r, n_draws, names)


# --------------------------------------------------------------------------- the diagram
def cd_diagram(result: CriticalDifference, ax=None, *, title: str | None = None) -> Any:
    """Draw Demšar's critical-difference diagram :cite:`demsar2006` and return the Axes.

    The learners sit at their mean ranks on an axis from 1 (best, left) to ``k``; a thick
    bar joins each run of learners in ``result.groups`` (not shown different by
    Nemenyi's test); a bar of length ``CD`` is drawn above the axis for scale.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> s = [[0.8, 0.7, 0.6], [0.9, 0.8, 0.85], [0.75, 0.7, 0.72], [0.6, 0.62, 0.5]]
    >>> ax = cd_diagram(nemenyi(s))
    >>> [float(v) for v in ax.get_xlim()]
    [1.0, 3.0]
    """
    if not isinstance(result, CriticalDifference):
        raise ValueError(
            f"result must be a CriticalDifference (from nemenyi), got {type(result).__name__}"
        )
    if ax is not None and not hasattr(ax, "plot"):
        raise ValueError(f"ax must be a matplotlib Axes or None, got {show(ax)}")
    if title is not None and not isinstance(title, str):
        raise ValueError(f"title must be text or None, got {show(title)}")
    import matplotlib.pyplot as plt

    ranks = np.asarray(result.mean_ranks, dtype=float)
    k = ranks.size
    order = result.order
    half = (k + 1) // 2
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 1.5 + 0.28 * half + 0.22 * len(result.groups)))
    ax.set_xlim(1.0, float(k))
    ax.set_ylim(-(half + 1.0) - 0.4 * len(result.groups), 2.2)
    ax.spines[["left", "right", "bottom"]].set_visible(False)
    ax.spines["top"].set_position(("data", 0.0))
    ax.xaxis.set_ticks_position("top")
    ax.set_xticks(np.arange(1, k + 1))
    ax.set_yticks([])
    ax.grid(False)
    ax.text((1.0 + k) / 2, 0.8, "mean rank (1 = best)", ha="center", va="bottom")
    # the critical difference, for scale
    ax.plot([1.0, 1.0 + result.cd], [1.5, 1.5], color="black", lw=1.5, clip_on=False)
    ax.plot([1.0, 1.0], [1.4, 1.6], [1.0 + result.cd] * 2, [1.4, 1.6], color="black", lw=1.5)
    ax.text(1.0 + result.cd / 2, 1.65, f"CD = {result.cd:.2f}", ha="center", va="bottom")
    for pos, j in enumerate(order):
        left = pos < half
        row = pos if left else k - 1 - pos
        y = -(row + 1.0) - 0.4 * len(result.groups)
        xe = 1.0 - 0.02 * k if left else k + 0.02 * k
        ax.plot([ranks[j], ranks[j], xe], [0.0, y, y], color="black", lw=0.8, clip_on=False)
        label = f"{result.learners[j]} ({ranks[j]:.2f})"
        ax.text(xe, y, label, ha="right" if left else "left", va="center")
    for g, members in enumerate(result.groups):
        lo, hi = ranks[members].min(), ranks[members].max()
        y = -0.3 - 0.4 * g
        ax.plot([lo - 0.03, hi + 0.03], [y, y], color="tab:red", lw=3.5, solid_capstyle="round")
    if title:
        ax.set_title(title)
    return ax
