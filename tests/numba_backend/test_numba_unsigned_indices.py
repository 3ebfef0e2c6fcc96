"""The numba backend indexes by loop counters that are never negative without Python's
wraparound (`np.uint64(j)` in the module numba compiles, srcad/transform/numba_indices.py),
so LLVM can vectorize the loop; every index that may be negative keeps the wraparound, the
derivatives are unchanged, and `srcad.source` shows the subscripts as written."""

import inspect

import numpy as np
import pytest

import srcad
import srcad.testing
from srcad import api


def _triangular(ltri, x):
    # gmm's Qtimesx: the inner counter starts at i + 1, which LLVM does not prove >= 0
    d = len(x)
    out = np.zeros(d)
    idx = 0
    for i in range(d):
        for j in range(i + 1, d):
            out[j] = out[j] + ltri[idx] * x[i]
            idx += 1
    total = 0.0
    for j in range(d - 1, -1, -1):
        total = total + out[j] * out[j]
    return total


def _from_the_end(x, start):
    # a counter that is negative: x[j] reads from the end of x, as in Python
    total = 0.0
    for j in range(-3, 0):
        total = total + x[j] * x[j]
    for j in range(start, 0):
        total = total + 2.0 * x[j]
    return total


def _lowered_counter(x):
    # a counter stepped down is not known to stay >= 0
    idx = len(x) - 1
    total = 0.0
    for i in range(len(x)):
        total = total + x[idx] * x[i]
        idx -= 1
    return total


def _source(f, *args):
    """The reverse code's module as numba compiles it."""
    call = api._arguments(f, srcad.Reverse, args, None, "numba")
    compiled = api._compiled(f, call.request(srcad.Reverse, "numba"))
    assert "np.uint64" not in compiled.source  # what srcad.source shows
    return inspect.getsource(compiled.function.py_func)


def test_a_triangular_loop_indexes_without_wraparound():
    d = 5
    ltri, x = np.linspace(0.1, 1.0, d * (d - 1) // 2), np.linspace(-1.0, 1.0, d)
    code = _source(_triangular, srcad.Duplicated(ltri, np.zeros_like(ltri)),
                   srcad.Duplicated(x, np.zeros_like(x)))
    assert "out[np.uint64(j)] = out[np.uint64(j)] + ltri[idx] * x[np.uint64(i)]" in code
    srcad.testing.check_grads(_triangular, srcad.Duplicated(ltri, np.zeros_like(ltri)),
                              srcad.Duplicated(x, np.zeros_like(x)), modes=("rev",),
                              backend="numba")


@pytest.mark.parametrize("start", [-4, -2])
def test_negative_counters_keep_pythons_wraparound(start):
    x = np.array([0.5, -1.0, 2.0, 3.0, -0.25])
    code = _source(_from_the_end, srcad.Duplicated(x, np.zeros_like(x)), srcad.Const(start))
    assert "np.uint64" not in code
    shadow = np.zeros_like(x)
    srcad.autodiff(srcad.Reverse, _from_the_end, srcad.Duplicated(x, shadow),
                   srcad.Const(start), backend="numba")
    expected = np.zeros_like(x)  # by hand: d/dx of sum x[-3:]**2 + 2 sum x[start:]
    expected[-3:] += 2.0 * x[-3:]
    expected[start:] += 2.0
    np.testing.assert_allclose(shadow, expected, rtol=1e-15)


def test_a_counter_stepped_down_keeps_the_wraparound():
    x = np.array([0.5, -1.0, 2.0])
    code = _source(_lowered_counter, srcad.Duplicated(x, np.zeros_like(x)))
    assert "x[idx]" in code and "np.uint64(idx)" not in code
    srcad.testing.check_grads(_lowered_counter, srcad.Duplicated(x, np.zeros_like(x)),
                              modes=("rev",), backend="numba")
