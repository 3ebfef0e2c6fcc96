"""Dataclasses and NamedTuples of parameters as pytrees: read as `layer.W`, differentiated in
every mode and operator, the result a record of the same class; checked against central
differences and JAX."""

from dataclasses import dataclass
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import srcad
from srcad import Constant
from srcad.errors import SrcadError

jax.config.update("jax_enable_x64", True)


@dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    scale: float = 2.0


class Params(NamedTuple):
    W: np.ndarray
    b: np.ndarray


X = np.array([0.3, -1.2, 0.7])


def layer_loss(layer, x):
    return layer.scale * np.sum(np.tanh(layer.W @ x + layer.b))


def tuple_loss(p, x):
    W, b = p
    return np.sum(np.tanh(p.W @ x + b)) + p[1][0] ** 2


def _layer():
    rng = np.random.default_rng(3)
    return Layer(rng.normal(size=(2, 3)), rng.normal(size=2), 1.5)


def _jax_layer():
    L = _layer()
    grads = jax.grad(lambda W, b, s: s * jnp.sum(jnp.tanh(W @ X + b)), argnums=(0, 1, 2))(
        L.W, L.b, L.scale)
    return tuple(np.asarray(g) for g in grads)


def _central(f, record, path, h=1e-6):
    """Central differences of f(record) with respect to the field `path`."""
    base = getattr(record, path)
    if isinstance(base, float):
        plus = f(_replace(record, path, base + h))
        minus = f(_replace(record, path, base - h))
        return (plus - minus) / (2 * h)
    out = np.zeros_like(base)
    for k in range(base.size):
        e = np.zeros_like(base)
        e.flat[k] = h
        plus, minus = f(_replace(record, path, base + e)), f(_replace(record, path, base - e))
        out.flat[k] = (plus - minus) / (2 * h)
    return out


def _replace(record, field, value):
    if isinstance(record, tuple):
        return record._replace(**{field: value})
    return Layer(**{**record.__dict__, field: value})


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_dataclass_gradient_matches_jax(mode):
    L = _layer()
    g = srcad.gradient(layer_loss, L, Constant(X), mode=mode)
    assert type(g) is Layer
    W, b, s = _jax_layer()
    np.testing.assert_allclose(g.W, W, rtol=1e-10)
    np.testing.assert_allclose(g.b, b, rtol=1e-10)
    np.testing.assert_allclose(g.scale, s, rtol=1e-10)


def test_grad_of_dataclass_and_array():
    L = _layer()
    value, (gL, gx) = srcad.value_and_grad(layer_loss, argnums=(0, 1))(L, X)
    assert value == pytest.approx(layer_loss(L, X))
    np.testing.assert_allclose(gL.W, _central(lambda r: layer_loss(r, X), L, "W"), rtol=1e-6)
    np.testing.assert_allclose(gx, jax.grad(lambda x: L.scale * jnp.sum(
        jnp.tanh(L.W @ x + L.b)))(X), rtol=1e-10)


def test_namedtuple_read_by_field_position_and_unpacking():
    L = _layer()
    p = Params(L.W, L.b)
    g = srcad.grad(tuple_loss)(p, X)
    assert type(g) is Params
    for field in ("W", "b"):
        np.testing.assert_allclose(getattr(g, field),
                                   _central(lambda r: tuple_loss(r, X), p, field), rtol=1e-6)


def test_vector_mode_pushforward_and_jacobian():
    L = _layer()
    t1, t2 = _layer(), Layer(np.ones((2, 3)), np.ones(2), 0.5)
    lanes = srcad.pushforward(layer_loss, L, Constant(X), tangent=(t1, t2))
    one = srcad.pushforward(layer_loss, L, Constant(X), tangent=t2)
    W, b, s = _jax_layer()
    expected = np.sum(W * t2.W) + np.sum(b * t2.b) + s * t2.scale
    assert one == pytest.approx(expected, rel=1e-10)
    assert lanes[1] == pytest.approx(expected, rel=1e-10)
    jac = srcad.jacobian(layer_loss, L, Constant(X))
    np.testing.assert_allclose(jac.W, W, rtol=1e-10)


def test_hessian_of_a_dataclass_matches_jax():
    L = Layer(_layer().W, _layer().b)
    H = srcad.hessian(lambda layer, x: np.sum(np.tanh(layer.W @ x + layer.b)), L, Constant(X))
    Hb = jax.hessian(lambda b: jnp.sum(jnp.tanh(L.W @ X + b)))(L.b)
    np.testing.assert_allclose(H.b.b, Hb, rtol=1e-10)


@pytest.mark.slow
def test_dataclass_on_numba():
    L = _layer()
    g = srcad.grad(layer_loss, backend="numba")(L, X)
    W, b, s = _jax_layer()
    np.testing.assert_allclose(g.W, W, rtol=1e-10)
    np.testing.assert_allclose(g.scale, s, rtol=1e-10)


def assigns_a_field(layer, x):
    layer.b = layer.b + 1.0
    return np.sum(layer.W @ x)


def reads_a_missing_field(layer, x):
    return np.sum(layer.V @ x)


def test_field_assignment_refused_by_line():
    with pytest.raises(SrcadError, match="attribute assignment") as info:
        srcad.grad(assigns_a_field)(_layer(), X)
    assert info.value.line == assigns_a_field.__code__.co_firstlineno + 1


def test_missing_field_refused_with_the_fields():
    with pytest.raises(SrcadError, match="no field `V`.*W, b, scale"):
        srcad.grad(reads_a_missing_field)(_layer(), X)


class Scaled(NamedTuple):
    W: np.ndarray
    g: float


def scaled_loss(p, x):
    return np.sum(p.W * x) * p.g ** 2


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_float_field_of_a_namedtuple(mode):
    """An immutable record's float gets its derivative as a 0-d array (as JAX gives)."""
    p = Scaled(np.array([1.0, -0.5, 2.0]), 0.7)
    g = srcad.gradient(scaled_loss, p, Constant(X), mode=mode)
    W, s = jax.grad(lambda W, s: jnp.sum(W * X) * s ** 2, argnums=(0, 1))(p.W, p.g)
    np.testing.assert_allclose(g.W, W, rtol=1e-12)
    assert float(g.g) == pytest.approx(float(s), rel=1e-12)
    assert float(srcad.grad(scaled_loss)(p, X).g) == pytest.approx(float(s), rel=1e-12)
