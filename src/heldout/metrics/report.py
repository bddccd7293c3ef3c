"""One builder of the report of ``heldout evaluate``, from mergeable statistics.

Every path that evaluates predictions -- :func:`heldout.metrics.evaluate.evaluate` on
columns in memory (numpy), :func:`heldout.metrics.engine.evaluate_files` through DuckDB
or Dask -- reduces the items to the same *statistics*, sums over the items that can be
computed block by block (or partition by partition) and added up; ``build_report``
turns them into the report.  The statistics (a dict):

=================  ======================================================  ======================
key                what it holds                                           what it serves
=================  ======================================================  ======================
``n``              items (``n_positive``: items of class 1)                rates, class warnings
``kinds``          each model's column kind (``kind_source``, warnings)    the models' fields
``cells``          per model, (tn, fp, fn, tp)                             rates, F1
``tables``         per pair, the counts of (y, a, b) at ``4 y + 2 a + b``  McNemar, bootstrap
``moments``        mean, sd of each Brier and log loss, of differences     gamma, paired t
``delong``         DeLong's AUCs and covariance of the scored models       AUC, MOVER, best set
``patterns``       (codes, counts) of the right/wrong patterns             accuracy's best set
``clusters``       per-cluster sizes, cells, tables and loss sums          cluster-robust, F1
``strata``         per-stratum (and cluster) cells and loss sums (engine)  ``stratified``
``stratified``     each mean's stratified estimate (items or ``strata``)   ``stratified``
``multi``          several classes: ``cm`` and ``triples`` rows            the several-class report
``items``          what needs every item (in memory only, below)           see below
=================  ======================================================  ======================

How each path computes them:

=============================  =============================  ===================  ==============
statistic                      numpy (in memory)              DuckDB               Dask
=============================  =============================  ===================  ==============
cells, tables, patterns        counts of booleans, in blocks  one ``GROUP BY``     bincount per partition
loss moments                   blocks merged (Chan et al.)    ``avg``, ``stddev``  partitions merged (Chan)
DeLong                         grid counts or one sort        ``GROUP BY``, join   value tables, 2nd pass
per-cluster sums               ``bincount`` by cluster        ``GROUP BY``         groupby sum
per-stratum sums               (from the items, see below)    ``GROUP BY``         groupby sum
=============================  =============================  ===================  ==============

**What needs every item.**  Only the in-memory path has it, through the ``items`` entry
(``heldout.metrics.evaluate._Items``): the AUC's cluster bootstrap (its resamples draw
clusters and rank every drawn item's score; no per-cluster sum gives it) and with it
the AUC's clustered warning (the misranked pairs' shortfall); the accuracy's best set
beyond 62 models (``best_set`` on the whole right/wrong table); and the paired
bootstrap's small-sample warnings, which it passes on.  The engine keeps the AUC's
independent-item interval there, with a ``cluster_note`` saying so, and gives no best
set beyond 62 models.  The ``stratified`` fields come from ``stratified``, an object
whose ``mean(which, model)`` gives the stratified estimate of one mean: from the items
in memory (``heldout.metrics.evaluate._StrataItems``, by ``stratified_mean``), from the
engine's per-stratum sums (``_StrataSums``, the same arithmetic); one function,
``_stratified_field``, turns either into the field (or its note), and the entry builder
places it, on both paths, before the independent-item fields.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from heldout._checks import show
from heldout.metrics.estimate import Difference, Estimate

__all__ = [
    "AUC_MIN_CLASS",
    "MAX_CLASSES",
    "SCORE_MIN_CLASS",
    "auc_best_set",
    "metric_entry",
    "pair_entry",
]

#: Most models whose right/wrong patterns are counted (one bit each in a BIGINT).
_MAX_MODELS_BEST = 62


#: Most classes ``evaluate`` accepts in the label column.
MAX_CLASSES = 100

#: Fewer items than this in the smaller class: only the max-variance AUC interval holds.
AUC_MIN_CLASS = 10

#: Fewer items than this in the rarer class: the proper scores' intervals are not trusted.
SCORE_MIN_CLASS = 10

_PROPER = ("brier", "log_loss")

_NOT_PROBABILITIES = (
    "needs probabilities in [0, 1]; the column holds scores (the AUC uses their order)"
)


def _num(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _rounded(x):
    return None if x is None else float(x)


def _cluster_fields(r) -> dict:
    """The clustered fields of a :class:`heldout.dependent.clustered.ClusteredMean`."""
    return {
        "se_iid": float(r.se_iid),
        "se_cluster": float(r.se_cluster),
        "design_effect": _rounded(r.design_effect),
        "icc": _rounded(r.icc),
        "effective_n": _rounded(r.effective_n),
        "clusters": int(r.clusters),
    }


def _stratified_fields(s) -> dict:
    """The report's ``stratified`` field of a :class:`heldout.dependent.strata.Stratified`
    (here and in the out-of-core engine)."""
    return {
        "value": s.estimate,
        "low": s.low,
        "high": s.high,
        "se": s.se,
        "method": f"stratified-{s.method}",
        "strata": {
            str(k): {"n": int(n), "mean": float(m), "share": float(w)}
            for k, n, m, w in zip(s.strata, s.sizes, s.means, s.shares, strict=True)
        },
    }


def metric_entry(result: Estimate | None, note: str = "", **extra) -> dict:
    """The printed form of one metric of one model: ``value``, ``low``, ``high``, ``method``.

    Examples
    --------
    >>> metric_entry(Estimate(0.8, 0.7, 0.9, method="wilson", n=100))
    {'value': 0.8, 'low': 0.7, 'high': 0.9, 'method': 'wilson', 'n': 100}
    >>> metric_entry(None, "no positives")["method"]
    'no positives'
    """
    return _entry(result, note, extra, (Estimate, "an Estimate"), (), ("n",))


def pair_entry(result: Difference | None, note: str = "", **extra) -> dict:
    """The printed form of a paired difference: ``value`` (A - B), ``low``, ``high``, ``p_value``, ``method``.

    Examples
    --------
    >>> pair_entry(None, "needs scores")
    {'value': None, 'low': None, 'high': None, 'p_value': None, 'method': 'needs scores'}
    """
    return _entry(result, note, extra, (Difference, "a Difference"), ("p_value",), ())


def _entry(result, note, extra, kind, numbers, counts) -> dict:
    """The printed form shared by :func:`metric_entry` and :func:`pair_entry`.

    ``value``, ``low``, ``high`` and the fields named in ``numbers`` (floats), ``method``,
    the fields named in ``counts`` (ints), then ``extra``; ``note`` as the method (and None
    for the numbers) when ``result`` is None.  ``kind`` is the class ``result`` must have
    and its name with an article, for the message.
    """
    if not isinstance(note, str):
        raise ValueError(f"note must be a text, got {show(note)}")
    fields = ("value", "low", "high", *numbers)
    if result is None:
        return {**dict.fromkeys(fields), "method": note, **extra}
    if not isinstance(result, kind[0]):
        raise ValueError(f"result must be {kind[1]} or None, got {show(result)}")
    out = {name: _num(getattr(result, name)) for name in fields}
    out["method"] = result.method
    out.update({name: int(getattr(result, name)) for name in counts})
    out.update(extra)
    return out


def _adjust_pairs(pairs: list, method: str) -> None:
    """Add ``p_adjusted`` to every pair's entry, adjusted within each metric's family."""
    from heldout.comparison.multiple import adjust

    metrics = {m for pair in pairs for m in pair["metrics"]}
    for metric in metrics:
        entries = [
            pair["metrics"][metric]
            for pair in pairs
            if metric in pair["metrics"] and pair["metrics"][metric].get("p_value") is not None
        ]
        if not entries:
            continue
        p = adjust(np.array([e["p_value"] for e in entries]), method)
        for e, q in zip(entries, p, strict=True):
            e["p_adjusted"] = float(q)
            e["adjust"] = method


def auc_best_set(auc, cov, alpha: float = 0.05, *, draws: int = 10_000, seed=None):
    """Models that cannot be ruled out as having the highest AUC (step-down, DeLong).

    The step-down best set of :func:`heldout.comparison.best.best_set` with DeLong's
    estimates (:cite:`delong1988`): rival ``j``'s lead over model ``i`` is
    ``T_ji = (A_j - A_i) / sqrt(V_jj + V_ii - 2 V_ij)``, the evidence against model ``i``
    being a best one is ``S_i = max_j T_ji``, and the null distribution of the maxima
    comes from normal multipliers ``Z ~ N(0, V)`` (:cite:`romano2005`); models are removed
    in order of ``S_i`` while their monotone adjusted p-value is at most ``alpha``.  Like
    DeLong's test it is asymptotic; it inherits its trouble with few items in the smaller
    class.

    Parameters
    ----------
    auc : array_like
        The models' AUCs (two or more, in [0, 1]; NaN is refused).
    cov : array_like
        Their DeLong covariance matrix (finite, symmetric, non-negative diagonal).
    alpha : float
        Level in (0, 1).
    draws : int
        Normal multipliers, 99 to 10,000,000.
    seed : int, Generator or None
        For the multipliers.

    Returns
    -------
    tuple
        ``(in_set, p_values)``: booleans and adjusted p-values per model.

    Examples
    --------
    >>> in_set, p = auc_best_set([0.9, 0.8, 0.88], np.diag([1e-4, 1e-4, 1e-4]), seed=1)
    >>> in_set.tolist()
    [True, False, True]
    """
    from heldout._checks import as_count, as_floats, as_probability
    from heldout.config import rng as make_rng

    a = as_probability(auc, "auc", closed=True)
    if a.ndim != 1 or a.size < 2:
        raise ValueError(f"auc must hold one AUC per model, two or more, got shape {a.shape}")
    k = a.size
    v = as_floats(cov, "cov")
    if v.shape != (k, k) or not np.all(np.isfinite(v)):
        raise ValueError(f"cov must be a finite {k} x {k} covariance matrix, got shape {v.shape}")
    if np.any(np.diag(v) < 0) or not np.allclose(v, v.T, rtol=1e-9, atol=1e-15):
        raise ValueError("cov must be symmetric with a non-negative diagonal (a covariance)")
    alpha = as_probability(alpha, "alpha", scalar=True)
    draws = as_count(draws, "draws", minimum=99, maximum=10_000_000, scalar=True)
    var = np.diag(v)[:, None] + np.diag(v)[None, :] - 2 * v
    se = np.sqrt(np.maximum(var, 0.0))
    se = np.where(se > 1e-12, se, np.inf)
    off = ~np.eye(k, dtype=bool)

    def lead(x):  # x (..., k) -> (..., k): max over rivals j of (x_j - x_i) / se_ji
        t = (x[..., :, None] - x[..., None, :]) / se
        return np.where(off, t, -np.inf).max(axis=-2)

    stat = lead(a)
    order = np.argsort(-stat, kind="stable")
    vals, vecs = np.linalg.eigh(v)
    root = vecs * np.sqrt(np.maximum(vals, 0.0))
    z = make_rng(seed).standard_normal((int(draws), k)) @ root.T
    boot = lead(z)[:, order]
    tail = np.maximum.accumulate(boot[:, ::-1], axis=1)[:, ::-1]
    exceed = np.sum(tail >= stat[order] - 1e-12, axis=0)
    p_sorted = np.maximum.accumulate((1.0 + exceed) / (draws + 1.0))
    p = np.empty(k)
    p[order] = np.minimum(p_sorted, 1.0)
    return p > alpha, p


def build_report(
    stats: dict,
    models: list,
    alpha: float,
    n_resamples: int,
    seed,
    adjust: str = "holm",
    best_draws: int = 10_000,
    correction: str = "CR1",
) -> dict:
    """``evaluate``'s report from the statistics."""
    if stats.get("multi"):
        return _multi_report(
            stats, models, alpha, n_resamples, seed, adjust, best_draws, correction
        )
    return _report(stats, models, alpha, n_resamples, seed, adjust, best_draws, correction)


def _guarded(fn, *args):
    """``(fn(*args), None)``, or ``(None, message)`` when it refuses with a ValueError."""
    try:
        return fn(*args), None
    except ValueError as exc:
        return None, str(exc)


def _table_bootstrap(metric, counts, alpha, n_resamples, seed, warn=False, classes=2):
    """``bootstrap_interval(metric, y, a, b)`` of two-class labels from their eight counts.

    The resampling of a label metric sees the items only through the counts of the
    eight (label, prediction a, prediction b) cells, so the engine of
    :func:`heldout.metrics.bootstrap.bootstrap_interval` is built from them (as
    :func:`heldout.metrics.bootstrap._paired_table_interval` does) and run as
    ``bootstrap_interval`` runs it: the same draws, interval and p-value; with ``warn``
    also its small-sample warning (the in-memory path passes it on).  Several classes:
    ``counts`` is the flattened (``classes``, ``classes``, ``classes``) table of the
    classes present.
    """
    from heldout.config import rng as make_rng
    from heldout.metrics import bootstrap as bs

    if not warn:
        return bs._paired_table_interval(
            metric, counts, alpha=alpha, n_resamples=n_resamples, seed=seed, classes=classes
        )
    eng = bs._Counts.__new__(bs._Counts)
    k = int(classes)
    eng.name, eng.paired, eng.k, eng.shape = metric, True, k, (k, k, k)
    eng.multi = metric in bs._MULTICLASS_METRICS
    eng.counts = np.asarray(counts, dtype=np.int64).reshape(k**3)
    eng.n = int(eng.counts.sum())
    theta, boot, low, high, z0, acc = bs._counts_bca(
        eng, metric, make_rng(seed), n_resamples, alpha, "bca"
    )
    bs._warn_if_small(metric, eng.minority(), int(np.count_nonzero(~np.isfinite(boot))), boot.size)
    p = bs._bca_p_value(boot, z0, acc, "bca")
    return bs._difference(theta, low, high, boot, p, method="bootstrap-bca", n=eng.n, alpha=alpha)


# --------------------------------------------------------------------------- two classes
class _Binary:
    """The pieces of the two-class report, read from the statistics (one per report)."""

    def __init__(self, stats, models, alpha, n_resamples, seed, correction):

        self.stats, self.models = stats, models
        self.alpha, self.n_resamples, self.seed, self.correction = (
            alpha,
            n_resamples,
            seed,
            correction,
        )
        self.n, n1 = stats["n"], stats["n_positive"]
        self.minority = min(n1, self.n - n1)
        self.kinds = stats["kinds"]
        self.scored = [m for m in models if self.kinds[m] != "labels"]
        self.d = stats["delong"]
        self.cl = stats.get("clusters")
        self.items = stats.get("items")  # what needs every item: in memory only
        self.auc_note = None
        if self.minority < AUC_MIN_CLASS:
            self.auc_note = (
                f"{self.minority} items in the smaller class, fewer than {AUC_MIN_CLASS}: "
                "only the wide max-variance interval holds its level here"
            )

    # ------------------------------------------------------------------ intervals
    def rate(self, k, m, what):
        from heldout.metrics.rates import rate_interval

        if m == 0:
            raise ValueError(f"undefined: no {what}")
        return rate_interval(int(k), int(m), self.alpha)

    def f1(self, fp, fn, tp):
        from heldout.metrics.fscore import f1_interval

        if tp + fp + fn == 0:
            raise ValueError("undefined: no positives and none predicted")
        return f1_interval(int(tp), int(fp), int(fn), self.alpha, "exact")

    def auc_single(self, i):
        from heldout.metrics.auc import _interval

        d = self.d
        _need(d)
        return _interval(d.auc[i], d.cov[i, i], d.n_positive, d.n_negative, self.alpha, "auto")

    def auc_pair(self, i, j):
        from heldout.metrics.auc import _difference

        _need(self.d)
        return _difference(self.d, i, j, self.alpha, "mover")

    def boot(self, name, t):
        warn = self.items is not None and self.items.warn_small
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning if warn else Warning)
            return _table_bootstrap(name, t, self.alpha, self.n_resamples, self.seed, warn)

    # ------------------------------------------------------------------ warnings
    def score_warning(self, which, pair):
        from heldout.metrics.scores import PAIRED_T_MIN_CLASS

        need = PAIRED_T_MIN_CLASS[which] if pair else SCORE_MIN_CLASS
        what = "the paired t-interval" if pair else "the interval"
        if self.minority < need:
            return (
                f"{self.minority} items in the rarer class, fewer than {need}: {what} of the "
                f"{which.replace('_', ' ')} undercovers in the book's simulations"
            )
        return None

    def auc_warning(self, names):
        """The AUC's warning: few items in the smaller class; with the cluster bootstrap
        (in memory), few misranked pairs."""
        from heldout.metrics.auc import SHORTFALL_MIN, shortfall

        if self.auc_note or self.cl is None or self.items is None:
            return self.auc_note
        d = self.d
        at = [self.scored.index(m) for m in names]
        short = min(float(shortfall(d.auc[i], d.n_positive, d.n_negative)) for i in at)
        if short < SHORTFALL_MIN:
            return (
                f"about {short:.1f} items' worth of misranked pairs, fewer than "
                f"{SHORTFALL_MIN:g}: the cluster bootstrap, like every bootstrap, undercovers "
                "with so few"
            )
        return None

    # ------------------------------------------------------------------ entries
    def cluster_boot(self, name, tables, iid, pair):
        from heldout.metrics.bootstrap import _cluster_table_interval

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = _cluster_table_interval(
                name, tables, alpha=self.alpha, n_resamples=self.n_resamples, seed=self.seed
            )
        extra = {"se_cluster": r.se, "clusters": int(self.cl["sizes"].size)}
        return r, extra if pair else {"se_iid": _num(iid.se), **extra}

    def clustered(self, result, pair, sums, boot_tables, names):
        """``(clustered result or None, its fields)`` of one entry with clusters."""

        if sums is not None:
            r = _clustered_from_sums(*sums(), self.alpha, self.correction, pair)
            return _as_result(r, pair), _cluster_fields(r)
        if boot_tables is not None:
            return self.cluster_boot(*boot_tables(), result, pair)
        if names is not None and self.items is not None:  # the AUC: every item's score
            return self.items.auc_cluster(names, result)
        return None, {"cluster_note": _NO_CLUSTER_BOOTSTRAP}

    def entry(
        self,
        result_note,
        warning=None,
        pair=False,
        sums=None,
        boot_tables=None,
        auc=None,
        strat=None,
    ):
        """evaluate's entry; with clusters, the clustered interval from per-cluster ``sums``
        (a mean), the cluster bootstrap from per-cluster tables (``boot_tables``) or, for
        the AUC of the models ``auc``, from the items (in memory); ``strat`` gives the
        ``stratified`` field (:func:`_stratified_field`, on either path)."""

        result, note = result_note
        make = pair_entry if pair else metric_entry
        if result is None:
            return make(None, note)
        extra = {}
        if self.cl is not None:
            try:
                clustered, fields = self.clustered(result, pair, sums, boot_tables, auc)
                if strat is not None:
                    fields = {**fields, "stratified": strat()}
            except ValueError as exc:
                clustered, fields = None, {"cluster_note": str(exc)}
            extra.update(fields)
            if clustered is not None:
                extra.update(_iid_fields(result, pair))
                result = clustered
        elif strat is not None:
            extra["stratified"] = strat()
        if warning:
            extra["warning"] = warning
        return make(result, **extra)

    def strat(self, which, m):
        """The ``stratified`` field of the mean ``which`` of model ``m`` (a callable), or None."""
        means = self.stats.get("stratified")
        return None if means is None else lambda: _stratified_field(means, which, m)

    # ------------------------------------------------------------------ metrics
    def model(self, m) -> dict:
        """Every metric of model ``m``."""
        from heldout.metrics.scores import _interval_of_moments

        tn, fp, fn, tp = (int(v) for v in self.stats["cells"][m])
        c = None if self.cl is None else self.cl[("cells", m)]  # per cluster: tn, fp, fn, tp
        n, rate, entry = self.n, self.rate, self.entry

        def mean(name, k, size, what):
            hit, mask = _RATE_CELLS[name]
            sums = None if c is None else lambda: _rate_sums(c, hit, mask)
            return entry(_guarded(rate, k, size, what), sums=sums, strat=self.strat(name, m))

        metrics = {
            "accuracy": mean("accuracy", tp + tn, n, "items"),
            "precision": mean("precision", tp, tp + fp, "predicted positives"),
            "recall": mean("recall", tp, tp + fn, "actual positives"),
            "specificity": mean("specificity", tn, tn + fp, "actual negatives"),
            "npv": mean("npv", tn, tn + fn, "predicted negatives"),
            "f1": entry(
                _guarded(self.f1, fp, fn, tp),
                boot_tables=None if c is None else lambda: ("f1", [c]),
            ),
        }
        if m not in self.scored:
            return metrics
        metrics["auc"] = entry(
            _guarded(self.auc_single, self.scored.index(m)), self.auc_warning((m,)), auc=(m,)
        )
        for which in _PROPER:
            if self.kinds[m] == "scores":
                metrics[which] = metric_entry(None, _NOT_PROBABILITIES)
                continue
            mean, sd = self.stats["moments"][(which, m)][:2]
            metrics[which] = entry(
                _guarded(_interval_of_moments, mean, sd, n, which, self.alpha, "gamma"),
                self.score_warning(which, False),
                sums=None if self.cl is None else _loss_sums(self.cl, (which, m)),
                strat=self.strat(which, m),
            )
        return metrics

    def pair(self, a, b) -> dict:
        """Every paired difference of models ``a`` and ``b``."""
        from heldout.metrics.scores import _difference_of_moments

        t = self.stats["tables"][(a, b)]
        tc = None if self.cl is None else self.cl[("tables", a, b)]
        entry = self.entry

        def sums(name):
            shared = _PAIR_ITEMS.get(name)
            if tc is None or shared is None:
                return None
            return lambda: _difference_sums(tc, *shared)

        metrics = {
            "accuracy": entry(
                _guarded(_mcnemar, t, self.n, self.alpha), pair=True, sums=sums("accuracy")
            )
        }
        for name in ("precision", "recall", "specificity", "npv", "f1"):
            metrics[name] = entry(
                _guarded(self.boot, name, t),
                pair=True,
                sums=sums(name),
                boot_tables=None if tc is None else _pair_tables(name, tc),
            )
        if a not in self.scored or b not in self.scored:
            return metrics
        i, j = self.scored.index(a), self.scored.index(b)
        metrics["auc"] = entry(
            _guarded(self.auc_pair, i, j), self.auc_warning((a, b)), pair=True, auc=(a, b)
        )
        for which in _PROPER:
            if "scores" in (self.kinds[a], self.kinds[b]):
                metrics[which] = pair_entry(None, _NOT_PROBABILITIES)
                continue
            mean, sd = self.stats["moments"][(which, a, b)][:2]
            metrics[which] = entry(
                _guarded(_difference_of_moments, mean, sd, self.n, which, self.alpha),
                self.score_warning(which, True),
                pair=True,
                sums=None if self.cl is None else _loss_sums(self.cl, (which, a, b)),
            )
        return metrics


def _report(
    stats, models, alpha, n_resamples, seed, adjust="holm", best_draws=10_000, correction="CR1"
) -> dict:
    """``evaluate``'s two-class report from the statistics (see the module notes)."""

    b = _Binary(stats, models, alpha, n_resamples, seed, correction)
    warned = stats.get("warnings") or {}
    report = {}
    for m in models:
        report[m] = {"kind": b.kinds[m], "kind_source": stats["kind_source"][m]}
        if warned.get(m):
            report[m]["warning"] = warned[m]
        report[m]["metrics"] = b.model(m)
    pairs = [
        {"a": a, "b": c, "metrics": b.pair(a, c)}
        for i, a in enumerate(models)
        for c in models[i + 1 :]
    ]
    _adjust_pairs(pairs, adjust)
    out = {
        "n": b.n,
        "alpha": alpha,
        "level": 1.0 - alpha,
        "classes": [0, 1],
        "models": report,
        "pairs": pairs,
        "adjust": adjust,
    }
    if len(models) > 1:
        out["best"] = _best_sets(stats, models, b.scored, b.minority, alpha, seed, best_draws)
    if b.cl is not None:
        out["clusters"] = int(b.cl["sizes"].size)
    return out


# --------------------------------------------------------------------------- clustered, best sets
_NO_CLUSTER_BOOTSTRAP = (
    "the engine does not compute the cluster bootstrap of the AUC: this interval treats "
    "the items as independent; heldout evaluate without --engine gives the clustered one"
)

# Per-cluster sums of a rate: which of the cells (tn, fp, fn, tp) are hits, which are its items.
# Paired differences on shared items, over the eight cells (y, a, b), cell = 4 y + 2 a + b:
# each model's per-item value (a function of y and its prediction) and the items averaged.
_PAIR_ITEMS = {
    "accuracy": (lambda y, p: p == y, lambda y, p: p == y, lambda y, a, b: True),
    "recall": (lambda y, p: p == 1, lambda y, p: p == 1, lambda y, a, b: y == 1),
    "specificity": (lambda y, p: p == 0, lambda y, p: p == 0, lambda y, a, b: y == 0),
}


def _pair_tables(name, tc):
    """Per-cluster confusion tables of the two models of a pair, from the eight cells."""

    def tables():
        t = tc.reshape(-1, 2, 2, 2)  # (cluster, y, a, b)
        return name, [t.sum(axis=3), t.sum(axis=2)]

    return tables


def _rate_sums(c, hit, mask):
    sizes = c[:, list(mask)].sum(axis=1)
    sums = c[:, list(hit)].sum(axis=1)
    return sums, sums, sizes, True  # 0/1 values: the sum of squares is the sum


def _difference_sums(tc, value_a, value_b, mask):
    sums = np.zeros(tc.shape[0])
    sumsq = np.zeros(tc.shape[0])
    sizes = np.zeros(tc.shape[0])
    for cell in range(8):
        y, a, b = cell >> 2, (cell >> 1) & 1, cell & 1
        if not mask(y, a, b):
            continue
        diff = float(value_a(y, a)) - float(value_b(y, b))
        sizes += tc[:, cell]
        sums += diff * tc[:, cell]
        sumsq += diff * diff * tc[:, cell]
    return sums, sumsq, sizes, False


def _loss_sums(cl, key):
    sums, sumsq, nonbinary = cl[("loss", *key)]
    return lambda: (sums, sumsq, cl["sizes"], nonbinary == 0)


def _clustered_from_sums(sums, sumsq, sizes, binary, alpha, correction, pair):
    """:func:`heldout.dependent.clustered.clustered_mean` (or ``clustered_difference``) from
    per-cluster sums, sums of squares and sizes (the clusters with no item dropped)."""
    from heldout.dependent.clustered import (
        ClusteredMean,
        _interval,
        _moments,
        _or_none,
        _too_few_clusters,
    )

    keep = sizes > 0
    sums, sumsq, sizes = sums[keep], sumsq[keep], sizes[keep].astype(float)
    g = int(sizes.size)
    if g < 2:
        raise _too_few_clusters(g)
    method = "t" if pair or not binary else "wilson"
    mean, var_iid, var_cr, rho = (float(v) for v in _moments(sums, sumsq, sizes, correction))
    n = int(round(sizes.sum()))
    low, high = _interval(mean, var_iid, var_cr, n, g, alpha, method)
    deff = var_cr / var_iid if var_iid > 0 else float("nan")
    return ClusteredMean(
        estimate=mean,
        low=float(low),
        high=float(high),
        se_iid=float(np.sqrt(var_iid)),
        se_cluster=float(np.sqrt(var_cr)),
        design_effect=_or_none(deff),
        icc=_or_none(rho),
        effective_n=_or_none(n / deff) if np.isfinite(deff) and deff > 0 else None,
        n=n,
        clusters=g,
        df=g - 1,
        alpha=alpha,
        method=method,
        correction=correction,
    )


def _iid_fields(iid, pair):
    """The independent-item interval that ``evaluate`` keeps beside a clustered one."""

    extra = {"iid_low": _num(iid.low), "iid_high": _num(iid.high)}
    if pair:
        extra["iid_p_value"] = _num(iid.p_value)
    extra["iid_method"] = iid.method
    return extra


def _as_result(r, pair):
    """The clustered interval as the ``Estimate`` or ``Difference`` that ``evaluate`` reports."""
    from heldout import _dist
    from heldout.metrics.estimate import Estimate

    method = f"clustered-{r.method} ({r.correction}, {r.clusters} clusters)"
    if not pair:
        return Estimate(
            r.estimate, r.low, r.high, method=method, se=r.se_cluster, n=r.n, alpha=r.alpha
        )
    t = r.estimate / r.se_cluster if r.se_cluster > 0 else math.copysign(math.inf, r.estimate)
    if r.se_cluster == 0 and r.estimate == 0:
        t, p = 0.0, 1.0
    else:
        p = float(2 * _dist.t_sf(abs(t), r.df))
    return Difference(
        r.estimate,
        r.low,
        r.high,
        p_value=p,
        method=method,
        se=r.se_cluster,
        statistic=t,
        n=r.n,
        alpha=r.alpha,
    )


def _best_sets(stats, models, scored, minority, alpha, seed, draws):
    """evaluate's best sets: the accuracy's from the pattern counts, the AUC's from DeLong."""
    from heldout.comparison.best import _MAX_PATTERNS, _best_set_batch
    from heldout.config import rng as make_rng

    seed = 0 if seed is None else seed
    out = {}
    items = stats.get("items")
    if stats["patterns"] is None and items is not None:
        out["accuracy"] = items.best_accuracy(models, draws, seed)
    elif stats["patterns"] is None:
        out["accuracy"] = {
            "note": f"more than {_MAX_MODELS_BEST} models: the engine does not count their "
            "right/wrong patterns"
        }
    else:
        codes, counts = stats["patterns"]
        k = len(models)
        patterns = ((codes[:, None] >> np.arange(k)) & 1).astype(bool)
        method = "gaussian" if counts.size > _MAX_PATTERNS else "signflip"
        p, _ = _best_set_batch(patterns, counts[None, :], alpha, draws, make_rng(seed), method)
        p = p[0]
        out["accuracy"] = {
            "models": [m for m, q in zip(models, p, strict=True) if q > alpha],
            "p_values": {m: float(q) for m, q in zip(models, p, strict=True)},
            "method": "best set: paired sign-flip step-down",
        }
    d = stats["delong"]
    if len(scored) > 1 and minority > 0 and d is not None:
        in_set, p = auc_best_set(d.auc, d.cov, alpha, draws=draws, seed=seed)
        out["auc"] = {
            "models": [m for m, keep in zip(scored, in_set, strict=True) if keep],
            "p_values": {m: float(q) for m, q in zip(scored, p, strict=True)},
            "method": "best set: DeLong step-down",
        }
    return out


def _need(d):
    if d is None:
        raise ValueError("undefined: the labels hold a single class")
    return True


def _mcnemar(t, n: int, alpha: float) -> Difference:
    """:func:`heldout.metrics.rates.accuracy_difference` from the eight cell counts."""
    t = np.asarray(t).reshape(2, 2, 2)  # (y, a, b)
    return _mcnemar_counts(int(t[1, 1, 0] + t[0, 0, 1]), int(t[1, 0, 1] + t[0, 1, 0]), n, alpha)


def _mcnemar_counts(right_a_only: int, right_b_only: int, n: int, alpha: float) -> Difference:
    """McNemar's exact test and Agresti and Min's interval from the discordant counts."""
    from heldout.metrics.rates import _discordant_difference

    return _discordant_difference(right_a_only, right_b_only, n, alpha)


# --------------------------------------------------------------------------- strata
_RATE_CELLS = {
    "accuracy": ((0, 3), (0, 1, 2, 3)),
    "precision": ((3,), (1, 3)),
    "recall": ((3,), (2, 3)),
    "specificity": ((0,), (0, 1)),
    "npv": ((0,), (0, 2)),
}


def _stratum_parts(st: dict, key, metric: str):
    """Per group: items, sum, sum of squares, sample variance (None: from the sums), binary."""
    if key[0] == "cells":
        cells = st[key]
        if st["multi"]:  # (items, right answers)
            sizes, sums = cells[:, 0], cells[:, 1]
        else:
            hit, mask = _RATE_CELLS[metric]
            sizes, sums = cells[:, list(mask)].sum(axis=1), cells[:, list(hit)].sum(axis=1)
        return sizes, sums, sums, None, True
    t = st[key]
    return t[:, 0], t[:, 1], t[:, 2], t[:, 3], not t[:, 4].any()


def _stratified_sums(st: dict, key, metric: str, shares, alpha: float):
    """The stratified estimate of one mean from per-stratum (per-cluster) sums.

    The arithmetic of :func:`heldout.dependent.strata.stratified_mean`: each stratum's
    mean, the variance of its mean (``s_h^2 / n_h``, or with clusters the CR1
    cluster-robust variance from its clusters' sums), the shares
    (:func:`heldout.dependent.strata._stratum_weights`) and
    :func:`heldout.dependent.strata._stratified_from_parts`; strata without items of
    this mean are left out, as ``evaluate`` leaves them out.
    """
    from heldout.dependent.clustered import _moments, _too_few_clusters
    from heldout.dependent.strata import _stratified_from_parts, _stratum_weights, _too_few_items

    sizes, sums, sumsq, var_samp, binary = _stratum_parts(st, key, metric)
    code = st["stratum"]
    h_all = np.arange(len(st["labels"]))
    n_h = np.bincount(code, weights=sizes, minlength=h_all.size)
    present = np.flatnonzero(n_h > 0)
    keys = [st["labels"][h] for h in present]
    w = _stratum_weights(keys, n_h[present], shares)
    means, var_h, dof_h = [], [], []
    for h, label in zip(present, keys, strict=True):
        rows = (code == h) & (sizes > 0)
        size = float(sizes[rows].sum())
        mean = float(sums[rows].sum()) / size
        means.append(mean)
        if not st["clustered"]:
            if size < 2:
                raise _too_few_items(label, size)
            if var_samp is None:  # 0/1 values: the variance from the counts
                k = float(sums[rows].sum())
                s2 = (k * (1 - mean) ** 2 + (size - k) * mean**2) / (size - 1)
            else:
                s2 = float(var_samp[rows][0])
            var_h.append(s2 / size)
            dof_h.append(size - 1)
            continue
        g = int(rows.sum())
        if g < 2:  # (evaluate's message: stratified_mean wraps clustered_mean's)
            raise ValueError(f"clusters within stratum {show(label)}: {_too_few_clusters(g)}")
        _, _, var_cr, _ = _moments(sums[rows], sumsq[rows], sizes[rows].astype(float))
        var_h.append(float(var_cr))
        dof_h.append(g - 1)
    n = float(n_h.sum())
    total = float(sums.sum())
    spread = max(float(sumsq.sum()) - total * total / n, 0.0) / (n - 1) if n > 1 else 0.0
    return _stratified_from_parts(
        keys,
        n_h[present].astype(np.int64),
        means,
        var_h,
        dof_h,
        w,
        method="wilson" if binary else "t",
        alpha=alpha,
        unweighted=total / n,
        se_unweighted=float(np.sqrt(spread / n)),
    )


def _check_strata(st: dict, shares) -> None:
    """evaluate's check before any metric: the shares fit the strata, two items in each."""
    from heldout.dependent.strata import _stratum_weights, _too_few_items

    first = next(k for k in st if isinstance(k, tuple) and k[0] == "cells")
    cells = st[first]
    per_group = cells[:, 0] if st["multi"] else cells.sum(axis=1)
    n_h = np.bincount(st["stratum"], weights=per_group, minlength=len(st["labels"]))
    _stratum_weights(st["labels"], n_h, shares)
    for label, size in zip(st["labels"], n_h, strict=True):
        if size < 2:
            raise _too_few_items(label, size)


class _StrataSums:
    """The stratified estimate of each mean from the engine's per-stratum (per stratum and
    cluster) sums, ``stats["strata"]``; the in-memory path's counterpart,
    ``heldout.metrics.evaluate._StrataItems``, works from the items.  Either is the
    report's ``stats["stratified"]``, read by :func:`_stratified_field`."""

    def __init__(self, st: dict, shares, alpha: float):
        self.st, self.shares, self.alpha = st, shares, alpha

    def mean(self, which: str, model: str):
        key = ("cells", model) if which in _RATE_CELLS else ("loss", which, model)
        return _stratified_sums(self.st, key, which, self.shares, self.alpha)


def _stratified_field(means, which: str, model: str) -> dict:
    """The ``stratified`` field of the mean ``which`` of ``model``, on either path.

    ``means``: ``stats["stratified"]``, whose ``mean(which, model)`` gives the
    :class:`heldout.dependent.strata.Stratified` estimate (from the items in memory, from
    per-stratum sums by the engine) or raises ``ValueError``, which becomes the field's
    note (a stratum too small, shares that leave out a stratum of this mean's items).
    """
    try:
        s = means.mean(which, model)
    except ValueError as exc:
        return {"value": None, "note": str(exc)}
    return _stratified_fields(s)


# --------------------------------------------------------------------------- several classes
def _multi_classes(stats, models):
    """``(label classes, each model's predicted classes, every class)``, checked."""

    cm_rows = stats["cm"]
    y_classes = sorted({int(r[0]) for r in cm_rows[models[0]]})
    if len(y_classes) > MAX_CLASSES:
        raise ValueError(
            f"the label column holds {len(y_classes)} classes, more than {MAX_CLASSES}"
        )
    predicted = {m: sorted({int(r[1]) for r in cm_rows[m]}) for m in models}
    classes = sorted(set(y_classes).union(*predicted.values()))
    if len(classes) > MAX_CLASSES:
        raise ValueError(f"the labels and predictions hold more than {MAX_CLASSES} classes")
    return y_classes, predicted, classes


def _multi_clustered(result, sums, pair, alpha, correction, strat=None):

    r = _clustered_from_sums(*sums, alpha, correction, pair)
    fields = {**_cluster_fields(r), **(strat or {}), **_iid_fields(result, pair)}
    return _as_result(r, pair), fields


_NO_CLUSTER = {"cluster_note": "no clustered interval for this metric"}


def _multi_model(stats, m, classes, alpha, correction) -> dict:
    """Every metric of model ``m`` over several classes, from its (label, prediction) counts."""
    from heldout.metrics.fscore import macro_interval
    from heldout.metrics.rates import rate_interval

    index = {c: i for i, c in enumerate(classes)}
    cl = stats.get("clusters")
    cm = np.zeros((len(classes), len(classes)), dtype=np.int64)
    for yv, pv, count in stats["cm"][m]:
        cm[index[int(yv)], index[int(pv)]] += int(count)
    metrics = {}
    result, note = _guarded(rate_interval, int(np.trace(cm)), int(cm.sum()), alpha)
    means = stats.get("stratified")
    strat = None
    if result is not None and means is not None:
        strat = {"stratified": _stratified_field(means, "accuracy", m)}
    extra = {}
    if result is not None and cl is not None:
        right = cl[("right", m)]
        try:
            sums = (right, right, cl["sizes"], True)
            result, extra = _multi_clustered(result, sums, False, alpha, correction, strat)
        except ValueError as exc:
            extra = {"cluster_note": str(exc)}
    elif strat is not None:
        extra = strat
    metrics["accuracy"] = metric_entry(result, note or "", **extra)
    for which in ("precision", "recall", "specificity", "f1"):
        result, note = _guarded(macro_interval, cm, which, alpha, "logit")
        metrics[which] = (
            metric_entry(None, note)
            if result is None
            else metric_entry(result, **(_NO_CLUSTER if cl is not None else {}))
        )
    return metrics


def _multi_pair(stats, a, b, alpha, n_resamples, seed, correction) -> dict:
    """Every paired difference of ``a`` and ``b`` over several classes, from the
    (label, A, B) counts."""

    n, cl = stats["n"], stats.get("clusters")
    rows = stats["triples"][(a, b)]
    present = sorted({int(v) for r in rows for v in r[:3]})
    pos = {c: j for j, c in enumerate(present)}
    k = len(present)
    counts = np.zeros((k, k, k), dtype=np.int64)
    for yv, av, bv, count in rows:
        counts[pos[int(yv)], pos[int(av)], pos[int(bv)]] += int(count)
    a_only = sum(int(c) for yv, av, bv, c in rows if av == yv and bv != yv)
    b_only = sum(int(c) for yv, av, bv, c in rows if bv == yv and av != yv)
    result, note = _guarded(_mcnemar_counts, a_only, b_only, n, alpha)
    extra = {}
    if result is not None and cl is not None:
        cells = cl[("pair", a, b)]  # (A right, B right): 00, 01, 10, 11
        sums = (cells[:, 2] - cells[:, 1], cells[:, 2] + cells[:, 1], cl["sizes"], False)
        try:
            result, extra = _multi_clustered(result, sums, True, alpha, correction)
        except ValueError as exc:
            extra = {"cluster_note": str(exc)}
    metrics = {"accuracy": pair_entry(result, note or "", **extra)}

    warn = stats.get("items") is not None and stats["items"].warn_small

    def macro_boot(name):
        return _table_bootstrap(name, counts, alpha, n_resamples, seed, warn, k)

    for which in ("precision", "recall", "specificity", "f1"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning if warn else Warning)
            result, note = _guarded(macro_boot, f"macro_{which}")
        metrics[which] = (
            pair_entry(None, note)
            if result is None
            else pair_entry(result, **(_NO_CLUSTER if cl is not None else {}))
        )
    return metrics


def _multi_report(stats, models, alpha, n_resamples, seed, adjust, best_draws, correction):
    """``evaluate``'s several-class report from each model's (label, prediction) counts,
    each pair's (label, A, B) counts, the patterns and per-cluster right answers."""
    from heldout.metrics.column_kinds import label_warning_of_summary

    n = stats["n"]
    y_classes, predicted, classes = _multi_classes(stats, models)
    cl = stats.get("clusters")
    report = {}
    for m in models:
        report[m] = {"kind": "labels", "kind_source": stats["kind_source"][m]}
        if "warnings" in stats:  # in memory: from the column (label_warning)
            warning = stats["warnings"][m]
        else:
            warning = label_warning_of_summary(predicted[m], n, y_classes)
            warning = warning and f"model {m!r}: {warning}"
        if warning:
            report[m]["warning"] = warning
        report[m]["metrics"] = _multi_model(stats, m, classes, alpha, correction)
    pairs = [
        {"a": a, "b": b, "metrics": _multi_pair(stats, a, b, alpha, n_resamples, seed, correction)}
        for i, a in enumerate(models)
        for b in models[i + 1 :]
    ]
    _adjust_pairs(pairs, adjust)
    out = {
        "n": n,
        "alpha": alpha,
        "level": 1.0 - alpha,
        "classes": classes,
        "models": report,
        "pairs": pairs,
        "adjust": adjust,
    }
    if len(models) > 1:
        out["best"] = _best_sets({**stats, "delong": None}, models, [], 0, alpha, seed, best_draws)
    if cl is not None:
        out["clusters"] = int(cl["sizes"].size)
    return out
