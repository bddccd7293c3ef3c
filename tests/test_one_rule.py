"""Every verdict in the book comes from the one rule of the notation page.

``heldout.book.chapter.coverage_verdict`` and ``level_verdict`` hold the rule (two Monte
Carlo standard errors, floors of 0.005 on the side where the promise is broken and 0.01 on
the safe side).  A notebook that writes its own tolerance can drift from it (two lessons
had swapped the floors); this test fails on any code cell that does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))

#: Hand-written pieces of a verdict rule.
OWN_RULE = [
    re.compile(r"max\(\s*2\s*\*.*,\s*0\.0(05|1)\s*\)"),  # max(2 se, 0.005)
    re.compile(r"def\s+\w*(verdict|rule_word|level_word)\w*\s*\("),  # a private copy of the rule
    re.compile(r"(coverage|rate|cover)\w*\W*\s*(>=|<=|<|>)\s*0\.9\d*\b"),  # coverage >= 0.94
    re.compile(
        r"(>=|<=|<|>)\s*(level|1 - alpha)\s*-\s*(2|3|4)\s*\*\s*\w*se\b"
    ),  # >= level - 2 * se
]


def _code(path: Path):
    nb = json.loads(path.read_text())
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            src = cell["source"]
            yield i, src if isinstance(src, str) else "".join(src)


def _offences(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        code = line.split("#", 1)[0]
        if code.strip().startswith("assert"):
            continue  # a sanity check with its own stated tolerance, not a printed verdict
        if any(p.search(code) for p in OWN_RULE):
            out.append(line.strip())
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_notebook_computes_its_own_verdict(path):
    bad = [f"cell {i}: {line}" for i, text in _code(path) for line in _offences(text)]
    assert not bad, "use heldout.book.chapter.coverage_verdict / level_verdict:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "line",
    [
        'word = "holds" if cov >= 1 - alpha - max(2 * se, 0.005) else "undercovers"',
        "ok = rate <= alpha + max(2 * np.sqrt(alpha * (1 - alpha) / reps), 0.01)",
        "def coverage_verdict(coverage, r, a=alpha):",
        "publish('w', verdict(coverage >= 0.94, 'holds', 'fails'))",
        "ok = c >= level - 2 * mcse",
    ],
)
def test_the_check_sees_a_hand_written_rule(line):
    assert _offences(line) == [line]


def test_the_check_lets_the_rule_itself_through():
    assert _offences("word = coverage_verdict(r.coverage, r.reps, alpha)") == []
    assert _offences("assert rate <= alpha + 3.5 * se  # sanity") == []
