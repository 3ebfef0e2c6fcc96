"""np.maximum, np.minimum and np.clip where they have no derivative: JAX's answers (a tie
shares the derivative equally, a NaN operand gets none, np.clip is np.minimum(np.maximum(x,
lo), hi) differentiated as such), in reverse and forward mode on both backends. Expected
values by hand from those definitions. Python's builtin min/max keep Python's meaning (the
first operand on a tie: tests/rules/test_min_max_nan.py)."""

import math

import numpy as np
import pytest

import srcad

BACKENDS = ["python", "numba"]  # numba is a test dependency (pyproject dev extra)
C = np.array([1.0, 2.0, 3.0, 4.0])


def weighted_maximum(x, y):
    return np.sum(np.maximum(x, y) * C)


def weighted_minimum(x, y):
    return np.sum(np.minimum(x, y) * C)


def scalar_extrema(x, y):
    return np.maximum(x, y) * 3.0 + np.minimum(x, y) * 5.0


def weighted_clip(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) * C)


def both(f, argnums, backend, *args):
    """The reverse-mode gradient and the forward-mode jacobian's row, which must agree."""
    reverse = srcad.grad(f, argnums=argnums, backend=backend)(*args)
    forward = srcad.jacfwd(f, argnums=argnums, backend=backend)(*args)
    return reverse, forward


@pytest.mark.parametrize("backend", BACKENDS)
def test_array_maximum_and_minimum_share_ties_and_pass_nothing_at_nan(backend):
    x = np.array([1.0, math.nan, 2.0, 3.0])
    y = np.array([1.0, 1.0, 3.0, 2.0])
    for f, dx, dy in ((weighted_maximum, [0.5, 0.0, 0.0, 4.0], [0.5, 0.0, 3.0, 0.0]),
                      (weighted_minimum, [0.5, 0.0, 3.0, 0.0], [0.5, 0.0, 0.0, 4.0])):
        for got in both(f, (0, 1), backend, x, y):
            np.testing.assert_array_equal(got[0], dx)
            np.testing.assert_array_equal(got[1], dy)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x, y, expected", [(1.0, 1.0, (4.0, 4.0)), (2.0, 1.0, (3.0, 5.0)),
                                            (1.0, 2.0, (5.0, 3.0)), (math.nan, 1.0, (0.0, 0.0)),
                                            (1.0, math.nan, (0.0, 0.0))])
def test_scalar_maximum_and_minimum_as_jax(backend, x, y, expected):
    for got in both(scalar_extrema, (0, 1), backend, x, y):
        assert tuple(float(v) for v in got) == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_clip_shares_the_derivative_where_x_meets_a_bound(backend):
    x = np.array([0.0, 1.0, 0.5, 2.0])  # at lo, at hi, inside, above
    for got in both(weighted_clip, (0, 1, 2), backend, x, 0.0, 1.0):
        np.testing.assert_array_equal(got[0], [0.5, 1.0, 3.0, 0.0])
        assert float(got[1]) == 0.5 * 1.0
        assert float(got[2]) == 0.5 * 2.0 + 4.0
    below = np.array([-1.0, math.nan, 0.5, 1.0])  # below, NaN, inside, at hi
    for got in both(weighted_clip, (0, 1, 2), backend, below, 0.0, 1.0):
        np.testing.assert_array_equal(got[0], [0.0, 0.0, 3.0, 2.0])
        assert float(got[1]) == 1.0 and float(got[2]) == 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_clip_to_a_single_point(backend):
    # lo == hi == x: np.maximum's tie halves g for x and lo, np.minimum's tie halves it again
    x = np.array([1.0, 1.0, 0.0, 3.0])
    for got in both(weighted_clip, (0, 1, 2), backend, x, 1.0, 1.0):
        np.testing.assert_array_equal(got[0], [0.25, 0.5, 0.0, 0.0])
        # x = 0 is cut off to lo = 1, which then ties hi: lo and hi get half of g each
        assert float(got[1]) == 0.25 * 1.0 + 0.25 * 2.0 + 0.5 * 3.0
        assert float(got[2]) == 0.5 * 1.0 + 0.5 * 2.0 + 0.5 * 3.0 + 4.0
