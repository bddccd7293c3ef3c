"""Every chapter reruns with the reader's own numbers.

Each chapter notebook has one code cell tagged ``parameters`` near its top.  For every
chapter, tests/rerun_params.toml declares new values for some of its inputs and the
glued verdicts or numbers that must follow them.  The chapter is executed in the quick
profile with the values injected after its parameters cell (``heldout.book.rerun``, as
papermill does); it must run to the end, and each named glued value must differ from the
unchanged chapter's.  tests/test_chapter_parameters.py checks new values against
independent computations.  The command line's ``heldout rerun`` is tested here too.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from chapter_runs import DECLARED, NOTEBOOKS, ROOT, baseline, chapters, declared, has_parameters
from chapter_runs import run_with as run_chapter

pytest.importorskip("nbclient")

WITH_PARAMETERS = [s for s in chapters() if has_parameters(s)]
ALLOWED_MISSING = set(DECLARED.get("allow_missing", []))


def test_every_chapter_has_a_parameters_cell_and_declared_values():
    problems = []
    for stem in chapters():
        if stem in ALLOWED_MISSING:
            if has_parameters(stem) and stem in DECLARED["chapters"]:
                problems.append(f"{stem}: has its parameters cell; remove it from allow_missing")
            continue
        if not has_parameters(stem):
            problems.append(f"{stem}: no cell tagged 'parameters' (see DEVELOPING.md)")
        elif stem not in DECLARED["chapters"]:
            problems.append(f"{stem}: declare changed values in tests/rerun_params.toml")
    problems += [
        f"tests/rerun_params.toml names {stem!r}, which is not a chapter notebook"
        for stem in set(DECLARED["chapters"]) | ALLOWED_MISSING
        if not (NOTEBOOKS / f"{stem}.ipynb").exists()
    ]
    assert not problems, "\n".join(problems)


_INCLUDE = re.compile(r"^[`:]{3,}\{include\}\s+\.\./book/_rerun\.md\s*$", re.M)


def _pointer(stem: str) -> re.Pattern:
    """The one-line pointer: the chapter's own command and a link to the rerun page."""
    return re.compile(
        rf"`make rerun CHAPTER={re.escape(stem)}\b[^`\n]*`[^\n]*\{{doc\}}`/book/rerun`"
    )


def test_every_chapter_says_how_to_rerun_it():
    """A one-line pointer with the chapter's own command (book/rerun.md explains it once).

    The shared include ``book/_rerun.md`` (now a one-line link to the rerun page) is still
    accepted while chapters move to their own pointer.
    """
    allowed = set(DECLARED.get("allow_no_rerun_note", []))
    problems = []
    for stem in chapters():
        cells = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text())["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        says = bool(_pointer(stem).search(text) or _INCLUDE.search(text))
        if says and stem in allowed:
            problems.append(f"{stem}: says how to rerun it; remove it from allow_no_rerun_note")
        elif not says and stem not in allowed:
            problems.append(
                f'{stem}: add the line `make rerun CHAPTER={stem} PARAMS="..."` '
                "(details in {doc}`/book/rerun`) after the parameters cell"
            )
    assert (ROOT / "book" / "rerun.md").exists()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("stem", WITH_PARAMETERS)
def test_parameters_cell_is_near_the_top(stem):
    cells = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text())["cells"]
    # the hosted-notebook install cell (tests/tools/add_install_cell.py) comes before all
    cells = [c for c in cells if "heldout-install" not in c.get("metadata", {}).get("tags", [])]
    tags = [c.get("metadata", {}).get("tags", []) for c in cells]
    first = next(i for i, t in enumerate(tags) if "parameters" in t)
    assert sum("parameters" in t for t in tags) == 1, f"{stem}: one cell tagged 'parameters'"
    assert first == 2, f"{stem}: the parameters cell follows the question and the imports"
    assert "hide-input" in tags[1], f"{stem}: the imports cell is hidden"
    assert "hide-input" not in tags[first], f"{stem}: the parameters cell is shown"
    body = "".join(cells[first]["source"]).splitlines()
    assert all("#" in line for line in body if line.strip()), f"{stem}: one comment per input"


@pytest.mark.slow
@pytest.mark.parametrize("stem", [s for s in WITH_PARAMETERS if s in DECLARED["chapters"]])
def test_chapter_reruns_and_its_verdicts_follow(stem):
    spec = DECLARED["chapters"][stem]
    assert spec["changes"], f"{stem}: name at least one glued value that must change"
    after = run_chapter(stem, declared(stem))  # raises if any cell fails
    before = baseline(stem)
    for name in spec["changes"]:
        assert name in before and name in after, f"{stem}: nothing glued as {name!r}"
        assert after[name] != before[name], (
            f"{stem}: {name} stays {before[name]!r} with {spec['values']}"
        )


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "heldout", "rerun", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["test_set_bound", "kk=3"], "'kk' not an input of the parameters cell"),
        (["test_set_bound", "k"], "expected name=value"),
        (["no_such_chapter", "k=3"], "no notebook"),
    ],
)
def test_rerun_refuses_bad_input_in_one_line(argv, message):
    out = _cli(*argv)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and message in out.stderr, out.stderr
    assert out.stdout == ""


def _tiny_chapter(path):
    import nbformat

    cells = [
        nbformat.v4.new_markdown_cell("# A tiny chapter"),
        nbformat.v4.new_code_cell("from myst_nb import glue", metadata={"tags": ["hide-input"]}),
        nbformat.v4.new_code_cell(
            "k = 3  # errors\nm = 10  # items", metadata={"tags": ["parameters"]}
        ),
        nbformat.v4.new_code_cell(
            "if k > m:\n    raise ValueError('k must not exceed m')\n"
            "glue('rate', f'{k / m:.2f}', display=False)\n"
            "glue('verdict', 'high' if k / m > 0.5 else 'low', display=False)"
        ),
    ]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


def test_rerun_command_prints_the_glued_values_as_json(tmp_path):
    chapter = _tiny_chapter(tmp_path / "tiny.ipynb")
    target = tmp_path / "out" / "tiny.ipynb"
    out = _cli(str(chapter), "k=8", "--json", "--output", str(target))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"notebook": str(target), "rate": "0.80", "verdict": "high"}
    import nbformat

    cells = nbformat.read(target, as_version=4).cells
    assert cells[3].metadata.tags == ["injected-parameters"] and cells[3].source == "k = 8"


def test_rerun_command_reports_a_failing_chapter_in_one_line(tmp_path):
    chapter = _tiny_chapter(tmp_path / "tiny.ipynb")
    out = _cli(str(chapter), "k=30", "--output", str(tmp_path / "failed.ipynb"))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1, out.stderr
    assert "tiny stopped with ValueError: k must not exceed m" in out.stderr
    assert (tmp_path / "failed.ipynb").exists()  # kept, to see where it stopped


# --- heldout.book.rerun's pieces ------------------------------------------------------------


def test_parse_values_reads_literals_and_refuses_malformed_items():
    from heldout.book.rerun import parse_values

    assert parse_values(["k=10", "alpha = 0.01", "sizes=[1, 2]", "prior=jeffreys", "x='7'"]) == {
        "k": 10,
        "alpha": 0.01,
        "sizes": [1, 2],
        "prior": "jeffreys",
        "x": "7",
    }
    for bad in (["k"], ["=3"], ["2k=3"], ["k=1", "k=2"]):
        with pytest.raises(ValueError, match="values"):
            parse_values(bad)


def test_parameter_names_are_the_cells_assignments():
    from heldout.book.rerun import parameter_names

    source = "k = 38  # errors\nm: int = 100  # items\nlo, hi = 0.1, 0.2\nprint(k)\n"
    assert parameter_names(source) == ["k", "m", "lo", "hi"]
    with pytest.raises(ValueError, match="source"):
        parameter_names("k = (")


def test_inject_replaces_an_earlier_injection_and_checks_the_cell():
    import nbformat

    from heldout.book.rerun import inject

    new = nbformat.v4.new_code_cell
    nb = nbformat.v4.new_notebook(
        cells=[new("k = 1  # a", metadata={"tags": ["parameters"]}), new("print(k)")]
    )
    assert inject(nb, {"k": 2}) == 1 and inject(nb, {"k": 3}) == 1
    assert [c.source for c in nb.cells] == ["k = 1  # a", "k = 3", "print(k)"]
    with pytest.raises(ValueError, match="'m' not an input"):
        inject(nb, {"m": 3})
    nb.cells.append(new("m = 1", metadata={"tags": ["parameters"]}))
    with pytest.raises(ValueError, match="exactly one cell tagged 'parameters', found 2"):
        inject(nb, {"k": 3})
