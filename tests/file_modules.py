"""Loading a script that is not in a package (the book's extensions, the test tools)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def load(name: str, path: Path):
    """The module in ``path``, imported as ``name`` (and kept in ``sys.modules``:
    dataclasses look their module up there)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module
