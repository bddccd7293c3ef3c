"""``heldout evaluate`` and ``heldout size auc``: output keys, values, bad files, stdin."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pytest
from cli_support import cli_json
from sklearn.metrics import f1_score, log_loss, precision_score, roc_auc_score
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from heldout.cli import main
from heldout.metrics import auc as A
from heldout.metrics import auc_sizing as AZ


def _write(path, header, rows):
    with open(path, "w") as fh:
        fh.write(",".join(header) + "\n")
        for r in rows:
            fh.write(",".join(str(v) for v in r) + "\n")
    return str(path)


@pytest.fixture()
def scored(tmp_path):
    rng = np.random.default_rng(1)
    n = 600
    y = (rng.random(n) < 0.3).astype(int)
    a = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 1.5 * y - 1))), 4)
    b = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 1.0 * y - 1))), 4)
    path = _write(tmp_path / "pred.csv", ["label", "model_a", "model_b"], zip(y, a, b, strict=True))
    return path, y, a, b


def test_evaluate_scores_keys_and_values(scored, capsys):
    path, y, a, b = scored
    res = cli_json(capsys, "evaluate", path)
    assert res["n"] == 600
    ma = res["models"]["model_a"]
    assert ma["kind"] == "probabilities" and ma["kind_source"] == "detected"
    keys = "accuracy precision recall specificity npv f1 auc brier log_loss".split()
    assert list(ma["metrics"]) == keys
    for entry in ma["metrics"].values():
        assert {"value", "low", "high", "method"} <= set(entry)
        assert entry["low"] <= entry["value"] <= entry["high"]
    pred = (a >= 0.5).astype(int)
    assert ma["metrics"]["auc"]["value"] == pytest.approx(roc_auc_score(y, a))
    assert ma["metrics"]["f1"]["value"] == pytest.approx(f1_score(y, pred))
    assert ma["metrics"]["log_loss"]["value"] == pytest.approx(log_loss(y, a))
    tp, fp = np.sum(pred & y), np.sum(pred & (1 - y))
    lo, hi = proportion_confint(tp, tp + fp, method="beta")
    prec = ma["metrics"]["precision"]
    assert prec["value"] == pytest.approx(precision_score(y, pred))
    assert (prec["low"], prec["high"]) == pytest.approx((lo, hi))
    assert prec["n"] == tp + fp
    (pair,) = res["pairs"]
    assert (pair["a"], pair["b"]) == ("model_a", "model_b")
    assert list(pair["metrics"]) == keys
    d = A.auc_difference(y, a, b)
    assert pair["metrics"]["auc"]["p_value"] == pytest.approx(d.p_value)
    assert (pair["metrics"]["auc"]["low"], pair["metrics"]["auc"]["high"]) == pytest.approx(
        (d.low, d.high)
    )
    assert pair["metrics"]["auc"]["method"].startswith("mover")
    assert ma["metrics"]["auc"]["method"] == A.auc_interval(y, a).method
    assert ma["metrics"]["brier"]["method"] == "brier-gamma"
    pb = (b >= 0.5).astype(int)
    ra, rb = pred == y, pb == y
    table = [[np.sum(ra & rb), np.sum(ra & ~rb)], [np.sum(~ra & rb), np.sum(~ra & ~rb)]]
    assert pair["metrics"]["accuracy"]["p_value"] == pytest.approx(
        mcnemar(table, exact=True).pvalue
    )
    assert pair["metrics"]["f1"]["method"] == "bootstrap-bca"
    assert pair["metrics"]["brier"]["method"] == "brier-paired-t"


def test_evaluate_labels_forced_level_and_plot(scored, tmp_path, capsys):
    path, y, a, _ = scored
    out = tmp_path / "forest.png"
    res = cli_json(capsys, "evaluate", path, "--plot", str(out))
    assert res["plot"] == str(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["evaluate", path, "--labels"]) == 2  # scores cannot be read as labels
    assert "holds fractions" in capsys.readouterr().err
    res = cli_json(capsys, "evaluate", path, "--scores", "--level", "0.9")
    assert res["level"] == 0.9 and res["models"]["model_a"]["kind_source"] == "given"
    e = A.auc_interval(y, a, alpha=0.1)
    assert res["models"]["model_a"]["metrics"]["auc"]["low"] == pytest.approx(e.low)


def test_evaluate_reads_labels_multiclass_and_other_label_name(tmp_path, capsys):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 300)
    p1 = np.where(rng.random(300) < 0.8, y, rng.integers(0, 3, 300))
    p2 = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
    path = _write(tmp_path / "m.csv", ["truth", "m1", "m2"], zip(y, p1, p2, strict=True))
    res = cli_json(capsys, "evaluate", path, "--label", "truth")
    m1 = res["models"]["m1"]
    assert m1["kind"] == "labels" and "auc" not in m1["metrics"]
    assert m1["metrics"]["f1"]["value"] == pytest.approx(f1_score(y, p1, average="macro"))
    assert m1["metrics"]["f1"]["method"] == "macro-f1-logit"
    assert res["pairs"][0]["metrics"]["f1"]["method"] == "bootstrap-bca"


def test_evaluate_plain_table(scored, capsys):
    path, *_ = scored
    assert main(["evaluate", path]) == 0
    text = capsys.readouterr().out
    assert "model_a auc" in text and "probabilities (detected)" in text and "auto (" in text
    assert "adjusted within each metric's family of pairs by holm" in text
    assert "best set, accuracy" in text and "best set, auc" in text


def test_evaluate_from_stdin(scored):
    path, y, a, _ = scored
    with open(path, "rb") as fh:
        data = fh.read()
    proc = subprocess.run(
        [sys.executable, "-m", "heldout", "evaluate", "-", "--json"],
        input=data,
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["models"]["model_a"]["metrics"]["auc"]["value"] == pytest.approx(roc_auc_score(y, a))


def test_undefined_precision_is_reported_not_fatal(tmp_path, capsys):
    path = _write(tmp_path / "u.csv", ["label", "m"], [(1, 0), (0, 0), (1, 0), (0, 0)])
    res = cli_json(capsys, "evaluate", path)
    p = res["models"]["m"]["metrics"]["precision"]
    assert p["value"] is None and "no predicted positives" in p["method"]


@pytest.mark.parametrize(
    "content, word",
    [
        ("", "empty"),
        ("label,a\n", "no data rows"),
        ("y,a\n1,0.3\n0,0.2\n", "no column named 'label'"),
        ("label\n1\n0\n", "no model column"),
        ("label,a\n1,0.3\n0,abc\n", "line 3"),
        ("label,a\n1,0.3\n0,0.2,5\n", "line 3 has 3 fields"),
        ("label,a\n1,0.3\n0,nan\n", "NaN"),
        ("label,a\n1,0.3\n1,0.2\n", "single class"),
        ("label,a\n2,0.3\n0,0.2\n1,0.5\n", "need labels 0 and 1"),
        ("label,label\n1,0\n", "repeats"),
    ],
)
def test_bad_files_one_line_exit_2(tmp_path, capsys, content, word):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    assert main(["evaluate", str(path), "--json"]) == 2
    err = capsys.readouterr()
    assert err.out == ""
    lines = err.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("heldout: error:")
    import re

    assert re.search(word, lines[0]), lines[0]


def test_missing_file_and_parquet_without_pyarrow(tmp_path, capsys):
    assert main(["evaluate", str(tmp_path / "nope.csv")]) == 2
    assert "no such file" in capsys.readouterr().err
    pq = tmp_path / "p.parquet"
    pq.write_bytes(b"PAR1")
    assert main(["evaluate", str(pq)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and ("pyarrow" in err or "Parquet" in err)


def test_parquet_when_pyarrow_is_installed(scored, tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    _, y, a, b = scored
    table = pa.table({"label": y, "model_a": a, "model_b": b})
    pq.write_table(table, tmp_path / "p.parquet")
    res = cli_json(capsys, "evaluate", str(tmp_path / "p.parquet"))
    assert res["models"]["model_a"]["metrics"]["auc"]["value"] == pytest.approx(roc_auc_score(y, a))


def test_size_auc(capsys):
    res = cli_json(
        capsys, "size", "auc", "--auc", "0.85", "--half-width", "0.03", "--prevalence", "0.2"
    )
    s = AZ.auc_size(0.85, 0.03, 0.2)
    assert (res["n"], res["n_positive"], res["n_negative"]) == (s.n, s.n_positive, s.n_negative)
    assert res["n"] == res["n_positive"] + res["n_negative"] and res["interval"] == "auto"
    # every method of auc_interval can be sized; another name is one line on stderr
    base = ["size", "auc", "--auc", "0.9", "--half-width", "0.05", "--prevalence", "0.2"]
    for m in A.AUC_INTERVAL_METHODS:
        assert (
            cli_json(capsys, *base, "--interval", m)["n"]
            == AZ.auc_size(0.9, 0.05, 0.2, interval=m).n
        )
    assert main([*base, "--interval", "exact", "--json"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "interval must be one of" in err
    res = cli_json(
        capsys,
        "size",
        "auc",
        "--auc",
        "0.85",
        "--half-width",
        "0.03",
        "--prevalence",
        "0.2",
        "--interval",
        "wald",
    )
    assert res["n"] == AZ.auc_size(0.85, 0.03, 0.2, interval="wald").n == 1340
    res = cli_json(
        capsys,
        "size",
        "auc",
        "--auc",
        "0.8",
        "--power",
        "0.9",
        "--prevalence",
        "0.3",
        "--null-auc",
        "0.7",
        "--method",
        "binormal",
    )
    assert (
        res["n_positive"]
        == AZ.auc_power_size(0.8, 0.3, 0.7, power=0.9, method="binormal").n_positive
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["size", "auc", "--auc", "0.85", "--prevalence", "0.2", "--json"],
        ["size", "auc", "--auc", "1.2", "--half-width", "0.03", "--prevalence", "0.2", "--json"],
        ["size", "auc", "--auc", "0.85", "--half-width", "0.03", "--prevalence", "0", "--json"],
        ["size", "auc", "--auc", "0.85", "--half-width", "-1", "--prevalence", "0.2", "--json"],
    ],
)
def test_size_auc_bad_input(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr()
    assert err.out == "" and len(err.err.strip().splitlines()) == 1


def test_module_level_imports_stay_light():
    code = (
        "import sys, heldout.cli.evaluate, heldout.cli.auc; "
        "print(any(m.startswith(('scipy.stats', 'pandas', 'sklearn')) for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_read_predictions_in_blocks(tmp_path, monkeypatch):
    from heldout.metrics import prediction_files as P

    monkeypatch.setattr(P, "_BLOCK", 64)  # many blocks, lines split across reads
    rng = np.random.default_rng(3)
    rows = [(int(rng.random() < 0.5), round(float(rng.random()), 6)) for _ in range(500)]
    path = _write(tmp_path / "blk.csv", ["label", "s"], rows)
    p = P.read_predictions(path)
    np.testing.assert_allclose(p.models["s"], [r[1] for r in rows])
    with open(path, "rb") as fh:
        stream = io.BytesIO(fh.read())
    cols, names, groups = P._read_csv(stream, "x", "label", None)
    assert groups == {}
    np.testing.assert_allclose(cols[1], [r[1] for r in rows])
    assert names == ["s"]


def test_evaluate_needs_no_extras(scored):
    """The whole command runs on the core dependencies (no scikit-learn, pandas, statsmodels)."""
    path, *_ = scored
    code = (
        "import sys; from heldout.cli import main; "
        f"rc = main(['evaluate', {path!r}, '--json', '--plot', {path + '.png'!r}]); "
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('sklearn', 'pandas', 'statsmodels', 'tensorflow', 'xgboost')]; "
        "sys.stderr.write(repr(heavy)); sys.exit(rc)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stderr.strip() == "[]", proc.stderr


# --------------------------------------------------------------------------- issue 25
def _several(tmp_path):
    rng = np.random.default_rng(11)
    n = 1500
    y = (rng.random(n) < 0.35).astype(int)
    cols = {}
    for name, sep in (("m1", 1.6), ("m2", 1.5), ("m3", 1.0), ("m4", 0.9)):
        cols[name] = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + sep * y - 1))), 4)
    path = _write(tmp_path / "four.csv", ["label", *cols], zip(y, *cols.values(), strict=True))
    return path, y, cols


def test_evaluate_adjusts_p_values_within_each_metric_by_holm(tmp_path, capsys):
    from statsmodels.stats.multitest import multipletests

    path, y, cols = _several(tmp_path)
    res = cli_json(capsys, "evaluate", path, "--resamples", "200", "--seed", "1")
    assert res["adjust"] == "holm" and len(res["pairs"]) == 6
    for metric in ("accuracy", "auc", "brier", "log_loss", "f1"):
        raw = [pair["metrics"][metric]["p_value"] for pair in res["pairs"]]
        adjusted = [pair["metrics"][metric]["p_adjusted"] for pair in res["pairs"]]
        assert adjusted == pytest.approx(multipletests(raw, method="holm")[1], abs=1e-12)
        assert all(pair["metrics"][metric]["adjust"] == "holm" for pair in res["pairs"])
    res = cli_json(capsys, "evaluate", path, "--resamples", "200", "--adjust", "bonferroni")
    raw = [pair["metrics"]["auc"]["p_value"] for pair in res["pairs"]]
    assert [pair["metrics"]["auc"]["p_adjusted"] for pair in res["pairs"]] == pytest.approx(
        multipletests(raw, method="bonferroni")[1], abs=1e-12
    )
    for ours, theirs in (("hommel", "hommel"), ("by", "fdr_by")):  # the library has both
        res = cli_json(capsys, "evaluate", path, "--resamples", "200", "--adjust", ours)
        raw = [pair["metrics"]["accuracy"]["p_value"] for pair in res["pairs"]]
        got = [pair["metrics"]["accuracy"]["p_adjusted"] for pair in res["pairs"]]
        assert res["adjust"] == ours
        assert got == pytest.approx(multipletests(raw, method=theirs)[1], abs=1e-12)
    from heldout.metrics.evaluate import evaluate

    with pytest.raises(ValueError, match="adjust"):
        evaluate(y, {"a": cols["m1"], "b": cols["m2"]}, adjust="sidak")


def test_evaluate_reports_the_best_sets(tmp_path, capsys):
    from heldout.comparison.best import best_set

    path, y, cols = _several(tmp_path)
    res = cli_json(capsys, "evaluate", path, "--resamples", "200", "--seed", "3")
    names = list(cols)
    correct = np.column_stack([(cols[m] >= 0.5).astype(int) == y for m in names])
    want = [names[j] for j in best_set(correct, draws=10_000, seed=3).models]
    assert res["best"]["accuracy"]["models"] == want
    auc = {m: roc_auc_score(y, cols[m]) for m in names}
    leader = max(auc, key=auc.get)
    assert leader in res["best"]["auc"]["models"]
    assert "m4" not in res["best"]["auc"]["models"]  # far behind (AUC about 0.07 lower)


def test_auc_best_set_with_two_models_is_delongs_two_sided_test():
    # two models: the lagging model's adjusted p-value is DeLong's two-sided p-value
    from scipy import stats as st

    from heldout.metrics.evaluate import auc_best_set

    rng = np.random.default_rng(5)
    y = np.r_[np.ones(120, bool), np.zeros(240, bool)]
    s1 = rng.normal(size=360) + 1.2 * y
    s2 = 0.6 * s1 + 0.8 * rng.normal(size=360) + 0.3 * y

    def placements(s):
        pos, neg = s[y], s[~y]
        psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
        return psi.mean(), psi.mean(axis=1), psi.mean(axis=0)

    (a1, v10_1, v01_1), (a2, v10_2, v01_2) = placements(s1), placements(s2)
    cov = np.cov([v10_1, v10_2]) / 120 + np.cov([v01_1, v01_2]) / 240
    z = (a1 - a2) / np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    p_delong = 2 * st.norm.sf(abs(z))
    in_set, p = auc_best_set([a1, a2], cov, draws=40_000, seed=2)
    lag = int(a1 > a2)  # index of the lagging model
    assert p[lag] == pytest.approx(
        p_delong, abs=4 * np.sqrt(p_delong * (1 - p_delong) / 40_000) + 1e-3
    )
    # the leader: P(N(0, 1) >= -|z|), made monotone (never below the laggard's)
    assert p[1 - lag] == pytest.approx(st.norm.cdf(abs(z)), abs=0.01) and in_set[1 - lag]


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"alpha": 0}, "alpha"),  # before: every model in the set
        ({"alpha": 1}, "alpha"),  # before: none
        ({"draws": 0}, "draws"),  # before: p = 1
        ({"auc": [0.9, float("nan")]}, "auc"),  # before: p = 1e-4 everywhere
        ({"auc": [0.9, 1.2]}, "auc"),
        ({"cov": [[1e-4, 0], [1.0, 1e-4]]}, "symmetric"),
        ({"cov": np.eye(3) * 1e-4}, "3 x 3|2 x 2"),
    ],
)
def test_auc_best_set_refuses_what_it_cannot_use(kw, match):
    from heldout.metrics.evaluate import auc_best_set

    args = {"auc": [0.9, 0.8], "cov": np.eye(2) * 1e-4} | kw
    with pytest.raises(ValueError, match=match):
        auc_best_set(args.pop("auc"), args.pop("cov"), **args)


def test_evaluate_names_column_kinds_and_accepts_raw_scores(tmp_path, capsys):
    rng = np.random.default_rng(4)
    n = 400
    y = (rng.random(n) < 0.4).astype(int)
    margin = np.round(rng.normal(size=n) + 1.2 * y - 0.5, 4)  # any real numbers
    grades = rng.integers(1, 6, n)  # 1-5, a whole-number column that is not labels
    path = _write(
        tmp_path / "k.csv", ["label", "margin", "grade"], zip(y, margin, grades, strict=True)
    )
    res = cli_json(capsys, "evaluate", path, "--models", "margin", "--resamples", "200")
    m = res["models"]["margin"]
    assert m["kind"] == "scores" and m["kind_source"] == "detected"
    assert m["metrics"]["auc"]["value"] == pytest.approx(roc_auc_score(y, margin))
    assert m["metrics"]["brier"]["value"] is None
    assert "needs probabilities" in m["metrics"]["brier"]["method"]
    # the grades are read as labels, with a warning naming the foreign values
    res = cli_json(capsys, "evaluate", path, "--models", "grade", "--resamples", "200")
    g = res["models"]["grade"]
    assert g["kind"] == "labels" and "not classes of the label column" in g["warning"]
    assert main(["evaluate", path, "--models", "grade"]) == 0
    assert "grade warning" in capsys.readouterr().out
    # --scores COL reads it as scores: the AUC of the grades
    res = cli_json(capsys, "evaluate", path, "--scores", "grade", "--resamples", "200")
    assert res["models"]["grade"]["kind"] == "scores"
    assert res["models"]["grade"]["kind_source"] == "given"
    assert res["models"]["margin"]["kind_source"] == "detected"
    assert res["models"]["grade"]["metrics"]["auc"]["value"] == pytest.approx(
        roc_auc_score(y, grades)
    )
    assert main(["evaluate", path, "--scores", "nope"]) == 2
    assert "not a model column" in capsys.readouterr().err
    assert main(["evaluate", path, "--scores", "grade", "--labels", "grade"]) == 2


def test_column_kind_and_label_warning():
    from heldout.metrics.prediction_files import column_kind, label_warning

    assert column_kind(np.array([0.0, 2.0, 1.0])) == "labels"
    assert column_kind(np.array([0.0, 0.5, 1.0])) == "probabilities"
    assert column_kind(np.array([0.0, 0.5, 1.5])) == "scores"
    classes = np.array([0, 1])
    assert label_warning(np.array([0.0, 1.0] * 50), classes) is None
    assert "distinct values" in label_warning(np.arange(12.0) % 2 + np.arange(12.0), np.arange(30))
    many = np.arange(11.0)  # 11 distinct values: more than 10
    assert "11 distinct" in label_warning(many, np.arange(11))
    share = np.repeat(np.arange(6.0), 10)  # 6 values in 60 rows: more than 5 %
    assert "6 distinct" in label_warning(share, np.arange(6))
    assert label_warning(np.repeat(np.arange(3.0), 100), np.arange(3)) is None  # 1 %


# ---- issue 28: operating points, partial AUC, calibration, a threshold tuned on the file


def test_operating_options_match_the_package(capsys, scored):
    from sklearn.metrics import roc_auc_score as auc_score

    from heldout.metrics.calibration import spiegelhalter_z
    from heldout.metrics.operating import sensitivity_at_specificity

    path, y, a, _ = scored
    out = cli_json(
        capsys, "evaluate", path, "--at-specificity", "0.9", "--partial-auc", "0.8:1",
        "--calibration", "--seed", "3", "--resamples", "300",
    )  # fmt: skip
    m = out["models"]["model_a"]["metrics"]
    point = sensitivity_at_specificity(y, a, 0.9, method="fixed-threshold")
    assert m["sensitivity at specificity 0.9"]["value"] == pytest.approx(point.value)
    assert m["partial AUC 0.8:1"]["value"] == pytest.approx(auc_score(y, a, max_fpr=0.2))
    assert m["spiegelhalter z"]["value"] == pytest.approx(spiegelhalter_z(y, a).statistic)
    low, high = m["calibration slope"]["low"], m["calibration slope"]["high"]
    assert low < m["calibration slope"]["value"] < high
    assert "note" not in out


def test_threshold_tuned_adds_honest_reports_and_a_note(capsys, scored):
    path, *_ = scored
    out = cli_json(capsys, "evaluate", path, "--threshold-tuned", "f1", "--seed", "1")
    assert "chosen on this file" in out["note"]
    m = out["models"]["model_b"]["metrics"]
    for key in ("f1 tuned (split)", "f1 tuned (cross-fit)"):
        assert m[key]["low"] <= m[key]["value"] <= m[key]["high"]
        assert m[key]["apparent"] >= m[key]["value"] - 1e-12 or m[key]["apparent"] > 0
    # the tuned metric keeps its apparent value, loses its (undercovering) interval
    plain = cli_json(capsys, "evaluate", path, "--seed", "1")
    for name in ("model_a", "model_b"):
        tuned, untuned = out["models"][name]["metrics"], plain["models"][name]["metrics"]
        assert tuned["f1"]["value"] == untuned["f1"]["value"]
        assert tuned["f1"]["low"] is None and tuned["f1"]["high"] is None
        assert tuned["f1"]["optimistic"] is True and untuned["f1"]["low"] is not None
        assert tuned["accuracy"] == untuned["accuracy"]  # other metrics as before
    pair = out["pairs"][0]["metrics"]
    assert "tuned" in pair["f1"]["warning"] and "warning" not in plain["pairs"][0]["metrics"]["f1"]
    assert main(["evaluate", path, "--threshold-tuned", "f1"]) == 0
    text = capsys.readouterr().out
    assert "note" in text and "apparent only" in text


def _status(argv) -> int:
    """Exit status of the command line (argparse's errors exit, the package's return 2)."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize(
    "argv",
    [
        ["--partial-auc", "0.9:0.8"],
        ["--partial-auc", "x"],
        ["--at-specificity", "1.2"],
        ["--at-sensitivity", "a"],
        ["--threshold-tuned", "auc"],
    ],
)
def test_operating_options_refuse_bad_values_with_one_line(capsys, scored, argv):
    path, *_ = scored
    assert _status(["evaluate", path, *argv]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_operating_options_need_a_score_column(capsys, tmp_path):
    path = _write(tmp_path / "labels.csv", ["label", "m"], [(0, 0), (1, 1), (0, 1), (1, 0)])
    assert _status(["evaluate", path, "--calibration"]) == 2
    assert "scores" in capsys.readouterr().err


def test_at_specificity_states_the_limit_where_no_interval_holds(capsys, scored):
    """About 420 negatives at specificity 0.99: about 4 expected above the threshold, so the
    order-statistic interval replaces the bootstrap, and 0.99^420 > 0.0125 leaves its lower
    end at 0 with a warning naming the 437 negatives it would need."""
    from heldout.metrics.operating import negatives_needed, sensitivity_at_specificity

    path, y, a, _ = scored
    out = cli_json(capsys, "evaluate", path, "--at-specificity", "0.99", "--seed", "3")
    e = out["models"]["model_a"]["metrics"]["sensitivity at specificity 0.99"]
    n0 = int(np.sum(y == 0))
    assert n0 < negatives_needed(0.99) == 437
    assert e["method"].startswith("order statistics")
    assert f"{n0} negatives" in e["warning"] and "437" in e["warning"]
    with pytest.warns(UserWarning, match="437"):
        ref = sensitivity_at_specificity(y, a, 0.99, method="order-statistic")
    assert (e["low"], e["high"]) == (0.0, pytest.approx(ref.high))


def test_calibration_slope_states_its_limit_with_few_events(capsys, tmp_path):
    from heldout.metrics.calibration import SLOPE_MIN_EVENTS

    rng = np.random.default_rng(4)
    y = np.zeros(300, dtype=int)
    y[:12] = 1
    p = np.round(np.clip(0.04 + 0.03 * y + rng.normal(0, 0.03, 300), 0.001, 0.999), 4)
    path = _write(tmp_path / "few.csv", ["label", "m"], zip(y, p, strict=True))
    out = cli_json(capsys, "evaluate", path, "--calibration", "--seed", "1", "--resamples", "200")
    e = out["models"]["m"]["metrics"]["calibration slope"]
    assert f"12 items in the smaller class, below {SLOPE_MIN_EVENTS}" in e["warning"]
