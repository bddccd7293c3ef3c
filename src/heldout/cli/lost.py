"""``heldout lost``: what can be said about the test accuracy when the test split is lost."""

from __future__ import annotations

from heldout.cli import alpha_option, calculator, count, real

_EPILOG = """\
The identity N p = N1 t + N2 a links the whole-data accuracy p, the training
accuracy t and the lost test accuracy a (N = N1 + N2).  Without t, a lies in
[max(0, (N p - N1)/N2), min(1, N p / N2)].  confidence_low/high bound the
model's accuracy on new data (Clopper-Pearson on the possible test counts).

example: heldout lost --data-accuracy 0.95 --train-rows 800 --test-rows 200 --json
"""


def _run(args) -> dict:
    from heldout.accuracy.lost import test_accuracy, test_accuracy_bounds, test_accuracy_interval

    low, high = test_accuracy_bounds(
        args.data_accuracy, args.train_rows, args.test_rows, rows=args.rows
    )
    result = {"test_accuracy_low": low, "test_accuracy_high": high}
    if args.train_accuracy is not None:
        result["test_accuracy"] = test_accuracy(
            args.data_accuracy, args.train_accuracy, args.train_rows, args.test_rows, rows=args.rows
        )
    ci_low, ci_high = test_accuracy_interval(
        args.data_accuracy,
        args.train_rows,
        args.test_rows,
        train_accuracy=args.train_accuracy,
        alpha=args.alpha,
        rows=args.rows,
    )
    result.update({"confidence_low": ci_low, "confidence_high": ci_high, "alpha": args.alpha})
    return result


def register(top, size) -> None:
    p = calculator(
        top,
        "lost",
        help="bounds on the test accuracy when the train/test split is lost",
        func=_run,
        epilog=_EPILOG,
    )
    p.add_argument(
        "--data-accuracy",
        type=real,
        required=True,
        help="accuracy p of the model on all N = N1 + N2 rows",
    )
    p.add_argument(
        "--train-rows", type=count, required=True, help="N1, the number of training rows"
    )
    p.add_argument(
        "--test-rows", type=count, required=True, help="N2, the number of (lost) test rows"
    )
    p.add_argument(
        "--train-accuracy",
        type=real,
        default=None,
        help="known or assumed training accuracy (1.0 for a model that memorises); adds test_accuracy",
    )
    p.add_argument("--rows", type=count, default=None, help="N, checked against N1 + N2 if given")
    alpha_option(p, level=True, help="one minus the confidence level of the interval")
