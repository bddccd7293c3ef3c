"""Sequential acceptance: label until the model clearly passes or clearly fails.

The fixed-size acceptance test (:mod:`heldout.accuracy.acceptance`) fixes :math:`n`,
labels :math:`n` items and passes the model when the exact one-sided binomial
test rejects :math:`H_0: \\pi \\le \\pi_0`.  Looking at the score before the
:math:`n` labels are in, and stopping when it "clearly passes", breaks its
level.  The sequential rule here may be checked after every label:

* **pass** as soon as the lower confidence sequence at level :math:`\\alpha`
  exceeds the required accuracy :math:`\\pi_0`;
* **fail** as soon as the upper confidence sequence at level :math:`\\beta`
  falls below it;
* otherwise **continue** labelling.

Guarantee, under continuous monitoring and any stopping rule: a model whose
true accuracy is at most :math:`\\pi_0` ever passes with probability at most
:math:`\\alpha`, and one whose true accuracy is at least :math:`\\pi_0` ever fails
with probability at most :math:`\\beta`.  Each one-sided sequence is a test
martingale (an e-process) at :math:`\\pi_0` compared with :math:`1/\\alpha`
(Ville's inequality :cite:`ville1939`; :cite:`ramdas2023gametheoretic`,
:cite:`waudbysmith2024betting`); with the betting method the lower side passes
exactly when the capital bet against :math:`\\pi \\le \\pi_0` reaches :math:`1/\\alpha`
(up to the grid's conservative rounding).  For every true accuracy other than
:math:`\\pi_0` a decision comes with probability one, and the closer the truth is
to :math:`\\pi_0` the longer it takes; at :math:`\\pi = \\pi_0` exactly it may never
come, which is why a budget (a largest number of labels) belongs to the plan.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heldout._checks import check_elements
from heldout._result import Result, extra
from heldout.config import rng as make_rng
from heldout.sequential import _inputs
from heldout.sequential.confidence import make_engine
from heldout.sequential.mixture import DEFAULT_PRIOR

__all__ = [
    "AcceptanceMonitor",
    "LabelsToDecision",
    "SequentialDecision",
    "labels_to_decision",
    "sequential_accept",
]

_WORDS = np.array(["continue", "pass", "fail"])


@dataclass(frozen=True)
class SequentialDecision(Result):
    """Outcome of sequential acceptance; unpacks as ``(decision, n, low, high)``.

    ``decision`` is ``"pass"``, ``"fail"`` or ``"continue"``; ``n`` the number of
    labels used (at the decision, or all of them); ``low`` and ``high`` the
    one-sided bounds after ``n`` labels (arrays for several runs).
    """

    decision: str | np.ndarray
    n: int | np.ndarray
    low: float | np.ndarray
    high: float | np.ndarray
    method: str = extra()
    required: float = extra()
    alpha: float = extra()
    beta: float = extra()


def _check(required, alpha, beta, method, pool):
    _inputs.scalar(required, "required")
    p0 = float(_inputs.as_probability(required, "required"))
    a = _inputs.alpha_(alpha)
    b = a if beta is None else _inputs.alpha_(beta, "beta")
    return p0, a, b, _inputs.method_(method), _inputs.pool(pool)


def _codes(lower: np.ndarray, upper: np.ndarray, required: float) -> np.ndarray:
    """0 = continue, 1 = pass, 2 = fail (pass checked first)."""
    return np.where(lower > required, 1, np.where(upper < required, 2, 0))


class AcceptanceMonitor:
    """Sequential acceptance fed labels as they arrive (used by ``heldout label``).

    Parameters are those of :func:`sequential_accept`; ``runs`` sequences may be
    updated side by side.  After a run has decided, further outcomes do not
    change its decision.

    Examples
    --------
    >>> monitor = AcceptanceMonitor(required=0.8, alpha=0.01)
    >>> monitor.update([1] * 30).decision
    'continue'
    >>> monitor.update([1] * 30).decision, monitor.n
    ('pass', 49)
    """

    def __init__(self, required, alpha=0.05, *, beta=None, method="betting", pool=None, runs=1):
        self.required, self.alpha, self.beta, self.method, self.pool = _check(
            required, alpha, beta, method, pool
        )
        runs = _inputs.whole(runs, "runs")
        if runs > _inputs.MAX_RUNS:  # a few arrays of this length are kept per run
            raise ValueError(f"runs must be at most {_inputs.MAX_RUNS:,}, got {runs:,}")
        self._engine = make_engine(
            self.method, runs, self.alpha, self.beta, self.pool, DEFAULT_PRIOR
        )
        self._code = np.zeros(runs, dtype=np.int64)
        self._n = np.zeros(runs, dtype=np.int64)
        self._low = np.zeros(runs)
        self._high = np.ones(runs)
        self._one = True

    @property
    def n(self):
        """Labels used so far by each run (up to its decision)."""
        return int(self._n[0]) if self._one else self._n

    def update(self, x) -> SequentialDecision:
        """Add outcomes (1-D, or one row per run) and return the state after them."""
        block, self._one = _inputs.block(x, self._engine.runs, self._engine.t, self.pool)
        lower, upper = self._engine.update(block)
        codes = _codes(lower, upper, self.required)
        open_ = self._code == 0
        decided = codes.any(axis=1)
        first = np.argmax(codes != 0, axis=1)
        last = np.where(decided, first, block.shape[1] - 1)
        rows = np.flatnonzero(open_)
        self._code[rows] = codes[rows, last[rows]]
        self._n[rows] = self._engine.t - block.shape[1] + last[rows] + 1
        self._low[rows] = lower[rows, last[rows]]
        self._high[rows] = upper[rows, last[rows]]
        return self.result()

    def result(self) -> SequentialDecision:
        """The decision so far."""
        words = _WORDS[self._code]
        if self._one:
            return SequentialDecision(
                str(words[0]),
                int(self._n[0]),
                float(self._low[0]),
                float(self._high[0]),
                self.method,
                self.required,
                self.alpha,
                self.beta,
            )
        return SequentialDecision(
            words,
            self._n.copy(),
            self._low.copy(),
            self._high.copy(),
            self.method,
            self.required,
            self.alpha,
            self.beta,
        )


def sequential_accept(
    x,
    required: float,
    alpha: float = 0.05,
    *,
    beta: float | None = None,
    method: str = "betting",
    pool: int | None = None,
) -> SequentialDecision:
    """Pass, fail or keep labelling, checked after every label, with an error guarantee.

    Passes at the first label after which the lower confidence sequence at
    level ``alpha`` exceeds ``required``; fails at the first after which the
    upper one at level ``beta`` falls below it (see the module docstring for
    the guarantee).

    Parameters
    ----------
    x : array_like
        Outcomes (1 = correct) in labelling order, 1-D, or 2-D with one run per row.
    required : float
        Required accuracy :math:`\\pi_0` in (0, 1).
    alpha : float
        Largest probability of passing a model whose accuracy is at most ``required``.
    beta : float, optional
        Largest probability of failing a model whose accuracy is at least
        ``required`` (default: ``alpha``).
    method : str
        Confidence sequence used (``"betting"`` by default; see
        :func:`heldout.sequential.confidence.confidence_sequence`).
    pool : int, optional
        Size of a finite pool labelled in random order without replacement; the
        requirement is then on the pool's own accuracy.

    Returns
    -------
    SequentialDecision

    Examples
    --------
    >>> x = [1, 1, 1, 1, 1, 1, 1, 1, 1, 0] * 100      # 90 % correct
    >>> d = sequential_accept(x, required=0.8, alpha=0.01)
    >>> d.decision, d.n, d.low > 0.8
    ('pass', 126, True)
    """
    arr = _inputs.outcomes(x)
    monitor = AcceptanceMonitor(
        required,
        alpha,
        beta=beta,
        method=method,
        pool=_inputs.pool(pool, arr.shape[-1]),
        runs=1 if arr.ndim == 1 else arr.shape[0],
    )
    return monitor.update(arr)


@dataclass(frozen=True)
class LabelsToDecision(Result):
    """Simulated runs of sequential acceptance; unpacks as ``(n, decision)``.

    ``n[r]`` labels were used by run ``r`` and ``decision[r]`` is what it
    decided (``"continue"`` when the budget ran out first).
    """

    n: np.ndarray
    decision: np.ndarray
    accuracy: float = extra()
    required: float = extra()
    alpha: float = extra()
    beta: float = extra()
    method: str = extra()
    horizon: int = extra()
    pool: int | None = extra()

    def rate(self, decision: str) -> float:
        """Share of runs that ended with ``decision``."""
        return float(np.mean(self.decision == decision))


def labels_to_decision(
    accuracy: float,
    required: float,
    alpha: float = 0.05,
    *,
    beta: float | None = None,
    method: str = "betting",
    reps: int = 1000,
    horizon: int = 10_000,
    pool: int | None = None,
    seed=None,
) -> LabelsToDecision:
    """Simulate sequential acceptance: how many labels until a decision, and which.

    Each run labels items whose outcomes are independent Bernoulli(``accuracy``)
    (or, with ``pool``, a pool of ``pool`` items of which
    ``round(accuracy * pool)`` are correct, in a uniformly random order) and
    stops at the first decision of :func:`sequential_accept`, or after
    ``horizon`` labels (``"continue"``).  Runs that have decided are dropped
    from the computation, so a simulation costs what the labels cost.

    Returns
    -------
    LabelsToDecision

    Examples
    --------
    >>> sim = labels_to_decision(0.9, 0.8, 0.01, reps=200, horizon=2000, seed=1)
    >>> sim.rate("pass"), int(np.median(sim.n)) < 600
    (1.0, True)
    """
    p0, a, b, method, size = _check(required, alpha, beta, method, pool)
    _inputs.scalar(accuracy, "accuracy")
    p = float(_inputs.as_probability(accuracy, "accuracy", closed=True))
    runs = _inputs.whole(reps, "reps")
    if runs > _inputs.MAX_RUNS:  # the runs are simulated side by side
        raise ValueError(f"reps must be at most {_inputs.MAX_RUNS:,}, got {runs:,}")
    limit = _inputs.whole(horizon, "horizon")
    if limit > 10**8:  # stated limit: one step per label, in a loop
        raise ValueError(f"horizon must be at most 100,000,000, got {limit:,}")
    if size is not None:
        check_elements(float(runs) * size, "reps times pool (every run orders the whole pool)")
        limit = min(limit, size)
        ones = int(round(p * size))
        p = ones / size
    gen = make_rng(seed)
    engine = make_engine(method, runs, a, b, size, DEFAULT_PRIOR)
    n = np.full(runs, limit, dtype=np.int64)
    code = np.zeros(runs, dtype=np.int64)
    alive = np.arange(runs)
    if size is not None:
        order = gen.permuted(np.tile((np.arange(size) < ones).astype(float), (runs, 1)), axis=1)
    step = 64
    while alive.size and engine.t < limit:
        length = min(step, limit - engine.t)
        if size is None:
            x = (gen.random((alive.size, length)) < p).astype(float)
        else:
            x = order[alive, engine.t : engine.t + length]
        lower, upper = engine.update(x)
        codes = _codes(lower, upper, p0)
        hit = codes.any(axis=1)
        first = np.argmax(codes != 0, axis=1)
        done = np.flatnonzero(hit)
        n[alive[done]] = engine.t - length + first[done] + 1
        code[alive[done]] = codes[done, first[done]]
        keep = np.flatnonzero(~hit)
        engine.take(keep)
        alive = alive[keep]
        step = min(2 * step, 4096)
    return LabelsToDecision(n, _WORDS[code], p, p0, a, b, method, limit, size)
