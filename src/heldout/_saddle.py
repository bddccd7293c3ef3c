"""Saddle-point forms of the binomial and Beta densities, accurate at every size.

Written as in Loader's algorithm for the binomial density (:cite:`loader2000`): the
logarithm of a density is split into a Stirling remainder (``stirlerr``) and a
"deviance" term (``bd0``), each computed without cancellation, so that the relative
error stays near machine precision even when the counts are 1e9.  The naive form
``k log p + (n - k) log(1 - p) + log C(n, k)`` adds numbers of size ``n`` to get a
result of size 1 and loses about ``log10(n)`` digits.

Private helpers: import only numpy and ``scipy.special``.
"""

from __future__ import annotations

import numpy as np
from scipy import special

_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)
# Bernoulli-number coefficients of Stirling's series for log Gamma:
# delta(z) = sum_j B_2j / (2j (2j - 1) z^(2j - 1))
_STIRLING = (
    1.0 / 12.0,
    -1.0 / 360.0,
    1.0 / 1260.0,
    -1.0 / 1680.0,
    1.0 / 1188.0,
    -691.0 / 360360.0,
    1.0 / 156.0,
    -3617.0 / 122400.0,
)


def stirlerr(z) -> np.ndarray:
    """``delta(z) = log Gamma(z) - (z - 1/2) log z + z - log(2 pi)/2`` (Stirling's remainder).

    Series in ``1/z`` for ``z >= 10`` (error below 1e-17), direct formula below.
    """
    z = np.asarray(z, dtype=float)
    zb = np.maximum(z, 10.0)
    inv2 = 1.0 / (zb * zb)
    acc = np.zeros_like(zb)
    for c in reversed(_STIRLING):
        acc = acc * inv2 + c
    zs = np.where(z < 10.0, z, 1.0)
    direct = special.gammaln(zs) - (zs - 0.5) * np.log(zs) + zs - _HALF_LOG_2PI
    return np.where(z >= 10.0, acc / zb, direct)


def bd0(k, mean_k, diff=None, log_ratio=None) -> np.ndarray:
    """Deviance ``k log(k / m) + m - k`` (``m = mean_k``), accurate when ``k`` is near ``m``.

    ``diff``, if given, is ``k - m`` computed by the caller without cancellation, and
    ``log_ratio`` is ``log(k / m)`` (useful when ``m`` underflows).
    With ``v = (k - m)/(k + m)``: ``bd0 = (k - m) v + 2 k (atanh(v) - v)``, where
    ``atanh(v) - v = v^3/3 + v^5/5 + ...`` is summed as a series when ``|v| < 0.1``
    (nine terms reach 1e-18); the plain form is used when ``k`` and ``m`` differ by a
    factor of three or more (no cancellation there).
    """
    k = np.asarray(k, dtype=float)
    m = np.asarray(mean_k, dtype=float)
    d = k - m if diff is None else np.asarray(diff, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        v = d / (k + m)
        v2 = v * v
        acc = np.full(np.shape(v2), 1.0 / 19.0)
        for j in range(8, 0, -1):
            acc *= v2
            acc += 1.0 / (2 * j + 1)
        near = d * v + 2.0 * k * (acc * v2 * v)
        small = np.abs(v) < 0.1
        if np.all(small):
            return np.where(k == 0, m, near)
        mid = d * v + 2.0 * k * (np.arctanh(v) - v)
        far = k * (np.log(k / m) if log_ratio is None else log_ratio) - d
        out = np.where(small, near, np.where(np.abs(v) < 0.5, mid, far))
    return np.where(k == 0, m, out)


def binom_logpmf(k, n, p) -> np.ndarray:
    """``log P(Binomial(n, p) = k)`` for real ``0 <= k <= n``, ``0 < p < 1`` (saddle point form)."""
    k, n, p = (np.asarray(v, dtype=float) for v in (k, n, p))
    k, n, p = np.broadcast_arrays(k, n, p)
    q = 1.0 - p
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = (
            stirlerr(np.where(n > 0, n, 1.0))
            - stirlerr(np.where(k > 0, k, 1.0))
            - stirlerr(np.where(n - k > 0, n - k, 1.0))
            - bd0(k, n * p)
            - bd0(n - k, n * q)
            + 0.5 * np.log(n / (2.0 * np.pi * k * (n - k)))
        )
        out = np.where(k == 0, n * np.log1p(-p), np.where(k == n, n * np.log(p), inner))
    return np.where(
        (k < 0) | (k > n), -np.inf, np.where(n == 0, np.where(k == 0, 0.0, -np.inf), out)
    )


def logit_beta_logpdf(t, a, b) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Log density of ``logit(X) - logit(a / (a + b))`` for ``X ~ Beta(a, b)``, at offsets ``t``.

    With ``x = expit(s)`` the density of ``s = logit(X)`` is ``x^a (1 - x)^b / B(a, b)``;
    written around its mode ``s0 = logit(a / (a + b))`` it is

    ``log h = log(a b / (2 pi N)) / 2 + delta(N) - delta(a) - delta(b)
              - bd0(a, N x) - bd0(b, N (1 - x))``,  ``N = a + b``,

    with ``N x = a e^t / (q + p e^t)``, ``N (1 - x) = b / (q + p e^t)`` and
    ``N x - a = N p q (e^t - 1) / (q + p e^t)`` (``p = a/N``, ``q = b/N``), all formed
    without cancellation.

    Returns
    -------
    (log_h, x, 1 - x)
    """
    t, a, b = (np.asarray(v, dtype=float) for v in (t, a, b))
    t, a, b = np.broadcast_arrays(t, a, b)
    n = a + b
    p, q = a / n, b / n
    em = np.expm1(t)
    den = 1.0 + p * em  # = q + p e^t > 0
    shift = n * p * q * em / den  # N x - a = b - N (1 - x)
    nx = a * np.exp(t) / den
    ny = b / den
    log_h = (
        0.5 * np.log(a * b / (2.0 * np.pi * n))
        + stirlerr(n)
        - stirlerr(a)
        - stirlerr(b)
        - bd0(a, nx, -shift)
        - bd0(b, ny, shift)
    )
    return log_h, nx / n, ny / n


def binom_cdf(k, n, p) -> np.ndarray:
    """``P(Binomial(n, p) <= k)`` for any size: ``I_{1-p}(n - k, k + 1)``.

    (scipy's ``bdtr`` turns ``n`` into a 32-bit integer and returns NaN above 2**31.)
    """
    k, n, p = (np.asarray(v, dtype=float) for v in (k, n, p))
    k = np.floor(k)
    inside = (k >= 0) & (k < n)
    val = special.betainc(np.where(inside, n - k, 1.0), np.where(inside, k + 1.0, 1.0), 1.0 - p)
    return np.where(k < 0, 0.0, np.where(k >= n, 1.0, val))


def binom_sf(k, n, p) -> np.ndarray:
    """``P(Binomial(n, p) > k)`` for any size: ``I_p(k + 1, n - k)``."""
    k, n, p = (np.asarray(v, dtype=float) for v in (k, n, p))
    k = np.floor(k)
    inside = (k >= 0) & (k < n)
    val = special.betainc(np.where(inside, k + 1.0, 1.0), np.where(inside, n - k, 1.0), p)
    return np.where(k < 0, 1.0, np.where(k >= n, 0.0, val))
