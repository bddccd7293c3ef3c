"""Helpers shared by the command line's tests (``tests/`` is on ``sys.path``)."""

from __future__ import annotations

import json
import subprocess
import sys


def run_heldout(*argv: str, input: str | None = None, timeout: float = 120):
    """``python -m heldout ARGV`` in a subprocess: the CompletedProcess, text captured."""
    return subprocess.run(
        [sys.executable, "-m", "heldout", *argv],
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def leaves(value, key: str = ""):
    """Every ``(key, value)`` leaf of a JSON result (a list's items keep their parent's key)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v, key)
    else:
        yield key, value


def cli_json(capsys, *argv: str, quiet: bool = False) -> dict:
    """``heldout ARGV --json`` in this process: exit status 0, one line of output, parsed.

    ``capsys`` is pytest's fixture; with ``quiet``, nothing may be written to stderr either.
    """
    from heldout.cli import main

    assert main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    if quiet:
        assert err == ""
    lines = out.strip().splitlines()
    assert len(lines) == 1
    return json.loads(lines[0])
