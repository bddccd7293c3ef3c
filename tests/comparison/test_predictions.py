"""heldout.comparison.predictions: the correctness matrix, the CSV reader and the pattern counts."""

from __future__ import annotations

import io

import numpy as np
import pytest

from heldout.comparison import predictions as R


def test_correctness_from_arrays_and_mappings():
    y = np.array(["cat", "dog", "cat", "bird"])
    preds = {"a": ["cat", "cat", "cat", "bird"], "b": ["dog", "dog", "cat", "cat"]}
    want = np.array([[1, 0], [0, 1], [1, 1], [1, 0]], dtype=bool)
    assert np.array_equal(R.correctness(y, preds), want)
    assert np.array_equal(R.correctness(y, np.column_stack(list(preds.values()))), want)
    with pytest.raises(ValueError, match="model 1"):
        R.correctness(y, [preds["a"], ["cat"]])
    with pytest.raises(ValueError, match="y_true"):
        R.correctness([], [[]])


@pytest.fixture(params=["numpy", "arrow"])
def parser(request, monkeypatch):
    """Each reader test runs twice: numpy's parser, and pyarrow's for any size of file."""
    if request.param == "arrow":
        pytest.importorskip("pyarrow")
        monkeypatch.setattr(R, "_ARROW_MIN_CHARS", 0)
    return request.param


def test_read_predictions_numbers_text_quotes_and_stdin(monkeypatch, parser):
    numeric = "label,m1,m2\n3,3.0,2\n1,1,1\n2,0,2\n"
    p = R.read_predictions(io.StringIO(numeric))
    assert p.names == ["m1", "m2"]
    assert p.correct.astype(int).tolist() == [[1, 0], [1, 1], [0, 1]]  # 3 equals 3.0
    text = 'truth, x ,y\ncat,cat,"dog"\n"a, b","a, b",cat\n'
    p = R.read_predictions(io.StringIO(text), label="truth")
    assert p.names == ["x", "y"] and p.correct.astype(int).tolist() == [[1, 0], [1, 0]]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(numeric.encode())))
    assert R.read_predictions("-").correct.shape == (3, 2)


def test_read_predictions_matches_a_plain_python_reader(tmp_path, parser):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 10, 3000)
    cols = [np.where(rng.random(3000) < q, y, rng.integers(0, 10, 3000)) for q in (0.9, 0.8, 0.7)]
    path = tmp_path / "p.csv"
    path.write_text(
        "label,a,b,c\r\n"
        + "".join(f"{v},{x},{w},{z}\r\n" for v, x, w, z in zip(y, *cols, strict=True))
    )
    p = R.read_predictions(path)
    want = np.column_stack([c == y for c in cols])
    assert np.array_equal(p.correct, want)


@pytest.mark.parametrize(
    "text,match",
    [
        ("", "empty"),
        ("label,a,b\n", "no items"),
        ("lab,a,b\n1,1,1\n", "no label column"),
        ("label,a\n1,1\n", "at least two model"),
        ("label,a,b\n1,1,1\n2,2\n", "rectangular|cells"),
        ("label,a,b\nx,y,z\nx,y\n", "rectangular|cells"),
        ("label,a,b\ncat,,dog\n", "empty cell"),
        ("label,a,a\n1,1,1\n", "repeats"),
        ("label,a,b\n1,nan,1\n", "missing"),
    ],
)
def test_read_predictions_refusals(text, match, parser):
    with pytest.raises(ValueError, match=match):
        R.read_predictions(io.StringIO(text))


def test_both_parsers_give_the_same_cells_and_messages(monkeypatch):
    """pyarrow's cells are numpy's, and what pyarrow cannot read as numbers numpy decides."""
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(4)
    rows = [
        f"{v},{v if rng.random() < 0.8 else 9},{rng.integers(0, 3)}.0"
        for v in rng.integers(0, 3, 500)
    ]
    cases = [
        "label,a,b\n" + "\n".join(rows) + "\n",
        'label,a,b\r\n1,1, 2\r\n2,"2",2\r\n',  # spaces, quotes, CRLF
        "label,a,b\n1,1e0,2\n2,+2,2\n",
        "label,a,b\ncat,cat,dog\n1,1,1\n",  # text: numpy's path
        "label,a,b\n1,1,1\n2,2\n",  # ragged
        "label,a,b\n1,,1\n",  # empty cell
        "label,a,b\n1,nan,1\n",  # NaN
        "label,a,b\n1,inf,1\n",  # too large for a label
    ]
    for text in cases:
        got = {}
        for which, size in (("numpy", 1 << 40), ("arrow", 0)):
            monkeypatch.setattr(R, "_ARROW_MIN_CHARS", size)
            try:
                p = R.read_predictions(io.StringIO(text))
                got[which] = (p.names, p.correct.tolist())
            except ValueError as exc:
                got[which] = str(exc)
        assert got["arrow"] == got["numpy"], text


def test_read_predictions_missing_file():
    with pytest.raises(ValueError, match="does not exist"):
        R.read_predictions("/no/such/file.csv")


def test_pattern_counts_brute_force():
    rng = np.random.default_rng(2)
    for k in (1, 3, 8, 22):
        c = rng.random((500, k)) < 0.7
        pat = R.pattern_counts(c)
        rows, counts = np.unique(c, axis=0, return_counts=True)
        got = {tuple(r): int(n) for r, n in zip(pat.patterns, pat.counts, strict=True)}
        assert got == {tuple(r): int(n) for r, n in zip(rows, counts, strict=True)}
        assert pat.counts.sum() == 500


def test_as_correct_refusals():
    with pytest.raises(ValueError, match="2-d"):
        R.as_correct([1, 0])
    with pytest.raises(ValueError, match="0/1"):
        R.as_correct([[1, float("nan")], [0, 1]])
    with pytest.raises(ValueError, match="booleans"):
        R.as_correct([["a", "b"], ["c", "d"]])
    assert R.as_correct([[True, False]], min_models=1).dtype == bool
