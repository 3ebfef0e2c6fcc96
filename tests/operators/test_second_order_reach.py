"""Second order reaches what first order does on the python backend: a function whose
gradient srcad gives has a Hessian, checked against jax.hessian (JAX's own code of the same
program) and against central differences of srcad's gradient."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg

import srcad
import srcad.rules.generated_code as generated
from srcad.build.generated_namespace import ARRAY_RUNTIME
from srcad.runtime.array_runtime import cholesky_adjoint, cholesky_tangent
from srcad.runtime.cholesky_derivatives import (
    cholesky_adjoint_tangent,
    cholesky_tangent_adjoint,
    cholesky_tangent_tangent,
)
from tests.helpers import custom_rule_models

jax.config.update("jax_enable_x64", True)


def gradient_differences(f, x, eps=1e-6):
    """The Hessian by central differences of srcad's reverse-mode gradient."""
    g = srcad.grad(f)
    return np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(x.size)]).T


def check_hessian(f, jax_f, x, rtol=1e-9):
    H = srcad.hessian(f)(x)
    np.testing.assert_allclose(H, jax.jit(jax.hessian(jax_f))(x), rtol=rtol, atol=1e-10)
    np.testing.assert_allclose(H, gradient_differences(f, x), rtol=1e-5, atol=1e-6)
    v = np.linspace(0.3, -0.4, x.size)
    np.testing.assert_allclose(srcad.hvp(f, x, tangent=v), H @ v, rtol=1e-9, atol=1e-10)


# -- an RK4 integration of Lotka-Volterra in a `while t < T` loop, the state an array ------------
def lotka_volterra(z, p):
    dz = np.array([p[0] * z[0] - p[1] * z[0] * z[1], p[2] * z[0] * z[1] - p[3] * z[1]])
    return dz


def rk4_while(p):
    z = np.array([1.0, 0.5])
    t = 0.0
    h = 0.1
    while t < 1.0:
        k1 = lotka_volterra(z, p)
        k2 = lotka_volterra(z + 0.5 * h * k1, p)
        k3 = lotka_volterra(z + 0.5 * h * k2, p)
        k4 = lotka_volterra(z + h * k3, p)
        z = z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
    return np.sum(z ** 2)


def trips(step, end):
    """How many times `while t < end: t += step` runs, in the same float steps."""
    t, count = 0.0, 0
    while t < end:
        t, count = t + step, count + 1
    return count


def jax_rk4(p):
    def rhs(z):
        return jnp.array([p[0] * z[0] - p[1] * z[0] * z[1], p[2] * z[0] * z[1] - p[3] * z[1]])

    def step(_, z):
        h = 0.1
        k1 = rhs(z)
        k2 = rhs(z + 0.5 * h * k1)
        k3 = rhs(z + 0.5 * h * k2)
        k4 = rhs(z + h * k3)
        return z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    z = jax.lax.fori_loop(0, trips(0.1, 1.0), step, jnp.array([1.0, 0.5]))
    return jnp.sum(z ** 2)


@pytest.mark.slow
def test_hessian_of_an_rk4_while_loop_carrying_an_array_state():
    check_hessian(rk4_while, jax_rk4, np.array([1.1, 0.4, 0.3, 0.9]))


def array_state_rebuilt_in_a_loop(p):
    z = np.array([1.0, 0.5])
    for _ in range(2):
        dz = np.array([p[0] * z[0] * z[1], p[1] * z[1]])
        z = z + 0.1 * dz
    return np.sum(z * z)


def test_forward_code_binds_an_array_state_tangent_once_so_reverse_over_forward_takes_it():
    # the forward code once zeroed `z_dot` as a float before binding it to an array (a
    # tangent "read before set" it was not), which srcad's reverse mode then refused
    p = np.array([0.7, 1.3])
    H = srcad.hessian(array_state_rebuilt_in_a_loop, p, mode="reverse-over-forward")
    np.testing.assert_allclose(H, gradient_differences(array_state_rebuilt_in_a_loop, p),
                               rtol=1e-6, atol=1e-6)


# -- a Gaussian-process negative log-likelihood: cholesky, solve, solve_triangular ----------------
POINTS = np.linspace(0.0, 1.0, 5)
VALUES = np.sin(3.0 * POINTS)


def gp_solve(theta):
    K = theta[0] * np.exp(-(POINTS[:, None] - POINTS[None, :]) ** 2 / theta[1]) \
        + 0.1 * np.eye(5)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, VALUES))
    return 0.5 * VALUES @ alpha + np.sum(np.log(np.diag(L)))


def jax_gp_solve(theta):
    K = theta[0] * jnp.exp(-(POINTS[:, None] - POINTS[None, :]) ** 2 / theta[1]) \
        + 0.1 * jnp.eye(5)
    L = jnp.linalg.cholesky(K)
    alpha = jnp.linalg.solve(L.T, jnp.linalg.solve(L, VALUES))
    return 0.5 * VALUES @ alpha + jnp.sum(jnp.log(jnp.diag(L)))


def gp_triangular(theta):
    K = theta[0] * np.exp(-(POINTS[:, None] - POINTS[None, :]) ** 2 / theta[1]) \
        + 0.1 * np.eye(5)
    L = np.linalg.cholesky(K)
    z = scipy.linalg.solve_triangular(L, VALUES, lower=True)
    return 0.5 * z @ z + np.sum(np.log(np.diag(L)))


def jax_gp_triangular(theta):
    K = theta[0] * jnp.exp(-(POINTS[:, None] - POINTS[None, :]) ** 2 / theta[1]) \
        + 0.1 * jnp.eye(5)
    L = jnp.linalg.cholesky(K)
    z = jax.scipy.linalg.solve_triangular(L, VALUES, lower=True)
    return 0.5 * z @ z + jnp.sum(jnp.log(jnp.diag(L)))


@pytest.mark.slow
def test_hessian_of_a_gaussian_process_likelihood_through_cholesky_and_solve():
    check_hessian(gp_solve, jax_gp_solve, np.array([1.0, 0.3]))


@pytest.mark.slow
def test_hessian_of_a_gaussian_process_likelihood_through_solve_triangular():
    check_hessian(gp_triangular, jax_gp_triangular, np.array([1.0, 0.3]))


def test_the_cholesky_rules_own_derivatives_agree_with_central_differences():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((4, 4))
    L = np.linalg.cholesky(A @ A.T + 4.0 * np.eye(4))
    dL, g, dA, W = (rng.standard_normal((4, 4)) for _ in range(4))
    eps = 1e-6

    def along(function):
        return (function(L + eps * dL) - function(L - eps * dL)) / (2 * eps)
    np.testing.assert_allclose(cholesky_adjoint_tangent(L, g, dL),
                               along(lambda M: cholesky_adjoint(M, g)), atol=1e-8)
    np.testing.assert_allclose(cholesky_tangent_tangent(L, dA, dL),
                               along(lambda M: cholesky_tangent(M, dA)), atol=1e-8)
    # the adjoint is the transpose of the tangent map
    np.testing.assert_allclose(np.sum(W * cholesky_tangent_tangent(L, dA, dL)),
                               np.sum(cholesky_tangent_adjoint(L, dA, W) * dL), rtol=1e-12)


SHAPE_ADJOINT_CALLS = [  # (adjoint, the seed's shape, the arguments after it)
    ("undiagonal", (3,), ((3, 4), 0, 0, 1)),
    ("untrace", (), ((3, 3), 1, 0, 1)),
    ("diagonal_adjoint", (2,), ((2, 3),)),
    ("untile", (4, 9), ((2, 3), (2, 3))),
    ("unrepeat", (6,), (2, None, (3,))),
    ("untake", (4,), (np.array([0, 2, 2, 1]), None, "raise", (3,))),
    ("untake_along_axis", (2, 2), (np.array([[1, 0], [2, 2]]), 1, (2, 3))),
    ("unpad", (5,), ((3,), ((1, 1),), "constant")),
    ("unsort", (4,), (np.array([3.0, 1.0, 4.0, 2.0]), -1)),
]


@pytest.mark.parametrize("name, seed_shape, rest", SHAPE_ADJOINT_CALLS)
def test_the_rules_of_srcads_shape_adjoints_are_their_transposes(name, seed_shape, rest):
    # forward mode over reverse code calls the adjoint on the seed's tangent (it is linear in
    # the seed); reverse mode over it calls the rule's adjoint, which must be its transpose
    rng = np.random.default_rng(5)
    helper = ARRAY_RUNTIME[name]
    seed = rng.standard_normal(seed_shape)
    out = rng.standard_normal(np.shape(helper(seed, *rest)))
    select = dict((fn.__name__, sel) for fn, sel in generated.ENTRIES)[name]
    ranks = [np.ndim(seed)] + [len(a) if isinstance(a, tuple) else np.ndim(a) for a in rest]
    rule = select(ranks, {})
    namespace = dict(ARRAY_RUNTIME, np=np, g=out, **dict(zip(rule.operands[1:], rest)))
    transposed = eval(rule.partials[0], namespace)
    assert np.shape(transposed) == seed.shape
    np.testing.assert_allclose(np.sum(out * helper(seed, *rest)), np.sum(transposed * seed),
                               rtol=1e-12)
    tangent = eval(rule.tangent(0).replace("g,", "seed,", 1), dict(namespace, seed=seed))
    np.testing.assert_allclose(tangent, helper(seed, *rest))


# -- np.where written inline (its condition's shape in the reverse code: np.shape(cond)) ---------
def huber_inline(x):
    r = x - 0.3
    return np.sum(np.where(np.abs(r) < 1.0, 0.5 * r ** 2, np.abs(r) - 0.5))


def jax_huber_inline(x):
    r = x - 0.3
    return jnp.sum(jnp.where(jnp.abs(r) < 1.0, 0.5 * r ** 2, jnp.abs(r) - 0.5))


def test_hessian_of_a_huber_loss_with_np_where_inline():
    # 0.3 sits on the kink of abs (JAX's answer there: the derivative of the branch taken)
    check_hessian(huber_inline, jax_huber_inline, np.array([0.1, 2.0, -1.5, 0.3, 1.2]))


# -- custom rules: second order goes through a custom_jvp rule (srcad differentiates the rule) ----
# softplus: srcad.custom_jvp with the rule t * expit(x) (tests/helpers/custom_rule_models.py)
def softplus_loss(w):
    return np.sum(custom_rule_models.softplus(w * w) * w)


def jax_softplus_loss(w):
    return jnp.sum(jax.nn.softplus(w * w) * w)


def test_hessian_through_a_custom_jvp_rule_differentiates_the_rule():
    check_hessian(softplus_loss, jax_softplus_loss, np.array([0.3, -0.7, 1.2]))


# -- the transform's blocks between arguments (the container Hessian) fall back the same way ------
def scaled_while_steps(p, q):
    z = np.array([1.0, 0.5])
    t = 0.0
    while t < 0.25:
        z = z + 0.1 * np.array([p[0] * q[0] * z[0] * z[1], p[1] * q[1] * z[1]])
        t += 0.1
    return np.sum(z * z)


def jax_scaled_while_steps(p, q):
    z = jnp.array([1.0, 0.5])
    for _ in range(trips(0.1, 0.25)):
        z = z + 0.1 * jnp.array([p[0] * q[0] * z[0] * z[1], p[1] * q[1] * z[1]])
    return jnp.sum(z * z)


@pytest.mark.slow
def test_hessian_blocks_between_arguments_of_a_while_loop_carrying_an_array():
    # once refused naming srcad's generated `while_trips`
    p, q = np.array([0.7, 1.3]), np.array([1.1, 0.9])
    H = srcad.hessian(scaled_while_steps, argnums=(0, 1))(p, q)
    want = jax.hessian(jax_scaled_while_steps, argnums=(0, 1))(p, q)
    for i in range(2):
        for k in range(2):
            np.testing.assert_allclose(H[i][k], want[i][k], rtol=1e-9, atol=1e-12)
