"""Wald's sequential probability ratio test for an accuracy: simple against simple.

The SPRT :cite:`wald1945` compares two accuracies fixed in advance, the
required :math:`\\pi_0` and a *target* :math:`\\pi_1 > \\pi_0` at which the model
should pass.  After :math:`n` labels with :math:`S_n` correct, the log
likelihood ratio is

.. math:: \\log\\Lambda_n = S_n D - n g, \\qquad
   D = \\log\\frac{\\pi_1(1-\\pi_0)}{\\pi_0(1-\\pi_1)},\\quad g = \\log\\frac{1-\\pi_0}{1-\\pi_1},

and the test passes when :math:`\\log\\Lambda_n \\ge \\log A`, fails when
:math:`\\log\\Lambda_n \\le \\log B` and continues otherwise.  In counts: pass when
:math:`S_n \\ge (\\log A + n g)/D`, fail when :math:`S_n \\le (\\log B + n g)/D` —
two parallel lines of slope :math:`g/D`.

Boundaries (``method=``; ``boundaries=`` is its deprecated name):

``"wald"``
    Wald's :math:`A = (1-\\beta)/\\alpha`, :math:`B = \\beta/(1-\\alpha)`.  They ignore
    the overshoot of the last step, so the true error rates are only bounded by
    :math:`\\alpha/(1-\\beta)` and :math:`\\beta/(1-\\alpha)` (and their sum by
    :math:`\\alpha+\\beta`); in practice they are a little below :math:`\\alpha`, :math:`\\beta`.
``"ville"``
    :math:`A = 1/\\alpha`, :math:`B = \\beta`: by Ville's inequality :cite:`ville1939`
    the error rates are at most :math:`\\alpha` and :math:`\\beta` exactly, at a
    small cost in labels.

What the guarantee covers: the probability of passing when
:math:`\\pi \\le \\pi_0` (at most the rate at :math:`\\pi_0`, the likelihood ratio being
monotone in :math:`S_n`) and of failing when :math:`\\pi \\ge \\pi_1`, with the
stopping rule followed as designed.  What it does not cover: accuracies
between :math:`\\pi_0` and :math:`\\pi_1` (an *indifference zone*, where the
pass rate slides from about :math:`\\alpha` to about :math:`1-\\beta`; it is not one half
at the midpoint: with :math:`\\alpha = 0.01`, :math:`\\beta = 0.2`, :math:`\\pi_0 = 0.80`
and :math:`\\pi_1 = 0.83`, a model at 0.815 passes 26 % of the time, by
:func:`sprt_operating`, because the pass line lies farther from the start than the fail
line), a target chosen after
seeing data, continuing after a decision, or a confidence statement about the
accuracy itself (the SPRT gives none).  For those, use the confidence-sequence
rule of :mod:`heldout.sequential.decide`.

:func:`sprt_operating` computes the exact operating characteristic and the
expected number of labels by dynamic programming over :math:`(n, S_n)`;
:func:`sprt_wald` gives Wald's classical approximations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heldout._checks import show
from heldout._deprecate import renamed
from heldout._result import Result, extra
from heldout.sequential import _inputs

__all__ = [
    "SPRTBoundaries",
    "SPRTOperating",
    "sprt",
    "sprt_boundaries",
    "sprt_operating",
    "sprt_wald",
]

_WORDS = np.array(["continue", "pass", "fail"])
#: Largest number of labels the exact operating characteristic follows.
MAX_HORIZON = 10_000_000


def _setup(required, target, alpha, beta, method):
    for name, value in (("required", required), ("target", target)):
        _inputs.scalar(value, name)
    p0 = float(_inputs.as_probability(required, "required"))
    p1 = float(_inputs.as_probability(target, "target"))
    if p1 <= p0:
        raise ValueError(
            f"target must exceed required (the accuracy the model should pass at), got "
            f"target={show(target)} and required={show(required)}"
        )
    a = _inputs.alpha_(alpha)
    b = _inputs.alpha_(beta, "beta")
    if a + b >= 1:
        raise ValueError(
            f"alpha + beta must be below 1, got alpha={show(alpha)} and beta={show(beta)}"
        )
    if isinstance(method, str) and method == "wald":
        log_a, log_b = np.log((1 - b) / a), np.log(b / (1 - a))
    elif isinstance(method, str) and method == "ville":
        log_a, log_b = np.log(1 / a), np.log(b)
    else:
        raise ValueError(f"method must be 'wald' or 'ville', got {show(method)}")
    d = np.log(p1 * (1 - p0) / (p0 * (1 - p1)))
    g = np.log((1 - p0) / (1 - p1))
    return p0, p1, a, b, float(log_a), float(log_b), float(d), float(g)


@dataclass(frozen=True)
class SPRTBoundaries(Result):
    """Count lines of the SPRT; unpacks as ``(fail_at, pass_at)``.

    After ``n`` labels the test fails when the number correct is at most
    ``fail_at`` and passes when it is at least ``pass_at`` (real numbers: the
    lines themselves).
    """

    fail_at: np.ndarray
    pass_at: np.ndarray
    log_a: float = extra()
    log_b: float = extra()
    slope: float = extra()


@renamed(boundaries="method")
def sprt_boundaries(
    n, required: float, target: float, alpha: float = 0.05, beta: float = 0.2, *, method="wald"
) -> SPRTBoundaries:
    """The SPRT's fail and pass lines in counts after ``n`` labels.

    .. math:: \\text{fail if } S_n \\le \\frac{\\log B + n g}{D},\\qquad
              \\text{pass if } S_n \\ge \\frac{\\log A + n g}{D}

    (notation of the module docstring) :cite:`wald1945`.

    Examples
    --------
    >>> b = sprt_boundaries([100, 1000], 0.8, 0.85, 0.05, 0.2)
    >>> b.fail_at.round(2).tolist(), b.pass_at.round(2).tolist()
    ([78.12, 821.47], [90.55, 833.9])
    """
    *_, log_a, log_b, d, g = _setup(required, target, alpha, beta, method)
    m = _inputs.as_count(n, "n")
    return SPRTBoundaries((log_b + m * g) / d, (log_a + m * g) / d, log_a, log_b, g / d)


@dataclass(frozen=True)
class SPRTResult(Result):
    """Outcome of :func:`sprt`; unpacks as ``(decision, n)``; ``log_lr`` after each label."""

    decision: str | np.ndarray
    n: int | np.ndarray
    log_lr: np.ndarray = extra()


@renamed(boundaries="method")
def sprt(
    x, required: float, target: float, alpha: float = 0.05, beta: float = 0.2, *, method="wald"
) -> SPRTResult:
    """Run Wald's SPRT on 0/1 outcomes in labelling order; stop at the first decision.

    Parameters
    ----------
    x : array_like
        Outcomes (1 = correct), 1-D, or 2-D with one run per row.
    required, target : float
        :math:`\\pi_0` and :math:`\\pi_1 > \\pi_0`.
    alpha, beta : float
        Intended probabilities of passing at :math:`\\pi_0` and of failing at :math:`\\pi_1`.
    method : str
        ``"wald"`` or ``"ville"`` (see the module docstring).

    Examples
    --------
    >>> sprt([1] * 30, 0.8, 0.9, 0.05, 0.2).decision
    'pass'
    """
    *_, log_a, log_b, d, g = _setup(required, target, alpha, beta, method)
    arr = _inputs.outcomes(x)
    if np.any((arr != 0) & (arr != 1)):
        raise ValueError(
            "x must hold 0/1 outcomes for the SPRT (a likelihood ratio of Bernoulli models)"
        )
    runs = arr.reshape(1, -1) if arr.ndim == 1 else arr
    steps = np.arange(1, runs.shape[1] + 1)
    log_lr = np.cumsum(runs, axis=1) * d - steps * g
    code = np.where(log_lr >= log_a, 1, np.where(log_lr <= log_b, 2, 0))
    hit = code.any(axis=1)
    first = np.argmax(code != 0, axis=1)
    n = np.where(hit, first + 1, runs.shape[1])
    words = _WORDS[np.where(hit, code[np.arange(len(first)), first], 0)]
    if arr.ndim == 1:
        return SPRTResult(str(words[0]), int(n[0]), log_lr[0])
    return SPRTResult(words, n, log_lr)


@dataclass(frozen=True)
class SPRTOperating(Result):
    """Exact behaviour of the SPRT; unpacks as ``(pass_probability, fail_probability, expected_n)``."""

    pass_probability: float | np.ndarray
    fail_probability: float | np.ndarray
    expected_n: float | np.ndarray
    undecided: float | np.ndarray = extra()
    horizon: int = extra()


@renamed(boundaries="method")
def sprt_operating(
    accuracy,
    required: float,
    target: float,
    alpha: float = 0.05,
    beta: float = 0.2,
    *,
    method="wald",
    horizon: int = 1_000_000,
    tolerance: float = 1e-12,
) -> SPRTOperating:
    """Exact probabilities of passing and failing, and the expected number of labels.

    Dynamic programming over the number correct :math:`S_n`: the probabilities
    of the counts still between the lines are carried from :math:`n` to
    :math:`n+1` (:math:`S_{n+1} = S_n + x_{n+1}`), and the mass that crosses a
    line is added to passing or failing.  The expected number of labels is
    :math:`E[N] = \\sum_{n \\ge 0} P(N > n)`.  The recursion stops when less than
    ``tolerance`` of the mass is still undecided (reported as ``undecided``) or
    after ``horizon`` labels.  Vectorised over ``accuracy`` (the lines are the
    same for every accuracy); a Python loop runs over labels.

    Examples
    --------
    >>> op = sprt_operating([0.8, 0.85], 0.8, 0.85, 0.05, 0.2)
    >>> op.pass_probability.round(4).tolist(), op.expected_n.round(0).tolist()
    ([0.0498, 0.8201], [160.0, 239.0])
    """
    *_, log_a, log_b, d, g = _setup(required, target, alpha, beta, method)
    p = _inputs.as_probability(accuracy, "accuracy", closed=True)
    if p.ndim > 1:
        raise ValueError(f"accuracy must be a number or a 1-D array, got {show(accuracy)}")
    scalar = p.ndim == 0
    p = np.atleast_1d(p).astype(float)
    limit = _inputs.whole(horizon, "horizon")
    if limit > MAX_HORIZON:
        raise ValueError(f"horizon must be at most {MAX_HORIZON:,}, got {show(horizon)}")
    # a tolerance <= 0 or NaN is never met: the loop would run to the horizon every time
    tolerance = float(_inputs.as_probability(tolerance, "tolerance", scalar=True))
    prob = np.ones((p.size, 1))  # P(S_n = base + j, no decision yet)
    base = 0
    passed = np.zeros(p.size)
    failed = np.zeros(p.size)
    expected = np.zeros(p.size)
    for n in range(1, limit + 1):
        expected += prob.sum(axis=1)  # P(N > n - 1)
        grown = np.zeros((p.size, prob.shape[1] + 1))
        grown[:, :-1] += prob * (1 - p)[:, None]
        grown[:, 1:] += prob * p[:, None]
        log_lr = (base + np.arange(grown.shape[1])) * d - n * g
        up = log_lr >= log_a
        down = log_lr <= log_b
        passed += grown[:, up].sum(axis=1)
        failed += grown[:, down].sum(axis=1)
        keep = np.flatnonzero(~up & ~down)
        if keep.size == 0:
            prob = np.zeros((p.size, 0))
            break
        prob = grown[:, keep[0] : keep[-1] + 1]
        base += int(keep[0])
        if prob.sum(axis=1).max() < tolerance:
            break
    rest = prob.sum(axis=1)
    out = [passed, failed, expected + 0.0, rest]
    if scalar:
        out = [float(v[0]) for v in out]
    return SPRTOperating(*out, n)


# Its first arguments repeat sprt_operating's (both public: Wald's approximations beside the
# exact probabilities); both read the test's constants from _setup.
@renamed(boundaries="method")
def sprt_wald(
    accuracy,
    required: float,
    target: float,
    alpha: float = 0.05,
    beta: float = 0.2,
    *,
    method="wald",
) -> SPRTOperating:
    """Wald's approximations to the SPRT's pass probability and expected number of labels.

    With :math:`z = x D - g` the log likelihood ratio of one label, let
    :math:`h \\ne 0` solve :math:`E_\\pi[e^{h z}] = \\pi r_1^h + (1-\\pi) r_0^h = 1`
    (:math:`r_1 = \\pi_1/\\pi_0`, :math:`r_0 = (1-\\pi_1)/(1-\\pi_0)`).  Neglecting the
    overshoot at the boundaries :cite:`wald1945`,

    .. math:: P(\\text{fail}) \\approx \\frac{A^h - 1}{A^h - B^h},\\qquad
              E[N] \\approx \\frac{P(\\text{fail})\\log B + P(\\text{pass})\\log A}{E_\\pi[z]},

    and :math:`E[N] \\approx -\\log A\\log B / E_\\pi[z^2]` where :math:`E_\\pi[z] = 0`.
    These are approximations; :func:`sprt_operating` is exact.

    Examples
    --------
    >>> w = sprt_wald(0.8, 0.8, 0.85, 0.05, 0.2)
    >>> round(w.pass_probability, 4)
    0.05
    """
    p0, p1, a, b, log_a, log_b, d, g = _setup(required, target, alpha, beta, method)
    p = _inputs.as_probability(accuracy, "accuracy", closed=True)
    if p.ndim > 1:
        raise ValueError(f"accuracy must be a number or a 1-D array, got {show(accuracy)}")
    scalar = p.ndim == 0
    p = np.atleast_1d(p).astype(float)
    lr1, lr0 = np.log(p1 / p0), np.log((1 - p1) / (1 - p0))  # log r1 > 0 > log r0
    mean_z = p * d - g
    # h solves p e^{h lr1} + (1-p) e^{h lr0} = 1 with h != 0; its sign is minus that of E[z]
    lo = np.where(mean_z < 0, 1e-9, -200.0)
    hi = np.where(mean_z < 0, 200.0, -1e-9)

    def f(hh):
        return np.log(p * np.exp(hh * lr1) + (1 - p) * np.exp(hh * lr0))

    right = mean_z < 0  # the root is at a positive h
    for _ in range(200):
        mid = (lo + hi) / 2
        pos = f(mid) > 0  # f is convex with f(0) = 0: positive beyond the root
        hi = np.where(right == pos, mid, hi)
        lo = np.where(right != pos, mid, lo)
    h = (lo + hi) / 2
    zero = np.abs(mean_z) < 1e-12
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        ah, bh = np.exp(h * log_a), np.exp(h * log_b)
        fail = np.where(zero, log_a / (log_a - log_b), (ah - 1) / (ah - bh))
        fail = np.where(np.isfinite(fail), fail, np.where(mean_z < 0, 1.0, 0.0))
        asn = np.where(
            zero,
            -log_a * log_b / (p * lr1**2 + (1 - p) * lr0**2),
            (fail * log_b + (1 - fail) * log_a) / np.where(zero, 1.0, mean_z),
        )
    out = [1 - fail, fail, asn, np.zeros(p.size)]
    if scalar:
        out = [float(v[0]) for v in out]
    return SPRTOperating(*out, 0)
