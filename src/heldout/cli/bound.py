"""``heldout bound``: upper (and lower) bounds on a true error rate from a test set.

Example::

    heldout bound --errors 38 --n 100 --alpha 0.05 --json
"""

from __future__ import annotations

import argparse

from heldout.cli import alpha_option, calculator, choice_option, count

EPILOG = """\
Upper bounds (each holds with probability >= 1 - alpha, except the approximations):
  exact      the test set bound: largest p with P(Binomial(n, p) <= errors) >= alpha
  kl         relative-entropy Chernoff relaxation (always >= exact)
  hoeffding  errors/n + sqrt(ln(1/alpha) / (2n))
  occam      errors/n + sqrt(ln(n/alpha) / (2n))   (the form in Wong's tutorial)
  score_cc   continuity-corrected score (Wilson) bound       (an approximation, close to exact)
  normal     errors/n + z * sd, z = Phi^-1(1 - alpha), sd = sqrt(p(1-p)/(n-1))  (NOT a bound)
  two_sigma  errors/n + 2 * sd                                          (NOT a bound)
Also printed: matching lower bounds, a two-sided 1 - alpha interval (--method) and the
accuracy view.  (--delta and --level are the old spellings of --alpha and 1 - alpha.)

example: heldout bound --errors 38 --n 100 --alpha 0.05 --json
"""


def _run(args: argparse.Namespace) -> dict:
    from heldout._checks import as_counts, as_probability
    from heldout.accuracy import bounds as b

    k, m, delta = args.errors, args.n, args.alpha
    as_counts(k, m, "--errors", "--n")  # messages name the command-line options
    as_probability(delta, "--alpha")
    exact = b.exact_upper(k, m, delta)
    low, high = b.interval(k, m, alpha=delta, method=args.method)
    result = {
        "errors": k,
        "n": m,
        "alpha": delta,
        "error_rate": k / m,
        "exact": exact,
        "kl": b.kl_upper(k, m, delta),
        "hoeffding": b.hoeffding_upper(k, m, delta),
        "occam": b.occam_upper(k, m, delta),
        "score_cc": b.score_upper(k, m, delta, continuity=True),
        "normal": b.normal_upper(k, m, delta),
        "two_sigma": b.two_sigma_upper(k, m),
        "exact_lower": b.exact_lower(k, m, delta),
        "kl_lower": b.kl_lower(k, m, delta),
        "interval_method": args.method,
        "interval_low": low,
        "interval_high": high,
        "accuracy_lower_exact": 1.0 - exact,
    }
    return result


def register(top, size) -> None:
    """Add ``heldout bound`` to the top-level commands."""

    p = calculator(
        top,
        "bound",
        help="upper bounds on a true error rate from test-set errors",
        func=_run,
        description="Bounds on the true error rate of a classifier that made ERRORS mistakes on N test items.",
        epilog=EPILOG,
    )
    p.add_argument(
        "--errors",
        type=count,
        required=True,
        help="number of errors on the test set (0 <= errors <= n)",
    )
    p.add_argument("--n", type=count, required=True, help="test set size (>= 1)")
    alpha_option(
        p,
        old=("--delta",),
        level=True,
        help="failure probability in (0, 1); the interval has confidence 1 - alpha",
    )
    choice_option(
        p,
        "--method",
        ["clopper-pearson", "wilson", "wilson-cc", "jeffreys", "normal"],
        "clopper-pearson",
        "two-sided interval method (default clopper-pearson)",
    )
