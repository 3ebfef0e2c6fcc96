"""Recursive helpers of the user's (self and mutual recursion, the depth decided by ints or
by the values, as the primal decides it) differentiated in every mode on the python backend,
against closed forms, central differences and JAX (the numba backend's:
test_recursive_numba.py)."""

import math

import numpy as np
import pytest

import srcad
from srcad.errors import RunTimeRefusal, SrcadError
from srcad.gradbench.ports.det import det_recursive
from srcad.testing import check_grads
from tests.helpers import recursive_models as M

RNG = np.random.RandomState(7)


def _central(f, x, h=1e-6):
    g = np.zeros(x.size)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = h
        g[i] = (f(x + e.reshape(x.shape)) - f(x - e.reshape(x.shape))) / (2 * h)
    return g.reshape(x.shape)


@pytest.mark.parametrize("transform", [srcad.grad, srcad.jacfwd, srcad.jacrev])
def test_det_by_expansion_in_minors_matches_the_closed_form(transform):
    a = RNG.rand(16)
    m = a.reshape(4, 4)
    expected = (np.linalg.det(m) * np.linalg.inv(m).T).ravel()
    np.testing.assert_allclose(transform(det_recursive)(a, 4), expected, rtol=1e-10)


@pytest.mark.slow  # second order by central differences of gradients: ~2 s
def test_det_hessian_matches_central_differences_of_its_gradient():
    a = RNG.rand(9)
    hessian = srcad.hessian(det_recursive)(a, 3)
    expected = np.array([_central(lambda x, i=i: srcad.grad(det_recursive)(x, 3)[i], a)
                         for i in range(9)])
    np.testing.assert_allclose(hessian, expected, atol=1e-8)


@pytest.mark.parametrize("model, args", [
    pytest.param(M.quadrature, lambda: (srcad.Duplicated(np.array([1.3, 0.4, 0.2]),
                                                         np.zeros(3)),),
                 marks=pytest.mark.slow),  # ~2 s: adaptive quadrature, three modes
    (M.tree_loss, lambda: (srcad.Duplicated(RNG.randn(7, 3), np.zeros((7, 3))),
                           RNG.rand(6, 3))),
    (M.mutual, lambda: (srcad.Active(0.7),)),
    (M.polynomial, lambda: (srcad.Active(0.7), srcad.Duplicated(
        np.array([1.0, -2.0, 0.5, 3.0]), np.zeros(4)))),
], ids=["quadrature", "tree", "mutual", "default_argument"])
def test_recursive_programs_agree_in_forward_reverse_and_vector_modes(model, args):
    check_grads(model, *args(), modes=("fwd", "rev", "vec"))


@pytest.mark.slow
def test_adaptive_quadrature_follows_the_primal_path_as_jax_does():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def integrand(t, p):
        return jnp.sin(p[0] * t) * jnp.exp(p[1] * t) + p[2] * t * t

    def adaptive(p, a, b, fa, fm, fb, whole, tol, depth):  # the same recursion, in JAX
        m = 0.5 * (a + b)
        flm, frm = integrand(0.5 * (a + m), p), integrand(0.5 * (m + b), p)
        left = (m - a) / 6.0 * (fa + 4.0 * flm + fm)
        right = (b - m) / 6.0 * (fm + 4.0 * frm + fb)
        if depth <= 0 or abs(left + right - whole) <= 15.0 * tol:
            return left + right + (left + right - whole) / 15.0
        return (adaptive(p, a, m, fa, flm, fm, left, 0.5 * tol, depth - 1)
                + adaptive(p, m, b, fm, frm, fb, right, 0.5 * tol, depth - 1))

    def quadrature(p):
        fa, fm, fb = integrand(0.0, p), integrand(1.5, p), integrand(3.0, p)
        return adaptive(p, 0.0, 3.0, fa, fm, fb, 0.5 * (fa + 4.0 * fm + fb), 1e-4, 30)

    p = np.array([1.3, 0.4, 0.2])
    expected = np.asarray(jax.grad(quadrature)(jnp.asarray(p)))
    np.testing.assert_allclose(srcad.grad(M.quadrature)(p, 1e-4), expected, rtol=1e-12)
    np.testing.assert_allclose(srcad.jacfwd(M.quadrature)(p, 1e-4), expected, rtol=1e-12)


@pytest.mark.slow  # second order by central differences of gradients: ~2 s
def test_tree_model_hessian_matches_central_differences_of_its_gradient():
    w, xs = RNG.randn(7, 3), RNG.rand(3, 3)
    hessian = srcad.hessian(M.tree_loss)(w, xs).reshape(21, 21)
    expected = np.array([_central(lambda v, i=i: srcad.grad(M.tree_loss)(
        v.reshape(7, 3), xs).ravel()[i], w.ravel()) for i in range(21)])
    np.testing.assert_allclose(hessian, expected, atol=1e-6)


def _count_down(x, scratch, n):
    if n == 0:
        return x
    scratch[0] = n  # left changed: the derivative could not follow it
    return _count_down(x * 1.5, scratch, n - 1)


def _leaves_scratch_changed(x):
    scratch = np.zeros(1, dtype=np.int64)
    return _count_down(x, scratch, 3)


def test_a_recursive_helper_leaving_an_argument_changed_is_refused():
    with pytest.raises(RunTimeRefusal, match=r"test_recursive_helpers.py:\d+: recursion: the "
                       "recursive helper _count_down leaves its argument `scratch` changed"):
        srcad.grad(_leaves_scratch_changed)(2.0)


def _halves(x, n):
    if n == 0:
        return x
    return _halves(x[: x.size // 2] * 2.0, n - 1)


def _sum_of_halves(x):
    return np.sum(_halves(x, 2))


def test_a_recursive_helper_returning_an_array_is_refused():
    with pytest.raises(RunTimeRefusal, match="the recursive helper _halves returns a ndarray, "
                       "not a number"):
        srcad.grad(_sum_of_halves)(np.arange(8.0))


def test_a_recursive_local_function_is_still_refused_naming_the_cycle():
    def outer(x):
        def fact(k):
            if k == 0:
                return 1.0
            return k * fact(k - 1)
        return x * fact(3)

    with pytest.raises(SrcadError, match="fact calls itself"):
        srcad.grad(outer)(2.0)


def test_values_match_the_plain_call():
    x = 0.7
    value, _ = srcad.value_and_grad(M.mutual)(x)
    assert value == M.mutual(x)
    central = (M.mutual(x + 1e-6) - M.mutual(x - 1e-6)) / 2e-6
    assert math.isclose(srcad.grad(M.mutual)(x), central, rel_tol=1e-7)


def test_a_recursion_the_plain_call_runs_is_differentiated_however_deep():
    # 400 levels: more than Python's default limit allows srcad's frames per level
    x, h = 0.5, 1e-6
    central = (M.drift(x + h, 400) - M.drift(x - h, 400)) / (2 * h)
    assert math.isclose(srcad.grad(M.drift)(x, 400), central, rel_tol=1e-6)
    assert math.isclose(srcad.jacfwd(M.drift)(x, 400), central, rel_tol=1e-6)


def test_a_global_the_helper_reads_changed_between_calls_is_seen():
    x = 1.1
    assert srcad.grad(M.scaled_power)(x, 2) == pytest.approx(4.0 * x ** 3 * 2.0, rel=1e-12)
    M.SCALE[0] = 3.0
    try:
        assert srcad.grad(M.scaled_power)(x, 2) == pytest.approx(4.0 * x ** 3 * 3.0, rel=1e-12)
    finally:
        M.SCALE[0] = 2.0


def _rows(x):
    y = np.zeros(3)
    for i in range(3):
        y[i] = M.climb(x[i], 3) + M.descend(x[(i + 1) % 3], 2)
    return y


def test_an_array_valued_function_of_recursive_helpers_has_its_jacobian():
    x = np.array([0.3, 0.5, 0.7])
    expected = np.array([_central(lambda v, i=i: _rows(v)[i], x) for i in range(3)])
    np.testing.assert_allclose(srcad.jacfwd(_rows)(x), expected, rtol=1e-8)
    np.testing.assert_allclose(srcad.jacrev(_rows)(x), expected, rtol=1e-8)


def test_hvp_through_a_recursive_determinant_is_the_hessian_times_v():
    a, v = RNG.rand(9), RNG.rand(9)
    expected = _central(lambda x: srcad.grad(det_recursive)(x, 3) @ v, a)
    hvp = srcad.hvp(det_recursive, a, srcad.Constant(3), tangent=v)
    np.testing.assert_allclose(hvp, expected, atol=1e-8)


def test_a_constant_tuple_passed_down_a_recursion_is_read_as_its_array():
    x = 0.7  # 1 - 2x + 0.5x^2
    assert srcad.grad(M.tuple_polynomial)(x) == pytest.approx(-2.0 + x, rel=1e-12)
    assert srcad.jacfwd(M.tuple_polynomial)(x) == pytest.approx(-2.0 + x, rel=1e-12)
