"""The public surface is held to one standard (issue 19, API).

* every public callable (``surface.public()``) has an ``Examples`` section with a
  ``>>>`` line (doctest runs them: ``make unit`` passes ``--doctest-modules src/heldout``);
* every public callable is driven by a property test (a ``Spec`` in ``test_properties.py``
  or ``test_properties_modules.py``) or listed in ``DRIVEN_ELSEWHERE`` with the reason;
  no spec or entry names something that is not public (stale names fail too);
* every command of the command line is driven by ``test_properties.COMMANDS``;
* docstrings hold no literal dollar math (the API page goes into the PDF, where ``$x$``
  in a docstring is printed as it is: use ``:math:`x```);
* ``import heldout`` reaches every public module.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re

import pytest
import surface
import test_properties as core
import test_properties_modules as modules

import heldout
from heldout.cli import build_parser

PUBLIC = surface.public()

#: Public callables that need no ``Examples`` section, with the reason.
NO_EXAMPLE = {
    f"heldout.cli.{name}.register": "adds a command to the parser; the command's own examples "
    "are in its --help and the README"
    for name in (
        "accept", "auc", "bound", "clustered", "compare", "cv_compare", "evaluate", "label",
        "lost", "mnist", "rerun", "sizing", "split", "judged", "bench_eval", "check",
    )
}  # fmt: skip


def _driven() -> set[str]:
    return (
        {f"heldout.{name}" for name in core.SPECS}
        | {f"heldout.{name}" for name in modules.SPECS}
        | set(modules.DRIVEN_ELSEWHERE)
    )


def test_the_surface_is_not_empty():
    assert len(PUBLIC) > 250
    assert (
        "heldout.accuracy.bounds.exact_upper" in PUBLIC
        and "heldout.metrics.auc.auc_interval" in PUBLIC
    )


@pytest.mark.parametrize("name", sorted(set(PUBLIC) - set(NO_EXAMPLE)))
def test_every_public_callable_has_an_example(name):
    doc = inspect.getdoc(PUBLIC[name]) or ""
    assert re.search(r"^Examples\n-+\n", doc, flags=re.M) and ">>>" in doc, (
        f"{name} has no Examples section"
    )


def test_the_no_example_list_names_public_callables():
    assert set(NO_EXAMPLE) <= set(PUBLIC)


def test_every_public_callable_is_driven_by_a_property_test():
    missing = sorted(set(PUBLIC) - _driven())
    assert not missing, f"public callables without a property test: {missing}"


def test_no_spec_names_something_that_is_not_public():
    results = surface.results()
    everything = set(surface.public(include_elsewhere=True)) | set(results)
    stale = sorted(_driven() - everything)
    assert not stale, f"specs or DRIVEN_ELSEWHERE entries that are not public: {stale}"


def _commands(parser: argparse.ArgumentParser, prefix=()) -> set[str]:
    out = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, sub in action.choices.items():
                words = (*prefix, word)
                inner = _commands(sub, words)
                out |= inner or {" ".join(words)}
    return out


def test_every_command_is_driven_by_a_property_test():
    commands = _commands(build_parser())
    assert {"bound", "size hoeffding", "evaluate", "rerun"} <= commands
    assert commands == set(core.COMMANDS)


_DOLLAR_MATH = re.compile(r"\$[^$\s][^$\n]*\$")


@pytest.mark.parametrize("module_name", surface.module_names())
def test_docstrings_hold_no_dollar_math(module_name):
    module = importlib.import_module(module_name)
    found = []
    docs = [(module_name, module.__doc__ or "")]
    for attr, obj in vars(module).items():
        if getattr(obj, "__module__", None) == module_name and (
            inspect.isfunction(obj) or inspect.isclass(obj)
        ):
            docs.append((f"{module_name}.{attr}", obj.__doc__ or ""))
    for where, doc in docs:
        found += [f"{where}: {m.group(0)}" for m in _DOLLAR_MATH.finditer(doc)]
    assert not found, f"literal dollar math in docstrings (use :math:): {found}"


def test_import_heldout_reaches_every_module():
    for name in surface.module_names():
        if name == "heldout":
            continue
        first = name.split(".")[1]
        assert inspect.ismodule(getattr(heldout, first)), name
