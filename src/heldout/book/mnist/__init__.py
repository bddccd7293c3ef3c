"""The MNIST case study: data, writers, models, kernels, costs and schedule.

``data`` (offline MNIST with checksums), ``qmnist`` (who wrote each digit), ``models``
(the model comparison with a prediction cache), ``kernels`` (libsvm's kernel matrices),
``mnist_costs`` and ``schedule`` (the run-time plan of the fits), ``digit_pool`` (coverage
on the digits the book's subset leaves out), ``writer_leak`` (writer-disjoint splits),
``standin`` (whether the digits are installed, and the lessons' stand-in when they are not).

Every public function and result class of the wing is importable from here
(``from heldout.book.mnist import load_mnist``); each module is imported the first time one
of its names is used, so ``import heldout.book.mnist`` costs nothing.

Examples
--------
>>> import heldout.book.mnist as w
>>> callable(w.load_mnist)
True
"""

from __future__ import annotations

from heldout._lazy import attach

#: Public name -> the module of this wing that defines it.
WHERE = {
    "Digits": "data",
    "Experiment": "models",
    "Images": "data",
    "Job": "schedule",
    "LeakDesign": "writer_leak",
    "Machine": "mnist_costs",
    "PackagedFiles": "data",
    "Plan": "schedule",
    "Pool": "digit_pool",
    "Recorded": "standin",
    "PredictionCache": "models",
    "Slot": "schedule",
    "Split": "models",
    "WriterResult": "writer_leak",
    "Writers": "qmnist",
    "array_digest": "models",
    "article_rows": "data",
    "article_se": "models",
    "article_split": "models",
    "article_writers": "qmnist",
    "available_memory": "mnist_costs",
    "blocks_in_threads": "kernels",
    "build_writers_file": "qmnist",
    "cache_dir": "data",
    "cache_root": "models",
    "cache_rows": "kernels",
    "check_standard": "data",
    "default_size": "models",
    "digits_available": "standin",
    "experiment": "models",
    "fit_kernel_svm": "kernels",
    "fit_predict": "writer_leak",
    "fit_threads": "models",
    "gram_bytes": "kernels",
    "gram_matrix": "kernels",
    "group_split": "writer_leak",
    "has_avx512": "mnist_costs",
    "idx_bytes": "data",
    "job_memory": "mnist_costs",
    "kernel_bytes": "kernels",
    "kernel_from_gram": "kernels",
    "kernel_matrix": "kernels",
    "kernel_mode": "mnist_costs",
    "knn_article": "models",
    "knn_fast": "models",
    "knn_votes": "models",
    "lanes_and_threads": "models",
    "leak_design": "writer_leak",
    "list_schedule": "schedule",
    "load_mnist": "data",
    "load_writers": "qmnist",
    "md5_hex": "data",
    "measure_speed": "mnist_costs",
    "mnist_indices": "qmnist",
    "mnist_jobs": "mnist_costs",
    "model_params": "models",
    "network_threads": "mnist_costs",
    "odds_ratio": "models",
    "packaged_files": "data",
    "parse_idx": "data",
    "plan": "schedule",
    "plan_of": "schedule",
    "pool_auc_coverage": "digit_pool",
    "pool_coverage": "digit_pool",
    "pool_predictions": "digit_pool",
    "pool_truths": "digit_pool",
    "probe_job": "mnist_costs",
    "probed_seconds": "mnist_costs",
    "read_idx": "data",
    "read_label_csv": "data",
    "record_outcomes": "standin",
    "recorded_outcomes": "standin",
    "results_table": "models",
    "run_experiment": "models",
    "score_gap": "models",
    "split_experiment": "writer_leak",
    "standin_note": "standin",
    "standin_pool": "standin",
    "standin_writers": "standin",
    "svm_gamma": "kernels",
    "this_machine": "mnist_costs",
    "usable_cores": "mnist_costs",
    "writer_experiment": "writer_leak",
    "writers_path": "qmnist",
}

__all__ = sorted(WHERE)
__getattr__, __dir__ = attach(__name__, WHERE)
