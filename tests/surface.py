"""The public surface of the package, listed from the code itself (used by several tests).

A *public callable* is a function or class that a module defines and exports: the names in
its ``__all__`` or, without ``__all__``, every name not starting with ``_`` that the module
itself defines.  Re-exports (a name defined in another module) are listed once, in their own
module; deprecated aliases (made by :func:`heldout._deprecate.alias`) are not listed.
Result types (subclasses of :class:`heldout._result.Result`) and exceptions are data, not
behaviour: they are listed separately.

Modules owned by other branches while this one was written are listed in ``ELSEWHERE``
with the reason; their entries are checked once they are merged (delete the entry).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import heldout
from heldout._result import Result

#: Modules whose public functions are not (yet) held to the rules tested here, and why.
ELSEWHERE = {
    "heldout.book.ledger": "owned by the integration branch (finish): the reproduction ledger",
    "heldout.book.claims": "the reproduction ledger's data file (split out of heldout.book.ledger)",
    "heldout.book.ledger_checks": "the reproduction ledger's checks (split out of heldout.book.ledger)",
    "heldout.book.mnist.models": "owned by the scheduling branch (sched): the MNIST model zoo",
    "heldout.book.mnist.kernels": "owned by the scheduling branch (sched): kernel matrices",
    "heldout.book.mnist.mnist_costs": "owned by the scheduling branch (sched)",
}


def module_names() -> list[str]:
    """Every importable public module of the package (no part starting with ``_``)."""
    names = ["heldout"]
    for info in pkgutil.walk_packages(heldout.__path__, "heldout."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            names.append(info.name)
    return sorted(names)


def _exported(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    return list(names)


def _is_result(obj) -> bool:
    return inspect.isclass(obj) and (issubclass(obj, Result) or issubclass(obj, BaseException))


def _exports(include_elsewhere: bool):
    """``(module name, attribute, object)`` for every name each module exports."""
    for name in module_names():
        if not include_elsewhere and name in ELSEWHERE:
            continue
        module = importlib.import_module(name)
        for attr in _exported(module):
            yield name, attr, getattr(module, attr, None)


def public(*, include_elsewhere: bool = False) -> dict[str, object]:
    """``{"module.name": object}`` for every public callable (functions and classes)."""
    out = {}
    for name, attr, obj in _exports(include_elsewhere):
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if getattr(obj, "__module__", None) != name:
            continue  # a re-export or an imported helper: listed in its own module
        if hasattr(obj, "__heldout_deprecated__") or _is_result(obj):
            continue
        out[f"{name}.{attr}"] = obj
    return out


def results(*, include_elsewhere: bool = False) -> dict[str, type]:
    """``{"module.Name": class}`` for every result type and exception the package exports."""
    return {
        f"{name}.{attr}": obj
        for name, attr, obj in _exports(include_elsewhere)
        if _is_result(obj) and obj.__module__ == name
    }
