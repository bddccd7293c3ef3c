"""Lazy public faces for the wings: a name is imported from its module when first used.

Each wing's ``__init__`` holds only its docstring and ``WHERE`` (public name -> the
module of the wing that defines it), then ``__all__, __getattr__, __dir__ =
face(__name__, WHERE)``: every public function and result class of the wing is
importable from the wing, and ``import heldout.<wing>`` costs nothing.
:func:`attach` returns the ``__getattr__`` and ``__dir__`` of a wing's ``__init__``
(PEP 562), so that ``from heldout.metrics import auc_interval`` imports only
``heldout.metrics.auc`` and ``import heldout.metrics`` imports nothing at all.

Examples
--------
>>> getattr_, dir_ = attach("heldout.accuracy", {"exact_upper": "bounds"})
>>> round(getattr_("exact_upper")(38, 100), 4)
0.4668
>>> "bounds" in dir_()
True
>>> import heldout.accuracy as w
>>> callable(w.exact_upper), "exact_upper" in w.__all__
(True, True)
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping

__all__ = ["attach", "face"]


def attach(package: str, where: Mapping[str, str]) -> tuple[Callable, Callable]:
    """Build PEP 562 ``__getattr__``/``__dir__`` for ``package`` from ``{name: module}``."""

    def __getattr__(name: str):
        if name in where:
            module = importlib.import_module(f"{package}.{where[name]}")
            value = getattr(module, name)
        elif not name.startswith("__") and importlib.util.find_spec(f"{package}.{name}"):
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        import pkgutil

        spec = importlib.util.find_spec(package)
        subs = {
            info.name
            for info in pkgutil.iter_modules(spec.submodule_search_locations)
            if not info.name.startswith("_")
        }
        return sorted(set(vars(sys.modules[package])) | set(where) | subs)

    return __getattr__, __dir__


def face(package: str, where: Mapping[str, str]) -> tuple[list[str], Callable, Callable]:
    """The ``__all__``, ``__getattr__`` and ``__dir__`` of a wing from its ``WHERE``.

    Examples
    --------
    >>> names, getattr_, dir_ = face("heldout.accuracy", {"exact_upper": "bounds"})
    >>> names
    ['exact_upper']
    """
    return sorted(where), *attach(package, where)
