"""The reproduction ledger: every claim of the five source articles, checked.

The claims live in a data file, ``claims.toml`` (shipped with the package, read
with the standard library's ``tomllib``): one entry per claim, with the article, the place in it, the
claim in the book's words, its *kind* (``number``, ``formula`` or ``verbal``),
the value as the article prints it, the check that evaluates it (a function
registered in this module, by name, with the article's inputs as arguments), the
rule saying when a number counts as reproduced, the status the book expects, a
severity, the reason in one sentence and the chapter (and the label of its section)
that works it out.  The articles' printed numbers are typed there and nowhere
else: :func:`article_value` reads them for the chapters and for
:data:`heldout.book.mnist.models.ARTICLE_RESULTS`.

Evaluating a row (:func:`evaluate`) runs its check and gives it a status:

``reproduced`` / ``differs``
    a number: the book's value, read at the article's precision (the row's
    rule), is / is not the article's value;
``holds`` / ``does not hold``
    a formula or a verbal claim: the computation confirms / refutes it;
``data-dependent``
    the claim is about the article's MNIST runs; the book shows its own run (in
    the current profile, read from the MNIST chapter's prediction cache) with
    its uncertainty, and never trains a model itself.

A row that ``differs`` or ``does not hold`` has a *severity*, one level of the scale the
data file states once (:func:`severities`), and records whether the conclusion the article
draws from the claim ``stands`` or ``falls``.  Each level answers one question:

``typo``
    is the statement false only by a slip of the pen, its intended form evident and true?
``loose``
    is it true only roughly, or under a condition it does not state?
``wrong number``
    is a value wrong beyond rounding, while the conclusion drawn from it stands?
``wrong claim``
    is the claim itself false (a quantity read as something it is not), while the
    conclusion stands?
``wrong conclusion``
    does the conclusion the article draws fall?

Only a ``wrong conclusion`` row has a conclusion that falls; the tests hold every row to it.

Examples
--------
>>> from heldout import ledger
>>> ledger.article_value("bound-exact")
0.4565
>>> row = ledger.evaluate("bound-exact")
>>> row.status, row.severity, round(row.book, 4)
('differs', 'wrong number', 0.4668)
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "DATA_FILE",
    "KINDS",
    "LINK_ROLE",
    "SENTENCE_CLASSES",
    "SEVERITIES",
    "STATUSES",
    "CONCLUSIONS",
    "Article",
    "Claim",
    "Evidence",
    "MnistUnavailable",
    "Row",
    "Sentence",
    "Severity",
    "article_value",
    "articles",
    "check_names",
    "checked_rows",
    "claim",
    "claims",
    "counts",
    "evaluate",
    "ledger",
    "link",
    "mnist_results",
    "needs_mnist",
    "parse_rule",
    "sentence_coverage",
    "sentences",
    "severities",
    "status_counts",
    "table",
]

#: What a claim is.
KINDS = ("number", "formula", "verbal")

#: The statuses a row can have (the first two for numbers, the next two for formulas and
#: verbal claims, the last for claims about the article's MNIST runs).
STATUSES = ("reproduced", "differs", "holds", "does not hold", "data-dependent")

#: The statuses that need a severity.
FAULTS = ("differs", "does not hold")

#: How bad a difference is, mildest first (the levels of the data file's scale, see
#: :func:`severities`).
SEVERITIES = ("typo", "loose", "wrong number", "wrong claim", "wrong conclusion")

#: What a faulted row records about the article's conclusion.
CONCLUSIONS = ("stands", "falls")

#: Role of the link from a row to where it is checked: ``"ref"`` links the row's section (its
#: label, which the chapter carries on the section's heading); ``"doc"`` links the chapter.
LINK_ROLE = "ref"


# =========================================================================== the data file
# (read in heldout.book.claims, which heldout.book.mnist.models also reads without the ledger)
from heldout.book.claims import (  # noqa: E402
    DATA_FILE,
    SENTENCE_CLASSES,
    Article,
    Claim,
    ClaimHead,
    Sentence,
    Severity,
    article_value,
    articles,
    checked_rows,
    claim,
    claim_head,
    claims,
    sentence_coverage,
    sentences,
    severities,
)


def _resolve(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("@"):
        return article_value(value[1:])
    if isinstance(value, list):
        return [_resolve(v) for v in value]
    return value


# =========================================================================== agreement rules
@dataclass(frozen=True)
class Decimals:
    """Agree when the book's value, rounded to ``places`` decimals (after ``scale``), is the article's.

    ``scale=100`` compares percentages.  A tolerance of half a unit in the last
    place (plus a little slack for floating point) implements rounding.
    """

    places: int
    scale: float = 1.0

    def matches(self, article: float, book: float) -> bool:
        unit = 10.0 ** (-self.places)
        diff = abs(book * self.scale - article * self.scale)
        return bool(diff <= 0.5 * unit * (1 + 1e-9) + 1e-12 * abs(article * self.scale))

    def discrepancy(self, article: float, book: float) -> float:
        """``|book - article|`` in units of the tolerance (half a unit in the last place)."""
        return abs(book - article) * self.scale / (0.5 * 10.0 ** (-self.places))

    def describe(self) -> str:
        unit = " of a per cent" if self.scale == 100 else ""
        return f"rounded to {self.places} decimal{'s' if self.places != 1 else ''}{unit}"

    def format(self, value: float) -> str:
        from heldout.book import chapter

        if self.scale == 100:
            return chapter.pct(value, self.places + 1)
        if self.places == 0 and float(value).is_integer():
            return chapter.count(value)
        return chapter.num(value, self.places + 1)


@dataclass(frozen=True)
class Truncated:
    """Agree when the book's value cut (not rounded) to ``places`` decimals is the article's."""

    places: int

    def matches(self, article: float, book: float) -> bool:
        unit = 10.0 ** (-self.places)
        return bool(article - 1e-12 <= book < article + unit - 1e-12)

    def discrepancy(self, article: float, book: float) -> float:
        """Distance from the middle of ``[article, article + unit)`` in half units (<= 1 inside)."""
        half = 0.5 * 10.0 ** (-self.places)
        return abs(book - (article + half)) / half

    def describe(self) -> str:
        return f"cut to {self.places} decimals"

    def format(self, value: float) -> str:
        from heldout.book import chapter

        return chapter.num(value, self.places + 3)


@dataclass(frozen=True)
class SignificantFigures:
    """Agree when the book's value rounded to ``figures`` significant figures is the article's."""

    figures: int

    def matches(self, article: float, book: float) -> bool:
        if book == 0 or article == 0:
            return bool(book == article)
        return bool(
            float(f"{book:.{self.figures - 1}e}") == float(f"{article:.{self.figures - 1}e}")
        )

    def discrepancy(self, article: float, book: float) -> float:
        """``|book - article|`` in half units of the last significant figure of the article."""
        if article == 0:
            return math.inf if book != 0 else 0.0
        unit = 10.0 ** (math.floor(math.log10(abs(article))) - self.figures + 1)
        return abs(book - article) / (0.5 * unit)

    def describe(self) -> str:
        return f"to {self.figures} significant figure{'s' if self.figures > 1 else ''}"

    def format(self, value: float) -> str:
        from heldout.book import chapter

        if abs(value) >= 100 and float(value).is_integer():
            return chapter.count(value)
        if abs(value) < 1e-3:
            return chapter.sci(value, self.figures)
        return chapter.sig(value, self.figures + 1)


@dataclass(frozen=True)
class Relative:
    """Agree when ``|book - article| <= rtol * |article|``.

    With a tiny ``rtol`` this compares full-precision printouts; with a large
    one it reads a "roughly" or "about" of the article.
    """

    rtol: float

    def matches(self, article: float, book: float) -> bool:
        return bool(abs(book - article) <= self.rtol * abs(article))

    def discrepancy(self, article: float, book: float) -> float:
        """``|book - article|`` in units of ``rtol * |article|``."""
        return abs(book - article) / (self.rtol * abs(article))

    def describe(self) -> str:
        if self.rtol >= 0.01:
            return f"within {self.rtol:.0%} (the article says roughly)"
        return f"relative difference at most {self.rtol:g}"

    def format(self, value: float) -> str:
        from heldout.book import chapter

        if self.rtol >= 0.01:
            return chapter.num(value, 2)
        return repr(float(value))


@dataclass(frozen=True)
class MonteCarlo:
    """Agree when a Monte Carlo estimate from ``draws`` draws is within ``z`` standard errors.

    The article's value is a proportion estimated from ``draws`` simulated
    draws; its standard error is ``sqrt(q (1 - q) / draws)`` at the book's exact
    value ``q``.
    """

    draws: int
    z: float = 4.0

    def matches(self, article: float, book: float) -> bool:
        se = math.sqrt(book * (1.0 - book) / self.draws)
        return bool(abs(article - book) <= self.z * se)

    def discrepancy(self, article: float, book: float) -> float:
        """``|book - article|`` in units of ``z`` Monte Carlo standard errors."""
        return abs(article - book) / (self.z * math.sqrt(book * (1.0 - book) / self.draws))

    def describe(self) -> str:
        return f"within {self.z:g} Monte Carlo standard errors of {self.draws:,} draws"

    def format(self, value: float) -> str:
        from heldout.book import chapter

        return chapter.num(value, 6)


@dataclass(frozen=True)
class Holds:
    """A formula or a verbal claim: it holds when the check's truth value is true."""

    def matches(self, article: bool, book: bool) -> bool:
        return bool(book)

    def discrepancy(self, article: bool, book: bool) -> float:
        """0 when the claim holds, infinity when it does not."""
        return 0.0 if bool(book) else math.inf

    def describe(self) -> str:
        return "the computation confirms the claim"

    def format(self, value: bool) -> str:
        return "holds" if value else "does not hold"


Rule = Decimals | Truncated | SignificantFigures | Relative | MonteCarlo | Holds

_RULES: dict[str, Callable[[str], Rule]] = {
    "decimals": lambda a: Decimals(int(a)),
    "percent": lambda a: Decimals(int(a), scale=100),
    "truncated": lambda a: Truncated(int(a)),
    "sig": lambda a: SignificantFigures(int(a)),
    "relative": lambda a: Relative(float(a)),
    "montecarlo": lambda a: MonteCarlo(int(a)),
}


def parse_rule(text: str) -> Rule:
    """The agreement rule written ``name:argument`` in the data file.

    ``decimals:4`` (rounded to 4 decimals), ``percent:2`` (a percentage rounded
    to 2 decimals), ``truncated:4``, ``sig:3`` (significant figures),
    ``relative:0.15`` (within 15 %: the article's "roughly"), ``montecarlo:1000000``
    (a sampling estimate from that many draws), or ``holds``.

    Examples
    --------
    >>> parse_rule("percent:2").matches(0.0037, 0.00366)
    True
    """
    if text == "holds":
        return Holds()
    name, _, arg = text.partition(":")
    if name not in _RULES or not arg:
        raise ValueError(
            f"rule must be 'holds' or one of {sorted(_RULES)} with ':value', got {text!r}"
        )
    return _RULES[name](arg)


# =========================================================================== checks
# One function per claim, in heldout.book.ledger_checks; the row's evaluation and the page's
# rendering below use them by name.
from heldout.book.ledger_checks import (  # noqa: E402
    _CHECKS,
    Evidence,
    MnistUnavailable,
    check_names,
    mnist_results,
    needs_mnist,
)


def __getattr__(name: str):
    """The checks' own names (``ledger._lost_alpha_mean``...), as before the split."""
    from heldout.book import ledger_checks

    try:
        return getattr(ledger_checks, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


# =========================================================================== evaluation
@dataclass(frozen=True)
class Row(ClaimHead):
    """One evaluated ledger row: the claim, the book's value and the status it earns.

    ``discrepancy`` is ``|book - article|`` in units of the row's tolerance for
    a number (at most 1 when reproduced), 0 or infinity for a formula or verbal
    claim, and None for a data-dependent row.  ``extra`` holds the other numbers the
    check computed (the fields of the row's ``show`` template), so that a page can quote
    them without computing them again.
    """

    book: float | bool | None
    uncertainty: float | None
    book_text: str
    rule: str
    status: str
    expected: str
    severity: str
    reason: str
    chapter: str
    label: str
    error: str = ""
    discrepancy: float | None = None
    conclusion: str = ""
    quote: bool = True
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def as_expected(self) -> bool:
        """True when the status is the one the data file expects."""
        return self.status == self.expected


class _Fields(string.Formatter):
    """``str.format`` that formats numbers the book's way: ``{x:pct:2}``, ``{x:num:4}``, ..."""

    def format_field(self, value, format_spec):
        from heldout.book import chapter

        name, _, arg = format_spec.partition(":")
        if name in ("pct", "num", "sig", "sci", "count"):
            func = getattr(chapter, name)
            return func(value, int(arg)) if arg else func(value)
        return super().format_field(value, format_spec)


def _show(template: str, ev: Evidence) -> str:
    return _Fields().format(template, value=ev.value, sd=ev.uncertainty, **ev.extra)


def evaluate(key: str) -> Row:
    """Evaluate one row of the ledger.

    Runs the row's check with the article's inputs and gives the row its status
    (see the module documentation).  When the MNIST experiment cannot be read
    here (no digits, no cached predictions, a missing extra) a data-dependent row
    keeps its status, with no value, and ``error`` says why.

    Parameters
    ----------
    key : str
        The identifier of a row.

    Returns
    -------
    Row
    """
    from heldout.book import chapter

    c = claim(key)
    if c.check not in _CHECKS:
        raise ValueError(f"{key}: check must name a registered check, got {c.check!r}")
    check = _CHECKS[c.check]
    rule = parse_rule(c.rule)
    args = {k: _resolve(v) for k, v in c.args.items()}
    error, discrepancy = "", None
    try:
        ev = check.func(**args)
    except MnistUnavailable as exc:
        ev, error = Evidence(None), str(exc)
    value = ev.value.item() if isinstance(ev.value, np.generic) else ev.value
    if check.mnist:
        status = "data-dependent"
        if value is None:
            text = "not run here"
        elif c.kind == "number":
            text = f"{chapter.pct(value, 2)} ± {chapter.num(100 * ev.uncertainty, 2)}"
            if "gap" in ev.extra:
                gap = ev.extra["gap"]
                sign = "+" if gap >= 0 else "−"
                text += (
                    f" (ours − article: {sign}{chapter.num(abs(gap), 1)} standard errors of "
                    "the difference)"
                )
        else:
            text = f"{'holds' if value else 'does not hold'} in this build"
            if c.show:
                text += f": {_show(c.show, ev)}"
    else:
        if c.kind == "number":
            status = "reproduced" if rule.matches(c.value, value) else "differs"
        else:
            status = "holds" if value else "does not hold"
        discrepancy = float(rule.discrepancy(c.value, value))
        text = _show(c.show, ev) if c.show else rule.format(value)
    # the reason is a template too: computed numbers in it come from the check
    reason = _show(c.reason, ev) if value is not None else _show(c.reason, Evidence(None))
    return Row(
        **{**claim_head(c), "id": key},
        book=value,
        uncertainty=ev.uncertainty,
        book_text=text,
        rule=rule.describe(),
        status=status,
        expected=c.expected,
        severity=c.severity,
        reason=reason,
        chapter=c.chapter,
        label=c.label,
        error=error,
        discrepancy=discrepancy,
        conclusion=c.conclusion,
        quote=c.quote,
        extra=dict(ev.extra),
    )


def ledger(keys: Iterable[str] | None = None, *, mnist: bool = True) -> list[Row]:
    """Evaluate the ledger (every row, or the rows named in ``keys``).

    Parameters
    ----------
    keys : iterable of str, optional
        Rows to evaluate, by identifier; every row of the data file by default.
    mnist : bool, default True
        Include the rows that read the MNIST experiment.

    Returns
    -------
    list of Row
        In the order of the data file.
    """
    wanted = [c.id for c in claims()] if keys is None else list(keys)
    for key in wanted:
        claim(key)
    return [evaluate(k) for k in wanted if mnist or not needs_mnist(k)]


def status_counts(rows: Sequence[Row]) -> dict[str, int]:
    """Number of rows with each status (every status of :data:`STATUSES` present, maybe 0)."""
    out = dict.fromkeys(STATUSES, 0)
    for row in rows:
        out[row.status] += 1
    return out


def counts(rows: Sequence[Row], by: str = "status") -> dict[str, dict[str, int]]:
    """Rows counted by article and by ``status`` or ``severity`` (with an ``all`` column).

    Returns ``{article key: {column: count}}`` plus an ``"all"`` row; the
    severity columns count only rows that differ or do not hold.
    """
    if by not in ("status", "severity"):
        raise ValueError(f"by must be 'status' or 'severity', got {by!r}")
    columns = STATUSES if by == "status" else SEVERITIES
    keys = list(articles()) + ["all"]
    out = {k: dict.fromkeys([*columns, "all"], 0) for k in keys}
    for row in rows:
        col = getattr(row, by)
        if not col:
            continue
        for k in (row.article, "all"):
            out[k][col] += 1
            out[k]["all"] += 1
    return out


def link(row: Row | Claim, role: str | None = None) -> str:
    """MyST link from a row to where it is checked.

    With ``role="ref"`` (the default, :data:`LINK_ROLE`) it names the row's section label
    (a ``ref`` role, which shows the section's title); with ``role="doc"`` it names the
    row's chapter (a ``doc`` role).

    Examples
    --------
    >>> link(claim("bound-exact"), "ref")
    '{ref}`tsb-example-2`'
    """
    role = LINK_ROLE if role is None else role
    if role == "doc":
        return f"{{doc}}`{row.chapter}`"
    if role == "ref":
        return f"{{ref}}`{row.label}`"
    raise ValueError(f"role must be 'doc' or 'ref', got {role!r}")


def table(rows: Sequence[Row], *, role: str | None = None):
    """The rows as a Markdown table for the ledger page (``heldout.book.chapter.table``).

    Columns: the claim (in the book's words, then the article's own words in quotation
    marks, or a paraphrase marked as such, where they are, the row's identifier and kind),
    what the book computes, the verdict (status, and for a fault its severity and whether
    the article's conclusion stands) and the reason with a link to where it is checked (see
    :func:`link`).
    """
    from heldout.book import chapter

    body = []
    for r in rows:
        why = r.reason
        if r.error:
            why = f"{why} ({r.error})" if why else r.error
        verdict = f"**{r.status}**"
        if r.severity:
            verdict += f" ({r.severity}; conclusion {r.conclusion})"
        words = f"Article: “{r.printed}”" if r.quote else f"Article, in paraphrase: {r.printed}"
        body.append(
            [
                f"{r.claim}. {words} ({r.where}; `{r.id}`, {r.kind})",
                r.book_text,
                verdict,
                f"{why} ({link(r, role)})",
            ]
        )
    return chapter.table(
        body, ["claim", "book", "verdict", "why, and where it is checked"], align="l"
    )
