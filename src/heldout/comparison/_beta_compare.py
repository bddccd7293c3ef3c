"""``P(X1 > X2)`` for independent Beta variables, vectorised and accurate at every size.

The public entry is :func:`heldout.comparison.compare.prob_greater_beta`; this private module holds
the numerics.

Method
------
When a parameter is a whole number not above 1,000, ``P(X1 > X2)`` is a finite sum
(:cite:`cook2005`); the shortest of the four symmetric forms is summed in log space, its
first term from a Stirling-form ratio of Gamma functions (no cancellation at 1e9).

Otherwise, work on the logit scale ``s = log(x / (1 - x))``, where the density of a Beta(a, b)
variable is ``h(s) = x^a (1 - x)^b / B(a, b)``: smooth, log-concave and free of the
end-point singularities that ``x^(a-1)`` has when ``a < 1``.  ``h`` is evaluated by its
saddle-point form (:func:`heldout._saddle.logit_beta_logpdf`), accurate to a few units in
the last place even when ``a`` and ``b`` are 1e9; scipy's incomplete Beta function is
not used, because at such sizes it can be wrong in the ninth digit.

With ``N`` the variable of smaller logit spread and ``W`` the other,

``P(N > W) = int h_N(s) F_W(s) ds``,

integrated over the window where ``log h_N`` is within 40 of its maximum (found by
Newton's method on the convex deviance).  The window is cut into panels (uniform up to
nine curvature standard deviations from the mode, then uniform tail panels of at most
three e-folds and 1 logit unit each for long exponential tails), each with a 13-point Clenshaw-Curtis rule.  ``F_W`` is carried along the same
nodes by spectral (Chebyshev) integration of ``h_W``, starting from its value at the
window's left end, itself the integral of ``h_W`` over its own panels.  Pairs are
processed in small blocks so that the temporaries stay in cache.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from heldout._saddle import bd0, stirlerr

_K = 13  # Chebyshev-Lobatto points per panel
_X = np.cos(np.pi * np.arange(_K) / (_K - 1))[::-1]
_ANTI = np.stack(
    [np.polynomial.chebyshev.chebint(np.eye(_K)[j], lbnd=-1) for j in range(_K)], axis=1
) @ np.linalg.inv(np.polynomial.chebyshev.chebvander(_X, _K - 1))  # values -> antiderivative
_CUM = np.polynomial.chebyshev.chebvander(_X, _K) @ _ANTI  # cumulative integral at the nodes
_WEIGHTS = _CUM[-1]  # Clenshaw-Curtis weights on [-1, 1]
_CORE, _SPAN, _DROP = 6, 9.0, 40.0  # core panels per side, core width (sds), window drop
_TAIL_DROP, _MAX_TAIL = 3.0, 48  # tail panels: at most 3 e-folds (and 1.5 logit units) each
_MAX_WIDTH, _MAX_CORE = 1.0, 24  # core panels: at most 1 logit unit wide (3e-12 at 1.5)
_U = np.linspace(0.0, 1.0, _CORE + 1)
_MAX_TERMS = 1000  # longest finite sum used
_SUM_BLOCK = 256  # pairs per block of finite sums
_BLOCK = 32  # pairs per block: 32 x 234 nodes keeps temporaries near 60 kB


class _LogitBeta:
    """Density of ``logit(X) - logit(a / (a + b))``, ``X ~ Beta(a, b)``, for a block of pairs."""

    def __init__(self, a: np.ndarray, b: np.ndarray):
        self.a, self.b = a[:, None], b[:, None]
        n = a + b
        self.n = n[:, None]
        self.p, self.q = self.a / self.n, self.b / self.n
        self.npq = (n * (a / n) * (b / n))[:, None]
        self.const = (
            0.5 * np.log(a * b / (2.0 * np.pi * n)) + stirlerr(n) - stirlerr(a) - stirlerr(b)
        )[:, None]

    def deviance(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``log h(0) - log h(t)`` and its derivative ``N x - a`` (both without cancellation)."""
        em = np.expm1(t)
        den = 1.0 + self.p * em
        shift = self.n * self.p * self.q * em / den
        log_den = np.log(den)
        dev = bd0(self.a, self.a * np.exp(t) / den, -shift, log_den - t) + bd0(
            self.b, self.b / den, shift, log_den
        )
        return dev, shift

    def logpdf(self, t: np.ndarray) -> np.ndarray:
        return self.const - self.deviance(t)[0]

    def edges(self) -> np.ndarray:
        """Panel edges: six uniform panels per side out to nine curvature sds, then as many
        uniform tail panels as needed for at most three e-folds each, out to a drop of 40."""
        t = np.sqrt(2.0 * _DROP / self.npq) * np.array([[-1.0, 1.0]])
        for _ in range(60):  # Newton on a convex function: monotone after the first step
            dev, slope = self.deviance(t)
            if np.all(np.abs(dev - _DROP) < 0.05):  # the window need not be precise
                break
            step = (dev - _DROP) / np.where(slope == 0.0, np.inf, slope)
            t = np.where(np.sign(t - step) == np.sign(t), t - step, t / 2.0)
        core_sd = _SPAN / np.sqrt(self.npq)
        ends = np.minimum(np.abs(t), core_sd)
        # panels no wider than 1 logit unit: the logit density has poles at distance pi
        cores = int(np.clip(np.ceil(np.max(ends) / _MAX_WIDTH), _CORE, _MAX_CORE))
        u = np.linspace(0.0, 1.0, cores + 1)
        left_over = _DROP - self.deviance(ends * np.array([[-1.0, 1.0]]))[0]  # drop still to come
        need = np.maximum(left_over / _TAIL_DROP, (np.abs(t) - ends) / _MAX_WIDTH)
        tails = int(np.clip(np.ceil(np.max(need)), 0, _MAX_TAIL))
        g = np.linspace(0.0, 1.0, tails + 1)[1:]
        sides = []
        for length, core in ((-t[:, :1], ends[:, :1]), (t[:, 1:], ends[:, 1:])):
            sides.append(np.concatenate([core * u, core + (length - core) * g], axis=1))
        left, right = sides
        return np.concatenate([-left[:, :0:-1], right], axis=1)


def _nodes(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    half = (edges[:, 1:] - edges[:, :-1]) / 2.0
    mid = (edges[:, 1:] + edges[:, :-1]) / 2.0
    return mid[:, :, None] + half[:, :, None] * _X, half


def _cdf_at(dens: _LogitBeta, edges: np.ndarray, point: np.ndarray) -> np.ndarray:
    """``int_{-inf}^{point} h`` on the panels ``edges`` (Chebyshev antiderivative in a panel)."""
    m, panels = edges.shape[0], edges.shape[1] - 1
    nodes, half = _nodes(edges)
    vals = np.exp(dens.logpdf(nodes.reshape(m, -1))).reshape(m, panels, _K)
    mass = (vals @ _WEIGHTS) * half
    before = np.concatenate([np.zeros((m, 1)), np.cumsum(mass, axis=1)], axis=1)
    j = np.clip(np.sum(edges[:, 1:-1] <= point[:, None], axis=1), 0, panels - 1)
    r = np.arange(m)
    width = np.where(half[r, j] > 0.0, half[r, j], 1.0)
    xi = np.clip((point - (edges[r, j] + edges[r, j + 1]) / 2.0) / width, -1.0, 1.0)
    cheb = np.cos(np.arange(_K + 1) * np.arccos(xi)[:, None])
    inside = before[r, j] + half[r, j] * np.sum((vals[r, j] @ _ANTI.T) * cheb, axis=1)
    return np.where(
        point <= edges[:, 0], 0.0, np.where(point >= edges[:, -1], before[:, -1], inside)
    )


def _block(a1, b1, a2, b2) -> np.ndarray:
    s1 = special.polygamma(1, a1) + special.polygamma(1, b1)  # logit variances
    s2 = special.polygamma(1, a2) + special.polygamma(1, b2)
    swap = s1 > s2
    a, b = np.where(swap, a2, a1), np.where(swap, b2, b1)
    c, d = np.where(swap, a1, a2), np.where(swap, b1, b2)
    narrow, wide = _LogitBeta(a, b), _LogitBeta(c, d)
    delta = np.log((a / c) * (d / b))  # logit mode of the narrow minus that of the wide
    en = narrow.edges()
    start = _cdf_at(wide, wide.edges(), en[:, 0] + delta)
    nodes, half = _nodes(en)
    m, panels = en.shape[0], en.shape[1] - 1
    flat = nodes.reshape(m, -1)
    f_n = np.exp(narrow.logpdf(flat)).reshape(m, panels, _K)
    f_w = np.exp(wide.logpdf(flat + delta[:, None])).reshape(m, panels, _K)
    cum = (f_w @ _CUM.T) * half[:, :, None]
    offset = start[:, None] + np.concatenate(
        [np.zeros((m, 1)), np.cumsum(cum[:, :, -1], axis=1)[:, :-1]], axis=1
    )
    cdf_w = np.minimum(offset[:, :, None] + cum, 1.0)
    p = np.clip(np.sum(((f_n * cdf_w) @ _WEIGHTS) * half, axis=1), 0.0, 1.0)
    return np.where(swap, 1.0 - p, p)


def _finite_sum(a1, b1, a2, b2) -> np.ndarray:
    """``P(X2 > X1)`` for whole ``a2``: ``sum_{i < a2} B(a1 + i, b1 + b2) / ((b2 + i) B(1 + i, b2) B(a1, b1))``.

    The first term is ``B(a1, b1 + b2) / B(a1, b1)``; each next one is the previous times
    ``(a1 + i)(b2 + i) / ((a1 + b1 + b2 + i)(1 + i))``; summed in log space.
    """
    terms = a2.astype(np.int64)
    i = np.arange(int(terms.max()))[None, :]
    a1, b1, b2 = a1[:, None], b1[:, None], b2[:, None]
    # log of the first term, B(a1, b1 + b2) / B(a1, b1) = minus the second difference of
    # log Gamma at x = b1 with steps u = a1, v = b2; with log Gamma(y) = (y - 1/2) log y - y
    # + log(2 pi)/2 + delta(y) it is written with log1p so that nothing cancels
    x, u, v = b1, a1, b2
    log0 = -(
        (x - 0.5) * np.log1p(-u * v / ((x + u) * (x + v)))
        + v * np.log1p(u / (x + v))
        + u * np.log1p(v / (x + u))
        + stirlerr(x + u + v)
        - stirlerr(x + v)
        - stirlerr(x + u)
        + stirlerr(x)
    )
    rest = b1 + b2  # log((a1 + i) / (a1 + b1 + b2 + i)), by log1p when the ratio is near 1
    ratio = np.where(
        rest < a1 + i, np.log1p(-rest / (a1 + rest + i)), np.log(a1 + i) - np.log(a1 + rest + i)
    )
    step = ratio + np.log((b2 + i) / (1.0 + i))
    logs = log0 + np.concatenate([np.zeros((a1.shape[0], 1)), np.cumsum(step[:, :-1], axis=1)], 1)
    logs = np.where(i < terms[:, None], logs, -np.inf)
    return np.exp(special.logsumexp(logs, axis=1))


def _closed_form(a1, b1, a2, b2) -> tuple[np.ndarray, np.ndarray]:
    """Where a parameter is a whole number the answer is a finite sum; pick the shortest.

    Returns the answer and a mask of the pairs it covers (at most ``_MAX_TERMS`` terms).
    Four forms: ``P(X1 > X2) = g(a2, b2, a1, b1)`` (``a1`` terms), ``= g(b1, a1, b2, a2)``
    (``b2`` terms), ``= 1 - g(a1, b1, a2, b2)`` (``a2`` terms), ``= 1 - g(b2, a2, b1, a1)``
    (``b1`` terms), with ``g = P(second > first)``; a direct sum is preferred to a
    complement unless it is a hundred times longer.
    """

    def count(v):
        return np.where((v == np.round(v)) & (v <= _MAX_TERMS), v, np.inf)

    direct = np.minimum(count(a1), count(b2))
    comp = np.minimum(count(a2), count(b1))
    use_direct = np.isfinite(direct) & (direct <= 100.0 * comp)
    use_comp = ~use_direct & np.isfinite(comp)
    out = np.full(a1.shape, np.nan)
    for mask, forms in (
        (use_direct & (count(a1) <= count(b2)), (a2, b2, a1, b1, False)),
        (use_direct & (count(a1) > count(b2)), (b1, a1, b2, a2, False)),
        (use_comp & (count(a2) <= count(b1)), (a1, b1, a2, b2, True)),
        (use_comp & (count(a2) > count(b1)), (b2, a2, b1, a1, True)),
    ):
        if np.any(mask):
            p, q, r, s, complement = forms
            val = _finite_sum(p[mask], q[mask], r[mask], s[mask])
            out[mask] = 1.0 - val if complement else val
    return np.clip(out, 0.0, 1.0), use_direct | use_comp


def prob_greater(a1, b1, a2, b2) -> np.ndarray:
    """``P(X1 > X2)`` for arrays of positive finite parameters (already validated, broadcast)."""
    a1, b1, a2, b2 = (np.asarray(v, dtype=float) for v in np.broadcast_arrays(a1, b1, a2, b2))
    shape = a1.shape
    flat = [v.ravel() for v in (a1, b1, a2, b2)]
    out = np.empty(flat[0].size)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        for lo in range(0, out.size, _SUM_BLOCK):
            sl = slice(lo, lo + _SUM_BLOCK)
            out[sl], done = _closed_form(*(v[sl] for v in flat))
            out[sl][~done] = np.nan
        todo = np.flatnonzero(np.isnan(out))
        # blocks of pairs with similar shapes need similar panels: sort by the smallest parameter
        smallest = np.minimum(np.minimum(flat[0], flat[1]), np.minimum(flat[2], flat[3]))[todo]
        todo = todo[np.argsort(smallest, kind="stable")]
        for lo in range(0, todo.size, _BLOCK):
            idx = todo[lo : lo + _BLOCK]
            out[idx] = _block(*(v[idx] for v in flat))
    return out.reshape(shape)
