"""Which model is best, when several are scored on the same items?

Models scored on one test set share its items: their errors are correlated and their
scores move together.  Methods built for independent test sets (independent Beta
posteriors, the unpaired sizes of :mod:`heldout.comparison.compare`) misjudge both the uncertainty
and the chance of picking the right model, and the popular recipe "take the leader, test
it against each rival, adjust with Holm" does not control its error rate, because the
leader was chosen by the same data.

* :func:`best_set` -- the models that cannot be ruled out as best: multiple comparisons
  with the best (:cite:`hsu1996`) in a paired, step-down form (:cite:`romano2005`),
  calibrated by sign-flipping the per-item score differences.  A truly best model is
  left out with probability at most ``alpha``, whatever the correlation between models.
* :func:`prob_best_paired` -- posterior probability that each model has the highest
  accuracy, from the right/wrong patterns of the items (a Dirichlet posterior whose
  default prior gives every pair's disagreements a Jeffreys prior), beside :func:`heldout.comparison.compare.prob_best` which treats the models
  as independent.
* :func:`false_claims` -- simulates "leader + Holm" and the best set on the same test
  sets, so the failure of the first and the validity of the second can be seen.
* :func:`pick_best_paired`, :func:`pick_best_size_paired` -- the chance that the truly
  best model tops a shared test set, and the size that makes it likely, by simulation.
* :func:`shared_patterns`, :func:`simulate_correct` -- the book's generator of correlated
  models: each model answers an item from a difficulty shared by all models with
  probability ``shared``, from its own otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heldout._checks import in_choices, show
from heldout._result import Result
from heldout.comparison.paired import first_at_least, mcnemar_exact
from heldout.comparison.predictions import (
    _choice,
    _count,
    _probabilities,
    _probability,
    _scalar,
    as_correct,
    pattern_counts,
)
from heldout.config import rng as make_rng

__all__ = [
    "BestSet",
    "FalseClaims",
    "PairedBest",
    "PatternProbs",
    "PickBest",
    "PickBestSize",
    "PAIRED_PRIORS",
    "best_set",
    "false_claims",
    "pick_best_paired",
    "pick_best_size_paired",
    "prob_best_paired",
    "shared_patterns",
    "simulate_correct",
]

_MAX_PATTERNS = 4096  # above this many distinct patterns, Gaussian multipliers replace sign flips
_CHUNK = 512  # draws per block


# ---------------------------------------------------------------------------
# The best set
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BestSet(Result):
    """Models that cannot be ruled out as the best, at level ``alpha``."""

    models: np.ndarray  #: indices of the models in the set (ascending)
    p_values: np.ndarray  #: per model: adjusted p-value of "this model is a best one"
    in_set: np.ndarray  #: per model: True when it is in the set
    statistic: np.ndarray  #: per model: largest lead of a rival over it, in McNemar SEs
    alpha: float  #: the level


def _studentised(x: np.ndarray, counts: np.ndarray):
    """Pair statistics for a batch: ``x`` (P, k) patterns, ``counts`` (R, P).

    Returns the scale ``s`` (R, k, k) with ``s[j, i]^2`` the number of items on which
    models ``j`` and ``i`` disagree, and ``T[j, i] = (n_j - n_i) / s[j, i]`` (rival
    ``j``'s lead in correct answers over ``i``, in units of McNemar's standard error; 0
    where the two models never disagree).
    """
    w = counts.astype(float)
    right = w @ x  # (R, k) correct answers
    both = np.einsum("rp,pi,pj->rij", w, x, x)
    diag = np.diagonal(both, axis1=1, axis2=2)
    disagree = diag[:, :, None] + diag[:, None, :] - 2.0 * both
    s = np.sqrt(np.maximum(disagree, 0.0))
    s = np.where(s > 0.5, s, np.inf)  # never disagree: no evidence either way
    t = (right[:, :, None] - right[:, None, :]) / s
    return s, t


def _max_lead(t: np.ndarray) -> np.ndarray:
    """``max_{j != i} t[..., j, i]`` (the strongest rival's lead over model i)."""
    k = t.shape[-1]
    masked = np.where(np.eye(k, dtype=bool), -np.inf, t)
    return masked.max(axis=-2)


#: Counts below this many items get their fair binomials by counting random bits.
_BITS_MAX = 2048


def _fair_binomial(counts: np.ndarray, b: int, rng) -> np.ndarray:
    """``b`` draws of Binomial(count, 1/2) for every entry of ``counts`` (R, P): (R, b, P).

    Exact: a count ``c`` below :data:`_BITS_MAX` gets the number of ones among ``c``
    random bits from the generator (each bit a fair coin; ``ceil(c / 64)`` 64-bit words,
    the last one masked), several times faster than ``Generator.binomial``, which
    serves the larger counts.
    """
    reps, n_pat = counts.shape
    flat = counts.ravel()
    out = np.empty((b, reps * n_pat), dtype=np.int64)  # draws first: no transposed copy
    words = (flat + 63) // 64
    for w in np.unique(words[flat < _BITS_MAX]):
        idx = np.flatnonzero((words == w) & (flat < _BITS_MAX))
        if w == 0:
            out[:, idx] = 0
            continue
        rest = (flat[idx] - 64 * (w - 1)).astype(np.uint64)  # bits used in the last word
        last = np.where(rest == 64, np.uint64(2**64 - 1), (np.uint64(1) << rest) - np.uint64(1))
        bits = rng.bit_generator.random_raw((b, idx.size, w))
        bits[:, :, -1] &= last
        ones = np.bitwise_count(bits)
        out[:, idx] = ones[:, :, 0] if w == 1 else ones.sum(axis=2, dtype=np.int64)
    big = np.flatnonzero(flat >= _BITS_MAX)
    if big.size:
        out[:, big] = rng.binomial(flat[big], 0.5, size=(b, big.size))
    return out.reshape(b, reps, n_pat).transpose(1, 0, 2)


def _best_set_batch(x, counts, alpha, draws, rng, method):
    """Adjusted p-values (R, k) and statistics (R, k) of the step-down best set."""
    x = x.astype(float)
    reps, k = counts.shape[0], x.shape[1]
    s, t = _studentised(x, counts)
    stat = _max_lead(t)  # (R, k)
    order = np.argsort(-stat, axis=1, kind="stable")  # most evidence against first
    sorted_stat = np.take_along_axis(stat, order, axis=1)
    exceed = np.zeros((reps, k))
    if method == "gaussian":
        w = counts.astype(float)
        second = np.einsum("rp,pi,pj->rij", w, x, x)  # sum over items of x_t x_t^T
        vals, vecs = np.linalg.eigh(second)
        root = vecs * np.sqrt(np.maximum(vals, 0.0))[:, None, :]  # second = root root^T
    done = 0
    while done < draws:
        b = min(_CHUNK, draws - done)
        if method == "signflip":
            flips = 2.0 * _fair_binomial(counts, b, rng)
            flips -= counts[:, None, :]  # sum of the signs of the items of each pattern
            boot = flips @ x  # (R, b, k): sum over items of sign_t x_t
        else:
            boot = np.einsum("rij,rbj->rbi", root, rng.standard_normal((reps, b, k)))
        tb = (boot[:, :, :, None] - boot[:, :, None, :]) / s[:, None, :, :]
        lead = _max_lead(tb)  # (R, b, k)
        lead = np.take_along_axis(lead, order[:, None, :], axis=2)
        tail_max = np.maximum.accumulate(lead[:, :, ::-1], axis=2)[:, :, ::-1]
        exceed += np.sum(tail_max >= sorted_stat[:, None, :] - 1e-9, axis=1)
        done += b
    p_sorted = np.maximum.accumulate((1.0 + exceed) / (draws + 1.0), axis=1)
    p = np.empty_like(p_sorted)
    np.put_along_axis(p, order, p_sorted, axis=1)
    return np.minimum(p, 1.0), stat


def best_set(
    correct, alpha: float = 0.05, *, draws: int = 10_000, method: str = "signflip", seed=None
) -> BestSet:
    """The models that cannot be ruled out as the most accurate, from paired correctness.

    Procedure (multiple comparisons with the best, :cite:`hsu1996`, made paired and
    step-down, :cite:`romano2005`).  For every ordered pair ``(j, i)`` let
    ``T_ji = (n_j - n_i) / sqrt(D_ji)``: rival ``j``'s lead in correct answers over model
    ``i``, in units of McNemar's standard error (``D_ji`` items on which the two
    disagree).  Model ``i`` is *a* best model when no rival is more accurate; the
    evidence against that is ``S_i = max_j T_ji``.  The null distribution of these maxima
    comes from sign flips: every item's vector of per-model correctness enters the
    rivals' leads with an independent random sign, so each ``T*_ji`` is a sum of
    ``D_ji`` random signs over ``sqrt(D_ji)`` and all of them keep the items they share
    -- the correlation between models is reproduced, whatever it is.  For each
    right/wrong pattern the sum of its items' signs is ``2 Binomial(count, 1/2) - count``,
    so the cost does not grow with the number of items (the binomials of counts below
    2,048 are drawn as the number of ones among that many random bits).  Step down: sort the models by
    ``S_i``; the ``r``-th gets the p-value ``P*(max over the models not yet removed of
    max_j T*_ji >= S_(r))``, made monotone; a model is removed from the set when its
    p-value is ``<= alpha``.

    Why the guarantee survives selection: no model is singled out in advance -- every
    model is tested, against every rival, by the same rule.  If ``b`` is a truly best
    model, ``p_j <= p_b`` for every rival, so each ``T_jb`` is stochastically no larger
    than under ``p_j = p_b``; and until a truly best model is removed, the models still in
    the set include all of them.  So "some truly best model is removed" requires the
    largest of the statistics against the truly best models to exceed a quantile
    computed over a set that contains them (:cite:`romano2005`).  With two models the
    sign-flip distribution is exactly McNemar's (the lagging model's p-value is the exact
    two-sided McNemar p-value: with two equal models both are "best").  With three or more
    models it is *not* exact, even when the models are exchangeable: flipping the sign of
    an item's whole vector of differences is not a symmetry of the null distribution (an
    item right for models 2 and 3 and wrong for model 1 gives a difference vector whose
    sign flip no item can produce), so there is no exactness argument.  It is
    correct asymptotically, as the number of disagreements grows (uncentred flips
    overstate the spread of pairs that differ, which errs on the safe side), and its level
    is established by simulation.  ``tests/comparison/test_best.py``
    (``test_best_set_keeps_the_best_with_probability_1_minus_alpha``,
    ``test_best_set_with_non_exchangeable_correlation``) checks the error rate -- equal and unequal models, exchangeable and
    non-exchangeable correlation, small test sets, few disagreements: it stays at or
    below ``alpha`` within simulation error, and is conservative when disagreements are
    few, as exact discrete tests are.  Ties at the top are allowed: all tied best models
    are kept together with probability at least ``1 - alpha``.

    Parameters
    ----------
    correct
        Boolean matrix (n_items, n_models), at least two models.
    alpha
        Allowed probability of leaving out a truly best model.
    draws
        Sign-flip draws (Monte Carlo); p-values are ``(1 + hits) / (draws + 1)``, which
        keeps the level exact for the Monte Carlo test.
    method
        ``"signflip"`` (default) or ``"gaussian"`` (normal multipliers: the
        multivariate normal approximation with the estimated covariance).  With more
        than 4,096 distinct right/wrong patterns (many models), ``"gaussian"`` is used.
    seed
        Seed or Generator for the draws (default: the book's seed).

    Returns
    -------
    BestSet
        ``models`` (indices in the set), ``p_values``, ``in_set``, ``statistic``, ``alpha``.

    Examples
    --------
    >>> correct = simulate_correct([0.95, 0.95, 0.93, 0.90], 3000, seed=1)
    >>> best_set(correct).models.tolist()
    [0, 1]
    """
    alpha = _probability(alpha, "alpha")
    draws = _count(draws, "draws", minimum=99)
    if draws > 10_000_000:  # stated limit: more draws cannot finish in reasonable time
        raise ValueError(f"draws must be at most 10,000,000, got {draws:,}")
    _choice(method, "method", ("signflip", "gaussian"))
    c = as_correct(correct)
    pat = pattern_counts(c)
    if pat.counts.size > _MAX_PATTERNS:
        method = "gaussian"
    p, stat = _best_set_batch(
        pat.patterns, pat.counts[None, :], alpha, draws, make_rng(seed), method
    )
    p, stat = p[0], stat[0]
    keep = p > alpha
    return BestSet(np.flatnonzero(keep), p, keep, stat, alpha)


# ---------------------------------------------------------------------------
# Paired P(best)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PairedBest(Result):
    """Posterior probability that each model is the most accurate (paired)."""

    prob: np.ndarray  #: per model, sums to 1
    se: np.ndarray  #: Monte Carlo standard error of each entry
    draws: int  #: posterior draws used


#: Named priors of :func:`prob_best_paired`: the Beta(a0, a0) prior each pair's share of
#: disagreements gets (the names of ``heldout compare --prior``).
PAIRED_PRIORS = {"uniform": 1.0, "jeffreys": 0.5, "haldane": 0.0}

#: Random patterns that carry the prior's mass when there are more than 16 models.
_PRIOR_ATOMS = 1024


def _pattern_prior(prior, k: int) -> float:
    """Dirichlet concentration per right/wrong pattern for ``prior`` with ``k`` models."""
    if prior is None:
        prior = "uniform"
    if isinstance(prior, str):
        if not in_choices(prior, PAIRED_PRIORS):
            raise ValueError(
                f"prior must be one of {', '.join(PAIRED_PRIORS)} or a concentration per "
                f"pattern (a number >= 0), got {show(prior)}"
            )
        return PAIRED_PRIORS[prior] * 2.0 ** (2 - k)
    value = _scalar(prior, "prior")
    if value < 0:
        raise ValueError(f"prior must be >= 0 (a Dirichlet concentration per pattern), got {value}")
    return value


def prob_best_paired(
    correct, *, prior: str | float | None = "uniform", draws: int = 20_000, seed=None
) -> PairedBest:
    """``P(model i has the highest accuracy | data)``, using that the models share items.

    Model: the items are independent draws from a distribution over the ``2^k``
    right/wrong patterns of the ``k`` models, with unknown probabilities ``pi``; the
    accuracy of model ``i`` is the total probability of the patterns in which it is
    right.  With a symmetric Dirichlet prior of concentration ``a`` per pattern, the
    posterior of ``pi`` is ``Dirichlet(counts + a)``.  Draws of ``pi`` give draws of all
    accuracies *jointly*; ``P(i best)`` is the share of draws in which ``i`` is the
    largest (exact ties are shared equally).

    The prior is named by what it gives every *pair*: for models ``i`` and ``j`` the
    ``2^(k-2)`` patterns where ``i`` is right and ``j`` wrong carry ``a 2^(k-2)`` in all,
    and so do those where ``j`` is right and ``i`` wrong, so the share of their
    disagreements that ``i`` wins has the prior ``Beta(a0, a0)`` with ``a0 = a 2^(k-2)``.
    ``prior="uniform"`` (default) takes ``a0 = 1``, ``a = 2^(2-k)``: every pair's share gets
    the uniform prior whatever the number of models, the default of the two-model paths
    (:func:`heldout.comparison.compare.paired_prob_better` and ``heldout compare --a --b
    --only-a-correct --only-b-correct``), so with two models all paths give the same
    number, ``P(A best) = 1 - I_{1/2}(b + 1, c + 1)`` for ``b`` items only A gets right
    and ``c`` only B gets right.  ``"jeffreys"`` takes ``a0 = 1/2`` (:cite:`jeffreys1946`),
    ``"haldane"`` (``a = 0``) is the Bayesian bootstrap (:cite:`rubin1981`): weight only
    on the patterns seen.  It is improper, and it misleads when disagreements are few: on
    1,000 items where A errs once and B never it says ``P(B best) = 1`` exactly, although
    one disagreement is no evidence (McNemar's p = 1); the uniform prior gives 0.75.  A
    number is taken as ``a`` itself.

    Behaviour over ``k``: the prior of every pairwise comparison is the same for any
    ``k``; ``P(best)`` itself is shared among the models the data cannot separate.  The
    prior treats the patterns as exchangeable, not the models as possibly equal, so the
    leader of equally good models still gets a large ``P(best)`` (0.67 for the leader of
    ten independent models of accuracy 0.9 on 1,000 items): read it as "which is best if
    one is", and use :func:`best_set` to ask whether the data separate them.  Frequentist
    calibration (300 simulated test sets of 1,000 items per ``k``, true accuracies
    0.9 plus normal noise of s.d. 0.01, half the per-item randomness shared): the
    leader's average ``P(best)`` against the share of sets in which it was truly best was
    0.83 vs 0.81 for 2 models, 0.65 vs 0.63 for 5 and 0.59 vs 0.56 for 10 (slightly
    over-confident, by about one Monte Carlo standard error); ``tests/comparison/test_best.py``
    repeats the check for five models.

    Why it differs from :func:`heldout.comparison.compare.prob_best`: that function gives each
    accuracy its own, independent Beta posterior, as if each model had its own test set.
    On a shared test set two models that agree on most items have strongly correlated
    accuracies; the uncertainty about their *difference* comes only from the items where
    they disagree, and is much smaller than independent posteriors suggest.  The paired
    value is therefore more decisive when models agree on most items (the usual case),
    and the independent value understates how sure the data make us about the leader.
    With few disagreements and a close race, both are near their "coin flip" values.

    Cost: the data enter only through the pattern counts, so a million items cost no
    more than a thousand.  Up to 16 models a positive prior is spread over all ``2^k``
    patterns; above 16 its total mass ``a 2^k`` is spread evenly over 1,024 patterns drawn
    at random (uniformly), so each pair's prior mass on its disagreements is ``a0`` up to a
    relative error of about 5 % (one standard deviation of a binomial share of 1,024), an
    approximation the tests compare with the exact prior at 8 models.

    Parameters
    ----------
    correct
        Boolean matrix (n_items, n_models), at least two models.
    prior
        ``"uniform"`` (default; ``None`` means the same), ``"jeffreys"``, ``"haldane"``, or a
        Dirichlet concentration per right/wrong pattern (a number ``>= 0``).
    draws
        Posterior draws (Monte Carlo).
    seed
        Seed or Generator for the draws (default: the book's seed).

    Returns
    -------
    PairedBest
        ``prob`` (sums to 1), its Monte Carlo ``se`` and ``draws``.

    Examples
    --------
    >>> correct = simulate_correct([0.95, 0.94, 0.90], 2000, seed=3)
    >>> prob_best_paired(correct, seed=0).prob.round(2).tolist()
    [0.94, 0.06, 0.0]
    """
    return _prob_best_paired(correct, prior, draws, seed)


def _prob_best_paired(correct, prior, draws, seed, atoms: bool | None = None) -> PairedBest:
    c = as_correct(correct)
    k = c.shape[1]
    prior = _pattern_prior(prior, k)
    draws = _count(draws, "draws", minimum=1)
    if draws > 10_000_000:  # stated limit: more draws cannot finish in reasonable time
        raise ValueError(f"draws must be at most 10,000,000, got {draws:,}")
    pat = pattern_counts(c)
    x, counts = pat.patterns.astype(float), pat.counts.astype(float)
    g = make_rng(seed)
    if prior > 0:
        if atoms if atoms is not None else k > 16:
            # the prior's mass a 2^k on random patterns (a uniform sample of the 2^k)
            extra = (g.random((_PRIOR_ATOMS, k)) < 0.5).astype(float)
            x = np.vstack([x, extra])
            counts = np.r_[counts, np.full(_PRIOR_ATOMS, prior * 2.0**k / _PRIOR_ATOMS)]
        else:
            x = ((np.arange(1 << k)[:, None] >> np.arange(k)) & 1).astype(float)
            full = np.zeros(1 << k)
            code = pat.patterns.astype(np.int64) @ (1 << np.arange(k))
            full[code] = counts
            counts = full + prior
    wins = np.zeros(k)
    done = 0
    while done < draws:
        b = min(max(1, (1 << 22) // counts.size), _CHUNK * 8, draws - done)
        w = g.standard_gamma(counts, size=(b, counts.size))
        acc = (w @ x) / w.sum(axis=1, keepdims=True)
        top = acc == acc.max(axis=1, keepdims=True)
        wins += np.sum(top / top.sum(axis=1, keepdims=True), axis=0)
        done += b
    prob = wins / draws
    return PairedBest(prob, np.sqrt(prob * (1 - prob) / draws), draws)


# ---------------------------------------------------------------------------
# Correlated models: the book's generator
# ---------------------------------------------------------------------------


def _accuracies(accuracies, *, minimum: int = 2) -> np.ndarray:
    acc = _probabilities(accuracies, "accuracies")
    if acc.ndim != 1 or acc.size < minimum:
        raise ValueError(f"accuracies must list at least {minimum} models, got {show(accuracies)}")
    return acc


def _shared(shared, k: int) -> np.ndarray:
    """``shared`` as one probability per model (a number applies to all)."""
    if isinstance(shared, bool | np.bool_):
        raise ValueError(f"shared must be a probability, not a boolean, got {show(shared)}")
    try:
        arr = np.asarray(shared, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(
            f"shared must be a probability or one per model, got {show(shared)}"
        ) from None
    if arr.ndim > 1 or (arr.ndim == 1 and arr.size != k):
        raise ValueError(
            f"shared must be a number or one number per model ({k}), got {show(shared)}"
        )
    if np.any(np.isnan(arr)) or np.any((arr < 0) | (arr > 1)):
        raise ValueError("shared must lie between 0 and 1 inclusive")
    return np.broadcast_to(arr, (k,)).astype(float)


def _groups(acc: np.ndarray, shared: np.ndarray):
    """Cut the shared difficulty ``u`` at the accuracies: widths (G,) and P(right | group) (G, k)."""
    edges = np.unique(np.concatenate(([0.0, 1.0], acc)))
    widths = np.diff(edges)
    right_if_shared = edges[1:, None] <= acc[None, :]  # u in the group lies below acc_j
    q = shared[None, :] * right_if_shared + (1.0 - shared[None, :]) * acc[None, :]
    return widths, q


@dataclass(frozen=True)
class PatternProbs(Result):
    """Probability of every right/wrong pattern under the shared-difficulty generator."""

    patterns: np.ndarray  #: boolean matrix (2^k, k)
    probs: np.ndarray  #: probability of each pattern


def shared_patterns(accuracies, shared: float = 0.8) -> PatternProbs:
    """Exact pattern probabilities of the book's generator of correlated models.

    Each item has a difficulty ``u ~ Uniform(0, 1)`` shared by all models.  Model ``j``
    uses it with probability ``shared`` and an independent ``Uniform(0, 1)`` of its own
    otherwise (``shared`` may differ between models: give one per model), and is right
    when the value it uses is below ``accuracies[j]``.  Given the
    group of ``u`` between consecutive accuracies the models are independent, so every
    pattern's probability is a short sum.  ``shared = 0`` gives independent models,
    ``shared = 1`` models whose errors are nested.  (Up to 16 models.)

    Examples
    --------
    >>> pp = shared_patterns([0.9, 0.8], shared=0.5)
    >>> pp.patterns.astype(int).tolist(), pp.probs.round(4).tolist()
    ([[0, 0], [1, 0], [0, 1], [1, 1]], [0.04, 0.16, 0.06, 0.74])
    """
    acc = _accuracies(accuracies, minimum=1)
    k = acc.size
    shared = _shared(shared, k)
    if k > 16:
        raise ValueError(f"shared_patterns handles at most 16 models, got {k}")
    x = ((np.arange(1 << k)[:, None] >> np.arange(k)) & 1).astype(bool)
    widths, q = _groups(acc, shared)
    probs = np.zeros(1 << k)
    for wdt, qg in zip(widths, q, strict=True):
        probs += wdt * np.prod(np.where(x, qg, 1.0 - qg), axis=1)
    return PatternProbs(x, probs / probs.sum())


def simulate_correct(accuracies, n, *, shared: float = 0.8, seed=None) -> np.ndarray:
    """One simulated test set of ``n`` items from the shared-difficulty generator.

    See :func:`shared_patterns`.  Returns the boolean matrix (n, k).

    Examples
    --------
    >>> simulate_correct([0.9, 0.8], 5, seed=0).shape
    (5, 2)
    """
    acc = _accuracies(accuracies, minimum=1)
    shared = _shared(shared, acc.size)
    n = _count(n, "n", minimum=1)
    if n * acc.size > 10**9:
        raise ValueError("n times the number of models must be at most 10**9")
    g = make_rng(seed)
    common = g.random((n, 1))
    own = g.random((n, acc.size))
    use_common = g.random((n, acc.size)) < shared
    return np.where(use_common, common, own) < acc


# ---------------------------------------------------------------------------
# "Leader + Holm" against the best set, by simulation
# ---------------------------------------------------------------------------


def _holm_reject(p: np.ndarray, alpha: float) -> np.ndarray:
    """Holm's rejections along the last axis (NaN entries are not part of the family)."""
    m = np.sum(~np.isnan(p), axis=-1, keepdims=True)
    filled = np.where(np.isnan(p), 2.0, p)  # outside the family: sorted last, never rejected
    order = np.argsort(filled, axis=-1, kind="stable")
    ps = np.take_along_axis(filled, order, axis=-1)
    adj = np.maximum.accumulate(np.minimum(ps * (m - np.arange(p.shape[-1])), 1.0), axis=-1)
    rej_sorted = adj <= alpha
    rej = np.zeros_like(rej_sorted)
    np.put_along_axis(rej, order, rej_sorted, axis=-1)
    return rej & ~np.isnan(p)


@dataclass(frozen=True)
class FalseClaims(Result):
    """Error rates of "leader + Holm" and of the best set on the same simulated test sets."""

    leader_holm: float  #: P(a false "leader beats rival" claim), one-sided McNemar + Holm
    leader_holm_two_sided: float  #: the same with two-sided McNemar p-values + Holm
    best_set: float  #: P(a truly best model is left out of the best set)
    se: float  #: largest Monte Carlo standard error of the three rates
    reps: int  #: simulated test sets


def false_claims(
    accuracies,
    n,
    *,
    shared: float = 0.8,
    alpha: float = 0.05,
    reps: int = 2000,
    draws: int = 1000,
    seed=None,
) -> FalseClaims:
    """Simulate "pick the leader, then Holm" beside the best set, on shared test sets.

    Each of ``reps`` test sets has ``n`` items drawn from :func:`shared_patterns`.  On
    each:

    * **leader + Holm** (what the book once did): the model with the highest score is
      the leader (ties at random); McNemar's exact test of "leader better" against every
      rival, Holm over the ``k - 1`` tests; every rejection is a claim "the leader beats
      this rival".  A claim is false when the rival's true accuracy is at least the
      leader's.  The rate reported is the share of test sets with at least one false
      claim.  The two-sided variant uses two-sided p-values (as the MNIST chapter did).
    * **best set** (:func:`best_set` at ``alpha``, ``draws`` sign flips): an error is a
      truly best model left out.

    With equally accurate models every claim is false, and "leader + Holm" makes one far
    more often than ``alpha``: the leader is chosen *because* it had lucky items, and its
    tests inherit that luck; Holm corrects for the number of tests, not for the choice.

    Examples
    --------
    >>> fc = false_claims([0.95] * 6, 3000, reps=200, draws=200, seed=1)
    >>> fc.leader_holm > fc.best_set
    True
    """
    acc = _accuracies(accuracies)
    if acc.size > 12:
        raise ValueError("false_claims simulates at most 12 models")
    n = _count(n, "n", minimum=1)
    alpha = _probability(alpha, "alpha")
    reps = _count(reps, "reps", minimum=1)
    if reps > 1_000_000:  # stated limit: more repetitions cannot finish in reasonable time
        raise ValueError(f"reps must be at most 1,000,000, got {reps:,}")
    draws = _count(draws, "draws", minimum=99)
    if draws > 10_000_000:  # stated limit: more draws cannot finish in reasonable time
        raise ValueError(f"draws must be at most 10,000,000, got {draws:,}")
    pp = shared_patterns(acc, shared)
    g = make_rng(seed)
    x = pp.patterns.astype(float)
    k = acc.size
    best = acc == acc.max()
    one = two = miss = 0
    for lo in range(0, reps, 100):
        r = min(100, reps - lo)
        counts = g.multinomial(n, pp.probs, size=r)
        scores = counts @ x
        leader = np.argmax(scores + g.random(scores.shape) * 0.5, axis=1)
        w = counts.astype(float)
        both = np.einsum("rp,pi,pj->rij", w, x, x)
        rows = np.arange(r)
        lead_right = both[rows, leader, leader][:, None]
        co = both[rows, leader, :]
        b = lead_right - co  # leader right, rival wrong
        c = scores - co  # rival right, leader wrong
        false_if = acc[None, :] >= acc[leader][:, None]
        rivals = np.ones((r, k), dtype=bool)
        rivals[rows, leader] = False
        for alt in ("greater", "two-sided"):
            p = np.where(rivals, mcnemar_exact(b.astype(np.int64), c.astype(np.int64), alt), np.nan)
            bad = np.any(_holm_reject(p, alpha) & false_if, axis=1)
            if alt == "greater":
                one += int(bad.sum())
            else:
                two += int(bad.sum())
        pv, _ = _best_set_batch(x, counts, alpha, draws, g, "signflip")
        miss += int(np.sum(np.any((pv <= alpha) & best[None, :], axis=1)))
    rates = np.array([one, two, miss]) / reps
    worst = float(np.max(rates * (1 - rates)))
    return FalseClaims(
        float(rates[0]), float(rates[1]), float(rates[2]), float(np.sqrt(worst / reps)), reps
    )


# ---------------------------------------------------------------------------
# Picking the best of several correlated models
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PickBest(Result):
    """Simulated chance that the truly best model gets the top score."""

    prob: float  #: estimate
    se: float  #: its Monte Carlo standard error


def _pick_rate(acc: np.ndarray, n: int, shared: float, reps: int, g) -> float:
    widths, q = _groups(acc, shared)
    hits = 0.0
    for lo in range(0, reps, 4096):
        r = min(4096, reps - lo)
        sizes = g.multinomial(n, widths, size=r)  # items per difficulty group
        scores = g.binomial(sizes[:, :, None], q[None, :, :]).sum(axis=1)  # (r, k)
        top = scores.max(axis=1)
        tied = (scores == top[:, None]).sum(axis=1)
        hits += float(np.sum((scores[:, 0] == top) / tied))
    return hits / reps


def pick_best_paired(
    accuracies, n, *, shared: float = 0.8, reps: int = 20_000, seed=None
) -> PickBest:
    """Chance that model 0 (the truly best) has the top score on ``n`` shared items.

    Simulated under :func:`shared_patterns`'s generator (ties at the top broken at
    random).  Given the group of the shared difficulty the models are independent, so a
    test set costs one multinomial and ``k`` binomials per group, whatever ``n``.  Compare
    :func:`heldout.comparison.compare.pick_best_probability`, which assumes every model has its own
    independent test set.

    Examples
    --------
    >>> round(pick_best_paired([0.96, 0.95, 0.95], 2000, reps=4000, seed=0).prob, 2)
    0.98
    """
    acc = _accuracies(accuracies)
    if np.any(acc[1:] >= acc[0]):
        raise ValueError("accuracies[0] must be strictly the largest (the truly best model)")
    n = _count(n, "n", minimum=1)
    reps = _count(reps, "reps", minimum=1)
    if reps > 1_000_000:  # stated limit: more repetitions cannot finish in reasonable time
        raise ValueError(f"reps must be at most 1,000,000, got {reps:,}")
    p = _pick_rate(acc, n, _shared(shared, acc.size), reps, make_rng(seed))
    return PickBest(p, float(np.sqrt(max(p * (1 - p), 1e-12) / reps)))


@dataclass(frozen=True)
class PickBestSize(Result):
    """Shared test-set size at which the best of several correlated models tops it."""

    n: int  #: smallest n whose simulated chance reaches ``power``
    n_independent: int  #: the size if every model had its own test set (exact)
    prob: float  #: simulated chance at ``n``
    se: float  #: its Monte Carlo standard error


# Its keyword arguments repeat false_claims' (both public): both simulate test sets shared by
# correlated models (shared_patterns); what each finds from the draws differs.
def pick_best_size_paired(
    accuracy,
    gap,
    models: int = 1,
    *,
    shared: float = 0.8,
    power: float = 0.95,
    reps: int = 20_000,
    seed=None,
) -> PickBestSize:
    """Smallest shared test set on which the best of ``models + 1`` correlated models tops it.

    The best model has ``accuracy``, each of its ``models`` rivals ``accuracy - gap``, and
    all share the items as in :func:`shared_patterns`.  The chance is simulated with the
    same random numbers at every ``n`` (so the estimated curve is smooth) and ``n`` is
    found by doubling and bisection on it; ``prob`` and ``se`` report the estimate at
    ``n``.  ``n_independent`` is :func:`heldout.comparison.compare.required_size_exact` (each model
    on its own test set).

    What sharing the test set changes (checked in ``tests/test_best.py``): the size is
    multiplied by about the ratio of the variances of a score difference,
    ``(d - gap^2) / (p_A (1 - p_A) + p_B (1 - p_B))`` with ``d`` the disagreement rate of
    the best model and a rival (0.43 at ``shared = 0.8`` for 96 % against 95 %), but it
    still grows like ``log(models)``: each doubling of the number of rivals adds a
    roughly constant number of items, scaled by the same ratio.  The "log n_m" law thus
    survives on a shared test set; what independent-test-set formulas get wrong is the
    size itself, by that factor.

    Examples
    --------
    >>> s = pick_best_size_paired(0.96, 0.01, 3, reps=2000, seed=0)
    >>> s.n < s.n_independent
    True
    """
    from heldout.comparison.compare import required_size_exact

    p = _probability(accuracy, "accuracy")
    gap = _scalar(gap, "gap")
    if not 0 < gap < p:
        raise ValueError(f"gap must be positive and smaller than accuracy, got {show(gap)}")
    models = _count(models, "models", minimum=1)
    if models > 1000:
        raise ValueError(f"models must be at most 1000, got {models}")
    power = _probability(power, "power")
    if power <= 1.0 / (models + 1):
        raise ValueError(f"power must exceed 1/(models+1) (a random pick), got {power}")
    reps = _count(reps, "reps", minimum=1)
    if reps > 1_000_000:  # stated limit: more repetitions cannot finish in reasonable time
        raise ValueError(f"reps must be at most 1,000,000, got {reps:,}")
    shared = _probability(shared, "shared", closed=True)
    acc = np.array([p] + [p - gap] * models)
    shared = np.full(acc.size, shared)
    base = int(make_rng(seed).integers(2**62))  # the same random numbers at every n

    def chance(n: int) -> float:
        return _pick_rate(acc, n, shared, reps, np.random.default_rng(base))

    hi = first_at_least(chance, power)
    prob = chance(hi)
    return PickBestSize(
        hi,
        required_size_exact(p, gap, models, power=power),
        prob,
        float(np.sqrt(prob * (1 - prob) / reps)),
    )
