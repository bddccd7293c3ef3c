"""``heldout rerun``: execute a chapter with your own numbers and print what it concludes."""

from __future__ import annotations

from pathlib import Path

from heldout.cli import calculator

_EPILOG = """\
CHAPTER is a notebook (notebooks/test_set_bound.ipynb) or a chapter's name
(test_set_bound, looked up in ./notebooks/).  Each NAME=VALUE replaces an input
of the chapter's cell tagged 'parameters' (a Python literal, else a string); a
name that is not an input is refused.  The executed notebook is written to
_build/rerun/CHAPTER.ipynb (open it in JupyterLab); the values the chapter
pastes into its text (verdicts and numbers) are printed.

example: heldout rerun test_set_bound k=10 n=200 --quick
"""


def _notebook(name: str) -> Path:
    path = Path(name)
    if path.suffix != ".ipynb":
        path = Path("notebooks") / f"{name}.ipynb"
    if not path.is_file():
        raise ValueError(f"chapter: no notebook {str(path)!r} (run from the book's folder)")
    return path


def _run(args) -> dict:
    from heldout.book.rerun import parse_values, rerun

    path = _notebook(args.chapter)
    values = parse_values(args.values)
    output = args.output or Path("_build") / "rerun" / path.name
    result = rerun(path, values, quick=args.quick, output=output)
    return {"notebook": str(result.notebook), **result.glued}


def register(top, size) -> None:
    p = calculator(
        top,
        "rerun",
        help="rerun a chapter with other inputs (its 'parameters' cell) and print its results",
        func=_run,
        epilog=_EPILOG,
    )
    p.add_argument("chapter", metavar="CHAPTER", help="notebook path or chapter name")
    p.add_argument("values", metavar="NAME=VALUE", nargs="*", help="new value of an input")
    p.add_argument(
        "--quick", action="store_true", help="quick profile (HELDOUT_QUICK=1): smaller simulations"
    )
    p.add_argument("--output", type=Path, default=None, help="where to write the executed notebook")
