"""The MNIST comparison the article's way and our way, on the same digits, in one process.

The article's way (``heldout.models.experiment(way="article")``): its seven families one
after the other, the support vector machines with libsvm's default 200 MB kernel cache,
k-nearest neighbours fitted and queried once per k = 3..8, no cache.

Our way (``way="fast"``, as the chapter runs it): the same models plus the two extra
ones the chapter shows (linear SVC and dense network on scaled pixels), the four
single-threaded SVM fits side by side in threads with a 1 GB kernel cache, one
neighbour query for all k, predictions cached on disk (a fresh temporary cache here,
so everything is fitted); then the same call again, served from the cache.

The script prints wall times, the ratio ours / article's, digits per second, and
checks that the two ways agree: kNN and the SVMs must give identical predictions; the
networks are fitted twice with the same seed, and the number of validation digits on
which the two fits disagree measures TensorFlow's run-to-run variation.

By default it uses the first 8,400 of the 42,000 digits (a fifth: about a minute or
two on two free cores); ``--full`` uses all 42,000 (several minutes).  Usage::

    python benchmarks/bench_mnist.py [--n 8400 | --full] [--epochs 10]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np

from heldout.models import MODEL_NAMES, PredictionCache, experiment

ARTICLE_MODELS = [m for m in MODEL_NAMES if not m.endswith("_scaled")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=8400, help="digits (default 8,400 of the 42,000)")
    parser.add_argument("--full", action="store_true", help="all 42,000 digits, as the chapter")
    parser.add_argument(
        "--epochs", type=int, default=10, help="epochs of the networks (article: 10)"
    )
    args = parser.parse_args()
    n = 42_000 if args.full else args.n
    print(
        f"MNIST comparison, {n} digits ({int(0.8 * n)} training), {args.epochs} epochs, {os.cpu_count()} CPUs"
    )

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

    print("\nagreement of the two ways (validation + test digits that differ):")
    for m in ARTICLE_MODELS:
        diff = sum(
            int(np.sum(art.predictions[m][p] != ours.predictions[m][p])) for p in ("val", "test")
        )
        total = art.y_val.size + art.y_test.size
        kind = "run-to-run (same seed)" if m in ("dense_nn", "cnn") else "must be 0"
        print(f"  {m:<16}{diff:6d} of {total}   {kind}")


if __name__ == "__main__":
    main()
