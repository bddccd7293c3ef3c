"""The ``heldout`` command line: the book's calculators in a terminal.

Layout
------
``heldout COMMAND [options]`` and ``heldout size KIND [options]``.  Each
calculator lives in its own module in this package (``bound.py``,
``accept.py``, ...) and exposes ``register(top, size)``, which adds its
sub-commands with :func:`calculator`.  Modules are discovered automatically,
so a chapter adds a command without touching this file.

Every calculator takes ``--json`` and then prints exactly one JSON object.  A warning
the package raises while a calculator runs (a sample too small for the bootstrap...)
is never dropped: it is added to the result as a list ``warnings`` (printed as
``warning`` lines without ``--json``).
Bad input prints one line on stderr and exits with status 2, never a traceback,
and nothing is printed before it (numerical warnings are silenced while a
calculator runs; a result that is not a finite number is refused, never shown as
``null``).

Start-up is kept small: this module imports only the standard library; command
modules import the package code they need inside their ``_run`` functions; and
discovery lists this package's directory (no import of anything heavy).
Argument types ``count``, ``real`` and ``probability`` (functions of this module) check numbers
as they are parsed (``--n 1e9`` is read as the count 1000000000).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
import warnings
from collections.abc import Callable, Sequence

from heldout import __version__

EXIT_USAGE = 2
EXIT_INTERNAL = 1
_MAX_COUNT = 2**63 - 1


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

    Examples
    --------
    >>> import argparse
    >>> top = argparse.ArgumentParser().add_subparsers()
    >>> p = calculator(top, 'double', help='twice a number', func=lambda args: {'twice': 2 * args.x})
    >>> _ = p.add_argument('--x', type=real, required=True)
    >>> args = p.parse_args(['--x', '2.5', '--json'])
    >>> args._func(args), args.json
    ({'twice': 5.0}, True)
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


def count(text: str) -> int:
    """argparse type: a whole number below ``2**63`` (``1000``, ``1e9``, ``1_000_000``).

    Examples
    --------
    >>> count('1e9'), count('1_000')
    (1000000000, 1000)
    """
    cleaned = text.strip().replace("_", "")
    if cleaned.lstrip("+-").isdigit():
        value = int(cleaned)
    else:
        try:
            number = float(cleaned)
        except ValueError:
            number = math.nan
        if not math.isfinite(number) or number != math.floor(number):
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
        if abs(number) >= 2.0**63:
            raise argparse.ArgumentTypeError(f"{text!r} is too large (counts are below 2**63)")
        value = int(number)
    if abs(value) > _MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{text!r} is too large (counts are below 2**63)")
    return value


def real(text: str) -> float:
    """argparse type: a finite number.

    Examples
    --------
    >>> real('0.05')
    0.05
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def probability(text: str) -> float:
    """argparse type: a number strictly between 0 and 1.

    Examples
    --------
    >>> probability('0.05')
    0.05
    """
    value = real(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not strictly between 0 and 1")
    return value


def choice_option(
    parser: argparse.ArgumentParser, flag: str, choices: Sequence[str], default, help: str
) -> None:
    """Add ``flag``, one of ``choices`` (``default`` when not given).

    The one shape of the calculators' word options (``--method``, ``--alternative``,
    ``--correction``...): argparse refuses any other word with a usage error.

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser()
    >>> choice_option(p, "--tail", ["upper", "lower"], "upper", "which side")
    >>> p.parse_args([]).tail, p.parse_args(["--tail", "lower"]).tail
    ('upper', 'lower')
    """
    parser.add_argument(flag, default=default, choices=choices, help=help)


def alpha_option(
    parser: argparse.ArgumentParser,
    *,
    default: float = 0.05,
    old: Sequence[str] = (),
    level: bool = False,
    help: str = "error probability in (0, 1): an interval has confidence 1 - alpha",
) -> None:
    """Add ``--alpha`` (the one name of the error probability) and hidden old spellings.

    ``old`` are earlier names of the same number (``--delta``, ``--epsilon``), accepted
    silently; ``level=True`` also accepts the old ``--level`` (a confidence, read as
    ``alpha = 1 - level``).  :func:`main` resolves them into ``args.alpha`` before the
    calculator runs; giving two of them is a usage error.

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser()
    >>> alpha_option(p, old=('--delta',), level=True)
    >>> args = p.parse_args(['--level', '0.9'])
    >>> _resolve_alpha(args)
    >>> round(args.alpha, 10)
    0.1
    """
    parser.add_argument("--alpha", type=real, default=None, help=f"{help} (default {default:g})")
    for flag in old:
        parser.add_argument(
            flag, dest=f"_old_{flag.lstrip('-')}", type=real, default=None, help=argparse.SUPPRESS
        )
    if level:
        parser.add_argument(
            "--level", dest="_old_level", type=real, default=None, help=argparse.SUPPRESS
        )
    parser.set_defaults(_alpha_default=default)


def _resolve_alpha(args: argparse.Namespace) -> None:
    given = {"--alpha": args.alpha} if args.alpha is not None else {}
    for key, value in vars(args).items():
        if key.startswith("_old_") and value is not None:
            flag = "--" + key[len("_old_") :]
            if flag == "--level":
                if not 0.0 < value < 1.0:
                    raise UsageError(f"--level must be strictly between 0 and 1, got {value:g}")
                value = 1.0 - value
            given[flag] = value
    if len(given) > 1:
        raise UsageError(
            f"give the error probability once: {' and '.join(sorted(given))} were given"
        )
    args.alpha = next(iter(given.values()), args._alpha_default)


class _NotFinite(ValueError):
    """A calculator produced a number that is not finite (refused, never printed as null)."""


def _plain(value, key: str = "result"):
    """Convert numpy scalars and arrays into JSON-ready Python values (no numpy import).

    A non-finite float raises :class:`_NotFinite` naming the result's key.
    """
    if isinstance(value, dict):
        return {str(k): _plain(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v, key) for v in value]
    if hasattr(value, "tolist") and hasattr(value, "dtype"):  # numpy array or scalar
        return _plain(value.tolist(), key)
    if isinstance(value, float) and not math.isfinite(value):
        raise _NotFinite(
            f"the result {key} is not a finite number ({value}); the inputs are outside "
            "the range this calculator can answer"
        )
    return value


def _format_plain(result: dict) -> str:
    width = max((len(k) for k in result), default=0)
    lines = []
    for key, value in result.items():
        if key == "warnings" and isinstance(value, list):
            lines.extend(f"{'warning':<{width}}  {note}" for note in value)
            continue
        if isinstance(value, float):
            text = f"{value:.6g}"
        else:
            text = str(value)
        lines.append(f"{key:<{width}}  {text}")
    return "\n".join(lines)


def _command_module_names() -> list[str]:
    """Every ``*.py`` module of this package not starting with ``_`` (a directory listing).

    Cheaper than ``pkgutil.iter_modules`` and still automatic: a new file under
    ``heldout/cli/`` with a ``register(top, size)`` function becomes a command.
    """
    names = set()
    for folder in sys.modules[__name__].__path__:
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for entry in entries:
            stem, dot, ext = entry.partition(".")
            if dot and ext in ("py", "pyc") and stem.isidentifier() and not stem.startswith("_"):
                names.add(stem)
    return sorted(names)


def _command_modules():
    for name in _command_module_names():
        yield importlib.import_module(f"{__name__}.{name}")


def build_parser() -> argparse.ArgumentParser:
    """Build the full ``heldout`` parser with every discovered calculator.

    Examples
    --------
    >>> parser = build_parser()
    >>> parser.prog
    'heldout'
    """
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
    """Run the command line; return the exit status.

    Examples
    --------
    >>> main(["size", "hoeffding", "--range", "14", "--tolerance", "0.1", "--json"])
    {"n": 36152, "range": 14.0, "tolerance": 0.1, "alpha": 0.05, "bound_at_n": 0.04999499336454077, "method": "hoeffding: n >= ln(2/alpha) U^2 / (2 t^2)"}
    0
    >>> main(["size", "hoeffding", "--range", "14", "--tolerance", "-1"])
    2
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "_func", None)
    if func is None:
        if args.command == "size":
            args._size_parser.error("choose what to size, for example 'heldout size hoeffding'")
        parser.error("choose a command, for example 'heldout bound --help'")
    try:
        if hasattr(args, "_alpha_default"):
            _resolve_alpha(args)
        with warnings.catch_warnings(record=True) as caught:
            # numerical warnings (overflow in a far tail, ...) never reach the terminal:
            # a result that matters is checked below, and a refusal is one line; the
            # package's own warnings (UserWarning: a small sample ...) go into the output
            warnings.simplefilter("ignore")
            warnings.simplefilter("always", UserWarning)
            if os.environ.get("HELDOUT_DEPRECATIONS") == "error":  # the test suite sets it
                warnings.filterwarnings("error", category=DeprecationWarning, module=r"heldout\.")
            result = _plain(func(args))
        notes = _warning_texts(caught)
        if notes and isinstance(result, dict):
            result["warnings"] = notes
    except (ValueError, UsageError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    except ImportError as exc:
        _error(
            f"{exc}; this command needs an optional extra, for example (in a clone): pip install '.[mnist]'"
        )
        return EXIT_USAGE
    except (ArithmeticError, TypeError, IndexError, MemoryError) as exc:  # a bug, not bad input
        _error(f"internal error ({type(exc).__name__}: {exc}); please report it")
        return EXIT_INTERNAL
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write(_format_plain(result) + "\n")
    return 0


def _warning_texts(caught) -> list[str]:
    """The messages of the package's warnings (UserWarning and subclasses), once each."""
    out: list[str] = []
    for w in caught:
        if issubclass(w.category, UserWarning) and not issubclass(w.category, DeprecationWarning):
            text = " ".join(str(w.message).split())
            if text not in out:
                out.append(text)
    return out


def _error(message: str) -> None:
    """One line on stderr: whitespace (newlines included) collapsed to single spaces."""
    sys.stderr.write("heldout: error: " + " ".join(message.split()) + "\n")


def run() -> None:
    """Console-script entry point.

    Examples
    --------
    >>> import sys
    >>> sys.argv = ["heldout", "--version"]
    >>> run()
    Traceback (most recent call last):
    ...
    SystemExit: 0
    """
    sys.exit(main())
