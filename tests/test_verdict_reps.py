"""Every printed verdict rests on at least 1,900 repetitions, or says that it does not (issue 37).

``book/notation.md`` promises at least ``MIN_REPS = 1,900`` simulated data sets behind every
printed coverage or level verdict.  Three checks keep the promise:

* the verdict helpers: a word from fewer repetitions is a :class:`~heldout.book.chapter.Verdict`
  that prints with a note -- "(quick build: R repetitions, not a verdict)" in the quick
  profile, "(R repetitions: too few for a verdict)" in the full one -- wherever it is printed
  (``publish``, ``table``, f-strings, a word chosen by ``verdict(..., reps=...)``);
* the parameters cells: every repetition count a notebook declares is at least 1,900 in the
  full profile, or is listed below with what it counts (none of those feeds a verdict, and
  the notebook passes none of them to a verdict helper);
* the full build, when there is one: no page carries the full-profile note.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from heldout.book import chapter

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"

#: Repetition counts below 1,900 in the full profile, and why no verdict rests on them.
FEW_ON_PURPOSE = {
    ("article_lost_test_set", "n_rep"): "random splits whose mean accuracies the table shows",
    ("cross_validation", "reps_power"): "simulated data sets per alternative: power, not a level",
    (
        "cross_validation",
        "nested_reps",
    ): "repetitions of nested cross-validation inside one interval",
    (
        "not_independent",
        "sim_clusters",
    ): "clusters per simulated test set (a size, not a count of sets)",
    ("test_set_reuse", "reps"): "holdouts on which the adaptive attack is run, shown as a band",
    ("variational_split", "repeats"): "resamples per grid cell of a fitted learning curve",
    (
        "variational_split",
        "check_repeats",
    ): "resamples behind a paired comparison with its own s.e.",
}

_REPS_NAME = re.compile(r"(^|_)(n_)?(reps?|repeats|repetitions|sims?)(_|$)|_reps$|^reps_|clusters$")


@pytest.fixture
def full(monkeypatch):
    monkeypatch.delenv("HELDOUT_QUICK", raising=False)


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setenv("HELDOUT_QUICK", "1")


def test_a_full_profile_verdict_from_1000_repetitions_is_flagged_wherever_printed(full):
    word = chapter.coverage_verdict(0.951, 1000)
    assert word == "holds" and word in chapter.COVERAGE_VERDICTS  # compares as the word
    assert not word.enough and word.reps == 1000
    note = " (1,000 repetitions: too few for a verdict)"
    assert str(word) == "holds" + note
    assert f"it {word}" == "it holds" + note
    assert chapter.publish("x", word) == "holds" + note
    assert "holds" + note in chapter.table([["DeLong", word]], ["interval", "verdict"]).text
    chosen = chapter.verdict(word != "undercovers", "holds its level", "falls short", reps=word)
    assert str(chosen) == "holds its level" + note
    level = chapter.level_verdict(0.07, 1000)
    assert level == "exceeds its level" and str(level).endswith(note)
    words = chapter.coverage_verdict([0.90, 0.95], [1000, 2000])
    assert [str(w) for w in words] == ["undercovers" + note, "holds"]
    assert chapter.few_reps_banner(words) is not None


def test_from_1900_repetitions_a_verdict_is_the_bare_word(full):
    for reps in (chapter.MIN_REPS, 2000, 100_000):
        word = chapter.coverage_verdict(0.95, reps)
        assert str(word) == "holds" and word.enough and chapter.few_reps_banner(reps) is None
    assert str(chapter.verdict(True, "holds", "fails", reps=[2000, 1900])) == "holds"
    # the number itself: 2 s.e. at 95 % is at most 0.01 from 1,900 on, and not at 1,899
    assert chapter.coverage_tolerance(chapter.MIN_REPS)[0] * 2 <= 0.01 + 1e-12
    assert chapter.coverage_tolerance(chapter.MIN_REPS - 1)[0] * 2 > 0.01


def test_a_quick_profile_verdict_says_it_is_not_a_verdict(quick):
    word = chapter.coverage_verdict(0.90, 300)
    assert word == "undercovers"
    assert str(word) == "undercovers (quick build: 300 repetitions, not a verdict)"
    assert chapter.publish("x", chapter.level_verdict(0.05, 40)).endswith(
        "(quick build: 40 repetitions, not a verdict)"
    )
    assert chapter.few_reps_banner(300).text.startswith("*Quick build:")
    # the words a metric_coverage result gives carry their repetitions too
    from heldout.book import metric_coverage as mc

    c = mc.count_coverage("accuracy", "clopper-pearson", 100, 0.5, 0.9, 0.9, reps=300, seed=1)
    assert "quick build: 300 repetitions" in str(c.verdict)


def _parameters(stem: str) -> tuple[str, dict]:
    from heldout import config
    from heldout.book.rerun import parameter_names

    cells = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    cell = next((c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])), None)
    if cell is None:
        return "", {}
    source = "".join(cell["source"])
    namespace = dict(vars(config))
    exec(source, namespace)  # the full profile: the fixture removed HELDOUT_QUICK
    return source, {name: namespace[name] for name in parameter_names(source)}


def test_every_declared_repetition_count_is_1900_in_the_full_profile_or_feeds_no_verdict(full):
    few, stale = [], set(FEW_ON_PURPOSE)
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        _, values = _parameters(path.stem)
        code = "\n".join(
            "".join(c["source"])
            for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
            if c["cell_type"] == "code"
        )
        for name, value in values.items():
            if not _REPS_NAME.search(name) or not isinstance(value, int) or isinstance(value, bool):
                continue
            stale.discard((path.stem, name))
            if value >= chapter.MIN_REPS:
                continue
            if (path.stem, name) not in FEW_ON_PURPOSE:
                few.append(f"{path.stem}: {name} = {value:,} in the full profile")
                continue
            # listed as feeding no verdict: no verdict helper receives it
            call = re.compile(rf"(_verdict\(|few_reps_\w+\(|verdict\([^\n]*reps=)[^\n]*\b{name}\b")
            if call.search(code):
                few.append(f"{path.stem}: {name} = {value:,} reaches a verdict helper")
    assert not few, "printed verdicts need 1,900 repetitions (book/notation.md):\n" + "\n".join(few)
    assert not stale, f"listed in FEW_ON_PURPOSE but no longer declared: {sorted(stale)}"


def test_the_names_are_recognised():
    for name in (
        "reps",
        "auc_reps",
        "reps_null",
        "n_rep",
        "repeats",
        "check_repeats",
        "sim_clusters",
    ):
        assert _REPS_NAME.search(name), name
    for name in ("alpha", "n", "prevalence", "represent"):
        assert not _REPS_NAME.search(name), name


FULL_HTML = ROOT / "_build" / "html"


@pytest.mark.skipif(not FULL_HTML.is_dir(), reason="no full build (make book)")
def test_the_full_build_prints_no_verdict_from_too_few_repetitions():
    marks = ("repetitions: too few for a verdict)", "too few for a verdict by the book")
    marked = [
        p.relative_to(FULL_HTML).as_posix()
        for p in FULL_HTML.rglob("*.html")
        if any(m in p.read_text(encoding="utf-8", errors="replace") for m in marks)
    ]
    assert not marked, f"pages of the full build with verdicts from too few repetitions: {marked}"
