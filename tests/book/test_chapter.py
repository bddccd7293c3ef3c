"""Tests of heldout.book.chapter (chapter plumbing) and heldout._result (result objects)."""

import math
from dataclasses import dataclass

import numpy as np
import pytest
from scipy import stats

from heldout._result import Result, extra
from heldout.book import chapter


def test_number_formats():
    assert chapter.num(0.466753) == "0.4668"
    assert chapter.num(-0.25, 2) == "−0.25"
    assert chapter.num(123456.789, 1) == "123,456.8"
    assert chapter.sig(0.0012345) == "0.00123"
    assert chapter.sig(36152.4) == "36,200"
    assert chapter.sig(0.09996) == "0.100"  # rounding carries into a new digit
    assert chapter.sig(2.0) == "2.00"
    assert chapter.sci(1.06e-6) == "1.06 × 10⁻⁶"
    assert chapter.count(36152) == "36,152"
    assert chapter.pct(0.1634) == "16.3 %"
    assert chapter.pct(0.05, 0) == "5 %"


@pytest.mark.parametrize("bad", [float("nan"), np.nan, "x", None])
def test_formats_refuse_nan_and_non_numbers(bad):
    with pytest.raises(ValueError):
        chapter.num(bad)


def test_count_refuses_fractions():
    with pytest.raises(ValueError, match="whole"):
        chapter.count(2.5)


def test_publish_formats_and_glues(monkeypatch):
    seen = {}

    def fake_glue(name, value, display=True):
        seen[name] = (value, display)

    import myst_nb

    monkeypatch.setattr(myst_nb, "glue", fake_glue)
    assert chapter.publish("a", 0.123456) == "0.1235"
    assert chapter.publish("b", 36152) == "36,152"
    assert chapter.publish("c", 0.1634, "pct:2") == "16.34 %"
    assert chapter.publish("d", 2.5, ".2f") == "2.50"
    assert chapter.publish("e", "below") == "below"
    assert chapter.publish("f", True) == "yes"
    assert chapter.publish("g", 3, lambda v: f"{v} items") == "3 items"
    assert seen["c"] == ("16.34 %", False)
    with pytest.raises(ValueError, match="NaN"):
        chapter.publish("h", float("nan"))


def test_verdict():
    assert chapter.verdict(1 < 2, "below", "above") == "below"
    assert chapter.verdict(np.bool_(False), "below", "above") == "above"


def test_table_markdown_math_and_missing():
    t = chapter.table(
        [
            {"$\\delta$": 0.05, "bound": 0.466753, "note": "a|b"},
            {"$\\delta$": 0.01, "bound": None, "note": "c"},
        ],
        formats={"bound": "num:3", "$\\delta$": "num:2"},
    )
    lines = str(t).splitlines()
    assert lines[0] == "| $\\delta$ | bound | note |"
    assert lines[1] == "|--:|--:|:--|"
    assert lines[2] == "| 0.05 | 0.467 | a\\|b |"
    assert lines[3] == "| 0.01 | — | c |"
    assert t._repr_markdown_() == str(t)
    assert "nan" not in str(chapter.table({"x": [np.nan, 1.0]})).lower()


def test_table_from_dataframe_and_errors():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"k": [38, 37], "exact": [0.466753, 0.456]})
    text = str(chapter.table(frame, columns=["$k$", "exact"]))
    assert "| $k$ | exact |" in text and "| 38 | 0.4668 |" in text
    with pytest.raises(ValueError, match="columns"):
        chapter.table([[1, 2]])
    with pytest.raises(ValueError, match="cells"):
        chapter.table([[1, 2], [3]], columns=["a", "b"])


@dataclass(frozen=True)
class _Interval(Result):
    low: float
    high: float
    method: str = extra("exact")


def test_result_unpacks_names_and_freezes():
    r = _Interval(0.1, 0.3)
    low, high = r
    assert (low, high) == (0.1, 0.3)
    assert len(r) == 2 and r[1] == 0.3
    assert r.method == "exact"
    assert r.to_dict() == {"low": 0.1, "high": 0.3, "method": "exact"}
    with pytest.raises(AttributeError):
        r.low = 0.2  # type: ignore[misc]
    arr = _Interval(np.array([0.1]), np.float64(0.5))
    assert arr.to_dict() == {"low": [0.1], "high": 0.5, "method": "exact"}


def test_table_alignment_per_column():
    text = str(chapter.table([[1, "a"]], columns=["n", "t"], align="rl"))
    assert text.splitlines()[1] == "|--:|:--|"
    assert (
        str(chapter.table([[1, "a"]], columns=["n", "t"], align="c")).splitlines()[1] == "|:-:|:-:|"
    )
    with pytest.raises(ValueError, match="align"):
        chapter.table([[1, "a"]], columns=["n", "t"], align="lrr")
    with pytest.raises(ValueError, match="align"):
        chapter.table([[1, "a"]], columns=["n", "t"], align="xx")


# ---------------------------------------------------------------------------
# The one coverage rule (issue 25), boundaries computed by hand
# ---------------------------------------------------------------------------


def test_coverage_verdict_boundaries_by_hand():
    from heldout.book.chapter import coverage_tolerance, coverage_verdict, level_verdict

    # R = 1,900 at alpha 0.05: se = sqrt(0.0475 / 1900) = 0.005 exactly, so the band is
    # [0.94, 0.96] (2 se = 0.01 on both sides)
    se, lo, hi = coverage_tolerance(1900, 0.05)
    assert (se, lo, hi) == pytest.approx((0.005, 0.01, 0.01))
    assert coverage_verdict(0.94, 1900) == "holds"
    assert coverage_verdict(0.9399, 1900) == "undercovers"
    assert coverage_verdict(0.96, 1900) == "holds"
    assert coverage_verdict(0.9601, 1900) == "conservative"
    # R = 100,000: 2 se = 0.00138, so the floors govern: [0.945, 0.96]
    assert coverage_verdict(0.9451, 100_000) == "holds"
    assert coverage_verdict(0.9449, 100_000) == "undercovers"
    assert coverage_verdict(0.9599, 100_000) == "holds"
    assert coverage_verdict(0.9601, 100_000) == "conservative"
    # R = 400 at alpha 0.05: 2 se = 2 sqrt(0.0475 / 400) = 0.02179...
    two_se = 2 * math.sqrt(0.05 * 0.95 / 400)
    assert coverage_verdict(0.95 - two_se + 1e-4, 400) == "holds"
    assert coverage_verdict(0.95 - two_se - 1e-4, 400) == "undercovers"
    # alpha 0.1, R = 900: se = 0.01, band [0.88, 0.92]
    assert coverage_verdict([0.879, 0.88, 0.92, 0.921], 900, alpha=0.1).tolist() == [
        "undercovers",
        "holds",
        "holds",
        "conservative",
    ]
    # the cases: 92.0 % and 93.2 % at 95 % with 2,000 reps undercover; 99.6 % is
    # conservative
    assert coverage_verdict([0.920, 0.932, 0.996], 2000).tolist() == [
        "undercovers",
        "undercovers",
        "conservative",
    ]
    # vectorised over reps too
    assert coverage_verdict(0.935, [100, 10_000]).tolist() == ["holds", "undercovers"]
    # the level version mirrors it: exceeding alpha is the broken promise
    assert [level_verdict(r, 1900) for r in (0.06, 0.0601, 0.04, 0.0399)] == [
        "holds its level",
        "exceeds its level",
        "holds its level",
        "conservative",
    ]
    # 1 - coverage gives the mirror word
    mirror = dict(zip(chapter.COVERAGE_VERDICTS, chapter.LEVEL_VERDICTS, strict=True))
    for c in np.linspace(0.9, 1.0, 41):
        assert level_verdict(1 - c, 500) == mirror[coverage_verdict(c, 500)]


def test_coverage_verdict_refuses_bad_input():
    from heldout.book.chapter import coverage_verdict, level_verdict

    with pytest.raises(ValueError, match="coverage"):
        coverage_verdict(1.2, 100)
    with pytest.raises(ValueError, match="reps"):
        coverage_verdict(0.95, 0)
    with pytest.raises(ValueError, match="alpha"):
        level_verdict(0.05, 100, alpha=1.5)


def test_coverage_verdict_false_alarm_of_a_correct_method():
    # simulated: a method that covers exactly 95 % is called "undercovers" about 2.3 % of
    # the time and "conservative" about 2.3 % (the 2 se band) with R = 2,000
    from heldout.book.chapter import coverage_verdict

    rng = np.random.default_rng(0)
    cov = rng.binomial(2000, 0.95, size=20_000) / 2000
    words = coverage_verdict(cov, 2000)
    under = np.mean(words == "undercovers")
    cons = np.mean(words == "conservative")
    exact_under = stats.binom.cdf(
        np.ceil(2000 * (0.95 - 2 * math.sqrt(0.0475 / 2000))) - 1, 2000, 0.95
    )
    assert under == pytest.approx(exact_under, abs=0.005)
    assert 0.01 < under < 0.04 and 0.01 < cons < 0.04


def test_a_chapter_prints_warnings_without_the_build_machines_path():
    """Importing the chapter module makes warnings print as ``Category: message``."""
    import warnings

    import heldout.book.chapter  # noqa: F401
    from heldout.metrics.bootstrap import SmallSampleWarning

    text = warnings.formatwarning("a count is 3", SmallSampleWarning, "/home/ann/x.py", 7)
    assert text == "SmallSampleWarning: a count is 3\n"
