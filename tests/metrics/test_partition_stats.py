"""The Dask engine's per-partition statistics, merged, equal the same statistics computed
on all the items at once (issue 42).

Each partition's :func:`first_pass` result and the pairwise merges must give exactly the
counts of the whole log (cells, pair tables, patterns, positives and negatives at each
distinct score, whatever decimal grid each partition happens to sit on), the loss
moments up to rounding (relative 1e-12 against numpy's mean and variance of the whole
column), and DeLong's covariance matrix up to rounding against
:func:`heldout.metrics.auc.delong` on the items.
"""

from __future__ import annotations

from functools import reduce

import numpy as np
import pytest

from heldout.metrics import _partition_stats as ps
from heldout.metrics.auc import delong

pd = pytest.importorskip("pandas")  # the engine's partitions are pandas frames


def _log(n, seed):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    a = np.round(np.clip(0.3 + 0.35 * y + rng.normal(0, 0.2, n), 0, 1), 3)
    b = np.clip(0.35 + 0.25 * y + rng.normal(0, 0.25, n), 0, 1)  # full precision
    c = np.where(rng.random(n) < 0.8, y, 1 - y).astype(float)
    return pd.DataFrame({"label": y, "a": a, "b": b, "c": c})


def _parts(frame, cuts):
    edges = [0, *cuts, len(frame)]
    return [frame.iloc[i:j] for i, j in zip(edges[:-1], edges[1:], strict=True)]


def test_merged_moments_equal_numpy_on_the_whole_column():
    rng = np.random.default_rng(1)
    chunks = [rng.gamma(2.0, 3.0, size) + 1e6 for size in (1, 7, 500, 3000)]  # far from 0
    whole = np.concatenate(chunks)
    n, mean, squares = reduce(ps._merge_moment, [ps._moment(c) for c in chunks])
    assert n == whole.size
    assert mean == pytest.approx(whole.mean(), rel=1e-12)
    assert squares / (n - 1) == pytest.approx(whole.var(ddof=1), rel=1e-10)


@pytest.mark.parametrize(
    "columns",
    [
        [np.array([0.5, 0.25, 0.5, 0.125]), np.array([0.25, 0.75])],  # grids 3 and 2
        [np.array([0.1, 0.12, 0.1]), np.array([np.pi / 10, 0.1]), np.array([0.12, 0.7])],
        [np.array([0.001, 123456.789]), np.array([5.5, 0.001])],  # codes span too far
    ],
)
def test_value_tables_merge_to_the_counts_of_all_items(columns):
    rng = np.random.default_rng(2)
    labels = [(rng.random(c.size) < 0.5).astype(np.int64) for c in columns]
    tables = [ps._value_table(c, y) for c, y in zip(columns, labels, strict=True)]
    d, keys, neg, pos = reduce(ps.merge_tables, tables)
    s, y = np.concatenate(columns), np.concatenate(labels)
    values = np.unique(s)
    got = keys if d is None else keys / 10.0**d
    np.testing.assert_array_equal(got, values)
    np.testing.assert_array_equal(pos, [np.sum((s == v) & (y == 1)) for v in values])
    np.testing.assert_array_equal(neg, [np.sum((s == v) & (y == 0)) for v in values])


def test_first_pass_merged_equals_the_counts_and_moments_of_the_whole_log():
    frame = _log(2000, 3)
    models = ["a", "b", "c"]
    got = reduce(  # one partition of one item, one empty
        ps.merge_first,
        [ps.first_pass(p, "label", models, 0.5) for p in _parts(frame, [1, 1, 700, 1500])],
    )
    y = frame["label"].to_numpy()
    pred = {m: (frame[m].to_numpy() >= 0.5).astype(int) for m in models}
    assert got["n"] == 2000 and got["n_positive"] == y.sum()
    for j, m in enumerate(models):
        np.testing.assert_array_equal(got["cells"][j], np.bincount(2 * y + pred[m], minlength=4))
        x = frame[m].to_numpy()
        assert got["summary"][j + 1] == (0, m == "c", x.min(), x.max())
    table_ab = np.bincount(4 * y + 2 * pred["a"] + pred["b"], minlength=8)
    np.testing.assert_array_equal(got["tables"][0], table_ab)
    code = sum((pred[m] == y).astype(int) << j for j, m in enumerate(models))
    codes, counts = np.unique(code, return_counts=True)
    np.testing.assert_array_equal(got["patterns"][0], codes)
    np.testing.assert_array_equal(got["patterns"][1], counts)
    q = np.clip(frame["b"].to_numpy(), 1e-15, 1 - 1e-15)
    log_loss = -np.where(y == 1, np.log(q), np.log(1 - q))
    n, mean, squares = got["moments"][("log_loss", 1)]
    assert mean == pytest.approx(log_loss.mean(), rel=1e-12)
    assert squares / (n - 1) == pytest.approx(log_loss.var(ddof=1), rel=1e-10)


def test_placements_and_their_covariances_equal_delong_on_the_items():
    frame = _log(1500, 4)
    scored = ["a", "b"]
    parts = _parts(frame, [400, 401, 1100])
    got = reduce(ps.merge_first, [ps.first_pass(p, "label", scored, 0.5) for p in parts])
    n1 = got["n_positive"]
    n0 = got["n"] - n1
    lookups, m10, var10, var01 = [], [], [], []
    for table in got["values"]:
        v10, v01, a10, a01, s10, s01 = ps.placements(table, n1, n0)
        lookups.append(ps.centred_lookup(table, v10, v01, a10, a01))
        m10.append(a10), var10.append(s10), var01.append(s01)
    s10, s01 = reduce(
        ps.merge_covariance, [ps.covariance_pass(p, "label", scored, lookups) for p in parts]
    )
    cov = s10 / (n1 - 1) / n1 + s01 / (n0 - 1) / n0
    ref = delong(frame["label"].to_numpy(), np.vstack([frame[m].to_numpy() for m in scored]))
    np.testing.assert_allclose(m10, ref.auc, rtol=1e-12)
    np.testing.assert_allclose(cov, ref.cov, rtol=1e-10)
    np.testing.assert_allclose(np.diag(cov), np.array(var10) / n1 + np.array(var01) / n0)


def test_cluster_sums_merged_equal_a_groupby_of_the_whole_log():
    frame = _log(1200, 5)
    frame["site"] = np.random.default_rng(5).integers(0, 30, len(frame))  # ids read as text
    parts = _parts(frame, [0, 500, 501])  # an empty partition, one of a single item
    got = reduce(
        ps.merge_first,
        [ps.first_pass(p, "label", ["a", "c"], 0.5, ("site",), "site") for p in parts],
    )
    cl = got["clusters"]
    ids = frame["site"].astype(str)
    np.testing.assert_array_equal(cl["ids"], sorted(set(ids)))
    y = frame["label"].to_numpy()
    pred = (frame["a"].to_numpy() >= 0.5).astype(int)
    cells = pd.crosstab(ids, 2 * y + pred).reindex(columns=range(4), fill_value=0)
    np.testing.assert_array_equal(cl["cells"][0], cells.loc[cl["ids"]].to_numpy())
    np.testing.assert_array_equal(cl["sizes"], ids.value_counts().loc[cl["ids"]].to_numpy())
    brier = pd.Series((frame["a"].to_numpy() - y) ** 2).groupby(ids.to_numpy()).sum()
    np.testing.assert_allclose(cl["loss"][("brier", 0)][:, 0], brier.loc[cl["ids"]], rtol=1e-12)
    assert got["nulls"] == [0]


def test_a_partition_read_in_slices_gives_the_same_statistics(monkeypatch):
    frame = _log(1000, 6)
    whole = ps.first_pass(frame, "label", ["a", "b"], 0.5)
    monkeypatch.setattr(ps, "_CHUNK", 300)  # four slices
    sliced = ps.first_pass(frame, "label", ["a", "b"], 0.5)
    for key in ("n", "n_positive", "summary"):
        assert sliced[key] == whole[key]
    np.testing.assert_array_equal(sliced["tables"][0], whole["tables"][0])
    for u, v in zip(sliced["values"], whole["values"], strict=True):
        assert u[0] == v[0]
        for x, z in zip(u[1:], v[1:], strict=True):
            np.testing.assert_array_equal(x, z)
    np.testing.assert_allclose(
        sliced["moments"][("brier", 0, 1)], whole["moments"][("brier", 0, 1)]
    )
