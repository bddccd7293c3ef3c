"""``heldout compare-learners FILE``: several learners compared over many data sets.

FILE is a CSV table of scores: ``dataset,L1,L2,...`` (one row per data set) or
``dataset,fold,L1,L2,...`` (one row per fold; fold scores are averaged per data set).
Printed: Friedman's test with the Iman-Davenport F form, Nemenyi's critical difference
with each learner's mean rank and the groups it does not separate, and pairwise
Wilcoxon signed-rank (or sign) tests with Holm's (or another) adjustment, over all
pairs or against ``--control``.  ``--rope R`` adds the Bayesian signed-rank test
(P(A better), P(equivalent), P(B better) for each pair); ``--plot FILE`` writes the
critical-difference diagram.
"""

from __future__ import annotations

import argparse

from heldout.cli import alpha_option, calculator, choice_option, count, real


def _run(args: argparse.Namespace) -> dict:
    from heldout.resampling import many_datasets as md

    table = md.read_scores(args.file)
    better = not args.lower_is_better
    scores = table.means
    names = table.learners
    fr = md.friedman(scores, better, learners=names)
    cd = md.nemenyi(scores, args.alpha, better, learners=names)
    pw = md.pairwise(
        scores,
        args.method,
        args.adjust,
        control=args.control,
        alpha=args.alpha,
        higher_is_better=better,
        learners=names,
    )
    out: dict = {
        "datasets": len(table.datasets),
        "learners": list(names),
        "folds": int(table.scores.shape[1]) if table.scores.ndim == 3 else 1,
        "friedman_chi2": fr.statistic,
        "friedman_p_value": fr.p_value,
    }
    if fr.f != float("inf"):
        out["iman_davenport_f"] = fr.f
    out["iman_davenport_p_value"] = fr.f_p_value
    out["df"] = [fr.df, fr.df_denominator]
    out["mean_ranks"] = {n: float(r) for n, r in zip(names, cd.mean_ranks, strict=True)}
    out["critical_difference"] = cd.cd
    out["not_different_groups"] = [[names[i] for i in g] for g in cd.groups]
    out["pairwise_test"] = pw.method
    out["adjust"] = pw.adjust
    out["alpha"] = args.alpha
    out["pairs"] = [
        {
            "a": names[i],
            "b": names[j],
            "wins": int(w),
            "losses": int(lo),
            "p_value": float(p),
            "p_adjusted": float(q),
            "different": bool(rej),
            "nemenyi_p_value": float(cd.p_values[i, j]),
        }
        for i, j, w, lo, p, q, rej in zip(
            pw.first,
            pw.second,
            pw.wins,
            pw.losses,
            pw.p_value,
            pw.p_adjusted,
            pw.reject,
            strict=True,
        )
    ]
    if args.rope is not None:
        bayes = md.signed_rank_pairs(
            scores,
            args.rope,
            control=args.control,
            draws=args.draws,
            higher_is_better=better,
            learners=names,
            seed=args.seed,
        )
        for row, a, e, b in zip(
            out["pairs"], bayes.a_better, bayes.equivalent, bayes.b_better, strict=True
        ):
            row["p_a_better"], row["p_equivalent"], row["p_b_better"] = float(a), float(e), float(b)
        out["rope"] = args.rope
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = md.cd_diagram(cd, title=f"Nemenyi test, alpha = {args.alpha:g}")
        try:
            ax.figure.savefig(args.plot, bbox_inches="tight")
        except (OSError, ValueError) as exc:
            raise ValueError(f"--plot {args.plot!r} cannot be written: {exc}") from None
        finally:
            plt.close(ax.figure)
        out["plot"] = args.plot
    return out


def register(top, size) -> None:
    """Add ``heldout compare-learners``.

    Examples
    --------
    >>> import argparse
    >>> top = argparse.ArgumentParser().add_subparsers()
    >>> register(top, None)
    >>> args = top.choices["compare-learners"].parse_args(["s.csv", "--control", "a"])
    >>> args.file, args.control, args.adjust, args.method
    ('s.csv', 'a', 'holm', 'wilcoxon')
    """
    p = calculator(
        top,
        "compare-learners",
        help="compare several learners over many data sets (Friedman, Nemenyi, Wilcoxon-Holm)",
        func=_run,
        epilog=(
            "example: heldout compare-learners scores.csv --control forest --plot cd.png --json\n"
            "FILE: a CSV with a header 'dataset,L1,L2,...' (one row per data set) or\n"
            "'dataset,fold,L1,L2,...' (one row per fold; the folds are averaged).\n"
            "Higher scores are better unless --lower-is-better. The mean-rank Nemenyi test\n"
            "depends on which other learners are in the file; the pairwise tests do not."
        ),
    )
    p.add_argument("file", help="CSV table of scores (data sets x learners, or with a fold column)")
    alpha_option(p, help="level of the tests (family-wise for Nemenyi and Holm)")
    choice_option(
        p,
        "--method",
        ("wilcoxon", "sign"),
        "wilcoxon",
        "pairwise test: Wilcoxon signed-rank (default) or the sign test",
    )
    choice_option(
        p,
        "--adjust",
        ("holm", "bonferroni", "hommel", "bh", "by", "none"),
        "holm",
        "adjustment of the pairwise p-values (default holm)",
    )
    p.add_argument("--control", default=None, help="test every learner against this one only")
    p.add_argument(
        "--rope",
        type=real,
        default=None,
        help="add the Bayesian signed-rank test with this half-width of practical equivalence",
    )
    p.add_argument("--draws", type=count, default=20_000, help="posterior draws per pair (--rope)")
    p.add_argument("--seed", type=count, default=None, help="seed of the posterior draws (--rope)")
    p.add_argument(
        "--lower-is-better", action="store_true", help="the scores are losses or error rates"
    )
    p.add_argument("--plot", default=None, help="write the critical-difference diagram to FILE")
