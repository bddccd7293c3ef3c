"""The publishing workflow (.github/workflows/book.yml) cannot run here; it is checked.

It must be a valid GitHub Actions workflow (check-jsonschema's copy of the SchemaStore
schema ships in its wheel, so this works offline), build with the README's ``make book``
rather than a copy of its recipe, keep the execution and prediction caches between runs
and deploy what ``make book`` builds to GitHub Pages.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def _check_jsonschema() -> str:
    exe = Path(sys.executable).with_name("check-jsonschema")
    found = str(exe) if exe.exists() else shutil.which("check-jsonschema")
    if not found:
        pytest.fail("check-jsonschema is missing: it is in the test extra (pip install -e .[test])")
    return found


def _validate(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [_check_jsonschema(), "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _steps() -> list[dict]:
    return [step for job in _workflow()["jobs"].values() for step in job.get("steps", [])]


def _uses(step: dict) -> str:
    return step.get("uses", "").split("@")[0]


def test_workflow_is_valid_for_github_actions(tmp_path):
    out = _validate(WORKFLOW)
    assert out.returncode == 0, out.stdout + out.stderr
    broken = _workflow()
    broken["jobs"]["build"]["steps"] = "make book"  # steps must be a list of steps
    (tmp_path / "broken.yml").write_text(yaml.safe_dump(broken))
    assert _validate(tmp_path / "broken.yml").returncode != 0


def _readme_build_command() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"^(make book)\b", readme, re.M)
    assert commands, "the README gives `make book` as the command that builds the book"
    return commands[0]


def test_workflow_builds_with_the_readme_command_not_a_copy():
    runs = [step["run"].strip() for step in _steps() if "run" in step]
    assert _readme_build_command() in runs
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^book:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    tools = set(re.findall(r"\$\(BIN\)/([\w-]+)", recipe)) | {"pip", "jupyter-book"}
    for run in runs:
        for tool in tools:
            assert not re.search(rf"\b{re.escape(tool)}\b", run), (
                f"the workflow runs {tool} itself ({run!r}); call make book instead"
            )


def test_workflow_keeps_the_execution_and_prediction_caches():
    build = _workflow()["jobs"]["build"]
    cache_dir = build["env"]["HELDOUT_CACHE_DIR"].replace("${{ github.workspace }}/", "")
    caches = [step for step in build["steps"] if _uses(step) == "actions/cache"]
    assert len(caches) == 1
    paths = caches[0]["with"]["path"].split()
    assert "_build/.jupyter_cache" in paths and cache_dir in paths
    assert caches[0]["with"]["restore-keys"].strip(), "a changed source still restores the cache"
    order = [_uses(s) or s.get("run") for s in build["steps"]]
    assert order.index("actions/cache") < order.index("make book")


def test_workflow_deploys_the_built_html_to_pages_on_push_to_main():
    wf = _workflow()
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as True
    assert on["push"]["branches"] == ["main"]
    assert wf["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    upload = next(s for s in _steps() if _uses(s) == "actions/upload-pages-artifact")
    assert upload["with"]["path"] == "_build/html"
    assert "Built: $(CURDIR)/_build/html/index.html" in (ROOT / "Makefile").read_text()
    deploy = wf["jobs"]["deploy"]
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert [_uses(s) for s in deploy["steps"]] == ["actions/deploy-pages"]
