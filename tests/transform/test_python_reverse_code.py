"""The python backend's reverse code binds a row indexed in a loop to a view before the loop
(srcad/transform/row_views.py): `state[2 * k + 1, j]` becomes `state_row[j]`. The rows of a
state updated in place keep exact derivatives, and every loop where a view taken before the
loop would differ (a row index only valid while the loop runs, a row index the loop changes,
an early exit, an array the loop rebinds) still gets exact derivatives. An index computed
again and again is computed once (srcad/transform/index_reuse.py), an element read again is
read once until an array is written (srcad/transform/element_reuse.py), and an element
adjoint zeroed and then added to is assigned (srcad/transform/optimize.py)."""

import math
import re

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


def gates(w, x, n):
    """Four gates' weights in one vector, read at 0, n, 2n and 3n past i."""
    s = 0.0
    for i in range(n):
        a = math.tanh(x[i] * w[n + i] + w[2 * n + i])
        s += a * w[3 * n + i] + w[n + i] * w[2 * n + i]
    return s


def moving_index(a):
    s = 0.0
    k = 0
    for i in range(3):
        s += a[2 * k + i] * a[2 * k + i]
        k = k + 1
        s += a[2 * k + i] * math.sin(a[2 * k + i])
    return s


def test_an_index_computed_again_and_again_is_computed_once():
    w, x = np.random.default_rng(3).normal(size=12), np.random.default_rng(4).normal(size=3)
    source = srcad.source(gates, srcad.Reverse, srcad.Duplicated(w, np.zeros(12)), x, 3)
    assert re.search(r"index\w* = 2 \* n \+ i", source)
    assert "w_bar[2 * n + i]" not in source
    check_grads(gates, srcad.Duplicated(w, np.zeros(12)), x, 3, modes=("rev",))
    a = np.random.default_rng(5).normal(size=10)
    check_grads(moving_index, srcad.Duplicated(a, np.zeros(10)), modes=("rev",))


def running_product(x):
    for i in range(1, x.shape[0]):
        x[i] = x[i] * x[i - 1] + math.sin(x[i])
    return x[x.shape[0] - 1]


def test_an_element_adjoint_zeroed_then_added_to_is_assigned():
    x = np.random.default_rng(6).uniform(0.5, 1.0, size=5)
    source = srcad.source(running_product, srcad.Reverse, srcad.Duplicated(x, np.zeros(5)))
    lines = [line.strip() for line in source.splitlines()]
    assert not any(line == "x_bar[i] = 0.0" and following.startswith("x_bar[i] +=")
                   for line, following in zip(lines, lines[1:]))
    check_grads(running_product, srcad.Duplicated(x, np.zeros(5)), modes=("rev",))


def read_write_read(a):
    """Elements read twice, written (through the row the pass binds, and through the array),
    then read again: a read after a write is a new read."""
    s = 0.0
    for i in range(a.shape[1]):
        s += a[0, i] * a[0, i]
        a[0, i] = a[0, i] * 2.0 + s
        s += a[0, i] * a[1, i]
        a[1, i] = a[0, i] * a[1, i]
        s += a[1, i] * a[1, i]
    return s


def test_an_element_read_again_is_read_once_until_an_array_is_written():
    a = np.random.default_rng(7).uniform(0.5, 1.0, size=(2, 4))
    source = srcad.source(read_write_read, srcad.Reverse, srcad.Duplicated(a, np.zeros((2, 4))))
    assert re.search(r"\w+_read = a\w*\[", source)
    check_grads(read_write_read, srcad.Duplicated(a, np.zeros((2, 4))), modes=("rev",))
    params, state, inputs = _cell_args()
    source = srcad.source(cell_rows, srcad.Reverse, srcad.Duplicated(params, np.zeros((4, 3))),
                          srcad.Duplicated(state, np.zeros((4, 3))), inputs)
    assert "tape.append(state_row_read" in source  # the taped element is the one computed with
