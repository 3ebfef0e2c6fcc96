"""A function defined inside f that writes an array of f's (`y[i] = v` on f's `y`, a closure
variable in Python) is inlined as f's own write: differentiated in every mode, on both
backends. A module-level helper writing a global stays refused by line."""

import numpy as np
import pytest

import srcad
from srcad import Duplicated
from srcad.errors import SrcadError
from srcad.testing import check_grads

X = np.array([0.3, 0.5, 0.9])


def filled_by_a_local_function(x):
    y = np.zeros(3)

    def put(i, v):
        y[i] = v * x[i]

    for i in range(3):
        put(i, x[i] + 1.0)
    return np.sum(y * y)


def accumulated_by_a_local_function(x):
    y = np.sin(x)

    def bump(i):
        y[i] += y[(i + 1) % 3] * x[i]  # reads and writes f's y as it is at the call

    bump(0)
    y = y * 2.0  # rebound: the next call writes the new array, as Python's closure does
    bump(1)
    return np.sum(y * y)


def test_the_local_functions_write_is_the_closures():
    y = np.zeros(3)
    y[:] = (X + 1.0) * X
    assert srcad.value_and_grad(filled_by_a_local_function)(X.copy())[0] == \
        pytest.approx(np.sum(y * y), rel=1e-14)
    value = srcad.value_and_grad(accumulated_by_a_local_function)(X.copy())[0]
    assert value == pytest.approx(accumulated_by_a_local_function(X.copy()), rel=1e-14)


@pytest.mark.parametrize("f", [filled_by_a_local_function, accumulated_by_a_local_function],
                         ids=lambda f: f.__name__)
def test_a_local_function_writing_fs_array_matches_central_differences(f):
    check_grads(f, Duplicated(X.copy(), np.zeros(3)))


@pytest.mark.slow
def test_a_local_function_writing_fs_array_on_numba():
    check_grads(accumulated_by_a_local_function, Duplicated(X.copy(), np.zeros(3)),
                backend="numba")


COUNTS = np.zeros(1)


def counted(x):
    COUNTS[0] += 1.0
    return x * x


def calls_a_helper_writing_a_global(x):
    return counted(x)


def test_a_helper_writing_a_global_stays_refused_by_line():
    with pytest.raises(SrcadError, match="write to a global"):
        srcad.grad(calls_a_helper_writing_a_global)(0.5)
