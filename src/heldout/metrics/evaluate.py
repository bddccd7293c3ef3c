"""Every metric of one or several models on one test set, with intervals and paired tests.

What ``heldout evaluate`` prints.  For each model, each metric gets its value, an
interval and the method behind it:

===============  ==========================================  ===============================
metric           two classes                                 several classes
===============  ==========================================  ===============================
accuracy         Clopper-Pearson (``rates``)                 Clopper-Pearson
precision        Clopper-Pearson on predicted positives      macro average, delta (logit)
recall           Clopper-Pearson on actual positives         macro average, delta (logit)
specificity      Clopper-Pearson on actual negatives         macro average, delta (logit)
npv              Clopper-Pearson on predicted negatives      --
f1               exact, via the Jaccard index                macro average, delta (logit)
auc              ``"auto"`` of ``auc`` (scores)              --
brier, log_loss  effective-count gamma interval (scores)     --
===============  ==========================================  ===============================

and for every pair of models, the paired difference on the same items with its
test: MOVER on the ``"auto"`` intervals for the AUC
(:func:`heldout.metrics.auc.auc_difference`), McNemar (exact) with Agresti and Min's
interval for the accuracy, the paired t for the Brier score and log loss
(differences of means), and the paired BCa bootstrap (:mod:`heldout.metrics.bootstrap`)
for the others.  Where the book's simulations show a method failing (too few
items in the smaller class for the AUC or the proper scores), the entry carries
a ``warning``.

Clustered items (``clusters``, one cluster id per item).  Every metric that is a
mean over its own items (accuracy; the Brier score and log loss; recall over the
actual positives, specificity over the actual negatives, precision over the
predicted positives, NPV over the predicted negatives) gets the cluster-robust
interval of :func:`heldout.dependent.clustered.clustered_mean` as its ``low``/``high``, and
the fields ``se_iid``, ``se_cluster``, ``design_effect``, ``icc``,
``effective_n`` and ``clusters``, with the independent-item interval kept as
``iid_low``/``iid_high``/``iid_method``.  The paired differences of the means on
the same items use :func:`heldout.dependent.clustered.clustered_difference`.  The AUC and
F1, and the differences of precision and NPV (whose items differ between the
models), use the cluster bootstrap of
:func:`heldout.metrics.bootstrap.cluster_bootstrap_interval`, and say so in ``method``.
With ``strata`` (and optionally the population ``shares`` of the strata), each
mean also gets a ``stratified`` estimate (:func:`heldout.dependent.strata.stratified_mean`).

A model column holds predicted labels or, for two classes, predicted probabilities of
class 1 or any real scores (:func:`heldout.metrics.prediction_files.column_kind`): whole
numbers are read as labels, other values in [0, 1] as probabilities, anything else as
scores, unless ``kinds`` says otherwise; the output names the kind of every column, and a
whole-number column whose values are not classes of the label column (or are many) gets a
``warning``.  Scores serve the AUC (only their order matters); the Brier score and log
loss need probabilities and are refused for other scores.  Probabilities and scores are
turned into labels at ``threshold`` for the label metrics.

With several models the pairs' p-values are adjusted within each metric's family of
pairs (``adjust``, Holm by default) and the best sets for the accuracy and the AUC are
reported (:func:`heldout.metrics.report.auc_best_set`).

The report is built once, from statistics: :func:`evaluate` reduces the columns to the
mergeable statistics the out-of-core engine computes (``_statistics``,
``_multi_statistics``: cell counts, pair tables, loss moments, DeLong's placement
values, right/wrong patterns, per-cluster sums) and
``heldout.metrics.report.build_report`` turns them into the report, as it does for
:func:`heldout.metrics.engine.evaluate_files`; what needs every item (the AUC's
cluster bootstrap, ...) is listed in :mod:`heldout.metrics.report`.
:func:`heldout.metrics.report.metric_entry` / :func:`heldout.metrics.report.pair_entry`
turn results into the printed dictionaries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from heldout._checks import as_instance, in_choices, show
from heldout._deprecate import level_to_alpha, renamed
from heldout.metrics.report import (  # the report's entries, defined with its builder
    _MAX_MODELS_BEST,
    _PROPER,
    AUC_MIN_CLASS,
    MAX_CLASSES,
    SCORE_MIN_CLASS,
    _rounded,
    auc_best_set,
    metric_entry,
    pair_entry,
)

__all__ = [
    "AUC_MIN_CLASS",
    "MAX_CLASSES",
    "SCORE_MIN_CLASS",
    "auc_best_set",
    "metric_entry",
    "pair_entry",
    "Context",
    "detect_kind",
    "evaluate",
    "forest_plot",
]

#: The metrics of the report, in output order.
_METRIC_ORDER = (
    "accuracy",
    "precision",
    "recall",
    "specificity",
    "npv",
    "f1",
    "auc",
    "brier",
    "log_loss",
)


@dataclass
class Context:
    """What the metric functions see: labels, each model's predictions, settings.

    Built by :func:`evaluate`; a metric's ``single(ctx, model)`` reads it.

    Examples
    --------
    >>> ctx = Context(np.array([0, 1, 1]), {"a": np.array([0, 1, 0])}, {}, np.array([0, 1]),
    ...               alpha=0.05, threshold=0.5, n_resamples=200, seed=1)
    >>> ctx.binary, ctx.minority
    (True, 1)
    """

    y: np.ndarray
    labels: dict
    scores: dict
    classes: np.ndarray
    alpha: float
    threshold: float
    n_resamples: int
    seed: int | None
    cache: dict = field(default_factory=dict)
    clusters: np.ndarray | None = None
    strata: np.ndarray | None = None
    shares: dict | None = None
    correction: str = "CR1"
    ranges: dict = field(default_factory=dict)  # (min, max) of each score column, if known

    @property
    def binary(self) -> bool:
        """Two classes, coded 0 and 1."""
        return self.classes.size <= 2 and set(self.classes.tolist()) <= {0, 1}

    @property
    def minority(self) -> int:
        """Items in the smaller class of a binary label column."""
        n1 = int(np.count_nonzero(self.positive))
        return min(n1, self.y.size - n1)

    @property
    def positive(self) -> np.ndarray:
        """The labels as booleans (True = class 1), computed once (cached)."""
        if "positive" not in self.cache:
            self.cache["positive"] = self.y == 1
        return self.cache["positive"]

    def predicted_positive(self, model: str) -> np.ndarray:
        """``model``'s predicted labels as booleans (True = class 1; cached)."""
        key = ("predicted_positive", model)
        if key not in self.cache:
            self.cache[key] = self.labels[model] == 1
        return self.cache[key]

    def losses(self, which: str, model: str) -> np.ndarray:
        """Per-item Brier or log loss of a scored model (cached; for clustered items)."""
        key = ("losses", which, model)
        if key not in self.cache:
            from heldout.metrics.item_losses import brier_items, log_loss_items

            per_item = brier_items if which == "brier" else log_loss_items
            self.cache[key] = per_item(self.positive, self.scores[model])
        return self.cache[key]

    def moments(self, which: str, model: str, other: str | None = None) -> tuple:
        """``(mean, sd, n)`` of a model's per-item Brier or log loss, or of ``model``'s
        minus ``other``'s; every scored model's in one pass over the items (cached)."""
        key = ("moments", which, model, other)
        if key not in self.cache:
            self.cache.update(_loss_moments(self.positive, self.scores, self.ranges))
        return self.cache[key]

    def pair_counts(self, a: str, b: str) -> np.ndarray:
        """Items per (label, a's prediction, b's prediction), at ``4 y + 2 a + b`` (cached)."""
        key = ("pair_counts", a, b)
        if key not in self.cache:
            pos, pa, pb = self.positive, self.predicted_positive(a), self.predicted_positive(b)
            # the eight cells from counts of the three columns and their overlaps
            n = pos.size
            y, na, nb = (int(np.count_nonzero(v)) for v in (pos, pa, pb))
            ya, yb, ab, yab = 0, 0, 0, 0
            for i in range(0, n, _BLOCK):
                yv, av, bv = pos[i : i + _BLOCK], pa[i : i + _BLOCK], pb[i : i + _BLOCK]
                both = yv & av
                ya += int(np.count_nonzero(both))
                both &= bv
                yab += int(np.count_nonzero(both))
                ab += int(np.count_nonzero(av & bv))
                yb += int(np.count_nonzero(yv & bv))
            counts = np.array(
                [
                    n - y - na - nb + ya + yb + ab - yab,  # 0: label 0, a 0, b 0
                    nb - yb - ab + yab,  # 1: b only
                    na - ya - ab + yab,  # 2: a only
                    ab - yab,  # 3: a and b, label 0
                    y - ya - yb + yab,  # 4: label 1 only
                    yb - yab,  # 5: label 1 and b
                    ya - yab,  # 6: label 1 and a
                    yab,  # 7: all three
                ],
                dtype=np.int64,
            )
            self.cache[key] = counts
        return self.cache[key]

    def confusion(self, model: str) -> np.ndarray:
        """Confusion matrix of ``model`` over the classes (cached)."""
        key = ("cm", model)
        if key not in self.cache:
            if self.binary and self.classes.size == 2:  # four counts of booleans
                pos, hit = self.positive, self.predicted_positive(model)
                n, n1, n_hit = pos.size, np.count_nonzero(pos), np.count_nonzero(hit)
                tp = np.count_nonzero(pos & hit)
                cm = np.array([[n - n1 - n_hit + tp, n_hit - tp], [n1 - tp, tp]], dtype=np.int64)
            else:
                from heldout.metrics.rates import confusion_matrix

                cm = confusion_matrix(self.y, self.labels[model], classes=self.classes)
            self.cache[key] = cm
        return self.cache[key]

    def delong(self, models: tuple[str, ...]):
        """DeLong AUCs and covariance of the scored models (computed once for all pairs)."""
        key = ("delong", models)
        if key not in self.cache:
            from heldout.metrics.auc import DeLong, _delong_codes

            # the columns were checked by evaluate: finite, and two classes are present
            columns = [self.scores[m] for m in models]
            ranges = [self.ranges.get(m) for m in models]
            a, cov, n1, n0 = _delong_codes(self.positive, columns, ranges)
            self.cache[key] = DeLong(a, cov, n1, n0)
        return self.cache[key]


_BLOCK = 1 << 20  # items per block of the passes over booleans and labels
#: Items per block of the loss moments: a block's rows of losses stay in the core's cache.
_LOSS_BLOCK = 1 << 15


def _loss_moments(pos: np.ndarray, scores: dict, ranges: dict | None = None) -> dict:
    """Mean, standard deviation (ddof 1) and count of every probability column's losses.

    The per-item Brier and log losses of :mod:`heldout.metrics.item_losses`, and the
    paired differences of every two columns, summarised block by block: each block's
    rows of losses (one row per loss and per pair) give their means and sums of squared
    deviations, merged across blocks by Chan, Golub and LeVeque's pairwise update, so no per-item array outlives its block.  The log loss is
    summarised as the log likelihood ``where(y, ln q, ln(1 - q))`` (``q`` the clipped
    probability, computed as ``log1p(-q)`` for the negatives, as the per-item
    function does) and its mean negated at the end, which changes no number: negation
    is exact.  Columns with values outside [0, 1] are skipped (``ranges``: each
    column's minimum and maximum when known).
    """
    from heldout.metrics.item_losses import EPS

    ranges = ranges or {}

    def in_unit(m, s):
        lo, hi = ranges.get(m) or (s.min(), s.max())
        return lo >= 0 and hi <= 1

    names = [m for m, s in scores.items() if s.size and in_unit(m, s)]
    k = len(names)
    pairs = [(a, b) for j, a in enumerate(names) for b in names[j + 1 :]]
    rows = (
        [("brier", m, None) for m in names]
        + [("log_loss", m, None) for m in names]
        + [(w, a, b) for a, b in pairs for w in ("brier", "log_loss")]
    )
    if not rows:
        return {}
    at = {m: j for j, m in enumerate(names)}
    buf = np.empty((len(rows), _LOSS_BLOCK))
    q = np.empty(_LOSS_BLOCK)
    weight, other = np.empty(_LOSS_BLOCK), np.empty(_LOSS_BLOCK)
    count, mean, m2 = 0, np.zeros(len(rows)), np.zeros(len(rows))
    for i in range(0, pos.size, _LOSS_BLOCK):
        flag = pos[i : i + _LOSS_BLOCK]
        m = flag.size
        block, qm, w, v = buf[:, :m], q[:m], weight[:m], other[:m]
        np.copyto(w, flag)
        np.subtract(1.0, w, out=v)
        for j, name in enumerate(names):
            p = scores[name][i : i + _LOSS_BLOCK]
            np.subtract(p, w, out=block[j])
            np.square(block[j], out=block[j])
            like = block[k + j]
            np.clip(p, EPS, 1 - EPS, out=qm)
            np.negative(qm, out=like)
            np.log1p(like, out=like)
            np.log(qm, out=qm)
            # each item's own log, by weights 1.0 and 0.0: x 1.0 + (+-0.0) is x to the bit
            # (every log is finite), and faster than a mask or a ufunc's where=
            like *= v
            qm *= w
            like += qm
        for r, (a, b) in enumerate(pairs):
            np.subtract(block[at[a]], block[at[b]], out=block[2 * k + 2 * r])
            np.subtract(block[k + at[a]], block[k + at[b]], out=block[2 * k + 2 * r + 1])
        part = block.sum(axis=1) / m  # each row's mean (pairwise sums, as numpy's mean)
        block -= part[:, None]
        np.square(block, out=block)
        part_m2 = block.sum(axis=1)  # (one block: numpy's std, to the bit)
        total = count + m
        delta = part - mean
        m2 += part_m2 + delta * delta * (count * m / total)
        mean += delta * (m / total)
        count = total
    out = {}
    for r, (which, a, b) in enumerate(rows):
        sd = math.sqrt(m2[r] / (count - 1)) if count > 1 else 0.0
        centre = -mean[r] if which == "log_loss" else mean[r]  # the log likelihood's mean
        out["moments", which, a, b] = (float(centre) + 0.0, sd, count)
    return out


# --------------------------------------------------------------------------- singles
_RATES = {  # numerator (true, predicted) cell, denominator subset, its name
    "precision": ((1, 1), ("pred", 1), "predicted positives"),
    "recall": ((1, 1), ("true", 1), "actual positives"),
    "specificity": ((0, 0), ("true", 0), "actual negatives"),
    "npv": ((0, 0), ("pred", 0), "predicted negatives"),
}


def _rate_items(which: str):
    """Per-item values of a rate that is a mean over its own subset of items."""

    def items(ctx: Context, model: str):
        pred, y = ctx.labels[model], ctx.y
        if which == "accuracy":
            return (pred == y).astype(float), np.ones(y.size, dtype=bool)
        (ti, pi), (axis, value), _ = _RATES[which]
        mask = (pred == value) if axis == "pred" else (y == value)
        hit = (y == ti) if axis == "pred" else (pred == pi)
        return hit.astype(float), mask

    return items


def _score_items(which: str):
    def items(ctx: Context, model: str):
        return ctx.losses(which, model), np.ones(ctx.y.size, dtype=bool)

    return items


# --------------------------------------------------------------------------- pairs


# --------------------------------------------------------------------------- clustered items


class _StrataItems:
    """The stratified estimate of each mean from the items in memory (the engine's
    counterpart, ``heldout.metrics.report._StrataSums``, works from per-stratum sums)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def mean(self, which: str, model: str):
        """:func:`heldout.dependent.strata.stratified_mean` of the mean ``which`` of ``model``."""
        from heldout.dependent.strata import stratified_mean

        ctx = self.ctx
        items = _score_items(which) if which in _PROPER else _rate_items(which)
        values, mask = items(ctx, model)
        clusters = None if ctx.clusters is None else ctx.clusters[mask]
        return stratified_mean(
            values[mask], ctx.strata[mask], ctx.shares, clusters=clusters, alpha=ctx.alpha
        )


def _n_clusters(ctx: Context) -> int:
    return int(np.unique(ctx.clusters).size)


# --------------------------------------------------------------------------- entries


# --------------------------------------------------------------------------- kinds
def detect_kind(values: np.ndarray) -> str:
    """``"labels"`` when every value is a whole number, else ``"scores"``.

    Examples
    --------
    >>> detect_kind(np.array([0.0, 1.0, 1.0])), detect_kind(np.array([0.2, 0.9]))
    ('labels', 'scores')
    """
    from heldout import _inputs

    v = _inputs.scores(values, "values")
    return "labels" if np.all(v == np.round(v)) else "scores"


def _distinct(values: np.ndarray, low_high=None) -> np.ndarray:
    """``np.unique`` of whole numbers, by counting when their range is small (faster).

    ``low_high``: the values' minimum and maximum, when known.
    """
    if values.size == 0:
        return values
    lo, hi = (int(v) for v in (low_high or (values.min(), values.max())))
    if hi - lo > 4 * MAX_CLASSES:
        return np.unique(values).astype(np.int64)
    if hi - lo < 8:  # a few classes: one comparison each
        return np.array([v for v in range(lo, hi + 1) if np.any(values == v)], dtype=np.int64)
    counts = np.zeros(hi - lo + 1, dtype=np.int64)
    for i in range(0, values.size, _BLOCK):  # in blocks: no int64 copy of the column
        block = values[i : i + _BLOCK].astype(np.int64)
        block -= lo
        counts += np.bincount(block, minlength=hi - lo + 1)
    return np.flatnonzero(counts) + lo


def _narrow(classes: np.ndarray):
    """The smallest signed integer type holding every value in ``classes``."""
    lo, hi = int(np.min(classes)), int(np.max(classes))
    for kind in (np.int8, np.int16, np.int32):
        info = np.iinfo(kind)
        if info.min <= lo and hi <= info.max:
            return kind
    return np.int64


def _classes(y: np.ndarray, low_high=None) -> np.ndarray:
    from heldout.metrics.prediction_files import _all_whole

    if not _all_whole(y):
        raise ValueError("the label column must hold whole numbers (class labels such as 0 and 1)")
    lo, hi = (float(v) for v in (low_high or (y.min(), y.max()))) if y.size else (0.0, 0.0)
    small = y.size and max(-lo, hi) < 2**62  # (fits an int64)
    classes = _distinct(y, (lo, hi)) if small else np.unique(y).astype(np.int64)
    if classes.size > MAX_CLASSES:
        raise ValueError(f"the label column holds {classes.size} classes, more than {MAX_CLASSES}")
    return classes


def _groups(values, name: str, n: int) -> np.ndarray | None:
    if values is None:
        return None
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(
            f"{name} must have one label per item: got shape {arr.shape} for {n} items"
        )
    return arr


# --------------------------------------------------------------------------- statistics
class _Items:
    """What only the items in memory give ``heldout.metrics.report.build_report``:
    the AUC's cluster bootstrap, the accuracy's best set beyond 62 models, and the
    bootstrap's small-sample warnings."""

    warn_small = True  # the paired bootstrap's SmallSampleWarning is passed on

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def auc_cluster(self, names: tuple, iid):
        """The cluster bootstrap of the AUC of one model, or of a pair's difference."""
        from heldout.metrics.bootstrap import cluster_bootstrap_interval

        ctx = self.ctx
        r = cluster_bootstrap_interval(
            "auc",
            ctx.y,
            *(ctx.scores[m] for m in names),
            clusters=ctx.clusters,
            alpha=ctx.alpha,
            n_resamples=ctx.n_resamples,
            seed=ctx.seed,
        )
        fields = {"se_cluster": r.se, "clusters": _n_clusters(ctx)}
        return r, fields if len(names) > 1 else {"se_iid": _rounded(iid.se), **fields}

    def best_accuracy(self, names: list, draws: int, seed) -> dict:
        """The accuracy's best set from the whole right/wrong table (more than 62 models)."""
        from heldout.comparison.best import best_set

        ctx = self.ctx
        correct = np.column_stack([ctx.labels[m] == ctx.y for m in names])
        chosen = best_set(correct, ctx.alpha, draws=draws, seed=seed)
        return {
            "models": [names[int(j)] for j in chosen.models],
            "p_values": {m: float(chosen.p_values[j]) for j, m in enumerate(names)},
            "method": "best set: paired sign-flip step-down",
        }


def _statistics(ctx: Context, names: list, report: dict) -> dict:
    """The statistics of :mod:`heldout.metrics.report` for two classes, from the columns.

    Each model's four cells and each pair's eight (label, a, b) counts (counted on
    booleans), the loss moments (block by block, :func:`_loss_moments`), DeLong's
    AUCs and covariance, the right/wrong patterns and, with clusters, the per-cluster
    sums (:func:`_cluster_sums`).
    """
    kinds = {m: report[m]["kind"] for m in names}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    proper = [m for m in names if kinds[m] == "probabilities"]
    keys = [(w, m) for m in proper for w in _PROPER]
    keys += [(w, a, b) for i, a in enumerate(proper) for b in proper[i + 1 :] for w in _PROPER]
    scored = tuple(m for m in names if m in ctx.scores)
    stats = {
        "n": int(ctx.y.size),
        "n_positive": int(np.count_nonzero(ctx.positive)),
        "kinds": kinds,
        "kind_source": {m: report[m]["kind_source"] for m in names},
        "warnings": {m: report[m].get("warning") for m in names},
        "cells": {m: ctx.confusion(m).ravel() for m in names},
        "tables": {p: ctx.pair_counts(*p) for p in pairs},
        "moments": {key: ctx.moments(*key) for key in keys},
        "delong": ctx.delong(scored) if scored else None,
        "patterns": _pattern_counts(ctx, names) if 1 < len(names) <= _MAX_MODELS_BEST else None,
        "items": _Items(ctx),
        "stratified": None if ctx.strata is None else _StrataItems(ctx),
    }
    if ctx.clusters is not None:
        stats["clusters"] = _cluster_sums(ctx, names, pairs, keys)
    return stats


def _multi_statistics(ctx: Context, names: list, report: dict) -> dict:
    """The several-class statistics of :mod:`heldout.metrics.report`, from the columns.

    Each model's (label, prediction) counts and each pair's (label, a, b) counts as
    ``(classes..., count)`` rows (the engine's ``GROUP BY`` rows), the right/wrong
    patterns and, with clusters, per-cluster items, right answers and (a right, b right)
    cells.
    """
    classes = ctx.classes
    k = classes.size
    index = {m: np.searchsorted(classes, ctx.labels[m]) for m in names}
    iy = np.searchsorted(classes, ctx.y)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]

    def rows(*codes):
        code = codes[0].astype(np.int64)
        for c in codes[1:]:
            code = code * k + c
        counts = np.bincount(code, minlength=k ** len(codes))
        keys = np.flatnonzero(counts)
        digits = [(keys // k**j) % k for j in reversed(range(len(codes)))]
        return [
            (*(int(classes[d[i]]) for d in digits), int(counts[key])) for i, key in enumerate(keys)
        ]

    stats = {
        "n": int(ctx.y.size),
        "multi": True,
        "kinds": {m: report[m]["kind"] for m in names},
        "kind_source": {m: report[m]["kind_source"] for m in names},
        "warnings": {m: report[m].get("warning") for m in names},
        "cm": {m: rows(iy, index[m]) for m in names},
        "triples": {(a, b): rows(iy, index[a], index[b]) for a, b in pairs},
        "patterns": _pattern_counts(ctx, names) if 1 < len(names) <= _MAX_MODELS_BEST else None,
        "items": _Items(ctx),
        "stratified": None if ctx.strata is None else _StrataItems(ctx),
    }
    if ctx.clusters is not None:
        from heldout.dependent.clustered import cluster_codes

        codes, g = cluster_codes(ctx.clusters, ctx.y.size)
        right = {m: ctx.labels[m] == ctx.y for m in names}
        cl = {"sizes": np.bincount(codes, minlength=g).astype(float)}
        for m in names:
            cl["right", m] = np.bincount(codes, weights=right[m], minlength=g)
        for a, b in pairs:
            cell = codes * 4 + 2 * right[a] + right[b]
            cl["pair", a, b] = np.bincount(cell, minlength=4 * g).reshape(g, 4).astype(float)
        stats["clusters"] = cl
    return stats


def _cluster_sums(ctx: Context, names: list, pairs: list, loss_keys: list) -> dict:
    """Per-cluster sizes, cells, pair tables and loss sums (clusters in sorted order).

    The sums :func:`heldout.dependent.clustered.clustered_mean` forms from the items
    (``np.bincount`` by cluster of the values and their squares), here of every mean of
    the report at once: the cells give the rates' sums (0/1 values), the losses'
    sums and sums of squares come from the per-item losses.
    """
    from heldout.dependent.clustered import cluster_codes

    codes, g = cluster_codes(ctx.clusters, ctx.y.size)
    pos = ctx.positive.astype(np.int64)
    out = {"sizes": np.bincount(codes, minlength=g).astype(float)}
    for m in names:
        cell = codes * 4 + 2 * pos + ctx.predicted_positive(m)
        out["cells", m] = np.bincount(cell, minlength=4 * g).reshape(g, 4).astype(float)
    for a, b in pairs:
        cell = codes * 8 + 4 * pos + 2 * ctx.predicted_positive(a) + ctx.predicted_positive(b)
        out["tables", a, b] = np.bincount(cell, minlength=8 * g).reshape(g, 8).astype(float)
    for key in loss_keys:
        v = ctx.losses(key[0], key[1])
        if len(key) == 3:
            v = v - ctx.losses(key[0], key[2])
        out["loss", *key] = (
            np.bincount(codes, weights=v, minlength=g),
            np.bincount(codes, weights=v * v, minlength=g),
            int(np.count_nonzero((v != 0) & (v != 1))),
        )
    return out


def _distinct_patterns(ctx: Context, names: list):
    """``(codes, counts)`` of the right/wrong patterns of 21 to 62 models (int64 codes)."""
    keys, counts = [], []
    for i in range(0, ctx.y.size, _BLOCK):
        y = ctx.y[i : i + _BLOCK]
        code = np.zeros(y.size, dtype=np.int64)
        for j, m in enumerate(names):
            code |= (ctx.labels[m][i : i + _BLOCK] == y).astype(np.int64) << j
        block_keys, block_counts = np.unique(code, return_counts=True)
        keys.append(block_keys)
        counts.append(block_counts)
    distinct, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    total = np.bincount(inverse.reshape(-1), weights=np.concatenate(counts))
    return distinct, total.astype(np.int64)


def _pattern_counts(ctx: Context, names: list):
    """``(codes, counts)`` of the right/wrong patterns present (bit ``j``: model ``j`` right).

    Counted block by block, so no (items x models) table is built
    (:func:`heldout.comparison.predictions.pattern_counts` orders them the same way):
    up to 20 models by a count per possible pattern, beyond by the distinct codes.
    """
    k = len(names)
    if k > 20:
        return _distinct_patterns(ctx, names)
    counts = np.zeros(1 << k, dtype=np.int64)
    small = k <= 8  # the pattern in one byte
    for i in range(0, ctx.y.size, _BLOCK):
        y = ctx.y[i : i + _BLOCK]
        code = np.zeros(y.size, dtype=np.uint8 if small else np.int32)
        for j, m in enumerate(names):
            right = ctx.labels[m][i : i + _BLOCK] == y
            if small:
                right = right.view(np.uint8)
                right <<= j
                code |= right
            else:
                code |= right.astype(np.int32) << j
        if k <= 3:  # up to 8 patterns: a comparison each beats bincount's int64 copy
            for v in range(1 << k):
                counts[v] += np.count_nonzero(code == v)
        else:
            counts += np.bincount(code, minlength=1 << k)
    keys = np.flatnonzero(counts)
    return keys, counts[keys]


def _read_models(predictions: dict, kinds, classes: np.ndarray, n: int, th: float):
    """``(labels, scores, ranges, report)`` of the model columns: each checked, its kind
    named (:func:`_column_kind`), labels narrowed, scores thresholded at ``th``."""
    from heldout import _inputs

    labels, scores, report = {}, {}, {}
    ranges = {}
    for name, column in predictions.items():
        low_high: list = []
        col = _inputs.scores(column, f"model {name!r}", n, low_high=low_high)
        lo, hi = low_high
        kind, given, note = _column_kind(name, col, kinds, classes, (lo, hi))
        if kind == "labels":
            if max(-lo, hi) >= _inputs.MAX_LABEL:
                _inputs.label_range(col, f"model {name!r}")  # its message names the value
            labels[name] = col.astype(_narrow(np.array([lo, hi], dtype=np.int64)))
        else:
            if classes.size > 2 or not set(classes.tolist()) <= {0, 1}:
                raise ValueError(
                    f"model {show(name)} holds {kind}, which need labels 0 and 1; "
                    f"the label column holds {classes.size} classes"
                )
            scores[name] = col
            ranges[name] = (lo, hi)
            labels[name] = (col >= th).view(np.int8)  # 0 and 1, one byte each
        report[name] = {"kind": kind, "kind_source": "given" if given else "detected"}
        if note:
            report[name]["warning"] = f"model {name!r}: {note}"
    return labels, scores, ranges, report


def _checked_inputs(
    y, predictions, alpha, threshold, n_resamples, seed, clusters, strata, shares, correction
):
    """evaluate's arguments checked, in order, before any metric (a bad value raises here
    rather than becoming a note in a field): ``(alpha, threshold, n_resamples, labels,
    classes, clusters, strata)``."""
    from heldout import _inputs
    from heldout._checks import as_count, as_probability
    from heldout.config import rng
    from heldout.metrics.bootstrap import MAX_RESAMPLES

    a_ = float(as_probability(alpha, "alpha", scalar=True))
    th = float(as_probability(threshold, "threshold", scalar=True))

    # the bootstrap's own range (100 to MAX_RESAMPLES): outside it every interval would fail
    n_resamples = as_count(
        n_resamples, "n_resamples", minimum=100, maximum=MAX_RESAMPLES, scalar=True
    )
    if not isinstance(seed, np.random.Generator):
        rng(seed)  # None, an int >= 0 or a Generator, else a ValueError naming seed
    if not isinstance(predictions, dict) or not predictions:
        raise ValueError("predictions must be a dict holding at least one model's column")
    if not in_choices(correction, ("CR1", "CR0")):
        raise ValueError(f"correction must be 'CR1' or 'CR0', got {show(correction)}")
    y_range: list = []
    yy = _inputs.scores(y, "labels", low_high=y_range)
    if max(-y_range[0], y_range[1]) >= _inputs.MAX_LABEL:
        _inputs.label_range(yy, "labels")  # refused, with a message naming the value
    classes = _classes(yy, y_range)
    if classes.size < 2:
        raise ValueError(
            f"the label column holds a single class ({classes[0]}); nothing to measure"
        )
    cl = _groups(clusters, "clusters", yy.size)
    st = _groups(strata, "strata", yy.size)
    if shares is not None and st is None:
        raise ValueError("shares need strata (one stratum label per item)")
    if st is not None:
        from heldout.dependent.strata import stratified_mean

        stratified_mean(yy, st, shares)  # the shares fit the strata (else a ValueError)
    if cl is not None:
        from heldout.dependent.clustered import cluster_codes

        cluster_codes(cl, yy.size)  # at least two clusters, no missing ids
    return a_, th, n_resamples, yy, classes, cl, st


@renamed(level=("alpha", level_to_alpha))
def evaluate(
    y,
    predictions: dict,
    *,
    alpha: float = 0.05,
    kinds: dict | str | None = None,
    threshold: float = 0.5,
    n_resamples: int = 2000,
    seed: int | None = None,
    clusters=None,
    strata=None,
    shares: dict | None = None,
    correction: str = "CR1",
    adjust: str = "holm",
    best_draws: int = 10_000,
) -> dict:
    """Every metric of every model with intervals, and paired differences of every pair.

    With several models, the p-values of the pairs are adjusted within each metric's
    family of pairs (``adjust``, Holm's step-down by default :cite:`holm1979`; the method
    is named in the output), and the models that cannot be ruled out as the best are
    reported for the accuracy (:func:`heldout.comparison.best.best_set`, sign flips of the
    paired right/wrong patterns) and for the AUC (:func:`heldout.metrics.report.auc_best_set`, the same
    step-down with normal multipliers drawn with DeLong's covariance).

    Parameters
    ----------
    y : array_like
        True labels (0/1 for two classes; whole numbers for several).
    predictions : dict
        ``{model name: column}``: predicted labels, or scores in [0, 1] for two classes.
    alpha : float, default 0.05
        Every interval has confidence ``1 - alpha`` (``level=`` is a deprecated way of
        giving ``1 - alpha``).
    kinds : dict or str, optional
        ``"labels"``, ``"probabilities"`` or ``"scores"`` for every model, or per model;
        default: detected (:func:`heldout.metrics.prediction_files.column_kind`).  Scores
        may be any real numbers: the AUC uses only their order; the Brier score and log
        loss need probabilities in [0, 1] and are refused for other scores.
    threshold : float, default 0.5
        Scores at or above it are predicted positive.
    n_resamples : int, default 2000
        Resamples of the paired (and cluster) bootstrap, from 100 to
        ``heldout.metrics.bootstrap.MAX_RESAMPLES``; outside that range, or with a bad
        ``seed``, ``ValueError`` is raised before any metric is computed.
    seed : int, optional
        Seed of the bootstrap.
    clusters : array_like, optional
        Cluster id of each item: clustered intervals (see the module notes).
    strata : array_like, optional
        Stratum of each item: a stratified estimate of every mean.
    shares : dict, optional
        Population share of each stratum (default: the test set's own mix).
    correction : {"CR1", "CR0"}
        Small-sample factor of the cluster-robust variance.
    adjust : {"holm", "hommel", "bonferroni", "bh", "by", "none"}
        Adjustment of the pairs' p-values within each metric (``p_adjusted``).
    best_draws : int, default 10,000
        Draws of the best sets' step-down (sign flips, normal multipliers).

    Returns
    -------
    dict
        ``n``, ``alpha``, ``level`` (``1 - alpha``), ``classes``, ``models`` (per model: ``kind``,
        ``kind_source``, ``metrics``, and ``warning`` when a label column looks like
        something else) and ``pairs`` (per pair: ``a``, ``b``, ``metrics``, each with
        ``p_adjusted``), ``adjust`` (the method) and, with several models, ``best``
        (per metric, accuracy and AUC: ``models``, ``p_values``, ``method``), ready for
        JSON; with ``clusters`` also ``clusters`` (their number).

    Examples
    --------
    >>> rng = np.random.default_rng(7)
    >>> y = (rng.random(500) < 0.3).astype(int)
    >>> a = np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, 500), 0, 1)
    >>> r = evaluate(y, {"a": a, "b": (a > 0.6).astype(int)}, seed=1)
    >>> sorted(r["models"]["a"]["metrics"]), r["models"]["b"]["kind"]
    (['accuracy', 'auc', 'brier', 'f1', 'log_loss', 'npv', 'precision', 'recall', 'specificity'], 'labels')
    >>> r["pairs"][0]["metrics"]["accuracy"]["method"]
    'agresti-min, mcnemar-exact'
    >>> g = np.repeat(np.arange(50), 10)
    >>> r = evaluate(y, {"a": a}, clusters=g, seed=1)
    >>> acc = r["models"]["a"]["metrics"]["accuracy"]
    >>> acc["method"], acc["clusters"]
    ('clustered-wilson (CR1, 50 clusters)', 50)
    """
    from heldout import _inputs

    a_, th, n_resamples, yy, classes, cl, st = _checked_inputs(
        y, predictions, alpha, threshold, n_resamples, seed, clusters, strata, shares, correction
    )
    y_int = yy.astype(_narrow(classes))
    _check_adjust(adjust)
    best_draws = int(_inputs.count(best_draws, "best_draws", minimum=99, scalar=True))
    labels, scores, ranges, report = _read_models(predictions, kinds, classes, yy.size, th)
    all_classes = np.union1d(classes, np.concatenate([_distinct(v) for v in labels.values()]))
    if all_classes.size > MAX_CLASSES:
        raise ValueError(f"the labels and predictions hold more than {MAX_CLASSES} classes")
    design = {"clusters": cl, "strata": st, "shares": shares, "correction": correction}
    ctx = Context(y_int, labels, scores, all_classes, a_, th, n_resamples, seed, **design,
                  ranges=ranges)  # fmt: skip
    names = list(predictions)
    from heldout.metrics.report import build_report

    if len(names) > 1 and best_draws > 10_000_000:  # best_set's stated limit
        raise ValueError(f"best_draws must be at most 10,000,000, got {best_draws:,}")
    make = _statistics if ctx.binary else _multi_statistics
    stats = make(ctx, names, report)
    return build_report(stats, names, a_, n_resamples, seed, adjust, best_draws, correction)


# --------------------------------------------------------------------------- kinds, families


def _column_kind(name, col, kinds, classes, low_high=None):
    """``(kind, given, warning)`` of one model column (issue 25: name it, warn, accept scores).

    The rule is :func:`heldout.metrics.column_kinds.kind_of_summary`, the one the
    out-of-core engine applies to its per-file summaries.
    """
    from heldout.metrics.column_kinds import kind_of_summary
    from heldout.metrics.prediction_files import _all_whole, label_warning

    if not (kinds is None or isinstance(kinds, str | dict)):
        raise ValueError(
            f"kinds must be a kind, a dict of kinds by model, or None, got {show(kinds)}"
        )
    given = kinds if isinstance(kinds, str) else (kinds or {}).get(name)
    lo, hi = low_high if low_high is not None else (col.min(), col.max())
    kind = kind_of_summary(_all_whole(col), lo, hi, given, name)
    note = label_warning(col, classes) if kind == "labels" else None
    return kind, given, note


def _check_adjust(adjust: str) -> None:
    """Refuse an unknown adjustment by name (``evaluate`` and the out-of-core engine)."""
    from heldout.comparison.multiple import _METHODS

    if not in_choices(adjust, _METHODS):
        raise ValueError(f"adjust must be one of {', '.join(_METHODS)}, got {show(adjust)}")


# --------------------------------------------------------------------------- plot
def forest_plot(report: dict, path=None):
    """A forest plot of every metric of every model with its interval.

    One row per metric, one marker per model (value, with its interval as a
    horizontal bar).  Written to ``path`` (PNG) when given; returns the
    matplotlib ``Figure`` (drawn without pyplot, so it works without a display).

    Examples
    --------
    >>> rng = np.random.default_rng(7)
    >>> y = (rng.random(200) < 0.4).astype(int)
    >>> report = evaluate(y, {"a": np.where(rng.random(200) < 0.9, y, 1 - y)}, n_resamples=200, seed=1)
    >>> fig = forest_plot(report)
    >>> fig.axes[0].get_xlabel()
    'value with its 95 % interval'
    """
    from os import PathLike

    as_instance(report, "report", dict, "a report of evaluate()")
    as_instance(path, "path", (str, PathLike), "a file name", optional=True)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    models = list(report["models"])
    rows = []
    for name in _METRIC_ORDER:
        if any(name in report["models"][m]["metrics"] for m in models):
            rows.append(name)
    height = 1.0 + 0.45 * len(rows) * max(1, len(models)) ** 0.5
    fig = Figure(figsize=(7.5, height))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    step = 0.7 / max(len(models), 1)
    colours = [f"C{i % 10}" for i in range(len(models))]
    for r, metric in enumerate(rows):
        for i, m in enumerate(models):
            e = report["models"][m]["metrics"].get(metric)
            if not e or e["value"] is None:
                continue
            y = r - 0.35 + step * (i + 0.5)
            ax.plot([e["low"], e["high"]], [y, y], color=colours[i], lw=2)
            ax.plot([e["value"]], [y], "o", color=colours[i], ms=4, label=m if r == 0 else None)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows)
    ax.invert_yaxis()
    ax.set_xlabel(f"value with its {100 * report['level']:g} % interval")
    ax.set_title(f"{report['n']:,} items")
    ax.grid(True, axis="x", alpha=0.3)
    if models:
        ax.legend(loc="best", fontsize=8, frameon=False)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
