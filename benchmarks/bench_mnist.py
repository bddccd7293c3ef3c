"""The MNIST comparison the article's way and our way, on the same digits, in one process.

The article's way (``heldout.models.experiment(way="article")``): its seven families one
after the other, the support vector machines with libsvm's default 200 MB kernel cache,
k-nearest neighbours fitted and queried once per k = 3..8, no cache.

Our way (``way="fast"``, as the chapter runs it): the same models plus the two extra
ones the chapter shows (linear SVC and dense network on scaled pixels); the kernel
SVMs fitted on kernel matrices built with BLAS (``heldout.kernels``), one neighbour
query for all k, and two lanes side by side with one thread per library (the
networks in a process of their own); predictions cached on disk (a fresh temporary
cache here, so everything is fitted); then the same call again, served from the cache.

The script prints wall times, the ratio ours / article's, digits per second, and
checks that the two ways agree: kNN, the SVMs and XGBoost must give identical
predictions; the networks are trained once per way with the same seed but different
thread counts (two threads in the article's way, one in ours), and the number of
digits on which they disagree measures how much a network moves with the way its
sums are split.

By default it uses the first 8,400 of the 42,000 digits (a fifth: about a minute or
two on two free cores); ``--full`` uses all 42,000 (several minutes).  Usage::

    python benchmarks/bench_mnist.py [--n 8400 | --full] [--epochs 10]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np

from heldout.models import MODEL_NAMES, PredictionCache, _import_tensorflow_quietly, experiment

ARTICLE_MODELS = [m for m in MODEL_NAMES if not m.endswith("_scaled")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=8400, help="digits (default 8,400 of the 42,000)")
    parser.add_argument("--full", action="store_true", help="all 42,000 digits, as the chapter")
    parser.add_argument(
        "--epochs", type=int, default=10, help="epochs of the networks (article: 10)"
    )
    parser.add_argument(
        "--article-tf",
        choices=["onednn", "eigen"],
        default="onednn",
        help="TensorFlow's CPU kernels for the article's way (default: oneDNN, TensorFlow's "
        "default on x86 Linux and what our way's networks use, so the comparison is like "
        "for like; eigen: TF_ENABLE_ONEDNN_OPTS=0, as the book's Makefile sets it)",
    )
    args = parser.parse_args()
    # TensorFlow reads its kernel choice once, at import: import it now, as asked.
    _import_tensorflow_quietly(onednn=args.article_tf == "onednn")
    n = 42_000 if args.full else args.n
    print(
        f"MNIST comparison, {n} digits ({int(0.8 * n)} training), {args.epochs} epochs, {os.cpu_count()} CPUs"
    )
    print(f"TensorFlow kernels: article's way {args.article_tf}, our way onednn")

    t0 = time.perf_counter()
    art = experiment(
        n, epochs=args.epochs, models=ARTICLE_MODELS, way="article", cache=False, progress=False
    )
    t_art = time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmp:
        store = PredictionCache(tmp)
        t0 = time.perf_counter()
        ours = experiment(n, epochs=args.epochs, way="fast", cache=store, progress=False)
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = experiment(n, epochs=args.epochs, way="fast", cache=store, progress=False)
        t_again = time.perf_counter() - t0
    assert all(t["cached"] for t in again.timings.values())

    print(f"\n{'model':<18}{'article fit+predict s':>24}{'ours fit+predict s':>22}")
    for m in MODEL_NAMES:
        a = art.timings.get(m)
        o = ours.timings[m]
        a_txt = f"{a['fit_s'] + a['predict_s']:.1f}" if a else "-"
        print(f"{m:<18}{a_txt:>24}{o['fit_s'] + o['predict_s']:>22.1f}")
    print(
        "(kNN: the article's six fits are summed on knn_8; our single query is reported on knn_8)"
    )

    print(f"\nwall time, article's way (7 families, {len(ARTICLE_MODELS)} models): {t_art:8.1f} s")
    print(f"wall time, our way (all {len(MODEL_NAMES)} models, from cold):        {t_ours:8.1f} s")
    print(f"wall time, our way again (from the cache):          {t_again:8.1f} s")
    print(f"ratio ours / article's way:            {t_ours / t_art:6.3f}  (target <= 0.5)")
    print(f"ratio cached rerun / article's way:    {t_again / t_art:6.3f}")
    print(f"training digits per second, article's way: {len(art.split.train) / t_art:8.1f}")
    print(f"training digits per second, our way:       {len(ours.split.train) / t_ours:8.1f}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    peak_child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    print(f"peak memory: this process {peak:.1f} GiB, the networks' process {peak_child:.1f} GiB")
    print(f"kernel SVMs built their kernel with: {ours.info['svc_rbf'].get('kernel_matrix')}")

    print("\nagreement of the two ways (validation + test digits that differ):")
    broken = []
    for m in ARTICLE_MODELS:
        diff = sum(
            int(np.sum(art.predictions[m][p] != ours.predictions[m][p])) for p in ("val", "test")
        )
        total = art.y_val.size + art.y_test.size
        kind = "2 threads vs 1 (same seed)" if m in ("dense_nn", "cnn") else "must be 0"
        print(f"  {m:<16}{diff:6d} of {total}   {kind}")
        if diff and kind == "must be 0":
            broken.append(m)
    if broken:
        raise SystemExit(f"the two ways disagree on {', '.join(broken)}: that is a bug")


if __name__ == "__main__":
    main()
