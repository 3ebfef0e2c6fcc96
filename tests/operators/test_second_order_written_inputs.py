"""Second order of functions that write their input in place (`x *= 2.0`, `x[:] = x * 2.0`,
a container leaf `w *= 2.0`), of functions whose generated reverse code copies a part of an
array it writes later (`np.copy(y_bar[1:])`, a tape of `y[1:]`), and of a data-dependent early
return in a loop. Forward over reverse differentiates srcad's reverse code: the tangent of a
copy is a copy (it was a view of a tangent the code then zeroed or updated), and a broadcast
tangent that is written later gets its own array (it was a read-only view). Every Hessian is
checked against central finite differences of the gradient (itself checked against finite
differences of f), hvp against its columns, and the analytic value where there is one."""

import numpy as np
import pytest
from helpers.differences import central

import srcad

X = np.array([1.0, -1.2, 0.8])


def doubled_in_place(x):
    x *= 2.0
    return np.sum(x ** 3)


def doubled_by_slice(x):
    x[:] = x * 2.0
    return np.sum(x ** 3)


def halved_in_place(x):
    x /= 2.0
    return np.sum(x ** 3)


def scaled_by_own_element(x):
    x *= x[0]
    return np.sum(x ** 3)


def scaled_then_read_whole(x):
    c = x * 2.0
    return np.sum(c ** 2) + c[-1] * x[0]


def cumulative_sum(x):
    c = np.cumsum(x)
    return np.sum(c ** 2) + c[-1] * x[0]


def tail_updated_by_itself(x):
    y = x.copy()
    y[1:] += y[1:] ** 2
    return np.sum(y ** 2)


def early_return(x):
    acc = 0.0
    for i in range(len(x)):
        acc += x[i] * x[i]
        if acc > 2.0:
            return acc * x[i]
    return acc


CASES = [doubled_in_place, doubled_by_slice, halved_in_place, scaled_by_own_element,
         scaled_then_read_whole, cumulative_sum, tail_updated_by_itself]


def fd_hessian(f, x, h=1e-5):
    """Central differences of srcad's gradient (checked first against f's values)."""
    np.testing.assert_allclose(srcad.grad(f)(x.copy()), central(f, x.copy()),
                               rtol=1e-6, atol=1e-6)
    return central(srcad.grad(f), x, h=h)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_hessian_and_hvp_match_finite_differences(f):
    expected = fd_hessian(f, X)
    x = X.copy()
    np.testing.assert_allclose(srcad.hessian(f, x), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(x, X)  # the operator does not write the caller's array
    for k, v in enumerate(np.eye(X.size)):
        np.testing.assert_allclose(srcad.hvp(f, X.copy(), tangent=v), expected[:, k],
                                   rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(srcad.hessian(f)(X.copy()), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f", CASES[:4], ids=lambda f: f.__name__)
def test_reverse_over_forward_differentiates_f_of_a_copy_of_its_input(f):
    # reverse over forward (numba's second order) refused an f writing its input
    expected = fd_hessian(f, X)
    x = X.copy()
    np.testing.assert_allclose(srcad.hessian(f, x, mode="reverse-over-forward"), expected,
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(x, X)
    v = np.array([0.3, -0.7, 1.1])
    np.testing.assert_allclose(srcad.hvp(f, X.copy(), tangent=v, mode="reverse-over-forward"),
                               expected @ v, rtol=1e-6, atol=1e-6)


@pytest.mark.slow  # numba compiles f's forward code and the reverse code over it
def test_numba_second_order_of_an_f_writing_its_input():
    expected = fd_hessian(scaled_by_own_element, X)
    x = X.copy()
    np.testing.assert_allclose(srcad.hessian(scaled_by_own_element, x, backend="numba"),
                               expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(x, X)


def test_doubled_input_analytic_hessian():
    # f = sum((2x)^3) = 8 sum(x^3): H = diag(48 x)
    np.testing.assert_allclose(srcad.hessian(doubled_in_place, X.copy()),
                               np.diag(48.0 * X), rtol=1e-12)
    np.testing.assert_allclose(srcad.hessian(halved_in_place, X.copy()),
                               np.diag(0.75 * X), rtol=1e-12)


def test_container_leaf_written_in_place():
    def f(p):
        w = p["w"]
        w *= 2.0
        return np.sum(w ** 3) + p["b"] ** 2
    H = srcad.hessian(f, {"w": X.copy(), "b": 0.5})
    np.testing.assert_allclose(H["w"]["w"], np.diag(48.0 * X), rtol=1e-12)
    assert H["b"]["b"] == pytest.approx(2.0)
    np.testing.assert_allclose(H["w"]["b"], 0.0)


@pytest.mark.parametrize("x", [[1.45, 0.3], [-754.67, 1.0, 2.0], [0.5, 1.5, 0.2],
                               [0.1, 0.2, 0.3]])
def test_early_return_in_loop(x):
    x = np.array(x)
    expected = fd_hessian(early_return, x, h=1e-6 * max(1.0, np.abs(x).max()))
    np.testing.assert_allclose(srcad.hessian(early_return, x.copy()), expected,
                               rtol=1e-5, atol=1e-5)
    prep = srcad.prepare_hessian(early_return, np.full(x.size, 0.1))  # prepared elsewhere
    np.testing.assert_allclose(srcad.hessian(early_return, x.copy(), prep=prep), expected,
                               rtol=1e-5, atol=1e-5)


def quartic(x):
    return x ** 4 + 3.0 * x


def test_hessian_of_a_float_is_a_float():
    assert srcad.hessian(quartic, 2.0) == 48.0
    assert isinstance(srcad.hessian(quartic, 2.0), float)
    prep = srcad.prepare_hessian(quartic, 1.0)
    H = srcad.hessian(quartic, 2.0, prep=prep)
    assert isinstance(H, float) and H == 48.0
    assert srcad.hessian(quartic)(2.0) == 48.0
    with pytest.raises(srcad.ArgumentError, match="returns a float"):
        srcad.hessian(quartic, 2.0, out=np.zeros((1, 1)))


def carried_through_sines(x):
    y = x * 1.0
    for _ in range(3):
        y = y + 0.1 * np.sin(y) * x[0]
    return np.sum(y ** 2)


@pytest.mark.parametrize("options", [{"mode": "forward-over-reverse"}, {"backend": "numba"},
                                     {}])
@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_a_widened_carried_array_has_a_hessian_in_every_mode(options):
    """Forward over reverse and numba once refused this loop (a view of an adjoint in srcad's
    reverse code, numba's broadcasting): each now gives the Hessian."""
    expected = fd_hessian(carried_through_sines, X)
    np.testing.assert_allclose(srcad.hessian(carried_through_sines, X.copy(), **options),
                               expected, rtol=1e-6, atol=1e-6)
