"""np.clip (and `x.clip`) of arrays that carry derivatives on the numba backend, in every
mode: bounds that are numbers (one of them varied) or written out, against central
differences (forward against reverse through the dot-product test)."""

import numpy as np
import pytest

from srcad import Active, Duplicated
from srcad.testing import check_grads

pytest.importorskip("numba")


def clip_bounds(x, lo):
    y = np.clip(x * 2.0, lo, 0.7)
    return np.sum(y * y) + np.sum(x.clip(-0.3, 0.4))


def clip_matrix(A):
    return np.sum(np.tanh(np.clip(A, -0.5, 0.5)) * A)


X = np.array([-1.0, -0.2, 0.3, 0.9])


def test_clip_gradient_on_numba():
    check_grads(clip_bounds, Duplicated(X.copy(), np.zeros(4)), Active(-0.25), modes=("rev",),
                backend="numba")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["fwd", "vec"])
def test_clip_tangents_on_numba(mode):
    check_grads(clip_bounds, Duplicated(X.copy(), np.zeros(4)), Active(-0.25), modes=(mode,),
                backend="numba")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["rev", "fwd", "vec"])
def test_clip_of_a_matrix_on_numba(mode):
    A = np.array([[-1.0, -0.2], [0.3, 0.9]])
    check_grads(clip_matrix, Duplicated(A, np.zeros_like(A)), modes=(mode,), backend="numba")
