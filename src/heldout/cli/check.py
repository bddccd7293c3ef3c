"""``heldout check``: check a student's answers to a problem set or quiz, revealing none."""

from __future__ import annotations

from heldout.cli import calculator

_EPILOG = """\
ANSWERS is a JSON file holding one object, part -> value, for example
{"1c": 0.0119, "2a": [0.0125, 0.0415], "3a": 124}.  Each computational part is
reported right or wrong (with the rubric's hint when a wrong value is a known
common mistake); no answer is ever printed.  Concept and Derivation parts are
listed with their points, to be graded by hand.

example: heldout check ps1 answers.json
"""


def _run(args) -> dict:
    from heldout.book.course.grading import check, load_answers

    report = check(args.assessment, load_answers(args.answers))
    if not args.json:
        print(report)
        return {"passed": report.passed}
    return {
        "assessment": report.assessment,
        "points": report.points,
        "checked_points": report.checked_points,
        "passed": report.passed,
        "parts": [p.to_dict() for p in report.parts],
    }


def register(top, size) -> None:
    p = calculator(
        top,
        "check",
        help="check answers to a problem set or quiz (right or wrong, never the answer)",
        func=_run,
        epilog=_EPILOG,
    )
    p.add_argument("assessment", metavar="NAME", help="ps1 to ps6, quiz1 to quiz6, or exam")
    p.add_argument("answers", metavar="ANSWERS", help="JSON file of part -> value")
