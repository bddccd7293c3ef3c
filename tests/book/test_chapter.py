"""Tests of heldout.book.chapter (chapter plumbing) and heldout._result (result objects)."""

from dataclasses import dataclass

import numpy as np
import pytest

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
