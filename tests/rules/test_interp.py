"""np.interp(x, xp, fp) differentiates in x and fp as jnp.interp: the slope of x's interval
(the right-hand one at a knot, the last one at xp[-1]), 0 outside the knots; in fp the linear
weights (fp[0] below, fp[-1] above, constants where left= / right= are given), on both
backends. Knots xp carrying a derivative, second order, and left= / right= on numba (numba's
np.interp takes neither) are refused by name."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

XP = np.array([0.0, 1.0, 3.0, 4.0])
FP = np.array([0.0, 2.0, 3.0, 1.0])


def squares(x, fp):
    return np.sum(np.interp(x, XP, fp) ** 2)


def scaled(x, fp):
    return np.interp(x, XP, fp) * 2.0


def with_ends(x, fp):
    return np.sum(np.interp(x, XP, fp, left=-1.0, right=5.0) * np.cos(x))


def moving_knots(xp):
    return np.interp(1.5, xp, FP)


def test_interp_slopes_by_hand_at_knots_and_outside():
    # slopes of the intervals: 2, 0.5, -2; at a knot the right-hand interval, at xp[-1] the
    # last one, outside 0; d/dfp: the weights of x's two knots
    cases = [(-1.0, 0.0, [2.0, 0, 0, 0]), (0.0, 4.0, [2.0, 0, 0, 0]),
             (1.0, 1.0, [0, 2.0, 0, 0]), (2.0, 1.0, [0, 1.0, 1.0, 0]),
             (4.0, -4.0, [0, 0, 0, 2.0]), (5.0, 0.0, [0, 0, 0, 2.0])]
    for x, d_x, d_fp in cases:
        for derivative in (srcad.grad, srcad.jacfwd):
            got_x, got_fp = derivative(scaled, argnums=(0, 1))(x, FP)
            assert got_x == pytest.approx(d_x), x
            np.testing.assert_allclose(got_fp, d_fp, atol=1e-15)


def test_interp_agrees_with_finite_differences_in_every_mode():
    x = np.array([-0.5, 0.3, 1.7, 2.5, 3.9, 4.5])
    check_grads(squares, srcad.Duplicated(x, np.zeros(6)), srcad.Duplicated(FP.copy(),
                                                                             np.zeros(4)))
    check_grads(with_ends, srcad.Duplicated(x, np.zeros(6)), srcad.Duplicated(FP.copy(),
                                                                               np.zeros(4)))
    check_grads(scaled, srcad.Active(2.2), srcad.Const(FP.copy()))  # fp a constant
    check_grads(scaled, srcad.Const(2.2), srcad.Duplicated(FP.copy(), np.zeros(4)))


def test_interp_agrees_with_jax_at_knots_and_outside():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0])
    expected = jax.grad(lambda x, fp: jnp.sum(jnp.interp(x, jnp.asarray(XP), fp) ** 2),
                        argnums=(0, 1))(jnp.asarray(x), jnp.asarray(FP))
    for got in (srcad.grad(squares, argnums=(0, 1))(x, FP),
                srcad.jacfwd(squares, argnums=(0, 1))(x, FP)):
        for e, g in zip(expected, got):
            np.testing.assert_allclose(g, np.asarray(e), atol=1e-12)


def test_interp_refuses_knots_that_carry_a_derivative_by_name():
    with pytest.raises(srcad.SrcadError, match="knots xp carry a derivative") as refused:
        srcad.grad(moving_knots)(XP)
    assert "test_interp.py" in str(refused.value)


def test_interp_in_second_order_is_refused_by_name():
    with pytest.raises(srcad.SrcadError, match="np.interp"):
        srcad.hessian(lambda x: scaled(x, FP))(1.5)


def test_interp_with_ends_is_refused_by_name_on_numba():
    # numba's np.interp takes no left= / right=
    with pytest.raises(srcad.SrcadError, match="left= or right=") as refused:
        srcad.grad(with_ends, backend="numba")(np.array([0.5]), FP)
    assert "test_interp.py" in str(refused.value)


def on_a_grid(x, fp):
    return np.sum(np.interp(x, XP, fp) * x)


@pytest.mark.slow  # numba compiles four derivatives
def test_interp_on_numba_as_on_python_at_knots_outside_and_nan():
    # the same convention as the python backend (and jnp.interp): slopes by hand as above
    cases = [(-1.0, 0.0, [2.0, 0, 0, 0]), (0.0, 4.0, [2.0, 0, 0, 0]),
             (1.0, 1.0, [0, 2.0, 0, 0]), (2.0, 1.0, [0, 1.0, 1.0, 0]),
             (4.0, -4.0, [0, 0, 0, 2.0]), (5.0, 0.0, [0, 0, 0, 2.0])]
    for derivative in (srcad.grad, srcad.jacfwd):
        numba_scaled = derivative(scaled, argnums=(0, 1), backend="numba")
        for x, d_x, d_fp in cases:
            got_x, got_fp = numba_scaled(x, FP)
            assert got_x == pytest.approx(d_x), x
            np.testing.assert_allclose(got_fp, d_fp, atol=1e-15)
    # an array x of rank 2 (knots, outside, NaN): both modes, against the python backend
    x = np.array([[-1.0, 0.0, 0.5, 1.0], [2.0, 4.0, 5.0, np.nan]])
    for derivative in (srcad.grad, srcad.jacfwd):
        want = derivative(on_a_grid, argnums=(0, 1))(x, FP)
        got = derivative(on_a_grid, argnums=(0, 1), backend="numba")(x, FP)
        for w, g in zip(want, got):
            np.testing.assert_allclose(g, w, rtol=1e-15, atol=1e-15)
    check_grads(squares, srcad.Duplicated(np.array([-0.5, 0.3, 1.7, 2.5, 3.9, 4.5]),
                                          np.zeros(6)),
                srcad.Duplicated(FP.copy(), np.zeros(4)), backend="numba")
