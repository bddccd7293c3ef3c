"""Issue 31 on the command line: no wrong answer and no swallowed error with exit status 0."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest
from cli_support import leaves as _items
from scipy import stats

from heldout.cli import main


def _run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def _refused(code, out, err):
    return code == 2 and out == "" and len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.fixture()
def predictions(tmp_path):
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 200)
    a = np.where(rng.random(200) < 0.9, y, 1 - y)
    b = np.where(rng.random(200) < 0.7, y, 1 - y)
    path = tmp_path / "p.csv"
    path.write_text(
        "label,a,b\n" + "".join(f"{u},{v},{w}\n" for u, v, w in zip(y, a, b, strict=True))
    )
    return str(path)


@pytest.mark.parametrize("resamples", ["0", "-5", "10000000"])
def test_evaluate_refuses_a_bad_resample_count(predictions, resamples):
    assert _refused(*_run("evaluate", predictions, "--resamples", resamples, "--json"))


def test_size_auc_with_a_vanishing_prevalence_is_refused_not_negative():
    code, out, err = _run(
        "size", "auc", "--auc", "0.85", "--power", "0.8", "--prevalence", "1e-300", "--json"
    )
    assert _refused(code, out, err), (code, out, err)
    assert "-9223372036854775808" not in err


def test_compare_predictions_prints_the_far_tail_p_value(tmp_path):
    # 118 items only A got right, 10 only B: McNemar's exact p is 1.45e-24, not 0
    rows = ["1,1,0"] * 118 + ["1,0,1"] * 10 + ["1,1,1"] * 20
    path = tmp_path / "mc.csv"
    path.write_text("label,a,b\n" + "\n".join(rows) + "\n")
    code, out, err = _run("compare", "--predictions", str(path), "--json")
    assert code == 0, err
    found = [
        v for k, v in _items(json.loads(out)) if "p" in k and isinstance(v, float) and v < 1e-6
    ]
    want = stats.binomtest(118, 128).pvalue
    assert found and any(v == pytest.approx(want, rel=1e-9) for v in found), out


def test_no_command_prints_an_error_inside_a_result(predictions):
    code, out, err = _run("evaluate", predictions, "--resamples", "200", "--json")
    assert code == 0, err
    texts = [v for _, v in _items(json.loads(out)) if isinstance(v, str)]
    assert not any("must be" in t or "error" in t.lower() for t in texts), texts
