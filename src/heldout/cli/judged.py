"""``heldout judged`` and ``heldout size gold``: a score graded by a model, corrected by gold labels.

``heldout judged`` takes the counts of 0/1 grades (the gold items' table of people's and
the judge's grades, and the judge's passes on the other items) and reports the PPI++ and
PPI intervals, the gold-only exact interval, the Rogan-Gladen interval and the judge-only
one, with the interval the book recommends for these counts
(:mod:`heldout.judged.ppi`, :mod:`heldout.judged.misclassification`).  ``heldout size gold``
gives the gold labels needed for a half-width (:func:`heldout.judged.gold_for_half_width`).
"""

from __future__ import annotations

import warnings

from heldout.cli import alpha_option, calculator, count, probability, real

_EPILOG = """\
The gold items are graded by people and by the judge; the judge alone grades the others.
recommended is PPI++ when judge and people disagree on at least 30 gold items and the
rarer kind of gold grade appears at least 50 times, the gold-only exact interval otherwise
(where the book's simulations found PPI's normal interval undercovering).

example: heldout judged --right-passed 160 --right-failed 5 --wrong-passed 25 \\
         --wrong-failed 10 --judge-passed 1700 --judge-items 2000 --json
"""


def _interval(r) -> dict:
    return {"estimate": r.estimate, "low": r.low, "high": r.high}


def _run(args) -> dict:
    from heldout.accuracy.bounds import interval
    from heldout.judged.misclassification import rogan_gladen_from_counts
    from heldout.judged.ppi import MIN_DISAGREEMENTS, MIN_EACH_KIND, ppi_from_counts

    table = [[args.right_passed, args.right_failed], [args.wrong_passed, args.wrong_failed]]
    n = sum(map(sum, table))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the limits are reported as fields below
        tuned = ppi_from_counts(table, args.judge_passed, args.judge_items, alpha=args.alpha)
        plain = ppi_from_counts(
            table, args.judge_passed, args.judge_items, alpha=args.alpha, weight=1.0
        )
        try:
            rg = _interval(
                rogan_gladen_from_counts(
                    table, args.judge_passed, args.judge_items, alpha=args.alpha
                )
            )
        except ValueError as exc:
            rg = {"refused": str(exc)}
    right = args.right_passed + args.right_failed
    low, high = interval(right, n, alpha=args.alpha, method="clopper-pearson")
    gold = {"estimate": right / n, "low": float(low), "high": float(high)}
    rarer = min(right, n - right)
    use_ppi = tuned.disagreements >= MIN_DISAGREEMENTS and rarer >= MIN_EACH_KIND
    judged = args.right_passed + args.wrong_passed + args.judge_passed
    return {
        "gold_items": n,
        "judge_items": args.judge_items,
        "disagreements": tuned.disagreements,
        "rarer_gold_grade": rarer,
        "recommended": "ppi++" if use_ppi else "gold-only exact",
        "recommended_interval": _interval(tuned) if use_ppi else gold,
        "ppi++": {**_interval(tuned), "weight": tuned.weight},
        "ppi": _interval(plain),
        "gold_only_exact": gold,
        "rogan_gladen": rg,
        "judge_only_mean": judged / (n + args.judge_items),
        "alpha": args.alpha,
    }


def _run_size(args) -> dict:
    from heldout.judged.judge_sizing import gold_for_half_width

    plan = gold_for_half_width(
        args.half_width,
        args.rate,
        args.sensitivity,
        args.specificity,
        judge_items=args.judge_items,
        alpha=args.alpha,
    )
    return {
        "gold_items": plan.gold_items,
        "gold_items_without_judge": plan.classical_items,
        "gold_items_with_unlimited_judge_items": plan.limit_items,
        "correlation": plan.correlation,
        "judge_rate": plan.judge_rate,
        "half_width": plan.half_width,
        "alpha": plan.alpha,
    }


def register(top, size) -> None:
    """Add ``heldout judged`` and ``heldout size gold``."""
    p = calculator(
        top,
        "judged",
        help="a 0/1 score graded by a model (an LLM judge), corrected by gold labels",
        func=_run,
        epilog=_EPILOG,
    )
    for option, text in (
        ("--right-passed", "gold items people called right and the judge passed"),
        ("--right-failed", "gold items people called right and the judge failed"),
        ("--wrong-passed", "gold items people called wrong and the judge passed"),
        ("--wrong-failed", "gold items people called wrong and the judge failed"),
        ("--judge-passed", "items graded by the judge only that it passed"),
        ("--judge-items", "items graded by the judge only"),
    ):
        p.add_argument(option, type=count, required=True, help=text)
    alpha_option(p, level=True, help="one minus the confidence level")

    p = calculator(
        size,
        "gold",
        help="gold labels for a half-width when a judge grades the other items",
        func=_run_size,
        epilog="example: heldout size gold --half-width 0.02 --rate 0.8 --sensitivity 0.9",
    )
    p.add_argument("--half-width", type=real, required=True, help="target half-width")
    p.add_argument("--rate", type=probability, required=True, help="expected score (0..1)")
    p.add_argument(
        "--sensitivity",
        type=probability,
        required=True,
        help="share of right answers the judge passes",
    )
    p.add_argument(
        "--specificity",
        type=probability,
        default=None,
        help="share of wrong answers the judge fails (default: the sensitivity)",
    )
    p.add_argument(
        "--judge-items",
        type=count,
        default=None,
        help="items the judge alone will grade (default: as many as needed)",
    )
    alpha_option(p, level=True, help="one minus the confidence level")
