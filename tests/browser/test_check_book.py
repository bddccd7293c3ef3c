"""Tests of the browser check itself (tests/browser/check_book.py) on a tiny synthetic site.

The link and console checks are tested without a browser.  The end-to-end test
drives headless Chromium over a two-page site that has one of each fault the
check must catch; it is skipped when Chromium (or websocket-client) is absent,
so the normal ``pytest`` run stays fast and offline.  ``make test`` runs the real
check on the whole built book.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("check_book", HERE / "check_book.py")
check_book = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_book)

BASE = "http://127.0.0.1:8000/"


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    (tmp_path / "book").mkdir()
    (tmp_path / "index.html").write_text(
        '<meta http-equiv="Refresh" content="0; url=book/a.html" />'
    )
    (tmp_path / "book" / "a.html").write_text(
        '<html><body><h1 id="top">A</h1><a href="b.html#part">to b</a></body></html>'
    )
    (tmp_path / "book" / "b.html").write_text(
        '<html><body><section id="part">B</section></body></html>'
    )
    return tmp_path


def test_links_resolve_to_files_and_anchors(site):
    ok = check_book.check_link
    assert ok(site, BASE, BASE + "book/b.html#part") is None
    assert ok(site, BASE, BASE + "book/a.html") is None
    assert ok(site, BASE, BASE) is None  # the folder's index.html
    assert ok(site, BASE, "https://example.org/elsewhere") is None  # external: not ours to check
    assert "broken anchor" in ok(site, BASE, BASE + "book/b.html#nowhere")
    assert "broken link" in ok(site, BASE, BASE + "book/c.html")


def test_pages_skip_assets_and_indices(site):
    (site / "_static").mkdir()
    (site / "_static" / "x.html").write_text("asset")
    (site / "genindex.html").write_text("index")
    assert check_book.pages(site) == ["book/a.html", "book/b.html", "index.html"]


def test_console_events_become_problems():
    events = [
        {
            "method": "Runtime.consoleAPICalled",
            "params": {"type": "error", "args": [{"value": "boom"}]},
        },
        {
            "method": "Runtime.consoleAPICalled",
            "params": {"type": "log", "args": [{"value": "fine"}]},
        },
        {"method": "Runtime.exceptionThrown", "params": {"exceptionDetails": {"text": "Uncaught"}}},
        {
            "method": "Log.entryAdded",
            "params": {"entry": {"level": "error", "text": "404", "url": BASE + "x.png"}},
        },
        {
            "method": "Log.entryAdded",
            "params": {"entry": {"level": "error", "url": BASE + "favicon.ico"}},
        },
        {
            "method": "Network.requestWillBeSent",
            "params": {"request": {"url": "https://cdn.example.org/m.js"}},
        },
        {
            "method": "Network.requestWillBeSent",
            "params": {"request": {"url": BASE + "_static/m.js"}},
        },
    ]
    problems = check_book._event_errors(events, BASE)
    assert len(problems) == 4
    assert any("boom" in p for p in problems) and any("cdn.example.org" in p for p in problems)
    assert not any("favicon" in p for p in problems)


def _mathjax_dir() -> Path | None:
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax"
    return path if (path / "tex-chtml.js").is_file() else None


def test_end_to_end_in_chromium(tmp_path: Path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (make test installs it)")
    pytest.importorskip("websocket")
    mathjax = _mathjax_dir()
    if mathjax is None:
        pytest.skip("sphinx-mathjax-offline is not installed")
    shutil.copytree(mathjax, tmp_path / "mathjax")
    head = '<script defer src="mathjax/tex-chtml.js"></script>'
    (tmp_path / "index.html").write_text(
        f'<html><head>{head}</head><body><p><span class="math">\\(x^2\\)</span></p>'
        '<a href="bad.html#x">bad</a></body></html>'
    )
    (tmp_path / "bad.html").write_text(
        f'<html><head>{head}</head><body><span class="math">\\(\\frac{{1}}{{2}}\\)</span>'
        '<img src="missing.png"><script>console.error("oops")</script></body></html>'
    )
    server, base = check_book.serve(tmp_path)
    browser = check_book.Browser(chromium)
    try:
        info, problems = check_book.check_page(browser, tmp_path, base, "index.html", None)
        assert info["math"] == 1 and info["typeset"] == 1
        assert problems == ["broken anchor " + base + "bad.html#x"]
        info, problems = check_book.check_page(browser, tmp_path, base, "bad.html", tmp_path)
        assert info["typeset"] == 1
        assert any("image did not load" in p for p in problems)
        assert any("oops" in p for p in problems)
        assert (tmp_path / "bad.png").stat().st_size > 1000
    finally:
        browser.close()
        server.shutdown()
