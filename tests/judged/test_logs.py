"""heldout.judged.logs: inspect_ai logs (written by the real inspect_ai), lm-eval JSONL, tables."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from heldout.judged import logs
from heldout.judged.benchmark import benchmark_score

DATA = Path(__file__).resolve().parents[1] / "data" / "llm"


def test_committed_inspect_log_and_inspect_ai_own_clustered_stderr():
    """Our CR1 over passages equals what inspect_ai's stderr(cluster=...) wrote in the log."""
    from inspect_ai.log import read_eval_log

    for name in ("weak", "strong"):
        path = DATA / f"{name}.eval"
        g = logs.read_inspect_log(path, cluster="passage")
        assert g.source == "inspect_ai" and g.metric == "match"
        assert set(g.model) == {f"mockllm/{name}"}
        assert g.score.size == 90 and set(np.unique(g.sample)) == {1, 2, 3}
        log = read_eval_log(str(path))
        metrics = log.results.scores[0].metrics
        r = benchmark_score(g.score, g.question, clusters=g.cluster)
        assert r.estimate == pytest.approx(metrics["accuracy"].value, abs=1e-12)
        assert r.se == pytest.approx(metrics["stderr"].value, rel=1e-10)


def test_a_log_written_now_by_inspect_ai_mock_model(tmp_path):
    sys.path.insert(0, str(DATA))
    try:
        from make_inspect_logs import write
    finally:
        sys.path.remove(str(DATA))
    paths = write(tmp_path, questions=6, epochs=2)
    g = logs.read_graded(paths[0], cluster="passage")
    assert g.score.size == 12 and set(g.cluster) == {"0", "1"}
    assert set(np.unique(g.score)) <= {0.0, 1.0}


def _lm_eval_lines(n=40, seed=0, metric="acc", filters=("none",)):
    """Lines in lm-evaluation-harness's documented --log_samples format."""
    gen = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        right = bool(gen.random() < 0.7)
        for f in filters:
            rows.append(
                {
                    "doc_id": i,
                    "doc": {"question": f"q{i}", "passage": i // 4, "choices": ["a", "b"]},
                    "target": 0,
                    "arguments": [["ctx", " a"], ["ctx", " b"]],
                    "resps": [[[-1.0, True]], [[-2.0, False]]],
                    "filtered_resps": [[-1.0, True], [-2.0, False]],
                    "filter": f,
                    "metrics": [metric],
                    "doc_hash": "0" * 64,
                    "prompt_hash": "1" * 64,
                    "target_hash": "2" * 64,
                    metric: float(right if f == filters[0] else not right),
                }
            )
    return rows


def _write_jsonl(folder, rows, name="samples_toy_2024-01-01T00-00-00.jsonl"):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_lm_eval_samples_model_from_folder_metric_filter_cluster(tmp_path):
    rows = _lm_eval_lines(filters=("strict-match", "flexible-extract"), metric="exact_match")
    path = _write_jsonl(tmp_path / "org__model-7b", rows)
    g = logs.read_lm_eval_samples(path, cluster="passage")
    assert g.metric == "exact_match" and set(g.model) == {"org__model-7b"}
    first = [r["exact_match"] for r in rows if r["filter"] == "strict-match"]
    assert g.score.tolist() == first and g.question.size == 40
    assert g.cluster.tolist()[:5] == ["0", "0", "0", "0", "1"]
    other = logs.read_lm_eval_samples(path, filter="flexible-extract")
    assert np.all(other.score == 1 - g.score)


def test_lm_eval_zero_se_at_100_percent_is_not_ours(tmp_path):
    rows = _lm_eval_lines()
    for r in rows:
        r["acc"] = 1.0
    g = logs.read_graded(_write_jsonl(tmp_path / "m", rows))
    # lm-eval's mean_stderr: sample standard deviation / sqrt(n) = 0 at 100 %
    assert np.std(g.score, ddof=1) / np.sqrt(g.score.size) == 0
    r = benchmark_score(g.score, g.question)
    assert r.high == 1 and r.low < 0.95


def test_table_csv_and_parquet_agree(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    gen = np.random.default_rng(1)
    n = 60
    cols = {
        "model": np.repeat(["a", "b"], n // 2),
        "question": np.tile(np.repeat([f"q{i}" for i in range(10)], 3), 2),
        "sample": np.tile([0, 1, 2], n // 3),
        "judge": (gen.random(n) < 0.6).astype(float),
        "cluster": np.tile(np.repeat(np.arange(5), 6), 2).astype(str),
    }
    gold = np.where(gen.random(n) < 0.3, cols["judge"], np.nan)
    lines = ["model,question,sample,judge,gold,cluster"]
    for i in range(n):
        gtxt = "" if np.isnan(gold[i]) else f"{gold[i]:g}"
        lines.append(
            f"{cols['model'][i]},{cols['question'][i]},{cols['sample'][i]},{cols['judge'][i]:g},{gtxt},{cols['cluster'][i]}"
        )
    (tmp_path / "g.csv").write_text("\n".join(lines) + "\n")
    pq.write_table(pa.table({**cols, "gold": gold}), tmp_path / "g.parquet")
    a = logs.read_graded(tmp_path / "g.csv")
    b = logs.read_graded(tmp_path / "g.parquet")
    for x, y in ((a.score, b.score), (a.judge, b.judge)):
        assert np.array_equal(x, y)
    assert np.array_equal(np.isnan(a.gold), np.isnan(gold)) and np.array_equal(
        np.isnan(b.gold), np.isnan(gold)
    )
    assert a.models() == ["a", "b"] and a.of("b").score.size == 30


@pytest.mark.parametrize(
    "content, message",
    [
        ("question,score\nq1,1\nq1,x\n", "not a number"),
        ("model,score\na,1\n", "needs a column 'question'"),
        ("question,sample,score\nq1,0,1\nq1,0,0\n", "appears twice"),
        ("question,score\nq1,nan\n", "not a finite number"),
    ],
)
def test_bad_tables_are_refused_in_one_message(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        logs.read_graded(path)


def test_limits_are_checked_before_parsing(tmp_path, monkeypatch):
    path = tmp_path / "wide.csv"
    path.write_text(",".join(f"c{i}" for i in range(20_001)) + "\n" + ",".join("1" * 20_001) + "\n")
    with pytest.raises(ValueError, match="limit of 10,000"):
        logs.read_graded(path)
    long = tmp_path / "long.jsonl"
    long.write_text('{"doc_id": 0, "doc": "' + "x" * 1_000_100 + '"}\n')
    with pytest.raises(ValueError, match="longer than the limit"):
        logs.read_graded(long)
    monkeypatch.setattr(logs._files, "MAX_BYTES", 10)
    with pytest.raises(ValueError, match="larger than the limit"):
        logs.read_graded(path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json}\n")
    monkeypatch.undo()
    with pytest.raises(ValueError, match="line 1 is not JSON"):
        logs.read_graded(bad)
    junk = tmp_path / "junk.eval"
    junk.write_bytes(os.urandom(200))
    with pytest.raises(ValueError, match="could not be read as an inspect_ai log"):
        logs.read_graded(junk)
