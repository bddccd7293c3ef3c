"""The shape of a lesson (issue 26), the glossary, the one rerun page and the ledger's links.

A lesson is a notebook of the part captioned "Lessons" in _toc.yml.  It opens with a
question card (Question, Prerequisites, After it you can, Reading time), ends its teaching
with the rule (an admonition titled "The rule" of class ``rule``) before its exercises, has
at least four exercises labelled by kind and difficulty (at least one a Computation), each
with a hidden solution, and is at most 5,000 words of prose.  Glossary terms are linked
with ``{term}`` no earlier in the book than the lesson that teaches them, and each is used
somewhere.  The rerun instructions live on one page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
MAX_WORDS = 5_000
KINDS = ("Concept", "Derivation", "Computation", "Data")
LEVELS = ("easy", "medium", "hard")

#: Lessons another branch is bringing into shape; the coordinator empties this at merge.
PENDING: set[str] = set()


def _entries(node) -> list[str]:
    if isinstance(node, dict):
        found = [node["file"]] if "file" in node else []
        for value in node.values():
            if isinstance(value, list | dict):
                found += _entries(value)
        return found
    if isinstance(node, list):
        return [e for item in node for e in _entries(item)]
    return []


def _part(caption: str) -> list[str]:
    part = next(p for p in TOC["parts"] if p["caption"] == caption)
    return _entries(part["chapters"])


def book_pages() -> list[str]:
    """Every page of the book in reading order (toc entries without suffix)."""
    return [TOC["root"]] + _entries(TOC["parts"])


def lessons() -> list[str]:
    return [Path(e).name for e in _part("Part I: Lessons") if e.startswith("notebooks/")]


def _path(entry: str) -> Path:
    for suffix in (".ipynb", ".md"):
        if (ROOT / f"{entry}{suffix}").exists():
            return ROOT / f"{entry}{suffix}"
    raise FileNotFoundError(entry)


def _markdown(entry: str) -> list[str]:
    path = _path(entry)
    if path.suffix == ".md":
        return [path.read_text(encoding="utf-8")]
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


def words(text: str) -> int:
    """Words of prose: code fences, directive options, labels and math markers left out."""
    text = re.sub(r"^(```|:::).*$", "", text, flags=re.M)
    text = re.sub(r"^:\w[\w-]*:.*$", "", text, flags=re.M)
    text = re.sub(r"^\([\w-]+\)=$", "", text, flags=re.M)
    return len(text.split())


def _lesson_params():
    return [
        pytest.param(s, marks=pytest.mark.xfail(reason="lesson owned by another branch"))
        if s in PENDING
        else s
        for s in lessons()
    ]


def test_the_lessons_part_lists_lessons():
    assert len(lessons()) >= 5
    assert all((ROOT / "notebooks" / f"{s}.ipynb").exists() for s in lessons())


# ------------------------------------------------------------------------ one lesson's shape
_CARD = re.compile(
    r"^```\{admonition\} About this lesson\n:class: lesson-card\n(?P<body>.*?)^```$",
    re.M | re.S,
)
_FIELDS = ("**Question:**", "**Prerequisites:**", "**After it you can:**", "**Reading time:**")
_RULE = re.compile(r"^## The rule\s*\n+```\{admonition\} The rule\n:class: tip rule\n\S", re.M)
_EXERCISE = re.compile(
    r"^(`{3,})\{exercise\}(?P<title>[^\n]*)\n(?P<options>(?::[\w-]+:[^\n]*\n)*)", re.M
)
_KIND = re.compile(rf"^\s+({'|'.join(KINDS)}) · ({'|'.join(LEVELS)}): \S")
_SOLUTION = re.compile(
    r"^`{3,}\{solution\} (?P<label>[\w-]+)\n(?P<options>(?::[\w-]+:[^\n]*\n)*)", re.M
)


@pytest.mark.parametrize("stem", _lesson_params())
def test_lesson_opens_with_its_question_card(stem):
    first = _markdown(f"notebooks/{stem}")[0]
    lines = first.splitlines()
    assert lines[0].startswith("# "), f"{stem}: the first cell starts with '# Title'"
    assert re.search(r"^\*[^*\s][^*]*\*$", first, re.M), f"{stem}: the question in italics"
    card = _CARD.search(first)
    assert card, f"{stem}: no 'About this lesson' admonition of class lesson-card"
    missing = [f for f in _FIELDS if f not in card["body"]]
    assert not missing, f"{stem}: the card lacks {missing}"
    assert re.search(r"\*\*Reading time:\*\* about \d+ minutes", card["body"]), stem
    # each field is a paragraph of its own, so that the card renders as a list of fields
    glued = [f for f in _FIELDS[1:] if not re.search(rf"\n\n{re.escape(f)}", card["body"])]
    assert not glued, f"{stem}: card fields {glued} run into the line above (no blank line)"
    # nothing of the opening question is left over after the card
    after = first[card.end() :].lstrip("\n").split("\n\n")[0]
    assert not re.search(r"\?\*\s*$", after), f"{stem}: stray text after the card: {after!r}"


@pytest.mark.parametrize("stem", _lesson_params())
def test_lesson_states_its_rule_before_the_exercises(stem):
    text = "\n".join(_markdown(f"notebooks/{stem}"))
    rule = _RULE.search(text)
    assert rule, f"{stem}: '## The rule' followed by the admonition 'The rule' (:class: tip rule)"
    exercises = re.search(r"^## Exercises\s*$", text, re.M)
    assert exercises, f"{stem}: no '## Exercises' section"
    assert rule.start() < exercises.start(), f"{stem}: the rule comes before the exercises"


@pytest.mark.parametrize("stem", _lesson_params())
def test_lesson_has_four_labelled_exercises_with_hidden_solutions(stem):
    text = "\n".join(_markdown(f"notebooks/{stem}"))
    found = list(_EXERCISE.finditer(text))
    assert len(found) >= 4, f"{stem}: {len(found)} exercises, at least 4"
    labels, kinds = [], []
    for ex in found:
        kind = _KIND.match(ex["title"])
        assert kind, f"{stem}: exercise title {ex['title']!r} is not 'Kind · level: title'"
        kinds.append(kind[1])
        label = re.search(r"^:label: ([\w-]+)$", ex["options"], re.M)
        assert label, f"{stem}: exercise {ex['title']!r} has no :label:"
        labels.append(label[1])
    assert "Computation" in kinds, f"{stem}: at least one Computation exercise"
    solutions = {s["label"]: s["options"] for s in _SOLUTION.finditer(text)}
    for label in labels:
        assert label in solutions, f"{stem}: no solution for {label}"
        assert ":class: dropdown" in solutions[label], f"{stem}: solution of {label} not hidden"


@pytest.mark.parametrize("stem", _lesson_params())
def test_lesson_is_readable_in_one_sitting(stem):
    n = sum(words(t) for t in _markdown(f"notebooks/{stem}"))
    assert n <= MAX_WORDS, f"{stem}: {n} words of prose, at most {MAX_WORDS}"


def test_word_count_leaves_out_fences_and_options():
    text = "(a-b)=\n## Two words\n```{exercise} Concept · easy: x\n:label: a-ex1\nthree more words\n```"
    assert words(text) == 6  # '##', 'Two', 'words', 'three', 'more', 'words'


# ------------------------------------------------------------------------------- the glossary
GLOSSARY = ROOT / "book" / "glossary.md"
_TERM_USE = re.compile(r"\{term\}`(?:[^`<]*<)?([^`<>]+?)>?`")


def glossary() -> dict[str, str]:
    """Term (lower case) -> the page that teaches it (first {doc} link of its definition)."""
    block = re.search(r"^```\{glossary\}\n(.*?)^```$", GLOSSARY.read_text(), re.M | re.S)
    assert block, "book/glossary.md holds a {glossary} block"
    terms, current, body = {}, None, {}
    for line in block[1].splitlines():
        if line and not line[0].isspace():
            current = line.strip()
            body[current] = ""
        elif current:
            body[current] += line + "\n"
    for term, text in body.items():
        link = re.search(r"\{doc\}`(?:[^`<]*<)?/?([\w/]+?)>?`", text)
        teacher = link[1] if link else ""
        terms[term.lower()] = teacher if teacher.startswith("notebooks/") else ""
    return terms


#: Terms whose uses live in pages another branch is rewriting; emptied at merge.
PENDING_TERMS: set[str] = set()


def _uses() -> list[tuple[int, str, str]]:
    """(position in the book, page, term) of every {term} use outside the glossary."""
    found = []
    for pos, entry in enumerate(book_pages()):
        if entry == "book/glossary":
            continue
        for text in _markdown(entry):
            found += [(pos, entry, m.lower().strip()) for m in _TERM_USE.findall(text)]
    return found


def test_every_term_used_is_in_the_glossary_and_not_before_its_lesson():
    terms, pages = glossary(), book_pages()
    problems = []
    for pos, page, term in _uses():
        if term not in terms:
            problems.append(f"{page}: {{term}}`{term}` is not in book/glossary.md")
        elif terms[term] in pages and pos < pages.index(terms[term]):
            problems.append(f"{page}: uses {term!r} before {terms[term]} defines it")
    assert not problems, "\n".join(problems)


def test_every_glossary_term_is_used_and_names_its_lesson():
    terms = glossary()
    assert len(terms) >= 30
    used = {term for _, _, term in _uses()}
    unused = sorted(set(terms) - used - PENDING_TERMS)
    assert not unused, f"glossary terms no page links with {{term}}: {unused}"
    for term, page in terms.items():
        if page and Path(page).name not in PENDING:
            assert (ROOT / f"{page}.ipynb").exists(), f"glossary: {term!r} names {page}, missing"


def test_glossary_reader_finds_terms_and_their_lessons():
    terms = glossary()
    assert terms["test set bound"] == "notebooks/test_set_bound"
    assert terms["confidence sequence"] == "notebooks/label_until_sure"
    assert _TERM_USE.findall("{term}`a` and {term}`the b <B c>`") == ["a", "B c"]


# --------------------------------------------------------------------------- the rerun page
def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if len(p.split()) >= 20]


def test_the_rerun_instructions_live_on_one_page():
    rerun = (ROOT / "book" / "rerun.md").read_text(encoding="utf-8")
    long = _paragraphs(rerun)
    assert long, "book/rerun.md explains rerunning"
    old_box = "Every input of this chapter's worked example is in the code cell tagged"
    shared = (
        (ROOT / "book" / "_rerun.md").read_text() if (ROOT / "book" / "_rerun.md").exists() else ""
    )
    assert old_box not in shared and len(shared.split()) < 40, "book/_rerun.md is a pointer only"
    problems = []
    for entry in book_pages():
        if entry == "book/rerun":
            continue
        text = " ".join(" ".join(t.split()) for t in _markdown(entry))
        if old_box in text:
            problems.append(f"{entry}: carries the old rerun box")
        problems += [f"{entry}: repeats the rerun page" for p in long if p in text]
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------ the ledger's links
def test_every_ledger_claim_links_a_page_and_label_of_the_book():
    from heldout.book import ledger

    pages = book_pages()
    problems = []
    for claim in ledger.claims():
        entry = f"notebooks/{claim.chapter}"
        if entry not in pages:
            problems.append(f"{claim.id}: chapter {claim.chapter} is not in _toc.yml")
            continue
        text = "\n".join(_markdown(entry))
        if not re.search(rf"^\({re.escape(claim.label)}\)=$", text, re.M):
            problems.append(f"{claim.id}: {claim.chapter} has no label {claim.label}")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------------- notation
_K_AS_ITEMS = re.compile(r"\$k\$ (?:test )?(?:rows|items)\b|rows \$k\$|\$k\^\\ast\$ test rows")


@pytest.mark.parametrize("stem", _lesson_params())
def test_lesson_keeps_k_for_errors(stem):
    """One notation (book/notation.md): k counts errors (events) of n items, never the items."""
    text = "\n".join(_markdown(f"notebooks/{stem}"))
    found = _K_AS_ITEMS.findall(text)
    assert not found, f"{stem}: k used for a number of items: {found[:3]}"


def test_notation_table_defines_k_and_n():
    text = (ROOT / "book" / "notation.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (\$[^$]+\$) \| (.+) \|$", text, re.M))
    assert rows["$n$"].startswith("number of items")
    assert rows["$k$"].startswith("number of errors among the $n$ items")
    assert re.search(r"\$k\$ (?:test )?rows", "the losses of $k$ test rows")  # the check bites


_K_AS_FOLDS = re.compile(r"(?<![\w\\])\$?k\$?(?:-| )folds?\b")


def _all_book_sources() -> list[tuple[str, str]]:
    """(file, text) of every notebook cell (prose and code) and every page under book/."""
    found = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        found += [(path.name, "".join(c["source"])) for c in cells]
    found += [
        (p.name, p.read_text(encoding="utf-8")) for p in sorted((ROOT / "book").rglob("*.md"))
    ]
    return found


def test_folds_are_counted_by_capital_k():
    """book/notation.md: k counts errors, K counts folds; "k-fold" or "k folds" is refused."""
    problems = [
        f"{name}: {m.group(0)!r}"
        for name, text in _all_book_sources()
        for m in _K_AS_FOLDS.finditer(text)
    ]
    assert not problems, "write K folds (K-fold), k is a number of errors:\n" + "\n".join(problems)
    bites = ["k-fold", "$k$-fold", "the $k$ folds", "k folds", "ten k-folds"]
    assert all(_K_AS_FOLDS.search(s) for s in bites)
    passes = ["K-fold", "$K$-fold", "$K$ folds", "kfold", "10k folds", r"$\sqrt k$"]
    assert not any(_K_AS_FOLDS.search(s) for s in passes)


# --------------------------------------------------- one meaning per symbol (issue 36's slips)
#: Phrases that give a symbol of book/notation.md a second meaning (k errors among n items,
#: K folds, m models, C classes, R repetitions), each with an example it must catch.
_SECOND_MEANINGS = {
    r"\$n\$ counts errors": "in this book $n$ counts errors",
    r"(?:errors|mistakes) \$K\$|\$K\$ (?:errors|mistakes|classes|models)": "test errors $K$ in",
    r"\$k\$ (?:models|classes|submissions|queries|fitted|parameters)": "With $k$ models, $C_j$",
    r"\$k \\ll n\$ submissions": r"For $k \ll n$ submissions",
    r"(?:in|of) \$m\$ (?:rows|test items|items)|\$m\$ (?:test )?(?:rows|items)\b": "in $m$ rows",
    r"\bm_\\text\{(?:train|test)\}": r"$m_\text{train}$",
    r"\{2m\}|-2m\(|/2m\}|\$M\$ (?:independent )?draws|/M\}": r"\sqrt{\frac{\ln(1/\delta)}{2m}}",
    r"\$k ?- ?1\$ degrees|\\chi\^2_\{k-1\}": "about chi-square with $k-1$ degrees of freedom",
}


def _joined(entry: str) -> str:
    return " ".join(" ".join(_markdown(entry)).split())


@pytest.mark.parametrize("stem", lessons())
def test_lesson_gives_no_symbol_a_second_meaning(stem):
    text = _joined(f"notebooks/{stem}")
    found = [m.group(0) for pat in _SECOND_MEANINGS for m in re.finditer(pat, text)]
    assert not found, f"{stem}: symbols used against book/notation.md: {found[:4]}"


@pytest.mark.parametrize("page", ["book/intro", "book/guide", "book/glossary", "book/rules"])
def test_start_and_reference_pages_give_no_symbol_a_second_meaning(page):
    text = _joined(page)
    found = [m.group(0) for pat in _SECOND_MEANINGS for m in re.finditer(pat, text)]
    assert not found, f"{page}: symbols used against book/notation.md: {found[:4]}"


def test_second_meaning_patterns_bite():
    for pat, example in _SECOND_MEANINGS.items():
        assert re.search(pat, " ".join(example.split())), (pat, example)
    fine = "$k$ errors among $n$ items, $K$ folds, $m$ models, $n_\\text{train}$ rows, $C$ classes"
    assert not any(re.search(pat, fine) for pat in _SECOND_MEANINGS)


def test_notation_page_keeps_no_second_glossary():
    text = (ROOT / "book" / "notation.md").read_text(encoding="utf-8")
    assert not re.search(r"^#+ .*[Gg]lossary", text, re.M), "notation.md has a glossary section"
    definitions = re.findall(r"^: \S", text, re.M)
    assert not definitions, (
        f"notation.md defines terms ({len(definitions)}): they live in glossary.md"
    )
    assert "{doc}`glossary`" in text, "notation.md points to the glossary"
    rows = dict(re.findall(r"^\| (\$[^$]+\$) \| (.+) \|$", text, re.M))
    for symbol in ("$K$", "$m$", "$C$", "$R$"):
        assert symbol in rows, f"notation.md gives {symbol} its one meaning"


# ----------------------------------------------------- the start pages point to the lessons
def _doc_links(entry: str) -> set[str]:
    text = "\n".join(_markdown(entry))
    return {Path(m).name for m in re.findall(r"\{doc\}`(?:[^`<]*<)?([^`<>]+?)>?`", text)}


def test_guide_links_every_lesson():
    missing = [s for s in lessons() if s not in _doc_links("book/guide")]
    assert not missing, f"book/guide.md links no chapter for the lessons {missing}"


def test_intro_sends_each_question_to_its_lesson():
    linked = _doc_links("book/intro")
    newer = ("two_models", "many_models", "auc", "operating_points", "own_data_lab")
    assert not [s for s in newer if s not in linked], "book/intro.md's table of questions"
    text = _joined("book/intro")
    assert "first chapters" not in text, "the lessons come first, the articles' audits in Part III"


# ------------------------------------------------- terms a lesson names and the glossary holds
#: Names the lessons use that the glossary must define (issue 36), with the lesson that
#: teaches each; the lesson links the term with {term}.
NAMED_TERMS = {
    "bonferroni correction": "notebooks/beyond_accuracy",
    "hommel's method": "notebooks/many_models",
    "newcombe's score interval": "notebooks/auc",
    "agresti-caffo interval": "notebooks/beyond_accuracy",
    "fisher's exact test": "notebooks/two_models",
    "cr1": "notebooks/not_independent",
    "e-process": "notebooks/label_until_sure",
    "mover": "notebooks/auc",
    "bca": "notebooks/beyond_accuracy",
}


def test_named_methods_are_in_the_glossary_and_linked_by_their_lesson():
    terms = glossary()
    for term, lesson in NAMED_TERMS.items():
        assert term in terms, f"book/glossary.md lacks {term!r}"
        assert terms[term] == lesson, f"glossary: {term!r} names {terms[term]}, not {lesson}"
        used = {t for _, page, t in _uses() if page == lesson}
        assert term in used, f"{lesson} does not link {{term}}`{term}`"


def _first_mention(pattern: str) -> str | None:
    for entry in book_pages():
        if entry.startswith("notebooks/") and re.search(pattern, _joined(entry)):
            return entry
    return None


def test_mover_and_bca_are_spelled_out_where_they_appear_first():
    """A lesson that names MOVER before auc defines it spells it out; so does one naming BCa."""
    pages = book_pages()
    first = _first_mention(r"\bMOVER\b")
    assert first is not None
    if pages.index(first) < pages.index("notebooks/auc"):
        assert "method of variance estimates recovery" in _joined(first), first
    for stem in lessons():
        text = _joined(f"notebooks/{stem}")
        if "{term}`BCa`" in text:
            spelled = re.search(r"bias-corrected and accelerated\W+\(\{term\}`BCa`\)", text)
            assert spelled, f"{stem}: BCa spelled out where it is linked"


# ------------------------------------------------------------------- exercises (issue 36)
_DATA_SET = re.compile(r"\bfile\b|\.csv|\bFILE\b|data set|parameters cell|MNIST|digits", re.I)


def _exercises(stem: str) -> dict[str, tuple[str, str]]:
    """label -> (title, statement) of every exercise of a lesson."""
    text = "\n".join(_markdown(f"notebooks/{stem}"))
    found = {}
    for m in re.finditer(
        r"^```\{exercise\}([^\n]*)\n:label: ([\w-]+)\n(.*?)^```$", text, re.M | re.S
    ):
        found[m[2]] = (m[1].strip(), m[3])
    return found


def _solution(stem: str, label: str) -> str:
    text = "\n".join(_markdown(f"notebooks/{stem}"))
    m = re.search(rf"^```\{{solution\}} {re.escape(label)}\n(.*?)^```$", text, re.M | re.S)
    return m[1] if m else ""


@pytest.mark.parametrize("stem", lessons())
def test_data_exercises_use_a_data_set(stem):
    wrong = [
        label
        for label, (title, body) in _exercises(stem).items()
        if title.startswith("Data") and not _DATA_SET.search(body)
    ]
    assert not wrong, f"{stem}: 'Data' exercises {wrong} name no data set (file, MNIST, ...)"


def test_no_broken_formula_in_a_lesson():
    broken = re.compile(r"\\sqrt\{[^{}]*/\}|\$\\sqrt\{[^$]*\}\$\{glue")
    assert broken.search(r"about $\sqrt{2000/}${glue:text}`x`")
    problems = [s for s in lessons() if broken.search("\n".join(_markdown(f"notebooks/{s}")))]
    assert not problems, f"a square root cut short before a glued number in {problems}"


def test_luck_exercise_teaches_the_simulation_error():
    title, body = _exercises("many_models")["many-ex1"]
    solution = _solution("many_models", "many-ex1")
    assert "standard error" in body and "standard error" in solution
    assert re.search(r"\{glue:text\}`ex_lucky_se`", solution), "the solution quotes the error"


def test_beyond_accuracy_keeps_its_coverage_grids_in_an_appendix():
    """The lesson fits its reading time; its simulations' grids live on a reference page."""
    appendix = "notebooks/beyond_accuracy_coverage"
    assert appendix in book_pages() and Path(appendix).name not in lessons()
    lesson = "\n".join(_markdown("notebooks/beyond_accuracy"))
    assert "beyond_accuracy_coverage" in lesson, "the lesson links its appendix"
    for heading in ("## Coverage by simulation", "## Coverage on real digits"):
        assert heading not in lesson and heading in "\n".join(_markdown(appendix)), heading


# ------------------------------------------------------- code a student learns from (issue 36)
#: The share of a lesson's code on the page that is shown: cells folded away (``hide-input``)
#: count as not shown; cells removed from the page (exercise answers, checks) are not on it.
#: Plotting, table assembly and glue stay folded; the computations the prose quotes are shown.
MIN_VISIBLE_SHARE = 0.28  # all lessons: 30.1 % at issue 36's close (21 % of all code before)
MIN_VISIBLE_LESSON = 0.15  # every lesson
_FOLDED = ("hide-input", "hide-cell")
_REMOVED = ("remove-cell", "remove-input")
_PLUMBING = re.compile(
    r"\bpublish\(|\bglue\(|\bplt\.|\.plot\(|\bax(?:es)?\b(?:\[[^\]]*\])?\.|\bfig\b|\bplot_\w+\("
)


def _code_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))


def code_on_page(stem: str) -> tuple[int, int]:
    """(shown, folded) lines of code of a lesson's page."""
    shown = folded = 0
    for cell in json.loads(_path(f"notebooks/{stem}").read_text(encoding="utf-8"))["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or any(t in tags for t in _REMOVED):
            continue
        n = _code_lines("".join(cell["source"]))
        if any(t in tags for t in _FOLDED):
            folded += n
        else:
            shown += n
    return shown, folded


def test_lessons_show_the_code_that_computes():
    counts = {stem: code_on_page(stem) for stem in lessons()}
    shown = sum(s for s, _ in counts.values())
    total = sum(s + f for s, f in counts.values())
    assert shown >= MIN_VISIBLE_SHARE * total, f"{shown / total:.0%} of the lessons' code is shown"
    thin = {
        s: f"{v / (v + f):.0%}" for s, (v, f) in counts.items() if v < MIN_VISIBLE_LESSON * (v + f)
    }
    assert not thin, f"lessons showing less than {MIN_VISIBLE_LESSON:.0%} of their code: {thin}"


@pytest.mark.parametrize("stem", lessons())
def test_shown_cells_hold_no_glue_or_plotting(stem):
    problems = []
    for cell in json.loads(_path(f"notebooks/{stem}").read_text(encoding="utf-8"))["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or any(t in tags for t in _FOLDED + _REMOVED):
            continue
        problems += [
            line for line in "".join(cell["source"]).splitlines() if _PLUMBING.search(line)
        ]
    assert not problems, f"{stem}: shown cells carry glue or plotting: {problems[:3]}"


def test_plumbing_pattern_bites():
    for line in (
        'publish("k", k)',
        "fig, ax = plt.subplots()",
        "axes[0].set_xlabel('n')",
        "ax.plot(x, y)",
    ):
        assert _PLUMBING.search(line), line
    for line in (
        "exact = hb.exact_upper(k, n, delta)",
        "axis = 0",
        "max_fail",
        "relax.plot_free = 1",
    ):
        assert not _PLUMBING.search(line), line
