"""The command-line frame: version, help, one-line errors with exit status 2."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import heldout


def run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "heldout", *argv], capture_output=True, text=True, timeout=120
    )


def test_version():
    out = run("--version")
    assert out.returncode == 0
    assert out.stdout.strip() == f"heldout {heldout.__version__}"


def test_help_lists_commands():
    out = run("--help")
    assert out.returncode == 0
    assert "size" in out.stdout and "COMMAND" in out.stdout


@pytest.mark.parametrize(
    "argv",
    [["nonsense"], [], ["size"], ["size", "nonsense"], ["--no-such-flag"]],
)
def test_bad_usage_is_one_line_and_exit_2(argv):
    out = run(*argv)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("heldout")
    assert "Traceback" not in out.stderr


def test_every_calculator_has_json_flag():
    parser = __import__("heldout.cli", fromlist=["build_parser"]).build_parser()
    sub = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"][0]
    checked = 0
    for name, p in sub.choices.items():
        if name == "size":
            inner = [a for a in p._actions if a.__class__.__name__ == "_SubParsersAction"][0]
            parsers = list(inner.choices.values())
        else:
            parsers = [p]
        for q in parsers:
            assert any("--json" in a.option_strings for a in q._actions), q.prog
            checked += 1
    assert checked >= 1


def test_console_script_installed():
    exe = Path(sys.executable).with_name("heldout")
    if not exe.exists():
        exe = shutil.which("heldout")
    assert exe, "the heldout console script is not installed beside the interpreter"
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
