"""Operating points, partial AUC, calibration and tuned-threshold reports for ``heldout evaluate``.

:func:`operating_entries` turns the requests of ``heldout evaluate``
(``--at-specificity``, ``--at-sensitivity``, ``--partial-auc LO:HI``, ``--calibration``,
``--threshold-tuned METRIC``) into entries of the report, one dict per metric with
``value``, ``low``, ``high`` and ``method`` like every other metric of the command, using
:mod:`heldout.metrics.operating`, :mod:`heldout.metrics.partial_area`,
:mod:`heldout.metrics.calibration` and :mod:`heldout.metrics.threshold_optimism`.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from numpy.typing import ArrayLike

from heldout._checks import as_choice, as_draws, as_flag, as_probability, show

__all__ = ["TUNED_NOTE", "operating_entries", "parse_band"]

#: The note printed when the threshold was tuned on the file being evaluated.
TUNED_NOTE = (
    "the threshold was chosen on this file, so metrics at it are optimistic; "
    "'tuned' entries choose it on other items (split in half, and 5-fold cross-fitting)"
)


def _num(x):
    x = float(x)
    return x if math.isfinite(x) else None


def _entry(value, low, high, method: str, **extra) -> dict:
    parts = [None if v is None else _num(v) for v in (value, low, high)]
    return {"value": parts[0], "low": parts[1], "high": parts[2], "method": method, **extra}


def _calibration(y, scores, a, reps, gen) -> dict:
    from heldout.metrics import calibration as cal

    out = {}
    n = np.size(scores)
    bins = max(1, min(15, n // 20))
    try:
        e = cal.calibration_error(y, scores, bins, a, max(reps, 100), gen)
        out["calibration error"] = _entry(
            e.value, e.low, e.high, f"debiased l2 ECE, {bins} equal-mass bins, bootstrap",
            plugin=_num(e.plugin),
        )  # fmt: skip
    except ValueError as exc:
        out["calibration error"] = _entry(None, None, None, f"not estimable: {exc}")
    try:
        z = cal.spiegelhalter_z(y, scores)
        out["spiegelhalter z"] = _entry(
            z.statistic, None, None, "test of calibration", p_value=_num(z.p_value)
        )
    except ValueError as exc:
        out["spiegelhalter z"] = _entry(None, None, None, f"not possible: {exc}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", cal.CalibrationWarning)  # stated in the entry
            s = cal.calibration_slope(y, scores, a)
        few = (
            {"warning": f"{s.events} items in the smaller class, below {cal.SLOPE_MIN_EVENTS}: "
                        "the slope's interval undercovers there (93.4 % at 95 % with 10)"}
            if s.events < cal.SLOPE_MIN_EVENTS
            else {}
        )  # fmt: skip
        out["calibration slope"] = _entry(
            s.slope, s.slope_low, s.slope_high, "logistic, robust Wald", **few
        )
        out["calibration intercept"] = _entry(
            s.intercept, s.intercept_low, s.intercept_high, "logistic with offset, robust Wald"
        )
    except ValueError as exc:
        out["calibration slope"] = _entry(None, None, None, f"not estimable: {exc}")
    return out


def parse_band(text: str) -> tuple[float, float]:
    """``"LO:HI"`` as a band of specificities ``(LO, HI)`` with ``0 <= LO < HI <= 1``.

    Examples
    --------
    >>> parse_band("0.8:1")
    (0.8, 1.0)
    """
    if not isinstance(text, str) or text.count(":") != 1:
        raise ValueError(f"partial AUC band must look like LO:HI (e.g. 0.8:1), got {show(text)}")
    try:
        lo, hi = (float(v) for v in text.split(":"))
    except ValueError:
        raise ValueError(
            f"partial AUC band must hold two numbers LO:HI, got {show(text)}"
        ) from None
    if not (0 <= lo < hi <= 1):
        raise ValueError(f"partial AUC band needs 0 <= LO < HI <= 1, got {show(text)}")
    return lo, hi


def _fixed_rate_entries(y, scores, name, func, what, arg, a, n_resamples, gen) -> dict:
    """The entries of one rate at each fixed value of the other (``arg`` names which)."""
    from heldout.metrics.operating import (
        MIN_NEGATIVES_ABOVE,
        OperatingPointWarning,
        negatives_needed,
    )

    out: dict = {}
    boot = f"stratified bootstrap ({int(n_resamples)}), threshold estimated"
    fixed = np.atleast_1d(np.asarray(as_probability(what, arg, closed=True)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OperatingPointWarning)  # stated per entry below
        r = func(y, scores, fixed, a, "bootstrap", n_resamples, gen)
    cols = [np.atleast_1d(x) for x in (r.value, r.low, r.high, r.threshold)]
    exact = np.broadcast_to(r.exact, fixed.shape)
    # the class whose quantile sets the threshold: negatives for a fixed specificity
    n_set = int(np.sum(~np.asarray(y, bool) if arg == "at_specificity" else np.asarray(y, bool)))
    for i, v in enumerate(fixed):
        value, low, high, threshold = (c[i] for c in cols)
        extra = {"threshold": _num(threshold)}
        how = boot
        if exact[i]:
            how = (
                f"order statistics (distribution-free, conservative): fewer than "
                f"{MIN_NEGATIVES_ABOVE} items expected beyond the threshold, where the "
                "bootstrap undercovers"
            )
            need = negatives_needed(float(v), a) if 0 < v < 1 else None
            if need is not None and n_set < need:
                side = "negatives" if arg == "at_specificity" else "positives"
                extra["warning"] = (
                    f"{n_set} {side} cannot bound the threshold (that needs {need}); "
                    "no distribution-free interval bounds this rate away from 0"
                )
        out[f"{name} {v:g}"] = _entry(value, low, high, how, **extra)
    return out


def _tuned_entries(y, scores, tuned, a, gen) -> dict:
    """The split and cross-fit reports of the metric a threshold was tuned to on the file."""
    from heldout.metrics.threshold_optimism import (
        TUNED_METRICS,
        crossfit_threshold,
        split_threshold,
    )

    out: dict = {}
    metric = as_choice(tuned, "tuned", TUNED_METRICS)
    for how, func, kw in (
        ("split", split_threshold, {"fraction": 0.5}),
        ("cross-fit", crossfit_threshold, {"folds": 5}),
    ):
        try:
            r = func(y, scores, metric, a, seed=gen, **kw)
            out[f"{metric} tuned ({how})"] = _entry(
                r.value, r.low, r.high, r.method, apparent=_num(r.apparent)
            )
        except ValueError as exc:
            out[f"{metric} tuned ({how})"] = _entry(None, None, None, f"not possible: {exc}")
    return out


def operating_entries(
    y: ArrayLike,
    scores: ArrayLike,
    alpha: float = 0.05,
    at_specificity: ArrayLike | None = None,
    at_sensitivity: ArrayLike | None = None,
    partial: tuple | None = None,
    calibration: bool = False,
    tuned: str | None = None,
    n_resamples: int = 2000,
    seed=None,
) -> dict:
    """The requested operating-point, partial-AUC, calibration and tuned-threshold entries.

    Each entry is ``{"value", "low", "high", "method", ...}``: the sensitivity at each
    fixed specificity and the reverse (stratified bootstrap, :cite:`pepe2003`), the
    McClish-standardised partial AUC (influence-function interval :cite:`mcclish1989`),
    the debiased calibration error :cite:`kumar2019verified`, Spiegelhalter's z
    :cite:`spiegelhalter1986` and the calibration slope and intercept :cite:`cox1958`,
    and for a threshold tuned on the file the split and cross-fit reports.

    Parameters
    ----------
    y : array_like of 0/1
    scores : array_like in [0, 1]
    alpha : float
    at_specificity, at_sensitivity : sequence of float, optional
    partial : pair of float, optional
        Band of specificities for the partial AUC.
    calibration : bool
    tuned : {"accuracy", "balanced_accuracy", "f1"}, optional
        The metric the threshold was tuned to maximise on this file.
    n_resamples : int
    seed : int, Generator or None

    Returns
    -------
    dict
        Metric name -> entry.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(400) < 0.4
    >>> p = np.clip(0.4 + 0.3 * (y - 0.4) + rng.normal(0, 0.15, 400), 0, 1)
    >>> e = operating_entries(y, p, at_specificity=[0.9], n_resamples=200, seed=1)
    >>> sorted(e), e["sensitivity at specificity 0.9"]["method"]
    (['sensitivity at specificity 0.9'], 'stratified bootstrap (200), threshold estimated')
    """
    from heldout.config import rng as make_rng
    from heldout.metrics.operating import sensitivity_at_specificity, specificity_at_sensitivity
    from heldout.metrics.partial_area import partial_auc

    a = float(as_probability(alpha, "alpha", scalar=True))
    n_resamples = as_draws(n_resamples, "n_resamples", minimum=100)
    calibration = as_flag(calibration, "calibration")
    gen = make_rng(seed)
    out: dict = {}
    for name, func, what, arg in (
        ("sensitivity at specificity", sensitivity_at_specificity, at_specificity, "at_specificity"),
        ("specificity at sensitivity", specificity_at_sensitivity, at_sensitivity, "at_sensitivity"),
    ):  # fmt: skip
        if what is not None:
            out.update(_fixed_rate_entries(y, scores, name, func, what, arg, a, n_resamples, gen))
    if partial is not None:
        r = partial_auc(y, scores, partial, a)
        out[f"partial AUC {partial[0]:g}:{partial[1]:g}"] = _entry(
            r.value, r.low, r.high, "McClish-standardised, influence-function variance, logit scale",
            raw=_num(r.raw),
        )  # fmt: skip
    if calibration:
        out.update(_calibration(y, scores, a, min(int(n_resamples), 1000), gen))
    if tuned is not None:
        out.update(_tuned_entries(y, scores, tuned, a, gen))
    return out
