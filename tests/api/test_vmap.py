"""`srcad.vmap` (srcad/api/vmap.py, srcad/build/batched_calls.py, srcad/transform/batching/):
values and shapes against `jax.vmap` and against a Python loop over the examples, in_axes and
out_axes as JAX takes them (ints, None, tuples, pytree prefixes, negative axes), axis_size,
keyword arguments, the generated code (lifted into whole-array operations, or one loop), and
per-example gradients `vmap(grad(loss))` on both backends.
"""

import math
import os

import numpy as np
import pytest
from helpers import jax_reference
from helpers.jax_reference import jax_in_float64  # noqa: F401  (JAX in float64)

import srcad

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def same_tree(ours, theirs, tol=1e-10):
    jax_reference.same_tree(ours, theirs, tol)


rng = np.random.default_rng(7)
W = rng.normal(size=3)
X = rng.normal(size=(5, 3))
Y = rng.normal(size=5)


# -- the same functions for srcad (numpy) and jax (jax.numpy) ---------------------------------
def loss(w, x, y):
    p = np.tanh(x @ w)
    return np.sum((p - y) ** 2)


def loss_jax(w, x, y):
    return jnp.sum((jnp.tanh(x @ w) - y) ** 2)


def looped(x, s):
    t = 0.0
    for i in range(x.shape[0]):
        t += math.sin(x[i]) * s
    return t, x * 2.0


def looped_jax(x, s):
    return jnp.sum(jnp.sin(x)) * s, x * 2.0


def matrices(a, b):
    c = a @ b
    return c.T + np.max(a, axis=0)


def matrices_jax(a, b):
    return (a @ b).T + jnp.max(a, axis=0)


def test_vmap_of_a_loss_matches_jax_and_is_lifted():
    batched = srcad.vmap(loss, in_axes=(None, 0, 0))
    same_tree(batched(W, X, Y), jax.vmap(loss_jax, in_axes=(None, 0, 0))(W, X, Y))
    code = srcad.source(batched, W, X, Y)
    assert "def loss_vmap(w, x, y, batch_size):" in code
    assert "for " not in code  # whole-array operations, no loop over the examples


def test_vmap_matches_a_python_loop_over_the_examples():
    batched = srcad.vmap(looped, in_axes=(0, None))
    t, doubled = batched(X, 2.0)
    loop = [looped(x, 2.0) for x in X]
    np.testing.assert_allclose(t, [r[0] for r in loop], rtol=1e-13)
    np.testing.assert_allclose(doubled, [r[1] for r in loop], rtol=1e-13)
    same_tree((t, doubled), jax.vmap(looped_jax, in_axes=(0, None))(X, 2.0))
    code = batched.source(X, 2.0)
    assert "for i in range(x.shape[1]):" in code and "x[:, i]" in code


@pytest.mark.parametrize("in_axes, out_axes", [((0, None), 0), ((1, None), 1), ((-1, None), -1),
                                               ((2, None), 0), ((0, 0), 2)])
def test_mapped_axes_and_out_axes_as_jax(in_axes, out_axes):
    a = rng.normal(size=(4, 4, 4))
    b = rng.normal(size=(4, 4, 2)) if in_axes[1] == 0 else rng.normal(size=(4, 2))
    ours = srcad.vmap(matrices, in_axes=in_axes, out_axes=out_axes)(a, b)
    same_tree(ours, jax.vmap(matrices_jax, in_axes=in_axes, out_axes=out_axes)(a, b))


def test_pytree_arguments_and_results_as_jax():
    def f(p, x):
        return {"out": np.tanh(p["w"] * x + p["b"]), "norm": np.sum(x * x)}

    def f_jax(p, x):
        return {"out": jnp.tanh(p["w"] * x + p["b"]), "norm": jnp.sum(x * x)}
    p = {"w": rng.normal(size=(5, 3)), "b": 0.5}
    in_axes = ({"w": 0, "b": None}, 0)
    ours = srcad.vmap(f, in_axes=in_axes)(p, X)
    same_tree(ours, jax.vmap(f_jax, in_axes=in_axes)(p, X))


def test_out_axes_none_for_an_unmapped_result_and_axis_size():
    def f(x, c):
        return x * c, c * 2.0
    ours = srcad.vmap(f, in_axes=(0, None), out_axes=(0, None))(Y, 3.0)
    same_tree(ours, jax.vmap(f, in_axes=(0, None), out_axes=(0, None))(Y, 3.0))

    def constant(c):
        return c * 2.0
    same_tree(srcad.vmap(constant, in_axes=None, axis_size=4)(1.5),
              jax.vmap(constant, in_axes=None, axis_size=4)(1.5))


def test_keyword_arguments_are_mapped_over_axis_0_as_in_jax():
    def f(x, scale=1.0):
        return x * scale
    same_tree(srcad.vmap(f, in_axes=(None,))(2.0, scale=Y),
              jax.vmap(f, in_axes=(None,))(2.0, scale=Y))
    same_tree(srcad.vmap(f)(Y), jax.vmap(f)(Y))  # a default is the same for every example


def test_one_batched_function_takes_each_call_form_in_turn():
    # the parameters are read once per vmap; every call still binds its own arguments
    def f(x, scale=1.0):
        return x * scale
    batched = srcad.vmap(f)
    np.testing.assert_allclose(batched(Y, Y[::-1]), Y * Y[::-1])
    np.testing.assert_allclose(batched(Y), Y)
    np.testing.assert_allclose(batched(Y, scale=2.0 * Y), 2.0 * Y * Y)
    with pytest.raises(TypeError):
        batched(Y, Y, Y)


def test_a_body_that_does_not_lift_runs_in_one_generated_loop():
    def helper(v):
        return v * v

    def f(x):
        s = 0.0
        while s < 3.0:
            s += helper(x)
        return s
    batched = srcad.vmap(f)
    xs = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(batched(xs), [f(x) for x in xs])
    code = batched.source(xs)
    assert "for example in range(batch_size):" in code and "line" in code


def test_inconsistent_sizes_and_bad_axes_are_refused_as_jax_does():
    with pytest.raises(srcad.ArgumentError, match="inconsistent sizes"):
        srcad.vmap(loss)(W, X, Y)
    with pytest.raises(srcad.ArgumentError, match="at least one non-None"):
        srcad.vmap(loss, in_axes=None)(W, X, Y)
    with pytest.raises(srcad.ArgumentError, match="not a list"):
        srcad.vmap(loss, in_axes=[None, 0, 0])
    with pytest.raises(srcad.ArgumentError, match="rank should be at least"):
        srcad.vmap(loss, in_axes=(None, 0, 1))(W, X, Y)


def test_out_axes_none_of_a_mapped_result_is_refused_naming_the_return_line():
    def f(x):
        return x * 2.0
    with pytest.raises(srcad.ArgumentError, match="out_axes is None") as err:
        srcad.vmap(f, out_axes=None)(Y)
    assert err.value.filename == __file__
    assert err.value.line == f.__code__.co_firstlineno + 1


# -- per-example gradients --------------------------------------------------------------------
def test_per_example_gradients_match_jax_and_a_loop_of_grad():
    per_example = srcad.vmap(srcad.grad(loss), in_axes=(None, 0, 0))
    ours = per_example(W, X, Y)
    same_tree(ours, jax.vmap(jax.grad(loss_jax), in_axes=(None, 0, 0))(W, X, Y))
    np.testing.assert_allclose(ours, [srcad.grad(loss)(W, x, y) for x, y in zip(X, Y)],
                               rtol=1e-13)
    code = srcad.source(per_example, W, X, Y)
    assert "w_bar +=" in code and "for " not in code  # the reverse code lifted


def test_per_example_gradients_of_several_argnums_with_a_float():
    def scaled(a, w, x):
        return a * np.sum(np.sin(x * w))

    def scaled_jax(a, w, x):
        return a * jnp.sum(jnp.sin(x * w))
    ours = srcad.vmap(srcad.grad(scaled, argnums=(0, 1)), in_axes=(None, 0, None))(
        1.5, X, W)
    same_tree(ours, jax.vmap(jax.grad(scaled_jax, argnums=(0, 1)), in_axes=(None, 0, None))(
        1.5, X, W))


def test_per_example_gradients_of_a_loop_body():
    def running(w, x):
        s = 0.0
        for i in range(x.shape[0]):
            s += math.sin(w[i] * x[i])
        return s * s

    def running_jax(w, x):
        return jnp.sum(jnp.sin(w * x)) ** 2
    ours = srcad.vmap(srcad.grad(running), in_axes=(None, 0))(W, X)
    same_tree(ours, jax.vmap(jax.grad(running_jax), in_axes=(None, 0))(W, X))


@pytest.mark.parametrize("backend", ["numba"])
def test_per_example_gradients_on_numba_run_one_compiled_loop(backend):
    per_example = srcad.vmap(srcad.grad(loss, backend=backend), in_axes=(None, 0, 0))
    same_tree(per_example(W, X, Y),
              jax.vmap(jax.grad(loss_jax), in_axes=(None, 0, 0))(W, X, Y))
    code = srcad.source(per_example, W, X, Y)
    assert "for example in range(batch_size):" in code and "loss_reverse(" in code


def test_grad_with_aux_runs_in_the_generated_loop():
    def with_aux(w, x):
        return np.sum(w * x), {"n": 1}
    batched = srcad.vmap(srcad.grad(with_aux, has_aux=True), in_axes=(None, 0))
    gradients, aux = batched(W, X)
    np.testing.assert_allclose(gradients, X)
    assert list(aux) == ["n"]
    np.testing.assert_array_equal(aux["n"], [1, 1, 1, 1, 1])


def test_a_function_writing_its_arguments_leaves_the_callers_arrays_as_jax_does():
    def writes(x, w):
        x[0] = x[0] * 2.0
        w[0] = w[0] + 1.0  # each example sees w as given, as in JAX
        return np.sum(x * w)

    def writes_jax(x, w):
        w = jnp.asarray(w)
        return jnp.sum(x.at[0].set(x[0] * 2.0) * w.at[0].set(w[0] + 1.0))
    xs, w = X.copy(), W.copy()
    ours = srcad.vmap(writes, in_axes=(0, None))(xs, w)
    same_tree(ours, jax.vmap(writes_jax, in_axes=(0, None))(X, W))
    np.testing.assert_array_equal(xs, X)
    np.testing.assert_array_equal(w, W)


@pytest.mark.slow
def test_numba_backend_loop_of_a_plain_function():
    def helper(v):
        return v * v

    def f(x, c):
        s = 0.0
        for i in range(x.shape[0]):
            if x[i] > 0.0:
                s += helper(x[i]) * c
        return s
    ours = srcad.vmap(f, in_axes=(0, None), backend="numba")(X, 2.0)
    np.testing.assert_allclose(ours, [f(x, 2.0) for x in X], rtol=1e-13)


@pytest.mark.slow
def test_numba_loop_where_numba_raises_and_numpy_gives_nan_is_the_loop_of_examples():
    def f(M, v):
        s = np.sum(np.linalg.solve(M, v))
        t = 0.0
        while t < abs(s) and t < 3.0:  # differs between examples: the compiled loop
            t += 1.0
        return s + t
    M = np.stack([np.eye(3) * (2.0 + k) for k in range(4)])
    M[2, 1, 1] = np.nan  # numba's solve raises LinAlgError, NumPy's gives nan
    v = rng.normal(size=(4, 3))
    with np.errstate(invalid="ignore"):
        want = [f(m, x) for m, x in zip(M, v)]
        ours = srcad.vmap(f, backend="numba")(M, v)
    assert np.isnan(want[2])
    np.testing.assert_allclose(ours, want, rtol=1e-13)



def test_numba_loop_of_a_function_with_a_keyword_only_parameter_binds_as_python():
    def f(x, a=2.0, *, b=3.0):
        t = 0.0
        while t < abs(x[0]) and t < 3.0:  # differs between examples: a loop, not lifted
            t += 1.0
        return x * a + b + t
    xs = np.array([[1.0, 2.0], [-2.5, 4.0]])
    # numba binds the 0.5 to b (x * 2.0 + 0.5): such a function runs as Python binds it
    want = [f(x, 0.5) for x in xs]  # [1 + 3 + 1, ...]: a = 0.5, b = 3.0
    np.testing.assert_array_equal(want[0], [4.5, 5.0])
    np.testing.assert_array_equal(srcad.vmap(f, in_axes=(0, None), backend="numba")(xs, 0.5),
                                  want)



@pytest.mark.slow
def test_numba_loop_keeps_the_type_of_int_and_bool_results():
    def steps(x):
        n = 0
        while n < 5 and x[n % 2] > n:  # differs between examples: a loop, not lifted
            n += 1
        return n

    def above(x):
        n = 0
        while n < 5 and x[n % 2] > n:
            n += 1
        return x[0] > 1.5 and n > 2
    xs = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, 9.0]])
    for f in (steps, above):
        want = np.array([f(x) for x in xs])  # [2, 4, 2] and [False, True, False]
        ours = srcad.vmap(f, backend="numba")(xs)
        assert ours.dtype == want.dtype
        np.testing.assert_array_equal(ours, want)


# -- transforms of a vmapped function ---------------------------------------------------------
@pytest.mark.slow
def test_jacfwd_and_jacrev_of_a_vmapped_function_as_jax():
    batched = srcad.vmap(loss, in_axes=(None, 0, 0))
    theirs = jax.vmap(loss_jax, in_axes=(None, 0, 0))
    same_tree(srcad.jacfwd(batched)(W, X, Y), jax.jacfwd(theirs)(W, X, Y))
    same_tree(srcad.jacrev(batched, argnums=1)(W, X, Y),
              jax.jacrev(theirs, argnums=1)(W, X, Y))


def test_grad_of_a_function_calling_a_vmapped_one_as_jax():
    def layer(w, x):
        return np.tanh(x * w)
    batched = srcad.vmap(layer, in_axes=(None, 0))

    def total(w, xs):
        return np.sum(batched(w, xs) ** 2)

    def total_jax(w, xs):
        return jnp.sum(jax.vmap(lambda w, x: jnp.tanh(x * w), in_axes=(None, 0))(w, xs) ** 2)
    same_tree(srcad.grad(total)(W, X), jax.grad(total_jax)(W, X))


def test_an_example_that_raises_alone_raises_in_the_batch_at_the_users_line():
    def root(x):
        return math.sqrt(x) * 2.0
    with pytest.raises(ValueError, match="math domain error") as err:
        srcad.vmap(root)(np.array([4.0, -1.0, 9.0]))
    assert err.traceback[-1].lineno == root.__code__.co_firstlineno  # `return math.sqrt(x)`
    np.testing.assert_allclose(srcad.vmap(root)(np.array([4.0, 9.0])), [4.0, 6.0])


def test_vmap_called_inside_a_differentiated_function_is_refused_with_a_working_fix():
    def layer(w, x):
        return np.tanh(x * w)

    def total(w, xs):
        return np.sum(srcad.vmap(layer, in_axes=(None, 0))(w, xs))
    with pytest.raises(srcad.UnsupportedCallError, match="make the batched function outside") \
            as err:
        srcad.grad(total)(W, X)
    assert err.value.line == total.__code__.co_firstlineno + 1
    batched = srcad.vmap(layer, in_axes=(None, 0))  # the fix the message gives

    def fixed(w, xs):
        return np.sum(batched(w, xs))
    # d/dw sum tanh(x w) over examples and elements, by hand
    np.testing.assert_allclose(srcad.grad(fixed)(W, X),
                               np.sum((1.0 - np.tanh(X * W) ** 2) * X, axis=0), rtol=1e-12)


def test_nested_vmap_and_an_empty_batch_as_jax():
    def dot(x, y):
        return np.sum(x * y)
    a, b = rng.normal(size=(3, 4, 5)), rng.normal(size=(4, 5))
    outer = srcad.vmap(srcad.vmap(dot), in_axes=(0, None))
    same_tree(outer(a, b), jax.vmap(jax.vmap(lambda x, y: jnp.sum(x * y)),
                                    in_axes=(0, None))(a, b))
    empty = srcad.vmap(dot, in_axes=(0, None))(np.zeros((0, 5)), np.ones(5))
    assert empty.shape == (0,)


@pytest.mark.slow
def test_per_example_gradients_on_numba_of_a_loop_that_keeps_a_tape():
    def running(w, x):
        s = 0.0
        for i in range(x.shape[0]):
            s += math.sin(w[i] * x[i]) * s + w[i]
        return s * s
    per_example = srcad.vmap(srcad.grad(running, backend="numba"), in_axes=(None, 0))
    np.testing.assert_allclose(per_example(W, X), [srcad.grad(running)(W, x) for x in X],
                               rtol=1e-12)
    assert "tape_0" in per_example.source(W, X)


# -- golden files of the generated batched code (tests/golden/vmap_*.txt) ---------------------
GOLDEN = __import__("pathlib").Path(__file__).resolve().parents[1] / "golden"


@pytest.mark.parametrize("name, make", [
    ("vmap_loss", lambda: srcad.vmap(loss, in_axes=(None, 0, 0))),
    ("vmap_per_example_gradient", lambda: srcad.vmap(srcad.grad(loss), in_axes=(None, 0, 0))),
    ("vmap_loop", lambda: srcad.vmap(looped, in_axes=(0, None)))])
def test_generated_batched_code_matches_its_golden_file(name, make):
    """A change in the batched code shows up as a readable diff; regenerate with
    SRCAD_UPDATE_GOLDEN=1 after checking the new code (as tests/build/test_golden.py)."""
    batched = make()
    args = (X, 2.0) if name == "vmap_loop" else (W, X, Y)
    code = batched.source(*args)
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("SRCAD_UPDATE_GOLDEN") == "1":
        path.write_text(code)
        pytest.skip("golden file rewritten")
    assert code == path.read_text()
