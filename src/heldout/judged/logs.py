"""Logs of evaluation harnesses read as graded answers: inspect_ai, lm-evaluation-harness, tables.

Three sources, each read into :class:`GradedAnswers` (one row per graded answer: model,
question, sample, score, and where present cluster, judge grade and gold grade):

* **inspect_ai** logs (``.eval`` or ``.json``), through inspect_ai's own log API
  (``inspect_ai.log.read_eval_log``; the optional extra ``llm``).  A question is a
  sample id, a sample is an epoch, the score is one scorer's value turned into a number
  by inspect_ai's ``value_to_float`` (C = 1, I = 0, P = 0.5, N = 0); a cluster is a key
  of the samples' metadata.
* **lm-evaluation-harness** ``--log_samples`` files: JSON lines with ``doc_id``, ``doc``,
  ``target``, ``resps``, ``filtered_resps``, ``filter``, ``metrics`` and one field per
  metric (``acc``, ``exact_match``...) :cite:`biderman2024lessons`.  Read with the
  standard library; lm-eval itself is not needed.
* A plain **CSV or Parquet** table with columns ``question`` and ``score`` (or ``judge``),
  and optionally ``model``, ``sample``, ``cluster``, ``judge`` and ``gold`` (a gold cell is
  empty where no person graded the answer).  Parquet needs pyarrow (the extra ``large``).

Every reader checks the limits of ``heldout._files`` (size, line length, columns)
before parsing, and refuses a malformed file with a ``ValueError`` that names it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

from heldout import _files
from heldout._checks import in_choices, show
from heldout._result import Result, extra

__all__ = [
    "GradedAnswers",
    "read_graded",
    "read_graded_table",
    "read_inspect_log",
    "read_lm_eval_samples",
]

#: Metric fields of lm-evaluation-harness sample logs, tried in this order.
LM_EVAL_METRICS = ("acc", "exact_match", "acc_norm", "em", "pass@1", "f1", "bleu")
#: Largest number of graded answers read from one file.
MAX_ROWS = 50_000_000


@dataclass(frozen=True)
class GradedAnswers(Result):
    """Graded answers, one per row.  Unpacks as ``(model, question, sample, score)``.

    Attributes
    ----------
    model, question : numpy.ndarray of str
    sample : numpy.ndarray of int
        The answer's number among the answers to its question (an epoch, a repeat).
    score : numpy.ndarray of float
        The grade used for the benchmark's score (the judge's when there is a judge).
    cluster : numpy.ndarray of str or None
    judge, gold : numpy.ndarray of float or None
        The judge's grade and the gold (human) grade, NaN where absent.
    source : str
        ``"inspect_ai"``, ``"lm-eval"`` or ``"table"``.
    metric : str
        The scorer or metric read.
    """

    model: np.ndarray
    question: np.ndarray
    sample: np.ndarray
    score: np.ndarray
    cluster: np.ndarray | None = extra()
    judge: np.ndarray | None = extra()
    gold: np.ndarray | None = extra()
    source: str = extra()
    metric: str = extra()

    def models(self) -> list[str]:
        """The models, in order of first appearance."""
        _, first = np.unique(self.model, return_index=True)
        return [str(self.model[i]) for i in sorted(first)]

    def of(self, model: str) -> GradedAnswers:
        """The rows of one model."""
        keep = self.model == model
        if not keep.any():
            raise ValueError(
                f"no answers of model {show(model)} (models: {', '.join(self.models())})"
            )
        return _subset(self, keep)


def _subset(g: GradedAnswers, keep) -> GradedAnswers:
    def cut(x):
        return None if x is None else x[keep]

    return GradedAnswers(
        g.model[keep],
        g.question[keep],
        g.sample[keep],
        g.score[keep],
        cluster=cut(g.cluster),
        judge=cut(g.judge),
        gold=cut(g.gold),
        source=g.source,
        metric=g.metric,
    )


def _checked_path(path) -> str:
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"{show(path)} does not exist or is not a file")
    size = os.path.getsize(path)
    if size > _files.MAX_BYTES:
        raise ValueError(f"{show(path)} is larger than the limit of {_files.MAX_BYTES:,} bytes")
    return path


def _finish(model, question, sample, score, *, cluster, judge, gold, source, metric, path):
    score = np.asarray(score, dtype=float)
    if score.size == 0:
        raise ValueError(f"{show(path)} holds no graded answers")
    if not np.all(np.isfinite(score)):
        bad = int(np.flatnonzero(~np.isfinite(score))[0])
        raise ValueError(f"{show(path)}: answer {bad + 1} has no numeric {show(metric)} grade")
    question = np.asarray(question, dtype=str)
    model = np.asarray(model, dtype=str)
    sample = np.asarray(sample, dtype=np.int64)
    # a (model, question, sample) appearing twice is a duplicate row, not another answer
    key = np.char.add(np.char.add(model, "\x1f"), np.char.add(question, "\x1f"))
    key = np.char.add(key, sample.astype(str))
    if np.unique(key).size != key.size:
        raise ValueError(f"{show(path)}: some (model, question, sample) appears twice")
    return GradedAnswers(
        model,
        question,
        sample,
        score,
        cluster=None if cluster is None else np.asarray(cluster, dtype=str),
        judge=None if judge is None else np.asarray(judge, dtype=float),
        gold=None if gold is None else np.asarray(gold, dtype=float),
        source=source,
        metric=metric,
    )


# --------------------------------------------------------------------------- inspect_ai
def read_inspect_log(
    path, *, scorer: str | None = None, cluster: str | None = None, gold: str | None = None
) -> GradedAnswers:
    """Graded answers of an inspect_ai log (``.eval`` or ``.json``), via ``read_eval_log``.

    Parameters
    ----------
    path : str or os.PathLike
    scorer : str, optional
        The scorer whose values are the grades (default: the first of each sample's).
    cluster : str, optional
        A key of the samples' metadata naming each question's cluster.
    gold : str, optional
        A scorer (or a metadata key) holding human grades, where present.

    Returns
    -------
    GradedAnswers

    Examples
    --------
    >>> read_inspect_log("no-such.eval")
    Traceback (most recent call last):
    ...
    ValueError: 'no-such.eval' does not exist or is not a file
    """
    path = _checked_path(path)
    try:
        from inspect_ai.log import read_eval_log
        from inspect_ai.scorer import value_to_float
    except ImportError:  # pragma: no cover - the extra is installed where tests run
        raise ValueError(
            "reading inspect_ai logs needs inspect_ai (the optional extra 'llm': "
            "pip install '.[llm]' in a clone; once published: pip install 'heldout[llm]')"
        ) from None
    try:
        log = read_eval_log(path)
    except Exception as exc:  # inspect_ai raises many types for a bad file
        raise ValueError(f"{show(path)} could not be read as an inspect_ai log: {exc}") from None
    samples = log.samples or []
    if not samples:
        raise ValueError(
            f"{show(path)}: the log holds no samples (was it run without logging them?)"
        )
    if len(samples) > MAX_ROWS:
        raise ValueError(f"{show(path)} holds more than {MAX_ROWS:,} samples")
    to_float = value_to_float()
    model = str(log.eval.model)
    rows_q, rows_s, rows_y, rows_c, rows_g = [], [], [], [], []
    name = scorer
    for s in samples:
        scores = s.scores or {}
        if name is None:
            if not scores:
                raise ValueError(f"{show(path)}: sample {show(s.id)} has no score")
            name = next(iter(scores))
        if not in_choices(name, scores):
            raise ValueError(
                f"{show(path)}: sample {show(s.id)} has no score {show(name)} (scores: {', '.join(scores)})"
            )
        value = scores[name].value
        if isinstance(value, dict | list):
            raise ValueError(
                f"{show(path)}: scorer {show(name)} gives several values; name one scorer"
            )
        rows_q.append(str(s.id))
        rows_s.append(int(s.epoch))
        rows_y.append(float(to_float(value)))
        if cluster is not None:
            meta = s.metadata or {}
            if not in_choices(cluster, meta) or meta[cluster] is None:
                raise ValueError(
                    f"{show(path)}: sample {show(s.id)} has no metadata {show(cluster)}"
                )
            rows_c.append(str(meta[cluster]))
        if gold is not None:
            if gold in scores:
                rows_g.append(float(to_float(scores[gold].value)))
            else:
                v = (s.metadata or {}).get(gold)
                rows_g.append(float("nan") if v is None or v == "" else float(v))
    return _finish(
        [model] * len(rows_y),
        rows_q,
        rows_s,
        rows_y,
        cluster=rows_c if cluster is not None else None,
        judge=rows_y if gold is not None else None,
        gold=rows_g if gold is not None else None,
        source="inspect_ai",
        metric=str(name),
        path=path,
    )


# --------------------------------------------------------------------------- lm-evaluation-harness
def read_lm_eval_samples(
    path,
    *,
    metric: str | None = None,
    model: str | None = None,
    filter: str | None = None,
    cluster: str | None = None,
) -> GradedAnswers:
    """Graded answers of an lm-evaluation-harness ``--log_samples`` JSONL file.

    Each line is one document (question) under one filter: ``doc_id`` is the question,
    the metric field (``metric``, else the first of the line's ``metrics`` list, else the
    first of ``LM_EVAL_METRICS`` present) its grade.  When a task logs several
    filters, lines of ``filter`` (default: the first one met) are read.  The model is
    ``model`` or the name of the folder that holds the file (lm-eval writes
    ``OUTPUT/<model name>/samples_<task>_<time>.jsonl``).  ``cluster`` names a field of
    ``doc`` holding the question's cluster.

    Examples
    --------
    >>> import json, os, tempfile
    >>> rows = [{"doc_id": i, "doc": {"q": i}, "target": "A", "resps": [["A"]],
    ...          "filtered_resps": ["A"], "filter": "none", "metrics": ["acc"],
    ...          "acc": float(i % 2)} for i in range(4)]
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "samples_toy.jsonl")
    >>> _ = open(path, "w").write("\\n".join(json.dumps(r) for r in rows))
    >>> g = read_lm_eval_samples(path, model="toy")
    >>> g.score.tolist(), g.metric
    ([0.0, 1.0, 0.0, 1.0], 'acc')
    """
    path = _checked_path(path)
    model = model or os.path.basename(os.path.dirname(os.path.abspath(path))) or "model"
    qs, ys, cs = [], [], []
    chosen_filter = filter
    chosen_metric = metric
    try:
        with open(path, encoding="utf-8") as fh:
            number = 0
            while True:
                number += 1
                line = _files.line_of(fh, repr(path), number)
                if not line:
                    break
                if not line.strip():
                    continue
                if len(ys) >= MAX_ROWS:
                    raise ValueError(f"{show(path)} holds more than {MAX_ROWS:,} lines")
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(
                        f"{show(path)}: line {number} is not JSON ({exc.msg})"
                    ) from None
                if not isinstance(row, dict) or "doc_id" not in row:
                    raise ValueError(
                        f"{show(path)}: line {number} is not an lm-eval sample (no doc_id field)"
                    )
                f = row.get("filter")
                if chosen_filter is None:
                    chosen_filter = f
                if f != chosen_filter:
                    continue
                if chosen_metric is None:
                    listed = [m for m in row.get("metrics") or [] if m in row]
                    known = [m for m in LM_EVAL_METRICS if m in row]
                    if not (listed or known):
                        raise ValueError(
                            f"{show(path)}: line {number} has no metric field (looked for "
                            f"{', '.join(LM_EVAL_METRICS)}); name it with metric="
                        )
                    chosen_metric = (listed or known)[0]
                if not in_choices(chosen_metric, row):
                    raise ValueError(
                        f"{show(path)}: line {number} has no field {show(chosen_metric)}"
                    )
                value = row[chosen_metric]
                if isinstance(value, bool):
                    value = float(value)
                if not isinstance(value, int | float):
                    raise ValueError(
                        f"{show(path)}: line {number}: {show(chosen_metric)} is {show(value)}, not a number"
                    )
                qs.append(str(row["doc_id"]))
                ys.append(float(value))
                if cluster is not None:
                    doc = row.get("doc")
                    if not isinstance(doc, dict) or cluster not in doc:
                        raise ValueError(
                            f"{show(path)}: line {number}: doc has no field {show(cluster)}"
                        )
                    cs.append(str(doc[cluster]))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{show(path)} could not be read: {exc}") from None
    return _finish(
        [model] * len(ys),
        qs,
        np.zeros(len(ys), dtype=np.int64),
        ys,
        cluster=cs if cluster is not None else None,
        judge=None,
        gold=None,
        source="lm-eval",
        metric=str(chosen_metric),
        path=path,
    )


# --------------------------------------------------------------------------- a plain table
def _table_columns(path: str) -> dict[str, list]:
    if path.lower().endswith(".parquet"):
        try:
            import pyarrow.parquet as pq
        except ImportError:  # pragma: no cover
            raise ValueError("reading Parquet needs pyarrow (the optional extra 'large')") from None
        try:
            schema = pq.read_schema(path)
            _files.check_header(list(schema.names), repr(path))
            table = pq.read_table(path)
        except (OSError, ValueError) as exc:
            if isinstance(exc, ValueError) and "limit" in str(exc):
                raise
            raise ValueError(f"{show(path)} could not be read as Parquet: {exc}") from None
        if table.num_rows > MAX_ROWS:
            raise ValueError(f"{show(path)} holds more than {MAX_ROWS:,} rows")
        return {name: table.column(name).to_pylist() for name in table.column_names}
    import csv

    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            head = _files.header_line(fh, repr(path))
            _files.check_header(next(csv.reader([head]), []), repr(path))
            fh.seek(0)
            rows = [r for r in csv.reader(fh) if r and any(c.strip() for c in r)]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"{show(path)} could not be read as CSV: {exc}") from None
    if len(rows) < 2:
        raise ValueError(f"{show(path)} needs a header row and at least one row")
    header = [h.strip() for h in rows[0]]
    if len(set(header)) != len(header):
        raise ValueError(f"{show(path)}: column names must be distinct")
    bad = next((i for i, r in enumerate(rows[1:]) if len(r) != len(header)), None)
    if bad is not None:
        raise ValueError(
            f"{show(path)}: row {bad + 2} has {len(rows[bad + 1])} fields, not {len(header)}"
        )
    return {h: [r[j].strip() for r in rows[1:]] for j, h in enumerate(header)}


def _grades(values, path, name, *, missing_ok: bool) -> np.ndarray:
    out = np.empty(len(values))
    for i, v in enumerate(values):
        if v is None or (isinstance(v, str) and v.strip() == ""):
            if not missing_ok:
                raise ValueError(f"{show(path)}: column {show(name)} is empty in row {i + 2}")
            out[i] = np.nan
            continue
        try:
            out[i] = float(v)
        except (TypeError, ValueError):
            raise ValueError(
                f"{show(path)}: column {show(name)} holds {show(v)}, not a number"
            ) from None
        if missing_ok and np.isnan(out[i]) and not isinstance(v, str):
            continue  # a Parquet null or NaN: not graded by a person
        if not np.isfinite(out[i]):
            raise ValueError(
                f"{show(path)}: column {show(name)} holds {show(v)}, not a finite number"
            )
    return out


def read_graded_table(path) -> GradedAnswers:
    """Graded answers from a CSV or Parquet table (columns described in the module's text).

    The score is the ``score`` column, else the ``judge`` column.  ``gold`` may be empty
    where no person graded the answer.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "graded.csv")
    >>> _ = open(path, "w").write("model,question,sample,judge,gold\\na,q1,0,1,1\\na,q2,0,0,\\n")
    >>> g = read_graded_table(path)
    >>> g.score.tolist(), g.gold.tolist()[0]
    ([1.0, 0.0], 1.0)
    """
    path = _checked_path(path)
    cols = _table_columns(path)
    if "question" not in cols:
        raise ValueError(f"{show(path)} needs a column 'question' (columns: {', '.join(cols)})")
    if "score" not in cols and "judge" not in cols:
        raise ValueError(
            f"{show(path)} needs a column 'score' or 'judge' (columns: {', '.join(cols)})"
        )
    n = len(cols["question"])
    if n > MAX_ROWS:
        raise ValueError(f"{show(path)} holds more than {MAX_ROWS:,} rows")
    question = [str(q) for q in cols["question"]]
    if any(q.strip() == "" or q == "None" for q in question):
        raise ValueError(f"{show(path)}: column 'question' has empty cells")
    model = [str(m) for m in cols["model"]] if "model" in cols else ["model"] * n
    if "sample" in cols:
        s = _grades(cols["sample"], path, "sample", missing_ok=False)
        if np.any(s != np.round(s)) or np.any(np.abs(s) > 2**53):
            raise ValueError(f"{show(path)}: column 'sample' must hold whole numbers")
        sample = s.astype(np.int64)
    else:
        _, sample = np.unique(
            np.char.add(np.asarray(model, dtype=str), np.asarray(question, dtype=str)),
            return_inverse=True,
        )
        # number the answers of each (model, question) in file order
        order = np.argsort(sample, kind="stable")
        ranks = np.empty(n, dtype=np.int64)
        starts = np.r_[0, np.flatnonzero(np.diff(sample[order])) + 1]
        counts = np.diff(np.r_[starts, n])
        ranks[order] = np.arange(n) - np.repeat(starts, counts)
        sample = ranks
    judge = _grades(cols["judge"], path, "judge", missing_ok=False) if "judge" in cols else None
    score = _grades(cols["score"], path, "score", missing_ok=False) if "score" in cols else judge
    gold = _grades(cols["gold"], path, "gold", missing_ok=True) if "gold" in cols else None
    cluster = [str(c) for c in cols["cluster"]] if "cluster" in cols else None
    return _finish(
        model,
        question,
        sample,
        score,
        cluster=cluster,
        judge=judge,
        gold=gold,
        source="table",
        metric="score" if "score" in cols else "judge",
        path=path,
    )


def read_graded(path, **options) -> GradedAnswers:
    """Read a log by its extension: ``.eval``/``.json`` (inspect_ai), ``.jsonl`` (lm-eval),
    ``.csv``/``.parquet`` (a table).  ``options`` go to the reader.

    Examples
    --------
    >>> read_graded("results.txt")
    Traceback (most recent call last):
    ...
    ValueError: 'results.txt': unknown kind of log (expected .eval, .json, .jsonl, .csv or .parquet)
    """
    p = os.fspath(path)
    low = p.lower()
    if low.endswith((".eval", ".json")):
        return read_inspect_log(p, **options)
    if low.endswith(".jsonl"):
        return read_lm_eval_samples(p, **options)
    if low.endswith((".csv", ".parquet")):
        if options:
            raise ValueError(f"a table takes no options, got {', '.join(options)}")
        return read_graded_table(p)
    raise ValueError(
        f"{show(p)}: unknown kind of log (expected .eval, .json, .jsonl, .csv or .parquet)"
    )
