"""The course plans of book/teaching.md carry a fair reading load each week (issue 36).

Words are counted as tests/test_lessons.py counts a lesson's prose (code fences, directive
options and labels left out), over the pages a week's "Read" column links, leaving out what
the row marks as optional.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from test_lessons import _markdown, words  # noqa: E402

PAGE = (ROOT / "book" / "teaching.md").read_text(encoding="utf-8")
#: the heaviest week reads at most this many times the words of the lightest
MAX_RATIO = 2.0


def _plan(heading: str) -> list[tuple[str, list[str]]]:
    """(week, pages read) of the table under a heading."""
    section = PAGE.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not re.match(r"^\| \d: ", line):
            continue
        week, read = [c.strip() for c in line.strip("|").split("|")][:2]
        required = re.split(r";\s*optionally", read)[0]
        rows.append((week, re.findall(r"\{doc\}`\.\./(notebooks/[\w]+)`", required)))
    return rows


def _week_words(pages: list[str]) -> int:
    return sum(words(t) for page in pages for t in _markdown(page))


def test_six_week_plan_is_balanced():
    plan = _plan("## Six weeks")
    assert len(plan) == 6
    load = {week: _week_words(pages) for week, pages in plan}
    heaviest, lightest = max(load.values()), min(load.values())
    assert heaviest <= MAX_RATIO * lightest, f"words per week: {load}"


def test_plans_read_every_lesson_once_in_order():
    from test_lessons import lessons

    for heading in ("## Six weeks",):
        read = [Path(p).name for _, pages in _plan(heading) for p in pages]
        assert read == lessons(), f"{heading}: {read}"


def test_three_week_text_agrees_with_its_table():
    intro = PAGE.split("## Three weeks", 1)[1].split("| Week |", 1)[0]
    said = re.search(r"(\w+) lessons to read a week", intro)
    assert said, "the three-week plan says how many lessons a week are read"
    number = {"two": 2, "three": 3, "four": 4}[said[1]]
    for week, pages in _plan("## Three weeks"):
        assert len(pages) == number, f"{week}: {len(pages)} lessons read, the text says {number}"


def test_balance_check_bites():
    assert _week_words(["notebooks/beyond_accuracy", "notebooks/auc"]) > _week_words(
        ["notebooks/auc"]
    )
