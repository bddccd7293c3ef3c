"""libsvm's kernel matrices computed with BLAS, and kernel SVMs fitted on them.

scikit-learn's ``SVC`` hands its data to libsvm :cite:`chang2011libsvm`, which works out
every kernel value it needs on its own, one dot product of two 784-pixel digits at a
time, on one thread, and keeps only the most recent columns (200 MB by default).  On
33,600 MNIST digits that is most of the minute or two each kernel SVM takes.

The same numbers come out of one matrix product.  For the two kernels of the
article :cite:`validation_size`, with :math:`\\gamma` scikit-learn's
``gamma="scale"`` (:func:`svm_gamma`):

.. math::

   K_{\\text{rbf}}(x, z) = \\exp\\!\\bigl(-\\gamma\\,(\\lVert x\\rVert^2 + \\lVert z\\rVert^2
   - 2\\,x\\cdot z)\\bigr), \\qquad
   K_{\\text{poly}}(x, z) = (\\gamma\\, x\\cdot z + c_0)^d ,

and all the dot products :math:`x_i\\cdot x_j` are one product :math:`X X^\\top`, which
BLAS computes at close to the machine's peak.  :func:`kernel_matrix` builds the matrix
in blocks of rows, applying the kernel to each block while it is fresh, with the
operations in libsvm's order: the powers by repeated squaring as libsvm's ``powi``
does, the RBF exponent as ``-gamma * (sum of squares - 2 * dot)``.

**Exactness.**  MNIST pixels are integers 0..255, so every dot product and squared
norm is an integer below :math:`2^{53}` and floating-point sums of them are exact in
any order: BLAS's dot products equal libsvm's bit for bit.  The polynomial kernel is
then identical (same multiplications in the same order); the RBF kernel can differ
only where NumPy's ``exp`` and the C library's ``exp`` round differently, by one unit
in the last place.  The fitted SVMs give the same predictions as ``SVC(kernel=...)``
(checked in the tests and on the full data by ``benchmarks/bench_mnist.py``).  For
non-integer data the kernels agree to rounding error.

The products themselves run in single precision where that is exact too: float32 holds
integers up to :math:`2^{24}`, and on a group of columns every partial sum of a dot
product is at most the product of the two rows' norms on that group (Cauchy-Schwarz).
The columns are cut into the fewest groups on which the largest norms allow it
(:func:`_float32_groups`: two halves for MNIST, whose brightest digits' squared norms
pass :math:`2^{24}` but whose halves' do not), each group is one float32 product, and
the products are added in float64 or int32, exactly.  At 42,000 digits on one thread
this cut the shared dot products from 17.5 to 12.8 s of CPU (issue 42's second pass).

Columns that are zero in every row of ``B`` are dropped before the product (they add
exact zeros to every dot product); on MNIST that is about 80 of the 784 pixels.

Memory.  The training kernel of all the digits would be an ``n x n`` matrix of float64,
9 GB for 33,600 digits (:func:`kernel_bytes`), more than a laptop has.  libsvm never
needs it whole: a multi-class ``SVC`` is one binary SVM per pair of classes, each on
the rows of its two classes.  :func:`fit_kernel_svm` fits those binary SVMs one pair
at a time, each on its own kernel matrix (about 0.36 GB for two MNIST digits), and
counts their votes as libsvm does; the dot products of every pair come from one set of
class blocks (:func:`class_gram`: int32 for MNIST, about 2.5 GB, shared by both
kernels).  The experiment of :mod:`heldout.book.mnist.models` falls back to libsvm's own
kernel when the machine has too little free memory even for that.

One practical note.  NumPy computes ``A @ A.T`` with the BLAS routine ``syrk``; the
OpenBLAS 0.3.31 bundled with NumPy crashed (segmentation fault) on that call for 20,000
rows or more with two threads on our machine, so :func:`kernel_matrix` always
multiplies by a separate transposed copy (``gemm``).
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

import numpy as np

from heldout._checks import as_count, as_positive

KERNELS = ("rbf", "poly")

#: Rows scored at a time by :func:`fit_kernel_svm` (their kernel against the support vectors).
PREDICT_ROWS = 1024

#: Bytes of float64 per block when a kernel matrix is made from a Gram matrix: a block and
#: the one temporary of the kernel's passes fit in a 1 MB level-2 cache (the reference
#: machine's; 2 MB on the Xeon of issue 42's second pass, where 512 KB blocks filled the
#: pair kernels 23-27% faster than 2 MB blocks: one pair of classes at 16,800 digits under
#: a load of 8; same values).
BLOCK_BYTES = 2**19


def cache_rows(n_cols: int) -> int:
    """Rows of ``n_cols`` float64 values that make a block of about :data:`BLOCK_BYTES`.

    Examples
    --------
    >>> cache_rows(6_720), cache_rows(10)
    (9, 6553)
    """
    n_cols = int(as_count(n_cols, "n_cols", minimum=1))
    return max(1, BLOCK_BYTES // (8 * n_cols))


def svm_gamma(X) -> float:
    """scikit-learn's ``gamma="scale"``: :math:`1 / (p \\cdot \\operatorname{Var}(X))`.

    ``p`` is the number of columns and the variance is that of all entries of ``X``
    taken together (``X.var()`` on the float64 array, as ``SVC.fit`` computes it);
    1.0 when that variance is 0.

    Examples
    --------
    >>> svm_gamma([[0, 2], [2, 0]])
    0.5
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.size == 0:
        raise ValueError(f"X must be a non-empty 2-d array (rows x features), got shape {X.shape}")
    var = X.var()
    return float(1.0 / (X.shape[1] * var)) if var != 0 else 1.0


def kernel_bytes(n_rows: int, n_cols: int) -> int:
    """Bytes of an ``n_rows x n_cols`` float64 kernel matrix (``8 * n_rows * n_cols``)."""
    return 8 * int(as_count(n_rows, "n_rows")) * int(as_count(n_cols, "n_cols"))


def _powi(base: np.ndarray, times: int) -> np.ndarray:
    """``base ** times`` by repeated squaring, in libsvm's order (``powi`` in svm.cpp)."""
    out = np.array(base, dtype=np.float64)
    _powi_inplace(out, times)
    return out


def _powi_inplace(x: np.ndarray, times: int) -> None:
    """``x **= times`` in place, with libsvm's ``powi`` operations and roundings.

    libsvm starts from ``ret = 1`` and ``tmp = x``; for each bit of ``times``, lowest
    first, ``ret *= tmp`` when the bit is set, then ``tmp *= tmp``.  Here ``x`` holds
    ``tmp`` while ``ret`` is still 1 (squared in place, no copy), then ``ret``: its first
    multiplication, by 1, is exact and needs no operation; the later powers of ``tmp``
    go to one buffer, and the last squaring, whose result is never used, is skipped.
    Every other product is libsvm's, so the values are identical to its.  For the cubic
    kernel that is two passes over ``x`` (``x * x`` into the buffer, then ``x *= buffer``).
    """
    t = int(times)
    if t <= 0:
        x[...] = 1.0
        return
    while t % 2 == 0:  # ret is still 1: tmp squared in place
        np.multiply(x, x, out=x)
        t //= 2
    t //= 2  # the lowest set bit: ret = 1 * tmp, which x already holds
    if t == 0:
        return
    tmp = np.multiply(x, x)
    while True:
        if t % 2 == 1:
            x *= tmp
        t //= 2
        if t == 0:
            return
        tmp *= tmp


def kernel_matrix(
    A,
    B,
    kernel: str = "rbf",
    *,
    gamma: float | None = None,
    degree: int = 3,
    coef0: float = 0.0,
    block_rows: int = 1024,
    out: np.ndarray | None = None,
    threads: int = 1,
) -> np.ndarray:
    """Kernel values between the rows of ``A`` and the rows of ``B``, as libsvm computes them.

    .. math::

       K_{ij} = \\exp(-\\gamma(\\lVert a_i\\rVert^2 + \\lVert b_j\\rVert^2 - 2 a_i\\cdot b_j))
       \\quad\\text{(rbf)}, \\qquad
       K_{ij} = (\\gamma\\, a_i\\cdot b_j + c_0)^d \\quad\\text{(poly)}

    (libsvm's definitions :cite:`chang2011libsvm`), with all dot products from one
    BLAS matrix product, computed ``block_rows`` rows at a time (for integer data, one
    exact float32 product per group of columns, see :func:`_float32_groups`).

    Parameters
    ----------
    A : array_like, shape (m, p)
    B : array_like, shape (n, p)
    kernel : {"rbf", "poly"}
    gamma : float, optional
        Default: :func:`svm_gamma` of ``B`` (scikit-learn's ``gamma="scale"`` when
        ``B`` is the training set).
    degree : int
        Degree of the polynomial kernel (default 3).
    coef0 : float
        Constant of the polynomial kernel (default 0, as scikit-learn's).
    block_rows : int
        Rows of ``A`` per matrix product (memory of the temporaries: a few blocks).
    out : ndarray of float64, shape (m, n), optional
        Where to write the result (for example a preallocated matrix).
    threads : int
        Blocks computed side by side by this many threads, each with single-threaded
        BLAS (see :func:`blocks_in_threads`); the values do not depend on it.

    Returns
    -------
    ndarray of float64, shape (m, n)

    Examples
    --------
    >>> A = [[1, 0], [0, 2]]
    >>> kernel_matrix(A, A, "poly", gamma=0.5, degree=2).tolist()
    [[0.25, 0.0], [0.0, 4.0]]
    """
    degree, block_rows = _kernel_args(kernel, degree, block_rows)
    threads = _threads_arg(threads)
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError(
            f"A and B must be 2-d with the same number of columns, got shapes {A.shape} and {B.shape}"
        )
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(B))):
        raise ValueError("A and B must hold finite numbers (no NaN or infinity)")
    gamma = svm_gamma(B) if gamma is None else float(as_positive(gamma, "gamma"))
    cols = np.flatnonzero(B.any(axis=0))  # zero in every row of B: adds exact zeros
    Bt = np.ascontiguousarray(B[:, cols].T)  # a separate copy: gemm, never syrk
    Ac = A[:, cols]
    if kernel == "rbf":
        sq_a = np.einsum("ij,ij->i", A, A)
        sq_b = np.einsum("ij,ij->i", B, B)
    else:
        sq_a = sq_b = None

    groups = _float32_groups(cols.size, Ac, B[:, cols])
    if groups is None:

        def dots(rows, blk):
            np.matmul(Ac[rows], Bt, out=blk)

    else:  # integers: exact float32 products of column groups, added in float64 (exact)
        a32 = [np.ascontiguousarray(Ac[:, g], dtype=np.float32) for g in groups]
        b32 = [np.ascontiguousarray(Bt[g], dtype=np.float32) for g in groups]

        def dots(rows, blk):
            prods = [a[rows] @ b for a, b in zip(a32, b32, strict=True)]
            if len(prods) == 1:
                blk[...] = prods[0]
                return
            np.add(prods[0], prods[1], out=blk, dtype=np.float64)
            for p in prods[2:]:
                blk += p

    shape = (A.shape[0], B.shape[0])
    return _fill_kernel(
        shape, out, block_rows, dots, kernel, gamma, degree, coef0, sq_a, sq_b, threads
    )


def _kernel_args(kernel: str, degree, block_rows) -> tuple[int, int]:
    """Check the arguments every kernel function shares; return ``(degree, block_rows)``."""
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(KERNELS)}, got {kernel!r}")
    return (
        int(as_count(degree, "degree", minimum=1)),
        int(as_count(block_rows, "block_rows", minimum=1)),
    )


def _threads_arg(threads) -> int:
    return int(as_count(threads, "threads", minimum=1))


def blocks_in_threads(work, blocks, threads: int = 1) -> None:
    """Call ``work(block)`` for every block, on ``threads`` threads side by side.

    With more than one thread, BLAS is limited to one thread per call for the
    duration (through threadpoolctl; the limit is process-wide), so that the threads
    do not each start a full set of BLAS threads.  numpy releases the interpreter
    lock in matrix products and in element-wise operations on large arrays, so the
    blocks do run in parallel.  The blocks must write to disjoint memory; the results
    are then the same whatever the thread count.  Blocks are handed out in the order
    given, so list the expensive ones first.

    Examples
    --------
    >>> out = np.zeros(6)
    >>> def work(i):
    ...     out[i] = i * i
    >>> blocks_in_threads(work, range(6), threads=2)
    >>> out.tolist()
    [0.0, 1.0, 4.0, 9.0, 16.0, 25.0]
    """
    threads = _threads_arg(threads)
    blocks = list(blocks)
    if threads == 1 or len(blocks) <= 1:
        for b in blocks:
            work(b)
        return
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    with (
        threadpool_limits(limits=1, user_api="blas"),
        ThreadPoolExecutor(max_workers=threads, thread_name_prefix="heldout-block") as pool,
    ):
        for fut in [pool.submit(work, b) for b in blocks]:
            fut.result()


def _fill_kernel(shape, out, block_rows, dots, kernel, gamma, degree, coef0, sq_a, sq_b, threads=1):
    """Fill ``out`` (allocated when None) ``block_rows`` rows at a time.

    ``dots(rows, blk)`` writes the dot products of those rows into ``blk``; the kernel
    is then applied to the block in place, while it is fresh in the cache.  Blocks go
    to ``threads`` threads (:func:`blocks_in_threads`).
    """
    if out is None:
        out = np.empty(shape)
    elif out.shape != shape or out.dtype != np.float64 or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous float64 array of shape {shape}")

    def work(start):
        rows = slice(start, min(start + block_rows, shape[0]))
        blk = out[rows]
        dots(rows, blk)
        _apply_kernel(blk, kernel, gamma, degree, coef0, sq_a, sq_b, rows)

    blocks_in_threads(work, range(0, shape[0], block_rows), threads)
    return out


def _apply_kernel(blk, kernel, gamma, degree, coef0, sq_a, sq_b, rows):
    """Turn a block of dot products into kernel values in place, in libsvm's order."""
    if kernel == "rbf":
        blk *= -2.0
        blk += sq_a[rows, None]
        blk += sq_b[None, :]
        blk *= -gamma
        np.exp(blk, out=blk)
    else:
        blk *= gamma
        if coef0 != 0.0:
            blk += coef0
        _powi_inplace(blk, degree)


def _gram_dtype(X: np.ndarray) -> np.dtype:
    """Smallest dtype holding every dot product of the rows of ``X`` exactly."""
    if X.size == 0 or not np.array_equal(X, np.rint(X)):
        return np.dtype(np.float64)
    bound = float(np.abs(X).max()) ** 2 * X.shape[1]
    if bound < 2**31:
        return np.dtype(np.int32)
    return np.dtype(np.int64) if bound < 2**53 else np.dtype(np.float64)


def _group_max_sq(A: np.ndarray, starts: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """Largest squared norm of any row of ``A`` within each group of columns (from ``starts``)."""
    out = np.zeros(starts.size)
    for r0 in range(0, A.shape[0], chunk):
        sq = np.square(A[r0 : r0 + chunk], dtype=np.float64)
        np.maximum(out, np.add.reduceat(sq, starts, axis=1).max(axis=0), out=out)
    return out


def _float32_groups(ncols: int, A: np.ndarray, B: np.ndarray | None = None):
    """Column groups in which float32 dot products of rows of ``A`` and ``B`` are exact, or None.

    For integer data, a dot product restricted to a group :math:`g` of columns, and any
    partial sum of it in any order, is an integer of magnitude at most
    :math:`\\sum_{i \\in g} |a_i b_i| \\le \\lVert a_g\\rVert \\lVert b_g\\rVert`
    (Cauchy-Schwarz); when the largest row norms of the two sets on the group multiply to
    less than :math:`2^{24}`, float32 holds every such sum exactly.  The fewest groups of
    consecutive columns (``numpy.array_split``) for which this holds on every group are
    returned: two for MNIST (the brightest digits' squared norms pass :math:`2^{24}`,
    their halves do not).  None when the data are not integers or a single column
    would not be exact.  ``B`` defaults to ``A``.
    """
    arrays = (A,) if B is None else (A, B)
    if ncols == 0 or any(X.size == 0 or not np.array_equal(X, np.rint(X)) for X in arrays):
        return None
    for k in range(1, ncols + 1):
        groups = np.array_split(np.arange(ncols), k)
        starts = np.array([g[0] for g in groups])
        top = [_group_max_sq(X, starts) for X in arrays]
        if np.all(top[0] * top[-1] < 2.0**48):  # norms' product below 2^24
            return groups
        if k >= 8:  # beyond a few groups float64 is as fast
            return None
    return None


def gram_bytes(X) -> int:
    """Bytes of :func:`gram_matrix` of ``X`` (4 per entry for MNIST pixels: int32)."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-d (rows x features), got shape {X.shape}")
    return X.shape[0] ** 2 * _gram_dtype(X).itemsize


def gram_matrix(X, *, block_rows: int = 1024, threads: int = 1) -> np.ndarray:
    """All dot products :math:`G = X X^\\top` of the rows of ``X``, exact for integer data.

    Computed in blocks of rows from the upper triangle only (half the work of the full
    product), the lower triangle copied across.  Integer data whose dot products fit
    in 31 bits (MNIST: at most :math:`784 \\cdot 255^2`) is stored as int32, half the
    memory of float64; every entry is exact.  Other data: int64 or float64.
    ``threads`` threads compute the blocks side by side (:func:`blocks_in_threads`);
    the matrix does not depend on it.

    Returns
    -------
    ndarray, shape (n, n)

    Examples
    --------
    >>> gram_matrix([[1, 2], [3, 4], [0, 1]]).tolist()
    [[5, 11, 2], [11, 25, 4], [2, 4, 1]]
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty 2-d array, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must hold finite numbers (no NaN or infinity)")
    block_rows = int(as_count(block_rows, "block_rows", minimum=1))
    threads = _threads_arg(threads)
    n = X.shape[0]
    cols = np.flatnonzero(X.any(axis=0))
    Xc = np.ascontiguousarray(X[:, cols])
    XcT = np.ascontiguousarray(Xc.T)  # a separate copy: gemm, never syrk
    G = np.empty((n, n), dtype=_gram_dtype(X))
    starts = range(0, n, block_rows)  # the first blocks hold the most work

    def upper(r0):
        r1 = min(r0 + block_rows, n)
        G[r0:r1, r0:] = Xc[r0:r1] @ XcT[:, r0:]  # exact integers: the cast loses nothing

    def lower(r0):
        r1 = min(r0 + block_rows, n)
        G[r0:r1, :r0] = G[:r0, r0:r1].T

    blocks_in_threads(upper, starts, threads)
    blocks_in_threads(lower, reversed(starts), threads)
    return G


def kernel_from_gram(
    G,
    kernel: str = "rbf",
    *,
    gamma: float,
    degree: int = 3,
    coef0: float = 0.0,
    block_rows: int | None = None,
    out: np.ndarray | None = None,
    threads: int = 1,
) -> np.ndarray:
    """The square kernel matrix of a training set from its Gram matrix (:func:`gram_matrix`).

    Same values as ``kernel_matrix(X, X, ...)``: the squared norms are the diagonal
    of ``G``.  One Gram matrix serves several kernels; ``threads`` as in
    :func:`kernel_matrix`.  The default ``block_rows`` keeps a block at about
    :data:`BLOCK_BYTES` of float64, so that the few element-wise passes of the kernel
    run in the processor's cache rather than in memory (several times faster for the
    polynomial kernel on MNIST than blocks of 1,024 rows).

    Examples
    --------
    >>> X = [[1, 0], [0, 2]]
    >>> bool(np.array_equal(kernel_from_gram(gram_matrix(X), "rbf", gamma=0.5),
    ...                     kernel_matrix(X, X, "rbf", gamma=0.5)))
    True
    """
    G = np.asarray(G)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"G must be a square matrix, got shape {G.shape}")
    if block_rows is None:
        block_rows = cache_rows(G.shape[1])
    degree, block_rows = _kernel_args(kernel, degree, block_rows)
    threads = _threads_arg(threads)
    gamma = float(as_positive(gamma, "gamma"))
    sq = np.diagonal(G).astype(np.float64)

    def dots(rows, blk):
        blk[...] = G[rows]

    return _fill_kernel(
        G.shape, out, block_rows, dots, kernel, gamma, degree, coef0, sq, sq, threads
    )


@dataclass(frozen=True)
class ClassGram:
    """The dot products of a training set, grouped by class: what one-vs-one SVMs read.

    libsvm fits a multi-class SVM as one binary SVM per pair of classes, each on the
    rows of its two classes only; the dot products of rows of classes ``a`` and ``b``
    are ``blocks[(a, b)]`` (``a <= b``, rows of ``a`` by rows of ``b``, each class's
    rows in their order in the data).  The blocks with ``a > b`` are transposes and
    are not stored, so this takes about half the memory of :func:`gram_matrix`
    (MNIST: int32, 2.5 GB for 33,600 digits instead of 4.5 GB).

    Attributes
    ----------
    classes : ndarray
        The sorted labels.
    members : tuple of ndarray
        Row indices of each class, ascending.
    blocks : dict
        ``(a, b) -> ndarray`` of shape ``(len(members[a]), len(members[b]))``, ``a <= b``
        (class positions in ``classes``).
    sq : ndarray of float64
        Squared norm of every row (the diagonal of the full Gram matrix).
    """

    classes: np.ndarray
    members: tuple
    blocks: dict
    sq: np.ndarray

    @property
    def nbytes(self) -> int:
        """Bytes of the stored blocks."""
        return sum(b.nbytes for b in self.blocks.values())

    def pair_dots(self, a: int, b: int):
        """``dots(rows, blk)`` for :func:`_fill_kernel`: rows of classes ``a`` then ``b``."""
        n_a = self.members[a].size
        g_aa, g_ab, g_bb = self.blocks[(a, a)], self.blocks[(a, b)], self.blocks[(b, b)]

        def dots(rows, blk):
            r0, r1 = rows.start, rows.stop
            i = 0
            if r0 < n_a:  # rows of class a: [G_aa | G_ab]
                top = min(r1, n_a)
                blk[: top - r0, :n_a] = g_aa[r0:top]
                blk[: top - r0, n_a:] = g_ab[r0:top]
                i = top - r0
            if r1 > n_a:  # rows of class b: [G_ab^T | G_bb]
                lo = max(r0, n_a) - n_a
                hi = r1 - n_a
                blk[i:, :n_a] = g_ab[:, lo:hi].T
                blk[i:, n_a:] = g_bb[lo:hi]

        return dots


def _class_members(y) -> tuple[np.ndarray, tuple]:
    classes, inverse = np.unique(np.asarray(y), return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.cumsum(np.bincount(inverse, minlength=classes.size))[:-1]
    return classes, tuple(np.split(order, bounds))


def class_gram(X, y, *, block_rows: int = 1024, threads: int = 1) -> ClassGram:
    """:class:`ClassGram` of ``X`` grouped by the labels ``y``: every dot product one-vs-one needs.

    The blocks of each pair of classes (and of each class with itself) are computed
    with BLAS in blocks of rows, on ``threads`` threads (:func:`blocks_in_threads`);
    integer data is stored exactly in the smallest integer type that holds every dot
    product (as :func:`gram_matrix`), so each entry equals the full Gram matrix's.
    Integer data whose dot products fit in int32 are multiplied in float32, one
    product per group of columns small enough for every sum to be exact
    (:func:`_float32_groups`), and the groups' products added as integers.

    Examples
    --------
    >>> cg = class_gram([[1, 2], [3, 4], [0, 1]], [1, 0, 1])
    >>> cg.blocks[(0, 1)].tolist(), cg.blocks[(1, 1)].tolist()
    ([[11, 4]], [[5, 2], [2, 1]])
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty 2-d array, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must hold finite numbers (no NaN or infinity)")
    if np.shape(y) != (X.shape[0],):
        raise ValueError(f"y must hold one label per row of X, got shape {np.shape(y)}")
    block_rows = int(as_count(block_rows, "block_rows", minimum=1))
    threads = _threads_arg(threads)
    classes, members = _class_members(y)
    dtype = _gram_dtype(X)
    cols = np.flatnonzero(X.any(axis=0))
    groups = _float32_groups(cols.size, X[:, cols]) if dtype == np.int32 else None
    k = classes.size
    if groups is None:  # one float64 product per block
        parts = [[np.ascontiguousarray(X[np.ix_(m, cols)])] for m in members]
    else:  # integers: one exact float32 product per group of columns, summed as int32
        parts = [
            [np.ascontiguousarray(X[np.ix_(m, cols[g])], dtype=np.float32) for g in groups]
            for m in members
        ]
    parts_t = [[np.ascontiguousarray(p.T) for p in ps] for ps in parts]  # gemm, never syrk
    blocks = {
        (a, b): np.empty((members[a].size, members[b].size), dtype=dtype)
        for a in range(k)
        for b in range(a, k)
    }

    def work(task):
        a, b, r0 = task
        r1 = min(r0 + block_rows, members[a].size)
        out = blocks[(a, b)][r0:r1]
        # exact integers: no loss in the casts
        prods = [pa[r0:r1] @ pb for pa, pb in zip(parts[a], parts_t[b], strict=True)]
        if len(prods) == 1:
            out[...] = prods[0]
            return
        np.add(prods[0], prods[1], out=out, dtype=np.float64, casting="unsafe")
        for p in prods[2:]:
            np.add(out, p, out=out, dtype=np.float64, casting="unsafe")

    tasks = [(a, b, r0) for (a, b) in blocks for r0 in range(0, members[a].size, block_rows)]
    blocks_in_threads(work, tasks, threads)
    sq = np.einsum("ij,ij->i", X, X)
    return ClassGram(classes=classes, members=members, blocks=blocks, sq=sq)


def class_gram_bytes(y, itemsize: int = 4) -> int:
    """Bytes of :func:`class_gram` for labels ``y`` (``itemsize`` 4 for MNIST pixels: int32).

    Examples
    --------
    >>> class_gram_bytes([0, 0, 1])  # blocks (0, 0), (0, 1), (1, 1): 4 + 2 + 1 entries
    28
    """
    counts = np.unique(np.asarray(y), return_counts=True)[1].astype(np.int64)
    return int(itemsize * (counts.sum() ** 2 + np.sum(counts**2)) // 2)


def pair_kernel_bytes(y, threads: int = 1) -> int:
    """Bytes of the pair kernel matrices :func:`fit_kernel_svm` holds at once on ``threads`` threads.

    One float64 matrix per thread, of the largest pair of classes (a generous bound).

    Examples
    --------
    >>> pair_kernel_bytes([0, 0, 1, 2], threads=2)  # the largest pair has 3 rows
    144
    """
    counts = np.sort(np.unique(np.asarray(y), return_counts=True)[1].astype(np.int64))
    top = int(counts[-2:].sum())
    return 8 * top * top * int(_threads_arg(threads))


def _as_class_gram(gram, X, y) -> ClassGram:
    """A :class:`ClassGram` from a full Gram matrix of ``X`` (:func:`gram_matrix`)."""
    if np.shape(gram) != (X.shape[0], X.shape[0]):
        raise ValueError(f"gram must have shape {(X.shape[0], X.shape[0])}, got {np.shape(gram)}")
    G = np.asarray(gram)
    classes, members = _class_members(y)
    k = classes.size
    blocks = {(a, b): G[np.ix_(members[a], members[b])] for a in range(k) for b in range(a, k)}
    return ClassGram(classes, members, blocks, np.diagonal(G).astype(np.float64))


def _kernel_is_finite(kernel: str, gamma: float, degree: int, sq: np.ndarray) -> bool:
    """Whether every kernel value of rows with squared norms ``sq`` is finite, from a bound.

    RBF values lie in [0, 1].  A polynomial value (``coef0`` = 0) is at most
    :math:`(\\gamma \\max_i \\lVert x_i\\rVert^2)^d` in magnitude (Cauchy-Schwarz).
    """
    if kernel == "rbf":
        return True
    try:
        return math.isfinite((gamma * float(np.max(sq, initial=0.0))) ** degree)
    except OverflowError:
        return False


def fit_kernel_svm(
    X,
    y,
    predict_sets=(),
    kernel: str = "rbf",
    *,
    degree: int = 3,
    C: float = 1.0,
    block_rows: int | None = None,
    gram: ClassGram | np.ndarray | None = None,
    threads: int = 1,
):
    """Fit ``SVC(kernel=kernel, gamma="scale")`` one pair of classes at a time, on BLAS-built kernels.

    libsvm fits a multi-class ``SVC`` as one binary SVM per pair of classes, each
    trained on the rows of its two classes only (the rows of the first class in their
    order, then those of the second), and predicts by their votes: a pair's vote goes
    to its first class when its decision value is positive, and the class with most
    votes wins, ties going to the first class :cite:`chang2011libsvm`.  This function
    does the same steps itself: for each pair it builds the pair's kernel matrix from
    the dot products (:class:`ClassGram`), fits ``SVC(kernel="precomputed", C=C)`` on
    it (the same binary problem, solved by the same libsvm code, so the same
    coefficients), frees it, and counts the votes of the binary predictions.  Only one
    pair's kernel is held per thread (MNIST: about 0.36 GB for two digits of 33,600
    training digits, where the whole kernel matrix takes 9 GB).  The pairs are fitted
    and scored on ``threads`` threads side by side (libsvm releases the interpreter
    lock); the predictions do not depend on it.

    Parameters
    ----------
    X : array_like, shape (n, p)
        Training rows.
    y : array_like, shape (n,)
        Training labels.
    predict_sets : sequence of array_like, each of shape (m_k, p)
        Rows to predict.
    kernel : {"rbf", "poly"}
    degree : int
        Degree of the polynomial kernel.
    C : float
        Regularisation (scikit-learn's default 1.0).
    block_rows : int, optional
        Rows per block of the kernel matrices (default: 1,024 where they come from a
        matrix product, and :func:`cache_rows` where they come from the dot products).
    gram : ClassGram or ndarray, optional
        :func:`class_gram` of ``(X, y)`` (or the full :func:`gram_matrix` of ``X``), to
        share the dot products between several kernels.  When None, each pair's dot
        products are computed when the pair is fitted (with BLAS, from its rows), so that
        nothing but the pairs' kernels is held.
    threads : int
        Threads for the dot products, the pairs' fits and the predictions.

    Returns
    -------
    predictions : list of ndarray
        One per array of ``predict_sets``.
    fit_seconds, predict_seconds : float
        Wall times, kernel matrices included.
    n_support : int
        Number of support vectors (rows that are one in at least one pair).
    """
    from concurrent.futures import ThreadPoolExecutor

    from sklearn import config_context
    from sklearn.svm import SVC

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(
            f"X must be 2-d and y hold one label per row, got shapes {X.shape} and {y.shape}"
        )
    threads = _threads_arg(threads)
    gamma = svm_gamma(X)
    degree, _ = _kernel_args(kernel, degree, 1)
    rows = 1024 if block_rows is None else block_rows  # matrix products: big blocks
    t0 = time.perf_counter()
    if gram is None:  # each pair's dot products when it is fitted: no more memory than its kernel
        classes, members = _class_members(y)
        cg = ClassGram(classes, members, {}, np.einsum("ij,ij->i", X, X))
    elif isinstance(gram, ClassGram):
        cg = gram
    else:
        cg = _as_class_gram(gram, X, y)
    k = cg.classes.size
    if k < 2:
        raise ValueError("y must hold at least two classes")
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]

    sizes = [m.size for m in cg.members]
    largest = max(sizes[a] + sizes[b] for a, b in pairs)
    finite = _kernel_is_finite(kernel, gamma, degree, cg.sq)
    held = threading.local()  # one kernel buffer per thread (freed when the pool ends)

    def fit_pair(pair):
        a, b = pair
        n_a, n_b = sizes[a], sizes[b]
        n = n_a + n_b
        if getattr(held, "buf", None) is None:
            held.buf = np.empty(largest * largest)
        out = held.buf[: n * n].reshape(n, n)
        if cg.blocks:
            sq = np.concatenate([cg.sq[cg.members[a]], cg.sq[cg.members[b]]])
            cache = cache_rows(n) if block_rows is None else block_rows
            dots = cg.pair_dots(a, b)
            K = _fill_kernel((n, n), out, cache, dots, kernel, gamma, degree, 0.0, sq, sq)
        else:
            Xp = X[np.concatenate([cg.members[a], cg.members[b]])]
            K = kernel_matrix(Xp, Xp, kernel, gamma=gamma, degree=degree, block_rows=rows, out=out)
        labels = np.repeat([0, 1], [n_a, n_b])
        # a kernel known to be finite skips scikit-learn's check, a pass over the whole
        # pair's matrix (0.04 s per pair of MNIST digits)
        with config_context(assume_finite=finite):
            return SVC(kernel="precomputed", C=C, random_state=0).fit(K, labels)

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="heldout-pair") as pool:
        fitted = list(pool.map(fit_pair, pairs))  # a fit keeps no reference to its kernel
    # support vectors of each pair, as rows of X
    sv_rows = [
        np.concatenate([cg.members[a], cg.members[b]])[m.support_]
        for (a, b), m in zip(pairs, fitted, strict=True)
    ]
    support = np.unique(np.concatenate(sv_rows))
    t1 = time.perf_counter()
    XS = X[support]
    for m, r in zip(fitted, sv_rows, strict=True):
        # libsvm reads a precomputed kernel at its support vectors' indices (scikit-learn's
        # ``support_``) only: point them at their columns in the kernel against ``XS``,
        # which every pair then reads in place
        m.support_ = np.searchsorted(support, r).astype(np.int32)
        m.shape_fit_ = (support.size, support.size)
        m.n_features_in_ = support.size
    preds = []
    for A in predict_sets:
        A = np.asarray(A, dtype=np.float64)
        votes = np.zeros((A.shape[0], k), dtype=np.int32)
        for r0 in range(0, A.shape[0], PREDICT_ROWS):  # bounded memory: a chunk of rows
            Ac = A[r0 : r0 + PREDICT_ROWS]
            # the kernel against the support vectors of every pair at once
            KS = kernel_matrix(
                Ac, XS, kernel, gamma=gamma, degree=degree, block_rows=rows, threads=threads
            )

            def vote(m, KS=KS):
                with config_context(assume_finite=True):
                    return m.predict(KS)

            with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="heldout-vote") as pool:
                said = list(pool.map(vote, fitted))
            for (a, b), p in zip(pairs, said, strict=True):
                votes[r0 : r0 + Ac.shape[0], a] += p == 0
                votes[r0 : r0 + Ac.shape[0], b] += p == 1
            del KS
        preds.append(cg.classes[np.argmax(votes, axis=1)])  # ties: the first class, as libsvm
    return preds, t1 - t0, time.perf_counter() - t1, int(support.size)
