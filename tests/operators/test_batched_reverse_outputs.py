"""The python backend's default reverse-mode jacobian of a function writing an `Output(y)` or a
`Cache(c)` sweeps W rows at once (srcad/operators/batched_reverse.py), as it does for a function
returning its array: W chosen by the rows (equal sweeps, also when W does not divide them) and
bounded by the memory of the W-wide shadows (`LANE_BYTES`), one row a sweep where fewer than
four lanes would fit; each sweep starts from the Outputs, the Caches and x as the call was
given them, also after lanes stopped mid-sweep. Expected values: central differences, forward
mode and the sparse (colored forward) jacobian; every call also leaves f's values in the
Output."""

import math

import numpy as np
import pytest
from helpers.differences import central

import srcad
from srcad import Cache, Constant, Output
from srcad.operators import reverse_lane_count


def blend(y, x, c, a):
    """7 outputs of 9 inputs (forward mode by default: the tests ask for reverse); c is
    scratch, written then read; y is written in two loops, the second adding to the first's
    values."""
    n = len(x)
    for i in range(n):
        c[i] = math.sin(x[i]) * a + x[0] * x[i]
    for i in range(len(y)):
        y[i] = c[i] * c[i + 2] - math.exp(0.3 * x[i + 1])
    for i in range(len(y)):
        y[i] += a * x[(3 * i) % n] * c[(i + 5) % n]


def blend_values(x, a, rows=7):
    y = np.zeros(rows)
    blend(y, x, np.zeros(len(x)), a)
    return y


def grid(y, x):
    """A 2-D Output (3, 2) of 8 inputs, each entry reading three of them."""
    for i in range(3):
        for j in range(2):
            k = 2 * i + j
            y[i, j] = x[k] * x[k + 1] + math.tanh(x[k + 2]) * x[7]


def grid_values(x):
    y = np.zeros((3, 2))
    grid(y, x)
    return y


X = np.array([0.4, -1.1, 0.8, 1.7, 0.3, -0.6, 1.2, 0.9, -0.2])


def test_an_output_and_cache_function_sweeps_w_rows_by_default():
    a, y, c = 1.3, np.zeros(7), np.zeros(9)
    args = (Output(y), X, Cache(c), Constant(a))
    prep = srcad.prepare_jacobian(blend, *args, mode="reverse")
    assert prep.mode == "reverse" and prep.state.get("batched") and prep.chunk == 7
    for x in (X, X[::-1] * 0.7):  # prepared calls at two points
        J = srcad.jacobian(blend, Output(y), x, Cache(c), Constant(a), prep=prep)
        np.testing.assert_allclose(J, central(blend_values, x, a), rtol=1e-7, atol=1e-9)
        forward = srcad.jacobian(blend, Output(np.zeros(7)), x, Cache(np.zeros(9)),
                                 Constant(a), mode="forward")
        np.testing.assert_allclose(J, forward, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(y, blend_values(x, a), rtol=1e-15)  # f's values


@pytest.mark.parametrize("chunk", [2, 3, 5])
def test_w_rows_a_sweep_that_do_not_divide_the_rows(chunk):
    a, y, c = 0.6, np.zeros(7), np.zeros(9)
    J = srcad.jacobian(blend, Output(y), X, Cache(c), Constant(a), mode="reverse",
                       chunk=chunk)
    np.testing.assert_allclose(J, central(blend_values, X, a), rtol=1e-7, atol=1e-9)


def test_the_default_lane_count_makes_equal_sweeps(monkeypatch):
    monkeypatch.setitem(reverse_lane_count.MAX_REVERSE_LANES, "python", 5)
    a, y, c = 0.8, np.zeros(7), np.zeros(9)
    prep = srcad.prepare_jacobian(blend, Output(y), X, Cache(c), Constant(a), mode="reverse")
    assert prep.state.get("batched") and prep.chunk == 4  # 7 rows: a sweep of 4, one of 3
    J = srcad.jacobian(blend, Output(y), X, Cache(c), Constant(a), prep=prep)
    np.testing.assert_allclose(J, central(blend_values, X, a), rtol=1e-7, atol=1e-9)


def test_a_two_dimensional_output_sweeps_its_rows_at_once():
    y = np.zeros((3, 2))
    prep = srcad.prepare_jacobian(grid, Output(y), X[:8], mode="reverse")
    assert prep.state.get("batched") and prep.chunk == 6
    J = srcad.jacobian(grid, Output(y), X[:8], prep=prep)
    np.testing.assert_allclose(J, central(grid_values, X[:8]).reshape(6, 8), rtol=1e-7,
                               atol=1e-9)
    np.testing.assert_allclose(J, srcad.jacobian(grid, Output(np.zeros((3, 2))), X[:8],
                                                 mode="forward"), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(y, grid_values(X[:8]), rtol=1e-15)


@pytest.mark.parametrize("budget_lanes, batched", [(5, True), (3, False)])
def test_lanes_are_bounded_by_the_memory_of_their_shadows(monkeypatch, budget_lanes, batched):
    # the shadows of x (9), y (7, the seed) and c (9): 25 floats a lane
    monkeypatch.setattr(reverse_lane_count, "LANE_BYTES", 8 * 25 * budget_lanes)
    a, y, c = 1.1, np.zeros(7), np.zeros(9)
    args = (Output(y), X, Cache(c), Constant(a))
    prep = srcad.prepare_jacobian(blend, *args, mode="reverse")
    assert bool(prep.state.get("batched")) == batched
    if batched:
        assert prep.chunk == 4  # at most 5 lanes: 2 equal sweeps of the 7 rows
    J = srcad.jacobian(blend, *args, prep=prep)
    np.testing.assert_allclose(J, central(blend_values, X, a), rtol=1e-7, atol=1e-9)


def test_sparse_and_dense_jacobians_of_an_output_function_agree():
    a = 0.9
    dense = srcad.jacobian(blend, Output(np.zeros(7)), X, Cache(np.zeros(9)), Constant(a))
    sparse = srcad.jacobian(blend, Output(np.zeros(7)), X, Cache(np.zeros(9)), Constant(a),
                            sparse=True)
    np.testing.assert_allclose(sparse.toarray(), dense, rtol=1e-13, atol=1e-14)


def halved_into(y, x):
    """Reads y on entry; for x[i] <= 0 a NumPy call of x returns an array, which stops the
    lanes mid-sweep, after the rows of the positive x[i] before it were written."""
    for i in range(len(x)):
        if x[i] > 0.0:
            y[i] = 0.5 * y[i] + np.sin(x[i]) * x[0]
        else:
            y[i] = 0.5 * y[i] + np.sum(np.exp(x)) * x[i]


def halved_values(x, y):
    y = y.copy()
    halved_into(y, x)
    return y


def test_lanes_stopped_mid_sweep_leave_the_output_as_given_for_one_row_sweeps():
    x = np.linspace(0.3, 1.2, 6)
    given = np.linspace(-1.0, 1.0, 6)
    y = given.copy()
    prep = srcad.prepare_jacobian(halved_into, Output(y), x, mode="reverse")
    assert prep.state.get("batched")  # np.sin of a number: guarded, run with the lanes
    np.testing.assert_array_equal(y, given)  # the preparation's own sweep put y back
    point = x.copy()
    point[3] = -0.4  # the lanes write rows 0-2, then np.exp(x) stops them
    for at in (x, point, x):
        y = given.copy()
        J = srcad.jacobian(halved_into, Output(y), at, prep=prep)
        np.testing.assert_allclose(y, halved_values(at, given), rtol=1e-15)
        np.testing.assert_allclose(J, central(lambda v: halved_values(v, given), at),
                                   rtol=1e-7, atol=1e-9)
    assert not prep.state.get("batched")  # one row a sweep since the stop


def test_lanes_stopped_at_a_first_call_leave_the_output_as_given():
    point = np.linspace(0.3, 1.2, 6)
    point[3] = -0.4
    given = np.linspace(-1.0, 1.0, 6)
    y = given.copy()
    prep = srcad.prepare_jacobian(halved_into, Output(y), point, mode="reverse")
    np.testing.assert_array_equal(y, given)  # the python preparation runs no sweep
    J = srcad.jacobian(halved_into, Output(y), point, prep=prep)
    assert not prep.state.get("batched")
    np.testing.assert_allclose(y, halved_values(point, given), rtol=1e-15)
    np.testing.assert_allclose(J, central(lambda v: halved_values(v, given), point),
                               rtol=1e-7, atol=1e-9)


def writes_x(y, x):
    x[0] = x[0] * 2.0
    for i in range(len(y)):
        y[i] = math.sin(x[i]) * x[i + 1] + x[0]


def stale_cache(y, x, c):
    """Reads the Cache's content on entry before writing it."""
    for i in range(len(y)):
        c[i] = c[i] * 0.5 + x[i] * x[i + 2]
        y[i] = c[i] * math.cos(x[i + 1])


@pytest.mark.parametrize("function", [writes_x, stale_cache])
def test_each_sweep_starts_from_x_and_the_cache_as_given(function):
    given_c = np.linspace(1.0, 2.0, 9)
    extra = (Cache(given_c.copy()),) if function is stale_cache else ()

    def values(v):
        y = np.zeros(6)
        function(y, v.copy(), *[given_c.copy() for _ in extra])
        return y

    x = X.copy()
    prep = srcad.prepare_jacobian(function, Output(np.zeros(6)), x, *extra, mode="reverse")
    assert prep.state.get("batched") and prep.chunk == 6
    J = srcad.jacobian(function, Output(np.zeros(6)), x, *extra, prep=prep)
    np.testing.assert_array_equal(x, X)  # the caller's x as given
    np.testing.assert_allclose(J, central(values, X), rtol=1e-7, atol=1e-9)


def scratch_heavy(y, x):
    """Allocates a scratch array of 20000 floats, far more than its arguments hold (12 + 40)."""
    n = len(x)
    c = np.zeros(20000)
    for i in range(len(y)):
        c[i] = x[i % n] ** 2 + math.sin(x[(i + 3) % n])
        y[i] = c[i] * x[(i + 1) % n]


def scratch_heavy_values(x):
    y = np.zeros(12)
    scratch_heavy(y, x)
    return y


def test_lanes_are_bounded_by_the_arrays_f_allocates_too(monkeypatch):
    # room for 6 lanes of the arguments' shadows and the scratch array's adjoints (12 + 40 +
    # 20000 floats a lane), for 12 lanes of the shadows alone: the scratch array bounds W
    monkeypatch.setattr(reverse_lane_count, "LANE_BYTES", 8 * 20052 * 6)
    x = np.linspace(0.2, 1.4, 40)
    prep = srcad.prepare_jacobian(scratch_heavy, Output(np.zeros(12)), x, mode="reverse")
    assert prep.state.get("batched") and 4 <= prep.chunk <= 6
    J = srcad.jacobian(scratch_heavy, Output(np.zeros(12)), x, prep=prep)
    np.testing.assert_allclose(J, central(scratch_heavy_values, x), rtol=1e-7, atol=1e-9)
    forward = srcad.jacobian(scratch_heavy, Output(np.zeros(12)), x, mode="forward")
    np.testing.assert_allclose(J, forward, rtol=1e-13, atol=1e-14)
