"""The two CSV readers of read_predictions (pyarrow's, numpy's reference) and Parquet agree.

Every file below is read by both parsers; the columns must be equal bit for bit, the
refusals must carry the same message, and ``evaluate`` must print the same report
from either (issue 30: the faster reader changes no number).
"""

from __future__ import annotations

import numpy as np
import pytest

from heldout.metrics.evaluate import evaluate
from heldout.metrics.prediction_files import _count_rows, _read_csv_arrow, read_predictions

pa = pytest.importorskip("pyarrow")


def _both(path, **kw):
    return read_predictions(path, reader="arrow", **kw), read_predictions(
        path, reader="numpy", **kw
    )


def _same(a, b):
    assert a.label == b.label and list(a.models) == list(b.models)
    np.testing.assert_array_equal(a.y, b.y)
    for m in a.models:
        assert a.models[m].dtype == b.models[m].dtype == np.float64
        np.testing.assert_array_equal(a.models[m], b.models[m])
    assert list(a.groups) == list(b.groups)
    for g in a.groups:
        np.testing.assert_array_equal(a.groups[g], b.groups[g])


def _random_csv(path, n, seed, newline="\n"):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    s = rng.random(n)
    rows = ["label,score,hard,school"]
    for i in range(n):
        # full-precision repr, scientific notation and short decimals, spaces around fields
        v = repr(float(s[i])) if i % 3 == 0 else (f"{s[i]:.3e}" if i % 3 == 1 else f" {s[i]:.4f} ")
        rows.append(f'{y[i]},{v},{int(s[i] > 0.5)},"s{i % 7}"')
        if i % 50 == 17:
            rows.append("")  # blank lines are skipped by both readers
    path.write_text(newline.join(rows) + newline)
    return path


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_pyarrow_and_numpy_read_the_same_columns(tmp_path, newline):
    path = _random_csv(tmp_path / "p.csv", 3000, 1, newline)
    a, b = _both(path, models=["score", "hard"], groups=["school"])
    _same(a, b)
    # the fast path read it (it did not fall back to numpy)
    rows = _count_rows(path)
    assert _read_csv_arrow(path, "p", "label", ["score", "hard"], rows, ("school",)) is not None
    assert a.n == 3000 and set(a.groups["school"]) == {f"s{k}" for k in range(7)}


def test_parsed_values_are_the_correctly_rounded_doubles(tmp_path):
    # an independent reference: Python's float() of each written text
    rng = np.random.default_rng(3)
    texts = [repr(float(v)) for v in rng.random(500)] + ["1e-300", "0.1", "1", "0"]
    path = tmp_path / "v.csv"
    path.write_text("label,a\n" + "".join(f"{i % 2},{t}\n" for i, t in enumerate(texts)))
    a, b = _both(path)
    np.testing.assert_array_equal(a.models["a"], np.array([float(t) for t in texts]))
    _same(a, b)


@pytest.mark.parametrize(
    "body",
    [
        "1,0.5\n0,\n",  # an empty cell
        "1,0.5\n0,nan\n",  # a NaN
        "1,0.5\n0,0.2,7\n",  # a stray field
        "1,0.5\n0,abc\n",  # text in a number column
        '1,0.5\n0,"0.25"\n',  # quotes are not special (as for numpy.loadtxt)
        "1,0.5\n0,inf\n",
    ],
)
def test_refusals_carry_the_reference_message(tmp_path, body):
    path = tmp_path / "bad.csv"
    path.write_text("label,a\n" + body)
    messages = []
    for reader in ("arrow", "numpy"):
        with pytest.raises(ValueError) as err:
            read_predictions(path, reader=reader)
        messages.append(str(err.value))
    assert messages[0] == messages[1]


def test_empty_group_cell_is_refused_by_both(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("label,a,g\n1,0.5,x\n0,0.2, \n")
    for reader in ("arrow", "numpy"):
        with pytest.raises(ValueError, match="empty cell"):
            read_predictions(path, groups=["g"], reader=reader)


def test_unknown_reader_is_refused(tmp_path):
    with pytest.raises(ValueError, match="reader"):
        read_predictions(tmp_path / "x.csv", reader="polars")


def test_auto_keeps_small_files_on_numpy_and_large_ones_on_pyarrow(tmp_path, monkeypatch):
    import heldout.metrics.prediction_files as pf

    path = _random_csv(tmp_path / "p.csv", 300, 2)
    calls = []
    real = pf._read_csv_arrow
    monkeypatch.setattr(pf, "_read_csv_arrow", lambda *a: calls.append(1) or real(*a))
    read_predictions(path, models=["score", "hard"])
    assert calls == []
    monkeypatch.setattr(pf, "ARROW_MIN_BYTES", 1)
    read_predictions(path, models=["score", "hard"])
    assert calls == [1]


def test_evaluate_report_is_unchanged_by_the_reader(tmp_path):
    path = _random_csv(tmp_path / "p.csv", 2000, 5)
    a, b = _both(path, models=["score", "hard"], groups=["school"])
    ra = evaluate(a.y, a.models, n_resamples=200, seed=1, clusters=a.groups["school"])
    rb = evaluate(b.y, b.models, n_resamples=200, seed=1, clusters=b.groups["school"])
    assert ra == rb


def test_parquet_reads_the_same_columns_as_csv(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    path = _random_csv(tmp_path / "p.csv", 2500, 7)
    c = read_predictions(path, models=["score", "hard"], groups=["school"], reader="numpy")
    table = pa.table(
        {
            "label": c.y.astype(np.int64),
            "score": c.models["score"],
            "hard": c.models["hard"].astype(np.int64),
            "school": c.groups["school"],
        }
    )
    pq.write_table(table, tmp_path / "p.parquet", row_group_size=700)  # several row groups
    p = read_predictions(tmp_path / "p.parquet", models=["score", "hard"], groups=["school"])
    _same(p, c)


@pytest.mark.parametrize("guess", [1, 37, 10**6])
def test_pyarrow_reader_grows_its_columns_when_the_row_guess_falls_short(
    tmp_path, monkeypatch, guess
):
    import heldout.metrics.prediction_files as pf

    path = _random_csv(tmp_path / "p.csv", 3000, 9)
    monkeypatch.setattr(pf, "_ARROW_BLOCK", 4096)  # many batches
    monkeypatch.setattr(pf, "_rows_guess", lambda _path: guess)
    a, b = _both(path, models=["score", "hard"], groups=["school"])
    assert a.n == b.n == 3000
    _same(a, b)


def test_rows_guess_is_a_little_above_the_rows(tmp_path):
    import heldout.metrics.prediction_files as pf

    rng = np.random.default_rng(3)
    lines = ["label,a"] + [f"{int(v > 0.5)},{v:.6f}" for v in rng.random(50_000)]
    path = tmp_path / "p.csv"
    path.write_text("\n".join(lines) + "\n")
    assert 50_000 <= pf._rows_guess(path) <= 1.1 * 50_000 + 1024


def test_parquet_row_groups_larger_than_a_read_go_by_batches(tmp_path, monkeypatch):
    import heldout.metrics.prediction_files as pf

    pq = pytest.importorskip("pyarrow.parquet")
    path = _random_csv(tmp_path / "p.csv", 2500, 8)
    c = read_predictions(path, models=["score", "hard"], groups=["school"], reader="numpy")
    table = pa.table(
        {
            "label": c.y,
            "score": c.models["score"],
            "hard": c.models["hard"],
            "school": c.groups["school"],
        }
    )
    pq.write_table(table, tmp_path / "p.parquet", row_group_size=1000)
    monkeypatch.setattr(pf, "_PARQUET_GROUP", 300)  # every group read in batches
    p = read_predictions(tmp_path / "p.parquet", models=["score", "hard"], groups=["school"])
    _same(p, c)
