"""``heldout accept`` and ``heldout size accuracy``: acceptance testing against a required accuracy."""

from __future__ import annotations

from heldout.cli import calculator, count, real


def _accept(args) -> dict:
    from heldout.accuracy.acceptance import accept

    return accept(args.correct, args.n, args.required, args.alpha).to_dict()


def _size(args) -> dict:
    from heldout.accuracy.acceptance import (
        exact_margin_size,
        normal_margin_size,
        power_size_exact,
        power_size_normal,
    )

    out = {
        "required": args.required,
        "margin": args.margin,
        "alpha": args.alpha,
        "n": normal_margin_size(args.required, args.margin, args.alpha),  # validates the input
    }
    try:
        first, stable = exact_margin_size(args.required, args.margin, args.alpha, rule="both")
        out["n_exact"], out["n_exact_first"] = stable, first
    except ValueError as exc:  # only the search-length guard can fail here
        out["n_exact"] = out["n_exact_first"] = None
        out["note"] = str(exc)
    if args.power is not None:
        true_accuracy = args.required + args.margin
        out["power"] = args.power
        out["n_power"] = power_size_normal(args.required, true_accuracy, args.alpha, args.power)
        try:
            out["n_power_exact"] = power_size_exact(
                args.required, true_accuracy, args.alpha, args.power
            )
        except ValueError as exc:  # the search-length guard
            out["n_power_exact"] = None
            out["note"] = str(exc)
    return out


def register(top, size) -> None:
    """Add ``heldout accept`` and ``heldout size accuracy``."""
    p = calculator(
        top,
        "accept",
        help="one-sided test that a model's accuracy exceeds a required accuracy",
        func=_accept,
        epilog=(
            "passes: the normal-approximation rule (accuracy > threshold = required + margin);\n"
            "passes_exact: the exact one-sided binomial test (p_value_exact <= alpha).\n"
            "For sensitivity (specificity) give the true positives (negatives) as --correct\n"
            "and the actual positives (negatives) as --n.\n"
            "example: heldout accept --correct 830 --n 1000 --required 0.8 --alpha 0.01"
        ),
    )
    p.add_argument("--correct", type=count, required=True, help="correctly classified test items")
    p.add_argument("--n", type=count, required=True, help="number of test items")
    p.add_argument("--required", type=real, required=True, help="required accuracy, in (0, 1)")
    p.add_argument("--alpha", type=real, default=0.05, help="significance level (default 0.05)")

    s = calculator(
        size,
        "accuracy",
        help="test size for a required accuracy and safety margin (normal and exact)",
        func=_size,
        epilog=(
            "n: normal approximation, ceil(z^2 required (1 - required) / margin^2);\n"
            "n_exact: smallest n from which on every accuracy >= required + margin passes\n"
            "the exact one-sided binomial test; n_exact_first: smallest n at which it does\n"
            "(exact sizes saw-tooth).  --power adds the sizes with which a model whose true\n"
            "accuracy is required + margin passes with that probability.\n"
            "example: heldout size accuracy --required 0.8 --margin 0.03 --alpha 0.01"
        ),
    )
    s.add_argument("--required", type=real, required=True, help="required accuracy, in (0, 1)")
    s.add_argument("--margin", type=real, required=True, help="safety margin, > 0")
    s.add_argument("--alpha", type=real, default=0.05, help="significance level (default 0.05)")
    s.add_argument(
        "--power", type=real, default=None, help="also size for this power at required + margin"
    )
