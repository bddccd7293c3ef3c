"""``heldout bound``: upper (and lower) bounds on a true error rate from a test set.

Example::

    heldout bound --errors 38 --n 100 --delta 0.05 --json
"""

from __future__ import annotations

import argparse

from heldout.cli import calculator, count, real

EPILOG = """\
Upper bounds (each holds with probability >= 1 - delta, except the normal rules):
  exact      the test set bound: largest p with P(Binomial(n, p) <= errors) >= delta
  kl         relative-entropy Chernoff relaxation (always >= exact)
  hoeffding  errors/n + sqrt(ln(1/delta) / (2n))
  occam      errors/n + sqrt(ln(n/delta) / (2n))   (the form in Wong's tutorial)
  normal     errors/n + z * sd, z = Phi^-1(1 - delta), sd = sqrt(p(1-p)/(n-1))  (NOT a bound)
  two_sigma  errors/n + 2 * sd                                          (NOT a bound)
Also printed: matching lower bounds, a two-sided interval at --level and the accuracy view.

example: heldout bound --errors 38 --n 100 --delta 0.05 --json
"""


def _run(args: argparse.Namespace) -> dict:
    from heldout import bounds as b
    from heldout._checks import as_counts, as_probability

    k, m, delta = args.errors, args.n, args.delta
    as_counts(k, m, "--errors", "--n")  # messages name the command-line options
    as_probability(delta, "--delta")
    as_probability(args.level, "--level")
    exact = b.exact_upper(k, m, delta)
    low, high = b.interval(k, m, alpha=1.0 - args.level, method=args.method)
    result = {
        "errors": k,
        "n": m,
        "delta": delta,
        "error_rate": k / m,
        "exact": exact,
        "kl": b.kl_upper(k, m, delta),
        "hoeffding": b.hoeffding_upper(k, m, delta),
        "occam": b.occam_upper(k, m, delta),
        "normal": b.normal_upper(k, m, delta),
        "two_sigma": b.two_sigma_upper(k, m),
        "exact_lower": b.exact_lower(k, m, delta),
        "kl_lower": b.kl_lower(k, m, delta),
        "interval_method": args.method,
        "level": args.level,
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
    p.add_argument(
        "--delta", type=real, default=0.05, help="failure probability in (0, 1) (default 0.05)"
    )
    p.add_argument(
        "--level",
        type=real,
        default=0.95,
        help="confidence level of the two-sided interval (default 0.95)",
    )
    p.add_argument(
        "--method",
        default="clopper-pearson",
        choices=["clopper-pearson", "wilson", "jeffreys", "normal"],
        help="two-sided interval method (default clopper-pearson)",
    )
