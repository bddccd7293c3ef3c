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
from scipy import optimize, stats

from heldout._checks import as_count, as_counts, as_positive, as_probability, scalar_or_array

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
                f"prior must be one of {sorted(PRIORS)} or a pair (a, b), got {prior!r}"
            )
        return PRIORS[key]
    try:
        a0, b0 = prior
    except (TypeError, ValueError):
        raise ValueError(
            f"prior must be a name or a pair (a, b) of non-negative numbers, got {prior!r}"
        ) from None
    a0 = float(as_positive(a0, "prior", allow_zero=True))
    b0 = float(as_positive(b0, "prior", allow_zero=True))
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
    a, b = np.broadcast_arrays(s + a0, f + b0)
    if np.any(a <= 0) or np.any(b <= 0):
        raise ValueError(
            f"prior {prior!r} with successes={successes!r}, failures={failures!r} gives an improper "
            "posterior (a parameter is 0); use a proper prior such as 'uniform' or 'jeffreys'"
        )
    return a.astype(float), b.astype(float)


def beta_mean(a, b):
    """Mean ``a / (a + b)`` of Beta(a, b)."""
    a = as_positive(a, "a")
    b = as_positive(b, "b")
    return scalar_or_array(a / (a + b))


def beta_sd(a, b):
    """Standard deviation ``sqrt(a b / ((a + b)^2 (a + b + 1)))`` of Beta(a, b)."""
    a = as_positive(a, "a")
    b = as_positive(b, "b")
    s = a + b
    return scalar_or_array(np.sqrt(a * b / (s * s * (s + 1.0))))


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
    k, n_arr = as_counts(successes, n, "successes", "n")
    if plug_in == "posterior":
        p_hat = (k + 1.0) / (n_arr + 2.0)
    elif plug_in == "raw":
        p_hat = k / n_arr
    else:
        raise ValueError(f"plug_in must be 'posterior' or 'raw', got {plug_in!r}")
    return scalar_or_array(np.sqrt(p_hat * (1.0 - p_hat) / (n_arr + 3.0)))


def equal_tailed(a, b, level: float = 0.95):
    """Equal-tailed credible interval of Beta(a, b).

    ``(Q((1 - level)/2), Q((1 + level)/2))`` with ``Q`` the Beta quantile
    function (``scipy.stats.beta.ppf``).  Returns ``(lower, upper)``.
    """
    a = as_positive(a, "a")
    b = as_positive(b, "b")
    level = float(as_probability(level, "level"))
    lo = stats.beta.ppf((1.0 - level) / 2.0, a, b)
    hi = stats.beta.ppf((1.0 + level) / 2.0, a, b)
    return scalar_or_array(lo), scalar_or_array(hi)


def _hpd_scalar(a: float, b: float, level: float) -> tuple[float, float]:
    if a <= 1.0 and b <= 1.0:
        if a == 1.0 and b == 1.0:
            return (1.0 - level) / 2.0, (1.0 + level) / 2.0
        raise ValueError(
            f"the Beta({a:g}, {b:g}) density is U-shaped: its highest-density region is not one "
            "interval; use kind='equal' for this prior and data"
        )
    if a <= 1.0:  # decreasing density
        return 0.0, float(stats.beta.ppf(level, a, b))
    if b <= 1.0:  # increasing density
        return float(stats.beta.ppf(1.0 - level, a, b)), 1.0
    dist = stats.beta(a, b)

    def gap(t: float) -> float:
        # log density at the upper end minus at the lower end: positive for small t,
        # negative for large t, zero at the shortest interval
        return dist.logpdf(dist.ppf(t + level)) - dist.logpdf(dist.ppf(t))

    t_max = 1.0 - level
    lo_t, hi_t = t_max * 1e-12, t_max * (1.0 - 1e-12)
    g_lo, g_hi = gap(lo_t), gap(hi_t)
    if not (
        g_lo > 0.0 > g_hi
    ):  # no sign change (extreme skew): fall back to a bounded minimisation
        res = optimize.minimize_scalar(
            lambda t: dist.ppf(t + level) - dist.ppf(t),
            bounds=(0.0, t_max),
            method="bounded",
            options={"xatol": 1e-13},
        )
        t = float(res.x)
    else:
        t = optimize.brentq(gap, lo_t, hi_t, xtol=1e-15, rtol=4 * np.finfo(float).eps)
    return float(dist.ppf(t)), float(dist.ppf(t + level))


def hpd(a, b, level: float = 0.95):
    """Highest-density (shortest) credible interval of Beta(a, b).

    For a unimodal Beta (``a, b > 1``) the interval ``[Q(t), Q(t + level)]``
    whose ends have equal density is the shortest with mass ``level``; ``t``
    is found by Brent's method on ``log f(Q(t + level)) - log f(Q(t))``.  A
    monotone density (``a <= 1`` or ``b <= 1``) gives a one-sided interval
    ending at 0 or 1.  A U-shaped density (both < 1) has no single
    highest-density interval and raises ``ValueError``.

    Returns ``(lower, upper)``; arrays broadcast.
    """
    a = as_positive(a, "a")
    b = as_positive(b, "b")
    level = float(as_probability(level, "level"))
    a, b = np.broadcast_arrays(a, b)
    out = np.array(
        [_hpd_scalar(float(x), float(y), level) for x, y in zip(a.ravel(), b.ravel(), strict=True)]
    )
    lo = out[:, 0].reshape(a.shape) if out.size else np.empty(a.shape)
    hi = out[:, 1].reshape(a.shape) if out.size else np.empty(a.shape)
    return scalar_or_array(lo), scalar_or_array(hi)


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
    k, n_arr = as_counts(successes, n, "successes", "n")
    a, b = beta_params(k, n_arr - k, prior)
    if kind == "equal":
        return equal_tailed(a, b, level)
    if kind == "hpd":
        return hpd(a, b, level)
    raise ValueError(f"kind must be 'equal' or 'hpd', got {kind!r}")


@dataclass(frozen=True)
class BetaPosterior:
    """The Beta(a, b) posterior of an accuracy, with its summaries."""

    a: float
    b: float

    @classmethod
    def from_counts(cls, successes: int, n: int, prior: PriorLike = "uniform") -> BetaPosterior:
        """Posterior after ``successes`` correct out of ``n`` under ``prior``."""
        k, n_arr = as_counts(successes, n, "successes", "n")
        if k.ndim:
            raise ValueError(f"successes must be a single count here, got {successes!r}")
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
        if kind == "equal":
            return equal_tailed(self.a, self.b, level)
        if kind == "hpd":
            return hpd(self.a, self.b, level)
        raise ValueError(f"kind must be 'equal' or 'hpd', got {kind!r}")

    def pdf(self, x):
        """Posterior density at ``x``."""
        return stats.beta.pdf(x, self.a, self.b)

    @property
    def dist(self):
        """The frozen ``scipy.stats.beta`` distribution."""
        return stats.beta(self.a, self.b)
