"""heldout.metrics.partial_auc against scikit-learn, a direct integral, pROC and simulation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats
from sklearn.metrics import roc_auc_score, roc_curve

from heldout.metrics.partial_area import partial_auc, partial_auc_difference


def _data(seed, n1=80, n0=120, shift=1.0, decimals=None, models=1):
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n1), np.zeros(n0)]
    s = rng.normal(size=(models, n1 + n0)) + shift * y
    if decimals is not None:
        s = s.round(decimals)
    return y, (s[0] if models == 1 else s)


def _polygon_area(y, s, lo, hi):
    """Area under scikit-learn's ROC polygon between FPR 1-hi and 1-lo (numerical quadrature)."""
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    pts_f, pts_t = np.r_[0.0, fpr], np.r_[0.0, tpr]
    grid = np.linspace(1 - hi, 1 - lo, 20001)
    height = np.array([_height(pts_f, pts_t, g) for g in grid])
    return integrate.trapezoid(height, grid)


def _height(f, t, g):
    right = np.flatnonzero(f > g)
    if right.size == 0:
        return t[-1]
    j = right[0]
    return t[j - 1] + (t[j] - t[j - 1]) * (g - f[j - 1]) / (f[j] - f[j - 1])


@pytest.mark.parametrize("max_fpr", [0.05, 0.1, 0.2, 0.5])
@pytest.mark.parametrize("decimals", [None, 1])
def test_mcclish_value_matches_scikit_learn(max_fpr, decimals):
    y, s = _data(1, decimals=decimals)
    r = partial_auc(y, s, (1 - max_fpr, 1.0))
    assert r.value == pytest.approx(roc_auc_score(y, s, max_fpr=max_fpr), abs=1e-12)


def test_the_full_band_is_the_auc():
    y, s = _data(2, decimals=1)
    assert partial_auc(y, s, (0.0, 1.0)).value == pytest.approx(roc_auc_score(y, s))


@pytest.mark.parametrize("band", [(0.5, 0.85), (0.8, 1.0), (0.25, 0.6)])
@pytest.mark.parametrize("decimals", [None, 1])
def test_raw_area_matches_a_quadrature_of_the_polygon(band, decimals):
    y, s = _data(3, decimals=decimals)
    r = partial_auc(y, s, band)
    assert r.raw == pytest.approx(_polygon_area(y, s, *band), abs=2e-4)


def test_over_the_whole_band_the_variance_is_delongs():
    from heldout.metrics.auc import delong

    y, s = _data(4)
    r = partial_auc(y, s, (0.0, 1.0), method="delong")
    assert r.se == pytest.approx(delong(y, s).se, rel=1e-9)
    z = 1.959963984540054
    assert (r.low, r.high) == pytest.approx((r.value - z * r.se, r.value + z * r.se))
    lg = partial_auc(y, s, (0.0, 1.0))  # logit: the same variance by the delta method
    from scipy.special import expit, logit

    half = z * r.se / (r.value * (1 - r.value))
    assert (lg.low, lg.high) == pytest.approx(tuple(expit(logit(r.value) + np.r_[-half, half])))


def test_the_influence_variance_matches_the_bootstrap_variance():
    """On 4,000 items the delta-method s.e. and the stratified bootstrap's s.d. agree (5 %)."""
    y, s = _data(5, n1=1600, n0=2400)
    d = partial_auc(y, s, (0.8, 1.0))
    b = partial_auc(y, s, (0.8, 1.0), method="bootstrap", n_resamples=2000, seed=3)
    assert d.se == pytest.approx(b.se, rel=0.08)


@pytest.mark.parametrize("method", ["logit", "delong"])
def test_influence_intervals_cover_in_simulation(method):
    """400 binormal test sets of 400 items: 95 % within 3 Monte Carlo s.e."""
    rng = np.random.default_rng(9)
    mu = 1.2
    raw = integrate.quad(lambda sp: stats.norm.sf(stats.norm.ppf(sp) - mu), 0.8, 1.0)[0]
    m, big = (0.2**2) / 2, 0.2
    truth = 0.5 * (1 + (raw - m) / (big - m))
    reps, hits = 400, 0
    for _ in range(reps):
        y = np.r_[np.ones(200), np.zeros(200)]
        s = np.r_[rng.normal(mu, 1, 200), rng.normal(0, 1, 200)]
        r = partial_auc(y, s, (0.8, 1.0), method=method)
        hits += r.low <= truth <= r.high
    assert abs(hits / reps - 0.95) <= 3 * np.sqrt(0.05 * 0.95 / reps)


def test_paired_difference_of_a_model_with_itself_is_zero():
    y, s = _data(6)
    d = partial_auc_difference(y, s, s)
    assert d.value == 0 and d.low == 0 and d.high == 0 and d.p_value == 1.0


def test_paired_difference_variance_matches_the_paired_bootstrap():
    y, s = _data(7, n1=600, n0=900, models=2)
    s[1] = 0.7 * s[0] + 0.7 * s[1]
    d = partial_auc_difference(y, s[0], s[1], (0.7, 1.0))
    b = partial_auc_difference(y, s[0], s[1], (0.7, 1.0), method="bootstrap", n_resamples=400,
                               seed=1)  # fmt: skip
    va = partial_auc(y, s[0], (0.7, 1.0)).value - partial_auc(y, s[1], (0.7, 1.0)).value
    assert d.value == pytest.approx(va)
    assert d.se == pytest.approx(b.se, rel=0.15)  # 400 resamples: s.d. known to about 4 %


def test_agrees_with_proc(proc):
    y, s = _data(8, decimals=1)
    out = proc(
        y, s,
        "for (b in list(c(1, 0.8), c(0.85, 0.5))) { "
        'a <- auc(r, partial.auc = b, partial.auc.focus = "specificity"); '
        'a2 <- auc(r, partial.auc = b, partial.auc.focus = "specificity", partial.auc.correct = TRUE); '
        'rr <- roc(d$V1, d$V2, levels = c(0, 1), direction = "<", quiet = TRUE, partial.auc = b, '
        'partial.auc.focus = "specificity", partial.auc.correct = TRUE); set.seed(1); '
        'ci <- ci.auc(rr, method = "bootstrap", boot.n = 4000, progress = "none"); '
        "cat(a, a2, ci[1], ci[3], '') }",
    )  # fmt: skip
    for i, band in enumerate([(0.8, 1.0), (0.5, 0.85)]):
        r = partial_auc(y, s, band, method="bootstrap", n_resamples=4000, seed=1)
        raw, st, lo, hi = out[4 * i : 4 * i + 4]
        assert r.raw == pytest.approx(raw, abs=1e-9) and r.value == pytest.approx(st, abs=1e-9)
        # two independent runs of 4,000 resamples: percentiles agree to about 0.015
        assert r.low == pytest.approx(lo, abs=0.015) and r.high == pytest.approx(hi, abs=0.015)


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"specificity": (0.9, 0.8)}, "specificity"),
        ({"specificity": (0.8, 1.2)}, "specificity"),
        ({"specificity": 0.8}, "specificity"),
        ({"alpha": 1.0}, "alpha"),
        ({"method": "wald"}, "method"),
        ({"method": "logit", "specificity": (0.8, 1.0), "alpha": 0}, "alpha"),
        ({"method": "bootstrap", "n_resamples": 5}, "n_resamples"),
    ],
)
def test_bad_input_is_refused_by_name(kwargs, word):
    y, s = _data(0)
    with pytest.raises(ValueError, match=word):
        partial_auc(y, s, **kwargs)


def test_bad_scores_are_refused_by_name():
    y, s = _data(0)
    with pytest.raises(ValueError, match="method"):
        partial_auc_difference(y, s, s, method="logit")
    with pytest.raises(ValueError, match="scores_b"):
        partial_auc_difference(y, s, s[:-1])


def test_agrees_with_procs_own_example_data(proc, tmp_path):
    """pROC's example data set (aSAH, outcome by s100b, with ties) through both packages."""
    import subprocess

    path = tmp_path / "asah.csv"
    subprocess.run(
        ["Rscript", "-e", "suppressMessages(library(pROC)); data(aSAH); "
         f'write.csv(data.frame(y = as.integer(aSAH$outcome == "Poor"), s = aSAH$s100b), "{path}", '
         "row.names = FALSE)"],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    y, s = data[:, 0], data[:, 1]
    out = proc(
        y, s,
        'cat(auc(r, partial.auc = c(1, 0.8), partial.auc.focus = "specificity", '
        "partial.auc.correct = TRUE), auc(r, partial.auc = c(0.9, 0.5), "
        'partial.auc.focus = "specificity"), coords(r, 0.9, input = "specificity", '
        'ret = "sensitivity", transpose = FALSE)$sensitivity)',
    )  # fmt: skip
    from heldout.metrics.operating import sensitivity_at_specificity

    assert partial_auc(y, s, (0.8, 1.0)).value == pytest.approx(out[0], abs=1e-9)
    assert partial_auc(y, s, (0.5, 0.9)).raw == pytest.approx(out[1], abs=1e-9)
    assert sensitivity_at_specificity(y, s, 0.9, method="fixed-threshold").value == pytest.approx(
        out[2], abs=1e-9
    )
