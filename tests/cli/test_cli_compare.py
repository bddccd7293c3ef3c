"""The ``heldout compare`` and ``heldout size compare`` calculators."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from cli_support import cli_json, run_heldout
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

from heldout.cli import main


def test_compare_article_example(capsys):
    res = cli_json(capsys, "compare", "--a", "96/100", "--b", "98/100")
    assert res["fisher_p"] == pytest.approx(
        stats.fisher_exact([[96, 98], [4, 2]], alternative="less").pvalue
    )
    assert res["chi2_p"] == pytest.approx(stats.chi2_contingency([[96, 98], [4, 2]]).pvalue / 2)
    # P(Beta(97,5) > Beta(99,3)) by a fine midpoint rule on f_A(x) F_B(x)
    x = (np.arange(200_000) + 0.5) / 200_000
    ref = np.sum(stats.beta.pdf(x, 97, 5) * stats.beta.cdf(x, 99, 3)) / 200_000
    assert res["p_a_better"] == pytest.approx(ref, abs=1e-7)
    assert res["posterior_mean_a"] == pytest.approx(97 / 102)
    assert "mcnemar_p" not in res


def test_compare_paired(capsys):
    res = cli_json(
        capsys,
        *"compare --a 96/100 --b 98/100 --only-a-correct 1 --only-b-correct 3".split(),
    )
    assert res["mcnemar_p"] == pytest.approx(stats.binomtest(1, 4, 0.5, alternative="less").pvalue)
    res2 = cli_json(
        capsys,
        *"compare --a 96/100 --b 98/100 --only-a-correct 1 --only-b-correct 3 --alternative two-sided".split(),
    )
    assert res2["mcnemar_p"] == pytest.approx(mcnemar([[95, 1], [3, 1]], exact=True).pvalue)
    assert res2["fisher_p"] == pytest.approx(stats.fisher_exact([[96, 98], [4, 2]]).pvalue)


def test_size_compare(capsys):
    res = cli_json(
        capsys, "size", "compare", "--accuracy", "0.99", "--gap", "0.001", "--models", "1"
    )
    assert res["n"] == round(0.99 * 0.01 / 0.001**2)
    assert res["n_exact"] > res["n"]
    res = cli_json(capsys, "size", "compare", "--accuracy", "0.5", "--gap", "0.01", "--models", "2")
    assert res["n"] == 4 * 2500


def test_plain_output(capsys):
    assert main(["compare", "--a", "96/100", "--b", "98/100"]) == 0
    assert "p_a_better" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "--a", "97/96", "--b", "98/100"],
        ["compare", "--a", "abc", "--b", "98/100"],
        ["compare", "--a", "96/100", "--b", "98/0"],
        ["compare", "--a", "96/100", "--b", "98/100", "--prior", "flat"],
        ["compare", "--a", "96/100", "--b", "98/100", "--only-a-correct", "3"],
        [
            *"compare --a 96/100 --b 98/100 --only-a-correct 3 --only-b-correct 3".split(),
        ],
        ["size", "compare", "--accuracy", "1.5", "--gap", "0.01"],
        ["size", "compare", "--accuracy", "0.9", "--gap", "-0.01"],
        ["size", "compare", "--accuracy", "0.9", "--gap", "0.01", "--models", "1.5"],
    ],
)
def test_bad_input_exit_2_one_line(argv, capsys):
    assert main([*argv, "--json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("heldout")


def test_subprocess_bad_input():
    out = run_heldout("compare", "--a", "97/96", "--b", "98/100", "--json")
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1
    assert "--a" in out.stderr and "Traceback" not in out.stderr


# ---------------------------------------------------------------------------
# heldout compare --predictions FILE
# ---------------------------------------------------------------------------

CSV = "label,cnn,svc,knn\n" + "".join(
    f"{y},{a},{b},{c}\n"
    for y, a, b, c in zip(
        *(
            np.random.default_rng(0).integers(0, 3, 600),
            np.random.default_rng(1).integers(0, 3, 600),
            np.random.default_rng(2).integers(0, 3, 600),
            np.random.default_rng(3).integers(0, 3, 600),
        ),
        strict=True,
    )
)


def _csv(tmp_path, text=None, name="p.csv"):
    path = tmp_path / name
    path.write_text(CSV if text is None else text)
    return str(path)


def _mnist_like(tmp_path):
    """Three models sharing their difficulty (so they differ, but agree on most items)."""
    from heldout.comparison.best import simulate_correct

    correct = simulate_correct([0.97, 0.95, 0.94], 3000, shared=0.8, seed=4)
    rng = np.random.default_rng(5)
    y = rng.integers(0, 10, 3000)
    wrong = (y + rng.integers(1, 10, (3000, 3)).T).T % 10
    pred = np.where(correct, y[:, None], wrong)
    text = "truth,a,b,c\n" + "".join(
        f"{t},{p[0]},{p[1]},{p[2]}\n" for t, p in zip(y, pred, strict=True)
    )
    return _csv(tmp_path, text), correct


def test_compare_predictions_json_against_independent_computations(tmp_path, capsys):
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportion_confint

    from heldout.comparison.best import best_set, prob_best_paired
    from heldout.comparison.paired import diff_interval

    path, correct = _mnist_like(tmp_path)
    res = cli_json(capsys, "compare", "--predictions", path, "--label", "truth", "--level", "0.9")
    assert res["n"] == 3000
    assert [m["name"] for m in res["models"]] == ["a", "b", "c"]
    for j, m in enumerate(res["models"]):
        k = int(correct[:, j].sum())
        assert (m["correct"], m["accuracy"]) == (k, pytest.approx(k / 3000))
        low, high = proportion_confint(k, 3000, alpha=0.1, method="beta")
        assert (m["low"], m["high"]) == (
            pytest.approx(low, abs=1e-10),
            pytest.approx(high, abs=1e-10),
        )
    names = {"a": 0, "b": 1, "c": 2}
    for pair in res["pairs"]:
        i, j = names[pair["a"]], names[pair["b"]]
        b = int(np.sum(correct[:, i] & ~correct[:, j]))
        c = int(np.sum(~correct[:, i] & correct[:, j]))
        assert (pair["a_only"], pair["b_only"]) == (b, c)
        assert pair["p_value"] == pytest.approx(mcnemar([[0, b], [c, 0]], exact=True).pvalue)
        ci = diff_interval(b, c, 3000, alpha=0.1)
        assert (pair["diff"], pair["diff_low"], pair["diff_high"]) == pytest.approx(
            (ci.diff, ci.low, ci.high)
        )
    p = [pair["p_value"] for pair in res["pairs"]]
    assert [pair["p_adjusted"] for pair in res["pairs"]] == pytest.approx(
        multipletests(p, method="holm")[1]
    )
    assert res["best"] == ["a", "b", "c"][int(np.argmax(correct.sum(axis=0)))]
    assert res["best_set"] == [["a", "b", "c"][j] for j in best_set(correct).models]
    assert res["prob_best"] == pytest.approx(
        dict(zip("abc", prob_best_paired(correct).prob, strict=True))
    )
    assert sum(res["prob_best"].values()) == pytest.approx(1.0)


def test_compare_predictions_one_disagreement_is_not_a_certain_winner(tmp_path, capsys):
    # issue 25: 1,000 items, A errs once, B never: McNemar's p = 1, both in the best set,
    # and P(best) must not be [0, 1]; the default prior gives P(Beta(1, 2) > 1/2) to A
    rows = ["label,A,B"] + [f"1,{0 if i == 0 else 1},1" for i in range(1000)]
    path = _csv(tmp_path, "\n".join(rows) + "\n")
    res = cli_json(capsys, "compare", "--predictions", path)
    (pair,) = res["pairs"]
    assert pair["p_value"] == pytest.approx(1.0)
    assert sorted(res["best_set"]) == ["A", "B"]
    assert res["prob_best"]["A"] == pytest.approx(stats.beta(1, 2).sf(0.5), abs=0.01)
    # the two-model path on the same counts gives the same number (issue 37: was 0.75 vs 0.82)
    paired = cli_json(capsys, "compare", "--a", "999/1000", "--b", "1000/1000",
                      "--only-a-correct", "0", "--only-b-correct", "1")  # fmt: skip
    assert paired["paired_p_a_better"] == pytest.approx(res["prob_best"]["A"], abs=0.01)
    jeff = cli_json(capsys, "compare", "--predictions", path, "--prior", "jeffreys")
    assert jeff["prob_best"]["A"] == pytest.approx(stats.beta(0.5, 1.5).sf(0.5), abs=0.01)
    assert 0.05 < res["prob_best"]["A"] < res["prob_best"]["B"] < 0.95
    assert main(["compare", "--predictions", path]) == 0
    table = capsys.readouterr().out.split("pairs:")[0]
    shown = [float(m) for m in re.findall(r"\]\s+([01]\.\d{4})\s+(?:yes|no)", table)]
    assert len(shown) == 2 and all(0.05 < v < 0.95 for v in shown)


def test_compare_predictions_stdin_and_table(tmp_path):
    run = [sys.executable, "-m", "heldout", "compare", "--predictions", "-"]
    out = subprocess.run([*run, "--json"], input=CSV, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stderr == ""
    res = json.loads(out.stdout)
    assert res["n"] == 600 and len(res["pairs"]) == 3
    table = subprocess.run(run, input=CSV, capture_output=True, text=True, timeout=300)
    assert table.returncode == 0
    for word in ("cnn", "svc", "knn", "best set", "Holm", "95%"):
        assert word in table.stdout


@pytest.mark.parametrize(
    "text,extra,match",
    [
        ("truth,a,b\n1,1,1\n", [], "label"),
        ("label,a\n1,1\n", [], "two model"),
        ("label,a,b\n1,1,1\n2,2\n", [], "rectangular|cells"),
        ("", [], "empty"),
        ("label,a,b\n", [], "no items"),
        (None, ["--level", "1.5"], "--level"),
        (None, ["--alpha", "0"], "--alpha"),
        (None, ["--a", "9/10", "--b", "8/10"], "not both"),
    ],
)
def test_compare_predictions_refusals_one_line_exit_2(tmp_path, capsys, text, extra, match):
    path = _csv(tmp_path, text)
    assert main(["compare", "--predictions", path, *extra, "--json"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert captured.out == "" and len(err) == 1 and err[0].startswith("heldout: error")
    assert re.search(match, err[0])


def test_compare_needs_a_mode_and_missing_file(capsys):
    assert main(["compare", "--json"]) == 2
    assert "--predictions" in capsys.readouterr().err
    assert main(["compare", "--predictions", "/no/such.csv", "--json"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_compare_ragged_file_subprocess_no_warnings(tmp_path):
    path = _csv(tmp_path, "label,a,b\n1,1,1\n2,2\n")
    out = run_heldout("compare", "--predictions", path, "--json", timeout=300)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


# ---------------------------------------------------------------------------
# heldout size compare --paired
# ---------------------------------------------------------------------------


def test_size_compare_paired(capsys):
    from statsmodels.stats.proportion import samplesize_proportions_2indep_onetail

    from heldout.comparison.paired import mcnemar_power

    argv = ["size", "compare", "--paired", "--accuracy-a", "0.92", "--accuracy-b", "0.90"]
    res = cli_json(capsys, *argv, "--disagreement", "0.06", "--power", "0.8", "--alpha", "0.05")
    assert (
        mcnemar_power(res["n"], 0.92, 0.90, 0.06)
        >= 0.8
        > mcnemar_power(res["n"] - 1, 0.92, 0.90, 0.06)
    )
    ref = samplesize_proportions_2indep_onetail(0.02, 0.90, 0.8, alpha=0.05)
    assert res["n_unpaired"] == int(np.ceil(ref))
    assert res["n"] < res["n_unpaired"]


@pytest.mark.parametrize(
    "argv,match",
    [
        (["size", "compare", "--paired", "--accuracy-a", "0.9"], "--accuracy-b"),
        (["size", "compare"], "--accuracy"),
        (
            [
                *"size compare --paired --accuracy-a 0.9 --accuracy-b 0.8 --disagreement 0.05".split(),
            ],
            "disagreement",
        ),
        (
            [
                *"size compare --paired --accuracy-a 0.9 --accuracy-b 0.8 --disagreement 0.2 --alpha 2".split(),
            ],
            "alpha",
        ),
    ],
)
def test_size_compare_paired_refusals(argv, match, capsys):
    assert main([*argv, "--json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(match, err[0])


def test_size_compare_many_models_answers():
    # issue 19: "size compare --models 1e6" ran for minutes
    out = run_heldout(*"size compare --accuracy 0.96 --gap 0.01 --models 1e6 --json".split())
    assert out.returncode == 0
    res = json.loads(out.stdout)
    assert res["pick_best_prob_at_n"] == pytest.approx(1.0)
    assert res["n_exact"] < res["n"]


def test_compare_predictions_reads_probabilities_as_evaluate_does(tmp_path, capsys):
    """A file of probabilities: compare predicts class 1 at p >= threshold, as evaluate does.

    Before the one column-kind rule reached compare, every probability was compared with
    the label for equality and every model scored accuracy 0 (issue 44).
    """
    rng = np.random.default_rng(44)
    n = 400
    y = rng.integers(0, 2, n)
    p = np.clip(0.5 + (2 * y - 1) * rng.uniform(-0.2, 0.45, (3, n)), 0.01, 0.99).round(3)
    hard = np.where(rng.random(n) < 0.8, y, 1 - y)
    rows = "\n".join(f"{y[i]},{p[0, i]},{p[1, i]},{p[2, i]},{hard[i]}" for i in range(n))
    path = _csv(tmp_path, "label,a,b,c,hard\n" + rows + "\n")
    for th in (0.5, 0.3):
        res = cli_json(capsys, "compare", "--predictions", str(path), "--threshold", str(th))
        ev = cli_json(capsys, "evaluate", str(path), "--threshold", str(th))
        for j, m in enumerate(res["models"]):
            name = m["name"]
            col = p[j] if name != "hard" else hard
            want = ((col >= th) == (y == 1)) if name != "hard" else (col == y)
            assert m["kind"] == ("labels" if name == "hard" else "probabilities")
            assert m["correct"] == int(want.sum())  # numpy, by the definition
            assert m["accuracy"] == pytest.approx(
                ev["models"][name]["metrics"]["accuracy"]["value"], abs=1e-12
            )
        assert res["threshold"] == th


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("label,a,b\n1,2.5,1\n0,-1,0\n", "scores outside"),
        ("label,a,b\n2,0.5,1\n0,0.25,0\n", "need labels 0 and 1"),
    ],
)
def test_compare_predictions_refuses_scores_and_probabilities_beside_classes(
    tmp_path, capsys, text, match
):
    path = _csv(tmp_path, text)
    assert main(["compare", "--predictions", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and match in err[0]


def test_compare_predictions_handles_more_than_16_models(tmp_path, capsys):
    from heldout.comparison.best import simulate_correct

    correct = simulate_correct([0.9] * 17 + [0.95], 400, shared=0.5, seed=2)
    names = [f"m{j}" for j in range(18)]
    rows = ["label," + ",".join(names)] + [
        "1," + ",".join("1" if v else "0" for v in row) for row in correct
    ]
    path = _csv(tmp_path, "\n".join(rows) + "\n")
    res = cli_json(capsys, "compare", "--predictions", path)
    assert sum(res["prob_best"].values()) == pytest.approx(1.0)
    assert max(res["prob_best"], key=res["prob_best"].get) == "m17"
