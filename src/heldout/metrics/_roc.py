"""Private machinery of the operating-point modules: the empirical ROC curve and its resamples.

The empirical ROC curve is the polygon through the points
:math:`(\\mathrm{FP}_k/n_0, \\mathrm{TP}_k/n_1)`, one per distinct score (an item is called
positive when its score is at least the threshold), joined by straight lines; a group of
tied scores holding both classes gives a diagonal segment (pROC and scikit-learn draw the
same polygon).  Everything here works on *counts* (``fp``, ``tp``) so that a specificity
such as 0.9 on 10 negatives lands exactly on a point instead of a rounding error away.
"""

from __future__ import annotations

import numpy as np

from heldout import _inputs


def labels_scores(y, scores, name: str = "scores") -> tuple[np.ndarray, np.ndarray]:
    """Checked boolean labels with both classes present and 1-d float scores of equal length."""
    pos = _inputs.binary_labels(y, "y")
    s = _inputs.scores(scores, name, pos.size).astype(float)
    _inputs.both_classes(pos, "y")
    return pos, s


def curve(pos: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cumulative ``fp``, ``tp`` counts and thresholds, from (0, 0) to (n0, n1).

    Point ``k`` (``k >= 1``) calls positive every item with score ``>= thresholds[k]``;
    point 0 has threshold ``+inf``.
    """
    return sorted_curve(pos, s)[:3]


def sorted_curve(pos: np.ndarray, s: np.ndarray):
    """:func:`curve` plus the positives' and the negatives' scores sorted ascending (one sort)."""
    order = np.argsort(-s)  # order within ties is irrelevant: ties are grouped below
    ss = s[order]
    p_order = pos[order]
    last = np.r_[np.flatnonzero(ss[1:] != ss[:-1]), ss.size - 1]
    tp = np.cumsum(p_order)[last]
    fp = last + 1 - tp
    return (
        np.r_[0, fp],
        np.r_[0, tp],
        np.r_[np.inf, ss[last]],
        ss[p_order][::-1],
        ss[~p_order][::-1],
    )


def snap(g: np.ndarray) -> np.ndarray:
    """Counts that are whole numbers up to rounding error made whole (0.9 * 10 -> 9)."""
    r = np.round(g)
    return np.where(np.abs(g - r) <= 1e-7 * np.maximum(1.0, np.abs(g)), r, g)


def tpr_at(fp: np.ndarray, tp: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Height (in positives) of the polygon at ``g`` false positives, and the point index.

    At a vertical jump (several points with ``fp == g``) the highest point counts, which
    is the largest sensitivity whose false-positive count does not exceed ``g``.
    """
    j = np.searchsorted(fp, g, side="right") - 1
    j = np.clip(j, 0, fp.size - 1)
    nxt = np.minimum(j + 1, fp.size - 1)
    run = fp[nxt] - fp[j]
    on_point = (fp[j] == g) | (run == 0)
    frac = np.where(on_point, 0.0, (g - fp[j]) / np.where(run == 0, 1, run))
    return tp[j] + frac * (tp[nxt] - tp[j]), j


def area_to(fp: np.ndarray, tp: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Area (in false-positive x true-positive counts) under the polygon from 0 to ``g``."""
    steps = np.diff(fp) * (tp[1:] + tp[:-1]) / 2.0
    cum = np.r_[0.0, np.cumsum(steps)]
    h, j = tpr_at(fp, tp, g)
    return cum[j] + (g - fp[j]) * (tp[j] + h) / 2.0


def resampled_counts(pos: np.ndarray, s: np.ndarray, reps: int, rng, chunk: int):
    """Stratified bootstrap resamples as cumulative counts on the sorted distinct scores.

    Yields ``(fp, tp)`` arrays of shape ``(b, m + 1)`` (``b <= chunk`` resamples, ``m``
    distinct scores): the ROC polygon of each resample, whose points are the original
    distinct scores (a score not drawn adds a zero step, which changes no area).  The
    positives and the negatives are each drawn with replacement, keeping ``n1`` and
    ``n0`` fixed as pROC's stratified bootstrap does.
    """
    order = np.argsort(-s)
    ss = s[order]
    group = np.r_[0, np.cumsum(ss[1:] != ss[:-1])]
    m = int(group[-1]) + 1
    p_order = pos[order]
    gpos, gneg = group[p_order], group[~p_order]
    n1, n0 = gpos.size, gneg.size
    done = 0
    while done < reps:
        b = min(chunk, reps - done)
        rows = np.arange(b)[:, None] * m
        tp = np.bincount((gpos[rng.integers(0, n1, (b, n1))] + rows).ravel(), minlength=b * m)
        fp = np.bincount((gneg[rng.integers(0, n0, (b, n0))] + rows).ravel(), minlength=b * m)
        fp_cum = np.zeros((b, m + 1))
        tp_cum = np.zeros((b, m + 1))
        np.cumsum(fp.reshape(b, m), axis=1, out=fp_cum[:, 1:])
        np.cumsum(tp.reshape(b, m), axis=1, out=tp_cum[:, 1:])
        yield fp_cum, tp_cum
        done += b


def rows_tpr_at(fp: np.ndarray, tp: np.ndarray, g: np.ndarray) -> np.ndarray:
    """:func:`tpr_at` for every row of ``(b, m)`` count arrays at the same ``g`` (1-d)."""
    b, m = fp.shape
    top = fp[:, -1:] + 1.0
    offset = np.arange(b)[:, None] * top
    flat = (fp + offset).ravel()
    j = np.searchsorted(flat, (g[None, :] + offset).ravel(), side="right") - 1
    j = j.reshape(b, g.size) - np.arange(b)[:, None] * m
    j = np.clip(j, 0, m - 1)
    nxt = np.minimum(j + 1, m - 1)
    f0 = np.take_along_axis(fp, j, 1)
    f1 = np.take_along_axis(fp, nxt, 1)
    t0 = np.take_along_axis(tp, j, 1)
    t1 = np.take_along_axis(tp, nxt, 1)
    run = f1 - f0
    gg = np.broadcast_to(g, f0.shape)
    frac = np.where((f0 == gg) | (run == 0), 0.0, (gg - f0) / np.where(run == 0, 1, run))
    return t0 + frac * (t1 - t0)


def rows_area_to(fp: np.ndarray, tp: np.ndarray, g: np.ndarray) -> np.ndarray:
    """:func:`area_to` for every row of ``(b, m)`` count arrays at the same ``g`` (1-d)."""
    b, m = fp.shape
    steps = np.diff(fp, axis=1) * (tp[:, 1:] + tp[:, :-1]) / 2.0
    cum = np.hstack([np.zeros((b, 1)), np.cumsum(steps, axis=1)])
    top = fp[:, -1:] + 1.0
    offset = np.arange(b)[:, None] * top
    j = np.searchsorted((fp + offset).ravel(), (g[None, :] + offset).ravel(), side="right") - 1
    j = np.clip(j.reshape(b, g.size) - np.arange(b)[:, None] * m, 0, m - 1)
    h = rows_tpr_at(fp, tp, g)
    f0 = np.take_along_axis(fp, j, 1)
    t0 = np.take_along_axis(tp, j, 1)
    return np.take_along_axis(cum, j, 1) + (g[None, :] - f0) * (t0 + h) / 2.0
