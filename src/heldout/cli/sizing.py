"""``heldout size hoeffding|bernstein|binomial|normal``: test-set sizes for a mean loss.

Every kind prints the smallest test-set size under the key ``n`` together with
the inputs it used.  See the chapter "How many test rows: Hoeffding sizing".
"""

from __future__ import annotations

from heldout.cli import UsageError, alpha_option, calculator, choice_option, real

_BASES = {"2": 2, "e": "e", "10": 10}


def _range_from(args) -> float:
    from heldout.accuracy.losses import collared_deviance_range

    if args.range is not None and args.mu is not None:
        raise UsageError("give either --range or --mu, not both")
    if args.range is not None:
        return args.range
    if args.mu is not None:
        return float(collared_deviance_range(args.mu, base=_BASES[args.base]))
    raise UsageError("give the loss's range with --range U, or the deviance collar with --mu")


def _hoeffding(args) -> dict:
    from heldout.accuracy.sizing import hoeffding_bound, hoeffding_size

    u = _range_from(args)
    n = hoeffding_size(u, args.tolerance, args.alpha)
    return {
        "n": n,
        "range": u,
        "tolerance": args.tolerance,
        "alpha": args.alpha,
        "bound_at_n": hoeffding_bound(n, u, args.tolerance),
        "method": "hoeffding: n >= ln(2/alpha) U^2 / (2 t^2)",
    }


def _bernstein(args) -> dict:
    from heldout.accuracy.sizing import bernstein_size, empirical_bernstein_size, hoeffding_size

    u = _range_from(args)
    if args.empirical:
        n = empirical_bernstein_size(args.variance, u, args.tolerance, args.alpha)
        method = "empirical Bernstein (Maurer & Pontil 2009, two-sided)"
    else:
        n = bernstein_size(args.variance, u, args.tolerance, args.alpha)
        method = "Bernstein: n >= ln(2/alpha) (2 var + 2 U t / 3) / t^2"
    return {
        "n": n,
        "range": u,
        "variance": args.variance,
        "tolerance": args.tolerance,
        "alpha": args.alpha,
        "hoeffding_n": hoeffding_size(u, args.tolerance, args.alpha),
        "method": method,
    }


def _binomial(args) -> dict:
    from heldout.accuracy.sizing import (
        binomial_deviation_probability,
        binomial_size,
        hoeffding_size,
    )

    n = binomial_size(args.tolerance, args.alpha, args.p, rule="first" if args.first else "stable")
    out = {
        "n": n,
        "tolerance": args.tolerance,
        "alpha": args.alpha,
        "p": "worst" if args.p is None else args.p,
        "rule": "first" if args.first else "stable",
        "hoeffding_n": hoeffding_size(1.0, args.tolerance, args.alpha),
    }
    if args.p is not None:
        out["probability_at_n"] = binomial_deviation_probability(n, args.p, args.tolerance)
    return out


def _normal(args) -> dict:
    from heldout.accuracy.sizing import normal_size

    return {
        "n": normal_size(args.variance, args.tolerance, args.alpha),
        "variance": args.variance,
        "tolerance": args.tolerance,
        "alpha": args.alpha,
        "method": "normal approximation: n >= z^2 var / t^2 (not a guarantee)",
    }


def _common(p, *, with_range: bool = True) -> None:
    if with_range:
        p.add_argument(
            "--range",
            type=real,
            default=None,
            metavar="U",
            help="width U of the loss's range [0, U]",
        )
        p.add_argument(
            "--mu",
            type=real,
            default=None,
            help="collar of the collared deviance; sets U = -2 log_base(mu)",
        )
        choice_option(p, "--base", sorted(_BASES), "2", "log base for --mu (default 2)")
    p.add_argument(
        "--tolerance", type=real, required=True, metavar="T", help="largest acceptable deviation t"
    )
    alpha_option(p, old=("--epsilon",), help="largest acceptable probability of a larger deviation")


def register(top, size) -> None:
    """Add ``size hoeffding``, ``size bernstein``, ``size binomial`` and ``size normal``."""
    p = calculator(
        size,
        "hoeffding",
        help="rows needed so a mean loss in [0, U] is within t, except with probability alpha",
        func=_hoeffding,
        epilog="example: heldout size hoeffding --range 14 --tolerance 0.1 --alpha 0.05 --json",
    )
    _common(p)

    p = calculator(
        size,
        "bernstein",
        help="rows needed by Bernstein's inequality, which also uses the loss's variance",
        func=_bernstein,
        epilog="example: heldout size bernstein --mu 0.01 --variance 2.5 --tolerance 0.1 --alpha 0.05",
    )
    _common(p)
    p.add_argument("--variance", type=real, required=True, help="variance of one row's loss")
    p.add_argument(
        "--empirical",
        action="store_true",
        help="size for the empirical-Bernstein bound (variance measured on the test set)",
    )

    p = calculator(
        size,
        "binomial",
        help="exact rows needed for 0-1 loss: P(|errors/n - p| > t) <= alpha",
        func=_binomial,
        epilog="example: heldout size binomial --tolerance 0.02 --alpha 0.05 --p 0.1",
    )
    _common(p, with_range=False)
    p.add_argument(
        "--p", type=real, default=None, help="true error rate (default: worst case over p)"
    )
    p.add_argument("--first", action="store_true", help="first size that works, not the stable one")

    p = calculator(
        size,
        "normal",
        help="normal-approximation rows for a mean loss with known variance (no guarantee)",
        func=_normal,
    )
    _common(p, with_range=False)
    p.add_argument("--variance", type=real, required=True, help="variance of one row's loss")
