"""``heldout bench-eval``: a real inspect_ai log, an lm-eval JSONL, a table with gold grades."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_support import cli_json

from heldout.cli import main
from heldout.judged.benchmark import benchmark_difference, benchmark_score
from heldout.judged.logs import read_inspect_log

DATA = Path(__file__).resolve().parents[1] / "data" / "llm"


def _json(capsys, *argv):
    return cli_json(capsys, "bench-eval", *argv)


def _error(capsys, *argv):
    assert main(["bench-eval", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    return lines[0]


def test_two_inspect_logs_give_scores_pass_at_k_and_the_paired_difference(capsys):
    weak, strong = DATA / "weak.eval", DATA / "strong.eval"
    out = _json(
        capsys,
        str(weak),
        str(strong),
        "--cluster",
        "passage",
        "--k",
        "1,3",
        "--plan-difference",
        "0.05",
    )
    w = read_inspect_log(weak, cluster="passage")
    s = read_inspect_log(strong, cluster="passage")
    r = benchmark_score(w.score, w.question, clusters=w.cluster)
    got = out["models"]["mockllm/weak"]
    assert got["estimate"] == pytest.approx(r.estimate) and got["high"] == pytest.approx(r.high)
    assert got["units"] == 10 and got["unit"] == "cluster" and got["samples"] == 3
    assert got["pass@1"]["estimate"] == pytest.approx(r.estimate)
    assert got["pass@3"]["estimate"] >= got["pass@1"]["estimate"]
    assert "majority_of_3" in got
    pair = out["pairs"]["mockllm/weak - mockllm/strong"]
    d = benchmark_difference(w.score, w.question, s.score, s.question, clusters_a=w.cluster)
    assert pair["estimate"] == pytest.approx(d.estimate) and pair["low"] == pytest.approx(d.low)
    assert pair["plan"]["questions"] == 30 and pair["plan"]["questions_for_difference"] > 30


def test_one_lm_eval_file_and_plain_output(tmp_path, capsys):
    folder = tmp_path / "my-model"
    folder.mkdir()
    rows = [
        {"doc_id": i, "doc": {"q": i}, "target": "A", "resps": [["A"]], "filtered_resps": ["A"],
         "filter": "none", "metrics": ["acc"], "acc": float(i % 4 != 0)}
        for i in range(40)
    ]  # fmt: skip
    path = folder / "samples_task_2024.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    out = _json(capsys, str(path))
    assert out["model"] == "my-model" and out["estimate"] == 0.75 and out["questions"] == 40
    assert main(["bench-eval", str(path)]) == 0
    text = capsys.readouterr().out
    assert "estimate" in text and "pass@1 / low" in text


def test_gold_column_is_used_when_the_ppi_module_exists(tmp_path, capsys):
    gen = np.random.default_rng(0)
    n = 200
    judge = (gen.random(n) < 0.7).astype(int)
    gold = np.where(gen.random(n) < 0.25, judge, -1)
    lines = ["question,judge,gold"] + [
        f"q{i},{judge[i]},{'' if gold[i] < 0 else gold[i]}" for i in range(n)
    ]
    path = tmp_path / "g.csv"
    path.write_text("\n".join(lines) + "\n")
    out = _json(capsys, str(path))
    gc = out["gold_correction"]
    assert gc["gold_answers"] == int((gold >= 0).sum())
    try:
        import heldout.judged.ppi  # noqa: F401
    except ImportError:
        assert "not in this build" in gc["note"]
    else:
        assert gc["low"] < gc["estimate"] < gc["high"]


@pytest.mark.parametrize(
    "name, message", [("missing.csv", "does not exist"), ("x.txt", "unknown kind")]
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, name, message):
    (tmp_path / "x.txt").write_text("hi")
    assert message in _error(capsys, str(tmp_path / name))


def test_a_bad_k_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["bench-eval", str(DATA / "weak.eval"), "--k", "0"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--k" in err[0]
