"""Open every page of the built book in headless Chromium and check that it reads offline.

Usage::

    python tests/browser/check_book.py [--html _build/quick/_build/html]
                                       [--screenshots _build/screenshots]
                                       [--chromium /usr/bin/chromium]

The built HTML is served by a local ``http.server`` on 127.0.0.1 and Chromium is
driven over the Chrome DevTools Protocol (a websocket, through the
``websocket-client`` package).  Chromium resolves no host name but 127.0.0.1, as
with the network cut, and any request that leaves 127.0.0.1 is reported.  For
every page it checks that

* the math is typeset: MathJax rendered every ``.math`` element, no TeX error
  box, and no raw ``$$``, ``\\(`` or ``\\[`` is left in the text;
* every ``<img>`` loaded (``naturalWidth > 0``);
* every link inside the book points to an existing file, and its ``#anchor`` to
  an existing id in that file;
* the console shows no errors (console errors, uncaught exceptions, failed loads);
* nothing is fetched from outside the book;
* the page text shows no ``NaN`` in a table, no unrendered ``$`` (a dollar sign
  outside math and code: math that MyST did not parse, as in a DataFrame's HTML),
  no pandas Series footer (``Name: ..., dtype: ...``) and no local file path of the
  build machine (``/work/``, ``/home/``, ``/root/``, ``site-packages``); these are
  read from the built HTML itself (:func:`page_text_problems`), so they are
  tested without a browser;

and it saves a screenshot of the first screen of each page (chapters and
reference pages) under the screenshot folder.  The search page is also checked
to find a word.  Exit status 0 when every check passes, 1 otherwise.
"""

from __future__ import annotations

import argparse
import base64
import functools
import html.parser
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--hide-scrollbars",
    "--mute-audio",
    "--window-size=1280,900",
    # Resolve nothing but the local server: the book must not need the network.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--remote-debugging-port=0",
    "--remote-allow-origins=*",
]
SKIP_PAGES = {"genindex.html", "py-modindex.html"}
PAGE_TIMEOUT = 30.0

# Run in the page once it has loaded: wait for MathJax, then report what a reader would see.
INSPECT_JS = r"""
(async () => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const mathNodes = () => Array.from(document.querySelectorAll('.math, .math-inline, .math-display'))
      .filter((e) => !e.closest('pre, code, .highlight'));
  if (!document.body) return JSON.stringify({redirect: true, math: 0, typeset: 0, images: [], links: []});
  const out = {mathjax: false, math: 0, typeset: 0, merror: 0, raw: [], images: [], links: [], title: document.title};
  out.math = mathNodes().length;
  if (out.math > 0) {
    for (let i = 0; i < 100 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++) await sleep(100);
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      await MathJax.startup.promise;
      if (MathJax.typesetPromise) await MathJax.typesetPromise();
      out.mathjax = true;
    }
  }
  const math = mathNodes();
  out.typeset = math.filter((e) => e.querySelector('mjx-container') || e.tagName === 'MJX-CONTAINER').length;
  out.merror = document.querySelectorAll('mjx-merror').length;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest('pre, code, script, style, textarea, .highlight, mjx-assistive-mml')) continue;
    if (/\$\$|\\\(|\\\[/.test(n.textContent)) out.raw.push(n.textContent.trim().slice(0, 80));
  }
  const imgs = Array.from(document.images);
  for (let i = 0; i < 50 && imgs.some((im) => !im.complete); i++) await sleep(100);
  out.images = imgs.map((im) => ({src: im.currentSrc || im.src, ok: im.complete && im.naturalWidth > 0}));
  out.links = Array.from(document.querySelectorAll('a[href]')).map((a) => a.href);
  return JSON.stringify(out);
})()
"""


# --------------------------------------------------------------------------- the local server
class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the output to the checks
        pass


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


# --------------------------------------------------------------------------- a tiny CDP client
class Browser:
    """Headless Chromium driven through one DevTools websocket (flat sessions)."""

    def __init__(self, chromium: str):
        import websocket  # websocket-client, in the `test` extra

        self.profile = tempfile.mkdtemp(prefix="heldout-chromium-")
        self.proc = subprocess.Popen(
            [chromium, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and len(port_file.read_text().split()) >= 2):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"{chromium} did not start (exit status {self.proc.returncode})")
            time.sleep(0.05)
        port, path = port_file.read_text().split()[:2]
        self.ws = websocket.create_connection(f"ws://127.0.0.1:{port}{path}", timeout=PAGE_TIMEOUT)
        self._id = 0
        self.events: list[dict] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)

    def call(self, method: str, session: bool = False, timeout: float = PAGE_TIMEOUT, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        self.ws.send(json.dumps(msg))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)
        raise TimeoutError(method)

    def wait_for(self, event: str, timeout: float = PAGE_TIMEOUT) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(e["method"] == event for e in self.events):
                return True
            self.ws.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                reply = json.loads(self.ws.recv())
            except Exception:  # websocket timeout
                break
            finally:
                self.ws.settimeout(PAGE_TIMEOUT)
            if "method" in reply:
                self.events.append(reply)
        return any(e["method"] == event for e in self.events)

    def evaluate(self, expression: str):
        res = self.call(
            "Runtime.evaluate",
            session=True,
            expression=expression,
            awaitPromise=True,
            returnByValue=True,
        )
        if "exceptionDetails" in res:
            raise RuntimeError(res["exceptionDetails"].get("text", "script error"))
        return res["result"].get("value")

    def close(self):
        try:
            if hasattr(self, "ws"):
                self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)


# --------------------------------------------------------------------------- checks
_ID = re.compile(r"""\b(?:id|name)\s*=\s*["']([^"']+)["']""")


@functools.cache
def _anchors(path: Path) -> frozenset[str]:
    return frozenset(unquote(a) for a in _ID.findall(path.read_text(errors="replace")))


def check_link(root: Path, base: str, href: str) -> str | None:
    """None when ``href`` (absolute) is external or resolves inside the book, else the problem."""
    if not href.startswith(base):
        return None
    parts = urlsplit(href)
    rel = unquote(parts.path)[len(urlsplit(base).path) :]
    target = root / rel
    if rel == "" or target.is_dir():
        target = target / "index.html"
    if not target.is_file():
        if target == root / "heldout.pdf":
            return None  # make pdf puts it there; check_links.py --pdf checks it after quickpdf
        return f"broken link {href} (no file {target.relative_to(root)})"
    if (
        parts.fragment
        and target.suffix == ".html"
        and unquote(parts.fragment) not in _anchors(target)
    ):
        return f"broken anchor {href}"
    return None


def _event_errors(events: list[dict], base: str) -> list[str]:
    errors = []
    for e in events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            text = " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", [])
            )
            errors.append(f"console {p['type']}: {text[:200]}")
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            errors.append(
                f"uncaught exception: {d.get('exception', {}).get('description', d.get('text', ''))[:200]}"
            )
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            entry = p["entry"]
            if entry.get("url", "").endswith("/favicon.ico"):  # the browser's own request
                continue
            errors.append(
                f"console {entry.get('source', '')} error: {entry.get('text', '')[:160]} {entry.get('url', '')}"
            )
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if not url.startswith((base, "data:", "blob:", "about:", "chrome")):
                errors.append(f"request outside the book: {url[:160]}")
        elif m == "Network.loadingFailed" and not p.get("canceled"):
            errors.append(f"failed load: {p.get('errorText', '')} (request {p.get('requestId')})")
    return errors


# --------------------------------------------------------------------------- what the page text shows
class _TextRuns(html.parser.HTMLParser):
    """Collect the page's text runs, each with the context a reader sees it in."""

    _VOID = {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, frozenset[str]]] = []
        self.runs: list[tuple[str, frozenset[str]]] = []

    def handle_starttag(self, tag, attrs):
        if tag in self._VOID:
            return
        classes = frozenset((dict(attrs).get("class") or "").split())
        self.stack.append((tag, classes))

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):  # tolerate unclosed tags
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        if not data.strip():
            return
        context = set()
        for tag, classes in self.stack:
            context.add(tag)
            context.update(f".{c}" for c in classes)
        self.runs.append((data, frozenset(context)))


def _runs(page_html: str) -> list[tuple[str, frozenset[str]]]:
    parser = _TextRuns()
    parser.feed(page_html)
    parser.close()
    return [(t, c) for t, c in parser.runs if not c & {"script", "style", "head", "title"}]


_NAN = re.compile(r"(?<![\w.])(?:nan|NaN|NAN)(?![\w.(])")
_SERIES_FOOTER = re.compile(
    r"(?:Name: [^\n]*, )?[Dd]type: (?:int|uint|float|object|bool|category|complex|string|datetime)\w*"
)
_LOCAL_PATH = re.compile(r"(?<![\w.])/(?:work|home|root|Users)/|site-packages|dist-packages")
_CODE = {"pre", "code", "kbd", "samp", "textarea", ".highlight", ".cell_input"}
_MATH = {".math", ".math-inline", ".math-display", "mjx-container", "math"}


def nan_in_tables(page_html: str) -> list[str]:
    """Table cells (outside code) that show NaN."""
    return [
        t.strip()
        for t, c in _runs(page_html)
        if c & {"td", "th"} and not c & _CODE and _NAN.search(t)
    ]


def raw_dollars(page_html: str) -> list[str]:
    """Text outside math and code that still shows a ``$``: math left unrendered."""
    return [t.strip() for t, c in _runs(page_html) if "$" in t and not c & (_CODE | _MATH)]


def series_footers(page_html: str) -> list[str]:
    """A pandas Series printed raw (its ``Name: ..., dtype: ...`` footer), outside code cells."""
    return [
        m.group(0)
        for t, c in _runs(page_html)
        if ".cell_input" not in c
        for m in _SERIES_FOOTER.finditer(t)
    ]


#: The checkout the book was built from, wherever it lives (a clone in /tmp too).
_ROOT = str(Path(__file__).resolve().parents[2])


def local_paths(page_html: str) -> list[str]:
    """Paths of the build machine anywhere in the page text (sources and outputs alike)."""
    return [t.strip()[:120] for t, c in _runs(page_html) if _LOCAL_PATH.search(t) or _ROOT in t]


def page_text_problems(page_html: str) -> list[str]:
    """All four text checks of one page, as problems for the report."""
    problems = [f"NaN in a table: {t!r}" for t in nan_in_tables(page_html)[:5]]
    problems += [f"unrendered $: {t[:80]!r}" for t in raw_dollars(page_html)[:5]]
    problems += [f"pandas Series footer: {t!r}" for t in series_footers(page_html)[:5]]
    problems += [f"local file path: {t!r}" for t in local_paths(page_html)[:5]]
    return problems


# Chapters that legitimately have no figure; every other chapter page must show one.
FIGURE_FREE = {"notebooks/reproduction_ledger.html", "notebooks/answer-key.html"}

_REFRESH = re.compile(r"""<meta[^>]+http-equiv=["']refresh["'][^>]+url=([^"'>]+)""", re.I)


def check_page(
    browser: Browser, root: Path, base: str, rel: str, shots: Path | None
) -> tuple[dict, list[str]]:
    redirect = _REFRESH.search((root / rel).read_text(errors="replace"))
    if redirect:  # a redirect page (the book's index.html): its target must exist
        issue = check_link(
            root,
            base,
            base + (Path(rel).parent / redirect.group(1).strip()).as_posix().lstrip("./"),
        )
        return {"math": 0, "typeset": 0, "images": [], "links": [redirect.group(1)]}, [
            issue
        ] if issue else []
    browser.events.clear()
    browser.call("Page.navigate", session=True, url=base + rel)
    problems = page_text_problems((root / rel).read_text(errors="replace"))
    if not browser.wait_for("Page.loadEventFired"):
        problems.append("page did not finish loading")
    info = json.loads(browser.evaluate(INSPECT_JS))
    if info["math"]:
        if not info["mathjax"]:
            problems.append(f"{info['math']} math elements but MathJax did not start")
        elif info["typeset"] < info["math"]:
            problems.append(f"only {info['typeset']} of {info['math']} math elements typeset")
    if info["merror"]:
        problems.append(f"{info['merror']} MathJax TeX errors")
    problems += [f"raw TeX left: {t!r}" for t in info["raw"][:5]]
    problems += [f"image did not load: {im['src']}" for im in info["images"] if not im["ok"]]
    if rel.startswith("notebooks/") and rel not in FIGURE_FREE and not info["images"]:
        # A non-interactive matplotlib backend in the build silently drops every figure.
        problems.append("chapter shows no figure: were its plots rendered? (matplotlib backend)")
    for href in sorted(set(info["links"])):
        issue = check_link(root, base, href)
        if issue:
            problems.append(issue)
    browser.wait_for("never", timeout=0.3)  # collect late console messages
    problems += _event_errors(browser.events, base)
    if shots is not None:
        png = browser.call("Page.captureScreenshot", session=True, format="png")["data"]
        name = rel.removesuffix(".html").replace("/", "__") + ".png"
        (shots / name).write_bytes(base64.b64decode(png))
    return info, problems


def check_search(browser: Browser, base: str, word: str) -> list[str]:
    browser.events.clear()
    browser.call("Page.navigate", session=True, url=f"{base}search.html?q={word}")
    browser.wait_for("Page.loadEventFired")
    js = """(async () => { for (let i = 0; i < 100; i++) {
        const n = document.querySelectorAll('#search-results li, ul.search li').length;
        if (n) return n; await new Promise((r) => setTimeout(r, 100)); } return 0; })()"""
    found = browser.evaluate(js)
    problems = [] if found else [f"search for {word!r} found nothing"]
    return problems + _event_errors(browser.events, base)


def pages(root: Path) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in ("_static", "_sources", "_images") or rel in SKIP_PAGES:
            continue
        out.append(rel)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--html", default="_build/quick/_build/html", help="the built book")
    parser.add_argument(
        "--screenshots", default="_build/screenshots", help="where to save screenshots"
    )
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    parser.add_argument("--search-word", default="binomial")
    args = parser.parse_args(argv)

    root = Path(args.html).resolve()
    if not (root / "index.html").is_file():
        print(f"check_book: no built book at {root} (run make quickbook first)", file=sys.stderr)
        return 2
    if not shutil.which(args.chromium):
        print(f"check_book: {args.chromium} not found (apt-get install chromium)", file=sys.stderr)
        return 2
    shots = Path(args.screenshots)
    shots.mkdir(parents=True, exist_ok=True)

    t0 = time.monotonic()
    server, base = serve(root)
    browser = Browser(args.chromium)
    failed: dict[str, list[str]] = {}
    try:
        todo = pages(root)
        for rel in todo:
            shot_dir = None if rel in ("search.html",) else shots
            info, problems = check_page(browser, root, base, rel, shot_dir)
            status = "ok" if not problems else "FAIL"
            print(
                f"{status:4s} {rel:45s} math {info['typeset']:>3}/{info['math']:<3} "
                f"images {sum(im['ok'] for im in info['images'])}/{len(info['images'])}  links {len(set(info['links']))}"
            )
            for p in problems:
                print(f"       - {p}")
            if problems:
                failed[rel] = problems
        search_problems = check_search(browser, base, args.search_word)
        print(f"{'ok' if not search_problems else 'FAIL':4s} search for {args.search_word!r}")
        for p in search_problems:
            print(f"       - {p}")
        if search_problems:
            failed["search"] = search_problems
    finally:
        browser.close()
        server.shutdown()
    n = len(todo) + 1
    print(
        f"browser: {n - len(failed)} passed, {len(failed)} failed in {time.monotonic() - t0:.1f} s; screenshots in {shots}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
