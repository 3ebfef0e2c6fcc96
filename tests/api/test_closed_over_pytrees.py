"""Pytrees read from outside the differentiated function, and strings and None where nothing
is differentiated (srcad/transform/normalize/free_containers.py, text_arguments.py): a
lambda closing over a dict of parameters, a global NamedTuple, a settings dict holding a
string, each through every transform, checked against JAX (1e-9) and central differences.
"""

from typing import NamedTuple

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from helpers.jax_reference import central, jax_in_float64, same_tree  # noqa: E402, F401


class Layer(NamedTuple):
    w: np.ndarray
    s: float


def model(t, H):
    z = np.sin(t) * H["a"] + H["inner"][0] * t ** 2
    layer = H["inner"][1]
    if H["kind"] == "rbf":
        z = z * layer.w
    for _ in range(H["n"]):
        z = z + layer.s * t
    return np.sum(z ** 2) * H["b"]


def model_jax(t, H):
    z = jnp.sin(t) * H["a"] + H["inner"][0] * t ** 2
    layer = H["inner"][1]
    if H["kind"] == "rbf":
        z = z * layer.w
    for _ in range(H["n"]):
        z = z + layer.s * t
    return jnp.sum(z ** 2) * H["b"]


def tree():
    return {"a": np.array([1.0, 2.0]), "b": 3.0, "n": 2, "off": None, "kind": "rbf",
            "inner": [np.array([0.5, -1.0]), Layer(np.array([2.0, 1.0]), 0.25)]}


T = np.array([0.3, 0.7])
V = np.array([1.0, -0.5])


def test_jvp_of_a_lambda_closing_over_a_dict_is_jaxs():
    H = tree()
    out, tangent = srcad.jvp(lambda t: model(t, H), (T,), (V,))
    want, want_tangent = jax.jvp(lambda t: model_jax(t, H), (T,), (V,))
    assert out == pytest.approx(float(want), rel=1e-12)
    assert tangent == pytest.approx(float(want_tangent), rel=1e-9)
    gradient = central(lambda t: model(t, H), T)
    assert tangent == pytest.approx(float(gradient @ V), rel=1e-6)


@pytest.mark.parametrize("transform", ["grad", "jacfwd", "jacrev", "hessian"])
def test_every_transform_of_a_closure_over_a_pytree_is_jaxs(transform):
    H = tree()
    ours = getattr(srcad, transform)(lambda t: model(t, H))(T)
    theirs = getattr(jax, transform)(lambda t: model_jax(t, H))(T)
    same_tree(ours, np.asarray(theirs))


@pytest.mark.slow  # JAX compiles and srcad builds several orders: seconds
def test_vjp_vmap_and_composed_transforms_of_a_closure_over_a_pytree_are_jaxs():
    H = tree()
    f, f_jax = (lambda t: model(t, H)), (lambda t: model_jax(t, H))
    value, pullback = srcad.vjp(f, T)
    same_tree(pullback(2.0), jax.vjp(f_jax, T)[1](2.0))
    same_tree(srcad.jacfwd(srcad.grad(f))(T), np.asarray(jax.hessian(f_jax)(T)))
    batch = np.random.default_rng(0).normal(size=(4, 2))
    same_tree(srcad.vmap(srcad.grad(f))(batch), np.asarray(jax.vmap(jax.grad(f_jax))(batch)))


PARAMETERS = {"scale": np.array([1.5, -0.5]), "shift": 0.25}


def global_loss(t):
    return np.sum(np.tanh(t * PARAMETERS["scale"] + PARAMETERS["shift"]) ** 2)


def test_a_global_dict_is_a_constant_and_rebinding_an_entry_rebuilds():
    def jax_loss(t):
        return jnp.sum(jnp.tanh(t * PARAMETERS["scale"] + PARAMETERS["shift"]) ** 2)
    same_tree(srcad.grad(global_loss)(T), np.asarray(jax.grad(jax_loss)(T)))
    old = PARAMETERS["shift"]
    try:
        PARAMETERS["shift"] = -1.0  # a new float in the dict: the code is built again
        same_tree(srcad.grad(global_loss)(T), np.asarray(jax.grad(jax_loss)(T)))
        np.testing.assert_allclose(srcad.grad(global_loss)(T), central(global_loss, T),
                                   rtol=1e-6)
    finally:
        PARAMETERS["shift"] = old


def test_replacing_a_nested_record_of_a_closed_over_pytree_rebuilds():
    H = tree()
    f = lambda t: model(t, H)  # noqa: E731
    srcad.grad(f)(T)
    H["inner"][1] = Layer(np.array([3.0, 1.0]), 0.5)  # a new record, its parent unchanged
    H["kind"] = "plain"
    same_tree(srcad.grad(f)(T), np.asarray(jax.grad(lambda t: model_jax(t, H))(T)))


OPAQUE_TREE = {"a": np.ones(2), "f": np.sin}


def test_a_pytree_read_as_no_container_parameter_is_still_refused_by_name():
    def reads(t):
        return np.sum(np.asarray(OPAQUE_TREE["a"]) * t) + OPAQUE_TREE["f"](t[0])
    with pytest.raises(SrcadError, match="OPAQUE_TREE"):
        srcad.grad(reads)(T)


def writes_its_parameter(H, x):
    H["shift"] = 2.0
    return np.sum(x * x) * H["shift"]


def passes_a_global_to_a_writer(x):
    return writes_its_parameter(PARAMETERS, x)


def test_a_helper_writing_into_a_global_pytree_is_refused_by_line():
    with pytest.raises(SrcadError, match=r"`PARAMETERS\['shift'\]` is written") as err:
        srcad.grad(passes_a_global_to_a_writer)(T)
    assert err.value.line == passes_a_global_to_a_writer.__code__.co_firstlineno + 1
    assert PARAMETERS["shift"] == 0.25


# -- strings and None in constant arguments ------------------------------------------------------
def kernel_loss(x, settings):
    d = x[:, None] - x[None, :]
    if settings["kind"] == "rbf":
        K = np.exp(-d ** 2 / (2 * settings["ell"] ** 2))
    else:
        K = 1.0 / (1.0 + d ** 2 / settings["ell"] ** 2)
    if settings["power"] is not None:
        K = K ** settings["power"]
    return np.sum(K * np.outer(x, x))


def kernel_loss_jax(x, settings):
    d = x[:, None] - x[None, :]
    if settings["kind"] == "rbf":
        K = jnp.exp(-d ** 2 / (2 * settings["ell"] ** 2))
    else:
        K = 1.0 / (1.0 + d ** 2 / settings["ell"] ** 2)
    if settings["power"] is not None:
        K = K ** settings["power"]
    return jnp.sum(K * jnp.outer(x, x))


X = np.array([0.3, -0.4, 1.1])
SETTINGS = [{"kind": "rbf", "ell": 0.5, "power": 2}, {"kind": "cauchy", "ell": 0.7, "power": None}]


@pytest.mark.slow  # JAX compiles and srcad builds several orders: seconds
@pytest.mark.parametrize("settings", SETTINGS, ids=["rbf", "cauchy"])
def test_a_string_in_a_constant_dict_argument_is_accepted(settings):
    for transform in ("grad", "jacrev", "hessian"):
        same_tree(getattr(srcad, transform)(kernel_loss)(X, settings),
                  np.asarray(getattr(jax, transform)(kernel_loss_jax)(X, settings)))
    np.testing.assert_allclose(srcad.grad(kernel_loss)(X, settings),
                               central(lambda x: kernel_loss(x, settings), X), rtol=1e-6)
    batch = np.stack([X, 2 * X])
    same_tree(srcad.vmap(srcad.grad(kernel_loss), in_axes=(0, None))(batch, settings),
              np.asarray(jax.vmap(jax.grad(kernel_loss_jax), in_axes=(0, None))(batch,
                                                                                 settings)))


def test_another_string_builds_other_code():
    grad = srcad.grad(kernel_loss)
    first, second = (grad(X, s) for s in SETTINGS)
    again = grad(X, SETTINGS[0])  # the fast path checks the string too
    same_tree(again, first)
    same_tree(second, np.asarray(jax.grad(kernel_loss_jax)(X, SETTINGS[1])))


def scaled(x, kind="square"):
    return np.sum(x ** 2) if kind == "square" else np.sum(x ** 3)


def test_a_string_argument_and_keyword_are_constants():
    np.testing.assert_allclose(srcad.grad(scaled)(X), 2 * X, rtol=1e-12)
    np.testing.assert_allclose(srcad.grad(scaled)(X, kind="cube"), 3 * X ** 2, rtol=1e-12)
    np.testing.assert_allclose(srcad.grad(scaled)(X, "cube"), 3 * X ** 2, rtol=1e-12)


def rebinds_text(x, kind):
    kind = kind + "!"
    return np.sum(x) if kind == "a!" else np.sum(x * x)


def test_a_string_argument_rebound_is_refused_by_line():
    with pytest.raises(SrcadError, match="`kind` is a string argument and is rebound") as err:
        srcad.grad(rebinds_text)(X, "a")
    assert err.value.line == rebinds_text.__code__.co_firstlineno + 1


@pytest.mark.slow
@pytest.mark.parametrize("settings", SETTINGS, ids=["rbf", "cauchy"])
def test_numba_takes_strings_and_closed_over_pytrees(settings):
    same_tree(srcad.grad(kernel_loss, backend="numba")(X, settings),
              np.asarray(jax.grad(kernel_loss_jax)(X, settings)))
    same_tree(srcad.hessian(kernel_loss, backend="numba")(X, settings),
              np.asarray(jax.hessian(kernel_loss_jax)(X, settings)))
    H = tree()
    H["kind"] = settings["kind"]
    same_tree(srcad.grad(lambda t: model(t, H), backend="numba")(T),
              np.asarray(jax.grad(lambda t: model_jax(t, H))(T)))


# -- the composed transforms' refusal ------------------------------------------------------------
def clipped(x):
    return np.sum(np.clip(x, 0.0, 1.0) ** 3)


def clipped_vector(x):
    return np.clip(x, 0.0, 1.0) ** 3


def test_no_grad_innermost_hint_when_grad_is_innermost(monkeypatch):
    import srcad.api.chain_builds as builds  # the forward levels refused

    real = builds._compiled

    def refuse_forward_levels(function, request):
        if request.mode == "forward":
            raise SrcadError("refused", filename="<srcad generated>")
        return real(function, request)

    monkeypatch.setattr(builds, "_compiled", refuse_forward_levels)
    with pytest.raises(SrcadError) as err:
        srcad.jacfwd(srcad.grad(clipped))(X)
    assert "put grad innermost" not in str(err.value)
    assert "grad innermost already" in str(err.value)
    with pytest.raises(SrcadError) as err:  # a float output: reverse innermost, whatever
        srcad.jacfwd(srcad.jacfwd(clipped))(X)  # the order written
    assert "put grad innermost" not in str(err.value)
    assert "grad innermost already" in str(err.value)
    with pytest.raises(SrcadError) as err:  # an array output: forward over forward
        srcad.jacfwd(srcad.jacrev(clipped_vector))(X)
    assert "put grad innermost" not in str(err.value)
    assert "array-valued" in str(err.value)
