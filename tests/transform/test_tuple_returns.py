"""A function returning a tuple is differentiated value by value (one seed per value in
reverse mode, a tuple of tangents in forward mode; the operators follow JAX), and a call with
no derivative rule runs as it is on constants."""

import inspect
import math

import numpy as np
import pytest
import scipy.special

import srcad
from srcad.testing import check_grads
from tests.helpers import tuple_return_models as m

X = np.array([1.0, 2.0])


def test_reverse_takes_one_seed_per_value():
    # d(x^2)/dx = 2x = 4, d(3x)/dx = 3 at x = 2
    assert srcad.autodiff(srcad.Reverse, m.pair, srcad.Active(2.0), seed=(1.0, 0.0)) == (4.0,)
    assert srcad.autodiff(srcad.Reverse, m.pair, srcad.Active(2.0), seed=(0.0, 1.0)) == (3.0,)
    (d,), value = srcad.autodiff(srcad.ReverseWithPrimal, m.pair, srcad.Active(2.0),
                                 seed=(0.5, 2.0))
    assert d == 0.5 * 4.0 + 2.0 * 3.0 and value == (4.0, 6.0)
    with pytest.raises(srcad.ArgumentError, match="one seed per value"):
        srcad.autodiff(srcad.Reverse, m.pair, srcad.Active(2.0))


def test_forward_returns_a_tuple_of_tangents():
    assert srcad.autodiff(srcad.Forward, m.pair, srcad.Duplicated(2.0, 1.0)) == (4.0, 3.0)
    lanes = srcad.autodiff(srcad.Forward, m.pair, srcad.BatchDuplicated(2.0, [1.0, 2.0]))
    np.testing.assert_allclose(lanes[0], [4.0, 8.0])
    np.testing.assert_allclose(lanes[1], [3.0, 6.0])


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_floats_and_arrays_all_modes(backend):
    modes = ("fwd", "rev", "vec") if backend == "python" else ("fwd", "rev")
    check_grads(m.mixed, srcad.Duplicated(X, np.zeros(2)), srcad.Active(0.7), modes=modes,
                backend=backend)


def test_tuple_returned_on_several_paths():
    # two_returns: (x, 2x) for x > 0, else (-x, x)
    assert srcad.autodiff(srcad.Reverse, m.two_returns, srcad.Active(1.5),
                          seed=(1.0, 1.0)) == (3.0,)
    assert srcad.autodiff(srcad.Reverse, m.two_returns, srcad.Active(-1.5),
                          seed=(1.0, 0.5)) == (-0.5,)
    assert srcad.autodiff(srcad.Forward, m.two_returns, srcad.Duplicated(-1.5, 1.0)) == (-1.0,
                                                                                        1.0)
    x = np.array([0.5, -1.0])
    for a in (0.5, -0.5):  # the first return, then the last (past the loop's returns)
        check_grads(m.early_returns, srcad.Duplicated(x, np.zeros(2)), srcad.Active(a))
    first, second = srcad.jacobian(m.early_returns, x, srcad.Constant(-0.5))
    np.testing.assert_allclose(first, [x[1], x[0]])  # d(x1 x0)/dx
    np.testing.assert_allclose(second, [-0.5, 0.0])  # d(a x0)/dx
    # if/else both returning (the operators see a tuple output without a final return)
    y, s = srcad.jacobian(m.branch_returns, x)
    np.testing.assert_allclose(y, 2.0 * np.eye(2))
    np.testing.assert_allclose(s, [1.0, 0.0])
    y, s = srcad.jacobian(m.branch_returns, -x, mode="reverse")
    np.testing.assert_allclose(y, [[1.0, -0.5], [0.0, 2.0]])  # d(x x1)/dx at (-0.5, 1)
    np.testing.assert_allclose(s, [0.0, 1.0])
    check_grads(m.branch_returns, srcad.Duplicated(-x, np.zeros(2)), backend="numba",
                modes=("fwd", "rev"))


def test_tuple_returns_of_other_lengths_are_refused_at_their_line():
    lines, _ = inspect.getsourcelines(m.uneven_returns)
    start = lines and m.uneven_returns.__code__.co_firstlineno
    with pytest.raises(srcad.UnsupportedSyntaxError,
                       match=rf"tuple_return_models.py:{start + 3}:5: return: every return "
                       "of a function returning a tuple of 2 values must return 2 values"):
        srcad.autodiff(srcad.Forward, m.uneven_returns, srcad.Duplicated(1.0, 1.0))
    start = m.falls_off.__code__.co_firstlineno
    with pytest.raises(srcad.UnsupportedSyntaxError,
                       match=rf"tuple_return_models.py:{start + 4}:5: return: a function "
                       "returning a tuple must return one on every path"):
        srcad.autodiff(srcad.Forward, m.falls_off, srcad.Duplicated(1.0, 1.0))


def test_operators_follow_jax():
    for mode in ("forward", "reverse"):
        jac = srcad.jacobian(m.mixed, X, srcad.Constant(0.7), mode=mode)
        assert isinstance(jac, tuple) and len(jac) == 4
        np.testing.assert_allclose(jac[0], 2 * X * 0.7)  # d(sum a x^2)/dx
        np.testing.assert_allclose(jac[1], 0.7 * np.eye(2))
        np.testing.assert_allclose(jac[2], [0.0, 0.0])
    assert srcad.jacobian(m.pair, 2.0) == (4.0, 3.0)
    vjp = srcad.pullback(m.mixed, X, srcad.Constant(0.7),
                         cotangent=(1.0, np.array([1.0, 0.0]), 0.0, 0.0))
    np.testing.assert_allclose(vjp, 2 * X * 0.7 + [0.7, 0.0])
    jvp = srcad.pushforward(m.mixed, X, srcad.Constant(0.7), tangent=np.array([1.0, 0.0]))
    assert jvp[0] == pytest.approx(1.4) and jvp[2] == 0.0
    np.testing.assert_allclose(jvp[1], [0.7, 0.0])


def test_calls_on_constants_need_no_rule():
    c = math.lgamma(2.0) + scipy.special.gammaln(4.0)
    (d, _) = srcad.autodiff(srcad.Reverse, m.log_prior, srcad.Active(1.5), 4)
    assert d == pytest.approx(2 * c * 1.5)
    check_grads(m.log_prior, srcad.Active(1.5), 4)
    with pytest.raises(srcad.UnsupportedCallError, match="tuple_return_models.py:.*nextafter.*"
                       "carries a derivative"):
        srcad.autodiff(srcad.Reverse, m.rule_needed, srcad.Active(1.5))


def test_numba_vector_mode_of_whole_array_tuple_joins_each_value_lanes():
    # whole-array code under numba runs its lanes in unrolled chunks; each value's lanes join
    x = np.array([0.3, -0.7, 1.1])
    lanes = srcad.autodiff(srcad.Forward, m.whole_array_values,
                           srcad.BatchDuplicated(x, list(np.eye(3))), 0.7, backend="numba")
    np.testing.assert_allclose(lanes[0], [0.7, 0.7, 0.7])  # d sum(a x) / dx_k
    np.testing.assert_allclose(lanes[1], np.diag(2 * x))   # d x^2 / dx_k, lane k
    np.testing.assert_allclose(lanes[2], [0.0, 0.0, 0.0])


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_an_int_returned_beside_a_float_has_a_zero_tangent_in_forward_mode(backend):
    # d(2a)/da = 2; the index holds no derivative: 0, as jacrev gives and an int returned alone
    x = np.array([1.0, 0.5])
    tangent, value = srcad.autodiff(srcad.ForwardWithPrimal, m.value_and_index, srcad.Const(x),
                                    srcad.Duplicated(3.0, 1.0), backend=backend)
    assert value == (6.0, 1) and tangent == (2.0, 0.0)
    assert srcad.jacfwd(m.value_and_index, argnums=1, backend=backend)(x, 3.0) == (2.0, 0.0)
    if backend == "python":
        lanes = srcad.autodiff(srcad.Forward, m.value_and_index, srcad.Const(x),
                               srcad.BatchDuplicated(3.0, [1.0, 2.0]))
        np.testing.assert_array_equal(lanes[0], [2.0, 4.0])
        np.testing.assert_array_equal(lanes[1], [0.0, 0.0])
