"""The book's decision chart: from what a reader has and wants to a method.

The chart's content lives in the data file ``decision_chart.toml`` beside this module
(:data:`DATA_FILE`): one ``[[leaf]]`` per recommendation, naming the method, a public
function of the package, a command line, the lesson that teaches it and the test that
shows it holds its coverage or level.  :func:`leaves` reads it, :func:`chart_rows` lays it
out as rows of a table and :func:`draw` draws it as a grid (the figure of the "Which
method?" page).  ``tests/book/test_decision.py`` checks every leaf against the package,
the command line and the lessons.

Nothing here computes a statistical result; it only presents the chart.
"""

from __future__ import annotations

import textwrap
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from heldout._checks import as_flag, as_instance
from heldout._result import Result

__all__ = ["DATA_FILE", "Leaf", "chart_rows", "draw", "leaves"]

#: The chart's data file, read by :func:`leaves` (``decision_chart.toml`` beside this module).
#:
#: :meta hide-value:
DATA_FILE = Path(__file__).with_name("decision_chart.toml")

_FIELDS = ("have", "want", "method", "function", "command", "lesson", "check")


@dataclass(frozen=True)
class Leaf(Result):
    """One recommendation of the chart.

    Attributes
    ----------
    have, want : str
        Keys of the chart's rows (what the reader has) and columns (what they want).
    method : str
        The method, in a few words.
    function : str
        Dotted path of the package function that computes it.
    command : str
        A ``heldout ...`` command line with example values.
    lesson : str
        The lesson that teaches it, e.g. ``notebooks/test_set_bound``.
    check : str
        The test that shows it holds its coverage or level, ``tests/<file>.py::<test>``.
    """

    have: str
    want: str
    method: str
    function: str
    command: str
    lesson: str
    check: str


@cache
def _data() -> dict:
    return tomllib.loads(DATA_FILE.read_text(encoding="utf-8"))


def leaves() -> tuple[dict[str, str], dict[str, str], tuple[Leaf, ...]]:
    """Read the chart: its rows, its columns and its leaves.

    Returns
    -------
    have : dict
        Row key -> label ("what do I have?"), in the chart's order.
    want : dict
        Column key -> label ("what do I want?"), in the chart's order.
    leaves : tuple of Leaf
        Every recommendation, in the data file's order.

    Examples
    --------
    >>> have, want, found = leaves()
    >>> have["counts"]
    'counts: errors (or correct) out of n'
    >>> found[0].command
    'heldout bound --errors 38 --n 1000'
    """
    data = _data()
    have, want = dict(data["have"]), dict(data["want"])
    out = []
    for i, raw in enumerate(data["leaf"]):
        missing = [f for f in _FIELDS if not str(raw.get(f, "")).strip()]
        if missing:
            raise ValueError(f"leaf {i} of {DATA_FILE.name} lacks {', '.join(missing)}")
        if raw["have"] not in have or raw["want"] not in want:
            raise ValueError(f"leaf {i} of {DATA_FILE.name} has an unknown have/want key")
        out.append(Leaf(**{f: raw[f] for f in _FIELDS}))
    return have, want, tuple(out)


def chart_rows(*, links: bool = True) -> list[list[str]]:
    """The chart as table rows: have, want, method, function, command, lesson.

    Parameters
    ----------
    links : bool, default True
        Write the lesson as a MyST ``{doc}`` link relative to a page in ``notebooks/``
        (for the book) and the function and command as code; plain text otherwise.

    Returns
    -------
    list of list of str
        One row per leaf, ordered by the chart's rows then columns.

    Examples
    --------
    >>> chart_rows(links=False)[0][:3]
    ['counts: errors (or correct) out of n', 'an interval', 'exact (Clopper-Pearson) interval and upper bound']
    """
    links = as_flag(links, "links")
    have, want, found = leaves()
    order = {key: i for i, key in enumerate(have)}
    column = {key: i for i, key in enumerate(want)}
    rows = []
    for leaf in sorted(found, key=lambda x: (order[x.have], column[x.want])):
        lesson = leaf.lesson.removeprefix("notebooks/")
        if links:
            row = [f"`{leaf.function}`", f"`{leaf.command}`", f"{{doc}}`{lesson}`"]
        else:
            row = [leaf.function, leaf.command, lesson]
        rows.append([have[leaf.have], want[leaf.want], leaf.method, *row])
    return rows


def draw(ax=None):
    """Draw the chart as a grid: rows what one has, columns what one wants.

    Each filled cell names the method, the function and the lesson of each of its leaves; an
    empty cell is a combination the book has no recommendation for.  Each row is as tall as
    its longest box, and a new figure is sized to fit the chart.

    Parameters
    ----------
    ax : matplotlib Axes, optional
        Where to draw; a new figure is made when it is None.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = draw()
    >>> len(ax.patches) == len({(leaf.have, leaf.want) for leaf in leaves()[2]})
    True
    """
    from matplotlib.axes import Axes

    as_instance(ax, "ax", Axes, "matplotlib Axes", optional=True)
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    have, want, found = leaves()
    rows, cols = list(have), list(want)
    cells: dict[tuple[int, int], list[Leaf]] = {}
    for leaf in found:
        cells.setdefault((rows.index(leaf.have), cols.index(leaf.want)), []).append(leaf)
    texts = {
        cell: "\n\n".join(
            "\n".join(textwrap.wrap(leaf.method, 28))
            + f"\n{leaf.function.rsplit('.', 1)[-1]}()\n→ {leaf.lesson.removeprefix('notebooks/')}"
            for leaf in here
        )
        for cell, here in cells.items()
    }
    # each row as tall as its longest box (in inches: 0.17 a line, at fontsize 9)
    lines = [
        max([texts[(r, c)].count("\n") + 1 for c in range(len(cols)) if (r, c) in texts] or [2])
        for r in range(len(rows))
    ]
    heights = [0.17 * k + 0.3 for k in lines]
    tops = [sum(heights[:r]) for r in range(len(rows))]
    if ax is None:
        _, ax = plt.subplots(figsize=(2.4 * len(cols) + 2.2, sum(heights) + 1.1))
    for (r, c), text in texts.items():
        ax.add_patch(
            FancyBboxPatch(
                (c + 0.03, tops[r] + 0.05),
                0.94,
                heights[r] - 0.1,
                boxstyle="round,pad=0.0,rounding_size=0.05",
                facecolor="#e8f0fa",
                edgecolor="#4a6fa5",
            )
        )
        ax.text(c + 0.5, tops[r] + heights[r] / 2, text, ha="center", va="center", fontsize=9)
    ax.set_xlim(0, len(cols))
    ax.set_ylim(sum(heights), 0)
    ax.set_xticks([c + 0.5 for c in range(len(cols))], [want[k] for k in cols])
    ax.set_yticks(
        [tops[r] + heights[r] / 2 for r in range(len(rows))],
        ["\n".join(textwrap.wrap(have[k], 22)) for k in rows],
    )
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel("What do I want?")
    ax.set_ylabel("What do I have?")
    ax.tick_params(length=0)
    ax.grid(False)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title("Which method? (each box: method, function of heldout, lesson)", pad=28)
    return ax
