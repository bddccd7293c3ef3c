"""Property-based tests (hypothesis) over the calculators' public functions and commands.

Issue 19: every call with random valid or invalid input either returns a documented
result (finite, in range, monotone where the mathematics says so) or raises
``ValueError`` whose message names the argument (or says "the size exceeds ..." for a
size that would not fit in 64 bits); never a TypeError, IndexError, OverflowError,
MemoryError or a hang.  Stated time limit: every call finishes within
``CALL_LIMIT = 5`` seconds of CPU time (most take milliseconds).  Every CLI refusal is
exactly one line on stderr with exit status 2, and a successful ``--json`` run prints
one JSON object with finite numbers only.

Strategies draw each argument from its own domain, including extremes (counts up to
``2**63 - 1``, probabilities down to ``1e-300``), without enforcing relations between
arguments (``k <= m`` ...): a violated relation must also be a named ``ValueError``.
Invalid input replaces one argument with a bad value of another kind (text, ``None``,
NaN, infinities, ``2**63``, ``1e300``, empty or ragged lists, arrays where a number is
expected).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import time
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heldout import acceptance as A
from heldout import bounds as B
from heldout import losses as L
from heldout import lost as LO
from heldout import posterior as P
from heldout import regression as R
from heldout import sizing as S
from heldout import split as SP
from heldout.cli import main

CALL_LIMIT = 5.0  # seconds of CPU time per call
EXAMPLES = 25  # per function (about 80 functions): the whole file stays well under a minute

# ----------------------------------------------------------------- argument domains
_BIG = 2**63 - 1
count0 = st.one_of(
    st.integers(0, 60),
    st.integers(0, 10**6),
    st.integers(10**15, _BIG),
    st.sampled_from([0, 1, _BIG]),
)
count1 = st.one_of(st.integers(1, 60), st.integers(1, 10**6), st.integers(10**15, _BIG))
small1 = st.integers(1, 200)
prob = st.one_of(
    st.floats(1e-6, 1 - 1e-6), st.sampled_from([1e-300, 1e-12, 0.05, 0.5, 0.95, 1 - 1e-12])
)
prob_c = st.one_of(prob, st.sampled_from([0.0, 1.0]))
pos = st.one_of(st.floats(1e-6, 1e6), st.sampled_from([1e-300, 1.0, 14.0, 1e300]))
pos0 = st.one_of(pos, st.just(0.0))
real = st.floats(-1e6, 1e6)

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
    ]
)


@dataclass
class Spec:
    func: object
    args: dict  # name -> strategy of valid values (positional order)
    check: object = None  # check(result, kwargs) -> bool for valid results
    allow_inf: bool = False
    examples: int = EXAMPLES
    kwargs: dict = field(default_factory=dict)  # fixed keyword arguments


def _leaves(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _leaves(v)
    elif hasattr(value, "to_dict"):
        yield from _leaves(value.to_dict())
    elif isinstance(value, np.ndarray):
        yield from value.ravel().tolist()
    else:
        yield value


def _numbers_ok(result, allow_inf):
    for leaf in _leaves(result):
        if isinstance(leaf, bool | str) or leaf is None:
            continue
        if isinstance(leaf, int | float | np.integer | np.floating):
            if math.isnan(float(leaf)):
                return False
            if math.isinf(float(leaf)) and not allow_inf:
                return False
    return True


def _in01(result, _kw=None):
    return all(0.0 <= float(v) <= 1.0 for v in _leaves(result) if not isinstance(v, bool))


def _ordered_pair(result, _kw=None):
    lo, hi = (np.asarray(v, dtype=float) for v in result)
    return bool(np.all(lo <= hi))


def _positive_int(result, _kw=None):
    return all(int(v) >= 1 for v in _leaves(result))


SPECS = {
    # bounds
    "binomial_tail": Spec(B.binomial_tail, {"k": count0, "m": count1, "p": prob_c}, _in01),
    "exact_upper": Spec(B.exact_upper, {"k": count0, "m": count1, "delta": prob}, _in01),
    "exact_lower": Spec(B.exact_lower, {"k": count0, "m": count1, "delta": prob}, _in01),
    "hoeffding_upper": Spec(B.hoeffding_upper, {"k": count0, "m": count1, "delta": prob}),
    "occam_upper": Spec(B.occam_upper, {"k": count0, "m": count1, "delta": prob}),
    "kl_divergence": Spec(B.kl_divergence, {"q": prob_c, "p": prob_c}, allow_inf=True),
    "chernoff_tail": Spec(B.chernoff_tail, {"k": count0, "m": count1, "p": prob_c}, _in01),
    "kl_upper": Spec(B.kl_upper, {"k": count0, "m": count1, "delta": prob}, _in01),
    "kl_lower": Spec(B.kl_lower, {"k": count0, "m": count1, "delta": prob}, _in01),
    "normal_upper": Spec(B.normal_upper, {"k": count0, "m": count1, "delta": prob}),
    "normal_lower": Spec(B.normal_lower, {"k": count0, "m": count1, "delta": prob}),
    "two_sigma_upper": Spec(B.two_sigma_upper, {"k": count0, "m": count1}),
    "clopper_pearson": Spec(B.clopper_pearson, {"k": count0, "m": count1, "level": prob}, _ordered_pair),
    "interval": Spec(
        B.interval,
        {
            "k": count0,
            "m": count1,
            "level": prob,
            "method": st.sampled_from(["clopper-pearson", "wilson", "jeffreys", "normal"]),
        },
        _ordered_pair,
    ),
    "upper_bound": Spec(
        B.upper_bound,
        {"k": count0, "m": count1, "delta": prob, "method": st.sampled_from(list(B.METHODS))},
    ),
    "coverage": Spec(
        B.coverage, {"p": prob_c, "m": st.integers(1, 3000), "delta": prob}, _in01, examples=8
    ),
    "appendix_c_bound": Spec(B.appendix_c_bound, {"k": st.integers(0, 60), "m": st.integers(1, 149)}),
    # sizing
    "hoeffding_bound": Spec(S.hoeffding_bound, {"n": count1, "range_": pos, "tolerance": pos}, _in01),
    "hoeffding_size": Spec(S.hoeffding_size, {"range_": pos, "tolerance": pos, "epsilon": prob}, _positive_int),
    "hoeffding_tolerance": Spec(S.hoeffding_tolerance, {"n": count1, "range_": pos, "epsilon": prob}),
    "bernstein_size": Spec(
        S.bernstein_size, {"variance": pos0, "range_": pos, "tolerance": pos, "epsilon": prob}, _positive_int
    ),
    "empirical_bernstein_radius": Spec(
        S.empirical_bernstein_radius,
        {"n": count1, "sample_variance": pos0, "range_": pos, "epsilon": prob},
    ),
    "empirical_bernstein_size": Spec(
        S.empirical_bernstein_size,
        {"sample_variance": pos0, "range_": pos, "tolerance": pos, "epsilon": prob},
        _positive_int,
    ),
    "sizing.normal_size": Spec(S.normal_size, {"variance": pos0, "tolerance": pos, "epsilon": prob}, _positive_int),
    "binomial_deviation_probability": Spec(
        S.binomial_deviation_probability, {"m": count1, "p": prob_c, "tolerance": pos}, _in01
    ),
    "binomial_size": Spec(
        S.binomial_size,
        {"tolerance": st.floats(0.05, 0.9), "epsilon": st.floats(1e-3, 0.5), "p": st.one_of(st.none(), prob_c)},
        _positive_int,
        examples=8,
    ),
    "lattice_deviation_probability": Spec(
        S.lattice_deviation_probability,
        {"losses": st.lists(st.floats(0, 10), min_size=1, max_size=20), "size": st.integers(1, 500), "tolerance": pos},
        examples=8,
    ),
    "simulate_deviation": Spec(
        S.simulate_deviation,
        {"losses": st.lists(st.floats(0, 10), min_size=1, max_size=20), "size": st.integers(1, 200), "tolerance": pos},
        kwargs={"n_rep": 50},
        examples=6,
    ),
    # acceptance
    "z_value": Spec(A.z_value, {"alpha": prob}),
    "accuracy_sd": Spec(A.accuracy_sd, {"accuracy": prob_c, "n": count1}),
    "within_sd_probability": Spec(A.within_sd_probability, {"accuracy": prob, "n": count1, "k_sd": pos}, _in01),
    "safety_margin": Spec(A.safety_margin, {"required": prob, "n": count1, "alpha": prob}),
    "threshold": Spec(A.threshold, {"required": prob, "n": count1, "alpha": prob}),
    "p_value_normal": Spec(A.p_value_normal, {"correct": count0, "n": count1, "required": prob}, _in01),
    "p_value_exact": Spec(A.p_value_exact, {"correct": count0, "n": count1, "required": prob}, _in01),
    "critical_count": Spec(A.critical_count, {"n": count1, "required": prob, "alpha": prob}, _positive_int),
    "accept": Spec(A.accept, {"correct": count0, "n": count1, "required": prob, "alpha": prob}),
    "actual_level": Spec(A.actual_level, {"n": count1, "required": prob, "alpha": prob}, _in01),
    "acceptance.normal_size": Spec(A.normal_size, {"required": prob, "margin": pos, "alpha": prob}, _positive_int),
    "exact_size": Spec(
        A.exact_size, {"required": prob, "margin": st.floats(0.01, 0.5), "alpha": prob}, _positive_int, examples=8
    ),
    "pass_probability": Spec(
        A.pass_probability, {"true_accuracy": prob_c, "n": count1, "required": prob, "alpha": prob}, _in01
    ),
    "power_normal": Spec(A.power_normal, {"true_accuracy": prob_c, "n": count1, "required": prob, "alpha": prob}, _in01),
    "power_size_normal": Spec(
        A.power_size_normal, {"required": prob, "true_accuracy": prob_c, "alpha": prob, "power": prob}, _positive_int
    ),
    "power_size_exact": Spec(
        A.power_size_exact,
        {"required": st.floats(0.05, 0.9), "true_accuracy": st.floats(0.1, 1.0), "alpha": st.floats(0.001, 0.5)},
        _positive_int,
        examples=8,
    ),
    "class_sample_size": Spec(
        A.class_sample_size, {"n_class": count1, "prevalence": prob, "assurance": prob}, _positive_int
    ),
    "posterior_above": Spec(A.posterior_above, {"correct": count0, "n": count1, "required": prob}, _in01),
    "bayes_null_probability": Spec(
        A.bayes_null_probability, {"correct": count0, "n": count1, "required": prob, "prior_null": prob}, _in01
    ),
    # lost
    "corrected_alpha": Spec(LO.corrected_alpha, {"a_hat": prob_c, "data_accuracy": prob_c, "batches": count1}),
    "article_expectation": Spec(
        LO.article_expectation, {"test_accuracy": prob_c, "data_accuracy": prob_c, "batches": count1}, _in01
    ),
    "estimator_moments": Spec(
        LO.estimator_moments, {"data_accuracy": prob_c, "rows": count1, "test_rows": count1, "batches": count1}
    ),
    "log10_subsets": Spec(LO.log10_subsets, {"rows": count1, "test_rows": count1}),
    "prob_test_set_drawn": Spec(LO.prob_test_set_drawn, {"rows": count1, "test_rows": count1, "batches": count1}, _in01),
    "batches_needed": Spec(LO.batches_needed, {"rows": count1, "test_rows": count1, "probability": prob}),
    "expectation_given_drawn": Spec(
        LO.expectation_given_drawn,
        {"test_accuracy": prob_c, "data_accuracy": prob_c, "rows": count1, "test_rows": count1, "batches": count1},
    ),
    "data_accuracy": Spec(
        LO.data_accuracy,
        {"train_accuracy": prob_c, "test_accuracy": prob_c, "train_rows": count0, "test_rows": count1},
        _in01,
    ),
    "test_accuracy": Spec(
        LO.test_accuracy,
        {"data_accuracy": prob_c, "train_accuracy": prob_c, "train_rows": count0, "test_rows": count1},
        _in01,
    ),
    "test_accuracy_bounds": Spec(
        LO.test_accuracy_bounds, {"data_accuracy": prob_c, "train_rows": count0, "test_rows": count1}, _ordered_pair
    ),
    "test_accuracy_interval": Spec(
        LO.test_accuracy_interval, {"data_accuracy": prob_c, "train_rows": count0, "test_rows": count1}, _ordered_pair
    ),
    "interval_coverage": Spec(
        LO.interval_coverage,
        {"accuracy": prob_c, "train_rows": small1, "test_rows": small1, "train_correct": st.integers(0, 200)},
        _in01,
        examples=8,
    ),
    "fresh_expected_width": Spec(LO.fresh_expected_width, {"fresh_rows": count1, "accuracy": prob_c}, _in01),
    "fresh_rows_for_width": Spec(
        LO.fresh_rows_for_width, {"width": pos, "accuracy": prob_c}, kwargs={"max_rows": 10**5}, allow_inf=True
    ),
    # posterior
    "beta_params": Spec(P.beta_params, {"successes": count0, "failures": count0}),
    "beta_mean": Spec(P.beta_mean, {"a": pos, "b": pos}, _in01),
    "beta_sd": Spec(P.beta_sd, {"a": pos, "b": pos}),
    "article_sd": Spec(P.article_sd, {"successes": count0, "n": count1}),
    "equal_tailed": Spec(P.equal_tailed, {"a": pos, "b": pos, "level": prob}, _ordered_pair),
    "hpd": Spec(P.hpd, {"a": st.floats(1.0, 1e6), "b": st.floats(1.0, 1e6), "level": prob}, _ordered_pair, examples=8),
    "credible_interval": Spec(
        P.credible_interval,
        {"successes": count0, "n": count1, "level": prob},
        _ordered_pair,
    ),
    # losses
    "collared_deviance": Spec(
        L.collared_deviance, {"y": st.sampled_from([0, 1]), "p": prob_c, "mu": st.floats(1e-6, 0.5)}
    ),
    "collared_deviance_range": Spec(L.collared_deviance_range, {"mu": st.floats(1e-6, 0.5)}),
    "zero_one_loss": Spec(L.zero_one_loss, {"y": st.sampled_from([0, 1]), "p": prob_c}, _in01),
    # split
    "optimal_test_fraction": Spec(SP.optimal_test_fraction, {"c_test": pos0, "c_train": pos0}, _in01),
    "optimal_split": Spec(SP.optimal_split, {"c_test": pos0, "c_train": pos0, "rows": st.one_of(st.integers(2, 10**6), st.integers(10**15, _BIG))}),
    "expected_criticism": Spec(
        SP.expected_criticism, {"m_train": pos, "m_test": pos, "c_train": pos0, "c_test": pos0}
    ),
    "lagrange_multiplier": Spec(SP.lagrange_multiplier, {"c_test": pos0, "c_train": pos0, "rows": st.floats(2, 1e12)}),
    "optimal_split_power": Spec(
        SP.optimal_split_power,
        {"c_test": pos, "c_train": pos, "rows": st.integers(2, 10**9), "train_exponent": st.floats(0.1, 3)},
    ),
    # regression
    "mse": Spec(R.mse, {"y": st.lists(real, min_size=2, max_size=20)}, kwargs={"yhat": None}),
    "mse_interval": Spec(
        R.mse_interval,
        {"y": st.lists(real, min_size=2, max_size=20), "level": prob},
        kwargs={"yhat": None},
    ),
}  # fmt: skip


def _call(spec: Spec, values: dict):
    kwargs = dict(spec.kwargs)
    if kwargs.get("yhat", 0) is None:  # regression: predictions of the same length, all zero
        y = values["y"]
        kwargs["yhat"] = np.zeros(len(y)) if isinstance(y, list) else 0.0
        if "level" in values:
            return spec.func(y, kwargs.pop("yhat"), values["level"], **kwargs)
        return spec.func(y, kwargs.pop("yhat"), **kwargs)
    return spec.func(*values.values(), **kwargs)


def _run(spec: Spec, values: dict):
    """Call the function; return ("ok", result) or ("value_error", message), within the limit."""
    start = time.process_time()
    try:
        result = _call(spec, values)
        outcome = ("ok", result)
    except ValueError as exc:
        outcome = ("value_error", str(exc))
    spent = time.process_time() - start
    assert spent < CALL_LIMIT, f"{spec.func.__name__}{values} took {spent:.1f} s"
    return outcome


def _named(message: str, names) -> bool:
    return message.startswith("the size exceeds") or any(name in message for name in names)


@pytest.mark.parametrize("name", list(SPECS))
def test_random_valid_and_invalid_input(name):
    spec = SPECS[name]

    @settings(
        max_examples=spec.examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(data=st.data())
    def inner(data):
        values = {arg: data.draw(strategy, label=arg) for arg, strategy in spec.args.items()}
        corrupt = data.draw(st.sampled_from([None, *spec.args]), label="corrupt")
        if corrupt is not None:
            bad = data.draw(BAD, label="bad value")
            values[corrupt] = bad
        kind, result = _run(spec, values)
        if kind == "value_error":
            names = list(spec.args) + list(spec.kwargs)
            assert _named(result, names), f"{name}{values}: message names no argument: {result}"
            assert "array(" not in result, result
            return
        if corrupt is not None and not _accepts(corrupt, values[corrupt], spec):
            pytest.fail(f"{name} accepted {corrupt}={values[corrupt]!r}, returned {result!r}")
        assert _numbers_ok(result, spec.allow_inf), f"{name}{values} returned {result!r}"
        if spec.check is not None:
            assert spec.check(result, values), f"{name}{values} out of range: {result!r}"

    inner()


def _accepts(arg, bad, spec) -> bool:
    """Bad values some arguments legitimately accept (documented, e.g. -1 for a real c0)."""
    if isinstance(bad, float) and not math.isnan(bad) and not math.isinf(bad) and bad == 2.5:
        return arg in ("range_", "tolerance", "k_sd", "width", "margin", "a", "b", "c_test", "c_train",
                       "m_train", "m_test", "variance", "sample_variance", "rows", "train_exponent", "y",
                       "losses", "real")  # fmt: skip
    if bad in (-1, -0.5) and arg in ("y", "losses"):
        return True
    if bad == 2**63 and arg in ("range_", "tolerance", "k_sd", "width", "a", "b", "c_test", "c_train", "variance", "sample_variance",
                                 "m_train", "m_test", "rows", "train_exponent", "y"):  # fmt: skip
        return True
    if bad == 1e300 and arg in ("range_", "tolerance", "k_sd", "width", "a", "b", "c_test", "c_train",
                                "m_train", "m_test", "rows", "train_exponent", "y", "losses",
                                "variance", "sample_variance"):  # fmt: skip
        return True
    return False


# ----------------------------------------------------------------- monotone where the maths says so
@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    k=st.integers(0, 10**6),
    m=st.one_of(st.integers(1, 10**6), st.integers(10**6, 10**18)),
    delta=prob,
)
def test_bounds_are_monotone_in_k(k, m, delta):
    k = min(k, m - 1)
    for f in (B.exact_upper, B.exact_lower, B.kl_upper, B.kl_lower):
        assert f(k, m, delta) <= f(k + 1, m, delta), f.__name__
    assert B.exact_lower(k, m, delta) <= k / m <= B.exact_upper(k, m, delta)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(t=st.floats(1e-4, 0.5), eps=prob, u=st.floats(0.1, 100))
def test_sizes_shrink_as_the_tolerance_grows(t, eps, u):
    try:
        big, small = S.hoeffding_size(u, t, eps), S.hoeffding_size(u, 2 * t, eps)
    except ValueError as exc:
        assert str(exc).startswith("the size exceeds")
        return
    assert small <= big


@settings(max_examples=20, deadline=None, derandomize=True)
@given(n=st.integers(1, 10**9), rho=st.floats(1e-3, 0.999), g=st.floats(0.01, 0.999))
def test_class_sample_size_grows_with_the_class_count(n, rho, g):
    try:
        a, b = A.class_sample_size(n, rho, g), A.class_sample_size(n + 1, rho, g)
    except ValueError as exc:
        assert str(exc).startswith("the size exceeds")
        return
    assert a <= b


# ----------------------------------------------------------------- the commands
def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse refusals
            code = exc.code
    assert time.process_time() - start < CALL_LIMIT, argv
    return code, out.getvalue(), err.getvalue()


def _token(value):
    return value if isinstance(value, str) else repr(value)


number = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-5, 10**6),
    st.sampled_from(["1e9", "1e300", "-0", "nan", "x", "9223372036854775808", "0.05", "1_000"]),
)
COMMANDS = {
    "bound": (["bound"], ["--errors", "--n", "--delta", "--level"]),
    "accept": (["accept"], ["--correct", "--n", "--required", "--alpha"]),
    "lost": (["lost"], ["--data-accuracy", "--train-rows", "--test-rows", "--level"]),
    "size hoeffding": (["size", "hoeffding"], ["--range", "--tolerance", "--epsilon"]),
    "size bernstein": (
        ["size", "bernstein"],
        ["--range", "--variance", "--tolerance", "--epsilon"],
    ),
    "size binomial": (["size", "binomial"], ["--tolerance", "--epsilon", "--p"]),
    "size normal": (["size", "normal"], ["--variance", "--tolerance", "--epsilon"]),
    "size accuracy": (["size", "accuracy"], ["--required", "--margin", "--alpha"]),
    "split": (["split"], ["--c-test", "--c-train", "--rows"]),
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_commands_answer_or_refuse_in_one_line(command):
    head, options = COMMANDS[command]

    @settings(max_examples=25, deadline=None, derandomize=True)
    @given(data=st.data())
    def inner(data):
        argv = list(head)
        for option in options:
            if data.draw(st.booleans(), label=f"give {option}"):
                argv += [option, _token(data.draw(number, label=option))]
        argv.append("--json")
        code, out, err = _cli(argv)
        if code == 0:
            assert err == ""
            result = json.loads(out)
            assert "null" not in out and _numbers_ok(result, False), out
        else:
            assert code == 2, (argv, code, err)
            assert out == "" and len(err.splitlines()) == 1, (argv, err)
            assert "Traceback" not in err and "Warning" not in err and "array(" not in err

    inner()
