"""``heldout split``: the variational train/test split as a calculator."""

from __future__ import annotations

from heldout.cli import calculator, count, real

_EPILOG = """\
The share of rows for testing that minimises the modelled squared criticism
  c_test / m_test + c_train / m_train + c_0
(Win-Vector LLC 2021, "What is a Good Test Set Size?"):
  test_fraction = sqrt(c_test) / (sqrt(c_test) + sqrt(c_train)).
With --rows N, also the best whole-row split of N rows.

example:
  heldout split --c-test 1.6 --c-train 79 --rows 1000 --json
"""


def _run(args) -> dict:
    from heldout.accuracy.split import optimal_split, optimal_test_fraction

    if args.rows is None:
        test = float(optimal_test_fraction(args.c_test, args.c_train))
        return {"test_fraction": test, "train_fraction": 1.0 - test}
    result = optimal_split(args.c_test, args.c_train, args.rows)
    return {
        "test_fraction": float(result.test_fraction),
        "train_fraction": float(result.train_fraction),
        "test_rows": int(result.test_rows),
        "train_rows": int(result.train_rows),
    }


def register(top, size) -> None:
    """Add ``heldout split`` to the top-level commands."""
    p = calculator(
        top,
        "split",
        help="optimal train/test split from the variational model (c_test, c_train)",
        func=_run,
        epilog=_EPILOG,
    )
    p.add_argument("--c-test", type=real, required=True, help="coefficient of 1/m_test (>= 0)")
    p.add_argument("--c-train", type=real, required=True, help="coefficient of 1/m_train (>= 0)")
    p.add_argument("--rows", type=count, default=None, help="total rows to split (at least 2)")
