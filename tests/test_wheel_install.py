"""The built wheel installs with the book extra in a fresh venv and runs a lesson there.

This is the README's "from a wheel" install, end to end: ``python -m build`` (as ``make
dist`` runs it) builds the sdist and, from the sdist, the wheel into a temporary folder;
the wheel is installed with its ``book`` extra into a fresh venv (uv, from the test extra;
its cache makes this seconds once the light course venv of ``tests/test_course_install.py``
has been built); then, with nothing of the checkout on the path and from a folder outside
it, the venv's Python

* finds the package data the lessons read (the TOML tables, the MNIST writers' file and the
  recorded quick run of the case study);
* runs the ``heldout`` console script;
* executes one lesson (``test_set_bound``, quick profile) with nbclient, as its student
  notebook (the one ``make student`` writes, without solutions and answer cells).

Timing, measured on the shared two-core machine: about 12 s to build (the first time uv
fetches setuptools), a few seconds for the venv with a warm uv cache, and about 15 s for
the lesson.  ``HELDOUT_SKIP_INSTALL_TEST`` skips it, as for ``tests/test_install.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from install_support import create_venv, uv_bin

ROOT = Path(__file__).resolve().parents[1]
LESSON = "test_set_bound"


def _clean_env(**extra: str) -> dict[str, str]:
    drop = {"VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH", "HELDOUT_MNIST_DIR"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    if os.environ.get("HELDOUT_SKIP_INSTALL_TEST"):
        pytest.skip("HELDOUT_SKIP_INSTALL_TEST is set")
    out = tmp_path_factory.mktemp("dist")
    uv = uv_bin()
    installer = ["--installer", "uv"] if uv else []
    env = _clean_env(
        PATH=str(Path(uv).parent) + os.pathsep + os.environ["PATH"] if uv else os.environ["PATH"]
    )
    subprocess.run(
        [sys.executable, "-m", "build", *installer, "--outdir", out, ROOT],
        check=True, capture_output=True, env=env, timeout=900,
    )  # fmt: skip
    return out


@pytest.fixture(scope="module")
def wheel(dist) -> Path:
    (found,) = dist.glob("heldout-*-py3-none-any.whl")
    return found


def _package_data() -> set[str]:
    """The package's files that are not Python sources, as paths inside the wheel."""
    src = ROOT / "src"
    return {
        str(p.relative_to(src))
        for p in (src / "heldout").rglob("*")
        if p.is_file() and p.suffix not in {".py", ".pyc"} and "__pycache__" not in p.parts
    }


def test_wheel_holds_every_package_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    data = _package_data()
    assert {"heldout/book/claims.toml", "heldout/book/decision_chart.toml"} <= data
    assert not data - names, f"missing from the wheel: {sorted(data - names)}"


def test_sdist_holds_the_sources_and_the_data(dist):
    (sdist,) = dist.glob("heldout-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"pyproject.toml", "README.md", "LICENSE"} <= names
    assert {f"src/{p}" for p in _package_data()} <= names


@pytest.fixture(scope="module")
def wheel_env(wheel, tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("wheel-venv")
    return create_venv(where, [f"{wheel}[book]"], env=_clean_env())


def _run(venv_dir: Path, cwd: Path, *args, timeout: float = 300) -> subprocess.CompletedProcess:
    env = _clean_env(
        HELDOUT_QUICK="1", PATH=str(venv_dir / "bin") + os.pathsep + os.environ.get("PATH", "")
    )
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_installed_wheel_reads_its_package_data(wheel_env, tmp_path):
    code = (
        "import heldout, tomllib, numpy as np\n"
        "from importlib.resources import files\n"
        "from pathlib import Path\n"
        "assert 'site-packages' in heldout.__file__, heldout.__file__\n"
        "book = files('heldout.book')\n"
        "claims = tomllib.loads((book / 'claims.toml').read_text())\n"
        "chart = tomllib.loads((book / 'decision_chart.toml').read_text())\n"
        "npz = np.load(Path(str(book / 'mnist' / 'datasets' / 'not_independent_quick.npz')))\n"
        "print(len(claims), len(chart), len(npz.files))\n"
    )
    out = _run(wheel_env, tmp_path, wheel_env / "bin" / "python", "-c", code)
    assert out.returncode == 0, out.stderr[-2000:]
    assert all(int(n) > 0 for n in out.stdout.split())
    cli = _run(wheel_env, tmp_path, wheel_env / "bin" / "heldout", "bound", "--errors", "0",
               "--n", "300", "--alpha", "0.05", "--json")  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    import json

    from scipy import stats

    # the exact bound for no error in 300 items: the 95 % Clopper-Pearson upper limit
    assert json.loads(cli.stdout)["exact"] == pytest.approx(stats.beta.ppf(0.95, 1, 300), rel=1e-9)


def test_installed_wheel_runs_a_lesson(wheel_env, tmp_path):
    """The lesson's student notebook (what ``make student`` hands out): it runs without the
    cells that compute the answers, from a folder outside the checkout."""
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location(
        "heldout_course", ROOT / "book" / "_ext" / "heldout_course.py"
    )
    course = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("heldout_course", course)
    spec.loader.exec_module(course)
    nb = json.loads((ROOT / "notebooks" / f"{LESSON}.ipynb").read_text(encoding="utf-8"))
    student = course.student_notebook(nb)
    assert len(student["cells"]) < len(nb["cells"])  # solutions and answer cells removed
    (tmp_path / f"{LESSON}.ipynb").write_text(json.dumps(student), encoding="utf-8")
    code = (
        "import nbformat, sys\n"
        "from nbclient import NotebookClient\n"
        f"nb = nbformat.read('{LESSON}.ipynb', as_version=4)\n"
        "NotebookClient(nb, timeout=600, kernel_name='python3').execute()\n"
        "print(sum(1 for c in nb.cells if c.cell_type == 'code'))\n"
    )
    out = _run(wheel_env, tmp_path, wheel_env / "bin" / "python", "-c", code, timeout=900)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    assert int(out.stdout.split()[-1]) > 5
