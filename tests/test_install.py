"""`pip install .` with no extras brings only the light core, and the CLI works there.

This builds a fresh virtual environment (with uv, from the test extra, when it is
installed: seconds with a warm cache; with pip about a minute); it needs the package
registries (or a cache) like the rest of `make test`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from install_support import create_venv, distribution_names

ROOT = Path(__file__).resolve().parents[1]

# numpy, scipy, matplotlib and what they pull in; nothing heavy may appear.
ALLOWED = {
    "heldout",
    "numpy",
    "scipy",
    "matplotlib",
    "contourpy",
    "cycler",
    "fonttools",
    "kiwisolver",
    "packaging",
    "pillow",
    "pyparsing",
    "python-dateutil",
    "six",
    "pip",
    "setuptools",
    "wheel",
    "tzdata",
}


@pytest.fixture(scope="module")
def core_env(tmp_path_factory):
    if os.environ.get("HELDOUT_SKIP_INSTALL_TEST"):
        pytest.skip("HELDOUT_SKIP_INSTALL_TEST is set")
    where = tmp_path_factory.mktemp("core-venv")
    # Build from a copy, so that setuptools' build/ folder never lands in the work tree.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "src", source / "src", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__")
    )
    return create_venv(where, [str(source)], timeout=900)


def test_core_install_pulls_only_light_dependencies(core_env):
    names = {n.lower().replace("_", "-") for n in distribution_names(core_env / "bin" / "python")}
    assert {"heldout", "numpy", "scipy", "matplotlib"} <= names
    extra = names - ALLOWED
    assert not extra, f"pip install . (no extras) pulled in {sorted(extra)}"


def test_cli_works_without_extras(core_env):
    exe = core_env / "bin" / "heldout"
    out = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "COMMAND" in out.stdout
    bad = subprocess.run([exe, "nonsense"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    if "bound" in out.stdout:
        res = subprocess.run(
            [exe, "bound", "--errors", "38", "--n", "100", "--delta", "0.05", "--json"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert res.returncode == 0, res.stderr
    assert sys.executable  # the test ran under the project interpreter


LIBRARY_WINGS = (
    "accuracy", "comparison", "dependent", "sequential", "judged", "metrics", "resampling",
)  # fmt: skip


def test_every_library_wing_imports_with_the_core_alone(core_env):
    """Every module of every library wing imports, and runs, with numpy, scipy, matplotlib only."""
    code = (
        "import importlib, pkgutil, sys\n"
        "import heldout\n"
        f"wings = {LIBRARY_WINGS!r}\n"
        "names = []\n"
        "for w in wings:\n"
        "    pkg = importlib.import_module('heldout.' + w)\n"
        "    names += [i.name for i in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.')]\n"
        "for n in names:\n"
        "    importlib.import_module(n)\n"
        "heavy = sorted(m for m in ('sklearn', 'pandas', 'tensorflow', 'xgboost', 'statsmodels',"
        " 'heldout.book') if m in sys.modules)\n"
        "from heldout.metrics import auc_interval\n"
        "from heldout.accuracy import exact_upper\n"
        "print(len(names), heavy, round(exact_upper(38, 100), 4),"
        " round(auc_interval([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]).value, 4))\n"
    )
    out = subprocess.run(
        [core_env / "bin" / "python", "-c", code], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    count, rest = out.stdout.split(" ", 1)
    assert int(count) >= 40
    assert rest.strip() == "[] 0.4668 0.8889"
