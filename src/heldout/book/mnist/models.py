"""The source article's MNIST model comparison, done once and cached.

The experiment of :cite:`validation_size`: a linear support vector classifier as a
baseline on an 80/20 split, then an 80/10/10 split (two calls of scikit-learn's
``train_test_split`` with ``random_state=42``: the 20% part is halved into a test
half and a validation half, in that order) on which a handful of untuned models are
scored on the validation set, and only the best one on the test set.

The models and their settings, as in the article:

=====================  ===================================================================
``linear_svc_raw``     ``LinearSVC()`` on raw pixels 0..255 with ``dual=True`` (the default
                       when the article was written); it stops at ``max_iter=1000`` unconverged
``linear_svc_scaled``  on pixels scaled to [0, 1] with ``dual=False``, the primal solver that
                       today's ``dual="auto"`` picks here; it converges (ours, not the article's)
``svc_rbf``            ``SVC(kernel="rbf")``, defaults otherwise
``svc_poly3``          ``SVC(kernel="poly", degree=3)``
``dense_nn``           Keras: 784 -> Dense(100, sigmoid) -> Dense(10, softmax), Adam,
                       batch 128, 10 epochs, raw pixels
``dense_nn_scaled``    the same on scaled pixels (ours)
``cnn``                the Keras MNIST example convnet (Conv 32, pool, Conv 64, pool,
                       dropout 0.5, Dense 10), Adam, batch 128, 10 epochs, raw pixels
``knn_k`` (k=3..8)     ``KNeighborsClassifier(n_neighbors=k)``, models ``knn_3`` to ``knn_8``
``xgboost``            ``xgb.train`` with ``multi:softmax``, ``max_depth=10``, 10 rounds
=====================  ===================================================================

Every model is scored on both the validation and the test part (the article scored
only the convnet on the test part; the other test scores are extra and let the
chapter compare validation with test).  The baseline's 20% test part is the union of
the two halves, so its score comes from the same predictions.

Doing the work once ("our way"; ``way="article"`` runs everything as the article did):

* the kernel SVMs are fitted on kernel matrices built with BLAS
  (:mod:`heldout.book.mnist.kernels`): one matrix product, grouped by class and shared by
  both kernels, gives every dot product libsvm would otherwise compute one by one; each
  pair of classes is fitted on its own kernel matrix, as libsvm's one-vs-one scheme
  does inside ``SVC``, so only a pair's matrix is held at a time, and the predictions
  are identical;
* k-nearest neighbours: one neighbour query with k = 8, from which the votes of every
  k <= 8 are read (:func:`knn_votes`), instead of six fits and six queries;
* the fits run side by side as *jobs* (each model, the neighbour query, the shared
  Gram matrix), planned when the experiment starts from what the machine is: its
  cores, its free memory, whether its CPU has AVX-512, and estimated job costs
  (:mod:`heldout.book.mnist.mnist_costs`); the plan (:mod:`heldout.book.mnist.schedule`) starts the longest
  jobs first, gives each job a thread count, never leaves a core idle while a job
  could start, and is made again whenever a job ends.  Each library gets exactly
  the threads its job was given (threadpoolctl for BLAS, one thread per call, with
  parallel blocks for the kernel matrices; OpenMP limited per thread for the
  neighbour search; XGBoost's ``nthread``).  The networks train in worker processes
  of their own, because TensorFlow fixes its thread pools and its CPU kernels per
  process; there they use TensorFlow's oneDNN kernels (its default on x86 Linux,
  which the book's Makefile turns off elsewhere only because of a start-up notice),
  about twice as fast for the convnet on the reference CPU, and run
  :data:`STEPS_PER_CALL` training steps per call into TensorFlow (the same steps;
  not part of the cache key).  A dense network's
  thread count is the one the plan of the whole experiment gives it on this kind of
  machine, whichever models are fitted, since its predictions depend on it; the
  convnet, when its fit is long, first has its training speed measured in its worker
  and gets the thread count that this measurement makes best;
* every fitted model's predictions are cached on disk (:class:`PredictionCache`), keyed
  by the data, the model, its parameters, the profile and the library versions.

Ideas measured and dropped: a 1 GB libsvm kernel cache instead of 200 MB (same CPU
time), sparse input (slower on MNIST), pixels scaled to [0, 1] for the kernel SVMs
(with ``gamma="scale"`` both kernels are invariant to a common scaling anyway),
XLA compilation of the convnet (four times slower on this CPU).

Seeds are fixed (``random_state`` of the linear SVM, ``seed`` of XGBoost, and
``tf.keras.utils.set_random_seed`` before each network).  The networks may still
differ between machines and between thread counts, because TensorFlow's CPU kernels
add floating-point numbers in an order that depends on how the work is split; with
the same thread count on one machine, retraining with the same seed gave the same
predictions in our runs.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import sys
import threading
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from heldout.book.claims import article_value

#: Values the article printed (accuracy and its "± error", as fractions), read from the
#: ledger's data file (:func:`heldout.book.ledger.article_value`, rows ``mnist-acc-*`` and
#: ``mnist-sd-*``).  ``split`` is where they were measured: ``baseline`` is the 20% part
#: of the 80/20 split.
ARTICLE_RESULTS: dict[str, dict] = {
    model: {
        "split": split,
        "accuracy": article_value(f"mnist-acc-{row}"),
        "se": article_value(f"mnist-sd-{row}"),
    }
    for model, row, split in (
        ("linear_svc_raw", "linear_svc", "baseline"),
        ("svc_rbf", "svc_rbf", "validation"),
        ("svc_poly3", "svc_poly3", "validation"),
        ("dense_nn", "dense_nn", "validation"),
        ("cnn", "cnn", "validation"),
        *((f"knn_{k}", f"knn_{k}", "validation") for k in range(3, 9)),
        ("xgboost", "xgboost", "validation"),
        ("cnn_test", "cnn_test", "test"),
    )
}

#: The article's two Fisher-test p-values (its ``compare_models`` helper, alternative
#: "less", on the validation set), which it reads as "probability model 1 is better";
#: read from the ledger's data file (rows ``mnist-fisher-svc`` and ``mnist-fisher-cnn``).
ARTICLE_COMPARISONS: dict[tuple[str, str], float] = {
    ("svc_rbf", "svc_poly3"): article_value("mnist-fisher-svc"),
    ("svc_rbf", "cnn"): article_value("mnist-fisher-cnn"),
}

#: Order of the models in tables.
MODEL_NAMES: tuple[str, ...] = (
    "linear_svc_raw",
    "linear_svc_scaled",
    "svc_rbf",
    "svc_poly3",
    "dense_nn",
    "dense_nn_scaled",
    "cnn",
    *(f"knn_{k}" for k in range(3, 9)),
    "xgboost",
)

#: Family (the article's seven) of each model.
FAMILY: dict[str, str] = {
    "linear_svc_raw": "linear SVC",
    "linear_svc_scaled": "linear SVC",
    "svc_rbf": "SVC (RBF kernel)",
    "svc_poly3": "SVC (polynomial kernel)",
    "dense_nn": "dense network",
    "dense_nn_scaled": "dense network",
    "cnn": "convolutional network",
    **{f"knn_{k}": "k nearest neighbours" for k in range(3, 9)},
    "xgboost": "XGBoost",
}

ENV_CACHE = "HELDOUT_CACHE_DIR"


# --------------------------------------------------------------------------- splits
@dataclass(frozen=True)
class Split:
    """Row indices of the article's 80/10/10 split (train, validation, test)."""

    train: np.ndarray
    val: np.ndarray
    test: np.ndarray

    @property
    def baseline_test(self) -> np.ndarray:
        """The 20% part of the 80/20 baseline split: the test half, then the validation half."""
        return np.concatenate([self.test, self.val])


def article_split(n: int, random_state: int = 42) -> Split:
    """The article's splits of ``n`` rows, as index arrays.

    ``train_test_split(X, y, test_size=0.2, random_state=42)`` gives the 80% training
    part and a 20% part, which ``train_test_split(..., test_size=0.5,
    random_state=42)`` cuts into a *test* half (returned first) and a *validation*
    half.  The shuffles depend only on the number of rows, so splitting
    ``arange(n)`` gives the rows the article's calls pick :cite:`validation_size`.
    The 80/20 baseline split is the same first call, so its 20% part is the union
    of validation and test.
    """
    from sklearn.model_selection import train_test_split

    from heldout._checks import as_count

    n = int(as_count(n, "n", minimum=10))
    idx = np.arange(n)
    train, rest = train_test_split(idx, test_size=0.2, random_state=random_state)
    test, val = train_test_split(rest, test_size=0.5, random_state=random_state)
    return Split(train=train, val=val, test=test)


# --------------------------------------------------------------------------- the error bar
def article_se(accuracy, n):
    """The article's error bar: the standard deviation of a Beta posterior, as it writes it.

    .. math:: \\sigma = \\sqrt{\\hat p (1-\\hat p) / (N + 3)}

    with :math:`\\hat p` the observed accuracy on :math:`N` items
    :cite:`validation_size`.  (The exact standard deviation of Beta(k+1, N-k+1) uses
    the posterior mean instead of :math:`\\hat p`; the difference is negligible at
    these sizes.)
    """
    from heldout._checks import as_count, as_probability, scalar_or_array

    p = as_probability(accuracy, "accuracy", closed=True)
    n = as_count(n, "n", minimum=1)
    return scalar_or_array(np.sqrt(p * (1 - p) / (n + 3)))


def score_gap(accuracy, se, reference, reference_se):
    """Gap between two independent scores, in standard errors of their difference.

    .. math:: z = \\frac{a - a_\\text{ref}}{\\sqrt{\\sigma^2 + \\sigma_\\text{ref}^2}}

    The one scale on which the book compares two scores measured on different items: the
    case study's table of our runs against the article's, and the ledger's MNIST rows, both
    call this function (orientation: ``accuracy`` minus ``reference``).  Measuring the gap in
    one score's error bar alone overstates it by the factor
    :math:`\\sqrt{1 + \\sigma_\\text{ref}^2/\\sigma^2}` (:math:`\\sqrt 2` for equal bars).

    Examples
    --------
    >>> round(score_gap(0.97, 0.002, 0.965, 0.0025), 2)
    1.56
    """
    from heldout._checks import as_floats

    a, s, r, rs = (
        as_floats(v, name)
        for v, name in (
            (accuracy, "accuracy"),
            (se, "se"),
            (reference, "reference"),
            (reference_se, "reference_se"),
        )
    )
    if np.any(s < 0) or np.any(rs < 0) or np.any((s == 0) & (rs == 0)):
        raise ValueError("se and reference_se must be non-negative and not both zero")
    out = (a - r) / np.hypot(s, rs)
    return float(out) if np.ndim(out) == 0 else out


def odds_ratio(correct, reference_correct, n):
    """Odds ratio of a 2x2 table of right and wrong answers on ``n`` items each.

    ``(k / (n - k)) / (k_ref / (n - k_ref))``: the odds of a right answer of the first model
    over the reference's (above 1 when the first is the more accurate).  The case study and
    the ledger row ``mnist-odds-cnn`` both use it, in this orientation.

    Examples
    --------
    >>> round(odds_ratio(4127, 4090, 4200), 2)
    1.52
    """
    from heldout._checks import as_count

    n = as_count(n, "n", minimum=1)
    k = as_count(correct, "correct")
    k_ref = as_count(reference_correct, "reference_correct")
    if not (0 < k < n and 0 < k_ref < n):
        raise ValueError(
            f"correct and reference_correct must lie strictly between 0 and n = {n}, "
            f"got {k} and {k_ref}"
        )
    return float((k / (n - k)) / (k_ref / (n - k_ref)))


# --------------------------------------------------------------------------- kNN trick
def knn_votes(neighbour_labels: np.ndarray, ks: Sequence[int], n_classes: int = 10) -> np.ndarray:
    """Majority votes of the first k neighbours, for several k, from one neighbour query.

    With the neighbours of each query sorted by distance (``kneighbors`` with the
    largest k), the vote counts for every k are the cumulative sums of the one-hot
    labels along the neighbour axis; the prediction for k is the class with most
    votes among the first k, ties going to the smallest class, as scikit-learn's
    ``KNeighborsClassifier(weights="uniform")`` does.

    Parameters
    ----------
    neighbour_labels : ndarray of int, shape (n_queries, k_max)
        Class indices 0..n_classes-1 of the neighbours, nearest first.
    ks : sequence of int
        The k to predict for, each 1 <= k <= k_max.

    Returns
    -------
    ndarray of int, shape (len(ks), n_queries)
    """
    from heldout._checks import as_count

    labels = np.asarray(neighbour_labels)
    if labels.ndim != 2:
        raise ValueError(
            f"neighbour_labels must be 2-d (queries x neighbours), got shape {labels.shape}"
        )
    ks_arr = as_count(ks, "ks", minimum=1).ravel()
    if ks_arr.size == 0 or ks_arr.max() > labels.shape[1]:
        raise ValueError(
            f"ks must hold values in 1..{labels.shape[1]} (the neighbours queried), got {list(ks)}"
        )
    if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
        raise ValueError(f"neighbour_labels must lie in 0..{n_classes - 1}")
    onehot = labels[..., None] == np.arange(n_classes)
    counts = np.cumsum(onehot, axis=1, dtype=np.int32)  # (queries, k_max, classes)
    return np.argmax(counts[:, ks_arr - 1, :], axis=2).T


# --------------------------------------------------------------------------- cache
def cache_root() -> Path:
    """``$HELDOUT_CACHE_DIR`` or ``~/.cache/heldout``."""
    env = os.environ.get(ENV_CACHE, "").strip()
    return Path(env).expanduser() if env else Path.home() / ".cache" / "heldout"


def array_digest(*arrays: np.ndarray) -> str:
    """SHA-1 of the arrays' dtypes, shapes and bytes (a short fingerprint of a data subset)."""
    h = hashlib.sha1(usedforsecurity=False)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(memoryview(a).cast("B"))
    return h.hexdigest()[:20]


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("numpy", "scikit-learn", "xgboost", "tensorflow"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            try:
                out[pkg] = version(f"{pkg}-cpu")
            except PackageNotFoundError:
                out[pkg] = "absent"
    out["TF_ENABLE_ONEDNN_OPTS"] = os.environ.get("TF_ENABLE_ONEDNN_OPTS", "")
    return out


class PredictionCache:
    """Predictions of fitted models on disk, one ``.npz`` per (data, model, parameters, profile).

    The key is the SHA-1 of a JSON record of the data fingerprint, the model name, its
    parameters, the profile and the versions of numpy, scikit-learn, XGBoost and
    TensorFlow, so any change retrains and nothing else does.
    """

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else cache_root() / "predictions"

    @staticmethod
    def key(data: str, model: str, params: dict, profile: str) -> str:
        """The cache key of one fitted model."""
        record = {
            "data": data,
            "model": model,
            "params": params,
            "profile": profile,
            "versions": _versions(),
        }
        return hashlib.sha1(
            json.dumps(record, sort_keys=True, default=str).encode(), usedforsecurity=False
        ).hexdigest()

    def path(self, key: str) -> Path:
        return self.root / f"{key}.npz"

    def get(self, key: str) -> dict | None:
        """The stored entry (``val``, ``test`` predictions, ``fit_s``, ``predict_s``, ``info``) or None."""
        path = self.path(key)
        if not path.is_file():
            return None
        try:
            with np.load(path) as z:
                return {
                    "val": z["val"],
                    "test": z["test"],
                    "fit_s": float(z["fit_s"]),
                    "predict_s": float(z["predict_s"]),
                    "info": json.loads(str(z["info"])),
                }
        except (OSError, KeyError, ValueError, EOFError):
            return None

    def put(self, key: str, entry: dict) -> None:
        """Store an entry atomically (a write into a temporary file, then a rename)."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            tmp = self.root / f"{key}.{os.getpid()}.tmp.npz"
            np.savez(
                tmp,
                val=np.asarray(entry["val"], dtype=np.int8),
                test=np.asarray(entry["test"], dtype=np.int8),
                fit_s=entry["fit_s"],
                predict_s=entry["predict_s"],
                info=json.dumps(entry.get("info", {})),
            )
            os.replace(tmp, self.path(key))
        except OSError:  # a read-only cache only costs time
            pass


# --------------------------------------------------------------------------- fitting
def model_params(name: str, epochs: int = 10, way: str = "fast") -> dict:
    """The settings of model ``name`` (those that enter the cache key)."""
    if name not in MODEL_NAMES:
        raise ValueError(f"name must be one of {', '.join(MODEL_NAMES)}; got {name!r}")
    if way not in ("fast", "article"):
        raise ValueError(f"way must be 'fast' or 'article', got {way!r}")
    # our way trains the networks in their own process with TensorFlow's oneDNN kernels
    net_kernels = {"tf_kernels": "onednn"} if way == "fast" else {}
    if name == "linear_svc_raw":
        return {"C": 1.0, "dual": True, "max_iter": 1000, "random_state": 0, "pixels": "raw"}
    if name == "linear_svc_scaled":
        return {"C": 1.0, "dual": False, "max_iter": 1000, "random_state": 0, "pixels": "scaled"}
    if name in ("svc_rbf", "svc_poly3"):
        kernel = {"kernel": "rbf"} if name == "svc_rbf" else {"kernel": "poly", "degree": 3}
        if way == "article":
            return {**kernel, "pixels": "raw", "cache_size": 200}
        return {**kernel, "pixels": "raw", "kernel_matrix": "blas"}
    if name.startswith("dense_nn"):
        pixels = "scaled" if name.endswith("scaled") else "raw"
        return {
            "hidden": 100,
            "activation": "sigmoid",
            "batch_size": 128,
            "epochs": epochs,
            "pixels": pixels,
            **net_kernels,
        }
    if name == "cnn":
        return {
            "arch": "keras-mnist-convnet",
            "batch_size": 128,
            "epochs": epochs,
            "pixels": "raw",
            **net_kernels,
        }
    if name.startswith("knn_"):
        return {"n_neighbors": int(name[4:]), "pixels": "raw"}
    return {
        "objective": "multi:softmax",
        "max_depth": 10,
        "num_boost_round": 10,
        "eval_metric": "merror",
        "seed": 0,
    }


def _timed(fit, predict_sets):
    t0 = time.perf_counter()
    model = fit()
    t1 = time.perf_counter()
    preds = [predict(model, X) for predict, X in predict_sets]
    return preds, t1 - t0, time.perf_counter() - t1


def _linear_svc(X, y, Xv, Xt, params):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    s = 1 / 255 if params["pixels"] == "scaled" else 1.0
    kw = {k: params[k] for k in ("C", "dual", "max_iter", "random_state")}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        (pv, pt), fit_s, pred_s = _timed(
            lambda: LinearSVC(**kw).fit(X * s, y),
            [(lambda m, A: m.predict(A * s), Xv), (lambda m, A: m.predict(A * s), Xt)],
        )
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return pv, pt, fit_s, pred_s, {"converged": converged}


def _svc(X, y, Xv, Xt, params):
    from sklearn.svm import SVC

    kw = {k: params[k] for k in ("kernel", "degree", "cache_size") if k in params}
    svc = SVC(**kw)

    def predict(m, A):
        return m.predict(np.asarray(A, dtype=np.float64))

    (pv, pt), fit_s, pred_s = _timed(
        lambda: svc.fit(np.asarray(X, dtype=np.float64), y), [(predict, Xv), (predict, Xt)]
    )
    return pv, pt, fit_s, pred_s, {}


def _free_memory() -> int | None:
    """Bytes of memory the system can still give (Linux ``MemAvailable``), or None if unknown."""
    from heldout.book.mnist.mnist_costs import available_memory

    free = available_memory()
    return None if free is None else int(free)


#: Memory a kernel SVM leaves free beside its pairs' kernel matrices when it starts
#: (other processes may have taken memory since the plan was made).
_KERNEL_HEADROOM = 2**29


def _gram_job(X, y, threads, store):
    """The kernel SVMs' shared dot products (:func:`heldout.book.mnist.kernels.class_gram`), kept in ``store``."""
    from heldout.book.mnist.kernels import class_gram, class_gram_bytes, pair_kernel_bytes

    free = _free_memory() or 0
    if free < class_gram_bytes(y) + pair_kernel_bytes(y, threads) + _KERNEL_HEADROOM:
        store["gram_note"] = "own (not enough free memory for the shared dot products)"
        return
    t0 = time.perf_counter()
    store["gram"] = class_gram(X, y, threads=threads)
    store["gram_s"] = time.perf_counter() - t0


def _kernel_svm_job(X, y, Xv, Xt, params, threads, mode, store):
    """One kernel SVM through BLAS-built kernel matrices of each pair of classes, or libsvm's own kernel.

    ``mode`` is the plan's (:func:`heldout.book.mnist.mnist_costs.kernel_mode`); the free memory
    is checked again when the job starts, and with too little for one pair's kernel
    matrix per thread libsvm computes the kernel itself (slow, same predictions).  The time of the shared dot products is charged to the first SVM that
    uses them.
    """
    from heldout.book.mnist.kernels import fit_kernel_svm, pair_kernel_bytes

    gram = store.get("gram") if mode == "shared" else None
    need = pair_kernel_bytes(y, threads)
    free = _free_memory() or 0
    if mode == "libsvm" or free < need + _KERNEL_HEADROOM:
        pv, pt, fit_s, pred_s, _ = _svc(X, y, Xv, Xt, {**params, "cache_size": 1024})
        why = "plan" if mode == "libsvm" else "not enough free memory"
        return pv, pt, fit_s, pred_s, {"kernel_matrix": f"libsvm ({why})", "threads": 1}
    gram_s = store.pop("gram_s", 0.0) if gram is not None else 0.0
    kernel = "rbf" if params["kernel"] == "rbf" else "poly"
    (pv, pt), fit_s, pred_s, n_sv = fit_kernel_svm(
        X, y, [Xv, Xt], kernel, degree=params.get("degree", 3), gram=gram, threads=threads
    )
    info = {
        "kernel_matrix": "blas",
        "gram": "shared" if gram is not None else store.get("gram_note", "own"),
        "support_vectors": n_sv,
        "threads": threads,
    }
    return pv, pt, fit_s + gram_s, pred_s, info


class _EpochBar:
    """A Keras callback calling ``tick(1, note)`` once per epoch (a bar's ``update``)."""

    def __new__(cls, tick):
        from tensorflow import keras

        class _CB(keras.callbacks.Callback):
            def on_epoch_end(self, epoch, logs=None):
                note = f"train acc {logs['accuracy']:.4f}" if logs and "accuracy" in logs else ""
                tick(1, note)

        return _CB()


#: Training steps our way runs per call into TensorFlow (Keras' ``steps_per_execution``):
#: the same steps in the same order, with less Python between them.  At 4,200 and 8,400
#: digits on one thread the predictions were identical to one step per call, and the
#: CPU time of the fit 8-15% lower (issue 42's second pass).
STEPS_PER_CALL = 64


def _network_model(name, params, steps_per_execution: int = 1):
    """The compiled Keras model of network ``name`` (the article's architectures).

    ``steps_per_execution`` > 1 runs that many training steps per call into TensorFlow
    (our way); the article's way keeps Keras' default, one.
    """
    from tensorflow import keras
    from tensorflow.keras import layers

    if name == "cnn":
        model = keras.Sequential(
            [
                keras.Input(shape=(784,)),
                layers.Reshape((28, 28, 1)),
                layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
                layers.MaxPooling2D(pool_size=(2, 2)),
                layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
                layers.MaxPooling2D(pool_size=(2, 2)),
                layers.Flatten(),
                layers.Dropout(0.5),
                layers.Dense(10, activation="softmax"),
            ]
        )
    else:
        model = keras.Sequential(
            [
                keras.Input(shape=(784,)),
                layers.Dense(params["hidden"], activation=params["activation"]),
                layers.Dense(10, activation="softmax"),
            ]
        )
    model.compile(
        loss="sparse_categorical_crossentropy",
        optimizer="adam",
        metrics=["accuracy"],
        steps_per_execution=steps_per_execution,
    )
    return model


#: Training steps timed by :func:`_probe_network` (after two untimed ones).
PROBE_STEPS = 8


def _probe_network(name, X, y, params, steps: int = PROBE_STEPS) -> float:
    """Seconds per training step of network ``name`` here, on a throwaway model.

    Trains a fresh model of the same architecture on the first batches of the data:
    two steps to build and warm up the graph, then ``steps`` timed steps.  The session
    is cleared afterwards; the real fit seeds everything again, so the probe leaves
    no trace in its predictions (checked in the tests).
    """
    from tensorflow import keras

    model = _network_model(name, params)
    b = params["batch_size"]
    s = 1 / 255 if params["pixels"] == "scaled" else 1.0
    idx = np.arange(b * (steps + 2)) % len(y)
    Xb = np.asarray(X[idx], np.float32) * s
    yb = np.asarray(y)[idx]
    for i in range(steps + 2):
        if i == 2:
            t0 = time.perf_counter()
        model.train_on_batch(Xb[i * b : (i + 1) * b], yb[i * b : (i + 1) * b])
    seconds = (time.perf_counter() - t0) / steps
    keras.backend.clear_session()
    return seconds


def _keras(name, X, y, Xv, Xt, params, seed, progress, on_epoch=None, steps_per_execution=1):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    from tensorflow import keras

    tf.keras.utils.set_random_seed(seed)
    s = 1 / 255 if params["pixels"] == "scaled" else 1.0
    model = _network_model(name, params, steps_per_execution)
    bar = _Progress(
        total=params["epochs"],
        desc=f"  {name} epochs",
        enabled=progress and on_epoch is None,
        nested=True,
    )
    tick = bar.update if on_epoch is None else (lambda n, note: on_epoch(name, note))
    try:

        def fit():
            model.fit(
                np.asarray(X, np.float32) * s,
                np.asarray(y),
                batch_size=params["batch_size"],
                epochs=params["epochs"],
                verbose=0,
                callbacks=[_EpochBar(tick)],
                shuffle=True,
            )
            return model

        def predict(m, A):
            return np.argmax(
                m.predict(np.asarray(A, np.float32) * s, batch_size=1024, verbose=0), axis=1
            )

        (pv, pt), fit_s, pred_s = _timed(fit, [(predict, Xv), (predict, Xt)])
    finally:
        bar.close()
    keras.backend.clear_session()
    return pv, pt, fit_s, pred_s, {}


# --------------------------------------------------------------------------- networks, own process
#: The networks (each trains in a process of TensorFlow's own).
_NETWORKS = ("dense_nn", "dense_nn_scaled", "cnn")


def _import_tensorflow_quietly(onednn: bool):
    """Import TensorFlow with its oneDNN kernels on or off, without its start-up notices.

    With oneDNN on, TensorFlow prints a notice on file descriptor 2 while it loads,
    before it reads ``TF_CPP_MIN_LOG_LEVEL``, and no setting silences it; in a book
    build it would land in the page.  Descriptor 2 points at the null device during
    the import (errors still arrive as Python exceptions).
    """
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "1" if onednn else "0"
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        import tensorflow as tf
        from tensorflow import keras  # noqa: F401  (loads the rest of the libraries)
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)
    return tf


def _network_worker(tasks, results, X, y, Xv, Xt, seed, threads, steps=STEPS_PER_CALL):
    """Body of a process that trains networks with ``threads`` TensorFlow threads.

    Takes ``(name, params)`` from ``tasks`` until it reads None; reports through
    ``results``: ``("epoch", name, note)``, ``("done", name, output, wall_seconds)``,
    ``("error", name, traceback_text)``.  A name ending in ``_probe`` (``cnn_probe``)
    times training steps of that network (:func:`_probe_network`) instead, and its
    output is the seconds per step.  Fits run ``steps`` training steps per call into
    TensorFlow (:data:`STEPS_PER_CALL`).
    """
    import traceback

    name = "tensorflow"
    try:
        tf = _import_tensorflow_quietly(onednn=True)
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
        while (task := tasks.get()) is not None:
            name, params = task
            t0 = time.perf_counter()
            if name.endswith("_probe"):
                step = _probe_network(name.removesuffix("_probe"), X, y, params)
                results.put(("done", name, step, time.perf_counter() - t0))
                continue
            out = _keras(
                name,
                X,
                y,
                Xv,
                Xt,
                params,
                seed,
                False,
                on_epoch=lambda job, note: results.put(("epoch", job, note)),
                steps_per_execution=steps,
            )
            results.put(("done", name, out, time.perf_counter() - t0))
    except BaseException:  # report everything, even an interrupt, then end
        results.put(("error", name, traceback.format_exc()))


class _NetworkWorker:
    """A fresh Python process that trains networks with ``threads`` TensorFlow threads.

    TensorFlow fixes its thread pools and its choice of CPU kernels at start-up, for
    the whole process.  A process of its own gives a network the thread count the plan
    chose while the other cores fit other models, and TensorFlow's oneDNN kernels (its
    default on x86 Linux; about twice as fast for the convnet on the reference
    machine, but noisy at start-up, so the book's Makefile turns them off in its own
    processes), without touching the caller's TensorFlow (``way="article"`` in the
    same process keeps its settings).  Its reports go to ``events`` (a
    ``queue.Queue``) as ``("epoch", name, note)``, ``("done", name, output, wall)``
    and ``("error", name, text)``; a worker trains one network at a time.
    """

    def __init__(self, threads, X, y, Xv, Xt, seed, events, steps=STEPS_PER_CALL):
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self.threads = threads
        self.job: str | None = None
        self.closing = False
        self.events = events
        self.tasks = ctx.Queue()
        self.results = ctx.Queue()
        self.proc = ctx.Process(
            target=_network_worker,
            args=(self.tasks, self.results, X, y, Xv, Xt, seed, threads, steps),
            name=f"heldout-networks-{threads}",
            daemon=True,
        )
        self.proc.start()
        self.pump = threading.Thread(target=self._pump, name="heldout-pump", daemon=True)
        self.pump.start()

    @property
    def idle(self) -> bool:
        return self.job is None and self.proc.is_alive()

    def submit(self, name: str, params: dict) -> None:
        self.job = name
        self.tasks.put((name, params))

    def _pump(self):
        import queue as queue_mod

        while True:
            try:
                msg = self.results.get(timeout=0.5)
            except queue_mod.Empty:
                if not self.proc.is_alive():
                    if self.job is not None and not self.closing:
                        self.events.put(
                            (
                                "error",
                                self.job,
                                RuntimeError(
                                    "the process training the networks ended (exit code "
                                    f"{self.proc.exitcode}) before {self.job} finished"
                                ),
                            )
                        )
                    return
                continue
            if msg[0] == "error":
                err = RuntimeError(f"training {msg[1]} failed in its own process:\n{msg[2]}")
                self.events.put(("error", self.job or msg[1], err))
                return
            if msg[0] == "done":
                self.job = None
            self.events.put(msg)

    def close(self) -> None:
        """Stop the process (at once if it is still training)."""
        self.closing = True
        if self.proc.is_alive() and self.job is None:
            self.tasks.put(None)
            self.proc.join(timeout=30)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join()


def _networks_in_process(
    jobs, X, y, Xv, Xt, seed, threads, on_epoch, on_done, steps=STEPS_PER_CALL
):
    """Train ``jobs`` (``(name, params)`` pairs) one after the other in one worker process.

    ``on_epoch(name, note)`` and ``on_done(name, output, wall)`` are called in this
    thread as the reports arrive; a failure raises ``RuntimeError`` here.  ``steps``:
    training steps per call into TensorFlow (:data:`STEPS_PER_CALL`).
    """
    import queue as queue_mod

    events: queue_mod.Queue = queue_mod.Queue()
    worker = _NetworkWorker(threads, X, y, Xv, Xt, seed, events, steps)
    try:
        for name, params in jobs:
            worker.submit(name, params)
            while True:
                msg = events.get()
                if msg[0] == "epoch":
                    on_epoch(msg[1], msg[2])
                elif msg[0] == "done":
                    on_done(msg[1], msg[2], msg[3])
                    break
                else:
                    raise msg[2]
    finally:
        worker.close()


def _omp_threads() -> int:
    """Threads for XGBoost: every CPU, or one when the machine is already busy.

    XGBoost's OpenMP threads meet at a barrier many times per tree; when other
    processes keep the CPUs busy, each barrier waits for a descheduled thread and a
    10-second fit can take minutes.  One thread is then much faster.
    """
    cpus = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0] > 2 * cpus
    except OSError:  # pragma: no cover - no load average on this platform
        busy = False
    return 1 if busy else cpus


def _xgboost(X, y, Xv, Xt, params, nthread: int | None = None):
    import xgboost as xgb

    p = {k: params[k] for k in ("objective", "max_depth", "eval_metric", "seed")}
    p.update(num_class=10, nthread=_omp_threads() if nthread is None else nthread)

    def fit():
        return xgb.train(p, xgb.DMatrix(X, label=y), num_boost_round=params["num_boost_round"])

    def predict(m, A):
        return m.predict(xgb.DMatrix(A)).astype(int)

    (pv, pt), fit_s, pred_s = _timed(fit, [(predict, Xv), (predict, Xt)])
    return pv, pt, fit_s, pred_s, {}


def knn_fast(
    X, y, Xv, Xt, ks: Sequence[int] = range(3, 9), n_jobs: int = -1
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """k-nearest-neighbour predictions for several k from one neighbour query per set.

    Fits one ``KNeighborsClassifier`` and asks it once for the ``max(ks)`` nearest
    training digits of each validation and test digit; :func:`knn_votes` then gives
    the majority vote of the first k for every k.  The predictions equal those of
    one ``KNeighborsClassifier(n_neighbors=k)`` per k (checked in the tests, and on
    the full data by ``benchmarks/bench_mnist.py``) as long as no two training digits
    are at exactly the same distance across the k-th place; when they are, which of
    them counts is arbitrary in both methods.  Integer pixels are queried as float64
    (exact), which lets scikit-learn use its faster neighbour search, without the
    columns that are zero in every training digit (83 of 784 in the book's 33,600; the
    ranking of the distances is exactly the same).

    Returns
    -------
    val_pred, test_pred : ndarray, shape (len(ks), n)
    fit_seconds, predict_seconds : float
    """
    from sklearn.neighbors import KNeighborsClassifier

    ks = list(ks)
    y = np.asarray(y)
    classes, y_idx = np.unique(y, return_inverse=True)
    X, Xv, Xt = (np.asarray(A) for A in (X, Xv, Xt))
    if all(A.ndim == 2 and np.issubdtype(A.dtype, np.integer) for A in (X, Xv, Xt)):
        # Integer pixels as float64 (exact): scikit-learn's fast neighbour search takes
        # only floating-point queries, and falls back to a slower one for integers.  A
        # column that is zero in every training row adds the same exact amount to a
        # query's squared distance from every training row, and nothing to the
        # ||x||^2 - 2 q.x by which that search ranks them: it is left out.
        cols = np.flatnonzero(X.any(axis=0))
        X, Xv, Xt = (np.asarray(A[:, cols], dtype=np.float64) for A in (X, Xv, Xt))

    def fit():
        return KNeighborsClassifier(n_neighbors=max(ks), n_jobs=n_jobs).fit(X, y_idx)

    def predict(m, A):
        neigh = m.kneighbors(A, return_distance=False)
        return classes[knn_votes(y_idx[neigh], ks, n_classes=classes.size)]

    (pv, pt), fit_s, pred_s = _timed(fit, [(predict, Xv), (predict, Xt)])
    return pv, pt, fit_s, pred_s


def knn_article(X, y, Xv, Xt, ks: Sequence[int] = range(3, 9)):
    """The article's way: one ``KNeighborsClassifier`` fit and query per k (same outputs as :func:`knn_fast`)."""
    from sklearn.neighbors import KNeighborsClassifier

    fit_s = pred_s = 0.0
    pvs, pts = [], []
    for k in ks:
        (pv, pt), f, p = _timed(
            lambda k=k: KNeighborsClassifier(n_neighbors=k, n_jobs=-1).fit(X, y),
            [(lambda m, A: m.predict(A), Xv), (lambda m, A: m.predict(A), Xt)],
        )
        pvs.append(pv)
        pts.append(pt)
        fit_s += f
        pred_s += p
    return np.array(pvs), np.array(pts), fit_s, pred_s


def _progress_stream():
    """Where progress lines go: stderr, or in a Jupyter kernel the kernel's own stderr.

    A kernel forwards what is written to its file descriptor 2 to the notebook *and*
    echoes it on the terminal it was started from, so during ``make book`` (which
    runs the chapters in kernels whose Python-level output reaches only the pages)
    the lines also show in the terminal.
    """
    if (
        "ipykernel" in sys.modules
        and sys.__stderr__ is not None
        and sys.stderr is not sys.__stderr__
    ):
        return sys.__stderr__
    return sys.stderr


class _Progress:
    """Progress on stderr: a tqdm bar in a terminal, one short line per event elsewhere.

    In a notebook or a book build stderr is not a terminal, and a bar redrawn with
    carriage returns would leave dozens of lines in the page; there each finished
    model prints one line instead (see :func:`_progress_stream` for where it goes).
    """

    def __init__(self, total: int, desc: str, enabled: bool = True, nested: bool = False):
        self.enabled, self.desc, self.total, self.done = enabled, desc, total, 0
        self.tty = enabled and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
        self.t0 = time.perf_counter()
        self.bar = None
        if self.tty:
            from tqdm import tqdm

            self.bar = tqdm(
                total=total,
                desc=desc,
                file=sys.stderr,
                mininterval=1.0,
                ascii=True,
                leave=not nested,
                ncols=100,
            )

    def update(self, n: int = 1, note: str = "") -> None:
        self.done += n
        if self.bar is not None:
            if note:
                self.bar.set_postfix_str(note, refresh=False)
            self.bar.update(n)

    def line(self, text: str) -> None:
        """A one-line message (not shown inside a terminal bar's lifetime)."""
        if self.enabled and not self.tty:
            print(
                f"{self.desc}: {text} ({time.perf_counter() - self.t0:.0f} s)",
                file=_progress_stream(),
                flush=True,
            )

    def set_note(self, note: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(note, refresh=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# --------------------------------------------------------------------------- the experiment
@dataclass
class Experiment:
    """Everything one run of the comparison produced.

    Attributes
    ----------
    split : Split
        Row indices of the 80/10/10 split of the ``n`` digits.
    y_val, y_test : ndarray
        True labels of the validation and test parts.
    predictions : dict
        ``predictions[model] = {"val": ..., "test": ...}``.
    timings : dict
        ``timings[model] = {"fit_s", "predict_s", "cached"}`` (kNN: the one query is
        shared; its time is reported on ``knn_8`` and 0 on the others).
    info : dict
        Per-model notes (``linear_svc_*``: ``converged``).
    wall_s : float
        Wall time of this call (small when everything came from the cache).
    profile, way, n, epochs, data_digest : the settings used.
    fresh_wall_s : dict
        Wall time of each job fitted by this call (not read from the cache).
    plan, ran : heldout.book.mnist.schedule.Plan or None
        ``way="fast"`` with something to fit: the plan made at the start (estimated
        times) and the plan of what ran (measured start and end of each job, from the
        start of the fitting); None otherwise.
    machine : heldout.book.mnist.mnist_costs.Machine or None
        What the plan knew of the machine.
    estimates : dict or None
        Estimated seconds of each job for each thread count, as the last plan had them
        (the convnet's from its measured training speed when it was probed).
    """

    split: Split
    y_val: np.ndarray
    y_test: np.ndarray
    predictions: dict
    timings: dict
    info: dict
    wall_s: float
    profile: str
    way: str
    n: int
    epochs: int
    data_digest: str
    source: str = ""
    fresh_wall_s: dict = field(default_factory=dict)
    plan: Any = None
    ran: Any = None
    machine: Any = None
    estimates: Any = None

    def correct(self, model: str, part: str = "val") -> np.ndarray:
        """Boolean vector: which items of ``part`` ("val", "test" or "baseline") ``model`` got right."""
        if part == "baseline":
            return np.concatenate([self.correct(model, "test"), self.correct(model, "val")])
        if part not in ("val", "test"):
            raise ValueError(f"part must be 'val', 'test' or 'baseline', got {part!r}")
        truth = self.y_val if part == "val" else self.y_test
        return np.asarray(self.predictions[model][part]) == truth


def lanes_and_threads(n_jobs: int | None = None) -> tuple[int, int]:
    """The old fixed rule for ``way="fast"``: lanes side by side and threads per library.

    ``n_jobs`` lanes (default: 2, or 1 on a one-CPU machine), each library limited to
    ``cpu_count // lanes`` threads (at least 1).  The experiment now plans its jobs at
    run time (:func:`experiment`); this rule still gives the threads of fits cached
    before thread counts were recorded (see :func:`fit_threads`), and, on two cores,
    the networks' threads in the default plan.

    Examples
    --------
    >>> lanes, threads = lanes_and_threads(1)
    >>> lanes == 1 and threads >= 1
    True
    """
    from heldout._checks import as_count

    cpus = os.cpu_count() or 1
    lanes = min(2, cpus) if n_jobs is None else int(as_count(n_jobs, "n_jobs", minimum=1))
    return lanes, max(1, cpus // lanes)


def fit_threads(exp: Experiment, model: str) -> int:
    """The thread count ``model``'s fit in ``exp`` used (recorded with its predictions).

    Fits cached before thread counts were recorded used the old two-lane rule
    (:func:`lanes_and_threads`).  A network's predictions depend on it: pass it as
    ``threads={model: fit_threads(exp, model)}`` to :func:`experiment` to refit it
    the same way.
    """
    if model not in exp.predictions:
        raise ValueError(f"model must be one of the experiment's models, got {model!r}")
    return int(exp.info.get(model, {}).get("threads", lanes_and_threads()[1]))


#: Estimated work (core-seconds on the reference machine) above which the experiment
#: measures the machine's speed before planning; below it the plan uses speed 1.
_PROBE_ABOVE = 60.0

#: Estimated seconds (reference machine) of the convnet on one thread above which its
#: training speed is measured (:func:`_probe_network`) before its threads are chosen;
#: below it the convnet gets the threads of the whole experiment's plan.
_PROBE_CNN_ABOVE = 30.0


def _plan_jobs(todo, n_train, n_scored, epochs, n_jobs, threads, memory=None):
    """The machine, the jobs, the thread counts that are not to be searched, and the plan.

    Networks keep the threads of the whole experiment's plan
    (:func:`heldout.book.mnist.mnist_costs.network_threads`); ``n_jobs=1`` runs one job at a
    time with every CPU; ``threads`` (job name to count) overrides both.
    """
    from heldout.book.mnist import mnist_costs, schedule

    free = _free_memory() if memory is None else memory
    budget = math.inf if free is None else max(float(free) - mnist_costs.MARGIN, float(2**28))
    machine = mnist_costs.this_machine(memory=budget)
    jobs = mnist_costs.mnist_jobs(todo, n_train, n_scored, epochs, machine)
    work = sum(min(t * s for t, s in j.seconds.items()) for j in jobs)
    if work > _PROBE_ABOVE:
        machine = mnist_costs.this_machine(memory=budget, speed=None)
        jobs = mnist_costs.mnist_jobs(todo, n_train, n_scored, epochs, machine)
    by_name = {j.name: j for j in jobs}
    fixed: dict[str, int] = {}
    nets = mnist_costs.network_threads(n_train, n_scored, epochs, machine)
    fixed.update({n: t for n, t in nets.items() if n in by_name})
    if n_jobs == 1:
        fixed = {j.name: max(j.seconds) for j in jobs}
    for name, t in (threads or {}).items():
        job = "knn" if name.startswith("knn_") else name
        if job in by_name:
            fixed[job] = min(int(t), max(by_name[job].seconds))
    # a small experiment (the quick profile): each worker's TensorFlow import costs about
    # as much as a network's fit, so networks on one thread count train one after the
    # other in one worker (grouped: never side by side) and TensorFlow is imported once
    if work <= _PROBE_ABOVE and len({fixed[n] for n in _NETWORKS if n in by_name}) == 1:
        jobs = [
            dataclasses.replace(j, group="tensorflow") if j.name in _NETWORKS else j for j in jobs
        ]
        by_name = {j.name: j for j in jobs}
    # the convnet's cost varies most between machines: measure it before choosing its
    # threads, when the fit is long enough for the choice to matter
    if (
        "cnn" in by_name
        and machine.cores > 1
        and n_jobs != 1
        and "cnn" not in (threads or {})
        and by_name["cnn"].seconds[1] >= _PROBE_CNN_ABOVE * machine.speed
    ):
        probe = mnist_costs.probe_job("cnn", machine, by_name["cnn"].memory)
        jobs = [
            dataclasses.replace(j, after=(probe.name,)) if j.name == "cnn" else j for j in jobs
        ] + [probe]
        fixed.pop("cnn", None)
        fixed[probe.name] = 1
    max_running = None if n_jobs is None else int(n_jobs)
    first = schedule.plan(
        jobs,
        machine.cores,
        machine.memory,
        max_running=max_running,
        fixed_threads=fixed,
        tolerance=mnist_costs.PLAN_TOLERANCE,
    )
    return machine, jobs, fixed, max_running, first


def _run_planned(todo, n_jobs, threads, X, y, Xv, Xt, params_of, seed, epochs, finish, epoch_note):
    """Our way: the jobs planned at run time (:mod:`heldout.book.mnist.schedule`), replanned as they end.

    Each job runs with the thread count the plan gives it: in a thread of this process
    for scikit-learn, liblinear, libsvm, XGBoost and the BLAS-built kernels (BLAS on
    one thread per call, parallel blocks for the kernel matrices, OpenMP limited per
    thread for the neighbour search, ``nthread`` for XGBoost), or in a worker process
    of its own thread count for the networks.  Whenever a job ends the remaining jobs
    are planned again from the estimates and what runs, and every job the new plan
    starts now is started.  The convnet, when long enough, first has its training
    speed measured in a worker (job ``cnn_probe``), and its estimates are replaced by
    that measurement before its threads are chosen.  Returns the first plan, the plan
    of what ran, the machine, and the estimates as the last plan had them.
    """
    import queue as queue_mod

    from threadpoolctl import threadpool_limits

    from heldout.book.mnist import mnist_costs, schedule

    n_scored = len(Xv) + len(Xt)
    machine, jobs, fixed, max_running, first = _plan_jobs(
        todo, len(y), n_scored, epochs, n_jobs, threads
    )
    by_name = {j.name: j for j in jobs}
    mode = "shared" if "gram" in by_name else None
    if mode is None and any(j in by_name for j in ("svc_rbf", "svc_poly3")):
        svc = by_name.get("svc_rbf") or by_name["svc_poly3"]
        mode = "libsvm" if max(svc.seconds) == 1 else "own"
    store: dict = {}
    events: queue_mod.Queue = queue_mod.Queue()
    workers: list[_NetworkWorker] = []
    running: dict[str, schedule.Slot] = {}
    ran: dict[str, schedule.Slot] = {}
    done: set[str] = set()
    failure: BaseException | None = None
    trigger: str | None = None
    t0 = time.perf_counter()

    def body(name, t):
        if name == "gram":
            _gram_job(X, y, t, store)
            return None
        p = params_of(name)
        if name.startswith("linear_svc"):
            out = _linear_svc(X, y, Xv, Xt, p)
            return (*out[:4], {**out[4], "threads": 1})
        if name in ("svc_rbf", "svc_poly3"):
            return _kernel_svm_job(X, y, Xv, Xt, p, t, mode, store)
        if name == "xgboost":
            return (*_xgboost(X, y, Xv, Xt, p, nthread=t)[:4], {"threads": t})
        with threadpool_limits(limits=t, user_api="openmp"):  # this thread only
            return (*knn_fast(X, y, Xv, Xt, p["ks"], n_jobs=t), {"threads": t})

    def in_thread(name, t):
        start = time.perf_counter()
        try:
            out = body(name, t)
        except BaseException as exc:  # reported to the planning loop, raised there
            events.put(("error", name, exc))
            return
        events.put(("done", name, out, time.perf_counter() - start))

    def launch(name, t):
        net = name.removesuffix("_probe")
        if net in _NETWORKS:
            worker = next((w for w in workers if w.idle and w.threads == t), None)
            if worker is None:
                worker = _NetworkWorker(t, X, y, Xv, Xt, seed, events)
                workers.append(worker)
            worker.submit(name, params_of(net))
        else:
            threading.Thread(
                target=in_thread, args=(name, t), name=f"heldout-{name}", daemon=True
            ).start()

    replan = True  # plan again only when a job has ended
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            while True:
                now = time.perf_counter() - t0
                waiting = [n for n in by_name if n not in done and n not in running]
                if replan and failure is None and waiting:
                    started = {  # a job past its estimate is expected to end soon, not now
                        n: schedule.Slot(n, s.threads, s.start, max(s.end, now + 1.0), s.trigger)
                        for n, s in running.items()
                    }
                    p = schedule.plan(
                        [by_name[n] for n in by_name if n not in done],
                        machine.cores,
                        machine.memory,
                        max_running=max_running,
                        fixed_threads=fixed,
                        started=started,
                        done=done,
                        now=now,
                        tolerance=mnist_costs.PLAN_TOLERANCE,
                    )
                    for s in p.slots:
                        if s.job not in running and s.start <= now + 1e-6:
                            launch(s.job, s.threads)
                            end = now + by_name[s.job].seconds[s.threads]
                            running[s.job] = schedule.Slot(s.job, s.threads, now, end, trigger)
                    replan = False
                if not running:
                    break
                try:
                    msg = events.get(timeout=1.0)
                except queue_mod.Empty:
                    continue
                if msg[0] == "epoch":
                    epoch_note(msg[1], msg[2])
                    continue
                name = msg[1]
                slot = running.pop(name)
                ran[name] = schedule.Slot(
                    name, slot.threads, slot.start, time.perf_counter() - t0, slot.trigger
                )
                done.add(name)
                trigger = name
                replan = True
                if msg[0] == "error":
                    failure = failure or msg[2]
                elif name == "cnn_probe":  # the convnet's estimates, measured here
                    have = {w.threads for w in workers if w.idle}
                    seconds = mnist_costs.probed_seconds(
                        "cnn",
                        msg[2],
                        len(y),
                        n_scored,
                        epochs,
                        machine,
                        startup=[t for t in by_name["cnn"].seconds if t not in have],
                        batch_size=params_of("cnn")["batch_size"],
                    )
                    by_name["cnn"] = dataclasses.replace(by_name["cnn"], seconds=seconds)
                elif name != "gram":
                    out = msg[2]
                    if name in _NETWORKS:
                        out = (*out[:4], {**out[4], "threads": slot.threads})
                    finish(name, out, msg[3])
                if all(n in done for n in ("svc_rbf", "svc_poly3") if n in by_name):
                    store.pop("gram", None)  # free the shared Gram matrix
    finally:
        for w in workers:
            w.close()
    if failure is not None:
        raise failure
    ran_plan = schedule.plan_of(list(ran.values()), machine.cores, origin=0.0)
    return first, ran_plan, machine, {j: by_name[j].seconds for j in by_name}


def default_size() -> tuple[int, int]:
    """Digits and epochs of the current profile: (42,000, 10), or (4,200, 2) when ``HELDOUT_QUICK=1``."""
    from heldout.config import pick

    return pick(42_000, 4_200), pick(10, 2)


def experiment(
    n: int | None = None,
    *,
    epochs: int | None = None,
    models: Sequence[str] = MODEL_NAMES,
    way: str = "fast",
    directory: str | os.PathLike | None = None,
    cache: bool | PredictionCache = True,
    n_jobs: int | None = None,
    threads: Mapping[str, int] | None = None,
    seed: int | None = None,
    progress: bool = True,
) -> Experiment:
    """Run (or read from the cache) the article's comparison on ``n`` MNIST digits.

    Parameters
    ----------
    n : int, optional
        Number of digits: the first ``n`` of the fixed 42,000-digit stand-in for
        Kaggle's file (:func:`heldout.book.mnist.data.article_rows`).  Default 42,000, or 4,200
        in the quick profile.
    epochs : int, optional
        Epochs of both networks (article: 10; quick profile: 2).
    models : sequence of str
        Names from :data:`MODEL_NAMES`.
    way : {"fast", "article"}
        "article" fits the SVMs on raw dense pixels and kNN once per k, one model after
        the other; "fast" as described in the module docstring.
    directory : path, optional
        Passed to :func:`heldout.book.mnist.data.load_mnist`.
    cache : bool or PredictionCache
        Reuse and store predictions (default under ``$HELDOUT_CACHE_DIR``).
    n_jobs : int, optional
        At most this many jobs side by side in ``way="fast"`` (default: as the plan
        decides, at most one per core).  1 fits one model after the other, each with
        every CPU.  Ignored with ``way="article"``.
    threads : mapping of str to int, optional
        Thread counts for some models in ``way="fast"`` (``{"dense_nn": 1}``), for
        example to refit a network as it was fitted (:func:`fit_threads`).  The others
        get the plan's counts; networks keep those of the whole experiment's plan
        (:func:`heldout.book.mnist.mnist_costs.network_threads`).
    seed : int, optional
        Seed of the networks (default :data:`heldout.config.SEED`).
    progress : bool
        Show a progress bar on stderr (a few lines, updated at most every 3 s).
    """
    from heldout.book.mnist.data import KAGGLE_ROWS, article_rows, load_mnist
    from heldout.config import SEED, quick

    t_start = time.perf_counter()
    n_default, e_default = default_size()
    n = n_default if n is None else n
    epochs = e_default if epochs is None else epochs
    from heldout._checks import as_count

    n = int(as_count(n, "n", minimum=100))
    epochs = int(as_count(epochs, "epochs", minimum=1))
    lanes_and_threads(n_jobs)  # checks n_jobs before any work
    unknown = [m for m in models if m not in MODEL_NAMES]
    if unknown:
        raise ValueError(f"models must be names from {', '.join(MODEL_NAMES)}; unknown: {unknown}")
    threads = dict(threads or {})
    for name, t in threads.items():
        if name not in MODEL_NAMES:
            raise ValueError(f"threads must map names from {', '.join(MODEL_NAMES)}; got {name!r}")
        threads[name] = int(as_count(t, f"threads[{name!r}]", minimum=1))
    if way not in ("fast", "article"):
        raise ValueError(f"way must be 'fast' or 'article', got {way!r}")
    seed = SEED if seed is None else seed
    profile = "quick" if quick() else "full"
    store = cache if isinstance(cache, PredictionCache) else (PredictionCache() if cache else None)

    digits = load_mnist(directory)
    X_all, y_all = article_rows(digits, n=min(KAGGLE_ROWS, len(digits)))
    if n > len(y_all):
        raise ValueError(f"n must be at most {len(y_all)} (the article's rows), got {n}")
    X_all, y_all = X_all[:n], y_all[:n].astype(np.int64)
    split = article_split(n)
    X, y = X_all[split.train], y_all[split.train]
    Xv, Xt = X_all[split.val], X_all[split.test]
    digest = array_digest(X_all, y_all, split.train, split.val, split.test)

    ordered = [m for m in MODEL_NAMES if m in models]
    if any(m.startswith("knn_") for m in ordered):  # the kNN sweep is one job
        ordered = [m for m in ordered if not m.startswith("knn_")] + ["knn"]
    knn_ks = [int(m[4:]) for m in models if m.startswith("knn_")]

    def params_of(job):
        if job == "knn":
            return {"ks": sorted(knn_ks), "way": way, "pixels": "raw"}
        p = model_params(job, epochs=epochs, way=way)
        if job in ("dense_nn", "dense_nn_scaled", "cnn"):
            p["seed"] = seed
        return p

    keys = {job: PredictionCache.key(digest, job, params_of(job), profile) for job in ordered}
    results: dict[str, dict] = {}
    for job in ordered:
        hit = store.get(keys[job]) if store else None
        if hit is not None:
            hit["cached"] = True
            results[job] = hit

    todo = [job for job in ordered if job not in results]
    bar = _Progress(total=len(ordered), desc="MNIST models", enabled=progress)
    bar.update(len(ordered) - len(todo))
    if len(todo) < len(ordered):
        bar.line(f"{len(ordered) - len(todo)} of {len(ordered)} fits read from the cache")
    fresh_wall: dict[str, float] = {}
    first = ran = machine = estimates = None

    lock = threading.Lock()
    last_line = [time.perf_counter()]
    counts: dict[str, int] = {}  # epochs reported per network

    def finish(job, out, wall):
        pv, pt, fit_s, pred_s, info = out
        entry = {
            "val": pv,
            "test": pt,
            "fit_s": fit_s,
            "predict_s": pred_s,
            "info": info,
            "cached": False,
        }
        with lock:
            results[job] = entry
            fresh_wall[job] = wall
            if store:
                store.put(keys[job], entry)
            bar.update(1, f"{job} done")
            bar.line(f"{job} fitted and scored in {wall:.0f} s")
            last_line[0] = time.perf_counter()

    def epoch_note(job, note):
        """A heartbeat line for long network fits (at most one a minute, off a terminal)."""
        with lock:
            counts[job] = counts.get(job, 0) + 1
            bar.set_note(f"{job} epoch {counts[job]}/{epochs}")
            if time.perf_counter() - last_line[0] >= 60:
                bar.line(f"{job}: epoch {counts[job]} of {epochs} done ({note})")
                last_line[0] = time.perf_counter()

    try:
        if way == "article":
            for job in todo:
                bar.set_note(f"fitting {job}")
                t0 = time.perf_counter()
                p = params_of(job)
                if job.startswith("linear_svc"):
                    out = _linear_svc(X, y, Xv, Xt, p)
                elif job in ("svc_rbf", "svc_poly3"):
                    out = _svc(X, y, Xv, Xt, p)
                elif job == "knn":
                    out = (*knn_article(X, y, Xv, Xt, p["ks"]), {})
                elif job == "xgboost":
                    out = _xgboost(X, y, Xv, Xt, p)
                else:
                    out = _keras(job, X, y, Xv, Xt, p, seed, progress)
                finish(job, out, time.perf_counter() - t0)
        elif todo:
            first, ran, machine, estimates = _run_planned(
                todo, n_jobs, threads, X, y, Xv, Xt, params_of, seed, epochs, finish, epoch_note
            )
    finally:
        bar.close()

    predictions, timings, info = {}, {}, {}
    for job, entry in results.items():
        if job == "knn":
            ks = params_of("knn")["ks"]
            for i, k in enumerate(ks):
                name = f"knn_{k}"
                predictions[name] = {
                    "val": np.asarray(entry["val"])[i],
                    "test": np.asarray(entry["test"])[i],
                }
                last = k == max(ks)
                timings[name] = {
                    "fit_s": entry["fit_s"] if last else 0.0,
                    "predict_s": entry["predict_s"] if last else 0.0,
                    "cached": entry["cached"],
                }
                info[name] = {"shared_query": True}
        else:
            predictions[job] = {"val": np.asarray(entry["val"]), "test": np.asarray(entry["test"])}
            timings[job] = {
                "fit_s": entry["fit_s"],
                "predict_s": entry["predict_s"],
                "cached": entry["cached"],
            }
            info[job] = entry.get("info", {})
    return Experiment(
        split=split,
        y_val=y_all[split.val],
        y_test=y_all[split.test],
        predictions={m: predictions[m] for m in MODEL_NAMES if m in predictions},
        timings=timings,
        info=info,
        wall_s=time.perf_counter() - t_start,
        profile=profile,
        way=way,
        n=n,
        epochs=epochs,
        data_digest=digest,
        source=digits.source,
        fresh_wall_s=fresh_wall,
        plan=first,
        ran=ran,
        machine=machine,
        estimates=estimates,
    )


def results_table(exp: Experiment, level: float = 0.95):
    """One row per (model, part) with the accuracy, the article's error bar and an exact interval.

    Columns: ``model``, ``family``, ``part`` ("baseline" for the 80/20 split's 20%,
    "val", "test"), ``n``, ``correct``, ``accuracy``, ``se_article``
    (:func:`article_se`), ``cp_low``, ``cp_high`` (Clopper-Pearson interval at
    ``level`` from :func:`heldout.accuracy.bounds.interval` :cite:`clopper1934`),
    ``article_accuracy``, ``article_se`` (:data:`ARTICLE_RESULTS`, NaN when the
    article did not report that cell), ``fit_s``, ``predict_s``, ``cached``.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    from heldout.accuracy.bounds import interval

    rows = []
    for model in exp.predictions:
        parts = (["baseline"] if model.startswith("linear_svc") else []) + ["val", "test"]
        for part in parts:
            ok = exp.correct(model, part)
            ref_key = "cnn_test" if (model == "cnn" and part == "test") else model
            ref = ARTICLE_RESULTS.get(ref_key, {})
            ref_part = {"baseline": "baseline", "val": "validation", "test": "test"}[part]
            ref_ok = ref.get("split") == ref_part
            rows.append(
                {
                    "model": model,
                    "family": FAMILY[model],
                    "part": part,
                    "n": ok.size,
                    "correct": int(ok.sum()),
                    "article_accuracy": ref["accuracy"] if ref_ok else np.nan,
                    "article_se": ref["se"] if ref_ok else np.nan,
                    "fit_s": exp.timings[model]["fit_s"],
                    "predict_s": exp.timings[model]["predict_s"],
                    "cached": exp.timings[model]["cached"],
                }
            )
    table = pd.DataFrame(rows)
    k, m = table["correct"].to_numpy(), table["n"].to_numpy()
    acc = k / m
    low, high = interval(k, m, alpha=1 - level, method="clopper-pearson")
    table.insert(5, "accuracy", acc)
    table.insert(6, "se_article", article_se(acc, m))
    table.insert(7, "cp_low", np.asarray(low))
    table.insert(8, "cp_high", np.asarray(high))
    return table


def run_experiment(n: int | None = None, **kwargs):
    """The results table of the comparison (see :func:`results_table`), cached.

    Runs :func:`experiment` with the same arguments (the predictions come from the
    disk cache when nothing changed, so a repeated call takes about a second,
    mostly loading the digits) and returns :func:`results_table` of it.
    """
    kwargs.setdefault("progress", False)
    return results_table(experiment(n, **kwargs))
