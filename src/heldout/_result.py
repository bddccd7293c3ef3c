"""Small frozen result objects that still unpack as tuples.

A public function that returns several things returns a subclass of
:class:`Result` (statsmodels' pattern): the values are attributes with names,
the object is immutable, prints readably, converts to a plain ``dict`` with
:meth:`Result.to_dict` (what the command line prints as JSON) and unpacks like
the tuple older code expected::

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Interval(Result):
    ...     low: float
    ...     high: float
    >>> ci = Interval(0.1, 0.3)
    >>> low, high = ci
    >>> ci.high, ci.to_dict()
    (0.3, {'low': 0.1, 'high': 0.3})

Fields whose ``metadata`` holds ``{"unpack": False}`` are kept out of the
tuple (extra information added later without breaking ``a, b = f(...)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

__all__ = ["EstimateResult", "Interval", "Result", "extra"]


def extra(default: Any = None, **kwargs):
    """A dataclass field that is a named attribute but not part of the tuple."""
    return field(default=default, metadata={"unpack": False}, **kwargs)


@dataclass(frozen=True)
class Result:
    """Base class of the package's result objects (frozen, named, unpackable)."""

    def _unpacked(self) -> tuple:
        return tuple(getattr(self, f.name) for f in fields(self) if f.metadata.get("unpack", True))

    def __iter__(self):
        return iter(self._unpacked())

    def __len__(self) -> int:
        return len(self._unpacked())

    def __getitem__(self, index):
        if isinstance(index, str):  # the dicts these objects replaced were read by key
            import warnings

            warnings.warn(
                f"{type(self).__name__}[{index!r}] is deprecated (results are objects, not "
                f"dicts): use .{index}",
                DeprecationWarning,
                stacklevel=2,
            )
            try:
                return getattr(self, index)
            except AttributeError:
                raise KeyError(index) from None
        return self._unpacked()[index]

    def to_dict(self) -> dict[str, Any]:
        """All fields (unpacked or not) as a ``dict`` of plain Python values."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def _plain(value):
    if isinstance(value, Result):
        return value.to_dict()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Interval(Result):
    """A two-sided interval ``(low, high)`` (unpacks as ``low, high``).

    >>> low, high = Interval(0.2, 0.4)
    >>> Interval(0.2, 0.4).width
    0.2
    """

    low: Any
    high: Any

    @property
    def width(self):
        """``high - low``."""
        return self.high - self.low


@dataclass(frozen=True)
class EstimateResult(Result):
    """An estimate with its interval: unpacks as ``(estimate, low, high)``; ``se`` is extra.

    The shared head of the result objects that report one estimated score, its
    interval and its standard error; subclasses add their own fields after these four.

    >>> r = EstimateResult(0.5, 0.4, 0.6, se=0.05)
    >>> tuple(r), r.se
    ((0.5, 0.4, 0.6), 0.05)
    """

    estimate: float
    low: float
    high: float
    se: float = extra()
