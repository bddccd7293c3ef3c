"""``heldout compare`` and ``heldout size compare``: models on one test set.

``heldout compare --predictions FILE`` reads a CSV of predictions (a ``label`` column and
one column per model; ``-`` for standard input) and reports every model's accuracy with
its exact interval, McNemar's test and Tango's interval for every pair (Holm-adjusted),
the best set and the paired P(best).  ``heldout compare --a 96/100 --b 98/100`` is the
older two-score form.  ``heldout size compare --paired`` sizes a shared test set.
"""

from __future__ import annotations

import argparse
import sys

from heldout.cli import alpha_option, calculator, choice_option


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


def _probability_arg(value: float, name: str) -> float:
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {value}")
    return value


def _run_predictions(args: argparse.Namespace) -> dict:
    import numpy as np

    from heldout.accuracy.bounds import interval
    from heldout.comparison.best import best_set, prob_best_paired
    from heldout.comparison.mcs import MCS_MIN_ITEMS, MCS_MIN_ITEMS_PER_MODEL, model_confidence_set
    from heldout.comparison.multiple import all_pairs
    from heldout.comparison.omnibus import cochran_q
    from heldout.comparison.predictions import read_predictions

    alpha = _probability_arg(args.alpha, "--alpha")
    pred = read_predictions(args.predictions, label=args.label, threshold=args.threshold)
    names, correct = pred.names, pred.correct
    n = correct.shape[0]
    right = correct.sum(axis=0)
    low, high = interval(right, n, alpha=alpha, method="clopper-pearson")
    pairs = all_pairs(correct, alpha=alpha, method="holm")
    chosen = best_set(correct, alpha=alpha)
    pbest = prob_best_paired(correct, prior=args.prior)  # the same named prior as --a/--b
    omnibus = cochran_q(correct)
    mcs = model_confidence_set(1 - correct.astype(float), alpha=alpha) if n >= 2 else None
    out = {
        "n": int(n),
        "alpha": alpha,
        "threshold": pred.threshold,
        "models": [
            {
                "name": name,
                "kind": pred.kinds[j],
                "correct": int(right[j]),
                "accuracy": float(right[j] / n),
                "low": float(np.atleast_1d(low)[j]),
                "high": float(np.atleast_1d(high)[j]),
            }
            for j, name in enumerate(names)
        ],
        "pairs": [
            {
                "a": names[int(a)],
                "b": names[int(b)],
                "a_only": int(pairs.a_only[i]),
                "b_only": int(pairs.b_only[i]),
                "p_value": float(pairs.p_value[i]),
                "p_adjusted": float(pairs.p_adjusted[i]),
                "diff": float(pairs.diff[i]),
                "diff_low": float(pairs.diff_low[i]),
                "diff_high": float(pairs.diff_high[i]),
            }
            for i, (a, b) in enumerate(zip(pairs.a, pairs.b, strict=True))
        ],
        "best": names[int(np.argmax(right))],
        "best_set": [names[int(j)] for j in chosen.models],
        "prior": args.prior,
        "prob_best": {name: float(pbest.prob[j]) for j, name in enumerate(names)},
        "cochran_q": {
            "statistic": omnibus.statistic,
            "df": omnibus.df,
            "p_value": omnibus.p_value,
        },
        # the model confidence set resamples items: none with a single item
        "mcs": None if mcs is None else [names[int(j)] for j in mcs.models],
        "mcs_p_values": None
        if mcs is None
        else {name: float(mcs.p_values[j]) for j, name in enumerate(names)},
    }
    k = len(names)
    if mcs is not None and (n < MCS_MIN_ITEMS or n < MCS_MIN_ITEMS_PER_MODEL * k):
        out["mcs_note"] = (
            f"not yet asymptotic: {n:,} items for {k} models (its level was measured above "
            f"alpha below {MCS_MIN_ITEMS} items or {MCS_MIN_ITEMS_PER_MODEL} items per model)"
        )
    if not args.json:
        sys.stdout.write(_table(out))
        return {}
    return out


def _table(res: dict) -> str:
    """A readable report of :func:`_run_predictions`'s result (the line break is added by main)."""
    pct = f"{100 * (1 - res['alpha']):g}%"
    in_set = set(res["best_set"])
    width = max(5, *(len(m["name"]) for m in res["models"]))
    lines = [
        f"{res['n']:,} items, {len(res['models'])} models; {pct} intervals: exact "
        "(Clopper-Pearson) for accuracies, Tango's for differences",
        "",
        f"{'model':<{width}}  {'correct':>9}  {'accuracy':>8}  {pct + ' interval':>20}  "
        f"{'P(best)':>7}  best set",
    ]
    for m in sorted(res["models"], key=lambda m: -m["accuracy"]):
        lines.append(
            f"{m['name']:<{width}}  {m['correct']:>9,}  {m['accuracy']:>8.4f}  "
            f"[{m['low']:.4f}, {m['high']:.4f}]      {res['prob_best'][m['name']]:>7.4f}  "
            f"{'yes' if m['name'] in in_set else 'no'}"
        )
    read = [m["name"] for m in res["models"] if m["kind"] == "probabilities"]
    if read:
        lines.append(
            f"read as probabilities of class 1, predicting 1 at p >= {res['threshold']:g}: "
            + ", ".join(read)
        )
    lines += [
        "",
        f"best: {res['best']}; models that cannot be ruled out as best (alpha = "
        f"{res['alpha']:g}): {', '.join(res['best_set'])}",
        f"model confidence set (Hansen, Lunde and Nason; 0/1 losses, alpha = "
        f"{res['alpha']:g}): "
        + (", ".join(res["mcs"]) if res["mcs"] is not None else "needs at least 2 items")
        + (f" ({res['mcs_note']})" if res.get("mcs_note") else ""),
        f"Cochran's Q (all accuracies equal?): Q = {res['cochran_q']['statistic']:.3f}, "
        f"df = {res['cochran_q']['df']}, p = {res['cochran_q']['p_value']:.3g}",
        "",
        "pairs: McNemar's exact test, p-values adjusted for all pairs by Holm",
        f"{'a':<{width}}  {'b':<{width}}  {'a only':>7}  {'b only':>7}  {'p':>9}  "
        f"{'p (Holm)':>9}  {'a - b':>8}  {pct + ' interval':>20}",
    ]
    for p in res["pairs"]:
        lines.append(
            f"{p['a']:<{width}}  {p['b']:<{width}}  {p['a_only']:>7,}  {p['b_only']:>7,}  "
            f"{p['p_value']:>9.3g}  {p['p_adjusted']:>9.3g}  {p['diff']:>+8.4f}  "
            f"[{p['diff_low']:+.4f}, {p['diff_high']:+.4f}]"
        )
    lines.append(
        f"(P(best) is the paired posterior; its Dirichlet prior gives every pair's share of "
        f"disagreements the {res['prior']} Beta prior, as --prior does for --a/--b; --json "
        "prints everything as one object)"
    )
    return "\n".join(lines)


def _run_compare(args: argparse.Namespace) -> dict:
    if args.predictions is not None:
        if args.a is not None or args.b is not None:
            raise ValueError("give either --predictions FILE or --a and --b, not both")
        return _run_predictions(args)
    if args.a is None or args.b is None:
        raise ValueError("give --predictions FILE, or both --a CORRECT/TOTAL and --b CORRECT/TOTAL")
    from heldout.accuracy.posterior import BetaPosterior
    from heldout.comparison.compare import (
        chi2_test,
        fisher_test,
        mcnemar_exact,
        paired_prob_better,
        prob_better,
    )

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
    if args.paired:
        return _run_size_paired(args)
    if args.accuracy is None or args.gap is None:
        raise ValueError(
            "give --accuracy and --gap (or --paired with --accuracy-a, --accuracy-b and "
            "--disagreement)"
        )
    from heldout.comparison.compare import pick_best_probability, required_size, required_size_exact

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


def _run_size_paired(args: argparse.Namespace) -> dict:
    missing = [
        flag
        for flag, value in (
            ("--accuracy-a", args.accuracy_a),
            ("--accuracy-b", args.accuracy_b),
            ("--disagreement", args.disagreement),
        )
        if value is None
    ]
    if missing:
        raise ValueError(f"--paired needs {', '.join(missing)}")
    from heldout.comparison.paired import paired_size

    res = paired_size(
        args.accuracy_a,
        args.accuracy_b,
        args.disagreement,
        power=args.power,
        alpha=args.alpha,
        alternative=args.alternative,
    )
    return {
        "accuracy_a": args.accuracy_a,
        "accuracy_b": args.accuracy_b,
        "disagreement": args.disagreement,
        "power": args.power,
        "alpha": args.alpha,
        "alternative": args.alternative,
        "n": res.n,
        "n_unpaired": res.n_unpaired,
        "n_first": res.n_first,
        "n_normal": res.n_normal,
        "power_at_n": res.power,
    }


def register(top, size) -> None:
    """Add ``heldout compare`` and ``heldout size compare``."""
    p = calculator(
        top,
        "compare",
        help="compare models on one test set (from predictions, or two scores)",
        func=_run_compare,
        epilog=(
            "examples:\n"
            "  heldout compare --predictions preds.csv --json   (a label column, one column per model)\n"
            "  heldout compare --a 96/100 --b 98/100 --json\n"
            "With --predictions: accuracies with exact intervals, McNemar's exact test for every\n"
            "pair (Holm-adjusted) with Tango's interval for each difference, the best set (models\n"
            "that cannot be ruled out as best, at --alpha), the paired P(best), Cochran's Q\n"
            "(are all accuracies equal?) and the model confidence set of the 0/1 losses.\n"
            "With --a/--b:\n"
            "p_a_better is the posterior probability that A's accuracy exceeds B's (independent\n"
            "Beta posteriors); fisher_p, chi2_p and mcnemar_p are p-values for --alternative\n"
            "(default 'less': A worse, as in the source article). A p-value is not the\n"
            "probability that a model is better."
        ),
    )
    p.add_argument(
        "--predictions",
        metavar="FILE",
        default=None,
        help="CSV with a label column and one column per model: predicted labels, or "
        "probabilities of class 1 beside labels 0/1 (read as heldout evaluate reads them; '-': stdin)",
    )
    p.add_argument("--label", default="label", help="name of the column of true labels")
    p.add_argument(
        "--threshold",
        type=float,
        default=0.5,
        help="with --predictions: a column of probabilities predicts class 1 at p >= this (0.5)",
    )
    alpha_option(
        p,
        level=True,
        help="error probability: intervals at 1 - alpha, tests and the best set at level alpha",
    )
    p.add_argument("--a", default=None, help="model A's score as CORRECT/TOTAL, e.g. 96/100")
    p.add_argument("--b", default=None, help="model B's score as CORRECT/TOTAL, e.g. 98/100")
    p.add_argument("--prior", default="uniform", help="uniform (default), jeffreys or haldane")
    choice_option(
        p,
        "--alternative",
        ["less", "greater", "two-sided"],
        "less",
        "alternative of the tests, about A relative to B (default: less = A worse)",
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
            "gets the top score with probability --power.\n"
            "With --paired: the smallest shared test set on which McNemar's exact test at --alpha\n"
            "tells A from B with probability --power (n: power stays above it for all larger n;\n"
            "n_first: first reaches it), and n_unpaired, the size per model if the pairing is\n"
            "ignored. Example: heldout size compare --paired --accuracy-a 0.92 --accuracy-b 0.90\n"
            "--disagreement 0.06 --power 0.8 --json"
        ),
    )
    s.add_argument("--accuracy", type=float, default=None, help="accuracy p of the best model")
    s.add_argument("--gap", type=float, default=None, help="gap sigma to the second-best model")
    s.add_argument(
        "--models", type=float, default=1, help="n_m, the number of similar rivals (default 1)"
    )
    s.add_argument(
        "--power", type=float, default=0.95, help="probability for n_exact, or power (0.95)"
    )
    s.add_argument(
        "--paired", action="store_true", help="size a shared test set for McNemar's test"
    )
    s.add_argument("--accuracy-a", type=float, default=None, help="accuracy of model A (--paired)")
    s.add_argument("--accuracy-b", type=float, default=None, help="accuracy of model B (--paired)")
    s.add_argument(
        "--disagreement",
        type=float,
        default=None,
        help="share of items exactly one model gets right (--paired)",
    )
    s.add_argument("--alpha", type=float, default=0.05, help="level of the test (--paired)")
    choice_option(
        s,
        "--alternative",
        ["two-sided", "greater", "less"],
        "two-sided",
        "alternative of the test (--paired; default two-sided)",
    )
