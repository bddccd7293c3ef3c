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
    in_choices,
    scalar_or_array,
    show,
)
from heldout._deprecate import level_to_alpha, renamed
from heldout._result import Interval, Result

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

    Examples
    --------
    >>> prior_params('jeffreys'), prior_params((2, 3))
    ((0.5, 0.5), (2.0, 3.0))
    """
    if isinstance(prior, str):
        key = prior.strip().lower()
        if not in_choices(key, PRIORS):
            raise ValueError(
                f"prior must be one of {sorted(PRIORS)} or a pair (a, b), got {show(prior)}"
            )
        return PRIORS[key]
    try:
        a0, b0 = prior
    except (TypeError, ValueError, OverflowError):
        raise ValueError(
            f"prior must be a name or a pair (a, b) of non-negative numbers, got {show(prior)}"
        ) from None
    a0 = as_positive(a0, "prior", allow_zero=True, scalar=True)
    b0 = as_positive(b0, "prior", allow_zero=True, scalar=True)
    return a0, b0


def beta_params(successes, failures, prior: PriorLike = "uniform") -> BetaPosterior:
    """Posterior parameters ``(a, b) = (successes + a0, failures + b0)``.

    Returns a :class:`BetaPosterior` (floats or arrays ``a`` and ``b``), which unpacks as
    ``a, b``.

    Conjugate update of a Beta(a0, b0) prior by binomial data
    (:cite:`validation_size`).  Arrays broadcast.

    Raises
    ------
    ValueError
        If a count is negative or fractional, or if the posterior is improper
        (a zero parameter, e.g. the Haldane prior with no failures: the
        article's "takes value 1 with 100% probability").

    Examples
    --------
    >>> beta_params(62, 38)
    BetaPosterior(a=63.0, b=39.0)
    >>> a, b = beta_params(62, 38, prior="jeffreys")
    >>> a, b
    (62.5, 38.5)
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
    return BetaPosterior(scalar_or_array(a.astype(float)), scalar_or_array(b.astype(float)))


def beta_mean(a, b):
    """Mean ``a / (a + b)`` of Beta(a, b).

    Examples
    --------
    >>> round(beta_mean(63.0, 39.0), 4)
    0.6176
    """
    a = as_positive(a, "a")
    b = as_positive(b, "b")
    a, b = broadcast(a=a, b=b)
    return scalar_or_array(a / (a + b))


def beta_sd(a, b):
    """Standard deviation ``sqrt(a b / ((a + b)^2 (a + b + 1)))`` of Beta(a, b).

    Examples
    --------
    >>> round(beta_sd(63.0, 39.0), 4)
    0.0479
    """
    a = as_positive(a, "a")
    b = as_positive(b, "b")
    a, b = broadcast(a=a, b=b)
    s = a + b
    return scalar_or_array(np.sqrt(a / s * (b / s) / (s + 1.0)))


@renamed(successes="k", plug_in="method")
def article_sd(k, n, *, method: str = "posterior"):
    """The article's standard deviation ``sqrt(p_hat (1 - p_hat) / (N + 3))``.

    With ``method="posterior"``, ``p_hat = (k + 1) / (N + 2)`` (the posterior
    mean under the uniform prior) and the formula equals the exact standard
    deviation of Beta(k + 1, N - k + 1).  With ``method="raw"``,
    ``p_hat = k / N`` as the article does in its MNIST code
    (:cite:`validation_size`), which is only an approximation.

    Parameters
    ----------
    k, n
        Correct answers ``k`` and test items ``N``.
    method
        ``"posterior"`` or ``"raw"`` (the estimate plugged in; ``plug_in=`` is the
        deprecated name).

    Examples
    --------
    >>> round(article_sd(62, 100), 4), round(article_sd(62, 100, method='raw'), 4)
    (0.0479, 0.0478)
    """
    as_choice(method, "method", ("posterior", "raw"))
    k, n_arr = as_counts(k, n, "k", "n")
    nf = n_arr.astype(float)
    p_hat = (k + 1.0) / (nf + 2.0) if method == "posterior" else k / nf
    return scalar_or_array(np.sqrt(p_hat * (1.0 - p_hat) / (n_arr + 3.0)))


_LEVEL = {"level": ("alpha", level_to_alpha)}


@renamed(positional=("level",), **_LEVEL)
def equal_tailed(a, b, *, alpha: float = 0.05) -> Interval:
    """Equal-tailed ``1 - alpha`` credible interval of Beta(a, b).

    ``(Q(alpha/2), Q(1 - alpha/2))`` with ``Q`` the Beta quantile
    function, computed and checked by :func:`heldout._beta.quantile` (SciPy's
    ``beta.ppf`` is wrong by up to 98 % at some large parameters).  Returns an
    :class:`~heldout._result.Interval` ``(low, high)``.

    Examples
    --------
    >>> [round(v, 4) for v in equal_tailed(39.0, 63.0)]
    [0.2909, 0.4782]
    """
    a = as_positive(a, "a")
    b = as_positive(b, "b")
    alpha = as_probability(alpha, "alpha", scalar=True)
    a, b = broadcast(a=a, b=b)
    tail = alpha / 2.0
    lo = _beta.quantile(a, b, tail, upper=False)
    hi = _beta.quantile(a, b, tail, upper=True)
    # for alpha near 1 (or a nearly flat CDF) both ends are one point up to rounding
    lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    return Interval(scalar_or_array(lo), scalar_or_array(hi))


def _log_density(a, b, x):
    return _beta.log_beta_pdf(a, b, x)


@renamed(positional=("level",), **_LEVEL)
def hpd(a, b, *, alpha: float = 0.05) -> Interval:
    """Highest-density (shortest) ``1 - alpha`` credible interval of Beta(a, b).

    For a unimodal Beta (``a, b > 1``) the interval ``[Q(t), Q(t + level)]``
    whose ends have equal density is the shortest with mass ``level``; ``t``
    solves ``log f(Q(t + level)) = log f(Q(t))`` (a vectorised bisection: 64 halvings of
    ``[0, 1 - level]``; where the two log densities never cross, the interval starts at
    ``t = 0`` or ends at ``t = 1 - level``).  ``Q`` is the checked beta quantile of
    :func:`heldout._beta.quantile`.  A monotone density (``a <= 1`` or ``b <= 1``) gives a
    one-sided interval ending at 0 or 1.  A U-shaped density (both < 1) has no single
    highest-density interval and raises ``ValueError``.

    Returns an :class:`~heldout._result.Interval` ``(low, high)``; arrays broadcast.

    Examples
    --------
    >>> [round(v, 4) for v in hpd(39.0, 63.0)]
    [0.2894, 0.4766]
    """
    a = as_positive(a, "a")
    b = as_positive(b, "b")
    level = 1.0 - as_probability(alpha, "alpha", scalar=True)
    a, b = broadcast(a=a, b=b)
    check_work(a.size, _HPD_LIMIT, "the number of (a, b) pairs")
    af, bf = a.ravel(), b.ravel()
    flat = (af == 1.0) & (bf == 1.0)
    u_shaped = (af <= 1.0) & (bf <= 1.0) & ~flat
    if u_shaped.any():
        i = int(np.flatnonzero(u_shaped)[0])
        raise ValueError(
            f"the Beta({af[i]:g}, {bf[i]:g}) density is U-shaped: its highest-density region is "
            "not one interval; use method='equal' for this prior and data"
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
            with np.errstate(invalid="ignore"):  # -inf - -inf at ends pinned to 0 and 1
                gap_ = _log_density(ua, ub, q_hi) - _log_density(ua, ub, q_lo)
            return gap_, q_lo, q_hi

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
    return Interval(scalar_or_array(lo.reshape(a.shape)), scalar_or_array(hi.reshape(a.shape)))


@renamed(positional=("level",), successes="k", kind="method", **_LEVEL)
def credible_interval(
    k, n, *, alpha: float = 0.05, prior: PriorLike = "uniform", method: str = "equal"
) -> Interval:
    """Credible interval for an accuracy after ``k`` correct out of ``n``.

    Parameters
    ----------
    k, n
        Correct answers and test items.
    alpha
        One minus the posterior mass of the interval, in (0, 1).
    prior
        See :func:`prior_params`.
    method
        ``"equal"`` (equal-tailed) or ``"hpd"`` (highest density, shortest).

    Returns
    -------
    Interval
        ``(low, high)``.

    Examples
    --------
    >>> [round(v, 4) for v in credible_interval(62, 100)]
    [0.5218, 0.7091]
    >>> [round(v, 4) for v in credible_interval(100, 100, method="hpd")]
    [0.9708, 1.0]
    """
    as_choice(method, "method", ("equal", "hpd"))
    k, n_arr = as_counts(k, n, "k", "n")
    a, b = beta_params(k, n_arr - k, prior)
    return equal_tailed(a, b, alpha=alpha) if method == "equal" else hpd(a, b, alpha=alpha)


@dataclass(frozen=True)
class BetaPosterior(Result):
    """The Beta(a, b) posterior of an accuracy, with its summaries (unpacks as ``(a, b)``).

    Examples
    --------
    >>> post = BetaPosterior.from_counts(62, 100)
    >>> post.a, post.b, round(post.mean, 4), [round(v, 4) for v in post.interval(method="hpd")]
    (63.0, 39.0, 0.6176, [0.5234, 0.7106])
    """

    a: float
    b: float

    @classmethod
    @renamed(successes="k")
    def from_counts(cls, k: int, n: int, prior: PriorLike = "uniform") -> BetaPosterior:
        """Posterior after ``k`` correct out of ``n`` under ``prior``."""
        k, n_arr = as_counts(k, n, "k", "n", scalar=True)
        a, b = beta_params(k, n_arr - k, prior)
        return cls(a, b)

    @property
    def mean(self):
        """Posterior mean ``a / (a + b)``."""
        return beta_mean(self.a, self.b)

    @property
    def sd(self):
        """Posterior standard deviation."""
        return beta_sd(self.a, self.b)

    @renamed(positional=("level", "kind"), kind="method", **_LEVEL)
    def interval(self, *, alpha: float = 0.05, method: str = "equal") -> Interval:
        """Equal-tailed (``method="equal"``) or highest-density (``"hpd"``) interval."""
        as_choice(method, "method", ("equal", "hpd"))
        if method == "equal":
            return equal_tailed(self.a, self.b, alpha=alpha)
        return hpd(self.a, self.b, alpha=alpha)

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
