"""hessian and hvp of whole-array programs: forward mode over srcad's generated reverse code,
whose `unbroadcast`, `np.broadcast_to`, shapes and `w_bar += ...` have forward rules."""

import numpy as np

import srcad
from srcad import Constant

RNG = np.random.default_rng(11)


def logistic(w, X, y, lam):
    return np.sum(np.log1p(np.exp(-y * (X @ w)))) + 0.5 * lam * np.dot(w, w)


def mlp(w, X, t):
    W1 = w[:6].reshape(3, 2)
    b1 = w[6:9]
    W2 = w[9:12]
    h = np.tanh(X @ W1.T + b1)
    out = h @ W2
    return 0.5 * np.sum((out - t) ** 2)


def rnn(x, W):
    h = np.zeros(2)
    for i in range(3):
        h = np.tanh(W @ h + x[i])
    return np.sum(h * h)


def gradient_differences(f, x, *constants, eps=1e-6):
    """The Hessian by central differences of the (reverse mode) gradient, column by column."""
    g = srcad.grad(f)
    return np.array([(g(x + eps * e, *constants) - g(x - eps * e, *constants)) / (2 * eps)
                     for e in np.eye(x.size)]).T


def logistic_problem():
    X = RNG.standard_normal((6, 3))
    return RNG.standard_normal(3), X, np.sign(RNG.standard_normal(6)), 0.3


def test_logistic_hessian_is_the_hand_derived_one():
    w, X, y, lam = logistic_problem()
    p = 1.0 / (1.0 + np.exp(y * (X @ w)))  # sigmoid(-y Xw); y^2 = 1
    want = X.T @ np.diag(p * (1.0 - p)) @ X + lam * np.eye(3)
    np.testing.assert_allclose(srcad.hessian(logistic)(w, X, y, lam), want, rtol=1e-12)
    np.testing.assert_allclose(srcad.hessian(logistic, w, Constant(X), Constant(y),
                                             Constant(lam)), want, rtol=1e-12)


def test_logistic_hvp_equals_gradient_differences():
    w, X, y, lam = logistic_problem()
    v = RNG.standard_normal(3)
    hv = srcad.hvp(logistic, w, Constant(X), Constant(y), Constant(lam), tangent=v)
    np.testing.assert_allclose(hv, gradient_differences(logistic, w, X, y, lam) @ v,
                               rtol=1e-6, atol=1e-8)


def test_mlp_hessian_equals_gradient_differences():
    w, X, t = RNG.standard_normal(12), RNG.standard_normal((4, 2)), RNG.standard_normal(4)
    H = srcad.hessian(mlp)(w, X, t)
    np.testing.assert_allclose(H, gradient_differences(mlp, w, X, t), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(H, H.T, atol=1e-12)


def test_rnn_hessian_equals_gradient_differences():
    x, W = np.linspace(-0.5, 0.7, 3), np.array([[0.5, -0.3], [0.2, 0.4]])
    H = srcad.hessian(rnn)(x, W)
    np.testing.assert_allclose(H, gradient_differences(rnn, x, W), rtol=1e-6, atol=1e-7)
