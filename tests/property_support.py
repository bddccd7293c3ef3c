"""Shared machinery of the property-based tests (hypothesis): argument domains, bad values, runner.

Every public callable gets a :class:`Spec`: one :class:`Arg` per argument, each a strategy of
valid values and a *kind* that says which bad values the argument must refuse.  The runner
draws valid arguments, sometimes replaces one of them with a bad value, calls the function
under a CPU-time limit and checks the outcome:

* a ``ValueError`` whose message names an argument (or says "the size exceeds ...") and
  shows no numpy repr (``array(``, ``np.float64(``);
* otherwise a result whose numbers are finite (unless the spec allows infinities) and
  that passes the spec's own check (in range, ordered, monotone ...); a bad value may only
  be accepted when its kind says it is valid (a real accepts ``-1``, a count does not).

Kinds: ``count`` (whole numbers >= 0 below 2**63), ``prob`` (in (0, 1) or [0, 1]), ``pos``
(finite > 0 or >= 0), ``real`` (finite), ``choice`` (one of a few strings), ``flag``
(True/False), ``seed`` (None, an int >= 0, a Generator), ``array`` (data: any bad value may
be refused or, if it still makes sense, used), ``fixed`` (not varied).
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

CALL_LIMIT = 5.0  # seconds of CPU time per call: the stated limit of every call

#: ``HELDOUT_PROPERTY_SCALE=4 pytest tests/test_properties*.py`` runs four times as many
#: examples of every property (a deeper search than ``make unit`` can afford).
SCALE = float(os.environ.get("HELDOUT_PROPERTY_SCALE", "1"))


def examples(n: int) -> int:
    """``n`` hypothesis examples, times ``HELDOUT_PROPERTY_SCALE``."""
    return max(1, round(n * SCALE))


_BIG = 2**63 - 1
count0 = st.one_of(
    st.integers(0, 60),
    st.integers(0, 10**6),
    st.integers(10**15, _BIG),
    st.sampled_from([0, 1, _BIG]),
)
count1 = st.one_of(st.integers(1, 60), st.integers(1, 10**6), st.integers(10**15, _BIG))
small0 = st.integers(0, 60)
small1 = st.integers(1, 60)
prob = st.one_of(
    st.floats(1e-6, 1 - 1e-6), st.sampled_from([1e-300, 1e-12, 0.05, 0.5, 0.95, 1 - 1e-12])
)
prob_c = st.one_of(prob, st.sampled_from([0.0, 1.0]))
alpha = st.one_of(st.floats(1e-4, 0.5), st.sampled_from([1e-12, 0.05, 0.999]))
pos = st.one_of(st.floats(1e-6, 1e6), st.sampled_from([1e-300, 1.0, 14.0, 1e300]))
pos0 = st.one_of(pos, st.just(0.0))
real = st.floats(-1e6, 1e6)
seed = st.one_of(st.none(), st.integers(0, 2**32), st.just(np.random.default_rng(5)))


def reals(min_size=1, max_size=30, lo=-1e3, hi=1e3):
    return st.lists(st.floats(lo, hi), min_size=min_size, max_size=max_size)


def zero_ones(min_size=1, max_size=40):
    return st.lists(st.sampled_from([0, 1]), min_size=min_size, max_size=max_size)


BAD = st.sampled_from(
    [
        "many",
        None,
        float("nan"),
        float("inf"),
        -float("inf"),
        2**63,
        1e300,
        -1,
        -0.5,
        2.5,
        [],
        [[1.0], [2.0, 3.0]],
        complex(1, 1),
        {"a": 1},
        # issue 31: Python ints beyond any float, booleans, complex numbers with no
        # imaginary part, and work sizes that cannot finish (refused by name, or fast)
        10**400,
        -(10**400),
        True,
        False,
        complex(3, 0),
        10**12,
        1e12,
        -1e-300,
    ]
)


@dataclass
class Arg:
    strategy: object
    kind: str = "array"
    accepts: tuple = ()  # extra bad values this argument legitimately accepts


def A(strategy, kind="array", accepts=()):  # noqa: N802 - short constructor for the tables
    return Arg(strategy, kind, tuple(accepts))


@dataclass
class Spec:
    """How to call one public callable with random input."""

    func: object
    args: dict  # name -> Arg, positional in this order unless in keyword
    check: object = None  # check(result, values) -> bool for valid results
    keyword: tuple = ()  # names passed by keyword
    kwargs: dict = field(default_factory=dict)  # fixed keyword arguments
    prepare: object = None  # prepare(values) -> values (relations between arguments)
    allow_inf: bool = False
    allow_nan: bool = False
    examples: int = 20
    corrupt: bool = True  # also try bad values
    aliases: tuple = ()  # other words a message may use for an argument ("label column")


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _finite(value) -> bool:
    """A finite int or float (a Python int beyond any float, such as 10**400, is not)."""
    if not _is_number(value):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def accepted_ok(kind: str, value, extra: tuple) -> bool:
    """May an argument of this kind legitimately accept this bad value?"""
    if any(value is v or (type(value) is type(v) and value == v) for v in extra):
        return True
    if kind in ("array", "fixed", "any"):
        return True
    finite = _finite(value)
    if kind == "real":
        return finite
    if kind == "pos":
        return finite and value > 0
    if kind == "pos0":
        return finite and value >= 0
    if kind == "count":
        return finite and value >= 0 and value == int(value) and value < 2**63
    if kind == "prob":
        return finite and 0 < value < 1
    if kind == "flag":
        return isinstance(value, bool)
    if kind == "seed":  # None, any whole number >= 0 (numpy takes big ones), a Generator
        return value is None or (
            isinstance(value, int) and not isinstance(value, bool) and value >= 0
        )
    return False  # choice, flag, seed ... refuse every bad value


def leaves(value):
    """Every number (and other leaf) inside a result, recursively."""
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from leaves(v)
    elif hasattr(value, "to_dict") and hasattr(value, "_unpacked"):
        yield from leaves(value.to_dict())
    elif isinstance(value, np.ndarray):
        if value.dtype.kind in "biuf":
            yield from value.ravel().tolist()
    else:
        yield value


def numbers_ok(result, allow_inf=False, allow_nan=False) -> bool:
    for leaf in leaves(result):
        if isinstance(leaf, bool | str) or leaf is None:
            continue
        if isinstance(leaf, int) and not -(2**1023) < leaf < 2**1023:
            continue  # an exact Python integer beyond any float (passed through): not a defect
        if isinstance(leaf, int | float | np.integer | np.floating):
            x = float(leaf)
            if math.isnan(x) and not allow_nan:
                return False
            if math.isinf(x) and not allow_inf:
                return False
    return True


def in01(result, _values=None) -> bool:
    return all(
        0.0 <= float(v) <= 1.0
        for v in leaves(result)
        if isinstance(v, int | float | np.number) and not isinstance(v, bool)
    )


def ordered_pair(result, _values=None) -> bool:
    lo, hi = (np.asarray(v, dtype=float) for v in tuple(result)[-2:])
    return bool(np.all(lo <= hi + 1e-12 * np.maximum(1.0, np.abs(hi))))


def positive_int(result, _values=None) -> bool:
    return all(int(v) >= 1 for v in leaves(result) if not isinstance(v, bool | str))


def call(spec: Spec, values: dict):
    args, kwargs = [], dict(spec.kwargs)
    for name in spec.args:
        if name in spec.keyword:
            kwargs[name] = values[name]
        else:
            args.append(values[name])
    return spec.func(*args, **kwargs)


REPRS = ("array(", "np.float64(", "np.int64(", "np.True_", "np.False_", "dtype=")


def run(spec: Spec, values: dict):
    """Call the function; ``("ok", result)`` or ``("value_error", message)``, within the limit."""
    start = time.process_time()
    try:
        outcome = ("ok", call(spec, values))
    except ValueError as exc:
        outcome = ("value_error", str(exc))
    spent = time.process_time() - start
    name = getattr(spec.func, "__qualname__", spec.func)
    assert spent < CALL_LIMIT, f"{name}{values} took {spent:.1f} s of CPU time"
    return outcome


def named(message: str, names, values=None) -> bool:
    """Does the message name an argument (or quote a file name it was given)?"""
    if message.startswith("the size exceeds"):
        return True
    quoted = [v for v in (values or {}).values() if isinstance(v, str) and len(v) > 3]
    return any(name in message for name in [*names, *quoted])


def exercise(spec: Spec, data, label: str) -> None:
    """One hypothesis example: draw, maybe corrupt, call, check."""
    values = {name: data.draw(arg.strategy, label=name) for name, arg in spec.args.items()}
    if spec.prepare is not None:
        values = spec.prepare(values)
    candidates = [n for n, a in spec.args.items() if a.kind != "fixed"] if spec.corrupt else []
    corrupt = (
        data.draw(st.sampled_from([None, *candidates]), label="corrupt") if candidates else None
    )
    if corrupt is not None:
        values[corrupt] = data.draw(BAD, label="bad value")
    kind, result = run(spec, values)
    if kind == "value_error":
        names = [*spec.args, *spec.kwargs, *spec.aliases]
        assert named(result, names, values), (
            f"{label}{values}: the message names no argument: {result}"
        )
        assert not any(r in result for r in REPRS), f"{label}: a numpy repr in {result!r}"
        return
    if corrupt is not None:
        arg = spec.args[corrupt]
        bad = values[corrupt]
        assert accepted_ok(arg.kind, bad, arg.accepts), (
            f"{label} accepted {corrupt}={bad!r} (a {arg.kind}) and returned {result!r}"
        )
    assert numbers_ok(result, spec.allow_inf, spec.allow_nan), (
        f"{label}{values} returned {result!r}"
    )
    if spec.check is not None and corrupt is None:
        assert spec.check(result, values), f"{label}{values}: out of range: {result!r}"


#: The kinds of bad value every argument meets in :func:`sweep` (issue 31), one of each.
SWEEP = (
    "many",
    None,
    float("nan"),
    float("inf"),
    -float("inf"),
    -1,
    2.5,
    2**63,
    1e300,
    10**400,
    -(10**400),
    True,
    complex(3, 0),
    complex(1, 1),
    10**12,
    [[1.0], [2.0, 3.0]],
)


def check_bad(spec: Spec, values: dict, name: str, bad, label: str) -> str | None:
    """Call with ``values[name] = bad``; a description of what went wrong, or None."""
    trial = dict(values)
    trial[name] = bad
    try:
        kind, result = run(spec, trial)
    except AssertionError as exc:  # over the time limit
        return str(exc)[:300]
    except Exception as exc:  # noqa: BLE001 - any other exception is the defect reported
        return f"{label}({name}={bad!r}) raised {type(exc).__name__}: {str(exc)[:150]}"
    if kind == "value_error":
        names = [*spec.args, *spec.kwargs, *spec.aliases]
        if not named(result, names, trial):
            return f"{label}({name}={bad!r}): the message names no argument: {result[:150]}"
        if any(r in result for r in REPRS):
            return f"{label}({name}={bad!r}): a numpy repr in {result[:150]!r}"
        return None
    arg = spec.args[name]
    if not accepted_ok(arg.kind, bad, arg.accepts):
        return f"{label} accepted {name}={bad!r} (a {arg.kind}) and returned {str(result)[:120]}"
    if not numbers_ok(result, spec.allow_inf, spec.allow_nan):
        return f"{label}({name}={bad!r}) returned non-finite numbers: {str(result)[:120]}"
    return None


def sweep(spec: Spec, data, label: str) -> list[str]:
    """Every non-fixed argument of one valid draw replaced, in turn, by every value of SWEEP."""
    values = {name: data.draw(arg.strategy, label=name) for name, arg in spec.args.items()}
    if spec.prepare is not None:
        values = spec.prepare(values)
    problems = []
    for name, arg in spec.args.items():
        if arg.kind == "fixed" or not spec.corrupt:
            continue
        for bad in SWEEP:
            found = check_bad(spec, values, name, bad, label)
            if found:
                problems.append(found)
    return problems


def check_random_input(spec: Spec, name: str) -> None:
    """Hypothesis draws ``spec.examples`` (scaled) calls of valid and sometimes bad input.

    The text of ``inner`` and its decorators is hypothesis's key to the examples it draws
    (``derandomize``): it is kept as test_properties_modules.py wrote it, so that its draws
    are the same as before the two test files shared it.
    """
    from hypothesis import HealthCheck, given, settings

    scaled = examples

    @settings(
        max_examples=scaled(spec.examples),
        deadline=None,
        derandomize=True,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.filter_too_much,
            HealthCheck.data_too_large,
        ],
    )
    @given(data=st.data())
    def inner(data):
        exercise(spec, data, name)

    inner()


def check_every_bad_value(spec: Spec, name: str) -> None:
    """Each argument of one valid call replaced, in turn, by each bad value of the sweep.

    Python ints of 10**400, booleans, complex numbers, NaN, infinities, negatives and work
    sizes of 10**12: each is refused with a ValueError naming the argument, or (where the
    argument's kind allows it) answered with finite numbers within the time limit.

    ``inner`` reads as both test files wrote it (hypothesis keys its draws on that text).
    """
    from hypothesis import HealthCheck, given, settings

    @settings(
        max_examples=1,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def inner(data):
        problems = sweep(spec, data, name)
        assert not problems, "\n".join(problems)

    inner()


def spec_tests(specs: dict):
    """The two sweeps of a table of specs, as test functions parametrized by the specs' names.

    A test file assigns them to its own names (``test_random_valid_and_invalid_input,
    test_every_argument_refuses_every_kind_of_bad_value = spec_tests(SPECS)``).
    """
    import pytest

    @pytest.mark.parametrize("name", list(specs))
    def random_input(name):
        check_random_input(specs[name], name)

    @pytest.mark.parametrize("name", list(specs))
    def every_bad_value(name):
        """Issue 31: see :func:`check_every_bad_value`."""
        check_every_bad_value(specs[name], name)

    return random_input, every_bad_value
