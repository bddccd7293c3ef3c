"""book/_ext/heldout_html.py remembers pybtex's plugin lookups during a build: the same
plugins are found, each lookup reads the installed entry points once, and plugins
registered at run time still come first."""

from __future__ import annotations

from pathlib import Path

import pytest
from file_modules import load as _load

ROOT = Path(__file__).resolve().parents[2]
html = _load("heldout_html", ROOT / "book" / "_ext" / "heldout_html.py")

LOOKUPS = [
    ("pybtex.backends", "plaintext"),
    ("pybtex.backends", "latex"),
    ("pybtex.style.formatting", "plain"),
    ("pybtex.style.formatting", None),  # the group's default
]


def test_pybtex_lookups_are_remembered_and_find_the_same_plugins(monkeypatch):
    plugin = pytest.importorskip("pybtex.plugin")
    calls = []
    original = plugin.entry_points

    def counting(**selection):
        calls.append(selection)
        return original(**selection)

    # both restored after the test: the cache lives in this test only
    monkeypatch.setattr(plugin, "entry_points", counting)
    monkeypatch.setattr(plugin, "_RUNTIME_PLUGINS", {})
    expected = [plugin.find_plugin(group, name) for group, name in LOOKUPS]
    assert html.cache_pybtex_plugins() and html.cache_pybtex_plugins()  # once only
    before = len(calls)
    for _ in range(3):
        assert [plugin.find_plugin(group, name) for group, name in LOOKUPS] == expected
    # each lookup read the entry points once (a name may be tried as an alias too)
    assert before < len(calls) <= before + 2 * len(LOOKUPS)
    again = len(calls)
    assert "latex" in set(plugin.enumerate_plugin_names("pybtex.backends"))
    assert len(calls) == again + 1  # listings are not remembered

    class Mine(plugin.Plugin):
        pass

    plugin.register_plugin("pybtex.backends", "latex", Mine, force=True)
    assert plugin.find_plugin("pybtex.backends", "latex") is Mine
