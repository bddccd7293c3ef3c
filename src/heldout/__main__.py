"""Allow ``python -m heldout``."""

from heldout.cli import run

run()
