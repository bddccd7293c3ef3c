"""Every chapter reruns with the reader's own numbers.

Each chapter notebook has one code cell tagged ``parameters``.  As papermill does, the test
inserts a cell tagged ``injected-parameters`` after it with other values, executes the
notebook in the quick profile and reads the glued values: the page must build, and a
verdict (or number) that depends on the changed input must follow it.  The expected values
are computed here independently, from scipy or closed forms, not by the notebook's code.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")


def _inject(nb, values: dict):
    tagged = [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "a chapter has exactly one cell tagged 'parameters'"
    source = "\n".join(f"{k} = {v!r}" for k, v in values.items())
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]})
    nb.cells.insert(tagged[0] + 1, cell)
    # every injected name must be an input of the parameters cell
    names = {
        line.split("=")[0].strip()
        for line in nb.cells[tagged[0]].source.splitlines()
        if "=" in line
    }
    assert set(values) <= names, f"not in the parameters cell: {set(values) - names}"


def _glued(nb) -> dict[str, str]:
    out = {}
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            record = o.get("metadata", {}).get("scrapbook", {})
            if "name" in record:  # a glued value: its MIME types carry the record prefix
                text = o["data"][record.get("mime_prefix", "") + "text/plain"]
                out[record["name"]] = text.strip("'\"")
    return out


def run_with(stem: str, values: dict) -> dict[str, str]:
    nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    _inject(nb, values)
    env_before = os.environ.get("HELDOUT_QUICK")
    os.environ["HELDOUT_QUICK"] = "1"
    try:
        nbclient.NotebookClient(
            nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
        ).execute()
    finally:
        if env_before is None:
            os.environ.pop("HELDOUT_QUICK", None)
        else:
            os.environ["HELDOUT_QUICK"] = env_before
    return _glued(nb)


def test_parameters_cell_is_near_the_top_of_each_chapter():
    for stem in (
        "test_set_bound",
        "hoeffding_sizing",
        "acceptance_testing",
        "lost_test_set",
        "variational_split",
        "beta_posterior",
        "regression_metrics",
        "mnist_comparison",
        "mnist_engineering",
    ):
        cells = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text())["cells"]
        tags = [c.get("metadata", {}).get("tags", []) for c in cells]
        first = next(i for i, t in enumerate(tags) if "parameters" in t)
        assert first == 2, f"{stem}: the parameters cell follows the question and the imports"
        assert "hide-input" in tags[1], f"{stem}: the imports cell is hidden"
        body = "".join(cells[first]["source"]).splitlines()
        assert all("#" in line for line in body if line.strip()), f"{stem}: one comment per input"


@pytest.mark.slow
def test_test_set_bound_follows_k_and_m():
    glued = run_with("test_set_bound", {"k": 90, "m": 100})
    # independent: exact bound as a beta quantile, normal rule by hand
    exact = stats.beta.ppf(0.95, 91, 10)
    normal = 0.9 + stats.norm.isf(0.05) * math.sqrt(0.9 * 0.1 / 99)
    assert normal > exact
    assert glued["normal_vs_exact"] == "above"  # "below" with the tutorial's 38 of 100
    assert glued["ex_exact"] == f"{exact:.4f}"


@pytest.mark.slow
def test_hoeffding_sizing_follows_t_and_eps():
    glued = run_with("hoeffding_sizing", {"t": 0.2})
    u = -2 * math.log2(0.01)
    k = math.ceil(u**2 * math.log(2 / 0.05) / (2 * 0.2**2))
    assert glued["k_hoeff"] == f"{k:,}"
    first = next(n for n in (5_000, 20_000, 100_000, 1_000_000, 10_000_000) if n // 5 >= k)
    assert glued["first_ok_80_20"] == f"{first:,}"  # 1,000,000 with the article's t = 0.1


@pytest.mark.slow
def test_acceptance_testing_follows_the_count():
    glued = run_with("acceptance_testing", {"correct": 815})
    assert stats.binom.sf(814, 1000, 0.8) > 0.01  # independent: 815 of 1000 does not pass at 1 %
    assert glued["verdict_exact"] == "fails"  # "passes" with the article's 830


@pytest.mark.slow
def test_lost_test_set_follows_the_data_accuracy():
    glued = run_with("lost_test_set", {"data_accuracy": 0.7})
    assert 0.7 * 1000 - 800 < 0  # independent: the lower bound is 0, nothing can be ruled out
    assert glued["bounds_verdict"].startswith("say nothing")
    assert glued["cli_hi"] == f"{min(1, 700 / 200):.3f}"


@pytest.mark.slow
def test_variational_split_follows_the_coefficients():
    glued = run_with("variational_split", {"c_train": 20.0, "rows": 5000})
    share = math.sqrt(1.6) / (math.sqrt(1.6) + math.sqrt(20.0))
    assert glued["f_test"] == f"{share:.4f}"
    tests = [math.floor(5000 * share), math.ceil(5000 * share)]
    best = min(tests, key=lambda t: 1.6 / t + 20.0 / (5000 - t))
    assert glued["test_rows"] == f"{best:,}"


@pytest.mark.slow
def test_beta_posterior_follows_the_counts():
    glued = run_with("beta_posterior", {"k_a": 170, "k_b": 188, "n": 200})
    # independent: scipy's two-sided Fisher test on the 2x2 table; the article's 96/100 vs 98/100
    # gives 0.68 ("not significant")
    p = stats.fisher_exact([[170, 188], [30, 12]]).pvalue
    assert p < 0.05
    assert glued["fisher_two"] == f"{p:.4f}"
    assert glued["fisher_word"] == "significant"
    assert glued["post_a"] == "171" and glued["post_b"] == "31"  # uniform prior: Beta(k + 1, n - k + 1)


@pytest.mark.slow
def test_regression_metrics_follows_scale_and_bias():
    glued = run_with("regression_metrics", {"bias": 0.0, "scale": 2.0})
    # independent: with B = 0 the article's variance is (2 + 1/s^2) times the right one
    assert glued["ratio_m"] == f"{2 + 1 / 2.0**2:.3g}"  # 3.91 with the worked example's s, B
    assert glued["true_mse"] == f"{2.0**2:.4f}"


def _quick_mnist_cached(monkeypatch) -> None:
    from heldout import ledger

    monkeypatch.setenv("HELDOUT_QUICK", "1")
    try:
        ledger.mnist_results()
    except ledger.MnistUnavailable as exc:  # the quick build fills the cache
        pytest.skip(f"no cached quick-profile MNIST predictions: {exc}")


@pytest.mark.slow
@pytest.mark.mnist
def test_mnist_comparison_follows_the_candidates(monkeypatch):
    _quick_mnist_cached(monkeypatch)
    glued = run_with("mnist_comparison", {"candidates": "svc_rbf svc_poly3 cnn"})
    assert glued["mn_nmodels"] == "3"
    assert glued["mn_npairs"] == f"{math.comb(3, 2)}"  # 55 pairs with the article's 11 models


@pytest.mark.slow
@pytest.mark.mnist
def test_mnist_engineering_follows_retrain(monkeypatch):
    _quick_mnist_cached(monkeypatch)
    glued = run_with("mnist_engineering", {"retrain": False})
    assert glued["eng_same_word"] == "was not run"
