"""An array name rebound to arrays of different shapes: each binding's tangent and adjoint
have that binding's shape (top-level rebindings get one name each; a rebinding in a loop
resets the adjoint to the shape of the value it replaced)."""

import numpy as np
import pytest

import srcad
from srcad import Const, Duplicated, Reverse
from srcad.testing import check_grads

RNG = np.random.default_rng(7)


def dense(W, b, h):
    return np.tanh(W @ h + b)


def two_layers(W0, b0, W1, b1, x):
    h = x
    h = dense(W0, b0, h)
    s = np.sum(h * h)
    h = dense(W1, b1, h)
    return np.sum(h) + s


def shrinking(x):
    h = x
    for _ in range(3):
        h = h[1:] * h[:-1]
    return np.sum(h)


def widening(a, W, c):
    # h is (1,), then (4,): the adjoint of the (1,) value broadcasts into a (4,) array, so
    # one adjoint array for both would be summed back to a's shape (`unbroadcast`: c is an
    # array too) four times over, without any error
    h = a * c
    t = np.sum(h * h)
    h = h + W @ h
    return np.sum(h) + t


def widening_in_a_branch(a, W, c):
    h = a * c
    t = np.sum(h * h)
    if t > -1.0:
        h = h + W @ h
    return np.sum(h) + t


def dup(x):
    return Duplicated(x, np.zeros_like(x))


def layer_arguments(n1):
    return (RNG.standard_normal((4, 3)), RNG.standard_normal(4),
            RNG.standard_normal((n1, 4)), RNG.standard_normal(n1), RNG.standard_normal(3))


def hand_gradients(W0, b0, W1, b1, x):
    h1 = np.tanh(W0 @ x + b0)
    h2 = np.tanh(W1 @ h1 + b1)
    a2 = 1.0 - h2 * h2
    a1 = (W1.T @ a2 + 2.0 * h1) * (1.0 - h1 * h1)
    return np.outer(a1, x), a1, np.outer(a2, h1), a2


@pytest.mark.parametrize("n1", [1, 2, 4])
def test_rebound_layers_gradient_is_the_hand_derived_one(n1):
    args = layer_arguments(n1)
    shadows = [dup(a) for a in args[:4]]
    srcad.autodiff(Reverse, two_layers, *shadows, Const(args[4]))
    for shadow, want in zip(shadows, hand_gradients(*args)):
        np.testing.assert_allclose(shadow.shadow, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("n1", [1, 2, 4])
def test_rebound_layers_in_every_mode(n1):
    args = layer_arguments(n1)
    check_grads(two_layers, *[dup(a) for a in args[:4]], Const(args[4]))


def test_rebound_layers_on_numba():
    args = layer_arguments(2)
    check_grads(two_layers, *[dup(a) for a in args[:4]], Const(args[4]), backend="numba",
                modes=("rev",))


def test_rebound_names_get_one_adjoint_each():
    code = srcad.source(two_layers, Reverse, *[dup(a) for a in layer_arguments(1)[:4]],
                        Const(np.ones(3)))
    assert "h_2_bar" in code and "h_3_bar" in code


def test_array_shrinking_in_a_loop():
    x = np.linspace(0.5, 1.5, 6)
    # sum over k of x[k] x[k+1]^3 x[k+2]^3 x[k+3]: d/dx by hand
    want = np.zeros(6)
    for k in range(3):
        want[k] += x[k + 1] ** 3 * x[k + 2] ** 3 * x[k + 3]
        want[k + 1] += 3 * x[k] * x[k + 1] ** 2 * x[k + 2] ** 3 * x[k + 3]
        want[k + 2] += 3 * x[k] * x[k + 1] ** 3 * x[k + 2] ** 2 * x[k + 3]
        want[k + 3] += x[k] * x[k + 1] ** 3 * x[k + 2] ** 3
    shadow = dup(x)
    srcad.autodiff(Reverse, shrinking, shadow)
    np.testing.assert_allclose(shadow.shadow, want, rtol=1e-12)
    check_grads(shrinking, dup(x))


@pytest.mark.parametrize("f", [widening, widening_in_a_branch])
def test_widening_rebinding_is_not_silently_broadcast(f):
    a, W, c = np.array([0.7]), RNG.standard_normal((4, 1)), np.array([3.0])
    # f = 4 ca + sum(W) ca + c^2 a^2
    want = np.array([4.0 * c[0] + c[0] * np.sum(W) + 2.0 * c[0] ** 2 * a[0]])
    shadow = dup(a)
    srcad.autodiff(Reverse, f, shadow, Const(W), Const(c))
    np.testing.assert_allclose(shadow.shadow, want, rtol=1e-12)
    check_grads(f, dup(a), dup(W), Const(c))
