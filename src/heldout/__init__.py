"""heldout: how big must a test set be, and how sure is the score it gave?

The package behind the *heldout* book, in wings by question.  Each wing's ``__init__``
names its public functions and result classes (``from heldout.metrics import
auc_interval``); modules inside a wing are small and named for what they compute.

``heldout.accuracy``
    one error rate or accuracy from counts: ``bounds``, ``posterior``, ``sizing``,
    ``acceptance``, ``losses``, ``split`` (how to split), ``lost`` (a lost test set)
``heldout.comparison``
    several models on one test set: ``predictions``, ``paired``, ``multiple``,
    ``compare``, ``best``
``heldout.dependent``
    clustered, repeated and stratified items: ``clustered``, ``cluster_sizing``,
    ``repeated``, ``strata``
``heldout.sequential``
    label until sure: confidence sequences, sequential acceptance, the SPRT, peeking
``heldout.judged``
    scores graded by a model (an LLM judge) and corrected by a few gold labels: ``ppi``,
    ``misclassification``, ``judge_sizing``; benchmarks of language models with structure
``heldout.metrics``
    beyond accuracy, from a predictions file: ``rates``, ``fscore``, ``auc``, ``scores``,
    ``multinomial``, ``bootstrap``, ``regression``, ``estimate``, ``prediction_files``,
    ``evaluate``
``heldout.resampling``
    no fresh test set: ``cv``, ``cv_scores``, ``cv_interval``, ``cv_simulation``,
    ``reuse``
``heldout.book``
    what only the book runs (not a library wing): ``ledger`` and ``claims``, ``chapter``,
    ``rerun``, ``metric_coverage``, and ``heldout.book.mnist`` (``data``, ``qmnist``,
    ``models``, ``kernels``, ``mnist_costs``, ``schedule``, ``digit_pool``,
    ``writer_leak``)
``heldout.cli``
    the command line ``heldout``: one module per command
``heldout.config``, private ``_checks``, ``_inputs``, ``_result``, ``_beta``, ``_saddle``, ...
    the core every wing builds on: input checks, result objects, guarded numerics, seeds

Imports point one way: the core imports nothing above it; ``accuracy`` only the core;
``comparison``, ``dependent`` and ``sequential`` the core and ``accuracy``; ``judged``
those, and only the book and the command line import it; ``metrics``
and ``resampling`` the wings below them; no library wing imports ``heldout.book``.
``import heldout`` and ``import heldout.<wing>`` are instant: each module is imported the
first time it is used.  The flat paths of version 0.1 (``heldout.bounds``,
``heldout.auc``, ...) still import, with a ``DeprecationWarning`` naming the new path.

Examples
--------
>>> import heldout
>>> from heldout.accuracy import exact_upper
>>> round(exact_upper(38, 100), 4)
0.4668
"""

from __future__ import annotations

from heldout import _legacy

__version__ = "0.2.0"

__all__ = ["__version__"]

_legacy.install()


def __getattr__(name: str):
    """Import the subpackage or module ``heldout.<name>`` on first access (PEP 562)."""
    if name.startswith("_") or not name.isidentifier():
        raise AttributeError(f"module 'heldout' has no attribute {name!r}")
    import importlib
    import importlib.util

    if name not in _legacy.MOVED and importlib.util.find_spec(f"{__name__}.{name}") is None:
        raise AttributeError(f"module 'heldout' has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{name}")
    if name not in _legacy.MOVED:
        globals()[name] = module
    return module


def __dir__() -> list[str]:
    import pkgutil

    names = {info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")}
    return sorted(set(globals()) | names)
