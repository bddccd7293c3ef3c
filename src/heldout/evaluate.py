"""Every metric of one or several models on one test set, with intervals and paired tests.

What ``heldout evaluate`` prints.  For each model, each metric gets its value, an
interval and the method behind it:

===============  ==========================================  ===============================
metric           two classes                                 several classes
===============  ==========================================  ===============================
accuracy         Clopper-Pearson (:mod:`heldout.rates`)      Clopper-Pearson
precision        Clopper-Pearson on predicted positives      macro average, delta (logit)
recall           Clopper-Pearson on actual positives         macro average, delta (logit)
specificity      Clopper-Pearson on actual negatives         macro average, delta (logit)
f1               exact, via the Jaccard index                macro average, delta (logit)
auc              DeLong, logit scale (scores only)           --
brier, log_loss  t-interval on per-item losses (scores)      --
===============  ==========================================  ===============================

and for every pair of models, the paired difference on the same items with its
test: DeLong for the AUC, McNemar (exact) with Agresti and Min's interval for the
accuracy, the paired t for the Brier score and log loss (differences of means),
and the paired BCa bootstrap (:mod:`heldout.bootstrap`) for the others.

A model column holds either predicted labels or, for two classes, scores in
[0, 1] (predicted probabilities of class 1): whole numbers are read as labels and
anything else as scores, unless ``kinds`` says otherwise; scores are turned into
labels at ``threshold`` for the label metrics.

The metrics are entries of :data:`METRICS`, each a :class:`MetricSpec` with a
function for one model and one for a pair; :func:`evaluate` calls them in turn,
and :func:`metric_entry` / :func:`pair_entry` turn their results into the printed
dictionaries, to which a spec may add fields (``extra``), so that options such
as clustered items can add per-metric information without changing the rest.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from heldout.estimate import Difference, Estimate

__all__ = [
    "METRICS",
    "MAX_CLASSES",
    "Context",
    "MetricSpec",
    "detect_kind",
    "evaluate",
    "forest_plot",
    "metric_entry",
    "pair_entry",
]

#: Most classes ``evaluate`` accepts in the label column.
MAX_CLASSES = 100


@dataclass
class Context:
    """What the metric functions see: labels, each model's predictions, settings."""

    y: np.ndarray
    labels: dict
    scores: dict
    classes: np.ndarray
    alpha: float
    threshold: float
    n_resamples: int
    seed: int | None
    cache: dict = field(default_factory=dict)

    @property
    def binary(self) -> bool:
        """Two classes, coded 0 and 1."""
        return self.classes.size <= 2 and set(self.classes.tolist()) <= {0, 1}

    def confusion(self, model: str) -> np.ndarray:
        """Confusion matrix of ``model`` over the classes (cached)."""
        key = ("cm", model)
        if key not in self.cache:
            from heldout.rates import confusion_matrix

            self.cache[key] = confusion_matrix(self.y, self.labels[model], classes=self.classes)
        return self.cache[key]

    def delong(self, models: tuple[str, ...]):
        """DeLong AUCs and covariance of the scored models (computed once for all pairs)."""
        key = ("delong", models)
        if key not in self.cache:
            from heldout.auc import delong

            self.cache[key] = delong(self.y, np.vstack([self.scores[m] for m in models]))
        return self.cache[key]


@dataclass(frozen=True)
class MetricSpec:
    """One metric of the report.

    Attributes
    ----------
    name : str
        Key in the output.
    needs_scores : bool
        Computed only for models given as scores.
    single : callable
        ``single(ctx, model) -> Estimate`` (``ValueError`` when undefined).
    pair : callable
        ``pair(ctx, a, b) -> Difference``.
    binary_only : bool
        Only for two classes.
    extra : callable, optional
        ``extra(ctx, model_or_pair, result) -> dict`` of additional fields.
    """

    name: str
    needs_scores: bool
    single: Callable
    pair: Callable
    binary_only: bool = False
    extra: Callable | None = None


# --------------------------------------------------------------------------- singles
def _rate(which: str):
    def single(ctx: Context, model: str) -> Estimate:
        from heldout.fscore import macro_interval
        from heldout.rates import rate_interval

        cm = ctx.confusion(model)
        if which == "accuracy":
            return rate_interval(int(np.trace(cm)), int(cm.sum()), ctx.alpha)
        if not ctx.binary:
            average = {"precision": "precision", "recall": "recall", "specificity": "specificity"}
            e = macro_interval(cm, average[which], ctx.alpha, "logit")
            return e
        tn, fp, fn, tp = cm[0, 0], cm[0, 1], cm[1, 0], cm[1, 1]
        k, m, what = {
            "precision": (tp, tp + fp, "predicted positives"),
            "recall": (tp, tp + fn, "actual positives"),
            "specificity": (tn, tn + fp, "actual negatives"),
        }[which]
        if m == 0:
            raise ValueError(f"undefined: no {what}")
        return rate_interval(int(k), int(m), ctx.alpha)

    return single


def _f1(ctx: Context, model: str) -> Estimate:
    from heldout.fscore import f1_interval, macro_interval

    cm = ctx.confusion(model)
    if not ctx.binary:
        return macro_interval(cm, "f1", ctx.alpha, "logit")
    fp, fn, tp = cm[0, 1], cm[1, 0], cm[1, 1]
    if tp + fp + fn == 0:
        raise ValueError("undefined: no positives and none predicted")
    return f1_interval(int(tp), int(fp), int(fn), ctx.alpha, "exact")


def _auc(ctx: Context, model: str) -> Estimate:
    from heldout.auc import _interval

    scored = tuple(ctx.scores)  # one DeLong computation serves every model and pair
    d = ctx.delong(scored)
    i = scored.index(model)
    return _interval(d.auc[i], d.cov[i, i], ctx.y.size, ctx.alpha, "logit")


def _score(which: str):
    def single(ctx: Context, model: str) -> Estimate:
        from heldout.scores import score_interval

        return score_interval(ctx.y, ctx.scores[model], which, ctx.alpha, "t")

    return single


# --------------------------------------------------------------------------- pairs
def _boot_pair(name_binary: str, name_multi: str):
    def pair(ctx: Context, a: str, b: str) -> Difference:
        from heldout.bootstrap import bootstrap_interval

        metric = name_binary if ctx.binary else name_multi
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bootstrap_interval(
                metric,
                ctx.y,
                ctx.labels[a],
                ctx.labels[b],
                alpha=ctx.alpha,
                n_resamples=ctx.n_resamples,
                seed=ctx.seed,
            )

    return pair


def _accuracy_pair(ctx: Context, a: str, b: str) -> Difference:
    from heldout.rates import accuracy_difference

    return accuracy_difference(ctx.y, ctx.labels[a], ctx.labels[b], ctx.alpha)


def _auc_pair(ctx: Context, a: str, b: str) -> Difference:
    from heldout.auc import _difference

    scored = tuple(ctx.scores)
    return _difference(ctx.delong(scored), scored.index(a), scored.index(b), ctx.alpha)


def _score_pair(which: str):
    def pair(ctx: Context, a: str, b: str) -> Difference:
        from heldout.scores import score_difference

        return score_difference(ctx.y, ctx.scores[a], ctx.scores[b], which, ctx.alpha)

    return pair


#: The metrics of the report, in output order.
METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("accuracy", False, _rate("accuracy"), _accuracy_pair),
    MetricSpec("precision", False, _rate("precision"), _boot_pair("precision", "macro_precision")),
    MetricSpec("recall", False, _rate("recall"), _boot_pair("recall", "macro_recall")),
    MetricSpec(
        "specificity", False, _rate("specificity"), _boot_pair("specificity", "macro_specificity")
    ),
    MetricSpec("f1", False, _f1, _boot_pair("f1", "macro_f1")),
    MetricSpec("auc", True, _auc, _auc_pair, binary_only=True),
    MetricSpec("brier", True, _score("brier"), _score_pair("brier"), binary_only=True),
    MetricSpec("log_loss", True, _score("log_loss"), _score_pair("log_loss"), binary_only=True),
)


# --------------------------------------------------------------------------- entries
def _num(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def metric_entry(result: Estimate | None, note: str = "", **extra) -> dict:
    """The printed form of one metric of one model: ``value``, ``low``, ``high``, ``method``."""
    if result is None:
        return {"value": None, "low": None, "high": None, "method": note, **extra}
    out = {
        "value": _num(result.value),
        "low": _num(result.low),
        "high": _num(result.high),
        "method": result.method,
        "n": int(result.n),
    }
    out.update(extra)
    return out


def pair_entry(result: Difference | None, note: str = "", **extra) -> dict:
    """The printed form of a paired difference: ``value`` (A - B), ``low``, ``high``, ``p_value``, ``method``."""
    if result is None:
        return {"value": None, "low": None, "high": None, "p_value": None, "method": note, **extra}
    out = {
        "value": _num(result.value),
        "low": _num(result.low),
        "high": _num(result.high),
        "p_value": _num(result.p_value),
        "method": result.method,
    }
    out.update(extra)
    return out


# --------------------------------------------------------------------------- kinds
def detect_kind(values: np.ndarray) -> str:
    """``"labels"`` when every value is a whole number, else ``"scores"``.

    Examples
    --------
    >>> detect_kind(np.array([0.0, 1.0, 1.0])), detect_kind(np.array([0.2, 0.9]))
    ('labels', 'scores')
    """
    v = np.asarray(values, dtype=float)
    return "labels" if np.all(v == np.round(v)) else "scores"


def _classes(y: np.ndarray) -> np.ndarray:
    if np.any(y != np.round(y)):
        raise ValueError("the label column must hold whole numbers (class labels such as 0 and 1)")
    classes = np.unique(y).astype(np.int64)
    if classes.size > MAX_CLASSES:
        raise ValueError(f"the label column holds {classes.size} classes, more than {MAX_CLASSES}")
    return classes


def evaluate(
    y,
    predictions: dict,
    *,
    level: float = 0.95,
    kinds: dict | str | None = None,
    threshold: float = 0.5,
    n_resamples: int = 2000,
    seed: int | None = None,
) -> dict:
    """Every metric of every model with intervals, and paired differences of every pair.

    Parameters
    ----------
    y : array_like
        True labels (0/1 for two classes; whole numbers for several).
    predictions : dict
        ``{model name: column}``: predicted labels, or scores in [0, 1] for two classes.
    level : float, default 0.95
        Confidence level of every interval.
    kinds : dict or str, optional
        ``"labels"`` or ``"scores"`` for every model, or per model; default:
        detected (:func:`detect_kind`).
    threshold : float, default 0.5
        Scores at or above it are predicted positive.
    n_resamples : int, default 2000
        Resamples of the paired bootstrap.
    seed : int, optional
        Seed of the bootstrap.

    Returns
    -------
    dict
        ``n``, ``level``, ``classes``, ``models`` (per model: ``kind``,
        ``kind_source``, ``metrics``) and ``pairs`` (per pair: ``a``, ``b``,
        ``metrics``), ready for JSON.

    Examples
    --------
    >>> rng = np.random.default_rng(7)
    >>> y = (rng.random(500) < 0.3).astype(int)
    >>> a = np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, 500), 0, 1)
    >>> r = evaluate(y, {"a": a, "b": (a > 0.6).astype(int)}, seed=1)
    >>> sorted(r["models"]["a"]["metrics"]), r["models"]["b"]["kind"]
    (['accuracy', 'auc', 'brier', 'f1', 'log_loss', 'precision', 'recall', 'specificity'], 'labels')
    >>> r["pairs"][0]["metrics"]["accuracy"]["method"]
    'agresti-min, mcnemar-exact'
    """
    from heldout import _inputs
    from heldout._checks import as_probability

    lv = float(as_probability(level, "level"))
    th = float(as_probability(threshold, "threshold"))
    if not predictions:
        raise ValueError("predictions must hold at least one model")
    yy = _inputs.scores(y, "labels")
    classes = _classes(yy)
    if classes.size < 2:
        raise ValueError(
            f"the label column holds a single class ({classes[0]}); nothing to measure"
        )
    y_int = yy.astype(np.int64)
    labels, scores, report = {}, {}, {}
    for name, column in predictions.items():
        col = _inputs.scores(column, f"model {name!r}", yy.size)
        given = kinds if isinstance(kinds, str) else (kinds or {}).get(name)
        kind = given or detect_kind(col)
        if kind not in ("labels", "scores"):
            raise ValueError(
                f"the kind of model {name!r} must be 'labels' or 'scores', got {kind!r}"
            )
        if kind == "scores":
            if classes.size > 2 or not set(classes.tolist()) <= {0, 1}:
                raise ValueError(
                    f"model {name!r} holds scores, which need labels 0 and 1; "
                    f"the label column holds {classes.size} classes"
                )
            if np.any((col < 0) | (col > 1)):
                raise ValueError(
                    f"model {name!r} holds scores outside [0, 1]; give probabilities of class 1"
                )
            scores[name] = col
            labels[name] = (col >= th).astype(np.int64)
        else:
            if np.any(col != np.round(col)):
                raise ValueError(f"model {name!r} is read as labels but holds fractions")
            labels[name] = col.astype(np.int64)
        report[name] = {"kind": kind, "kind_source": "given" if given else "detected"}
    all_classes = np.union1d(classes, np.unique(np.concatenate(list(labels.values()))))
    if all_classes.size > MAX_CLASSES:
        raise ValueError(f"the labels and predictions hold more than {MAX_CLASSES} classes")
    ctx = Context(y_int, labels, scores, all_classes, 1 - lv, th, n_resamples, seed)
    for name in predictions:
        metrics = {}
        for spec in METRICS:
            if (spec.needs_scores and name not in scores) or (spec.binary_only and not ctx.binary):
                continue
            try:
                result = spec.single(ctx, name)
            except ValueError as exc:
                metrics[spec.name] = metric_entry(None, str(exc))
                continue
            extra = spec.extra(ctx, name, result) if spec.extra else {}
            metrics[spec.name] = metric_entry(result, **extra)
        report[name]["metrics"] = metrics
    pairs = []
    names = list(predictions)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            metrics = {}
            for spec in METRICS:
                if spec.binary_only and not ctx.binary:
                    continue
                if spec.needs_scores and not (a in scores and b in scores):
                    continue
                try:
                    result = spec.pair(ctx, a, b)
                except ValueError as exc:
                    metrics[spec.name] = pair_entry(None, str(exc))
                    continue
                extra = spec.extra(ctx, (a, b), result) if spec.extra else {}
                metrics[spec.name] = pair_entry(result, **extra)
            pairs.append({"a": a, "b": b, "metrics": metrics})
    return {
        "n": int(yy.size),
        "level": lv,
        "classes": [int(c) for c in ctx.classes],
        "models": report,
        "pairs": pairs,
    }


# --------------------------------------------------------------------------- plot
def forest_plot(report: dict, path=None):
    """A forest plot of every metric of every model with its interval.

    One row per metric, one marker per model (value, with its interval as a
    horizontal bar).  Written to ``path`` (PNG) when given; returns the
    matplotlib ``Figure`` (drawn without pyplot, so it works without a display).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    models = list(report["models"])
    rows = []
    for name in (
        "accuracy",
        "precision",
        "recall",
        "specificity",
        "f1",
        "auc",
        "brier",
        "log_loss",
    ):
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
