"""Lists of 1-D arrays grown by append in loops: state histories, rows of a matrix, list
comprehensions of arrays. Each becomes an array of rows (srcad/transform/normalize/
array_rows.py); every derivative is checked against finite differences and forward against
reverse."""

import numpy as np
import pytest

import srcad
from srcad import Active, Const, Duplicated
from srcad.testing import check_grads


def dup(a):
    return Duplicated(a, np.zeros_like(a))


def rnn_history(W, xs, h0):
    hs = []
    h = h0.copy()
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        hs.append(h)
    return np.sum(np.stack(hs) ** 2)


def history_reductions(W, xs, h0):
    hs = []
    h = h0.copy()
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        hs.append(h)
    return sum(np.sum(g * g) for g in hs) + np.sum(hs[-1]) * len(hs)


def history_from_zeros(W, xs, a):
    hs = []
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.sin(W @ h) * a + xs[t]
        hs.append(h)
    return np.sum(np.array(hs) ** 2)


def row_sum_and_totals(W, xs, h0):
    hs = []
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        hs.append(h)
    s = sum(hs)
    return np.sum(s * s) + np.sum(hs) + np.max(hs) * np.min(hs)


def scaled_rows(x, w):
    rows = []
    for i in range(x.shape[0]):
        if x[i, 0] > 0.0:
            rows.append(x[i] * w)
    total = 0.0
    for g in rows:
        total += np.sum(g * g)
    return total + len(rows)


def pairs(x, w):
    rows = []
    for i in range(0, x.shape[0] - 1, 2):
        rows.append(x[i:i + 2] * w)
    return np.sum(np.stack(rows) ** 3)


def mapped(W, vs):
    ys = [W @ v for v in vs]
    return np.sum(np.stack(ys) ** 2)


def nested_products(x, w):
    ys = []
    for i in range(x.shape[0]):
        for j in range(i):
            if x[i, 0] > x[j, 0]:
                ys.append(x[i] * x[j] + w)
    total = 0.0
    for g in ys:
        total += np.sum(np.exp(g))
    return total


def history_per_pass(W, xs, h0):
    total = 0.0
    for k in range(2):
        hs = []
        h = h0 * (k + 1.0)
        for t in range(xs.shape[0]):
            h = np.tanh(W @ h + xs[t])
            hs.append(h)
        total += np.sum(hs[0] * hs[-1])
    return total


def stacked_mean(W, xs, h0):
    hs = []
    h = h0.copy()
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        hs.append(h)
    return np.sum(np.mean(np.stack(hs), axis=0) ** 2)


def mean_row(W, xs, h0):
    hs = []
    h = h0.copy()
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        hs.append(h)
    return np.sum(np.mean(hs, axis=0) ** 2) + np.sum(np.sum(hs, axis=0) * h0)


def read_while_filling(W, xs, h0):
    hs = []
    for t in range(xs.shape[0]):
        if len(hs) > 0:
            h = np.tanh(W @ hs[-1] + xs[t])
        else:
            h = np.tanh(W @ h0 + xs[t])
        if np.sum(h) > -10.0:
            hs.append(h)
    return np.sum(np.stack(hs) ** 2) + np.max(hs)


def squared_rows(x, w):
    ys = []
    for i in range(x.shape[0]):
        g = x[i] * w
        ys.append(g * g)
    return np.sum(np.stack(ys))


rng = np.random.default_rng(3)
W = rng.normal(size=(3, 3)) * 0.5
XS = rng.normal(size=(4, 3))
H0 = rng.normal(size=3)

CASES = {
    "rnn_history": (rnn_history, lambda: (dup(W), Const(XS), dup(H0))),
    "history_reductions": (history_reductions, lambda: (dup(W), dup(XS), Const(H0))),
    "history_from_zeros": (history_from_zeros, lambda: (Const(W), dup(XS), Active(0.7))),
    "row_sum_and_totals": (row_sum_and_totals, lambda: (dup(W), Const(XS), dup(H0))),
    "scaled_rows": (scaled_rows, lambda: (dup(XS), dup(H0))),
    "pairs": (pairs, lambda: (dup(rng.normal(size=6)), dup(np.array([0.4, -1.1])))),
    "mapped": (mapped, lambda: (dup(W), dup(XS))),
    "nested_products": (nested_products, lambda: (Const(XS), dup(H0))),
    "history_per_pass": (history_per_pass, lambda: (Const(W), dup(XS), dup(H0))),
    "stacked_mean": (stacked_mean, lambda: (dup(W), dup(XS), dup(H0))),
    "read_while_filling": (read_while_filling, lambda: (dup(W), Const(XS), dup(H0))),
    "squared_rows": (squared_rows, lambda: (dup(XS), Const(H0))),
    "mean_row": (mean_row, lambda: (Const(W), dup(XS), dup(H0))),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_lists_of_arrays_differentiate_in_every_mode(case):
    f, args = CASES[case]
    check_grads(f, *args())


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("case", ["rnn_history", "scaled_rows"])
def test_lists_of_arrays_under_numba(case):
    f, args = CASES[case]
    check_grads(f, *args(), modes=("rev", "fwd"), backend="numba")


def test_the_gradient_of_a_history_by_hand():
    # W = 0: h_t = tanh(x_t), f = sum_t |h_t|^2, df/dW = sum_t outer(2 h_t (1 - h_t^2), h_t-1)
    hs = np.tanh(XS)
    before = np.vstack([H0, hs[:-1]])
    expected = sum(np.outer(2 * h * (1 - h * h), p) for h, p in zip(hs, before))
    grad = srcad.gradient(rnn_history, np.zeros((3, 3)), srcad.Constant(XS),
                          srcad.Constant(H0))
    np.testing.assert_allclose(grad, expected, rtol=1e-12)


def test_the_rows_are_not_taped():
    source = srcad.source(rnn_history, srcad.Reverse, dup(W), Const(XS), dup(H0))
    taped = next(line for line in str(source).splitlines() if "Taped:" in line)
    assert "hs" not in taped


def test_rows_of_two_lengths_raise():
    def ragged(x):
        rows = []
        for i in range(x.shape[0]):
            rows.append(x[i:i + 2])
        total = 0.0
        for g in rows:
            total += np.sum(g)
        return total

    with pytest.raises(ValueError, match="the arrays appended to `rows` have different "
                       "lengths"):
        srcad.gradient(ragged, np.ones(3))


def mixed(x):
    ys = []
    for i in range(3):
        if i == 0:
            ys.append(x[0])
        else:
            ys.append(x * 2.0)
    return np.sum(ys[1])


def unknown_shape(x, y):
    ys = []
    for i in range(3):
        ys.append(np.cumsum(x) * y[i])
    return np.sum(ys[1])


def ranks(X):
    ys = []
    for i in range(3):
        if i == 0:
            ys.append(X[0])
        else:
            ys.append(X * 2.0)
    return np.sum(ys[1])


@pytest.mark.parametrize("f, args, offset, message", [
    (mixed, (np.ones(2),), 4, r"append: `ys` is appended arrays and numbers"),
    (unknown_shape, (np.ones(2), srcad.Constant(np.ones(3))), 3, r"append: the shape of the "
     r"arrays appended to `ys` is not known before the loop that appends them"),
    (ranks, (np.ones((2, 2)),), 6, r"append: arrays of ranks 1 and 2 are appended to `ys`"),
])
def test_what_cannot_be_rows_is_refused_at_the_append(f, args, offset, message):
    line = f.__code__.co_firstlineno + offset
    with pytest.raises(srcad.UnsupportedSyntaxError,
                       match=rf"test_array_lists.py:{line}:\d+: {message}"):
        srcad.gradient(f, *args)
