"""Composed transforms over containers of parameters (srcad/api/chain_trees.py):
`jacfwd(grad(f))`, `jacrev(grad(f))`, `hessian(grad(f))`, `jvp`/`vjp` of a gradient, when
f's parameters are a dict, a list, a tuple of floats, a NamedTuple or a nested pytree.
Each is checked against JAX itself (values to 1e-9, the same containers and shapes) and
against central differences of srcad's own gradient.
"""

from typing import NamedTuple

import numpy as np
import pytest

import srcad

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from helpers.jax_reference import central, jax_in_float64, same_tree  # noqa: E402, F401


class Layer(NamedTuple):
    w: object
    b: object


def models(np):
    """The same functions for srcad (numpy) and JAX (jax.numpy)."""

    def dict_loss(p, x):
        return np.sum(np.tanh(p["w"] * x) ** 2) + p["b"] ** 3 * np.sum(x)

    def record_loss(p, x):
        return np.sum(np.sin(p.w * x) * p.w) * p.b ** 2

    def tuple_loss(p, x):
        return np.sum(np.sin(p[0] * x)) * p[1] ** 2 + p[0] * p[1]

    def nested_loss(p, x):
        h = np.tanh(p["layers"][0]["W"] @ x + p["layers"][0]["b"])
        return np.sum(np.tanh(p["layers"][1]["W"] @ h) ** 2) * p["scale"] ** 2

    def aux_loss(p, x):
        value = np.sum(p["w"] * x) ** 2 * p["b"]
        return value, {"count": 3, "value": value, "pair": (1, p["b"] * 2.0)}

    def vector(p, x):
        return np.sin(p["w"] * x) * p["b"]

    return dict(dict_loss=dict_loss, record_loss=record_loss, tuple_loss=tuple_loss,
                nested_loss=nested_loss, aux_loss=aux_loss, vector=vector)


OURS, THEIRS = models(np), models(jnp)
rng = np.random.default_rng(3)
X = np.array([0.3, -0.2, 0.5])
W = np.array([1.0, 2.0, -0.5])
DICT = {"w": W, "b": 0.7}
RECORD = Layer(W, 0.9)
TUPLE = (0.8, 1.3)
NESTED = {"layers": [{"W": rng.normal(size=(4, 3)), "b": rng.normal(size=4)},
                     {"W": rng.normal(size=(2, 4))}], "scale": 1.1}
PARAMS = {"dict_loss": DICT, "record_loss": RECORD, "tuple_loss": TUPLE,
          "nested_loss": NESTED}

def _jacfwd_of_grad(m, f):
    return m.jacfwd(m.grad(f))


def _jacrev_of_grad(m, f):
    return m.jacrev(m.grad(f))


def _hessian_of_grad_wrt_x(m, f):
    return m.hessian(m.grad(f, argnums=1), argnums=0)


@pytest.mark.parametrize("name, build", [
    pytest.param(name, build, id=f"{build.__name__[1:]}-{name}",
                 marks=() if (name, build) == ("dict_loss", _jacfwd_of_grad)
                 else pytest.mark.slow)  # the rest compile JAX's as well: make test-all
    for name in sorted(PARAMS) for build in (_jacfwd_of_grad, _jacrev_of_grad)])
def test_jacobian_of_a_gradient_over_a_container_is_jaxs(name, build):
    ours = build(srcad, OURS[name])(PARAMS[name], X)
    same_tree(ours, build(jax, THEIRS[name])(PARAMS[name], X))


def test_jacobian_of_a_gradient_over_a_dict_is_the_central_differences_of_the_gradient():
    gradient = srcad.grad(OURS["dict_loss"])
    ours = srcad.jacfwd(gradient)(DICT, X)
    for wrt in ("w", "b"):
        def along(v, wrt=wrt):
            return gradient({**DICT, wrt: v}, X)["w"]
        np.testing.assert_allclose(ours["w"][wrt], central(along, DICT[wrt]), atol=1e-7)


@pytest.mark.slow
def test_a_derivative_of_a_gradient_wrt_an_array_beside_a_container_is_jaxs():
    f, f_jax = OURS["dict_loss"], THEIRS["dict_loss"]
    same_tree(srcad.jacfwd(srcad.grad(f), argnums=(0, 1))(DICT, X),
              jax.jacfwd(jax.grad(f_jax), argnums=(0, 1))(DICT, X))
    same_tree(srcad.jacfwd(srcad.grad(f, argnums=1))(DICT, X),
              jax.jacfwd(jax.grad(f_jax, argnums=1))(DICT, X))


@pytest.mark.slow
def test_third_order_over_a_container_is_jaxs():
    f, f_jax = OURS["tuple_loss"], THEIRS["tuple_loss"]
    same_tree(_hessian_of_grad_wrt_x(srcad, f)(TUPLE, X),
              _hessian_of_grad_wrt_x(jax, f_jax)(TUPLE, X))


@pytest.mark.slow  # JAX's compilations too: make test-all
def test_jacobian_of_a_jacobian_over_a_dict_is_jaxs():
    same_tree(srcad.jacfwd(srcad.jacrev(OURS["vector"]))(DICT, X),
              jax.jacfwd(jax.jacrev(THEIRS["vector"]))(DICT, X))


@pytest.mark.slow  # JAX's compilations too: make test-all
def test_jvp_and_vjp_of_a_gradient_over_a_container_are_jaxs():
    f, f_jax = OURS["nested_loss"], THEIRS["nested_loss"]
    tangent = jax.tree_util.tree_map(lambda a: np.ones(np.shape(a)) * 0.3, NESTED)
    same_tree(srcad.jvp(srcad.grad(f), (NESTED, X), (tangent, X)),
              jax.jvp(jax.grad(f_jax), (NESTED, X), (tangent, X)))
    ours, pull = srcad.vjp(srcad.grad(f), NESTED, X)
    theirs, pull_jax = jax.vjp(jax.grad(f_jax), NESTED, X)
    same_tree(ours, theirs)
    same_tree(pull(tangent), pull_jax(tangent))
    same_tree(pull(ours), pull_jax(ours))  # reusable


@pytest.mark.slow  # JAX's compilations too: make test-all
def test_has_aux_with_ints_and_containers_passes_through_a_composition():
    f, f_jax = OURS["aux_loss"], THEIRS["aux_loss"]
    ours = srcad.jacfwd(srcad.grad(f, has_aux=True), has_aux=True)(DICT, X)
    same_tree(ours, jax.jacfwd(jax.grad(f_jax, has_aux=True), has_aux=True)(DICT, X))
    assert type(ours[1]["count"]) is int


def test_a_mismatched_tangent_or_an_integer_leaf_is_refused_by_name():
    gradient = srcad.grad(OURS["dict_loss"])
    with pytest.raises(srcad.ArgumentError, match="structure other than its primal"):
        srcad.jvp(gradient, (DICT, X), ({"w": W}, X))
    with pytest.raises(srcad.ArgumentError, match=r"\['b'\].*not a float"):
        srcad.jacfwd(gradient)({"w": W, "b": 2}, X)
    with pytest.raises(srcad.ArgumentError, match="grad needs a float output"):
        srcad.grad(srcad.grad(OURS["dict_loss"]))(DICT, X)


def test_the_source_of_a_composition_over_a_dict_is_the_code_it_runs():
    text = srcad.source(srcad.jacfwd(srcad.grad(OURS["dict_loss"])), srcad.Forward, DICT, X)
    assert "def dict_loss_into_reverse(" in text
    assert "def dict_loss_into_reverse_forward(" in text


@pytest.mark.slow
def test_composed_transforms_over_a_dict_on_numba():
    def looped(p, x):
        s = 0.0
        for i in range(x.shape[0]):
            s += np.sin(p["w"][i] * x[i]) * p["b"] ** 2
        return s

    def looped_jax(p, x):
        return jnp.sum(jnp.sin(p["w"] * x)) * p["b"] ** 2

    same_tree(srcad.jacfwd(srcad.grad(looped), backend="numba")(DICT, X),
              jax.jacfwd(jax.grad(looped_jax))(DICT, X))


def test_vjp_of_a_gradient_along_a_tuple_of_argnums_over_a_dict_is_jaxs():
    f, f_jax = OURS["dict_loss"], THEIRS["dict_loss"]
    ours, pull = srcad.vjp(srcad.grad(f, argnums=(0, 1)), DICT, X)
    theirs, pull_jax = jax.vjp(jax.grad(f_jax, argnums=(0, 1)), DICT, X)
    same_tree(ours, theirs)
    cotangent = ({"w": X, "b": 0.5}, W)
    same_tree(pull(cotangent), pull_jax(cotangent))


def with_settings(np):
    def scalar(t, settings):
        return np.sum(np.sin(t) * t) * settings["noise"] + t[0] ** 3 * settings["scale"][1]

    def vector(t, settings):
        return np.sin(t) * settings["noise"] + t ** 2 * settings["scale"][0]

    return scalar, vector


SETTINGS = {"noise": 0.1, "scale": (2.0, 3.0)}
T = np.array([1.0, 0.3])


def test_hessian_with_a_dict_of_settings_is_the_central_differences_of_the_gradient():
    scalar = with_settings(np)[0]
    gradient = srcad.grad(scalar)
    np.testing.assert_allclose(srcad.hessian(scalar)(T, SETTINGS),
                               central(lambda v: gradient(v, SETTINGS), T), atol=1e-7)


@pytest.mark.slow  # JAX's compilations: make test-all
def test_hessian_with_a_dict_of_settings_not_differentiated_is_jaxs():
    for ours, theirs in zip(with_settings(np), with_settings(jnp)):
        same_tree(srcad.hessian(ours)(T, SETTINGS), jax.hessian(theirs)(T, SETTINGS))
