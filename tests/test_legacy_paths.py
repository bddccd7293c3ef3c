"""Every flat module path of heldout 0.1 still imports, warns once, and is the new module."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

from heldout import _legacy


@pytest.mark.parametrize("old", sorted(_legacy.MOVED))
def test_old_path_imports_warns_and_is_the_new_module(old):
    new = _legacy.new_name(old)
    sys.modules.pop(f"heldout.{old}", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(f"heldout.{old}")
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert messages == [f"heldout.{old} is deprecated: import {new}"]
    real = importlib.import_module(new)
    if old == "compare":  # also offers the best-model names it re-exported in 0.1
        assert module.fisher_test is real.fisher_test
        assert module.best_set is importlib.import_module("heldout.comparison.best").best_set
    else:
        assert module is real
        assert real.__spec__.name == new  # the new module keeps its own spec


def test_old_names_cover_every_module_that_moved():
    """Each module of a wing (but the book's new claims file and private ones) had a 0.1 path."""
    import pkgutil

    import heldout

    moved = {
        info.name.rpartition(".")[2]
        for info in pkgutil.walk_packages(heldout.__path__, "heldout.")
        if info.name.split(".")[1]
        in ("accuracy", "comparison", "dependent", "metrics", "resampling", "book")
        and not info.ispkg
    }
    # split out of ledger and scores in 0.2; engine is new in 0.2 (issue 30), with no 0.1 path
    new_here = {"claims", "item_losses", "engine", "decision"}
    new_here |= {  # new in 0.2 (issue 28): never had a 0.1 path
        "_roc", "calibration", "operating", "operating_coverage", "operating_report",
        "partial_area", "simultaneous_band", "threshold_optimism",
    }  # fmt: skip
    new_here |= {"omnibus", "mcs", "rope", "bayes"}  # new in 0.2 (issue 29): no 0.1 path
    # new in 0.2 (issue 30: one column-kind rule; issue 27: the light install's stand-in data)
    new_here |= {"column_kinds", "standin"}
    new_here |= {"report"}  # new in 0.2 (issue 42: one builder of evaluate's report)
    new_here |= {"_partition_stats"}  # new in 0.2 (issue 42: the Dask engine's statistics)
    new_here |= {"ledger_checks"}  # split out of ledger (issue 43): no 0.1 path
    new_here |= {"deviation"}  # the checks of the sizes, split out of sizing (issue 43)
    new_here |= {"lost_fitted"}  # the lost test set on fitted models, split out of lost
    new_here |= {"auc_sizing"}  # the AUC's sizes, split out of auc (issue 43)
    # new in 0.2 (issues 38-40: judged scores' coverage, many data sets, the course): no 0.1 path
    new_here |= {"judge_coverage", "many_datasets", "hierarchical"}
    new_here |= {
        "catalogue",
        "exam",
        "grading",
        "items",
        "problem_sets",
        "quizzes",
        "render",
        "slides",
    }
    assert moved - new_here == set(_legacy.MOVED)


def test_old_attribute_access_and_from_import_in_a_fresh_process():
    code = (
        "import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
        "import heldout\n"
        "try:\n    heldout.bounds\nexcept DeprecationWarning as w:\n    print(w)\n"
        "warnings.simplefilter('ignore')\n"
        "from heldout.auc import auc_interval\nfrom heldout import rates\n"
        "print(auc_interval.__module__, rates.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == [
        "heldout.bounds is deprecated: import heldout.accuracy.bounds",
        "heldout.metrics.auc heldout.metrics.rates",
    ]


def test_unknown_names_still_fail():
    import heldout

    with pytest.raises(AttributeError):
        heldout.no_such_module  # noqa: B018
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("heldout.no_such_module")
    with pytest.raises(ValueError, match="old must name"):
        _legacy.new_name("heldout.accuracy")


@pytest.mark.parametrize(
    ("old", "moved", "new"),
    [
        ("heldout.accuracy.sizing", "_MOVED_TO_DEVIATION", "heldout.accuracy.deviation"),
        ("heldout.metrics.auc", "_MOVED_TO_SIZING", "heldout.metrics.auc_sizing"),
        ("heldout.accuracy.lost", "_MOVED_TO_FITTED", "heldout.accuracy.lost_fitted"),
    ],
)
def test_names_of_a_split_module_still_import_from_it_with_a_warning(old, moved, new):
    old_module, new_module = importlib.import_module(old), importlib.import_module(new)
    for name in getattr(old_module, moved):
        with pytest.warns(
            DeprecationWarning, match=f"{old}.{name} is deprecated: import {new}.{name}"
        ):
            assert getattr(old_module, name) is getattr(new_module, name)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        old_module.nothing  # noqa: B018
