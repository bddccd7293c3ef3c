"""Every assessment of the course, in order: six problem sets, six quizzes, the exam.

Examples
--------
>>> [a.key for a in everything()][:3], len(everything())
(['ps1', 'ps2', 'ps3'], 13)
"""

from __future__ import annotations

from heldout.book.course.items import Assessment

__all__ = ["everything"]


def everything() -> tuple[Assessment, ...]:
    """The problem sets, the quizzes and the exam.

    Examples
    --------
    >>> sum(a.points for a in everything() if a.kind == "problem set")
    120
    """
    from heldout.book.course.exam import EXAM
    from heldout.book.course.problem_sets import PROBLEM_SETS
    from heldout.book.course.quizzes import QUIZZES

    return (*PROBLEM_SETS, *QUIZZES, EXAM)
