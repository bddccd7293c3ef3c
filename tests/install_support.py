"""Fresh virtual environments for the install tests.

tests/test_install.py (the core alone), tests/test_course_install.py (the light course
install) and tests/test_wheel_install.py (the built wheel) each build a venv that runs the
interpreter running the tests and install something into it: with uv when it is installed
(the test extra has it; seconds with its cache), else with the standard library's venv and
pip (about a minute).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

#: Python code that prints the names of every distribution installed in its environment.
LIST_DISTRIBUTIONS = (
    "import importlib.metadata as m; print(*(d.metadata['Name'] for d in m.distributions()))"
)


def uv_bin() -> str | None:
    """The uv executable of this environment (the test extra installs it), or None."""
    try:
        import uv
    except ImportError:
        return shutil.which("uv")
    return uv.find_uv_bin()


def create_venv(
    where: Path, requirements: list[str], *, env: dict[str, str] | None = None, timeout=1800
) -> Path:
    """A venv at ``where`` running this interpreter, with ``requirements`` installed."""
    where = Path(where)
    py = where / "bin" / "python"
    env = dict(os.environ if env is None else env)
    uv = uv_bin()
    if uv:
        env["UV_PYTHON_DOWNLOADS"] = "never"  # never fetch an interpreter
        env.pop("VIRTUAL_ENV", None)
        subprocess.run([uv, "venv", "--quiet", "--python", sys.executable, where],
                       check=True, env=env, timeout=600)  # fmt: skip
        subprocess.run([uv, "pip", "install", "--quiet", "--python", py, *requirements],
                       check=True, env=env, timeout=timeout)  # fmt: skip
        return where
    venv.EnvBuilder(with_pip=True).create(where)
    subprocess.run(
        [py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
         *requirements],
        check=True, env=env, timeout=timeout,
    )  # fmt: skip
    return where


def distribution_names(python: Path) -> list[str]:
    """The names of the distributions installed in the environment of ``python``."""
    out = subprocess.run(
        [python, "-c", LIST_DISTRIBUTIONS], capture_output=True, text=True, check=True
    ).stdout
    return out.split()
