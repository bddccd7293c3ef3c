"""The ``heldout`` command line: the book's calculators in a terminal.

Layout
------
``heldout COMMAND [options]`` and ``heldout size KIND [options]``.  Each
calculator lives in its own module in this package (``bound.py``,
``accept.py``, ...) and exposes ``register(top, size)``, which adds its
sub-commands with :func:`calculator`.  Modules are discovered automatically,
so a chapter adds a command without touching this file.

Every calculator takes ``--json`` and then prints exactly one JSON object.
Bad input prints one line on stderr and exits with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import pkgutil
import sys
from collections.abc import Callable, Sequence

import numpy as np

from heldout import __version__

EXIT_USAGE = 2


class UsageError(Exception):
    """Raised by a calculator for a problem with the command-line arguments."""


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr and exit status 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        sys.stderr.write(f"{self.prog}: error: {message} (try '{self.prog} --help')\n")
        sys.exit(EXIT_USAGE)


def calculator(
    subparsers: argparse._SubParsersAction,
    name: str,
    *,
    help: str,
    func: Callable[[argparse.Namespace], dict],
    description: str | None = None,
    epilog: str | None = None,
) -> argparse.ArgumentParser:
    """Add a calculator sub-command.

    ``func(args)`` returns a ``dict`` of results (floats, ints, bools, strings,
    lists).  The common ``--json`` flag is added here, so every calculator has it.
    """
    parser = subparsers.add_parser(
        name,
        help=help,
        description=description or help,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object and nothing else"
    )
    parser.set_defaults(_func=func)
    return parser


def _plain(value):
    """Convert numpy scalars and arrays into JSON-ready Python values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        value = float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _format_plain(result: dict) -> str:
    width = max((len(k) for k in result), default=0)
    lines = []
    for key, value in result.items():
        if isinstance(value, float):
            text = f"{value:.6g}"
        else:
            text = str(value)
        lines.append(f"{key:<{width}}  {text}")
    return "\n".join(lines)


def _command_modules():
    package = sys.modules[__name__]
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"{__name__}.{info.name}")


def build_parser() -> argparse.ArgumentParser:
    """Build the full ``heldout`` parser with every discovered calculator."""
    parser = _Parser(
        prog="heldout",
        description=(
            "heldout: how big must a test set be, and how sure is the score it gave?\n"
            "The calculators of the heldout book. Every calculator takes --json."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"heldout {__version__}")
    top = parser.add_subparsers(
        title="commands", dest="command", metavar="COMMAND", parser_class=_Parser
    )
    size_parser = top.add_parser(
        "size",
        help="how many test items are needed (heldout size KIND --help)",
        description="How many test items are needed, by several criteria.",
    )
    size = size_parser.add_subparsers(
        title="kinds", dest="size_kind", metavar="KIND", parser_class=_Parser
    )
    for module in _command_modules():
        module.register(top, size)
    parser.set_defaults(_size_parser=size_parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "_func", None)
    if func is None:
        if args.command == "size":
            args._size_parser.error("choose what to size, for example 'heldout size hoeffding'")
        parser.error("choose a command, for example 'heldout bound --help'")
    try:
        result = func(args)
    except (ValueError, UsageError) as exc:
        sys.stderr.write(f"heldout: error: {exc}\n")
        return EXIT_USAGE
    except ImportError as exc:
        sys.stderr.write(
            f"heldout: error: {exc}; this command needs an optional extra, "
            "for example: pip install 'heldout[mnist]'\n"
        )
        return EXIT_USAGE
    result = _plain(result)
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write(_format_plain(result) + "\n")
    return 0


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
