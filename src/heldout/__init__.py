"""heldout: how big must a test set be, and how sure is the score it gave?

The package behind the *heldout* book.  Each module computes one thing:

``bounds``
    binomial tail, exact test set bound (guarded beta quantiles) and its relaxations, intervals
``posterior``
    Beta posterior of an accuracy
``compare``
    two or more models' accuracies: posterior probabilities, Fisher, chi-squared, McNemar, sizes
``paired``
    two models on the same items: paired tests, intervals and sizes
``multiple``
    every pair of models on one test set, with Holm's (or another) adjustment
``best``
    which model can be the best: the best set, the paired P(best), selection studies
``predictions``
    per-item correctness of several models scored on the same items
``regression``
    standard errors and intervals of a test mean squared error
``losses``
    bounded per-row losses (the collared deviance)
``sizing``
    test-set sizes: Hoeffding, Bernstein, empirical Bernstein, exact binomial, normal
``split``
    the variational train/test split
``acceptance``
    acceptance testing against a required accuracy: exact and normal tests, margins, power, sizes
``sequential``
    anytime-valid evaluation: confidence sequences, label until sure, Wald's SPRT, peeking
``data``
    offline MNIST with checksums
``models``
    the MNIST model comparison, with a prediction cache
``kernels``
    libsvm's kernel matrices built with BLAS, kernel SVMs fitted on them
``estimate``
    result objects of the metric intervals
``rates``
    sensitivity, specificity, precision and other rates on their own denominators
``fscore``
    F1 and balanced accuracy, with intervals
``auc``
    the AUC: DeLong's variance, intervals, paired tests, sizes
``scores``
    proper scores (log loss, Brier) and reliability
``multinomial``
    simultaneous intervals for the class proportions of a confusion-matrix row
``bootstrap``
    the paired BCa bootstrap for any metric
``prediction_files``
    reading a predictions file (CSV or Parquet)
``evaluate``
    every metric of every model in a predictions file, with paired tests
``metric_coverage``
    coverage of the metric intervals by simulation
``digit_pool``
    coverage on the MNIST digits the book's subset leaves out
``clustered``
    clustered test items: clustered standard errors, ICC, design effect, cluster bootstrap
``cluster_sizing``
    clusters and items per cluster for a target precision or power
``repeated``
    repeated samples of a stochastic model: more questions or more samples
``strata``
    stratified estimates, mix bias, Neyman allocation
``qmnist``
    who wrote each MNIST digit (QMNIST writer and series labels)
``writer_leak``
    writer-disjoint splits of MNIST and what seeing a writer is worth
``lost``
    what can be said when the test set is lost
``cv``
    tests comparing two learners on per-fold scores
``cv_scores``
    paired per-fold scores of two learners
``cv_simulation``
    type I error and power of the cross-validation tests
``cv_interval``
    naive and nested cross-validation intervals for prediction error
``reuse``
    a holdout used too often: the Ladder, Thresholdout, the boosting attack, adaptive bounds
``ledger``
    the reproduction ledger: every claim of the five articles, checked (data in claims.toml)
``chapter``
    chapter plumbing: publishing numbers into the prose, formats, tables, figure style
``rerun``
    rerun a chapter with other values for its parameters cell
``config``
    the quick profile, seeds and the one seeding helper
``cli``
    the command line ``heldout``: one module per command (``heldout.cli.bound``, ...)

``import heldout`` is instant: each module is imported the first time it is used
(``heldout.bounds.exact_upper(38, 100)`` works after ``import heldout`` alone), so the
command line and a script that needs one calculator never pay for the others.

Examples
--------
>>> import heldout
>>> round(heldout.bounds.exact_upper(38, 100), 4)
0.4668
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]


def __getattr__(name: str):
    """Import the submodule ``heldout.<name>`` on first access (PEP 562)."""
    if name.startswith("_") or not name.isidentifier():
        raise AttributeError(f"module 'heldout' has no attribute {name!r}")
    import importlib
    import importlib.util

    if importlib.util.find_spec(f"{__name__}.{name}") is None:
        raise AttributeError(f"module 'heldout' has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{name}")
    globals()[name] = module
    return module


def __dir__() -> list[str]:
    import pkgutil

    names = {info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")}
    return sorted(set(globals()) | names)
