"""``heldout cv-compare``: compare two learners from their per-fold scores.

The scores are the two learners' scores (accuracies, error rates, any score)
on the same cross-validation folds or resampling splits, in the same order.
Default: the corrected resampled t-test of Nadeau and Bengio, which needs the
test fraction of each split (``1/K`` for K-fold cross-validation).  Other
methods: ``naive`` (the paired t-test over folds, which is too liberal: kept as
a baseline), ``5x2cv`` (Dietterich's 5x2cv t-test) and ``5x2cv-f`` (Alpaydin's
combined F-test); these two need the ten scores of five replications of 2-fold
cross-validation in fold order: replication 1 fold 1, replication 1 fold 2,
replication 2 fold 1, ..., replication 5 fold 2.

``--rope R`` adds the Bayesian correlated t-test (Corani and Benavoli): the posterior
probabilities that A is better by more than ``R``, that the two are practically
equivalent (within ``R``), and that B is better by more than ``R``.
"""

from __future__ import annotations

import argparse

from heldout.cli import calculator, choice_option

_LAYOUT = (
    "5x2cv and 5x2cv-f need 10 scores per learner in fold order: rep1-fold1, rep1-fold2,\n"
    "rep2-fold1, rep2-fold2, ..., rep5-fold2 (Dietterich's numerator uses the first)."
)


def _numbers(text: str, name: str) -> list[float]:
    """Parse ``"0.91,0.90, 0.93"`` into floats; ValueError naming the option otherwise."""
    parts = [p for p in str(text).replace(";", ",").replace(" ", ",").split(",") if p.strip()]
    if not parts:
        raise ValueError(f"{name} must be a comma-separated list of scores, got {text!r}")
    out = []
    for p in parts:
        try:
            out.append(float(p))
        except ValueError:
            raise ValueError(f"{name} must hold numbers separated by commas, got {p!r}") from None
    return out


def _read_file(path: str) -> tuple[list[float], list[float]]:
    """Two columns (A, B) separated by commas, tabs or spaces; a header line is skipped."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = [line.strip() for line in fh if line.strip() and not line.startswith("#")]
    except OSError as exc:
        raise ValueError(f"--file {path!r} cannot be read: {exc.strerror}") from None
    a, b = [], []
    for i, line in enumerate(lines):
        cells = [
            c for c in line.replace("\t", ",").replace(";", ",").replace(" ", ",").split(",") if c
        ]
        try:
            values = [float(c) for c in cells]
        except ValueError:
            if i == 0:  # a header
                continue
            raise ValueError(f"--file line {i + 1} must hold two numbers, got {line!r}") from None
        if len(values) != 2:
            raise ValueError(
                f"--file line {i + 1} must hold two columns (learner A, learner B), got {line!r}"
            )
        a.append(values[0])
        b.append(values[1])
    if not a:
        raise ValueError(f"--file {path!r} holds no rows of scores")
    return a, b


def _run(args: argparse.Namespace) -> dict:
    from heldout.resampling.cv import compare

    given = args.scores_a is not None or args.scores_b is not None
    if args.file is not None and given:
        raise ValueError("give either --file or --scores-a and --scores-b, not both")
    if args.file is not None:
        a, b = _read_file(args.file)
    elif args.scores_a is not None and args.scores_b is not None:
        a = _numbers(args.scores_a, "--scores-a")
        b = _numbers(args.scores_b, "--scores-b")
    else:
        raise ValueError("give the scores: --scores-a and --scores-b, or --file with two columns")
    if len(a) != len(b):
        raise ValueError(
            f"--scores-a and --scores-b must hold the same number of scores, got {len(a)} and {len(b)}"
        )
    if args.method == "corrected" and args.test_fraction is None:
        raise ValueError(
            "--test-fraction is needed by the corrected test: the share of rows in each test "
            "part (0.1 for 10-fold cross-validation)"
        )
    if args.method in ("5x2cv", "5x2cv-f") and len(a) != 10:
        raise ValueError(f"--method {args.method} needs 10 scores per learner, got {len(a)}")
    result = compare(
        a, b, args.method, test_fraction=args.test_fraction, alternative=args.alternative
    )
    out = {"method": result.method}
    out["f" if result.method == "5x2cv-f" else "t"] = result.statistic
    out["p_value"] = result.p_value
    out["df"] = result.df
    if result.df_denominator is not None:
        out["df_denominator"] = result.df_denominator
    out["mean_difference"] = result.mean_difference
    out["folds"] = result.scores
    out["alternative"] = result.alternative
    if result.method == "corrected":
        out["test_fraction"] = args.test_fraction
    if args.rope is not None:
        from heldout.resampling.bayes import correlated_t_rope

        fraction = 0.5 if args.method in ("5x2cv", "5x2cv-f") else args.test_fraction
        if fraction is None:
            raise ValueError("--rope needs --test-fraction (1/K for K-fold cross-validation)")
        post = correlated_t_rope(a, b, fraction, rope=args.rope)
        out["rope"] = post.rope
        out["p_a_better"] = post.a_better
        out["p_equivalent"] = post.equivalent
        out["p_b_better"] = post.b_better
    return out


def register(top, size) -> None:
    """Add ``heldout cv-compare``."""
    p = calculator(
        top,
        "cv-compare",
        help="compare two learners from their per-fold cross-validation scores",
        func=_run,
        epilog=(
            "example: heldout cv-compare --scores-a 0.91,0.90,0.93,0.89,0.92 \\\n"
            "           --scores-b 0.89,0.90,0.90,0.88,0.90 --test-fraction 0.2 --json\n"
            "Scores of both learners on the same folds, same order. Default method: the\n"
            "corrected resampled t-test (Nadeau and Bengio), which needs --test-fraction\n"
            "(1/K for K-fold CV). 'naive' is the paired t-test over folds: too liberal, kept as\n"
            "a baseline. " + _LAYOUT + "\n"
            "--rope R adds P(A better by more than R), P(within R), P(B better by more than R)\n"
            "from the Bayesian correlated t-test (the same correction as the corrected test)."
        ),
    )
    p.add_argument("--scores-a", default=None, help="learner A's scores, comma-separated")
    p.add_argument("--scores-b", default=None, help="learner B's scores, comma-separated")
    p.add_argument(
        "--file", default=None, help="a file with two columns of scores (A, B); a header is skipped"
    )
    choice_option(
        p,
        "--method",
        ["corrected", "naive", "5x2cv", "5x2cv-f"],
        "corrected",
        "the test (default: corrected)",
    )
    p.add_argument(
        "--test-fraction",
        type=float,
        default=None,
        help="share of rows in each test part (corrected test; 1/K for K-fold CV)",
    )
    choice_option(
        p,
        "--alternative",
        ["two-sided", "greater", "less"],
        "two-sided",
        "about A's scores relative to B's (default: two-sided)",
    )
    p.add_argument(
        "--rope",
        type=float,
        default=None,
        metavar="R",
        help="half-width of the region of practical equivalence, in score units (e.g. 0.01)",
    )
