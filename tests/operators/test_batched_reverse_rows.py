"""Batched reverse mode on the python backend (srcad/operators/batched_reverse.py): an
element read through a row of an adjoint array (`p_bar_row = p_bar[0]`, then
`v = p_bar_row[k]; p_bar_row[k] = 0.0`) is a copy of that element's lanes, not a view the
next write zeroes; a loop the reverse code may checkpoint (its plan made at run time) runs
with lanes too. Expected values: central differences and forward mode."""

import numpy as np
from helpers.differences import central

import srcad
from srcad.api import reverse_rows
from srcad.operators import reverse_lane_count


def first_row(x):
    p = np.zeros((2, x.size))
    for k in range(x.size):
        p[0, k] = x[k] * 2.0
    y = np.zeros(x.size)
    for k in range(x.size):
        y[k] = p[0, k] * x[0]
    return y


def test_an_element_read_through_a_row_of_an_adjoint_keeps_its_lanes():
    x = np.array([0.5, -1.0, 2.0, 0.3, 0.7])
    prep = srcad.prepare_jacobian(first_row, x, mode="reverse")
    assert prep.state.get("batched")  # W rows a sweep
    J = srcad.jacobian(first_row, x, prep=prep)
    np.testing.assert_allclose(J, central(first_row, x), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(srcad.jacrev(first_row)(x), srcad.jacfwd(first_row)(x),
                               rtol=1e-13, atol=1e-14)


def nested(x):
    y = np.zeros(x.size)
    for i in range(x.size):
        s = 0.0
        for k in range(3):
            s = s * 0.5 + x[(i + k) % x.size] * x[i]
        y[i] = s
    return y


def test_a_loop_the_reverse_code_may_checkpoint_sweeps_w_rows():
    x = np.linspace(0.2, 1.0, 6)
    assert "checkpoint_plan" in srcad.source(nested, srcad.Reverse,
                                             srcad.Duplicated(x, np.zeros(6)))
    prep = srcad.prepare_jacobian(nested, x, mode="reverse")
    assert prep.state.get("batched") and prep.chunk == 6
    np.testing.assert_allclose(srcad.jacobian(nested, x, prep=prep), central(nested, x),
                               rtol=1e-7, atol=1e-9)


def spread(x):
    y = np.zeros(10)
    for i in range(10):
        y[i] = x[i % 3] * x[(i + 1) % 3] * (i + 1.0) + np.sin(x[i % 3])
    return y


def test_jacrev_takes_fewer_lanes_where_their_memory_would_pass_the_bound(monkeypatch):
    sweeps = []
    original = reverse_rows.run
    monkeypatch.setattr(reverse_rows, "run", lambda *a: sweeps.append(1) or original(*a))
    # a lane holds the seed (10) and x's shadow (3): room for 4 lanes, so 3 sweeps of 4, 4, 2
    monkeypatch.setattr(reverse_lane_count, "LANE_BYTES", 8 * 13 * 4)
    x = np.array([0.3, -0.8, 1.1])
    J = srcad.jacrev(spread)(x)
    assert len(sweeps) == 3
    np.testing.assert_allclose(J, central(spread, x), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(J, srcad.jacfwd(spread)(x), rtol=1e-13, atol=1e-14)


def spread_with_scratch(x):
    """spread's values through a scratch array of 20000 floats, far more than x and y hold."""
    scratch = np.zeros(20000)
    y = np.zeros(10)
    for i in range(10):
        scratch[i] = x[i % 3] * x[(i + 1) % 3] * (i + 1.0)
        y[i] = scratch[i] + np.sin(x[i % 3])
    return y


def test_jacrev_lanes_are_bounded_by_the_arrays_f_allocates_too(monkeypatch):
    sweeps = []
    original = reverse_rows.run
    monkeypatch.setattr(reverse_rows, "run", lambda *a: sweeps.append(1) or original(*a))
    # a lane holds the seed (10), x's shadow (3) and the scratch array's adjoints (20000):
    # room for 4 lanes, 3 sweeps of the 10 rows (the seeds and shadows alone: one sweep)
    monkeypatch.setattr(reverse_lane_count, "LANE_BYTES", 8 * 20013 * 4)
    x = np.array([0.3, -0.8, 1.1])
    J = srcad.jacrev(spread_with_scratch)(x)
    assert len(sweeps) in (3, 4)  # 4, 3, 3 (or, for the call's own objects, 4 sweeps of 3)
    np.testing.assert_allclose(J, central(spread_with_scratch, x), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(J, srcad.jacfwd(spread_with_scratch)(x), rtol=1e-13, atol=1e-14)
