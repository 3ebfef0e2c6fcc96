"""The numba backend runs what the python backend runs (docs/speed_with_numba.md): calls of
functions numba cannot compile on constants (computed before the compiled code), arrays read
from closure cells and globals (passed to it as arguments), whole-array vector mode over
arrays and containers (unrolled lanes where lanes in arrays cannot run it) and
`np.array([a * a, b, 2.0])` of active numbers and `np.array(x)` of an array, each in
reverse, forward and vector mode
(check_grads: central differences and the dot-product test) and through the operators,
against derivatives worked out by hand. What numba cannot run is refused, saying why.

The functions are module-level and each is compiled once per mode for the whole file.
"""

import math
import statistics

import numpy as np
import pytest
import scipy.special

import srcad
from srcad import Active, Constant, Duplicated
from srcad.errors import SrcadError
from srcad.testing import check_grads

pytest.importorskip("numba")

X = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, 1.0, -2.0])


def dup(x):
    return Duplicated(x.copy(), np.zeros_like(x))


# -- calls numba cannot compile, on constants --------------------------------------------------

def log_normalized(x, a, m, c):
    # gammaln: scipy's ufunc; lgamma: numba's own; fmean: the standard library's Python
    half = m / 2  # a local bound once to constants
    w = scipy.special.gammaln(a) + math.lgamma(half)
    s = 0.0
    for i in range(x.shape[0]):
        s += (w + scipy.special.gammaln(a + half - 0.5) * x[i]) * x[i]  # in a loop
    return s * statistics.fmean(c)


A, M, C = 2.5, 3, np.array([1.0, 2.0, 4.5])


def test_constant_calls_numba_cannot_compile_in_every_mode():
    check_grads(log_normalized, dup(X), A, M, C, backend="numba")


def test_constant_calls_through_the_operators():
    # by hand: f = mean(C) sum(w x_i + g1 x_i^2), w = lgamma(A) + lgamma(M / 2),
    # g1 = lgamma(A + M / 2 - 0.5): gradient mean(C) (w + 2 g1 x), Hessian 2 g1 mean(C) I
    w, g1, mean = math.lgamma(A) + math.lgamma(M / 2), math.lgamma(A + M / 2 - 0.5), np.mean(C)
    constants = (Constant(A), Constant(M), Constant(C))
    np.testing.assert_allclose(srcad.gradient(log_normalized, X, *constants, backend="numba"),
                               mean * (w + 2.0 * g1 * X), rtol=1e-12)
    np.testing.assert_allclose(srcad.hvp(log_normalized, X, *constants, tangent=V,
                                         backend="numba"), 2.0 * g1 * mean * V, rtol=1e-12)


def per_element_k0(x, c):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * scipy.special.k0(c[i])  # depends on the loop: not computable first
    return s


def test_a_constant_call_on_loop_state_is_refused_saying_why():
    with pytest.raises(SrcadError) as info:
        srcad.gradient(per_element_k0, X, Constant(C), backend="numba")
    message = str(info.value)
    assert "scipy.special.k0" in message and "numba cannot compile" in message
    assert "`i`" in message
    assert info.value.line == per_element_k0.__code__.co_firstlineno + 3
    # the python backend runs it
    np.testing.assert_allclose(srcad.gradient(per_element_k0, X, Constant(C)),
                               scipy.special.k0(C), rtol=1e-12)


def per_element_gammaln(x, c):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * scipy.special.gammaln(c[i])  # on loop state: srcad's gammaln, compiled
    return s


def test_scipy_special_on_loop_state_runs_compiled():
    np.testing.assert_allclose(srcad.gradient(per_element_gammaln, X, Constant(C),
                                              backend="numba"),
                               [math.lgamma(c) for c in C], rtol=1e-13)


# -- arrays from closure cells and globals -----------------------------------------------------

def make_loss(data):
    def loss(params):
        return np.sum((params * data) ** 2)
    return loss


DATA = np.array([1.0, 2.0, -3.0])
LOSS = make_loss(DATA)


def test_closure_array_in_every_mode():
    check_grads(LOSS, dup(X), backend="numba")


def test_closure_array_through_the_operators_and_its_current_elements():
    np.testing.assert_allclose(srcad.gradient(LOSS, X, backend="numba"), 2 * X * DATA ** 2)
    np.testing.assert_allclose(srcad.pushforward(LOSS, X, tangent=V, backend="numba"),
                               np.sum(2 * X * DATA ** 2 * V))
    np.testing.assert_allclose(srcad.hvp(LOSS, X, tangent=V, backend="numba"),
                               2 * DATA ** 2 * V)
    other = make_loss(np.array([0.5, 0.0, 1.0]))  # another closure of the same code
    np.testing.assert_allclose(srcad.gradient(other, X, backend="numba"),
                               2 * X * np.array([0.25, 0.0, 1.0]))
    data = np.array([1.0, 1.0, 1.0])
    changing = make_loss(data)
    srcad.gradient(changing, X, backend="numba")
    data[:] = [2.0, 0.0, 1.0]  # the compiled code reads the array as it is at each call
    np.testing.assert_allclose(srcad.gradient(changing, X, backend="numba"),
                               2 * X * data ** 2)


WEIGHTS = np.array([1.0, 2.0, 3.0])


def weighted(x):
    return np.sum(WEIGHTS * np.sin(x))


def test_global_array_rebound_rebuilds():
    global WEIGHTS
    saved = WEIGHTS
    try:
        np.testing.assert_allclose(srcad.gradient(weighted, X, backend="numba"),
                                   WEIGHTS * np.cos(X))
        WEIGHTS = np.array([-1.0, 0.5, 0.0])
        np.testing.assert_allclose(srcad.gradient(weighted, X, backend="numba"),
                                   WEIGHTS * np.cos(X))
    finally:
        WEIGHTS = saved


# -- whole-array vector mode: arrays and containers ---------------------------------------------

def scaled_by_norm(x):
    return np.sum(x * x) * x


def scaled_by_norm_jacobian(x):
    return np.sum(x * x) * np.eye(x.size) + 2.0 * np.outer(x, x)


def test_whole_array_vector_mode_with_chunks_and_tangents():
    J = scaled_by_norm_jacobian(X)
    np.testing.assert_allclose(srcad.jacobian(scaled_by_norm, X, chunk=2, backend="numba"), J)
    np.testing.assert_allclose(srcad.pushforward(scaled_by_norm, X, tangent=V,
                                                 backend="numba"), J @ V)
    got = srcad.pushforward(scaled_by_norm, X, tangent=(V, 2.0 * V), backend="numba")
    np.testing.assert_allclose(got[0], J @ V)
    np.testing.assert_allclose(got[1], 2.0 * J @ V)


def of_parameters(p):
    return np.sum(p["a"] * p["a"]) * p["b"] + np.sin(p["a"][0])


def test_whole_array_vector_mode_over_a_dict():
    a, b = np.array([1.0, 2.0]), np.array([3.0, -4.0])
    P = {"a": a, "b": b}
    # vector mode (check_grads's two lanes) runs unrolled: lanes in arrays cannot run it
    check_grads(of_parameters, Duplicated(P, {"a": np.zeros(2), "b": np.zeros(2)}),
                modes=("vec",), backend="numba")
    Ja = 2.0 * np.outer(b, a)
    Ja[:, 0] += math.cos(a[0])  # d f_j / d a_k
    Jb = np.sum(a * a) * np.eye(2)
    J = srcad.jacobian(of_parameters, P, chunk=2, backend="numba")
    np.testing.assert_allclose(J["a"], Ja)
    np.testing.assert_allclose(J["b"], Jb)
    ta, tb = np.array([0.5, -1.0]), np.array([2.0, 1.0])
    one, two = srcad.pushforward(of_parameters, P, tangent=({"a": ta, "b": tb},
                                                             {"a": 2 * ta, "b": 0 * tb}),
                                 backend="numba")
    np.testing.assert_allclose(one, Ja @ ta + Jb @ tb)
    np.testing.assert_allclose(two, 2 * Ja @ ta)


# -- np.array of active numbers ----------------------------------------------------------------

def built_from_numbers(x, b):
    a = x[0]
    v = np.array([a * a, b, 2.0])
    w = np.array(x)  # a copy (numba's np.array takes no array)
    return np.sum(v * v) * w[1]


def test_array_of_active_numbers_in_every_mode():
    check_grads(built_from_numbers, dup(X), Active(1.5), backend="numba")


def test_array_of_active_numbers_through_the_operators():
    # f = (a^4 + b^2 + 4) x1 with a = x0: gradient, Hessian-vector product by hand
    a, x1, b = X[0], X[1], 1.5
    grad = np.array([4 * a ** 3 * x1, a ** 4 + b * b + 4.0, 0.0])
    H = np.array([[12 * a * a * x1, 4 * a ** 3, 0.0], [4 * a ** 3, 0.0, 0.0], [0.0] * 3])
    np.testing.assert_allclose(srcad.gradient(built_from_numbers, X, Constant(b),
                                              backend="numba"), grad)
    np.testing.assert_allclose(srcad.gradient(built_from_numbers, X, Constant(b),
                                              mode="forward", chunk=2, backend="numba"), grad)
    np.testing.assert_allclose(srcad.hvp(built_from_numbers, X, Constant(b), tangent=V,
                                         backend="numba"), H @ V)


# -- NumPy calls numba compiles as srcad writes them ------------------------------------------

def clipped_and_joined(x):
    y = np.clip(x * 1.0, -0.5, 1.0)
    z = np.logaddexp(y, 2.0 * x) + np.broadcast_to(x[0] * 2.0, (3, 3))
    return np.sum(np.expand_dims(z * z, 0) * 2.0) + np.sum(np.atleast_2d(x[0] * x[1]) ** 2)


@pytest.mark.slow
def test_clip_logaddexp_broadcast_to_expand_dims_atleast_2d_on_numba():
    m = np.array([[0.3, -1.2, 2.0], [1.5, 0.7, -0.4], [0.2, 0.9, 1.1]])
    check_grads(clipped_and_joined, dup(m), backend="numba")


def triangles_and_stacks(x):
    y = x * x
    return (np.sum(np.tril(y) * x) + np.sum(np.triu(y, 1) * x)
            + np.sum(np.hstack([y, x]) ** 2) + np.sum(np.vstack([x[0] * x[1], x[2]]) ** 2)
            + np.sum(np.column_stack([x[0] * x[1], x[2]]) ** 2)
            + np.sum(np.atleast_1d(x[0] * x[1]) ** 2) + np.sum(np.atleast_3d(y) ** 2))


@pytest.mark.slow
def test_tril_triu_and_the_stacks_on_numba():
    m = np.array([[0.3, -1.2, 2.0], [1.5, 0.7, -0.4], [0.2, 0.9, 1.1]])
    check_grads(triangles_and_stacks, dup(m), backend="numba")


def axes_moved(x):
    y = np.stack([x * x, x], axis=2)
    return np.sum(np.swapaxes(y, 0, 2) ** 2) + np.sum(np.moveaxis(y, 0, -1) * y[0, 0, 0])


@pytest.mark.slow
def test_swapaxes_and_moveaxis_on_numba():
    m = np.array([[0.3, -1.2, 2.0], [1.5, 0.7, -0.4]])
    check_grads(axes_moved, dup(m), backend="numba", modes=("rev", "fwd"))


def _cubed_if_number(x):
    y = x * 2.0
    return y * x ** 2 if x.ndim == 0 and x.shape == () and x.size == 1 else np.sum(x)


@pytest.mark.slow
def test_a_numbers_ndim_shape_and_size_compile_as_numpy_answers_them():
    """`x.ndim`, `x.shape`, `x.size` of an np.float64 argument: 0, (), 1 as on the python
    backend (numba has no attributes on a float: the function was refused)."""
    x = np.float64(1.5)  # f = 2 x**3: f' = 6 x**2 = 13.5, f'' = 12 x = 18
    assert srcad.grad(_cubed_if_number, backend="numba")(x) == pytest.approx(13.5)
    assert srcad.hessian(_cubed_if_number, x, backend="numba") == pytest.approx(18.0)
