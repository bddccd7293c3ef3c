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
    """Return True when the quick profile is on (``HELDOUT_QUICK`` set to 1/true/yes).

    Examples
    --------
    >>> os.environ["HELDOUT_QUICK"] = "1"
    >>> quick(), pick(100_000, 2_000)
    (True, 2000)
    >>> del os.environ["HELDOUT_QUICK"]
    >>> quick()
    False
    """
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

    Every function of the package that draws random numbers takes ``seed=`` and passes it
    here; a negative int, a float, text or anything else raises ``ValueError`` naming
    ``seed``.

    Examples
    --------
    >>> float(rng(1).random()) == float(rng(1).random())
    True
    >>> gen = rng(7)
    >>> rng(gen) is gen
    True
    """
    import numpy as np

    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or (
        seed is not None and not isinstance(seed, int | np.integer | np.random.SeedSequence)
    ):
        raise ValueError(
            f"seed must be None, a non-negative int or a numpy Generator, got {_quote(seed)}"
        )
    if isinstance(seed, int | np.integer) and seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {int(seed)}")
    return np.random.default_rng(SEED if seed is None else seed)


def _random_state(seed=None) -> int:
    """The ``int`` that scikit-learn's ``random_state`` needs, from a ``seed`` as :func:`rng` takes.

    An int is kept as it is (so results do not change with the spelling), ``None`` gives
    :data:`SEED`, and a ``Generator`` gives one draw from it.
    """
    import numpy as np

    if seed is None or (isinstance(seed, int | np.integer) and not isinstance(seed, bool)):
        rng(seed)  # validates
        return int(SEED if seed is None else seed) % 2**32
    return int(rng(seed).integers(2**32))


def _quote(value) -> str:
    from heldout._checks import show

    return show(value)
