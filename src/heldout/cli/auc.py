"""``heldout size auc``: test-set size for an AUC interval of a given half-width, or a test's power."""

from __future__ import annotations

import argparse

from heldout.cli import calculator, choice_option


def _run(args: argparse.Namespace) -> dict:
    from heldout.metrics.auc_sizing import auc_power_size, auc_size

    if (args.half_width is None) == (args.power is None):
        raise ValueError(
            "give --half-width (size for an interval) or --power (size for a test), not both"
        )
    if args.half_width is not None:
        size = auc_size(
            args.auc, args.half_width, args.prevalence, args.alpha, args.method, args.interval
        )
        goal = {"half_width": args.half_width, "interval": args.interval}
    else:
        size = auc_power_size(
            args.auc, args.prevalence, args.null_auc, args.alpha, args.power, args.method
        )
        goal = {"null_auc": args.null_auc, "power": args.power}
    return {
        "n": size.n,
        "n_positive": size.n_positive,
        "n_negative": size.n_negative,
        "auc": args.auc,
        "prevalence": args.prevalence,
        **goal,
        "alpha": args.alpha,
        "se": size.se,
        "method": size.method,
    }


def register(top, size) -> None:
    """Add ``heldout size auc``."""
    p = calculator(
        size,
        "auc",
        help="test items needed for an AUC interval of a given half-width (or a test's power)",
        func=_run,
        epilog=(
            "example: heldout size auc --auc 0.85 --half-width 0.03 --prevalence 0.2 --json\n"
            "n_positive is the smallest number of positives at which the interval (--interval,\n"
            "default auto, the one heldout evaluate reports) is at most 2 x half-width long when\n"
            "the AUC and its variance are as planned; --interval wald gives z * se <= half-width.\n"
            "n_negative = ceil(n_positive (1 - prevalence) / prevalence). With --power: the size\n"
            "at which the one-sided test of AUC <= --null-auc at level alpha rejects with that\n"
            "probability. A plug-in size: it assumes the AUC and a model of the scores (--method)."
        ),
    )
    p.add_argument("--auc", type=float, required=True, help="anticipated AUC")
    p.add_argument(
        "--half-width", type=float, default=None, help="target half-width of the interval"
    )
    p.add_argument(
        "--prevalence", type=float, required=True, help="share of positives among the items"
    )
    p.add_argument("--alpha", type=float, default=0.05, help="error probability (default 0.05)")
    p.add_argument("--power", type=float, default=None, help="power of the test (instead of width)")
    p.add_argument(
        "--null-auc", type=float, default=0.5, help="AUC under the null hypothesis (0.5)"
    )
    choice_option(
        p,
        "--method",
        ["hanley-mcneil", "binormal", "obuchowski"],
        "hanley-mcneil",
        "variance model (default hanley-mcneil)",
    )
    p.add_argument(
        "--interval",
        default="auto",
        help="the interval whose half-width is sized: auto (default), effective, newcombe, "
        "hull, wilson-effective, max-variance, logit or wald",
    )
