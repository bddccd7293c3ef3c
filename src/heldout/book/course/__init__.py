"""The course's assessment layer: problem sets, quizzes, a sample exam, keys and checks.

``problem_sets``, ``quizzes`` and ``exam`` hold the assessments as data (parts with
points, answers computed by ``heldout``, rubrics and common wrong answers, see ``items``);
``check`` grades a student's answers without revealing them; ``render`` writes the student
pages and the instructor's edition; ``slides`` builds a Beamer deck for every lesson.

Examples
--------
>>> import heldout.book.course as w
>>> callable(w.check)
True
"""

from __future__ import annotations

from heldout._lazy import attach

#: Public name -> the module of this wing that defines it.
WHERE = {
    "Assessment": "items",
    "CheckReport": "grading",
    "DeckCheck": "slides",
    "build_deck": "slides",
    "check_deck": "slides",
    "lesson_names": "slides",
    "tex_text": "slides",
    "Mistake": "items",
    "Part": "items",
    "PartCheck": "grading",
    "Problem": "items",
    "assessment": "grading",
    "check": "grading",
    "everything": "catalogue",
    "examples_dir": "data",
    "key_page": "render",
    "load_answers": "grading",
    "student_page": "render",
    "write_instructor": "render",
    "write_student": "render",
}

__all__ = sorted(WHERE)
__getattr__, __dir__ = attach(__name__, WHERE)
