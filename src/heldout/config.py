"""Run-time settings shared by the book, the tests and the benchmarks.

The book has two profiles.  The *full* profile (the default) runs every
experiment at the size the chapter describes.  The *quick* profile, switched on
with the environment variable ``HELDOUT_QUICK=1``, shrinks the heavy
experiments (fewer simulation repetitions, fewer MNIST digits, fewer epochs) so
that ``make test`` can execute every chapter in a few minutes.  The quick
profile never removes a check: every assertion a chapter makes still runs.
"""

from __future__ import annotations

import os

#: Seed used by every chapter unless it states another one.
SEED: int = 20261122


def quick() -> bool:
    """Return True when the quick profile is on (``HELDOUT_QUICK`` set to 1/true/yes)."""
    return os.environ.get("HELDOUT_QUICK", "").strip().lower() in {"1", "true", "yes", "on"}


def pick(full, quick_value):
    """Return ``quick_value`` in the quick profile and ``full`` otherwise.

    Examples
    --------
    >>> n_rep = pick(100_000, 2_000)  # doctest: +SKIP
    """
    return quick_value if quick() else full


def rng(seed: int | None = None):
    """A numpy ``Generator`` seeded with ``seed`` (default :data:`SEED`)."""
    import numpy as np

    return np.random.default_rng(SEED if seed is None else seed)
