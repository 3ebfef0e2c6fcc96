"""The numba backend's generated code carries no needless copies or specializations (what
numba compiles on a first call): the source is read, nothing is compiled here."""

import math

import numpy as np

import srcad
import srcad.testing


def _exp_rows(q):
    out = np.zeros(q.shape)
    total = 0.0
    for i in range(q.shape[0]):
        for j in range(q.shape[1]):
            out[i, j] = math.exp(q[i, j])
            total = total + out[i, j] * out[i, j]
    return total


def _reverse_source(f, x):
    return srcad.source(f, srcad.Reverse, srcad.Duplicated(x, np.zeros_like(x)),
                        backend="numba")


def test_a_float_stored_into_an_element_is_not_copied():
    # `out[i, j] = math.exp(q[i, j])`: the element store copies the float itself; an
    # np.copy of it made numba compile a needless array copy
    code = _reverse_source(_exp_rows, np.ones((2, 3)))
    assert "np.copy(" not in code
    q = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]])
    srcad.testing.check_grads(_exp_rows, srcad.Duplicated(q, np.zeros_like(q)))

