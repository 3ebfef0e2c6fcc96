"""An update of part of an array by a constant, `p[1:] += 1.0` or `p[:] *= 2.0`, keeps (for
`+=`, `-=`) or scales (for `*=`, `/=`) the tangent of that part in forward mode; only a whole
array rebound to a constant has tangent zero. Checked against central finite differences and
reverse mode on both backends, in every mode built on forward mode (pushforward,
gradient(mode="forward"), vector mode, jacfwd, second order)."""

import numpy as np
import pytest
from helpers.differences import central

import srcad


def add_to_tail(x):
    p = np.sin(x)
    p[1:] += 1.0
    return np.sum(p ** 2)


def subtract_from_head(x):
    p = np.cos(x)
    p[:1] -= 0.5
    return np.sum(p ** 3)


def scale_all(x):
    p = np.sin(x) + x
    p[:] *= 2.0
    return np.sum(p ** 2)


def divide_element(x):
    p = x * x
    p[0] /= 4.0
    return np.sum(p * x)


def set_tail_constant(x):
    p = np.sin(x) * 1.0
    q = p.copy()
    q[1:] = 0.25
    return np.sum(q ** 2)


def whole_array_updated(x):
    p = np.sin(x)
    p += 1.0
    p -= 0.5
    return np.sum(p ** 2)


def built_from_float(t):
    p = np.array([t, 1.0])
    p[:] *= 2.0
    return np.sum(p ** 2)


def rows_of_matrix(x):
    P = np.outer(x, x)
    P[1:, :] += 1.0
    P[:, 0] *= 3.0
    return np.sum(P ** 2)


ARRAY_CASES = [add_to_tail, subtract_from_head, scale_all, divide_element, set_tail_constant,
               whole_array_updated, rows_of_matrix]
X = np.array([0.7, 0.1, -0.4])


def fd_hessian(f, x, h=1e-4):
    return central(srcad.grad(f), x, h=h)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("f", ARRAY_CASES, ids=lambda f: f.__name__)
def test_forward_modes_match_finite_differences(f, backend):
    expected = central(f, X.copy())
    np.testing.assert_allclose(srcad.grad(f, backend=backend)(X.copy()), expected,
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcad.jacfwd(f, backend=backend)(X.copy()), expected,
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcad.gradient(f, X.copy(), mode="forward", backend=backend),
                               expected, rtol=1e-6, atol=1e-8)
    v = np.array([0.3, -1.0, 2.0])
    np.testing.assert_allclose(srcad.pushforward(f, X.copy(), tangent=v, backend=backend),
                               expected @ v, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", ARRAY_CASES, ids=lambda f: f.__name__)
def test_hessian_matches_finite_differences_of_the_gradient(f):
    expected = fd_hessian(f, X.copy())
    np.testing.assert_allclose(srcad.hessian(f, X.copy()), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_float_input_built_into_array(backend):
    t, h = 0.3, 1e-5
    expected = (built_from_float(t + h) - built_from_float(t - h)) / (2 * h)
    assert srcad.jacfwd(built_from_float, backend=backend)(t) == pytest.approx(expected,
                                                                               rel=1e-7)
    assert srcad.grad(built_from_float, backend=backend)(t) == pytest.approx(expected,
                                                                             rel=1e-7)
    # f(t) = 4 t^2 + 4
    assert srcad.second_derivative(built_from_float, t, backend=backend) == pytest.approx(8.0)


def exp_part_divided(x):
    p = np.exp(x)
    p[1] /= 1.267
    return np.sum(p)


def roots_and_tanh_updated(x):
    p = np.sqrt(x)
    p[0] *= 2.0
    q = np.tanh(x)
    q[:2] -= 0.5
    return np.sum(p * q)


def exp_updated_in_loop(x):
    s = 0.0
    for i in range(3):
        p = np.exp(x * (i + 1.0))
        p[1:] += 1.0
        s += np.sum(p ** 2)
    return s


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("f", [exp_part_divided, roots_and_tanh_updated, exp_updated_in_loop],
                         ids=lambda f: f.__name__)
@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_reverse_mode_keeps_the_rule_value_of_an_array_updated_later(f, backend):
    """exp's, sqrt's and tanh's derivatives read their result, which the array bound to it
    holds until a later update of a part changes it: reverse mode reads the value recorded
    before the update (it read the updated array)."""
    x = np.array([0.375, 1.192, 0.827])
    expected = central(f, x.copy())
    np.testing.assert_allclose(srcad.grad(f, backend=backend)(x.copy()), expected,
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcad.jacfwd(f, backend=backend)(x.copy()), expected,
                               rtol=1e-6, atol=1e-8)
