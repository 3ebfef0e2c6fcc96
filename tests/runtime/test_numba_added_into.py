"""`added_into(t, v)` (srcad/runtime/numba_semantics.py), what compiled code runs for
`t += v` of a name, against NumPy's `t += v`: C arrays of one shape, strided views, a row or a
number broadcast, a right side overlapping the target (NumPy reads it whole first), and the
types left to numba's own `+=` (an int array, a number target).
`matmul_added_into(t, a, b)`, what it runs for `t += a @ b`, against NumPy's likewise: BLAS
into `t` itself where the matrices lie as BLAS reads them (C, a transposed view, a column
range), the product made and added where `t` overlaps an operand, where the shapes differ
(a row broadcast into `t`), where the product is tiny, and for a matrix-vector product."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from srcad.runtime.numba_semantics import added_into, matmul_added_into  # noqa: E402

RNG = np.random.default_rng(11)


@numba.njit
def _added(t, v):
    t = added_into(t, v)
    return t


@pytest.mark.slow  # numba compiles added_into for each pair of types
def test_added_into_is_numpys_in_place_addition():
    base = RNG.standard_normal((4, 3, 5))
    cases = [
        (base.copy(), RNG.standard_normal((4, 3, 5))),  # C arrays of one shape: flat
        (base.copy()[:, :, None, :], RNG.standard_normal((4, 3, 1, 5))),  # a 4-D view
        (base.copy(), RNG.standard_normal(5)),  # a row broadcast
        (base.copy()[:, 1, :], RNG.standard_normal((4, 1))),  # a column into a view
        (base.copy(), 2.5),  # a number
    ]
    for t, v in cases:
        want = t.copy()
        want += v
        got = _added(t, v)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(t, want)  # in place: the same memory
    x = np.arange(6.0)
    want = x.copy()
    want[1:] += want[:-1].copy()
    view = x[1:]
    _added(view, x[:-1])  # overlapping: the old values added, as NumPy does
    np.testing.assert_array_equal(x, want)
    ints = np.arange(4)
    np.testing.assert_array_equal(_added(ints, np.arange(4)), 2 * np.arange(4))
    assert _added(1.5, 2.0) == 3.5


@numba.njit
def _product_added(t, a, b):
    t = matmul_added_into(t, a, b)
    return t


def _numpys(t, a, b):
    want = t.copy()
    want += a @ b
    return want


def test_a_matrix_product_is_added_into_the_target_as_numpys_addition():
    t, a, b = (RNG.standard_normal(s) for s in ((12, 9), (12, 15), (15, 9)))
    want = _numpys(t, a, b)
    got = _product_added(t, a, b)
    assert got is t  # in place
    np.testing.assert_allclose(t, want, rtol=1e-13, atol=1e-13)
    t[0, 0] = np.nan  # BLAS's beta = 1 keeps what t holds, NaN included
    _product_added(t, a, b)
    assert np.isnan(t[0, 0]) and np.isfinite(t[1:]).all()
    # no product matrix made: numba's allocation statistics count one allocation per array
    # argument a call unboxes (tests/numba_backend/test_numba_allocation.py), nothing more
    nrt = pytest.importorskip("numba.core.runtime._nrt_python")
    was_on = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    try:
        before = nrt.memsys_get_stats_alloc()
        _product_added(t, a, b)
        assert nrt.memsys_get_stats_alloc() - before == 3
    finally:
        if not was_on:
            nrt.memsys_disable_stats()


@pytest.mark.slow  # numba compiles matmul_added_into for each triple of array types
def test_products_added_into_views_overlaps_and_other_shapes_are_numpys():
    big = RNG.standard_normal((20, 30))
    a, b = RNG.standard_normal((15, 12)), RNG.standard_normal((12, 20))
    cases = [
        (big.copy()[:15, 5:25], a, b),  # a column range of a matrix: BLAS in place
        (RNG.standard_normal((20, 15)), b.T, a.T),  # transposed operands
        (np.asfortranarray(RNG.standard_normal((15, 20))), a, b),  # a column-major target
        (RNG.standard_normal((15, 20)), a[:, ::2], b[::2]),  # every other column: loops
        (RNG.standard_normal((15, 20)), a[:1], b),  # a row broadcast into t: made, added
        (RNG.standard_normal((2, 3)), a[:2, :2], b[:2, :3]),  # tiny: made, added
    ]
    for t, x, y in cases:
        want = _numpys(t, x, y)
        _product_added(t, x, y)
        np.testing.assert_allclose(t, want, rtol=1e-13, atol=1e-13)
    m = RNG.standard_normal((16, 16))  # the target is an operand: NumPy reads it whole first
    want = _numpys(m, m, m.T)
    _product_added(m, m, m.T)
    np.testing.assert_allclose(m, want, rtol=1e-13, atol=1e-13)
    m = RNG.standard_normal((16, 16))  # the target a view inside an operand
    want = m.copy()
    want[4:12, 4:12] += m[4:12] @ m[:, 4:12]
    _product_added(m[4:12, 4:12], m[4:12], m[:, 4:12])
    np.testing.assert_allclose(m, want, rtol=1e-13, atol=1e-13)
    v, x = RNG.standard_normal(15), RNG.standard_normal(12)
    want = v + a @ x
    np.testing.assert_allclose(_product_added(v, a, x), want, rtol=1e-13)  # a matrix-vector
