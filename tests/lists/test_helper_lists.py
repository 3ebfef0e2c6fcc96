"""Lists made and read inside a helper function of the user's (inlined into the function
differentiated): a list of arrays there gets its rows once types are known, as in the
function itself (srcad/transform/normalize/array_rows.py reads the buffers the inlined
helpers made)."""

import numpy as np
import pytest

from srcad import Active, Const, Duplicated
from srcad.testing import check_grads


def history(W, xs, h0):
    hs = []
    h = h0.copy()
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        hs.append(h)
    return np.sum(np.vstack(hs) ** 2) + np.sum(np.concatenate(hs)[::2])


def rnn_loss(W, xs, h0):
    return history(W, xs, h0)


def called_twice(W, xs, h0):
    # two calls: two lists, each with its own rows
    return history(W, xs, h0) * history(W * 0.5, xs[1:], h0 * 2.0)


def squares(x):
    ys = []
    for i in range(len(x)):
        ys.append(x[i] * x[i])
    return ys[-1] + sum(ys)


def nested_history(W, xs, h0):
    return 2.0 * rnn_loss(W, xs, h0) + squares(h0)


def stacked_rows(x, c):
    rows = []
    for i in range(len(x) - 1):
        rows.append(x[i:i + 2] * c)
    return np.stack(rows)


def rows_in_helper(x, c):
    R = stacked_rows(x, c)
    return np.sum(R * R) + R[-1, 0]


RNG = np.random.default_rng(4)
W = RNG.normal(size=(3, 3)) * 0.5
XS = RNG.normal(size=(4, 3))
H0 = RNG.normal(size=3)


def dup(a):
    return Duplicated(a.copy(), np.zeros_like(a))


@pytest.mark.parametrize("f", [rnn_loss, called_twice, nested_history])
def test_a_list_of_arrays_made_in_a_helper(f):
    check_grads(f, dup(W), Const(XS), dup(H0))
    check_grads(f, dup(W), dup(XS), Const(H0))


def test_rows_of_a_helper_with_mixed_annotations():
    x = np.array([0.3, -1.2, 0.8, 2.0])
    check_grads(rows_in_helper, dup(x), Active(0.7))
    check_grads(rows_in_helper, Const(x), Active(0.7))


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_a_list_of_arrays_made_in_a_helper_on_numba():
    check_grads(rnn_loss, dup(W), Const(XS), dup(H0), backend="numba", modes=("rev",))
