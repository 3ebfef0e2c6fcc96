"""Transforms of transformed functions (srcad/api/composed.py, srcad/api/chains.py):
`grad(grad(f))`, `jacfwd(grad(f))`, `hessian(grad(f))`, third order, `jvp`/`vjp` of a
gradient, with has_aux through two levels; and `vjp` keeping its forward sweep
(srcad/api/kept_sweeps.py). Each is checked against JAX itself (values to 1e-9, the same
containers and shapes) and the derivatives against central differences of the inner
transformed function.
"""

import math

import numpy as np
import pytest

import srcad

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from helpers.jax_reference import central, jax_in_float64, same_tree  # noqa: E402, F401


# -- functions written once for srcad (numpy) and once for jax (jax.numpy) --------------------
def energy(x, p):
    """An array and a float: a float (whole-array code)."""
    return np.sum(np.sin(x) * x) * p + x[0] ** 3 * p * p


def energy_jax(x, p):
    return jnp.sum(jnp.sin(x) * x) * p + x[0] ** 3 * p * p


def looped(x, p):
    """The same kind of function written with a loop (numba compiles it)."""
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sin(x[i]) * x[i] * p + x[i] ** 3 * p * p
    return s


def looped_jax(x, p):
    return jnp.sum(jnp.sin(x) * x * p + x ** 3 * p * p)


def wave(t):
    """A float of a float."""
    return math.sin(t) * t ** 3


def wave_jax(t):
    return jnp.sin(t) * t ** 3


def field(x):
    """An array of an array."""
    return np.tanh(x) * x[0] + x ** 2


def field_jax(x):
    return jnp.tanh(x) * x[0] + x ** 2


def with_aux(x, p):
    return np.sum(x ** 3) * p, {"count": 3, "scale": 1.5}


def with_aux_jax(x, p):
    return jnp.sum(x ** 3) * p, {"count": 3, "scale": 1.5}


X = np.array([0.3, -0.7, 1.1])
P = 1.7

# (name, build(transforms, f), srcad's function, jax's function, arguments)
CASES = [
    ("grad of grad", lambda t, f: t.grad(t.grad(f, argnums=1), argnums=1), energy,
     energy_jax, (X, P)),
    ("jacfwd of grad", lambda t, f: t.jacfwd(t.grad(f)), energy, energy_jax, (X, P)),
    ("jacrev of grad", lambda t, f: t.jacrev(t.grad(f)), energy, energy_jax, (X, P)),
    ("jacrev of grad, two argnums", lambda t, f: t.jacrev(t.grad(f), argnums=(0, 1)),
     energy, energy_jax, (X, P)),
    ("hessian of grad", lambda t, f: t.hessian(t.grad(f)), energy, energy_jax, (X, P)),
    ("argnums counted from the end", lambda t, f: t.jacfwd(t.grad(f, argnums=-1), argnums=-2),
     energy, energy_jax, (X, P)),
    ("jacfwd of value_and_grad", lambda t, f: t.jacfwd(t.value_and_grad(f)), energy,
     energy_jax, (X, P)),
    pytest.param("hessian of hessian", lambda t, f: t.hessian(t.hessian(f)), energy,
                 energy_jax, (X, P), marks=pytest.mark.slow),
    ("grad of grad of grad", lambda t, f: t.grad(t.grad(t.grad(f))), wave, wave_jax, (0.7,)),
    ("value_and_grad of grad", lambda t, f: t.value_and_grad(t.grad(f)), wave, wave_jax,
     (0.7,)),
    ("grad of jacfwd", lambda t, f: t.grad(t.jacfwd(f)), wave, wave_jax, (0.7,)),
    ("jacfwd of jacrev of an array function", lambda t, f: t.jacfwd(t.jacrev(f)), field,
     field_jax, (X,)),
    pytest.param("hessian of jacfwd of an array function",  # jax takes 9 s for its own
                 lambda t, f: t.hessian(t.jacfwd(f)), field, field_jax, (X,),
                 marks=pytest.mark.slow),
]


@pytest.mark.parametrize("name, build, f, f_jax, args", CASES,
                         ids=[c.values[0] if hasattr(c, "values") else c[0] for c in CASES])
def test_a_composition_of_transforms_gives_jaxs_values_and_layout(name, build, f, f_jax,
                                                                  args):
    same_tree(build(srcad, f)(*args), build(jax, f_jax)(*args))


def test_jacfwd_of_grad_is_the_central_differences_of_the_gradient():
    gradient = srcad.grad(energy)
    np.testing.assert_allclose(srcad.jacfwd(gradient)(X, P),
                               central(lambda x: gradient(x, P), X, h=1e-5), rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(srcad.jacfwd(gradient, argnums=1)(X, P),
                               central(lambda p: gradient(X, float(p)), P, h=1e-5), rtol=1e-7,
                               atol=1e-7)


def test_third_and_fourth_derivatives_are_the_central_differences_of_the_one_below():
    second = srcad.grad(srcad.grad(wave))
    third = srcad.grad(second)
    assert third(0.7) == pytest.approx(float(central(second, 0.7, h=1e-5)), rel=1e-7)
    assert srcad.grad(third)(0.7) == pytest.approx(float(central(third, 0.7, h=1e-5)), rel=1e-6)
    hessian = srcad.hessian(energy)
    np.testing.assert_allclose(srcad.jacfwd(hessian)(X, P),
                               central(lambda x: hessian(x, P), X, h=1e-5), rtol=1e-6, atol=1e-6)


def test_jvp_of_a_gradient_is_a_hessian_vector_product():
    v = (np.array([1.0, 0.5, -2.0]), 0.25)
    ours = srcad.jvp(srcad.grad(energy), (X, P), v)
    same_tree(ours, jax.jvp(jax.grad(energy_jax), (X, P), v))
    H = srcad.hessian(energy, argnums=(0, 1))(X, P)
    np.testing.assert_allclose(ours[1], H[0][0] @ v[0] + H[0][1] * v[1], rtol=1e-12)


def test_vjp_of_a_gradient_is_reusable():
    value, vjp_fun = srcad.vjp(srcad.grad(energy), X, P)
    value_jax, vjp_jax = jax.vjp(jax.grad(energy_jax), X, P)
    same_tree(value, value_jax)
    for u in (np.array([1.0, 0.0, 0.0]), np.array([0.5, -1.0, 2.0])):
        same_tree(vjp_fun(u), vjp_jax(u))


def test_has_aux_passes_through_two_transforms_with_any_aux():
    ours = srcad.jacfwd(srcad.grad(with_aux, has_aux=True), has_aux=True)(X, P)
    same_tree(ours, jax.jacfwd(jax.grad(with_aux_jax, has_aux=True), has_aux=True)(X, P))
    assert type(ours[1]["count"]) is int
    with pytest.raises(srcad.ArgumentError, match="pass has_aux=True"):
        srcad.jacfwd(srcad.grad(with_aux, has_aux=True))(X, P)


def test_grad_of_a_derivative_that_is_not_a_float_is_refused_as_jax_refuses_it():
    with pytest.raises(srcad.ArgumentError, match="grad needs a float output"):
        srcad.grad(srcad.jacfwd(energy))(X, P)
    with pytest.raises(TypeError):  # what JAX says
        jax.grad(jax.jacfwd(energy_jax))(X, P)
    with pytest.raises(srcad.ArgumentError, match="returning a tuple"):
        srcad.grad(srcad.value_and_grad(energy))(X, P)


def test_composed_transforms_on_numba_smoke():
    ours = srcad.jacfwd(srcad.grad(looped), backend="numba")(X, P)
    same_tree(ours, jax.hessian(looped_jax)(X, P))


@pytest.mark.slow
def test_third_order_compositions_on_numba():
    same_tree(srcad.hessian(srcad.grad(looped), backend="numba")(X, P),
              jax.hessian(jax.grad(looped_jax))(X, P))
    assert srcad.grad(srcad.grad(srcad.grad(wave)), backend="numba")(0.7) == pytest.approx(
        float(jax.grad(jax.grad(jax.grad(wave_jax)))(0.7)), rel=1e-12)
    same_tree(srcad.jvp(srcad.grad(looped), (X, P), (X, 1.0), backend="numba"),
              jax.jvp(jax.grad(looped_jax), (X, P), (X, 1.0)))


# -- vjp keeps its forward sweep ----------------------------------------------------------------
PRIMAL_CALLS = [0]


@srcad.custom_jvp
def counted_sin(x):
    PRIMAL_CALLS[0] += 1
    return np.sin(x)


@counted_sin.defjvp
def counted_sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return np.sin(x), t * np.cos(x)


def counted(x, p):
    # no adjoint needs the sine's value, so no reverse sweep computes it again (a reverse
    # sweep recomputes what it needs of the primal from values it still has)
    return np.sum(counted_sin(x * p)) + p * p


def counted_jax(x, p):
    return jnp.sum(jnp.sin(x * p)) + p * p


def test_vjp_fun_runs_no_primal_again_and_gives_jaxs_cotangents():
    value, vjp_fun = srcad.vjp(counted, X, P)
    value_jax, vjp_jax = jax.vjp(counted_jax, X, P)
    same_tree(value, value_jax)
    before = PRIMAL_CALLS[0]
    for u in (1.0, -2.5, 0.0, 3.0):
        same_tree(vjp_fun(u), vjp_jax(u))
    assert PRIMAL_CALLS[0] == before  # the forward sweep ran once, in vjp
    PRIMAL_CALLS[0] = 0
    srcad.vjp(counted, X, P)
    assert PRIMAL_CALLS[0] == 1


def test_vjp_fun_of_a_function_writing_its_input_in_a_loop_is_reusable():
    def smoothed(x, p):
        y = x.copy()
        for i in range(1, y.shape[0]):
            if y[i] > 0.0:
                y[i] = math.sin(y[i - 1]) * p + y[i]
        return y * x

    def smoothed_jax(x, p):
        y = x
        for i in range(1, x.shape[0]):
            y = y.at[i].set(jnp.where(y[i] > 0.0, jnp.sin(y[i - 1]) * p + y[i], y[i]))
        return y * x

    x = np.array([0.4, 0.9, -0.3, 1.2])
    value, vjp_fun = srcad.vjp(smoothed, x, P)
    value_jax, vjp_jax = jax.vjp(smoothed_jax, x, P)
    same_tree(value, value_jax)
    for u in (np.ones(4), np.array([0.0, 1.0, -1.0, 2.0]), np.ones(4)):
        same_tree(vjp_fun(u), vjp_jax(u))


def test_the_source_of_a_composition_is_the_generated_code_it_runs():
    text = srcad.source(srcad.jacfwd(srcad.grad(energy)), srcad.Forward, X, P)
    assert "def energy_into_reverse(" in text  # srcad's reverse code of energy
    assert "def energy_into_reverse_forward(" in text  # its forward code, over it


def test_a_level_numba_does_not_compile_runs_as_python_code():
    # energy is whole-array code: numba does not compile srcad's forward code over its
    # reverse code (np.broadcast_to of active arrays); that level runs as python code
    same_tree(srcad.jacfwd(srcad.grad(energy), backend="numba")(X, P),
              jax.hessian(energy_jax)(X, P))


def logs(x):
    with np.errstate(divide="ignore"):
        return np.sum(np.log(x) * x)


def test_a_function_with_a_with_context_vjps_and_its_composition_is_refused_by_name():
    x = np.array([0.3, 0.7])
    value, vjp_fun = srcad.vjp(logs, x)
    np.testing.assert_allclose(vjp_fun(2.0)[0], 2.0 * (np.log(x) + 1.0), rtol=1e-14)
    with pytest.raises(srcad.SrcadError, match="inside a `with` context") as caught:
        srcad.jacfwd(srcad.grad(logs))(x)
    assert caught.value.filename == __file__


def test_a_0d_array_reaches_a_composed_transform_as_a_numpy_float():
    """grad of grad at a 0-d array: f reads `x.ndim` and `x.shape` of what it was given (a
    Python float has neither: it raised AttributeError inside f)."""
    def f(x):
        return x ** 3 if x.ndim == 0 and x.shape == () else np.sum(x)

    # d2/dx2 x**3 = 6x
    assert srcad.grad(srcad.grad(f))(np.array(2.0)) == pytest.approx(12.0)


def test_a_0d_array_reaches_each_transform_as_a_numpy_float():
    """grad, jacfwd, jacrev, hessian, jvp and vjp at a 0-d float array (refused before, as an
    array NumPy's arithmetic turns into a scalar): JAX's answers, f seeing x.ndim."""
    def f(x, y):
        return x ** 3 * y if x.ndim == 0 and x.shape == () else np.sum(x)

    x = np.array(2.0)  # d/dx x**3 y = 3 x**2 y = 18, d2/dx2 = 6 x y = 18, d/dy = x**3 = 8
    assert srcad.grad(f)(x, 1.5) == pytest.approx(18.0)
    assert srcad.grad(f)(np.array(2.0, dtype=np.float32), 1.5).dtype == np.float32
    assert srcad.jacfwd(f)(x, 1.5) == pytest.approx(18.0)
    assert srcad.jacrev(f, argnums=1)(x, 1.5) == pytest.approx(8.0)
    assert srcad.hessian(f)(x, 1.5) == pytest.approx(18.0)
    assert srcad.jvp(f, (x, 1.5), (np.array(1.0), 0.0)) == pytest.approx((12.0, 18.0))
    value, pull_back = srcad.vjp(f, x, 1.5)
    assert pull_back(1.0) == pytest.approx((18.0, 8.0))
