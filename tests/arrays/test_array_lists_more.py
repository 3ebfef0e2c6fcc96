"""Lists of arrays, the rest of what people write: np.vstack/hstack/concatenate/column_stack/
stack(axis=) of a grown list (srcad/transform/normalize/list_building.py) or of a list
variable of known length, lists of matrices (an array of rank 3, array_rows.py) and rows
whose length is computed (`np.concatenate([x, y])`, row_shapes.py). Every derivative is
checked against finite differences and forward against reverse."""

import numpy as np
import pytest

import srcad
from srcad import Const, Duplicated
from srcad.testing import check_grads


def dup(a):
    return Duplicated(a, np.zeros_like(a))


rng = np.random.default_rng(7)
W = rng.normal(size=(3, 3)) * 0.5
XS = rng.normal(size=(4, 3))
H0 = rng.normal(size=3)
WEIGHTS = rng.normal(size=12)


def vstack_history(W, xs, h0):
    hs = []
    h = h0.copy()
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        hs.append(h)
    return np.sum(np.vstack(hs) ** 2 * xs)


def hstack_and_concatenate(W, xs, h0):
    hs = []
    h = h0.copy()
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        hs.append(h)
    flat = np.hstack(hs) * np.concatenate(hs, axis=0)
    return np.sum(flat * np.arange(1.0, 13.0)) + np.sum(np.concatenate(hs, axis=None) ** 3)


def stacked_columns(W, xs, h0):
    hs = []
    h = h0.copy()
    for t in range(xs.shape[0]):
        h = np.sin(W @ h) + xs[t]
        hs.append(h)
    columns = np.stack(hs, axis=1)  # (3, 4)
    return np.sum(columns @ xs) + np.sum(np.column_stack(hs) * np.stack(hs, axis=-1) ** 2)


def rows_under_a_condition(xs, w):
    rs = []
    for i in range(xs.shape[0]):
        if xs[i, 0] > -0.5:
            rs.append(xs[i] * w)
    s = 0.0
    if len(rs) > 0:
        s = np.sum(np.vstack(rs) ** 2) + np.sum(np.hstack(rs) * np.hstack(rs)[0])
    return s


def stacked_while_filling(xs, w):
    rs = []
    s = 0.0
    for i in range(xs.shape[0]):
        rs.append(np.tanh(xs[i] * w))
        s += np.sum(np.vstack(rs)[-1] * np.column_stack(rs)[:, 0])
    return s


def joined_numbers(x, a):
    ys = []
    for i in range(x.shape[0]):
        ys.append(x[i] * a + x[i] ** 2)
    column = np.vstack(ys)  # (n, 1)
    row = np.column_stack(ys)  # (1, n)
    return np.sum(column @ row * x) + np.sum(np.hstack(ys) * np.stack(ys, axis=-1))


def list_variables(a, x):
    parts = [a, x * x[0]]
    q = [a * 2.0, a]
    mats = [np.outer(a, a), np.outer(a, a) * a[0]]
    return (np.sum(np.concatenate(parts) ** 2) + np.sum(np.vstack(q) * np.column_stack(q)[:, :1])
            + np.sum(np.stack(q, axis=1)[0]) + np.sum(np.hstack(parts) ** 3)
            + np.sum(np.concatenate(mats, axis=1) ** 2))


def written_out_columns(a, x):
    return np.sum(np.column_stack([a, a * x[0]]) ** 2) + np.sum(
        np.column_stack([np.outer(a, x), np.outer(a, a)]) * 0.5)


def covariances(F, Q, P0):
    Ps = []
    P = P0.copy()
    for _t in range(3):
        P = F @ P @ F.T + Q
        Ps.append(P)
    total = 0.0
    for S in Ps:
        total += np.sum(S * S)
    return (np.sum(np.stack(Ps) ** 2) + np.sum(Ps[-1] @ Ps[0]) + np.sum(sum(Ps))
            + total * len(Ps) + np.sum(np.vstack(Ps) * np.concatenate(Ps)))


def covariances_when(F, x, P0):
    Ps = []
    P = P0.copy()
    for t in range(x.shape[0]):
        if x[t] > -0.5:
            P = F @ P @ F.T * 0.5 + np.outer(x, x)
            Ps.append(P)
    s = np.sum(np.array(Ps) ** 2)
    if len(Ps) > 1:
        s += np.sum(Ps[1] * Ps[-1]) + np.sum(np.mean(np.stack(Ps), axis=0))
    return s


def outer_products(H, w):
    Ms = []
    for t in range(H.shape[0]):
        Ms.append(np.outer(H[t], w) * w[0])
    return np.sum(np.stack(Ms) ** 2) + np.sum(Ms[1])


def joined_rows(x, y):
    ys = []
    for i in range(3):
        ys.append(np.concatenate([x * i, np.sin(y)]))
    return np.sum(np.stack(ys) ** 2) + np.sum(np.vstack(ys)[1] * ys[-1])


def looped_by_its_name(W, xs, h0):
    hs = []
    h = h0.copy()
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        hs.append(h)
    Ms = []
    M = np.outer(h, h)
    for t in range(2):
        M = M @ W * 0.5 + np.outer(xs[t], h)
        Ms.append(M)
    total = 0.0
    for h in hs:
        total += np.sum(h ** 2)
    for M in Ms:
        total += np.sum(M * M)
    return total


def prefix_rows_after_a_join(X, x, a):
    hs = []
    h = X[0] * a
    for i in range(1, X.shape[0]):
        h = np.tanh(h * 0.5 + X[i] * a)
        hs.append(h)
        a = a * 0.9 + np.sum(np.stack(hs, axis=1)) * 0.1  # a join while it fills
    rs = []
    for i in range(X.shape[0]):
        if x[i] > -0.5:
            rs.append(np.concatenate([X[i] * a, x[:2] * 0.5]))
    return np.sum(np.vstack(hs) ** 2) + np.sum(np.vstack(rs)[-1] * np.column_stack(rs)[0, 0])


def matrices_side_by_side(x, w):
    Ms = []
    for i in range(3):
        Ms.append(np.outer(x, w) * (i + 1.0))
    wide = np.hstack(Ms) * np.concatenate(Ms, axis=1) + np.column_stack(Ms)  # (3, 6)
    deep = np.stack(Ms, axis=1)  # (3, 3, 2)
    last = np.stack(Ms, axis=-1)  # (3, 2, 3)
    return np.sum(wide ** 2 * np.arange(18.0).reshape(3, 6)) + np.sum(deep[0] ** 3) \
        + np.sum(last[1] * deep[2].T) + np.sum(np.concatenate(Ms, axis=-1)[2] ** 2)


def of_arrays(X, A):
    return (np.sum(np.vstack(X) ** 2) + np.sum(np.hstack(X) * WEIGHTS[:6])
            + np.sum(np.concatenate(A) ** 3) + np.sum(np.stack(X, axis=1)[0])
            + np.sum(np.hstack(A) ** 2))


CASES = {
    "vstack_history": (vstack_history, lambda: (Const(W), dup(XS), dup(H0))),
    "hstack_and_concatenate": (hstack_and_concatenate, lambda: (dup(W), Const(XS), dup(H0))),
    "stacked_columns": (stacked_columns, lambda: (dup(W), dup(XS), Const(H0))),
    "rows_under_a_condition": (rows_under_a_condition, lambda: (dup(XS), dup(H0))),
    "stacked_while_filling": (stacked_while_filling, lambda: (Const(XS), dup(H0))),
    "joined_numbers": (joined_numbers, lambda: (dup(H0), srcad.Active(0.7))),
    "list_variables": (list_variables, lambda: (dup(rng.normal(size=2)),
                                                dup(rng.normal(size=3)))),
    "written_out_columns": (written_out_columns, lambda: (dup(rng.normal(size=2)),
                                                          Const(rng.normal(size=2)))),
    "covariances": (covariances, lambda: (dup(W), Const(np.eye(3) * 0.1), dup(np.eye(3)))),
    "covariances_when": (covariances_when, lambda: (Const(W), dup(H0), dup(np.eye(3)))),
    "outer_products": (outer_products, lambda: (dup(XS), dup(H0))),
    "joined_rows": (joined_rows, lambda: (dup(H0[:2]), dup(H0))),
    "looped_by_its_name": (looped_by_its_name, lambda: (dup(W), Const(XS), dup(H0))),
    "prefix_rows_after_a_join": (prefix_rows_after_a_join, lambda: (
        dup(XS), dup(rng.normal(size=4)), srcad.Active(0.8))),
    "matrices_side_by_side": (matrices_side_by_side, lambda: (dup(H0), dup(H0[:2]))),
    "of_arrays": (of_arrays, lambda: (dup(rng.normal(size=(2, 3))),
                                      dup(rng.normal(size=(2, 2, 3))))),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_lists_of_arrays_build_arrays_in_every_mode(case):
    f, args = CASES[case]
    check_grads(f, *args())


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("case", ["vstack_history", "covariances"])
def test_lists_of_arrays_build_arrays_under_numba(case):
    f, args = CASES[case]
    check_grads(f, *args(), modes=("rev", "fwd"), backend="numba")


def test_the_gradient_of_covariances_by_hand():
    # P_t = F P_{t-1} F^T + Q with F = 0: every P_t is Q, f = 3 sum(Q ** 2), df/dQ = 6 Q
    def f(F, Q):
        Ps = []
        P = np.eye(2)
        for _t in range(3):
            P = F @ P @ F.T + Q
            Ps.append(P)
        return np.sum(np.stack(Ps) ** 2)

    Q = np.array([[0.3, -0.2], [0.1, 0.5]])
    grad = srcad.gradient(f, srcad.Constant(np.zeros((2, 2))), Q)
    np.testing.assert_allclose(grad, 6.0 * Q, rtol=1e-12)


def empty_vstack(x):
    rows = []
    for i in range(x.shape[0]):
        if x[i] > 10.0:
            rows.append(x * x[i])
    return np.sum(np.vstack(rows))


def ragged_matrices(x):
    Ms = []
    M = np.outer(x, x)
    for i in range(2):
        Ms.append(M)
        M = np.outer(x[:i + 1], x)
    total = 0.0
    for P in Ms:
        total += np.sum(P)
    return total


def test_an_empty_list_raises_as_numpy_does():
    with pytest.raises(ValueError, match="need at least one array"):
        empty_vstack(np.ones(3))
    with pytest.raises(ValueError, match=r"np.vstack of an empty list \(NumPy raises: need "
                       "at least one array to concatenate"):
        srcad.autodiff(srcad.Reverse, empty_vstack, dup(np.ones(3)))


def test_matrices_of_two_shapes_raise():
    ragged_matrices(np.ones(3))  # a list of arrays of two shapes is fine in Python
    with pytest.raises(ValueError, match="the arrays appended to `Ms` have different shapes"):
        srcad.autodiff(srcad.Reverse, ragged_matrices, dup(np.ones(3)))


def numbers_joined(x):
    ys = []
    for i in range(3):
        ys.append(x[i] * 2.0)
    return np.sum(np.concatenate(ys))


def in_a_conditional_expression(x):
    rows = []
    for i in range(3):
        rows.append(x * i)
    return np.sum(np.vstack(rows)) if x[0] > 0.0 else 0.0


def vstack_along(x):
    rows = []
    for i in range(3):
        rows.append(x * i)
    return np.sum(np.vstack(rows, axis=1))


def beyond_the_axes(x):
    rows = []
    for i in range(3):
        rows.append(x * i)
    return np.sum(np.stack(rows, axis=2))


@pytest.mark.parametrize("f, offset, message", [
    (numbers_joined, 4, r"np.concatenate: np.concatenate of a list or array of numbers "
     r"\(NumPy raises ValueError: zero-dimensional arrays cannot be concatenated\)"),
    (in_a_conditional_expression, 4, r"np.vstack: np.vstack of a list or array inside a "
     r"conditional expression"),
    (vstack_along, 4, r"np.vstack: np.vstack of a list or array with axis= \(NumPy's takes "
     r"none: a TypeError\)"),
    (beyond_the_axes, 4, r"np.stack: np.stack of a list or array of rows of rank 1 with "
     r"axis=2 \(NumPy raises an AxisError\)"),
])
def test_what_cannot_be_built_is_refused_at_the_call(f, offset, message):
    line = f.__code__.co_firstlineno + offset
    with pytest.raises(srcad.UnsupportedSyntaxError,
                       match=rf"test_array_lists_more.py:{line}:\d+: {message}"):
        srcad.autodiff(srcad.Reverse, f, dup(np.ones(3)))
