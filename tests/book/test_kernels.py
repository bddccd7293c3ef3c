"""Tests of heldout.book.mnist.kernels against libsvm's formulas, scikit-learn, and SVC itself."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
from sklearn.svm import SVC

from heldout.book.mnist import kernels


def _digits(n, seed=0, zero_cols=30):
    """Integer 'images' 0..255: 10 noisy prototypes, some columns zero everywhere."""
    rng = np.random.default_rng(seed)
    protos = rng.integers(0, 256, size=(10, 64))
    y = rng.integers(0, 10, size=n)
    X = np.clip(protos[y] + rng.integers(-90, 91, size=(n, 64)), 0, 255)
    X[:, :zero_cols] = 0
    X[rng.random(X.shape) < 0.3] = 0  # sparse like MNIST
    return X.astype(np.uint8), y


def _libsvm_reference(A, B, kernel, gamma, degree=3):
    """libsvm's kernel, entry by entry: exact integer dot products, then its formula."""
    A = [[int(v) for v in row] for row in np.asarray(A)]
    B = [[int(v) for v in row] for row in np.asarray(B)]
    out = np.empty((len(A), len(B)))
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            dot = sum(u * v for u, v in zip(a, b, strict=True))
            if kernel == "rbf":
                d2 = sum(u * u for u in a) + sum(v * v for v in b) - 2 * dot
                out[i, j] = math.exp(-gamma * float(d2))
            else:  # powi: repeated squaring, as in svm.cpp
                base, ret, t = gamma * float(dot), 1.0, degree
                while t > 0:
                    if t % 2 == 1:
                        ret *= base
                    base *= base
                    t //= 2
                out[i, j] = ret
    return out


def test_gamma_is_scikit_learns_scale():
    X, y = _digits(200)
    fitted = SVC(kernel="rbf").fit(X.astype(float), y)
    assert kernels.svm_gamma(X) == fitted._gamma
    assert kernels.svm_gamma(np.ones((3, 4))) == 1.0  # zero variance: scikit-learn's 1.0
    with pytest.raises(ValueError, match="2-d"):
        kernels.svm_gamma([1.0, 2.0])


def test_poly_kernel_is_bit_identical_to_libsvms_formula():
    X, _ = _digits(40, seed=1)
    gamma = kernels.svm_gamma(X)
    got = kernels.kernel_matrix(X[:25], X, "poly", gamma=gamma, block_rows=7)
    np.testing.assert_array_equal(got, _libsvm_reference(X[:25], X, "poly", gamma))
    for degree in (1, 2, 4, 5, 6, 7):  # even powers square in place, odd ones use a buffer
        got_d = kernels.kernel_matrix(X[:6], X, "poly", gamma=gamma, degree=degree)
        ref_d = _libsvm_reference(X[:6], X, "poly", gamma, degree=degree)
        np.testing.assert_array_equal(got_d, ref_d)


def test_rbf_kernel_within_one_ulp_of_libsvms_formula():
    X, _ = _digits(40, seed=2)
    gamma = kernels.svm_gamma(X)
    got = kernels.kernel_matrix(X[:25], X, "rbf", gamma=gamma, block_rows=4)
    ref = _libsvm_reference(X[:25], X, "rbf", gamma)
    ulps = np.abs(got - ref) / np.spacing(ref)
    assert ulps.max() <= 1.0
    assert np.all(np.diag(got[:, :25]) == 1.0)


def test_agrees_with_scikit_learn_pairwise_kernels_on_real_valued_data():
    rng = np.random.default_rng(3)
    A, B = rng.normal(size=(30, 12)), rng.normal(size=(50, 12))
    g = 0.07
    np.testing.assert_allclose(
        kernels.kernel_matrix(A, B, "rbf", gamma=g), rbf_kernel(A, B, gamma=g), rtol=1e-12
    )
    np.testing.assert_allclose(
        kernels.kernel_matrix(A, B, "poly", gamma=g, coef0=1.5, degree=4),
        polynomial_kernel(A, B, degree=4, gamma=g, coef0=1.5),
        rtol=1e-12,
    )
    # default gamma: svm_gamma of B
    np.testing.assert_allclose(
        kernels.kernel_matrix(A, B), rbf_kernel(A, B, gamma=kernels.svm_gamma(B)), rtol=1e-12
    )


def test_out_argument_and_block_sizes_give_the_same_matrix():
    X, _ = _digits(57, seed=4)
    ref = kernels.kernel_matrix(X, X, "rbf")
    out = np.full((57, 57), np.nan)
    res = kernels.kernel_matrix(X, X, "rbf", block_rows=10, out=out)
    assert res is out
    np.testing.assert_array_equal(out, ref)
    with pytest.raises(ValueError, match="out"):
        kernels.kernel_matrix(X, X, out=np.empty((57, 56)))


@pytest.mark.parametrize("kernel,degree", [("rbf", 3), ("poly", 3), ("poly", 2)])
def test_precomputed_fit_equals_svc(kernel, degree):
    X, y = _digits(600, seed=5)
    Xv, _ = _digits(150, seed=6)
    Xt, _ = _digits(90, seed=7)
    ref = SVC(kernel=kernel, degree=degree).fit(X.astype(float), y)
    (pv, pt), fit_s, pred_s, n_sv = kernels.fit_kernel_svm(
        X, y, [Xv, Xt], kernel, degree=degree, block_rows=64
    )
    np.testing.assert_array_equal(pv, ref.predict(Xv.astype(float)))
    np.testing.assert_array_equal(pt, ref.predict(Xt.astype(float)))
    assert n_sv == ref.support_.size
    assert fit_s > 0 and pred_s > 0
    # the fitted SVM itself is libsvm's: same support vectors and coefficients
    mine = SVC(kernel="precomputed").fit(kernels.kernel_matrix(X, X, kernel, degree=degree), y)
    np.testing.assert_array_equal(mine.support_, ref.support_)
    np.testing.assert_allclose(mine.dual_coef_, ref.dual_coef_, rtol=1e-9, atol=1e-12)
    assert len(set(pv)) > 3  # the data is not trivially one class: the test can fail


@pytest.mark.parametrize("block", [1, 7, 1024])
def test_gram_matrix_is_exact_and_shared_kernels_match(block):
    X, y = _digits(45, seed=9)
    G = kernels.gram_matrix(X, block_rows=block)
    Xi = X.astype(np.int64)
    np.testing.assert_array_equal(G, Xi @ Xi.T)  # exact integer products
    assert G.dtype == np.int32 and kernels.gram_bytes(X) == 45 * 45 * 4
    gamma = kernels.svm_gamma(X)
    for kernel in ("rbf", "poly"):
        np.testing.assert_array_equal(
            kernels.kernel_from_gram(G, kernel, gamma=gamma, block_rows=block),
            kernels.kernel_matrix(X, X, kernel, gamma=gamma),
        )
    # non-integer data: float64, equal to the product up to rounding
    Z = np.random.default_rng(1).normal(size=(30, 5))
    assert kernels.gram_matrix(Z).dtype == np.float64
    np.testing.assert_allclose(kernels.gram_matrix(Z, block_rows=4), Z @ Z.T, rtol=1e-13)
    # the fit through a shared Gram matrix is the fit through its own kernel
    a = kernels.fit_kernel_svm(X, y, [X[:9]], "poly", gram=G)
    b = kernels.fit_kernel_svm(X, y, [X[:9]], "poly")
    np.testing.assert_array_equal(a[0][0], b[0][0])


def test_bad_input():
    X, y = _digits(20)
    with pytest.raises(ValueError, match="kernel"):
        kernels.kernel_matrix(X, X, "sigmoid")
    with pytest.raises(ValueError, match="same number of columns"):
        kernels.kernel_matrix(X, X[:, :10])
    bad = X.astype(float)
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        kernels.kernel_matrix(bad, X)
    with pytest.raises(ValueError, match="gamma"):
        kernels.kernel_matrix(X, X, gamma=0.0)
    with pytest.raises(ValueError, match="degree"):
        kernels.kernel_matrix(X, X, "poly", degree=0)
    with pytest.raises(ValueError, match="one label per row"):
        kernels.fit_kernel_svm(X, y[:5])
    assert kernels.kernel_bytes(33_600, 33_600) == 8 * 33_600**2
    with pytest.raises(ValueError, match="square"):
        kernels.kernel_from_gram(np.ones((3, 4)), gamma=1.0)
    with pytest.raises(ValueError, match="gram must have shape"):
        kernels.fit_kernel_svm(X, y, gram=np.ones((3, 3)))
    with pytest.raises(ValueError, match="finite"):
        kernels.gram_matrix(bad)
    with pytest.raises(ValueError, match="n_rows"):
        kernels.kernel_bytes(-1, 3)


def test_threads_give_the_same_matrices():
    X, y = _digits(300, seed=11)
    G1 = kernels.gram_matrix(X, block_rows=32)
    G2 = kernels.gram_matrix(X, block_rows=32, threads=2)
    np.testing.assert_array_equal(G1, G2)
    gamma = kernels.svm_gamma(X)
    for kernel in ("rbf", "poly"):
        np.testing.assert_array_equal(
            kernels.kernel_from_gram(G1, kernel, gamma=gamma, block_rows=16, threads=3),
            kernels.kernel_matrix(X, X, kernel, gamma=gamma),
        )
        np.testing.assert_array_equal(
            kernels.kernel_matrix(X[:70], X, kernel, block_rows=8, threads=2),
            kernels.kernel_matrix(X[:70], X, kernel),
        )
    a = kernels.fit_kernel_svm(X, y, [X[:40]], "rbf", gram=G1, threads=2)
    b = kernels.fit_kernel_svm(X, y, [X[:40]], "rbf")
    np.testing.assert_array_equal(a[0][0], b[0][0])
    with pytest.raises(ValueError, match="threads"):
        kernels.gram_matrix(X, threads=0)


def test_class_gram_holds_every_pairs_dot_products_exactly():
    X, y = _digits(120, seed=12)
    cg = kernels.class_gram(X, y, block_rows=7, threads=2)
    Xi = X.astype(np.int64)
    k = cg.classes.size
    assert list(cg.classes) == sorted(set(y))
    assert len(cg.blocks) == k * (k + 1) // 2  # upper blocks only
    for (a, b), block in cg.blocks.items():
        ma, mb = cg.members[a], cg.members[b]
        assert np.all(y[ma] == cg.classes[a]) and np.all(np.diff(ma) > 0)
        np.testing.assert_array_equal(block, Xi[ma] @ Xi[mb].T)
    assert cg.nbytes == kernels.class_gram_bytes(y)
    np.testing.assert_array_equal(cg.sq, np.einsum("ij,ij->i", Xi, Xi))
    with pytest.raises(ValueError, match="one label per row"):
        kernels.class_gram(X, y[:-1])


def test_finite_kernel_bound_decides_whether_scikit_learn_checks():
    X, _ = _digits(50, seed=14)
    sq = np.einsum("ij,ij->i", X.astype(float), X.astype(float))
    gamma = kernels.svm_gamma(X)
    K = kernels.kernel_matrix(X, X, "poly", gamma=gamma, degree=3)
    bound = (gamma * sq.max()) ** 3
    assert np.abs(K).max() <= bound and kernels._kernel_is_finite("poly", gamma, 3, sq)
    assert kernels._kernel_is_finite("rbf", 1e300, 3, np.array([1e300]))  # exp(-x) <= 1
    assert not kernels._kernel_is_finite("poly", 1.0, 3, np.array([1e200]))  # overflows
    assert not kernels._kernel_is_finite("poly", 1.0, 2, np.array([1e155, 1.0]))


def test_class_gram_sums_exact_float32_products_of_column_groups():
    """Integers up to 1,000 in 64 columns: one float32 product rounds, column groups do not."""
    rng = np.random.default_rng(13)
    X = rng.integers(0, 1001, size=(90, 64))
    y = rng.integers(0, 3, size=90)
    groups = kernels._float32_groups(64, X.astype(float))
    assert len(groups) >= 2  # one group would not be exact: its norms pass 2^12
    for g in groups:  # Cauchy-Schwarz: every partial sum below 2^24
        assert np.sum(X[:, g].astype(float) ** 2, axis=1).max() < 2**24
    cg = kernels.class_gram(X, y, block_rows=16)
    for (a, b), block in cg.blocks.items():
        assert block.dtype == np.int32
        ma, mb = cg.members[a], cg.members[b]
        np.testing.assert_array_equal(block, X[ma] @ X[mb].T)
    # the sums this avoids: float32 rounds some dot products of these rows
    whole = X.astype(np.float32) @ X.T.astype(np.float32)
    assert np.any(whole.astype(np.int64) != X @ X.T)
    # the kernels' products against other rows too (scored digits against the training ones)
    Z = rng.integers(0, 1001, size=(20, 64))
    got = kernels.kernel_matrix(Z, X, "poly", gamma=1e-7, degree=1, block_rows=8)
    np.testing.assert_array_equal(got, 1e-7 * (Z @ X.T).astype(float))
    assert kernels._float32_groups(64, X + 0.5) is None  # not integers
    assert kernels._float32_groups(2, np.full((2, 2), 5000.0)) is None  # 5000^2 > 2^24


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_pairwise_fit_equals_svc_whatever_the_dot_products_threads_and_chunks(kernel, monkeypatch):
    X, y = _digits(400, seed=13)
    Xv, _ = _digits(200, seed=14)
    ref = SVC(kernel=kernel).fit(X.astype(float), y).predict(Xv.astype(float))
    monkeypatch.setattr(kernels, "PREDICT_ROWS", 64)  # scored in four chunks of 64
    runs = [
        kernels.fit_kernel_svm(X, y, [Xv], kernel),  # each pair's own dot products
        kernels.fit_kernel_svm(X, y, [Xv], kernel, gram=kernels.class_gram(X, y), threads=3),
        kernels.fit_kernel_svm(X, y, [Xv], kernel, gram=kernels.gram_matrix(X), block_rows=5),
    ]
    for (pv,), _, _, n_sv in runs:
        np.testing.assert_array_equal(pv, ref)
        assert n_sv == runs[0][3]
    assert len(set(ref)) > 3


def test_pair_kernel_bytes():
    y = np.repeat([0, 1, 2], [5, 3, 2])
    assert kernels.pair_kernel_bytes(y, threads=3) == 3 * 8 * 8 * 8
    assert kernels.class_gram_bytes(y) == 4 * (25 + 15 + 10 + 9 + 6 + 4)
