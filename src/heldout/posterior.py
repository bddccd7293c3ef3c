"""The Beta posterior of an accuracy.

If a model gets each of ``n`` test items right independently with probability
``p`` and a Beta(``a0``, ``b0``) prior is put on ``p``, then after ``k``
successes and ``m = n - k`` failures the posterior is Beta(``k + a0``,
``m + b0``) (Beta-binomial conjugacy).  The source article
(:cite:`validation_size`) uses the uniform prior Beta(1, 1) ("rule of
succession") and mentions Beta(0, 0); we add Jeffreys' Beta(1/2, 1/2).

Formulas (Beta(a, b), s = a + b):

* mean ``a / s``
* variance ``a b / (s^2 (s + 1))``; with the uniform prior this is the
  article's ``p_hat (1 - p_hat) / (N + 3)`` where ``p_hat = (k + 1)/(N + 2)``
  and ``N = k + m`` is the number of test items.
* equal-tailed interval: the ``(1 - level)/2`` and ``(1 + level)/2`` quantiles.
* highest-density interval: the shortest interval holding ``level`` of the
  mass; for a unimodal density its ends have equal density.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heldout import _beta
from heldout._checks import (
    as_choice,
    as_count,
    as_counts,
    as_positive,
    as_probability,
    broadcast,
    check_work,
    scalar_or_array,
    show,
)

# Most (a, b) pairs hpd() solves one by one.
_HPD_LIMIT = 100_000

#: Named priors: (a0, b0) of the Beta prior.
PRIORS: dict[str, tuple[float, float]] = {
    "uniform": (1.0, 1.0),
    "haldane": (0.0, 0.0),
    "jeffreys": (0.5, 0.5),
}

PriorLike = str | tuple[float, float]


def prior_params(prior: PriorLike = "uniform") -> tuple[float, float]:
    """Return ``(a0, b0)`` of a Beta prior given by name or as a pair.

    Parameters
    ----------
    prior
        ``"uniform"`` (Beta(1, 1), the default), ``"haldane"`` (Beta(0, 0)),
        ``"jeffreys"`` (Beta(1/2, 1/2)) or an explicit pair ``(a0, b0)`` of
        non-negative numbers.

    Raises
    ------
    ValueError
        If ``prior`` is an unknown name or not a pair of non-negative numbers.
    """
    if isinstance(prior, str):
        key = prior.strip().lower()
        if key not in PRIORS:
            raise ValueError(
                f"prior must be one of {sorted(PRIORS)} or a pair (a, b), got {show(prior)}"
            )
        return PRIORS[key]
    try:
        a0, b0 = prior
    except (TypeError, ValueError):
        raise ValueError(
            f"prior must be a name or a pair (a, b) of non-negative numbers, got {show(prior)}"
        ) from None
    a0 = as_positive(a0, "prior", allow_zero=True, scalar=True)
    b0 = as_positive(b0, "prior", allow_zero=True, scalar=True)
    return a0, b0


def beta_params(successes, failures, prior: PriorLike = "uniform") -> tuple[np.ndarray, np.ndarray]:
    """Posterior parameters ``(a, b) = (successes + a0, failures + b0)``.

    Conjugate update of a Beta(a0, b0) prior by binomial data
    (:cite:`validation_size`).  Arrays broadcast.

    Raises
    ------
    ValueError
        If a count is negative or fractional, or if the posterior is improper
        (a zero parameter, e.g. the Haldane prior with no failures: the
        article's "takes value 1 with 100% probability").
    """
    s = as_count(successes, "successes")
    f = as_count(failures, "failures")
    a0, b0 = prior_params(prior)
    s, f = broadcast(successes=s, failures=f)
    a, b = s + a0, f + b0
    if np.any(a <= 0) or np.any(b <= 0):
        raise ValueError(
            f"prior {show(prior)} with successes={show(successes)}, failures={show(failures)} gives an improper "
            "posterior (a parameter is 0); use a proper prior such as 'uniform' or 'jeffreys'"
        )
    return a.astype(float), b.astype(float)


def beta_mean(a, b):
    """Mean ``a / (a + b)`` of Beta(a, b)."""
    a = as_positive(a, "a")
    b = as_positive(b, "b")
    a, b = broadcast(a=a, b=b)
    return scalar_or_array(a / (a + b))


def beta_sd(a, b):
    """Standard deviation ``sqrt(a b / ((a + b)^2 (a + b + 1)))`` of Beta(a, b)."""
    a = as_positive(a, "a")
    b = as_positive(b, "b")
    a, b = broadcast(a=a, b=b)
    s = a + b
    return scalar_or_array(np.sqrt(a / s * (b / s) / (s + 1.0)))


def article_sd(successes, n, *, plug_in: str = "posterior"):
    """The article's standard deviation ``sqrt(p_hat (1 - p_hat) / (N + 3))``.

    With ``plug_in="posterior"``, ``p_hat = (k + 1) / (N + 2)`` (the posterior
    mean under the uniform prior) and the formula equals the exact standard
    deviation of Beta(k + 1, N - k + 1).  With ``plug_in="raw"``,
    ``p_hat = k / N`` as the article does in its MNIST code
    (:cite:`validation_size`), which is only an approximation.

    Parameters
    ----------
    successes, n
        Correct answers ``k`` and test items ``N``.
    plug_in
        ``"posterior"`` or ``"raw"``.
    """
    as_choice(plug_in, "plug_in", ("posterior", "raw"))
    k, n_arr = as_counts(successes, n, "successes", "n")
    nf = n_arr.astype(float)
    p_hat = (k + 1.0) / (nf + 2.0) if plug_in == "posterior" else k / nf
    return scalar_or_array(np.sqrt(p_hat * (1.0 - p_hat) / (n_arr + 3.0)))


def equal_tailed(a, b, level: float = 0.95):
    """Equal-tailed credible interval of Beta(a, b).

    ``(Q((1 - level)/2), Q((1 + level)/2))`` with ``Q`` the Beta quantile
    function, computed and checked by :func:`heldout._beta.quantile` (SciPy's
    ``beta.ppf`` is wrong by up to 98 % at some large parameters).  Returns
    ``(lower, upper)``.

    Examples
    --------
    >>> [round(v, 4) for v in equal_tailed(39.0, 63.0)]
    [0.2909, 0.4782]
    """
    a = as_positive(a, "a")
    b = as_positive(b, "b")
    level = as_probability(level, "level", scalar=True)
    a, b = broadcast(a=a, b=b)
    tail = (1.0 - level) / 2.0
    lo = _beta.quantile(a, b, tail, upper=False)
    hi = _beta.quantile(a, b, tail, upper=True)
    # for a level near 0 (or a nearly flat CDF) both ends are one point up to rounding
    lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    return scalar_or_array(lo), scalar_or_array(hi)


def _log_density(a, b, x):
    return _beta.log_beta_pdf(a, b, x)


def hpd(a, b, level: float = 0.95):
    """Highest-density (shortest) credible interval of Beta(a, b).

    For a unimodal Beta (``a, b > 1``) the interval ``[Q(t), Q(t + level)]``
    whose ends have equal density is the shortest with mass ``level``; ``t``
    solves ``log f(Q(t + level)) = log f(Q(t))`` (a vectorised bisection: 64 halvings of
    ``[0, 1 - level]``; where the two log densities never cross, the interval starts at
    ``t = 0`` or ends at ``t = 1 - level``).  ``Q`` is the checked beta quantile of
    :func:`heldout._beta.quantile`.  A monotone density (``a <= 1`` or ``b <= 1``) gives a
    one-sided interval ending at 0 or 1.  A U-shaped density (both < 1) has no single
    highest-density interval and raises ``ValueError``.

    Returns ``(lower, upper)``; arrays broadcast.

    Examples
    --------
    >>> [round(v, 4) for v in hpd(39.0, 63.0)]
    [0.2894, 0.4766]
    """
    a = as_positive(a, "a")
    b = as_positive(b, "b")
    level = as_probability(level, "level", scalar=True)
    a, b = broadcast(a=a, b=b)
    check_work(a.size, _HPD_LIMIT, "the number of (a, b) pairs")
    af, bf = a.ravel(), b.ravel()
    flat = (af == 1.0) & (bf == 1.0)
    u_shaped = (af <= 1.0) & (bf <= 1.0) & ~flat
    if u_shaped.any():
        i = int(np.flatnonzero(u_shaped)[0])
        raise ValueError(
            f"the Beta({af[i]:g}, {bf[i]:g}) density is U-shaped: its highest-density region is "
            "not one interval; use kind='equal' for this prior and data"
        )
    lo = np.empty(af.shape)
    hi = np.empty(af.shape)
    lo[flat], hi[flat] = (1.0 - level) / 2.0, (1.0 + level) / 2.0
    dec = (af <= 1.0) & ~flat  # decreasing density
    if dec.any():
        lo[dec] = 0.0
        hi[dec] = _beta.quantile(af[dec], bf[dec], level)
    inc = (bf <= 1.0) & ~flat & ~dec  # increasing density
    if inc.any():
        lo[inc] = _beta.quantile(af[inc], bf[inc], 1.0 - level)
        hi[inc] = 1.0
    uni = ~(flat | dec | inc)
    if uni.any():
        ua, ub = af[uni], bf[uni]
        t_max = 1.0 - level

        def gap(t):
            # log density at the upper end minus at the lower end: positive for small t,
            # negative for large t, zero at the shortest interval
            q_lo = _beta.quantile(ua, ub, t)
            q_hi = _beta.quantile(ua, ub, np.minimum(t + level, 1.0 - 1e-300))
            return _log_density(ua, ub, q_hi) - _log_density(ua, ub, q_lo), q_lo, q_hi

        t_lo = np.full(ua.shape, t_max * 1e-12)
        t_hi = np.full(ua.shape, t_max * (1.0 - 1e-12))
        g_lo, g_hi = gap(t_lo)[0], gap(t_hi)[0]
        for _ in range(64):
            mid = 0.5 * (t_lo + t_hi)
            positive = gap(mid)[0] > 0.0
            t_lo = np.where(positive, mid, t_lo)
            t_hi = np.where(positive, t_hi, mid)
        t = 0.5 * (t_lo + t_hi)
        t = np.where(g_lo <= 0.0, t_max * 1e-12, np.where(g_hi >= 0.0, t_max * (1 - 1e-12), t))
        _, q_lo, q_hi = gap(t)
        lo[uni], hi[uni] = np.minimum(q_lo, q_hi), np.maximum(q_lo, q_hi)
    return scalar_or_array(lo.reshape(a.shape)), scalar_or_array(hi.reshape(a.shape))


def credible_interval(
    successes, n, level: float = 0.95, *, prior: PriorLike = "uniform", kind: str = "equal"
):
    """Credible interval for an accuracy after ``successes`` correct out of ``n``.

    Parameters
    ----------
    successes, n
        Correct answers and test items.
    level
        Posterior mass of the interval, in (0, 1).
    prior
        See :func:`prior_params`.
    kind
        ``"equal"`` (equal-tailed) or ``"hpd"`` (highest density, shortest).

    Returns
    -------
    (lower, upper)
    """
    as_choice(kind, "kind", ("equal", "hpd"))
    k, n_arr = as_counts(successes, n, "successes", "n")
    a, b = beta_params(k, n_arr - k, prior)
    return equal_tailed(a, b, level) if kind == "equal" else hpd(a, b, level)


@dataclass(frozen=True)
class BetaPosterior:
    """The Beta(a, b) posterior of an accuracy, with its summaries."""

    a: float
    b: float

    @classmethod
    def from_counts(cls, successes: int, n: int, prior: PriorLike = "uniform") -> BetaPosterior:
        """Posterior after ``successes`` correct out of ``n`` under ``prior``."""
        k, n_arr = as_counts(successes, n, "successes", "n", scalar=True)
        a, b = beta_params(k, n_arr - k, prior)
        return cls(float(a), float(b))

    @property
    def mean(self) -> float:
        """Posterior mean ``a / (a + b)``."""
        return float(beta_mean(self.a, self.b))

    @property
    def sd(self) -> float:
        """Posterior standard deviation."""
        return float(beta_sd(self.a, self.b))

    def interval(self, level: float = 0.95, kind: str = "equal") -> tuple[float, float]:
        """Equal-tailed (``kind="equal"``) or highest-density (``"hpd"``) interval."""
        as_choice(kind, "kind", ("equal", "hpd"))
        if kind == "equal":
            return equal_tailed(self.a, self.b, level)
        return hpd(self.a, self.b, level)

    def pdf(self, x):
        """Posterior density at ``x``."""
        x = as_probability(x, "x", closed=True)
        with np.errstate(divide="ignore"):
            return scalar_or_array(np.exp(_log_density(self.a, self.b, x)))

    @property
    def dist(self):
        """The frozen ``scipy.stats.beta`` distribution (imports ``scipy.stats`` on first use)."""
        from scipy import stats

        return stats.beta(self.a, self.b)
