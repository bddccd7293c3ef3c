"""``heldout evaluate FILE``: every metric of every model in a predictions file, with intervals.

FILE is a CSV file with a header row (Parquet when ``pyarrow`` is installed; ``-``
reads CSV from standard input): a label column (``label``, or ``--label NAME``)
and one column per model holding predicted labels or, for two classes, scores in
[0, 1].  Whole-number columns are read as labels and the others as scores, unless
``--scores`` or ``--labels`` says so; the output says which was used.  See
:mod:`heldout.evaluate` for the metrics and their methods.
"""

from __future__ import annotations

import argparse

from heldout.cli import calculator


def _kinds(args) -> str | None:
    if args.scores and args.labels:
        raise ValueError("give at most one of --scores and --labels")
    return "scores" if args.scores else ("labels" if args.labels else None)


def _plain_rows(report: dict) -> dict:
    """A readable two-column table (key, text) for the output without --json."""
    out: dict = {"n": report["n"], "level": report["level"]}
    for name, model in report["models"].items():
        how = "detected" if model["kind_source"] == "detected" else "as told"
        out[name] = f"{model['kind']} ({how}); value [low, high] method"
        for metric, e in model["metrics"].items():
            text = e["method"]
            if e["value"] is not None:
                text = f"{e['value']:.4f}  [{e['low']:.4f}, {e['high']:.4f}]  {text}"
            out[f"{name} {metric}"] = text
    for pair in report["pairs"]:
        key = f"{pair['a']} - {pair['b']}"
        out[key] = "paired difference [low, high] p-value method"
        for metric, d in pair["metrics"].items():
            text = d["method"]
            if d["value"] is not None:
                text = (
                    f"{d['value']:+.4f}  [{d['low']:+.4f}, {d['high']:+.4f}]  "
                    f"p={d['p_value']:.3g}  {text}"
                )
            out[f"{key} {metric}"] = text
    if "plot" in report:
        out["plot"] = report["plot"]
    return out


def _run(args: argparse.Namespace) -> dict:
    from heldout.evaluate import evaluate, forest_plot
    from heldout.prediction_files import read_predictions

    models = [m.strip() for m in args.models.split(",")] if args.models else None
    data = read_predictions(args.file, label=args.label, models=models)
    report = evaluate(
        data.y,
        data.models,
        level=args.level,
        kinds=_kinds(args),
        threshold=args.threshold,
        n_resamples=args.resamples,
        seed=args.seed,
    )
    report = {"source": data.source, "label": data.label, **report}
    if args.plot:
        try:
            forest_plot(report, args.plot)
        except OSError as exc:
            raise ValueError(f"--plot: cannot write {args.plot} ({exc.strerror})") from None
        report["plot"] = args.plot
    return report if args.json else _plain_rows(report)


def register(top, size) -> None:
    """Add ``heldout evaluate``."""
    p = calculator(
        top,
        "evaluate",
        help="every metric of the models in a predictions file, with intervals and paired tests",
        func=_run,
        epilog=(
            "example: heldout evaluate predictions.csv --json\n"
            "FILE has a header row, a label column and one column per model (predicted labels,\n"
            "or scores in [0, 1] for two classes). Each metric gets value, low, high and method;\n"
            "'pairs' holds the paired difference of every two models with its test (DeLong for\n"
            "the AUC, McNemar for accuracy, paired t for Brier and log loss, BCa bootstrap\n"
            "otherwise)."
        ),
    )
    p.add_argument("file", metavar="FILE", help="CSV or Parquet file of predictions; - for stdin")
    p.add_argument("--label", default="label", help="name of the label column (default: label)")
    p.add_argument("--models", default=None, help="comma-separated model columns (default: all)")
    p.add_argument("--scores", action="store_true", help="read every model column as scores")
    p.add_argument("--labels", action="store_true", help="read every model column as labels")
    p.add_argument(
        "--threshold", type=float, default=0.5, help="scores >= it count as positive (0.5)"
    )
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument(
        "--resamples", type=int, default=2000, help="resamples of the paired bootstrap (2000)"
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the bootstrap")
    p.add_argument("--plot", default=None, metavar="OUT.png", help="write a forest plot")
