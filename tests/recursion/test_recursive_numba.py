"""Recursive helpers on the numba backend: the helper's primal and reverse code compiled as
recursive numba functions (self and mutual recursion), in reverse, forward and vector modes,
against closed forms, central differences and the python backend; second order and a
helper reading a global array refused by line."""

import math

import numpy as np
import pytest

import srcad
from srcad.errors import SecondOrderRefusal, SrcadError
from srcad.gradbench.ports.det import det_recursive
from srcad.testing import check_grads
from tests.helpers import recursive_models as M

RNG = np.random.RandomState(11)


def test_mutual_recursion_on_numba_matches_central_differences():  # the fast smoke test
    x, h = 0.7, 1e-6
    central = (M.mutual(x + h) - M.mutual(x - h)) / (2 * h)
    value, gradient = srcad.value_and_grad(M.mutual, backend="numba")(x)
    assert value == pytest.approx(M.mutual(x), rel=1e-14)
    assert math.isclose(gradient, central, rel_tol=1e-7)


@pytest.mark.slow
@pytest.mark.parametrize("transform", [srcad.grad, srcad.jacfwd, srcad.jacrev])
def test_det_by_expansion_in_minors_on_numba_matches_the_closed_form(transform):
    a = RNG.rand(16)
    m = a.reshape(4, 4)
    expected = (np.linalg.det(m) * np.linalg.inv(m).T).ravel()
    np.testing.assert_allclose(transform(det_recursive, backend="numba")(a, 4), expected,
                               rtol=1e-10)


@pytest.mark.slow
def test_adaptive_quadrature_on_numba_agrees_with_the_python_backend():
    p = np.array([1.3, 0.4, 0.2])
    expected = srcad.grad(M.quadrature)(p, 1e-4)
    np.testing.assert_allclose(srcad.grad(M.quadrature, backend="numba")(p, 1e-4), expected,
                               rtol=1e-12)
    np.testing.assert_allclose(srcad.jacfwd(M.quadrature, backend="numba")(p, 1e-4), expected,
                               rtol=1e-12)


# a decision tree whose structure is passed down as arguments (numba compiles a recursive
# helper's code once: its arrays come in as arguments, not as globals)
def node_value(x, weights, left, right, feature, threshold, i):
    if left[i] < 0:
        return np.dot(weights[i], x)
    if x[feature[i]] < threshold[i]:
        return node_value(x, weights, left, right, feature, threshold, left[i])
    return node_value(x, weights, left, right, feature, threshold, right[i])


LEFT, RIGHT, FEATURE, THRESHOLD = M.LEFT, M.RIGHT, M.FEATURE, M.THRESHOLD


def tree_loss(weights, xs):
    total = 0.0
    for k in range(xs.shape[0]):
        value = node_value(xs[k], weights, LEFT, RIGHT, FEATURE, THRESHOLD, 0)
        total = total + value * value
    return total


@pytest.mark.slow
@pytest.mark.parametrize("model, args", [
    (M.mutual, lambda: (srcad.Active(0.7),)),
    (M.polynomial, lambda: (srcad.Active(0.7), srcad.Duplicated(
        np.array([1.0, -2.0, 0.5, 3.0]), np.zeros(4)))),
    (tree_loss, lambda: (srcad.Duplicated(RNG.randn(7, 3), np.zeros((7, 3))),
                         RNG.rand(6, 3))),
], ids=["mutual", "default_argument", "tree"])
def test_recursive_programs_on_numba_agree_in_forward_reverse_and_vector_modes(model, args):
    check_grads(model, *args(), modes=("fwd", "rev", "vec"), backend="numba")


@pytest.mark.slow
def test_a_recursion_hundreds_deep_on_numba():
    x, h = 0.5, 1e-6
    central = (M.drift(x + h, 400) - M.drift(x - h, 400)) / (2 * h)
    assert math.isclose(srcad.grad(M.drift, backend="numba")(x, 400), central, rel_tol=1e-6)


def test_a_second_derivative_through_a_recursive_helper_is_refused_on_numba_by_line():
    with pytest.raises(SecondOrderRefusal) as refusal:
        srcad.hessian(M.mutual, backend="numba")(0.7)
    text = str(refusal.value)
    assert "recursive_models.py:" in text and "second derivative" in text
    assert "srcad_recursive" not in text


def test_a_recursive_helper_reading_a_global_array_is_refused_on_numba_naming_it():
    with pytest.raises(SrcadError) as refusal:
        srcad.grad(M.scaled_power, backend="numba")(1.1, 2)
    text = str(refusal.value)
    assert "recursive_models.py:" in text and "global array `SCALE`" in text
    assert "pass `SCALE` to scaled_power as an argument" in text
