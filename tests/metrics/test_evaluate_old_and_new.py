"""``heldout evaluate``'s fast path against the computations it replaced (issue 30).

The fast path counts DeLong's placement values on a decimal grid (no sort), summarises
the losses block by block without keeping them, counts the confusion cells and McNemar's
discordant pairs on booleans, the best set's right/wrong patterns in blocks, and runs the
paired bootstraps of the label metrics on the eight (label, a, b) counts.  Here
the same files go through ``heldout evaluate --json`` twice: as shipped, and with those
pieces swapped for a reference built from independent code -- DeLong from midranks
(``scipy.stats.rankdata``, Sun and Xu's algorithm) with its AUC checked against
scikit-learn's ``roc_auc_score``, the per-item losses of the public functions with
numpy's mean and standard deviation, ``rates.confusion_matrix``, the public
``accuracy_difference``, ``best_set`` on the full right/wrong table and
``bootstrap_interval`` on items (rebuilt from the eight counts).  Every number of
the two reports must agree to 1e-12 (relative), every text exactly.
"""

from __future__ import annotations

import contextlib
import io
import json
import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from heldout.cli import main
from heldout.metrics import auc as auc_module
from heldout.metrics import evaluate as ev
from heldout.metrics import report as report_module


def _midrank_delong(pos: np.ndarray, columns: list) -> tuple:
    """AUCs and DeLong's covariance from midranks (Sun and Xu), independent of the package."""
    n1 = int(pos.sum())
    n0 = pos.size - n1
    v10, v01, aucs = [], [], []
    for s in columns:
        x, z = s[pos], s[~pos]
        pooled = stats.rankdata(np.concatenate([x, z]))
        v10.append((pooled[:n1] - stats.rankdata(x)) / n0)
        v01.append(1.0 - (pooled[n1:] - stats.rankdata(z)) / n1)
        aucs.append(roc_auc_score(pos, s))
        assert math.isclose(aucs[-1], v10[-1].mean(), rel_tol=1e-12)
    v10, v01 = np.array(v10), np.array(v01)
    cov = np.cov(v10, ddof=1).reshape(len(columns), -1) / n1
    cov = cov + np.cov(v01, ddof=1).reshape(len(columns), -1) / n0
    return np.array(aucs), cov, n1, n0


def _reference(monkeypatch) -> None:
    """Swap evaluate's fast pieces for the reference computations."""
    from heldout.metrics.item_losses import brier_items, log_loss_items
    from heldout.metrics.rates import accuracy_difference, confusion_matrix

    def delong(self, models):
        a, cov, n1, n0 = _midrank_delong(self.positive, [self.scores[m] for m in models])
        return auc_module.DeLong(a, cov, n1, n0)

    def moments(self, which, model, other=None):
        per_item = brier_items if which == "brier" else log_loss_items
        values = per_item(self.y, self.scores[model])
        if other is not None:
            values = values - per_item(self.y, self.scores[other])
        return float(values.mean()), float(values.std(ddof=1)), values.size

    def confusion(self, model):
        return confusion_matrix(
            self.y.astype(np.int64), self.labels[model].astype(np.int64), classes=self.classes
        )

    def items_of(counts):
        cells = np.repeat(np.arange(8), counts)  # items rebuilt from the 4 y + 2 a + b cells
        return cells >> 2, (cells >> 1) & 1, cells & 1

    def accuracy_pair(t, n, alpha):
        y, a, b = items_of(np.asarray(t, dtype=np.int64))
        return accuracy_difference(y, a, b, alpha)

    def no_patterns(ctx, names):
        return None  # the best set then comes from best_set on the full right/wrong table

    def table_bootstrap(metric, counts, alpha, n_resamples, seed, warn=False):
        from heldout.metrics.bootstrap import bootstrap_interval

        y, a, b = items_of(counts)
        return bootstrap_interval(metric, y, a, b, alpha=alpha, n_resamples=n_resamples, seed=seed)

    def pair_counts(self, a, b):
        y = self.y.astype(np.int64)
        pa, pb = self.labels[a].astype(np.int64), self.labels[b].astype(np.int64)
        return np.bincount(4 * y + 2 * pa + pb, minlength=8)

    monkeypatch.setattr(report_module, "_table_bootstrap", table_bootstrap)
    monkeypatch.setattr(report_module, "_mcnemar", accuracy_pair)
    monkeypatch.setattr(ev, "_pattern_counts", no_patterns)
    monkeypatch.setattr(ev.Context, "pair_counts", pair_counts)
    monkeypatch.setattr(ev.Context, "delong", delong)
    monkeypatch.setattr(ev.Context, "moments", moments)
    monkeypatch.setattr(ev.Context, "confusion", confusion)


def _report(path: str, *options: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert (
            main(["evaluate", str(path), "--json", "--resamples", "200", "--seed", "3", *options])
            == 0
        )
    return json.loads(out.getvalue())


def _compare(new, old, where="report"):
    assert type(new) is type(old) or {type(new), type(old)} <= {int, float}, where
    if isinstance(new, dict):
        assert new.keys() == old.keys(), where
        for key in new:
            _compare(new[key], old[key], f"{where}.{key}")
    elif isinstance(new, list):
        assert len(new) == len(old), where
        for i, (u, v) in enumerate(zip(new, old, strict=True)):
            _compare(u, v, f"{where}[{i}]")
    elif isinstance(new, float):
        assert math.isclose(new, old, rel_tol=1e-12, abs_tol=1e-15), (where, new, old)
    else:
        assert new == old, (where, new, old)


def _write(path, y, columns: dict, fmt: str) -> None:
    names = ["label", *columns]
    with open(path, "w") as fh:
        fh.write(",".join(names) + "\n")
        rows = np.column_stack([y, *columns.values()])
        for row in rows:
            fh.write(str(int(row[0])) + "," + ",".join(fmt.format(v) for v in row[1:]) + "\n")


def _files(tmp_path):
    rng = np.random.default_rng(30)
    n = 4000
    y = (rng.random(n) < 0.25).astype(int)
    a = 1 / (1 + np.exp(-(rng.normal(size=n) + 1.4 * y - 1.2)))
    b = 1 / (1 + np.exp(-(rng.normal(size=n) + 1.0 * y - 1.2)))
    c = np.clip(a + rng.normal(0, 0.1, n), 0, 1)
    out = {}
    cases = {
        "six_decimals": ({"a": a, "b": b}, "{:.6f}"),  # the decimal grid
        "full_precision": ({"a": a, "b": b}, "{:.17g}"),  # no grid: sorts
        "many_ties": ({"a": a, "b": b, "c": c}, "{:.1f}"),  # a coarse grid, ties everywhere
        "labels_and_scores": ({"a": a, "b": (b > 0.4).astype(float)}, "{:.4f}"),
    }
    for name, (columns, fmt) in cases.items():
        path = tmp_path / f"{name}.csv"
        _write(path, y, columns, fmt)
        out[name] = path
    # margins (scores outside [0, 1]) on a grid: the AUC only, no proper scores
    path = tmp_path / "margins.csv"
    _write(path, y, {"a": 3 * a - 1, "b": 3 * b - 1}, "{:.3f}")
    out["margins"] = path
    return out


@pytest.mark.parametrize("block", [None, 257])
def test_every_number_of_the_report_matches_the_reference(tmp_path, monkeypatch, block):
    if block is not None:  # many blocks: the merges of the block sums are exercised
        monkeypatch.setattr(ev, "_BLOCK", block)
        monkeypatch.setattr(ev, "_LOSS_BLOCK", block)
        monkeypatch.setattr(auc_module, "_CHUNK", block)
        monkeypatch.setattr(auc_module, "_BLOCK", 101)  # counted in blocks, keys in chunks
        monkeypatch.setattr(auc_module, "_SORT_CHUNK", block)  # the sorted path's chunks too
    files = _files(tmp_path)
    new = {name: _report(path) for name, path in files.items()}
    new["--scores"] = _report(files["margins"], "--scores")
    with monkeypatch.context() as m:
        _reference(m)
        old = {name: _report(path) for name, path in files.items()}
        old["--scores"] = _report(files["margins"], "--scores")
    for name in new:
        assert "auc" in new[name]["models"]["a"]["metrics"]
        _compare(new[name], old[name], name)


def _assert_delong_is_the_definition(y, s):
    """``_delong_codes`` against DeLong's O(n1 n0) definition: every pair's psi."""
    k = s.shape[0]
    a, cov, n1, n0 = auc_module._delong_codes(y, s)
    x, z = s[:, y], s[:, ~y]
    psi = (x[:, :, None] > z[:, None, :]) + 0.5 * (x[:, :, None] == z[:, None, :])
    v10, v01 = psi.mean(axis=2), psi.mean(axis=1)
    ref = np.zeros((k, k))
    if n1 > 1:
        ref += np.cov(v10, ddof=1).reshape(k, k) / n1
    if n0 > 1:
        ref += np.cov(v01, ddof=1).reshape(k, k) / n0
    np.testing.assert_allclose(a, psi.mean(axis=(1, 2)), rtol=1e-13)
    np.testing.assert_allclose(cov, ref, rtol=1e-10, atol=1e-16)


def test_grid_placements_equal_the_definition_with_ties():
    """Counted placements give the O(n1 n0) definition's AUC and covariance, ties included."""
    rng = np.random.default_rng(4)
    for _ in range(60):
        n = int(rng.integers(3, 80))
        y = rng.random(n) < rng.uniform(0.1, 0.9)
        if y.all() or not y.any():
            continue
        k = int(rng.integers(1, 4))
        decimals = int(rng.integers(0, 3))
        s = np.round(rng.normal(size=(k, n)) + y, decimals)  # ties within and across classes
        assert all(auc_module._decimal_grid(row) is not None for row in s)
        _assert_delong_is_the_definition(y, s)


def test_the_grid_is_refused_off_the_grid_and_for_too_many_codes():
    assert auc_module._decimal_grid(np.array([0.1, 0.25, 0.5])) == (100.0, 10.0)
    assert auc_module._decimal_grid(np.array([0.1, 1 / 3])) is None  # no decimal grid
    wide = np.array([0.0, 1e9]) + np.array([0.0, 0.5])  # 2e9 codes for two items
    assert auc_module._decimal_grid(wide) is None
    # a placement-value computation that needs sorts still gives DeLong's numbers
    rng = np.random.default_rng(8)
    y = rng.random(300) < 0.3
    s = rng.normal(size=(2, 300)) + y
    a, cov, *_ = auc_module._delong_codes(y, s)
    ref_a, ref_cov, *_ = _midrank_delong(y, list(s))
    np.testing.assert_allclose(a, ref_a, rtol=1e-13)
    np.testing.assert_allclose(cov, ref_cov, rtol=1e-10)


@pytest.mark.parametrize("block, chunk", [(1 << 16, 1 << 20), (7, 50), (64, 3)])
def test_grid_counts_find_the_grid_of_every_item_while_counting(monkeypatch, block, chunk):
    """The counting pass checks every item: a finer grid further down, or none at all.

    The first 4,096 items sit on a grid of two decimals; later ones need three (the count
    must use 10**3, as :func:`_decimal_grid` finds by its own pass) or none (None: the
    sorted path).  The counts equal ``bincount`` of the keys of :func:`_keys`.
    """
    monkeypatch.setattr(auc_module, "_BLOCK", block)
    monkeypatch.setattr(auc_module, "_CHUNK", chunk)
    rng = np.random.default_rng(5)
    n = 6000
    y = rng.random(n) < 0.3
    s = np.round(rng.random(n), 2)
    s[5000:] = np.round(rng.random(1000), 3)
    grid, counts = auc_module._grid_counts(s, y)
    assert grid == auc_module._decimal_grid(s) == (1000.0, float(np.rint(s.min() * 1000)))
    keys = auc_module._keys(s, *grid, y.astype(float))
    np.testing.assert_array_equal(counts, np.bincount(keys, minlength=counts.size))
    assert counts.sum() == n and counts[1::2].sum() == y.sum()
    s[-1] = 1 / 3  # one item off any grid: no grid, whatever the blocks
    assert auc_module._grid_counts(s, y) is None and auc_module._decimal_grid(s) is None


@pytest.mark.parametrize(
    "chunk, index_bits",
    [(1 << 17, None), (5, None), (1, None), (3, 40), (40, 55), (7, 62)],
)
def test_sorted_placements_equal_the_definition_in_any_chunks(monkeypatch, chunk, index_bits):
    """Off any grid, the sort of packed keys gives the definition's AUC and covariance.

    Ties within a chunk and across classes, one tie group larger than a chunk, a score
    far out, subnormal scores, ``-0.0`` beside ``0.0`` (with negative scores and
    without), scores that differ only in their last bits, in a narrow range, bunched in
    a narrow part of a wide one, or all equal; chunks of the sorted keys
    of every size, and keys whose score part is cut short (``index_bits`` up to 62
    leaves one bit of the score: nearly every item shares its leading bits with others,
    and the runs of them are put in order by their full scores).
    """
    monkeypatch.setattr(auc_module, "_SORT_CHUNK", chunk)
    if index_bits is not None:
        monkeypatch.setattr(auc_module, "_key_bits", lambda n: index_bits)
    rng = np.random.default_rng(12)
    for trial in range(40):
        n = int(rng.integers(3, 90))
        y = rng.random(n) < rng.uniform(0.1, 0.9)
        if y.all() or not y.any():
            continue
        k = int(rng.integers(1, 4))
        s = rng.normal(size=(k, n)) / 3 + y
        if trial % 2:
            s = np.round(s, 1) + 1 / 3  # ties, off any decimal grid
        if trial % 5 == 0:
            s[:, : n // 2] = 1 / 3  # a tie group of half the items
        if trial % 7 == 0:
            s[:, 0] = 1e300 / 3
        if trial % 9 == 0:
            s = rng.integers(0, 3, size=(k, n)) * 5e-324  # a range of two subnormal steps
        if trial % 4 == 3:
            s[:, ::3], s[:, 1::3] = -0.0, 0.0  # equal scores with different bits
            if trial % 8 == 7:
                s = np.abs(s)  # (no negative score: the keys' other map)
        if trial % 6 == 1:
            s = (1 + rng.integers(0, 4, size=(k, n)) * 2.0**-52) / 3  # the last bits only
        if trial % 10 == 3:
            s = 1 - rng.random((k, n)) * 1e-12 * (1 + y)  # a narrow range beside 1
        if trial % 10 == 5:
            s[0] = 1 / 3  # one score for every item
        if trial % 10 == 8:  # most items bunched in a narrow part of a wide range
            s = np.where(rng.random((k, n)) < 0.1, rng.normal(size=(k, n)), 1e-9 * y)
            s[:, 1::4] = 1e-9 * rng.random((k, n))[:, 1::4]
        assert any(auc_module._decimal_grid(row) is None for row in s)
        _assert_delong_is_the_definition(y, s)


def test_sorted_placements_with_runs_of_shared_leading_bits_numbers(monkeypatch):
    """Thousands of items per run of equal leading bits: still the midrank reference's numbers."""
    monkeypatch.setattr(auc_module, "_key_bits", lambda n: 56)  # 7 bits of the score left
    monkeypatch.setattr(auc_module, "_SORT_CHUNK", 64)
    rng = np.random.default_rng(13)
    y = rng.random(5000) < 0.3
    s = np.vstack([rng.normal(size=5000) + y, np.round(rng.normal(size=5000) + y, 1) + 1 / 3])
    a, cov, *_ = auc_module._delong_codes(y, s)
    ref_a, ref_cov, *_ = _midrank_delong(y, list(s))
    np.testing.assert_allclose(a, ref_a, rtol=1e-13)
    np.testing.assert_allclose(cov, ref_cov, rtol=1e-10)
