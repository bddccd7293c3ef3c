"""Parsers of command-line values shared by several commands (not a command itself)."""

from __future__ import annotations

from heldout.cli import UsageError


def shares(text: str | None) -> dict | None:
    """``"A=0.6,B=0.4"`` as ``{"A": 0.6, "B": 0.4}`` (None stays None).

    Examples
    --------
    >>> shares("census=0.5, students=0.5")
    {'census': 0.5, 'students': 0.5}
    """
    if text is None:
        return None
    out = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--shares must look like A=0.6,B=0.4, got {text!r}")
        try:
            out[key.strip()] = float(value)
        except ValueError:
            raise UsageError(f"--shares: {value!r} is not a number") from None
    return out
