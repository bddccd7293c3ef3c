"""One rule for what a model column holds, from three numbers a data engine can compute.

Whether a column holds predicted labels, probabilities of class 1 or arbitrary scores
depends only on whether every value is a whole number and on the smallest and largest
value (:func:`heldout.metrics.prediction_files.column_kind` states the rule for a column
in memory).  :func:`kind_of_summary` applies it to that summary, so the in-memory
report and the out-of-core engine (which computes the summary with one pass of SQL)
decide the same way and refuse the same combinations.  :func:`label_warning_of_summary`
does the same for :func:`heldout.metrics.prediction_files.label_warning` (a label column
that looks like something else), from the column's distinct values and its length.
"""

from __future__ import annotations

import math

from heldout._checks import as_count, as_flag, as_floats, in_choices, show

__all__ = ["KINDS", "kind_of_summary", "label_warning_of_summary"]

#: The kinds a model column may have.
KINDS = ("labels", "probabilities", "scores")
#: A whole-number column with more distinct values than this is suspicious as labels.
MANY_CLASSES = 10
#: ... or with more distinct values than this share of its rows.
MANY_CLASSES_SHARE = 0.05


def kind_of_summary(
    whole: bool, low: float, high: float, given: str | None = None, name: str = "values"
) -> str:
    """The kind of a model column from ``(every value whole, minimum, maximum)``.

    Detected kind: ``"labels"`` when every value is a whole number, else
    ``"probabilities"`` when ``0 <= low`` and ``high <= 1``, else ``"scores"`` (only the
    order of scores is meaningful).  A ``given`` kind wins, but labels cannot hold
    fractions and probabilities cannot leave [0, 1]; a column given as scores whose values
    lie in [0, 1] is reported as probabilities (so the proper scores apply to it).
    (Unlike the rule inside ``evaluate`` before this module, whole numbers outside
    [0, 1] given as probabilities are refused too.)

    Parameters
    ----------
    whole : bool
        Every value of the column is a whole number.
    low, high : float
        Smallest and largest value (finite).
    given : {"labels", "probabilities", "scores"}, optional
        The kind the user named (default: detected).
    name : str
        The column's name, for error messages.

    Returns
    -------
    str
        ``"labels"``, ``"probabilities"`` or ``"scores"``.

    Raises
    ------
    ValueError
        An unknown ``given`` kind, labels given for fractions, probabilities given for
        values outside [0, 1], or a non-finite or reversed ``low``/``high``.

    Examples
    --------
    >>> kind_of_summary(True, 0, 1), kind_of_summary(False, 0.02, 0.97)
    ('labels', 'probabilities')
    >>> kind_of_summary(False, -2.5, 3.0), kind_of_summary(True, 0, 1, given="scores")
    ('scores', 'probabilities')
    """
    whole = as_flag(whole, "whole")
    lo = float(as_floats(low, "low", scalar=True))
    hi = float(as_floats(high, "high", scalar=True))
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise ValueError(
            f"low and high must be finite with low <= high, got {show(low)}, {show(high)}"
        )
    from heldout._inputs import detected_kind

    in_unit = lo >= 0 and hi <= 1
    detected = detected_kind(whole, lo, hi)
    if given is None:
        return detected
    if not in_choices(given, KINDS):
        raise ValueError(
            f"the kind of model {show(name)} must be 'labels', 'probabilities' or 'scores', "
            f"got {show(given)}"
        )
    if given == "labels" and detected != "labels":
        raise ValueError(f"model {show(name)} is read as labels but holds fractions")
    if given == "probabilities" and not in_unit:
        raise ValueError(
            f"model {show(name)} is read as probabilities but holds values outside [0, 1]"
        )
    if given == "scores" and detected != "scores":
        return "probabilities" if in_unit else "scores"
    return given


def label_warning_of_summary(distinct, n: int, classes) -> str | None:
    """The warning of a whole-number column read as labels, from its distinct values.

    The column looks like something other than labels when it holds many distinct
    values (more than ``MANY_CLASSES``, or at least three and more than
    ``MANY_CLASSES_SHARE`` of its ``n`` rows) or values that are not ``classes`` of the
    label column; the text is that of :func:`heldout.metrics.prediction_files.label_warning`
    on the column itself.

    Parameters
    ----------
    distinct : array_like
        The distinct values of the column.
    n : int
        Rows of the column.
    classes : array_like
        The classes of the label column.

    Returns
    -------
    str or None
        The warning, or None when neither sign is seen.

    Examples
    --------
    >>> label_warning_of_summary([1, 2, 3, 4, 5], 1000, [0, 1])[:40]
    'read as labels, but holds 4 values that '
    >>> label_warning_of_summary([0, 1], 1000, [0, 1]) is None
    True
    """
    import numpy as np

    values = np.unique(np.asarray(distinct, dtype=float))
    n = int(as_count(n, "n", minimum=1, scalar=True))
    notes = []
    foreign = np.setdiff1d(values, np.asarray(classes, dtype=float))
    if foreign.size:
        shown = ", ".join(f"{x:g}" for x in foreign[:5]) + (", ..." if foreign.size > 5 else "")
        notes.append(
            f"holds {foreign.size} values that are not classes of the label column ({shown})"
        )
    if values.size > MANY_CLASSES or (values.size >= 3 and values.size > MANY_CLASSES_SHARE * n):
        notes.append(f"has {values.size} distinct values")
    if not notes:
        return None
    return (
        "read as labels, but " + " and ".join(notes) + "; if these are scores, say so "
        "(--scores COLUMN, or kinds={name: 'scores'})"
    )
