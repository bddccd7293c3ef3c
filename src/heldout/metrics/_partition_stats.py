"""The Dask engine's mergeable statistics, one numpy pass per partition (issue 42).

:mod:`heldout.metrics.engine` hands each partition of the log (a pandas frame) to
:func:`first_pass`, which returns plain numpy arrays, and adds the partitions' results
up pairwise (:func:`merge_first`, a tree of merges): the column summaries (missing
values, whole numbers, minimum, maximum), every model's (label, prediction) cells,
every pair's (label, A, B) cells, the right/wrong pattern counts, the count, mean and
sum of squared deviations of every per-item loss (merged by the pairwise update of
Chan, Golub and LeVeque, The American Statistician 1983, so no precision is lost to
sums of squares) and, for each model, the numbers of positives and negatives at each
distinct score (DeLong's placement tables).  With two or more scored models a second
pass (:func:`covariance_pass`) looks each item up in those tables and sums the centred
products of the placement values: their covariances.

The predictions need no kind: with labels 0 and 1 a model of predicted labels holds 0
and 1 (more values make the several-class report, built elsewhere), and for a threshold
in (0, 1) (as ``evaluate`` requires) ``x >= threshold`` is ``x == 1`` on them.  The
losses are summed for every partition whose values lie in [0, 1] (a probability
column's do; the others are dropped once the kinds are known).  A partition's scores
on a decimal grid (``rint(s 10^d) / 10^d == s`` on every item, the rule of
:func:`heldout.metrics.auc._grid_candidates`) are counted by whole-number codes with
``np.bincount``; others by ``np.unique``.  A partition (a Parquet row group, 32 MB of
CSV) is read in slices of at most ``2**20`` rows, so the arrays of one pass stay small.
"""

from __future__ import annotations

from functools import reduce

import numpy as np

_EPS = 1e-15  # clipping of probabilities in the log loss (heldout.metrics.item_losses.EPS)
_MAX_DECIMALS = 9
_MAX_PATTERN_BITS = 20  # patterns counted by bincount up to this many models, else np.unique
_CHUNK = 1 << 20  # rows per slice of a partition


def _column(frame, name) -> np.ndarray:
    return frame[name].to_numpy(dtype="float64", na_value=np.nan)


def _summary(x: np.ndarray) -> tuple:
    """(missing or non-finite count, every value whole, minimum, maximum) of one column."""
    finite = np.isfinite(x)
    bad = int(x.size - np.count_nonzero(finite))
    good = x if bad == 0 else x[finite]
    if good.size == 0:
        return bad, True, np.inf, -np.inf
    return bad, bool(np.array_equal(np.rint(good), good)), float(good.min()), float(good.max())


def _losses(p: np.ndarray, positive: np.ndarray, yv: np.ndarray) -> dict:
    brier = p - yv
    brier *= brier
    q = np.clip(p, _EPS, 1 - _EPS)
    q = np.where(positive, q, 1 - q)  # the probability given to the item's own class
    log = np.log(q, out=q)
    log *= -1
    return {"brier": brier, "log_loss": log}


def _moment(x: np.ndarray) -> tuple[int, float, float]:
    """(count, mean, sum of squared deviations)."""
    if x.size == 0:
        return 0, 0.0, 0.0
    mean = float(x.mean())
    dev = x - mean
    np.square(dev, out=dev)
    return int(x.size), mean, float(dev.sum())


def _merge_moment(a, b):
    """Chan, Golub and LeVeque's pairwise update of (count, mean, squared deviations)."""
    if a is None or b is None:
        return None
    (na, ma, sa), (nb, mb, sb) = a, b
    if na == 0:
        return b
    if nb == 0:
        return a
    n = na + nb
    delta = mb - ma
    return n, ma + delta * nb / n, sa + sb + delta * delta * na * nb / n


def _value_table(s: np.ndarray, positive: np.ndarray):
    """Positives and negatives at each distinct score: ``(d, keys, negatives, positives)``.

    ``d`` is the decimal grid (keys are the whole numbers ``rint(s 10^d)``) or ``None``
    (keys are the scores themselves); keys sorted, each once.
    """
    from heldout.metrics.auc import _grid_candidates

    if s.size:
        limit = max(4 * s.size, 1 << 20)
        lo, hi = float(s.min()), float(s.max())
        for scale, low, high in _grid_candidates(s, (lo, hi), unlimited=True):
            if high - low + 1 > limit:
                break
            code = np.rint(s * scale)
            if np.array_equal(code / scale, s):
                code -= low - 0.25  # 2 code + y + 1/2 truncates to 2 (code - low) + y
                code *= 2
                code += positive
                both = np.bincount(code.astype(np.int64), minlength=2 * int(high - low + 1))
                seen = np.flatnonzero(both[0::2] + both[1::2])
                d = round(np.log10(scale))
                return d, seen + int(low), both[2 * seen], both[2 * seen + 1]
    keys, inverse = np.unique(s, return_inverse=True)
    both = np.bincount(2 * inverse.ravel() + positive, minlength=2 * keys.size).reshape(-1, 2)
    return None, keys, both[:, 0], both[:, 1]


def _as_keys(table, d):
    """The table's keys on grid ``d`` (whole numbers) or as scores (``d`` None)."""
    own, keys = table[0], table[1]
    if d is None:
        return keys if own is None else keys / 10.0**own
    return keys * 10 ** (d - own)


def merge_tables(a, b):
    """Two value tables of one model added up (keys on the finer grid, or scores)."""
    d = None if a[0] is None or b[0] is None else max(a[0], b[0])
    ka, kb = _as_keys(a, d), _as_keys(b, d)
    if d is not None and ka.size and kb.size:
        low = min(int(ka[0]), int(kb[0]))
        span = max(int(ka[-1]), int(kb[-1])) - low + 1
        if span <= 4 * (ka.size + kb.size) + (1 << 20):  # dense: add by position
            neg, pos = np.zeros(span, np.int64), np.zeros(span, np.int64)
            for keys, t in ((ka, a), (kb, b)):
                neg[keys - low] += t[2]
                pos[keys - low] += t[3]
            seen = np.flatnonzero(neg + pos)
            return d, seen + low, neg[seen], pos[seen]
    keys = np.concatenate([ka, kb])
    distinct, inverse = np.unique(keys, return_inverse=True)
    neg = np.bincount(inverse, np.concatenate([a[2], b[2]]), distinct.size).astype(np.int64)
    pos = np.bincount(inverse, np.concatenate([a[3], b[3]]), distinct.size).astype(np.int64)
    return d, distinct, neg, pos


def _in_chunks(fn, merge):
    """``fn`` over slices of at most ``_CHUNK`` rows of a partition, merged: the arrays of
    one call stay small however large the engine's partitions (its row groups) are."""

    def run(frame, *args):
        if len(frame) <= _CHUNK:
            return fn(frame, *args)
        parts = (fn(frame.iloc[i : i + _CHUNK], *args) for i in range(0, len(frame), _CHUNK))
        return reduce(merge, parts)

    run.__doc__, run.__name__ = fn.__doc__, fn.__name__
    return run


def _first_pass(
    frame, label: str, models: list[str], threshold: float, nulls: tuple = (), cluster=None
):
    """Every statistic of one partition that needs no other partition (see module notes).

    ``nulls``: further columns (the clusters, the strata) whose missing values are
    counted; ``cluster``: the column of cluster ids, for per-cluster sums.
    """
    y = _column(frame, label)
    cols = [_column(frame, m) for m in models]
    out = {"n": int(y.size), "summary": [_summary(x) for x in [y, *cols]]}
    out["nulls"] = [int(frame[c].isna().sum()) for c in nulls]
    if any(s[0] for s in out["summary"]):  # missing values: refused once merged
        return out
    positive = (y == 1).astype(np.int64)
    yi = positive
    pred = [(x >= threshold).astype(np.int64) for x in cols]
    k = len(models)
    out["n_positive"] = int(positive.sum())
    out["cells"] = [np.bincount(2 * yi + p, minlength=4) for p in pred]
    out["tables"] = [
        np.bincount(4 * yi + 2 * pred[i] + pred[j], minlength=8)
        for i in range(k)
        for j in range(i + 1, k)
    ]
    out["patterns"] = _patterns(pred, yi) if k > 1 else None
    series = _loss_series(cols, positive.astype(bool), y, k)
    out["moments"] = {key: None if x is None else _moment(x) for key, x in series.items()}
    out["values"] = [_value_table(x, yi) for x in cols]
    if cluster is not None:
        cell_codes = [2 * yi + p for p in pred]
        table_codes = [4 * yi + 2 * pred[i] + pred[j] for i in range(k) for j in range(i + 1, k)]
        out["clusters"] = _cluster_sums(frame[cluster], cell_codes, table_codes, series)
    return out


def _patterns(pred, yi):
    code = np.zeros(yi.size, dtype=np.int64)
    for j, p in enumerate(pred):
        code |= (p == yi).astype(np.int64) << j
    if len(pred) <= _MAX_PATTERN_BITS:
        counts = np.bincount(code, minlength=1 << len(pred))
        seen = np.flatnonzero(counts)
        return seen, counts[seen]
    return np.unique(code, return_counts=True)


def _loss_series(cols, positive, y, k) -> dict:
    """Each loss of each [0, 1] column and each pair's difference (None: not in [0, 1])."""
    losses = {}
    for i, x in enumerate(cols):
        if x.size == 0 or (0 <= x.min() and x.max() <= 1):  # (an empty partition adds 0)
            losses[i] = _losses(x, positive, y)
    out = {}
    for i in range(k):
        for which in ("brier", "log_loss"):
            out[(which, i)] = losses[i][which] if i in losses else None
            for j in range(i + 1, k):
                both = i in losses and j in losses
                out[(which, i, j)] = losses[i][which] - losses[j][which] if both else None
    return out


def _cluster_sums(ids, cell_codes, table_codes, series) -> dict:
    """Per-cluster sums of one partition: its cluster ids (as text) and, per cluster, the
    items, each model's four cells, each pair's eight cells and, for each loss series,
    its sum, sum of squares and number of values other than 0 and 1."""
    codes, labels = _factorize(ids)
    g = labels.size
    out = {"ids": labels, "sizes": np.bincount(codes, minlength=g).astype(float)}
    out["cells"] = [np.bincount(4 * codes + c, minlength=4 * g).reshape(g, 4) for c in cell_codes]
    out["tables"] = [np.bincount(8 * codes + t, minlength=8 * g).reshape(g, 8) for t in table_codes]
    out["loss"] = {
        key: None
        if x is None
        else np.column_stack(
            [
                np.bincount(codes, x, g),
                np.bincount(codes, x * x, g),
                np.bincount(codes, (x != 0) & (x != 1), g),
            ]
        )
        for key, x in series.items()
    }
    return out


def _factorize(ids):
    """``(code of each item, its cluster id as text)``: the ids as ``astype(str)`` writes
    them, each once (factorized first by value, then their texts, which few ids have)."""
    import pandas as pd

    codes, values = pd.factorize(pd.Series(ids), sort=False)
    texts, relabel = np.unique(
        pd.Series(values).astype(str).to_numpy(dtype=str), return_inverse=True
    )
    return relabel.ravel()[codes].astype(np.int64), texts


def _merge_clusters(a, b):
    ids, inverse = np.unique(np.concatenate([a["ids"], b["ids"]]), return_inverse=True)
    inverse = inverse.ravel()
    g = ids.size

    def add(u, v):
        if u is None or v is None:
            return None
        both = np.concatenate([u if u.ndim > 1 else u[:, None], v if v.ndim > 1 else v[:, None]])
        both = both.astype(float)
        out = np.column_stack([np.bincount(inverse, both[:, c], g) for c in range(both.shape[1])])
        return out if u.ndim > 1 else out[:, 0]

    return {
        "ids": ids,
        "sizes": add(a["sizes"], b["sizes"]),
        "cells": [add(u, v) for u, v in zip(a["cells"], b["cells"], strict=True)],
        "tables": [add(u, v) for u, v in zip(a["tables"], b["tables"], strict=True)],
        "loss": {key: add(u, b["loss"][key]) for key, u in a["loss"].items()},
    }


def _merge_patterns(a, b):
    if a is None:
        return None
    codes, inverse = np.unique(np.concatenate([a[0], b[0]]), return_inverse=True)
    counts = np.bincount(inverse, np.concatenate([a[1], b[1]]), codes.size).astype(np.int64)
    return codes, counts


def merge_first(a: dict, b: dict) -> dict:
    """Two partitions' :func:`first_pass` results added up."""
    out = {
        "n": a["n"] + b["n"],
        "nulls": [u + v for u, v in zip(a["nulls"], b["nulls"], strict=True)],
    }
    out["summary"] = [
        (u[0] + v[0], u[1] and v[1], min(u[2], v[2]), max(u[3], v[3]))
        for u, v in zip(a["summary"], b["summary"], strict=True)
    ]
    if "cells" not in a or "cells" not in b:
        return out
    out["n_positive"] = a["n_positive"] + b["n_positive"]
    out["cells"] = [u + v for u, v in zip(a["cells"], b["cells"], strict=True)]
    out["tables"] = [u + v for u, v in zip(a["tables"], b["tables"], strict=True)]
    out["patterns"] = _merge_patterns(a["patterns"], b["patterns"])
    out["moments"] = {key: _merge_moment(m, b["moments"][key]) for key, m in a["moments"].items()}
    out["values"] = [merge_tables(u, v) for u, v in zip(a["values"], b["values"], strict=True)]
    if "clusters" in a:
        out["clusters"] = _merge_clusters(a["clusters"], b["clusters"])
    return out


def placements(table, n1: int, n0: int):
    """DeLong's placement values of each distinct score, with their means and variances.

    ``v10``: the share of negatives below the score plus half those at it; ``v01``: the
    share of positives above plus half those at it.  Returns ``(v10, v01, mean10, mean01,
    var10, var01)``, the means and sample variances over the positives (``v10``) and the
    negatives (``v01``), as :func:`heldout.metrics.auc.delong` defines them.
    """
    _, _, neg, pos = table
    neg, pos = neg.astype(float), pos.astype(float)
    v10 = (np.cumsum(neg) - 0.5 * neg) / n0
    v01 = (n1 - np.cumsum(pos) + 0.5 * pos) / n1
    m10, m01 = float(pos @ v10) / n1, float(neg @ v01) / n0
    var10 = float(pos @ (v10 - m10) ** 2) / (n1 - 1) if n1 > 1 else 0.0
    var01 = float(neg @ (v01 - m01) ** 2) / (n0 - 1) if n0 > 1 else 0.0
    return v10, v01, m10, m01, var10, var01


def centred_lookup(table, v10, v01, m10, m01):
    """What :func:`covariance_pass` needs of one model: ``(d, low, c10, c01)``, the centred
    placement values ``v10 - mean10`` and ``v01 - mean01`` by row of a map from each
    score's key (its code on grid ``d`` minus ``low``, dense, when the codes span few
    enough values) or by row of the sorted scores (``low`` None)."""
    d, keys = table[0], table[1]
    if d is not None and keys.size:
        low = int(keys[0])
        span = int(keys[-1]) - low + 1
        if span <= 4 * keys.size + (1 << 20):
            c10, c01 = np.zeros(span), np.zeros(span)
            c10[keys - low] = v10 - m10
            c01[keys - low] = v01 - m01
            return d, low, keys, c10, c01
    return d, None, keys, v10 - m10, v01 - m01


def _rows(x: np.ndarray, d, low, keys) -> np.ndarray:
    """Row of each item's score in the arrays of :func:`centred_lookup`."""
    if d is None:
        return np.searchsorted(keys, x)
    code = np.rint(x * 10.0**d)
    if low is None:
        return np.searchsorted(keys, code.astype(np.int64))
    code -= low
    return code.astype(np.intp)


def _covariance_pass(frame, label: str, scored: list[str], lookups: list) -> tuple:
    """Sums of centred products of the placement values over the positives (``v10``) and
    the negatives (``v01``): ``(k x k, k x k)`` for ``k`` scored models.

    ``lookups``: per model, :func:`centred_lookup` of its table and placements.
    """
    y = _column(frame, label)
    positive = y == 1
    negative = ~positive
    a = np.empty((len(scored), int(positive.sum())))  # one row per model
    b = np.empty((len(scored), y.size - a.shape[1]))
    for j, (m, (d, low, keys, c10, c01)) in enumerate(zip(scored, lookups, strict=True)):
        row = _rows(_column(frame, m), d, low, keys)
        a[j] = c10[row[positive]]
        b[j] = c01[row[negative]]
    return _products(a), _products(b)


def _products(a: np.ndarray) -> np.ndarray:
    """``a @ a.T`` by rows (faster than a matrix product for a few rows)."""
    k = a.shape[0]
    out = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            out[i, j] = out[j, i] = float(np.dot(a[i], a[j]))
    return out


def merge_covariance(a, b):
    return a[0] + b[0], a[1] + b[1]


first_pass = _in_chunks(_first_pass, merge_first)
covariance_pass = _in_chunks(_covariance_pass, merge_covariance)
