"""The course's problem sets, quizzes and exam: every computed answer against an independent
computation (scipy, statsmodels, scikit-learn, closed forms, brute force), the checker
(right answers pass, common wrong answers fail with the rubric's hint, no answer ever
printed), and the student pages (up to date, free of key and rubric text).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, stats

from heldout.book.course import check, everything, key_page, student_page
from heldout.book.course.problem_sets import FOLDS_A, FOLDS_B
from heldout.book.course.render import write_instructor, write_student

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
STUDENT = ROOT / "book" / "course"
Z = stats.norm.ppf(0.975)


# ------------------------------------------------------------------ the data, read apart
def _rows(name):
    with open(EXAMPLES / name, newline="") as f:
        return list(csv.DictReader(f))


def _correct():
    rows = _rows("predictions.csv")
    return np.array(
        [[r[m] == r["label"] for m in ("model_a", "model_b", "model_c", "model_d")] for r in rows]
    )


def _cp(k, n, alpha=0.05):
    lo = stats.beta.ppf(alpha / 2, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(1 - alpha / 2, k + 1, n - k) if k < n else 1.0
    return lo, hi


def _upper(k, n, alpha):
    """One-sided exact upper bound by root finding on the binomial CDF."""
    return optimize.brentq(lambda p: stats.binom.cdf(k, n, p) - alpha, 1e-12, 1 - 1e-12, xtol=1e-14)


def _critical(n, p0, alpha=0.05):
    c = np.arange(n + 2)
    return int(c[stats.binom.sf(c - 1, n, p0) <= alpha][0])


def _tango(b, c, n, alpha=0.05):
    """Score interval for a paired difference: restricted multinomial MLE by optimisation."""

    def z(delta):
        def nll(q):  # q = p_c (only B right); p_b = q + delta
            pb, pc = q + delta, q
            if pb <= 0 or pc <= 0 or pb + pc >= 1:
                return np.inf
            return -(b * np.log(pb) + c * np.log(pc) + (n - b - c) * np.log(1 - pb - pc))

        lo = max(1e-12, -delta + 1e-12)
        hi = (1 - delta) / 2 - 1e-12
        q = optimize.minimize_scalar(
            nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}
        ).x
        var = (2 * q + delta - delta**2) / n
        return ((b - c) / n - delta) / math.sqrt(var)

    d0 = (b - c) / n
    crit = stats.norm.ppf(1 - alpha / 2)
    low = optimize.brentq(lambda d: z(d) - crit, -0.999, d0, xtol=1e-12)
    high = optimize.brentq(lambda d: z(d) + crit, d0, 0.999, xtol=1e-12)
    return low, high


def _holm_count(pvalues, alpha=0.05):
    order = np.argsort(pvalues)
    m = len(pvalues)
    count = 0
    for i, j in enumerate(order):
        if pvalues[j] > alpha / (m - i):
            break
        count += 1
    return count


def _delong(y, *scores):
    y = np.asarray(y)
    pos, neg = y == 1, y == 0
    v10, v01 = [], []
    for s in scores:
        x, w = s[pos][:, None], s[neg][None, :]
        psi = (x > w) + 0.5 * (x == w)
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
    aucs = np.array([v.mean() for v in v10])
    cov = np.cov(np.array(v10)) / pos.sum() + np.cov(np.array(v01)) / neg.sum()
    return aucs, np.atleast_2d(cov)


def _scores():
    rows = _rows("scores.csv")
    return (
        np.array([int(r["label"]) for r in rows]),
        np.array([float(r["model_a"]) for r in rows]),
        np.array([float(r["model_b"]) for r in rows]),
    )


def _items():
    rows = _rows("items.csv")
    right = np.array([r["label"] == r["model"] for r in rows], dtype=float)
    writer = np.array([r["writer"] for r in rows])
    return right, writer


def _outcomes():
    return np.array([int(line) for line in (EXAMPLES / "outcomes.txt").read_text().split()])


def _ps1_3():
    return int((~_correct()[:, 2]).sum())


def _ps2_exact_size_holds(m, t=0.03, alpha=0.05):
    p = np.linspace(0.3, 0.7, 801)
    k = np.arange(m + 1)[:, None]
    pmf = stats.binom.pmf(k, m, p[None, :])
    far = np.abs(k / m - p[None, :]) > t + 1e-12
    return float((pmf * far).sum(axis=0).max()) <= alpha


def _ps3_counts():
    c = _correct()
    return int((c[:, 0] & ~c[:, 2]).sum()), int((~c[:, 0] & c[:, 2]).sum())


def _ps3_pairs():
    c = _correct()
    ps = []
    for i in range(4):
        for j in range(i + 1, 4):
            b, d = int((c[:, i] & ~c[:, j]).sum()), int((~c[:, i] & c[:, j]).sum())
            ps.append(stats.binomtest(b, b + d, 0.5).pvalue)
    return np.array(ps)


def _ps3_leader():
    c = _correct()
    best = int(np.argmax(c[:1000].sum(axis=0)))
    k = int(c[1000:, best].sum())
    return stats.beta.ppf(0.05, k, 1000 - k + 1)


def _ps4_precision():
    y, a, _ = _scores()
    pred = a >= 0.5
    tp, fp = int((pred & (y == 1)).sum()), int((pred & (y == 0)).sum())
    return (tp / (tp + fp), *_cp(tp, tp + fp))


def _ps4_auc():
    from sklearn.metrics import roc_auc_score

    y, a, _ = _scores()
    aucs, cov = _delong(y, a)
    value = roc_auc_score(y, a)
    assert value == pytest.approx(aucs[0], abs=1e-12)
    se = math.sqrt(cov[0, 0])
    return (value, value - Z * se, value + Z * se)


def _ps4_diff():
    y, a, b = _scores()
    aucs, cov = _delong(y, a, b)
    se = math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    return 2 * stats.norm.sf(abs(aucs[0] - aucs[1]) / se)


def _ps5_cluster():
    import statsmodels.api as sm

    right, writer = _items()
    codes = np.unique(writer, return_inverse=True)[1]
    fit = sm.OLS(right, np.ones_like(right)).fit(
        cov_type="cluster", cov_kwds={"groups": codes}, use_t=True
    )
    lo, hi = fit.conf_int(0.05)[0]
    return lo, hi


def _ps5_deff():
    right, writer = _items()
    n = right.size
    codes = np.unique(writer, return_inverse=True)[1]
    g = codes.max() + 1
    sums = np.bincount(codes, right - right.mean())
    var_cluster = g / (g - 1) * (sums**2).sum() / n**2
    var_iid = right.var(ddof=1) / n
    return var_cluster / var_iid


def _ps6_corrected():
    d = np.array(FOLDS_A) - np.array(FOLDS_B)
    j = d.size
    t = d.mean() / math.sqrt((1 / j + 0.1 / 0.9) * d.var(ddof=1))
    return 2 * stats.t.sf(abs(t), j - 1)


def _ps6_lab():
    k = int(_correct()[:, 0].sum())
    return (k / 2000, *_cp(k, 2000))


#: (assessment, part) -> an independent computation of its answer.
INDEPENDENT = {
    ("ps1", "1c"): lambda: 1 - 0.05 ** (1 / 250),
    ("ps1", "2a"): lambda: _cp(12, 500),
    ("ps1", "2b"): lambda: stats.beta.cdf(0.04, 13, 489),
    ("ps1", "3a"): _ps1_3,
    ("ps1", "3b"): lambda: _upper(_ps1_3(), 2000, 0.05),
    ("ps2", "1b"): lambda: math.ceil(math.log(2 / 0.05) / (2 * 0.03**2)),
    ("ps2", "2a"): lambda: _critical(1000, 0.95),
    ("ps2", "2b"): lambda: stats.binom.sf(961, 1000, 0.95),
    ("ps2", "3a"): lambda: stats.binom.sf(_outcomes()[:400].sum() - 1, 400, 0.88),
    ("ps3", "1c"): lambda: 2 * stats.binom.sf(8, 11, 0.5),
    ("ps3", "2a"): _ps3_counts,
    ("ps3", "2b"): lambda: stats.binomtest(*_ps3_counts()[:1], sum(_ps3_counts()), 0.5).pvalue,
    ("ps3", "2c"): lambda: _tango(*_ps3_counts(), 2000),
    ("ps3", "3a"): lambda: _holm_count(_ps3_pairs()),
    ("ps3", "3b"): _ps3_leader,
    ("ps4", "1a"): _ps4_precision,
    ("ps4", "2b"): lambda: 6.5 / 9,
    ("ps4", "2c"): _ps4_auc,
    ("ps4", "2d"): _ps4_diff,
    ("ps5", "1b"): lambda: 1200 / (1 + 19 * 0.05),
    ("ps5", "2a"): _ps5_cluster,
    ("ps5", "2b"): _ps5_deff,
    ("ps5", "3a"): lambda: math.ceil(Z**2 * 0.9 * 0.1 * (1 + 19 * 0.05) / (20 * 0.02**2)),
    ("ps6", "1b"): _ps6_corrected,
    ("ps6", "2b"): lambda: math.sqrt(
        (49 * math.log(10001) + math.log(2 * 50 / 0.05)) / (2 * 10000)
    ),
    ("ps6", "3a"): _ps6_lab,
    ("quiz1", "1"): lambda: 1 - 0.05 ** (1 / 100),
    ("quiz1", "3"): lambda: (1 + 3) + (1 + 47),
    ("quiz2", "1"): lambda: math.ceil(math.log(2 / 0.05) / (2 * 0.05**2)),
    ("quiz2", "3"): lambda: _critical(200, 0.9),
    ("quiz3", "1"): lambda: stats.binomtest(9, 11, 0.5).pvalue,
    ("quiz3", "3"): lambda: min(1.0, 4 * 0.01),
    ("quiz4", "1"): lambda: _cp(30, 40),
    ("quiz4", "3"): lambda: np.mean([x > w for x in (0.9, 0.6) for w in (0.7, 0.2)]),
    ("quiz5", "1"): lambda: 1 + 10 * 0.1,
    ("quiz5", "2"): lambda: math.floor(1000 / 2.5),
    ("quiz6", "2"): lambda: math.sqrt(math.log(2 * 20 / 0.05) / (2 * 5000)),
    ("exam", "1a"): lambda: 1 - 0.05 ** (1 / 600),
    ("exam", "2a"): lambda: 2 * stats.binom.sf(13, 18, 0.5),
    ("exam", "2b"): lambda: 0.05 / 10,
    ("exam", "3a"): lambda: 2000 / (1 + 24 * 0.08),
    ("exam", "4a"): lambda: math.ceil(math.log(2 / 0.01) / (2 * 0.03**2)),
}

BOOKS = {a.key: a for a in everything()}
NUMERIC = [
    (a.key, addr)
    for a in everything()
    for addr, p in a.parts().items()
    if p.checked and not p.choices
]


@pytest.mark.parametrize(("name", "address"), NUMERIC)
def test_every_answer_matches_an_independent_computation(name, address):
    part = BOOKS[name].parts()[address]
    if (name, address) == ("ps2", "1c"):  # a size: it holds there and fails one below
        m = int(part.value()[0])
        assert _ps2_exact_size_holds(m) and not _ps2_exact_size_holds(m - 1)
        return
    expected = np.atleast_1d(np.asarray(INDEPENDENT[(name, address)](), dtype=float))
    got = np.array(part.value())
    assert got.shape == expected.shape
    tol = 1e-9 if part.digits == 0 else 1e-7
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def test_the_table_of_independent_computations_is_complete():
    assert set(NUMERIC) - {("ps2", "1c")} == set(INDEPENDENT)


def test_every_set_has_each_kind_and_the_planned_points():
    sets = [a for a in everything() if a.kind == "problem set"]
    assert [a.week for a in sets] == [1, 2, 3, 4, 5, 6]
    for a in sets:
        kinds = {p.kind for p in a.parts().values()}
        assert kinds == {"Concept", "Derivation", "Computation", "Data"}, a.key
        assert a.points == 20
    assert all(len(a.problems) == 5 and a.points == 5 for a in everything() if a.kind == "quiz")
    exam = BOOKS["exam"]
    assert exam.minutes == 90 and exam.points == 60


def test_each_common_mistake_is_told_apart_from_the_answer():
    for a in everything():
        for address, part in a.parts().items():
            for m in part.mistakes:
                assert not part.matches(m.values(), part.value()), (a.key, address, m.name)


def _right(a):
    return {
        addr: list(p.value()) if len(p.value()) > 1 else p.value()[0]
        for addr, p in a.parts().items()
        if p.checked
    }


def _forms(values, digits):
    """Ways an answer could leak into text: full precision, rounded, as a percentage."""
    out = set()
    for v in values:
        out |= {
            repr(v),
            f"{v:.{max(digits, 3)}f}",
            f"{v:.3g}",
            f"{v:,.0f}" if digits == 0 else f"{v:.4f}",
        }
        if 0 < abs(v) < 1:
            out.add(f"{100 * v:.2f}")
    return {s for s in out if len(s.strip("0.,-")) >= 2}


@pytest.mark.parametrize("name", sorted(BOOKS))
def test_right_answers_pass_with_full_points(name):
    a = BOOKS[name]
    report = check(name, _right(a))
    assert report.passed
    assert (
        report.points
        == report.checked_points
        == sum(p.points for p in a.parts().values() if p.checked)
    )


@pytest.mark.parametrize("name", sorted(BOOKS))
def test_common_mistakes_fail_with_the_hint_and_never_show_the_answer(name):
    a = BOOKS[name]
    wrong = {}
    hints = {}
    for addr, part in a.parts().items():
        if part.mistakes:
            m = part.mistakes[0]
            wrong[addr] = list(m.values())
            hints[addr] = m.hint
    assert wrong, f"{name} lists no common mistake"
    report = check(name, wrong)
    assert not report.passed
    verdicts = {p.part: p for p in report.parts}
    for addr, hint in hints.items():
        assert verdicts[addr].status == "wrong" and verdicts[addr].earned == 0
        assert verdicts[addr].message == hint
    text = str(report) + json.dumps([p.to_dict() for p in report.parts])
    for addr, part in a.parts().items():
        if part.checked and not part.choices:
            for form in _forms(part.value(), part.digits):
                assert form not in text, (addr, form)


def test_a_near_miss_is_wrong_and_a_rounded_answer_is_right():
    part = BOOKS["ps1"].parts()["1c"]
    value = part.value()[0]
    assert check("ps1", {"1c": round(value, 4)}).parts[2].status == "right"
    assert check("ps1", {"1c": value + 2e-4}).parts[2].status == "wrong"
    assert check("ps1", {"1c": [value, value]}).parts[2].message == "expected one number"
    assert check("quiz1", {"2": "b"}).parts[1].status == "right"
    assert check("quiz1", {"2": "(a)"}).parts[1].status == "wrong"


def test_bad_answers_are_refused_by_name():
    with pytest.raises(ValueError, match="no part 9z in ps1"):
        check("ps1", {"9z": 1})
    with pytest.raises(ValueError, match="assessment: 'ps7'"):
        check("ps7", {})


def test_the_command_line_checks_a_file(tmp_path, capsys):
    from heldout.cli import main

    a = BOOKS["ps5"]
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(_right(a)))
    mistake = a.parts()["2a"].mistakes[0]
    bad.write_text(json.dumps({"2a": list(mistake.values())}))
    assert main(["check", "ps5", str(good), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["passed"] is True
    assert main(["check", "ps5", str(bad)]) == 0
    out = capsys.readouterr().out
    assert mistake.hint in out and "2a  wrong" in out
    for form in _forms(a.parts()["2a"].value(), 4):
        assert form not in out
    junk = tmp_path / "junk.json"
    junk.write_text("{1,")
    assert main(["check", "ps5", str(junk)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not JSON" in err


def _key_texts(a):
    """Every string of a key that the student edition must not contain."""
    texts = []
    for part in a.parts().values():
        texts += [part.model, part.full, part.partial, part.none]
        for m in part.mistakes:
            texts.append(m.hint)
    return [t for t in texts if len(t) > 12]


def test_student_pages_are_up_to_date_and_hold_no_key_or_rubric(tmp_path):
    written = write_student(tmp_path)
    assert sorted(p.name for p in STUDENT.glob("*.md")) == sorted(p.name for p in written)
    for path in written:
        assert (STUDENT / path.name).read_text() == path.read_text(), (
            f"rerun: python -m heldout.book.course.render --student book/course ({path.name})"
        )
    student = "\n".join(p.read_text() for p in STUDENT.glob("*.md"))
    assert "exam" not in {p.stem for p in STUDENT.glob("*.md")}
    for a in everything():
        for text in _key_texts(a):
            assert text not in student, (a.key, text[:60])
        assert "Full credit" not in student and "**Answer" not in student


def test_the_instructor_edition_holds_every_answer_and_rubric(tmp_path):
    pages = write_instructor(tmp_path)
    names = {p.stem for p in pages}
    assert {f"ps{i}_key" for i in range(1, 7)} | {f"quiz{i}_key" for i in range(1, 7)} | {
        "exam",
        "exam_key",
        "grading",
    } <= names
    toc = (tmp_path / "_toc.yml").read_text()
    assert all(f"file: {n}" in toc for n in names)
    for a in everything():
        key = key_page(a)
        for part in a.parts().values():
            if part.checked:
                assert f"**Answer: {part.shown(part.value())}.**" in key
            assert part.full in key
    exam_paper = (tmp_path / "exam.md").read_text()
    assert "Full credit" not in exam_paper and "90 minutes" in exam_paper
    assert student_page(BOOKS["exam"]).count("## Problem") == 5


def test_the_teaching_page_links_each_week_to_its_set_quiz_and_slides():
    import re

    page = (ROOT / "book" / "teaching.md").read_text(encoding="utf-8")
    six = page[page.index("## Six weeks") :]
    plan = {
        int(m.group(1)): m.group(2)
        for m in re.finditer(r"^\| (\d): [^|]*\|([^|]*)\|", six, flags=re.M)
    }
    for a in everything():
        if a.kind != "problem set":
            continue
        read = re.findall(r"notebooks/(\w+)`", plan[a.week])
        assert list(a.reading) == [r for r in read if r != "mnist_comparison"], (
            f"{a.key}: its reading differs from week {a.week} of the six-week plan"
        )
        row = next(
            line for line in page.splitlines() if line.startswith(f"| {a.week} | {{doc}}`course/")
        )
        assert f"{{doc}}`course/{a.key}`" in row and f"{{doc}}`course/quiz{a.week}`" in row
        assert [s[:-4] for s in re.findall(r"`(\w+\.pdf)`", row)] == list(a.reading)
    assert "make instructor" in page and "make slides" in page


QUICK_HTML = ROOT / "_build" / "quick" / "_build" / "html"


@pytest.mark.skipif(
    not (QUICK_HTML / "book" / "course").is_dir(), reason="no quick build yet (make quickbook)"
)
def test_the_built_course_pages_hold_no_key_or_rubric():
    pages = [
        *(QUICK_HTML / "book" / "course").glob("*.html"),
        QUICK_HTML / "book" / "teaching.html",
    ]
    pages += list((QUICK_HTML / "_sources" / "book" / "course").glob("*"))
    assert len(pages) >= 14
    import html as html_module

    text = "\n".join(
        html_module.unescape(p.read_text(encoding="utf-8", errors="replace")) for p in pages
    )
    for a in everything():
        for key_text in _key_texts(a):
            probe = key_text[:40]
            assert "$" in probe or "`" in probe or probe not in text, (a.key, probe)


def test_a_student_notebook_runs_the_check_on_right_and_wrong_answers(tmp_path):
    """A student's notebook computes PS1's answers its own way (scipy, closed forms) and
    checks them; a second set holds the common mistakes.  Executed by a Jupyter kernel."""
    import nbformat
    from nbclient import NotebookClient

    right = """\
import numpy as np
from scipy import stats
from heldout.book.course import check
from heldout.book.course.data import predictions
y, pred = predictions()
k = int((pred[:, 2] != y).sum())
answers = {
    "1c": 1 - 0.05 ** (1 / 250),
    "2a": [stats.beta.ppf(0.025, 12, 489), stats.beta.ppf(0.975, 13, 488)],
    "2b": stats.beta.cdf(0.04, 13, 489),
    "3a": k,
    "3b": stats.beta.ppf(0.95, k + 1, 2000 - k),
}
print(check("ps1", answers))"""
    wrong = """\
p = 12 / 500
half = 1.96 * (p * (1 - p) / 500) ** 0.5
mistakes = {"1c": 0.0, "2a": [p - half, p + half], "2b": stats.beta.cdf(0.04, 12, 488), "3a": 2000 - k}
print(check("ps1", mistakes))"""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(right), nbformat.v4.new_code_cell(wrong)]
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    good, bad = ("".join(o.get("text", "") for o in c.outputs) for c in nb.cells)
    assert good.startswith("ps1: 14/14 points") and "wrong" not in good and "missing" not in good
    assert bad.startswith("ps1: 0/14 points")
    parts = BOOKS["ps1"].parts()
    for address in ("1c", "2a", "2b", "3a"):
        assert parts[address].mistakes[0].hint in bad, address
    for address, part in parts.items():
        if part.checked:
            for form in _forms(part.value(), part.digits):
                assert form not in good + bad, (address, form)
