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


def rng(seed=None):
    """The package's one seeding helper: a numpy ``Generator``.

    ``seed`` may be ``None`` (the book's :data:`SEED`), an ``int``, a
    ``numpy.random.SeedSequence`` or an existing ``Generator`` (returned as is,
    so that a caller can thread one stream through several functions).

    Examples
    --------
    >>> float(rng(1).random()) == float(rng(1).random())
    True
    """
    import numpy as np

    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and not isinstance(seed, int | np.integer | np.random.SeedSequence):
        raise ValueError(f"seed must be None, an int or a numpy Generator, got {seed!r}")
    return np.random.default_rng(SEED if seed is None else seed)
