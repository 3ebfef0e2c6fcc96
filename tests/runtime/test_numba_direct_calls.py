"""srcad/runtime/numba_direct_calls.py: `array_matmul`, `linalg_solve` and `outer_add` of
float64 arrays in numba-compiled code call srcad's compiled products, solves and loops with no
function of their own per layout of the operands (numba compiles nothing for the call site),
and give NumPy's values."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from numba.core import event  # noqa: E402

from srcad.runtime.numba_arrays import array_matmul, outer_add  # noqa: E402
from srcad.runtime.numba_gemm import BLAS  # noqa: E402
from srcad.runtime.numba_lapack import linalg_solve  # noqa: E402

pytestmark = pytest.mark.skipif(not BLAS, reason="numba's BLAS and LAPACK calls need SciPy")
RNG = np.random.default_rng(23)


class _Compiled(event.Listener):
    """The qualified names of the Python functions numba compiles meanwhile."""

    def __init__(self):
        self.names = []

    def on_start(self, ev):
        function = getattr(ev.data["dispatcher"], "py_func", None)
        self.names.append(getattr(function, "__qualname__", ""))

    def on_end(self, ev):
        pass


def _read_only(x):
    x = np.array(x)
    x.flags.writeable = False  # a type no other test compiles these names for
    return x


def test_products_solves_and_outer_products_compile_no_function_per_layout():
    @numba.njit
    def kernel(a, b, x, into):
        # every pair of C and F operands, matrices and vectors
        p = array_matmul(a, b) + array_matmul(a.T, b) + array_matmul(a, b.T) \
            + array_matmul(a.T, b.T)
        v = array_matmul(a, x) + array_matmul(a.T, x) + array_matmul(x, a) + array_matmul(x, a.T)
        s = linalg_solve(a, x) + linalg_solve(a.T, x)
        m = linalg_solve(a, b) + linalg_solve(a.T, b.T)
        outer_add(into, v, s)
        return p, v, s, m

    a = _read_only(RNG.standard_normal((3, 3)) + 3 * np.eye(3))
    b = _read_only(RNG.standard_normal((3, 3)))
    x = _read_only(RNG.standard_normal(3))
    into = np.zeros((3, 3))
    compiled = _Compiled()
    with event.install_listener("numba:compile", compiled):
        p, v, s, m = kernel(a, b, x, into)
    wrappers = [n for n in compiled.names if "<locals>" in n and any(
        owner in n for owner in ("_matmul", "_linalg_solve", "_outer_add_overload"))]
    assert wrappers == [], compiled.names
    np.testing.assert_allclose(p, a @ b + a.T @ b + a @ b.T + a.T @ b.T, rtol=1e-14)
    np.testing.assert_allclose(v, a @ x + a.T @ x + x @ a + x @ a.T, rtol=1e-14)
    np.testing.assert_allclose(s, np.linalg.solve(a, x) + np.linalg.solve(a.T, x), rtol=1e-13)
    np.testing.assert_allclose(m, np.linalg.solve(a, b) + np.linalg.solve(a.T, b.T),
                               rtol=1e-13)
    np.testing.assert_allclose(into, np.outer(v, s), rtol=1e-14)


def test_the_operands_are_the_callers_arrays():
    @numba.njit
    def accumulate(into, x, y):
        outer_add(into, x, y)  # adds into the caller's matrix, not into a copy

    into = np.ones((2, 3))
    accumulate(into, np.array([1.0, 2.0]), np.array([1.0, 0.0, -1.0]))
    np.testing.assert_array_equal(into, 1.0 + np.outer([1.0, 2.0], [1.0, 0.0, -1.0]))


def test_gemm_into_compiles_once_for_every_layout_and_read_only_flag():
    from srcad.runtime.numba_gemm import gemm_into

    @numba.njit
    def products(a, b, c, d):
        out = np.zeros((3, 3))
        gemm_into(a, b, out, 0.0)  # read-only C operands
        gemm_into(c, d, out, 1.0)  # writable C and F operands
        gemm_into(c.T, d, out[:, ::1], 1.0)  # a transpose (F), into a view (A)
        return out

    a = _read_only(RNG.standard_normal((3, 4)))[:, ::1]  # a read-only view: layout A
    b = _read_only(RNG.standard_normal((4, 3)))
    c, d = RNG.standard_normal((3, 3)), np.asfortranarray(RNG.standard_normal((3, 3)))
    compiled = _Compiled()
    with event.install_listener("numba:compile", compiled):
        got = products(a, b, c, d)
    assert sum(n.endswith("gemm_into") for n in compiled.names) <= 1, compiled.names
    np.testing.assert_allclose(got, a @ b + c @ d + c.T @ d, rtol=1e-13)
