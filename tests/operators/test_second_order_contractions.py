"""Second order through contractions (np.einsum, np.tensordot, np.inner,
np.linalg.multi_dot, stacked `@`): srcad's forward mode differentiates the einsum adjoint in
its own reverse code by the adjoint's rule (srcad/rules/generated_code.py), the operand whose
adjoint it is and the other operands active at once. Checked against jax.hessian and against
central differences of srcad's gradient."""

import sys
import types
from pathlib import Path

import numpy as np
import pytest

import srcad

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers.jax_reference import central, jax, jax_in_float64  # noqa: E402, F401

jnp = jax.numpy


def in_jax(f):
    """f with jax.numpy for np (the same code, run by JAX as the reference)."""
    return types.FunctionType(f.__code__, {**f.__globals__, "np": jnp})


def einsum_of_itself(x):
    return np.sum(np.sin(np.einsum("ij,kj->ik", x, x)) * np.einsum("ii", x @ x.T))


def tensordot_of_itself(x):
    return np.sum(np.tensordot(x, np.cos(x), axes=([0], [0])) ** 2)


def inner_of_itself(x):
    return np.sum(np.inner(x, x * x) ** 2)


def multi_dot_of_itself(x):
    return np.sum(np.tanh(np.linalg.multi_dot([x, x.T, x])))


def stacked_matmul_of_itself(x):
    stack = np.reshape(x, (2, 3, 3))
    return np.sum(np.sin(stack @ stack) * stack)


def broadcast_diagonal_einsum(x):
    return np.sum(np.einsum("...ii->...i", np.reshape(x, (2, 3, 3))) ** 3
                  * np.einsum("...ij,...j->...i", np.reshape(x, (2, 3, 3)), x[:3]))


# the first is the fast smoke test; the others run in make test-all
CASES = [(einsum_of_itself, (3, 4))] + [
    pytest.param(f, shape, marks=pytest.mark.slow)
    for f, shape in ((tensordot_of_itself, (3, 2)), (inner_of_itself, (2, 3)),
                     (multi_dot_of_itself, (3, 2)), (stacked_matmul_of_itself, (18,)),
                     (broadcast_diagonal_einsum, (18,)))]
IDS = ["einsum_of_itself", "tensordot_of_itself", "inner_of_itself", "multi_dot_of_itself",
       "stacked_matmul_of_itself", "broadcast_diagonal_einsum"]


@pytest.mark.parametrize("f, shape", CASES, ids=IDS)
def test_the_hessian_through_a_contraction_of_active_operands_is_jaxs(f, shape):
    x = np.random.default_rng(7).normal(size=shape)
    H = srcad.hessian(f, x)  # the operator: (x.size, x.size)
    expected = np.asarray(jax.jit(jax.hessian(in_jax(f)))(jnp.asarray(x))).reshape(H.shape)
    np.testing.assert_allclose(H, expected, rtol=1e-9, atol=1e-9)
    differences = central(srcad.grad(f), x).reshape(H.shape)
    np.testing.assert_allclose(H, differences, rtol=1e-6, atol=1e-6)


@pytest.mark.slow
def test_an_hvp_through_einsum_is_jaxs():
    x = np.random.default_rng(3).normal(size=(3, 4))
    v = np.random.default_rng(4).normal(size=(3, 4))
    ours = srcad.hvp(einsum_of_itself, x, tangent=v)
    theirs = jax.jvp(jax.grad(in_jax(einsum_of_itself)), (jnp.asarray(x),),
                     (jnp.asarray(v),))[1]
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-9, atol=1e-9)


@pytest.mark.slow
def test_grad_of_grad_through_tensordot_is_jaxs():
    x = np.random.default_rng(5).normal(size=(3, 2))

    def gradient_norm(u):
        return np.sum(srcad.grad(tensordot_of_itself)(u) ** 2)

    ours = srcad.grad(gradient_norm)(x)
    theirs = jax.grad(lambda u: jnp.sum(jax.grad(in_jax(tensordot_of_itself))(u) ** 2))(
        jnp.asarray(x))
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-9, atol=1e-9)
