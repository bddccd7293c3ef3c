"""The claims of the five source articles, as the data file ``claims.toml`` states them.

The file ships with the package (read with the standard library's ``tomllib``); its rows
are checked by :mod:`heldout.book.ledger`.  This module only reads it, so that code which
needs an article's printed number (:func:`article_value`) does not import the ledger's
checks.

Examples
--------
>>> article_value("hoeffding-size")
36152
>>> claim("bound-exact").article
'001'
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from importlib import resources
from typing import Any

__all__ = [
    "DATA_FILE",
    "SENTENCE_CLASSES",
    "SENTENCES_FILE",
    "Article",
    "Claim",
    "ClaimHead",
    "Sentence",
    "Severity",
    "article_value",
    "articles",
    "checked_rows",
    "claim",
    "claim_head",
    "claims",
    "sentence_classes",
    "sentence_coverage",
    "sentences",
    "severities",
    "split_sentences",
]

#: The data file of claims, inside the package.
DATA_FILE = "claims.toml"

#: The data file that classifies every sentence of the five articles, inside the package.
SENTENCES_FILE = "sentences.toml"

#: What a sentence of an article is (the meanings are stated in :data:`SENTENCES_FILE`).
SENTENCE_CLASSES = ("checkable", "setup", "motivation", "advice", "citation", "code", "heading")


@dataclass(frozen=True)
class Article:
    """One source article: its key (``"000"``...), file name, title and a short name."""

    key: str
    file: str
    title: str
    short: str


@dataclass(frozen=True)
class Severity:
    """One level of the severity scale: the question it answers, what it means, and what it
    promises about the article's conclusion (``"stands"`` or ``"falls"``)."""

    name: str
    question: str
    meaning: str
    conclusion: str


@dataclass(frozen=True)
class ClaimHead:
    """What a claim is before any check: its id, article, place, words, kind and printed value.

    The shared first seven fields of :class:`Claim` (a row of the data file) and of the
    ledger's evaluated ``Row``; :func:`claim_head` copies them from one to the other.
    """

    id: str
    article: str
    where: str
    claim: str
    kind: str
    printed: str
    value: float | int | None


def claim_head(c: ClaimHead) -> dict[str, Any]:
    """The :class:`ClaimHead` fields of ``c``, by name (to build a row from a claim)."""
    return {f.name: getattr(c, f.name) for f in fields(ClaimHead)}


@dataclass(frozen=True)
class Claim(ClaimHead):
    """One claim of a source article, as the data file states it.

    Attributes
    ----------
    id : str
        Stable identifier of the row (also the key of :func:`article_value`).
    article : str
        Key of the article (``"000"`` to ``"004"``).
    where : str
        Where in the article the claim is made.
    claim : str
        The claim in the book's words (MyST: dollar-delimited math is typeset).
    kind : str
        ``number``, ``formula`` or ``verbal``.
    printed : str
        The article's value or statement, as printed (a short fragment).
    value : float, int or None
        The printed number (numbers only; percentages as fractions).
    check : str
        Name of the check function that evaluates the claim.
    args : dict
        Its arguments (the article's inputs); a string ``"@id"`` stands for
        ``article_value("id")``.
    rule : str
        When a number counts as reproduced (see :func:`heldout.book.ledger.parse_rule`); ``"holds"``
        for formulas and verbal claims.
    expected : str
        The status the book expects (one of :data:`heldout.book.ledger.STATUSES`).
    severity : str
        One of :data:`heldout.book.ledger.SEVERITIES` for a row that differs or does not hold, else ``""``.
    conclusion : str
        For a row with a severity: ``"stands"`` or ``"falls"``, whether the conclusion the
        article draws from the claim survives the fault (else ``""``).  Only a ``wrong
        conclusion`` row has a conclusion that falls.
    reason : str
        Why, in one sentence.
    chapter : str
        The notebook that checks the claim.
    label : str
        The MyST label of the section that checks it (on the section's heading).
    show : str
        Optional template for the book's value (``str.format`` fields from the
        check's extra values).
    quote : bool
        True (the default) when ``printed`` is the article's own words, verbatim up to
        whitespace; False when it is a paraphrase or a transcription of a formula into plain
        text.
    """

    check: str
    args: Mapping[str, Any]
    rule: str
    expected: str
    severity: str
    reason: str
    chapter: str
    label: str
    show: str = ""
    conclusion: str = ""
    quote: bool = True


_CLAIM_FIELDS = {
    "id",
    "article",
    "where",
    "claim",
    "kind",
    "printed",
    "value",
    "check",
    "args",
    "rule",
    "expected",
    "severity",
    "reason",
    "chapter",
    "label",
    "show",
    "conclusion",
    "quote",
}
_REQUIRED = _CLAIM_FIELDS - {"value", "args", "severity", "show", "conclusion", "quote"}


@functools.cache
def _data() -> dict[str, Any]:
    text = resources.files("heldout.book").joinpath(DATA_FILE).read_text(encoding="utf-8")
    return tomllib.loads(text)


@functools.cache
def _load() -> tuple[dict[str, Article], tuple[Claim, ...]]:
    data = _data()
    arts = {
        key: Article(key, a["file"], a["title"], a["short"]) for key, a in data["articles"].items()
    }
    out = []
    for entry in data["claim"]:
        unknown = set(entry) - _CLAIM_FIELDS
        missing = _REQUIRED - set(entry)
        if unknown or missing:
            raise ValueError(
                f"{DATA_FILE}: claim {entry.get('id', '?')!r} has unknown fields "
                f"{sorted(unknown)} or lacks {sorted(missing)}"
            )
        out.append(
            Claim(
                id=entry["id"],
                article=entry["article"],
                where=entry["where"],
                claim=entry["claim"],
                kind=entry["kind"],
                printed=entry["printed"],
                value=entry.get("value"),
                check=entry["check"],
                args=dict(entry.get("args", {})),
                rule=entry["rule"],
                expected=entry["expected"],
                severity=entry.get("severity", ""),
                reason=entry["reason"],
                chapter=entry["chapter"],
                label=entry["label"],
                show=entry.get("show", ""),
                conclusion=entry.get("conclusion", ""),
                quote=bool(entry.get("quote", True)),
            )
        )
    return arts, tuple(out)


def severities() -> dict[str, Severity]:
    """The severity scale of the data file, mildest first, by name.

    Examples
    --------
    >>> list(severities())
    ['typo', 'loose', 'wrong number', 'wrong claim', 'wrong conclusion']
    >>> severities()["wrong conclusion"].conclusion
    'falls'
    """
    return {
        name: Severity(name, s["question"], s["meaning"], s["conclusion"])
        for name, s in _data()["severity"].items()
    }


def checked_rows() -> frozenset[str]:
    """Rows whose values the tests recompute independently: every printed number and the
    formula and verbal rows the data file lists under ``[checked]`` (the others are held by
    their status alone)."""
    numbers = {c.id for c in claims() if c.kind == "number"}
    return frozenset(numbers | set(_data()["checked"]["rows"]))


def articles() -> dict[str, Article]:
    """The five source articles, by key."""
    return dict(_load()[0])


def claims() -> tuple[Claim, ...]:
    """Every claim of the data file, in its order."""
    return _load()[1]


@functools.cache
def _by_id() -> dict[str, Claim]:
    return {c.id: c for c in claims()}


def claim(key: str) -> Claim:
    """The claim with identifier ``key``.

    Raises
    ------
    ValueError
        If no claim has that identifier.
    """
    try:
        return _by_id()[key]
    except (KeyError, TypeError):
        raise ValueError(f"key must name a ledger row, got {key!r}") from None


def article_value(key: str) -> float | int:
    """The number an article prints, as typed once in the data file.

    Percentages are fractions (the article's "97.38%" is 0.9738).  Chapters and
    :data:`heldout.book.mnist.models.ARTICLE_RESULTS` read the articles' numbers here
    instead of typing them again.

    Parameters
    ----------
    key : str
        The identifier of a ``number`` row of the ledger.

    Returns
    -------
    float or int

    Raises
    ------
    ValueError
        If ``key`` names no row, or a row that states no number.

    Examples
    --------
    >>> article_value("hoeffding-size")
    36152
    >>> article_value("mnist-acc-svc_rbf")
    0.9738
    """
    c = claim(key)
    if c.value is None or isinstance(c.value, bool):
        raise ValueError(f"key must name a row that states a number, got {key!r} ({c.kind})")
    return c.value


# =========================================================================== sentences
@dataclass(frozen=True)
class Sentence:
    """One sentence (or one unit: a code block, a heading, a display) of a source article.

    Attributes
    ----------
    article : str
        Key of the article.
    n : int
        Its position among the article's units (from 1), as
        :func:`heldout.book.claims.split_sentences` cuts them.
    starts : str
        Its first words, to tell that the data file and the text still line up.
    kind : str
        One of :data:`heldout.book.claims.SENTENCE_CLASSES`.
    rows : tuple of str
        The ledger rows that check it (a ``checkable`` sentence with none is not covered).
    """

    article: str
    n: int
    starts: str
    kind: str
    rows: tuple[str, ...]


_ABBREVIATIONS = (
    "e.g.",
    "i.e.",
    "et al.",
    "vs.",
    "etc.",
    "Fig.",
    "approx.",
    "cf.",
    "resp.",
    "i.i.d.",
)


def split_sentences(text: str) -> list[str]:
    """Cut an article's text into the units the sentence file classifies.

    Blocks are separated by blank lines (a leading ``---`` front matter is a unit of its
    own); inside a block, whitespace is collapsed and the text is cut after ``.``, ``!`` or
    ``?`` before a capital, a quotation mark, a bracket or a backslash command (not
    ``\\end``), and after a displayed equation before a capital.  A cut after a common
    abbreviation or after a list number ("1.") is undone.  The rule is mechanical: a unit
    may hold a code block or a list, and the data file classifies what it holds.

    Examples
    --------
    >>> split_sentences("One claim. Another, e.g. this one.\\n\\n1. A list item.")
    ['One claim.', 'Another, e.g. this one.', '1. A list item.']
    """
    import re

    text = text.replace("\r\n", "\n").replace("\r", "\n")
    out: list[str] = []
    front = re.match(r"---\n.*?\n---\n", text, flags=re.S)
    if front:
        out.append(re.sub(r"\s+", " ", front.group(0)).strip())
        text = text[front.end() :]
    cut = re.compile(
        r"(?:(?<=[.!?])\s+(?=[A-Z\u201c\"(\[*]|\\(?!end))"
        r"|(?<=\\end\{equation\})\s+(?=[A-Z])|(?<=\\\])\s+(?=[A-Z]))"
    )
    for block in re.split(r"\n[ \t]*\n", text):
        flat = re.sub(r"\s+", " ", block).strip()
        if not flat:
            continue
        merged: list[str] = []
        for part in cut.split(flat):
            if merged and (
                merged[-1].endswith(_ABBREVIATIONS) or re.fullmatch(r"\d+\.", merged[-1])
            ):
                merged[-1] += " " + part
            else:
                merged.append(part)
        out.extend(merged)
    return out


@functools.cache
def _sentence_data() -> dict[str, Any]:
    text = resources.files("heldout.book").joinpath(SENTENCES_FILE).read_text(encoding="utf-8")
    return tomllib.loads(text)


def sentences(article: str | None = None) -> tuple[Sentence, ...]:
    """The classified sentences of one article (or of all five, in order).

    Raises
    ------
    ValueError
        If ``article`` is not one of the five keys, or the data file names an unknown
        class.
    """
    data = _sentence_data()["sentences"]
    keys = list(articles()) if article is None else [article]
    out = []
    for key in keys:
        if key not in data:
            raise ValueError(f"article must be one of {sorted(data)}, got {key!r}")
        for n, entry in sorted(data[key].items(), key=lambda kv: int(kv[0])):
            kind = entry["class"]
            if kind not in SENTENCE_CLASSES:
                raise ValueError(
                    f"{SENTENCES_FILE}: {key} #{n}: class must be one of "
                    f"{SENTENCE_CLASSES}, got {kind!r}"
                )
            out.append(Sentence(key, int(n), entry["starts"], kind, tuple(entry.get("rows", ()))))
    return tuple(out)


def sentence_classes() -> dict[str, str]:
    """What each sentence class means, as the data file states it."""
    return dict(_sentence_data()["classes"])


def sentence_coverage() -> dict[str, dict[str, int]]:
    """Per article (and ``"all"``): the number of units of each class, of checkable
    sentences, of checkable sentences that at least one row checks, and of rows.

    Examples
    --------
    >>> cov = sentence_coverage()
    >>> cov["all"]["units"] == sum(cov[a]["units"] for a in articles())
    True
    """
    out: dict[str, dict[str, int]] = {}
    for key in [*articles(), "all"]:
        units = sentences() if key == "all" else sentences(key)
        row = dict.fromkeys(SENTENCE_CLASSES, 0)
        for u in units:
            row[u.kind] += 1
        row["units"] = len(units)
        row["covered"] = sum(1 for u in units if u.kind == "checkable" and u.rows)
        row["rows"] = sum(1 for c in claims() if key in ("all", c.article))
        out[key] = row
    return out
