"""`srcad.vmap` over the forms a body is not lifted for, each against `jax.vmap` (values to
1e-10, the same containers and shapes): a `while` whose trip count differs per example, a
helper of the user's called on batched values, container arguments and results, and nested
vmap, also of per-example gradients (`vmap(grad(f))`, `vmap(vmap(grad(f)))`).
"""

import math

import numpy as np
import pytest
from helpers import jax_reference
from helpers.jax_reference import jax_in_float64  # noqa: F401  (JAX in float64)

import srcad

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
lax = pytest.importorskip("jax.lax")

rng = np.random.default_rng(11)
A = rng.uniform(1.0, 40.0, size=7)
W = rng.normal(size=3)
X = rng.normal(size=(5, 3))
PARAMS = {"w": rng.normal(size=(5, 3)), "b": 0.5, "scale": (1.5, rng.normal(size=(5, 2)))}


def same_tree(ours, theirs):
    jax_reference.same_tree(ours, theirs, 1e-10)


def heron(a, x0):
    """sqrt(a) by Heron's iteration: the trip count differs between examples."""
    x = x0
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x * x0


def heron_jax(a, x0):
    def step(x):
        return 0.5 * (x + a / x)
    return lax.while_loop(lambda x: jnp.abs(x * x - a) > 1e-12 * a, step, x0) * x0


def test_a_while_whose_trip_count_differs_per_example_is_jaxs():
    same_tree(srcad.vmap(heron, in_axes=(0, None))(A, 1.0),
              jax.vmap(heron_jax, in_axes=(0, None))(A, 1.0))
    # per-example derivatives (JAX's reverse mode refuses a while_loop: its forward mode)
    same_tree(srcad.vmap(srcad.grad(heron, argnums=0), in_axes=(0, None))(A, 1.0),
              jax.vmap(jax.jacfwd(heron_jax, argnums=0), in_axes=(0, None))(A, 1.0))


def squash(u, v):
    return np.tanh(u) * v + math.exp(-abs(v[0]))


def with_helper(w, x):
    return np.sum(squash(w * x, x) ** 2)


def with_helper_jax(w, x):
    return jnp.sum((jnp.tanh(w * x) * x + jnp.exp(-jnp.abs(x[0]))) ** 2)


def test_a_helper_called_on_batched_values_is_jaxs():
    same_tree(srcad.vmap(with_helper, in_axes=(None, 0))(W, X),
              jax.vmap(with_helper_jax, in_axes=(None, 0))(W, X))
    same_tree(srcad.vmap(srcad.grad(with_helper), in_axes=(None, 0))(W, X),
              jax.vmap(jax.grad(with_helper_jax), in_axes=(None, 0))(W, X))


def layer(p, x):
    h = np.tanh(p["w"] * x + p["b"]) * p["scale"][0]
    return {"out": h + p["scale"][1][0], "size": np.sum(h * x)}


def layer_jax(p, x):
    h = jnp.tanh(p["w"] * x + p["b"]) * p["scale"][0]
    return {"out": h + p["scale"][1][0], "size": jnp.sum(h * x)}


def layer_loss(p, x):
    h = np.tanh(p["w"] * x + p["b"]) * p["scale"][0]
    return np.sum(h * x) + p["scale"][1][0] ** 2


def layer_loss_jax(p, x):
    h = jnp.tanh(p["w"] * x + p["b"]) * p["scale"][0]
    return jnp.sum(h * x) + p["scale"][1][0] ** 2


AXES = ({"w": 0, "b": None, "scale": (None, 0)}, 0)


def test_container_arguments_and_results_are_jaxs():
    same_tree(srcad.vmap(layer, in_axes=AXES)(PARAMS, X),
              jax.vmap(layer_jax, in_axes=AXES)(PARAMS, X))
    same_tree(srcad.vmap(layer, in_axes=AXES, out_axes={"out": 1, "size": 0})(PARAMS, X),
              jax.vmap(layer_jax, in_axes=AXES, out_axes={"out": 1, "size": 0})(PARAMS, X))


def test_per_example_gradients_with_respect_to_a_container_are_jaxs():
    same_tree(srcad.vmap(srcad.grad(layer_loss), in_axes=AXES)(PARAMS, X),
              jax.vmap(jax.grad(layer_loss_jax), in_axes=AXES)(PARAMS, X))


def pair(x, y):
    return np.sin(x) * y + x * x, np.sum(x * y)


def pair_jax(x, y):
    return jnp.sin(x) * y + x * x, jnp.sum(x * y)


@pytest.mark.parametrize("inner, outer", [((0, 0), (0, 0)), ((0, None), (None, 0)),
                                          ((1, 2), (0, None)), ((None, 0), (1, 1))])
def test_nested_vmap_is_jaxs(inner, outer):
    a, b = rng.normal(size=(3, 4, 2)), rng.normal(size=(3, 4, 2))
    ours = srcad.vmap(srcad.vmap(pair, in_axes=inner), in_axes=outer)(a, b)
    same_tree(ours, jax.vmap(jax.vmap(pair_jax, in_axes=inner), in_axes=outer)(a, b))


def test_nested_vmap_of_a_gradient_is_jaxs():
    ws = rng.normal(size=(2, 3))  # two weight vectors, each over the batch of examples
    ours = srcad.vmap(srcad.vmap(srcad.grad(with_helper), in_axes=(None, 0)),
                      in_axes=(0, None))(ws, X)
    theirs = jax.vmap(jax.vmap(jax.grad(with_helper_jax), in_axes=(None, 0)),
                      in_axes=(0, None))(ws, X)
    same_tree(ours, theirs)
    assert ours.shape == (2, 5, 3)


@pytest.mark.slow
def test_the_forms_on_numba_are_jaxs():
    same_tree(srcad.vmap(heron, in_axes=(0, None), backend="numba")(A, 1.0),
              jax.vmap(heron_jax, in_axes=(0, None))(A, 1.0))
    gradient = srcad.grad(with_helper, backend="numba")
    ws = np.stack([W, 2.0 * W])
    same_tree(srcad.vmap(srcad.vmap(gradient, in_axes=(None, 0)), in_axes=(0, None))(ws, X),
              jax.vmap(jax.vmap(jax.grad(with_helper_jax), in_axes=(None, 0)),
                       in_axes=(0, None))(ws, X))


def test_a_transform_of_a_vmapped_gradient_is_never_taken_for_the_gradient_itself():
    per_example = srcad.vmap(srcad.grad(with_helper), in_axes=(None, 0))
    # it gave the Hessian at the whole batch as one example, shape (3, 3)
    with pytest.raises(srcad.SrcadError, match="vmap of a function") as refused:
        srcad.jacfwd(per_example)(W, X)
    assert refused.value.filename == __file__  # the user's function, not srcad's code
    assert "srcad.vmap(srcad.jacfwd(" in str(refused.value)
    # the suggestion, followed: each example's Hessian, as JAX's jacfwd(vmap(grad))
    ours = srcad.vmap(srcad.jacfwd(srcad.grad(with_helper)), in_axes=(None, 0))(W, X)
    same_tree(ours, jax.jacfwd(jax.vmap(jax.grad(with_helper_jax), in_axes=(None, 0)))(W, X))
    assert ours.shape == (5, 3, 3)
