r"""A holdout used too often: the Ladder, Thresholdout and the boosting attack.

A holdout set answers one question honestly: the score of a model chosen
without looking at it.  Used again and again, with each new model chosen after
seeing the previous scores, it overfits even when every single query is an
honest evaluation (:cite:`dwork2015`): the answers leak the holdout labels.
The boosting attack of Blum and Hardt (:cite:`blum2015`) makes the leak
plain: on labels that are pure noise it climbs a leaderboard to any score it
likes, given enough submissions.

Mechanisms that a holdout's owner can put in front of it:

* :class:`Ladder` (and :func:`ladder` for a recorded sequence): a leaderboard
  that releases a new best score only when a submission beats the current one
  by a margin, rounded to a grid (:cite:`blum2015`), with a fixed ``step`` or
  in its parameter-free form (margin: one standard error of the paired loss
  difference);
* :class:`Thresholdout` (and :func:`thresholdout`): answers a query with its
  value on the training data unless the holdout disagrees by more than a
  noisy threshold, and then with a noisy holdout value, within a budget of
  such answers (:cite:`dwork2015`).

The attack, as a simulation: :func:`boosting_attack` (one holdout, every
mechanism), :func:`attack_expected_accuracy` (the exact expected holdout
accuracy the attack reaches against a plain holdout).

How many adaptive queries a holdout of ``n`` items supports:
:func:`naive_error_bound`, :func:`ladder_error_bound` and
:func:`queries_supported`.  Both bounds come from the same counting argument
(Hoeffding's inequality and a union bound over every model the analyst could
submit given what the holdout may answer); see their docstrings.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from heldout._checks import (
    as_count,
    as_instance,
    as_positive,
    as_probability,
    check_elements,
    in_choices,
    show,
)
from heldout._deprecate import renamed
from heldout._result import Result, extra
from heldout.config import rng as make_rng
from heldout.resampling.cv_scores import number

__all__ = [
    "AttackResult",
    "BudgetExhausted",
    "Ladder",
    "LadderResult",
    "MECHANISMS",
    "QUERY_CAP",
    "Thresholdout",
    "ThresholdoutResult",
    "attack_expected_accuracy",
    "boosting_attack",
    "ladder",
    "ladder_error_bound",
    "ladder_transcripts",
    "naive_error_bound",
    "queries_supported",
    "thresholdout",
    "winner_bias",
]

#: Mechanisms of :func:`boosting_attack`.
MECHANISMS = ("naive", "ladder", "parameter-free", "thresholdout")

_MAX_QUERIES = 2**62

#: Where :func:`queries_supported` stops searching (exactly representable as a float).
QUERY_CAP = 2**60


_scalar = number  # a single number, else ValueError naming the argument


def _floats(value, name: str) -> np.ndarray:
    """``value`` as a float array, or ``ValueError`` naming it (text, ragged lists...)."""
    if isinstance(value, str | bytes | dict) or value is None:
        raise ValueError(f"{name} must be an array of numbers, got {show(value)}")
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be an array of numbers, got {show(value)}") from None


def _whole(value, name: str, minimum: int = 0) -> int:
    """A single whole number between ``minimum`` and 2**62 (exclusive)."""
    x = _scalar(value, name)
    if math.isfinite(x) and x >= _MAX_QUERIES:
        raise ValueError(f"{name} must be below 2**62, got {show(value)}")
    return int(as_count(x, name, minimum=minimum, scalar=True))


# =========================================================================== the Ladder
class Ladder:
    r"""The Ladder: a leaderboard that releases only significant improvements.

    Submissions are scored by their mean loss on the holdout (lower is
    better; for accuracy use the 0/1 loss ``1 - correct``).  The released
    score starts at ``R_0 = +\infty``; submission ``t`` with holdout loss
    ``L_t`` (:cite:`blum2015`, Algorithms 1 and 2):

    * ``method="fixed"`` (step ``\eta``): if ``L_t < R_{t-1} - \eta`` release
      ``R_t = [L_t]_\eta``, ``L_t`` rounded to the nearest multiple of ``\eta``;
      otherwise ``R_t = R_{t-1}``;
    * ``method="parameter-free"``: the margin is ``s / \sqrt n``, with ``s``
      the sample standard deviation of the per-item loss differences between
      the submission and the last released one, and releases are rounded to
      multiples of ``1/n``.

    Each answer is the current released score, so an analyst learns only
    whether a submission improved by more than the margin.  With the fixed
    step, the released scores decrease by at least ``\eta`` at every release,
    so at most ``round(1/\eta) + 1`` different answers are ever given; that is
    what bounds the leak (:func:`ladder_error_bound`).

    Parameters
    ----------
    method
        ``"fixed"`` (default) or ``"parameter-free"``.
    step
        ``\eta`` for the fixed method, strictly between 0 and 1.

    Examples
    --------
    >>> board = Ladder(step=0.01)
    >>> [board.submit(loss) for loss in (0.30, 0.295, 0.28, 0.31, 0.2649)]
    [0.3, 0.3, 0.28, 0.28, 0.26]
    """

    def __init__(self, method: str = "fixed", step: float | None = None):
        if not in_choices(method, ("fixed", "parameter-free")):
            raise ValueError(f"method must be 'fixed' or 'parameter-free', got {show(method)}")
        if method == "fixed":
            if step is None:
                raise ValueError("step is needed by the fixed Ladder (for example step=0.01)")
            self.step = float(as_probability(_scalar(step, "step"), "step"))
        elif step is not None:
            raise ValueError("step must be None for the parameter-free Ladder (it sets its own)")
        else:
            self.step = None
        self.method = method
        self.best = math.inf
        self.n: int | None = None
        self._best_losses: np.ndarray | None = None
        self.released: list[float] = []

    def _losses(self, losses) -> np.ndarray:
        try:
            arr = np.asarray(losses, dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"losses must be numbers, got {show(losses)}") from None
        if arr.ndim > 1 or arr.size == 0:
            raise ValueError(
                "losses must be one number (the holdout loss) or a vector of per-item losses"
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError("losses must be finite (no NaN or infinity)")
        if np.any((arr < 0) | (arr > 1)):
            raise ValueError("losses must lie between 0 and 1 (for accuracy: 1 - correct)")
        if self.method == "parameter-free" and arr.ndim == 0:
            raise ValueError(
                "the parameter-free Ladder needs the per-item losses on the holdout, not their mean"
            )
        if arr.ndim == 1:
            if self.n is None:
                if arr.size < 2:
                    raise ValueError("losses must cover at least 2 holdout items")
                self.n = arr.size
            elif arr.size != self.n:
                raise ValueError(
                    f"losses must have one entry per holdout item ({self.n}), got {arr.size}"
                )
        return arr

    def submit(self, losses) -> float:
        """Score one submission; return the released (current best) holdout loss.

        ``losses`` is the submission's mean holdout loss, or its per-item losses
        (required by the parameter-free method).
        """
        arr = self._losses(losses)
        loss = float(arr.mean())
        if self.method == "fixed":
            if loss < self.best - self.step:
                self.best = round(math.floor(loss / self.step + 0.5) * self.step, 12)
        else:
            if self._best_losses is None:
                margin = 0.0
            else:
                margin = float(np.std(arr - self._best_losses, ddof=1)) / math.sqrt(self.n)
            if loss < self.best - margin:
                self.best = math.floor(loss * self.n + 0.5) / self.n
                self._best_losses = arr.copy()
        self.released.append(self.best)
        return self.best


@dataclass(frozen=True)
class LadderResult(Result):
    """The Ladder's answers to a recorded sequence of submissions.

    Unpacks as ``released, improved``: the released score after each
    submission and whether that submission changed it.
    """

    released: np.ndarray
    improved: np.ndarray


def ladder(losses, method: str = "fixed", step: float | None = None) -> LadderResult:
    """Run the :class:`Ladder` over a recorded sequence of submissions.

    Parameters
    ----------
    losses
        One row per submission, in order: a vector of mean holdout losses (fixed
        method), or a ``(submissions, n)`` matrix of per-item losses (either method).
    method, step
        As in :class:`Ladder`.

    Examples
    --------
    >>> r = ladder([0.5, 0.45, 0.44, 0.40, 0.41, 0.30], step=0.02)
    >>> r.released.tolist(), r.improved.tolist()
    ([0.5, 0.46, 0.46, 0.4, 0.4, 0.3], [True, True, False, True, False, True])
    """
    arr = losses if isinstance(losses, np.ndarray) else _floats(losses, "losses")
    if arr.ndim not in (1, 2) or arr.shape[0] == 0:
        raise ValueError("losses must be a non-empty vector (one loss per submission) or a matrix")
    board = Ladder(method=method, step=step)
    released = np.empty(arr.shape[0])
    improved = np.zeros(arr.shape[0], dtype=bool)
    previous = math.inf
    for t in range(arr.shape[0]):
        released[t] = board.submit(arr[t])
        improved[t] = released[t] != previous
        previous = released[t]
    return LadderResult(released, improved)


# =========================================================================== Thresholdout
class BudgetExhausted(RuntimeError):
    """Thresholdout has used its budget of holdout answers and must not answer again."""


class Thresholdout:
    r"""Thresholdout: reuse a holdout by answering from the training data when they agree.

    A query is a statistic with values in [0, 1] (an accuracy, a mean loss, a
    correlation rescaled to [0, 1]) evaluated on the training data and on the
    holdout.  With threshold ``T``, noise scale ``\sigma`` and budget ``B``
    (:cite:`dwork2015`):

    * draw ``\hat T = T + \mathrm{Lap}(2\sigma)`` once;
    * for each query, draw ``\eta \sim \mathrm{Lap}(4\sigma)``; if
      ``|v_{holdout} - v_{train}| > \hat T + \eta``, answer
      ``v_{holdout} + \mathrm{Lap}(\sigma)``, spend one unit of the budget and
      redraw ``\hat T``; otherwise answer ``v_{train}``.

    When the budget is spent, :meth:`query` raises :class:`BudgetExhausted`.
    The holdout is touched only through noisy comparisons and the few noisy
    answers, which is what lets it answer many adaptive queries; Dwork et al.
    prove that the holdout size needed grows with the square root of the budget
    and only logarithmically with the number of queries.

    Parameters
    ----------
    threshold
        ``T``, strictly between 0 and 1 (Dwork et al. use 0.04).
    sigma
        ``\sigma``, the Laplace noise scale, positive (they use 0.01).
    budget
        ``B``, the number of holdout answers allowed (a whole number, at least 1).
    seed
        Seed or Generator for the noise (:func:`heldout.config.rng`).

    Examples
    --------
    >>> t = Thresholdout(threshold=0.04, sigma=0.01, budget=10, seed=1)
    >>> t.query(0.80, 0.79)          # agree: the training value comes back
    0.8
    >>> round(t.query(0.95, 0.50), 2), t.budget_left   # overfit: a noisy holdout value
    (0.5, 9)
    """

    def __init__(self, threshold: float = 0.04, sigma: float = 0.01, budget: int = 100, seed=None):
        self.threshold = float(as_probability(_scalar(threshold, "threshold"), "threshold"))
        self.sigma = float(as_positive(_scalar(sigma, "sigma"), "sigma"))
        b = _scalar(budget, "budget")
        if math.isfinite(b) and b >= 2**63:
            raise ValueError(f"budget must be below 2**63, got {show(budget)}")
        self.budget_left = _whole(b, "budget", 1)
        self._rng = make_rng(seed)
        self._noisy_threshold = self.threshold + self._rng.laplace(0.0, 2 * self.sigma)

    @property
    def exhausted(self) -> bool:
        """True once the budget of holdout answers is spent."""
        return self.budget_left < 1

    def query(self, train_value: float, holdout_value: float) -> float:
        """Answer one query from its training and holdout values (each in [0, 1])."""
        tv = float(as_probability(_scalar(train_value, "train_value"), "train_value", closed=True))
        hv = float(
            as_probability(_scalar(holdout_value, "holdout_value"), "holdout_value", closed=True)
        )
        if self.exhausted:
            raise BudgetExhausted(
                "Thresholdout's budget is spent: the holdout must not answer again"
            )
        eta = self._rng.laplace(0.0, 4 * self.sigma)
        if abs(hv - tv) > self._noisy_threshold + eta:
            self.budget_left -= 1
            self._noisy_threshold = self.threshold + self._rng.laplace(0.0, 2 * self.sigma)
            return float(hv + self._rng.laplace(0.0, self.sigma))
        return tv


@dataclass(frozen=True)
class ThresholdoutResult(Result):
    """Thresholdout's answers to a recorded sequence of queries.

    Unpacks as ``answers, from_holdout``; only the queries answered before the
    budget ran out are included (``answered`` of them).
    """

    answers: np.ndarray
    from_holdout: np.ndarray
    answered: int = extra(0)


def thresholdout(
    train_values,
    holdout_values,
    *,
    threshold: float = 0.04,
    sigma: float = 0.01,
    budget: int = 100,
    seed=None,
) -> ThresholdoutResult:
    """Run :class:`Thresholdout` over recorded queries (answers stop when the budget is spent).

    Examples
    --------
    >>> r = thresholdout([0.6, 0.7, 0.9], [0.6, 0.69, 0.5], budget=5, seed=2)
    >>> r.from_holdout.tolist(), r.answers[:2].tolist()
    ([False, False, True], [0.6, 0.7])
    """
    tv = _floats(train_values, "train_values").ravel()
    hv = _floats(holdout_values, "holdout_values").ravel()
    for name, values in (("train_values", tv), ("holdout_values", hv)):
        if not np.all(np.isfinite(values)) or np.any((values < 0) | (values > 1)):
            raise ValueError(f"{name} must be numbers in [0, 1] (no NaN or infinity)")
    if tv.size != hv.size or tv.size == 0:
        raise ValueError(
            f"train_values and holdout_values must be non-empty and of equal length, "
            f"got {tv.size} and {hv.size}"
        )
    mech = Thresholdout(threshold=threshold, sigma=sigma, budget=budget, seed=seed)
    answers, used = [], []
    for a, b in zip(tv, hv, strict=True):
        if mech.exhausted:
            break
        before = mech.budget_left
        answers.append(mech.query(a, b))
        used.append(mech.budget_left < before)
    return ThresholdoutResult(np.array(answers), np.array(used, dtype=bool), answered=len(answers))


# =========================================================================== the attack
@dataclass(frozen=True)
class AttackResult(Result):
    """The boosting attack against several mechanisms on one holdout.

    Unpacks as ``checkpoints, reported``: the numbers of random submissions
    after which the attacker submits its majority vote, and a dict from
    mechanism to the accuracy the holdout reports for that final submission
    (for the Ladders, the released best accuracy after it).  ``holdout`` gives
    the final submission's actual holdout accuracy and ``selected`` how many
    submissions the attacker had kept; ``holdout_answers`` how many of the
    random submissions Thresholdout answered from the holdout.  On pure-noise labels every classifier's
    true accuracy is exactly 1/2, so ``reported - 0.5`` is the overfitting.
    """

    checkpoints: np.ndarray
    reported: dict
    holdout: dict = extra(None)
    selected: dict = extra(None)
    n: int = extra(0)
    holdout_answers: int | None = extra()


def _majority(votes: np.ndarray, count: int) -> np.ndarray:
    """1 where more than half of ``count`` votes are 1 (ties vote 1: a fair guess on noise)."""
    return (2 * votes >= count).astype(np.int8)


def boosting_attack(
    n: int,
    queries: int,
    *,
    mechanisms=MECHANISMS,
    checkpoints=None,
    step: float = 0.01,
    threshold: float = 0.04,
    sigma: float = 0.01,
    budget: int | None = None,
    train_rows: int | None = None,
    seed=None,
) -> AttackResult:
    r"""The boosting attack of Blum and Hardt on a holdout of pure-noise labels.

    The holdout has ``n`` items whose labels are fair coin flips, so every
    classifier's true accuracy is exactly 1/2.  The attacker (:cite:`blum2015`):

    1. submits ``queries`` classifiers that label each item by a fair coin flip;
    2. keeps those the holdout judged better than chance: against a plain holdout
       (``"naive"``), those whose reported accuracy exceeds 1/2; against a Ladder,
       those that moved the board; against Thresholdout, those whose answer
       exceeds 1/2;
    3. at each checkpoint, submits the item-by-item majority vote of the kept
       classifiers and records the accuracy the mechanism reports for it.

    Thresholdout also needs each classifier's accuracy on training data: the
    attacker's classifiers label ``train_rows`` (default ``n``) training items,
    with their own coin-flip labels, at random as well.

    Parameters
    ----------
    n
        Holdout size.
    queries
        Number of random submissions (the largest checkpoint).
    mechanisms
        Any of :data:`MECHANISMS`.
    checkpoints
        Increasing numbers of submissions at which to evaluate (default: 12
        values spaced evenly on a log scale up to ``queries``).
    step
        The fixed Ladder's step.
    threshold, sigma, budget
        Thresholdout's parameters (``budget=None``: never binds).  Once the budget is
        spent Thresholdout answers nothing more: the attacker learns nothing from
        later submissions, and the score reported at later checkpoints is the last
        one Thresholdout gave (the board is frozen).
    train_rows
        Thresholdout's training items.
    seed
        Seed or Generator.

    Examples
    --------
    >>> r = boosting_attack(2000, 2000, checkpoints=[2000], sigma=0.004, seed=1)
    >>> {m: round(float(v[0]), 2) for m, v in r.reported.items()}
    {'naive': 0.72, 'ladder': 0.53, 'parameter-free': 0.53, 'thresholdout': 0.53}
    """
    n, queries, cps, train_rows = _attack_sizes(n, queries, mechanisms, checkpoints, train_rows)
    gen = make_rng(seed)
    y = gen.integers(0, 2, size=n, dtype=np.int8)
    U = gen.integers(0, 2, size=(queries, n), dtype=np.int8)  # holdout predictions
    correct = U == y
    acc = correct.mean(axis=1)
    need_train = "thresholdout" in mechanisms
    train = None
    if need_train:
        y_tr = gen.integers(0, 2, size=train_rows, dtype=np.int8)
        V = gen.integers(0, 2, size=(queries, train_rows), dtype=np.int8)
        train = (y_tr, V, (V == y_tr).mean(axis=1))
    reported, holdout, selected = {}, {}, {}
    used = None
    budget_value = queries + len(cps) if budget is None else budget
    for mech in mechanisms:
        if mech == "naive":
            state = None
        elif mech == "ladder":
            state = Ladder("fixed", step=step)
        elif mech == "parameter-free":
            state = Ladder("parameter-free")
        else:
            state = Thresholdout(threshold, sigma, budget_value, seed=gen)
        rep, hold, sel = _attack_one(mech, state, cps, y, U, correct, acc, train)
        if mech == "thresholdout":
            used = budget_value - state.budget_left
        reported[mech] = np.array(rep)
        holdout[mech] = np.array(hold)
        selected[mech] = np.array(sel)
    return AttackResult(
        cps, reported, holdout=holdout, selected=selected, n=n, holdout_answers=used
    )


def _attack_sizes(n, queries, mechanisms, checkpoints, train_rows):
    """The checked ``(n, queries, checkpoints, train_rows)`` of :func:`boosting_attack`."""
    n = _whole(n, "n", 2)
    queries = _whole(queries, "queries", 1)
    if n * queries > 200_000_000:
        raise ValueError(
            f"n * queries = {n * queries:,} exceeds 200,000,000 (memory); use fewer queries or items"
        )
    unknown = set(mechanisms) - set(MECHANISMS)
    if unknown or not mechanisms:
        raise ValueError(f"mechanisms must be among {MECHANISMS}, got {show(mechanisms)}")
    if checkpoints is None:
        checkpoints = np.unique(np.round(np.geomspace(1, queries, 12)).astype(int))
    cps = as_count(checkpoints, "checkpoints", minimum=1)
    if cps.ndim != 1 or cps.size == 0 or np.any(np.diff(cps) <= 0) or cps[-1] > queries:
        raise ValueError("checkpoints must increase strictly and not exceed queries")
    train_rows = n if train_rows is None else _whole(train_rows, "train_rows", 2)
    if "thresholdout" in mechanisms:
        check_elements(float(queries) * train_rows, "queries x train_rows")
    return n, queries, cps, train_rows


def _attack_one(mech, state, cps, y, U, correct, acc, train):
    """One mechanism's run: at each checkpoint the score shown, the holdout accuracy, the kept.

    ``train`` is ``(labels, predictions, accuracies)`` of the training rows, or None when no
    mechanism needs them.
    """
    need_train = train is not None
    if need_train:
        y_tr, V, acc_tr = train
    keep = np.zeros(U.shape[0], dtype=bool)
    rep, hold, sel = [], [], []
    votes = np.zeros(U.shape[1], dtype=np.int64)
    votes_tr = np.zeros(V.shape[1], dtype=np.int64) if need_train else None
    count = 0
    start = 0
    for cp in cps:
        for t in range(start, cp):
            if mech == "naive":
                keep[t] = acc[t] > 0.5
            elif mech in ("ladder", "parameter-free"):
                before = state.best
                losses = 1.0 - correct[t] if mech == "parameter-free" else 1.0 - acc[t]
                keep[t] = state.submit(losses) != before
            elif not state.exhausted:
                keep[t] = state.query(acc_tr[t], acc[t]) > 0.5
            if keep[t]:
                votes += U[t]
                if need_train:
                    votes_tr += V[t]
                count += 1
        start = cp
        final = _majority(votes, count)
        final_acc = float(np.mean(final == y))
        if mech == "naive":
            shown = final_acc
        elif mech in ("ladder", "parameter-free"):
            board = copy.deepcopy(state)
            losses = 1.0 - (final == y) if mech == "parameter-free" else 1.0 - final_acc
            shown = 1.0 - board.submit(losses)
        elif not state.exhausted:
            final_tr = float(np.mean(_majority(votes_tr, count) == y_tr))
            probe = copy.deepcopy(state)
            shown = probe.query(final_tr, final_acc)
        else:  # frozen: the last score given (chance if none was given)
            shown = rep[-1] if rep else 0.5
        rep.append(shown)
        hold.append(final_acc)
        sel.append(count)
    return rep, hold, sel


def attack_expected_accuracy(n, queries) -> float:
    r"""Exact expected holdout accuracy of the boosting attack against a plain holdout.

    A random classifier agrees with ``W ~ Binomial(n, 1/2)`` of the noise
    labels; it is kept when ``W > n/2`` (probability ``P_s``), and then it is
    right on any given item with probability ``q = E[W/n | W > n/2]``,
    independently of the other kept classifiers.  With ``m ~ Binomial(k, P_s)``
    kept classifiers, the majority vote is right on an item with probability
    ``g(m) = P(\mathrm{Bin}(m, q) > m/2) + \tfrac12 P(\mathrm{Bin}(m, q) = m/2)``,
    so the expected holdout accuracy is ``E[g(m)]``.  For ``k`` much smaller
    than ``n`` this is about ``\Phi(\sqrt{k / (\pi n)})``, that is
    ``1/2 + \sqrt{k/n} / (\pi \sqrt 2)``.

    Examples
    --------
    >>> round(attack_expected_accuracy(4000, 4000), 3)
    0.715
    """
    n = _whole(n, "n", 1)
    k = _whole(queries, "queries", 1)
    if k > 10_000_000:
        raise ValueError(f"queries must be at most 10,000,000, got {k}")
    if n > 100_000_000:  # one term per possible score above n/2
        raise ValueError(f"n must be at most 100,000,000, got {n}")
    w = np.arange(n // 2 + 1, n + 1)
    pw = stats.binom.pmf(w, n, 0.5)
    p_sel = float(pw.sum())
    q = float((w / n * pw).sum() / p_sel)
    m = np.arange(k + 1)
    pm = stats.binom.pmf(m, k, p_sel)
    g = stats.binom.sf(np.floor(m / 2), m, q)
    g = g + np.where(m % 2 == 0, 0.5 * stats.binom.pmf(m // 2, m, q), 0.0)
    g[0] = 0.5
    return float(np.clip((pm * g).sum(), 0.0, 1.0))  # a probability (sums round up)


def winner_bias(n, models, accuracy: float = 0.5) -> float:
    r"""Expected holdout accuracy of the best of ``models`` equally good models, minus their accuracy.

    Even without adaptivity, picking the best score among ``m`` models of the
    same true accuracy ``p``, each scored on its own ``n`` holdout items, reports
    ``E[\max_i K_i]/n - p`` too much, with ``K_i ~ Binomial(n, p)`` independent
    (models whose mistakes are positively correlated have dependent scores and a smaller bias).  Computed exactly:
    ``E[\max K] = \sum_{w \ge 1} P(\max K \ge w) = \sum_{w=1}^{n} (1 - F(w-1)^m)``.
    For large ``n`` it is about ``\sqrt{2 \ln m}`` standard errors.

    Examples
    --------
    >>> round(winner_bias(4000, 1), 12), round(winner_bias(4000, 100), 4)
    (0.0, 0.0198)
    """
    n = _whole(n, "n", 1)
    m = _whole(models, "models", 1)
    p = float(as_probability(_scalar(accuracy, "accuracy"), "accuracy", closed=True))
    if n > 10_000_000:
        raise ValueError(f"n must be at most 10,000,000, got {n}")
    w = np.arange(1, n + 1)
    log_cdf = stats.binom.logcdf(w - 1, n, p)
    tail = -np.expm1(m * log_cdf)  # P(max >= w), accurate near 0 and 1
    return float(tail.sum() / n - p)


# =========================================================================== the bounds
def _alpha(alpha) -> float:
    return float(as_probability(_scalar(alpha, "alpha"), "alpha"))


@renamed(delta="alpha")
def naive_error_bound(n, queries, alpha: float = 0.05) -> float:
    r"""Worst-case error of a plain holdout after ``k`` adaptive queries.

    Each answer is a holdout score, one of ``n + 1`` values.  Whatever the
    analyst's strategy, the ``t``-th model it submits is a function of the
    ``t - 1`` answers before it, so at most ``(n + 1)^{t-1}`` different models
    can be ``t``-th, and fewer than ``k (n+1)^{k-1}`` in all.  Hoeffding's
    inequality for each and a union bound give: with probability at least
    ``1 - \alpha`` every submitted model's holdout score is within

    .. math::

        \varepsilon = \sqrt{\frac{(k - 1)\ln(n + 1) + \ln(2k/\alpha)}{2n}}

    of its true value.  For ``k = 1`` this is Hoeffding's bound.  For many queries
    it grows like ``\sqrt{k \ln(n+1)/(2n)}``, so the guarantee covers about
    ``2 n \varepsilon^2 / \ln(n + 1)`` adaptive queries at error ``\varepsilon``
    (43 at ``n = 10^5``, ``\varepsilon = 0.05``, :func:`queries_supported`).  The
    boosting attack (:cite:`blum2015`) needs of order ``n \varepsilon^2`` queries to
    overfit by ``\varepsilon``: the worst case lies between the two, which differ by a
    factor of order ``\ln n``, not by a constant.

    Examples
    --------
    >>> round(naive_error_bound(4000, 1), 4), round(naive_error_bound(4000, 100), 3)
    (0.0215, 0.322)
    """
    n = _whole(n, "n", 1)
    k = _whole(queries, "queries", 1)
    d = _alpha(alpha)
    return math.sqrt(((k - 1) * math.log(n + 1) + math.log(2 * k / d)) / (2 * n))


def ladder_transcripts(queries, step: float) -> float:
    r"""Natural log of a count bounding the answer sequences the fixed Ladder can give.

    The released scores are multiples of ``\eta`` in ``[0, 1]`` (``G`` values,
    ``G = round(1/\eta) + 1``) and strictly decrease at each release, the first
    submission always being released.  A sequence of ``k`` answers with ``j``
    releases is fixed by which of submissions ``2..k`` released (``C(k-1, j-1)``
    ways) and by the ``j`` decreasing values (at most ``C(G, j)`` ways), so there
    are at most

    .. math::

        T = \sum_{j=1}^{G} \binom{k-1}{j-1}\binom{G}{j}

    sequences (a few of them need a negative loss and never occur: the value 0
    right after the value ``\eta``; the tests count them by enumeration).

    Examples
    --------
    >>> round(math.exp(ladder_transcripts(3, 0.5)), 6)   # G = 3: 3 + 2*3 + 1*1
    10.0
    """
    k = _whole(queries, "queries", 1)
    eta = float(as_probability(_scalar(step, "step"), "step"))
    G = int(round(1.0 / eta)) + 1
    j = np.arange(1, min(G, k) + 1, dtype=float)
    log_terms = (
        special.gammaln(k)
        - special.gammaln(j)
        - special.gammaln(k - j + 1)
        + special.gammaln(G + 1)
        - special.gammaln(j + 1)
        - special.gammaln(G - j + 1)
    )
    return float(special.logsumexp(log_terms))


@renamed(delta="alpha")
def ladder_error_bound(n, queries, step: float, alpha: float = 0.05) -> float:
    r"""Worst-case leaderboard error of the fixed Ladder after ``k`` adaptive submissions.

    The same counting as :func:`naive_error_bound`, with the Ladder's ``T``
    possible answer sequences (:func:`ladder_transcripts`) in place of
    ``(n+1)^{k-1}``: with probability at least ``1 - \alpha`` every submitted
    model's holdout loss is within ``\varepsilon = \sqrt{(\ln T + \ln(2k/\alpha))/(2n)}``
    of its true loss, and then each released score is within ``\varepsilon + \eta``
    of the best true loss submitted so far (a released score is within
    ``\eta/2`` of the holdout loss it rounds, and a submission that was not
    released had a holdout loss above the released score minus ``\eta``).
    Since ``\ln T`` grows only like ``(1/\eta) \ln k``, the error grows like
    ``(\ln k / n)^{1/3}`` for the best ``\eta`` (:cite:`blum2015`): exponentially
    many submissions in ``n \varepsilon^3``.

    Returns
    -------
    float
        ``\varepsilon + \eta``.

    Examples
    --------
    >>> round(ladder_error_bound(100_000, 10_000, 0.02), 3)
    0.06
    """
    n = _whole(n, "n", 1)
    k = _whole(queries, "queries", 1)
    d = _alpha(alpha)
    log_t = ladder_transcripts(k, step)
    return math.sqrt((log_t + math.log(2 * k / d)) / (2 * n)) + float(step)


@renamed(epsilon="tolerance", delta="alpha")
def queries_supported(n, tolerance: float, alpha: float = 0.05, method: str = "naive") -> int:
    r"""Largest number of queries whose worst-case error is at most ``tolerance``.

    ``method="naive"``: adaptive queries to a plain holdout
    (:func:`naive_error_bound`); ``"ladder"``: adaptive submissions to the
    fixed Ladder with the best step on a grid of 40 fractions of ``tolerance``
    (:func:`ladder_error_bound`); ``"non-adaptive"``: queries fixed in advance,
    ``k \le (\alpha/2)\,e^{2 n t^2}`` with ``t`` the tolerance (Hoeffding and a union
    bound).  Returns 0 when not even one query meets ``tolerance``; the search stops at
    :data:`QUERY_CAP`, ``2^{60}`` (returned as is: "at least that many").

    Examples
    --------
    >>> queries_supported(4000, 0.05), queries_supported(4000, 0.05, method="non-adaptive")
    (2, 12129129)
    >>> queries_supported(100_000, 0.05), queries_supported(100_000, 0.05, method="ladder")
    (43, 877)
    """
    as_instance(method, "method", str, "a method name")
    n = _whole(n, "n", 1)
    eps = float(as_probability(_scalar(tolerance, "tolerance"), "tolerance"))
    d = _alpha(alpha)
    if method == "non-adaptive":
        log_k = math.log(d / 2) + 2 * n * eps**2
        return int(min(math.floor(math.exp(min(log_k, 43.0))), QUERY_CAP)) if log_k >= 0 else 0
    if method == "naive":

        def bound(k, _):
            return naive_error_bound(n, k, d)

        steps = [None]
    elif method == "ladder":

        def bound(k, s):
            return ladder_error_bound(n, k, s, d)

        steps = [eps * f for f in np.linspace(0.025, 0.975, 40)]
    else:
        raise ValueError(f"method must be 'naive', 'ladder' or 'non-adaptive', got {show(method)}")
    best = 0
    for s in steps:
        if bound(1, s) > eps:
            continue
        lo, hi = 1, 2
        while hi < QUERY_CAP and bound(hi, s) <= eps:
            lo, hi = hi, min(hi * 2, QUERY_CAP)
        if hi >= QUERY_CAP and bound(hi, s) <= eps:
            return QUERY_CAP
        while hi - lo > 1:  # bound(lo) <= eps < bound(hi)
            mid = (lo + hi) // 2
            if bound(mid, s) <= eps:
                lo = mid
            else:
                hi = mid
        best = max(best, lo)
    return best
