"""The keyword-argument sweep of every public callable (issue 44): the worker and its rules.

Every public callable with a property spec (``test_properties.SPECS``,
``test_properties_modules.SPECS``) is first called once with valid arguments drawn from
its spec; the arguments it actually receives, defaults included, are read at the entry of
its own code (``sys.setprofile``), so that wrappers and fixed keyword arguments of a spec
end up as plain keyword arguments of the public function.  Then every parameter, one at a
time, is replaced by each value of :data:`HOSTILE` and the function is called again by
keyword.  An outcome passes when it is

* a refusal: ``ValueError`` or ``TypeError`` with a one-line message that names the
  parameter (or an alias of the spec, or says "the size exceeds") and quotes no numpy
  repr; or
* a result, when the parameter's kind accepts the value (:func:`kind_of`: the spec's
  kind, else one inferred from the annotation) and every number in it is finite (or NaN
  or infinite where the spec documents it).

Anything else fails: another exception type (``AttributeError``, ``IndexError``,
``OverflowError``, ``KeyError``, ``MemoryError`` ...), a call over :data:`CALL_SECONDS`,
a refusal that names nothing or spans lines.  The worker runs under an address-space cap
(:data:`MEMORY_BYTES`, ``RLIMIT_AS``) and a per-call alarm; the test that starts it
(``test_keyword_sweep.py``) also kills and restarts it if a call stops answering, so a
hang in C code is reported as a hang of that call.

Run by hand: ``python tests/keyword_sweep.py [--only NAME] [--start ID]``: one JSON line
per call that fails, progress lines ``S id``, and a last line ``DONE {...}``.
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import sys
import time
import warnings

import numpy as np

#: Seconds of CPU time one call may take (``ITIMER_PROF``: the limit does not move with
#: the load of a shared machine; a call blocked without using CPU is caught by the
#: parent's watchdog instead).
CALL_SECONDS = 2.0
#: The worker's address-space cap: an allocation beyond it is a MemoryError, reported.
MEMORY_BYTES = 3 * 2**30

#: One hostile value at a time, in this order (the label is what a report prints).
HOSTILE = (
    ("nan", float("nan")),
    ("inf", float("inf")),
    ("-1", -1),
    ("0", 0),
    ("2.5", 2.5),
    ("10**12", 10**12),
    ("True", True),
    ("False", False),
    ("'many'", "many"),
    ("None", None),
    ("empty", np.empty(0)),
    ("2-D", np.ones((2, 2))),
    ("1+1j", complex(1, 1)),
)

#: Public callables with a spec whose parameters the keyword sweep leaves alone, and why.
#: (Callables without any spec are in ``test_properties_modules.DRIVEN_ELSEWHERE``.)
SKIPPED = {
    "heldout.accuracy.split.LogisticPopulation": "a frozen record of arrays built by "
    "logistic_population (swept through it); its spec does not corrupt",
    "heldout.book.mnist.standin.standin_pool": "fits two models on 898 digits (about 2 s a "
    "call, over the per-call limit); its one argument goes through config.rng (swept)",
}


#: Parameters that hold free text (names used in messages, file names), not a choice.
TEXT = ("name", "note", "source", "given", "title", "label", "path", "prefix", "what", "missing")

#: Values a parameter accepts beyond its kind, where the kind alone would refuse them.
ACCEPTS = {
    # Student's t with infinitely many degrees of freedom is the normal distribution
    ("heldout.metrics.bootstrap.bca_interval", "df"): (float("inf"),),
}


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException, so ``except Exception`` in a callee cannot eat it."""


def _alarm(_signum, _frame):
    raise _Timeout


# ----------------------------------------------------------------------------- kinds
def kind_of(param: inspect.Parameter, spec, owner: str = "") -> tuple[str, tuple]:
    """The kind of a parameter (``property_support`` kinds) and the values it also accepts."""
    kind, accepts = _kind_of(param, spec)
    return kind, accepts + ACCEPTS.get((owner, param.name), ())


def _kind_of(param: inspect.Parameter, spec) -> tuple[str, tuple]:
    from property_support import prob_c

    arg = spec.args.get(param.name) if spec is not None else None
    if arg is not None and arg.kind != "fixed":
        if arg.kind == "prob" and arg.strategy is prob_c:
            return "prob_closed", arg.accepts  # drawn from [0, 1]: 0 and 1 are valid
        return arg.kind, arg.accepts
    ann = param.annotation
    text = ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann))
    text = text.replace(" ", "")
    optional = "None" in text or param.default is None
    accepts = (None,) if optional else ()
    if param.name in ("seed", "rng", "random_state"):
        return "seed", accepts
    if text == "bool" or isinstance(param.default, bool):
        return "flag", ()
    if text in ("int", "int|None") and param.name not in ("digits",):
        return "count", accepts
    if text in ("float", "float|None"):
        if param.name in ("alpha", "level", "power", "prevalence", "assurance", "confidence"):
            return "prob", accepts
        return "real", accepts
    if param.name in TEXT:
        return "array", ()  # free text (a label, a file name): any value may be quoted
    if text in ("str", "str|None") or "Literal" in text:
        return "choice", accepts
    return "array", ()


#: Probabilities that must lie strictly inside (0, 1): an error level or a power.
STRICT = ("alpha", "level", "power", "assurance", "confidence", "beta", "delta")


def _accepted_ok(kind: str, value, extra: tuple, name: str = "") -> bool:
    """May a parameter of this kind take this value (arrays: where every element may)?

    The functions broadcast their numeric arguments, so an array of valid numbers (or an
    empty one) is a valid argument of a numeric kind; never of a flag, choice or seed.
    A probability other than an error level or a power may be 0 or 1 (a share, a weight,
    a sensitivity: the specs draw most of them from the open interval only).
    """
    from property_support import accepted_ok

    if isinstance(value, np.ndarray):
        if kind in ("flag", "choice", "seed"):
            return False
        return all(_accepted_ok(kind, float(x), extra, name) for x in value.ravel())
    closed = kind == "prob_closed" or (kind == "prob" and name not in STRICT)
    if closed and not isinstance(value, bool) and value in (0, 1):
        return True
    return accepted_ok("prob" if kind == "prob_closed" else kind, value, extra)


# ----------------------------------------------------------------------------- baselines
def _target(obj):
    """The function whose entry frame holds the arguments: the unwrapped function or __init__."""
    if inspect.isclass(obj):
        init = obj.__dict__.get("__init__") or getattr(obj, "__init__", None)
        return inspect.unwrap(init) if inspect.isfunction(init) else None
    return inspect.unwrap(obj)


def _capture(spec, values, code):
    """Call the spec once; the arguments of the first entry into ``code`` (or None)."""
    from property_support import call

    seen = {}

    def profile(frame, event, _arg):
        if event == "call" and frame.f_code is code and "__entered__" not in seen:
            seen.update(frame.f_locals)
            seen["__entered__"] = True

    sys.setprofile(profile)
    try:
        call(spec, values)
    finally:
        sys.setprofile(None)
    if not seen:
        return None
    del seen["__entered__"]
    return seen


def baseline(spec, obj):
    """Keyword arguments of one valid call of ``obj`` (defaults included), or a reason why not."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    target = _target(obj)
    if target is None:
        return None, "no Python __init__ to read the arguments from"
    found = {}

    def works(values):
        values = dict(values)
        if spec.prepare is not None:
            values = spec.prepare(values)
        try:
            seen = _capture(spec, values, target.__code__)
        except Exception:  # noqa: BLE001 - an invalid draw (a relation between arguments): next
            return False
        if seen is None:
            return False
        found.clear()
        found.update(seen)
        return True

    strategy = st.fixed_dictionaries({name: arg.strategy for name, arg in spec.args.items()})
    try:
        find(
            strategy,
            works,
            settings=settings(
                max_examples=12,
                deadline=None,
                derandomize=True,
                database=None,
                phases=[Phase.generate],
                suppress_health_check=list(HealthCheck),
            ),
        )
    except NoSuchExample:
        return None, "no valid call in 12 draws of its spec"
    sig = inspect.signature(target)
    kwargs = {}
    for name, param in sig.parameters.items():
        if name in ("self", "cls") and param.kind is param.POSITIONAL_OR_KEYWORD:
            continue
        if param.kind is param.VAR_POSITIONAL:
            if found.get(name):
                return None, "takes *args"
            continue
        if param.kind is param.VAR_KEYWORD:
            kwargs.update(found.get(name) or {})
            continue
        if param.kind is param.POSITIONAL_ONLY:
            return None, "has positional-only parameters"
        kwargs[name] = found[name]
    return kwargs, None


# ----------------------------------------------------------------------------- one call
REPRS = ("array(", "np.float64(", "np.int64(", "np.True_", "np.False_", "dtype=")


def judge(obj, spec, kwargs, name, value, params, owner: str = "") -> str | None:
    """Call ``obj(**kwargs)`` with ``kwargs[name] = value``; None if the outcome passes."""
    from property_support import numbers_ok

    trial = dict(kwargs)
    trial[name] = value
    signal.setitimer(signal.ITIMER_PROF, CALL_SECONDS)
    try:
        result = obj(**trial)
    except _Timeout:
        return f"took more than {CALL_SECONDS:g} s of CPU time"
    except (ValueError, TypeError) as exc:
        message = str(exc)
        kind = type(exc).__name__
        aliases = spec.aliases if spec is not None else ()
        quoted = [v for v in trial.values() if isinstance(v, str) and len(v) > 3]
        if "\n" in message.strip():
            return f"{kind} over several lines: {message[:160]!r}"
        if any(r in message for r in REPRS):
            return f"{kind} quoting a numpy repr: {message[:160]!r}"
        if not (
            message.startswith("the size exceeds")
            or name in message
            or any(a in message for a in aliases)
            or any(q in message for q in quoted)
        ):
            others = [p for p in params if p != name and p in message]
            kind_, extra = kind_of(params[name], spec, owner)
            if not (others and _accepted_ok(kind_, value, extra, name)):
                return f"{kind} not naming {name}: {message[:160]!r}"
        return None
    except Exception as exc:  # noqa: BLE001 - the defect this sweep looks for
        return f"{type(exc).__name__}: {str(exc)[:160]!r}"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        _close_figures()
    kind_, extra = kind_of(params[name], spec, owner)
    if not _accepted_ok(kind_, value, extra, name):
        return f"accepted (a {kind_}) and returned {_short(result)}"
    allow_inf = spec.allow_inf if spec is not None else False
    allow_nan = spec.allow_nan if spec is not None else False
    try:
        fine = numbers_ok(result, allow_inf, allow_nan)
    except Exception:  # noqa: BLE001 - a result that cannot be read is fine (not numbers)
        fine = True
    if not fine:
        return f"returned non-finite numbers: {_short(result)}"
    return None


def _short(result) -> str:
    text = " ".join(repr(result).split())
    return text[:120]


def _close_figures():
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


# ----------------------------------------------------------------------------- the plan
def plan():
    """``[(public name, callable, spec or None)]`` in a fixed order, and the skipped ones."""
    import surface
    import test_properties as core
    import test_properties_modules as modules

    specs = {f"heldout.{k}": v for k, v in core.SPECS.items()}
    specs.update({f"heldout.{k}": v for k, v in modules.SPECS.items()})
    public = surface.public()
    todo, skipped = [], {}
    for name in sorted(public):
        if name in modules.DRIVEN_ELSEWHERE:
            skipped[name] = "DRIVEN_ELSEWHERE: " + modules.DRIVEN_ELSEWHERE[name]
        elif name in SKIPPED:
            skipped[name] = SKIPPED[name]
        elif name not in specs:
            skipped[name] = "NO SPEC"
        else:
            todo.append((name, public[name], specs[name]))
    return todo, skipped


def main(argv: list[str]) -> int:
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    start = int(argv[argv.index("--start") + 1]) if "--start" in argv else 0
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    except (ImportError, ValueError, OSError):
        pass
    import matplotlib

    matplotlib.use("Agg")
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGPROF, _alarm)
    np.seterr(all="ignore")
    out = sys.stdout
    begun = time.perf_counter()
    todo, skipped = plan()
    calls = 0
    ident = 0
    no_baseline = {}
    slow = {}
    for name, obj, spec in todo:
        if only and only != name:
            continue
        target = _target(obj)
        sig = inspect.signature(target) if target is not None else None
        count = (
            0
            if sig is None
            else sum(
                1
                for p in sig.parameters.values()
                if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in ("self", "cls")
            )
        )
        block = count * len(HOSTILE)
        if ident + block <= start:
            ident += block
            continue
        try:
            kwargs, why = baseline(spec, obj)
        except Exception as exc:  # noqa: BLE001
            kwargs, why = None, f"baseline raised {type(exc).__name__}: {exc}"
        if kwargs is None:
            no_baseline[name] = why
            ident += block
            continue
        params = {p: sig.parameters[p] for p in kwargs if p in sig.parameters}
        began = time.perf_counter()
        for param in [p for p in sig.parameters if p in kwargs]:
            for label, value in HOSTILE:
                if ident < start:
                    ident += 1
                    continue
                print(f"S {ident} {name} {param}={label}", file=out, flush=True)
                problem = judge(obj, spec, kwargs, param, value, params, name)
                calls += 1
                if problem:
                    line = {"name": name, "param": param, "value": label, "problem": problem}
                    print("F " + json.dumps(line), file=out, flush=True)
                ident += 1
        slow[name] = time.perf_counter() - began
    summary = {
        "calls": calls,
        "seconds": round(time.perf_counter() - begun, 1),
        "cpu_seconds": round(time.process_time(), 1),
        "skipped": skipped,
        "no_baseline": no_baseline,
        "functions": len(todo),
        "slowest": {k: round(v, 2) for k, v in sorted(slow.items(), key=lambda kv: -kv[1])[:25]},
    }
    print("DONE " + json.dumps(summary), file=out, flush=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main(sys.argv[1:]))
