"""Tests of heldout.accuracy.split: the variational train/test split.

Independent references: mpmath (closed form at high precision), brute-force search over
every whole-row split, scipy's scalar minimiser, statsmodels WLS/OLS, scikit-learn's
LogisticRegression, asymptotic theory of maximum likelihood, and seeded simulations with
tolerances stated next to each check.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize

from heldout.accuracy import split as sp

coef = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False, allow_infinity=False)


# --- the closed form ------------------------------------------------------------------


def test_article_example_against_mpmath():
    mpmath.mp.dps = 50
    a, b = mpmath.sqrt(mpmath.mpf("1.6")), mpmath.sqrt(mpmath.mpf(79))
    exact = float(a / (a + b))
    assert sp.optimal_test_fraction(1.6, 79) == pytest.approx(exact, rel=1e-14)
    # the article prints fraction_test 0.1245837 and fraction_train 0.8754163
    assert round(sp.optimal_test_fraction(1.6, 79), 7) == 0.1245837
    assert round(1 - sp.optimal_test_fraction(1.6, 79), 7) == 0.8754163


@settings(max_examples=60, deadline=None)
@given(c_test=coef, c_train=coef, c0=st.floats(min_value=-5, max_value=5))
def test_fraction_minimises_the_real_relaxation(c_test, c_train, c0):
    # minimise over the share f in (0, 1) with m = 1 (the share does not depend on m)
    res = optimize.minimize_scalar(
        lambda f: sp.expected_criticism(1 - f, f, c_train, c_test, c0),
        bounds=(1e-9, 1 - 1e-9),
        method="bounded",
        options={"xatol": 1e-12},
    )
    f = sp.optimal_test_fraction(c_test, c_train)
    # compare criticism values (robust where the minimum is flat) and the location
    assert sp.expected_criticism(1 - f, f, c_train, c_test, c0) <= res.fun + 1e-9 * abs(res.fun)
    assert f == pytest.approx(res.x, abs=1e-5)


@settings(max_examples=60, deadline=None)
@given(c_test=coef, c_train=coef, rows=st.integers(min_value=2, max_value=3000))
def test_optimal_split_is_the_brute_force_minimum(c_test, c_train, rows):
    t = np.arange(1, rows)
    values = c_test / t + c_train / (rows - t)
    out = sp.optimal_split(c_test, c_train, rows)
    assert out.test_rows + out.train_rows == rows
    assert 1 <= out.test_rows <= rows - 1
    got = c_test / out.test_rows + c_train / out.train_rows
    assert got == pytest.approx(values.min(), rel=1e-12)


def test_optimal_split_article_numbers_and_vectorised():
    out = sp.optimal_split(1.6, 79, [1000, 10_000, 2])
    # brute force for each total
    for rows, t in zip([1000, 10_000, 2], out.test_rows, strict=True):
        grid = np.arange(1, rows)
        assert t == grid[np.argmin(1.6 / grid + 79 / (rows - grid))]
    assert list(out.test_rows) == [125, 1246, 1]


def test_zero_coefficient_edges():
    assert sp.optimal_test_fraction(0, 5) == 0.0
    assert sp.optimal_test_fraction(5, 0) == 1.0
    out = sp.optimal_split(0, 5, 10)
    assert (out.test_rows, out.train_rows) == (1, 9)


def test_expected_criticism_formula():
    got = sp.expected_criticism([100, 200], [50, 25], 79, 1.6, 0.3)
    assert np.allclose(got, [1.6 / 50 + 79 / 100 + 0.3, 1.6 / 25 + 79 / 200 + 0.3], rtol=1e-15)


def test_lagrange_multiplier_is_minus_the_slope_of_the_optimum():
    # envelope theorem: d(min sqrt(F))/dm = -lambda; checked by a central difference of the
    # real optimum computed independently with scipy
    c_test, c_train, c0, m, h = 1.6, 79.0, 0.5, 1000.0, 1e-2

    def best(total):
        res = optimize.minimize_scalar(
            lambda t: np.sqrt(c_test / t + c_train / (total - t) + c0),
            bounds=(1e-6, total - 1e-6),
            method="bounded",
            options={"xatol": 1e-10},
        )
        return res.fun

    slope = (best(m + h) - best(m - h)) / (2 * h)
    lam = sp.lagrange_multiplier(c_test, c_train, m, c0)
    assert lam == pytest.approx(-slope, rel=1e-4)


@settings(max_examples=30, deadline=None)
@given(
    c_test=coef,
    c_train=coef,
    rows=st.integers(min_value=2, max_value=2000),
    beta=st.sampled_from([0.5, 1.0, 1.5, 2.0]),
)
def test_power_split_is_the_brute_force_minimum(c_test, c_train, rows, beta):
    t = np.arange(1, rows)
    values = c_test / t + c_train / (rows - t) ** beta
    out = sp.optimal_split_power(c_test, c_train, rows, beta)
    got = c_test / out.test_rows + c_train / out.train_rows**beta
    assert got == pytest.approx(values.min(), rel=1e-12)


def test_power_split_with_beta_one_is_the_closed_form():
    rows = np.array([10, 100, 1000, 12345])
    assert np.array_equal(
        sp.optimal_split_power(1.6, 79, rows, 1.0).test_rows,
        sp.optimal_split(1.6, 79, rows).test_rows,
    )


# --- the fitter -----------------------------------------------------------------------

M_TRAIN, M_TEST = (
    a.ravel() for a in np.meshgrid([50, 100, 200, 400, 800], [20, 40, 80, 160, 320], indexing="ij")
)
TRUE = np.array([1.6, 79.0, 0.4])  # c_test, c_train, c0


def _truth():
    return sp.expected_criticism(M_TRAIN, M_TEST, TRUE[1], TRUE[0], TRUE[2])


def test_fit_is_exact_on_noise_free_data():
    fit = sp.fit_criticism_model(M_TRAIN, M_TEST, _truth())
    assert np.allclose(fit.params, TRUE, rtol=1e-10)


def test_fit_matches_statsmodels_wls_and_ols():
    sm = pytest.importorskip("statsmodels.api")
    gen = np.random.default_rng(1)
    sigma = 0.002 + 0.05 * _truth()
    y = _truth() + sigma * gen.standard_normal(sigma.size)
    X = np.column_stack([1 / M_TEST, 1 / M_TRAIN, np.ones(M_TEST.size)])
    ours = sp.fit_criticism_model(M_TRAIN, M_TEST, y, sigma=sigma)
    ref = sm.WLS(y, X, weights=1 / sigma**2).fit(cov_type="fixed scale")
    assert np.allclose(ours.params, ref.params, rtol=1e-9)
    assert np.allclose(ours.se, ref.bse, rtol=1e-9)
    lo_hi = ref.conf_int(0.05)
    assert np.allclose(ours.confint(0.95), lo_hi, rtol=1e-9)
    ours_ols = sp.fit_criticism_model(M_TRAIN, M_TEST, y)
    ref_ols = sm.OLS(y, X).fit()
    assert np.allclose(ours_ols.params, ref_ols.params, rtol=1e-9)
    assert np.allclose(ours_ols.se, ref_ols.bse, rtol=1e-9)
    assert np.allclose(ours_ols.confint(0.9), ref_ols.conf_int(0.1), rtol=1e-9)


def test_fit_recovers_known_coefficients_within_three_standard_errors():
    gen = np.random.default_rng(2)
    sigma = 0.002 + 0.05 * _truth()
    y = _truth() + sigma * gen.standard_normal(sigma.size)
    fit = sp.fit_criticism_model(M_TRAIN, M_TEST, y, sigma=sigma)
    assert np.all(np.abs(fit.params - TRUE) < 3 * fit.se)
    # and the optimal share, via the delta method
    assert abs(fit.test_fraction - sp.optimal_test_fraction(1.6, 79)) < 3 * fit.test_fraction_se


def test_fit_intervals_cover_at_their_level():
    # 400 simulated studies; 95% intervals must cover about 95% of the time.
    # Binomial(400, 0.95) has sd 1.1%; accept [0.91, 0.99] (about 3.6 sd).
    gen = np.random.default_rng(3)
    sigma = 0.002 + 0.05 * _truth()
    n_sim = 400
    ys = _truth() + sigma * gen.standard_normal((n_sim, sigma.size))
    hits = np.zeros(3)
    frac_hits = 0
    f_true = sp.optimal_test_fraction(1.6, 79)
    for y in ys:
        fit = sp.fit_criticism_model(M_TRAIN, M_TEST, y, sigma=sigma)
        ci = fit.confint(0.95)
        hits += (ci[:, 0] <= TRUE) & (TRUE <= ci[:, 1])
        lo, hi = fit.test_fraction_interval(0.95)
        frac_hits += lo <= f_true <= hi
    assert np.all((hits / n_sim > 0.91) & (hits / n_sim < 0.99)), hits / n_sim
    assert 0.91 < frac_hits / n_sim < 0.99


def test_fit_with_estimated_scale_covers_too():
    # OLS on single noisy observations with constant noise: t intervals on 22 dof
    gen = np.random.default_rng(4)
    hits = 0
    for _ in range(300):
        y = _truth() + 0.01 * gen.standard_normal(M_TEST.size)
        ci = sp.fit_criticism_model(M_TRAIN, M_TEST, y).confint(0.9)
        hits += ci[1, 0] <= TRUE[1] <= ci[1, 1]
    # Binomial(300, 0.9) sd 1.7%: accept [0.85, 0.95]
    assert 0.85 < hits / 300 < 0.95


def test_delta_method_agrees_with_parametric_bootstrap():
    # the delta method is a first-order approximation: check it where the coefficients are
    # estimated to about 10% (noise 1% of each cell), not where c_test's interval reaches 0
    gen = np.random.default_rng(5)
    sigma = 0.01 * _truth()
    y = _truth() + sigma * gen.standard_normal(sigma.size)
    fit = sp.fit_criticism_model(M_TRAIN, M_TEST, y, sigma=sigma)
    # the share's sd over draws of the coefficients from their fitted normal distribution
    draws = gen.multivariate_normal(fit.params, fit.cov, size=40_000)
    shares = np.sqrt(draws[:, 0]) / (np.sqrt(draws[:, 0]) + np.sqrt(draws[:, 1]))
    assert fit.test_fraction_se == pytest.approx(np.std(shares), rel=0.1)
    lo, hi = fit.test_fraction_interval(0.95, method="bootstrap", draws=40_000)
    dlo, dhi = fit.test_fraction_interval(0.95)
    assert lo == pytest.approx(dlo, abs=0.2 * (dhi - dlo))
    assert hi == pytest.approx(dhi, abs=0.2 * (dhi - dlo))


def test_power_fit_recovers_the_exponent():
    gen = np.random.default_rng(6)
    truth = 2.0 / M_TEST + 300.0 / M_TRAIN**2.0
    sigma = 0.05 * truth
    y = truth + sigma * gen.standard_normal(truth.size)
    fit = sp.fit_power_criticism_model(M_TRAIN, M_TEST, y, sigma=sigma)
    assert abs(fit.beta - 2.0) < 3 * fit.beta_se
    assert abs(fit.params[0] - 2.0) < 3 * fit.se[0]
    # the linear 1/m fit to the same data is rejected by its chi-square
    lin = sp.fit_criticism_model(M_TRAIN, M_TEST, y, sigma=sigma)
    assert lin.chi2 > 3 * lin.dof


# --- the measurement ------------------------------------------------------------------


def test_batch_newton_matches_scikit_learn():
    linear_model = pytest.importorskip("sklearn.linear_model")
    pop = sp.logistic_population(n_features=4, pool_size=2000, seed=7)
    X, y = pop.draw(np.random.default_rng(7), (4, 60))
    coef, b = sp.fit_logistic_batch(X, y, C=0.5)
    for r in range(4):
        ref = linear_model.LogisticRegression(C=0.5, tol=1e-12, max_iter=10_000).fit(X[r], y[r])
        assert np.allclose(coef[r], ref.coef_[0], atol=1e-6)
        assert b[r] == pytest.approx(ref.intercept_[0], abs=1e-6)


def _double_newton(X, y, C):
    """Plain full-step Newton in double precision, every data set to 60 steps (a reference)."""
    r, n, d = X.shape
    Z = np.concatenate([X, np.ones((r, n, 1))], axis=2)
    pen = np.r_[np.full(d, 1.0 / C), 0.0]
    beta = np.zeros((r, d + 1))
    for _ in range(60):
        prob = 1 / (1 + np.exp(-(Z @ beta[..., None])[..., 0]))
        grad = np.einsum("rni,rn->ri", Z, prob - y) + pen * beta
        hess = np.einsum("rni,rn,rnj->rij", Z, prob * (1 - prob), Z) + np.diag(pen)
        beta -= np.linalg.solve(hess, grad[..., None])[..., 0]
    return beta


@pytest.mark.parametrize("rows, C", [(60, 0.5), (400, 1.0), (1600, 4.0)])
def test_batch_newton_with_a_single_precision_hessian_reaches_the_double_fixed_point(rows, C):
    """The single-precision Hessian changes the path, not the answer: the coefficients are
    those of full double-precision Newton steps to 1e-12 (about 1e-15 seen), the
    gradient at them is zero to rounding, and a data set stops on its own step."""
    pop = sp.logistic_population(n_features=6, pool_size=4000, seed=3)
    X, y = pop.draw(np.random.default_rng(rows), (12, rows))
    coef, b = sp.fit_logistic_batch(X, y, C=C)
    ref = _double_newton(X, y, C)
    np.testing.assert_allclose(coef, ref[:, :-1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(b, ref[:, -1], rtol=0, atol=1e-12)
    eta = (X @ coef[..., None])[..., 0] + b[:, None]
    grad = np.einsum("rni,rn->ri", X, 1 / (1 + np.exp(-eta)) - y) + coef / C
    assert np.abs(grad).max() < 1e-9 * rows


def test_softplus_is_logaddexp_everywhere():
    eta = np.concatenate([np.linspace(-800, 800, 4001), [-1e-300, 0.0, 36.7, 709.0]])
    for part in (eta[eta < 700], eta):  # the fast branch, and the guarded one
        np.testing.assert_allclose(sp._softplus(part), np.logaddexp(0.0, part), rtol=4e-16)


def test_population_true_loss_against_sampling():
    pop = sp.logistic_population(n_features=3, pool_size=5000, seed=8)
    # the ideal loss is the true loss of the true coefficients
    assert pop.true_loss(pop.coef[None], np.array([pop.intercept]))[0] == pytest.approx(
        pop.ideal_loss, rel=1e-12
    )
    # exact true loss of another model against a Monte Carlo mean over 400k drawn rows
    coef, b = np.array([[0.3, 0.0, -1.0]]), np.array([0.2])
    X, y = pop.draw(np.random.default_rng(8), (400_000,))
    q = 1 / (1 + np.exp(-(X @ coef[0] + b[0])))
    loss = -2 * np.log2(np.where(y == 1, np.maximum(0.01, q), np.maximum(0.01, 1 - q)))
    se = loss.std() / np.sqrt(loss.size)
    assert abs(pop.true_loss(coef, b)[0] - loss.mean()) < 4 * se


def test_measurement_agrees_with_maximum_likelihood_theory():
    # Well-specified logistic regression, d features + intercept: the expected excess
    # log-loss is about (d + 1) / (2 m) nats, i.e. (d + 1) / (m ln 2) in deviance bits,
    # and the test term's coefficient is the per-row loss variance.  300 resamples at
    # m_train = 400; tolerance 4 standard errors plus 10% for finite-m effects and the
    # small penalty.
    pop = sp.logistic_population(n_features=3, pool_size=5000, seed=9)
    meas = sp.measure_criticism([400], [50], 300, population=pop, seed=9)
    scaled = meas.shortfall()[0] * 400
    theory = 4 / np.log(2)
    se = scaled.std(ddof=1) / np.sqrt(scaled.size)
    assert abs(scaled.mean() - theory) < 4 * se + 0.1 * theory
    assert np.all(meas.shortfall() >= -1e-12)  # nothing beats the truth
    noise = ((meas.test_estimate - meas.true_loss) ** 2)[0] * 50
    se = noise.std(ddof=1) / np.sqrt(noise.size)
    assert abs(noise.mean() - pop.loss_sd**2) < 4 * se + 0.05 * pop.loss_sd**2


def test_decomposed_and_raw_estimators_have_the_same_mean():
    # the cross term has mean zero because test rows are fresh: the two estimators of
    # E[(L_hat - R)^2] must agree within the (paired) standard error
    pop = sp.logistic_population(n_features=3, pool_size=5000, seed=10)
    meas = sp.measure_criticism([60], [30], 1500, population=pop, seed=10)
    for ref in ("zero", "ideal"):
        diff = meas.sq_criticism(ref, estimator="raw") - meas.sq_criticism(
            ref, estimator="decomposed"
        )
        se = diff.std(ddof=1) / np.sqrt(diff.size)
        assert abs(diff.mean()) < 4 * se
        # and the decomposed one is the less noisy
        assert meas.sq_criticism(ref).std() <= meas.sq_criticism(ref, estimator="raw").std()


def test_measure_splits_shares_rows_and_orders_cells():
    pop = sp.logistic_population(n_features=2, pool_size=2000, seed=11)
    out = sp.measure_splits(200, [20, 100], 20, population=pop, seed=11)
    assert list(out.m_test) == [20, 100] and list(out.m_train) == [180, 100]
    assert out.test_estimate.shape == (2, 20)
    # more training rows -> smaller average shortfall (by a wide margin at these sizes)
    assert out.shortfall()[0].mean() < out.shortfall()[1].mean()


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: sp.optimal_test_fraction(-1, 79), "c_test"),
        (lambda: sp.optimal_test_fraction(1, -79), "c_train"),
        (lambda: sp.optimal_test_fraction(0, 0), "c_test"),
        (lambda: sp.optimal_test_fraction(float("nan"), 1), "c_test"),
        (lambda: sp.optimal_split(1.6, 79, 1), "rows"),
        (lambda: sp.optimal_split(1.6, 79, 10.5), "rows"),
        (lambda: sp.optimal_split_power(1.6, 79, 100, -1), "train_exponent"),
        (lambda: sp.expected_criticism(0, 10, 1, 1), "m_train"),
        (lambda: sp.expected_criticism(10, -1, 1, 1), "m_test"),
        (lambda: sp.expected_criticism(10, 10, 1, 1, float("inf")), "c0"),
        (lambda: sp.lagrange_multiplier(1, 1, 1), "rows"),
        (lambda: sp.fit_criticism_model([1, 2], [1, 2, 3], [1, 2]), "m_train"),
        (lambda: sp.fit_criticism_model([1, 2, 3], [1, 2, 3], [1, 2, 3]), "sq_criticism"),
        (lambda: sp.fit_criticism_model(M_TRAIN, M_TEST, _truth(), sigma=-_truth()), "sigma"),
        (lambda: sp.fit_criticism_model(M_TRAIN * 0 + 5, M_TEST, _truth()), "m_train"),
        (lambda: sp.fit_criticism_model(M_TRAIN, M_TEST, _truth()).confint(1.5), "level"),
        (
            lambda: sp.fit_criticism_model(M_TRAIN, M_TEST, _truth()).test_fraction_interval(
                method="x"
            ),
            "method",
        ),
        (lambda: sp.logistic_population(pool_size=5), "pool_size"),
        (lambda: sp.logistic_population(mu=0.7), "mu"),
        (lambda: sp.measure_criticism([10], [10], 5), "train_sizes"),
        (lambda: sp.measure_criticism([50], [10], 1), "repeats"),
        (lambda: sp.measure_splits(100, [90], 5), "test_rows"),
        (lambda: sp.fit_logistic_batch(np.zeros((2, 3)), np.zeros(2)), "X"),
        (lambda: sp.fit_logistic_batch(np.zeros((2, 3, 1)), np.full((2, 3), 2.0)), "y"),
    ],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
