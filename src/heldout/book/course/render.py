"""Pages of the course: student problem sets and quizzes, and the instructor's edition.

* :func:`student_page` writes an assessment as a MyST page without any answer, model
  answer, rubric or hint.  ``python -m heldout.book.course.render --student book/course``
  writes them into the book (committed, like the API page; a test keeps them up to date).
* :func:`key_page` writes the instructor's key: each part's answer computed now by
  ``heldout``, the model answer, the rubric (full, partial, no credit) and the common wrong
  answers with their values and the checker's hint.  :func:`write_instructor` writes the
  keys, the exam and a grading page into a folder of its own with its own Jupyter Book
  configuration, so the instructor's edition is built apart from the book
  (``make instructor``) and the student edition never contains it.

Examples
--------
>>> from heldout.book.course.problem_sets import PS1
>>> "Full credit" in student_page(PS1), "Full credit" in key_page(PS1)
(False, True)
"""

from __future__ import annotations

import argparse
from pathlib import Path

from heldout.book.course.items import Assessment, Part

__all__ = ["key_page", "student_page", "write_instructor", "write_student"]

LETTERS = "abcdefgh"


def _title(a: Assessment) -> str:
    if a.kind == "problem set":
        return f"Problem set {a.week}: {a.title}"
    return a.title


def _reading(a: Assessment, prefix: str) -> str:
    if not a.reading:
        return ""
    docs = ", ".join(f"{{doc}}`{prefix}notebooks/{r}`" for r in a.reading)
    return f"Reading: {docs}."


def _format(part: Part) -> str:
    if not part.checked or part.choices:
        return ""
    if part.digits == 0:
        return " *(Answer: a whole number"
    return f" *(Answer: {part.digits} decimals"


def _ask(part: Part, address: str) -> str:
    """The student's prompt of one part, with its points and the form of its answer."""
    head = f"**({address})** *{part.kind}, {part.points} point{'s' * (part.points > 1)}.*"
    text = f"{head} {part.prompt}"
    form = _format(part)
    if form:
        text += form + ".)*"
    if part.choices:
        text += "\n\n" + "\n".join(f"- ({LETTERS[i]}) {c}" for i, c in enumerate(part.choices))
    return text


def _parts(a: Assessment):
    for i, prob in enumerate(a.problems, 1):
        yield i, prob, [(f"{i}{p.label}", p) for p in prob.parts]


def student_page(a: Assessment, prefix: str = "../../") -> str:
    """The student's page: statements, points and how to check; no answer of any kind.

    Examples
    --------
    >>> from heldout.book.course.problem_sets import PS1
    >>> student_page(PS1).splitlines()[0]
    '# Problem set 1: How sure is one score?'
    """
    lines = [f"# {_title(a)}", ""]
    meta = []
    if a.week:
        meta.append(f"Week {a.week} of the six-week plan ({{doc}}`{prefix}book/teaching`).")
    if a.minutes:
        meta.append(f"{a.minutes} minutes.")
    meta.append(f"{a.points} points.")
    reading = _reading(a, prefix)
    if reading:
        meta.append(reading)
    lines += [" ".join(meta), "", a.intro, ""]
    if a.kind != "exam" and any(p.checked for _, _, parts in _parts(a) for _, p in parts):
        lines += [
            "Check your computational answers before handing them in. Keep them in a dict in "
            "your notebook, one entry per part (an interval as `[low, high]`, a choice as its "
            "letter), and run",
            "",
            "```python",
            "from heldout.book.course import check",
            f'print(check("{a.key}", answers))',
            "```",
            "",
            f"or save them as JSON and run `heldout check {a.key} answers.json`. The check says "
            "right or wrong for each part, with a hint for some wrong answers; it never shows "
            "an answer. Parts marked Concept or Derivation are graded by hand.",
            "",
        ]
    for i, prob, parts in _parts(a):
        if a.kind == "quiz":
            lines += [f"**{i}. {prob.title}.** " + _ask(parts[0][1], str(i)).split(".* ", 1)[1], ""]
            continue
        lines += [f"## Problem {i}: {prob.title} ({prob.points} points)", ""]
        if prob.setup:
            lines += [prob.setup, ""]
        for address, part in parts:
            lines += [_ask(part, address), ""]
    return "\n".join(lines).rstrip() + "\n"


def _answer_text(part: Part) -> str:
    if part.checked:
        return f"**Answer: {part.shown(part.value())}.** {part.model}".rstrip()
    return f"**Model answer.** {part.model}".rstrip()


def key_page(a: Assessment, prefix: str = "") -> str:
    """The instructor's key: answers computed now, model answers, rubrics, common mistakes.

    Examples
    --------
    >>> from heldout.book.course.quizzes import QUIZZES
    >>> "**Answer: (b).**" in key_page(QUIZZES[0])
    True
    """
    lines = [f"# Key: {_title(a)}", "", f"{a.points} points.", ""]
    for i, prob, parts in _parts(a):
        lines += [f"## Problem {i}: {prob.title} ({prob.points} points)", ""]
        if prob.setup:
            lines += [prob.setup, ""]
        for address, part in parts:
            lines += [_ask(part, address), "", _answer_text(part), ""]
            rubric = [
                f"- Full credit ({part.points}): {part.full}",
                f"- Partial credit: {part.partial}",
                f"- No credit: {part.none}",
            ]
            lines += rubric + [""]
            if part.mistakes:
                lines += [
                    "| common wrong answer | its value | the checker's hint |",
                    "|---|---|---|",
                ]
                for m in part.mistakes:
                    lines.append(f"| {m.name} | {part.shown(m.values())} | {m.hint} |")
                lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _exam_paper(a: Assessment) -> str:
    page = student_page(a, prefix="")
    return page


def grading_page(assessments) -> str:
    """How to grade with the checker, and the points of every assessment."""
    rows = "\n".join(
        f"| {a.key} | {_title(a)} | {a.points} | "
        f"{sum(p.points for p in a.parts().values() if p.checked)} |"
        for a in assessments
    )
    return f"""# Grading

Run the students' checks yourself: collect each student's answers (a JSON file per student,
or the dict from their notebook) and run `heldout check ps1 answers.json` (`--json` for a
machine-readable summary). The points it prints are those of the computational parts;
Concept and Derivation parts are listed with their points, to grade by hand with the
rubrics of the keys.

| key | assessment | points | checked automatically |
|---|---|---|---|
{rows}
"""


#: Which problems of the six weekly sets the three-week plan assigns, week by week.
THREE_WEEKS = (
    ("ps1", "ps2 problem 1"),
    ("ps2 problems 2-3", "ps3"),
    ("ps4 problem 1", "ps5 problem 2", "ps6 problem 3"),
)


def index_page(assessments) -> str:
    """The student index: each week's reading, problem set, quiz and slides."""
    sets = {a.week: a for a in assessments if a.kind == "problem set"}
    quizzes = {a.week: a for a in assessments if a.kind == "quiz"}
    rows = []
    for week in sorted(sets):
        ps, quiz = sets[week], quizzes.get(week)
        reading = ", ".join(f"{{doc}}`../../notebooks/{r}`" for r in ps.reading)
        slides = ", ".join(f"`{r}.pdf`" for r in ps.reading)
        quiz_link = f"{{doc}}`{quiz.key}`" if quiz else "-"
        rows.append(f"| {week} | {reading} | {{doc}}`{ps.key}` | {quiz_link} | {slides} |")
    three = "\n".join(f"- week {i}: {', '.join(w)}" for i, w in enumerate(THREE_WEEKS, 1))
    return f"""# Problem sets and quizzes

One problem set (20 points: concept, derivation, computation and a data problem) and one
five-question quiz for each week of the six-week plan of {{doc}}`../teaching`. The problems
are new, not the lessons' exercises; the data problems use the files of the repository's
`examples/` folder (`heldout.book.course.data` reads them).

| Week | Reading | Problem set | Quiz | Slides (`make slides`, in `_build/slides/`) |
|---|---|---|---|---|
{chr(10).join(rows)}

The three-week plan takes these problems:

{three}

**Checking your answers.** Each page says how: keep your answers in a dict, one entry per
part, and run `check("ps1", answers)` from `heldout.book.course`, or `heldout check ps1
answers.json` on a JSON file. The check says right or wrong for each computational part and
never shows an answer.
"""


def write_student(folder, assessments=None) -> list[Path]:
    """Write the student pages (problem sets and quizzes, never the exam).

    Examples
    --------
    >>> import tempfile
    >>> sorted(p.name for p in write_student(tempfile.mkdtemp()))[:3]
    ['index.md', 'ps1.md', 'ps2.md']
    """
    from heldout.book.course.catalogue import everything

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    chosen = [a for a in (assessments or everything()) if a.kind != "exam"]
    (folder / "index.md").write_text(index_page(chosen))
    written = [folder / "index.md"]
    for a in chosen:
        path = folder / f"{a.key}.md"
        path.write_text(student_page(a))
        written.append(path)
    return written


def write_instructor(folder, assessments=None) -> list[Path]:
    """Write the instructor's edition (keys, exam, its key, grading) as its own Jupyter Book.

    Examples
    --------
    >>> import tempfile
    >>> [p.name for p in write_instructor(tempfile.mkdtemp())][:3]
    ['grading.md', 'ps1_key.md', 'ps2_key.md']
    """
    from heldout.book.course.catalogue import everything

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    chosen = list(assessments or everything())
    pages = {"grading": grading_page(chosen)}
    for a in chosen:
        if a.kind == "exam":
            pages["exam"] = _exam_paper(a)
        pages[f"{a.key}_key"] = key_page(a)
    index = [
        "# Instructor's edition",
        "",
        "Keys with rubrics for the problem sets and quizzes, the sample final exam with its "
        "key, and how to grade with the checker. Built apart from the book: the student "
        "edition does not contain these pages. Every answer below was computed by `heldout` "
        "when this edition was built.",
        "",
    ]
    for name, text in pages.items():
        (folder / f"{name}.md").write_text(text)
    (folder / "index.md").write_text("\n".join(index))
    (folder / "_toc.yml").write_text(
        "format: jb-book\nroot: index\nchapters:\n" + "".join(f"  - file: {n}\n" for n in pages)
    )
    (folder / "_config.yml").write_text(
        'title: "heldout: instructor\'s edition"\nonly_build_toc_files: true\n'
        'execute:\n  execute_notebooks: "off"\n'
        "parse:\n  myst_enable_extensions: [amsmath, dollarmath, colon_fence]\n"
        "sphinx:\n  extra_extensions: [sphinx-mathjax-offline]\n"
        "  config:\n    mathjax_path: mathjax/tex-chtml.js\n"
    )
    return [folder / f"{n}.md" for n in pages]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--student", type=Path, help="folder for the student pages")
    parser.add_argument("--instructor", type=Path, help="folder for the instructor's edition")
    args = parser.parse_args(argv)
    if args.student:
        write_student(args.student)
    if args.instructor:
        write_instructor(args.instructor)


if __name__ == "__main__":
    main()
