"""Guarded numerics shared by the calculators: beta quantiles, binomial tails, the normal, KL.

Everything here imports only numpy and :mod:`scipy.special` (never :mod:`scipy.stats`,
whose import alone takes about a second), takes float arrays that the caller has
already validated and broadcast, and is vectorised.

Beta quantiles (:func:`quantile`) are never returned unverified.  SciPy's inverse
incomplete beta functions (``betaincinv``, ``betainccinv``, and ``beta.ppf`` built on
them) return roots that are grossly wrong at some parameters: near ``a = 1000`` with
``b = 1e9`` the upper quantile is off by tens of per cent, and its tail at the returned
point is twice the requested one.  :func:`quantile` therefore

1. starts from the normal-approximation guess of Abramowitz & Stegun (26.5.22),
2. takes two Halley steps on ``I_x(a, b)`` (``scipy.special.betainc``, about five times
   faster than ``betaincc`` and than the inverse itself),
3. *checks the tail at the last iterate*: the Newton correction
   ``t = (I_x(a, b) - target) / pdf(x)`` must be below ``RTOL`` times ``min(x, 1 - x)``,
   or its second-order remainder must be: Newton's step from ``x`` leaves an error of
   about ``|g| t^2 / 2``, ``g = (a - 1)/x - (b - 1)/(1 - x)`` the derivative of the log
   density, and where ``|g t| <= 1e-3`` and ``|g| t^2 <= RTOL min(x, 1 - x) / 4`` (twice
   that bound, for the change of ``g`` and of the density over the step) the Halley
   step from ``x`` is returned without a further evaluation of the tail;
4. sends every element that fails the check (or that the fast path cannot compute
   accurately: an upper-tail target below ``1e-3`` needs ``betaincc``) to a slow path:
   SciPy's inverse, polished by up to three Halley steps on the accurate tail
   (``betainc`` or ``betaincc``, whichever is the small side), checked again, and if it
   still fails, a bisection in ``log x`` on a bracket whose ends straddle the target.

So the common case costs about three ``betainc`` evaluations (no more than SciPy's raw
inverse) and no input returns a root whose tail was not checked.
"""

from __future__ import annotations

import numpy as np
from scipy import special

#: Relative accuracy every returned beta quantile is checked against.
RTOL = 1e-12
# Below this upper-tail target, 1 - I_x(a, b) loses too many digits: use betaincc.
_SMALL_TAIL = 1e-3
_BISECTION_STEPS = 200
#: Largest ``a + b`` at which :func:`_newton_step` uses the direct log-density.
_DIRECT_PDF_MAX = 1e7


# --------------------------------------------------------------------------- the normal
def norm_isf(q):
    """``z`` with ``P(Z > z) = q`` for a standard normal ``Z`` (``scipy.stats.norm.isf``)."""
    return -special.ndtri(q)


def norm_sf(z):
    """``P(Z > z)`` for a standard normal ``Z``."""
    return special.ndtr(-np.asarray(z, dtype=float))


def norm_cdf(z):
    """``P(Z <= z)`` for a standard normal ``Z``."""
    return special.ndtr(z)


# --------------------------------------------------------------------------- binomial
def _stirling_correction(x):
    """``ln x! - (x ln x - x + ln(2 pi x) / 2)`` for ``x >= 100`` (error below ``1e-17``)."""
    r = 1.0 / x
    r2 = r * r
    return r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 / 1260.0))


def log_choose(n, k):
    """``log C(n, k)`` for real ``0 <= k <= n``, accurate for ``n`` up to ``2**63``.

    Where both ``k`` and ``n - k`` are at least 100, Stirling's series written so that
    nothing cancels: ``-k ln(k/n) - (n-k) log1p(-k/n) + ln(n / (2 pi k (n-k))) / 2`` plus
    the series corrections (relative error a few ulps even at ``n = 1e18``).  Otherwise
    ``-log(n + 1) - betaln(n - k + 1, k + 1)``: ``betaln`` uses asymptotic expansions for
    large arguments, so no difference of two huge ``gammaln`` values is formed.
    """
    n, k = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(k, dtype=float))
    small = np.minimum(k, n - k)
    with np.errstate(all="ignore"):
        out = -np.log1p(n) - special.betaln(n - k + 1.0, k + 1.0)
        big = small >= 100.0
        if np.any(big):
            nb, kb = n[big], small[big]
            mb = nb - kb
            q = kb / nb
            out = np.array(out, dtype=float)
            out[big] = (
                -kb * np.log(q)
                - mb * np.log1p(-q)
                + 0.5 * (np.log(nb) - np.log(2.0 * np.pi) - np.log(kb) - np.log(mb))
                + _stirling_correction(nb)
                - _stirling_correction(kb)
                - _stirling_correction(mb)
            )
    return out


def binom_logpmf(k, n, p):
    """``log P(X = k)`` for ``X ~ Binomial(n, p)`` (``-inf`` outside ``0..n``; real ``k, n`` allowed).

    Where ``k`` and ``n - k`` are both at least 100 the terms of
    ``log C(n, k) + k log p + (n - k) log(1 - p)`` are each of size ``n`` and cancel (all
    digits are lost at ``n = 1e18``), so Loader's saddle-point form is used instead:
    ``-n KL(k/n || p) + ln(n / (2 pi k (n - k))) / 2`` plus Stirling corrections, with
    the relative entropy from :func:`kl` (no cancellation).
    """
    k, n, p = np.broadcast_arrays(
        np.asarray(k, dtype=float), np.asarray(n, dtype=float), np.asarray(p, dtype=float)
    )
    inside = (k >= 0) & (k <= n)
    kk = np.where(inside, k, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = log_choose(n, kk) + special.xlogy(kk, p) + special.xlog1py(n - kk, -p)
        big = inside & (kk >= 100.0) & (n - kk >= 100.0)
        if np.any(big):
            nb, kb, pb = n[big], kk[big], p[big]
            mb = nb - kb
            out = np.array(out, dtype=float)
            out[big] = (
                -nb * kl(kb / nb, pb)
                + 0.5 * (np.log(nb) - np.log(2.0 * np.pi) - np.log(kb) - np.log(mb))
                + _stirling_correction(nb)
                - _stirling_correction(kb)
                - _stirling_correction(mb)
            )
    return np.where(inside, out, -np.inf)


def log_beta_pdf(a, b, x):
    """``log`` of the Beta(a, b) density at ``x``: ``log(n + 1) + binom_logpmf(a - 1, n, x)``, ``n = a + b - 2``.

    Accurate also when ``a`` and ``b`` are both huge (see :func:`binom_logpmf`).
    """
    n = np.asarray(a, dtype=float) + np.asarray(b, dtype=float) - 2.0
    return np.log1p(n) + binom_logpmf(np.asarray(a, dtype=float) - 1.0, n, x)


def binom_pmf(k, n, p):
    """``P(X = k)`` for ``X ~ Binomial(n, p)``."""
    return np.exp(binom_logpmf(k, n, p))


def _binom_tail(k, n, p, *, below: bool):
    """``P(X <= k)`` (``below``) or ``P(X > k)`` for ``X ~ Binomial(n, p)``, any integer ``k``.

    The incomplete beta ``I_p(k + 1, n - k)`` (``betaincc`` for the lower side, ``betainc``
    for the upper: no cancellation), a binomial series where SciPy's loses digits (small
    ``k``, huge ``n``; :func:`_series_region`), and the saddle-point form where both ``k``
    and ``n - k`` exceed a million (:func:`_saddlepoint_tails`).
    """
    k, n, p = np.broadcast_arrays(
        np.asarray(k, dtype=float), np.asarray(n, dtype=float), np.asarray(p, dtype=float)
    )
    inner = (k >= 0) & (k < n)
    a = np.where(inner, k + 1.0, 1.0)
    b = np.where(inner, n - k, 1.0)
    with np.errstate(all="ignore"):
        scipy_tail = special.betaincc if below else special.betainc
        out = np.array(scipy_tail(a, b, p), dtype=float)
        series = inner & _series_region(a, b, p)
        if series.any():
            out[series] = _series_tail(a[series], b[series], p[series], below)
        huge = inner & _huge_region(a, b)
        if huge.any():
            out[huge] = _saddlepoint_tails(a[huge], b[huge], p[huge])[1 if below else 0]
    out = np.where(k >= n, 1.0 if below else 0.0, out)
    return np.where(k < 0, 0.0 if below else 1.0, out)


def binom_cdf(k, n, p):
    """``P(X <= k)`` for ``X ~ Binomial(n, p)``, any integer ``k`` (no cancellation; see :func:`_binom_tail`)."""
    return _binom_tail(k, n, p, below=True)


def binom_sf(k, n, p):
    """``P(X > k)`` for ``X ~ Binomial(n, p)``, any integer ``k`` (as accurate as :func:`binom_cdf`)."""
    return _binom_tail(k, n, p, below=False)


# --------------------------------------------------------------------------- relative entropy
def log1pmx(x):
    """``log(1 + x) - x`` without cancellation (a series for ``|x| <= 0.05``)."""
    x = np.asarray(x, dtype=float)
    small = np.abs(x) <= 0.05
    xs = np.where(small, x, 0.0)
    # -x^2/2 + x^3/3 - ... : 16 terms reach 0.05**16 / 18 ~ 1e-22 relative to x^2 / 2
    acc = np.zeros_like(xs)
    for n in range(18, 1, -1):
        acc = acc * xs + ((-1.0) ** (n + 1)) / n
    series = acc * xs * xs
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = np.log1p(np.where(small, 0.0, x)) - np.where(small, 0.0, x)
    return np.where(small, series, direct)


def kl(q, p):
    """Binary relative entropy ``KL(q || p)`` accurate to a few ulps, also when ``p ~ q``.

    ``q ln(q/p) + (1-q) ln((1-q)/(1-p)) = -q log1pmx((p-q)/q) - (1-q) log1pmx((q-p)/(1-q))``:
    both terms are non-negative, so nothing cancels (the textbook form loses all digits
    when ``p - q`` is below about ``1e-8``).  ``0 ln 0 = 0``; ``+inf`` when ``p`` is 0 or
    1 and ``q`` is not.
    """
    q, p = np.broadcast_arrays(np.asarray(q, dtype=float), np.asarray(p, dtype=float))
    d = p - q
    interior = (q > 0) & (q < 1) & (p > 0) & (p < 1)
    qi = np.where(interior, q, 0.5)
    di = np.where(interior, d, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = -qi * log1pmx(di / qi) - (1.0 - qi) * log1pmx(-di / (1.0 - qi))
        edge = special.rel_entr(q, p) + special.rel_entr(1.0 - q, 1.0 - p)
    return np.where(interior, out, edge)


_NEWTON_STEPS = 60
_TOLERANCE = 1e-12  # relative step below which Newton stops (iterates stay below the root)


def kl_lower_root(q, r) -> np.ndarray:
    """Smallest :math:`m \\le q` with :math:`\\mathrm{KL}(q\\Vert m) \\le r` (vectorised).

    Newton's method on the convex, decreasing branch, from a start below the root:
    the larger of the Pinsker bound :math:`q - \\sqrt{r/2}` and
    :math:`q\\,e^{((1-q)\\log(1-q) - r)/q}` (where :math:`\\mathrm{KL} \\ge q\\log(q/m) + (1-q)\\log(1-q)`
    already exceeds :math:`r`).  Every iterate stays below the root.
    """
    q, r = np.broadcast_arrays(np.asarray(q, float), np.asarray(r, float))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        start_a = q - np.sqrt(r / 2.0)
        start_b = q * np.exp((special.xlogy(1 - q, 1 - q) - r) / np.where(q > 0, q, 1.0))
        m = np.clip(np.maximum(start_a, start_b), 0.0, q).ravel()
        qf, rf = q.ravel(), r.ravel()
        todo = np.flatnonzero(qf > 0)
        for _ in range(_NEWTON_STEPS):
            qa, ma = qf[todo], m[todo]
            g = kl(qa, ma) - rf[todo]  # the one KL function: no cancellation near the root
            slope = -qa / ma + (1 - qa) / (1 - ma)
            step = np.where((g > 0) & (slope < 0), -g / slope, 0.0)
            m[todo] = np.minimum(ma + step, qa)
            todo = todo[step > _TOLERANCE * ma]
            if todo.size == 0:
                break
        m = m.reshape(q.shape)
    return np.where(q <= 0, 0.0, m)


# --------------------------------------------------------------------------- beta quantiles
def _guess(a, b, z):
    """Abramowitz & Stegun 26.5.22: ``x`` with ``I_x(a, b) ~ y`` for ``a, b >= 1``; ``z = -ndtri(y)``."""
    lam = (z * z - 3.0) / 6.0
    ra, rb = 1.0 / (2.0 * a - 1.0), 1.0 / (2.0 * b - 1.0)
    h = 2.0 / (ra + rb)
    w = z * np.sqrt(h + lam) / h - (rb - ra) * (lam + 5.0 / 6.0 - 2.0 / (3.0 * h))
    return a / (a + b * np.exp(2.0 * w))


_LOG_FACTORIALS = None
_TABLE = 1 << 17


def _log_beta(a, b):
    """``log B(a, b)`` for :func:`_newton_step` (NaN where ``a + b`` is large: see there).

    From a table of ``log n!`` when ``a`` and ``b`` are small whole numbers.
    """
    global _LOG_FACTORIALS
    if a.size and np.max(a + b) <= _TABLE and np.all(a == np.floor(a)) and np.all(b == np.floor(b)):
        if _LOG_FACTORIALS is None:
            _LOG_FACTORIALS = special.gammaln(np.arange(1.0, _TABLE + 1.0))  # log (n - 1)!
        ai, bi = a.astype(np.intp), b.astype(np.intp)
        out = _LOG_FACTORIALS[ai - 1] + _LOG_FACTORIALS[bi - 1] - _LOG_FACTORIALS[ai + bi - 1]
    else:
        out = special.betaln(a, b)
    return np.where((a > 101.0) & (b > 101.0) & (a + b > _DIRECT_PDF_MAX), np.nan, out)


def _newton_step(am1, bm1, x, err, lbeta):
    """``err / pdf(x)``: the Newton correction of ``I_x(a, b) - target = err``.

    ``lbeta`` is ``log B(a, b)``, or NaN where ``a`` and ``b`` are both above 100 and
    ``a + b`` above :data:`_DIRECT_PDF_MAX`: there the direct log-density cancels and
    :func:`log_beta_pdf` is used.  Below it the direct form's absolute error is about
    ``(a + b) |log x|`` ulps, under ``1e-7`` in the log, so the density (which only
    scales the correction) is off by less than ``1e-7`` relative: the correction, and
    the check that it is below ``RTOL``, are unaffected.
    """
    log_pdf = am1 * np.log(x) + bm1 * np.log1p(-x) - lbeta
    big = np.isnan(lbeta)
    if np.any(big):
        log_pdf = np.where(big, 0.0, log_pdf)
        log_pdf[big] = log_beta_pdf(am1[big] + 1.0, bm1[big] + 1.0, x[big])
    return err / np.exp(log_pdf)


def _halley(am1, bm1, x, t):
    """Halley's step from the Newton correction ``t``, kept inside ``(x / 2, (1 + x) / 2)``."""
    u = t * (am1 / x - bm1 / (1.0 - x))
    step = x - t / (1.0 - 0.5 * np.minimum(1.0, u))
    return np.minimum(np.maximum(step, 0.5 * x), 0.5 * (1.0 + x))  # (np.clip is slower)


# Residual modes: how the tail at x is evaluated.
_FAST, _ACCURATE, _SERIES, _HUGE = 0, 1, 2, 3


def _series_region(a, b, x):
    """Where the incomplete beta of whole ``a, b`` is summed as a binomial series.

    SciPy's ``betainc``/``betaincc`` lose digits for ``a <= 100`` with ``b >= 1e4``
    (relative errors up to ``3e-9`` at ``b = 1e9``); there the tails are sums of at most a
    few hundred binomial terms.  ``x (a + b) < 600`` keeps the first term ``(1 - x)^n``
    from underflowing.
    """
    return (
        (a >= 1.0)
        & (a <= 100.0)
        & (b >= 1e4)
        & (a == np.floor(a))
        & (b == np.floor(b))
        & (x * (a + b) < 600.0)
    )


def _binomial_split(a, b, x):
    """``(P(X <= a - 1), P(X >= a))`` for ``X ~ Binomial(a + b - 1, x)`` with whole ``a <= 100``.

    The terms come from ``P(X = 0) = (1 - x)^n`` by the ratio recurrence
    ``P(X = i + 1) / P(X = i) = (n - i) x / ((i + 1)(1 - x))`` (relative error a few
    ulps after a hundred terms).  The second sum is accurate where the mean ``n x`` is at
    most ``a`` (its terms then fall fast: it stops when they are below ``1e-17`` of it);
    elsewhere use ``1 - P(X <= a - 1)``, which is then at least about 1/2.
    """
    n = a + b - 1.0
    ratio = x / (1.0 - x)
    term = np.exp(n * np.log1p(-x))
    below = np.zeros_like(x)
    above = np.zeros_like(x)
    top = int(np.max(a)) if a.size else 0
    limit = top + 12 * int(np.sqrt(top)) + 80
    for i in range(limit):
        side = i < a
        below += np.where(side, term, 0.0)
        above += np.where(side, 0.0, term)
        if i >= top and i % 16 == 0 and np.all(term <= 1e-17 * above):
            break
        term = term * ((n - i) / (i + 1.0) * ratio)
    return below, above


def _series_tail(a, b, x, upper):
    """``1 - I_x(a, b)`` (``upper``) or ``I_x(a, b)`` by :func:`_binomial_split`."""
    below, above = _binomial_split(a, b, x)
    if upper:
        return below
    return np.where(x * (a + b - 1.0) <= a, above, 1.0 - below)


def _two_product(a, b):
    """``(p, e)`` with ``p + e == a * b`` exactly (Dekker's splitting, no fused multiply-add)."""
    p = a * b
    split = 134217729.0  # 2**27 + 1
    t = split * a
    ah = t - (t - a)
    al = a - ah
    t = split * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _offset(x, a, n):
    """``x - a / n`` without the rounding of ``a / n`` (exact product ``x n``, Sterbenz)."""
    hi, lo = _two_product(x, n)
    return ((hi - a) + lo) / n


def _huge_region(a, b):
    """Both beta parameters at least 1e6: SciPy's incomplete beta degrades (13 % off at
    ``a = b = 1e15``, NaN at the mean beyond ``1e16``), the saddle-point form is exact enough."""
    return (a >= 1e6) & (b >= 1e6)


def _saddlepoint_tails(a, b, x):
    """``(I_x(a, b), 1 - I_x(a, b))`` by the Lugannani-Rice saddle-point approximation.

    ``I_x(a, b) = P((1 - x) G_a - x G_b <= 0)`` for independent gamma variables; the
    saddle point of that sum gives ``w = sign(x - x0) sqrt(2 n KL(x0 || x))`` and
    ``u = (x - x0) sqrt(n / (x0 (1 - x0)))`` with ``n = a + b``, ``x0 = a / n``, and
    ``I = Phi(w) + phi(w) (1/w - 1/u)`` (Lugannani & Rice 1980).  Its relative error falls
    like ``min(a, b)^(-3/2)`` (below ``1e-11`` from ``1e6``, checked against SciPy where SciPy
    is accurate); ``x - x0`` is formed without rounding ``x0``.  Near the mean
    (``|w| < 1e-5``) ``1/w - 1/u`` is replaced by its limit ``-skewness / 6``.
    """
    n = a + b
    x0 = a / n
    d = _offset(x, a, n)
    kl_x0 = -x0 * log1pmx(d / x0) - (1.0 - x0) * log1pmx(-d / (1.0 - x0))
    w = np.sign(d) * np.sqrt(2.0 * n * np.maximum(kl_x0, 0.0))
    u = d * np.sqrt(n / (x0 * (1.0 - x0)))
    near = np.abs(w) < 1e-5
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = 1.0 / w - 1.0 / u
    k2 = a * (1.0 - x) ** 2 + b * x * x
    k3 = 2.0 * a * (1.0 - x) ** 3 - 2.0 * b * x**3
    gap = np.where(near, -k3 / (6.0 * k2**1.5), gap)
    corr = np.exp(-0.5 * w * w) / np.sqrt(2.0 * np.pi) * gap
    lower, upper = special.ndtr(w) + corr, special.ndtr(-w) - corr
    lower = np.where(x <= 0.0, 0.0, np.where(x >= 1.0, 1.0, lower))
    upper = np.where(x <= 0.0, 1.0, np.where(x >= 1.0, 0.0, upper))
    return np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)


def _residual(a, b, x, q, upper, mode):
    """``I_x(a, b) - target``, increasing in ``x``.

    ``upper``: the target is the upper tail ``1 - I_x(a, b) = q``.  ``mode`` picks the
    evaluation: ``_FAST`` (``betainc``, cancels for an upper tail below ``1e-3``),
    ``_ACCURATE`` (``betainc``/``betaincc``, whichever is the small side), ``_SERIES``
    (:func:`_series_tail`) or ``_HUGE`` (:func:`_saddlepoint_tails`).
    """
    if mode == _SERIES:
        tail = _series_tail(a, b, x, upper)
        return q - tail if upper else tail - q
    if mode == _HUGE:
        lower, upper_tail = _saddlepoint_tails(a, b, x)
        return q - upper_tail if upper else lower - q
    if not upper:
        return special.betainc(a, b, x) - q
    if mode == _ACCURATE:
        return q - special.betaincc(a, b, x)
    return special.betainc(a, b, x) - (1.0 - q)


def _small_step(x, t):
    """Is the (finite) correction ``t`` within ``RTOL`` of ``min(x, 1 - x)`` (plus rounding)?"""
    return np.abs(t) <= RTOL * np.minimum(x, 1.0 - x) + 4e-16 * x


def _remainder_small(am1, bm1, x, t):
    """Is the second-order remainder of Newton's step ``x - t`` within ``RTOL / 4``?"""
    g = np.abs(am1 / x - bm1 / (1.0 - x))
    gt = g * np.abs(t)
    return (gt <= 1e-3) & (gt * np.abs(t) <= 0.25 * RTOL * np.minimum(x, 1.0 - x))


def _iterate(a, b, q, upper, mode, x):
    """Up to three checked Halley steps from ``x``; returns ``(root, verified)``.

    After each tail evaluation the Newton correction ``t`` is checked; where it is within
    :data:`RTOL`, ``x - t`` is the result (the tail was evaluated within ``RTOL`` of it).
    """
    am1, bm1, lbeta = a - 1.0, b - 1.0, _log_beta(a, b)
    out = np.full(a.shape, np.nan)
    todo = np.arange(a.size)
    t = _newton_step(am1, bm1, x, _residual(a, b, x, q, upper, mode), lbeta)
    for _ in range(3):
        every = todo.size == a.size  # no copies while every element is still iterating
        sa, sb, sq, sam1, sbm1, slb = (v if every else v[todo] for v in (a, b, q, am1, bm1, lbeta))
        x = _halley(sam1, sbm1, x, t)
        t = _newton_step(sam1, sbm1, x, _residual(sa, sb, x, sq, upper, mode), slb)
        small = _small_step(x, t)
        near = ~small & _remainder_small(sam1, sbm1, x, t)
        out[todo[small]] = (x - t)[small]
        if near.any():  # Halley's step from x: its error is below the remainder bound
            u = t[near] * (sam1[near] / x[near] - sbm1[near] / (1.0 - x[near]))
            out[todo[near]] = x[near] - t[near] / (1.0 - 0.5 * u)
        ok = small | near
        todo, x, t = todo[~ok], x[~ok], t[~ok]
        if not todo.size:
            break
    return out, np.isfinite(out)


def _near_one(a, b, q, upper):
    """Elements whose root is above 0.999 (by the normal guess), found cheaply.

    Only elements whose mean ``a / (a + b)`` is above 0.99, or whose target puts the
    root far into the upper tail, are guessed at; parameters below 1 use the mean.
    """
    with np.errstate(all="ignore"):
        mean = a / (a + b)
        far = (q < 0.01) if upper else (q > 0.99)
        cand = np.flatnonzero((mean > 0.99) | far)
        out = np.zeros(a.shape, dtype=bool)
        if cand.size:
            ca, cb, cq = a[cand], b[cand], q[cand]
            z = special.ndtri(cq) if upper else -special.ndtri(cq)
            guess = np.where((ca >= 1.0) & (cb >= 1.0), _guess(ca, cb, z), mean[cand])
            out[cand] = guess > 0.999
    return out


def quantile(a, b, q, *, upper: bool = False):
    """Checked beta quantile: ``x`` with ``I_x(a, b) = q``, or ``1 - I_x(a, b) = q`` if ``upper``.

    ``a, b > 0`` and ``0 < q < 1`` (float arrays, broadcast).  The tail is evaluated at
    each result's last iterate and the Newton correction it implies must be below
    :data:`RTOL` times ``min(x, 1 - x)``; that correction is applied.  No element is
    returned without that check passing (see the module docstring).

    Examples
    --------
    >>> float(quantile(1001.0, 1e9 - 1000, 0.05, upper=True)) * 1e9  # exact bound, k = 1000
    1053.6...
    """
    q_in = np.asarray(q, dtype=float)
    a, b, q = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float), q_in)
    shape = a.shape
    a, b, q = a.ravel(), b.ravel(), q.ravel()
    out = np.full(a.shape, np.nan)
    # Where the root lies near 1, 1 - x carries the information: solve the mirror problem
    # for z = 1 - x (I_x(a, b) = 1 - I_{1-x}(b, a)) to full relative accuracy in 1 - x
    mirror = _near_one(a, b, q, upper)
    if mirror.any():
        out[mirror] = 1.0 - quantile(b[mirror], a[mirror], q[mirror], upper=not upper)
        if mirror.all():
            return out.reshape(shape)
        keep = ~mirror
        part = quantile(a[keep], b[keep], q[keep], upper=upper)
        out[keep] = part
        return out.reshape(shape)
    with np.errstate(all="ignore"):
        usable = (a >= 1.0) & (b >= 1.0)
        series = _series_region(a, b, np.minimum(a / (a + b), 0.5))
        huge = _huge_region(a, b)
        fast = usable & ~series & ~huge
        if upper:
            fast &= q >= _SMALL_TAIL
        for mode, mask in ((_FAST, fast), (_SERIES, series), (_HUGE, huge)):
            idx = np.flatnonzero(mask)
            if not idx.size:
                continue
            whole = idx.size == a.size
            sa, sb, sq = (a, b, q) if whole else (a[idx], b[idx], q[idx])
            # normal deviate of the lower-tail target I_x(a, b) (once when q is one number)
            qz = q_in if q_in.ndim == 0 else sq
            z = special.ndtri(qz) if upper else -special.ndtri(qz)
            x = _guess(sa, sb, z)
            x = np.where((x > 0.0) & (x < 1.0), x, 0.5)
            out[idx], _ = _iterate(sa, sb, sq, upper, mode, x)
        rest = np.flatnonzero(np.isnan(out))
        if rest.size:
            out[rest] = _slow_quantile(a[rest], b[rest], q[rest], upper)
    return out.reshape(shape)


def _slow_quantile(a, b, q, upper):
    """SciPy's inverse, polished and checked with the accurate tail; bisection if it fails."""
    series = _series_region(a, b, np.minimum(a / (a + b), 0.5))
    huge = _huge_region(a, b)
    out = np.full(a.shape, np.nan)
    for mode, mask in ((_ACCURATE, ~series & ~huge), (_SERIES, series), (_HUGE, huge)):
        idx = np.flatnonzero(mask)
        if not idx.size:
            continue
        sa, sb, sq = a[idx], b[idx], q[idx]
        # SciPy's inverse takes milliseconds per element once a + b is astronomical; the
        # normal start is excellent there (and anything else goes to the bisection)
        huge = (sa + sb > 1e10) & (sa >= 1.0) & (sb >= 1.0)
        x = special.betainccinv(sa, sb, sq) if upper else special.betaincinv(sa, sb, sq)
        if np.any(huge):
            z = special.ndtri(sq[huge]) if upper else -special.ndtri(sq[huge])
            x[huge] = _guess(sa[huge], sb[huge], z)
        x = np.where((x > 0.0) & (x < 1.0), x, 0.5)
        root, ok = _iterate(sa, sb, sq, upper, mode, x)
        bad = ~ok
        if bad.any():
            root[bad] = _bisect(sa[bad], sb[bad], sq[bad], upper, mode)
        out[idx] = root
    return out


def _bisect(a, b, q, upper, mode):
    """Bisection in ``u = log x`` on ``[log 1e-300, 0)`` with the accurate tail.

    ``F(u) = I_{e^u}(a, b) - target`` increases in ``u``; the bracket keeps one end on
    each side, and after at most :data:`_BISECTION_STEPS` halvings (or once its ends
    are within ``RTOL / 1000`` of each other) the midpoint is returned.
    """
    lo = np.full(a.shape, np.log(1e-300))
    hi = np.zeros(a.shape)
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        below = _residual(a, b, np.exp(mid), q, upper, mode) < 0.0
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
        if np.all(np.exp(hi) - np.exp(lo) <= RTOL * 1e-3 * np.exp(lo)):
            break
    return np.exp(0.5 * (lo + hi))
