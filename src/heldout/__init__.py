"""heldout: how big must a test set be, and how sure is the score it gave?

The package behind the *heldout* book.  Each module computes one thing:

``bounds``      binomial tail, exact test set bound and its relaxations, intervals
``sizing``      test-set sizes from Hoeffding's inequality and tighter alternatives
``losses``      bounded losses (the collared deviance)
``split``       the variational train/test split
``posterior``   Beta posterior of an accuracy
``compare``     comparing models scored on one test set
``acceptance``  acceptance testing against a required accuracy
``lost``        what can be said when the test set is lost
``regression``  standard errors and intervals of mean-type regression metrics (MSE)
``ledger``      the reproduction ledger: every number of the five articles, checked
``data``        offline MNIST loading with checksums (needs the ``mnist`` extra)
``models``      the MNIST model zoo with a prediction cache (needs the ``mnist`` extra)
``kernels``     libsvm's RBF and polynomial kernel matrices built with BLAS
``config``      the quick profile and seeds used by the book
``rerun``       rerun a chapter with other values for its ``parameters`` cell

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
