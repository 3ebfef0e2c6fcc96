"""The python backend's reverse code binds a row indexed in a loop to a view before the loop
(srcad/transform/row_views.py): `state[2 * k + 1, j]` becomes `state_row[j]`. The rows of a
state updated in place keep exact derivatives, and every loop where a view taken before the
loop would differ (a row index only valid while the loop runs, a row index the loop changes,
an early exit, an array the loop rebinds) still gets exact derivatives."""

import math

import numpy as np

import srcad
from srcad.testing import check_grads


def cell_rows(params, state, inputs):
    """An LSTM-like cell: rows of `state` updated in place, element by element."""
    layers, b = state.shape[0] // 2, state.shape[1]
    total = 0.0
    for t in range(inputs.shape[0]):
        for layer in range(layers):
            for i in range(b):
                gate = 1.0 / (1.0 + math.exp(-(inputs[t, i] * params[2 * layer, i]
                                               + state[2 * layer, i])))
                state[2 * layer + 1, i] = state[2 * layer + 1, i] * gate \
                    + params[2 * layer + 1, i] * math.tanh(state[2 * layer, i])
                state[2 * layer, i] = gate * math.tanh(state[2 * layer + 1, i])
        for i in range(b):
            total += state[2 * layers - 2, i] * inputs[t, i]
    return total


def _cell_args(seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(3, 3))


def test_rows_of_a_state_updated_in_place_are_bound_once_per_loop():
    params, state, inputs = _cell_args()
    source = srcad.source(cell_rows, srcad.Reverse, srcad.Duplicated(params, np.zeros((4, 3))),
                          srcad.Duplicated(state, np.zeros((4, 3))), inputs)
    assert "state_row = state[2 * layer + 1]" in source or \
        "state_row = state[2 * layer]" in source
    assert "state_bar_row" in source  # the adjoint's rows too
    assert "inputs_row = inputs[t]" in source  # a constant array's rows too
    check_grads(cell_rows, srcad.Duplicated(params, np.zeros((4, 3))),
                srcad.Duplicated(state, np.zeros((4, 3))), inputs, modes=("rev",))


def upper_rows(a):
    """Row i + 1 is out of range at i = n - 1, where the inner loop has no trips."""
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            s += a[i + 1, j] * a[i + 1, j - 1] + a[i, j]
    return s


def test_a_row_only_valid_while_the_loop_runs_is_not_taken_before_it():
    a = np.random.default_rng(1).normal(size=(4, 4))
    source = srcad.source(upper_rows, srcad.Reverse, srcad.Duplicated(a, np.zeros((4, 4))))
    assert "a_row" in source  # taken under `if j_range:`
    check_grads(upper_rows, srcad.Duplicated(a, np.zeros((4, 4))), modes=("rev",))


def moving_row(a):
    k = 0
    s = 0.0
    for j in range(a.shape[1]):
        s += a[k, j] * a[k, j]
        k = (k + 1) % a.shape[0]
        a[k, j] = a[k, j] * s
    return s


def early_exit(a):
    s = 0.0
    for j in range(a.shape[1]):
        if s > 2.0:
            break
        s += a[1, j] * a[1, j]
    return s


def rebound_rows(a):
    s = 0.0
    b = a * 1.0
    for j in range(a.shape[1]):
        s += b[1, j] * b[0, j]
        b = b * 0.5
    return s


def test_rows_a_view_would_get_wrong_keep_exact_derivatives():
    for f in (moving_row, early_exit, rebound_rows):
        a = np.random.default_rng(2).uniform(0.5, 1.0, size=(3, 5))
        check_grads(f, srcad.Duplicated(a, np.zeros((3, 5))), modes=("rev",))
        source = srcad.source(f, srcad.Reverse, srcad.Duplicated(a, np.zeros((3, 5))))
        if f is not rebound_rows:  # b's row is still a view (of the new b) after the loop
            assert "a_row" not in source, f.__name__
