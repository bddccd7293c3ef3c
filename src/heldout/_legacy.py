"""The flat module paths of heldout 0.1, kept working with a ``DeprecationWarning``.

Version 0.1 had every module side by side (``heldout.bounds``, ``heldout.auc``, ...).
They now live in wings by question (``heldout.accuracy.bounds``,
``heldout.metrics.auc``, ...).  :data:`MOVED` maps each old name to its wing, and
:class:`LegacyFinder` (installed by ``import heldout``) answers an import of an old path
with the module at its new one, after one ``DeprecationWarning`` naming the new path.
``heldout.compare`` also still offers the best-model names it re-exported in 0.1.

Examples
--------
>>> import sys, warnings
>>> _ = sys.modules.pop("heldout.bounds", None)  # as in a fresh interpreter
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     from heldout.bounds import exact_upper
>>> str(caught[0].message)
'heldout.bounds is deprecated: import heldout.accuracy.bounds'
>>> round(exact_upper(38, 100), 4)
0.4668
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
import warnings

__all__ = ["MOVED", "LegacyFinder", "new_name"]

#: Old module name (``heldout.<old>``) -> the wing that holds it now.
MOVED = {
    "bounds": "accuracy",
    "posterior": "accuracy",
    "sizing": "accuracy",
    "acceptance": "accuracy",
    "losses": "accuracy",
    "split": "accuracy",
    "lost": "accuracy",
    "predictions": "comparison",
    "paired": "comparison",
    "multiple": "comparison",
    "compare": "comparison",
    "best": "comparison",
    "_beta_compare": "comparison",
    "clustered": "dependent",
    "strata": "dependent",
    "cluster_sizing": "dependent",
    "repeated": "dependent",
    "estimate": "metrics",
    "rates": "metrics",
    "fscore": "metrics",
    "auc": "metrics",
    "scores": "metrics",
    "multinomial": "metrics",
    "bootstrap": "metrics",
    "regression": "metrics",
    "evaluate": "metrics",
    "prediction_files": "metrics",
    "cv": "resampling",
    "cv_scores": "resampling",
    "cv_interval": "resampling",
    "cv_simulation": "resampling",
    "reuse": "resampling",
    "ledger": "book",
    "chapter": "book",
    "rerun": "book",
    "metric_coverage": "book",
    "data": "book.mnist",
    "qmnist": "book.mnist",
    "models": "book.mnist",
    "kernels": "book.mnist",
    "mnist_costs": "book.mnist",
    "schedule": "book.mnist",
    "digit_pool": "book.mnist",
    "writer_leak": "book.mnist",
}

#: Names an old module offered that now live in another module of its wing.
_EXTRA = {"compare": "best"}


def new_name(old: str) -> str:
    """The new dotted path of an old module name (``"bounds"`` or ``"heldout.bounds"``).

    Examples
    --------
    >>> new_name("heldout.auc")
    'heldout.metrics.auc'
    """
    short = old.removeprefix("heldout.")
    if short not in MOVED:
        raise ValueError(f"old must name a module of heldout 0.1, got {old!r}")
    return f"heldout.{MOVED[short]}.{short}"


def _warn(old: str, new: str) -> None:
    warnings.warn(f"{old} is deprecated: import {new}", DeprecationWarning, stacklevel=3)


class _Loader:
    """Loads an old path as the module at its new one (a plain class: importlib.abc is slow to import)."""

    def create_module(self, spec):
        short = spec.name.removeprefix("heldout.")
        new = new_name(short)
        module = importlib.import_module(new)
        _warn(spec.name, new)
        self.original = module.__spec__
        if short in _EXTRA:
            extra = importlib.import_module(f"heldout.{MOVED[short]}.{_EXTRA[short]}")
            proxy = types.ModuleType(spec.name, module.__doc__)
            proxy.__dict__.update({k: v for k, v in vars(extra).items() if not k.startswith("__")})
            proxy.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
            self.original = None
            return proxy
        return module

    def exec_module(self, module):
        """Nothing to run: the module was imported at its new path (whose spec it keeps)."""
        original = getattr(self, "original", None)
        if original is not None:
            module.__spec__ = original


class LegacyFinder:
    """Find ``heldout.<old>`` for every old name in :data:`MOVED`."""

    def find_spec(self, fullname, path=None, target=None):
        head, _, short = fullname.rpartition(".")
        if head != "heldout" or short not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader())


def install() -> None:
    """Put one :class:`LegacyFinder` on ``sys.meta_path`` (idempotent)."""
    if not any(isinstance(f, LegacyFinder) for f in sys.meta_path):
        sys.meta_path.append(LegacyFinder())
