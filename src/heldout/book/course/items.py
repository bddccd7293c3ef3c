"""What a problem set, a quiz and an exam are made of: parts with points, answers and rubrics.

A :class:`Part` is one gradable piece.  A computational part carries a function that
computes its answer with ``heldout`` when the key is built (never a typed number), a
tolerance, and the common wrong answers (:class:`Mistake`), each computed too and paired
with the hint the checker prints.  A part graded by hand (Concept, Derivation) carries a
model answer instead.  Every part has a rubric: what earns full, partial and no credit.

The student edition shows ``Part.prompt`` only; the key shows the rest.

Examples
--------
>>> p = Part("a", "Computation", 2, "Compute 1 + 1.", answer=lambda: 2, digits=0,
...          full="2.", partial="-", none="-")
>>> p.checked, p.value()
(True, (2.0,))
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Assessment", "Mistake", "Part", "Problem"]

KINDS = ("Concept", "Derivation", "Computation", "Data", "Choice")


def _as_tuple(value) -> tuple[float, ...]:
    """An answer as a flat tuple of floats (a number, an interval, a pair of counts)."""
    flat = np.atleast_1d(np.asarray(value, dtype=float)).ravel()
    return tuple(float(v) for v in flat)


_MEMO: dict = {}


def _computed(func) -> tuple[float, ...]:
    """``func()`` as a flat tuple, computed once per process (answers are deterministic)."""
    if func not in _MEMO:
        _MEMO[func] = _as_tuple(func())
    return _MEMO[func]


@dataclass(frozen=True)
class Mistake:
    """A common wrong answer: its name, a function computing it, and the checker's hint.

    The hint is printed to a student whose answer matches this value; it says what went
    wrong, never what the answer is.

    Examples
    --------
    >>> Mistake("rule of three", lambda: 3 / 300, "An approximation.").values()
    (0.01,)
    """

    name: str
    value: Callable[[], object]
    hint: str

    def values(self) -> tuple[float, ...]:
        """The wrong answer, computed now, as a flat tuple."""
        return _computed(self.value)


def one_sided_hoeffding(tolerance: float, alpha: float, hint: str) -> Mistake:
    """The slip of sizing a two-sided tolerance by Hoeffding's one-sided size.

    The wrong answer is :math:`\\lceil \\ln(1/\alpha) / (2t^2) \rceil`, without the factor 2
    of the two-sided inequality; ``hint`` is the checker's words for it.

    >>> one_sided_hoeffding(0.05, 0.05, "Two-sided.").values()
    (600.0,)
    """
    return Mistake("one-sided", lambda: math.ceil(math.log(1 / alpha) / (2 * tolerance**2)), hint)


@dataclass(frozen=True)
class Part:
    """One gradable part: its prompt, points, answer (or model answer) and rubric.

    ``answer`` (a function, called when the key or a check needs it) makes the part
    computational: the checker accepts a value within half a unit of its last asked
    decimal (``digits`` decimals, so an answer rounded as asked passes; 0 for counts, which
    must match exactly).  ``choices`` makes it a multiple-choice part whose answer is the
    letter's index.

    Examples
    --------
    >>> part = Part("c", "Computation", 2, "Half of 0.5?", answer=lambda: 0.25, digits=2)
    >>> part.matches(0.249, part.value()), part.matches(0.26, part.value()), round(part.tolerance, 6)
    (True, False, 0.005)
    """

    label: str
    kind: str
    points: int
    prompt: str
    answer: Callable[[], object] | None = None
    model: str = ""
    full: str = ""
    partial: str = ""
    none: str = ""
    mistakes: tuple[Mistake, ...] = ()
    digits: int = 4
    choices: tuple[str, ...] = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind: {self.kind!r} is not one of {KINDS}")
        if self.points < 1:
            raise ValueError(f"points: a part is worth at least 1 point, not {self.points}")

    @property
    def checked(self) -> bool:
        """True when the checker can grade the part (it has a computed answer)."""
        return self.answer is not None

    def value(self) -> tuple[float, ...]:
        """The right answer, computed now, as a flat tuple of floats."""
        if self.answer is None:
            raise ValueError(f"part {self.label}: graded by hand, no computed answer")
        return _computed(self.answer)

    def matches(self, given, target: tuple[float, ...]) -> bool:
        """True when ``given`` equals ``target`` within the part's tolerance."""
        try:
            mine = _as_tuple(given)
        except (TypeError, ValueError, OverflowError):
            return False
        if len(mine) != len(target) or not all(np.isfinite(mine)):
            return False
        return all(abs(a - b) <= self.tolerance for a, b in zip(mine, target, strict=True))

    @property
    def tolerance(self) -> float:
        """Half a unit of the last decimal asked for (a little more, for rounding)."""
        return 0.5 * 10.0**-self.digits * (1 + 1e-6) if self.digits else 1e-9

    def shown(self, values: tuple[float, ...]) -> str:
        """The key's text for a computed value (``0.0123`` or ``[0.01, 0.03]``)."""
        if self.choices:
            return "(" + "abcdefgh"[int(values[0])] + ")"
        text = [f"{v:.{self.digits}f}" if self.digits else f"{int(round(v)):,d}" for v in values]
        return text[0] if len(text) == 1 else "[" + ", ".join(text) + "]"


@dataclass(frozen=True)
class Problem:
    """A numbered problem: a title, a setup shared by its parts, and the parts.

    Examples
    --------
    >>> Problem("Sizes", "", (Part("a", "Concept", 2, "Why?"), Part("b", "Concept", 1, "How?"))).points
    3
    """

    title: str
    setup: str
    parts: tuple[Part, ...]

    @property
    def points(self) -> int:
        return sum(p.points for p in self.parts)


@dataclass(frozen=True)
class Assessment:
    """A problem set, a quiz or an exam: its key (``ps1``), title, week and problems.

    Examples
    --------
    >>> a = Assessment("ps0", "Warm-up", "problem set", 0, (), "",
    ...                (Problem("One", "", (Part("a", "Concept", 2, "Why?"),)),))
    >>> a.points, list(a.parts())
    (2, ['1a'])
    """

    key: str
    title: str
    kind: str
    week: int | None
    reading: tuple[str, ...]
    intro: str
    problems: tuple[Problem, ...]
    minutes: int | None = None
    extra: dict = field(default_factory=dict)

    @property
    def points(self) -> int:
        return sum(p.points for p in self.problems)

    def parts(self) -> dict[str, Part]:
        """Every part by its address (``"2b"``: problem 2, part b)."""
        return {f"{i}{p.label}": p for i, prob in enumerate(self.problems, 1) for p in prob.parts}
