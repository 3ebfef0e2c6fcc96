"""Every array primitive, over a table of shapes (broadcasting rows and columns, scalar-array
mixes, axis and keepdims combinations), checked by `check_grads` in forward, vector and
reverse mode against central finite differences (python backend).

Each case returns `np.sum(c * e)` with `c` a fixed random array of the shape of `e`, so
the check weighs every element of the primitive's result differently.
"""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

RNG = np.random.default_rng(7)


def _weights(shape):
    return np.random.default_rng(11).standard_normal(shape)


# -- elementwise operators, with broadcasting ---------------------------------------------------
def add(x, y, c):
    return np.sum(c * (x + y))


def sub(x, y, c):
    return np.sum(c * (x - y))


def mul(x, y, c):
    return np.sum(c * (x * y))


def div(x, y, c):
    return np.sum(c * (x / y))


def power(x, y, c):
    return np.sum(c * (x ** y))


def neg_square(x, y, c):
    return np.sum(c * (-x * -y) ** 2)


BINARY_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (2, 3)),
    ((2, 1), (1, 3)),
    ((2, 3), (2, 1)),
    ((), (3,)),
    ((2, 3), ()),
]


def _value(shape, positive=False):
    if shape == ():
        v = float(RNG.standard_normal())
        return abs(v) + 0.5 if positive else v
    v = RNG.standard_normal(shape)
    return np.abs(v) + 0.5 if positive else v


def _annotated(v):
    return srcad.Active(v) if isinstance(v, float) else srcad.Duplicated(v, np.zeros_like(v))


@pytest.mark.parametrize("shapes", BINARY_SHAPES, ids=str)
@pytest.mark.parametrize("f", [add, sub, mul, div, power, neg_square], ids=lambda f: f.__name__)
def test_binary_operators_broadcast(f, shapes):
    x, y = _value(shapes[0], positive=True), _value(shapes[1], positive=True)
    c = _weights(np.broadcast_shapes(np.shape(x), np.shape(y)))
    check_grads(f, _annotated(x), _annotated(y), c)


# -- elementwise NumPy functions -----------------------------------------------------------------
def f_exp(x, c):
    return np.sum(c * np.exp(x))


def f_log(x, c):
    return np.sum(c * np.log(x))


def f_sqrt(x, c):
    return np.sum(c * np.sqrt(x))


def f_sin_cos(x, c):
    return np.sum(c * np.sin(x) * np.cos(x))


def f_tanh(x, c):
    return np.sum(c * np.tanh(x))


def f_abs(x, c):
    return np.sum(c * np.abs(x - 1.0))


def f_square(x, c):
    return np.sum(c * np.square(x))


def f_log1p_expm1(x, c):
    return np.sum(c * np.log1p(x) + np.expm1(x))


def f_arctan_tan(x, c):
    return np.sum(c * np.arctan(x) + np.tan(x / 4.0))


UNARY = [f_exp, f_log, f_sqrt, f_sin_cos, f_tanh, f_abs, f_square, f_log1p_expm1, f_arctan_tan]


@pytest.mark.parametrize("shape", [(4,), (2, 3)], ids=str)
@pytest.mark.parametrize("f", UNARY, ids=lambda f: f.__name__)
def test_elementwise_functions(f, shape):
    x = _value(shape, positive=True)
    check_grads(f, _annotated(x), _weights(shape))


def f_maximum(x, y, c):
    return np.sum(c * np.maximum(x, y))


def f_minimum(x, y, c):
    return np.sum(c * np.minimum(x, y))


def f_where(x, y, c):
    return np.sum(c * np.where(x > y, x * y, y))


def f_arctan2_hypot(x, y, c):
    return np.sum(c * (np.arctan2(x, y) + np.hypot(x, y)))


@pytest.mark.parametrize("shapes", [((4,), (4,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (3,))],
                         ids=str)
@pytest.mark.parametrize("f", [f_maximum, f_minimum, f_where, f_arctan2_hypot],
                         ids=lambda f: f.__name__)
def test_binary_functions_broadcast(f, shapes):
    x, y = _value(shapes[0]), _value(shapes[1])
    c = _weights(np.broadcast_shapes(np.shape(x), np.shape(y)))
    check_grads(f, _annotated(x), _annotated(y), c)


def scalar_times_array(a, x, c):
    return np.sum(c * (a * x + a)) * a


def test_scalar_array_mix():
    x = _value((2, 3))
    check_grads(scalar_times_array, srcad.Active(0.7), _annotated(x), _weights((2, 3)))


def shift_by_scalar_then_sum(a, x):
    return np.sum(a + x) + np.mean(x - a)


def test_scalar_broadcast_into_a_reduction():
    # the tangent of `a + x` with only `a` varied is a scalar: broadcast before the sum
    check_grads(shift_by_scalar_then_sum, srcad.Active(0.3), _value((2, 3)))
    check_grads(shift_by_scalar_then_sum, srcad.Active(0.3), _annotated(_value((2, 3))))


# -- reductions ----------------------------------------------------------------------------------
def sum_all(x):
    return np.sum(np.sin(x))


def sum_axis0(x, c):
    return np.sum(c * np.sum(x * x, axis=0))


def sum_axis1_keep(x, c):
    return np.sum(c * (x - np.sum(x, axis=1, keepdims=True)) ** 2)


def sum_last_negative(x, c):
    return np.sum(c * np.sum(x * x, axis=-1))


def sum_axes_tuple(x, c):
    return np.sum(c * np.sum(x * x, axis=(0, 2)))


def mean_all(x):
    return np.mean(x * x)


def mean_axis0(x, c):
    return np.sum(c * np.mean(np.exp(x), axis=0))


def mean_keepdims(x, c):
    return np.sum(c * (x - np.mean(x, axis=0, keepdims=True)) ** 2)


def mean_positional_axis(x, c):
    return np.sum(c * np.mean(x * x, 1))


def method_forms(x, c):
    return (x * x).sum() + np.sum(c * x.mean(axis=1)) + x.sum(axis=0).sum()


REDUCTIONS = [
    (sum_all, (2, 3), None), (sum_axis0, (2, 3), (3,)), (sum_axis1_keep, (2, 3), (2, 3)),
    (sum_last_negative, (2, 3), (2,)), (sum_axes_tuple, (2, 3, 4), (3,)),
    (mean_all, (2, 3), None), (mean_axis0, (2, 3), (3,)), (mean_keepdims, (4, 2), (4, 2)),
    (mean_positional_axis, (2, 3), (2,)), (method_forms, (2, 3), (2,)),
    (sum_all, (5,), None), (mean_all, (5,), None),
]


@pytest.mark.parametrize("f, shape, weights", REDUCTIONS,
                         ids=[f"{f.__name__}-{s}" for f, s, _ in REDUCTIONS])
def test_reductions(f, shape, weights):
    x = _value(shape)
    extra = () if weights is None else (_weights(weights),)
    check_grads(f, _annotated(x), *extra)


# -- linear algebra ------------------------------------------------------------------------------
def dot(x, y, c):
    return np.sum(c * np.dot(x, y))


def matmul_operator(x, y, c):
    return np.sum(c * (x @ y))


def matmul_function(x, y, c):
    return np.sum(c * np.matmul(x, y))


def dot_method(x, y, c):
    return np.sum(c * x.dot(y))


PRODUCT_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4))]


@pytest.mark.parametrize("shapes", PRODUCT_SHAPES, ids=str)
@pytest.mark.parametrize("f", [dot, matmul_operator, matmul_function, dot_method],
                         ids=lambda f: f.__name__)
def test_products(f, shapes):
    x, y = _value(shapes[0]), _value(shapes[1])
    c = _weights(np.shape(np.dot(x, y)))
    check_grads(f, _annotated(x), _annotated(y), c)


def dot_with_scalar(a, x, c):
    return np.sum(c * np.dot(a, x))


def test_dot_with_a_float_is_a_product():
    check_grads(dot_with_scalar, srcad.Active(0.4), _annotated(_value((3,))), _weights((3,)))


def transposes(x, c):
    return np.sum(c * (x.T @ x)) + np.sum(c * (np.transpose(x) @ x))


def test_transposes():
    check_grads(transposes, _annotated(_value((3, 2))), _weights((2, 2)))


def matvec_plus_row(W, h, b, c):
    # `W @ h` broadcast against b (2, 3): its adjoint is summed over the new leading axis
    return np.sum(c * np.tanh(W @ h + b))


def test_product_broadcast_against_a_matrix():
    check_grads(matvec_plus_row, _annotated(_value((3, 4))), _annotated(_value((4,))),
                _annotated(_value((2, 3))), _weights((2, 3)))


# -- more primitives: ufunc spellings, extrema, norms, outer products, ... ------------------------
def ufunc_forms(x, y, c):
    return np.sum(c * np.divide(np.multiply(np.add(x, y), np.subtract(x, y)), np.negative(y)))


def test_ufunc_forms_of_the_operators():
    x, y = _value((2, 3), positive=True), _value((3,), positive=True)
    check_grads(ufunc_forms, _annotated(x), _annotated(y), _weights((2, 3)))


def max_all(x):
    return np.max(x) * np.min(x)


def max_axis(x, c):
    return np.sum(c * np.max(x, axis=0)) + np.sum(c * np.amin(x, 0))


def max_keepdims(x, c):
    return np.sum(c * np.exp(x - np.max(x, axis=1, keepdims=True)))


def max_method(x):
    return x.max() - x.min(axis=1).sum()


EXTREMA = [(max_all, None), (max_axis, (3,)), (max_keepdims, (4, 3)), (max_method, None)]


@pytest.mark.parametrize("f, weights", EXTREMA, ids=[f.__name__ for f, _ in EXTREMA])
def test_extrema(f, weights):
    x = _value((4, 3))
    extra = () if weights is None else (_weights(weights),)
    check_grads(f, _annotated(x), *extra)


def max_with_ties(x):
    return np.max(x)


def test_max_splits_the_seed_among_ties():
    x = np.array([1.0, 3.0, 3.0, 2.0])
    x_bar = np.zeros(4)
    srcad.autodiff(srcad.Reverse, max_with_ties, srcad.Duplicated(x, x_bar))
    np.testing.assert_array_equal(x_bar, [0.0, 0.5, 0.5, 0.0])


def norms(x, A):
    return np.linalg.norm(x) + np.linalg.norm(A) ** 2


def cumulative(x, c):
    return np.sum(c * np.cumsum(x * x))


def outer_inner_trace(x, y, A):
    return np.sum(np.outer(x, y) * A) + np.inner(x, x) * np.trace(A @ A)


def log_add_exp_and_clip(x, y, c):
    return np.sum(c * np.logaddexp(x, y)) + np.sum(c * np.clip(x, -0.5, 0.5)) \
        + np.sum(x.clip(-0.3, 0.8))


def test_norms():
    check_grads(norms, _annotated(_value((4,))), _annotated(_value((2, 3))))


def test_cumsum():
    check_grads(cumulative, _annotated(_value((5,))), _weights((5,)))


def test_outer_inner_trace():
    check_grads(outer_inner_trace, _annotated(_value((3,))), _annotated(_value((3,))),
                _annotated(_value((3, 3))))


def test_logaddexp_and_clip():
    x = np.array([-0.9, -0.2, 0.1, 0.7, 1.3])  # away from the clip bounds
    check_grads(log_add_exp_and_clip, _annotated(x), _annotated(_value((5,))), _weights((5,)))


# -- shapes --------------------------------------------------------------------------------------
def reshapes(x, c):
    n = x.shape[0]
    y = x.reshape(n * 3, 1) * 2.0
    z = np.reshape(x, (-1,)) + np.ravel(x) * x.flatten()
    return np.sum(c * y) + np.sum(z * z) + np.sum(np.reshape(x, (3, -1)) ** 2)


def new_and_squeezed_axes(x, c):
    col = np.expand_dims(x, 1)
    row = np.expand_dims(x, axis=0)
    return np.sum(c * np.sin(col * row)) + np.sum(np.squeeze(col, axis=1) ** 3)


def reshape_broadcast(x, b):
    # the reshaped operand's shape undoes broadcasting against b: (2, 3) + (2, 1)
    return np.sum(np.tanh(x.reshape(2, 3) + b))


def broadcasts_and_shape_values(x, b):
    # np.broadcast_to to a written shape and to a shape value, a reshape to a shape value
    y = np.broadcast_to(x, (3, 4)) * b
    z = np.reshape(y, b.T.shape)
    return np.sum(z * z) + np.sum(np.broadcast_to(x[0] * x[1], x.shape) * x)


def test_broadcast_to_and_reshape_to_a_shape_value():
    check_grads(broadcasts_and_shape_values, _annotated(_value((4,))),
                _annotated(_value((3, 4))))


def test_reshape_ravel_flatten():
    check_grads(reshapes, _annotated(_value((2, 3))), _weights((6, 1)))


def test_expand_dims_and_squeeze():
    check_grads(new_and_squeezed_axes, _annotated(_value((4,))), _weights((4, 4)))


def test_reshape_against_broadcasting():
    check_grads(reshape_broadcast, _annotated(_value((6,))), _annotated(_value((2, 1))))
