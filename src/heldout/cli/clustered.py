"""``heldout clustered FILE --cluster COLUMN`` and ``heldout size clustered``: clustered test items.

``heldout clustered`` reads a CSV file of per-item results with a cluster column and
prints the mean score with its independent-item and cluster-robust standard errors,
the design effect, the intra-cluster correlation and the clustered interval (see the
chapter "When test items are not independent").  The file holds either

* a label column (``label``, or ``--label NAME``) and one column of predicted labels per
  model (every other column, or those named with ``--model``): the score of an item is
  1 when the prediction equals the label; or
* a per-item score column named with ``--score`` (1/0 for correct/wrong, or any loss).

A prediction column of fractions (probabilities or scores, not predicted labels) is
refused: compared with the labels it would count nearly every item wrong.  ``--scores``
reads the prediction columns as probabilities of class 1 (labels 0/1), predicting 1 at
``--threshold`` (0.5) or above.  Labels must be text or finite numbers below ``2**62``
in magnitude (``nan`` is not a label).

With one model the result's keys are at the top level (``accuracy`` or ``mean``,
``se_iid``, ``se_cluster``, ``design_effect``, ``icc``, ``effective_n``, ``low``,
``high``...); with several, under ``models`` by name, with ``pairs`` holding each
paired difference and its clustered interval.  ``--stratum COLUMN --shares A=0.6,B=0.4``
adds the stratified estimate for a population with those shares; ``--bootstrap N`` adds
the cluster-bootstrap percentile interval.

``heldout evaluate FILE --cluster COLUMN`` reports the same fields for every metric that
is a mean (and cluster-bootstrap intervals for the AUC and F1); this command stays as its
alias for the accuracy or a per-item score.
"""

from __future__ import annotations

import argparse

from heldout.cli import UsageError, alpha_option, calculator, choice_option
from heldout.cli._parsing import shares as _shares

#: Largest CSV file read (bytes); larger files should be summarised first.
MAX_BYTES = 2_000_000_000


def _read_csv(path: str) -> dict[str, list[str]]:
    """Columns of a CSV file with a header row, as lists of strings."""
    import csv
    import os

    if not os.path.isfile(path):
        raise UsageError(f"FILE {path!r} does not exist or is not a file")
    if os.path.getsize(path) > MAX_BYTES:
        raise UsageError(f"FILE {path!r} is larger than {MAX_BYTES:,} bytes")
    from heldout import _files

    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            head = _files.line_of(fh, f"FILE {path!r}", 1)
            _files.check_header(next(csv.reader([head]), []), f"FILE {path!r}")
            fh.seek(0)
            rows = list(csv.reader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(f"FILE {path!r} could not be read as CSV: {exc}") from None
    rows = [r for r in rows if r and any(c.strip() for c in r)]
    if len(rows) < 2:
        raise UsageError(f"FILE {path!r} needs a header row and at least one row of data")
    header = [h.strip() for h in rows[0]]
    if len(set(header)) != len(header):
        raise UsageError(f"FILE {path!r}: column names must be distinct, got {header}")
    body = rows[1:]
    bad = next((i for i, r in enumerate(body) if len(r) != len(header)), None)
    if bad is not None:
        raise UsageError(
            f"FILE {path!r}: row {bad + 2} has {len(body[bad])} fields, the header has {len(header)}"
        )
    return {h: [r[j].strip() for r in body] for j, h in enumerate(header)}


def _column(columns: dict, name: str, option: str) -> list[str]:
    if name not in columns:
        raise UsageError(
            f"{option} {name!r} is not a column of FILE (columns: {', '.join(columns)})"
        )
    values = columns[name]
    if any(v == "" for v in values):
        raise UsageError(f"{option} column {name!r} has empty cells")
    return values


def _numbers(values: list[str], option: str, name: str):
    import numpy as np

    try:
        arr = np.array([float(v) for v in values])
    except ValueError:
        raise UsageError(f"{option} column {name!r} must hold numbers") from None
    if not np.all(np.isfinite(arr)):
        raise UsageError(f"{option} column {name!r} must hold finite numbers")
    return arr


def _as_numbers(values: list[str]):
    """The column as floats, or None when some cell is not a number (text labels)."""
    import numpy as np

    try:
        return np.array([float(x) for x in values])
    except ValueError:
        return None


def _labels_column(values: list[str], option: str, name: str):
    """A label column: text, or numbers that are finite (``nan`` is not a label)."""
    import numpy as np

    from heldout._inputs import label_range

    arr = _as_numbers(values)
    if arr is not None and not np.all(np.isfinite(arr)):
        bad = values[int(np.flatnonzero(~np.isfinite(arr))[0])]
        raise UsageError(f"{option} column {name!r} holds {bad!r}, which is not a label")
    if arr is not None:
        label_range(arr, f"{option} column {name!r}")  # 2**63, 1e300: not a class label
    return values


def _same(a: list[str], b: list[str], model: str):
    """Element-wise equality of a prediction column ``a`` and the labels ``b``.

    Numerically when both are numbers; a prediction column of fractions (scores or
    probabilities, not predicted labels) is refused: compared with whole-number labels
    it would count almost every item as wrong.
    """
    import numpy as np

    x, y = _as_numbers(a), _as_numbers(b)
    if x is not None and y is not None:
        from heldout._inputs import label_range

        label_range(x, f"--model column {model!r}")
        frac = x != np.round(x)
        if np.any(frac):
            raise UsageError(
                f"--model column {model!r} holds fractions such as {a[int(np.flatnonzero(frac)[0])]} "
                "(scores or probabilities, not predicted labels); give --scores to read the "
                "prediction columns as probabilities of class 1 (cut at --threshold)"
            )
        return x == y
    if y is not None:  # numeric labels beside a text column: that column is no model
        raise UsageError(
            f"column {model!r} holds text, but the labels are numbers: it is not a column of "
            "predicted labels (name the model columns with --model, the clusters with --cluster)"
        )
    return np.array(a) == np.array(b)


def _from_scores(a: list[str], labels: list[str], model: str, threshold: float):
    """Correctness of a column of probabilities of class 1, cut at ``threshold``."""
    import numpy as np

    p, y = _as_numbers(a), _as_numbers(labels)
    if p is None or not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise UsageError(f"--scores: column {model!r} must hold probabilities between 0 and 1")
    if y is None or not np.all((y == 0) | (y == 1)):
        raise UsageError("--scores needs a label column of 0 and 1 (two classes)")
    return (p >= threshold) == (y == 1)


def _fields(result, key: str) -> dict:
    d = result.to_dict()
    return {
        "n": d["n"],
        "clusters": d["clusters"],
        key: d["estimate"],
        "se_iid": d["se_iid"],
        "se_cluster": d["se_cluster"],
        "design_effect": d["design_effect"],
        "icc": d["icc"],
        "effective_n": d["effective_n"],
        "low": d["low"],
        "high": d["high"],
        "method": d["method"],
        "correction": d["correction"],
    }


def _item_scores(args: argparse.Namespace, columns: dict) -> dict:
    """Each model's per-item score (1/0 correctness, or the ``--score`` column)."""
    used = {args.cluster} | ({args.stratum} if args.stratum else set())
    if args.score is not None:
        if args.model:
            raise UsageError("give either --score or --model, not both")
        return {
            args.score: _numbers(_column(columns, args.score, "--score"), "--score", args.score)
        }
    labels = _labels_column(_column(columns, args.label, "--label"), "--label", args.label)
    names = args.model or [c for c in columns if c not in used | {args.label}]
    if not names:
        raise UsageError(
            "FILE has no prediction columns besides the label and cluster columns; "
            "add one column per model, or give a per-item score column with --score"
        )
    if args.scores:
        if not 0 < args.threshold < 1:
            raise UsageError(f"--threshold must be between 0 and 1, got {args.threshold:g}")
        return {
            m: _from_scores(_column(columns, m, "--model"), labels, m, args.threshold).astype(float)
            for m in names
        }
    return {m: _same(_column(columns, m, "--model"), labels, m).astype(float) for m in names}


def _model_fields(args: argparse.Namespace, columns: dict, y, clusters) -> dict:
    """One model's clustered interval, with its bootstrap and stratified estimate if asked."""
    import numpy as np

    from heldout.dependent.clustered import cluster_bootstrap, clustered_mean
    from heldout.dependent.strata import stratified_mean

    alpha = args.alpha
    r = clustered_mean(y, clusters, alpha=alpha, correction=args.correction)
    binary = bool(np.all((y == 0) | (y == 1)))
    fields = _fields(r, "accuracy" if binary else "mean")
    fields["alpha"] = alpha
    if args.bootstrap:
        b = cluster_bootstrap(y, clusters, alpha=alpha, n_resamples=args.bootstrap, seed=args.seed)
        fields["bootstrap_low"], fields["bootstrap_high"] = b.low, b.high
    if args.stratum:
        strata = np.array(_column(columns, args.stratum, "--stratum"))
        s = stratified_mean(y, strata, _shares(args.shares), clusters=clusters, alpha=alpha)
        fields["stratified"] = {
            "estimate": s.estimate,
            "low": s.low,
            "high": s.high,
            "se": s.se,
            "strata": {
                str(k): {"n": n, "mean": m, "share": w}
                for k, n, m, w in zip(s.strata, s.sizes, s.means, s.shares, strict=True)
            },
        }
    return fields


def _pairs(args: argparse.Namespace, scores: dict, clusters) -> dict:
    """Every pair of models' clustered difference (and paired cluster bootstrap if asked)."""
    from heldout.dependent.clustered import clustered_difference, paired_cluster_bootstrap

    alpha = args.alpha
    names = list(scores)
    pairs = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            d = clustered_difference(scores[a], scores[b], clusters, alpha=alpha)
            entry = {
                "difference": d.estimate,
                "se_iid": d.se_iid,
                "se_cluster": d.se_cluster,
                "low": d.low,
                "high": d.high,
            }
            if args.bootstrap:
                pb = paired_cluster_bootstrap(
                    scores[a],
                    scores[b],
                    clusters,
                    alpha=alpha,
                    n_resamples=args.bootstrap,
                    seed=args.seed,
                )
                entry["bootstrap_low"], entry["bootstrap_high"] = pb.low, pb.high
            pairs[f"{a} - {b}"] = entry
    return pairs


def _run(args: argparse.Namespace) -> dict:
    import numpy as np

    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1, got {args.alpha:g}")
    if args.shares and not args.stratum:
        raise UsageError("--shares needs --stratum COLUMN")
    columns = _read_csv(args.file)
    clusters = np.array(_column(columns, args.cluster, "--cluster"))
    if args.score is None and args.cluster == args.label:
        raise UsageError(f"--cluster and --label both name column {args.label!r}")
    scores = _item_scores(args, columns)
    per_model = {name: _model_fields(args, columns, y, clusters) for name, y in scores.items()}
    if len(per_model) == 1:
        return {**next(iter(per_model.values())), "model": next(iter(per_model))}
    return {
        "n": len(clusters),
        "clusters": next(iter(per_model.values()))["clusters"],
        "alpha": args.alpha,
        "models": per_model,
        "pairs": _pairs(args, scores, clusters),
    }


def _run_size(args: argparse.Namespace) -> dict:
    from heldout.dependent.cluster_sizing import cheapest_design, clusters_for_half_width

    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1, got {args.alpha:g}")
    alpha = args.alpha
    if (args.accuracy is None) == (args.variance is None):
        raise UsageError("give exactly one of --accuracy and --variance")
    costs = (args.cost_cluster, args.cost_item)
    if (costs[0] is None) != (costs[1] is None):
        raise UsageError("--cost-cluster and --cost-item must be given together")
    kw = {
        "accuracy": args.accuracy,
        "variance": args.variance,
        "alpha": alpha,
        "method": args.method,
    }
    if args.cluster_size is not None:
        if costs[0] is not None:
            raise UsageError("give --cluster-size, or the two costs to choose it, not both")
        s = clusters_for_half_width(args.half_width, args.icc, args.cluster_size, **kw)
        out = s.to_dict()
    elif costs[0] is not None:
        d = cheapest_design(
            args.half_width,
            args.icc,
            costs[0],
            costs[1],
            max_cluster_size=args.max_cluster_size,
            **kw,
        )
        s = clusters_for_half_width(args.half_width, args.icc, d.cluster_size, **kw)
        out = {**s.to_dict(), "cost": d.cost, "optimal_cluster_size": d.optimum}
    else:
        raise UsageError("give --cluster-size, or --cost-cluster and --cost-item to choose it")
    out.update({"half_width": args.half_width, "icc": args.icc, "alpha": alpha})
    return out


def register(top, size) -> None:
    """Add ``heldout clustered`` and ``heldout size clustered``."""
    p = calculator(
        top,
        "clustered",
        help="mean score with clustered standard errors, design effect and ICC, from a CSV file",
        func=_run,
        epilog=(
            "example: heldout clustered predictions.csv --cluster writer --json\n"
            "FILE: a header row, a label column and one column of predicted labels per model,\n"
            "or a per-item score column (--score). Cluster ids may be numbers or text."
        ),
    )
    p.add_argument("file", metavar="FILE", help="CSV file, one row per test item")
    p.add_argument("--cluster", required=True, metavar="COLUMN", help="column of cluster ids")
    p.add_argument(
        "--label", default="label", metavar="COLUMN", help="label column (default: label)"
    )
    p.add_argument(
        "--model",
        action="append",
        metavar="COLUMN",
        help="a prediction column (repeatable; default: all others)",
    )
    p.add_argument(
        "--score", default=None, metavar="COLUMN", help="a per-item score column instead"
    )
    p.add_argument(
        "--scores",
        action="store_true",
        help="the prediction columns hold probabilities of class 1 (labels 0/1), not labels",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=0.5,
        help="with --scores: predict class 1 when the probability is at least this (0.5)",
    )
    p.add_argument("--stratum", default=None, metavar="COLUMN", help="column of strata")
    p.add_argument(
        "--shares",
        default=None,
        help="population shares of the strata, e.g. census=0.5,students=0.5",
    )
    alpha_option(p, level=True, help="one minus the confidence level")
    choice_option(p, "--correction", ["CR1", "CR0"], "CR1", "small-sample factor G/(G-1) or none")
    p.add_argument(
        "--bootstrap",
        type=int,
        default=0,
        metavar="N",
        help="also a cluster-bootstrap interval with N resamples",
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the bootstrap")

    p = calculator(
        size,
        "clustered",
        help="clusters and items for a target half-width when items come in clusters",
        func=_run_size,
        epilog=(
            "example: heldout size clustered --accuracy 0.9 --half-width 0.02 --icc 0.1 --cluster-size 5\n"
            "or choose the cluster size by cost: --cost-cluster 90 --cost-item 1 instead of --cluster-size"
        ),
    )
    p.add_argument("--accuracy", type=float, default=None, help="expected accuracy")
    p.add_argument(
        "--variance", type=float, default=None, help="per-item variance of a score (instead)"
    )
    p.add_argument(
        "--half-width", type=float, required=True, help="target half-width of the interval"
    )
    p.add_argument("--icc", type=float, required=True, help="intra-cluster correlation")
    p.add_argument("--cluster-size", type=int, default=None, help="items per cluster")
    p.add_argument("--cost-cluster", type=float, default=None, help="cost of one more cluster")
    p.add_argument(
        "--cost-item", type=float, default=None, help="cost of one more item in a cluster"
    )
    p.add_argument("--max-cluster-size", type=int, default=None, help="largest possible cluster")
    alpha_option(p, level=True, help="one minus the confidence level")
    choice_option(p, "--method", ["t", "normal"], "t", "Student t (default) or normal")
