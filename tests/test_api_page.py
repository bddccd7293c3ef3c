"""The API reference (book/api.md) is generated from the package, by wing, and up to date."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "book" / "_ext" / "api_page.py"


def test_the_page_is_up_to_date():
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], cwd=ROOT)
    assert done.returncode == 0, "book/api.md is stale: run python book/_ext/api_page.py"


def test_every_module_of_every_wing_is_documented_under_its_wing():
    import pkgutil

    import heldout

    text = (ROOT / "book" / "api.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\.\. automodule:: (\S+)", text, flags=re.M)
    public = [
        info.name
        for info in pkgutil.walk_packages(heldout.__path__, "heldout.")
        if not any(p.startswith("_") for p in info.name.split(".")[1:])
        and not info.name.startswith("heldout.cli.")
    ]
    assert sorted(set(public) - set(documented)) == []
    # a wing's modules follow the wing's own section
    for wing in ("accuracy", "comparison", "dependent", "judged", "metrics", "resampling", "book"):
        first = documented.index(f"heldout.{wing}")
        members = [i for i, m in enumerate(documented) if m.startswith(f"heldout.{wing}.")]
        assert members and min(members) > first, wing
