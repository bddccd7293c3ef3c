r"""Beamer slides for every lesson, built from the lesson's own executed notebook.

A deck is generated, not written by hand, so a lesson added to Part I of ``_toc.yml`` gets
one for free and no slide can disagree with its page: every number comes from the lesson's
glued values (``<lesson>.glue.json`` beside the executed notebook) and every figure is a
PNG output of the executed notebook itself.  The frames, 8 to 15 per lesson:

1. the title and the lesson's one-line question;
2. the question card (question, prerequisites, what the student can do after it);
3. the key picture (the lesson's first figure);
4. the formula or procedure (the first displayed formula, with the sentence before it);
5. the worked example (the ``parameters`` cell and the first computation shown on the page);
6. one frame per section (its opening paragraph, and its first figure if it has one);
7. the rule (the lesson's ``The rule`` box);
8. a check-your-understanding question (the lesson's first Concept exercise).

``python -m heldout.book.course.slides --executed DIR --out DIR`` writes
``<out>/<lesson>/deck.tex`` and its figures and, with XeLaTeX, ``<out>/<lesson>.pdf``; it
refuses a lesson whose executed notebook is missing, a glue name the notebook does not
define, and a deck outside 8-15 frames.  :func:`check_deck` checks a built deck (every
figure present, no unresolved reference, the PDF's page count equal to its frames).

Examples
--------
>>> print(tex_text("A **bold** claim & 10 % of {term}`items <item>`.", {}))
A \textbf{bold} claim \& 10 \% of items.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from heldout._result import Result

__all__ = ["DeckCheck", "build_deck", "check_deck", "lesson_names", "tex_text"]

MIN_FRAMES, MAX_FRAMES = 8, 15
_ROLE = re.compile(r"\{([a-z:]+)\}`([^`]*)`")
_MATH = re.compile(r"(\$\$.+?\$\$|\$[^$\n]+?\$)", re.S)
_GLUE = re.compile(r"\{glue(?::text)?\}`([^`]+)`")


def lesson_names(toc) -> list[str]:
    """The lessons (notebook names) of the part of ``_toc.yml`` captioned "Part I".

    Examples
    --------
    >>> from pathlib import Path
    >>> root = Path(__file__).resolve().parents[4]
    >>> lesson_names(root / "_toc.yml")[0]
    'test_set_bound'
    """
    import yaml

    data = yaml.safe_load(Path(toc).read_text(encoding="utf-8"))
    for part in data.get("parts", []):
        if str(part.get("caption", "")).startswith("Part I:"):
            return [Path(c["file"]).name for c in part.get("chapters", [])]
    raise ValueError(f"toc: no part captioned 'Part I: ...' in {Path(toc).name}")


# ---------------------------------------------------------------- text
def _escape(text: str) -> str:
    out = []
    for ch in text:
        if ch == "\\":
            out.append(r"\textbackslash{}")
        elif ch in "&%#_{}":
            out.append("\\" + ch)
        elif ch == "~":
            out.append(r"\textasciitilde{}")
        elif ch == "^":
            out.append(r"\textasciicircum{}")
        else:
            out.append(ch)
    return "".join(out)


def _role(match: re.Match) -> str:
    role, body = match.group(1), match.group(2)
    shown = re.match(r"^(.*?)\s*<[^>]*>$", body, flags=re.S)
    if role == "math":
        return f"${body}$"
    if role.startswith("cite"):
        return ""
    if shown:
        return shown.group(1)
    if role == "doc":
        return Path(body).name.replace("_", " ")
    if role in ("ref", "numref", "eq"):
        return "(see the lesson)"
    return body


def _plain(text: str) -> str:
    """Markdown outside math to LaTeX: code spans, bold, italics, links, escapes."""
    pieces = re.split(r"(`[^`]*`)", text)
    out = []
    for piece in pieces:
        if piece.startswith("`") and piece.endswith("`") and len(piece) >= 2:
            out.append(r"\texttt{" + _escape(piece[1:-1]) + "}")
            continue
        piece = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", piece)
        piece = _escape(piece)
        piece = re.sub(r"\*\*(.+?)\*\*", r"\\textbf{\1}", piece, flags=re.S)
        piece = re.sub(
            r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\\emph{\1}", piece, flags=re.S
        )
        out.append(piece)
    return "".join(out)


def _glue(text: str, glue: dict) -> str:
    def value(match):
        name = match.group(1).split(":")[0]
        if name not in glue:
            raise ValueError(f"glue: the lesson's text uses {name!r}, which it never glues")
        return glue[name]

    return _GLUE.sub(value, text)


def tex_text(text: str, glue: dict) -> str:
    """A MyST paragraph as LaTeX: glued values filled in, roles to their text, math kept.

    Examples
    --------
    >>> tex_text("{glue:text}`k` errors; see {doc}`two_models`", {"k": "38"})
    '38 errors; see two models'
    """
    text = _ROLE.sub(_role, _glue(text, glue))
    out = []
    for piece in _MATH.split(text):
        if piece.startswith("$$"):
            body = re.sub(r"\\label\{[^}]*\}", "", piece[2:-2]).strip()
            out.append(r"\[" + body + r"\]")
        elif piece.startswith("$") and piece.endswith("$") and len(piece) > 1:
            out.append(piece)
        else:
            out.append(_plain(piece))
    return re.sub(r"[ \t]+", " ", "".join(out)).strip()


def _shorten(paragraph: str, words: int = 70) -> str:
    """The paragraph cut after the sentence that reaches ``words`` words, math kept whole."""
    if len(paragraph.split()) <= words:
        return paragraph
    count = 0
    for match in re.finditer(r"(?<=[.!?])\s+(?=[A-Z(])", paragraph):
        head = paragraph[: match.start()]
        count = len(head.split())
        if count >= words // 2 and head.count("$") % 2 == 0:
            return head
    return paragraph


# ---------------------------------------------------------------- reading the notebook
@dataclass
class _Lesson:
    title: str
    subtitle: str
    card: dict
    rule: str
    sections: list  # (title, paragraph, [figure indices])
    figures: list  # PNG bytes in page order
    formula: tuple  # (sentence, display math) or None
    parameters: str
    example: tuple  # (code, output) or None
    exercise: tuple  # (title, text)


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _tags(cell) -> set:
    return set(cell.get("metadata", {}).get("tags", []))


def _card(md: str) -> dict:
    m = re.search(r"```\{admonition\} About this lesson\n(.*?)\n```", md, flags=re.S)
    if not m:
        raise ValueError("card: the lesson has no 'About this lesson' card")
    body = "\n".join(line for line in m.group(1).splitlines() if not line.startswith(":"))
    fields = {}
    for name, text in re.findall(
        r"\*\*([^*]+?):\*\*\s*(.*?)(?=\n?\*\*[^*]+?:\*\*|\Z)", body, flags=re.S
    ):
        fields[name.strip()] = " ".join(text.split())
    return fields


def _rule(md: str) -> str:
    m = re.search(r"```\{admonition\} The rule\n(.*?)\n```", md, flags=re.S)
    if not m:
        raise ValueError("rule: the lesson has no 'The rule' box")
    return " ".join(line for line in m.group(1).splitlines() if not line.startswith(":"))


def _exercise(md: str) -> tuple:
    found = re.findall(r"```\{exercise\}\s*(.*?)\n(.*?)\n```", md, flags=re.S)
    if not found:
        raise ValueError("exercise: the lesson has no exercise")
    concept = [f for f in found if f[0].startswith("Concept")]
    title, body = (concept or found)[0]
    text = " ".join(line for line in body.splitlines() if not line.startswith(":"))
    return title.strip(), text


def _paragraphs(md: str) -> list[str]:
    out = []
    for block in re.split(r"\n\s*\n", md):
        block = block.strip()
        if not block or block.startswith(
            ("#", "(", "```", ":::", "|", "<", "-", "Rerun", "To rerun")
        ):
            continue
        if "{glue:figure}" in block:
            continue
        out.append(" ".join(block.split()))
    return out


def _text_output(cell) -> str:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            return "".join(out.get("text", ""))
        data = out.get("data", {})
        if "text/plain" in data:
            return "".join(data["text/plain"])
    return ""


def read_lesson(notebook) -> _Lesson:
    """The parts of an executed lesson notebook that the slides use."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    cells = nb["cells"]
    markdown = "\n\n".join(_source(c) for c in cells if c["cell_type"] == "markdown")
    head = markdown.lstrip().splitlines()
    title = head[0].lstrip("# ").strip()
    sub = re.search(r"^\*(.+?)\*\s*$", markdown, flags=re.M | re.S)
    sections, figures, current = [], [], None
    example = None
    parameters = ""
    before_rule = True
    for cell in cells:
        text = _source(cell)
        if cell["cell_type"] == "markdown":
            for part in re.split(r"^(## .*)$", text, flags=re.M):
                if part.startswith("## "):
                    name = part[3:].strip()
                    if name in ("The rule", "Exercises"):
                        before_rule = False
                    if before_rule:
                        current = [name, "", []]
                        sections.append(current)
                elif current is not None and before_rule and len(current[1].split()) < 45:
                    for para in _paragraphs(part):
                        if len(current[1].split()) >= 45:
                            break
                        current[1] = f"{current[1]}\n\n{para}".strip()
            continue
        tags = _tags(cell)
        if "parameters" in tags:
            parameters = text
        for out in cell.get("outputs", []):
            png = out.get("data", {}).get("image/png")
            if png and before_rule and "remove-output" not in tags and "remove-cell" not in tags:
                figures.append(base64.b64decode("".join(png) if isinstance(png, list) else png))
                if current is not None:
                    current[2].append(len(figures) - 1)
        visible = not tags & {"hide-input", "remove-cell", "remove-input", "parameters"}
        if example is None and visible and parameters:
            output = _text_output(cell)
            if output and text.strip():
                example = (text, output)
    formula = None
    m = re.search(r"((?:[^\n]+\n)*?)\n*\$\$(.+?)\$\$", markdown, flags=re.S)
    if m:
        lead = _paragraphs(m.group(1))
        formula = (lead[-1] if lead else "", m.group(2).strip())
    return _Lesson(
        title=title,
        subtitle=sub.group(1) if sub else "",
        card=_card(markdown),
        rule=_rule(markdown),
        sections=[s for s in sections if s[1] or s[2]],
        figures=figures,
        formula=formula,
        parameters=parameters,
        example=example,
        exercise=_exercise(markdown),
    )


# ---------------------------------------------------------------- the deck
_PREAMBLE = r"""\documentclass[aspectratio=169,11pt]{beamer}
\usetheme{default}
\setbeamertemplate{navigation symbols}{}
\setbeamertemplate{footline}[frame number]
\usepackage{amsmath,amssymb}
\usepackage{fontspec}
\setsansfont{FreeSans}
\setmonofont{FreeMono}
\usepackage{graphicx}
\newcommand{\E}{\mathbb{E}}
"""


def _verbatim(text: str, lines: int = 12, width: int = 88) -> str:
    rows = [r[:width] for r in text.rstrip().splitlines()[:lines]]
    return "\n".join(rows).replace("\\end{verbatim}", "")


def _figure_frame(title: str, path: str, caption: str = "") -> str:
    cap = f"\n\\par\\small {caption}" if caption else ""
    return (
        f"\\begin{{frame}}{{{title}}}\n\\centering\n"
        f"\\includegraphics[width=\\textwidth,height=0.78\\textheight,keepaspectratio]{{{path}}}{cap}\n"
        "\\end{frame}\n"
    )


def build_deck(notebook, glue_file, folder) -> tuple[str, list[str]]:
    """Write ``deck.tex`` and its figures for one lesson; return the source and figure files.

    Examples
    --------
    >>> build_deck("/nonexistent/x.ipynb", "/nonexistent/x.glue.json", "/tmp")
    Traceback (most recent call last):
    ...
    ValueError: notebook: no executed notebook 'x.ipynb' (build the book first: make quickbook)
    """
    notebook, folder = Path(notebook), Path(folder)
    if not notebook.is_file():
        raise ValueError(
            f"notebook: no executed notebook {notebook.name!r} (build the book first: make quickbook)"
        )
    glue = {}
    if Path(glue_file).is_file():
        for name, out in json.loads(Path(glue_file).read_text(encoding="utf-8")).items():
            text = out.get("data", {}).get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            glue[name] = text[1:-1] if len(text) >= 2 and text[0] == text[-1] == "'" else text
    lesson = read_lesson(notebook)
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for i, png in enumerate(lesson.figures):
        path = folder / f"fig{i}.png"
        path.write_bytes(png)
        files.append(path.name)

    def t(text):
        return tex_text(_shorten(text), glue)

    card = lesson.card
    frames = [
        "\\begin{frame}\n\\titlepage\n\\end{frame}\n",
        "\\begin{frame}{The question}\n"
        f"{t(card.get('Question', ''))}\n\n\\bigskip\\small\n"
        f"\\textbf{{Before:}} {t(card.get('Prerequisites', ''))}\n\n\\medskip\n"
        f"\\textbf{{After it you can:}} {t(card.get('After it you can', ''))}\n\\end{{frame}}\n",
    ]
    used = set()
    if files:
        frames.append(_figure_frame("The key picture", files[0]))
        used.add(0)
    if lesson.formula:
        sentence, math = lesson.formula
        math = re.sub(r"\\label\{[^}]*\}", "", math)
        frames.append(
            "\\begin{frame}{The formula}\n" + t(sentence) + "\n\\[" + math + "\\]\n\\end{frame}\n"
        )
    if lesson.parameters:
        frames.append(
            "\\begin{frame}[fragile]{The worked example: its inputs}\n\\footnotesize\n"
            f"\\begin{{verbatim}}\n{_verbatim(lesson.parameters)}\n\\end{{verbatim}}\n\\end{{frame}}\n"
        )
    if lesson.example:
        code, output = lesson.example
        frames.append(
            "\\begin{frame}[fragile]{The worked example: the computation}\n\\footnotesize\n"
            f"\\begin{{verbatim}}\n{_verbatim(code, 10)}\n\\end{{verbatim}}\n"
            f"\\begin{{verbatim}}\n{_verbatim(output, 6)}\n\\end{{verbatim}}\n\\end{{frame}}\n"
        )
    tail = [
        f"\\begin{{frame}}{{The rule}}\n\\begin{{block}}{{The rule}}\n{t(lesson.rule)}\n\\end{{block}}\n\\end{{frame}}\n",
        "\\begin{frame}{Check your understanding}\n"
        f"\\textbf{{{tex_text(lesson.exercise[0], glue)}}}\n\n\\medskip\n{t(lesson.exercise[1])}\n\\end{{frame}}\n",
    ]
    room = MAX_FRAMES - len(frames) - len(tail)
    middle = []
    for name, paragraph, figs in lesson.sections:
        if len(middle) >= room:
            break
        fresh = [f for f in figs if f not in used]
        if lesson.formula and lesson.formula[0] and paragraph.startswith(lesson.formula[0][:60]):
            paragraph = ""  # already on the formula's frame
        if paragraph:
            middle.append(
                f"\\begin{{frame}}{{{tex_text(name, glue)}}}\n{t(paragraph)}\n\\end{{frame}}\n"
            )
        if fresh and len(middle) < room:
            used.add(fresh[0])
            middle.append(_figure_frame(tex_text(name, glue), files[fresh[0]]))
    frames += middle + tail
    if not MIN_FRAMES <= len(frames) <= MAX_FRAMES:
        raise ValueError(
            f"frames: {notebook.stem} gives {len(frames)} frames, not {MIN_FRAMES}-{MAX_FRAMES}"
        )
    title = tex_text(lesson.title, glue)
    subtitle = tex_text(lesson.subtitle, glue)
    source = (
        _PREAMBLE
        + f"\\title{{{title}}}\n\\subtitle{{{subtitle}}}\n\\author{{heldout: slides of the lesson}}\n\\date{{}}\n"
        + "\\begin{document}\n"
        + "\n".join(frames)
        + "\\end{document}\n"
    )
    (folder / "deck.tex").write_text(source, encoding="utf-8")
    return source, [f for f in files if f in source]


@dataclass(frozen=True)
class DeckCheck(Result):
    """What :func:`check_deck` found: frames, pages, figures and problems (empty when fine)."""

    lesson: str
    frames: int
    pages: int
    figures: int
    problems: tuple[str, ...]


def _compile(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["xelatex", "-interaction=nonstopmode", "-halt-on-error", "deck.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )


def check_deck(folder) -> DeckCheck:
    """Check a built deck: 8-15 frames, every figure file present, no unresolved
    reference, missing character or frame running off its slide in the log, and a PDF
    with one page per frame.

    Examples
    --------
    >>> check_deck("/nonexistent/test_set_bound").problems
    ('no deck.tex',)
    """
    folder = Path(folder)
    tex = folder / "deck.tex"
    if not tex.is_file():
        return DeckCheck(folder.name, 0, 0, 0, ("no deck.tex",))
    source = tex.read_text(encoding="utf-8")
    frames = source.count("\\begin{frame}")
    figures = re.findall(r"\\includegraphics\[[^\]]*\]\{([^}]+)\}", source)
    problems = [f"missing figure {f}" for f in figures if not (folder / f).is_file()]
    if not MIN_FRAMES <= frames <= MAX_FRAMES:
        problems.append(f"{frames} frames")
    log = folder / "deck.log"
    pages = 0
    if log.is_file():
        text = log.read_text(encoding="utf-8", errors="replace")
        if re.search(r"LaTeX Warning: (Reference|Citation) .* undefined", text):
            problems.append("log: an unresolved reference")
        if "Missing character" in text:
            problems.append("log: a character the font lacks")
        if re.search(r"^! ", text, flags=re.M):
            problems.append("log: a LaTeX error")
        if "Overfull \\vbox" in text:
            problems.append("log: a frame runs off the slide")
        m = re.search(r"Output written on deck\.pdf \((\d+) page", text)
        pages = int(m.group(1)) if m else 0
        if pages != frames:
            problems.append(f"{pages} pages for {frames} frames")
    else:
        problems.append("not compiled")
    return DeckCheck(folder.name, frames, pages, len(figures), tuple(problems))


def build_all(executed, out, toc, *, jobs: int = 2, pdf: bool = True) -> list[DeckCheck]:
    """Every lesson's deck (in parallel, ``jobs`` XeLaTeX runs at a time) and its check."""
    executed, out = Path(executed), Path(out)
    names = lesson_names(toc)
    for name in names:
        build_deck(executed / f"{name}.ipynb", executed / f"{name}.glue.json", out / name)

    def one(name):
        folder = out / name
        if pdf:
            done = _compile(folder)
            if done.returncode == 0:
                (folder / "deck.pdf").replace(out / f"{name}.pdf")
        result = check_deck(folder)
        if pdf and not (out / f"{name}.pdf").is_file():
            result = DeckCheck(
                name, result.frames, result.pages, result.figures, (*result.problems, "no PDF")
            )
        return result

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, names))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Beamer slides for every lesson of Part I.")
    parser.add_argument("--executed", type=Path, required=True, help="folder of executed notebooks")
    parser.add_argument("--out", type=Path, required=True, help="where to write the decks")
    parser.add_argument("--toc", type=Path, default=Path("_toc.yml"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-pdf", action="store_true", help="write the LaTeX sources only")
    args = parser.parse_args(argv)
    try:
        results = build_all(args.executed, args.out, args.toc, jobs=args.jobs, pdf=not args.no_pdf)
    except ValueError as err:
        print(f"slides: {err}")
        return 1
    bad = 0
    for r in results:
        status = "ok" if not r.problems else "; ".join(r.problems)
        print(
            f"{r.lesson:<22} {r.frames:>2} frames {r.pages:>2} pages {r.figures:>2} figures  {status}"
        )
        bad += bool(r.problems)
    print(f"slides: {len(results)} decks in {args.out}, {bad} with problems")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
