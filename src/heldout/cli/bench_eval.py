"""``heldout bench-eval FILE [FILE ...]``: the score of a language-model benchmark, with its structure.

Reads per-answer logs (an inspect_ai ``.eval``/``.json`` log through inspect_ai's own
reader, an lm-evaluation-harness ``--log_samples`` ``.jsonl`` file, or a CSV/Parquet
table with ``model``, ``question``, ``sample``, ``score``/``judge``, ``gold`` and
``cluster`` columns; see :mod:`heldout.judged.logs`) and reports, for each model:

* the score with the two-level (questions, samples per question) standard error and an
  interval that stays honest at 0 % and 100 % (:func:`heldout.judged.benchmark.benchmark_score`),
  next to the pooled standard error that treats every answer as independent;
* pass@k for each ``--k`` and the majority of k (0/1 grades, several samples per question);
* with gold grades beside the judge's, the judge's score corrected by the gold labels
  (prediction-powered inference, ``heldout.judged.ppi`` when it is installed);

and for each pair of models, the paired difference on the questions both answered with
its interval, and the smallest difference a planned paired comparison would detect
(``--plan-questions``, default the shared questions) with the questions a planned
difference needs (``--plan-difference``), from the disagreement rate and the
within-question variance the logs show.
"""

from __future__ import annotations

import argparse
import itertools

from heldout.cli import UsageError, alpha_option, calculator, choice_option, count, probability

DESCRIPTION = """\
Reads per-answer logs: inspect_ai .eval/.json logs (through inspect_ai's own reader),
lm-evaluation-harness --log_samples .jsonl files, or a CSV/Parquet table with columns
question and score (or judge), and optionally model, sample, gold and cluster.
For each model: the score with its two-level standard error (questions, samples per
question; over clusters of questions with --cluster or a cluster column) and an interval
that keeps its width at 0 % and 100 %, the pooled standard error for comparison, pass@k
for each --k, the majority of k; with gold grades, the judge's score corrected by them.
For each pair of models: the paired difference on shared questions with its interval,
the smallest difference a planned comparison detects (--plan-questions) and the
questions a planned difference needs (--plan-difference)."""


def _ks(text: str) -> list[int]:
    try:
        ks = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be whole numbers separated by commas, got {text!r}"
        ) from None
    if not ks or ks[0] < 1:
        raise argparse.ArgumentTypeError(f"must be whole numbers of at least 1, got {text!r}")
    return ks


def _read(args):
    import numpy as np

    from heldout.judged.logs import GradedAnswers, read_graded

    parts = []
    for path in args.files:
        low = path.lower()
        options = {}
        if low.endswith((".eval", ".json")):
            options = {"scorer": args.scorer, "cluster": args.cluster, "gold": args.gold}
        elif low.endswith(".jsonl"):
            options = {"metric": args.metric, "cluster": args.cluster}
            if args.model:
                options["model"] = args.model
        parts.append(read_graded(path, **options))
    if len(parts) == 1:
        return parts[0]

    def cat(name):
        values = [getattr(p, name) for p in parts]
        if any(v is None for v in values):
            if all(v is None for v in values):
                return None
            raise UsageError(f"the files do not all have {name} columns")
        return np.concatenate(values)

    models = cat("model")
    if len(set(zip(models, cat("question"), cat("sample"), strict=True))) != models.size:
        raise UsageError("the files repeat some (model, question, sample): give each model once")
    return GradedAnswers(
        models,
        cat("question"),
        cat("sample"),
        cat("score"),
        cluster=cat("cluster"),
        judge=cat("judge"),
        gold=cat("gold"),
        source="+".join(sorted({p.source for p in parts})),
        metric="+".join(sorted({p.metric for p in parts})),
    )


def _score(g, args) -> dict:
    import numpy as np

    from heldout.judged.benchmark import benchmark_score, majority_of_k
    from heldout.judged.passk import pass_at_k

    r = benchmark_score(
        g.score, g.question, clusters=g.cluster, alpha=args.alpha, method=args.method
    )
    out = {k: v for k, v in r.to_dict().items() if v is not None}
    binary = bool(np.all((g.score == 0) | (g.score == 1)))
    _, counts = np.unique(g.question, return_counts=True)
    fewest = int(counts.min())
    if binary:
        for k in [k for k in args.k if k <= fewest]:
            p = pass_at_k(g.score, g.question, k, clusters=g.cluster, alpha=args.alpha)
            out[f"pass@{k}"] = {"estimate": p.estimate, "low": p.low, "high": p.high, "se": p.se}
        if fewest >= 2:
            m = majority_of_k(g.score, g.question, clusters=g.cluster, alpha=args.alpha)
            out[f"majority_of_{m.k}"] = {"estimate": m.estimate, "low": m.low, "high": m.high}
    if g.gold is not None:
        out["gold_correction"] = _gold(g, args)
    return out


def _gold(g, args) -> dict:
    """The judge's score corrected by the gold grades (PPI), where heldout.judged.ppi exists."""
    import numpy as np

    judge = g.judge if g.judge is not None else g.score
    has = ~np.isnan(g.gold)
    n_gold = int(has.sum())
    out: dict = {"gold_answers": n_gold, "judged_answers": int(judge.size)}
    if n_gold < 2 or n_gold == judge.size:
        out["note"] = "needs at least 2 gold grades and some answers without one"
        return out
    try:  # the judge-correction module of this wing (heldout.judged.ppi)
        from heldout.judged.ppi import ppi_mean
    except ImportError:
        out["note"] = "heldout.judged.ppi is not in this build: gold grades are not used"
        return out
    r = ppi_mean(g.gold[has], judge[has], judge[~has], alpha=args.alpha)
    out.update(
        {
            "estimate": float(r.estimate),
            "low": float(r.low),
            "high": float(r.high),
            "method": "prediction-powered inference (answers treated as independent)",
        }
    )
    return out


def _pair(ga, gb, args) -> dict:
    from heldout.judged.benchmark import (
        benchmark_difference,
        minimum_detectable_difference,
        questions_for_difference,
    )

    d = benchmark_difference(
        ga.score,
        ga.question,
        gb.score,
        gb.question,
        clusters_a=ga.cluster,
        clusters_b=gb.cluster,
        alpha=args.alpha,
    )
    out = {k: v for k, v in d.to_dict().items() if v is not None}
    k = max(1, int(round(d.samples)))
    within = min(d.within or 0.0, d.disagreement)
    if d.disagreement > 0:
        q = args.plan_questions or d.questions
        mde = minimum_detectable_difference(
            q, d.disagreement, samples=k, within=within, alpha=args.alpha, power=args.power
        )
        out["plan"] = {
            "questions": mde.questions,
            "samples": k,
            "power": args.power,
            "minimum_detectable_difference": mde.difference,
        }
        if args.plan_difference is not None:
            need = questions_for_difference(
                args.plan_difference,
                d.disagreement,
                samples=k,
                within=within,
                alpha=args.alpha,
                power=args.power,
            )
            out["plan"]["questions_for_difference"] = need.questions
            out["plan"]["difference"] = need.difference
    return out


def _run(args) -> dict:
    g = _read(args)
    models = g.models()
    result: dict = {"source": g.source, "metric": g.metric, "models": {}}
    for m in models:
        result["models"][m] = _score(g.of(m), args)
    if len(models) >= 2:
        result["pairs"] = {
            f"{a} - {b}": _pair(g.of(a), g.of(b), args)
            for a, b in itertools.combinations(models, 2)
        }
    if len(models) == 1:
        only = result.pop("models")[models[0]]
        result = {"model": models[0], **result, **only}
    return result if args.json else _flat(result)


def _flat(d: dict, prefix: str = "") -> dict:
    """Nested results as one level of ``a / b / c`` keys, for the plain-text output."""
    out: dict = {}
    for key, value in d.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flat(value, name + " / "))
        else:
            out[name] = value
    return out


def register(top, size) -> None:
    p = calculator(
        top,
        "bench-eval",
        help="score of a language-model benchmark from its per-answer logs (inspect_ai, lm-eval, CSV)",
        func=_run,
        description=DESCRIPTION,
    )
    p.add_argument("files", nargs="+", metavar="FILE", help=".eval/.json, .jsonl, .csv or .parquet")
    p.add_argument("--scorer", help="inspect_ai: the scorer to read (default: the first)")
    p.add_argument(
        "--cluster",
        help="inspect_ai: metadata key; lm-eval: field of doc naming each question's cluster",
    )
    p.add_argument("--gold", help="inspect_ai: scorer or metadata key holding human grades")
    p.add_argument("--metric", help="lm-eval: the metric field (default: the logged one)")
    p.add_argument("--model", help="lm-eval: the model's name (default: the file's folder)")
    p.add_argument("--k", type=_ks, default=[1], help="pass@k for these k (e.g. 1,5,10)")
    choice_option(
        p,
        "--method",
        ("auto", "exact", "wilson", "t"),
        "auto",
        "interval of the score (auto: exact for grades in [0, 1])",
    )
    p.add_argument("--power", type=probability, default=0.8, help="power of a planned comparison")
    p.add_argument("--plan-questions", type=count, help="questions of a planned comparison")
    p.add_argument(
        "--plan-difference", type=probability, help="difference a planned comparison should detect"
    )
    alpha_option(p)
