"""Sums of the product of two broadcast arrays computed as BLAS matrix products
(srcad/runtime/numba_contraction.py), against NumPy's sums of the broadcast product: the
patterns of a (batched) matrix product are taken, whatever the order of the axes, the steps
of the views and which operand holds the rows; every other pattern is left to the loop nest
(`contract` returns False and writes nothing), and the fused kernels give NumPy's values
either way."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from srcad.runtime.numba_contraction import MIN_WORK, contract_function  # noqa: E402
from srcad.runtime.numba_fusion import fused_kernel  # noqa: E402

RNG = np.random.default_rng(41)


def _contract(a, b, kept):
    """(taken, result with a length-1 axis per summed axis) of `contract` on a and b
    broadcast against each other."""
    full = np.broadcast_shapes(a.shape, b.shape)
    out = np.zeros(tuple(n if k else 1 for n, k in zip(full, kept)))
    mask = sum(k << r for r, k in enumerate(kept))
    taken = contract_function(len(full))(np.broadcast_to(a, full), np.broadcast_to(b, full),
                                         full, mask, out)
    return taken, out


def _numpy(a, b, kept):
    summed = tuple(axis for axis, k in enumerate(kept) if not k)
    return np.sum(a * b, axis=summed, keepdims=True)


n, k, d = 40, 3, 12
lower, x, g = RNG.standard_normal((k, d, d)), RNG.standard_normal((n, k, d)), \
    RNG.standard_normal((n, k, d))
MATRIX_PRODUCTS = [  # (a, b, kept): every one a (batched) matrix product
    # gmm's forward product, then the adjoints of it for each operand
    (lower[None, :, :, :], x[:, :, None, :], (1, 1, 1, 0)),
    (g[:, :, :, None], x[:, :, None, :], (0, 1, 1, 1)),
    (lower[None, :, :, :], g[:, :, :, None], (1, 1, 0, 1)),
    # A @ B, A.T @ B, a matrix-vector product, strided and reversed views
    (RNG.standard_normal((30, 20))[:, :, None], RNG.standard_normal((20, 25))[None, :, :],
     (1, 0, 1)),
    (RNG.standard_normal((20, 30)).T[:, :, None], RNG.standard_normal((40, 25))[None, ::2, :],
     (1, 0, 1)),
    (RNG.standard_normal((64, 50))[::-1], RNG.standard_normal(50)[None, :], (1, 0)),
    # the rows' operand on the right, the batch axis last
    (RNG.standard_normal((1, 24, 30, 4)), RNG.standard_normal((26, 24, 1, 4)), (1, 0, 1, 1)),
]


@pytest.mark.slow  # numba compiles `contract` for ranks 2, 3 and 4
@pytest.mark.parametrize("a, b, kept", MATRIX_PRODUCTS)
def test_a_matrix_product_runs_as_blas_products_with_numpy_values(a, b, kept):
    taken, out = _contract(a, b, kept)
    assert taken
    np.testing.assert_allclose(out, _numpy(a, b, kept), rtol=1e-12, atol=1e-12)


OTHER_PATTERNS = [  # (a, b, kept): the loop nest's
    (RNG.standard_normal((30, 20, 1)), RNG.standard_normal((1, 20, 25)), (1, 1, 1)),  # no sum
    (RNG.standard_normal((30, 20, 1)), RNG.standard_normal((30, 1, 25)), (1, 0, 1)),  # a's own
    (RNG.standard_normal((30, 20, 9)), RNG.standard_normal((1, 20, 9)), (1, 0, 0)),  # two sums
    (RNG.standard_normal((30, 20, 9)), RNG.standard_normal((30, 1, 9)), (1, 1, 0)),  # no column
    (RNG.standard_normal((4, 4))[:, :, None], RNG.standard_normal((4, 4))[None, :, :],
     (1, 0, 1)),  # below MIN_WORK
]


@pytest.mark.slow
@pytest.mark.parametrize("a, b, kept", OTHER_PATTERNS)
def test_other_patterns_are_left_to_the_loop_nest(a, b, kept):
    taken, out = _contract(a, b, kept)
    assert not taken
    assert not out.any()  # nothing written


def test_the_threshold_is_the_work_of_one_batch():
    assert 4 * 4 * 4 < MIN_WORK <= 40 * 12 * 12


def _kernel_call(kernel, arity):
    names = ", ".join(f"a{j}" for j in range(arity))
    scope = {"kernel": kernel}
    exec(f"def call({names}):\n    return kernel({names})", scope)
    return numba.njit(scope["call"])


@pytest.mark.slow
def test_fused_sums_and_adjoints_of_products_equal_numpy():
    summed = _kernel_call(fused_kernel("(a0 * a1)", ("sum", 3, False), 2), 2)
    np.testing.assert_allclose(summed(lower[None, :, :, :], x[:, :, None, :]),
                               np.sum(lower[None, :, :, :] * x[:, :, None, :], axis=3),
                               rtol=1e-12, atol=1e-12)
    kept = _kernel_call(fused_kernel("(a1 * a0)", ("sum", (0, 2), True), 2), 2)
    a, b = RNG.standard_normal((5, 30, 20)), RNG.standard_normal((5, 1, 20))
    np.testing.assert_allclose(kept(a, b), np.sum(b * a, axis=(0, 2), keepdims=True),
                               rtol=1e-12, atol=1e-12)  # two summed axes: the loop nest
    adjoint = _kernel_call(fused_kernel("(a0 * a1)", ("unbroadcast",), 2), 3)
    full = (n, k, d, d)
    spread = np.broadcast_to(g[:, :, :, None], full)
    for shape in [(1, k, d, d), (k, d, d), (n, k, 1, d)]:
        other = lower[None] if shape[0] == n else x[:, :, None, :]
        want = np.sum(spread * other, axis=tuple(range(len(full) - len(shape))))
        want = np.sum(want, axis=tuple(j for j, s in enumerate(shape) if s == 1),
                      keepdims=True).reshape(shape)
        np.testing.assert_allclose(adjoint(spread, other, shape), want, rtol=1e-12,
                                   atol=1e-12)


@pytest.mark.slow
def test_exp_and_tanh_in_chains_and_of_arrays_are_within_a_few_ulp():
    from srcad.runtime.numba_arrays import array_exp

    v = np.concatenate([RNG.standard_normal(200) * 30.0, [0.0, -0.0, 709.0, -745.0, np.inf,
                                                          -np.inf, np.nan]])
    got = numba.njit(lambda v: array_exp(v))(v)
    np.testing.assert_array_max_ulp(got[np.isfinite(v)], np.exp(v[np.isfinite(v)]), maxulp=1)
    assert got[-3] == np.inf and got[-2] == 0.0 and np.isnan(got[-1])
    chain = _kernel_call(fused_kernel("(np.exp(a0) + np.tanh(a0))", ("sum", 0, False), 1), 1)
    m = RNG.standard_normal((50, 3))
    np.testing.assert_allclose(chain(m), np.sum(np.exp(m) + np.tanh(m), axis=0), rtol=1e-14)


def test_the_copies_into_work_matrices_format_no_message():
    # numba's slice assignment `left[:, :] = view` compiled its shape-mismatch message: some
    # forty string functions (str of ints, join, ...) in every process's first compile
    a, b, kept = MATRIX_PRODUCTS[3]
    taken, out = _contract(a, b, kept)
    assert taken
    np.testing.assert_allclose(out, _numpy(a, b, kept), rtol=1e-12, atol=1e-12)
    contract = contract_function(3).py_func.__globals__["contract"]
    codes = contract.inspect_llvm().values()  # one per operand types compiled so far
    assert codes and not any("raise_with_shape_context" in code for code in codes)


def test_views_blas_cannot_read_are_multiplied_as_numbas_np_dot_without_compiling_it():
    # a view BLAS cannot read in place (steps of two elements in both axes) is copied into
    # work matrices and multiplied by the dgemm call numba's np.dot makes of C-ordered
    # matrices: its bits; numba's np.dot and its `+=` of two strided views are no longer
    # compiled into every fused kernel that may multiply
    @numba.njit
    def numbas_dot(a, b):
        return np.dot(a, b)

    a = RNG.standard_normal((30, 20))
    b = RNG.standard_normal((40, 50))[::2, ::2]
    taken, out = _contract(a[:, :, None], b[None, :, :], (1, 0, 1))
    assert taken
    np.testing.assert_array_equal(out[:, 0, :], numbas_dot(a, np.ascontiguousarray(b)))
    contract = contract_function(3).py_func.__globals__["contract"]
    codes = contract.inspect_llvm().values()
    assert codes and not any("linalg5dot_" in code for code in codes)
