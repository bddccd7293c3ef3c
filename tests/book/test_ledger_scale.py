"""The ledger's severity scale, its quotes, its sentence file and the rows of issue 41.

* The severity scale is stated once (in ``claims.toml``) and every faulted row keeps the
  promise its level makes about the article's conclusion.
* Rows that grade the same reading of the same quantity share a severity.
* Every row whose ``printed`` text is marked as a quote appears verbatim (whitespace
  normalised; `` ... `` marks an elision) in its article, where the articles are present.
* The sentence file lines up with the articles as ``split_sentences`` cuts them, every row
  is placed on a sentence of its article, and the coverage counts add up.
* The rows added for claims that had none, and the MNIST gap, against independent
  computations (closed forms, direct sums, numerical integration, scikit-learn, a seeded
  simulation).
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats

from heldout.book import claims, ledger

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = claims.claims()
FAULTED = [c.id for c in CLAIMS if c.severity]


def _seeds_dir() -> Path | None:
    """The folder of the five articles: $HELDOUT_SEEDS, or shared/seeds beside the checkout."""
    candidates = [os.environ.get("HELDOUT_SEEDS", "")]
    candidates += [str(p / "shared" / "seeds") for p in (ROOT, *ROOT.parents[:2])]
    for c in candidates:
        if c and all((Path(c) / a.file).exists() for a in claims.articles().values()):
            return Path(c)
    return None


SEEDS = _seeds_dir()
needs_seeds = pytest.mark.skipif(
    SEEDS is None, reason="the five articles are not beside the checkout"
)


def _text(key: str) -> str:
    return (SEEDS / claims.articles()[key].file).read_text(encoding="utf-8")


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


# =========================================================================== the scale
def test_the_scale_is_stated_once_and_each_level_asks_one_question():
    scale = claims.severities()
    assert tuple(scale) == ledger.SEVERITIES
    for name, level in scale.items():
        assert level.question.endswith("?") and level.question.count("?") == 1, name
        assert level.conclusion in ledger.CONCLUSIONS, name
        assert level.meaning and level.name == name
    # only the last level lets the conclusion fall
    assert [lv.conclusion for lv in scale.values()] == ["stands"] * 4 + ["falls"]


@pytest.mark.parametrize("key", FAULTED)
def test_every_faulted_row_keeps_its_levels_promise(key):
    c = claims.claim(key)
    promised = claims.severities()[c.severity].conclusion
    assert c.conclusion == promised, (
        f"{key}: a {c.severity!r} row promises the conclusion {promised}, the row says "
        f"{c.conclusion!r}"
    )


def test_rows_without_a_fault_record_no_conclusion():
    for c in CLAIMS:
        if not c.severity:
            assert c.conclusion == "", c.id


def test_a_wrong_number_is_a_value_and_a_wrong_conclusion_is_a_refuted_claim():
    for c in CLAIMS:
        if c.severity == "wrong number":  # a value: a number, a formula or a program's output
            assert c.kind in ("number", "formula") or "program" in c.claim, c.id
        if c.severity == "wrong conclusion":
            assert c.expected in ("differs", "does not hold"), c.id


#: Rows that grade the same reading of the same quantity (a p-value read as a probability,
#: the reciprocal of a p-value read as an odds ratio): one severity.
SAME_READING = [
    ("mnist-pvalue-meaning", "mnist-chance-svc", "mnist-odds-cnn", "best-with-pvalues"),
    ("posterior-update", "succession"),
]


@pytest.mark.parametrize("group", SAME_READING)
def test_the_same_reading_is_graded_once(group):
    grades = {claims.claim(k).severity for k in group}
    assert len(grades) == 1, grades


def test_table_shows_severity_conclusion_and_quotation():
    rows = ledger.ledger(["bound-exact", "lost-split", "lost-unbiased"])
    text = str(ledger.table(rows))
    assert "**differs** (wrong number; conclusion stands)" in text
    assert "**does not hold** (wrong conclusion; conclusion falls)" in text
    assert "Article, in paraphrase: a_hat" in text and "“0.4565”" in text


# =========================================================================== quotes
def test_paraphrases_are_marked_and_shown_as_such():
    marked = [c for c in CLAIMS if not c.quote]
    assert len(marked) > 30  # chiefly the formulas transcribed from LaTeX into plain text
    row = ledger.evaluate(marked[0].id)
    assert "in paraphrase" in str(ledger.table([row])) and "“" not in str(ledger.table([row]))


@needs_seeds
@pytest.mark.parametrize("key", [c.id for c in CLAIMS if c.quote])
def test_every_quote_is_in_its_article(key):
    c = claims.claim(key)
    text = _norm(_text(c.article))
    at = 0
    for piece in _norm(c.printed).split(" ... "):
        found = text.find(piece, at)
        assert found >= 0, f"{key}: {piece!r} is not in article {c.article}"
        at = found + len(piece)


# =========================================================================== sentences
def test_sentence_file_names_known_rows_and_classes():
    ids = {c.id for c in CLAIMS}
    classes = claims.sentence_classes()
    assert tuple(classes) == claims.SENTENCE_CLASSES
    placed = set()
    for s in claims.sentences():
        assert s.kind in claims.SENTENCE_CLASSES
        assert set(s.rows) <= ids, s
        assert not s.rows or s.kind == "checkable", s  # rows check checkable units only
        for r in s.rows:
            assert claims.claim(r).article == s.article, (s, r)
        placed |= set(s.rows)
    assert placed == ids, f"rows on no sentence: {sorted(ids - placed)}"


def test_coverage_counts_add_up():
    cov = claims.sentence_coverage()
    arts = list(claims.articles())
    for key in [*arts, "all"]:
        row = cov[key]
        assert sum(row[k] for k in claims.SENTENCE_CLASSES) == row["units"]
        assert row["covered"] <= row["checkable"]
        units = claims.sentences() if key == "all" else claims.sentences(key)
        assert row["covered"] == sum(1 for u in units if u.kind == "checkable" and u.rows)
    for col in (*claims.SENTENCE_CLASSES, "units", "covered", "rows"):
        assert cov["all"][col] == sum(cov[a][col] for a in arts), col
    assert cov["all"]["rows"] == len(CLAIMS)


def test_split_sentences_cuts_as_documented():
    text = "---\ntitle: x\n---\nFirst, e.g. one. Second?\n\n1. Item \\end{equation} Next.\n"
    assert claims.split_sentences(text) == [
        "--- title: x ---",
        "First, e.g. one.",
        "Second?",
        "1. Item \\end{equation}",
        "Next.",
    ]


@needs_seeds
@pytest.mark.parametrize("key", ["000", "001", "002", "003", "004"])
def test_sentence_file_lines_up_with_the_article(key):
    units = claims.split_sentences(_text(key))
    listed = claims.sentences(key)
    assert [s.n for s in listed] == list(range(1, len(units) + 1))
    for s in listed:
        assert units[s.n - 1].startswith(s.starts), (key, s.n, s.starts)


# =========================================================================== issue 41 rows
def test_memorize_against_a_trained_network():
    """The construction fits random labels exactly; a small MLP trained by scikit-learn
    (Zhang et al.'s empirical point) fits them too."""
    from sklearn.neural_network import MLPClassifier

    ev = ledger.evaluate("lost-memorize")
    assert ev.book is True and ev.extra["fitted"] == 1.0
    assert ev.extra["weights"] == 2 * 200 + 10
    gen = np.random.default_rng(5)
    x, y = gen.normal(size=(200, 10)), gen.integers(0, 2, 200)
    net = MLPClassifier((200,), solver="lbfgs", max_iter=2000, random_state=0).fit(x, y)
    assert net.score(x, y) == 1.0


def test_usual_split_by_the_closed_form():
    ex = ledger.evaluate("size-usual").extra
    usual = 1.6 / 200 + 79 / 800
    best = (math.sqrt(1.6) + math.sqrt(79)) ** 2 / 1000
    assert ex["ratio"] == pytest.approx(usual / best, rel=1e-12)
    assert ex["train_ratio"] == pytest.approx(1.25, rel=1e-12)


def test_nm_one_by_direct_enumeration_and_a_peer():
    # the exact pick probability with unequal rivals, against full enumeration (n = 25)
    n, accs = 25, [0.8, 0.7, 0.6]
    pm = [stats.binom.pmf(np.arange(n + 1), n, a) for a in accs]
    total = 0.0
    for x in range(n + 1):
        for y in range(n + 1):
            for z in range(n + 1):
                if x >= y and x >= z:
                    ties = 1 + (y == x) + (z == x)
                    total += pm[0][x] * pm[1][y] * pm[2][z] / ties
    assert ledger._pick_unequal(accs, n) == pytest.approx(total, rel=1e-12)
    # two models: the package's own exact formula (a separate implementation)
    from heldout.comparison.compare import pick_best_probability

    for m in (50, 384, 2321):
        assert ledger._pick_unequal([0.96, 0.95], m) == pytest.approx(
            pick_best_probability(0.96, 0.01, m), rel=1e-10
        )
    ex = ledger.evaluate("size-nm-one").extra
    assert ledger._pick_unequal([0.96, 0.95, 0.94], ex["three"]) >= 0.95
    assert ledger._pick_unequal([0.96, 0.95, 0.94], ex["three"] - 1) < 0.95
    assert ex["two"] == 2321 and 1 <= ex["ratio"] < 1.05 < ex["crowded"]


def test_failure_growth_by_numerical_integration():
    ex = ledger.evaluate("best-linear").extra
    best, rival = stats.beta(961, 41), stats.beta(951, 51)  # uniform prior, 960 and 950 of 1000

    def p_best(m):
        val, _ = integrate.quad(lambda x: best.pdf(x) * rival.cdf(x) ** m, 0.85, 1, limit=200)
        return val

    assert ex["one"] == pytest.approx(1 - p_best(1), abs=1e-7)
    assert ex["many"] == pytest.approx(1 - p_best(64), abs=1e-7)
    assert ex["ratio"] < 64 / 2


def test_mean_metric_recipe_by_a_direct_simulation():
    """The AUC read as a mean over the n items, on binormal scores simulated here."""
    ex = ledger.evaluate("mean-metrics").extra
    assert ex["mean_word"] == "holds" and ex["auc_word"] == "undercovers"
    gen = np.random.default_rng(8)
    reps, n, pi, auc = 4000, 400, 0.3, 0.8
    shift = math.sqrt(2) * stats.norm.ppf(auc)
    pos = gen.random((reps, n)) < pi
    scores = gen.normal(size=(reps, n)) + shift * pos
    n1 = pos.sum(axis=1)
    ranks = stats.rankdata(scores, axis=1)  # Mann-Whitney: the positives' rank sum
    a = ((ranks * pos).sum(axis=1) - n1 * (n1 + 1) / 2) / (n1 * (n - n1))
    half = stats.norm.ppf(0.975) * np.sqrt(a * (1 - a) / n)
    hits = int(np.sum(np.abs(a - auc) <= half))
    cover = hits / reps
    assert abs(cover - ex["auc"]) < 4 * math.sqrt(cover * (1 - cover) / reps) + 0.01
    assert cover < 0.93


def test_strict_threshold_by_exact_tails():
    """The exact critical count for "above 0.8" and "at least 0.8 + 1e-6", 1,000 items,
    alpha = 1 %, from tail sums in exact fractions."""
    from fractions import Fraction
    from math import comb

    def critical(p: Fraction) -> int:
        tail = Fraction(0)
        for c in range(1000, -1, -1):  # P(X >= c), summed from the top
            tail += comb(1000, c) * p**c * (1 - p) ** (1000 - c)
            if tail > Fraction(1, 100):
                return c + 1
        raise AssertionError

    ex = ledger.evaluate("accept-strict").extra
    assert ex["strict"] == critical(Fraction(4, 5)) == 830
    assert ex["minimum"] == critical(Fraction(4, 5) + Fraction(1, 10**6))


# =========================================================================== MNIST gap
def test_score_gap_and_odds_ratio_by_hand():
    from heldout.book.mnist.models import odds_ratio, score_gap

    assert score_gap(0.9869, 0.0018, 0.9826, 0.0020) == pytest.approx(
        0.0043 / math.sqrt(0.0018**2 + 0.0020**2), rel=1e-12
    )
    assert odds_ratio(4127, 4090, 4200) == pytest.approx((4127 / 73) / (4090 / 110), rel=1e-12)
    with pytest.raises(ValueError, match="se"):
        score_gap(0.9, 0.0, 0.8, 0.0)
    with pytest.raises(ValueError, match="correct"):
        odds_ratio(4200, 4090, 4200)


def test_odds_row_and_case_study_share_one_orientation():
    row = ledger.evaluate("mnist-odds-cnn")
    assert row.book > 1  # the convnet's odds over the RBF machine's, as the article orients it
    nb = (ROOT / "notebooks" / "mnist_comparison.ipynb").read_text()
    assert 'models.odds_ratio(art_correct[\\"cnn\\"], art_correct[\\"svc_rbf\\"]' in nb
    assert "models.score_gap(r.accuracy, r.se_article, ref, ref_se)" in nb
    assert 'ledger.evaluate(\\"mnist-two-sd\\")' in nb


def test_mnist_accuracy_rows_pass_the_articles_error_bar():
    for c in CLAIMS:
        if c.check == "mnist_accuracy":
            key = c.id.removeprefix("mnist-acc-")
            assert c.args["article"] == f"@mnist-acc-{key}", c.id
            assert c.args["article_sd"] == f"@mnist-sd-{key}", c.id


# =========================================================================== the page
def test_status_only_rows_are_the_ones_the_page_names():
    checked = claims.checked_rows()
    assert checked <= {c.id for c in CLAIMS}
    status_only = [c.id for c in CLAIMS if c.id not in checked]
    assert status_only and all(claims.claim(k).kind != "number" for k in status_only)
