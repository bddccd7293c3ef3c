"""Rerun a chapter with your own numbers, without opening it.

Every chapter notebook holds the inputs of its worked example in one code cell tagged
``parameters`` (the convention of papermill and similar tools).  :func:`rerun` does
what papermill does, with the book's own checks: it inserts a cell tagged
``injected-parameters`` right after that cell, assigning the values you give, executes
the notebook from top to bottom (in the chapter's folder, optionally in the quick
profile) and returns the values the chapter glued into its prose, the verdict words
and numbers that follow from your inputs.  Unlike papermill it refuses a name that
is not an input of the parameters cell, so a typo cannot rerun the chapter unchanged.

From a terminal: ``heldout rerun notebooks/test_set_bound.ipynb k=10 n=200`` (or
``make rerun CHAPTER=test_set_bound PARAMS="k=10 n=200"``) writes the executed notebook
to ``_build/rerun/`` and prints the glued values.  Executing needs the ``book`` extra
(nbclient, nbformat, ipykernel).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heldout._checks import show
from heldout._result import Result

__all__ = ["Rerun", "glued", "inject", "parameter_names", "parse_values", "rerun"]

PARAMETERS_TAG = "parameters"
INJECTED_TAG = "injected-parameters"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_values(assignments: Sequence[str]) -> dict[str, Any]:
    """Turn ``name=value`` strings (the command line's form) into a ``dict``.

    A value is read as a Python literal when it is one (``10``, ``0.05``, ``[1, 2]``,
    ``True``, ``'text'``) and kept as a string otherwise, as papermill's ``-p`` does.

    Parameters
    ----------
    assignments : sequence of str
        Items like ``"k=10"``; a name may appear once.

    Returns
    -------
    dict
        Name to value, in the order given.

    Examples
    --------
    >>> parse_values(["k=10", "delta=0.01", "sizes=[10, 100]", "method=exact"])
    {'k': 10, 'delta': 0.01, 'sizes': [10, 100], 'method': 'exact'}
    """
    if isinstance(assignments, str | bytes) or not hasattr(assignments, "__iter__"):
        raise ValueError(
            f"assignments must be a list of 'name=value' texts, got {show(assignments)}"
        )
    values: dict[str, Any] = {}
    for item in assignments:
        name, sep, text = str(item).partition("=")
        name = name.strip()
        if not sep or not _NAME.match(name):
            raise ValueError(
                f"values: expected name=value with a Python name on the left, got {show(item)}"
            )
        if name in values:
            raise ValueError(f"values: {show(name)} is given twice")
        try:
            values[name] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            values[name] = text.strip()
    return values


def parameter_names(source: str) -> list[str]:
    """The names a parameters cell assigns, in order.

    Parameters
    ----------
    source : str
        The cell's Python source.

    Returns
    -------
    list of str
        Every name bound at the cell's top level by ``=`` (also ``a, b = ...``) or an
        annotated assignment.

    Examples
    --------
    >>> parameter_names("k = 38  # errors\\nm = 100  # items\\nlow, high = 0.1, 0.2")
    ['k', 'm', 'low', 'high']
    """
    if not isinstance(source, str):
        raise ValueError(f"source must be the text of a code cell, got {show(source)}")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ValueError(f"source: the parameters cell is not valid Python ({exc.msg})") from None
    names: list[str] = []
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        for target in targets:
            for node in ast.walk(target) if target is not None else ():
                if isinstance(node, ast.Name) and node.id not in names:
                    names.append(node.id)
    return names


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def inject(nb, values: Mapping[str, Any]) -> int:
    """Insert a cell assigning ``values`` right after the notebook's ``parameters`` cell.

    As papermill does, the new cell is tagged ``injected-parameters``; one left by an
    earlier rerun is replaced.  The notebook is changed in place.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A notebook read with ``nbformat.read(..., as_version=4)``.
    values : mapping
        Input names of the parameters cell and their new values (``repr`` must give a
        Python literal).

    Returns
    -------
    int
        Index of the inserted cell.

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_code_cell("k = 38  # errors", metadata={"tags": ["parameters"]}),
    ...     nbformat.v4.new_code_cell("print(k)")])
    >>> inject(nb, {"k": 10}), nb.cells[1].source
    (1, 'k = 10')
    """
    import nbformat

    tagged = [i for i, cell in enumerate(nb.cells) if PARAMETERS_TAG in _tags(cell)]
    if len(tagged) != 1:
        raise ValueError(
            f"nb: a chapter needs exactly one cell tagged {show(PARAMETERS_TAG)}, found {len(tagged)}"
        )
    where = tagged[0]
    known = parameter_names(nb.cells[where].source)
    unknown = [name for name in values if name not in known]
    if unknown:
        raise ValueError(
            f"values: {', '.join(map(repr, unknown))} not an input of the parameters cell; "
            f"its inputs are {', '.join(known)}"
        )
    source = "\n".join(f"{name} = {value!r}" for name, value in values.items())
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": [INJECTED_TAG]})
    if where + 1 < len(nb.cells) and INJECTED_TAG in _tags(nb.cells[where + 1]):
        nb.cells[where + 1] = cell
    else:
        nb.cells.insert(where + 1, cell)
    return where + 1


def glued(nb) -> dict[str, str]:
    """The values an executed notebook glued into its prose (``{glue:text}`` names).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        An executed notebook.

    Returns
    -------
    dict
        Glue name to the text the book shows (quotes of string values removed).

    Examples
    --------
    >>> cell = {"cell_type": "code", "outputs": [{"output_type": "display_data",
    ...     "metadata": {"scrapbook": {"name": "verdict", "mime_prefix": ""}},
    ...     "data": {"text/plain": "'passes'"}}]}
    >>> glued({"cells": [cell]})
    {'verdict': 'passes'}
    """
    out: dict[str, str] = {}
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("scrapbook", {})
            if "name" in record:  # a glued value: its MIME types carry the record's prefix
                text = output["data"].get(record.get("mime_prefix", "") + "text/plain", "")
                out[record["name"]] = text.strip("'\"")
    return out


@dataclass(frozen=True)
class Rerun(Result):
    """A chapter executed with changed inputs.

    ``glued`` maps each glue name to the text the chapter's prose would show,
    ``notebook`` is where the executed notebook was written (None when it was not) and
    ``values`` holds the injected inputs.
    """

    glued: dict
    notebook: Path | None
    values: dict


def rerun(
    notebook: str | os.PathLike,
    values: Mapping[str, Any],
    *,
    quick: bool = False,
    output: str | os.PathLike | None = None,
    timeout: int = 1800,
) -> Rerun:
    """Execute a chapter notebook with other values for its parameters.

    Parameters
    ----------
    notebook : path
        The chapter (``notebooks/<name>.ipynb``).
    values : mapping
        New values of inputs of its ``parameters`` cell (see :func:`parse_values`).
    quick : bool, default False
        Run in the quick profile (``HELDOUT_QUICK=1``: smaller simulations, never fewer
        checks); otherwise the kernel inherits this process's environment.
    output : path, optional
        Write the executed notebook there (also when a cell fails, to inspect it).
    timeout : int, default 1800
        Seconds one cell may run.

    Returns
    -------
    Rerun
        The glued values, where the notebook went and the injected values.

    Examples
    --------
    >>> result = rerun("notebooks/test_set_bound.ipynb", {"k": 10}, quick=True)  # doctest: +SKIP
    >>> result.glued["normal_vs_exact"]  # doctest: +SKIP
    'below'
    """
    import nbclient
    import nbformat
    from nbclient.exceptions import CellExecutionError

    path = Path(notebook)
    if path.suffix != ".ipynb" or not path.is_file():
        raise ValueError(f"notebook: expected a chapter's .ipynb file, got {str(notebook)!r}")
    nb = nbformat.read(path, as_version=4)
    values = dict(values)
    inject(nb, values)
    env = dict(os.environ)
    if quick:
        env["HELDOUT_QUICK"] = "1"
    client = nbclient.NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.resolve().parent)}},
    )
    target = Path(output) if output is not None else None
    try:
        # the kernel's own stderr carries only its start-up notices (a failing cell's
        # traceback comes back as the cell's output); keep them off the terminal
        client.execute(env=env, stderr=subprocess.DEVNULL)
    except CellExecutionError as exc:
        where = f"; the notebook so far is in {target}" if target else ""
        raise ValueError(
            f"values: {path.stem} stopped with {exc.ename}: {exc.evalue}{where}"
        ) from None
    finally:
        if target is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, target)
    return Rerun(glued=glued(nb), notebook=target, values=values)
