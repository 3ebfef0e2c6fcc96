"""The numba backend compiles the array operations numba 0.68 implements: np.cumsum,
np.linalg.norm, reshapes (also of non-contiguous arrays), np.concatenate/np.stack, in forward
and reverse mode, each checked against central finite differences and forward against
reverse; np.linalg solve/inv/det/slogdet/cholesky likewise in scripts/check_numba_linalg.py
(numba's LAPACK bindings are slow to compile), and here the Cholesky gradient (srcad's
compiled adjoint) against the python backend; what numba still lacks is refused naming the
function and the line."""

import numpy as np
import pytest

import srcad
from srcad import Duplicated
from srcad.errors import SrcadError
from srcad.testing import check_grads

pytest.importorskip("numba")

RNG = np.random.default_rng(29)


def dup(x):
    return Duplicated(x, np.zeros_like(x))


def cumsum_and_norm(x):
    return np.sum(np.cumsum(x) * x) + np.linalg.norm(x) * 2.0


def reshapes(x, A):
    y = np.reshape(x, (2, 3))
    z = A.T.reshape(-1)  # a transpose is not contiguous: numba reshapes a copy
    w = np.ravel(A)
    # a reshape broadcast against a row: its adjoint is summed to the reshaped shape
    column = np.reshape(x, (-1, 1)) * np.sin(w[:2])
    return np.sum(np.sin(y) * y[0]) + np.sum(z * z * w) + np.sum(column * column)


def joins(x, y):
    u = np.concatenate([x * 2.0, np.sin(y)])
    v = np.stack([x * y, np.sin(y)], axis=1)
    return np.sum(u * u) + np.sum(v ** 3)


def powers(A):
    # numba's own np.linalg.matrix_power is typed as an array or None: its adjoint (an array
    # of None) could not be added into
    cube = np.linalg.matrix_power(A, 3)
    return np.sum(cube * cube) * 1e-2 + np.sum(np.linalg.matrix_power(A, -2)) \
        + np.sum(np.linalg.matrix_power(A, 5) * A) * 1e-3


def sorted_along_axes(A):
    # numba's np.argsort sorts a vector: along an axis, srcad's stable order
    rows = np.take_along_axis(A, np.argsort(A, axis=1), axis=1)
    columns = np.take_along_axis(A, np.argsort(A, 0), axis=0)
    flat = np.ravel(A)[np.argsort(A, axis=None)]
    return np.sum(rows * np.arange(3.0)) + np.sum(columns[0] * columns[-1]) \
        + np.sum(flat * np.arange(6.0) ** 2)


def built_of_parts(x):
    # numba's np.array takes a list of numbers, its np.atleast_1d/2d arrays
    joined = np.r_[x, 2.0, x[0] * x[1]]
    rows = np.array([x[:2], np.sin(x[2:])])
    mixed = np.array([x[0], 1, x[1] * x[3]])
    picked = x[np.array([len(x) - 1, 0])]  # ints of ints: an index
    return np.sum(joined ** 2) + np.sum(rows[0] * rows[1] ** 2) + np.sum(mixed ** 3) \
        + np.sum(np.atleast_2d(x[2] * x[3])) + np.sum(picked * picked[::-1] ** 2)


def linear_algebra(A, b):
    s, ld = np.linalg.slogdet(A)
    return np.sum(np.linalg.solve(A, b) ** 2) + np.sum(np.linalg.inv(A) * A.T) \
        + np.linalg.det(A) * 0.5 + ld


def cholesky_of_spd(A):
    B = A @ A.T + 3.0 * np.eye(3)
    L = np.linalg.cholesky(B)
    return np.sum(L * L * L)


def trace_of(A):
    return np.sum(np.cross(A * A, A, axis=0))  # numba: refused by name (no axis=)


def _matrix():
    return RNG.standard_normal((3, 3)) + 3.0 * np.eye(3)


PROGRAMS = [
    (cumsum_and_norm, lambda: (dup(RNG.standard_normal(4)),)),
    (reshapes, lambda: (dup(RNG.standard_normal(6)), dup(RNG.standard_normal((2, 3))))),
    (joins, lambda: (dup(RNG.standard_normal(3)), dup(RNG.standard_normal(3)))),
    (powers, lambda: (dup(_matrix()),)),
    (sorted_along_axes, lambda: (dup(RNG.standard_normal((2, 3))),)),
    (built_of_parts, lambda: (dup(RNG.standard_normal(4)),)),
]
# numba compiles LAPACK bindings for each np.linalg function (tens of seconds in all): these
# run in scripts/check_numba_linalg.py; the suite keeps the Cholesky gradient below
LINALG = [
    (linear_algebra, lambda: (dup(_matrix()), dup(RNG.standard_normal(3)))),
    (cholesky_of_spd, lambda: (dup(_matrix()),)),
]


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("f, args", PROGRAMS, ids=lambda v: getattr(v, "__name__", ""))
def test_numba_forward_and_reverse_of_the_operation(f, args):
    check_grads(f, *args(), modes=("fwd", "rev"), backend="numba")


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_numba_cholesky_gradient_equals_the_python_backend():
    A = _matrix()
    grads = [srcad.grad(cholesky_of_spd, backend=backend)(A) for backend in ("python", "numba")]
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10)


@pytest.mark.parametrize("mode", [srcad.Reverse, srcad.Forward])
def test_what_numba_does_not_compile_is_refused_by_name_and_line(mode):
    with pytest.raises(SrcadError) as info:
        srcad.autodiff(mode, trace_of, dup(_matrix()), backend="numba")
    text = str(info.value)
    assert "numba" in text and "`np.cross`" in text
    assert f"test_numba_array_ops.py:{trace_of.__code__.co_firstlineno + 1}:" in text
