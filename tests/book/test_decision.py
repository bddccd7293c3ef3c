"""The decision chart (heldout.book.decision and its data file) against the package.

Every leaf must name a public function importable from its wing, a command line that the
real parser accepts, a lesson of the book's plan (PLAN.md's list, kept here as LESSONS) and
a test that exists and that checks coverage or level.
"""

from __future__ import annotations

import ast
import importlib
import shlex
import tomllib
from pathlib import Path

import matplotlib
import pytest

from heldout.book import decision
from heldout.cli import build_parser

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[2]

#: The lessons of Part I of the book's plan (the filenames are fixed by the plan).
LESSONS = {
    f"notebooks/{name}"
    for name in (
        "test_set_bound beta_posterior hoeffding_sizing acceptance_testing variational_split "
        "two_models many_models beyond_accuracy auc operating_points regression_metrics "
        "not_independent judged_scores benchmarks label_until_sure cross_validation test_set_reuse own_data_lab"
    ).split()
}

HAVE, WANT, LEAVES = decision.leaves()
IDS = [f"{leaf.have}-{leaf.want}-{leaf.function.rsplit('.', 1)[-1]}" for leaf in LEAVES]


def test_the_chart_covers_every_row_and_the_four_wants():
    assert {leaf.have for leaf in LEAVES} == set(HAVE)
    assert {leaf.want for leaf in LEAVES} == set(WANT) == {"interval", "size", "decision", "best"}
    assert len({(leaf.have, leaf.want, leaf.function) for leaf in LEAVES}) == len(LEAVES)


@pytest.mark.parametrize("leaf", LEAVES, ids=IDS)
def test_leaf_names_a_public_function_of_its_wing(leaf):
    parts = leaf.function.split(".")
    assert parts[0] == "heldout" and len(parts) in (3, 4), leaf.function
    module = importlib.import_module(".".join(parts[:-1]))
    name = parts[-1]
    assert not name.startswith("_")
    if len(parts) == 3:  # heldout.<wing>.<name>: in the wing's public face
        face = getattr(module, "WHERE", None) or module.__all__  # sequential has no WHERE
        assert name in face, f"{name} is not in heldout.{parts[1]}'s public face"
    else:  # heldout.<wing>.<module>.<name>: exported by its module
        assert name in module.__all__, f"{name} is not in {module.__name__}.__all__"
    assert callable(getattr(module, name))


@pytest.mark.parametrize("leaf", LEAVES, ids=IDS)
def test_leaf_command_parses(leaf):
    argv = shlex.split(leaf.command)
    assert argv[0] == "heldout"
    args = build_parser().parse_args(argv[1:])  # an unknown command or option exits 2
    assert getattr(args, "_func", None) is not None, f"{leaf.command} names no calculator"


def test_a_wrong_command_would_be_caught():
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bound", "--errors", "3", "--n", "10", "--no-such-option"])


@pytest.mark.parametrize("leaf", LEAVES, ids=IDS)
def test_leaf_links_a_lesson_of_the_plan(leaf):
    assert leaf.lesson in LESSONS, f"{leaf.lesson} is not a lesson of PLAN.md"


@pytest.mark.parametrize("leaf", LEAVES, ids=IDS)
def test_leaf_check_is_an_existing_coverage_or_level_test(leaf):
    path, _, name = leaf.check.partition("::")
    source = ROOT / path
    assert source.is_file(), f"{path} does not exist"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    tests = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert name in tests, f"{path} has no {name}"
    words = (
        "cover",
        "level",
        "hold",
        "error",
        "simulation",
        "simulated",
        "brute",
        "binomtest",
        "keeps",
        "miss",
    )
    assert any(w in name for w in words), f"{name} does not look like a check of coverage or level"


def test_data_file_is_the_one_read():
    raw = tomllib.loads(decision.DATA_FILE.read_text(encoding="utf-8"))
    assert len(raw["leaf"]) == len(LEAVES)


def test_table_has_one_row_per_leaf_with_links():
    rows = decision.chart_rows()
    assert len(rows) == len(LEAVES)
    assert all(row[3].startswith("`heldout.") for row in rows)
    assert all(row[5].startswith("{doc}`") for row in rows)
    plain = decision.chart_rows(links=False)
    assert {row[3] for row in plain} == {leaf.function for leaf in LEAVES}


def test_figure_has_a_box_per_filled_cell():
    ax = decision.draw()
    cells = {(leaf.have, leaf.want) for leaf in LEAVES}
    assert len(ax.patches) == len(cells)
    assert [t.get_text() for t in ax.get_xticklabels()] == list(WANT.values())
    assert ax.get_xlabel() == "What do I want?"


def test_a_leaf_missing_a_field_is_refused(monkeypatch):
    broken = dict(decision._data())
    broken["leaf"] = [{**broken["leaf"][0], "command": ""}]
    monkeypatch.setattr(decision, "_data", lambda: broken)
    with pytest.raises(ValueError, match="command"):
        decision.leaves()
