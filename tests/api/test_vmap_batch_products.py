"""Per-example gradients `vmap(grad(loss))` whose reverse code multiplies an unmapped matrix by
an example's own array (srcad/build/batched_products.py): the products of the whole batch are
made before the loop over the examples and each example takes its row. The gradients against
a hand-written formula, central differences and the loop of `srcad.grad`; each operand form
(matrix @ vector, vector @ matrix, a mapped matrix, a matrix of matrices); an unmapped
argument beside them; one array passed both mapped and unmapped; a name the code binds again
(no product made early); an example that raises (a division by zero).
"""

import numpy as np
import pytest

import srcad

numba = pytest.importorskip("numba")

rng = np.random.default_rng(42)
H, D, N = 4, 3, 6
W = rng.normal(size=(H, D))
X = rng.normal(size=(N, D))
Y = rng.normal(size=N)


def layer(w, x, y):
    hidden = np.tanh(w @ x)
    return (np.sum(hidden) - y) ** 2


def row_layer(x, v, s):
    return np.sum(np.sin(x @ v)) * s


def matrix_layer(a, u):
    return np.sum(np.tanh(a @ u) ** 2)


def rebinds(w, x):
    x = x * 2.0
    return np.sum(np.tanh(w @ x))


def divides(w, x, y):
    return np.sum(np.tanh(w @ x)) / y


def loop_of_grad(f, argnums, args, axes, backend="python"):
    """The examples' gradients, one `srcad.grad` call each."""
    gradient = srcad.grad(f, argnums=argnums, backend=backend)
    size = next(np.shape(a)[0] for a, axis in zip(args, axes) if axis is not None)
    return [gradient(*[a[k] if axis is not None else a for a, axis in zip(args, axes)])
            for k in range(size)]


def central_difference(f, args, k, eps=1e-6):
    """d f / d args[k] by central differences, one element at a time."""
    x = np.asarray(args[k], dtype=float)
    out = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        out[index] = (f(*args[:k], up, *args[k + 1:]) - f(*args[:k], down, *args[k + 1:])) \
            / (2 * eps)
    return out


@pytest.mark.slow  # numba compiles the reverse code and its loop (about 5-13 s, cold)
def test_per_example_gradients_of_a_layer_take_their_row_of_the_batch_product():
    per_example = srcad.vmap(srcad.grad(layer, backend="numba"), in_axes=(None, 0, 0))
    got = per_example(W, X, Y)
    code = per_example.source(W, X, Y)
    assert "hoisted_product_0=hoisted_product_0[example]" in code
    # by hand: d/dw (sum tanh(w x) - y)^2 = 2 r (1 - tanh^2) x^T
    hidden = np.tanh(X @ W.T)
    residual = 2.0 * (hidden.sum(axis=1) - Y)
    expected = (residual[:, None] * (1.0 - hidden ** 2))[:, :, None] * X[:, None, :]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, loop_of_grad(layer, 0, (W, X, Y), (None, 0, 0)),
                               rtol=1e-12, atol=1e-14)
    for k in (0, N - 1):
        np.testing.assert_allclose(got[k], central_difference(layer, (W, X[k], Y[k]), 0),
                                   rtol=1e-6, atol=1e-8)


@pytest.mark.slow  # numba compiles each form's reverse code
@pytest.mark.parametrize("f, args, axes, argnums", [
    (row_layer, (X, rng.normal(size=(D, H)), 0.7), (0, None, None), 1),  # x @ V, x mapped
    (row_layer, (X, rng.normal(size=(D, H)), Y), (0, None, 0), (0, 1)),  # s mapped too
    (layer, (rng.normal(size=(N, H, D)), X[0], Y), (0, None, 0), 0),  # the matrix mapped
    (matrix_layer, (W, rng.normal(size=(N, D, 2))), (None, 0), (0, 1)),  # matrix @ matrices
    (matrix_layer, (rng.normal(size=(N, H, D)), rng.normal(size=(D, 2))), (0, None), 1),
])
def test_each_operand_form_of_a_batch_product_gives_the_loop_of_grad(f, args, axes, argnums):
    per_example = srcad.vmap(srcad.grad(f, argnums=argnums, backend="numba"), in_axes=axes)
    got = per_example(*args)
    assert "hoisted_product_0" in per_example.source(*args)
    expected = loop_of_grad(f, argnums, args, axes)
    if isinstance(argnums, tuple):
        for k in range(len(argnums)):
            np.testing.assert_allclose(got[k], np.array([e[k] for e in expected]),
                                       rtol=1e-12, atol=1e-14)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.slow
def test_one_array_passed_mapped_and_unmapped_is_read_as_each_example_sees_it():
    A = rng.normal(size=(D, D))
    per_example = srcad.vmap(srcad.grad(layer, argnums=(0, 1),
                                        backend="numba"), in_axes=(None, 0, None))
    got_w, got_x = per_example(A, A, 0.5)  # w is A, each x a row of A
    expected = loop_of_grad(layer, (0, 1), (A, A, 0.5), (None, 0, None))
    np.testing.assert_allclose(got_w, np.array([e[0] for e in expected]), rtol=1e-12)
    np.testing.assert_allclose(got_x, np.array([e[1] for e in expected]), rtol=1e-12)
    assert "hoisted_product_0" in per_example.source(A, A, 0.5)


@pytest.mark.slow
def test_a_name_the_reverse_code_binds_again_keeps_its_product_in_the_loop():
    per_example = srcad.vmap(srcad.grad(rebinds, backend="numba"), in_axes=(None, 0))
    np.testing.assert_allclose(per_example(W, X), loop_of_grad(rebinds, 0, (W, X), (None, 0)),
                               rtol=1e-12, atol=1e-14)
    assert "hoisted_product" not in per_example.source(W, X)


@pytest.mark.slow
def test_an_example_that_raises_raises_from_the_batch():
    per_example = srcad.vmap(srcad.grad(divides, backend="numba"), in_axes=(None, 0, 0))
    positive = np.abs(Y) + 0.1
    np.testing.assert_allclose(per_example(W, X, positive),
                               loop_of_grad(divides, 0, (W, X, positive), (None, 0, 0)),
                               rtol=1e-12, atol=1e-14)
    with pytest.raises(Exception, match="division by zero"):  # as grad of that example
        srcad.grad(divides, backend="numba")(W, X[3], 0.0)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        per_example(W, X, np.where(np.arange(N) == 3, 0.0, positive))


def steps_until(w, x, y):
    h = w @ x
    s = 0.0
    while s < y:  # a count of steps that differs between examples: not lifted
        s = s + np.sum(h * h) + 1.0
    return s


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_the_loop_of_a_reverse_code_not_lifted_takes_the_batch_product(backend):
    targets = np.abs(Y) * 3.0
    per_example = srcad.vmap(srcad.grad(steps_until, backend=backend), in_axes=(None, 0, 0))
    assert per_example.__srcad_vmap_form__(W, X, targets)[0] == "loop over generated code"
    assert "hoisted_product_0" in per_example.source(W, X, targets)
    np.testing.assert_allclose(per_example(W, X, targets),
                               loop_of_grad(steps_until, 0, (W, X, targets), (None, 0, 0)),
                               rtol=1e-12, atol=1e-14)


def reverse_reading_the_product(w, x, result_bar=1.0):
    return np.sum(w @ x) * result_bar, ()


def reverse_with_a_lambda_of_its_own_x(w, x, result_bar=1.0):
    apply = lambda x: w @ x  # noqa: E731 - a lambda's x is not the argument x
    return np.sum(apply(x * 2.0)) * result_bar, ()


def test_a_product_inside_a_lambda_of_a_parameter_of_the_same_name_is_not_made_early():
    from types import SimpleNamespace

    from srcad.build.batched_products import hoisted_products

    def hoisted(function):
        return hoisted_products(SimpleNamespace(function=function), {"w": 0, "x": 1},
                                [None, 0], [W, X[0]], "python")
    made = hoisted(reverse_reading_the_product)
    assert [p.name for p in made.products] == ["hoisted_product_0"]
    row = made.products[0].batch([W, X])
    np.testing.assert_allclose(made.function(W, X[2], hoisted_product_0=row[2])[0],
                               np.sum(W @ X[2]), rtol=1e-14)
    assert hoisted(reverse_with_a_lambda_of_its_own_x) is None
