"""``heldout evaluate FILE``: every metric of every model in a predictions file, with intervals.

FILE is a CSV file with a header row (Parquet when ``pyarrow`` is installed; ``-``
reads CSV from standard input): a label column (``label``, or ``--label NAME``)
and one column per model holding predicted labels or, for two classes, probabilities
of class 1 or any real scores.  Whole-number columns are read as labels, other values
in [0, 1] as probabilities and anything else as scores, unless ``--scores [COLS]`` or
``--labels [COLS]`` says so; the output names the kind of every column and warns when a
whole-number column looks like something else.  With several models the pairs'
p-values are adjusted within each metric by Holm's method (``--adjust``) and the best
sets for the accuracy and the AUC are printed.  See
:mod:`heldout.metrics.evaluate` for the metrics and their methods.

``--cluster COLUMN`` names a column of cluster ids (any text): every metric that is
a mean gets the cluster-robust interval with ``se_iid``, ``se_cluster``,
``design_effect``, ``icc`` and ``effective_n``; the AUC and F1 a cluster bootstrap.
``--stratum COLUMN`` (with ``--shares A=0.6,B=0.4`` for the population's mix) adds a
stratified estimate of every mean.  ``heldout clustered`` is the older command for
the accuracy alone.

``--engine duckdb`` (or ``dask``) evaluates a prediction log larger than memory: FILE
may then be a folder of Parquet files or a glob, and every metric of the report comes
from statistics the engine computes out of core (:mod:`heldout.metrics.engine`; needs
the ``large`` extra), the best sets, several classes and, with ``--cluster``, the
clustered intervals and ``--stratum`` included; the AUC's cluster bootstrap is left
to the in-memory path.
"""

from __future__ import annotations

import argparse

from heldout.cli import alpha_option, calculator, choice_option

_ALL = "\0all"  # --scores / --labels given without a column: every model column


def _named_columns(args, models) -> list:
    """The model columns, when the engine has not read the files yet: those named."""
    if models:
        return list(models)
    named = (args.scores, args.labels)
    return [c.strip() for text in named if text not in (None, _ALL) for c in text.split(",")]


def _kinds(args, names) -> dict | None:
    """``kinds`` for :func:`evaluate` from ``--scores [COLS]`` and ``--labels [COLS]``."""
    if args.scores == _ALL and args.labels == _ALL:
        raise ValueError("give at most one of --scores and --labels without columns")
    kinds: dict = {}
    for text, kind, option in (
        (args.scores, "scores", "--scores"),
        (args.labels, "labels", "--labels"),
    ):
        if text is None or text == _ALL:
            continue
        for col in (c.strip() for c in text.split(",")):
            if col not in names:
                raise ValueError(
                    f"{option} names {col!r}, which is not a model column "
                    f"(the model columns are {', '.join(names)})"
                )
            if col in kinds:
                raise ValueError(f"column {col!r} is named by both --scores and --labels")
            kinds[col] = kind
    for text, kind in ((args.scores, "scores"), (args.labels, "labels")):
        if text == _ALL:
            kinds = {name: kinds.get(name, kind) for name in names}
    return kinds or None


def _plain_entry(e: dict, fmt: str) -> str:
    text = e["method"]
    if e["value"] is not None:
        low = "-" if e["low"] is None else fmt.format(e["low"])
        high = "-" if e["high"] is None else fmt.format(e["high"])
        p = f"  p={e['p_value']:.3g}" if e.get("p_value") is not None else ""
        if e.get("p_adjusted") is not None:
            p += f" ({e['adjust']}: {e['p_adjusted']:.3g})"
        text = f"{fmt.format(e['value'])}  [{low}, {high}]{p}  {text}"
        if e.get("design_effect") is not None:
            text += f"  deff={e['design_effect']:.2f}"
    if e.get("warning"):
        text += f"  (warning: {e['warning']})"
    return text


def _plain_rows(report: dict) -> dict:
    """A readable two-column table (key, text) for the output without --json."""
    out: dict = {"n": report["n"], "level": report["level"]}
    if "note" in report:
        out["note"] = report["note"]
    for name, model in report["models"].items():
        how = "detected" if model["kind_source"] == "detected" else "as told"
        out[name] = f"column read as {model['kind']} ({how}); value [low, high] method"
        if model.get("warning"):
            out[f"{name} warning"] = model["warning"]
        for metric, e in model["metrics"].items():
            out[f"{name} {metric}"] = _plain_entry(e, "{:.4f}")
    if report["pairs"]:
        out["p-values"] = (
            f"pairs' p-values adjusted within each metric's family of pairs by "
            f"{report['adjust']} (in brackets)"
        )
    for metric, best in report.get("best", {}).items():
        out[f"best set, {metric}"] = (
            f"{', '.join(best['models'])} (cannot be ruled out as best at alpha = "
            f"{1 - report['level']:g}; {best['method']})"
        )
    for pair in report["pairs"]:
        key = f"{pair['a']} - {pair['b']}"
        out[key] = "paired difference [low, high] p-value (adjusted) method"
        for metric, d in pair["metrics"].items():
            out[f"{key} {metric}"] = _plain_entry(d, "{:+.4f}")
    if "plot" in report:
        out["plot"] = report["plot"]
    return out


def _add_operating(report: dict, data, args) -> None:
    """Operating points, partial AUC, calibration, tuned threshold (issue 28) of score models."""
    wanted = (args.at_specificity, args.at_sensitivity, args.partial_auc, args.threshold_tuned)
    if all(w is None for w in wanted) and not args.calibration:
        return
    from heldout.metrics.operating_report import TUNED_NOTE, operating_entries, parse_band

    band = None if args.partial_auc is None else parse_band(args.partial_auc)
    scored = [m for m, e in report["models"].items() if e["kind"] in ("scores", "probabilities")]
    if not scored:
        raise ValueError(
            "--at-specificity, --at-sensitivity, --partial-auc, --calibration and "
            "--threshold-tuned need a model column of scores"
        )
    for name in scored:
        report["models"][name]["metrics"].update(
            operating_entries(
                data.y, data.models[name], args.alpha, args.at_specificity, args.at_sensitivity,
                band, args.calibration, args.threshold_tuned, args.resamples, args.seed,
            )
        )  # fmt: skip
    if args.threshold_tuned is not None:
        report["note"] = TUNED_NOTE
        _withdraw_tuned_intervals(report, args.threshold_tuned, scored)


def _withdraw_tuned_intervals(report: dict, metric: str, scored: list[str]) -> None:
    """The metric the threshold was tuned for keeps its apparent value but loses its interval.

    Chosen to maximise this metric on these items, the threshold makes the usual interval
    undercover (the operating_points lesson shows it by simulation); the 'tuned' entries (split, cross-fit) are the intervals to use.  Paired
    differences of that metric between tuned models carry a warning.
    """
    why = "an interval at a threshold tuned on these items undercovers; use the 'tuned' entries"
    for name in scored:
        entry = report["models"][name]["metrics"].get(metric)
        if entry is not None and entry.get("value") is not None:
            entry.update(low=None, high=None, optimistic=True)
            entry["method"] = f"apparent only ({why})"
    for pair in report["pairs"]:
        entry = pair["metrics"].get(metric)
        if entry is not None and (pair["a"] in scored or pair["b"] in scored):
            note = "threshold tuned on these items: the interval may undercover"
            entry["warning"] = f"{entry['warning']}; {note}" if entry.get("warning") else note


def _run(args: argparse.Namespace) -> dict:
    import numpy as np

    from heldout.cli._parsing import shares
    from heldout.metrics.evaluate import evaluate
    from heldout.metrics.prediction_files import read_predictions

    models = [m.strip() for m in args.models.split(",")] if args.models else None
    if args.engine is not None:
        return _run_engine(args, models)
    if args.memory_limit is not None:
        raise ValueError("--memory-limit needs --engine duckdb")
    if args.shares is not None and args.stratum is None:
        raise ValueError("--shares needs --stratum COLUMN")
    groups = [c for c in (args.cluster, args.stratum) if c is not None]
    if len(set(groups)) < len(groups):
        raise ValueError("--cluster and --stratum must name different columns")
    data = read_predictions(args.file, label=args.label, models=models, groups=groups)
    cluster = None if args.cluster is None else data.groups[args.cluster]
    if cluster is not None and np.unique(cluster).size < 2:
        raise ValueError(
            f"--cluster column {args.cluster!r} holds a single cluster; need two or more"
        )
    report = evaluate(
        data.y,
        data.models,
        alpha=args.alpha,
        kinds=_kinds(args, list(data.models)),
        threshold=args.threshold,
        n_resamples=args.resamples,
        seed=args.seed,
        clusters=cluster,
        strata=None if args.stratum is None else data.groups[args.stratum],
        shares=shares(args.shares),
        correction=args.correction,
        adjust=args.adjust,
    )
    _add_operating(report, data, args)
    return _finish({"source": data.source, "label": data.label}, report, args)


def _finish(head: dict, report: dict, args: argparse.Namespace) -> dict:
    """The report behind its head (file, label, and the group columns named by ``args``),
    its forest plot written if asked."""
    from heldout.metrics.evaluate import forest_plot

    for name in ("cluster", "stratum"):
        if getattr(args, name) is not None:
            head[name] = getattr(args, name)
    report = {**head, **report}
    if args.plot:
        try:
            forest_plot(report, args.plot)
        except OSError as exc:
            raise ValueError(f"--plot: cannot write {args.plot} ({exc.strerror})") from None
        report["plot"] = args.plot
    return report if args.json else _plain_rows(report)


def _run_engine(args: argparse.Namespace, models) -> dict:
    from heldout.cli._parsing import shares
    from heldout.metrics.engine import evaluate_files

    if args.shares is not None and args.stratum is None:
        raise ValueError("--shares needs --stratum COLUMN")
    if args.stratum is not None and args.stratum == args.cluster:
        raise ValueError("--cluster and --stratum must name different columns")
    if args.file == "-":
        raise ValueError("--engine reads files, not standard input")
    report = evaluate_files(
        args.file,
        label=args.label,
        models=models,
        engine=args.engine,
        alpha=args.alpha,
        kinds=_kinds(args, _named_columns(args, models)),
        threshold=args.threshold,
        n_resamples=args.resamples,
        seed=args.seed,
        memory_limit=args.memory_limit,
        adjust=args.adjust,
        clusters=args.cluster,
        correction=args.correction,
        strata=args.stratum,
        shares=shares(args.shares),
    )
    return _finish({"source": args.file, "label": args.label}, report, args)


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
            "probabilities or scores). Each metric gets value, low, high and method;\n"
            "'pairs' holds the paired difference of every two models with its test (MOVER for\n"
            "the AUC, McNemar for accuracy, paired t for Brier and log loss, BCa bootstrap\n"
            "otherwise), p-values adjusted by Holm within each metric (--adjust), and the best\n"
            "sets for accuracy and AUC. With --cluster COLUMN: clustered intervals, se_iid, se_cluster,\n"
            "design_effect, icc and effective_n for every mean; a cluster bootstrap for AUC, F1."
        ),
    )
    p.add_argument(
        "file",
        metavar="FILE",
        help="CSV or Parquet file of predictions; - for stdin; with --engine a folder or glob",
    )
    p.add_argument("--label", default="label", help="name of the label column (default: label)")
    p.add_argument("--models", default=None, help="comma-separated model columns (default: all)")
    p.add_argument(
        "--scores",
        nargs="?",
        const=_ALL,
        default=None,
        metavar="COLS",
        help="read these model columns (comma-separated; all when none given) as scores",
    )
    p.add_argument(
        "--labels",
        nargs="?",
        const=_ALL,
        default=None,
        metavar="COLS",
        help="read these model columns (comma-separated; all when none given) as labels",
    )
    choice_option(
        p,
        "--adjust",
        ["holm", "hommel", "bonferroni", "bh", "by", "none"],
        "holm",
        "adjustment of the pairs' p-values within each metric: holm (default), hommel, "
        "bonferroni (family-wise), bh, by (false discovery rate) or none",
    )
    p.add_argument(
        "--threshold", type=float, default=0.5, help="scores >= it count as positive (0.5)"
    )
    alpha_option(p, level=True)
    p.add_argument(
        "--resamples", type=int, default=2000, help="resamples of the paired bootstrap (2000)"
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the bootstrap")
    _operating_options(p)
    p.add_argument("--plot", default=None, metavar="OUT.png", help="write a forest plot")
    p.add_argument(
        "--cluster", default=None, metavar="COLUMN", help="column of cluster ids (clustered items)"
    )
    p.add_argument("--stratum", default=None, metavar="COLUMN", help="column of strata")
    p.add_argument(
        "--shares", default=None, help="population shares of the strata, e.g. A=0.6,B=0.4"
    )
    choice_option(
        p,
        "--correction",
        ["CR1", "CR0"],
        "CR1",
        "small-sample factor G/(G-1) of the cluster-robust variance, or none",
    )
    choice_option(
        p,
        "--engine",
        ["duckdb", "dask"],
        None,
        "compute out of core (files larger than memory; FILE may be a folder or a glob)",
    )
    p.add_argument(
        "--memory-limit",
        default=None,
        metavar="SIZE",
        help="memory limit of the duckdb engine, e.g. 2GB (it spills to disk beyond)",
    )


def _probabilities(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers such as 0.9,0.95, got {text!r}"
        ) from None
    if not all(0 <= v <= 1 for v in values):
        raise argparse.ArgumentTypeError(f"expected numbers in [0, 1], got {text!r}")
    return values


def _operating_options(p) -> None:
    """The options of issue 28 (operating points, partial AUC, calibration, tuned threshold)."""
    p.add_argument(
        "--at-specificity",
        type=_probabilities,
        default=None,
        metavar="S[,S...]",
        help="sensitivity at these specificities, bootstrap interval (score models)",
    )
    p.add_argument(
        "--at-sensitivity",
        type=_probabilities,
        default=None,
        metavar="S[,S...]",
        help="specificity at these sensitivities, bootstrap interval (score models)",
    )
    p.add_argument(
        "--partial-auc",
        default=None,
        metavar="LO:HI",
        help="McClish-standardised partial AUC over specificities LO..HI, e.g. 0.8:1",
    )
    p.add_argument(
        "--calibration",
        action="store_true",
        help="debiased calibration error, Spiegelhalter's z, calibration slope and intercept",
    )
    choice_option(p, "--threshold-tuned", ["accuracy", "balanced_accuracy", "f1"], None, "--threshold was chosen on this file to maximise this metric: add split and "
        "cross-fit reports (threshold chosen on other items) and a note")  # fmt: skip
