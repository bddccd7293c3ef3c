"""Checks a student runs before handing in, and the instructor runs to grade.

The checker is a small ``heldout``-side one (not otter-grader or nbgrader): a student
keeps the answers of a problem set in a dict keyed by part (``{"1c": 0.0119, "2a":
[0.0125, 0.0415]}``), in the notebook, and calls :func:`check`; or writes them to a JSON
file and runs ``heldout check ps1 answers.json``.  For each computational part it says
*right* or *wrong*, and for a wrong value that matches a known common mistake it prints
that mistake's hint from the rubric.  It never prints a right answer nor a mistake's
value: only part labels, points, the words right/wrong/missing and the hints.

An answer is right when every number is within half a unit of the last decimal the part
asks for (counts must match exactly).  Parts graded by hand (Concept, Derivation) are
listed as such, with their points, so the instructor's summary shows what is left to grade.

Examples
--------
>>> report = check("ps1", {"3a": 1876})
>>> print(report.lines()[7])
3a  wrong    0/2  That is the number of correct predictions, not of errors.
>>> report.points, report.checked_points
(0, 14)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from heldout._result import Result
from heldout.book.course.items import Assessment

__all__ = ["CheckReport", "PartCheck", "assessment", "check", "load_answers"]


def assessment(name: str) -> Assessment:
    """The problem set, quiz or exam called ``name`` (``ps1``-``ps6``, ``quiz1``-``quiz6``, ``exam``).

    Examples
    --------
    >>> assessment("ps2").title, assessment("exam").minutes
    ('How big a test set?', 90)
    """
    from heldout.book.course.catalogue import everything

    table = {a.key: a for a in everything()}
    if name not in table:
        raise ValueError(f"assessment: {name!r} is not one of {', '.join(table)}")
    return table[name]


@dataclass(frozen=True)
class PartCheck(Result):
    """The verdict on one part: its address, status, points earned and allowed, message."""

    part: str
    status: str
    earned: int
    points: int
    message: str


@dataclass(frozen=True)
class CheckReport(Result):
    """Every part's verdict for one assessment, with the points the checker could award."""

    assessment: str
    parts: tuple[PartCheck, ...]

    @property
    def points(self) -> int:
        """Points earned on the parts the checker grades."""
        return sum(p.earned for p in self.parts)

    @property
    def checked_points(self) -> int:
        """Points of the parts the checker grades."""
        return sum(p.points for p in self.parts if p.status != "by hand")

    @property
    def passed(self) -> bool:
        """True when every checked part is right."""
        return all(p.status in ("right", "by hand") for p in self.parts)

    def lines(self) -> list[str]:
        """The report as text lines (what the command line prints)."""
        out = [
            f"{self.assessment}: {self.points}/{self.checked_points} points on the checked parts"
        ]
        out.append("(parts graded by hand are listed with their points)")
        for p in self.parts:
            shown = f"{p.earned}/{p.points}" if p.status != "by hand" else f"-/{p.points}"
            out.append(f"{p.part:<3} {p.status:<8} {shown:<4} {p.message}".rstrip())
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


def check(name: str, answers: dict) -> CheckReport:
    """Check a student's answers to assessment ``name`` without revealing any answer.

    Parameters
    ----------
    name : str
        ``ps1`` to ``ps6``, ``quiz1`` to ``quiz6`` or ``exam``.
    answers : dict
        Part address (``"2a"``) to a number or a list of numbers (an interval as
        ``[low, high]``; a multiple-choice answer as its letter).  Missing parts are
        reported as missing.

    Returns
    -------
    CheckReport
        One :class:`PartCheck` per part, ``points``, ``checked_points``, ``passed``.

    Examples
    --------
    >>> report = check("quiz1", {"2": "b", "4": "a", "5": "c"})
    >>> [p.status for p in report.parts], report.points
    (['missing', 'right', 'missing', 'right', 'right'], 3)
    """
    book = assessment(name)
    if not isinstance(answers, dict):
        raise ValueError("answers: expected a dict of part -> value, such as {'1c': 0.0119}")
    known = book.parts()
    unknown = sorted(set(map(str, answers)) - set(known))
    if unknown:
        raise ValueError(
            f"answers: no part {', '.join(unknown)} in {name} (parts: {', '.join(known)})"
        )
    verdicts = []
    for address, part in known.items():
        if not part.checked:
            verdicts.append(
                PartCheck(address, "by hand", 0, part.points, f"{part.kind}: graded by hand")
            )
            continue
        if address not in answers:
            verdicts.append(PartCheck(address, "missing", 0, part.points, ""))
            continue
        given = answers[address]
        if part.choices and isinstance(given, str):
            letter = given.strip().lower().strip("()")
            given = "abcdefgh".index(letter) if len(letter) == 1 and letter in "abcdefgh" else -1
        target = part.value()
        if part.matches(given, target):
            verdicts.append(PartCheck(address, "right", part.points, part.points, ""))
            continue
        hint = next(
            (m.hint for m in part.mistakes if part.matches(given, m.values())),
            f"expected {_shape(target, part)}" if not _same_shape(given, target) else "",
        )
        verdicts.append(PartCheck(address, "wrong", 0, part.points, hint))
    return CheckReport(name, tuple(verdicts))


def _same_shape(given, target) -> bool:
    try:
        import numpy as np

        return np.atleast_1d(np.asarray(given, dtype=float)).size == len(target)
    except (TypeError, ValueError, OverflowError):
        return False


def _shape(target, part) -> str:
    if part.choices:
        return "one letter"
    return "one number" if len(target) == 1 else f"a list of {len(target)} numbers"


def load_answers(path) -> dict:
    """Read a JSON file of answers (an object of part -> value).

    Examples
    --------
    >>> import json, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "answers.json")
    >>> _ = open(path, "w").write(json.dumps({"1c": 0.0119}))
    >>> load_answers(path)
    {'1c': 0.0119}
    """
    path = Path(path)
    try:
        answers = json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"answers: no file {path.name!r}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"answers: cannot read {path.name!r} ({type(err).__name__})") from None
    except json.JSONDecodeError as err:
        raise ValueError(
            f"answers: {path.name!r} is not JSON ({err.msg}, line {err.lineno})"
        ) from None
    if not isinstance(answers, dict):
        raise ValueError(f"answers: {path.name!r} must hold one JSON object of part -> value")
    return answers
