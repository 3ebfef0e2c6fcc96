"""JAX's habits with srcad in place of jax (srcad/api/jvp_vjp.py, hessian_transform.py,
packing.py, primals.py, auxiliary.py): `jvp`, `vjp` with a reusable `vjp_fun`, `hessian`
with a tuple argnums and of an array-valued f, `jacfwd`/`jacrev`/`hessian` over pytrees of
parameters, `has_aux` with any aux, a tuple of floats as parameters. Each is checked
against JAX itself (same values to 1e-9, same containers and shapes) and against central
differences of the plain function.
"""

import math

import numpy as np
import pytest

import srcad

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from helpers.jax_reference import central, jax_in_float64, same_tree  # noqa: E402, F401


# -- functions written once for srcad (numpy) and once for jax (jax.numpy) ---------------------
def model(p, x):
    """A dict of parameters and an array: a tuple of an array and a float."""
    h = np.tanh(p["w"] * x + p["b"])
    return h * p["scale"][0], np.sum(h * h) * p["scale"][1]


def model_jax(p, x):
    h = jnp.tanh(p["w"] * x + p["b"])
    return h * p["scale"][0], jnp.sum(h * h) * p["scale"][1]


def loss(p, x):
    h = np.tanh(p["w"] * x + p["b"])
    return np.sum(h * h) * p["scale"][0] + p["scale"][1] ** 3


def loss_jax(p, x):
    h = jnp.tanh(p["w"] * x + p["b"])
    return jnp.sum(h * h) * p["scale"][0] + p["scale"][1] ** 3


def params():
    return {"w": np.array([0.5, -1.2, 0.3]), "b": 0.2, "scale": [1.5, 0.7]}


X = np.array([1.0, 2.0, -0.5])


def two(x, y):
    return np.sum(np.sin(x) * y * y) + x[0] * x[1] * y[2]


def two_jax(x, y):
    return jnp.sum(jnp.sin(x) * y * y) + x[0] * x[1] * y[2]


def vector(x):
    return np.array([x[0] * x[1] ** 2, np.sin(x[0]) * x[2], x[1] * x[2] * x[0]])


def vector_jax(x):
    return jnp.array([x[0] * x[1] ** 2, jnp.sin(x[0]) * x[2], x[1] * x[2] * x[0]])


# -- jvp and vjp ----------------------------------------------------------------------
def test_jvp_over_a_dict_and_an_array_with_a_tuple_output_is_jaxs():
    p, t = params(), {"w": np.array([1.0, 0.5, -2.0]), "b": 0.3, "scale": [0.1, -0.4]}
    v = np.array([0.2, 0.0, 1.0])
    ours = srcad.jvp(model, (p, X), (t, v))
    same_tree(ours, jax.jvp(model_jax, (p, X), (t, v)))
    # against central differences along (t, v)
    def along(s):
        q = {"w": p["w"] + s * t["w"], "b": p["b"] + s * t["b"],
             "scale": [p["scale"][0] + s * t["scale"][0], p["scale"][1] + s * t["scale"][1]]}
        out = model(q, X + s * v)
        return np.concatenate([out[0], [out[1]]])
    h = 1e-6
    fd = (along(h) - along(-h)) / (2 * h)
    np.testing.assert_allclose(np.concatenate([ours[1][0], [ours[1][1]]]), fd, atol=1e-7)


def test_vjp_fun_is_reusable_and_gives_jaxs_cotangents():
    p = params()
    value, vjp_fun = srcad.vjp(model, p, X)
    value_jax, vjp_jax = jax.vjp(model_jax, p, X)
    same_tree(value, value_jax)
    for u in [(np.array([1.0, 0.0, 0.0]), 0.0), (np.array([0.3, -1.0, 2.0]), 1.5)]:
        cotangents = vjp_fun(u)
        same_tree(cotangents, vjp_jax(u))
        assert isinstance(cotangents, tuple) and isinstance(cotangents[0]["scale"], list)
    # u^T J of the array output against central differences with respect to x
    J = central(lambda x: model(p, x)[0], X)
    np.testing.assert_allclose(vjp_fun((np.array([1.0, 2.0, 3.0]), 0.0))[1],
                               np.array([1.0, 2.0, 3.0]) @ J, atol=1e-7)


def test_vjp_of_floats_and_a_tuple_of_floats():
    def f(x, q):
        return x * q[0] * q[1] ** 2

    def f_jax(x, q):
        return x * q[0] * q[1] ** 2

    value, vjp_fun = srcad.vjp(f, 1.5, (2.0, 3.0))
    value_jax, vjp_jax = jax.vjp(f_jax, 1.5, (2.0, 3.0))
    same_tree(value, value_jax)
    same_tree(vjp_fun(1.0), vjp_jax(1.0))
    assert vjp_fun(2.0) == (2.0 * 18.0, (2.0 * 13.5, 2.0 * 18.0))


def test_jvp_and_vjp_with_has_aux_return_any_aux():
    def f(x):
        return np.sum(x * x), {"count": 3, "name": "sq", "doubled": x * 2}

    def f_jax(x):
        return jnp.sum(x * x), {"count": 3, "name": "sq", "doubled": x * 2}

    v = np.array([1.0, 0.0, 2.0])
    value, tangent, aux = srcad.jvp(f, (X,), (v,), has_aux=True)
    value_jax, tangent_jax, aux_jax = jax.jvp(f_jax, (X,), (v,), has_aux=True)
    same_tree((value, tangent), (value_jax, tangent_jax))
    assert aux["count"] == 3 and aux["name"] == "sq"
    value, vjp_fun, aux = srcad.vjp(f, X, has_aux=True)
    same_tree(vjp_fun(1.0), jax.vjp(f_jax, X, has_aux=True)[1](1.0))
    assert aux["name"] == "sq"


def test_jvp_refuses_mismatched_primals_and_tangents():
    with pytest.raises(srcad.ArgumentError, match="2 primals and 1 tangents"):
        srcad.jvp(two, (X, X), (X,))
    with pytest.raises(srcad.ArgumentError, match="the cotangent has shape"):
        srcad.vjp(vector, X)[1](1.0)


# -- hessian layouts ----------------------------------------------------------------------
def test_hessian_with_a_tuple_argnums_is_nested_tuples_of_blocks():
    y = np.array([0.4, 1.1, -0.7])
    ours = srcad.hessian(two, argnums=(0, 1))(X, y)
    same_tree(ours, jax.hessian(two_jax, argnums=(0, 1))(X, y))
    # the cross block against central differences of the gradient in x (written by hand)
    def grad_x(yy):
        g = np.cos(X) * yy * yy
        g[0] += X[1] * yy[2]
        g[1] += X[0] * yy[2]
        return g
    np.testing.assert_allclose(ours[0][1], central(grad_x, y), atol=1e-7)


def test_hessian_of_an_array_valued_function_is_out_plus_in_plus_in():
    ours = srcad.hessian(vector)(X)
    assert ours.shape == (3, 3, 3)
    same_tree(ours, jax.hessian(vector_jax)(X))
    jacobian_rows = lambda x: central(vector, x)  # noqa: E731
    np.testing.assert_allclose(ours, central(jacobian_rows, X, h=1e-4), atol=1e-5)


@pytest.mark.slow
def test_hessian_over_a_dict_of_parameters_is_jaxs():
    p = params()
    same_tree(srcad.hessian(loss)(p, X), jax.hessian(loss_jax)(p, X))
    same_tree(srcad.hessian(loss, argnums=(0, 1))(p, X),
              jax.hessian(loss_jax, argnums=(0, 1))(p, X))


def test_hessian_over_a_tuple_of_floats_keeps_the_tuples():
    def f(q):
        return q[0] ** 2 * q[1] + math.sin(q[1])

    def f_jax(q):
        return q[0] ** 2 * q[1] + jnp.sin(q[1])

    same_tree(srcad.hessian(f)((1.5, 0.5)), jax.hessian(f_jax)((1.5, 0.5)))


# -- jacobians over pytrees --------------------------------------------------------------------
@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
def test_jacobians_over_a_dict_are_jaxs(transform):
    ours, theirs = getattr(srcad, transform), getattr(jax, transform)
    p = params()
    same_tree(ours(loss)(p, X), theirs(loss_jax)(p, X))
    same_tree(ours(model)(p, X), theirs(model_jax)(p, X))  # a tuple output
    same_tree(ours(model, argnums=(0, 1))(p, X), theirs(model_jax, argnums=(0, 1))(p, X))
    # a float output with a dict and an array in argnums
    same_tree(ours(loss, argnums=(0, 1))(p, X), theirs(loss_jax, argnums=(0, 1))(p, X))


def test_jacrev_of_a_dict_against_central_differences():
    p = params()
    J = srcad.jacrev(model)(p, X)
    fd = central(lambda w: model({**p, "w": w}, X)[0], p["w"])
    np.testing.assert_allclose(J[0]["w"], fd, atol=1e-7)


# -- has_aux and parameters --------------------------------------------------------------------
def test_has_aux_takes_a_dict_with_ints_and_strings():
    def f(p, x):
        h = np.tanh(p["w"] * x)
        return np.sum(h) * p["b"], {"n": 3, "label": "tanh", "h": h}

    def f_jax(p, x):  # JAX's jacobians refuse a string in aux (a batched output)
        h = jnp.tanh(p["w"] * x)
        return jnp.sum(h) * p["b"], {"n": 3, "h": h}

    p = {"w": np.array([0.5, -1.2, 0.3]), "b": 0.2}
    for name in ("grad", "jacrev", "jacfwd", "hessian"):
        ours, aux = getattr(srcad, name)(f, has_aux=True)(p, X)
        theirs, aux_jax = getattr(jax, name)(f_jax, has_aux=True)(p, X)
        same_tree(ours, theirs)
        assert aux["n"] == 3 and aux["label"] == "tanh"
        np.testing.assert_allclose(aux["h"], aux_jax["h"])
    (value, aux), g = srcad.value_and_grad(f, has_aux=True)(p, X)
    assert aux["label"] == "tanh" and value == pytest.approx(float(f_jax(p, X)[0]))


def test_has_aux_refusal_names_the_users_line_not_generated_code():
    def f(x):
        d = {"n": 3}
        return np.sum(x * x), d

    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(f, has_aux=True)(X)
    assert "test_jax_habits.py" in str(info.value) and "<srcad" not in str(info.value)


def test_a_tuple_of_floats_as_parameters():
    def f(q, x):
        return np.sum(x * q[0]) + q[1] ** 2 * q[2][0]

    def f_jax(q, x):
        return jnp.sum(x * q[0]) + q[1] ** 2 * q[2][0]

    q = (0.5, 2.0, (3.0,))
    for name in ("grad", "jacrev", "jacfwd"):
        same_tree(getattr(srcad, name)(f)(q, X), getattr(jax, name)(f_jax)(q, X))


# -- jacrev batches rows ----------------------------------------------------------------------
def elementwise(x):
    y = np.zeros(len(x))
    for i in range(len(x)):
        y[i] = x[i] * x[(i + 1) % len(x)] + math.sin(x[i])
    return y


def test_jacrev_runs_many_rows_per_sweep_with_jacfwds_answer():
    x = np.linspace(0.1, 1.0, 300)
    J = srcad.jacrev(elementwise)(x)
    np.testing.assert_allclose(J, srcad.jacfwd(elementwise)(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(J[:5, :6], central(elementwise, x)[:5, :6], atol=1e-7)


def test_jacrev_of_whole_array_code_falls_back_to_one_sweep_per_row():
    def whole(x):
        return np.sin(x) * np.sum(x)

    def whole_jax(x):
        return jnp.sin(x) * jnp.sum(x)

    same_tree(srcad.jacrev(whole)(X), jax.jacrev(whole_jax)(X))


# -- numba ----------------------------------------------------------------------
def test_jvp_and_vjp_on_numba_smoke():
    pytest.importorskip("numba")
    y = np.array([0.4, 1.1, -0.7])
    out, tangent = srcad.jvp(two, (X, y), (np.ones(3), np.zeros(3)), backend="numba")
    same_tree((out, tangent), jax.jvp(two_jax, (X, y), (np.ones(3), np.zeros(3))))
    value, vjp_fun = srcad.vjp(two, X, y, backend="numba")
    same_tree(vjp_fun(1.0), jax.vjp(two_jax, X, y)[1](1.0))


@pytest.mark.slow
def test_pytree_transforms_on_numba():
    pytest.importorskip("numba")
    p = params()
    same_tree(srcad.jacrev(loss, backend="numba")(p, X), jax.jacrev(loss_jax)(p, X))
    same_tree(srcad.jacfwd(model, backend="numba")(p, X), jax.jacfwd(model_jax)(p, X))
    same_tree(srcad.hessian(loss, backend="numba")(p, X), jax.hessian(loss_jax)(p, X))
    y = np.array([0.4, 1.1, -0.7])
    same_tree(srcad.hessian(two, argnums=(0, 1), backend="numba")(X, y),
              jax.hessian(two_jax, argnums=(0, 1))(X, y))
    same_tree(srcad.hessian(vector, backend="numba")(X), jax.hessian(vector_jax)(X))
    same_tree(srcad.jacrev(elementwise, backend="numba")(X), jax.jacfwd(
        lambda x: jnp.array([x[i] * x[(i + 1) % 3] + jnp.sin(x[i]) for i in range(3)]))(X))


def test_a_namedtuple_of_parameters_as_jax_takes_it():
    from typing import NamedTuple

    class Params(NamedTuple):
        w: np.ndarray
        b: float

    def f(p, x):
        return np.sum(p.w * x) * p.b

    def f_dict(p, x):
        return np.sum(p["w"] * x) * p["b"]

    p = Params(np.array([1.0, 2.0, 3.0]), 0.5)
    g = srcad.grad(f)(p, X)
    assert type(g) is Params  # the gradient has the parameters' class, as in JAX
    expected = jax.grad(lambda q: jnp.sum(q.w * X) * q.b)(Params(jnp.asarray(p.w), 0.5))
    np.testing.assert_allclose(g.w, np.asarray(expected.w), rtol=1e-12)
    np.testing.assert_allclose(float(g.b), float(expected.b), rtol=1e-12)
    # the dict form gives the same numbers
    same_tree(srcad.grad(f_dict)(p._asdict(), X),
              {"w": X * 0.5, "b": float(np.sum(p.w * X))})


def writes_input(x):
    x *= x[0]
    return np.sum(x ** 3)


def writes_input_jax(x):
    x = x * x[0]
    return jnp.sum(x ** 3)


def test_a_function_writing_its_input_leaves_the_callers_arrays_as_jax_does():
    x, v = X.copy(), np.array([1.0, 0.5, -1.0])
    same_tree(srcad.jvp(writes_input, (x,), (v,)), jax.jvp(writes_input_jax, (X,), (v,)))
    value, vjp_fun = srcad.vjp(writes_input, x)
    same_tree((value, vjp_fun(1.0), vjp_fun(1.0)), (writes_input_jax(X),)
              + (jax.vjp(writes_input_jax, X)[1](1.0),) * 2)
    same_tree(srcad.hessian(writes_input)(x), jax.hessian(writes_input_jax)(X))
    np.testing.assert_array_equal(x, X)
    np.testing.assert_array_equal(v, [1.0, 0.5, -1.0])
