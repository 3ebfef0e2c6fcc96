"""np.full / np.full_like given a fill value that carries a derivative differentiate (JAX's
convention: the tangent is the fill's tangent broadcast, the adjoint the seed summed back to
the fill's shape), in reverse, forward and vector mode, on both backends; a full of ints
(dtype=, np.full_like of an int array: NumPy truncates) holds no derivative, or is refused by
line where its value is returned at once.
A full of a constant stays an allocation the code writes into."""

import numpy as np
import pytest

import srcad
from srcad import Active, Const, Duplicated, Forward, Reverse
from srcad.testing import check_grads


def full_of_x(x):
    y = np.full(3, x)
    return np.sum(y * y)


def full_of_element(x):
    y = np.full(3, x[0])
    return y[1] * 2.0


def linspace_to_x(x):
    y = np.linspace(0.0, x, 3)
    return y[2] * 2.0


def full_like_of_x(x):
    y = np.full_like(np.zeros(2), x)
    return y[0] * y[1]


def full_like_of_ints(x):
    y = np.full_like(np.arange(3), x)
    return np.sum(y * 1.0)


def ones_times_x(x):
    y = x * np.ones(3)
    return np.sum(y * y)


def full_of_a_constant(x, c):
    y = np.full(3, c)
    return np.sum(y * x)


def full_of_a_row(v, w):
    y = np.full((2, 3), v)  # v broadcast to each row
    return np.sum(w * y * y)


def full_like_of_an_array(a, s):
    y = np.full_like(a, s * 2.0)
    return np.sum(a * np.sin(y))


def full_then_written(x):
    y = np.full(3, x)
    y[1] = 2.0 * x  # the new array is the code's own
    return np.sum(y * y)


def full_of_inf_written(x):
    best = np.full(2, np.inf)  # a full of a number written out: an allocation
    best[0] = x * x
    return best[0]


def test_a_full_of_an_active_float_matches_hand_values():
    # sum over 3 entries of x^2: 6 x; full_like: x * x, 2 x; full_of_element: 2
    for mode in ("reverse", "forward"):
        assert srcad.gradient(full_of_x, 2.0, mode=mode) == pytest.approx(12.0)
        assert srcad.gradient(full_like_of_x, 2.0, mode=mode) == pytest.approx(4.0)
        # y = (x, 2x, x): sum of squares 6 x^2
        assert srcad.gradient(full_then_written, 1.5, mode=mode) == pytest.approx(18.0)
        assert srcad.gradient(full_of_inf_written, 1.5, mode=mode) == pytest.approx(3.0)
    x = np.array([2.0])
    np.testing.assert_allclose(srcad.grad(full_of_element)(x), [2.0])
    np.testing.assert_allclose(srcad.jacfwd(full_of_element)(x), [2.0])


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_a_full_agrees_with_finite_differences_in_every_mode(backend):
    modes = ("fwd", "rev", "vec") if backend == "python" else ("fwd", "rev")
    check_grads(full_of_x, Active(0.7), modes=modes, backend=backend)
    check_grads(full_then_written, Active(0.7), modes=modes, backend=backend)
    a = np.array([[0.5, -1.0], [2.0, 0.3]])
    check_grads(full_like_of_an_array, Const(a), Active(0.4), modes=modes, backend=backend)
    check_grads(full_like_of_an_array, Duplicated(a.copy(), np.zeros_like(a)), Active(0.4),
                modes=modes, backend=backend)


def test_a_full_of_an_array_broadcasts_it_and_sums_the_adjoint():
    v, w = np.array([1.0, -2.0, 0.5]), np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    # d/dv_j sum_i w_ij v_j^2 = 2 v_j (w_0j + w_1j)
    expected = 2.0 * v * w.sum(axis=0)
    np.testing.assert_allclose(srcad.grad(full_of_a_row)(v, w), expected)
    np.testing.assert_allclose(srcad.jacfwd(full_of_a_row)(v, w), expected)
    check_grads(full_of_a_row, Duplicated(v, np.zeros(3)), Const(w))


def test_a_full_agrees_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    v, w = np.array([1.0, -2.0, 0.5]), np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    expected = jax.grad(lambda v: jnp.sum(w * jnp.full((2, 3), v) ** 2))(jnp.asarray(v))
    np.testing.assert_allclose(srcad.grad(full_of_a_row)(v, w), np.asarray(expected))


def test_the_hessian_goes_through_a_full():
    # sum over 3 entries of x^2 is 3 x^2: second derivative 6
    assert np.asarray(srcad.hessian(full_of_x)(0.7)) == pytest.approx(6.0)


def full_like_of_ints_returned(x):
    return np.sum(np.full_like(np.arange(3), x))


def full_of_int_dtype(x):
    y = np.full(3, x, dtype=np.int64)
    return np.sum(y * 1.0)


def test_a_full_of_ints_holds_no_derivative():
    # NumPy truncates the fill to ints: the result is piecewise constant in x
    for f in (full_like_of_ints, full_of_int_dtype):
        assert srcad.gradient(f, 1.5) == 0.0
        assert srcad.gradient(f, 1.5, mode="forward") == 0.0


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_full_like_of_an_int_array_returned_at_once_is_refused(mode):
    args = (Active(2.0),) if mode == "reverse" else (Duplicated(2.0, 1.0),)
    with pytest.raises(srcad.SrcadError, match="array constructor") as info:
        srcad.autodiff(Reverse if mode == "reverse" else Forward, full_like_of_ints_returned,
                       *args)
    assert "np.full_like(np.arange(3), x)" in str(info.value)
    assert "test_constructor_fills.py" in str(info.value)


def test_linspace_to_an_active_end_differentiates():
    # np.linspace has a rule for its ends (srcad/rules/movement.py): y[2] = x, so 2.0
    assert srcad.gradient(linspace_to_x, 2.0) == 2.0
    assert srcad.gradient(linspace_to_x, 2.0, mode="forward") == 2.0


def test_scaling_a_constant_array_differentiates():
    # sum over 3 entries of x^2: d/dx = 6 x
    assert srcad.autodiff(Reverse, ones_times_x, Active(2.0)) == pytest.approx((12.0,))
    assert srcad.autodiff(Forward, ones_times_x, Duplicated(2.0, 1.0)) == pytest.approx(12.0)


def test_a_constructor_filled_with_a_constant_runs():
    # sum of c * x: gradient c in every entry
    x, dx = np.array([1.0, 2.0, 3.0]), np.zeros(3)
    srcad.autodiff(Reverse, full_of_a_constant, Duplicated(x, dx), 1.5)
    assert dx == pytest.approx([1.5, 1.5, 1.5])
