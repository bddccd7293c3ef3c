"""Old names kept working, with a ``DeprecationWarning``: keywords, positions and functions.

The package speaks one vocabulary (``k`` of ``n``, ``alpha``, ``method=``, ``prior=``,
``seed=``, ``reps=``; see DEVELOPING.md).  Names used before it was unified still work
for a while, through two helpers:

``renamed(**old)``
    A decorator.  ``old`` maps each old keyword to its new name, or to a pair
    ``(new_name, convert)`` when the value changes too (``level=0.95`` becomes
    ``alpha=0.05``).  ``positional=(...)`` names, in the old order, the parameters
    that used to be positional after the ones still positional, so that an old call
    ``interval(38, 100, 0.95)`` (whose third argument was the level) is read as the
    level, with a warning, rather than silently as ``alpha``.

``alias(func, old_name)``
    A deprecated second name of a renamed function (``acceptance.normal_size`` ->
    ``acceptance.normal_margin_size``); it warns and calls ``func`` (whose own
    renamed keywords still apply).

Both warn with ``DeprecationWarning`` pointing at the caller's line, and both mark the
wrapper (``__heldout_deprecated__``) so that lists of the public surface skip aliases.
Giving an old and a new name together raises ``ValueError``.

Examples
--------
>>> import warnings
>>> @renamed(delta="alpha", level=("alpha", level_to_alpha), positional=("level",))
... def bound(k, n, *, alpha=0.05):
...     return alpha
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     print(round(bound(1, 2, level=0.9), 3), bound(1, 2, delta=0.01), round(bound(1, 2, 0.99), 3))
0.1 0.01 0.01
>>> sorted({str(w.message).split(";")[0] for w in caught})
["bound(): the keyword 'delta' is deprecated", "bound(): the keyword 'level' is deprecated", 'bound(): the third positional argument (level) is deprecated']
"""

from __future__ import annotations

import functools
import importlib
import inspect
import warnings
from collections.abc import Callable

__all__ = ["alias", "level_to_alpha", "renamed"]

_ORDINAL = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def level_to_alpha(level):
    """Convert an old ``level`` (confidence ``1 - alpha``) into ``alpha``, checking it.

    >>> round(level_to_alpha(0.95), 10)
    0.05
    """
    from heldout._checks import as_probability, scalar_or_array

    return scalar_or_array(1.0 - as_probability(level, "level"))


def _warn(message: str) -> None:
    # stacklevel 3: the caller of the wrapper, not the wrapper itself
    warnings.warn(message, DeprecationWarning, stacklevel=3)


def renamed(*, positional: tuple[str, ...] = (), **old: str | tuple[str, Callable]):
    """Decorator: accept old keyword names (and old positional slots) with a warning."""

    def decorate(func):
        params = inspect.signature(func).parameters.values()
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        n_positional = sum(p.kind in kinds for p in params)
        accepts_varargs = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
        name = func.__name__
        table = {
            key: (spec, None) if isinstance(spec, str) else (spec[0], spec[1])
            for key, spec in old.items()
        }

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if positional and not accepts_varargs and len(args) > n_positional:
                extra = args[n_positional:]
                if len(extra) > len(positional):
                    raise ValueError(
                        f"{name}() takes at most {n_positional + len(positional)} positional "
                        f"arguments, got {len(args)}"
                    )
                args = args[:n_positional]
                for index, (old_name, value) in enumerate(zip(positional, extra, strict=False)):
                    new_name, convert = table.get(old_name, (old_name, None))
                    if old_name in kwargs or new_name in kwargs:
                        raise ValueError(f"{name}() got {old_name} twice (by position and by name)")
                    _warn(
                        f"{name}(): the {_ORDINAL[n_positional + index]} positional argument "
                        f"({old_name}) is deprecated; pass {new_name}= by name"
                    )
                    kwargs[new_name] = convert(value) if convert is not None else value
            for old_name, (new_name, convert) in table.items():
                if old_name not in kwargs:
                    continue
                if new_name in kwargs:
                    raise ValueError(
                        f"{name}() got both {old_name} (deprecated) and {new_name}; "
                        f"pass {new_name} only"
                    )
                value = kwargs.pop(old_name)
                hint = " (alpha = 1 - level)" if (old_name, new_name) == ("level", "alpha") else ""
                _warn(f"{name}(): the keyword {old_name!r} is deprecated; use {new_name!r}{hint}")
                kwargs[new_name] = convert(value) if convert is not None else value
            return func(*args, **kwargs)

        wrapper.__heldout_renamed__ = dict(table)
        wrapper.__heldout_positional__ = tuple(positional)
        return wrapper

    return decorate


def alias(func: Callable, old_name: str) -> Callable:
    """A deprecated second name ``old_name`` of ``func`` (warns, then calls ``func``)."""
    module = func.__module__

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _warn(f"{module}.{old_name} is deprecated; use {module}.{func.__name__}")
        return func(*args, **kwargs)

    wrapper.__name__ = old_name
    wrapper.__qualname__ = old_name
    wrapper.__doc__ = f"Deprecated name of :func:`{func.__name__}` (same arguments and result)."
    wrapper.__heldout_deprecated__ = func.__name__
    return wrapper


def moved(module: str, names: tuple[str, ...], new_module: str) -> Callable[[str], object]:
    """A module ``__getattr__`` that serves ``names``, now in ``new_module``, with a warning.

    A module split by role keeps its old imports working:
    ``__getattr__ = moved(__name__, ("auc_size",), "heldout.metrics.auc_sizing")``.
    The new module is imported when an old name is first asked for, so the two
    modules do not import each other at load time.
    """

    def __getattr__(name: str):
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(
            f"{module}.{name} is deprecated: import {new_module}.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(new_module), name)

    return __getattr__
