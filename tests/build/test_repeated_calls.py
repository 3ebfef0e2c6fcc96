"""Repeated calls take the fast path (srcad/build/plans.py): it must give what the first, checked
call gives, in every mode, and never serve code generated from a global that has since been
rebound. ForwardWithPrimal returns (tangent, value), in that order, on both paths."""


import numpy as np
import pytest
from helpers.user_modules import load_module

import srcad
from srcad import BatchDuplicated, Duplicated, Forward, ForwardWithPrimal


def cube(x):
    return x * x * x


def cube_sum(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i] * x[i]
    return s


@pytest.mark.parametrize("call", range(3), ids=["first", "second", "third"])
def test_forward_with_primal_returns_tangent_then_value(call):
    """x^3 at 2 with seed 0.5: value 8, tangent 3 * 4 * 0.5 = 6 (distinct, so a swap shows)."""
    srcad.build.cache.clear()
    for _ in range(call + 1):
        tangent, value = srcad.autodiff(ForwardWithPrimal, cube, Duplicated(2.0, 0.5))
    assert (tangent, value) == (6.0, 8.0)


@pytest.mark.parametrize("batch", ["unrolled", "stacked"])
def test_forward_with_primal_in_vector_mode(batch):
    """Lanes 1 and 3 of d(sum x^3) at x = [1, 2] in direction [1, 1]: 3 + 12 = 15, and 45."""
    x = np.array([1.0, 2.0])
    for _ in range(2):
        tangents, value = srcad.autodiff(ForwardWithPrimal, cube_sum,
                                         BatchDuplicated(x, np.array([[1.0, 1.0], [3.0, 3.0]])),
                                         batch=batch)
        assert value == 9.0
        np.testing.assert_array_equal(tangents, [15.0, 45.0])


def test_forward_mode_rebuilds_after_a_global_is_rebound(tmp_path):
    """The fast path checks that the globals the code was generated from are still bound to
    the same objects (forward mode as reverse mode: tests/build/test_cache.py)."""
    m = load_module(tmp_path, "forward_stale_constant", """
        SCALE = 2.0

        def f(x):
            return SCALE * x * x
    """)
    for _ in range(2):  # the second call takes the fast path
        assert srcad.autodiff(Forward, m.f, Duplicated(1.0, 1.0)) == 4.0
    m.SCALE = 5.0
    assert srcad.autodiff(Forward, m.f, Duplicated(1.0, 1.0)) == 10.0
    assert srcad.autodiff(ForwardWithPrimal, m.f, Duplicated(1.0, 1.0)) == (10.0, 5.0)


def test_forward_mode_rebuilds_after_an_inlined_helper_is_rebound(tmp_path):
    m = load_module(tmp_path, "forward_stale_helper", """
        def helper(x):
            return x * x

        def f(x):
            return helper(x) + 1.0
    """)
    for _ in range(2):
        assert srcad.autodiff(Forward, m.f, Duplicated(3.0, 1.0)) == 6.0
    m.helper = load_module(tmp_path, "forward_stale_helper_new",
                       "def helper(x):\n    return x * x * x\n").helper
    assert srcad.autodiff(Forward, m.f, Duplicated(3.0, 1.0)) == 27.0
    lanes = srcad.autodiff(Forward, m.f, BatchDuplicated(3.0, [1.0, 2.0]))
    np.testing.assert_array_equal(lanes, [27.0, 54.0])


def test_vector_mode_rebuilds_after_a_global_is_rebound(tmp_path):
    m = load_module(tmp_path, "vector_stale_constant", """
        SCALE = 2.0

        def f(x):
            s = 0.0
            for i in range(len(x)):
                s += SCALE * x[i] * x[i]
            return s
    """)
    x, seeds = np.array([1.0, 2.0]), np.array([[1.0, 0.0], [0.0, 1.0]])
    for _ in range(2):
        np.testing.assert_array_equal(
            srcad.autodiff(Forward, m.f, BatchDuplicated(x, seeds), batch="stacked"), [4.0, 8.0])
    m.SCALE = 5.0
    np.testing.assert_array_equal(
        srcad.autodiff(Forward, m.f, BatchDuplicated(x, seeds), batch="stacked"), [10.0, 20.0])


def test_repeated_reverse_calls_do_not_accumulate_gradients():
    """Each call's gradient is its own (the shadow is added into, as documented, so a fresh
    zero shadow per call gives the same gradient every time)."""
    x = np.array([1.0, 2.0])
    for _ in range(3):
        dx = np.zeros(2)
        srcad.autodiff(srcad.Reverse, cube_sum, Duplicated(x, dx))
        np.testing.assert_array_equal(dx, [3.0, 12.0])
