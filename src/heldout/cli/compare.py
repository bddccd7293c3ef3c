"""``heldout compare`` and ``heldout size compare``: two models on one test set."""

from __future__ import annotations

import argparse

from heldout.cli import calculator


def _score(text: str, name: str) -> tuple[int, int]:
    """Parse ``"96/100"`` into ``(96, 100)``; ValueError naming ``name`` otherwise."""
    parts = str(text).strip().split("/")
    if len(parts) != 2:
        raise ValueError(f"{name} must look like CORRECT/TOTAL (for example 96/100), got {text!r}")
    try:
        correct, total = (int(p.strip()) for p in parts)
    except ValueError:
        raise ValueError(
            f"{name} must look like CORRECT/TOTAL with whole numbers, got {text!r}"
        ) from None
    if total < 1 or correct < 0:
        raise ValueError(f"{name} needs TOTAL >= 1 and CORRECT >= 0, got {text!r}")
    if correct > total:
        raise ValueError(f"{name}: CORRECT must not exceed TOTAL, got {text!r}")
    return correct, total


def _run_compare(args: argparse.Namespace) -> dict:
    from heldout.compare import (
        chi2_test,
        fisher_test,
        mcnemar_exact,
        paired_prob_better,
        prob_better,
    )
    from heldout.posterior import BetaPosterior

    ka, na = _score(args.a, "--a")
    kb, nb = _score(args.b, "--b")
    prior = args.prior
    post_a = BetaPosterior.from_counts(ka, na, prior)
    post_b = BetaPosterior.from_counts(kb, nb, prior)
    out = {
        "accuracy_a": ka / na,
        "accuracy_b": kb / nb,
        "prior": prior,
        "posterior_mean_a": post_a.mean,
        "posterior_sd_a": post_a.sd,
        "posterior_mean_b": post_b.mean,
        "posterior_sd_b": post_b.sd,
        "p_a_better": prob_better(ka, na, kb, nb, prior=prior),
        "alternative": args.alternative,
        "fisher_p": fisher_test(ka, na, kb, nb, alternative=args.alternative),
        "chi2_p": chi2_test(ka, na, kb, nb, alternative=args.alternative),
    }
    only = (args.only_a_correct, args.only_b_correct)
    if (only[0] is None) != (only[1] is None):
        raise ValueError("--only-a-correct and --only-b-correct must be given together")
    if only[0] is not None:
        b, c = only
        if b < 0 or c < 0:
            raise ValueError(f"--only-a-correct and --only-b-correct must be >= 0, got {b} and {c}")
        if na != nb:
            raise ValueError(
                f"paired counts need both models scored on the same items, but --a has {na} and --b {nb}"
            )
        if ka - kb != b - c:
            raise ValueError(
                f"--only-a-correct minus --only-b-correct ({b} - {c}) must equal the difference "
                f"of correct counts ({ka} - {kb})"
            )
        if b > ka or c > kb or b + c > na:
            raise ValueError("--only-a-correct/--only-b-correct are inconsistent with --a and --b")
        out["only_a_correct"] = b
        out["only_b_correct"] = c
        out["mcnemar_p"] = mcnemar_exact(b, c, alternative=args.alternative)
        out["paired_p_a_better"] = paired_prob_better(b, c, prior=prior)
    return out


def _run_size(args: argparse.Namespace) -> dict:
    from heldout.compare import pick_best_probability, required_size, required_size_exact

    n = required_size(args.accuracy, args.gap, args.models)
    if args.models != int(args.models):
        raise ValueError(f"--models must be a whole number, got {args.models}")
    models = int(args.models)
    return {
        "accuracy": args.accuracy,
        "gap": args.gap,
        "models": models,
        "n": n,
        "pick_best_prob_at_n": pick_best_probability(args.accuracy, args.gap, n, models),
        "power": args.power,
        "n_exact": required_size_exact(args.accuracy, args.gap, models, power=args.power),
    }


def register(top, size) -> None:
    """Add ``heldout compare`` and ``heldout size compare``."""
    p = calculator(
        top,
        "compare",
        help="is model A better than model B on the same test set?",
        func=_run_compare,
        epilog=(
            "example: heldout compare --a 96/100 --b 98/100 --json\n"
            "p_a_better is the posterior probability that A's accuracy exceeds B's (independent\n"
            "Beta posteriors); fisher_p, chi2_p and mcnemar_p are p-values for --alternative\n"
            "(default 'less': A worse, as in the source article). A p-value is not the\n"
            "probability that a model is better."
        ),
    )
    p.add_argument("--a", required=True, help="model A's score as CORRECT/TOTAL, e.g. 96/100")
    p.add_argument("--b", required=True, help="model B's score as CORRECT/TOTAL, e.g. 98/100")
    p.add_argument("--prior", default="uniform", help="uniform (default), jeffreys or haldane")
    p.add_argument(
        "--alternative",
        default="less",
        choices=["less", "greater", "two-sided"],
        help="alternative of the tests, about A relative to B (default: less = A worse)",
    )
    p.add_argument(
        "--only-a-correct", type=int, default=None, help="items only A got right (paired data)"
    )
    p.add_argument(
        "--only-b-correct", type=int, default=None, help="items only B got right (paired data)"
    )

    s = calculator(
        size,
        "compare",
        help="test-set size to tell the best model from its rivals",
        func=_run_size,
        epilog=(
            "n is the source article's N = models^2 p (1 - p) / gap^2; n_exact is the smallest N at\n"
            "which the truly best model (accuracy p, each rival p - gap, independent test sets)\n"
            "gets the top score with probability --power."
        ),
    )
    s.add_argument("--accuracy", type=float, required=True, help="accuracy p of the best model")
    s.add_argument("--gap", type=float, required=True, help="gap sigma to the second-best model")
    s.add_argument(
        "--models", type=float, default=1, help="n_m, the number of similar rivals (default 1)"
    )
    s.add_argument(
        "--power", type=float, default=0.95, help="probability for n_exact (default 0.95)"
    )
